# cython: language_level=3
"""Typed cores of the kernel learners of LIBOKL's MATLAB multiclass toolbox (Lu, Hoi,
Wang, Zhao & Liu, *Large scale online kernel learning*, JMLR 17(47), 2016; the folder
``multiclass/`` of ``jingcoco/Online-Kernel-Learning``): OGD, RBP, Forgetron, BPAs, BOGD.
The learners and their departures from the binary papers: ``okl/learners/multiclass_budget.py``.

Every core keeps ``MulticlassCore``'s hypothesis: one support set, each example stored
once with a coefficient per class it touches (two for the max-score update: ``+`` on the
true class, ``-`` on the best wrong class ``s_t``), and one kernel row a round for the
``K`` scores.  The toolbox keeps a list per class instead, so it stores an example twice
and computes ``K`` kernel rows a round; the hypothesis is the same.

Every rule reads the round's scores left by ``class_scores``:

* prediction ``yhat`` = the first class of largest score (MATLAB's ``max``);
* ``s_t`` = the first class of largest score among the classes other than ``y``
  (``best(y)``); on a mistake it is ``yhat``;
* ``l_t = max(0, 1 - (f_y - f_{s_t}))``, the multiclass hinge loss (evaluated in that
  order, as the MATLAB line, so that ``l_t > 0`` decides the same rounds).

The budgeted cores whose removals follow the order of arrival (RBP, Forgetron, BOGD) keep
the support set in slots: a new example takes the slot of the one it replaces (O(d), no
shifting), and ``order`` lists the slots from the oldest; the removed position (oldest, or
a uniform draw over the arrival order, as the toolbox's ``SV_list``) is read there.
"""

from libc.math cimport fmax, fmin, sqrt, fabs, INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memmove

import numpy as np

from okl._core cimport Row, kernel_self
from okl._memory cimport _grow
from okl._learner import Field, fields
from okl.learners._multiclass cimport MulticlassCore


cdef inline double _hinge(const double* s, int y, int r) noexcept nogil:
    """``max(0, 1 - (s[y] - s[r]))``: the toolbox's ``l_t``, in its order of operations."""
    return fmax(0.0, 1.0 - (s[y] - s[r]))


# ----------------------------------------------------------------------------------
# OGD (ogd.m): kernel OGD on the multiclass hinge loss, unbounded
# ----------------------------------------------------------------------------------

cdef class MulticlassOGDCore(MulticlassCore):
    """``l_t > 0``: ``x`` joins the support set with ``+eta`` on ``y``, ``-eta`` on
    ``s_t``; with ``lam > 0`` every coefficient first decays by ``1 - eta lam`` (every
    round, NORMA's regularisation; the toolbox has ``lam = 0``)."""
    cdef public double eta, lam
    cdef public long long n_updates

    _state_fields = fields("n_updates")

    def _setup(self):
        self.n_updates = 0

    cdef double mc_loss(self, int y) noexcept nogil:
        return _hinge(self.s, y, self.best(y))

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r = self.best(y), i
        cdef double l = _hinge(self.s, y, r)
        if self.lam > 0.0:
            self.scale_coefs(1.0 - self.eta * self.lam)
        if not l > 0.0:
            return
        i = self.add_vector(x)
        if i < 0:
            return
        self.add_coef(i, y, self.eta)
        self.add_coef(i, r, -self.eta)
        self.n_updates += 1


# ----------------------------------------------------------------------------------
# The slots in order of arrival (RBP, Forgetron, BOGD)
# ----------------------------------------------------------------------------------

