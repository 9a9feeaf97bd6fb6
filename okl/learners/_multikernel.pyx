# cython: language_level=3
"""Typed core of OMKC (Hoi, Jin, Zhao & Yang 2013, deterministic updating and deterministic
combination), the multi-kernel baseline of the kernel-selection paper of Li & Liao that does
not share memory.

``K`` kernel predictors, each with its OWN support set: a feature-major buffer, squared
and l1 norms and coefficients per kernel (an example two kernels both store is stored
twice).  A round computes ``f_{t,i}(x_t)`` for every kernel against its own set
(``okl._core.kernel_row``: ``d`` multiplications per stored example for the distance or
inner product, nothing shared across kernels), combines them with the weights of an
``okl.learners._experts.HedgeCore`` (``p_{t+1,i} ∝ p_{t,i} beta^{z_{t,i}}``), then updates
the kernel predictors that erred while the budget allows.  See
``okl/learners/multikernel.py`` for the algorithm.
"""

from libc.math cimport fabs
from libc.stdlib cimport malloc, free, calloc

from okl._core cimport Learner, Row, KernelParams, kernel_row
from okl._losses cimport LOSS_HINGE, loss_value
from okl.learners._experts cimport HedgeCore
from okl.learners._ksets cimport free_sets, kernel_params_array
from okl.learners._sign cimport sgn

import numpy as np

from okl._learner import Field, fields, read_fields, write_fields


