# cython: language_level=3
"""Typed core of LKMBooks (Li & Liao, *Online kernel selection with computational
constraints*, Sec. 3.2, Theorems 2-3).

One support set ``S`` and one coefficient vector ``a`` are shared by the ``K``
hypotheses ``f_{t,i} = sum_{tau in S} a_tau k_i(x_tau, .)`` (eq. (4)); a round computes
one row of squared distances ``||x_t - x_tau||^2`` (``okl._core.sq_dist_row``) and from
it the ``K`` Gaussian kernel rows by ``K`` vectorized exponentials (Sec. 4.1: time
``O(dB + KB + K)``, not ``O(KdB + K)``).  The kernel weights ``p_t`` are an
``okl.learners._experts.HedgeCore`` (exponential weights over the criterion (6)).
See ``okl/learners/lkmbooks.py`` for the algorithm and the reconstructions.
"""

from libc.math cimport fabs, fmax, pow
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from okl._losses cimport LOSS_HINGE, loss_derivative, loss_value
from okl._core cimport (Learner, Row, KernelParams, KERNEL_GAUSSIAN, Stream, sq_dist_row,
                        exp_scaled, kernel_row)
from okl.learners._experts cimport HedgeCore
from okl.learners._ksets cimport kernel_params_array
from scipy.linalg.cython_blas cimport ddot

import numpy as np

from okl._learner import Field, fields

cdef int INC1 = 1



cdef double* _alloc(Py_ssize_t n) except NULL:
    cdef double* out = <double*> malloc((n if n > 0 else 1) * sizeof(double))
    if out == NULL:
        raise MemoryError()
    return out


