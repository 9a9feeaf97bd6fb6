# cython: language_level=3
"""Typed cores of Sketched-KONS (Calandriello, Lazaric & Valko, ICML 2017) and
Pros-N-KONS (Calandriello, Lazaric & Valko, NeurIPS 2017) for the square loss
``l_t(z) = (z - y_t)^2``: see ``okl.learners.kons`` for the algorithms and the
reconstruction notes.

Both are kernel online Newton steps (KONS):

* the forecast is ``yhat_t = phi_t^T w_t = clip(phi_t^T u_t, -C, C)`` with the Newton
  point ``u_t = w_{t-1} - A_{t-1}^{-1} g_{t-1}`` and ``w_t`` its projection on
  ``S_t = {w : |phi_t^T w| <= C}`` in the ``A_{t-1}`` norm,
  ``w_t = u_t - h(phi_t^T u_t) / (phi_t^T A_{t-1}^{-1} phi_t) A_{t-1}^{-1} phi_t``,
  ``h(z) = sign(z) max(|z| - C, 0)``;
* ``g_t = l_t'(yhat_t) phi_t`` and ``A_t = A_{t-1} + eta g_t g_t^T`` (Sketched-KONS:
  only for the sampled rounds).

The cores keep the *pending* Newton point ``u_{t+1}`` after each update (computed with
``A_t``, which includes ``g_t``), so that ``score`` is the forecast of the next round
without any state change (``decision_function`` is the next forecast).
"""

from libc.math cimport sqrt, fabs, fmax, fmin, log1p
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy, memset

from scipy.linalg.cython_blas cimport ddot, dsymv, dsyr, dscal, dtrsv, daxpy

import numpy as np

from okl._core cimport Learner, Row, Stream, SupportSet, GramCholesky, kernel_self
from okl.learners._kors cimport KORS, RidgeLeverage

from okl._learner import Field, fields

cdef int INC1 = 1
cdef double ONE = 1.0
cdef double ZERO = 0.0

# Pros-N-KONS: a sampled point joins only if its ALD residual (the squared RKHS distance
# to the span of the dictionary) exceeds DEP_TOL * k(x, x): the embedding L^{-1} k_I(x)
# needs K_II = L L^T invertible.
cdef double DEP_TOL = 1e-10
DEPENDENCE_TOL = DEP_TOL


cdef inline int _grow(double** p, size_t n) noexcept nogil:
    cdef double* q = <double*> realloc(p[0], (n if n > 0 else 1) * sizeof(double))
    if q == NULL:
        return -1
    p[0] = q
    return 0


cdef inline double _clip(double z, double C) noexcept nogil:
    return fmin(fmax(z, -C), C)


# ----------------------------------------------------------------------------
# Sketched-KONS
# ----------------------------------------------------------------------------

