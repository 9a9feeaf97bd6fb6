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

from okl._core cimport (Learner, Row, SupportSet, GramInverse, kernel_self, sq_dist_row,
                       KERNEL_GAUSSIAN)
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


cdef inline bint ball_shrink(double* wsq, double U, double* c) noexcept nogil:
    """BMP's projection on the ball of radius ``U`` ([P] Section 4): if ``||w|| > U``,
    the factor ``c = U / ||w||`` (``||w||^2`` in ``wsq``, updated to ``c^2`` times it)
    and True; else False (``w`` is in the ball)."""
    cdef double norm = sqrt(wsq[0] if wsq[0] > 0.0 else 0.0)
    if norm > U:
        c[0] = U / norm
        wsq[0] = wsq[0] * c[0] * c[0]
        return True
    return False


cdef inline double default_lam(int rule, double lam) noexcept nogil:
    """``lam``, or the rule's default when unset (``lam < 0``): 0 for BMP, else 1e-4."""
    if lam < 0.0:
        return 0.0 if rule == RULE_MP else 1e-4
    return lam


# ----------------------------------------------------------------------------------
# The maintenance step's parts, for one coefficient per vector (binary) or K (multiclass)
# ----------------------------------------------------------------------------------
# A cdef class has one typed base and the two cores have different ones (Learner,
# MulticlassCore), so their parameter fields are declared in each; what does not touch
# the coefficients' storage is here, once: the buffers and the step log (_Maintenance),
# the choice of the vector to remove or project and of the pair to merge, the merged
# vector and its degradation.  A vector's coefficients reach these functions as a dense
# row of ``c`` doubles (binary: ``&alpha[j]``, ``c = 1``).

cdef inline double kself(SupportSet sv, int j) noexcept nogil:
    """``k(x_j, x_j)`` of support vector ``j``."""
    cdef Row r
    r.data = NULL
    r.indices = NULL
    r.nnz = 0
    r.l1norm = 0.0
    r.sqnorm = sv.sqnorm[j]
    return kernel_self(&sv.kp, &r)


cdef inline double sq_norm(const double* a, int c) noexcept nogil:
    """``sum_i a[i]^2``."""
    cdef int i
    cdef double out = 0.0
    for i in range(c):
        out += a[i] * a[i]
    return out


cdef inline int least_degrading(SupportSet sv, double* w, int n) noexcept nogil:
    """Removal and projection: the vector to remove, ``smallest`` of
    ``||a_j||^2 k(x_j, x_j)`` (``w[j]`` holds ``||a_j||^2`` on entry, the product on
    exit)."""
    cdef int j
    for j in range(n):
        w[j] = w[j] * kself(sv, j)
    return smallest(w, n)


cdef struct MergeChoice:
    int q                  # the partner of the smallest vector m (-1: none yet)
    double loss            # its pair_merge value
    double h, kz1, kz2     # the golden-section h, k(x_m, z), k(x_q, z)
    double k12             # k(x_m, x_q)


cdef inline void merge_start(MergeChoice* mc) noexcept nogil:
    """No partner yet."""
    mc.q = -1
    mc.loss = INFINITY
    mc.h = 0.0
    mc.kz1 = 0.0
    mc.kz2 = 0.0
    mc.k12 = 0.0


cdef inline void merge_consider(MergeChoice* mc, int j, const double* am, const double* an,
                                int c, double k12, int mode) noexcept nogil:
    """Partner ``j`` (coefficients ``an``, ``k(x_m, x_j) = k12``) replaces the best so far
    if its merge loses less; the first of the least wins."""
    cdef double h, kz1, kz2
    cdef double loss = pair_merge(am, an, c, k12, mode, &h, &kz1, &kz2)
    if mc.q < 0 or loss < mc.loss:
        mc.loss = loss
        mc.q = j
        mc.h = h
        mc.kz1 = kz1
        mc.kz2 = kz2
        mc.k12 = k12


