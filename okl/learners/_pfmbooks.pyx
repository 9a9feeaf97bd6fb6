# cython: language_level=3
"""Typed core of PFMBooks (Li & Liao, *Online kernel selection with computational
constraints*, Sec. 3.3, eqs. (7)-(8), Theorems 4-6, Remark 2).

One round (``t = 1, ..., T``) against the shared support set ``S`` (capacity
``cap``, the example budget), with ``K`` Gaussian kernels and ``M`` nested balls
per kernel, i.e. ``K' = K M`` hypotheses ``f_{t,k}``, ``k = h(i, j) = i M + j``
(0-based: kernel ``i``, radius ``U_j``):

``score``
    One ``sq_dist_row`` (``||x_t - s||^2`` for every ``s`` in ``S``), then ``K``
    exponentials ``k_i(x_t, S) = exp(-gamma_i ||x_t - s||^2)``, then for each kernel
    one ``dgemv`` giving its ``M`` hypotheses ``f_{t,i,j}(x_t) = A_{i,j}^T k_i(x_t, S)``
    (``A`` holds the ``K'`` coefficient vectors column by column).  The prediction
    is ``f_{t,I_t}(x_t)`` with ``I_t ~ p_t`` drawn at the end of the previous round
    (``prediction="sample"``, the paper's) or ``sum_k p_{t,k} f_{t,k}(x_t)``
    (``prediction="mean"``).
``update``
    The criteria ``c_{t,k} = l(f_{t,k}(x_t), y_t)`` go to MSMW (``MSMWCore.update``:
    ``p_{t+1}``); then ``rho_t ~ Ber(P_t)``, ``P_t = min{1, C / z_t}``,
    ``z_t = 2 (1 - upsilon) T^(1 - upsilon) t^upsilon`` (Theorem 4; one uniform);
    if ``rho_t = 1`` (and ``|S| < cap``, the hard guard) every hypothesis takes the
    step (8) ``fbar = f - lambda_k l'(f_k(x_t), y_t) / P_t k_i(x_t, .)`` -- the new
    support vector ``x_t`` gets coefficient ``-lambda_k l'_k / P_t`` in column ``k`` --
    followed by the projection ``min{1, U_j / ||fbar||} fbar`` onto ``||f|| <= U_j``,
    with ``||fbar||^2 = ||f||^2 + 2 a f(x_t) + a^2 k_i(x_t, x_t)`` kept incrementally;
    finally ``I_{t+1} ~ p_{t+1}`` (a second uniform).

``r_code`` (``PFMBooks(variant="r")``: the authors' ``PFMBooks-{c,r}.R``): ``p_{t+1} =
bar p exp(-lambda* / g)`` with ``bar p = p_t exp(-eta c_t / g)`` and ``lambda*`` found by
the scripts' bisection (stopped once ``0.99 <= sum p <= 1 + 1e-5``: ``p`` is not exactly
normalized; ``I_t`` is drawn from ``p / sum p``); the step divides by the unclipped
``C / z_t`` (the draw uses ``min{1, .}``); regression (absolute loss): the norm recursion
adds ``(lambda / P)^2`` for every hypothesis when ``x_t`` is stored, ``l' = 0`` included.
"""

from libc.math cimport sqrt, pow, fabs, fmax, exp, log
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport dgemv, dscal

import numpy as np

from okl._core cimport Learner, Row, SupportSet, sq_dist_row, exp_scaled
from okl._losses cimport LOSS_HINGE, loss_derivative, loss_value
from okl.learners._experts cimport MSMWCore

from okl._learner import fields

cdef double ONE = 1.0
cdef double ZERO = 0.0
cdef int INC1 = 1

# prediction kinds
cdef enum:
    PRED_SAMPLE = 0
    PRED_MEAN = 1


cdef double* _alloc(Py_ssize_t n) except NULL:
    cdef double* out = <double*> malloc((n if n > 0 else 1) * sizeof(double))
    if out == NULL:
        raise MemoryError()
    return out