cdef class _ArrivalCore(MulticlassCore):
    """A budget of ``B`` slots and ``order``: the slots from the oldest example to the
    newest.  ``_append`` adds below the budget, ``_take(p)`` removes position ``p`` of
    the order (0: the oldest) and returns its slot, ``_renew(slot, x)`` puts ``x`` in it
    as the newest, with zero coefficients."""
    cdef public int B
    cdef int* order
    cdef int n_order

    def __cinit__(self, *args, **kwargs):
        self.order = NULL
        self.n_order = 0

    def __dealloc__(self):
        free(self.order)

    def _setup(self):
        free(self.order)
        self.order = <int*> malloc(max(self.B, 1) * sizeof(int))
        if self.order == NULL:
            raise MemoryError("cannot allocate the order of the support set")
        self.n_order = 0

    cdef int _append(self, const Row* x) noexcept nogil:
        cdef int i = self.add_vector(x)
        if i >= 0:
            self.order[self.n_order] = i
            self.n_order += 1
        return i

    cdef int _take(self, int p) noexcept nogil:
        cdef int slot = self.order[p]
        memmove(self.order + p, self.order + p + 1, (self.n_order - p - 1) * sizeof(int))
        self.n_order -= 1
        return slot

    cdef void _renew(self, int slot, const Row* x) noexcept nogil:
        self.sv.replace(slot, x, 0.0, self.t)
        self.clear_row(slot)
        self.order[self.n_order] = slot
        self.n_order += 1

    def _order_state(self):
        """The slots from the oldest support vector to the newest."""
        return np.array([self.order[i] for i in range(self.n_order)], dtype=np.int64)

    def _put_order(self, value):
        value = np.asarray(value, dtype=np.int64)
        if value.shape[0] > self.B:
            raise ValueError(f"the state orders {value.shape[0]} support vectors, the "
                             f"budget is {self.B}")
        for i in range(value.shape[0]):
            self.order[i] = value[i]
        self.n_order = value.shape[0]

    _state_fields = fields(Field("order", get="_order_state", put="_put_order"))


# ----------------------------------------------------------------------------------
# RBP (RBP.m): the Random Budget Perceptron, multiclass
# ----------------------------------------------------------------------------------

cdef class MulticlassRBPCore(_ArrivalCore):
    """On a mistake: below the budget ``x`` joins (``+1`` on ``y``, ``-1`` on ``s_t``);
    with ``B`` held one draw ``u`` removes position ``floor(u B)`` of the arrival order
    first (``randperm(B)(1)``), and ``x`` takes its slot."""
    cdef public long long removals

    _state_fields = _ArrivalCore._state_fields + fields("removals")

    def _setup(self):
        _ArrivalCore._setup(self)
        self.removals = 0

    cdef double mc_loss(self, int y) noexcept nogil:
        return fmax(0.0, self.s[self.best(y)] - self.s[y])

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r, i, p
        if self.yhat == y:
            return
        r = self.best(y)
        if self.sv.n < self.B:
            i = self._append(x)
            if i < 0:
                return
        else:
            p = <int> (self.uniform() * self.B)
            if p >= self.B:
                p = self.B - 1
            i = self._take(p)
            self._renew(i, x)
            self.removals += 1
        self.add_coef(i, y, 1.0)
        self.add_coef(i, r, -1.0)


# ----------------------------------------------------------------------------------
# Forgetron (forgetron.m): the self-tuned Forgetron, multiclass
# ----------------------------------------------------------------------------------

cdef inline double _phi_toolbox(double a, double b, double c) noexcept nogil:
    """forgetron.m lines 95-109: the root it takes (for ``a < 0`` the larger one, > 1);
    where it would take the square root of a negative number (``a > 0``, ``c > 0``:
    never met) the real part of its complex root."""
    cdef double disc
    if a == 0.0:
        return fmax(0.0, fmin(1.0, -c / b))
    if a + b + c <= 0.0:
        return 1.0
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return -b / (2.0 * a)
    if a > 0.0:
        return (-b + sqrt(disc)) / (2.0 * a)
    return (-b - sqrt(disc)) / (2.0 * a)


cdef inline double _phi_paper(double a, double b, double c) noexcept nogil:
    """The paper's ``max{phi in (0, 1] : a phi^2 + b phi + c <= 0}`` (``c < 0``): 1 if
    ``a + b + c <= 0``, else the smallest positive root ``-2c / (b + sqrt(b^2 - 4ac))``
    (okl's binary Forgetron)."""
    if a + b + c <= 0.0:
        return 1.0
    if a == 0.0:
        return fmax(0.0, fmin(1.0, -c / b))
    return fmax(0.0, -2.0 * c / (b + sqrt(fmax(b * b - 4.0 * a * c, 0.0))))


