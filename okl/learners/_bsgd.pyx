# cython: language_level=3
"""Typed cores of BSGD, budgeted stochastic gradient descent (Wang, Crammer & Vucetic,
*Breaking the curse of kernelization*, JMLR 13, 2012): ``BSGDCore`` (binary, one
coefficient per support vector, the support set's own ``alpha``) and
``MulticlassBSGDCore`` (Crammer-Singer, a coefficient per class, over ``MulticlassCore``).

A round is the paper's Algorithm 1: the scores and the hinge loss of ``w_t``; every
coefficient times ``1 - eta_t lam``; on a positive loss ``x_t`` joins with ``beta_t``
(binary ``y_t eta_t``; multiclass ``+eta_t`` at ``y_t``, ``-eta_t`` at the best wrong
class); past ``B`` vectors one budget maintenance step (removal, projection or merging,
Section 6); BMP then projects ``w`` onto the ball of radius ``U``.  The plain-numpy oracle
is ``tests/oracles/bsgd.py`` (``bsgd``); this file follows it operation for operation
where the order of floating-point operations decides a comparison (the merge search, the
merge's degradation, the choice of the smallest vector).
"""

from libc.math cimport sqrt, pow, fabs, exp, INFINITY, NAN
from libc.stdlib cimport malloc, free
from libc.string cimport memset

import numpy as np

from okl._core cimport Learner, Row, GramInverse, kernel_self, sq_dist_row, KERNEL_GAUSSIAN
from okl._learner import Field, fields
from okl._memory cimport _grow
from okl.learners._budgetedsvm cimport first_example
from okl.learners._multiclass cimport MulticlassCore

cdef enum:
    RULE_PEGASOS = 0
    RULE_NORMA = 1
    RULE_MP = 2

cdef enum:
    MAINT_REMOVAL = 0
    MAINT_PROJECTION = 1
    MAINT_MERGING = 2

# what a maintenance step did (Trace.extras["maintenance_kinds"])
cdef enum:
    KIND_REMOVE = 0
    KIND_PROJECT = 1
    KIND_MERGE = 2
    KIND_MERGE_DUPLICATE = 3       # variant "budgetedsvm": the new vector added to its twin
    KIND_REMOVE_DUPLICATE = 4      # variant "budgetedsvm": the new vector discarded

KINDS = ("remove", "project", "merge", "merge-duplicate", "remove-duplicate")

# "the smallest" support vector: the first position whose value is within TIE_RTOL
# (relative) of the minimum (the oracle's tie_rtol): in BPegasos every vector never
# merged or projected onto has |alpha| = 1/(lam t) exactly, a tie that the running
# products would otherwise break by round-off
cdef double TIE_RTOL = 1e-9
# the golden-section search of BudgetedSVM's computeKmax (bsgd.cpp:381-416)
cdef double GOLDEN_TOL = 1e-4
# projection: a new vector whose Schur complement is <= SPAN_TOL max(k(x, x), 1) is in the
# span of the support set; the inverse is then refreshed by a pseudo-inverse (the oracle)
cdef double SPAN_TOL = 1e-12
# merging, paper variant: a class whose alpha_m + alpha_n is 0 within this fraction of the
# pair's largest |alpha_m| + |alpha_n| is left out of the 1-D problem
cdef double CANCEL_TOL = 1e-12
# BudgetedSVM's duplicate test: k(s, x) * 1e8 rounds to 1e8 (bsgd.cpp:778-795)
cdef double DUP_SCALE = 100000000.0


# ----------------------------------------------------------------------------------
# Shared numerics
# ----------------------------------------------------------------------------------

cdef inline int smallest(const double* v, int n) noexcept nogil:
    """The first position within ``TIE_RTOL |min|`` of the minimum of ``v[:n]``."""
    cdef int i, arg = 0
    cdef double best = INFINITY
    for i in range(n):
        if v[i] < best:
            best = v[i]
            arg = i
    for i in range(n):
        if v[i] - best <= TIE_RTOL * fabs(best):
            return i
    return arg


cdef inline double _golden_f(double k12, double a1, double a2, double h) noexcept nogil:
    return -(a1 * pow(k12, (1.0 - h) * (1.0 - h)) + a2 * pow(k12, h * h))


cdef double golden_section(double k12, double a1, double a2, double a, double b,
                           double tol) noexcept nogil:
    """bsgd.cpp:381-416: minimise ``-(a1 k12^((1-h)^2) + a2 k12^(h^2))`` on ``[a, b]``
    until the bracket is shorter than ``2 tol``; its midpoint."""
    cdef double gold = (sqrt(5.0) - 1.0) / 2.0
    cdef double p = b - gold * (b - a)
    cdef double q = a + gold * (b - a)
    cdef double fp = _golden_f(k12, a1, a2, p)
    cdef double fq = _golden_f(k12, a1, a2, q)
    while (b - a) >= 2.0 * tol:
        if fp <= fq:
            b = q
            q = p
            fq = fp
            p = b - gold * (b - a)
            fp = _golden_f(k12, a1, a2, p)
        else:
            a = p
            p = q
            fp = fq
            q = a + gold * (b - a)
            fq = _golden_f(k12, a1, a2, q)
    return (a + b) / 2.0


