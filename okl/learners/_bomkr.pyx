# cython: language_level=3
"""Typed cores of BOMKR and BOMKR-V: budgeted online multiple kernel regression (Sahoo, Hoi &
Li, KDD 2014) as Li & Liao ran it in seed 004's comparisons (``table4/BOMKR.R``,
``table4/BOMKR-V.R`` of JunfLi-TJU/ACML2021-Journal-Track).

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
from okl.learners._ksets cimport KernelSets
from scipy.linalg.cython_blas cimport ddot, dscal

import numpy as np

cdef int INC1 = 1


cdef inline void from_kernel_row(const KernelParams* kp, SupportSet S, const Row* x,
                                 double* out) noexcept nogil:
    """``out = k(x, S)`` by ``okl._core.kernel_row`` (the unshared reference path)."""
    kernel_row(kp, S.X, S.capacity, S.sqnorm, S.l1norm, S.n, S.d, x, out)


cdef inline double _sgn(double v) noexcept nogil:
    if v > 0.0:
        return 1.0
    if v < 0.0:
        return -1.0
    return 0.0


cdef class _CombinedRegressors(Learner):
    """The weights shared by both cores: ``p``, the last ``f_{t,i}(x_t)`` and the rule
    ``p_{t+1,i} ∝ p_{t,i} beta^{err_{t,i}}``."""
    cdef int K
    cdef double* p              # p_t
    cdef double* fvals          # f_{t,i}(x_t)
    cdef double* errs           # |f_{t,i}(x_t) - y_t|
    cdef double* cum_err        # sum_t |f_{t,i}(x_t) - y_t| per kernel
    cdef double eta             # step size
    cdef double lam             # regularization: coefficients decay by (1 - eta lam)
    cdef double beta            # discount of the weights
    cdef long long T
    cdef bint allocated

    def __cinit__(self, *args, **kwargs):
        self.K = 0
        self.p = self.fvals = self.errs = self.cum_err = NULL
        self.allocated = False
        self.T = 0

    def __dealloc__(self):
        free(self.p)
        free(self.fvals)
        free(self.errs)
        free(self.cum_err)

    def _comb_setup(self, int K):
        cdef int i
        free(self.p)
        free(self.fvals)
        free(self.errs)
        free(self.cum_err)
        self.p = <double*> malloc(K * sizeof(double))
        self.fvals = <double*> calloc(K, sizeof(double))
        self.errs = <double*> calloc(K, sizeof(double))
        self.cum_err = <double*> calloc(K, sizeof(double))
        if self.p == NULL or self.fvals == NULL or self.errs == NULL or self.cum_err == NULL:
            raise MemoryError()
        self.K = K
        for i in range(K):
            self.p[i] = 1.0 / K

    def _comb_set_horizon(self, long long T, double eta, double lam, double beta):
        self.T = T
        self.eta = eta
        self.lam = lam
        self.beta = beta

    def _horizon(self):
        return self.T

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
        cdef double m, z = 0.0, lb = log(self.beta)
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
        return np.array([self.p[i] for i in range(self.K)])

    def _last_scores(self):
        return np.array([self.fvals[i] for i in range(self.K)])

    def _comb_values(self):
        return {"cum_err": np.array([self.cum_err[i] for i in range(self.K)]),
                "T": int(self.T), "eta": self.eta, "lam": self.lam, "beta": self.beta}

    def _comb_state(self):
        v = self._comb_values()
        v["p"] = self.p_
        v["fvals"] = self._last_scores()
        v["allocated"] = bool(self.allocated)
        return v

    def _comb_restore(self, state):
        cdef int i
        for i in range(self.K):
            self.p[i] = state["p"][i]
            self.fvals[i] = state["fvals"][i]
            self.cum_err[i] = state["cum_err"][i]
        self.allocated = state["allocated"]
        if state["T"] > 0:
            self._comb_set_horizon(state["T"], state["eta"], state["lam"], state["beta"])


cdef class BOMKRCore(_CombinedRegressors):
    """``K`` NORMA regressors on separate support sets (FIFO replacement once full)."""
    cdef KernelSets sets
    cdef int per_kernel
    cdef double nu
    cdef double eps0
    cdef double* eps             # epsilon_{t,i}
    cdef int* flag               # next slot to overwrite once set i is full
    cdef long long* n_updates    # rounds with |f_i - y| > eps_i
    cdef long long* n_replaced   # of which replaced the oldest entry

    def __cinit__(self, *args, **kwargs):
        self.eps = NULL
        self.flag = NULL
        self.n_updates = self.n_replaced = NULL
        self.sets = None

    def __dealloc__(self):
        free(self.eps)
        free(self.flag)
        free(self.n_updates)
        free(self.n_replaced)

    def _bomkr_setup(self, int K, double nu, double eps0):
        cdef int i
        self._comb_setup(K)
        free(self.eps)
        free(self.flag)
        free(self.n_updates)
        free(self.n_replaced)
        self.eps = <double*> malloc(K * sizeof(double))
        self.flag = <int*> calloc(K, sizeof(int))
        self.n_updates = <long long*> calloc(K, sizeof(long long))
        self.n_replaced = <long long*> calloc(K, sizeof(long long))
        if self.eps == NULL or self.flag == NULL or self.n_updates == NULL \
                or self.n_replaced == NULL:
            raise MemoryError()
        self.nu = nu
        self.eps0 = eps0
        for i in range(K):
            self.eps[i] = eps0

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
        cdef double fi, err, c = 1.0 - self.eta * self.lam, a
        for i in range(self.K):
            fi = self.fvals[i]
            err = fabs(fi - y)
            if err > self.eps[i]:
                a = -self.eta * _sgn(fi - y)
                self.sets.scale(i, c)
                if self.sets.n[i] < self.per_kernel:
                    self.sets.add(i, x, a, self.t)
                else:
                    # remove the oldest support vector: slot flag_i, cycling
                    j = self.flag[i]
                    self.sets.replace(i, j, x, a, self.t)
                    self.flag[i] = j + 1 if j + 1 < self.sets.n[i] else 0
                    self.n_replaced[i] += 1
                self.eps[i] += (1.0 - self.nu) * self.eta
                self.n_updates[i] += 1
            else:
                self.eps[i] -= self.nu * self.eta
                self.sets.scale(i, c)
        self.reweight(y)

    def _bomkr_sets(self):
        return self.sets

    def _bomkr_values(self):
        cdef int i
        v = self._comb_values()
        v.update({
            "epsilon": np.array([self.eps[i] for i in range(self.K)]),
            "n_updates": np.array([self.n_updates[i] for i in range(self.K)], dtype=np.int64),
            "n_replaced": np.array([self.n_replaced[i] for i in range(self.K)],
                                   dtype=np.int64),
            "sizes": (self.sets.sizes if self.allocated else np.zeros(self.K, dtype=np.int64)),
            "per_kernel": int(self.per_kernel),
        })
        return v

    def _bomkr_state(self):
        v = self._bomkr_values()
        v.update(self._comb_state())
        v["flag"] = np.array([self.flag[i] for i in range(self.K)], dtype=np.int64)
        v["sets"] = self.sets
        return v

    def _bomkr_restore(self, state):
        cdef int i
        self._comb_restore(state)
        self.sets = state["sets"]
        self.per_kernel = state["per_kernel"]
        for i in range(self.K):
            self.eps[i] = state["epsilon"][i]
            self.flag[i] = state["flag"][i]
            self.n_updates[i] = state["n_updates"][i]
            self.n_replaced[i] = state["n_replaced"][i]


cdef class BOMKRVCore(_CombinedRegressors):
    """``K`` absolute-loss OGD regressors sharing one support set (FIFO once full)."""
    cdef double* neg_gamma      # -1 / (2 sigma_i^2)
    cdef double* A              # A[i * B + j]: coefficient of vector j for kernel i
    cdef double* dist           # ||x_t - s_j||^2, one row
    cdef double* krow           # one kernel's row
    cdef int B
    cdef int flag               # next slot to overwrite once the set is full
    cdef long long n_replaced
    cdef bint shared            # one distance row for all kernels (False: K kernel rows)
    cdef KernelParams* kps

    def __cinit__(self, *args, **kwargs):
        self.neg_gamma = self.A = self.dist = self.krow = NULL
        self.kps = NULL
        self.B = 0
        self.flag = 0
        self.n_replaced = 0
        self.shared = True

    def __dealloc__(self):
        free(self.neg_gamma)
        free(self.A)
        free(self.dist)
        free(self.krow)
        free(self.kps)

    def _bomkrv_setup(self, kernels):
        cdef int i, K = len(kernels)
        self._comb_setup(K)
        free(self.neg_gamma)
        free(self.kps)
        self.neg_gamma = <double*> malloc(K * sizeof(double))
        self.kps = <KernelParams*> malloc(K * sizeof(KernelParams))
        if self.neg_gamma == NULL or self.kps == NULL:
            raise MemoryError()
        for i in range(K):
            kind, gamma, coef0, degree = kernels[i].kernel_params()
            self.kps[i].kind = kind
            self.kps[i].gamma = gamma
            self.kps[i].coef0 = coef0
            self.kps[i].degree = degree
            self.neg_gamma[i] = -gamma

    def _bomkrv_allocate(self, int B):
        free(self.A)
        free(self.dist)
        free(self.krow)
        self.A = <double*> calloc(<size_t> self.K * B, sizeof(double))
        self.dist = <double*> malloc(B * sizeof(double))
        self.krow = <double*> malloc(B * sizeof(double))
        if self.A == NULL or self.dist == NULL or self.krow == NULL:
            raise MemoryError()
        self.B = B
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
            if self.shared:
                memcpy(self.krow, self.dist, n * sizeof(double))
                exp_scaled(self.krow, n, self.neg_gamma[i])
            else:
                from_kernel_row(&self.kps[i], self.sv, x, self.krow)
            self.fvals[i] = ddot(&n, self.A + <Py_ssize_t> i * self.B, &INC1, self.krow, &INC1)
        return self.combine()

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int i, j, n = self.sv.n
        cdef double c = 1.0 - self.eta * self.lam
        self.reweight(y)
        if n > 0:
            for i in range(self.K):
                dscal(&n, &c, self.A + <Py_ssize_t> i * self.B, &INC1)
        if n < self.B:
            j = self.sv.add(x, 0.0, self.t)
            if j < 0:
                self.error = 1
                return
        else:
            j = self.flag
            self.sv.replace(j, x, 0.0, self.t)
            self.flag = j + 1 if j + 1 < self.B else 0
            self.n_replaced += 1
        for i in range(self.K):
            self.A[<Py_ssize_t> i * self.B + j] = -self.eta * _sgn(self.fvals[i] - y)

    @property
    def coefficients_(self):
        """The ``K`` coefficient vectors over the shared set: shape ``(K, |S|)``."""
        cdef int i, j, n = self.sv.n if self.allocated else 0
        out = np.zeros((self.K, n))
        for i in range(self.K):
            for j in range(n):
                out[i, j] = self.A[<Py_ssize_t> i * self.B + j]
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
                if self.shared:
                    memcpy(self.krow, self.dist, n * sizeof(double))
                    exp_scaled(self.krow, n, self.neg_gamma[i])
                else:
                    from_kernel_row(&self.kps[i], self.sv, &r, self.krow)
                memcpy(&o[i, t, 0], self.krow, n * sizeof(double))
        return out

    def _bomkrv_values(self):
        v = self._comb_values()
        v.update({"n_replaced": int(self.n_replaced), "flag": int(self.flag), "B": int(self.B)})
        return v

    def _bomkrv_state(self):
        v = self._bomkrv_values()
        v.update(self._comb_state())
        v["A"] = self.coefficients_
        v["shared"] = bool(self.shared)
        return v

    def _bomkrv_restore(self, state):
        cdef int i, j
        self._comb_restore(state)
        self.shared = state["shared"]
        if state["allocated"]:
            self._bomkrv_allocate(state["B"])
            A = state["A"]
            for i in range(self.K):
                for j in range(A.shape[1]):
                    self.A[<Py_ssize_t> i * self.B + j] = A[i, j]
        self.flag = state["flag"]
        self.n_replaced = state["n_replaced"]
