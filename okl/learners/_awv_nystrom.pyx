# cython: language_level=3
"""Typed core of PKAWV with Nystrom projections: the KORS dictionary and Algorithm 2
of Appendix H of Jezequel, Gaillard & Rudi (2019).

State after round ``t - 1``, with the dictionary ``I = I_{t-1}`` of ``m`` points:

* ``sv``: the dictionary points, ``sv.alpha[j]`` their KORS weight ``1/sqrt(p_j)``;
* ``kors``: the shared typed KORS (``okl.learners._kors.KORS``): the factor of
  ``S K_II S + mu I`` (``S`` the diagonal of the weights), kept by appended rows (KORS
  never drops a point), and the inclusion rule;
* ``L``: lower Cholesky factor of ``A = K_{t-1,I}^T K_{t-1,I} + lam K_II``
  (``K_{t-1,I} = (k(x_s, x~_j))_{s<t, j in I}``), kept by rank-one updates and, when
  a point joins, by the up- and down-date of Algorithm 2;
* ``q = K_{t-1,I}^T Y_{t-1}``, ``g = L^{-1} q``;
* ``hist``: every past input ``x_s`` with ``hist.alpha[s] = y_s``; ``Kc``: the matrix
  ``K_{t-1,I}`` (column-major, leading dimension ``rowcap``), needed for the new column
  ``c_t`` of ``A`` when a point joins (the ``O(n d_eff)`` term of App. H);
* ``u_next``: the uniform draw that decides round ``t``'s KORS Bernoulli.
"""

from libc.math cimport sqrt, hypot, fmax, log1p
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset

from scipy.linalg.cython_blas cimport ddot, dgemv, dtrsv, drot, dscal, dcopy, daxpy

import numpy as np

from okl._core cimport Learner, Row, SupportSet, kernel_self
from okl.learners._kors cimport KORS

cdef int INC1 = 1
cdef double ONE = 1.0

# A point joins only if the Schur complement s0 of its new column in A (rows < t)
# exceeds DEP_TOL * (1 + d_t); below that x_t lies in the span of the dictionary up to
# round-off: H~_t would not change, and A would be singular to working precision.
cdef double DEP_TOL = 1e-10
DEPENDENCE_TOL = DEP_TOL

# g = L^{-1} q is carried through the rotations of each rank-one update and solved
# afresh every REFRESH_EVERY rounds
cdef long long REFRESH_EVERY = 1024


# ----------------------------------------------------------------------------
# Cholesky rank-one update and downdate (lower factor, column-major)
# ----------------------------------------------------------------------------

cdef void chol_update(double* L, int ld, int n, double* x) noexcept nogil:
    """``L L^T + x x^T = L' L'^T`` in place by Givens rotations (LINPACK ``dchud``).

    ``x`` is destroyed.  Column ``k`` of ``L`` and ``x`` are rotated so that
    ``x_k`` becomes 0: ``[L x] G_0 ... G_{n-1} = [L' 0]``, O(n^2), backward stable.
    """
    chol_update_solved(L, ld, n, x, NULL, 0.0)


cdef void chol_update_solved(double* L, int ld, int n, double* x, double* g,
                             double gamma) noexcept nogil:
    """``chol_update`` that also carries a solution along (unless ``g`` is NULL): if
    ``L g = q`` on entry, then ``L' g' = q + gamma x`` on exit (``x`` the update vector,
    destroyed).

    ``[L x] Q = [L' 0]`` with ``Q`` the product of the rotations, so ``[L x] [g; gamma]
    = q + gamma x`` gives ``L' (Q^T [g; gamma])_{0..n-1} = q + gamma x``: each rotation
    ``(c, s)`` of column ``k`` maps ``(g_k, gamma)`` to ``(c g_k + s gamma, c gamma - s g_k)``.
    O(n) on top of the update, instead of a triangular solve.
    """
    cdef int k, rows
    cdef double a, b, r, c, s, gk
    for k in range(n):
        a = L[k + <Py_ssize_t> k * ld]
        b = x[k]
        if b == 0.0:
            continue
        r = hypot(a, b)
        c = a / r
        s = b / r
        L[k + <Py_ssize_t> k * ld] = r
        x[k] = 0.0
        rows = n - k - 1
        if rows > 0:
            # L[k+1:, k] <- c L + s x ;  x[k+1:] <- c x - s L
            drot(&rows, L + k + 1 + <Py_ssize_t> k * ld, &INC1, x + k + 1, &INC1, &c, &s)
        if g != NULL:
            gk = g[k]
            g[k] = c * gk + s * gamma
            gamma = c * gamma - s * gk


