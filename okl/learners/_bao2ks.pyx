# cython: language_level=3
"""Typed core of B(AO)2KS with one kernel: the round loop of the authors' ``BA2OKS.R``
(JunfLi-TJU/OKL-Hinge, the code of Li & Liao's AAAI 2023 Table 2), budgeted optimistic
mirror descent with restarts.  See ``okl/learners/bao2ks.py`` for the algorithm."""

from libc.math cimport sqrt, floor
from libc.stdlib cimport malloc, free

from okl._core cimport Learner, Row, SupportSet, kernel_self

import numpy as np

from okl._learner import Field, fields


cdef class BAO2KSCore(Learner):
    """State of B(AO)2KS.

    * ``sv``: the support set ``S`` of ``f'`` (coefficients of ``f'``);
    * ``res``: the reservoir ``V`` of ``M`` past examples (coefficient = label), so
      ``res.score(x) = sum_j y_j k(v_j, x)``; ``pos[j]``: the index in ``sv`` of the copy of
      reservoir slot ``j`` (-1: not in ``S``);
    * the norms and the inner product the R code keeps: ``nag = ||g_bar||``,
      ``nf = ||f'||``, ``nfb_ = ||fbar'||`` of the last update, ``inner = <f', g_bar>``
      (prepared at the end of a round for the next one), the last update's flags ``a``
      (margin error), ``b`` (sampled) and ``pt``, ``aver_prev = sum_j y_j k(v_j, x_{t-1})``;
    * ``pending``: ``|S| > B`` after the last round: ``S`` restarts at the start of the
      next one (its score already treats ``S`` as empty).
    """
    # parameters (okl.params writes eps, beta, B and U)
    cdef public double eps, beta, U
    cdef public int B
    cdef double lam             # lambda, M and T: _bao2ks_set_horizon
    cdef int M
    cdef long long T            # horizon (0 while unknown)
    # objects
    cdef public SupportSet res
    cdef int* pos
    cdef double* vbuf
    # state
    cdef public double nag, nf, nfb_, inner, pt, aver_prev
    cdef public int a, b, delta
    cdef public bint pending
    cdef public long long n_margin, n_sampled, n_restarts, kernel_evals
    cdef long long* restart_t
    cdef long long restart_cap
    # round scratch (score -> update)
    cdef double s_fS, s_aver, s_nfb
    cdef long long s_evals

    # the reservoir's positions and the restart rounds are raw buffers: code copies them
    _state_fields = fields(
        "res", Field("pos", get="_bao2ks_positions", put="_put_positions"),
        ("scalars", ("nag", "nf", "nfb_", "inner", "pt", "aver_prev")),
        ("flags", ("a", "b", "delta", "pending")),
        ("counts", ("n_margin", "n_sampled", "kernel_evals")),
        Field("restarts", get="_restart_rounds", put="_put_restart_rounds"))

    def __dealloc__(self):
        free(self.pos)
        free(self.vbuf)
        free(self.restart_t)

    # -- configuration ---------------------------------------------------------------

    def _setup(self):
        self.nag = self.nf = self.nfb_ = self.inner = self.pt = self.aver_prev = 0.0
        self.a = self.b = self.delta = 0
        self.pending = False
        self.n_margin = self.n_sampled = self.n_restarts = self.kernel_evals = 0

    def _bao2ks_set_horizon(self, long long T, double lam, int M):
        """Fix ``T``, ``lambda`` and the reservoir size ``M`` (once, before learning)."""
        self.T = T
        self.lam = lam
        self.M = M
        free(self.pos)
        free(self.vbuf)
        self.pos = <int*> malloc(M * sizeof(int))
        self.vbuf = <double*> malloc(M * sizeof(double))
        if self.pos == NULL or self.vbuf == NULL:
            raise MemoryError(f"cannot allocate a reservoir of M = {M}")
        cdef int j
        for j in range(M):
            self.pos[j] = -1
        if self.d > 0 and self.res is None:
            self.res = SupportSet(self._kernel, self.d, M, False)

    def _bao2ks_allocate(self):
        if self.M > 0 and self.res is None:
            self.res = SupportSet(self._kernel, self.d, self.M, False)

    def _horizon(self):
        return self.T

    # -- the round -----------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        """``f_t(x) = f'(x) + lambda / |V| sum_j y_j k(v_j, x)``, scaled by ``U / ||f_t||``
        when ``||f_t|| = ||f' - lambda g_bar|| > U``."""
        cdef int nres = self.res.n if self.res is not None else 0
        cdef double fS = 0.0, aver = 0.0, fx, q, nf = self.nf, inner = self.inner, nfb
        self.s_evals = nres
        if self.pending:                # S restarts before this round: f' = 0
            nf = 0.0
            inner = 0.0
        elif self.sv.n > 0:
            fS = self.sv.score(x)
            self.s_evals += self.sv.n
        if nres > 0:
            aver = self.res.score(x)
        fx = fS + self.lam * aver / (nres if nres > 1 else 1)
        q = nf * nf + self.lam * self.lam * (self.nag * self.nag) - 2.0 * self.lam * inner
        nfb = sqrt(q) if q > 0.0 else 0.0
        if nfb > self.U:
            fx = fx * self.U / nfb
        self.s_fS = fS
        self.s_aver = aver
        self.s_nfb = nfb
        return fx

    cdef double loss(self, double y, double f) noexcept nogil:
        cdef double l = self.eps - y * f
        return l if l > 0.0 else 0.0

    cdef void _restart(self) noexcept nogil:
        cdef int j
        self.sv.n = 0
        for j in range(self.M):
            self.pos[j] = -1
        self.inner = 0.0
        self.nf = 0.0
        self.pending = False
        if self.n_restarts == self.restart_cap:
            if self._grow_restarts() != 0:
                self.error = 1
                return
        self.restart_t[self.n_restarts] = self.t
        self.n_restarts += 1

    cdef int _grow_restarts(self) noexcept nogil:
        cdef long long cap = 16 if self.restart_cap == 0 else 2 * self.restart_cap
        cdef long long* p = <long long*> malloc(cap * sizeof(long long))
        cdef long long i
        if p == NULL:
            return -1
        for i in range(self.n_restarts):
            p[i] = self.restart_t[i]
        free(self.restart_t)
        self.restart_t = p
        self.restart_cap = cap
        return 0

    cdef double _inner_from_scratch(self) noexcept nogil:
        """``<f', g_bar> = -(1/|V|) sum_j y_j f'(v_j)`` (|S| |V| kernel evaluations)."""
        cdef int j, nres = self.res.n
        cdef double acc = 0.0
        cdef Row row
        self.kernel_evals += <long long> nres * self.sv.n
        for j in range(nres):
            self.res.as_row(j, &row)
            acc = acc + self.res.alpha[j] * self.sv.score(&row)
        return -acc / nres

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int j, nres, nr, jt, ib
        cdef double kxx, kxy, zt, pt, c, coef, lam = self.lam, nfb_, t1, t2, t3, t4, t5
        cdef double s2, rk
        cdef double* al
        cdef int mine = -1               # index of x_t in S if it joined S this round
        cdef Row row
        cdef long long i = self.t
        self.kernel_evals += self.s_evals
        if self.pending:
            self._restart()
            if self.error:
                return
        self.a = 0
        self.b = 0
        kxx = kernel_self(&self.kp, x)
        nres = self.res.n
        nr = nres if nres > 1 else 1
        if f * y < self.eps:
            self.a = 1
            self.n_margin += 1
            kxy = self.nag * self.nag + kxx - 2.0 * y * self.s_aver / nr
            rk = sqrt(kxy) if kxy > 0.0 else 0.0
            zt = self.beta * (rk + self.nag)
            pt = rk / zt if zt > 0.0 else 0.0
            self.pt = pt
            if self.uniform() < pt:                     # b_t = 1: x_t joins S
                self.b = 1
                self.n_sampled += 1
                mine = self.sv.add(x, lam * y / pt, i)
                if mine < 0:
                    self.error = 1
                    return
                c = (1.0 - 1.0 / pt) * lam
            else:
                c = lam
            # the reservoir's gradients, (c y_j) / |V|, onto S (added where missing)
            al = self.sv.alpha          # (add may reallocate it: re-read after adding)
            for j in range(nres):
                if self.pos[j] >= 0:
                    al[self.pos[j]] = al[self.pos[j]] + c * self.res.alpha[j] / nr
            for j in range(nres):
                if self.pos[j] < 0:
                    self.res.as_row(j, &row)
                    ib = self.sv.add(&row, c * self.res.alpha[j] / nr, self.res.stamp[j])
                    if ib < 0:
                        self.error = 1
                        return
                    self.pos[j] = ib
            if self.b:
                t1 = lam * lam / (pt * pt)
                t2 = 2.0 * lam / pt * self.s_fS * y
                t3 = 2.0 * lam * lam * (1.0 - 1.0 / pt) / pt * self.s_aver * y / nr
                t4 = 2.0 * lam * (1.0 - 1.0 / pt) * self.inner
                t5 = lam * lam * ((1.0 - 1.0 / pt) * (1.0 - 1.0 / pt)) * (self.nag * self.nag)
                s2 = self.nf * self.nf + t1 + t2 + t3 - t4 + t5
                nfb_ = sqrt(s2) if s2 > 0.0 else 0.0
            else:
                nfb_ = self.s_nfb
            self.nfb_ = nfb_
            self.nf = nfb_
            if nfb_ > self.U:
                self.sv.scale(self.U / nfb_)
                self.nf = self.U
        # the reservoir (sampling without replacement of the stream, M slots)
        if i <= self.M:
            self.delta = 0
            s2 = ((i - 1.0) * (i - 1.0) * (self.nag * self.nag) + kxx
                  + 2.0 * y * self.s_aver) / (<double> i * <double> i)
            self.nag = sqrt(s2) if s2 > 0.0 else 0.0
            jt = self.res.add(x, y, i)
            self.pos[jt] = mine              # x_t is in S if it was sampled (b_t = 1)
        else:
            self.delta = self.uniform() < (<double> self.M) / (<double> i)
            if self.delta:
                jt = <int> floor(self.uniform() * self.M)
                if jt >= self.M:
                    jt = self.M - 1
                nr = self.res.n
                t1 = 2.0 / (nr * nr) * (1.0 - y * self.res.alpha[jt] * self.res.krow[jt])
                self.res.as_row(jt, &row)
                self.res.kernel_row_into(&row, self.vbuf)
                self.kernel_evals += nr
                s2 = 0.0
                for j in range(nr):
                    s2 = s2 + self.res.alpha[j] * self.vbuf[j]
                t2 = -2.0 / (nr * nr) * self.res.alpha[jt] * s2
                t3 = 2.0 / (nr * nr) * y * self.s_aver
                s2 = self.nag * self.nag + t1 + t2 + t3
                self.nag = sqrt(s2) if s2 > 0.0 else 0.0
                self.res.replace(jt, x, y, i)
                self.pos[jt] = mine
        self.aver_prev = self.s_aver
        # restart (at the start of the next round) or <f', g_bar> for the next round
        self.pending = self.sv.n > self.B
        if self.pending or self.sv.n == 0:
            return
        i += 1                                         # the next round
        if i <= self.M + 1:
            self.inner = self._inner_from_scratch()
        elif self.delta:
            self.inner = self._inner_from_scratch()
        elif self.a:
            if self.b:
                self.inner = (self.inner - lam / self.pt * y * self.aver_prev / self.res.n
                              - lam * (1.0 - 1.0 / self.pt) * (self.nag * self.nag))
            else:
                self.inner = self.inner - lam * (self.nag * self.nag)
            if self.nfb_ > self.U:
                self.inner = self.inner * self.U / self.nfb_

    cdef int size(self) noexcept nogil:
        return self.sv.n if self.sv is not None else 0

    # -- inspection and pickling ----------------------------------------------------

    def _restart_rounds(self):
        return [int(self.restart_t[i]) for i in range(self.n_restarts)]

    def _reservoir_size(self):
        return 0 if self.res is None else int(self.res.n)

    def _bao2ks_positions(self):
        return np.array([self.pos[j] for j in range(self.M)], dtype=np.intc) \
            if self.pos != NULL else np.empty(0, dtype=np.intc)

    def _put_positions(self, pos):
        cdef int j
        for j in range(min(self.M, len(pos))):
            self.pos[j] = pos[j]

    def _put_restart_rounds(self, rounds):
        self.n_restarts = 0
        for t in rounds:
            if self.n_restarts == self.restart_cap and self._grow_restarts() != 0:
                raise MemoryError("cannot restore the restart rounds")
            self.restart_t[self.n_restarts] = t
            self.n_restarts += 1
