# cython: language_level=3
"""Typed cores of Pegasos without a budget, the baseline of BSGD's tables (Wang, Crammer
& Vucetic, JMLR 13, 2012, Section 7.1: "non-budgeted kernelized Pegasos") and of
BudgetedSVM's ``budgetedsvm-train -A 0`` (linear multiclass Pegasos, ``trainPegasos`` of
``mm_algs.cpp``).  The learners: ``okl/learners/pegasos.py``.

* ``KernelPegasosCore``: binary, ``f = sum_j alpha_j k(x_j, .)`` in the support set;
  ``eta_t = 1 / (lam t)``, every coefficient times ``1 - 1/t``, then ``x_t`` joins with
  ``y_t eta_t`` when ``y_t f(x_t) < 1``.
* ``MulticlassKernelPegasosCore``: Crammer-Singer, on ``MulticlassCore``'s one support
  set (one kernel row a round for all classes), ``x_t`` joins with ``+eta_t`` at ``y_t``
  and ``-eta_t`` at the best wrong class ``r_t`` when ``1 + f_r - f_y > 0``.
* ``LinearPegasosCore``: one weight vector per class, ``w_c = deg_c v_c`` (the shrink
  is one multiplication per class), a bias coordinate of value ``bias`` kept as the last
  coordinate of ``v_c``; dot products over a CSR row's non-zeros.
"""

from libc.math cimport fmax
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

from okl._core cimport Learner, Row
from okl._learner import Field, fields
from okl.learners._budgetedsvm cimport first_example, row_add, row_dot
from okl.learners._multiclass cimport MulticlassCore


# ----------------------------------------------------------------------------------
# kernel Pegasos, binary
# ----------------------------------------------------------------------------------