cdef double merged(SupportSet sv, int d, int m, const MergeChoice* mc, bint clip,
                   const double* am, const double* an, double* az, int c, double* buf,
                   Row* out) noexcept nogil:
    """The merge of ``m`` and ``q = mc.q``: ``az = am k_mz + an k_nz`` (with the unclipped
    ``h``), ``z = h x_m + (1 - h) x_q`` into ``buf`` (``x_m``, ``x_q`` beside it; ``h``
    clipped to 0 when negative with ``clip``, variant "budgetedsvm", bsgd.cpp:492-493)
    and ``out`` a dense row over ``z``; returns the degradation ``||Delta||^2``."""
    cdef int i
    cdef double kmz, knz
    for i in range(c):
        az[i] = am[i] * mc.kz1 + an[i] * mc.kz2
    merge_point(sv.X, sv.capacity, d, m, mc.q, 0.0 if (clip and mc.h < 0.0) else mc.h,
                buf, out)
    kmz = gauss(sv.kp.gamma, buf, buf + 2 * d, d)
    knz = gauss(sv.kp.gamma, buf + d, buf + 2 * d, d)
    return merge_degradation(am, an, az, c, mc.k12, kmz, knz)


cdef inline int twin_search(SupportSet sv, int d, const Row* x, double* work) noexcept nogil:
    """Before BudgetedSVM's twin test (``is_twin``): for a kernel other than the
    Gaussian, ``||s_i - x||^2`` into ``work``.  Whether the kernel is Gaussian."""
    cdef bint gaussian = sv.kp.kind == KERNEL_GAUSSIAN
    if not gaussian:
        sq_dist_row(sv.X, sv.capacity, sv.sqnorm, sv.n, d, x, work)
    return gaussian


cdef inline bint is_twin(SupportSet sv, int i, int d, bint gaussian,
                         const double* work) noexcept nogil:
    """BudgetedSVM's duplicate test (bsgd.cpp:778-795) of support vector ``i`` and the new
    example: its Gaussian kernel value (``sv.krow``; for another kernel BudgetedSVM's
    default ``g = 1/d``, ``exp(-||s - x||^2 / (2 d))``) rounds to 1 at 1e-8."""
    return rounds_to_one(sv.krow[i] if gaussian else exp(-0.5 / d * work[i]))


cdef class _Maintenance:
    """What a BSGD core keeps for its maintenance steps beside its coefficients:
    ``K_S^{-1}`` (maintenance "projection"), a work row, the merge's point buffers and
    the run's step log.  Not state: ``ginv`` is pickled by the core (its "inverse")."""
    cdef public GramInverse ginv     # K_S^{-1} (maintenance "projection"), else None
    cdef double* work                # B + 2 doubles: a kernel row, the inverse's beta
    cdef double* buf                 # 3 d doubles: x_m, x_n, z
    cdef int buf_d
    cdef bint logging
    cdef _StepLog log

    def __cinit__(self):
        self.work = NULL
        self.buf = NULL
        self.buf_d = 0
        self.logging = False

    def __dealloc__(self):
        free(self.work)
        free(self.buf)

    def setup(self, int maintenance, int B):
        self.ginv = GramInverse(B + 1, False) if maintenance == MAINT_PROJECTION else None
        free(self.work)
        self.work = <double*> malloc((B + 2) * sizeof(double))
        if self.work == NULL:
            raise MemoryError("cannot allocate BSGD's work row")

    def begin_log(self, long long n_rounds, long long t):
        self.log = _StepLog(n_rounds, t)
        self.logging = True

    def log_extras(self, long long t):
        if self.log is None:
            return _StepLog(0, 0).extras(0)
        return self.log.extras(t - self.log.t0)

    cdef int buffers(self, int d) noexcept nogil:
        """``buf`` for ``d`` features; 0, or -1 if out of memory."""
        if self.buf_d == d and self.buf != NULL:
            return 0
        if _grow(<void**> &self.buf, 3 * <size_t> d * sizeof(double)):
            return -1
        self.buf_d = d
        return 0

    cdef int inverse_add(self, SupportSet sv, double kxx) noexcept nogil:
        """Border ``K_S^{-1}`` with the new vector (its kernel column in ``sv.krow``);
        a new vector in the span (Schur complement ``<= 1e-12 max(kxx, 1)``) refreshes
        the inverse by a pseudo-inverse, as the oracle does.  0, or -1 on failure."""
        cdef double s
        s = self.ginv.residual(sv.krow, kxx, self.work)
        if s <= SPAN_TOL * (kxx if kxx > 1.0 else 1.0):
            with gil:
                try:
                    _pinv_add(self.ginv, <double[:self.ginv.n + 1]> sv.krow, kxx)
                except Exception:
                    return -1
            return 0
        return 0 if self.ginv.add(sv.krow, kxx, self.work, s) >= 0 else -1

    cdef void running(self, long long t, double gerr_sum) noexcept nogil:
        """The round's ``E = (1/t) sum_s ||E_s||``, to the log."""
        if self.logging:
            self.log.running(t, gerr_sum / <double> t)

    cdef double step(self, long long t, int kind, double sqd, double removal,
                     double eta_t) noexcept nogil:
        """The step's ``||E_t|| = sqrt(||Delta||^2) / eta_t``, logged with the step."""
        cdef double ge = sqrt(sqd if sqd > 0.0 else 0.0) / eta_t
        if self.logging:
            self.log.step(t, kind, sqd, removal, ge)
        return ge


