# cython: language_level=3
"""Typed core of BATBooks (Li & Liao, *Online kernel selection with computational
constraints*, Sec. 4.2, eqs. (10)-(11), Theorems 8-10).

State: ``K`` buffers ``S_i`` (one support set and one coefficient vector per kernel,
each at most ``cap = floor(B/2)`` examples), stored feature-major in separately grown
blocks (``s_{i,m}[j] = X[i][m + j * ld[i]]``), the squared RKHS norms ``||f_i||^2`` kept
incrementally for the projection onto ``||f_i|| <= U``, the OSMD core of (11)
(``okl.learners._experts.OSMDCore``) and ``I_next``, the exploited kernel of the next
round, drawn from ``p_{t+1}`` as soon as ``p_{t+1}`` is known (so that ``score`` -- the
prediction ``f_{t,I_t}(x_t)`` -- is a function of the state, and ``decision_function``
reads the hypothesis that will predict the next example without consuming randomness).

Uniform draws of round ``t`` (from ``Learner.uniform()``, in this order):

1. ``J_t = floor(K u)``  (exploration, uniform on the ``K`` kernels);
2. if ``l'(f_{t,J_t}(x_t), y_t) != 0``: ``rho_{t,J_t} = 1{u < min(1, C / z_t)}``;
3. ``I_{t+1}`` by inverse CDF of ``p_{t+1}`` (``OSMDCore.sample``).

``I_1`` is the one draw made when the learner is set up.  Only the kernel rows
``k_{I_t}(x_t, S_{I_t})`` and, when ``J_t != I_t``, ``k_{J_t}(x_t, S_{J_t})`` are
computed: at most ``|S_{I_t}| + |S_{J_t}| <= B`` kernel evaluations a round.

``r_code`` (``BATBooks(variant="r")``): the round of the authors' ``BATBooks.R`` /
``BATBooks-r.R`` (``r_round``): ``eta = 4 sqrt(ln K / (K m))``, ``m = 4`` quadrupled --
and ``p`` restarted from uniform -- whenever ``min_i C~_{t,i} > m`` (classification: after
the round, that round's update discarded, ``C~`` kept; regression: after each observed
kernel, ``C~`` reset); the step divides by the unclipped ``K B / z_t / K`` and the norm
recursion adds ``1e-7`` (and ``(lambda / P)^2`` when ``l' = 0``); regression draws
``rho`` whenever ``J_t`` is observed.  Same draws as above.
"""

from libc.math cimport sqrt, pow, fabs, exp, log
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy

from scipy.linalg.cython_blas cimport ddot, dscal

from okl._core cimport Learner, Row, KernelParams, kernel_row, kernel_self
from okl._losses cimport LOSS_HINGE, loss_derivative, loss_value
from okl.learners._experts cimport OSMDCore
from okl.learners._ksets cimport free_sets, kernel_params_array

import numpy as np

from okl._learner import Field, fields

cdef int INC1 = 1

# learning-rate rules of the OSMD step (11)
cdef enum:
    ETA_FIXED = 0
    ETA_DOUBLING = 1

# normalizer ell_m of the criterion c_{t,i} = l(f_{t,i}(x_t), y_t) / ell_m
cdef enum:
    ELL_FIXED = 0
    ELL_DOUBLING = 1

# per-round outcome of the sampling rule (Trace.extras["rho"])
cdef enum:
    RHO_NO_GRADIENT = -1     # l'(f_{t,J_t}(x_t), y_t) = 0: nothing to add
    RHO_ZERO = 0             # rho_{t,J_t} = 0
    RHO_ADDED = 1            # rho_{t,J_t} = 1: x_t joined S_{J_t}
    RHO_FULL = 2             # rho_{t,J_t} = 1 but |S_{J_t}| = cap: not added (hard guard)

# first allocation of a buffer (doubled up to ``cap``)
cdef int FIRST_CAPACITY = 16