cdef class MulticlassForgetronCore(_ArrivalCore):
    """On a mistake ``M += 1`` and ``x`` joins (``+1`` on ``y``, ``-1`` on ``s_t``).  If
    that makes ``B + 1``: ``r`` = the oldest, ``mu = f'_{y_r}(x_r)`` (the score of ``r``'s
    true class by the model with ``x`` added), ``delta = |A[r, y_r]|``; ``phi`` from
    ``a phi^2 + b phi + c`` (``a = delta^2 - 2 delta mu``, ``b = 2 delta``,
    ``c = Q - 15/32 M``) by the toolbox's root or the paper's; every coefficient times
    ``phi``; ``Q += (delta phi)^2 + 2 delta phi (1 - phi mu)``; ``r`` removed (``x`` takes
    its slot)."""
    cdef public bint paper_root
    cdef public double Q
    cdef public long long M, removals, upscalings
    cdef int* ylab                 # the true class of the example in each slot
    cdef double* kbuf              # k(x_r, S)

    _state_fields = _ArrivalCore._state_fields + fields(
        Field("labels", get="_labels_state", put="_put_labels"),
        "Q", "M", "removals", "upscalings")

    def __cinit__(self, *args, **kwargs):
        self.ylab = NULL
        self.kbuf = NULL

    def __dealloc__(self):
        free(self.ylab)
        free(self.kbuf)

    def _setup(self):
        _ArrivalCore._setup(self)
        free(self.ylab)
        free(self.kbuf)
        self.ylab = <int*> malloc(max(self.B, 1) * sizeof(int))
        self.kbuf = <double*> malloc(max(self.B, 1) * sizeof(double))
        if self.ylab == NULL or self.kbuf == NULL:
            raise MemoryError("cannot allocate the Forgetron's work arrays")
        self.Q = 0.0
        self.M = 0
        self.removals = 0
        self.upscalings = 0

    cdef double mc_loss(self, int y) noexcept nogil:
        return fmax(0.0, self.s[self.best(y)] - self.s[y])

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r, i, n = self.sv.n, yr, slot
        cdef double mu, delta, a, b, c, phi, psi, anew, v
        cdef Row row
        if self.yhat == y:
            return
        r = self.best(y)
        self.M += 1
        if n < self.B:
            i = self._append(x)
            if i < 0:
                return
            self.ylab[i] = y
            self.add_coef(i, y, 1.0)
            self.add_coef(i, r, -1.0)
            return
        # B + 1 with x: forget the oldest.  mu = f'_{y_r}(x_r) over the B stored vectors
        # plus x's own coefficient on y_r times k(x, x_r) (the round's kernel row).
        slot = self.order[0]
        yr = self.ylab[slot]
        anew = 1.0 if yr == y else (-1.0 if yr == r else 0.0)
        self.sv.as_row(slot, &row)
        self.sv.kernel_row_into(&row, self.kbuf)
        mu = 0.0
        for i in range(n):
            v = self.coef(i, yr)
            if v != 0.0:
                mu += v * self.kbuf[i]
        mu += anew * self.sv.krow[slot]
        delta = fabs(self.coef(slot, yr))
        a = delta * delta - 2.0 * delta * mu
        b = 2.0 * delta
        c = self.Q - 15.0 / 32.0 * self.M
        phi = _phi_paper(a, b, c) if self.paper_root else _phi_toolbox(a, b, c)
        if phi != 1.0:
            self.scale_coefs(phi)
        if phi > 1.0:
            self.upscalings += 1
        psi = (delta * phi) * (delta * phi) + 2.0 * delta * phi * (1.0 - phi * mu)
        self.Q += psi
        self._take(0)
        self._renew(slot, x)
        self.ylab[slot] = y
        self.add_coef(slot, y, phi)
        self.add_coef(slot, r, -phi)
        self.removals += 1

    def _labels_state(self):
        return np.array([self.ylab[i] for i in range(0 if self.sv is None else self.sv.n)],
                        dtype=np.int64)

    def _put_labels(self, value):
        value = np.asarray(value, dtype=np.int64)
        for i in range(value.shape[0]):
            self.ylab[i] = value[i]