# how the merge weights a1, a2 are formed
cdef enum:
    WEIGHTS_PAPER = 0          # classes whose alpha_m + alpha_n cancels are left out
    WEIGHTS_CODE = 1           # BudgetedSVM: a zero denominator becomes 0.0001
    WEIGHTS_CODE_BINARY = 2    # BudgetedSVM on a binary problem: its two classes, whose
                               # coefficients are opposite, computed from one


cdef double pair_merge(const double* am, const double* an, int c, double k12, int mode,
                       double* h_out, double* kz1_out, double* kz2_out) noexcept nogil:
    """Merge of the pair (m, n) as computeKmax evaluates it (bsgd.cpp:440-490): the merge
    weights ``a1 = sum_i m^(i)``, ``a2 = sum_i (1 - m^(i))`` ([P] Eq. 6.7), the bracket
    from their signs, ``h`` by the golden section, ``k_mz = k12^((1-h)^2)``,
    ``k_nz = k12^(h^2)``; returns ``sum_i a_m^2 + a_n^2 + 2 k12 a_m a_n - a_z^2`` with
    ``a_z = a_m k_mz + a_n k_nz`` ([P] Eq. 6.8 with ``k(x, x) = 1``)."""
    cdef int i
    cdef double a1 = 0.0, a2 = 0.0, d, scale = 0.0, lo, hi, h, kz1, kz2, za, loss
    cdef bint used = False
    if mode == WEIGHTS_PAPER:
        for i in range(c):
            if fabs(am[i]) + fabs(an[i]) > scale:
                scale = fabs(am[i]) + fabs(an[i])
    for i in range(c):
        d = am[i] + an[i]
        if mode == WEIGHTS_PAPER:
            if fabs(d) <= CANCEL_TOL * scale:
                continue
            used = True
        elif d == 0.0:
            if mode == WEIGHTS_CODE_BINARY:
                continue                # the two classes' a/0.0001 cancel exactly
            d = 0.0001
        a1 += am[i] / d
        a2 += an[i] / d
    if mode == WEIGHTS_PAPER and not used:
        a1 = 1.0                        # a pair that cancels: a dipole, h in [1, 6]
        a2 = -1.0
    # the two classes give twice these sums, which scales the search's values by 2
    # exactly and changes none of its comparisons
    if a1 * a2 > 0.0:
        lo = 0.0
        hi = 1.0
    elif a1 > 0.0:
        lo = 1.0
        hi = 6.0
    else:
        lo = -5.0
        hi = 0.0
    h = golden_section(k12, a1, a2, lo, hi, GOLDEN_TOL)
    kz1 = pow(k12, (1.0 - h) * (1.0 - h))
    kz2 = pow(k12, h * h)
    loss = 0.0
    for i in range(c):
        za = am[i] * kz1 + an[i] * kz2
        loss += am[i] * am[i] + an[i] * an[i] + 2.0 * k12 * am[i] * an[i] - za * za
    h_out[0] = h
    kz1_out[0] = kz1
    kz2_out[0] = kz2
    return loss


cdef double merge_degradation(const double* am, const double* an, const double* az, int c,
                              double k12, double kmz, double knz) noexcept nogil:
    """``||Delta||^2 = sum_i ||a_m Phi(x_m) + a_n Phi(x_n) - a_z Phi(z)||^2`` from kernel
    values (Gaussian: ``k(x, x) = 1``), in the oracle's order of operations."""
    cdef int i
    cdef double out = 0.0
    for i in range(c):
        out += (am[i] * am[i] + an[i] * an[i] + 2.0 * am[i] * an[i] * k12
                - 2.0 * az[i] * (am[i] * kmz + an[i] * knz) + az[i] * az[i])
    return out


cdef inline double gauss(double gamma, const double* a, const double* b, int d) noexcept nogil:
    """``exp(-gamma ||a - b||^2)`` of two dense vectors."""
    cdef int j
    cdef double acc = 0.0, v
    for j in range(d):
        v = a[j] - b[j]
        acc += v * v
    return exp(-gamma * acc)


cdef inline bint rounds_to_one(double k) noexcept nogil:
    return <long long> (k * DUP_SCALE + 0.5) == 100000000


