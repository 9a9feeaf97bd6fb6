# cython: language_level=3
"""Typed cores of BOMKR and BOMKR-V: budgeted online multiple kernel regression (Sahoo, Hoi &
Li, KDD 2014) as Li & Liao ran them in the comparisons of their kernel-selection paper
(``table4/BOMKR.R``, ``table4/BOMKR-V.R`` of JunfLi-TJU/ACML2021-Journal-Track).

* ``BOMKRCore``: ``K`` NORMA regressors (epsilon-insensitive loss with the adaptive
  ``epsilon`` of the nu-trick), each with its **own** support set of at most ``per_kernel``
  entries (``okl.learners._ksets.KernelSets``), the oldest entry replaced once full; a
  round evaluates every kernel against its own set (``d`` multiplications per stored
  entry, nothing shared).
* ``BOMKRVCore``: ``K`` absolute-loss OGD regressors that **share** one support set of at
  most ``B`` vectors (and keep ``K`` coefficient vectors); a round computes one row of
  squared distances and ``K`` exponentials of it (``okl._core.sq_dist_row``,
  ``exp_scaled``), the oldest vector replaced once full.

Both combine the ``K`` predictions with weights ``p_{t+1,i} ∝ p_{t,i} beta^{|f_{t,i}(x_t) -
y_t|}``.  See ``okl/learners/bomkr.py`` for the algorithms.
"""

from libc.math cimport exp, fabs, log
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy

from okl._core cimport (Learner, Row, KernelParams, SupportSet, Stream, sq_dist_row,
                        exp_scaled, kernel_row)
from okl._losses cimport LOSS_ABSOLUTE, loss_value
from okl.learners._ksets cimport KernelSets, kernel_params_array
from okl.learners._sign cimport sgn
from scipy.linalg.cython_blas cimport ddot, dscal

import numpy as np

from okl._learner import Field, fields

cdef int INC1 = 1


cdef inline void from_kernel_row(const KernelParams* kp, SupportSet S, const Row* x,
                                 double* out) noexcept nogil:
    """``out = k(x, S)`` by ``okl._core.kernel_row`` (the unshared reference path)."""
    kernel_row(kp, S.X, S.capacity, S.sqnorm, S.l1norm, S.n, S.d, x, out)


cdef class _CombinedRegressors(Learner):
    """The weights shared by both cores: ``p``, the last ``f_{t,i}(x_t)`` and the rule
    ``p_{t+1,i} ∝ p_{t,i} beta^{err_{t,i}}``."""
    cdef int K
    cdef readonly double[::1] p         # p_t
    cdef readonly double[::1] fvals     # f_{t,i}(x_t)
    cdef double[::1] errs               # |f_{t,i}(x_t) - y_t|
    cdef readonly double[::1] cum_err   # sum_t |f_{t,i}(x_t) - y_t| per kernel
    cdef public double eta_             # step size
    cdef public double lam_             # regularization: coefficients decay by (1 - eta lam)
    cdef public double beta_            # discount of the weights
    cdef public long long T_            # the horizon they were set for (0: not yet)
    cdef public bint allocated

    # the keys and order of the pickles written before the state was declared
    _head_fields = fields(Field("cum_err", dtype=np.float64), ("T", "T_"), ("eta", "eta_"),
                          ("lam", "lam_"), ("beta", "beta_"))
    _tail_fields = fields(Field("p", dtype=np.float64), Field("fvals", dtype=np.float64),
                         "allocated")

    def _setup(self):
        """The weights of the ``K`` kernels (the declared list ``self.kernels``)."""
        cdef int K = len(self.kernels)
        self.K = K
        self.p = np.full(K, 1.0 / K)
        self.fvals = np.zeros(K)
        self.errs = np.zeros(K)
        self.cum_err = np.zeros(K)

    def _comb_set_horizon(self, long long T, double eta, double lam, double beta):
        self.T_ = T
        self.eta_ = eta
        self.lam_ = lam
        self.beta_ = beta

    def _horizon(self):
        return self.T_

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(LOSS_ABSOLUTE, y, f)

    cdef double combine(self) noexcept nogil:
        """``sum_i p_{t,i} f_{t,i}(x_t)``."""
        cdef int i
        cdef double f = 0.0
        for i in range(self.K):
            f += self.p[i] * self.fvals[i]
        return f

    cdef void reweight(self, double y) noexcept nogil:
        """``errs`` and ``p_{t+1,i} = p_{t,i} beta^{err_i} / sum_j p_{t,j} beta^{err_j}``
        (the factor ``beta^{min_j err_j}`` is divided out first: no underflow)."""
        cdef int i
        cdef double m, z = 0.0, lb = log(self.beta_)
        for i in range(self.K):
            self.errs[i] = fabs(self.fvals[i] - y)
            self.cum_err[i] += self.errs[i]
        m = self.errs[0]
        for i in range(1, self.K):
            if self.errs[i] < m:
                m = self.errs[i]
        for i in range(self.K):
            self.p[i] = self.p[i] * exp((self.errs[i] - m) * lb)
            z += self.p[i]
        for i in range(self.K):
            self.p[i] /= z

    @property
    def p_(self):
        """The current combination weights ``p_t`` (a copy)."""
        return np.array(self.p)

    def _last_scores(self):
        return np.array(self.fvals)