cdef class LKMBooksCore(Learner):
    """Typed state of LKMBooks: kernels, the shared distance row, ``p_t`` and counters."""
    cdef int K
    cdef KernelParams* kps      # the K kernels (for the unshared reference path)
    cdef double[::1] neg_gamma  # -1 / (2 sigma_i^2)
    cdef double[::1] fvals      # f_{t,i}(x_t) of the last scored example
    cdef double[::1] crit       # c_{t,i}, criterion (6)
    cdef double* dist           # ||x_t - x_tau||^2, one row (capacity doubles)
    cdef double* krow           # k_i(x_t, x_tau), one kernel at a time (capacity doubles)
    cdef int buf_capacity
    cdef public HedgeCore hedge     # p_t
    cdef public int loss_kind       # the learner's parameters (okl.params)
    cdef public double upsilon
    cdef public double zfac     # z_t = zfac T^{1-upsilon} (|E_t| + 1)^upsilon (z_form)
    cdef double zbase           # zfac T^{1-upsilon}
    cdef public double C5       # C, the constant of (5)
    cdef public double step     # the step size lambda
    cdef public double l_m_fixed    # > 0: the normalizer max{l_m, 1}; <= 0: doubling trick
    cdef public double scale    # max{l_m, 1} in use
    cdef public double l_m_seen # max_t |l'_t| (max_i f_{t,i} - min_j f_{t,j}) so far
    cdef public long long T_    # horizon (0 until known)
    cdef public int budget      # B, the example budget (the hard guard)
    cdef public long long n_nonzero # |E_{t+1}|: rounds with a non-zero gradient
    cdef public long long n_sampled # rounds with rho_t = 1
    cdef public long long n_added   # examples added to S
    cdef public long long n_blocked # rho_t = 1 but |S| = B: update skipped (hard guard)
    cdef public long long restarts  # doubling-trick restarts of the exponential weights
    cdef public int max_size        # max_t |S_t|
    cdef public bint shared     # one distance row for all kernels (False: K kernel rows)
    cdef public double last_prob    # P[rho_t = 1] of the last round with a non-zero gradient
    cdef public bint running_norm   # the R code's normalizer: running max of max f - min f
    cdef public bint every_round    # the R regression code: a draw every round, z from t
    cdef public double g_max    # max{1, max_{s<t} (max_i f_{s,i} - min_j f_{s,j})}

    # what the extras read (the horizon settings, the counters, the weights' learning rate)
    _values_fields = fields(
        "n_nonzero", "n_sampled", "n_added", ("guard_blocked", "n_blocked"), "restarts",
        "max_size", "l_m_seen", "scale", "last_prob", "g_max", ("T", "T_"), ("B", "budget"),
        ("C", "C5"), ("lam", "step"), ("eta", "hedge.learning_rate"),
        ("hedge_updates", "hedge.n_updates"))
    # the keys and order of the pickles written before the state was declared; the
    # support set's buffers are sized on restore (LKMBooks._restore)
    _state_fields = fields(
        "hedge", "scale", "l_m_seen", "n_nonzero", "n_sampled", "n_added", "n_blocked",
        "restarts", "max_size", "last_prob", Field("T", "T_", put="_put_horizon"),
        ("B", "budget"), ("C", "C5"), ("lam", "step"), "shared",
        Field("g_max", default=1.0))

    def __cinit__(self, *args, **kwargs):
        self.scale = 1.0
        self.shared = True

    def __dealloc__(self):
        free(self.kps)
        free(self.dist)
        free(self.krow)

    # -- configuration ------------------------------------------------------------

    def _setup(self):
        """The kernels (the declared list ``self.kernels``), the weights ``p_1`` and the
        counters; ``loss_kind`` and ``upsilon`` are the declared values, ``zfac``,
        ``l_m_fixed``, ``running_norm`` and ``every_round`` what the learner's ``_configure``
        derived from ``z_form``, ``l_m``, ``sampling`` and ``variant``."""
        cdef int i, K = len(self.kernels)
        kernels = self.kernels
        free(self.kps)
        self.kps = NULL
        self.kps = kernel_params_array(kernels)
        for i in range(K):
            if self.kps[i].kind != KERNEL_GAUSSIAN:
                raise ValueError(f"kernels[{i}] must be a Gaussian kernel")
        self.neg_gamma = np.array([-self.kps[i].gamma for i in range(K)])
        self.fvals = np.zeros(K)
        self.crit = np.zeros(K)
        self.K = K
        self.hedge = HedgeCore(K, 0.0)
        self.scale = fmax(self.l_m_fixed, 1.0)
        self.l_m_seen = 0.0
        self.n_nonzero = self.n_sampled = self.n_added = self.n_blocked = self.restarts = 0
        self.max_size = 0
        self.last_prob = 1.0
        self.g_max = 1.0

    def _lkm_set_horizon(self, long long T, int B, double C, double lam, double eta):
        self._put_horizon(T)
        self.budget = B
        self.C5 = C
        self.step = lam
        self.hedge.learning_rate = eta

    def _put_horizon(self, long long T):
        """``T`` and what depends on it alone (``zbase``)."""
        self.T_ = T
        if T > 0:
            self.zbase = self.zfac * pow(<double> T, 1.0 - self.upsilon)

    def _lkm_allocate(self):
        """Distance and kernel-row buffers for the support set's capacity."""
        cdef int cap = self.sv.capacity
        free(self.dist)
        free(self.krow)
        self.dist = self.krow = NULL
        self.dist = _alloc(cap)
        self.krow = _alloc(cap)
        self.buf_capacity = cap

    def _lkm_use_shared_distances(self, bint shared):
        """True (default): one distance row, K exponentials; False: K kernel rows
        (``okl._core.kernel_row`` per kernel), the reference the speed-up is measured
        against.  Both give bit-identical kernel values."""
        self.shared = shared

    def _horizon(self):
        return self.T_

    # -- the round ------------------------------------------------------------------

    cdef void kernel_values(self, const Row* x, int i, int n) noexcept nogil:
        """``krow[:n] = k_i(x, S)``; with ``shared`` from the distance row in ``dist``."""
        if self.shared:
            memcpy(self.krow, self.dist, n * sizeof(double))
            exp_scaled(self.krow, n, self.neg_gamma[i])
        else:
            kernel_row(&self.kps[i], self.sv.X, self.sv.capacity, self.sv.sqnorm,
                       self.sv.l1norm, n, self.sv.d, x, self.krow)

    cdef double score(self, const Row* x) noexcept nogil:
        """``f_t(x) = sum_i p_{t,i} f_{t,i}(x)``; keeps ``f_{t,i}(x)`` in ``fvals``."""
        cdef int i, n = self.sv.n
        cdef double f = 0.0
        if n == 0:
            for i in range(self.K):
                self.fvals[i] = 0.0
            return 0.0
        if self.shared:
            sq_dist_row(self.sv.X, self.sv.capacity, self.sv.sqnorm, n, self.sv.d, x,
                        self.dist)
        for i in range(self.K):
            self.kernel_values(x, i, n)
            self.fvals[i] = ddot(&n, self.sv.alpha, &INC1, self.krow, &INC1)
            f += self.hedge.p[i] * self.fvals[i]
        return f

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef inline double derivative(self, double y, double f) noexcept nogil:
        """``l'(f, y)``: hinge ``-y`` if ``y f < 1`` else 0; absolute ``sign(f - y)``."""
        return loss_derivative(self.loss_kind, y, f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double lp = self.derivative(y, f)
        cdef double lo, hi, r, ref, prob, u
        cdef int i
        if lp == 0.0 and not self.every_round and not self.running_norm:
            return      # grad = 0: rho_t = 0, c_t = 0 (p_{t+1} = p_t), E unchanged
        lo = hi = self.fvals[0]
        for i in range(1, self.K):
            if self.fvals[i] < lo:
                lo = self.fvals[i]
            if self.fvals[i] > hi:
                hi = self.fvals[i]
        if lp != 0.0:
            # criterion (6) and the exponential-weights update of p_t
            r = fabs(lp) * (hi - lo)
            if r > self.l_m_seen:
                self.l_m_seen = r
            if self.running_norm:
                self.scale = self.g_max
            elif self.l_m_fixed <= 0.0 and r > self.scale:
                # doubling trick: a new epoch with max{l_m, 1} doubled until it covers r
                while self.scale < r:
                    self.scale *= 2.0
                self.hedge.set_log_weights(self.hedge.logp0)
                self.restarts += 1
            ref = lo if lp > 0.0 else hi
            for i in range(self.K):
                self.crit[i] = lp * (self.fvals[i] - ref) / self.scale
            self.hedge.update(&self.crit[0])
        if self.running_norm and hi - lo > self.g_max:
            self.g_max = hi - lo    # the R code: after the round's criterion, every round
        # sampling rule (5)
        if self.every_round:
            # the R regression code: a draw every round, z_t from the round index t
            prob = self.C5 / (self.zbase * pow(<double> self.t, self.upsilon))
        elif lp != 0.0:
            # z_t of Theorem 2 from |E_t| + 1
            prob = self.C5 / (self.zbase * pow(<double> (self.n_nonzero + 1), self.upsilon))
        else:
            return
        if prob > 1.0:
            prob = 1.0
        if lp != 0.0:
            self.last_prob = prob
            self.n_nonzero += 1
        u = self.uniform()
        if u < prob:
            self.n_sampled += 1
            if self.sv.n >= self.budget:
                self.n_blocked += 1     # hard guard: the budget is never exceeded
                return
            # f_{t+1,i} = f_{t,i} - lambda l'/P[rho = 1] k_i(x_t, .): one shared coefficient
            # (the R regression code adds x_t with the coefficient 0 when l' = 0)
            if self.sv.add(x, -self.step * lp / prob, self.t) < 0:
                self.error = 1
                return
            self.n_added += 1
            if self.sv.n > self.max_size:
                self.max_size = self.sv.n

    # -- inspection and pickling -------------------------------------------------------

    def _lkm_kernel_rows(self, X):
        """``[k_i(x, S) for i]`` for each row of the validated ``X`` via the path the
        round uses: shape ``(K, len(X), |S|)`` (tests compare it with the kernels)."""
        from okl._core import _stream
        cdef Stream s = _stream(X, self.sv.d)
        cdef int n = self.sv.n, i
        cdef Py_ssize_t t, T = s.T
        out = np.empty((self.K, T, n))
        cdef double[:, :, ::1] o = out
        cdef Row row
        if n == 0:
            return out
        for t in range(T):
            s.row(t, &row)
            if self.shared:
                sq_dist_row(self.sv.X, self.sv.capacity, self.sv.sqnorm, n, self.sv.d, &row,
                            self.dist)
            for i in range(self.K):
                self.kernel_values(&row, i, n)
                memcpy(&o[i, t, 0], self.krow, n * sizeof(double))
        return out

    def _lkm_last_values(self):
        return np.array(self.fvals)

    @property
    def p_(self):
        """The current kernel weights ``p_t`` (a copy)."""
        return self.hedge.probabilities