cdef int chol_downdate(double* L, int ld, int n, const double* x, double* a,
                       double* z, double tol) noexcept nogil:
    """``L L^T - x x^T = L' L'^T`` in place (LINPACK ``dchdd``, Stewart 1979).

    Solve ``L a = x``; ``rho^2 = 1 - ||a||^2`` is ``det(L'L'^T) / det(LL^T)``.  If
    ``rho^2 <= tol`` the result is not (numerically) positive definite: returns -1
    and leaves ``L`` untouched.  Otherwise rotations in the planes ``(i, n)``,
    ``i = n-1, ..., 0``, take ``[a; rho]`` to ``e_n`` and, applied to ``[L^T; 0]``,
    give ``[L'^T; x^T]``; returns 0.  ``a`` and ``z`` are scratch of ``n`` doubles.
    """
    cdef int i, rows
    cdef double rho2, alpha, nrm, c, s
    if n <= 0:
        return 0
    dcopy(&n, <double*> x, &INC1, a, &INC1)
    dtrsv(b"L", b"N", b"N", &n, L, &ld, a, &INC1)
    rho2 = 1.0 - ddot(&n, a, &INC1, a, &INC1)
    if not rho2 > tol:
        return -1
    alpha = sqrt(rho2)
    memset(z, 0, n * sizeof(double))
    i = n - 1
    while i >= 0:
        nrm = hypot(alpha, a[i])
        c = alpha / nrm
        s = -a[i] / nrm       # drot with -s: L' = c L - s' z, z' = c z + s' L
        alpha = nrm
        rows = n - i
        drot(&rows, L + i + <Py_ssize_t> i * ld, &INC1, z + i, &INC1, &c, &s)
        i -= 1
    return 0


def cholesky_rank_one(L, x, int sign):
    """``chol(L L^T + sign x x^T)`` by the typed routines of the learner (tests).

    ``sign = +1``: Givens update; ``sign = -1``: ``dchdd`` downdate, ``ValueError``
    if the result is not positive definite.
    """
    Lf = np.array(L, dtype=np.float64, order="F", copy=True)
    xv = np.array(x, dtype=np.float64, copy=True).reshape(-1)
    cdef int n = Lf.shape[0]
    if Lf.ndim != 2 or Lf.shape[1] != n or xv.shape[0] != n:
        raise ValueError("L must be square and x of matching length")
    if n == 0:
        return Lf
    cdef double[::1, :] Lm = Lf
    cdef double[::1] xm = xv
    a = np.empty(n)
    z = np.empty(n)
    cdef double[::1] am = a
    cdef double[::1] zm = z
    if sign > 0:
        chol_update(&Lm[0, 0], n, n, &xm[0])
    elif chol_downdate(&Lm[0, 0], n, n, &xm[0], &am[0], &zm[0], 0.0) != 0:
        raise ValueError("L L^T - x x^T is not positive definite")
    return np.tril(Lf)


cdef inline int _grow_vec(double** p, size_t n) noexcept nogil:
    cdef double* q = <double*> realloc(p[0], (n if n > 0 else 1) * sizeof(double))
    if q == NULL:
        return -1
    p[0] = q
    return 0


# ----------------------------------------------------------------------------
# The learner core
# ----------------------------------------------------------------------------