cdef class KernelPegasosCore(Learner):
    """Binary kernel Pegasos without projection ([P] Algorithm 1 with no budget).
    ``bsvm`` (variant "budgetedsvm"): BudgetedSVM's two-class run as ``alpha =
    alpha^(+1) - alpha^(-1)``: lambda acts as ``lam / 2``, and the first example joins
    with ``2 y`` without a shrink."""
    cdef public double lam
    cdef public bint bsvm
    cdef public double lam_eff          # the lambda the rounds use
    cdef public long long n_updates

    _state_fields = fields("n_updates")

    def _setup(self):
        self.lam_eff = 0.5 * self.lam if self.bsvm else self.lam
        self.n_updates = 0

    cdef double loss(self, double y, double f) noexcept nogil:
        return fmax(0.0, 1.0 - y * f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef long long t = self.t
        cdef double eta_t, shrink
        if self.bsvm and t == 1:
            # bsgd.cpp:724-738: alpha^(y) = 1, alpha^(other) = -1, no shrink
            if self.sv.add(x, 2.0 * y, t) < 0:
                self.error = 1
                return
            self.n_updates += 1
            return
        eta_t = 1.0 / (<double> t * self.lam_eff)
        shrink = 1.0 - 1.0 / <double> t
        if shrink != 1.0:
            self.sv.scale(shrink)
        if 1.0 - y * f > 0.0:
            if self.sv.add(x, y * eta_t, t) < 0:
                self.error = 1
                return
            self.n_updates += 1


# ----------------------------------------------------------------------------------
# kernel Pegasos, multiclass (Crammer-Singer)
# ----------------------------------------------------------------------------------

cdef class MulticlassKernelPegasosCore(MulticlassCore):
    """Multiclass kernel Pegasos ([P] Section 5 with no budget): every coefficient times
    ``1 - 1/t``; on ``1 + f_r - f_y > 0`` (``r`` the best wrong class, lowest index on
    ties) ``x_t`` joins with ``+eta_t`` at ``y`` and ``-eta_t`` at ``r``.  ``bsvm``: the
    first example joins with ``+1`` at ``y`` and ``-1`` at ``(y + 1) mod K`` and the
    round neither scores nor shrinks (bsgd.cpp:724-738)."""
    cdef public double lam
    cdef public bint bsvm
    cdef public long long n_updates

    _state_fields = fields("n_updates")

    def _setup(self):
        self.n_updates = 0

    cdef double mc_loss(self, int y) noexcept nogil:
        if self.bsvm and self.t == 1:
            return 1.0
        return fmax(0.0, 1.0 + self.s[self.best(y)] - self.s[y])

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef long long t = self.t
        cdef int r, i
        cdef double margin, eta_t, shrink
        if self.bsvm and t == 1:
            if first_example(self, x, y) < 0:
                return
            self.n_updates += 1
            return
        r = self.best(y)
        margin = 1.0 + self.s[r] - self.s[y]
        eta_t = 1.0 / (<double> t * self.lam)
        shrink = 1.0 - 1.0 / <double> t
        if shrink != 1.0:
            self.scale_coefs(shrink)
        if margin > 0.0:
            i = self.add_vector(x)
            if i < 0:
                return
            self.add_coef(i, y, eta_t)
            self.add_coef(i, r, -eta_t)
            self.n_updates += 1


# ----------------------------------------------------------------------------------
# linear multiclass Pegasos (budgetedsvm-train -A 0)
# ----------------------------------------------------------------------------------

cdef class LinearPegasosCore(MulticlassCore):
    """``s_c = deg_c <v_c, [x, bias]>``; all ``deg_c *= 1 - eta_t lam``; on
    ``1 + s_r - s_y > 0``: ``w_r -= eta_t [x, bias]``, then ``w_y += eta_t [x, bias]``
    (``v += x / (+-deg / eta_t)``).  ``bsvm``: ``eta_t = 1 / ((t + 1) lam)``; else
    ``1 / (lam t)`` (at ``t = 1`` the shrink is 0: the weights restart from 0)."""
    cdef public double lam
    cdef public double bias
    cdef public bint bsvm
    cdef public long long n_updates
    cdef int D                  # d, plus 1 for the bias coordinate
    cdef double* V              # K x D, row c = v_c
    cdef double* deg            # K
    cdef double* dots           # K: <v_c, x> of the last scored row

    _state_fields = fields("n_updates",
                           Field("weights", get="_weights_state", put="_put_weights"))

    def __cinit__(self, *args, **kwargs):
        self.V = NULL
        self.deg = NULL
        self.dots = NULL

    def __dealloc__(self):
        self._free()

    cdef void _free(self) noexcept nogil:
        free(self.V)
        free(self.deg)
        free(self.dots)
        self.V = NULL
        self.deg = NULL
        self.dots = NULL

    def _setup(self):
        self._free()
        self.n_updates = 0

    def _linear_allocate(self):
        """Zero weights (``d`` and the classes known)."""
        cdef int c, K = self.K
        if K < 2 or self.d < 0:
            raise ValueError("the classes and the dimension must be known")
        self._free()
        self.D = self.d + (1 if self.bias != 0.0 else 0)
        self.V = <double*> malloc(<size_t> K * self.D * sizeof(double))
        self.deg = <double*> malloc(K * sizeof(double))
        self.dots = <double*> malloc(K * sizeof(double))
        if self.V == NULL or self.deg == NULL or self.dots == NULL:
            self._free()
            raise MemoryError(f"cannot allocate {K} weight vectors of dimension {self.D}")
        memset(self.V, 0, <size_t> K * self.D * sizeof(double))
        for c in range(K):
            self.deg[c] = 1.0
            self.dots[c] = 0.0

    cdef void class_scores(self, const Row* x) noexcept nogil:
        cdef int c
        if self.V == NULL:
            for c in range(self.K):
                self.s[c] = 0.0
        else:
            for c in range(self.K):
                self.dots[c] = row_dot(self.V + <Py_ssize_t> c * self.D, x, self.d,
                                       self.bias)
                self.s[c] = self.deg[c] * self.dots[c]
        self.yhat = self.best(-1)

    cdef double mc_loss(self, int y) noexcept nogil:
        return fmax(0.0, 1.0 + self.s[self.best(y)] - self.s[y])

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef long long t = self.t
        cdef int c, r = self.best(y)
        cdef double denom, shrink, margin = 1.0 + self.s[r] - self.s[y]
        if self.V == NULL:
            return
        if self.bsvm:
            denom = (<double> t + 1.0) * self.lam          # mm_algs.h:70-73
            shrink = 1.0 - 1.0 / (<double> t + 1.0)
        else:
            denom = <double> t * self.lam
            shrink = 1.0 - 1.0 / <double> t
        for c in range(self.K):                            # mm_algs.cpp:591-594
            self.deg[c] = self.deg[c] * shrink
            if self.deg[c] == 0.0:                         # t = 1 of the paper's rule
                memset(self.V + <Py_ssize_t> c * self.D, 0, self.D * sizeof(double))
                self.deg[c] = 1.0
        if margin > 0.0:                                   # mm_algs.cpp:598-609
            row_add(self.V + <Py_ssize_t> r * self.D, x, self.d, self.bias,
                    -(denom * self.deg[r]))
            row_add(self.V + <Py_ssize_t> y * self.D, x, self.d, self.bias,
                    denom * self.deg[y])
            self.n_updates += 1

    cdef int size(self) noexcept nogil:
        return self.K

    # -- inspection and pickling ----------------------------------------------------

    def _weights_state(self):
        """``(V, deg)``: ``w_c = deg[c] V[c]`` (``K x D``, the bias coordinate last);
        None before the first example."""
        if self.V == NULL:
            return None
        V = np.empty((self.K, self.D))
        deg = np.empty(self.K)
        cdef double[:, ::1] o = V
        cdef Py_ssize_t c, j
        for c in range(self.K):
            deg[c] = self.deg[c]
            for j in range(self.D):
                o[c, j] = self.V[c * self.D + j]
        return V, deg

    def _put_weights(self, value):
        cdef Py_ssize_t c, j
        if value is None:
            return
        V, deg = value
        V = np.ascontiguousarray(V, dtype=np.float64)
        self._linear_allocate()
        if V.shape != (self.K, self.D):
            raise ValueError(f"the state's weights have shape {V.shape}, the learner's "
                             f"({self.K}, {self.D})")
        for c in range(self.K):
            self.deg[c] = deg[c]
            for j in range(self.D):
                self.V[c * self.D + j] = V[c, j]

    def _linear_weights(self):
        """``W`` (``K x D``): row ``c`` the weight vector of class ``c``, the bias
        coordinate last; None before the first example."""
        state = self._weights_state()
        if state is None:
            return None
        V, deg = state
        return V * deg[:, None]