# ----------------------------------------------------------------------------------
# BOGD (BOGD.m): budgeted OGD, multiclass
# ----------------------------------------------------------------------------------

cdef class MulticlassBOGDCore(_ArrivalCore):
    """Every round the coefficients decay by ``1 - eta lam``.  ``l_t > 0``: below the
    budget ``x`` joins (``+eta`` on ``y``, ``-eta`` on ``s_t``); with ``B`` held one
    support vector is removed first -- the oldest (``uniform`` false, the toolbox) or
    position ``floor(u B)`` of the arrival order with the survivors times ``B / (B - 1)``
    (the paper) -- and after the addition every coefficient is clipped at ``eta gamma``
    from above (``symmetric``: to ``[-eta gamma, eta gamma]``)."""
    cdef public double eta, lam, gamma
    cdef public bint uniform_removal, symmetric
    cdef public long long n_updates, removals

    _state_fields = _ArrivalCore._state_fields + fields("n_updates", "removals")

    def _setup(self):
        _ArrivalCore._setup(self)
        self.n_updates = 0
        self.removals = 0

    cdef double mc_loss(self, int y) noexcept nogil:
        return _hinge(self.s, y, self.best(y))

    cdef void _clip(self) noexcept nogil:
        cdef double cap = self.eta * self.gamma
        cdef int i, j
        cdef double* v
        if not cap < INFINITY:
            return
        for i in range(self.sv.n):
            v = self.val + i * self.m
            for j in range(self.nnz[i]):
                if v[j] > cap:
                    v[j] = cap
                elif self.symmetric and v[j] < -cap:
                    v[j] = -cap

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r = self.best(y), i, p
        cdef double l = _hinge(self.s, y, r)
        if not l > 0.0:
            self.scale_coefs(1.0 - self.eta * self.lam)
            return
        self.n_updates += 1
        if self.sv.n < self.B:
            self.scale_coefs(1.0 - self.eta * self.lam)
            i = self._append(x)
            if i < 0:
                return
            self.add_coef(i, y, self.eta)
            self.add_coef(i, r, -self.eta)
            return
        if self.uniform_removal:
            p = <int> (self.uniform() * self.B)
            if p >= self.B:
                p = self.B - 1
            self.scale_coefs(self.B * (1.0 - self.lam * self.eta) / (self.B - 1))
        else:
            p = 0
            self.scale_coefs(1.0 - self.lam * self.eta)
        i = self._take(p)
        self._renew(i, x)
        self.removals += 1
        self.add_coef(i, y, self.eta)
        self.add_coef(i, r, -self.eta)
        self._clip()


# ----------------------------------------------------------------------------------
# BPAs (BPAs.m): budgeted passive-aggressive, simple removal, multiclass
# ----------------------------------------------------------------------------------

