# cython: language_level=3
"""Typed core of online AMM, the adaptive multi-hyperplane machine (Wang, Djuric, Crammer
& Vucetic, *Trading representability for scalability: adaptive multi-hyperplane machine
for nonlinear classification*, KDD 2011, Algorithm 2 and Section 3.4), as the paper
writes it and as BudgetedSVM's ``budgetedsvm-train -A 2`` runs it (``trainAMMonline`` of
``mm_algs.cpp``).  The learner: ``okl/learners/amm.py``.

Class ``c`` owns hyperplanes ``w_{c,1..b_c}`` over ``[x, bias]``; ``g(c, x) = max_j
w_{c,j}' [x, bias]``.  Each hyperplane is ``w = deg v`` (BudgetedSVM's "degradation"):
the round's shrink is one multiplication per hyperplane, an update ``v += [x, bias] /
(+-deg / eta_t)`` touches the row's non-zeros only, and ``||v||^2`` is kept up to date
for the pruning.  Hyperplanes live in slots of one pool (``V``, ``D`` doubles each, freed
slots reused); each class lists its slots in order (``lst[c * lcap + j]``, ``cnt[c]`` of
them), the order that decides ties.
"""

from libc.math cimport INFINITY, fmax
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy, memset

import numpy as np

from okl._core cimport Row
from okl._learner import Field, fields
from okl._memory cimport _grow
from okl.learners._budgetedsvm cimport row_add, row_dot
from okl.learners._multiclass cimport MulticlassCore


cdef struct NormKey:
    double norm
    int c
    int j


cdef int _cmp_double(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*> a)[0], y = (<const double*> b)[0]
    return -1 if x < y else (1 if x > y else 0)


cdef int _cmp_key(const void* a, const void* b) noexcept nogil:
    cdef const NormKey* p = <const NormKey*> a
    cdef const NormKey* q = <const NormKey*> b
    if p.norm < q.norm:
        return -1
    if p.norm > q.norm:
        return 1
    if p.c != q.c:
        return -1 if p.c < q.c else 1
    return -1 if p.j < q.j else (1 if p.j > q.j else 0)