cdef class NystromAWVCore(Learner):
    """PKAWV (4) on ``H~_t = Span{phi(x): x in I_t}`` with a KORS dictionary ``I_t``.

    ``score`` computes round ``t``'s forecast without changing the hypothesis (the
    API's ``decision_function`` is the forecast the learner would make if ``x``
    came next, KORS draw included); ``update`` applies Algorithm 2's factor
    updates.  ``score`` leaves what ``update`` needs in a cache keyed by the round.
    """
    cdef public double lam, mu, beta, eps    # the learner's parameters (okl.params)
    cdef public bint krr                     # forecaster "krr" (else "awv")
    cdef bint allocated
    cdef KORS kors
    cdef SupportSet hist
    cdef int cap                 # dictionary capacity of L, Lbak and the vectors
    cdef long long rowcap        # rows allocated in Kc and abuf
    cdef long long nrows         # rows of K stored = rounds learned
    cdef double* L
    cdef double* Lbak
    cdef double* q
    cdef double* g
    cdef double* h
    cdef double* kb              # k_I(x_t)
    cdef double* c0              # K_{t-1,I}^T a + lam k
    cdef double* w1
    cdef double* w2
    cdef double* w3
    cdef double* Kc              # K_{t,I}: column-major, ld = rowcap, kcols columns
    cdef int kcols
    cdef double* abuf            # a_s = k(x_s, x_t), s < t
    cdef double u_next
    # cache left by score for update
    cdef bint c_valid, c_z, c_acc
    cdef long long c_t
    cdef double c_kappa, c_r, c_p, c_qt, c_qn, c_d0, c_s1
    # counters
    cdef public long long n_added, n_rejected, n_fallback
    cdef bint force_fallback     # tests: take the bordered-factor path on every new point
    cdef public double sum_p, log_det, sum_y2_lev

    def __dealloc__(self):
        free(self.L)
        free(self.Lbak)
        free(self.q)
        free(self.g)
        free(self.h)
        free(self.kb)
        free(self.c0)
        free(self.w1)
        free(self.w2)
        free(self.w3)
        free(self.Kc)
        free(self.abuf)

    def _setup(self):
        self.n_added = 0
        self.n_rejected = 0
        self.n_fallback = 0
        self.sum_p = 0.0
        self.log_det = 0.0
        self.sum_y2_lev = 0.0

    # -- memory ---------------------------------------------------------------------

    cdef int reserve_dict(self, int need) noexcept nogil:
        """Capacity for ``need`` dictionary points: ``L``, the vectors, the columns of ``K``.

        New buffers are allocated before anything moves, so a failure (-1) leaves the
        state intact."""
        cdef int newcap, newcols, j, m = self.sv.n if self.sv is not None else 0
        cdef double* pL
        if self.L == NULL:
            m = 0                           # nothing stored yet (allocation, restore)
        if need > self.kcols:
            newcols = max(need, self.kcols + self.kcols // 4 + 8)
            if _grow_vec(&self.Kc, <size_t> self.rowcap * newcols) != 0:
                return -1
            self.kcols = newcols            # column-major with ld = rowcap: layout kept
        if need <= self.cap:
            return 0
        newcap = max(need, 2 * self.cap, 16)
        pL = <double*> malloc(<size_t> newcap * newcap * sizeof(double))
        if pL == NULL:
            return -1
        if (_grow_vec(&self.Lbak, <size_t> newcap * newcap)
                or _grow_vec(&self.q, newcap + 1) or _grow_vec(&self.g, newcap + 1)
                or _grow_vec(&self.h, newcap + 1) or _grow_vec(&self.kb, newcap + 1)
                or _grow_vec(&self.c0, newcap + 1) or _grow_vec(&self.w1, newcap + 1)
                or _grow_vec(&self.w2, newcap + 1) or _grow_vec(&self.w3, newcap + 1)):
            free(pL)
            return -1
        for j in range(m):
            memcpy(pL + <Py_ssize_t> j * newcap, self.L + <Py_ssize_t> j * self.cap,
                   m * sizeof(double))
        free(self.L)
        self.L = pL
        self.cap = newcap
        return 0

    cdef int reserve_rows(self, long long need) noexcept nogil:
        """Room for ``need`` rows of ``K`` (column-major, ld = ``rowcap``) and of ``a``."""
        cdef long long newcap
        cdef int j, m = self.sv.n if self.sv is not None else 0
        cdef double* p
        if need <= self.rowcap:
            return 0
        newcap = max(need, self.rowcap + self.rowcap // 2, 64)
        p = <double*> malloc(<size_t> newcap * max(self.kcols, 1) * sizeof(double))
        if p == NULL:
            return -1
        if _grow_vec(&self.abuf, <size_t> newcap) != 0:
            free(p)
            return -1
        if self.Kc != NULL and self.nrows > 0:
            for j in range(m):
                memcpy(p + j * newcap, self.Kc + j * self.rowcap, self.nrows * sizeof(double))
        free(self.Kc)
        self.Kc = p
        self.rowcap = newcap
        return 0

    def _core_allocate(self, int d, int capacity, bint growable):
        Learner._core_allocate(self, d, capacity, growable)
        self.hist = SupportSet(self._kernel, d, 64, True)
        self.kors = KORS(self.mu, self.beta, self.eps, 0.5, 64)
        if self.reserve_dict(capacity) != 0 or self.reserve_rows(64) != 0:
            raise MemoryError("cannot allocate PKAWV (Nystrom) buffers")
        self.nrows = 0
        self.allocated = True
        self.c_valid = False
        self.u_next = self.uniform()          # the draw of round 1

    def _nystrom_begin(self, long long n_rounds):
        """Reserve the rows of a stream of ``n_rounds`` before the nogil loop."""
        if not self.allocated:
            return
        need = min(self.nrows + n_rounds, 2**31 - 1)
        if need > self.hist.capacity:
            need = max(need, min(2 * self.hist.capacity, 2**31 - 1))
        if self.reserve_rows(self.nrows + n_rounds) != 0 or self.hist.reserve(<int> need) != 0:
            raise MemoryError(f"cannot reserve memory for {n_rounds} more rounds "
                              "(PKAWV with Nystrom stores every input and K_{t,I})")

    # -- one round ------------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        cdef int m = self.sv.n, i, nr
        cdef double kappa = kernel_self(&self.kp, x)
        cdef double r, p, hh = 0.0, hg = 0.0, hc = 0.0, cc = 0.0, cg = 0.0
        cdef double qn = 0.0, a2 = 0.0, d0, d1, s0, e, f, qt
        cdef bint z, acc = False
        cdef int n_ld = self.cap, ldk
        if m > 0:
            self.sv.kernel_row_into(x, self.kb)
            memcpy(self.h, self.kb, m * sizeof(double))
            dtrsv(b"L", b"N", b"N", &m, self.L, &n_ld, self.h, &INC1)
            hh = ddot(&m, self.h, &INC1, self.h, &INC1)
            hg = ddot(&m, self.h, &INC1, self.g, &INC1)
        # KORS: ridge leverage of x_t with the temporary dictionary I_{t-1} + (t, 1)
        r = self.kors.residual(self.kb, kappa)
        p = self.kors.probability(r)
        z = self.u_next < p
        f = hg                         # projected KRR forecast on I_{t-1}
        qt = hh                        # <A~^{-1} P phi(x_t), P phi(x_t)> (rows < t)
        d0 = 0.0
        d1 = 0.0
        if z:
            nr = <int> self.nrows
            if nr > 0:
                self.hist.kernel_row_into(x, self.abuf)
                qn = ddot(&nr, self.hist.alpha, &INC1, self.abuf, &INC1)
                a2 = ddot(&nr, self.abuf, &INC1, self.abuf, &INC1)
            d0 = a2 + self.lam * kappa
            d1 = d0 + kappa * kappa
            if m > 0:
                for i in range(m):
                    self.c0[i] = self.lam * self.kb[i]
                if nr > 0:
                    ldk = <int> self.rowcap
                    dgemv(b"T", &nr, &m, &ONE, self.Kc, &ldk, self.abuf, &INC1, &ONE,
                          self.c0, &INC1)
                memcpy(self.w1, self.c0, m * sizeof(double))
                dtrsv(b"L", b"N", b"N", &m, self.L, &n_ld, self.w1, &INC1)
                hc = ddot(&m, self.h, &INC1, self.w1, &INC1)
                cc = ddot(&m, self.w1, &INC1, self.w1, &INC1)
                cg = ddot(&m, self.w1, &INC1, self.g, &INC1)
            s0 = d0 - cc
            if s0 > DEP_TOL * (1.0 + d1):
                acc = True
                e = hc - kappa
                qt = hh + e * e / s0
                f = hg + e * (cg - qn) / s0
                # Schur complement of the new point in A_t (rows <= t), Sherman-Morrison
                self.c_s1 = (s0 * (1.0 + hh) + e * e) / (1.0 + hh)
        self.c_valid = True
        self.c_t = self.t
        self.c_kappa = kappa
        self.c_r = r
        self.c_p = p
        self.c_z = z
        self.c_acc = acc
        self.c_qt = qt
        self.c_qn = qn
        self.c_d0 = d0
        if self.krr:
            return f
        return f / (1.0 + qt)          # (4): A_t = A_{t-1} + P phi(x_t) (x) P phi(x_t)

    cdef double loss(self, double y, double f) noexcept nogil:
        return (y - f) * (y - f)

    cdef void add_row(self, const double* k, int m, double y) noexcept nogil:
        """Append row ``k`` (the current round) to ``K``: rank-one update of ``L``, with
        ``g`` carried to ``L'^{-1} (q + y k)`` (``q`` itself is updated by the caller)."""
        cdef int ldk = <int> self.rowcap
        if m > 0:
            dcopy(&m, <double*> k, &INC1, self.Kc + self.nrows, &ldk)
            memcpy(self.w1, k, m * sizeof(double))
            chol_update_solved(self.L, self.cap, m, self.w1, self.g, y)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int m, i, n1, j, ld
        cdef long long s, nr
        cdef double kappa, gg, wt, delta2
        cdef double* col
        cdef bint join
        if not (self.c_valid and self.c_t == self.t):
            self.score(x)
        self.c_valid = False
        m = self.sv.n
        nr = self.nrows
        join = self.c_z and self.c_acc
        # every allocation first: a failure leaves the state of round t - 1
        if (self.reserve_rows(nr + 1) != 0
                or (self.hist.n == self.hist.capacity
                    and self.hist.reserve(2 * self.hist.capacity) != 0)
                or (join and (self.reserve_dict(m + 1) != 0
                              or (m == self.sv.capacity and self.sv.reserve(2 * m) != 0)
                              or self.kors.reserve(m + 1) != 0))):
            self.error = 1
            return
        ld = self.cap
        kappa = self.c_kappa
        self.sum_p += self.c_p
        self.log_det += log1p(self.c_qt)
        self.sum_y2_lev += y * y * self.c_qt / (1.0 + self.c_qt)
        # Algorithm 2: R_t = cholup(R_{t-1}, (k(x_t, x~_j))_{j in I_{t-1}}, '+')
        self.add_row(self.kb, m, y)
        if join:
            n1 = m + 1
            # the new column of A_t: c_t = K_t^T a_t + lam b_t (b_t = k_{I_{t-1}}(x_t)),
            # d_t = a_t^T a_t + lam k(x_t, x_t), with a_t = (k(x_s, x_t))_{s <= t}
            for i in range(m):
                self.c0[i] += kappa * self.kb[i]
            gg = sqrt(1.0 + self.c_d0 + kappa * kappa)       # g_t = sqrt(1 + d_t)
            for j in range(m):
                memcpy(self.Lbak + <Py_ssize_t> j * ld, self.L + <Py_ssize_t> j * ld,
                       m * sizeof(double))
            for j in range(n1):       # R_t = [[R_t, 0], [0, 0]]
                self.L[m + <Py_ssize_t> j * ld] = 0.0
                self.L[j + <Py_ssize_t> m * ld] = 0.0
            # u_t = (c_t / (1 + g_t), g_t): R_t = cholup(R_t, u_t, '+')
            for i in range(m):
                self.w2[i] = self.c0[i] / (1.0 + gg)
            self.w2[m] = gg
            chol_update(self.L, ld, n1, self.w2)
            # v_t = (c_t / (1 + g_t), -1): R_t = cholup(R_t, v_t, '-')
            for i in range(m):
                self.w2[i] = self.c0[i] / (1.0 + gg)
            self.w2[m] = -1.0
            if (self.force_fallback
                    or chol_downdate(self.L, ld, n1, self.w2, self.w1, self.w3, 0.0) != 0):
                # round-off made the downdate fail: restore R and append the row of the
                # bordered factor instead ([L, 0; l^T, delta], l = L^{-1} c_t)
                self.n_fallback += 1
                for j in range(m):
                    memcpy(self.L + <Py_ssize_t> j * ld, self.Lbak + <Py_ssize_t> j * ld,
                           m * sizeof(double))
                memcpy(self.w1, self.c0, m * sizeof(double))
                if m > 0:
                    dtrsv(b"L", b"N", b"N", &m, self.L, &ld, self.w1, &INC1)
                delta2 = (self.c_d0 + kappa * kappa) - ddot(&m, self.w1, &INC1, self.w1, &INC1)
                if not delta2 > 0.0:
                    delta2 = self.c_s1
                for j in range(m):
                    self.L[m + <Py_ssize_t> j * ld] = self.w1[j]
                    self.L[j + <Py_ssize_t> m * ld] = 0.0
                self.L[m + <Py_ssize_t> m * ld] = sqrt(delta2)
            # the new column of K: k(x_s, x_t) for s < t, then k(x_t, x_t)
            col = self.Kc + <Py_ssize_t> m * self.rowcap
            if nr > 0:
                memcpy(col, self.abuf, nr * sizeof(double))
            col[nr] = kappa
            self.q[m] = self.c_qn                 # sum_{s<t} y_s k(x_s, x_t)
            # KORS: add (t, 1/sqrt(p_t)): S K S + mu I gains the row [w c, sqrt(w^2 r + mu)],
            # w = 1/sqrt(p_t) the new diagonal entry of S (kors evaluated x_t in score)
            wt = self.kors.weight(self.c_p)
            self.kors.add(wt)
            self.sv.add(x, wt, self.t)
            self.kb[m] = kappa
            m = n1
            self.n_added += 1
        elif self.c_z:
            self.n_rejected += 1
        # q_t = q_{t-1} + y_t b_t;  g = L^{-1} q for the next forecast: carried through
        # the rotations of add_row, solved afresh after a new point (L changed entirely)
        # and every REFRESH_EVERY rounds (against the slow drift of the carried g)
        if m > 0:
            daxpy(&m, &y, self.kb, &INC1, self.q, &INC1)
            if join or (nr + 1) % REFRESH_EVERY == 0:
                memcpy(self.g, self.q, m * sizeof(double))
                dtrsv(b"L", b"N", b"N", &m, self.L, &ld, self.g, &INC1)
        self.nrows = nr + 1
        self.hist.add(x, y, self.t)
        self.u_next = self.uniform()

    def _force_downdate_fallback(self, bint flag):
        """Tests only: when set, every new point restores the factor and borders it
        (the path taken when the downdate of Algorithm 2 fails by round-off)."""
        self.force_fallback = flag

    # -- inspection and pickling ------------------------------------------------------

    cdef object _block(self, const double* A, int n, int ld):
        out = np.empty((n, n))
        cdef double[:, ::1] o = out
        cdef int i, j
        for i in range(n):
            for j in range(n):
                o[i, j] = A[i + <Py_ssize_t> j * ld]
        return out

    @property
    def factor(self):
        """Lower ``L`` with ``L L^T = A_t = K_{t,I}^T K_{t,I} + lam K_II`` (Algorithm 2's ``R_t^T``)."""
        if not self.allocated:
            return np.empty((0, 0))
        return np.tril(self._block(self.L, self.sv.n, self.cap))

    @property
    def kernel_rows(self):
        """``K_{t,I}``: ``k(x_s, x~_j)`` for every round ``s`` learned and dictionary point ``j``."""
        if not self.allocated:
            return np.empty((0, 0))
        m = self.sv.n
        out = np.empty((self.nrows, m))
        cdef double[:, ::1] o = out
        cdef long long i
        cdef int j
        for i in range(self.nrows):
            for j in range(m):
                o[i, j] = self.Kc[i + j * self.rowcap]
        return out

    @property
    def ridge_target(self):
        """``q = K_{t,I}^T Y_t``."""
        if not self.allocated or self.sv.n == 0:
            return np.empty(0)
        return np.array(<double[:self.sv.n]> self.q, copy=True)

    @property
    def kors_dictionary(self):
        """The typed ``KORS`` (``okl.learners._kors``): factor of ``S K_II S + mu I``, weights."""
        return self.kors

    @property
    def history(self):
        """The ``SupportSet`` of every input learned (coefficients: the labels)."""
        return self.hist

    @property
    def next_uniform(self):
        """The uniform draw that will decide the next round's KORS Bernoulli."""
        return self.u_next if self.allocated else None

    # The state stays written by hand: the Cholesky factor of A_t (leading dimension cap)
    # and K_{t,I} (column-major, leading dimension rowcap, growing with every round) are
    # rebuilt in the order their reservations need (dictionary, then rows).

    def _nystrom_state(self):
        if not self.allocated:
            return {"allocated": False}
        m = self.sv.n
        return {"allocated": True, "L": self._block(self.L, m, self.cap),
                "q": self.ridge_target, "g": np.array(<double[:m]> self.g, copy=True) if m else np.empty(0),
                "K": self.kernel_rows, "hist": self.hist, "kors": self.kors,
                "u_next": self.u_next,
                "counters": (self.n_added, self.n_rejected, self.n_fallback, self.sum_p,
                             self.log_det, self.sum_y2_lev)}

    def _nystrom_restore(self, state):
        (self.n_added, self.n_rejected, self.n_fallback, self.sum_p, self.log_det,
         self.sum_y2_lev) = state.get("counters", (0, 0, 0, 0.0, 0.0, 0.0))
        if not state["allocated"]:
            return
        self.hist = state["hist"]
        self.kors = state["kors"]
        m = self.sv.n
        Kr = np.ascontiguousarray(state["K"], dtype=np.float64)
        nrows = Kr.shape[0]
        if self.reserve_dict(max(m, 16)) != 0 or self.reserve_rows(max(nrows, 64)) != 0:
            raise MemoryError("cannot restore PKAWV (Nystrom)")
        cdef const double[:, ::1] K = Kr
        cdef const double[:, ::1] Lm = np.ascontiguousarray(state["L"], dtype=np.float64)
        cdef long long i
        cdef int j, k
        for i in range(nrows):
            for j in range(m):
                self.Kc[i + j * self.rowcap] = K[i, j]
        for j in range(m):
            for k in range(m):
                self.L[k + <Py_ssize_t> j * self.cap] = Lm[k, j]
            self.q[j] = state["q"][j]
            self.g[j] = state["g"][j]
        self.nrows = nrows
        self.u_next = state["u_next"]
        self.allocated = True
        self.c_valid = False
