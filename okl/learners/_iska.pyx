# cython: language_level=3
"""Typed core of ISKA, online kernel selection via incremental sketched kernel alignment
(Zhang & Liao, IJCAI 2018), as Li & Liao ran it in the comparisons of their kernel-selection
paper (the function ``SKA_EMD`` of ``table5/ISKA.rar`` in JunfLi-TJU/ACML2021-Journal-Track).

One budget shared by all kernels, split into a positive and a negative buffer of at most
``cap = B // 2`` examples each; one hypothesis ``f = sum_j w_j k_c(s_j, .)`` in the kernel
``c`` currently selected.  For every candidate kernel ``i`` the core keeps the block sums of
the buffers' Gram matrix, ``beta_{+,i} = sum_{a, b in S+} k_i(a, b)``, ``beta_{-,i}`` and
``gamma_i = sum_{a in S+, b in S-} k_i(a, b)``, updated incrementally whenever a buffer
changes: from one row of squared distances per buffer (``okl._core.sq_dist_row``) and
``K`` exponentials of it.  The sketched alignment ``C_i = beta_+ / n_+^2 + beta_- / n_-^2 -
2 gamma / (n_+ n_-)`` (the squared distance between the classes' mean embeddings), its
median over the last ``q`` changes, and its argmax select the kernel.  See
``okl/learners/iska.py`` for the algorithm.
"""

from libc.math cimport fabs, fmin
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy

from okl._core cimport Learner, Row, SupportSet, Stream, sq_dist_row, exp_scaled
from okl._losses cimport LOSS_HINGE, loss_value
from scipy.linalg.cython_blas cimport ddot

import numpy as np

from okl._learner import Field, fields
from okl.kernels import Gaussian

cdef int INC1 = 1

cdef enum:
    STEP_CONSTANT = 0       # eta_t = eta (the experiments: 5 / sqrt(T))
    STEP_DECAYING = 1       # eta_t = 1 / (lam t) (SKA_EMD's booleta = TRUE)


cdef inline double _sum(const double* v, int n) noexcept nogil:
    cdef int j
    cdef double s = 0.0
    for j in range(n):
        s += v[j]
    return s


