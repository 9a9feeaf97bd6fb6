# cython: language_level=3
"""Typed core of the multiclass Projectron and Projectron++ (Orabona, Keshet & Caputo,
*Bounded Kernel-Based Online Learning*, JMLR 10, 2009, the multiclass extension).

The hypothesis is ``MulticlassCore``'s: one support set, a coefficient per vector and class,
one kernel row ``k_S(x)`` a round for all ``K`` scores.  An update projects the
multiclass update vector ``Phi(x, y) - Phi(x, s)`` (``s`` the best wrong class) onto the
span of the support set; with the multi-prototype feature map this splits into the
projection of ``k(x, .)`` onto class ``y``'s span and onto class ``s``'s span.

Spans (``shared`` false: per class, the paper's and DOGMA's): class ``r``'s span is
``span{k(s_i, .) : i in S_r}``, ``S_r`` the support vectors whose row gave class ``r`` a
full (not projected) coefficient -- the ``members`` of the oracle
(``tests/oracles/multiclass_reference.py``).  Each class keeps ``K_{S_r} = L_r L_r^T``
in its own ``okl.GramCholesky`` and the list of its members (support indices, increasing:
nothing is ever removed).  With ``shared`` every class projects onto the span of the whole
support set: one factor, one projection a round.

A round costs, beside ``MulticlassCore``'s kernel row and scores: nothing more on a round
without update; on an update round no further kernel evaluation but ``k(x, x)`` (the
columns ``k_{S_r}(x)`` are gathered from the kernel row), a forward triangular solve
``c_r = L_r^{-1} k_{S_r}(x)`` for ``r = y`` and ``r = s`` (one when shared), giving
``res2_r = k(x, x) - ||c_r||^2``; a projected step adds the backward solve
``d_r = L_r^{-T} c_r`` per class (one when shared) and ``|S_y| + |S_s|`` coefficient
additions; adding ``x`` appends the row ``[c_r, sqrt(res2_r)]`` to each factor that takes
it (``O(|S_r|)``, no solve).  An added vector joins at most two class spans, so
``sum_r |S_r| <= 2 |S|`` and the per-class solves cost about ``8 |S|^2 / K^2`` against the
shared span's ``|S|^2`` when the classes are balanced.
"""

from cpython.ref cimport PyObject
from libc.math cimport sqrt, fmax, fmin
from libc.stdlib cimport free
from libc.string cimport memcpy

from scipy.linalg.cython_blas cimport ddot

from okl._core cimport Row, GramCholesky, kernel_self
from okl._memory cimport _grow
from okl._learner import Field, fields
from okl.learners._multiclass cimport MulticlassCore

import numpy as np

cdef extern from "../_vtri.h" nogil:
    void okl_trsv_lower(const double* L, int ld, int n, double* x)

cdef extern from "float.h":
    double DBL_EPSILON

# a squared residual <= RESIDUAL_RTOL * k(x, x) is exact dependence up to round-off (the
# rule of okl's binary Projectron and of the oracle); DOGMA tests res2 < DBL_EPSILON
cdef double RESIDUAL_RTOL = 1e-10

cdef int INC1 = 1

# initial capacity of a span's factor (grown by doubling)
cdef int SPAN_CAPACITY = 16