cdef class _StepLog:
    """One run's record of the maintenance steps (at most one a round) and of the running
    average ``E`` of ``||E_t||`` (one value a round)."""
    cdef long long n, cap, t0
    cdef long long* rounds
    cdef int* kinds
    cdef double* sqd
    cdef double* sqd_removal
    cdef double* gerr
    cdef double* E
    cdef object arrays

    def __init__(self, long long n_rounds, long long t0):
        cdef long long[::1] r
        cdef int[::1] k
        cdef double[::1] a, b, c, e
        T = max(n_rounds, 1)
        self.arrays = (np.empty(T, np.int64), np.empty(T, np.intc), np.empty(T),
                       np.empty(T), np.empty(T), np.empty(T))
        r, k, a, b, c, e = self.arrays
        self.rounds = &r[0]
        self.kinds = &k[0]
        self.sqd = &a[0]
        self.sqd_removal = &b[0]
        self.gerr = &c[0]
        self.E = &e[0]
        self.n = 0
        self.cap = n_rounds
        self.t0 = t0

    cdef void step(self, long long t, int kind, double sqd, double removal,
                   double gerr) noexcept nogil:
        if self.n < self.cap:
            self.rounds[self.n] = t
            self.kinds[self.n] = kind
            self.sqd[self.n] = sqd
            self.sqd_removal[self.n] = removal
            self.gerr[self.n] = gerr
            self.n += 1

    cdef void running(self, long long t, double E) noexcept nogil:
        cdef long long i = t - self.t0 - 1
        if 0 <= i < self.cap:
            self.E[i] = E

    def extras(self, long long rounds_done):
        r, k, a, b, c, e = self.arrays
        n = self.n
        done = min(max(rounds_done, 0), self.cap)
        return {"maintenance_rounds": r[:n].copy(),
                "maintenance_kinds": [KINDS[i] for i in k[:n]],
                "degradations": a[:n].copy(),
                "removal_degradations": b[:n].copy(),
                "gradient_errors": c[:n].copy(),
                "E": e[:done].copy()}


cdef inline void rates(int rule, double lam, double eta, long long t, double* eta_t,
                       double* shrink) noexcept nogil:
    """Table 2: Pegasos ``1/(lam t)``, Norma ``eta/sqrt(t)``, margin Perceptron ``eta``;
    the shrink ``1 - eta_t lam`` (Pegasos: ``1 - 1/t``, as bsgd.h:94-99)."""
    if rule == RULE_PEGASOS:
        eta_t[0] = 1.0 / (<double> t * lam)
        shrink[0] = 1.0 - 1.0 / <double> t
    elif rule == RULE_NORMA:
        eta_t[0] = eta / sqrt(<double> t)
        shrink[0] = 1.0 - eta_t[0] * lam
    else:
        eta_t[0] = eta
        shrink[0] = 1.0


# ----------------------------------------------------------------------------------
# Binary BSGD
# ----------------------------------------------------------------------------------
# (A cdef class has one typed base and the two cores have different ones, so their
# parameter fields are declared in each; what does not touch the coefficients is in the
# module-level functions.)