cdef class SketchedKONSCore(Learner):
    """Sketched-KONS in the RKHS.

    State after round ``t``:

    * ``hist``: every input ``x_s``, ``s <= t``, with coefficient ``c_s``: the pending
      Newton point is ``u_{t+1} = sum_s c_s phi(x_s)``;
    * ``sv``: the sketch's points ``x_j`` (coefficient: ``s_j = sqrt(eta) |l'_j|``),
      ``didx[j]`` their index in ``hist``;
    * ``rl``: the factor of ``M = S K_SS S + alpha I`` (``S = diag(s)``), so that
      ``A~ = alpha I + sum_j s_j^2 phi_j phi_j^T`` has
      ``A~^{-1} phi(x) = (phi(x) - Phi_S S M^{-1} S k_S(x)) / alpha`` (Woodbury) and
      ``phi(x)^T A~^{-1} phi(x) = r(x) / alpha`` with ``r`` the weighted ridge residual.
    """
    cdef public double alpha, C, eta, beta, gamma    # the learner's parameters (okl.params)
    cdef public bint allocated
    cdef public SupportSet hist
    cdef public RidgeLeverage rl
    cdef int* didx
    cdef double* kS
    cdef double* v
    cdef int vcap
    # cache left by score for update
    cdef bint c_valid
    cdef long long c_t
    cdef double c_raw, c_hat
    # counters
    cdef public long long n_sampled, n_zero, n_proj
    cdef public double sum_p, sum_lev, log_det

    _state_fields = fields(
        "allocated", Field("hist", when="allocated"), Field("rl", when="allocated"),
        Field("didx", "sketch_rows", put="_put_sketch_rows", when="allocated"),
        ("counters", ("n_sampled", "n_zero", "n_proj", "sum_p", "sum_lev", "log_det")))

    def __dealloc__(self):
        free(self.didx)
        free(self.kS)
        free(self.v)

    def _setup(self):
        self.n_sampled = 0
        self.n_zero = 0
        self.n_proj = 0
        self.sum_p = 0.0
        self.sum_lev = 0.0
        self.log_det = 0.0

    cdef int reserve_vec(self, int need) noexcept nogil:
        cdef int* q
        if need <= self.vcap:
            return 0
        need = max(need, 2 * self.vcap, 16)
        q = <int*> realloc(self.didx, need * sizeof(int))
        if q == NULL:
            return -1
        self.didx = q
        if _grow(&self.kS, need) or _grow(&self.v, need):
            return -1
        self.vcap = need
        return 0

    def _core_allocate(self, int d, int capacity, bint growable):
        Learner._core_allocate(self, d, capacity, growable)
        self.hist = SupportSet(self._kernel, d, 64, True)
        self.rl = RidgeLeverage(self.alpha, 64)
        if self.reserve_vec(64) != 0:
            raise MemoryError("cannot allocate Sketched-KONS buffers")
        self.allocated = True
        self.c_valid = False

    def _sketched_begin(self, long long n_rounds):
        """Reserve the rows of a stream of ``n_rounds`` before the nogil loop."""
        if not self.allocated:
            return
        need = min(self.hist.n + n_rounds, 2**31 - 1)
        if need > self.hist.capacity:
            need = max(need, min(2 * self.hist.capacity, 2**31 - 1))
            if self.hist.reserve(<int> need) != 0:
                raise MemoryError(f"cannot reserve memory for {n_rounds} more rounds "
                                  "(Sketched-KONS stores every input)")

    cdef double score(self, const Row* x) noexcept nogil:
        cdef double raw = self.hist.score(x)        # leaves k(x, x_s) in hist.krow
        self.c_valid = True
        self.c_t = self.t
        self.c_raw = raw
        self.c_hat = _clip(raw, self.C)
        return self.c_hat

    cdef double loss(self, double y, double f) noexcept nogil:
        return (y - f) * (y - f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int m, j, n
        cdef double kappa, r, q, h, lp, tau, p, u, s2, rho, cproj, ct
        cdef double* ha
        cdef bint add
        if not (self.c_valid and self.c_t == self.t):
            self.score(x)
        self.c_valid = False
        m = self.sv.n
        n = self.hist.n
        # k_S(x_t): the sketch's entries of the kernel row score left in hist.krow
        # (kS has room for m: every update leaves vcap >= m + 1)
        for j in range(m):
            self.kS[j] = self.hist.krow[self.didx[j]]
        # every allocation first: a failure leaves the state of round t - 1
        if ((n == self.hist.capacity and self.hist.reserve(2 * self.hist.capacity) != 0)
                or self.reserve_vec(m + 1) != 0 or self.rl.reserve(m + 1) != 0
                or (m == self.sv.capacity and self.sv.reserve(2 * m) != 0)):
            self.error = 1
            return
        kappa = kernel_self(&self.kp, x)
        # r = alpha phi^T A~_{t-1}^{-1} phi; v = S M^{-1} S k_S(x_t)
        r = self.rl.residual(self.kS, kappa)
        q = r / self.alpha
        self.rl.weighted_solution(self.v)
        # projection on S_t in the A~_{t-1} norm: w_t = u_t - (h / q) A~^{-1} phi_t
        h = self.c_raw - self.c_hat
        cproj = 0.0
        if h != 0.0 and r > 0.0:
            cproj = h / r                  # (h / q) / alpha
            self.n_proj += 1
        # g_t = l'(yhat_t) phi_t; leverage and the sketch's Bernoulli
        lp = 2.0 * (self.c_hat - y)
        tau = self.eta * lp * lp * q
        p = fmax(fmin(self.beta * tau, 1.0), self.gamma)
        u = self.uniform()
        self.sum_p += p
        add = False
        s2 = self.eta * lp * lp
        if u < p:
            self.n_sampled += 1
            if lp != 0.0:
                add = True
            else:
                self.n_zero += 1
        # A~_t^{-1} phi_t = A~_{t-1}^{-1} phi_t / (1 + s^2 q) when phi_t joins (Sherman-
        # Morrison); the pending Newton point u_{t+1} = w_t - lp A~_t^{-1} phi_t
        if add:
            rho = lp / (self.alpha * (1.0 + s2 * q))
            self.sum_lev += lp * lp * q / (1.0 + s2 * q)
            self.log_det += log1p(s2 * q)
        else:
            rho = lp / self.alpha
            self.sum_lev += lp * lp * q
        ct = -(cproj + rho)               # coefficient of phi(x_t)
        ha = self.hist.alpha
        for j in range(m):
            ha[self.didx[j]] += (cproj + rho) * self.v[j]
        if add:
            self.rl.add(sqrt(s2))
            self.didx[m] = n
            self.sv.add(x, sqrt(s2), self.t)
        self.hist.add(x, ct, self.t)

    # -- inspection and pickling ------------------------------------------------------

    def _stored_inputs(self):
        return self.hist.n if self.allocated else 0

    @property
    def history(self):
        """The ``SupportSet`` of every input, coefficients ``c_s`` of the pending Newton
        point ``u_{t+1} = sum_s c_s phi(x_s)`` (the next forecast is its clipped value)."""
        return self.hist

    @property
    def sketch_rows(self):
        """Indices (0-based rounds) of the sketch's points."""
        if not self.allocated:
            return np.empty(0, np.int64)
        return np.array([self.didx[j] for j in range(self.sv.n)], dtype=np.int64)

    @property
    def sketch_factor(self):
        """Lower ``L`` with ``L L^T = S K_SS S + alpha I``."""
        return self.rl.factor if self.allocated else np.empty((0, 0))

    def _put_sketch_rows(self, rows):
        """Inverse of ``sketch_rows``."""
        cdef int j
        idx = np.asarray(rows, dtype=np.int64)
        if self.reserve_vec(max(idx.shape[0], 16)) != 0:
            raise MemoryError("cannot restore Sketched-KONS")
        for j in range(idx.shape[0]):
            self.didx[j] = idx[j]


# ----------------------------------------------------------------------------
# Pros-N-KONS
# ----------------------------------------------------------------------------

cdef class ProsNKONSCore(Learner):
    """Pros-N-KONS: KONS on the Nystrom embedding of a KORS dictionary, restarted
    whenever KORS adds a point.

    State after round ``t``, dictionary ``I`` of ``m`` points (``sv``, coefficient: the
    KORS weight):

    * ``emb``: ``K_II = L L^T`` (appended rows), the embedding ``phi~(x) = L^{-1} k_I(x)``
      (``phi~(x)^T phi~(x') = k_I(x)^T K_II^{-1} k_I(x')``: the same forecasts as the
      ``Sigma^{-1/2} U^T k_I(x)`` of the eigendecomposition, an orthogonal change of
      coordinates);
    * ``kors``: the shared typed KORS;
    * ``Ainv``: ``A~^{-1}`` (``m x m``, column-major, ld ``cap``), Sherman-Morrison;
    * ``wv``: the projected point ``w_t``; ``un``: the pending Newton point ``u_{t+1}``;
    * ``u_next``: the uniform draw that decides round ``t + 1``'s KORS Bernoulli.
    """
    cdef public double alpha, C, eta, mu, beta, eps  # the learner's parameters (okl.params)
    cdef public bint code          # the code of Jezequel et al. (variant="jgr2019")
    cdef public bint allocated
    cdef public KORS kors
    cdef public GramCholesky emb
    cdef int cap
    cdef double* Ainv
    cdef double* wv
    cdef double* un
    cdef double* kb
    cdef double* phi
    cdef double* aphi
    cdef public double u_next
    # cache left by score for update
    cdef bint c_valid, c_z, c_join, c_phi
    cdef long long c_t
    cdef double c_kappa, c_p, c_ald, c_raw, c_hat
    # counters
    cdef public long long n_added, n_rejected, n_proj
    cdef public double sum_p, sum_lev, log_det

    # A~^{-1}, w and u live in buffers of the capacity cap (ld cap for A~^{-1}): their code
    # puts them back, A~^{-1}'s first (it reserves the capacity)
    _state_fields = fields(
        "allocated", Field("kors", when="allocated"), Field("emb", when="allocated"),
        Field("Ainv", "newton_inverse", put="_put_newton_inverse", when="allocated"),
        Field("w", "weights_", put="_put_weights", when="allocated"),
        Field("u", "newton_point", put="_put_newton_point", when="allocated"),
        Field("u_next", when="allocated"),
        ("counters", ("n_added", "n_rejected", "n_proj", "sum_p", "sum_lev", "log_det")))

    def __dealloc__(self):
        free(self.Ainv)
        free(self.wv)
        free(self.un)
        free(self.kb)
        free(self.phi)
        free(self.aphi)

    def _setup(self):
        self.n_added = 0
        self.n_rejected = 0
        self.n_proj = 0
        self.sum_p = 0.0
        self.sum_lev = 0.0
        self.log_det = 0.0

    cdef int reserve_dict(self, int need) noexcept nogil:
        """Room for ``need`` dictionary points; a failure (-1) leaves the state intact."""
        cdef int newcap, m = self.sv.n if self.sv is not None else 0
        cdef double* pA
        if need <= self.cap:
            return 0
        newcap = max(need, 2 * self.cap, 16)
        if (_grow(&self.wv, newcap) or _grow(&self.un, newcap) or _grow(&self.kb, newcap)
                or _grow(&self.phi, newcap) or _grow(&self.aphi, newcap)):
            return -1
        # A~^{-1} is reset at every new point: its content need not move
        pA = <double*> realloc(self.Ainv, <size_t> newcap * newcap * sizeof(double))
        if pA == NULL:
            return -1
        self.Ainv = pA
        self.cap = newcap
        return 0

    def _core_allocate(self, int d, int capacity, bint growable):
        Learner._core_allocate(self, d, capacity, growable)
        self.kors = KORS(self.mu, self.beta, self.eps, 1.0 if self.code else 0.5, 64)
        self.emb = GramCholesky(64, True)
        if self.reserve_dict(max(capacity, 16)) != 0:
            raise MemoryError("cannot allocate Pros-N-KONS buffers")
        self.allocated = True
        self.c_valid = False
        self.u_next = self.uniform()          # the draw of round 1

    cdef void embed(self, int m) noexcept nogil:
        """``phi = L^{-1} kb`` (the embedding of the point whose ``k_I`` is in ``kb``)."""
        if m > 0:
            memcpy(self.phi, self.kb, m * sizeof(double))
            dtrsv(b"L", b"N", b"N", &m, self.emb.M, &self.emb.capacity, self.phi, &INC1)

    cdef double score(self, const Row* x) noexcept nogil:
        cdef int m = self.sv.n
        cdef double kappa = kernel_self(&self.kp, x)
        cdef double r, p, ald = 0.0, raw = 0.0, hat = 0.0, fc
        cdef bint z, join = False, have_phi = False
        if m > 0:
            self.sv.kernel_row_into(x, self.kb)
        # KORS: ridge leverage of x_t with the temporary dictionary I + (t, 1)
        r = self.kors.residual(self.kb, kappa)
        p = self.kors.probability(r)
        z = self.u_next < p
        if z:
            # ALD residual of x_t; leaves L^{-1} k_I(x_t), the embedding, in phi
            ald = self.emb.residual(self.kb, kappa, self.phi)
            have_phi = True
            join = ald > DEP_TOL * kappa
        if m > 0 and not have_phi:
            self.embed(m)
            have_phi = True
        if m > 0:
            raw = ddot(&m, self.phi, &INC1, self.un, &INC1)
            hat = _clip(raw, self.C)
        if join:
            raw = 0.0                       # restart: w_t = 0
            hat = 0.0
        fc = hat
        if self.code:
            # the code's predict(): clip(w_{t-1}^T phi~_t) on the dictionary of round t - 1
            fc = _clip(ddot(&m, self.phi, &INC1, self.wv, &INC1), self.C) if m > 0 else 0.0
        self.c_valid = True
        self.c_t = self.t
        self.c_kappa = kappa
        self.c_p = p
        self.c_z = z
        self.c_join = join
        self.c_ald = ald
        self.c_raw = raw
        self.c_hat = hat
        self.c_phi = have_phi
        return fc

    cdef double loss(self, double y, double f) noexcept nogil:
        return (y - f) * (y - f)

    cdef void kons_step(self, int m, double raw, double hat, double y) noexcept nogil:
        """Projection, gradient and Newton step of KONS on ``phi`` (``m`` coordinates),
        from ``un`` = ``u_t``: leaves ``wv`` = ``w_t``, ``un`` = ``u_{t+1}``, updates ``Ainv``."""
        cdef double d, h, lp, s2, coef
        cdef int ld = self.cap
        dsymv(b"L", &m, &ONE, self.Ainv, &ld, self.phi, &INC1, &ZERO, self.aphi, &INC1)
        d = ddot(&m, self.phi, &INC1, self.aphi, &INC1)       # phi^T A~^{-1} phi
        memcpy(self.wv, self.un, m * sizeof(double))
        h = raw - hat
        if h != 0.0 and d > 0.0:
            coef = -h / d
            daxpy(&m, &coef, self.aphi, &INC1, self.wv, &INC1)
            self.n_proj += 1
        lp = 2.0 * (hat - y)
        s2 = self.eta * lp * lp
        # A~_t^{-1} = A~^{-1} - s2 (A~^{-1} phi)(A~^{-1} phi)^T / (1 + s2 d)
        if s2 != 0.0:
            coef = -s2 / (1.0 + s2 * d)
            dsyr(b"L", &m, &coef, self.aphi, &INC1, self.Ainv, &ld)
        self.sum_lev += lp * lp * d / (1.0 + s2 * d)
        self.log_det += log1p(s2 * d)
        # u_{t+1} = w_t - A~_t^{-1} g_t = w_t - lp A~^{-1} phi / (1 + s2 d)
        memcpy(self.un, self.wv, m * sizeof(double))
        coef = -lp / (1.0 + s2 * d)
        daxpy(&m, &coef, self.aphi, &INC1, self.un, &INC1)

    cdef void restart(self, int m) noexcept nogil:
        """``A~ = alpha I`` (``m x m``), ``w = u = 0``."""
        cdef int j, ld = self.cap
        for j in range(m):
            memset(self.Ainv + <Py_ssize_t> j * ld, 0, m * sizeof(double))
            self.Ainv[j + <Py_ssize_t> j * ld] = 1.0 / self.alpha
        memset(self.wv, 0, m * sizeof(double))
        memset(self.un, 0, m * sizeof(double))

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int m
        cdef double wt, kappa
        if not (self.c_valid and self.c_t == self.t):
            self.score(x)
        self.c_valid = False
        m = self.sv.n
        if self.c_join:
            if (self.reserve_dict(m + 1) != 0 or self.kors.reserve(m + 1) != 0
                    or self.emb.make_room() != 0
                    or (m == self.sv.capacity and self.sv.reserve(2 * m) != 0)):
                self.error = 1
                return
        self.sum_p += self.c_p
        kappa = self.c_kappa
        if self.c_join:
            # the new row of L: [L^{-1} k_I(x_t), sqrt(ald)] (phi holds L^{-1} k_I(x_t))
            self.emb.add(self.kb, kappa, self.phi, self.c_ald)
            wt = self.kors.weight(self.c_p)
            self.kors.add(wt)
            self.sv.add(x, wt, self.t)
            self.n_added += 1
            m += 1
            self.restart(m)
            if not self.code:
                # phi~_t on the new dictionary: [L^{-1} k_I(x_t); sqrt(ald)]
                self.phi[m - 1] = sqrt(self.c_ald)
                self.kons_step(m, 0.0, 0.0, y)
            # the code sets phi~_t = 0 on a restart round: no gradient, A~ = alpha I
        else:
            if self.c_z:
                self.n_rejected += 1
            if m > 0:
                self.kons_step(m, self.c_raw, self.c_hat, y)
        self.u_next = self.uniform()

    # -- inspection and pickling ------------------------------------------------------

    cdef object _block(self, const double* A, int n, int ld):
        out = np.empty((n, n))
        cdef double[:, ::1] o = out
        cdef int i, j
        for i in range(n):
            for j in range(n):
                o[i, j] = A[(i if i >= j else j) + <Py_ssize_t> (j if i >= j else i) * ld]
        return out

    cdef object _vec(self, const double* a, int n):
        return np.array(<double[:n]> a, copy=True) if n > 0 else np.empty(0)

    @property
    def newton_inverse(self):
        """``A~^{-1}`` of the current epoch (symmetric, ``m x m``)."""
        return self._block(self.Ainv, self.sv.n, self.cap) if self.allocated else np.empty((0, 0))

    @property
    def weights_(self):
        """``w_t``: the last projected point, in the coordinates of ``phi~``."""
        return self._vec(self.wv, self.sv.n) if self.allocated else np.empty(0)

    @property
    def newton_point(self):
        """``u_{t+1}``: the pending Newton point (the next forecast is ``clip(phi~^T u)``)."""
        return self._vec(self.un, self.sv.n) if self.allocated else np.empty(0)

    @property
    def embedding_factor(self):
        """Lower ``L`` with ``L L^T = K_II``: ``phi~(x) = L^{-1} k_I(x)``."""
        return self.emb.factor if self.allocated else np.empty((0, 0))

    @property
    def kors_dictionary(self):
        """The typed ``KORS`` (``okl.learners._kors``)."""
        return self.kors

    @property
    def next_uniform(self):
        """The uniform draw that will decide the next round's KORS Bernoulli."""
        return self.u_next if self.allocated else None

    def _put_newton_inverse(self, Ainv):
        """Inverse of ``newton_inverse`` (reserves the dictionary's capacity)."""
        cdef int i, j, m = self.sv.n
        if self.reserve_dict(max(m, 16)) != 0:
            raise MemoryError("cannot restore Pros-N-KONS")
        cdef const double[:, ::1] A = np.ascontiguousarray(Ainv, dtype=np.float64)
        for j in range(m):
            for i in range(m):
                self.Ainv[i + <Py_ssize_t> j * self.cap] = A[i, j]

    def _put_weights(self, w):
        """Inverse of ``weights_`` (after ``_put_newton_inverse``)."""
        cdef int j
        for j in range(self.sv.n):
            self.wv[j] = w[j]

    def _put_newton_point(self, u):
        """Inverse of ``newton_point`` (after ``_put_newton_inverse``)."""
        cdef int j
        for j in range(self.sv.n):
            self.un[j] = u[j]


# ----------------------------------------------------------------------------
# Benchmark reference: the kernel rows and the level-2 BLAS work of a run, nothing else
# ----------------------------------------------------------------------------

def round_work_reference(kernel, Stream s, added, int kind):
    """The unavoidable work of a Sketched-KONS (``kind = 0``) or Pros-N-KONS (``kind = 1``)
    run whose rounds ``t`` with ``added[t]`` grew the sketch / dictionary: for every
    round, the kernel row (against every earlier input for Sketched-KONS, against the
    dictionary for Pros-N-KONS) and the same BLAS calls on matrices of the same size
    (Sketched-KONS: two triangular solves; Pros-N-KONS: two triangular solves, ``dsymv``
    and ``dsyr``, and an ``m x m`` reset at a new point) on fixed well-conditioned data.
    ``benchmarks/ratios_kons.py`` times a run against it.  Returns a checksum."""
    cdef const unsigned char[::1] add = np.ascontiguousarray(added, dtype=np.uint8)
    if add.shape[0] != s.T:
        raise ValueError("added must have one entry per row")
    cdef int cap = max(1, int(np.sum(add)) + 1), m = 0, j, ld
    cdef SupportSet S = SupportSet(kernel, s.d, 64, True)
    Lm = np.asfortranarray(np.eye(cap) * 2.0 + np.tril(np.full((cap, cap), 1e-3), -1))
    Am = np.asfortranarray(np.eye(cap))
    cdef double[::1, :] L = Lm
    cdef double[::1, :] A = Am
    buf = np.zeros(max(cap, 1) + 64)
    row_ = np.zeros(max(s.T, 1) + 64)
    cdef double[::1] b = buf
    cdef double[::1] kr = row_
    cdef double total = 0.0, c = -1e-12
    cdef Py_ssize_t t
    cdef Row r
    ld = cap
    with nogil:
        for t in range(s.T):
            s.row(t, &r)
            if S.n > 0:
                S.kernel_row_into(&r, &kr[0])
                total += kr[0]
            if m > 0:
                for j in range(m):
                    b[j] = 1.0
                dtrsv(b"L", b"N", b"N", &m, &L[0, 0], &ld, &b[0], &INC1)
                dtrsv(b"L", b"N", b"N", &m, &L[0, 0], &ld, &b[0], &INC1)
                if kind == 1:
                    dsymv(b"L", &m, &ONE, &A[0, 0], &ld, &b[0], &INC1, &ZERO, &kr[0], &INC1)
                    dsyr(b"L", &m, &c, &kr[0], &INC1, &A[0, 0], &ld)
                total += b[0]
            if kind == 0 or add[t]:
                if S.n == S.capacity and S.reserve(2 * S.capacity) != 0:
                    break
                S.add(&r, 1.0, t)
            if add[t]:
                m += 1
                if kind == 1:
                    for j in range(m):
                        memset(&A[0, 0] + <Py_ssize_t> j * ld, 0, m * sizeof(double))
                        A[j, j] = 1.0
    return total
