# cython: language_level=3
"""Typed cores of the fixed-budget baselines: Forgetron, RBP, BOGD and BOGD++.

Every core keeps at most ``B`` support vectors after every round: when a
round must add an example to a full support set, one support vector is
removed *before* the new one is appended (``SupportSet.remove`` keeps the
order, so index 0 is always the oldest support vector).
"""

from libc.math cimport INFINITY, fabs, fmax, fmin, sqrt
from libc.stdlib cimport malloc, free

from okl._core cimport Learner, Row, kernel_self
from okl._learner import fields

import numpy as np


# ----------------------------------------------------------------------------
# Forgetron (self-tuned), Dekel, Shalev-Shwartz & Singer (SIAM J. Comput. 2008)
# ----------------------------------------------------------------------------

cdef class ForgetronCore(Learner):
    """Kernel Perceptron on a budget: shrink by ``phi_t``, then forget the oldest.

    State: ``Q`` (the accumulated forgetting damage ``sum Psi``), ``M`` (the
    mistakes so far, the current one included), the count of removals, and,
    for the current run, the shrink factor and round of every removal.
    """
    cdef public int B              # the learner's parameters (okl.params)
    cdef public int head           # slot of the oldest support vector (a ring once full)
    cdef public double Q
    cdef public long long M
    cdef public long long removals
    cdef double* work              # k(x_r, S) of the example to forget (B doubles)
    # per-run record of the removals (set by _forgetron_begin)
    cdef double* phi_out
    cdef long long* round_out
    cdef long long n_out, cap_out
    cdef object _phi_buffer, _round_buffer

    _state_fields = fields("Q", "M", "removals", "head")

    def __dealloc__(self):
        free(self.work)

    def _setup(self):
        self.head = 0
        free(self.work)
        self.work = <double*> malloc(self.B * sizeof(double))
        if self.work == NULL:
            raise MemoryError("cannot allocate the Forgetron work row")

    def _forgetron_begin(self, long long n_rounds):
        """Allocate this run's record of the removals (at most one a round)."""
        cdef double[::1] pv
        cdef long long[::1] rv
        self._phi_buffer = np.empty(max(n_rounds, 1))
        self._round_buffer = np.empty(max(n_rounds, 1), dtype=np.int64)
        pv = self._phi_buffer
        rv = self._round_buffer
        self.phi_out = &pv[0]
        self.round_out = &rv[0]
        self.n_out = 0
        self.cap_out = n_rounds

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return fmax(0.0, -y * f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int n = self.sv.n, j, o
        cdef double sig, yr, fr, mu, a, b, c, disc, phi, s
        cdef Row r
        if y * f > 0.0:
            return
        self.M += 1                                       # M_t = M_{t-1} + 1
        if n < self.B:                                    # |I'_t| <= B: plain Perceptron step
            if self.sv.add(x, y, self.t) < 0:
                self.error = 1
            return
        # r_t = min I_t, the oldest support vector (slot ``head`` of the ring); its
        # coefficient is sigma_{r,t} y_r with sigma > 0
        o = self.head
        self.sv.as_row(o, &r)
        self.sv.kernel_row_into(&r, self.work)
        fr = 0.0
        for j in range(n):
            fr += self.sv.alpha[j] * self.work[j]
        fr += y * self.sv.krow[o]                         # f'_t = f_t + y_t k(x_t, .)
        sig = fabs(self.sv.alpha[o])
        yr = -1.0 if self.sv.alpha[o] < 0.0 else 1.0
        mu = yr * fr                                      # mu_t = y_r f'_t(x_r)
        # Psi(sig phi, phi mu) + Q - 15/32 M = a phi^2 + b phi + c
        a = sig * sig - 2.0 * sig * mu
        b = 2.0 * sig
        c = self.Q - (15.0 / 32.0) * <double> self.M       # < 0 (Q_t <= 15/32 M_{t-1})
        if a + b + c <= 0.0:
            phi = 1.0
        else:
            # the smallest positive root (whatever the sign of a), in the stable form
            disc = b * b - 4.0 * a * c
            if disc < 0.0:
                disc = 0.0
            phi = -2.0 * c / (b + sqrt(disc))
            phi = fmin(phi, 1.0)
        s = sig * phi
        self.Q += s * s + 2.0 * s - 2.0 * s * phi * mu    # Psi_t = Psi(sig phi, y_r f''_t(x_r))
        if phi != 1.0:
            self.sv.scale(phi)                            # f''_t = phi_t f'_t ...
        # ... minus the oldest term, whose slot the new one takes: O(d), no shifting
        self.sv.replace(o, x, phi * y, self.t)            # sigma_{t,t+1} = phi_t
        self.head = (o + 1) % self.B
        self.removals += 1
        if self.phi_out != NULL and self.n_out < self.cap_out:
            self.phi_out[self.n_out] = phi
            self.round_out[self.n_out] = self.t
            self.n_out += 1

    def _forgetron_record(self):
        if self._phi_buffer is None:
            return np.empty(0), np.empty(0, dtype=np.int64)
        return (self._phi_buffer[:self.n_out].copy(), self._round_buffer[:self.n_out].copy())


# ----------------------------------------------------------------------------
# Random Budget Perceptron, Cavallanti, Cesa-Bianchi & Gentile (MLJ 2007)
# ----------------------------------------------------------------------------

cdef class RBPCore(Learner):
    """On a mistake with a full budget, forget a uniformly drawn support vector."""
    cdef public int B
    cdef public long long removals

    _state_fields = fields("removals")

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return fmax(0.0, -y * f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int n = self.sv.n, k
        if y * f > 0.0:
            return
        if n >= self.B:
            k = <int> (self.uniform() * n)                # one draw: floor(u n)
            if k >= n:
                k = n - 1
            self.sv.replace(k, x, y, self.t)              # the new vector takes slot k
            self.removals += 1
        elif self.sv.add(x, y, self.t) < 0:
            self.error = 1


# ----------------------------------------------------------------------------
# BOGD and BOGD++, Zhao, Wang, Wu, Jin & Hoi (ICML 2012)
# ----------------------------------------------------------------------------

cdef class BOGDCore(Learner):
    """Budgeted kernel OGD on the hinge loss with unbiased removal.

    ``nonuniform = False``: BOGD (uniform removal, survivors times ``B/(B-1)``);
    ``nonuniform = True``: BOGD++ (removal probability ``p_i`` falling with
    ``|alpha_i| sqrt(k(x_i, x_i))``, survivor ``j`` divided by ``1 - p_j``).
    Coefficients are stored explicitly (no lazy scale): every one written is
    clipped to ``|alpha| <= eta gamma`` when ``gamma`` is finite.
    """
    cdef public int B
    cdef public double eta, lam, gamma
    cdef public bint rescale       # the R code: all coefficients times min(1, cap / max|a|)
    cdef double cap                # eta gamma (-1: no clip)
    cdef bint nonuniform
    cdef public long long removals, n_updates
    cdef double* w                 # |alpha_j| sqrt(k(x_j, x_j))
    cdef double* q                 # 1 - p_j, the survival probabilities
    cdef unsigned char* capped

    _state_fields = fields("removals", "n_updates")

    def __dealloc__(self):
        free(self.w)
        free(self.q)
        free(self.capped)

    def _setup(self):
        """``gamma = inf`` means no clipping; ``rescale``: after a removal, every coefficient
        times ``min(1, eta gamma / max_j |alpha_j|)`` instead of the element-wise clip;
        the class attribute ``_nonuniform`` chooses BOGD++'s removal."""
        cdef int B = self.B
        self.cap = self.eta * self.gamma if self.gamma < INFINITY else -1.0
        self.nonuniform = self._nonuniform
        free(self.w)
        free(self.q)
        free(self.capped)
        self.w = <double*> malloc(B * sizeof(double))
        self.q = <double*> malloc(B * sizeof(double))
        self.capped = <unsigned char*> malloc(B * sizeof(unsigned char))
        if self.w == NULL or self.q == NULL or self.capped == NULL:
            raise MemoryError("cannot allocate the BOGD work arrays")

    cdef inline double clip(self, double v) noexcept nogil:
        if self.cap < 0.0:
            return v
        if v > self.cap:
            return self.cap
        if v < -self.cap:
            return -self.cap
        return v

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return fmax(0.0, 1.0 - y * f)

    cdef int survival(self) noexcept nogil:
        """Fill ``q[j] = 1 - p_j`` for the current support set (BOGD++).

        ``p_j = 1 - (n - 1) w_j / sum_i w_i`` with ``w_j = |alpha_j| sqrt(k(x_j, x_j))``
        whenever that is a distribution; otherwise ``q_j = min(1, c w_j)`` with
        ``c`` such that ``sum_j q_j = n - 1`` (the same variance-minimizing
        solution with the constraint ``p_j >= 0``).  Returns the index of the
        first zero weight if there is one (removed with certainty, ``q = 1``
        elsewhere), else -1.
        """
        cdef int n = self.sv.n, i, j, changed
        cdef double N, S, c
        cdef Row r
        r.data = NULL
        r.indices = NULL
        r.nnz = 0
        r.l1norm = 0.0
        for j in range(n):
            r.sqnorm = self.sv.sqnorm[j]
            self.w[j] = fabs(self.sv.alpha[j]) * sqrt(fmax(kernel_self(&self.sv.kp, &r), 0.0))
            self.capped[j] = 0
        for j in range(n):
            if self.w[j] == 0.0:
                for i in range(n):
                    self.q[i] = 1.0
                self.q[j] = 0.0
                return j
        N = <double> (n - 1)
        S = 0.0
        for j in range(n):
            S += self.w[j]
        while True:
            c = N / S if (N > 0.0 and S > 0.0) else 0.0
            changed = 0
            for j in range(n):
                if not self.capped[j] and c * self.w[j] >= 1.0:
                    self.capped[j] = 1
                    N -= 1.0
                    S -= self.w[j]
                    changed = 1
            if not changed:
                break
        for j in range(n):
            self.q[j] = 1.0 if self.capped[j] else c * self.w[j]
        return -1

    cdef int draw_nonuniform(self, double u) noexcept nogil:
        """Index ``k`` with ``u * sum p < p_0 + ... + p_k`` (inverse CDF)."""
        cdef int n = self.sv.n, j, last = -1
        cdef double total = 0.0, target, cum = 0.0
        for j in range(n):
            total += 1.0 - self.q[j]
        target = u * total
        for j in range(n):
            if 1.0 - self.q[j] > 0.0:
                last = j
            cum += 1.0 - self.q[j]
            if target < cum:
                return j
        return last if last >= 0 else n - 1

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int n = self.sv.n, j, k, zero
        cdef double decay = 1.0 - self.eta * self.lam
        cdef double u, factor, amax
        if y * f >= 1.0:                                  # zero hinge loss: decay only
            if decay != 1.0:
                self.sv.scale(decay)
            return
        self.n_updates += 1
        if n < self.B:
            if decay != 1.0:
                self.sv.scale(decay)
            if self.sv.add(x, self.eta * y if self.rescale else self.clip(self.eta * y),
                           self.t) < 0:
                self.error = 1
        else:
            u = self.uniform()                            # one draw per removal
            if self.nonuniform:
                zero = self.survival()
                k = zero if zero >= 0 else self.draw_nonuniform(u)
                for j in range(n):
                    if j != k:
                        self.sv.alpha[j] = self.clip(decay * self.sv.alpha[j] / self.q[j])
            else:
                k = <int> (u * n)
                if k >= n:
                    k = n - 1
                if n > 1:
                    factor = decay * n / (n - 1.0)        # (1 - eta lam) B / (B - 1)
                    for j in range(n):
                        if j != k:
                            self.sv.alpha[j] = (factor * self.sv.alpha[j] if self.rescale
                                                else self.clip(factor * self.sv.alpha[j]))
            if self.rescale:
                self.sv.replace(k, x, self.eta * y, self.t)
                if self.cap > 0.0:
                    amax = 0.0
                    for j in range(n):
                        if fabs(self.sv.alpha[j]) > amax:
                            amax = fabs(self.sv.alpha[j])
                    if amax > self.cap:
                        factor = self.cap / amax
                        for j in range(n):
                            self.sv.alpha[j] = factor * self.sv.alpha[j]
            else:
                self.sv.replace(k, x, self.clip(self.eta * y), self.t)   # takes slot k
            self.removals += 1

    def _removal_probabilities(self):
        """``p_j`` of the next removal for the current support set (inspection)."""
        cdef int j, n = 0 if self.sv is None else self.sv.n
        out = np.empty(n)
        if n == 0:
            return out
        if not self.nonuniform:
            out[:] = 1.0 / n
            return out
        self.survival()
        for j in range(n):
            out[j] = 1.0 - self.q[j]
        return out


# ----------------------------------------------------------------------------
# NORMA with the nu-epsilon-insensitive loss and a replacement pointer, as Li & Liao's
# table4/NORMA.R and table6/NORMA.R (the kernel-selection paper, Tables 4 and 6) run it
# ----------------------------------------------------------------------------

cdef class NORMAReplaceCore(Learner):
    """Budgeted NORMA (nu-epsilon loss): ``B`` slots; once full, the update overwrites
    the slot of a cyclic pointer (``slots`` of them: ``B - 1`` in the R code)."""
    cdef public int B
    cdef public bint cycle_all     # the pointer cycles over all B slots (else B - 1)
    cdef public double eta, lam, nu
    cdef int slots                 # the pointer cycles over slots 0 .. slots - 1
    cdef public int pointer
    cdef public double eps         # epsilon_t
    cdef public long long n_updates, replacements

    _state_fields = fields(("epsilon", "eps"), "pointer", "n_updates", "replacements")

    def _setup(self):
        self.slots = self.B if self.cycle_all else self.B - 1
        self.eps = self.epsilon                       # epsilon_1, the parameter

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return fabs(f - y)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double decay = 1.0 - self.eta * self.lam
        cdef double a
        if decay != 1.0:
            self.sv.scale(decay)
        if fabs(f - y) > self.eps:
            a = -self.eta * (1.0 if f > y else -1.0)
            self.n_updates += 1
            if self.sv.n < self.B:
                if self.sv.add(x, a, self.t) < 0:
                    self.error = 1
                    return
            else:
                self.sv.replace(self.pointer, x, a, self.t)
                self.replacements += 1
                self.pointer += 1
                if self.pointer >= self.slots:
                    self.pointer = 0
            self.eps += (1.0 - self.nu) * self.eta
        else:
            self.eps -= self.nu * self.eta