# ----------------------------------------------------------------------------------
# Binary BSGD
# ----------------------------------------------------------------------------------

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
    cdef readonly _Maintenance mt    # the inverse, buffers and step log

    _state_fields = fields("maintenance_steps", "duplicate_steps", "gerr_sum", "wsq",
                           Field("inverse", "mt.ginv"))

    def __cinit__(self, *args, **kwargs):
        self.mt = _Maintenance()

    def _setup(self):
        self.lam_eff = default_lam(self.rule, self.lam)
        if self.bsvm:
            self.lam_eff = self.lam_eff * 0.5     # two classes at lam = binary at lam/2
        self.maintenance_steps = 0
        self.duplicate_steps = 0
        self.gerr_sum = 0.0
        self.wsq = 0.0
        self.mt.setup(self.maintenance, self.B)

    cdef double loss(self, double y, double f) noexcept nogil:
        return 1.0 - y * f if 1.0 - y * f > 0.0 else 0.0

    cdef double _f_at(self, int j) noexcept nogil:
        """``f(x_j)`` of the current coefficients (kernel row in ``mt.work``)."""
        cdef Row r
        cdef int i
        cdef double out = 0.0
        cdef double* work = self.mt.work
        self.sv.as_row(j, &r)
        self.sv.kernel_row_into(&r, work)
        for i in range(self.sv.n):
            out += self.sv.alpha[i] * work[i]
        return out

    cdef int _duplicate(self, const Row* x) noexcept nogil:
        """BudgetedSVM's twin of ``x`` among the support vectors (bsgd.cpp:778-795): the
        last one with a nonzero coefficient that ``is_twin``; -1 if none."""
        cdef int i, out = -1
        cdef bint gaussian = twin_search(self.sv, self.d, x, self.mt.work)
        for i in range(self.sv.n):
            if self.sv.alpha[i] != 0.0 and is_twin(self.sv, i, self.d, gaussian,
                                                   self.mt.work):
                out = i
        return out

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef long long t = self.t
        cdef int n = self.sv.n, dup = -1
        cdef double eta_t, shrink, kxx, ge = 0.0
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
            if self.mt.inverse_add(self.sv, kxx) != 0:
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
        cdef double c
        if self.rule == RULE_MP and self.sv.n > 0 and ball_shrink(&self.wsq, self.U, &c):
            self.sv.scale(c)

    cdef void _end_round(self, long long t, double ge) noexcept nogil:
        self.gerr_sum += ge
        self.mt.running(t, self.gerr_sum)

    cdef double _maintain(self, int dup, double eta_t) noexcept nogil:
        """One budget maintenance step on the ``B + 1`` vectors; returns ``||E_t||``."""
        cdef int n = self.sv.n, j, p, m, kind
        cdef double sqd, removal, ap, kpp, fp, inv_q, az, fm = 0.0, fn = 0.0, fz
        cdef double* a = self.sv.alpha
        cdef double* work = self.mt.work
        cdef double* M
        cdef int ld
        cdef MergeChoice mc
        cdef Row r
        if self.maintenance == MAINT_REMOVAL:
            if dup >= 0:
                p = n - 1                               # bsgd.cpp:855-859
                kind = KIND_REMOVE_DUPLICATE
            else:
                for j in range(n):
                    work[j] = a[j] * a[j]
                p = least_degrading(self.sv, work, n)
                kind = KIND_REMOVE
            kpp = kself(self.sv, p)
            ap = a[p]
            sqd = sq_norm(&a[p], 1) * kpp
            removal = sqd
            if self.rule == RULE_MP:
                fp = self._f_at(p)
                self.wsq = self.wsq - 2.0 * ap * fp + sqd
            self.sv.remove(p)
        elif self.maintenance == MAINT_PROJECTION:
            for j in range(n):
                work[j] = a[j] * a[j]
            p = least_degrading(self.sv, work, n)
            kind = KIND_PROJECT
            M = self.mt.ginv.M
            ld = self.mt.ginv.capacity
            ap = a[p]
            inv_q = M[p + <Py_ssize_t> p * ld]
            for j in range(n):
                if j != p:
                    a[j] += (-M[j + <Py_ssize_t> p * ld] / inv_q) * ap
            sqd = sq_norm(&ap, 1) * (1.0 / inv_q)
            removal = sq_norm(&ap, 1) * kself(self.sv, p)
            if self.rule == RULE_MP:
                self.wsq = self.wsq - sqd
            self.sv.remove(p)
            self.mt.ginv.remove(p)
        else:
            if dup >= 0:                                # bsgd.cpp:898-905
                a[dup] = a[dup] + a[n - 1]
                self.sv.remove(n - 1)
                kind = KIND_MERGE_DUPLICATE
                sqd = 0.0
                removal = NAN
            else:
                if self.mt.buffers(self.d) != 0:
                    self.error = 1
                    return 0.0
                for j in range(n):
                    work[j] = a[j] * a[j]
                m = smallest(work, n)
                self.sv.as_row(m, &r)
                self.sv.kernel_row_into(&r, work)   # k(x_m, x_j)
                merge_start(&mc)
                for j in range(n):
                    if j != m:
                        merge_consider(&mc, j, &a[m], &a[j], 1, work[j],
                                       WEIGHTS_CODE_BINARY if self.bsvm else WEIGHTS_PAPER)
                if self.rule == RULE_MP:
                    fm = 0.0
                    for j in range(n):
                        fm += a[j] * work[j]
                    fn = self._f_at(mc.q)
                sqd = merged(self.sv, self.d, m, &mc, self.bsvm, &a[m], &a[mc.q], &az, 1,
                             self.mt.buf, &r)
                removal = sq_norm(&a[m], 1)
                if self.rule == RULE_MP:
                    self.sv.kernel_row_into(&r, work)
                    fz = 0.0
                    for j in range(n):
                        fz += a[j] * work[j]
                    # ||w + D||^2, D = a_z Phi(z) - a_m Phi(x_m) - a_n Phi(x_n)
                    self.wsq = self.wsq + sqd + 2.0 * (az * fz - a[m] * fm - a[mc.q] * fn)
                self.sv.replace(m, &r, az, self.sv.stamp[m])
                self.sv.remove(mc.q)
                kind = KIND_MERGE
        if kind == KIND_MERGE_DUPLICATE or kind == KIND_REMOVE_DUPLICATE:
            self.duplicate_steps += 1
        self.maintenance_steps += 1
        return self.mt.step(self.t, kind, sqd, removal, eta_t)


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
    cdef readonly _Maintenance mt
    cdef double* dense               # 5 K doubles: a_m, a_n, a_z, scores, best a_n
    cdef int dense_k

    _state_fields = fields("maintenance_steps", "duplicate_steps", "gerr_sum", "wsq",
                           Field("inverse", "mt.ginv"))

    def __cinit__(self, *args, **kwargs):
        self.mt = _Maintenance()
        self.dense = NULL
        self.dense_k = 0

    def __dealloc__(self):
        free(self.dense)

    def _setup(self):
        self.lam_eff = default_lam(self.rule, self.lam)
        self.maintenance_steps = 0
        self.duplicate_steps = 0
        self.gerr_sum = 0.0
        self.wsq = 0.0
        self.mt.setup(self.maintenance, self.B)

    def _set_classes(self, int K):
        MulticlassCore._set_classes(self, K)
        if _grow(<void**> &self.dense, 5 * <size_t> K * sizeof(double)):
            raise MemoryError("cannot allocate BSGD's class buffers")
        self.dense_k = K

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
        """``sum_c a[c] f_c(x_j)`` (kernel row of ``x_j`` into ``mt.work``)."""
        cdef Row r
        cdef int c
        cdef double out = 0.0
        cdef double* f = self.dense + 3 * self.K
        self.sv.as_row(j, &r)
        self.sv.kernel_row_into(&r, self.mt.work)
        self._scores_from(self.mt.work, f)
        for c in range(self.K):
            out += a[c] * f[c]
        return out

    cdef int _duplicate(self, const Row* x) noexcept nogil:
        """As ``BSGDCore._duplicate``, in BudgetedSVM's order of discovery: class by
        class, vector by vector, a vector found at its first class with a nonzero
        coefficient; the last one found wins."""
        cdef int i, j, b, c, first, n = self.sv.n, out = -1
        cdef long long key, best = -1
        cdef bint gaussian = twin_search(self.sv, self.d, x, self.mt.work)
        for i in range(n):
            first = self.K
            b = i * self.m
            for j in range(self.nnz[i]):
                c = self.cls[b + j]
                if self.val[b + j] != 0.0 and c < first:
                    first = c
            if first == self.K:
                continue
            if is_twin(self.sv, i, self.d, gaussian, self.mt.work):
                key = <long long> first * n + i
                if key > best:
                    best = key
                    out = i
        return out

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
            if self.mt.inverse_add(self.sv, kxx) != 0:
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
        cdef double c
        if self.rule == RULE_MP and self.sv.n > 0 and ball_shrink(&self.wsq, self.U, &c):
            self.scale_coefs(c)

    cdef void _end_round(self, long long t, double ge) noexcept nogil:
        self.gerr_sum += ge
        self.mt.running(t, self.gerr_sum)

    cdef double _maintain(self, int dup, double eta_t) noexcept nogil:
        cdef int n = self.sv.n, K = self.K, j, c, p, m, kind, ld
        cdef double sqd, removal, kpp, v = 0.0, inv_q, coef
        cdef double* work = self.mt.work
        cdef double* am = self.dense
        cdef double* an = self.dense + K
        cdef double* az = self.dense + 2 * K
        cdef double* f = self.dense + 3 * K
        cdef double* M
        cdef MergeChoice mc
        cdef Row r
        if self.maintenance == MAINT_REMOVAL:
            if dup >= 0:
                p = n - 1
                kind = KIND_REMOVE_DUPLICATE
            else:
                for j in range(n):
                    work[j] = self.row_sqnorm(j)
                p = least_degrading(self.sv, work, n)
                kind = KIND_REMOVE
            kpp = kself(self.sv, p)
            self._row_dense(p, am)
            sqd = sq_norm(am, K) * kpp
            removal = sqd
            if self.rule == RULE_MP:
                self.wsq = self.wsq - 2.0 * self._dot_at(p, am) + sqd
            self.remove_row(p)
        elif self.maintenance == MAINT_PROJECTION:
            for j in range(n):
                work[j] = self.row_sqnorm(j)
            p = least_degrading(self.sv, work, n)
            kind = KIND_PROJECT
            M = self.mt.ginv.M
            ld = self.mt.ginv.capacity
            self._row_dense(p, am)
            inv_q = M[p + <Py_ssize_t> p * ld]
            for j in range(n):
                if j == p:
                    continue
                coef = -M[j + <Py_ssize_t> p * ld] / inv_q
                for c in range(K):
                    if am[c] != 0.0:
                        self.add_coef(j, c, coef * am[c])
                if self.error:
                    return 0.0
            sqd = sq_norm(am, K) * (1.0 / inv_q)
            removal = sq_norm(am, K) * kself(self.sv, p)
            if self.rule == RULE_MP:
                self.wsq = self.wsq - sqd
            self.remove_row(p)
            self.mt.ginv.remove(p)
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
                if self.mt.buffers(self.d) != 0:
                    self.error = 1
                    return 0.0
                for j in range(n):
                    work[j] = self.row_sqnorm(j)
                m = smallest(work, n)
                self._row_dense(m, am)
                self.sv.as_row(m, &r)
                self.sv.kernel_row_into(&r, work)
                merge_start(&mc)
                for j in range(n):
                    if j != m:
                        self._row_dense(j, an)
                        merge_consider(&mc, j, am, an, K, work[j],
                                       WEIGHTS_CODE if self.bsvm else WEIGHTS_PAPER)
                self._row_dense(mc.q, an)
                if self.rule == RULE_MP:
                    # <w, D>, D = a_z Phi(z) - a_m Phi(x_m) - a_n Phi(x_n); w before
                    v = 0.0
                    self._scores_from(work, f)             # f(x_m)
                    for c in range(K):
                        v -= am[c] * f[c]
                    v -= self._dot_at(mc.q, an)
                sqd = merged(self.sv, self.d, m, &mc, self.bsvm, am, an, az, K,
                             self.mt.buf, &r)
                removal = sq_norm(am, K)
                if self.rule == RULE_MP:
                    self.sv.kernel_row_into(&r, work)
                    self._scores_from(work, f)             # f(z)
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
                self.remove_row(mc.q)
                kind = KIND_MERGE
        if kind == KIND_MERGE_DUPLICATE or kind == KIND_REMOVE_DUPLICATE:
            self.duplicate_steps += 1
        self.maintenance_steps += 1
        return self.mt.step(self.t, kind, sqd, removal, eta_t)