cdef class MulticlassBPAsCore(MulticlassCore):
    """``l_t > 0``: ``tau = min(C, l_t / (2 k(x, x)))``.  Below the budget ``x`` joins
    with ``+tau`` on ``y``, ``-tau`` on ``s_t``.  With ``B`` held, for every support
    vector ``r`` (coefficient row ``a_r``, ``k_rt = k(x_r, x)``) the candidate replacing
    it by ``x`` with the row ``beta = a_r k_rt / k(x, x) + tau (e_y - e_s)`` costs
    ``Q_r = ||f - f_r||^2 / 2 + C l(f_r)``, ``||f - f_r||^2 = |a_r|^2 k(x_r, x_r) +
    |beta|^2 k(x, x) - 2 (a_r . beta) k_rt`` and ``l(f_r)`` the hinge loss of the
    candidate's scores ``f - a_r k_rt + beta`` at ``x`` (its own best wrong class); the
    first ``r`` of least ``Q_r`` is replaced in place.  (``k(x, x) = 1``: the toolbox's
    formulas exactly.)"""
    cdef public int B
    cdef public double C
    cdef public long long n_updates, replacements
    cdef double* a                 # K: a dense coefficient row
    cdef double* bt                # K: its candidate beta

    _state_fields = fields("n_updates", "replacements")

    def __cinit__(self, *args, **kwargs):
        self.a = NULL
        self.bt = NULL

    def __dealloc__(self):
        free(self.a)
        free(self.bt)

    def _setup(self):
        self.n_updates = 0
        self.replacements = 0

    def _set_classes(self, int K):
        MulticlassCore._set_classes(self, K)
        if (_grow(<void**> &self.a, K * sizeof(double))
                or _grow(<void**> &self.bt, K * sizeof(double))):
            raise MemoryError("cannot allocate the BPA work arrays")

    cdef double mc_loss(self, int y) noexcept nogil:
        return _hinge(self.s, y, self.best(y))

    cdef double _candidate(self, int r, int y, int rival, double tau, double kxx,
                           double krr) noexcept nogil:
        """Fill ``a`` (row ``r``) and ``bt`` (its candidate); return ``Q_r``."""
        cdef int c, j, K = self.K, b = r * self.m
        cdef double krt = self.sv.krow[r], aa = 0.0, bb = 0.0, ab = 0.0, dist
        cdef double fy, fsec = 0.0, f
        cdef bint first = True
        for c in range(K):
            self.a[c] = 0.0
        for j in range(self.nnz[r]):
            self.a[self.cls[b + j]] = self.val[b + j]
        for c in range(K):
            self.bt[c] = self.a[c] * krt / kxx
        self.bt[y] += tau
        self.bt[rival] -= tau
        for c in range(K):
            aa += self.a[c] * self.a[c]
            bb += self.bt[c] * self.bt[c]
            ab += self.a[c] * self.bt[c]
        dist = aa * krr + bb * kxx - 2.0 * ab * krt
        fy = self.s[y] - self.a[y] * krt + self.bt[y]
        for c in range(K):
            if c == y:
                continue
            f = self.s[c] - self.a[c] * krt + self.bt[c]
            if first or f > fsec:
                fsec = f
                first = False
        return 0.5 * dist + self.C * fmax(0.0, 1.0 - (fy - fsec))

    cdef inline double _self_kernel(self, int i) noexcept nogil:
        """``k(x_i, x_i)`` of support vector ``i`` (from its cached norm)."""
        cdef Row row
        row.data = NULL
        row.indices = NULL
        row.nnz = 0
        row.sqnorm = self.sv.sqnorm[i]
        row.l1norm = self.sv.l1norm[i]
        return kernel_self(&self.kp, &row)

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r = self.best(y), i, n = self.sv.n, star = -1, c
        cdef double l = _hinge(self.s, y, r), tau, kxx, q, qstar = INFINITY
        if not l > 0.0:
            return
        self.n_updates += 1
        kxx = kernel_self(&self.kp, x)
        tau = fmin(self.C, l / (2.0 * kxx))
        if n < self.B:
            i = self.add_vector(x)
            if i < 0:
                return
            self.add_coef(i, y, tau)
            self.add_coef(i, r, -tau)
            return
        for i in range(n):
            q = self._candidate(i, y, r, tau, kxx, self._self_kernel(i))
            if q < qstar:
                qstar = q
                star = i
        if star < 0:                       # every Q_r NaN: nothing to compare
            return
        self._candidate(star, y, r, tau, kxx, self._self_kernel(star))
        self.sv.replace(star, x, 0.0, self.t)
        self.clear_row(star)
        for c in range(self.K):
            if self.bt[c] != 0.0:
                self.add_coef(star, c, self.bt[c])
        self.replacements += 1
