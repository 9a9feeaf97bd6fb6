# cython: language_level=3
"""Typed core of POMD and POMDR (Li & Liao, AAAI 2023, Algorithm 1, eqs. (2)-(10))."""

from libc.math cimport sqrt, fmax, NAN
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset

from scipy.linalg.cython_blas cimport daxpy, ddot, dgemv, dscal, dsymv

from okl._core cimport Learner, Row, Stream, SupportSet, GramDictionary, kernel_self
from okl._core import GramCholesky, GramInverse, SupportSet as PySupportSet
from okl._core import _blas_enter, _blas_exit, _row_stream

import numpy as np

cdef int INC1 = 1
cdef double ONE = 1.0
cdef double ZERO = 0.0


cdef inline int _grow_doubles(double** p, long long n) noexcept nogil:
    """``realloc`` ``*p`` to ``n`` doubles; -1 (``*p`` untouched) if out of memory."""
    cdef void* q = realloc(p[0], <size_t> n * sizeof(double))
    if q == NULL:
        return -1
    p[0] = <double*> q
    return 0


cdef class POMDRCore(Learner):
    """State of Algorithm 1.

    * ``sv``: the budget ``S`` with the true coefficients of ``f'_t``;
    * ``win``: the last ``M`` examples (a ring of ``M`` slots, coefficient = label), so
      ``win.score(x) = sum_r y_{t-r} k(x_{t-r}, x)``, the optimistic term of (2);
    * ``gram``: ``K_S`` for the ALD residual (4) and ``beta*`` (Cholesky or inverse);
    * ``C``: ``k(w_j, s_i)`` for window slot ``j`` and support vector ``i``
      (``C[j + i M]``), kept from kernel rows the rounds compute anyway; it gives
      ``v_t = sum_r y_{t-r} k_S(x_{t-r}) = C^T y_W`` for the ALD-replaced gradient's
      ``delta~`` without any kernel evaluation.  Only kept during POMD;
    * ``Kh`` (POMDR): the Gram matrix of the first ``B/2`` support vectors (the half that
      survives every halving) and ``nearest[p]``, the kept vector nearest to support
      vector ``p >= B/2`` (read from the kernel row when ``p`` joined), for (9).
    """
    # parameters: okl.params writes U, M and dict_kind (the learner's dictionary: 0
    # Cholesky, 1 inverse); _setup the others
    cdef public double U
    cdef public int M, dict_kind
    cdef double c, D, eps0      # POMDR's c (POMD: 1), D in use (the learner's D_), 3 D
    cdef int B, half            # POMDR's budget (POMD: 0, no OMDR, no budget), B / 2
    cdef public long long b0    # B0 in use: OMDR from |S| = B0 on (0: never, POMD)
    cdef long long T            # horizon; 0 while unknown
    cdef double thr             # ALD threshold on sqrt(alpha_t)
    # objects
    cdef SupportSet win
    cdef GramDictionary gram
    # buffers
    cdef double* C
    cdef double* beta
    cdef double* vbuf
    cdef double* yw
    cdef int ccap
    cdef double* Kh
    cdef double* qtmp
    cdef int* nearest
    cdef long long* halv_t
    cdef public long long n_halv
    cdef long long halv_cap
    # round scratch
    cdef double fx_prime, gsum
    # scalars
    cdef public double norm_sq, rate_sum, sum_delta, sum_delta_tilde, lam_next
    cdef public long long t_bar     # -1: +inf
    cdef public bint omdr
    cdef public long long n_updates, n_added, n_projected
    # per-call records (rates, deltas, ALD residuals of the rounds of the last learning
    # call): buffers kept across calls, grown geometrically, so a call allocates nothing
    cdef double* rec_rate
    cdef double* rec_delta
    cdef double* rec_alpha
    cdef long long rec_t0, rec_len, rec_cap
    cdef bint rec_on

    def __cinit__(self, *args, **kwargs):
        self.t_bar = -1

    def __dealloc__(self):
        free(self.C)
        free(self.beta)
        free(self.vbuf)
        free(self.yw)
        free(self.Kh)
        free(self.qtmp)
        free(self.nearest)
        free(self.halv_t)
        free(self.rec_rate)
        free(self.rec_delta)
        free(self.rec_alpha)

    # -- configuration -------------------------------------------------------------

    def _setup(self):
        """``D`` is the learner's ``D_`` (``kernel.sup_diag`` when its ``D`` is None);
        ``B`` and ``c`` are POMDR's parameters, which POMD does not declare: ``B = 0``
        (no OMDR, no budget), ``c = 1``."""
        cdef int B = getattr(self, "B", 0)
        cdef int M = self.M
        self.c = getattr(self, "c", 1.0)
        self.D = self.D_
        self.eps0 = 3.0 * self.D
        self.B = B
        self.half = B // 2
        self.b0 = 0
        self.T = 0
        self.thr = 0.0
        self.norm_sq = 0.0
        self.rate_sum = 0.0
        self.sum_delta = 0.0
        self.sum_delta_tilde = 0.0
        self.lam_next = self.U / sqrt(self.eps0)
        self.t_bar = -1
        self.omdr = False
        self.n_updates = self.n_added = self.n_projected = 0
        self.n_halv = 0
        self.gram = (GramCholesky if self.dict_kind == 0 else GramInverse)(64, True)
        self.win = None
        if B > 0:
            self.Kh = <double*> malloc(<size_t> self.half * self.half * sizeof(double))
            self.qtmp = <double*> malloc(<size_t> self.half * sizeof(double))
            self.nearest = <int*> malloc(<size_t> B * sizeof(int))
            if self.Kh == NULL or self.qtmp == NULL or self.nearest == NULL:
                raise MemoryError(f"cannot allocate POMDR's buffers for B = {B}")
            memset(self.nearest, 0, B * sizeof(int))
        self.yw = <double*> malloc(<size_t> M * sizeof(double))
        if self.yw == NULL:
            raise MemoryError("cannot allocate the window")

    def _pomdr_set_horizon(self, long long T, long long B0, double thr):
        self.T = T
        self.b0 = B0
        self.thr = thr

    def _horizon(self):
        return self.T

    def _core_allocate(self, int d, int capacity, bint growable):
        Learner._core_allocate(self, d, capacity, growable)
        self.win = PySupportSet(self._kernel, d, self.M, False)
        if self.reserve_cols(capacity if capacity > 0 else 64) != 0:
            raise MemoryError("cannot allocate POMD's buffers")

    cdef int reserve_cols(self, int n) noexcept nogil:
        """Room for ``n`` support vectors in ``C``, ``beta`` and ``vbuf``."""
        cdef void* p
        cdef int cap
        if n <= self.ccap:
            return 0
        cap = n if n > 2 * self.ccap else 2 * self.ccap
        p = realloc(self.C, <size_t> cap * self.M * sizeof(double))
        if p == NULL:
            return -1
        self.C = <double*> p
        p = realloc(self.beta, <size_t> cap * sizeof(double))
        if p == NULL:
            return -1
        self.beta = <double*> p
        p = realloc(self.vbuf, <size_t> cap * sizeof(double))
        if p == NULL:
            return -1
        self.vbuf = <double*> p
        self.ccap = cap
        return 0

    cdef int begin_records(self, long long n) noexcept nogil:
        """Per-round records (rates, deltas, ALD residuals) for a call of ``n`` rounds.

        The buffers are kept across calls: they grow geometrically (to at least ``n``)
        and shrink back only after a call at most a quarter of their size following a
        long run, so ``learn_one`` allocates nothing.  ``update`` writes every entry of
        its round (NaN where a quantity was not computed), so nothing is filled here."""
        cdef long long cap = self.rec_cap
        if n > cap:
            cap = n if n > 2 * cap else 2 * cap
            if cap < 16:
                cap = 16
        elif cap > 4096 and 4 * n <= cap:
            cap = n if n > 4096 else 4096
        if cap != self.rec_cap:
            if (_grow_doubles(&self.rec_rate, cap) != 0
                    or _grow_doubles(&self.rec_delta, cap) != 0
                    or _grow_doubles(&self.rec_alpha, cap) != 0):
                return -1
            self.rec_cap = cap
        self.rec_t0 = self.t
        self.rec_len = n
        self.rec_on = True
        return 0

    def _pomdr_begin_records(self, long long n):
        """``begin_records`` from Python (``run`` / ``partial_fit``)."""
        if self.begin_records(n) != 0:
            raise MemoryError(f"cannot allocate POMDR's per-round records for {n} rounds")

    # -- the round -----------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        """(2): ``f_t(x) = f'_{t-1}(x) + lambda_t / M_t sum_r y_{t-r} k(x_{t-r}, x)``.

        Leaves ``k_S(x)`` in ``sv.krow`` and ``k_W(x)`` in ``win.krow``."""
        cdef double fp = 0.0, g = 0.0
        cdef int nw = self.win.n
        if self.sv.n > 0:
            fp = self.sv.score(x)
        if nw > 0:
            g = self.win.score(x)
        self.fx_prime = fp
        self.gsum = g
        if nw > 0:
            return fp + self.lam_next * (g / nw)
        return fp

    cdef double loss(self, double y, double f) noexcept nogil:
        return fmax(0.0, 1.0 - y * f)

    cdef void project(self, double nsq) noexcept nogil:
        """``f' = min{1, U / ||fbar'||} fbar'`` given ``||fbar'||^2``."""
        cdef double s
        cdef int n = self.sv.n
        if nsq > self.U * self.U:
            s = self.U / sqrt(nsq)
            dscal(&n, &s, self.sv.alpha, &INC1)
            self.norm_sq = self.U * self.U
        else:
            self.norm_sq = fmax(nsq, 0.0)

    cdef void after_add(self, int p, double kxx, int nw) noexcept nogil:
        """Bookkeeping for the support vector just added at position ``p``."""
        cdef int i, best
        cdef double* k = self.sv.krow
        cdef double kmax
        if self.half > 0:
            if p < self.half:
                for i in range(p):
                    self.Kh[i + <Py_ssize_t> p * self.half] = k[i]
                    self.Kh[p + <Py_ssize_t> i * self.half] = k[i]
                self.Kh[p + <Py_ssize_t> p * self.half] = kxx
            else:               # (9): the nearest of the first B/2 (first index on ties)
                best = 0
                kmax = k[0]
                for i in range(1, self.half):
                    if k[i] > kmax:
                        kmax = k[i]
                        best = i
                self.nearest[p] = best
        if not self.omdr:       # column of C: k(w_j, x_t) for the window before this round
            for i in range(nw):
                self.C[i + <Py_ssize_t> p * self.M] = self.win.krow[i]

    cdef void halve(self) noexcept nogil:
        """Line 22: keep the oldest ``B/2``, merge the rest into their nearest kept vector
        (9), rescale to ``||f'|| = U``, reset the learning-rate sum (10)."""
        cdef int p, h = self.half
        cdef double* a = self.sv.alpha
        cdef double nsq, s
        cdef long long cap
        cdef void* q
        for p in range(h, self.B):
            a[self.nearest[p]] += a[p]
        self.sv.n = h
        dsymv(b"L", &h, &ONE, self.Kh, &h, a, &INC1, &ZERO, self.qtmp, &INC1)
        nsq = ddot(&h, a, &INC1, self.qtmp, &INC1)
        if nsq > 0.0:
            s = self.U / sqrt(nsq)
            dscal(&h, &s, a, &INC1)
            self.norm_sq = self.U * self.U
        else:
            self.norm_sq = 0.0
        self.rate_sum = 0.0
        if self.n_halv == self.halv_cap:
            cap = 16 if self.halv_cap == 0 else 2 * self.halv_cap
            q = realloc(self.halv_t, cap * sizeof(long long))
            if q == NULL:
                self.error = 1
                return
            self.halv_t = <long long*> q
            self.halv_cap = cap
        self.halv_t[self.n_halv] = self.t
        self.n_halv += 1

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double kxx = kernel_self(&self.kp, x)
        cdef int nw = self.win.n
        cdef int n = self.sv.n, i, slot, added = 0
        cdef double lam = self.lam_next
        cdef double gbar = self.gsum / nw if nw > 0 else 0.0
        cdef double delta = 0.0, dtil = 0.0, res, alpha_test, nsq, pk, bv, s
        cdef long long k = self.t - self.rec_t0 - 1
        cdef bint rec = self.rec_rate != NULL and 0 <= k < self.rec_len
        cdef bint pomd = not self.omdr
        if rec:
            self.rec_rate[k] = lam
            self.rec_delta[k] = NAN         # until the end of the round
            self.rec_alpha[k] = NAN         # unless (5) is evaluated
        if 1.0 - y * f > 0.0:
            # delta_t of (10): ||grad - grad_bar||^2 - ||grad_bar||^2 = k(x,x) - 2 y g_t
            delta = fmax(kxx - 2.0 * y * gbar, 0.0)
            self.sum_delta += delta
            self.n_updates += 1
            if self.reserve_cols(n + 1) != 0:
                self.error = 1
                return
            if pomd:
                if n > 0:
                    res = self.gram.residual(self.sv.krow, kxx, self.beta)    # (4)
                    alpha_test = res
                else:
                    res = fmax(kxx, 0.0)
                    alpha_test = self.D                                      # footnote 2
                if rec:
                    self.rec_alpha[k] = alpha_test
                if sqrt(alpha_test) > self.thr:                              # (5) fails
                    if self.gram.add(self.sv.krow, kxx, self.beta, res) >= 0:
                        added = 1
                    elif res > 0.0:          # refused for lack of memory
                        self.error = 1
                        return
                if added:                                                    # (7)
                    if self.sv.add(x, lam * y, self.t) < 0:
                        self.gram.remove(self.gram.n - 1)
                        self.error = 1
                        return
                    self.after_add(n, kxx, nw)
                    dtil = delta
                    nsq = self.norm_sq + 2.0 * lam * y * self.fx_prime + lam * lam * kxx
                    self.n_added += 1
                    if self.b0 > 0 and self.sv.n == self.b0:                 # line 17
                        self.t_bar = self.t + 1
                        self.omdr = self.t_bar < self.T                      # line 8
                else:                                                        # (6)
                    nsq = self.norm_sq
                    if n > 0:
                        self.gram.to_beta(self.beta)                         # beta* = K^-1 k
                        pk = ddot(&n, self.sv.krow, &INC1, self.beta, &INC1)  # ||Phi beta||^2
                        dtil = pk
                        if nw > 0:
                            # v = C^T y_W = sum_r y_{t-r} k_S(x_{t-r});  <grad_hat, grad_bar>
                            # = (y / M_t) beta^T v
                            for i in range(nw):
                                self.yw[i] = self.win.alpha[i]
                            dgemv(b"T", &nw, &n, &ONE, self.C, &self.M, self.yw, &INC1,
                                  &ZERO, self.vbuf, &INC1)
                            bv = ddot(&n, self.beta, &INC1, self.vbuf, &INC1)
                            dtil = pk - 2.0 * y * (bv / nw)
                        dtil = fmax(dtil, 0.0)
                        nsq = self.norm_sq + 2.0 * lam * y * self.fx_prime + lam * lam * pk
                        s = lam * y
                        daxpy(&n, &s, self.beta, &INC1, self.sv.alpha, &INC1)
                    self.n_projected += 1
                self.project(nsq)
                self.rate_sum += dtil
                self.sum_delta_tilde += dtil
            else:                                                            # (8)
                if self.sv.add(x, lam * y, self.t) < 0:
                    self.error = 1
                    return
                self.after_add(n, kxx, nw)
                self.project(self.norm_sq + 2.0 * lam * y * self.fx_prime + lam * lam * kxx)
                self.rate_sum += delta
                self.sum_delta_tilde += delta
                if self.sv.n == self.B:      # line 22; (10) sums from t_j + 1: reset after
                    self.halve()
                    if self.error:
                        return
        # the window takes (x_t, y_t) in slot (t - 1) mod M
        slot = <int> ((self.t - 1) % self.M)
        if nw < self.M:
            self.win.add(x, y, self.t)
        else:
            self.win.replace(slot, x, y, self.t)
        if not self.omdr:     # row ``slot`` of C: k(x_t, s_i) for the current S
            for i in range(n):
                self.C[slot + <Py_ssize_t> i * self.M] = self.sv.krow[i]
            if added:
                self.C[slot + <Py_ssize_t> n * self.M] = kxx
        # lambda_{t+1}: the POMD rate until the first halving, then (10) times c
        self.lam_next = self.U / sqrt(self.eps0 + self.rate_sum)
        if self.n_halv > 0:
            self.lam_next *= self.c
        if rec:
            self.rec_delta[k] = delta

    # -- learn_one in one call -------------------------------------------------------

    def _pomdr_learn_one(self, lock, x, y, bint blas):
        """``learn_one`` in one call when nothing needs Python: the horizon is known and
        not reached, the learner has seen its first example, ``x`` passes the checks of
        ``okl._core._row_stream`` (a float64 vector, 1-row array or canonical 1-row CSR
        with int32 indices, finite, ``d`` wide) and ``y`` is a float in {-1, +1}.

        Returns ``None`` (nothing done, nothing changed) when the general path must
        handle the call (it converts, or raises the ``ValueError`` naming the problem);
        otherwise ``True``, or ``False`` if the round ran out of memory.  Holds ``lock``
        (the learner's) from the checks to the end of the round; with ``blas``, BLAS is
        held to one thread around the round (``okl.learners.base.one_blas_thread``'s
        fast mode).  The round's records are begun as ``_begin_stream(1)`` does."""
        cdef Stream s
        cdef Row row
        cdef double v, f
        lock.acquire()
        try:
            if self.d < 0 or self.T <= 0 or self.t >= self.T or not isinstance(y, float):
                return None
            v = y
            if self.classification and v != 1.0 and v != -1.0:
                return None
            s = _row_stream(x, self.d)
            if s is None or self.begin_records(1) != 0:
                return None
            s.row(0, &row)
            if blas:
                _blas_enter()
            with nogil:
                self.t += 1
                f = self.score(&row)
                self.loss(v, f)
                self.update(&row, v, f)
            if blas:
                _blas_exit()
            return not self.error
        finally:
            lock.release()

    # -- inspection and pickling ----------------------------------------------------

    def _halving_rounds(self):
        if self.n_halv == 0:
            return np.empty(0, dtype=np.int64)
        return np.array(<long long[:self.n_halv]> self.halv_t, copy=True)

    def _pomdr_records(self):
        if not self.rec_on:
            return {}
        cdef long long done = min(max(self.t - self.rec_t0, 0), self.rec_len)
        if done == 0:
            return {"rates": np.empty(0), "deltas": np.empty(0), "ald_residuals": np.empty(0)}
        return {"rates": np.array(<double[:done]> self.rec_rate, copy=True),
                "deltas": np.array(<double[:done]> self.rec_delta, copy=True),
                "ald_residuals": np.array(<double[:done]> self.rec_alpha, copy=True)}

    def _cross_gram(self):
        """``C`` as an array: ``[k(w_j, s_i)]`` (window slots x support vectors) while POMD
        runs; ``(0, 0)`` once OMDR runs (``C`` is no longer kept or read: its columns of
        later support vectors were never written, so they are not handed out -- nor
        pickled, which keeps the pickle of a learner a function of its rounds)."""
        cdef int nw = 0 if self.win is None or self.omdr else self.win.n
        cdef int n = 0 if self.omdr else self.size(), i, j
        out = np.empty((nw, n))
        cdef double[:, ::1] o = out
        for j in range(nw):
            for i in range(n):
                o[j, i] = self.C[j + <Py_ssize_t> i * self.M]
        return out

    def _half_gram(self):
        cdef int h = min(self.half, self.size()), i, j
        out = np.empty((h, h))
        cdef double[:, ::1] o = out
        for i in range(h):
            for j in range(h):
                o[i, j] = self.Kh[i + <Py_ssize_t> j * self.half]
        return out

    def _nearest(self):
        cdef int n = self.size(), p
        out = np.zeros(n, dtype=np.intc)
        if self.half == 0:
            return out
        for p in range(self.half, n):
            out[p] = self.nearest[p]
        return out

    @property
    def dictionary_(self):
        """The ``GramCholesky`` / ``GramInverse`` holding ``K_S`` (kept during POMD)."""
        return self.gram

    @property
    def window_(self):
        """The ``SupportSet`` of the last ``M`` examples (coefficient = label)."""
        return self.win

    # The state stays written by hand: the cross Gram matrix C (leading dimension M), the
    # half Gram matrix (leading dimension B/2), the dictionary's factor (an object of its
    # own) and the halving record are rebuilt once the window exists.

    def _pomdr_state(self):
        return {"win": self.win, "gram": self.gram, "C": self._cross_gram(),
                "Kh": self._half_gram(), "nearest": self._nearest(),
                "halving_rounds": self._halving_rounds(),
                "scalars": (self.norm_sq, self.rate_sum, self.sum_delta, self.sum_delta_tilde,
                            self.lam_next),
                "counts": (self.t_bar, self.omdr, self.n_updates, self.n_added,
                           self.n_projected),
                "horizon": (self.T, self.b0, self.thr)}

    def _pomdr_restore(self, state):
        cdef int i, j, n
        cdef long long k
        cdef void* q
        self.T, self.b0, self.thr = state["horizon"]
        (self.norm_sq, self.rate_sum, self.sum_delta, self.sum_delta_tilde,
         self.lam_next) = state["scalars"]
        self.t_bar, self.omdr, self.n_updates, self.n_added, self.n_projected = state["counts"]
        self.gram = state["gram"]
        self.win = state["win"]
        if self.win is None:
            return
        n = self.size()
        cap = self.sv.capacity if self.sv.capacity > 0 else 64
        if self.reserve_cols(max(n, cap)) != 0:
            raise MemoryError("cannot restore POMD's buffers")
        C = np.ascontiguousarray(state["C"], dtype=np.float64)
        cdef const double[:, ::1] cv = C
        for j in range(C.shape[0]):
            for i in range(C.shape[1]):
                self.C[j + <Py_ssize_t> i * self.M] = cv[j, i]
        Kh = np.ascontiguousarray(state["Kh"], dtype=np.float64)
        cdef const double[:, ::1] kv = Kh
        for i in range(Kh.shape[0]):
            for j in range(Kh.shape[1]):
                self.Kh[i + <Py_ssize_t> j * self.half] = kv[i, j]
        near = np.asarray(state["nearest"])
        for i in range(self.half, near.shape[0] if self.half > 0 else 0):
            self.nearest[i] = near[i]
        hr = np.asarray(state["halving_rounds"], dtype=np.int64)
        self.n_halv = 0
        for k in range(hr.shape[0]):
            if self.n_halv == self.halv_cap:
                cap2 = 16 if self.halv_cap == 0 else 2 * self.halv_cap
                q = realloc(self.halv_t, cap2 * sizeof(long long))
                if q == NULL:
                    raise MemoryError("cannot restore the halving rounds")
                self.halv_t = <long long*> q
                self.halv_cap = cap2
            self.halv_t[self.n_halv] = hr[k]
            self.n_halv += 1