cdef class ISKACore(Learner):
    """Typed state of ISKA: two buffers, the block sums per kernel, the median window."""
    cdef public SupportSet pos, neg     # S+ and S- (None before the first example)
    cdef int K
    cdef int cap                # B // 2 examples per class
    cdef public int budget      # B (0 until the first example)
    # the learner's parameters (okl.params)
    cdef public int q               # window of the median
    cdef public double lam          # regularization: w decays by 1 - eta_t lam
    cdef public double mu           # coherence threshold of a replacement
    cdef public int step_rule       # step: STEP_CONSTANT or STEP_DECAYING
    cdef public double init_sigma   # width of the initial kernel
    cdef public int cur         # selected kernel (-1: the initial kernel)
    cdef double g0              # gamma of the initial kernel
    cdef double[::1] gam        # gamma_i = 1 / (2 sigma_i^2)
    cdef readonly double[::1] bp    # beta_{+,i}
    cdef readonly double[::1] bn    # beta_{-,i}
    cdef readonly double[::1] gm    # gamma_i (cross sums)
    cdef readonly double[::1] csk   # C_i (raw, then its median)
    cdef readonly double[::1] cskm  # q x K window of past C vectors (row r at cskm[r * K])
    cdef double[::1] col        # q doubles: one column of the window, sorted
    cdef public int signal      # 1 + number of C updates so far (R's `signal`)
    cdef public int locate      # 1-based row of the window written next (R's `locate`)
    cdef double* phi_p          # k_c(x_t, S+) of the last scored example
    cdef double* phi_n          # k_c(x_t, S-)
    cdef double* d_own          # ||x_t - s||^2 over the updated class's buffer
    cdef double* d_oth          # ... over the other buffer
    cdef double* r_own          # ||x_R - s||^2 (replacement rounds)
    cdef double* r_oth
    cdef double* tmp
    cdef public double eta0     # constant step (STEP_CONSTANT)
    cdef public long long T_    # the horizon eta0 was set for (0: not yet)
    cdef public long long n_added, n_replaced, n_draws, n_sampled, n_blocked, n_switches
    cdef public long long n_ska     # C updates (rounds that changed a buffer, both non-empty)
    cdef readonly long long[::1] n_selected  # rounds each kernel predicted (K: the initial)
    cdef public bint allocated

    # the counters the extras read first: the keys and order of the pickles written before
    _values_fields = fields(
        "n_added", "n_replaced", "n_draws", "n_sampled", "n_blocked", "n_switches",
        ("n_criterion_updates", "n_ska"), Field("n_selected", dtype=np.int64), ("T", "T_"),
        ("eta", "eta0"), Field("B", "budget", put="_put_budget"))
    _state_fields = _values_fields + fields(
        Field("bp", dtype=np.float64), Field("bn", dtype=np.float64),
        Field("gm", dtype=np.float64), Field("csk", dtype=np.float64),
        Field("cskm", dtype=np.float64), "signal", "locate", "cur", "pos", "neg",
        Field("allocated", put="_put_allocated"))

    def __dealloc__(self):
        self._free_rows()

    cdef void _free_rows(self):
        free(self.phi_p)
        free(self.phi_n)
        free(self.d_own)
        free(self.d_oth)
        free(self.r_own)
        free(self.r_oth)
        free(self.tmp)
        self.phi_p = self.phi_n = self.d_own = self.d_oth = self.r_own = self.r_oth = NULL
        self.tmp = NULL

    # -- configuration --------------------------------------------------------------

    def _setup(self):
        """The block sums and the median window of the ``K`` kernels (the declared list
        ``self.kernels``); ``q``, ``lam``, ``mu``, ``step_rule`` and ``init_sigma`` are
        the declared values."""
        cdef int K = len(self.kernels), q = self.q
        self.gam = np.array([k.kernel_params()[1] for k in self.kernels], dtype=np.float64)
        self.bp = np.zeros(K)
        self.bn = np.zeros(K)
        self.gm = np.zeros(K)
        self.csk = np.zeros(K)
        self.cskm = np.zeros(<Py_ssize_t> q * K)
        self.col = np.empty(q)
        self.n_selected = np.zeros(K + 1, dtype=np.int64)
        self.K = K
        self.g0 = Gaussian(self.init_sigma).kernel_params()[1]
        self.cur = -1
        self.budget = 0
        self.cap = 0
        self.signal = 1
        self.locate = 1
        self.n_added = self.n_replaced = self.n_draws = self.n_sampled = 0
        self.n_blocked = self.n_switches = self.n_ska = 0

    def _iska_allocate(self, kernel, int B):
        """The budget, the two buffers of ``B // 2`` (``kernel`` is only a placeholder: the
        rows are computed here with the selected kernel) and the row buffers."""
        self.budget = B
        self.cap = B // 2
        self.pos = SupportSet(kernel, self.d, self.cap, False)
        self.neg = SupportSet(kernel, self.d, self.cap, False)
        self._iska_allocate_rows()

    def _iska_allocate_rows(self):
        self._free_rows()
        cdef int c = self.cap
        self.phi_p = <double*> malloc(c * sizeof(double))
        self.phi_n = <double*> malloc(c * sizeof(double))
        self.d_own = <double*> malloc(c * sizeof(double))
        self.d_oth = <double*> malloc(c * sizeof(double))
        self.r_own = <double*> malloc(c * sizeof(double))
        self.r_oth = <double*> malloc(c * sizeof(double))
        self.tmp = <double*> malloc(c * sizeof(double))
        if (self.phi_p == NULL or self.phi_n == NULL or self.d_own == NULL
                or self.d_oth == NULL or self.r_own == NULL or self.r_oth == NULL
                or self.tmp == NULL):
            raise MemoryError()
        self.allocated = True

    def _iska_set_horizon(self, long long T, double eta):
        self.T_ = T
        self.eta0 = eta

    def _horizon(self):
        return self.T_

    # -- helpers --------------------------------------------------------------------

    cdef inline double _gamma_of(self, int i) noexcept nogil:
        return self.g0 if i < 0 else self.gam[i]

    cdef double _ksum(self, const double* dist, int n, int i) noexcept nogil:
        """``sum_j exp(-gamma_i dist[j])`` over ``n`` squared distances."""
        if n <= 0:
            return 0.0
        memcpy(self.tmp, dist, n * sizeof(double))
        exp_scaled(self.tmp, n, -self.gam[i])
        return _sum(self.tmp, n)

    cdef void _criterion(self, int i) noexcept nogil:
        cdef double np_ = self.pos.n, nn = self.neg.n
        self.csk[i] = (self.bp[i] / (np_ * np_) + self.bn[i] / (nn * nn)
                       - 2.0 * self.gm[i] / (np_ * nn))

    cdef double _median(self, int i) noexcept nogil:
        """Median of column ``i`` of the ``q x K`` window (mean of the middle two when
        ``q`` is even, as R's ``median``)."""
        cdef int r, s, q = self.q
        cdef double v
        for r in range(q):
            v = self.cskm[r * self.K + i]
            s = r
            while s > 0 and self.col[s - 1] > v:
                self.col[s] = self.col[s - 1]
                s -= 1
            self.col[s] = v
        if q % 2 == 1:
            return self.col[q // 2]
        return 0.5 * (self.col[q // 2 - 1] + self.col[q // 2])

    cdef void _select(self) noexcept nogil:
        """Record ``C`` in the window (R's ``signal`` / ``locate`` bookkeeping), replace it
        by the window's median once the window is full, and select ``argmax C``."""
        cdef int i, best = 0, row
        if self.signal <= self.q:
            row = self.locate
            self.locate += 1
            memcpy(&self.cskm[(row - 1) * self.K], &self.csk[0], self.K * sizeof(double))
            self.signal += 1
        else:
            row = self.q if self.signal % self.q == 0 else self.signal % self.q
            self.locate = row
            memcpy(&self.cskm[(row - 1) * self.K], &self.csk[0], self.K * sizeof(double))
            self.signal += 1
            for i in range(self.K):
                self.csk[i] = self._median(i)
        for i in range(1, self.K):
            if self.csk[i] > self.csk[best]:
                best = i
        if best != self.cur:
            self.n_switches += 1
        self.cur = best
        self.n_ska += 1

    # -- the round ------------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        """``f_t(x) = w_+ . k_c(x, S+) + w_- . k_c(x, S-)``; 1 with empty buffers and 0.5
        for an exact 0 (SKA_EMD: "if f_t is 0, classify as positive")."""
        cdef int np_, nn
        cdef double f = 0.0, g
        if not self.allocated:
            return 1.0
        np_ = self.pos.n
        nn = self.neg.n
        if np_ + nn == 0:
            return 1.0
        g = self._gamma_of(self.cur)
        if np_ > 0:
            sq_dist_row(self.pos.X, self.pos.capacity, self.pos.sqnorm, np_, self.d, x,
                        self.phi_p)
            exp_scaled(self.phi_p, np_, -g)
            f += ddot(&np_, self.pos.alpha, &INC1, self.phi_p, &INC1)
        if nn > 0:
            sq_dist_row(self.neg.X, self.neg.capacity, self.neg.sqnorm, nn, self.d, x,
                        self.phi_n)
            exp_scaled(self.phi_n, nn, -g)
            f += ddot(&nn, self.neg.alpha, &INC1, self.phi_n, &INC1)
        if f == 0.0:
            f = 0.5
        return f

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(LOSS_HINGE, y, f)

    cdef int size(self) noexcept nogil:
        return self.pos.n + self.neg.n if self.allocated else 0

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double eta, c
        cdef bint plus = y > 0.0
        self.n_selected[self.cur if self.cur >= 0 else self.K] += 1
        if self.step_rule == STEP_DECAYING:
            eta = 1.0 / (self.t * self.lam)
        else:
            eta = self.eta0
        c = 1.0 - eta * self.lam
        if not (f * y < 1.0):
            self.pos.scale(c)
            self.neg.scale(c)
            return
        if plus:
            self._learn(self.pos, self.neg, &self.bp[0], self.phi_p, self.phi_n, x, y, eta, c)
        else:
            self._learn(self.neg, self.pos, &self.bn[0], self.phi_n, self.phi_p, x, y, eta, c)

    cdef void _learn(self, SupportSet own, SupportSet oth, double* bo, double* phi_own,
                     double* phi_oth, const Row* x, double y, double eta,
                     double c) noexcept nogil:
        """A round with ``y_t f_t(x_t) < 1``: ``own`` is the buffer of ``y_t``'s class."""
        cdef double s_own, s_oth, maxphi, u, prob, rA
        cdef int n_own, n_oth, i, j, indS, indR
        cdef Row xr
        n_own = own.n
        n_oth = oth.n
        if n_own == 0 or n_oth == 0:
            if n_own >= self.cap:
                # a class fills its buffer before the other class is seen: R keeps
                # appending (past B); okl keeps the budget and only decays w
                self.n_blocked += 1
                own.scale(c)
                oth.scale(c)
                return
            # block sums from scratch in R; incrementally here (the same sums)
            if n_own > 0:
                sq_dist_row(own.X, own.capacity, own.sqnorm, n_own, self.d, x, self.d_own)
            if n_oth > 0:
                sq_dist_row(oth.X, oth.capacity, oth.sqnorm, n_oth, self.d, x, self.d_oth)
            for i in range(self.K):
                bo[i] += 2.0 * self._ksum(self.d_own, n_own, i) + 1.0
                self.gm[i] += self._ksum(self.d_oth, n_oth, i)
            own.scale(c)
            own.add(x, eta * y, self.t)
            oth.scale(c)
            self.n_added += 1
            return
        if n_own < self.cap:
            # add x_t to its class's buffer; update every kernel's block sums and C
            sq_dist_row(own.X, own.capacity, own.sqnorm, n_own, self.d, x, self.d_own)
            sq_dist_row(oth.X, oth.capacity, oth.sqnorm, n_oth, self.d, x, self.d_oth)
            own.scale(c)
            own.add(x, eta * y, self.t)
            for i in range(self.K):
                if i == self.cur:
                    s_own = _sum(phi_own, n_own)
                    s_oth = _sum(phi_oth, n_oth)
                else:
                    s_own = self._ksum(self.d_own, n_own, i)
                    s_oth = self._ksum(self.d_oth, n_oth, i)
                bo[i] += 2.0 * s_own + 1.0
                self.gm[i] += s_oth
                self._criterion(i)
            self._select()
            oth.scale(c)
            self.n_added += 1
            return
        # the class's buffer is full: reservoir sampling and coherence decide a replacement
        indS = 0
        maxphi = phi_own[0]
        for j in range(1, n_own):
            if phi_own[j] > maxphi:
                maxphi = phi_own[j]
                indS = j
        prob = fmin(<double> self.budget / (2.0 * self.t), 1.0)
        u = self.uniform()
        self.n_draws += 1
        if u < prob:
            self.n_sampled += 1
        if u < prob and maxphi <= self.mu:
            indR = 0
            for j in range(1, n_own):
                if fabs(own.alpha[j]) < fabs(own.alpha[indR]):
                    indR = j
            own.as_row(indR, &xr)
            sq_dist_row(own.X, own.capacity, own.sqnorm, n_own, self.d, &xr, self.r_own)
            sq_dist_row(oth.X, oth.capacity, oth.sqnorm, n_oth, self.d, &xr, self.r_oth)
            sq_dist_row(own.X, own.capacity, own.sqnorm, n_own, self.d, x, self.d_own)
            sq_dist_row(oth.X, oth.capacity, oth.sqnorm, n_oth, self.d, x, self.d_oth)
            for i in range(self.K):
                # x_t replaces x_R: the own block loses x_R's row and gains x_t's (both
                # rows include the diagonal 1, which cancels), the cross block likewise
                memcpy(self.tmp, self.d_own, n_own * sizeof(double))
                exp_scaled(self.tmp, n_own, -self.gam[i])
                self.tmp[indR] = 1.0
                rA = _sum(self.tmp, n_own)
                bo[i] += -2.0 * self._ksum(self.r_own, n_own, i) + 2.0 * rA
                self.gm[i] += -self._ksum(self.r_oth, n_oth, i) + self._ksum(self.d_oth, n_oth, i)
                self._criterion(i)
            self._select()
            own.scale(c)
            own.alpha[indS] += eta * y
            own.replace(indR, x, eta * y, self.t)
            oth.scale(c)
            self.n_replaced += 1
        else:
            own.scale(c)
            own.alpha[indS] += eta * y
            oth.scale(c)

    # -- inspection and pickling ------------------------------------------------------

    @property
    def kernel_index_(self):
        """The selected kernel: an index into ``kernels``, or -1 for the initial kernel."""
        return int(self.cur)

    @property
    def criteria_(self):
        """The last ``C_i`` used for the selection (the window's median once it is full)."""
        return np.array(self.csk)

    def _iska_block_sums(self):
        return np.array(self.bp), np.array(self.bn), np.array(self.gm)

    def _put_budget(self, int B):
        self.budget = B
        self.cap = B // 2

    def _put_allocated(self, bint allocated):
        """After ``B``, ``pos`` and ``neg`` are restored: the row buffers."""
        if allocated:
            self._iska_allocate_rows()