cdef class PFMBooksCore(Learner):
    """Typed state of PFMBooks; the Python surface is ``okl.learners.pfmbooks.PFMBooks``."""

    cdef int K, M, Kp, cap
    cdef public int loss_kind, pred_kind    # the learner's parameters (okl.params)
    cdef bint configured
    cdef double* gamma      # K: 1 / (2 sigma_i^2)
    cdef double* kdiag      # K: k_i(x, x) (1 for a Gaussian kernel)
    cdef double* radius     # K': U_j of hypothesis k = h(i, j)
    cdef double* step       # K': lambda_{i,j} of Theorem 6
    cdef double* A          # cap x K', column k = coefficients of f_{t,k} (ld = cap)
    cdef double* nrm2       # K': ||f_{t,k}||^2, kept incrementally
    cdef double* dist       # cap: ||x - s||^2 of the last scored x
    cdef double* rows       # K x cap: k_i(x, S) of the last scored x
    cdef double* fx         # K': f_{t,k}(x) of the last scored x
    cdef double* closs      # K': the criteria c_{t,k}
    cdef MSMWCore msmw
    cdef double C, zcoef, ups
    cdef long long T
    cdef public int I_next
    cdef public long long n_rho, n_added, n_guard, n_zero_added
    cdef public int max_size
    # per-round records of the current stream
    cdef object _rec
    cdef long long* rec_action
    cdef unsigned char* rec_rho
    cdef double* rec_P
    cdef double* rec_expected
    cdef long long rec_t0, rec_len
    # the authors' R code (variant="r")
    cdef public bint r_code
    cdef double bis_factor      # the bisection's bracket growth B^(1/8)
    cdef double* pbar           # K': p_t exp(-eta c / g)
    cdef public long long n_bisect  # bisection steps so far

    # what the extras read.  The pickled state stays written by hand (_pfm_state): until
    # the budget and horizon configure the core it is {"configured": False}; after, every
    # buffer is sized by K, M and the budget when _pfm_configure rebuilds it, MSMW's
    # internals are stored bit for bit and the coefficients are a column-major block.
    _values_fields = fields(("n_sampled", "n_rho"), "n_added", "n_zero_added",
                            ("guard_triggers", "n_guard"), "max_size")

    def __cinit__(self, *args, **kwargs):
        self.loss_kind = LOSS_HINGE
        self.pred_kind = PRED_SAMPLE
        self.bis_factor = 2.0

    def __dealloc__(self):
        self._free_buffers()

    cdef void _free_buffers(self) noexcept:
        free(self.gamma)
        free(self.kdiag)
        free(self.radius)
        free(self.step)
        free(self.A)
        free(self.nrm2)
        free(self.dist)
        free(self.rows)
        free(self.fx)
        free(self.closs)
        free(self.pbar)
        self.gamma = self.kdiag = self.radius = self.step = NULL
        self.A = self.nrm2 = self.dist = self.rows = self.fx = self.closs = NULL
        self.pbar = NULL

    # -- configuration (Python, before the loop) ---------------------------------------

    def _core_allocate(self, int d, int capacity, bint growable):
        """Only fixes ``d``: the support set is allocated by ``_pfm_configure`` once the
        example budget (which may depend on ``d`` and ``T``) is known."""
        self.d = d

    def _pfm_configure(self, gammas, kdiag, int M, radii, steps, int cap, double C,
                       double zcoef, double ups, long long T, MSMWCore msmw,
                       double bis_factor=2.0):
        """Allocate the typed state for ``K = len(gammas)`` kernels and ``M`` radii per
        kernel (``radii``/``steps``: ``K'`` entries, ``k = i M + j``)."""
        cdef int K = len(gammas), Kp = K * M, k
        if K < 1 or M < 1 or cap < 1:
            raise ValueError("PFMBooks needs K >= 1, M >= 1 and a budget >= 1")
        if len(radii) != Kp or len(steps) != Kp or msmw.K != Kp:
            raise ValueError("radii, steps and MSMW must have K M entries")
        self._free_buffers()
        self.K, self.M, self.Kp, self.cap = K, M, Kp, cap
        self.gamma = _alloc(K)
        self.kdiag = _alloc(K)
        self.radius = _alloc(Kp)
        self.step = _alloc(Kp)
        self.A = _alloc(<Py_ssize_t> cap * Kp)
        self.nrm2 = _alloc(Kp)
        self.dist = _alloc(cap)
        self.rows = _alloc(<Py_ssize_t> cap * K)
        self.fx = _alloc(Kp)
        self.closs = _alloc(Kp)
        self.pbar = _alloc(Kp)
        self.bis_factor = bis_factor
        for k in range(K):
            self.gamma[k] = gammas[k]
            self.kdiag[k] = kdiag[k]
        for k in range(Kp):
            self.radius[k] = radii[k]
            self.step[k] = steps[k]
            self.nrm2[k] = 0.0
            self.fx[k] = 0.0
            self.closs[k] = 0.0
        self.C, self.zcoef, self.ups, self.T = C, zcoef, ups, T
        self.msmw = msmw
        self.configured = True

    def _pfm_new_support(self, kernel, int d):
        """A fresh, non-growable support set of ``cap`` slots (the hard guard)."""
        self.sv = SupportSet(kernel, d, self.cap, False)

    def _pfm_draw_first(self):
        """``I_1 ~ p_1`` (one uniform of the learner's generator)."""
        self.I_next = self.draw_action(self.uniform())

    def _pfm_begin_records(self, long long n):
        act = np.full(n, -1, dtype=np.int64)
        rho = np.zeros(n, dtype=np.uint8)
        flt = np.full((2, n), np.nan)
        cdef long long[::1] a = act
        cdef unsigned char[::1] r = rho
        cdef double[:, ::1] f = flt
        self._rec = (act, rho, flt)
        self.rec_action = &a[0] if n > 0 else NULL
        self.rec_rho = &r[0] if n > 0 else NULL
        self.rec_P = &f[0, 0] if n > 0 else NULL
        self.rec_expected = &f[1, 0] if n > 0 else NULL
        self.rec_t0 = self.t
        self.rec_len = n

    # -- losses --------------------------------------------------------------------

    cdef inline double loss_of(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef inline double grad_of(self, double y, double f) noexcept nogil:
        """A subgradient ``l'(f, y)`` (0 at the kink of the hinge and of |f - y|)."""
        return loss_derivative(self.loss_kind, y, f)

    cdef double loss(self, double y, double f) noexcept nogil:
        return self.loss_of(y, f)

    # -- the authors' R code: sampling and the bisection ------------------------------

    cdef int draw_action(self, double u) noexcept nogil:
        """``I ~ p`` by inverse CDF; ``r_code``: of ``p / sum p`` (R's ``sample`` normalizes
        ``prob``; the fixtures' scripts use the index order, R's sorts ``p`` first)."""
        cdef double tot = 0.0, acc = 0.0
        cdef int k, last = 0
        if not self.r_code:
            return self.msmw.sample(u)
        for k in range(self.Kp):
            tot += self.msmw.p[k]
        for k in range(self.Kp):
            if self.msmw.p[k] > 0.0:
                acc += self.msmw.p[k] / tot
                last = k
                if u < acc:
                    return k
        return last

    cdef double r_sum(self, double lam) noexcept nogil:
        """``sum_k bar p_k exp(-lam / g_k)``."""
        cdef double s = 0.0
        cdef int k
        for k in range(self.Kp):
            s += self.pbar[k] * exp(-lam / self.msmw.scale[k])
        return s

    cdef void r_update(self) noexcept nogil:
        """``p_{t+1}`` as ``PFMBooks-{c,r}.R``: ``bar p = p exp(-eta c / g)``, then
        ``bar p exp(-lambda* / g)`` with the scripts' bisection on ``lambda* <= 0``."""
        cdef double upper = 0.0, lower, lam = 0.0, s
        cdef int k
        for k in range(self.Kp):
            if self.closs[k] > 0.0 or self.loss_kind != LOSS_HINGE:
                self.pbar[k] = self.msmw.p[k] * exp(-self.msmw.eta * self.closs[k] / self.msmw.scale[k])
            else:
                self.pbar[k] = self.msmw.p[k]       # the script: barpt[r] <- p[r] when y f >= 1
        s = self.r_sum(lam)
        if 1.0 - s > 0.01 or s - 1.0 > 1e-5:
            lower = -1.0
            lam = lower
            s = self.r_sum(lam)
            while s < 1.0:
                lower = lower * self.bis_factor
                lam = lower
                s = self.r_sum(lam)
            while 1.0 - s > 0.01 or s - 1.0 > 1e-5:
                if s > 1.0:
                    lower = lam
                else:
                    upper = lam
                lam = (lower + upper) / 2.0
                s = self.r_sum(lam)
                self.n_bisect += 1
        for k in range(self.Kp):
            self.msmw.p[k] = self.pbar[k] * exp(-lam / self.msmw.scale[k])
            self.msmw.logp[k] = log(self.msmw.p[k])
        self.msmw.last_lambda = lam
        self.msmw.t += 1

    # -- the round ------------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        """All ``K'`` hypotheses at ``x`` (into ``fx``), from one row of distances."""
        cdef int n, i, k, M = self.M, ld = self.cap
        cdef double f = 0.0
        cdef double* r
        if not self.configured or self.sv is None:
            return 0.0
        n = self.sv.n
        if n == 0:
            for k in range(self.Kp):
                self.fx[k] = 0.0
        else:
            sq_dist_row(self.sv.X, self.sv.capacity, self.sv.sqnorm, n, self.sv.d, x, self.dist)
            for i in range(self.K):
                r = self.rows + <Py_ssize_t> i * ld
                memcpy(r, self.dist, n * sizeof(double))
                exp_scaled(r, n, -self.gamma[i])
                dgemv(b"T", &n, &M, &ONE, self.A + <Py_ssize_t> i * M * ld, &ld, r, &INC1,
                      &ZERO, self.fx + i * M, &INC1)
        if self.pred_kind == PRED_SAMPLE:
            return self.fx[self.I_next]
        for k in range(self.Kp):
            f += self.msmw.p[k] * self.fx[k]
        return f

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int k, i, n, m, Kp = self.Kp, ld = self.cap
        cdef double P, Pstep, u, g, a, nsq, s, kxx
        cdef double* col
        cdef long long r = self.t - self.rec_t0 - 1
        cdef bint rec = self.rec_P != NULL and 0 <= r < self.rec_len
        cdef bint rho, nonzero
        if not self.configured:
            self.error = 1
            return
        n = self.sv.n
        # criteria c_{t,k} = l(f_{t,k}(x_t), y_t), then MSMW: p_t -> p_{t+1}
        for k in range(Kp):
            self.closs[k] = self.loss_of(y, self.fx[k])
        if rec:
            self.rec_action[r] = self.I_next
            self.rec_expected[r] = self.msmw.expected_loss(self.closs)
        if self.r_code:
            self.r_update()
        else:
            self.msmw.update(self.closs)
        # oblivious sampling (Theorem 4): P_t = min{1, C / z_t}
        P = self.C / (self.zcoef * pow(<double> self.t, self.ups))
        Pstep = P           # r_code: the scripts divide by the unclipped C / z_t
        if P > 1.0:
            P = 1.0
        if not self.r_code:
            Pstep = P
        u = self.uniform()
        rho = u < P
        if rho:
            self.n_rho += 1
            if n >= self.cap:
                self.n_guard += 1          # hard guard: no room, no update (Sec. 5.2)
            else:
                m = n + 1
                nonzero = False
                for k in range(Kp):
                    i = k // self.M
                    g = self.grad_of(y, self.fx[k])
                    col = self.A + <Py_ssize_t> k * ld
                    a = -self.step[k] * g / Pstep                           # (8)
                    col[n] = a
                    if a != 0.0 or (self.r_code and self.loss_kind != LOSS_HINGE):
                        nonzero = nonzero or a != 0.0
                        kxx = self.kdiag[i]
                        if a == 0.0:
                            # PFMBooks-r.R: Norm^2 + (lambda/P)^2 - 2 lambda nabla f / P,
                            # nabla = sign(f - y) = 0 included
                            a = self.step[k] / Pstep
                            nsq = self.nrm2[k] + a * a * kxx
                        else:
                            nsq = self.nrm2[k] + 2.0 * a * self.fx[k] + a * a * kxx
                        if nsq > self.radius[k] * self.radius[k]:           # projection
                            s = self.radius[k] / sqrt(nsq)
                            dscal(&m, &s, col, &INC1)
                            self.nrm2[k] = self.radius[k] * self.radius[k]
                        else:
                            self.nrm2[k] = fmax(nsq, 0.0)
                self.sv.add(x, 0.0, self.t)
                self.n_added += 1
                if not nonzero:
                    self.n_zero_added += 1
                if self.sv.n > self.max_size:
                    self.max_size = self.sv.n
        if rec:
            self.rec_rho[r] = rho
            self.rec_P[r] = P
        self.I_next = self.draw_action(self.uniform())              # I_{t+1} ~ p_{t+1}

    # -- inspection and pickling ----------------------------------------------------

    def _pfm_coefficients(self):
        """``(|S|, K')`` array: column ``k`` holds the coefficients of ``f_{t,k}``."""
        cdef int n = 0 if self.sv is None else self.sv.n, s, k
        out = np.zeros((n, self.Kp))
        cdef double[:, ::1] o = out
        for k in range(self.Kp):
            for s in range(n):
                o[s, k] = self.A[s + <Py_ssize_t> k * self.cap]
        return out

    def _pfm_array(self, str name):
        cdef double* p
        cdef int n, k
        if name == "nrm2":
            p = self.nrm2
            n = self.Kp
        elif name == "fx":
            p = self.fx
            n = self.Kp
        elif name == "criteria":
            p = self.closs
            n = self.Kp
        elif name == "radius":
            p = self.radius
            n = self.Kp
        elif name == "step":
            p = self.step
            n = self.Kp
        elif name == "gamma":
            p = self.gamma
            n = self.K
        elif name == "kdiag":
            p = self.kdiag
            n = self.K
        else:
            raise KeyError(name)
        out = np.empty(n)
        for k in range(n):
            out[k] = p[k]
        return out

    def _pfm_kernel_rows(self):
        """``(K, |S|)``: ``k_i(x, S)`` of the last scored example."""
        cdef int n = 0 if self.sv is None else self.sv.n, i, s
        out = np.empty((self.K, n))
        for i in range(self.K):
            for s in range(n):
                out[i, s] = self.rows[s + <Py_ssize_t> i * self.cap]
        return out

    def _pfm_records(self):
        if self._rec is None:
            return {}
        act, rho, flt = self._rec
        done = min(max(self.t - self.rec_t0, 0), self.rec_len)
        return {"actions": act[:done].copy(), "sampled": rho[:done].astype(bool),
                "sampling_probabilities": flt[0, :done].copy(),
                "expected_criteria": flt[1, :done].copy()}

    @property
    def msmw_(self):
        """The ``MSMWCore`` over the ``K'`` actions (``None`` until configured)."""
        return self.msmw

    def _pfm_state(self):
        if not self.configured:
            return {"configured": False}
        return {"configured": True, "gamma": self._pfm_array("gamma"),
                "kdiag": self._pfm_array("kdiag"), "M": self.M,
                "radius": self._pfm_array("radius"), "step": self._pfm_array("step"),
                "cap": self.cap, "C": self.C, "zcoef": self.zcoef, "ups": self.ups,
                "T": self.T, "msmw": self._msmw_state(), "A": self._pfm_coefficients(),
                "nrm2": self._pfm_array("nrm2"), "I_next": self.I_next,
                "counts": (self.n_rho, self.n_added, self.n_guard, self.n_zero_added,
                           self.max_size), "r_code": bool(self.r_code),
                "bis_factor": self.bis_factor, "n_bisect": self.n_bisect}

    def _msmw_state(self):
        """MSMW's state, bit for bit (``p`` and ``log p`` as they are: renormalizing on
        restore would perturb them by rounding and could change a later draw)."""
        cdef MSMWCore c = self.msmw
        cdef int k
        return {"scales": c.scales, "eta": c.eta, "t": c.t,
                "p": np.array([c.p[k] for k in range(c.K)]),
                "logp": np.array([c.logp[k] for k in range(c.K)]),
                "logp0": np.array([c.logp0[k] for k in range(c.K)]),
                "last_lambda": c.last_lambda,
                "iterations": (c.last_iterations, c.max_iterations)}

    @staticmethod
    def _msmw_rebuild(dict st):
        cdef MSMWCore c = MSMWCore(st["scales"], st["eta"])
        cdef int k
        p = np.asarray(st["p"], dtype=float)
        logp = np.asarray(st["logp"], dtype=float)
        logp0 = np.asarray(st["logp0"], dtype=float)
        for k in range(c.K):
            c.p[k] = p[k]
            c.logp[k] = logp[k]
            c.logp0[k] = logp0[k]
        c.t = st["t"]
        c.last_lambda = st["last_lambda"]
        c.last_iterations, c.max_iterations = st["iterations"]
        return c

    def _pfm_restore(self, dict state):
        cdef int s, k
        if not state["configured"]:
            return
        self._pfm_configure(state["gamma"], state["kdiag"], state["M"], state["radius"],
                            state["step"], state["cap"], state["C"], state["zcoef"],
                            state["ups"], state["T"], self._msmw_rebuild(state["msmw"]),
                            state.get("bis_factor", 2.0))
        self.r_code = state.get("r_code", False)
        self.n_bisect = state.get("n_bisect", 0)
        A = np.ascontiguousarray(state["A"], dtype=np.float64)
        cdef const double[:, ::1] av = A
        for k in range(A.shape[1]):
            for s in range(A.shape[0]):
                self.A[s + <Py_ssize_t> k * self.cap] = av[s, k]
        nrm2 = np.asarray(state["nrm2"], dtype=float)
        for k in range(self.Kp):
            self.nrm2[k] = nrm2[k]
        self.I_next = state["I_next"]
        self.n_rho, self.n_added, self.n_guard, self.n_zero_added, self.max_size = \
            state["counts"]
