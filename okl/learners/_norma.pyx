# cython: language_level=3
"""Typed core of NORMA (Kivinen, Smola & Williamson, IEEE TSP 2004)."""

from libc.math cimport ceil, fabs, pow, sqrt, fmax
from libc.stdlib cimport malloc, realloc, free

from okl._core cimport Learner, Row, kernel_self
from okl.learners._sign cimport sgn
from okl._learner import fields

import numpy as np

# losses, in the order of Sec. III
cdef enum:
    SOFT_MARGIN = 0        # (13)-(18), optional offset b
    NU_CLASSIFICATION = 1  # (19): adaptive rho
    NOVELTY = 2            # (20): adaptive rho, no labels
    SQUARED = 3            # (21)
    NU_EPSILON = 4         # (22): adaptive epsilon
    HUBER = 5              # (23)-(24): fixed sigma
    HUBER_ADAPTIVE = 6     # adaptive sigma (after (24))

# window kinds
cdef enum:
    WINDOW_NONE = 0        # no truncation
    WINDOW_FIXED = 1       # the last tau rounds (Fig. 1, Prop. 1)
    WINDOW_POWER = 2       # s_t = t for t <= t0, ceil(t^(1/2 + eps)) after (Theorem 6)

# below this the rescaling factor is folded into the stored coefficients (Sec. II-D)
cdef double SCALE_FLOOR = 1e-100