cdef class BATBooksCore(Learner):
    """The typed state and round of BATBooks (see the module docstring and
    ``okl.learners.batbooks.BATBooks``)."""
    cdef int K
    cdef public int cap             # floor(B / 2): the hard guard on every |S_i|
    cdef public int loss_kind       # the learner's parameter (okl.params)
    cdef bint allocated
    cdef KernelParams* kps          # K kernels
    cdef double** Xs                # K feature-major blocks, leading dimension ld[i]
    cdef double** sq                # ||s||^2 of the stored vectors
    cdef double** l1                # ||s||_1 of the stored vectors
    cdef double** al                # coefficients
    cdef long long** st             # round at which each vector joined
    cdef readonly int[::1] n        # |S_i|
    cdef int[::1] ld                # allocated slots of buffer i
    cdef readonly double[::1] normsq    # ||f_i||^2
    cdef double[::1] lam            # step sizes lambda_i
    cdef readonly double[::1] cum_est   # sum_s c~_{s,i}: the C~_{t,i} of Theorem 9
    cdef double* krow               # cap doubles of scratch: one kernel row
    cdef readonly long long[::1] n_added
    cdef readonly long long[::1] n_exploit
    cdef readonly long long[::1] n_explore
    cdef public OSMDCore osmd
    cdef public int I_next          # I_{t+1} ~ p_{t+1}
    # horizon-dependent settings (set once T is known)
    cdef bint ready
    cdef long long T_h
    cdef double ups                 # upsilon
    cdef double zpre                # z_t = zpre t^upsilon
    cdef double C                   # K B
    cdef double U
    cdef int eta_mode
    cdef double eta_c, eta_cap
    cdef public double chat
    cdef int ell_mode
    cdef public double ell
    # counters
    cdef public long long n_grad, n_rho, n_full, n_proj, rows_total, kev_total, max_kev
    cdef public int max_size
    cdef public double max_c
    # per-run records
    cdef long long* rec_I
    cdef long long* rec_J
    cdef signed char* rec_rows
    cdef signed char* rec_rho
    cdef long long* rec_kev
    cdef double* rec_eta
    cdef double* rec_q
    cdef long long rec_n, rec_cap
    cdef object _records
    # the authors' R code (variant="r")
    cdef public bint r_code
    cdef public double r_m          # the scripts' min_tilde_L: 4, 16, 64, ...
    cdef public long long r_restarts
    cdef double[::1] pbar           # K doubles of scratch: bar p

    # what the extras (and the tests) read
    _values_fields = fields(
        Field("sizes", "n", dtype=np.int64), Field("norms_sq", "normsq", dtype=np.float64),
        Field("cum_estimates", "cum_est", dtype=np.float64),
        Field("n_added", dtype=np.int64), Field("exploit_counts", "n_exploit", dtype=np.int64),
        Field("explore_counts", "n_explore", dtype=np.int64), ("p", "osmd.probabilities"),
        ("next_exploit", "I_next"), ("eta", "osmd.learning_rate"), ("C_hat", "chat"),
        ("ell_max", "ell"), ("n_gradient", "n_grad"), "n_rho", "n_full",
        ("n_projections", "n_proj"), ("kernel_rows_total", "rows_total"),
        ("kernel_evaluations_total", "kev_total"), ("max_kernel_evaluations", "max_kev"),
        ("max_buffer_size", "max_size"), ("max_criterion", "max_c"),
        ("restarts", "r_restarts"))
    # the keys and order of the pickles written before the state was declared; the K
    # buffers (nested, each growing to its own leading dimension) keep their code
    _state_fields = fields(
        Field("buffers", get="_bat_buffers", put="_put_buffers"),
        Field("norms_sq", "normsq", dtype=np.float64),
        Field("cum_estimates", "cum_est", dtype=np.float64),
        Field("n_added", dtype=np.int64), Field("exploit_counts", "n_exploit", dtype=np.int64),
        Field("explore_counts", "n_explore", dtype=np.int64), "osmd", "I_next", "cap", "chat",
        "ell", Field("r", ("r_code", "r_m", "r_restarts"), default=(False, 4.0, 0)),
        ("counters", ("n_grad", "n_rho", "n_full", "n_proj", "rows_total", "kev_total",
                      "max_kev", "max_size", "max_c")))

    def __cinit__(self, *args, **kwargs):
        self.r_m = 4.0
        self._reset_counters()

    def _reset_counters(self):
        self.n_grad = self.n_rho = self.n_full = self.n_proj = 0
        self.rows_total = self.kev_total = self.max_kev = 0
        self.max_size = 0
        self.max_c = 0.0

    def __dealloc__(self):
        self._free_buffers()
        free(self.kps)

    cdef void _free_buffers(self):
        free_sets(self.K, &self.Xs, &self.sq, &self.l1, &self.al, &self.st)
        free(self.krow)
        self.krow = NULL
        self.allocated = False

    # -- configuration (Python side) -------------------------------------------------

    def _setup(self):
        """The kernels (the learner's checked list ``self.kernels_``) and the normalizer
        ``ell_m`` (the declared ``self.ell_max``: a number, or ``"doubling"`` from 1);
        draws ``I_1`` from ``p_1`` (uniform).  ``loss_kind`` and ``r_code`` are the
        declared values.  The capacity and ``U`` follow (``_bat_set_capacity``) once ``B``
        is known, the horizon settings (``_bat_set_horizon``) once ``T`` is."""
        cdef int K = len(self.kernels_), i
        cdef bint doubling = self.ell_max == "doubling"
        kernels = self.kernels_
        if K < 1:
            raise ValueError("kernels must hold at least one kernel")
        # a re-initialisation (set_params before learning) starts from scratch
        self._free_buffers()
        free(self.kps)
        self.kps = NULL
        self.r_m = 4.0
        self.r_restarts = 0
        self.ready = False
        self.d = -1
        self._reset_counters()
        self.K = K
        self.kps = kernel_params_array(kernels)
        self.n = np.zeros(K, dtype=np.intc)
        self.ld = np.zeros(K, dtype=np.intc)
        self.normsq = np.zeros(K)
        self.lam = np.zeros(K)
        self.cum_est = np.zeros(K)
        self.n_added = np.zeros(K, dtype=np.int64)
        self.n_exploit = np.zeros(K, dtype=np.int64)
        self.n_explore = np.zeros(K, dtype=np.int64)
        self.pbar = np.empty(K)
        self.cap = 0
        self.U = 0.0
        self.ell_mode = ELL_DOUBLING if doubling else ELL_FIXED
        self.ell = 1.0 if doubling else self.ell_max
        self.chat = 1.0
        self.osmd = OSMDCore(K, 0.0)
        self.I_next = self.osmd.sample(self.uniform())

    def _bat_set_capacity(self, int cap, double U):
        """``floor(B/2)`` and the radius ``U`` once ``B`` is known (a time budget needs
        ``d``)."""
        if self.allocated:
            raise ValueError("the buffers are allocated: their capacity is fixed")
        self.cap = cap
        self.U = U

    def _bat_horizon(self):
        """The horizon ``T`` in use, 0 while unknown."""
        return self.T_h if self.ready else 0

    def _bat_set_horizon(self, long long T, double ups, double zfac, double C, lam,
                         int eta_mode, double eta, double eta_c, double eta_cap):
        """Settings that depend on the horizon ``T``: ``upsilon`` and
        ``z_t = 2 zfac T^(1-upsilon) t^upsilon`` (``zfac = 1 - upsilon`` as printed in
        Theorem 8, ``1/(1 - upsilon)`` corrected), ``C = K B``, the step sizes
        ``lambda_i``, and the learning rate of (11) (``eta`` fixed, or the doubling rule
        ``min(eta_c / sqrt(C^), eta_cap)``)."""
        cdef int i
        self.T_h = T
        self.ups = ups
        self.zpre = 2.0 * zfac * pow(<double> T, 1.0 - ups)
        self.C = C
        for i in range(self.K):
            self.lam[i] = lam[i]
        self.eta_mode = eta_mode
        self.eta_c = eta_c
        self.eta_cap = eta_cap
        self.osmd.eta = eta
        if self.r_code:
            self.osmd.eta = 4.0 * sqrt(log(<double> self.K)) / sqrt(self.K * self.r_m)
        self.ready = True

    def _core_allocate(self, int d, int capacity, bint growable):
        """At the first example: fix ``d`` and allocate the ``K`` (empty) buffers."""
        cdef int i
        if self.cap < 1:
            raise ValueError("the buffer capacity floor(B/2) must be known (and >= 1) "
                             "before the first example")
        Learner._core_allocate(self, d, capacity, growable)
        self._free_buffers()
        self.Xs = <double**> malloc(self.K * sizeof(double*))
        self.sq = <double**> malloc(self.K * sizeof(double*))
        self.l1 = <double**> malloc(self.K * sizeof(double*))
        self.al = <double**> malloc(self.K * sizeof(double*))
        self.st = <long long**> malloc(self.K * sizeof(long long*))
        self.krow = <double*> malloc(self.cap * sizeof(double))
        if (self.Xs == NULL or self.sq == NULL or self.l1 == NULL or self.al == NULL
                or self.st == NULL or self.krow == NULL):
            raise MemoryError("cannot allocate the BATBooks buffers")
        for i in range(self.K):
            self.Xs[i] = self.sq[i] = self.l1[i] = self.al[i] = NULL
            self.st[i] = NULL
            self.n[i] = 0
            self.ld[i] = 0
        self.allocated = True

    def _bat_begin(self, long long n_rounds):
        """Allocate this run's per-round records."""
        cdef long long m = max(n_rounds, 1)
        cdef long long[::1] vI, vJ, vK
        cdef signed char[::1] vR, vH
        cdef double[::1] vE, vQ
        rec = {"exploited": np.empty(m, dtype=np.int64),
               "explored": np.empty(m, dtype=np.int64),
               "kernel_rows": np.empty(m, dtype=np.int8),
               "rho": np.empty(m, dtype=np.int8),
               "kernel_evaluations": np.empty(m, dtype=np.int64),
               "eta": np.empty(m),
               "q": np.empty(m)}
        vI = rec["exploited"]
        vJ = rec["explored"]
        vR = rec["kernel_rows"]
        vH = rec["rho"]
        vK = rec["kernel_evaluations"]
        vE = rec["eta"]
        vQ = rec["q"]
        self.rec_I = &vI[0]
        self.rec_J = &vJ[0]
        self.rec_rows = &vR[0]
        self.rec_rho = &vH[0]
        self.rec_kev = &vK[0]
        self.rec_eta = &vE[0]
        self.rec_q = &vQ[0]
        self.rec_n = 0
        self.rec_cap = n_rounds
        self._records = rec

    # -- typed round -------------------------------------------------------------------

    cdef int _grow(self, int i) noexcept nogil:
        """Double the slots of buffer ``i`` (at most ``cap``); 0 on success."""
        cdef int old = self.ld[i], new, j
        cdef size_t c
        cdef double* X
        cdef void* q
        new = FIRST_CAPACITY if old == 0 else 2 * old
        if new > self.cap:
            new = self.cap
        if new <= old:
            return -1
        c = new
        X = <double*> malloc(c * self.d * sizeof(double))
        if X == NULL:
            return -1
        if self.n[i] > 0:
            for j in range(self.d):
                memcpy(X + j * c, self.Xs[i] + <Py_ssize_t> j * old, self.n[i] * sizeof(double))
        q = realloc(self.sq[i], c * sizeof(double))
        if q == NULL:
            free(X)
            return -1
        self.sq[i] = <double*> q
        q = realloc(self.l1[i], c * sizeof(double))
        if q == NULL:
            free(X)
            return -1
        self.l1[i] = <double*> q
        q = realloc(self.al[i], c * sizeof(double))
        if q == NULL:
            free(X)
            return -1
        self.al[i] = <double*> q
        q = realloc(self.st[i], c * sizeof(long long))
        if q == NULL:
            free(X)
            return -1
        self.st[i] = <long long*> q
        free(self.Xs[i])
        self.Xs[i] = X
        self.ld[i] = new
        return 0

    cdef int _append(self, int i, const Row* x, double a) noexcept nogil:
        """Append ``x`` with coefficient ``a`` to ``S_i`` (``|S_i| < cap``); 0 on success."""
        cdef int m = self.n[i], j, k
        cdef Py_ssize_t L
        cdef double* X
        if m == self.ld[i] and self._grow(i) != 0:
            return -1
        X = self.Xs[i]
        L = self.ld[i]
        if x.indices == NULL:
            for j in range(self.d):
                X[m + j * L] = x.data[j]
        else:
            for j in range(self.d):
                X[m + j * L] = 0.0
            for k in range(x.nnz):
                X[m + x.indices[k] * L] = x.data[k]
        self.sq[i][m] = x.sqnorm
        self.l1[i][m] = x.l1norm
        self.al[i][m] = a
        self.st[i][m] = self.t
        self.n[i] = m + 1
        return 0

    cdef double _eval(self, int i, const Row* x) noexcept nogil:
        """``f_{t,i}(x)``: one kernel row against ``S_i`` (``|S_i|`` kernel evaluations)."""
        cdef int m = self.n[i]
        if m == 0:
            return 0.0
        kernel_row(&self.kps[i], self.Xs[i], self.ld[i], self.sq[i], self.l1[i], m, self.d,
                   x, self.krow)
        return ddot(&m, self.al[i], &INC1, self.krow, &INC1)

    cdef double score(self, const Row* x) noexcept nogil:
        """The prediction ``f_{t,I_t}(x)`` of the exploited kernel."""
        if not self.allocated:
            return 0.0
        return self._eval(self.I_next, x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef inline double _dloss(self, double y, double f) noexcept nogil:
        """A subgradient ``l'(f, y)`` (0 at the kink of the absolute loss and on the flat
        part of the hinge: no update there)."""
        return loss_derivative(self.loss_kind, y, f)

    cdef int size(self) noexcept nogil:
        cdef int i, s = 0
        if self.K == 0:
            return 0
        for i in range(self.K):
            s += self.n[i]
        return s

    cdef bint r_check_restart(self) noexcept nogil:
        """The scripts' ``if (min(tilde_L) > min_tilde_L)``: quadruple ``m``, new eta."""
        cdef int k
        cdef double cmin = self.cum_est[0]
        for k in range(1, self.K):
            if self.cum_est[k] < cmin:
                cmin = self.cum_est[k]
        if cmin > self.r_m:
            self.r_m = self.r_m * 4.0
            self.osmd.eta = 4.0 * sqrt(log(<double> self.K)) / sqrt(self.K * self.r_m)
            self.r_restarts += 1
            return True
        return False

    cdef int explore(self, const Row* x, int I, double f, double* fJ, int* rows,
                     long long* kev) noexcept nogil:
        """The exploration draw ``J_t ~ uniform([K])`` and its score ``fJ`` (the second
        kernel row only when ``J_t != I_t``; ``f`` is ``I_t``'s), with the round's kernel
        rows and evaluations so far (both variants).  Returns ``J_t``."""
        cdef int J = <int> (self.uniform() * self.K)
        if J >= self.K:
            J = self.K - 1
        kev[0] = self.n[I]
        if J == I:
            rows[0] = 1
            fJ[0] = f
        else:
            rows[0] = 2
            kev[0] += self.n[J]
            fJ[0] = self._eval(J, x)
        return J

    cdef void end_round(self, int I, int J, int rows, long long kev, signed char rho,
                        double eta, double q) noexcept nogil:
        """A round's bookkeeping (counts, the record) and the exploitation draw of the next
        round, ``I_{t+1} ~ p_{t+1}`` (both variants)."""
        self.n_exploit[I] += 1
        self.n_explore[J] += 1
        self.rows_total += rows
        self.kev_total += kev
        if kev > self.max_kev:
            self.max_kev = kev
        if self.rec_n < self.rec_cap:
            self.rec_I[self.rec_n] = I
            self.rec_J[self.rec_n] = J
            self.rec_rows[self.rec_n] = rows
            self.rec_rho[self.rec_n] = rho
            self.rec_kev[self.rec_n] = kev
            self.rec_eta[self.rec_n] = eta
            self.rec_q[self.rec_n] = q
            self.rec_n += 1
        self.I_next = self.osmd.sample(self.uniform())

    cdef void r_round(self, const Row* x, double y, double f) noexcept nogil:
        """One round of ``BATBooks.R`` (hinge) / ``BATBooks-r.R`` (absolute) literally."""
        cdef int I = self.I_next, J, K = self.K, k, i, rows, npass, ps
        cdef long long kev
        cdef double fJ, fi, qi, c, ct, z, prho, up, a, nsq, nrm, s, eta0, g
        cdef double q = -1.0
        cdef signed char rho = RHO_NO_GRADIENT
        cdef bint hinge = self.loss_kind == LOSS_HINGE, draw
        J = self.explore(x, I, f, &fJ, &rows, &kev)
        eta0 = self.osmd.eta
        for k in range(K):
            self.pbar[k] = self.osmd.p[k]                   # barpt <- p
        npass = 1 if J == I else 2
        for ps in range(npass):
            i = I if ps == 0 else J
            fi = f if ps == 0 else fJ
            qi = (K - 1.0) / K * self.osmd.p[i] + 1.0 / K
            c = self.loss(y, fi)
            if c > self.max_c:
                self.max_c = c
            ct = c / (1.0 * qi)                              # max_loss = 1
            self.cum_est[i] += ct
            self.pbar[i] = self.osmd.p[i] * exp(-self.osmd.eta * ct)
            if i == J:
                g = self._dloss(y, fi)
                if g != 0.0:
                    self.n_grad += 1
                draw = (g != 0.0) if hinge else True          # regression: every round
                if draw:
                    z = self.zpre * pow(<double> self.t, self.ups)
                    prho = self.C / z
                    q = prho if prho < 1.0 else 1.0
                    if self.uniform() < q:
                        self.n_rho += 1
                        if self.n[J] >= self.cap:
                            rho = RHO_FULL
                            self.n_full += 1
                        else:
                            up = prho / K                      # unclipped
                            a = -self.lam[J] * g / up
                            nsq = (self.normsq[J] + (self.lam[J] / up) * (self.lam[J] / up)
                                   - 2.0 * self.lam[J] * g * fi / up + 1e-7)
                            nrm = sqrt(nsq)
                            if self._append(J, x, a) != 0:
                                self.error = 1
                                return
                            if nrm > self.U:
                                s = self.U / nrm
                                dscal(&self.n[J], &s, self.al[J], &INC1)
                                self.normsq[J] = self.U * self.U
                                self.n_proj += 1
                            else:
                                self.normsq[J] = nrm * nrm
                            self.n_added[J] += 1
                            if self.n[J] > self.max_size:
                                self.max_size = self.n[J]
                            rho = RHO_ADDED
                    else:
                        rho = RHO_ZERO
            if not hinge and self.r_check_restart():
                # BATBooks-r.R: p, tilde_L and barpt back to uniform / 0 inside the loop
                for k in range(K):
                    self.osmd.p[k] = 1.0 / K
                    self.pbar[k] = self.osmd.p[k]
                    self.cum_est[k] = 0.0
        if hinge and self.r_check_restart():
            for k in range(K):
                self.pbar[k] = 1.0 / K                      # barpt <- p_ini
        s = 0.0
        for k in range(K):
            s += self.pbar[k]
        for k in range(K):
            self.osmd.p[k] = self.pbar[k] / s
            self.osmd.logp[k] = log(self.osmd.p[k])
        self.osmd.t += 1
        self.end_round(I, J, rows, kev, rho, eta0, q)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int I = self.I_next, J, K = self.K, k, rows
        cdef long long kev
        cdef double fJ, lI, lJ, cI, cJ, m, cstar, g, z, q = -1.0, a, kxx, nrm, s, eta
        cdef signed char rho = RHO_NO_GRADIENT
        if self.r_code:
            self.r_round(x, y, f)
            return
        J = self.explore(x, I, f, &fJ, &rows, &kev)
        # criteria c_{t,i} = l(f_{t,i}(x_t), y_t) / ell_m of the two observed kernels
        lI = self.loss(y, f)
        lJ = lI if J == I else self.loss(y, fJ)
        if self.ell_mode == ELL_DOUBLING:
            m = lI if lI > lJ else lJ
            while m > self.ell:
                self.ell *= 2.0
        cI = lI / self.ell
        cJ = lJ / self.ell
        if cI > self.max_c:
            self.max_c = cI
        if cJ > self.max_c:
            self.max_c = cJ
        # learning rate of (11): Theorem 9's eta with C~_{T,*} guessed by doubling
        if self.eta_mode == ETA_DOUBLING:
            cstar = self.cum_est[0]
            for k in range(1, K):
                if self.cum_est[k] < cstar:
                    cstar = self.cum_est[k]
            while cstar > self.chat:
                self.chat *= 2.0
            eta = self.eta_c / sqrt(self.chat)
            if eta > self.eta_cap:
                eta = self.eta_cap
            self.osmd.eta = eta
        eta = self.osmd.eta
        # estimator (10) and OSMD step (11): p_t -> p_{t+1}
        self.osmd.update_pair(I, J, cI, cJ)
        for k in range(K):
            self.cum_est[k] += self.osmd.est[k]
        # sampling rule and projected OGD step on f_{t,J_t}
        g = self._dloss(y, fJ)
        if g != 0.0:
            self.n_grad += 1
            z = self.zpre * pow(<double> self.t, self.ups)
            q = self.C / z
            if q > 1.0:
                q = 1.0
            if self.uniform() < q:
                self.n_rho += 1
                if self.n[J] >= self.cap:
                    rho = RHO_FULL
                    self.n_full += 1
                else:
                    # grad~ = grad / (P[J_t = J] P[rho = 1]) = K grad / q
                    a = -self.lam[J] * g * K / q
                    kxx = kernel_self(&self.kps[J], x)
                    nrm = self.normsq[J] + 2.0 * a * fJ + a * a * kxx
                    if nrm < 0.0:
                        nrm = 0.0
                    if self._append(J, x, a) != 0:
                        self.error = 1
                        return
                    if nrm > self.U * self.U:
                        s = self.U / sqrt(nrm)
                        dscal(&self.n[J], &s, self.al[J], &INC1)
                        self.normsq[J] = self.U * self.U
                        self.n_proj += 1
                    else:
                        self.normsq[J] = nrm
                    self.n_added[J] += 1
                    if self.n[J] > self.max_size:
                        self.max_size = self.n[J]
                    rho = RHO_ADDED
            else:
                rho = RHO_ZERO
        self.end_round(I, J, rows, kev, rho, eta, q)

    # -- inspection --------------------------------------------------------------------

    def _bat_records(self):
        if self._records is None:
            return {}
        n = self.rec_n
        return {k: v[:n].copy() for k, v in self._records.items()}

    def _bat_buffer(self, int i):
        """``(vectors (n, d), coefficients (n,), stamps (n,))`` of ``S_i``."""
        cdef int m, j, r
        if i < 0 or i >= self.K:
            raise IndexError(i)
        if not self.allocated:
            return np.empty((0, 0)), np.empty(0), np.empty(0, dtype=np.int64)
        m = self.n[i]
        V = np.empty((m, self.d))
        A = np.empty(m)
        S = np.empty(m, dtype=np.int64)
        cdef double[:, ::1] v = V
        cdef double[::1] av = A
        cdef long long[::1] sv = S
        for r in range(m):
            for j in range(self.d):
                v[r, j] = self.Xs[i][r + <Py_ssize_t> j * self.ld[i]]
            av[r] = self.al[i][r]
            sv[r] = self.st[i][r]
        return V, A, S

    def _bat_raw(self, int i):
        """``(vectors, coefficients, stamps, squared norms, l1 norms)`` of ``S_i``."""
        V, A, S = self._bat_buffer(i)
        m = A.shape[0]
        return (V, A, S, np.array([self.sq[i][r] for r in range(m)]),
                np.array([self.l1[i][r] for r in range(m)]))

    def _bat_buffers(self):
        return [self._bat_raw(i) for i in range(self.K)] if self.allocated else None

    def _put_buffers(self, buffers):
        """Inverse of ``_bat_buffers`` (after ``cap`` is restored)."""
        cdef int i, r, j, m
        cdef const double[:, ::1] V
        cdef const double[::1] A, sqv, l1v
        cdef const long long[::1] S
        if buffers is None:
            return
        self._core_allocate(self.d, 1, False)
        for i in range(self.K):
            Vn, An, Sn, sqn, l1n = buffers[i]
            m = An.shape[0]
            if m == 0:
                continue
            V = np.ascontiguousarray(Vn, dtype=np.float64)
            A = np.ascontiguousarray(An, dtype=np.float64)
            S = np.ascontiguousarray(Sn, dtype=np.int64)
            sqv = np.ascontiguousarray(sqn, dtype=np.float64)
            l1v = np.ascontiguousarray(l1n, dtype=np.float64)
            while self.ld[i] < m:
                if self._grow(i) != 0:
                    raise MemoryError("cannot restore a BATBooks buffer")
            for r in range(m):
                for j in range(self.d):
                    self.Xs[i][r + <Py_ssize_t> j * self.ld[i]] = V[r, j]
                self.al[i][r] = A[r]
                self.st[i][r] = S[r]
                self.sq[i][r] = sqv[r]
                self.l1[i][r] = l1v[r]
            self.n[i] = m