cdef class BOMKRCore(_CombinedRegressors):
    """``K`` NORMA regressors on separate support sets (FIFO replacement once full)."""
    cdef public KernelSets sets         # the K support sets
    cdef public int per_kernel
    cdef public double nu               # the learner's parameters (okl.params)
    cdef public double epsilon          # epsilon_1
    cdef readonly double[::1] eps       # epsilon_{t,i}
    cdef readonly int[::1] flag         # next slot to overwrite once set i is full
    cdef readonly long long[::1] n_updates    # rounds with |f_i - y| > eps_i
    cdef readonly long long[::1] n_replaced   # of which replaced the oldest entry

    _state_fields = _CombinedRegressors._head_fields + fields(
        Field("epsilon", "eps", dtype=np.float64), Field("n_updates", dtype=np.int64),
        Field("n_replaced", dtype=np.int64), Field("sizes", get="_sizes"),
        "per_kernel") + _CombinedRegressors._tail_fields + fields(
        Field("flag", dtype=np.int64), "sets")

    def _setup(self):
        """The weights, ``epsilon_{1,i}`` and the counters of the ``K`` kernels; ``nu`` and
        ``epsilon`` are the declared values."""
        cdef int K
        _CombinedRegressors._setup(self)
        K = self.K
        self.eps = np.full(K, self.epsilon)
        self.flag = np.zeros(K, dtype=np.intc)
        self.n_updates = np.zeros(K, dtype=np.int64)
        self.n_replaced = np.zeros(K, dtype=np.int64)

    def _bomkr_allocate(self, kernels, int per_kernel):
        self.per_kernel = per_kernel
        self.sets = KernelSets(kernels, self.d, [per_kernel] * self.K, False)
        self.allocated = True

    cdef double score(self, const Row* x) noexcept nogil:
        cdef int i
        if not self.allocated:
            return 0.0
        for i in range(self.K):
            self.fvals[i] = self.sets.score(i, x)
        return self.combine()

    cdef int size(self) noexcept nogil:
        return self.sets.total() if self.allocated else 0

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int i, j
        cdef double fi, err, c = 1.0 - self.eta_ * self.lam_, a
        for i in range(self.K):
            fi = self.fvals[i]
            err = fabs(fi - y)
            if err > self.eps[i]:
                a = -self.eta_ * sgn(fi - y)
                self.sets.scale(i, c)
                if self.sets.n[i] < self.per_kernel:
                    self.sets.add(i, x, a, self.t)
                else:
                    # remove the oldest support vector: slot flag_i, cycling
                    j = self.flag[i]
                    self.sets.replace(i, j, x, a, self.t)
                    self.flag[i] = j + 1 if j + 1 < self.sets.n[i] else 0
                    self.n_replaced[i] += 1
                self.eps[i] += (1.0 - self.nu) * self.eta_
                self.n_updates[i] += 1
            else:
                self.eps[i] -= self.nu * self.eta_
                self.sets.scale(i, c)
        self.reweight(y)

    def _sizes(self):
        return self.sets.sizes if self.allocated else np.zeros(self.K, dtype=np.int64)