cdef class BSGDCore(Learner):
    """Binary BSGD ([P] Section 3): ``f = sum_j alpha_j k(x_j, .)``, the coefficients in
    the support set.  Variant "budgetedsvm" runs BudgetedSVM's two-class model through
    ``alpha = alpha^(+1) - alpha^(-1)`` (its lambda acts as ``lam / 2`` on it)."""
    cdef public int B                # the learner's parameters (okl.params)
    cdef public int rule, maintenance
    cdef public bint bsvm            # variant="budgetedsvm"
    cdef public double lam, eta, U   # lam < 0: the rule's default
    cdef public double lam_eff       # the lambda the rounds use
    cdef public long long maintenance_steps, duplicate_steps
    cdef public double gerr_sum      # sum of ||E_t|| over the rounds learned
    cdef public double wsq           # ||w||^2 (rule "mp")
    cdef GramInverse ginv            # K_S^{-1} (maintenance "projection")
    cdef double* work                # B + 2 doubles: a kernel row, the inverse's beta
    cdef double* buf                 # 3 d doubles: x_m, x_n, z
    cdef int buf_d
    cdef bint logging
    cdef _StepLog log

    _state_fields = fields("maintenance_steps", "duplicate_steps", "gerr_sum", "wsq",
                           Field("inverse", get="_inverse_state", put="_put_inverse"))

    def __cinit__(self, *args, **kwargs):
        self.work = NULL
        self.buf = NULL
        self.buf_d = 0
        self.logging = False

    def __dealloc__(self):
        free(self.work)
        free(self.buf)

    def _setup(self):
        if self.lam < 0.0:
            self.lam_eff = 0.0 if self.rule == RULE_MP else 1e-4
        else:
            self.lam_eff = self.lam
        if self.bsvm:
            self.lam_eff = self.lam_eff * 0.5     # two classes at lam = binary at lam/2
        self.maintenance_steps = 0
        self.duplicate_steps = 0
        self.gerr_sum = 0.0
        self.wsq = 0.0
        self.ginv = (GramInverse(self.B + 1, False) if self.maintenance == MAINT_PROJECTION
                     else None)
        free(self.work)
        self.work = <double*> malloc((self.B + 2) * sizeof(double))
        if self.work == NULL:
            raise MemoryError("cannot allocate BSGD's work row")

    def _begin_log(self, long long n_rounds):
        self.log = _StepLog(n_rounds, self.t)
        self.logging = True

    def _log_extras(self):
        if self.log is None:
            return _StepLog(0, 0).extras(0)
        return self.log.extras(self.t - self.log.t0)

    def _inverse_state(self):
        return self.ginv

    def _put_inverse(self, value):
        self.ginv = value

    cdef double loss(self, double y, double f) noexcept nogil:
        return 1.0 - y * f if 1.0 - y * f > 0.0 else 0.0

    cdef int _buffers(self) noexcept nogil:
        if self.buf_d == self.d and self.buf != NULL:
            return 0
        if _grow(<void**> &self.buf, 3 * <size_t> self.d * sizeof(double)):
            return -1
        self.buf_d = self.d
        return 0

    cdef double _kself(self, int j) noexcept nogil:
        cdef Row r
        r.data = NULL
        r.indices = NULL
        r.nnz = 0
        r.l1norm = 0.0
        r.sqnorm = self.sv.sqnorm[j]
        return kernel_self(&self.sv.kp, &r)

    cdef double _f_at(self, int j) noexcept nogil:
        """``f(x_j)`` of the current coefficients (kernel row in ``work``)."""
        cdef Row r
        cdef int i
        cdef double out = 0.0
        self.sv.as_row(j, &r)
        self.sv.kernel_row_into(&r, self.work)
        for i in range(self.sv.n):
            out += self.sv.alpha[i] * self.work[i]
        return out

    cdef int _duplicate(self, const Row* x) noexcept nogil:
        """BudgetedSVM's twin of ``x`` among the support vectors (bsgd.cpp:778-795): the
        last one with a nonzero coefficient whose Gaussian kernel with ``x`` rounds to 1
        at 1e-8 (its own ``-g`` width; for another kernel BudgetedSVM's default
        ``g = 1/d``, ``exp(-||s - x||^2 / (2 d))``); -1 if none."""
        cdef int i, n = self.sv.n, out = -1
        cdef double k
        cdef bint gaussian = self.sv.kp.kind == KERNEL_GAUSSIAN
        if not gaussian:
            sq_dist_row(self.sv.X, self.sv.capacity, self.sv.sqnorm, n, self.d, x, self.work)
        for i in range(n):
            if self.sv.alpha[i] == 0.0:
                continue
            k = self.sv.krow[i] if gaussian else exp(-0.5 / self.d * self.work[i])
            if rounds_to_one(k):
                out = i
        return out

    cdef int _inverse_add(self, const Row* x, double kxx) noexcept nogil:
        """Border ``K_S^{-1}`` with the new vector (its kernel column in ``sv.krow``);
        a new vector in the span (Schur complement ``<= 1e-12 max(kxx, 1)``) refreshes
        the inverse by a pseudo-inverse, as the oracle does.  0, or -1 on failure."""
        cdef double s
        s = self.ginv.residual(self.sv.krow, kxx, self.work)
        if s <= SPAN_TOL * (kxx if kxx > 1.0 else 1.0):
            with gil:
                try:
                    _pinv_add(self.ginv, <double[:self.ginv.n + 1]> self.sv.krow, kxx)
                except Exception:
                    return -1
            return 0
        return 0 if self.ginv.add(self.sv.krow, kxx, self.work, s) >= 0 else -1

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef long long t = self.t
        cdef int n = self.sv.n, dup = -1
        cdef double eta_t, shrink, kxx, ge = 0.0, c, norm
        rates(self.rule, self.lam_eff, self.eta, t, &eta_t, &shrink)
        if self.bsvm and t == 1:
            # bsgd.cpp:724-738: alpha^(y) = 1, alpha^(other) = -1, no shrink
            if self.sv.add(x, 2.0 * y, t) < 0:
                self.error = 1
                return
            self._end_round(t, 0.0)
            return
        if not (1.0 - y * f > 0.0):
            if shrink != 1.0:
                self.sv.scale(shrink)
            self._ball()
            self._end_round(t, 0.0)
            return
        if self.bsvm and n + 1 > self.B and n > 0:
            dup = self._duplicate(x)
        if shrink != 1.0:
            self.sv.scale(shrink)
        kxx = kernel_self(&self.sv.kp, x)
        if self.rule == RULE_MP:
            self.wsq = (self.wsq * shrink * shrink + 2.0 * y * eta_t * shrink * f
                        + eta_t * eta_t * kxx)
        if self.maintenance == MAINT_PROJECTION:
            if self._inverse_add(x, kxx) != 0:
                self.error = 1
                return
        if self.sv.add(x, y * eta_t, t) < 0:
            self.error = 1
            return
        if self.sv.n > self.B:
            ge = self._maintain(dup, eta_t)
            if self.error:
                return
        self._ball()
        self._end_round(t, ge)

    cdef void _ball(self) noexcept nogil:
        """BMP: ``w <- min(1, U / ||w||) w`` ([P] Section 4, after line 8)."""
        cdef double norm, c
        if self.rule != RULE_MP or self.sv.n == 0:
            return
        norm = sqrt(self.wsq if self.wsq > 0.0 else 0.0)
        if norm > self.U:
            c = self.U / norm
            self.sv.scale(c)
            self.wsq = self.wsq * c * c

    cdef void _end_round(self, long long t, double ge) noexcept nogil:
        self.gerr_sum += ge
        if self.logging:
            self.log.running(t, self.gerr_sum / <double> t)

    cdef double _maintain(self, int dup, double eta_t) noexcept nogil:
        """One budget maintenance step on the ``B + 1`` vectors; returns ``||E_t||``."""
        cdef int n = self.sv.n, j, p, m, q, kind
        cdef double sqd, removal, ap, kpp, fp, best, loss, h, kz1, kz2, hb = 0.0
        cdef double kz1b = 0.0, kz2b = 0.0, k12 = 0.0, az, kmz, knz, fm = 0.0, fn = 0.0, fz, ge
        cdef double* a = self.sv.alpha
        cdef double* M
        cdef double* xm
        cdef double* xn
        cdef double* z
        cdef int ld, mode
        cdef Row r
        if self.maintenance == MAINT_REMOVAL:
            if dup >= 0:
                p = n - 1                               # bsgd.cpp:855-859
                kind = KIND_REMOVE_DUPLICATE
            else:
                for j in range(n):
                    self.work[j] = a[j] * a[j] * self._kself(j)
                p = smallest(self.work, n)
                kind = KIND_REMOVE
            kpp = self._kself(p)
            ap = a[p]
            sqd = ap * ap * kpp
            removal = sqd
            if self.rule == RULE_MP:
                fp = self._f_at(p)
                self.wsq = self.wsq - 2.0 * ap * fp + ap * ap * kpp
            self.sv.remove(p)
        elif self.maintenance == MAINT_PROJECTION:
            for j in range(n):
                self.work[j] = a[j] * a[j] * self._kself(j)
            p = smallest(self.work, n)
            kind = KIND_PROJECT
            M = self.ginv.M
            ld = self.ginv.capacity
            ap = a[p]
            q = p
            for j in range(n):
                if j != p:
                    a[j] += (-M[j + <Py_ssize_t> p * ld] / M[p + <Py_ssize_t> p * ld]) * ap
            sqd = ap * ap * (1.0 / M[p + <Py_ssize_t> p * ld])
            removal = ap * ap * self._kself(p)
            if self.rule == RULE_MP:
                self.wsq = self.wsq - ap * ap * (1.0 / M[p + <Py_ssize_t> p * ld])
            self.sv.remove(p)
            self.ginv.remove(p)
        else:
            if dup >= 0:                                # bsgd.cpp:898-905
                a[dup] = a[dup] + a[n - 1]
                self.sv.remove(n - 1)
                kind = KIND_MERGE_DUPLICATE
                sqd = 0.0
                removal = NAN
            else:
                if self._buffers() != 0:
                    self.error = 1
                    return 0.0
                for j in range(n):
                    self.work[j] = a[j] * a[j]
                m = smallest(self.work, n)
                self.sv.as_row(m, &r)
                self.sv.kernel_row_into(&r, self.work)   # k(x_m, x_j)
                mode = WEIGHTS_CODE_BINARY if self.bsvm else WEIGHTS_PAPER
                best = INFINITY
                q = -1
                for j in range(n):
                    if j == m:
                        continue
                    loss = pair_merge(&a[m], &a[j], 1, self.work[j], mode, &h, &kz1, &kz2)
                    if q < 0 or loss < best:
                        best = loss
                        q = j
                        hb = h
                        kz1b = kz1
                        kz2b = kz2
                        k12 = self.work[j]
                if self.rule == RULE_MP:
                    fm = 0.0
                    for j in range(n):
                        fm += a[j] * self.work[j]
                    fn = self._f_at(q)
                self._merge_point(m, q, hb, &r)
                z = self.buf + 2 * self.d
                az = a[m] * kz1b + a[q] * kz2b            # with the unclipped h
                xm = self.buf
                xn = self.buf + self.d
                kmz = gauss(self.sv.kp.gamma, xm, z, self.d)
                knz = gauss(self.sv.kp.gamma, xn, z, self.d)
                sqd = merge_degradation(&a[m], &a[q], &az, 1, k12, kmz, knz)
                removal = a[m] * a[m]
                if self.rule == RULE_MP:
                    self.sv.kernel_row_into(&r, self.work)
                    fz = 0.0
                    for j in range(n):
                        fz += a[j] * self.work[j]
                    # ||w + D||^2, D = a_z Phi(z) - a_m Phi(x_m) - a_n Phi(x_n)
                    self.wsq = self.wsq + sqd + 2.0 * (az * fz - a[m] * fm - a[q] * fn)
                self.sv.replace(m, &r, az, self.sv.stamp[m])
                self.sv.remove(q)
                kind = KIND_MERGE
        if kind == KIND_MERGE_DUPLICATE or kind == KIND_REMOVE_DUPLICATE:
            self.duplicate_steps += 1
        self.maintenance_steps += 1
        ge = sqrt(sqd if sqd > 0.0 else 0.0) / eta_t
        if self.logging:
            self.log.step(self.t, kind, sqd, removal, ge)
        return ge

    cdef void _merge_point(self, int m, int n, double h, Row* out) noexcept nogil:
        """``z = h x_m + (1 - h) x_n`` into ``buf`` (``x_m``, ``x_n`` beside it), ``h``
        clipped to 0 when negative in variant "budgetedsvm" (bsgd.cpp:492-493): a dense
        ``Row`` over ``z``."""
        merge_point(self.sv.X, self.sv.capacity, self.d, m, n,
                    0.0 if (self.bsvm and h < 0.0) else h, self.buf, out)