cdef class AMMCore(MulticlassCore):
    """Online AMM (see the module docstring and ``okl.learners.amm.AMMOnline``).

    ``bsvm`` (variant "budgetedsvm"): an explicit zero hyperplane per class at the start,
    ``eta_t = 1 / ((t + 1) lam)``, a new true-class hyperplane when ``f_+ <= 0``, the
    pruning threshold ``c^2 / (t lam)^2`` on squared norms with ties deleted together,
    never a class's last hyperplane.  Otherwise the paper: a reserved (implicit) zero
    hyperplane per class scoring 0, ``eta_t = 1 / (lam t)``, pruning while the removed
    Frobenius norm stays ``<= c / ((t - 1) lam)``."""
    cdef public double lam
    cdef public double bias
    cdef public double c              # pruning threshold (-c)
    cdef public int B                 # hyperplanes per class at most (-B); 0: no cap
    cdef public long long k           # pruning every k rounds (-k); 0: never
    cdef public bint bsvm
    cdef public long long n_updates   # rounds with a positive loss
    cdef public long long created     # hyperplanes created (the initial ones aside)
    cdef public long long pruned      # hyperplanes deleted by pruning
    cdef public long long prunings    # pruning passes
    cdef int D                        # d, plus 1 for the bias coordinate
    cdef int cap                      # slots allocated
    cdef int n_slots                  # slots ever used (0 .. n_slots - 1)
    cdef double* V                    # cap x D
    cdef double* deg
    cdef double* vsq                  # ||v||^2, kept up to date
    cdef double* dots                 # <v, [x, bias]> of the last scored row
    cdef int* free_ids
    cdef int n_free
    cdef int* lst                     # K x lcap: each class's slots, in order
    cdef int* cnt                     # K
    cdef int lcap
    cdef int* arg                     # K: each class's best slot (-1: the zero hyperplane)
    cdef double* pbuf                 # pruning scratch: cap doubles
    cdef NormKey* kbuf                # pruning scratch: cap keys
    cdef long long* plog              # hyperplanes deleted by each pass
    cdef long long plog_cap

    _state_fields = fields("n_updates", "created", "pruned", "prunings",
                           Field("hyperplanes", get="_hyperplane_state",
                                 put="_put_hyperplanes"),
                           Field("pruning_log", get="_pruning_log", put="_put_pruning_log"))

    def __cinit__(self, *args, **kwargs):
        self._empty_pool()
        self.plog = NULL
        self.plog_cap = 0

    def __dealloc__(self):
        self._free()
        free(self.plog)

    cdef void _free(self) noexcept nogil:
        free(self.V)
        free(self.deg)
        free(self.vsq)
        free(self.dots)
        free(self.free_ids)
        free(self.lst)
        free(self.cnt)
        free(self.arg)
        free(self.pbuf)
        free(self.kbuf)
        self._empty_pool()

    cdef void _empty_pool(self) noexcept nogil:
        """No pool and no class lists: every buffer ``_free`` frees NULL, no slot."""
        self.V = NULL
        self.deg = NULL
        self.vsq = NULL
        self.dots = NULL
        self.free_ids = NULL
        self.lst = NULL
        self.cnt = NULL
        self.arg = NULL
        self.pbuf = NULL
        self.kbuf = NULL
        self.cap = 0
        self.n_slots = 0
        self.n_free = 0
        self.lcap = 0

    def _setup(self):
        self._free()
        free(self.plog)
        self.plog = NULL
        self.plog_cap = 0
        self.n_updates = 0
        self.created = 0
        self.pruned = 0
        self.prunings = 0

    # -- memory -----------------------------------------------------------------------

    cdef int _grow_pool(self, int cap) noexcept nogil:
        """Room for ``cap`` slots; 0, or -1 if out of memory."""
        cdef size_t n = cap
        if cap <= self.cap:
            return 0
        if (_grow(<void**> &self.V, n * self.D * sizeof(double))
                or _grow(<void**> &self.deg, n * sizeof(double))
                or _grow(<void**> &self.vsq, n * sizeof(double))
                or _grow(<void**> &self.dots, n * sizeof(double))
                or _grow(<void**> &self.free_ids, n * sizeof(int))
                or _grow(<void**> &self.pbuf, n * sizeof(double))
                or _grow(<void**> &self.kbuf, n * sizeof(NormKey))):
            return -1
        self.cap = cap
        return 0

    cdef int _grow_lists(self, int lcap) noexcept nogil:
        """``lcap`` slots per class list (the lists keep their entries)."""
        cdef int* new
        cdef int ci, j
        if lcap <= self.lcap:
            return 0
        new = <int*> malloc(<size_t> self.K * lcap * sizeof(int))
        if new == NULL:
            return -1
        for ci in range(self.K):
            for j in range(self.cnt[ci]):
                new[ci * lcap + j] = self.lst[ci * self.lcap + j]
        free(self.lst)
        self.lst = new
        self.lcap = lcap
        return 0

    cdef int _new_slot(self) noexcept nogil:
        """A free slot, or -1 if out of memory."""
        if self.n_free > 0:
            self.n_free -= 1
            return self.free_ids[self.n_free]
        if self.n_slots == self.cap:
            if self._grow_pool(2 * self.cap if self.cap > 0 else 16) != 0:
                return -1
        self.n_slots += 1
        return self.n_slots - 1

    cdef int _append(self, int ci, double a, const Row* x) noexcept nogil:
        """A new last hyperplane of class ``ci``: ``w = a [x, bias]`` (``v = [x, bias]``,
        ``deg = a``), or the zero hyperplane with ``x`` NULL; its slot, or -1."""
        cdef int h, j
        cdef double* v
        if self.cnt[ci] == self.lcap:
            if self._grow_lists(2 * self.lcap if self.lcap > 0 else 4) != 0:
                self.error = 1
                return -1
        h = self._new_slot()
        if h < 0:
            self.error = 1
            return -1
        v = self.V + <Py_ssize_t> h * self.D
        memset(v, 0, self.D * sizeof(double))
        self.deg[h] = a
        self.vsq[h] = 0.0
        self.dots[h] = 0.0
        if x != NULL:
            if x.indices == NULL:
                for j in range(x.nnz):
                    v[j] = x.data[j]
            else:
                for j in range(x.nnz):
                    v[x.indices[j]] = x.data[j]
            if self.bias != 0.0:
                v[self.d] = self.bias
            self.vsq[h] = x.sqnorm + self.bias * self.bias
        self.lst[ci * self.lcap + self.cnt[ci]] = h
        self.cnt[ci] += 1
        return h

    def _amm_allocate(self):
        """The empty model (``d`` and the classes known): BudgetedSVM's one zero
        hyperplane per class, or none (the paper's zero hyperplanes are implicit)."""
        cdef int ci, K = self.K
        if K < 2 or self.d < 0:
            raise ValueError("the classes and the dimension must be known")
        self._free()
        self.D = self.d + (1 if self.bias != 0.0 else 0)
        self.cnt = <int*> malloc(K * sizeof(int))
        self.arg = <int*> malloc(K * sizeof(int))
        if self.cnt == NULL or self.arg == NULL:
            self._free()
            raise MemoryError("cannot allocate AMM's class lists")
        for ci in range(K):
            self.cnt[ci] = 0
            self.arg[ci] = -1
        if (self._grow_lists(4 if self.B == 0 else min(self.B, 4)) != 0
                or self._grow_pool(4 * K) != 0):
            self._free()
            raise MemoryError("cannot allocate AMM's hyperplanes")
        if self.bsvm:
            for ci in range(K):
                if self._append(ci, 1.0, NULL) < 0:
                    self._free()
                    raise MemoryError("cannot allocate AMM's hyperplanes")

    cdef void _delete(self, int ci, int j) noexcept nogil:
        """Delete the ``j``-th hyperplane of class ``ci`` (later ones move up)."""
        cdef int q, b = ci * self.lcap
        self.free_ids[self.n_free] = self.lst[b + j]
        self.n_free += 1
        for q in range(j, self.cnt[ci] - 1):
            self.lst[b + q] = self.lst[b + q + 1]
        self.cnt[ci] -= 1

    # -- a round ----------------------------------------------------------------------

    cdef void class_scores(self, const Row* x) noexcept nogil:
        """``s[c] = g(c, x)`` (with the zero hyperplane in the paper's variant) and each
        class's best hyperplane ``arg[c]`` (the first of largest score; in the paper's
        variant the zero hyperplane, -1, unless one scores above 0)."""
        cdef int ci, j, h, a, K = self.K
        cdef double best, v
        if self.cnt == NULL:
            for ci in range(K):
                self.s[ci] = 0.0
            self.yhat = self.best(-1)
            return
        for ci in range(K):
            best = -INFINITY if self.bsvm else 0.0
            a = -1
            for j in range(self.cnt[ci]):
                h = self.lst[ci * self.lcap + j]
                self.dots[h] = row_dot(self.V + <Py_ssize_t> h * self.D, x, self.d,
                                       self.bias)
                v = self.deg[h] * self.dots[h]
                if v > best:
                    best = v
                    a = h
            self.s[ci] = best
            self.arg[ci] = a
        self.yhat = self.best(-1)

    cdef double mc_loss(self, int y) noexcept nogil:
        return fmax(0.0, 1.0 + self.s[self.best(y)] - self.s[y])

    cdef inline bint _room(self, int ci) noexcept nogil:
        return self.B == 0 or self.cnt[ci] < self.B

    cdef void _step(self, int h, const Row* x, double sign, double denom) noexcept nogil:
        """``w_h += sign [x, bias] / denom`` and its kept ``||v||^2`` (mm_algs.cpp:308-345)."""
        cdef double divisor = sign * denom * self.deg[h]
        cdef double lin = self.deg[h] * self.dots[h]
        cdef double sx = x.sqnorm + self.bias * self.bias
        row_add(self.V + <Py_ssize_t> h * self.D, x, self.d, self.bias, divisor)
        self.vsq[h] = self.vsq[h] + (sx / (divisor * divisor) + 2.0 / (divisor * self.deg[h]) * lin)

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef long long t = self.t
        cdef int r, j1, j2, ci, j, h
        cdef double f1, f2, denom, shrink, margin
        cdef bint pull
        if self.cnt == NULL:
            return
        r = self.best(y)
        f1 = self.s[y]
        j1 = self.arg[y]
        f2 = self.s[r]
        j2 = self.arg[r]
        if self.bsvm:
            denom = (<double> t + 1.0) * self.lam              # mm_algs.h:70-73
            shrink = 1.0 - 1.0 / (<double> t + 1.0)
        else:
            denom = <double> t * self.lam                      # [A] Eq. 11
            shrink = 1.0 - 1.0 / <double> t
        for ci in range(self.K):                               # downgrade
            for j in range(self.cnt[ci]):
                h = self.lst[ci * self.lcap + j]
                self.deg[h] = self.deg[h] * shrink
                if self.deg[h] == 0.0:
                    memset(self.V + <Py_ssize_t> h * self.D, 0, self.D * sizeof(double))
                    self.deg[h] = 1.0
                    self.vsq[h] = 0.0
        margin = 1.0 + f2 - f1                                 # mm_algs.cpp:790
        if margin > 0.0:
            self.n_updates += 1
            # push the best wrong hyperplane away (mm_algs.cpp:801)
            if j2 < 0:
                if self._room(r):
                    if self._append(r, -1.0 / denom, x) < 0:
                        return
                    self.created += 1
            else:
                self._step(j2, x, -1.0, denom)
            # pull the true class closer (mm_algs.cpp:804-848)
            if self.bsvm:
                pull = f1 > 0.0 and j1 >= 0
            else:
                pull = j1 >= 0
            if pull:
                self._step(j1, x, 1.0, denom)
            elif self._room(y):
                if self._append(y, 1.0 / denom, x) < 0:
                    return
                self.created += 1
        if self.k > 0 and t % self.k == 0:
            self._log_pass(self._prune(t))

    # -- pruning ----------------------------------------------------------------------

    cdef void _log_pass(self, long long deleted) noexcept nogil:
        if self.prunings == self.plog_cap:
            if _grow(<void**> &self.plog, <size_t> (2 * self.plog_cap + 8) * sizeof(long long)):
                self.error = 1
                return
            self.plog_cap = 2 * self.plog_cap + 8
        self.plog[self.prunings] = deleted
        self.prunings += 1
        self.pruned += deleted

    cdef long long _prune(self, long long t) noexcept nogil:
        """One pruning pass ([A] Section 3.4 / mm_algs.cpp:858-943); the number deleted."""
        cdef int ci, j, h, q, n, n_i, out, b
        cdef double thr, total, cut, nrm, tt
        cdef long long deleted = 0
        n = 0
        for ci in range(self.K):
            for j in range(self.cnt[ci]):
                h = self.lst[ci * self.lcap + j]
                nrm = self.deg[h] * self.deg[h] * self.vsq[h]
                self.pbuf[n] = nrm
                self.kbuf[n].norm = nrm
                self.kbuf[n].c = ci
                self.kbuf[n].j = j
                n += 1
        if self.bsvm:
            tt = <double> t
            thr = self.c * self.c / (tt * tt * self.lam * self.lam)
            qsort(self.pbuf, n, sizeof(double), _cmp_double)
            total = 0.0
            q = 0
            for j in range(n):
                total += self.pbuf[j]
                if total > thr:
                    break
                q += 1
            if q == 0:
                return 0
            cut = self.pbuf[q - 1]
            # every hyperplane whose squared norm equals one of the q smallest (ties
            # delete more than q), never a class's last
            for ci in range(self.K):
                n_i = self.cnt[ci]
                j = 0
                while j < self.cnt[ci]:
                    h = self.lst[ci * self.lcap + j]
                    nrm = self.deg[h] * self.deg[h] * self.vsq[h]
                    if nrm <= cut and n_i > 1:
                        self._delete(ci, j)
                        n_i -= 1
                        deleted += 1
                    else:
                        j += 1
            return deleted
        if t == 1:
            return 0
        tt = self.c / ((<double> t - 1.0) * self.lam)
        thr = tt * tt
        qsort(self.kbuf, n, sizeof(NormKey), _cmp_key)
        total = 0.0
        q = 0
        for j in range(n):
            total += self.kbuf[j].norm
            if total > thr:
                break
            q += 1
        if q == 0:
            return 0
        # the q smallest go (ties by class, then position); mark them with -1
        for j in range(q):
            ci = self.kbuf[j].c
            b = ci * self.lcap
            h = self.lst[b + self.kbuf[j].j]
            self.free_ids[self.n_free] = h
            self.n_free += 1
            self.lst[b + self.kbuf[j].j] = -1
        for ci in range(self.K):
            b = ci * self.lcap
            out = 0
            for j in range(self.cnt[ci]):
                if self.lst[b + j] >= 0:
                    self.lst[b + out] = self.lst[b + j]
                    out += 1
            self.cnt[ci] = out
        return q

    cdef int size(self) noexcept nogil:
        cdef int ci, n = 0
        if self.cnt == NULL:
            return 0
        for ci in range(self.K):
            n += self.cnt[ci]
        return n

    # -- inspection and pickling ------------------------------------------------------

    def _hyperplane_counts(self):
        """Hyperplanes per class (BudgetedSVM's explicit zero ones included; the
        paper's implicit ones not), an int array of ``K``."""
        if self.cnt == NULL:
            return np.full(self.K, 1 if self.bsvm else 0, dtype=np.int64)
        return np.array([self.cnt[ci] for ci in range(self.K)], dtype=np.int64)

    def _hyperplane_state(self):
        """Per class ``(V, deg, vsq)``: its hyperplanes ``w_j = deg[j] V[j]`` in order
        (``n_c x D``) and their kept ``||V[j]||^2``; None before the first example."""
        if self.cnt == NULL:
            return None
        out = []
        cdef int ci, j, h, q
        for ci in range(self.K):
            n = self.cnt[ci]
            V = np.empty((n, self.D))
            deg = np.empty(n)
            vsq = np.empty(n)
            for j in range(n):
                h = self.lst[ci * self.lcap + j]
                deg[j] = self.deg[h]
                vsq[j] = self.vsq[h]
                for q in range(self.D):
                    V[j, q] = self.V[<Py_ssize_t> h * self.D + q]
            out.append((V, deg, vsq))
        return out

    def _put_hyperplanes(self, value):
        cdef int ci, j, h, q
        if value is None:
            return
        self._amm_allocate()
        for ci in range(self.K):                   # drop BudgetedSVM's initial ones
            while self.cnt[ci] > 0:
                self._delete(ci, self.cnt[ci] - 1)
        self.n_free = 0
        self.n_slots = 0
        if len(value) != self.K:
            raise ValueError(f"the state holds {len(value)} classes' hyperplanes, the "
                             f"learner {self.K} classes")
        for ci, (V, deg, vsq) in enumerate(value):
            V = np.asarray(V, dtype=np.float64)
            if V.ndim != 2 or V.shape[1] != self.D:
                raise ValueError(f"the state's hyperplanes have shape {V.shape}, the "
                                 f"learner's width is {self.D}")
            for j in range(V.shape[0]):
                h = self._append(ci, deg[j], NULL)
                if h < 0:
                    raise MemoryError("cannot allocate AMM's hyperplanes")
                self.vsq[h] = vsq[j]
                for q in range(self.D):
                    self.V[<Py_ssize_t> h * self.D + q] = V[j, q]

    def _pruning_log(self):
        return [self.plog[i] for i in range(self.prunings)]

    def _put_pruning_log(self, value):
        cdef long long i, n = len(value)
        free(self.plog)
        self.plog = NULL
        self.plog_cap = 0
        if n:
            self.plog = <long long*> malloc(n * sizeof(long long))
            if self.plog == NULL:
                raise MemoryError("cannot allocate AMM's pruning log")
            self.plog_cap = n
            for i in range(n):
                self.plog[i] = value[i]

    def _amm_weights(self):
        """Per class, its hyperplanes ``w = deg v`` (``n_c x D``, the bias coordinate
        last); None before the first example."""
        state = self._hyperplane_state()
        if state is None:
            return None
        return [V * deg[:, None] for V, deg, _ in state]

    def _amm_sq_norms(self):
        """Per class, the kept squared norms ``||w||^2 = deg^2 ||v||^2`` (what the
        pruning sorts)."""
        state = self._hyperplane_state()
        if state is None:
            return None
        return [deg * deg * vsq for _, deg, vsq in state]
