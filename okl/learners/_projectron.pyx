# cython: language_level=3
"""Typed core of the Projectron and Projectron++ (Orabona, Keshet & Caputo, ICML 2008;
*Bounded Kernel-Based Online Learning*, JMLR 10, 2009)."""

from libc.math cimport sqrt, fmax, fmin
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from scipy.linalg.cython_blas cimport ddot

from okl._core cimport Learner, Row, GramCholesky, kernel_self
from okl._learner import Field, fields

import numpy as np

cdef extern from "../_vtri.h" nogil:
    void okl_trsv_lower(const double* L, int ld, int n, double* x)
    void okl_trsv_upper(const double* U, int ld, int n, double* x)

# what a margin error (0 < y f < 1) triggers
cdef enum:
    MARGIN_NONE = 0        # Projectron: updates on mistakes only
    MARGIN_PAPER = 1       # Projectron++: the projected step of size tau_t, never adds
    MARGIN_FULL = 2        # the Projectron step itself (project or add), as in the
                           # Ahpatron authors' released code

# an ALD residual ||delta_t||^2 <= ALD_TOL * k(x, x) is exact dependence up to round-off
cdef double ALD_TOL = 1e-10

cdef int INC1 = 1


cdef class ProjectronCore(Learner):
    """``f_t = sum_{i in S_t} alpha_i k(x_i, .)`` with ``K_S = L L^T`` kept by ``GramCholesky``.

    The support set and the dictionary hold the same points in the same order:
    a point enters both (``gram.add`` then ``sv.add``) or neither, and nothing is
    ever removed.  ``beta`` is scratch: first ``c = L^{-1} k_S(x_t)`` (which gives
    ``||delta_t||^2 = k(x_t, x_t) - ||c||^2`` and is what ``gram.add`` appends), then,
    for a projected step, ``d* = K_S^{-1} k_S(x_t) = L^{-T} c``.

    The two triangular solves go through ``okl/_vtri.h`` (column sweeps that
    vectorize) rather than BLAS ``dtrsv``; for the ``L^T`` solve the core keeps
    ``U = L^T`` column-major beside the dictionary's ``L`` (appending a point writes
    row ``n`` of ``L`` and column ``n`` of ``U``: the same numbers).
    """
    cdef public double eta      # the learner's parameters (okl.params)
    cdef public int margin      # MARGIN_*: ProjectronPP's margin_update; the Projectron
                                # declares none and keeps MARGIN_NONE, a new core's 0
    cdef GramCholesky gram
    cdef double* beta
    cdef int beta_size
    cdef double* U          # L^T, column-major, leading dimension u_cap
    cdef int u_cap
    cdef public long long n_projected, n_added, n_margin

    _state_fields = fields(Field("gram", "dictionary", put="_put_dictionary"),
                           "n_projected", "n_added", "n_margin")

    def __dealloc__(self):
        free(self.beta)
        free(self.U)

    cdef int _reserve_U(self, int need, int n) noexcept nogil:
        """Room for ``need`` points in ``U`` (doubling), keeping its first ``n`` columns;
        0, or -1 if out of memory."""
        cdef int cap = self.u_cap if self.u_cap > 0 else 64, j
        cdef double* V
        if need <= self.u_cap:
            return 0
        while cap < need:
            cap *= 2
        V = <double*> malloc(<size_t> cap * cap * sizeof(double))
        if V == NULL:
            return -1
        for j in range(n):
            memcpy(V + <Py_ssize_t> j * cap, self.U + <Py_ssize_t> j * self.u_cap,
                   (j + 1) * sizeof(double))
        free(self.U)
        self.U = V
        self.u_cap = cap
        return 0

    cdef int _sync_U(self) noexcept nogil:
        """``U = L^T`` from the dictionary's factor (after a restore). 0 or -1."""
        cdef int n = self.gram.n, i, j, ld = self.gram.capacity
        free(self.U)
        self.U = NULL
        self.u_cap = 0
        if self._reserve_U(n if n > 0 else 1, 0) != 0:
            return -1
        for j in range(n):
            for i in range(j + 1):
                self.U[i + <Py_ssize_t> j * self.u_cap] = self.gram.M[j + <Py_ssize_t> i * ld]
        return 0

    def _setup(self):
        self.gram = GramCholesky(64, True)
        free(self.U)
        self.U = NULL
        self.u_cap = 0
        self.n_projected = 0
        self.n_added = 0
        self.n_margin = 0

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)        # leaves k_S(x) in sv.krow

    cdef double loss(self, double y, double f) noexcept nogil:
        if self.margin == MARGIN_NONE:
            return fmax(0.0, -y * f)    # Perceptron loss
        return fmax(0.0, 1.0 - y * f)  # hinge loss, the l of Projectron++

    cdef double residual(self, const Row* x, double* kxx) noexcept nogil:
        """``||delta_t||^2 = k(x,x) - k^T K^{-1} k``, the squared distance of ``k(x_t, .)``
        to the span of S; fills ``beta = c = L^{-1} k`` and ``kxx``.

        Returns -1 if the scratch buffer cannot grow.
        """
        cdef int n = self.sv.n
        cdef double res
        cdef double* p
        if n > self.beta_size:
            p = <double*> realloc(self.beta, 2 * n * sizeof(double))
            if p == NULL:
                return -1.0
            self.beta = p
            self.beta_size = 2 * n
        kxx[0] = kernel_self(&self.kp, x)
        if n > 0:
            # c = L^{-1} k, as gram.residual computes it, by okl_trsv_lower
            memcpy(self.beta, self.sv.krow, n * sizeof(double))
            okl_trsv_lower(self.gram.M, self.gram.capacity, n, self.beta)
            res = fmax(kxx[0] - ddot(&n, self.beta, &INC1, self.beta, &INC1), 0.0)
        else:
            res = fmax(kxx[0], 0.0)
        if res <= ALD_TOL * kxx[0]:
            res = 0.0
        return res

    cdef void step(self, const Row* x, double y, double res, double kxx) noexcept nogil:
        """The Projectron step: project if ``||delta_t|| <= eta``, else add ``x_t``."""
        cdef int i
        cdef double* a = self.sv.alpha
        cdef int n = self.sv.n
        if sqrt(res) <= self.eta:
            if n > 0:                               # c -> d* = K^{-1} k = L^{-T} c
                okl_trsv_upper(self.U, self.u_cap, n, self.beta)
            for i in range(n):
                a[i] += y * self.beta[i]
            self.n_projected += 1
            return
        if self._reserve_U(n + 1, n) != 0:
            self.error = 1
            return
        # gram.add copies the kernel row before sv.add may move it
        if self.gram.add(self.sv.krow, kxx, self.beta, res) < 0:
            self.error = 1
            return
        if self.sv.add(x, y, self.t) < 0:
            self.gram.remove(self.gram.n - 1)     # keep the two in lockstep
            self.error = 1
            return
        # column n of U = row n of L: [c, sqrt(res)] (no c for the first vector: beta is
        # still NULL then, and memcpy from NULL is undefined even for 0 bytes)
        if n > 0:
            memcpy(self.U + <Py_ssize_t> n * self.u_cap, self.beta, n * sizeof(double))
        self.U[n + <Py_ssize_t> n * self.u_cap] = self.gram.M[n + <Py_ssize_t> n * self.gram.capacity]
        self.n_added += 1

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double m = y * f
        cdef double kxx, res, delta, loss, pk2, tau
        cdef double* a
        cdef int i, n
        if m <= 0.0 or (self.margin == MARGIN_FULL and m < 1.0):
            res = self.residual(x, &kxx)
            if res < 0.0:
                self.error = 1
                return
            self.step(x, y, res, kxx)
            if m > 0.0:
                self.n_margin += 1
            return
        if self.margin != MARGIN_PAPER or m >= 1.0:
            return
        # Projectron++ margin error, 0 < y f < 1: f += y tau P(k(x, .)) if l > ||delta|| / eta
        loss = 1.0 - m
        res = self.residual(x, &kxx)
        if res < 0.0:
            self.error = 1
            return
        delta = sqrt(res)
        if not self.eta * loss > delta:
            return
        n = self.sv.n
        pk2 = ddot(&n, self.beta, &INC1, self.beta, &INC1)    # ||P k(x, .)||^2 = ||c||^2
        if not pk2 > 0.0:
            return
        okl_trsv_upper(self.U, self.u_cap, n, self.beta)       # d* = L^{-T} c
        tau = fmin(fmin(loss / pk2, 2.0 * (loss - delta / self.eta) / pk2), 1.0)
        a = self.sv.alpha
        for i in range(n):
            a[i] += y * tau * self.beta[i]
        self.n_margin += 1

    # -- inspection and pickling --------------------------------------------------

    def _put_dictionary(self, GramCholesky gram):
        """Restore the dictionary (and the ``U = L^T`` kept beside it)."""
        self.gram = gram
        if self._sync_U() != 0:
            raise MemoryError("cannot restore the Projectron's factor")

    def _upper(self):
        """A copy of the kept ``U = L^T`` (for tests: it must equal ``dictionary.factor.T``)."""
        cdef int n = self.gram.n, i, j
        out = np.zeros((n, n))
        cdef double[:, ::1] o = out
        for j in range(n):
            for i in range(j + 1):
                o[i, j] = self.U[i + <Py_ssize_t> j * self.u_cap]
        return out

    @property
    def dictionary(self):
        """The ``GramCholesky`` holding ``K_S`` and its Cholesky factor for the support set."""
        return self.gram