cdef void merge_point(const double* X, int ld, int d, int m, int n, double h, double* buf,
                      Row* out) noexcept nogil:
    """``buf = [x_m, x_n, z]`` with ``z = h x_m + (1 - h) x_n``; ``out`` a dense row over
    ``z``."""
    cdef int j
    cdef double* xm = buf
    cdef double* xn = buf + d
    cdef double* z = buf + 2 * d
    cdef double sq = 0.0, l1 = 0.0
    for j in range(d):
        xm[j] = X[m + <Py_ssize_t> j * ld]
        xn[j] = X[n + <Py_ssize_t> j * ld]
        z[j] = h * xm[j] + (1.0 - h) * xn[j]
        sq += z[j] * z[j]
        l1 += fabs(z[j])
    out.data = z
    out.indices = NULL
    out.nnz = d
    out.sqnorm = sq
    out.l1norm = l1


def _pinv_add(GramInverse g, const double[::1] k, double kxx):
    """Append a vector in the span of the dictionary: ``K_S`` bordered by ``k`` and
    ``kxx``, and ``M`` its pseudo-inverse (numpy's ``pinv``, the oracle's)."""
    cdef int n = g.n, i, j, ld
    full = np.empty((n + 1, n + 1))
    full[:n, :n] = g.gram
    full[:n, n] = np.asarray(k[:n])
    full[n, :n] = np.asarray(k[:n])
    full[n, n] = kxx
    P = np.linalg.pinv(full)
    if g.make_room() != 0:
        raise MemoryError("the projection's inverse is full")
    ld = g.capacity
    for j in range(n + 1):
        for i in range(n + 1):
            g.K[i + <Py_ssize_t> j * ld] = full[i, j]
            g.M[i + <Py_ssize_t> j * ld] = P[i, j]
    g.n = n + 1