cdef class MulticlassProjectronCore(MulticlassCore):
    """Multiclass Projectron (``plus_plus`` false: updates on error rounds, margin
    ``f_y - f_s <= 0``) and Projectron++ (also the projected step on margin errors,
    ``0 < f_y - f_s < 1``); ``dogma``: DOGMA's ``k_projectron2_multi_train`` rule (each
    class's squared residual against ``eta``, per-class spans).  See the module
    docstring for the spans and the cost of a round."""
    cdef public double eta          # the learner's parameters (okl.params)
    cdef public bint shared         # span="shared"
    cdef public bint dogma          # convention="dogma"
    cdef public bint plus_plus      # set by MulticlassProjectronPP's _setup
    cdef public long long n_projected, n_added, n_margin
    cdef list grams                 # GramCholesky: one per class, or one (shared)
    cdef PyObject** gp              # borrowed pointers to grams' items (nogil access)
    cdef int n_spans
    cdef int** mem                  # per class: the support indices of its span
    cdef int* mem_n
    cdef int* mem_cap
    cdef double* buf                # 4 x buf_cap scratch: k_y, c_y, k_s, c_s
    cdef int buf_cap

    _state_fields = fields(Field("spans", get="_spans_state", put="_put_spans"),
                           "n_projected", "n_added", "n_margin")

    def __cinit__(self, *args, **kwargs):
        self.grams = []
        self.gp = NULL
        self.n_spans = 0
        self.mem = NULL
        self.mem_n = NULL
        self.mem_cap = NULL
        self.buf = NULL
        self.buf_cap = 0

    def __dealloc__(self):
        self._free_spans()
        free(self.gp)
        free(self.buf)

    cdef void _free_spans(self) noexcept:
        cdef int r
        if self.mem != NULL:
            for r in range(self.n_spans):
                free(self.mem[r])
        free(self.mem)
        free(self.mem_n)
        free(self.mem_cap)
        self.mem = NULL
        self.mem_n = NULL
        self.mem_cap = NULL

    def _alloc_spans(self, grams=None, members=None):
        """Empty spans for the current ``K`` (or the given factors and member lists)."""
        cdef int r, j, n
        cdef int n_spans = 0 if self.K < 2 else (1 if self.shared else self.K)
        self._free_spans()
        free(self.gp)
        self.gp = NULL
        self.grams = []
        self.n_spans = 0
        if n_spans == 0:
            return
        if grams is None:
            grams = [GramCholesky(SPAN_CAPACITY, True) for _ in range(n_spans)]
        if len(grams) != n_spans:
            raise ValueError(f"the state holds {len(grams)} span factors, the learner "
                             f"needs {n_spans}")
        self.grams = list(grams)
        if (_grow(<void**> &self.gp, n_spans * sizeof(PyObject*))
                or _grow(<void**> &self.mem, n_spans * sizeof(int*))
                or _grow(<void**> &self.mem_n, n_spans * sizeof(int))
                or _grow(<void**> &self.mem_cap, n_spans * sizeof(int))):
            raise MemoryError("cannot allocate the Projectron's spans")
        for r in range(n_spans):
            self.gp[r] = <PyObject*> self.grams[r]
            self.mem[r] = NULL
            self.mem_n[r] = 0
            self.mem_cap[r] = 0
        self.n_spans = n_spans
        if self.shared:
            return
        for r in range(n_spans):
            idx = (np.zeros(0, dtype=np.intc) if members is None
                   else np.ascontiguousarray(members[r], dtype=np.intc))
            n = idx.shape[0]
            if n != (<GramCholesky> self.gp[r]).n:
                raise ValueError(f"class {r}: {n} members for a factor of size "
                                 f"{(<GramCholesky> self.gp[r]).n}")
            if self._reserve_members(r, n) != 0:
                raise MemoryError("cannot allocate the Projectron's spans")
            for j in range(n):
                self.mem[r][j] = idx[j]
            self.mem_n[r] = n

    def _set_classes(self, int K):
        MulticlassCore._set_classes(self, K)
        self._alloc_spans()

    def _setup(self):
        self.n_projected = 0
        self.n_added = 0
        self.n_margin = 0
        self._alloc_spans()

    cdef int _reserve_members(self, int r, int need) noexcept nogil:
        cdef int cap = self.mem_cap[r] if self.mem_cap[r] > 0 else SPAN_CAPACITY
        if need <= self.mem_cap[r]:
            return 0
        while cap < need:
            cap *= 2
        if _grow(<void**> &self.mem[r], cap * sizeof(int)):
            return -1
        self.mem_cap[r] = cap
        return 0

    cdef inline PyObject* _gram(self, int r) noexcept nogil:
        """Class ``r``'s factor, borrowed (cast it to ``GramCholesky`` where used: a
        typed local would need the GIL for its reference count)."""
        return self.gp[0 if self.shared else r]

    # -- the round ------------------------------------------------------------------

    cdef double mc_loss(self, int y) noexcept nogil:
        cdef double m = self.s[y] - self.s[self.best(y)]
        if self.plus_plus:
            return fmax(0.0, 1.0 - m)      # the hinge loss of Projectron++
        return fmax(0.0, -m)               # the Perceptron loss

    cdef double _project(self, int r, double kxx, double* k, double* c) noexcept nogil:
        """Class ``r``'s span: ``k = k_{S_r}(x)`` gathered from the kernel row,
        ``c = L_r^{-1} k``; returns ``res2_r = max(k(x, x) - ||c||^2, 0)``."""
        cdef PyObject* g = self._gram(r)
        cdef int j, n = (<GramCholesky> g).n
        cdef const double* krow = self.sv.krow
        cdef int* idx
        if n == 0:
            return fmax(kxx, 0.0)
        if self.shared:
            memcpy(k, krow, n * sizeof(double))
        else:
            idx = self.mem[r]
            for j in range(n):
                k[j] = krow[idx[j]]
        memcpy(c, k, n * sizeof(double))
        okl_trsv_lower((<GramCholesky> g).M, (<GramCholesky> g).capacity, n, c)
        return fmax(kxx - ddot(&n, c, &INC1, c, &INC1), 0.0)

    cdef void _solve_d(self, int r, double* c) noexcept nogil:
        """``c -> d = L_r^{-T} c`` (``= K_{S_r}^{-1} k_{S_r}(x)``, the projection's
        coefficients)."""
        cdef PyObject* g = self._gram(r)
        if (<GramCholesky> g).n > 0:
            (<GramCholesky> g).to_beta(c)

    cdef void _apply(self, int r, const double* d, double a) noexcept nogil:
        """``f_r += a P_r k(x, .)``: ``A[S_r, r] += a d``."""
        cdef int j, n = (<GramCholesky> self._gram(r)).n
        if self.shared:
            for j in range(n):
                self.add_coef(j, r, a * d[j])
        else:
            for j in range(n):
                self.add_coef(self.mem[r][j], r, a * d[j])

    cdef void _steps(self, int y, double* c_y, double a_y, int s, double* c_s,
                     double a_s) noexcept nogil:
        """The projected steps ``f_y += a_y P_y k(x, .)``, ``f_s += a_s P_s k(x, .)``
        (``a = 0``: that class does not move); one solve serves both when shared."""
        if self.shared:
            self._solve_d(y, c_y)
            self._apply(y, c_y, a_y)
            self._apply(s, c_y, a_s)
            return
        if a_y != 0.0:
            self._solve_d(y, c_y)
            self._apply(y, c_y, a_y)
        if a_s != 0.0:
            self._solve_d(s, c_s)
            self._apply(s, c_s, a_s)

    cdef int _join(self, int r, int i, double* k, double* c, double res2,
                   double kxx) noexcept nogil:
        """Support vector ``i`` joins class ``r``'s span (its factor gains the row
        ``[c, sqrt(res2)]``); 0, or -1 if out of memory."""
        cdef PyObject* g = self._gram(r)
        if (<GramCholesky> g).add(k, kxx, c, res2) < 0:
            return -1
        if self.shared:
            return 0
        if self._reserve_members(r, self.mem_n[r] + 1) != 0:
            return -1
        self.mem[r][self.mem_n[r]] = i
        self.mem_n[r] += 1
        return 0

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int rival = self.best(y), n = self.sv.n, i
        cdef double m = self.s[y] - self.s[rival]
        cdef double kxx, r2_y, r2_s, nd, loss, pu2, excess, cap, tau, tiny
        cdef double* k_y
        cdef double* c_y
        cdef double* k_s
        cdef double* c_s
        cdef bint proj_y, proj_s, adds, ok
        if m > 0.0 and not (self.plus_plus and m < 1.0):
            return
        if n + 1 > self.buf_cap:
            if _grow(<void**> &self.buf, 4 * (<size_t> (2 * n + 2)) * sizeof(double)):
                self.error = 1
                return
            self.buf_cap = 2 * n + 2
        k_y = self.buf
        c_y = self.buf + self.buf_cap
        k_s = self.buf + 2 * self.buf_cap
        c_s = self.buf + 3 * self.buf_cap
        kxx = kernel_self(&self.kp, x)
        r2_y = self._project(y, kxx, k_y, c_y)
        # shared: one projection serves both classes (k_s, c_s unused)
        r2_s = r2_y if self.shared else self._project(rival, kxx, k_s, c_s)
        nd = sqrt(r2_y + r2_s)
        if m > 0.0:                     # Projectron++ margin error: never adds
            loss = 1.0 - m
            pu2 = (kxx - r2_y) + (kxx - r2_s)
            if self.dogma:
                if not self.eta > 0.0:
                    return
                excess = loss - (r2_y + r2_s) / (2.0 * self.eta)
                ok = excess > 0.0 and pu2 > 0.0
                cap = 2.0 * excess
            else:
                ok = self.eta * loss > nd and pu2 > 0.0      # never with eta = 0
                cap = 2.0 * (loss - nd / self.eta) if ok else 0.0
            if not ok:
                return
            tau = fmin(fmin(loss / pu2, cap / pu2), 1.0)
            self._steps(y, c_y, tau, rival, c_s, -tau)
            self.n_margin += 1
            return
        if self.dogma:
            ok = r2_y <= self.eta and r2_s <= self.eta
            proj_y = ok or r2_y < DBL_EPSILON
            proj_s = ok or r2_s < DBL_EPSILON
            adds = r2_y > self.eta or r2_s > self.eta
        else:
            tiny = RESIDUAL_RTOL * kxx
            proj_y = r2_y <= tiny
            proj_s = r2_s <= tiny
            adds = nd > self.eta and not (proj_y and proj_s)
        if not adds:
            self._steps(y, c_y, 1.0, rival, c_s, -1.0)
            self.n_projected += 1
            return
        # x joins the support and the spans of the classes that take their full step; a
        # class numerically in its span (never when shared: both or neither) takes its
        # projected step.  The factors take the row [c, sqrt(res2)] before c becomes d.
        i = self.add_vector(x)
        if i < 0:
            return
        if not proj_y and self._join(y, i, k_y, c_y, r2_y, kxx) != 0:
            self.error = 1
            return
        if not self.shared and not proj_s and self._join(rival, i, k_s, c_s, r2_s,
                                                           kxx) != 0:
            self.error = 1
            return
        if proj_y or proj_s:
            self._steps(y, c_y, 1.0 if proj_y else 0.0, rival, c_s,
                        -1.0 if proj_s else 0.0)
        if not proj_y:
            self.add_coef(i, y, 1.0)
        if not proj_s:
            self.add_coef(i, rival, -1.0)
        self.n_added += 1

    # -- inspection and pickling ------------------------------------------------------

    def _spans_state(self):
        """``(factors, members)``: the ``GramCholesky`` of each span and, per class, the
        support indices of its span (``None`` when shared)."""
        cdef int r, j
        members = None
        if not self.shared and self.n_spans:
            members = [np.array([self.mem[r][j] for j in range(self.mem_n[r])],
                                dtype=np.int32) for r in range(self.n_spans)]
        return (list(self.grams), members)

    def _put_spans(self, value):
        grams, members = value
        self._alloc_spans(grams if grams else None, members)

    @property
    def spans(self):
        """The span factors: a ``GramCholesky`` per class (``span="class"``) or one for the
        whole support set (``span="shared"``)."""
        return list(self.grams)

    @property
    def members(self):
        """The ``|S| x K`` boolean matrix: support vector ``i`` is in class ``c``'s span
        (all true when shared)."""
        cdef int r, j
        cdef int n = 0 if self.sv is None else self.sv.n
        out = np.zeros((n, max(self.K, 0)), dtype=bool)
        if self.shared:
            out[:] = True
            return out
        for r in range(self.n_spans):
            for j in range(self.mem_n[r]):
                out[self.mem[r][j], r] = True
        return out