cdef class OMKCCore(Learner):
    """Typed state: ``K`` separate support sets, the kernel weights and counters.

    The sets are ``K`` buffers of one capacity with a pooled (or static) budget and their
    own pickled form (``_omkc_state``): written by hand, as nested per-kernel buffers; the
    counters and weights beside them are declared (``_values_fields``).
    """
    cdef int K
    cdef public int loss_kind   # the learner's parameters (okl.params): loss, lam, beta
    cdef int B                  # total example budget (entries over all K sets)
    cdef public int per_kernel  # > 0: static allocation, each set holds <= per_kernel
    cdef int cap                # capacity of every buffer (B or per_kernel)
    cdef int total              # entries stored over all sets
    cdef public int max_total
    cdef public double lam      # step of the regression update
    cdef KernelParams* kps
    cdef double** X             # X[i][r + j * cap]: feature j of entry r of kernel i
    cdef double** sq
    cdef double** l1
    cdef double** alpha
    cdef long long** stamp
    cdef readonly int[::1] n                # entries of kernel i
    cdef double[::1] fvals                  # f_{t,i}(x_t)
    cdef double[::1] z                      # z_{t,i}: the loss Hedge sees
    cdef double* krow
    cdef readonly long long[::1] n_updates  # updates made by kernel i
    cdef public long long n_blocked         # updates refused because the budget was full
    cdef public HedgeCore hedge
    cdef bint allocated
    cdef public bint r_signs    # the R code: a kernel predicts +1 at f = 0 (variant)
    cdef public bint by_rounds  # the R code: the budget counts rounds with an update
    cdef public int rounds_used # rounds on which some kernel updated (by_rounds)
    cdef public double beta
    cdef readonly double[::1] Lw    # r_signs: the R code's weights prod beta^z, unnormalized

    _values_fields = fields(
        Field("sizes", "n", dtype=np.int64), Field("n_updates", dtype=np.int64), "n_blocked",
        ("max_size", "max_total"), Field("rounds_used", default=0),
        Field("r_weights", "Lw", dtype=np.float64, default=1.0))

    def __dealloc__(self):
        self._free_sets()
        free(self.kps)

    cdef void _free_sets(self):
        free_sets(self.K, &self.X, &self.sq, &self.l1, &self.alpha, &self.stamp)
        free(self.krow)
        self.krow = NULL

    def _setup(self):
        """The kernels (the declared list ``self.kernels``), their weights and counters;
        ``loss_kind``, ``beta``, ``lam`` and ``r_signs`` are the declared values,
        ``by_rounds`` the allocation rule the learner's ``_configure`` resolved."""
        kernels = self.kernels
        self.K = len(kernels)
        free(self.kps)
        self.kps = NULL
        self.kps = kernel_params_array(kernels)
        self.fvals = np.zeros(self.K)
        self.z = np.zeros(self.K)
        self.n_updates = np.zeros(self.K, dtype=np.int64)
        self.n = np.zeros(self.K, dtype=np.intc)
        self.Lw = np.ones(self.K)
        # beta^z = exp(-eta z) with eta = ln(1/beta)
        self.hedge = HedgeCore(self.K, -np.log(self.beta))

    def _omkc_allocate(self, int B, int per_kernel):
        """Allocate the ``K`` buffers once ``d`` and the budget are known."""
        cdef int i
        self.B = B
        self.per_kernel = per_kernel
        self.cap = per_kernel if per_kernel > 0 else B
        self.X = <double**> calloc(self.K, sizeof(double*))
        self.sq = <double**> calloc(self.K, sizeof(double*))
        self.l1 = <double**> calloc(self.K, sizeof(double*))
        self.alpha = <double**> calloc(self.K, sizeof(double*))
        self.stamp = <long long**> calloc(self.K, sizeof(long long*))
        self.krow = <double*> malloc(max(self.cap, 1) * sizeof(double))
        if self.X == NULL or self.sq == NULL or self.l1 == NULL or self.alpha == NULL \
                or self.stamp == NULL or self.krow == NULL:
            raise MemoryError()
        for i in range(self.K):
            self.X[i] = <double*> calloc(<size_t> self.cap * max(self.d, 1), sizeof(double))
            self.sq[i] = <double*> calloc(self.cap, sizeof(double))
            self.l1[i] = <double*> calloc(self.cap, sizeof(double))
            self.alpha[i] = <double*> calloc(self.cap, sizeof(double))
            self.stamp[i] = <long long*> calloc(self.cap, sizeof(long long))
            if self.X[i] == NULL or self.sq[i] == NULL or self.l1[i] == NULL or \
                    self.alpha[i] == NULL or self.stamp[i] == NULL:
                raise MemoryError()
        self.allocated = True

    # -- the round ----------------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        cdef int i, r
        cdef double f, comb = 0.0
        cdef double* p = self.hedge.p
        cdef long double total = 0.0
        if self.r_signs:
            # the R code's p = L / sum(L) (R sums in long double); its weights only when
            # they have not all underflowed (R then stops on p = 0/0)
            for i in range(self.K):
                total += self.Lw[i]
        for i in range(self.K):
            f = 0.0
            if self.allocated and self.n[i] > 0:
                kernel_row(&self.kps[i], self.X[i], self.cap, self.sq[i], self.l1[i],
                           self.n[i], self.d, x, self.krow)
                for r in range(self.n[i]):
                    f += self.alpha[i][r] * self.krow[r]
            self.fvals[i] = f
            if self.loss_kind == LOSS_HINGE:
                if self.r_signs:
                    comb += ((self.Lw[i] / <double> total) if total > 0.0 else p[i]) * \
                        (-1.0 if f < 0.0 else 1.0)
                else:
                    comb += p[i] * sgn(f)
            else:
                comb += p[i] * f
        return comb

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef bint _room(self, int i) noexcept nogil:
        if self.per_kernel > 0:
            return self.n[i] < self.per_kernel
        if self.by_rounds:
            return self.rounds_used < self.B
        return self.total < self.B

    cdef void _store(self, int i, const Row* x, double a) noexcept nogil:
        cdef int r = self.n[i], j, k
        cdef double* col = self.X[i]
        cdef Py_ssize_t ld = self.cap
        if x.indices == NULL:
            for j in range(self.d):
                col[r + j * ld] = x.data[j]
        else:
            for j in range(self.d):
                col[r + j * ld] = 0.0
            for k in range(x.nnz):
                col[r + <Py_ssize_t> x.indices[k] * ld] = x.data[k]
        self.sq[i][r] = x.sqnorm
        self.l1[i][r] = x.l1norm
        self.alpha[i][r] = a
        self.stamp[i][r] = self.t
        self.n[i] = r + 1
        self.total += 1
        if self.total > self.max_total:
            self.max_total = self.total

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int i
        cdef double fi, a
        cdef bint any_update = False
        # z_{t,i}: the mistake indicator (classification) or the absolute loss
        for i in range(self.K):
            fi = self.fvals[i]
            if self.loss_kind == LOSS_HINGE and self.r_signs:
                self.z[i] = 1.0 if (-1.0 if fi < 0.0 else 1.0) != y else 0.0
            elif self.loss_kind == LOSS_HINGE:
                self.z[i] = 1.0 if y * fi <= 0.0 else 0.0
            else:
                self.z[i] = fabs(fi - y)
        self.hedge.update(&self.z[0])
        if self.r_signs and self.loss_kind == LOSS_HINGE:
            for i in range(self.K):
                if self.z[i] != 0.0:
                    self.Lw[i] = self.Lw[i] * self.beta
        for i in range(self.K):
            fi = self.fvals[i]
            if self.loss_kind == LOSS_HINGE:
                if self.z[i] == 0.0:
                    continue
                a = y                                   # Perceptron: f_i += y k_i(x, .)
            else:
                if fi == y:
                    continue
                a = -self.lam * sgn(fi - y)            # OGD on |f_i(x) - y|
            any_update = True
            if self._room(i):
                self._store(i, x, a)
                self.n_updates[i] += 1
            else:
                self.n_blocked += 1
        if any_update and self.by_rounds:
            self.rounds_used += 1

    cdef int size(self) noexcept nogil:
        return self.total

    # -- Python surface -----------------------------------------------------------------

    def _omkc_p(self):
        return np.array([self.hedge.p[i] for i in range(self.K)])

    def _omkc_last(self):
        return np.array(self.fvals)

    def _omkc_set(self, int i):
        """``(vectors, coefficients, stamps)`` of kernel ``i``'s support set."""
        if not 0 <= i < self.K:
            raise IndexError(f"kernel index {i} out of range for K = {self.K}")
        cdef int m = self.n[i] if self.allocated else 0
        cdef int r, j
        V = np.empty((m, max(self.d, 0)))
        for r in range(m):
            for j in range(self.d):
                V[r, j] = self.X[i][r + <Py_ssize_t> j * self.cap]
        a = np.array([self.alpha[i][r] for r in range(m)])
        s = np.array([self.stamp[i][r] for r in range(m)], dtype=np.int64)
        return V, a, s

    def _omkc_norms(self, int i):
        cdef int m = self.n[i] if self.allocated else 0
        cdef int r
        return (np.array([self.sq[i][r] for r in range(m)]),
                np.array([self.l1[i][r] for r in range(m)]))

    def _omkc_state(self):
        sets = ([self._omkc_set(i) + self._omkc_norms(i) for i in range(self.K)]
                if self.allocated else None)
        return {"hedge": self.hedge, "sets": sets, "B": self.B if self.allocated else None,
                "per_kernel": self.per_kernel,
                "values": read_fields(self, self._values_fields)}

    def _omkc_restore(self, state):
        cdef int i, r, j
        self.hedge = state["hedge"]
        if state["sets"] is None:
            return
        self._omkc_allocate(state["B"], state["per_kernel"])
        write_fields(self, self._values_fields, state["values"])
        self.total = 0
        for i in range(self.K):
            V, a, s, sq, l1 = state["sets"][i]
            for r in range(V.shape[0]):
                for j in range(self.d):
                    self.X[i][r + <Py_ssize_t> j * self.cap] = V[r, j]
                self.sq[i][r] = sq[r]
                self.l1[i][r] = l1[r]
                self.alpha[i][r] = a[r]
                self.stamp[i][r] = s[r]
            self.total += self.n[i]