# ----------------------------------------------------------------------------------
# Multiclass BSGD (Crammer-Singer)
# ----------------------------------------------------------------------------------

cdef class MulticlassBSGDCore(MulticlassCore):
    """Multiclass BSGD ([P] Section 5): ``f_c = sum_j A[j, c] k(x_j, .)``; the update
    ``+eta_t`` at ``y``, ``-eta_t`` at the best wrong class ``r``; maintenance acts on
    whole rows of ``A``."""
    cdef public int B
    cdef public int rule, maintenance
    cdef public bint bsvm
    cdef public double lam, eta, U
    cdef public double lam_eff
    cdef public long long maintenance_steps, duplicate_steps
    cdef public double gerr_sum
    cdef public double wsq
    cdef GramInverse ginv
    cdef double* work                # B + 2 doubles
    cdef double* buf                 # 3 d doubles
    cdef int buf_d
    cdef double* dense               # 5 K doubles: a_m, a_n, a_z, scores, best a_n
    cdef int dense_k
    cdef bint logging
    cdef _StepLog log

    _state_fields = fields("maintenance_steps", "duplicate_steps", "gerr_sum", "wsq",
                           Field("inverse", get="_inverse_state", put="_put_inverse"))

    def __cinit__(self, *args, **kwargs):
        self.work = NULL
        self.buf = NULL
        self.buf_d = 0
        self.dense = NULL
        self.dense_k = 0
        self.logging = False

    def __dealloc__(self):
        free(self.work)
        free(self.buf)
        free(self.dense)

    def _setup(self):
        if self.lam < 0.0:
            self.lam_eff = 0.0 if self.rule == RULE_MP else 1e-4
        else:
            self.lam_eff = self.lam
        self.maintenance_steps = 0
        self.duplicate_steps = 0
        self.gerr_sum = 0.0
        self.wsq = 0.0
        self.ginv = (GramInverse(self.B + 1, False) if self.maintenance == MAINT_PROJECTION
                     else None)
        free(self.work)
        self.work = <double*> malloc((self.B + 2) * sizeof(double))
        if self.work == NULL:
            raise MemoryError("cannot allocate BSGD's work row")

    def _set_classes(self, int K):
        MulticlassCore._set_classes(self, K)
        if _grow(<void**> &self.dense, 5 * <size_t> K * sizeof(double)):
            raise MemoryError("cannot allocate BSGD's class buffers")
        self.dense_k = K

    def _begin_log(self, long long n_rounds):
        self.log = _StepLog(n_rounds, self.t)
        self.logging = True

    def _log_extras(self):
        if self.log is None:
            return _StepLog(0, 0).extras(0)
        return self.log.extras(self.t - self.log.t0)

    def _inverse_state(self):
        return self.ginv

    def _put_inverse(self, value):
        self.ginv = value

    cdef int _buffers(self) noexcept nogil:
        if self.buf_d == self.d and self.buf != NULL:
            return 0
        if _grow(<void**> &self.buf, 3 * <size_t> self.d * sizeof(double)):
            return -1
        self.buf_d = self.d
        return 0

    cdef double _kself(self, int j) noexcept nogil:
        cdef Row r
        r.data = NULL
        r.indices = NULL
        r.nnz = 0
        r.l1norm = 0.0
        r.sqnorm = self.sv.sqnorm[j]
        return kernel_self(&self.sv.kp, &r)

    cdef void _row_dense(self, int i, double* out) noexcept nogil:
        """``out[c] = A[i, c]`` for every class."""
        cdef int j, b = i * self.m
        memset(out, 0, self.K * sizeof(double))
        for j in range(self.nnz[i]):
            out[self.cls[b + j]] = self.val[b + j]

    cdef void _scores_from(self, const double* krow, double* out) noexcept nogil:
        """``out[c] = sum_j A[j, c] krow[j]``."""
        cdef int i, j, b
        memset(out, 0, self.K * sizeof(double))
        for i in range(self.sv.n):
            b = i * self.m
            for j in range(self.nnz[i]):
                out[self.cls[b + j]] += self.val[b + j] * krow[i]

    cdef double _dot_at(self, int j, const double* a) noexcept nogil:
        """``sum_c a[c] f_c(x_j)`` (kernel row of ``x_j`` into ``work``)."""
        cdef Row r
        cdef int c
        cdef double out = 0.0
        cdef double* f = self.dense + 3 * self.K
        self.sv.as_row(j, &r)
        self.sv.kernel_row_into(&r, self.work)
        self._scores_from(self.work, f)
        for c in range(self.K):
            out += a[c] * f[c]
        return out

    cdef int _duplicate(self, const Row* x) noexcept nogil:
        """As ``BSGDCore._duplicate``, in BudgetedSVM's order of discovery: class by
        class, vector by vector, a vector found at its first class with a nonzero
        coefficient; the last one found wins."""
        cdef int i, j, b, c, first, n = self.sv.n, out = -1
        cdef long long key, best = -1
        cdef double k
        cdef bint gaussian = self.sv.kp.kind == KERNEL_GAUSSIAN
        if not gaussian:
            sq_dist_row(self.sv.X, self.sv.capacity, self.sv.sqnorm, n, self.d, x, self.work)
        for i in range(n):
            first = self.K
            b = i * self.m
            for j in range(self.nnz[i]):
                c = self.cls[b + j]
                if self.val[b + j] != 0.0 and c < first:
                    first = c
            if first == self.K:
                continue
            k = self.sv.krow[i] if gaussian else exp(-0.5 / self.d * self.work[i])
            if rounds_to_one(k):
                key = <long long> first * n + i
                if key > best:
                    best = key
                    out = i
        return out

    cdef int _inverse_add(self, const Row* x, double kxx) noexcept nogil:
        cdef double s
        s = self.ginv.residual(self.sv.krow, kxx, self.work)
        if s <= SPAN_TOL * (kxx if kxx > 1.0 else 1.0):
            with gil:
                try:
                    _pinv_add(self.ginv, <double[:self.ginv.n + 1]> self.sv.krow, kxx)
                except Exception:
                    return -1
            return 0
        return 0 if self.ginv.add(self.sv.krow, kxx, self.work, s) >= 0 else -1

    cdef double mc_loss(self, int y) noexcept nogil:
        cdef double v = 1.0 + self.s[self.best(y)] - self.s[y]
        return v if v > 0.0 else 0.0

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef long long t = self.t
        cdef int n = 0 if self.sv is None else self.sv.n, dup = -1, i, r
        cdef double eta_t, shrink, kxx, ge = 0.0, margin
        rates(self.rule, self.lam_eff, self.eta, t, &eta_t, &shrink)
        if self.bsvm and t == 1:
            # bsgd.cpp:724-738: alpha^(y) = 1, alpha^((y + 1) mod K) = -1, no shrink
            if first_example(self, x, y) < 0:
                return
            self._end_round(t, 0.0)
            return
        r = self.best(y)
        margin = 1.0 + self.s[r] - self.s[y]
        if not (margin > 0.0):
            if shrink != 1.0:
                self.scale_coefs(shrink)
            self._ball()
            self._end_round(t, 0.0)
            return
        if self.bsvm and n + 1 > self.B and n > 0:
            dup = self._duplicate(x)
        if shrink != 1.0:
            self.scale_coefs(shrink)
        kxx = kernel_self(&self.sv.kp, x)
        if self.rule == RULE_MP:
            self.wsq = (self.wsq * shrink * shrink
                        + 2.0 * eta_t * shrink * (self.s[y] - self.s[r])
                        + 2.0 * eta_t * eta_t * kxx)
        if self.maintenance == MAINT_PROJECTION:
            if self._inverse_add(x, kxx) != 0:
                self.error = 1
                return
        i = self.add_vector(x)
        if i < 0:
            return
        self.add_coef(i, y, eta_t)
        self.add_coef(i, r, -eta_t)
        if self.error:
            return
        if self.sv.n > self.B:
            ge = self._maintain(dup, eta_t)
            if self.error:
                return
        self._ball()
        self._end_round(t, ge)

    cdef void _ball(self) noexcept nogil:
        cdef double norm, c
        if self.rule != RULE_MP or self.sv.n == 0:
            return
        norm = sqrt(self.wsq if self.wsq > 0.0 else 0.0)
        if norm > self.U:
            c = self.U / norm
            self.scale_coefs(c)
            self.wsq = self.wsq * c * c

    cdef void _end_round(self, long long t, double ge) noexcept nogil:
        self.gerr_sum += ge
        if self.logging:
            self.log.running(t, self.gerr_sum / <double> t)

    cdef double _maintain(self, int dup, double eta_t) noexcept nogil:
        cdef int n = self.sv.n, K = self.K, j, c, p, m, q, kind, b, ld, mode
        cdef double sqd, removal, kpp, best, loss, h, kz1, kz2, hb = 0.0
        cdef double kz1b = 0.0, kz2b = 0.0, k12 = 0.0, kmz, knz, ge, v = 0.0, inv_q, coef
        cdef double* am = self.dense
        cdef double* an = self.dense + K
        cdef double* az = self.dense + 2 * K
        cdef double* f = self.dense + 3 * K
        cdef double* anb = self.dense + 4 * K
        cdef double* M
        cdef Row r
        if self.maintenance == MAINT_REMOVAL:
            if dup >= 0:
                p = n - 1
                kind = KIND_REMOVE_DUPLICATE
            else:
                for j in range(n):
                    self.work[j] = self.row_sqnorm(j) * self._kself(j)
                p = smallest(self.work, n)
                kind = KIND_REMOVE
            kpp = self._kself(p)
            self._row_dense(p, am)
            sqd = 0.0
            for c in range(K):
                sqd += am[c] * am[c]
            sqd = sqd * kpp
            removal = sqd
            if self.rule == RULE_MP:
                self.wsq = self.wsq - 2.0 * self._dot_at(p, am) + sqd
            self.remove_row(p)
        elif self.maintenance == MAINT_PROJECTION:
            for j in range(n):
                self.work[j] = self.row_sqnorm(j) * self._kself(j)
            p = smallest(self.work, n)
            kind = KIND_PROJECT
            M = self.ginv.M
            ld = self.ginv.capacity
            self._row_dense(p, am)
            inv_q = M[p + <Py_ssize_t> p * ld]
            b = p * self.m
            for j in range(n):
                if j == p:
                    continue
                coef = -M[j + <Py_ssize_t> p * ld] / inv_q
                for c in range(K):
                    if am[c] != 0.0:
                        self.add_coef(j, c, coef * am[c])
                if self.error:
                    return 0.0
            v = 0.0
            for c in range(K):
                v += am[c] * am[c]
            sqd = v * (1.0 / inv_q)
            removal = v * self._kself(p)
            if self.rule == RULE_MP:
                self.wsq = self.wsq - sqd
            self.remove_row(p)
            self.ginv.remove(p)
        else:
            if dup >= 0:
                self._row_dense(n - 1, an)
                for c in range(K):
                    if an[c] != 0.0:
                        self.add_coef(dup, c, an[c])
                self.remove_row(n - 1)
                kind = KIND_MERGE_DUPLICATE
                sqd = 0.0
                removal = NAN
            else:
                if self._buffers() != 0:
                    self.error = 1
                    return 0.0
                for j in range(n):
                    self.work[j] = self.row_sqnorm(j)
                m = smallest(self.work, n)
                self._row_dense(m, am)
                self.sv.as_row(m, &r)
                self.sv.kernel_row_into(&r, self.work)
                mode = WEIGHTS_CODE if self.bsvm else WEIGHTS_PAPER
                best = INFINITY
                q = -1
                for j in range(n):
                    if j == m:
                        continue
                    self._row_dense(j, an)
                    loss = pair_merge(am, an, K, self.work[j], mode, &h, &kz1, &kz2)
                    if q < 0 or loss < best:
                        best = loss
                        q = j
                        hb = h
                        kz1b = kz1
                        kz2b = kz2
                        k12 = self.work[j]
                self._row_dense(q, an)
                for c in range(K):
                    az[c] = am[c] * kz1b + an[c] * kz2b    # with the unclipped h
                if self.rule == RULE_MP:
                    # <w, D>, D = a_z Phi(z) - a_m Phi(x_m) - a_n Phi(x_n); w before
                    v = 0.0
                    self._scores_from(self.work, f)        # f(x_m)
                    for c in range(K):
                        v -= am[c] * f[c]
                    v -= self._dot_at(q, an)
                merge_point(self.sv.X, self.sv.capacity, self.d, m, q,
                            0.0 if (self.bsvm and hb < 0.0) else hb, self.buf, &r)
                kmz = gauss(self.sv.kp.gamma, self.buf, self.buf + 2 * self.d, self.d)
                knz = gauss(self.sv.kp.gamma, self.buf + self.d, self.buf + 2 * self.d, self.d)
                sqd = merge_degradation(am, an, az, K, k12, kmz, knz)
                removal = 0.0
                for c in range(K):
                    removal += am[c] * am[c]
                if self.rule == RULE_MP:
                    self.sv.kernel_row_into(&r, self.work)
                    self._scores_from(self.work, f)        # f(z)
                    for c in range(K):
                        v += az[c] * f[c]
                    self.wsq = self.wsq + sqd + 2.0 * v
                self.sv.replace(m, &r, 0.0, self.sv.stamp[m])
                self.clear_row(m)
                for c in range(K):
                    if am[c] != 0.0 or an[c] != 0.0:
                        self.add_coef(m, c, az[c])
                if self.error:
                    return 0.0
                self.remove_row(q)
                kind = KIND_MERGE
        if kind == KIND_MERGE_DUPLICATE or kind == KIND_REMOVE_DUPLICATE:
            self.duplicate_steps += 1
        self.maintenance_steps += 1
        ge = sqrt(sqd if sqd > 0.0 else 0.0) / eta_t
        if self.logging:
            self.log.step(self.t, kind, sqd, removal, ge)
        return ge