cdef class BOMKRVCore(_CombinedRegressors):
    """``K`` absolute-loss OGD regressors sharing one support set (FIFO once full)."""
    cdef double* neg_gamma              # -1 / (2 sigma_i^2)
    cdef double* A                      # A[i * capacity + j]: coefficient of vector j, kernel i
    cdef double* dist                   # ||x_t - s_j||^2, one row
    cdef double* krow                   # one kernel's row
    cdef public int capacity            # B, the shared budget (0 until allocated)
    cdef public int flag                # next slot to overwrite once the set is full
    cdef public long long n_replaced
    cdef public bint shared             # one distance row for all kernels (False: K rows)
    cdef KernelParams* kps

    _state_fields = _CombinedRegressors._head_fields + fields(
        "n_replaced", "flag", ("B", "capacity")) + _CombinedRegressors._tail_fields + fields(
        Field("A", "coefficients_", put="_put_coefficients"), "shared")

    def __cinit__(self, *args, **kwargs):
        self.shared = True

    def __dealloc__(self):
        free(self.neg_gamma)
        free(self.A)
        free(self.dist)
        free(self.krow)
        free(self.kps)

    def _setup(self):
        """The weights and the kernels' widths (``self.kernels``, Gaussian)."""
        cdef int i, K
        _CombinedRegressors._setup(self)
        K = self.K
        free(self.kps)
        self.kps = NULL
        self.kps = kernel_params_array(self.kernels)
        free(self.neg_gamma)
        self.neg_gamma = <double*> malloc(K * sizeof(double))
        if self.neg_gamma == NULL:
            raise MemoryError()
        for i in range(K):
            self.neg_gamma[i] = -self.kps[i].gamma

    def _bomkrv_allocate(self, int B):
        free(self.A)
        free(self.dist)
        free(self.krow)
        self.A = <double*> calloc(<size_t> self.K * B, sizeof(double))
        self.dist = <double*> malloc(B * sizeof(double))
        self.krow = <double*> malloc(B * sizeof(double))
        if self.A == NULL or self.dist == NULL or self.krow == NULL:
            raise MemoryError()
        self.capacity = B
        self.allocated = True

    def _bomkrv_use_shared_distances(self, bint shared):
        """True (default): one distance row, K exponentials; False: K kernel rows
        (``okl._core.kernel_row`` per kernel), the reference of the benchmarks.  Both give
        bit-identical kernel values."""
        self.shared = shared

    cdef double score(self, const Row* x) noexcept nogil:
        cdef int i, n
        if not self.allocated or self.sv.n == 0:
            for i in range(self.K):
                self.fvals[i] = 0.0
            return 0.0
        n = self.sv.n
        if self.shared:
            sq_dist_row(self.sv.X, self.sv.capacity, self.sv.sqnorm, n, self.sv.d, x,
                        self.dist)
        for i in range(self.K):
            _kernel_row_i(self, i, x, n)
            self.fvals[i] = ddot(&n, self.A + <Py_ssize_t> i * self.capacity, &INC1, self.krow, &INC1)
        return self.combine()

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int i, j, n = self.sv.n
        cdef double c = 1.0 - self.eta_ * self.lam_
        self.reweight(y)
        if n > 0:
            for i in range(self.K):
                dscal(&n, &c, self.A + <Py_ssize_t> i * self.capacity, &INC1)
        if n < self.capacity:
            j = self.sv.add(x, 0.0, self.t)
            if j < 0:
                self.error = 1
                return
        else:
            j = self.flag
            self.sv.replace(j, x, 0.0, self.t)
            self.flag = j + 1 if j + 1 < self.capacity else 0
            self.n_replaced += 1
        for i in range(self.K):
            self.A[<Py_ssize_t> i * self.capacity + j] = -self.eta_ * sgn(self.fvals[i] - y)

    @property
    def coefficients_(self):
        """The ``K`` coefficient vectors over the shared set: shape ``(K, |S|)``."""
        cdef int i, j, n = self.sv.n if self.allocated else 0
        out = np.zeros((self.K, n))
        for i in range(self.K):
            for j in range(n):
                out[i, j] = self.A[<Py_ssize_t> i * self.capacity + j]
        return out

    def _bomkrv_kernel_rows(self, X):
        """``[k_i(x, S) for i]`` for each row of the validated ``X`` via the path the round
        uses: shape ``(K, len(X), |S|)``."""
        from okl._core import _stream
        cdef Stream s = _stream(X, self.sv.d)
        cdef int n = self.sv.n, i
        cdef Py_ssize_t t
        cdef Row r
        out = np.empty((self.K, s.T, n))
        cdef double[:, :, ::1] o = out
        if n == 0:
            return out
        for t in range(s.T):
            s.row(t, &r)
            sq_dist_row(self.sv.X, self.sv.capacity, self.sv.sqnorm, n, self.sv.d, &r,
                        self.dist)
            for i in range(self.K):
                _kernel_row_i(self, i, &r, n)
                memcpy(&o[i, t, 0], self.krow, n * sizeof(double))
        return out

    def _put_coefficients(self, A):
        """Inverse of ``coefficients_`` (after ``allocated`` and ``B`` are restored)."""
        cdef int i, j
        if self.allocated:
            self._bomkrv_allocate(self.capacity)
            for i in range(self.K):
                for j in range(A.shape[1]):
                    self.A[<Py_ssize_t> i * self.capacity + j] = A[i, j]


cdef inline void _kernel_row_i(BOMKRVCore c, int i, const Row* x, int n) noexcept nogil:
    """``c.krow = k_i(x, S)`` over the ``n`` shared vectors: from the squared distances
    ``c.dist`` of ``x`` (already computed) when the Gaussian kernels share them, else by
    ``kernel_row``."""
    if c.shared:
        memcpy(c.krow, c.dist, n * sizeof(double))
        exp_scaled(c.krow, n, c.neg_gamma[i])
    else:
        from_kernel_row(&c.kps[i], c.sv, x, c.krow)