cdef class NORMACore(Learner):
    """Stochastic gradient descent in the RKHS with decay, truncation and the
    extra variables (``b``, ``rho``, ``epsilon``, ``sigma``) of Sec. III.

    Representation of ``f_h`` (``h`` = index of the current hypothesis, i.e.
    rounds completed + 1):

    * constant rate with a fixed window: ``f_h = sum_i a_i beta[h - 1 - i] k(x_i, .)``
      with the cached power series ``beta[j] = (1 - lam eta)^j`` of Fig. 1;
    * otherwise: ``f_h = scale * sum_i a_i k(x_i, .)`` with the rescaling trick of
      Sec. II-D (``scale`` is the running product of ``1 - eta_t lam``, folded
      into the ``a_i`` before it underflows).
    """
    cdef public int loss_kind               # the learner's parameters (okl.params)
    cdef public double eta, lam, nu
    cdef public bint sqrt_schedule, offset
    cdef public long long t0                # tau_t0
    cdef int window                         # from tau and tau_power
    cdef long long tau
    cdef double tau_eps
    cdef bint power_series
    cdef double* beta
    cdef public double scale
    cdef public long long h
    # extra variables of the losses (``rho_``, ``sigma_``: the parameters rho and sigma
    # are their initial values)
    cdef public double b, rho_, eps, sigma_
    cdef public long long n_updates
    # optional record of ||f_t||_H^2 (Theorems 4 and 6 need the regularized risk)
    cdef public bint track_norm
    cdef public double norm_sq
    cdef double* norm_out
    cdef long long run_start
    cdef object _norm_buffer
    cdef double* work
    cdef int work_size

    _state_fields = fields("scale", "h", "b", ("rho", "rho_"), "eps", ("sigma", "sigma_"),
                           "n_updates", "norm_sq")

    def __cinit__(self, *args, **kwargs):
        self.scale = 1.0
        self.h = 1

    def __dealloc__(self):
        free(self.beta)
        free(self.work)

    def _setup(self):
        """The window from the declared ``tau`` / ``tau_power`` (``None``: not that one),
        the extra variables at the declared ``rho``, ``epsilon`` and ``sigma``, and the
        power series of Fig. 1 (constant rate, fixed window)."""
        cdef long long j
        tau = getattr(self, "tau")      # the declared value (self.tau is the typed length)
        self.window = (WINDOW_FIXED if tau is not None else
                       WINDOW_POWER if self.tau_power is not None else WINDOW_NONE)
        self.tau = tau or 0
        self.tau_eps = self.tau_power or 0.0
        self.rho_ = self.rho
        self.eps = self.epsilon
        self.sigma_ = self.sigma
        self.b = 0.0
        self.n_updates = 0
        self.power_series = self.window == WINDOW_FIXED and not self.sqrt_schedule
        if self.power_series:
            self.beta = <double*> malloc((self.tau + 1) * sizeof(double))
            if self.beta == NULL:
                raise MemoryError("cannot allocate the power series")
            self.beta[0] = 1.0
            for j in range(1, self.tau + 1):
                self.beta[j] = self.beta[j - 1] * (1.0 - self.lam * self.eta)
        self.norm_sq = 0.0

    def _norma_begin(self, long long n_rounds):
        """Allocate this run's record of ||f_t||^2 (when tracked)."""
        cdef double[::1] view
        if self.track_norm:
            self._norm_buffer = np.empty(n_rounds)
            view = self._norm_buffer
            self.norm_out = &view[0]
            self.run_start = self.t

    def _norma_norms(self):
        return self._norm_buffer if self.track_norm else None

    # -- the expansion ------------------------------------------------------------

    cdef inline double coef(self, int i, long long h) noexcept nogil:
        """True coefficient of support vector ``i`` in ``f_h``."""
        if self.power_series:
            return self.sv.alpha[i] * self.beta[h - 1 - self.sv.stamp[i]]
        return self.sv.alpha[i] * self.scale

    cdef double expansion(self, const Row* x) noexcept nogil:
        """``f_h(x)`` for the current hypothesis."""
        cdef int i
        cdef double acc = 0.0
        if self.sv.n == 0:
            return 0.0
        if not self.power_series:
            return self.scale * self.sv.score(x)
        self.sv.fill_krow(x)
        for i in range(self.sv.n):
            acc += self.sv.alpha[i] * self.beta[self.h - 1 - self.sv.stamp[i]] * self.sv.krow[i]
        return acc

    cdef long long window_size(self, long long h) noexcept nogil:
        """``s_h``: how many past rounds the hypothesis ``f_h`` keeps."""
        if self.window == WINDOW_FIXED:
            return self.tau
        if self.window == WINDOW_POWER and h > self.t0:
            return <long long> ceil(pow(<double> h, 0.5 + self.tau_eps))
        return h

    cdef double truncate(self, long long h) noexcept nogil:
        """Drop the terms of rounds ``i < h - s_h`` (``f_h`` keeps ``h - s_h .. h - 1``).

        Returns ``sum_j c_j k(x_j, x)`` over the dropped terms, read from the
        kernel row of the round's ``x``; with ``track_norm``, ``norm_sq`` loses
        ``2 c_j f(x_j) - c_j^2 k(x_j, x_j)`` for each (one extra kernel row).
        """
        cdef long long cutoff
        cdef int i = 0, j
        cdef double c, fj, dropped = 0.0
        cdef Row r
        if self.window == WINDOW_NONE:
            return 0.0
        cutoff = h - self.window_size(h)
        while i < self.sv.n:
            if self.sv.stamp[i] < cutoff:
                c = self.coef(i, h)
                dropped += c * self.sv.krow[i]
                if self.track_norm and self.reserve_work(self.sv.n) == 0:
                    self.sv.as_row(i, &r)
                    self.sv.kernel_row_into(&r, self.work)
                    fj = 0.0
                    for j in range(self.sv.n):
                        fj += self.coef(j, h) * self.work[j]
                    self.norm_sq += -2.0 * c * fj + c * c * kernel_self(&self.sv.kp, &r)
                self.sv.swap_remove(i)
            else:
                i += 1
        return dropped

    cdef int reserve_work(self, int n) noexcept nogil:
        cdef void* p
        if n <= self.work_size:
            return 0
        p = realloc(self.work, n * sizeof(double))
        if p == NULL:
            self.error = 1
            return -1
        self.work = <double*> p
        self.work_size = n
        return 0

    # -- the round ----------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        """``g(x) = f(x) + b`` (classification), ``f(x) - rho`` (novelty), ``f(x)`` (regression)."""
        cdef double f = self.expansion(x)
        if self.loss_kind == NOVELTY:
            return f - self.rho_
        return f + self.b

    cdef double loss(self, double y, double g) noexcept nogil:
        cdef double delta, a
        if self.loss_kind == SOFT_MARGIN:
            return fmax(0.0, self.rho_ - y * g)
        if self.loss_kind == NU_CLASSIFICATION:
            return fmax(0.0, self.rho_ - y * g) - self.nu * self.rho_
        if self.loss_kind == NOVELTY:
            return fmax(0.0, -g) - self.nu * self.rho_
        delta = y - g
        if self.loss_kind == SQUARED:
            return 0.5 * delta * delta
        if self.loss_kind == NU_EPSILON:
            return fmax(0.0, fabs(delta) - self.eps) + self.nu * self.eps
        a = fabs(delta)
        if a >= self.sigma_:
            return a - 0.5 * self.sigma_
        return delta * delta / (2.0 * self.sigma_)

    cdef void update(self, const Row* x, double y, double g) noexcept nogil:
        cdef double eta_t = self.eta / sqrt(<double> self.t) if self.sqrt_schedule else self.eta
        cdef double a = 0.0, delta, decay, fx
        cdef bint margin_error
        cdef int k = self.loss_kind
        # f_t(x_t) itself (the score carries b or -rho)
        fx = g + self.rho_ if k == NOVELTY else g - self.b
        if self.track_norm:
            self.norm_out[self.t - 1 - self.run_start] = self.norm_sq
        # new coefficient a = -eta_t l'(.) and the extra variables, Sec. III
        if k == SOFT_MARGIN or k == NU_CLASSIFICATION:
            margin_error = y * g <= self.rho_                      # sigma_t of (14)
            if margin_error:
                a = eta_t * y                                      # (15), (18)
                if self.offset:
                    self.b += eta_t * y                            # (16)
            if k == NU_CLASSIFICATION:
                self.rho_ += eta_t * (self.nu - (1.0 if margin_error else 0.0))  # (19)
        elif k == NOVELTY:
            margin_error = g < 0.0                                 # f(x) < rho
            if margin_error:
                a = eta_t                                          # (20)
                self.rho_ -= eta_t * (1.0 - self.nu)               # d l / d rho = 1 - nu
            else:
                self.rho_ += eta_t * self.nu                       # d l / d rho = -nu
        else:
            delta = y - g
            if k == SQUARED:
                margin_error = delta != 0.0
                a = eta_t * delta                                  # (21)
            elif k == NU_EPSILON:
                margin_error = fabs(delta) > self.eps
                if margin_error:
                    a = eta_t * sgn(delta)                         # (22)
                    self.eps += (1.0 - self.nu) * eta_t
                else:
                    self.eps -= eta_t * self.nu
            else:  # HUBER, HUBER_ADAPTIVE
                margin_error = fabs(delta) > self.sigma_
                if margin_error:
                    a = eta_t * sgn(delta)                         # (24)
                else:
                    a = eta_t * delta / self.sigma_
                if k == HUBER_ADAPTIVE:
                    if margin_error:
                        self.sigma_ += eta_t * (1.0 - self.nu)
                    else:
                        self.sigma_ -= eta_t * self.nu
        if margin_error:
            self.n_updates += 1
        # decay of the old coefficients, (12)
        decay = 1.0 - eta_t * self.lam
        if not self.power_series and self.lam > 0.0:
            self.scale *= decay
            if self.scale < SCALE_FLOOR:
                self.sv.scale(self.scale)
                self.scale = 1.0
        # f_{t+1} keeps rounds t + 1 - s_{t+1} .. t
        self.h = self.t + 1
        self.norm_sq *= decay * decay
        fx = decay * fx - self.truncate(self.h)
        if self.track_norm:
            self.norm_sq += 2.0 * a * fx + a * a * kernel_self(&self.sv.kp, x)
        if a != 0.0:
            if self.sv.add(x, a if self.power_series else a / self.scale, self.t) < 0:
                self.error = 1

    # -- inspection and pickling --------------------------------------------------

    def _true_coefficients(self):
        """Coefficients of ``f_h`` on the stored support vectors (decay applied)."""
        cdef int i
        out = np.empty(self.sv.n if self.sv is not None else 0)
        for i in range(out.shape[0]):
            if self.power_series:
                out[i] = self.sv.alpha[i] * self.beta[self.h - 1 - self.sv.stamp[i]]
            else:
                out[i] = self.sv.alpha[i] * self.scale
        return out
