# cython: language_level=3
"""The multiclass core and its stream driver.

A multiclass kernel learner keeps one support set ``S`` (each example stored once) and a
coefficient per support vector and class: ``f_c(x) = sum_i A[i, c] k(s_i, x)``.  A round
computes the kernel row ``k(S, x)`` once, then the ``K`` scores by walking each row's
classes in use: row ``i`` keeps its ``nnz[i]`` (class, coefficient) pairs in ``m`` slots
(``cls``, ``val``), ``m`` the most any row needs so far.  A Crammer-Singer max-score
update touches two classes of a row, so ``m = 2``, the pairs lie one after the other in
memory and the scores cost ``O(|S|)`` additions beside the kernel row, whatever ``K``; a
learner whose rows fill up (a projection) widens ``m`` towards ``K`` and pays
``O(K |S|)``, as a dense matrix would.

Class indices are ``0 .. K-1`` (the learner's ``classes_`` in sorted order); the
predicted class is the first of the largest scores (the lowest index on ties, as
MATLAB's ``max`` and ``numpy.argmax``).  The driver records per round the predicted
index, the margin ``f_y(x) - max_{c != y} f_c(x)``, the loss, the mistake
``yhat != y``, the support size and, when asked, the ``K`` scores.
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdlib cimport free
from libc.string cimport memmove, memset

import numpy as np
cimport numpy as cnp

from libc.math cimport fmax, fmin

from okl._core cimport Learner, Row, Stream, kernel_self
from okl._memory cimport _grow

cnp.import_array()

cdef Py_ssize_t SIGNAL_CHECK_EVERY = 4096


cdef class MulticlassCore(Learner):
    """Base of the multiclass cores: the class coefficients beside the support set, the
    scores of a round, and the hooks ``mc_loss(y)`` / ``mc_update(x, y)`` a learner
    overrides (called after ``class_scores(x)``: ``s`` and ``yhat`` are the round's)."""

    def __cinit__(self, *args, **kwargs):
        self.K = 0
        self.m = 0
        self.cls = NULL
        self.val = NULL
        self.nnz = NULL
        self.a_cap = 0
        self.s = NULL
        self.yhat = 0

    def __dealloc__(self):
        free(self.cls)
        free(self.val)
        free(self.nnz)
        free(self.s)

    def _set_classes(self, int K):
        """Fix the number of classes (once, before the first example)."""
        if K < 2:
            raise ValueError(f"a multiclass learner needs at least 2 classes, got {K}")
        self.K = K
        self.m = 2
        free(self.s)
        self.s = NULL
        if _grow(<void**> &self.s, K * sizeof(double)):
            raise MemoryError("cannot allocate the class scores")
        memset(self.s, 0, K * sizeof(double))

    cdef int mc_reserve(self, int rows) noexcept nogil:
        """Room for ``rows`` rows of coefficients; 0, or -1 if out of memory."""
        cdef size_t r = rows
        if rows <= self.a_cap:
            return 0
        if (_grow(<void**> &self.cls, r * self.m * sizeof(int))
                or _grow(<void**> &self.val, r * self.m * sizeof(double))
                or _grow(<void**> &self.nnz, r * sizeof(int))):
            return -1
        self.a_cap = rows
        return 0

    cdef int widen(self, int m) noexcept nogil:
        """``m`` slots per row (rows keep their pairs); 0, or -1 if out of memory."""
        cdef int i, j, old = self.m, n = self.a_cap
        cdef size_t r = n
        if m <= old:
            return 0
        if (_grow(<void**> &self.cls, r * m * sizeof(int))
                or _grow(<void**> &self.val, r * m * sizeof(double))):
            return -1
        i = n - 1
        while i >= 0:                      # from the last row: the new stride is wider
            j = self.nnz[i] - 1 if i < (0 if self.sv is None else self.sv.n) else -1
            while j >= 0:
                self.cls[i * m + j] = self.cls[i * old + j]
                self.val[i * m + j] = self.val[i * old + j]
                j -= 1
            i -= 1
        self.m = m
        return 0

    cdef double coef(self, int i, int c) noexcept nogil:
        """``A[i, c]``."""
        cdef int j
        for j in range(self.nnz[i]):
            if self.cls[i * self.m + j] == c:
                return self.val[i * self.m + j]
        return 0.0

    cdef void class_scores(self, const Row* x) noexcept nogil:
        """``s[c] = f_c(x)`` for every class (the kernel row left in ``sv.krow``), and
        ``yhat``."""
        cdef int i, j, c, b, K = self.K, m = self.m, n, nz
        cdef double ki
        cdef double* s = self.s
        cdef const int* cls = self.cls
        cdef const double* val = self.val
        cdef const int* nnz = self.nnz
        cdef const double* krow
        for c in range(K):
            s[c] = 0.0
        n = 0 if self.sv is None else self.sv.n
        if n > 0:
            self.sv.fill_krow(x)
            krow = self.sv.krow
            for i in range(n):
                ki = krow[i]
                b = i * m
                nz = nnz[i]
                if nz == 2:                    # a Crammer-Singer row: y_i and its rival
                    s[cls[b]] += val[b] * ki
                    s[cls[b + 1]] += val[b + 1] * ki
                else:
                    for j in range(nz):
                        s[cls[b + j]] += val[b + j] * ki
        self.yhat = self.best(-1)

    cdef int best(self, int exclude) noexcept nogil:
        """The first class of largest score, ``exclude`` left out (-1: none)."""
        cdef int c, b = -1
        cdef double v = 0.0
        for c in range(self.K):
            if c == exclude:
                continue
            if b < 0 or self.s[c] > v:
                b = c
                v = self.s[c]
        return b

    cdef int add_vector(self, const Row* x) noexcept nogil:
        """Append ``x`` to the support set with a row of zero coefficients; its index, or
        -1 (``error`` set) when out of memory or the set is full."""
        cdef int i = self.sv.add(x, 0.0, self.t)
        if i < 0 or self.mc_reserve(self.sv.capacity) != 0:
            self.error = 1
            return -1
        self.clear_row(i)
        return i

    cdef void clear_row(self, int i) noexcept nogil:
        """Row ``i`` to zero (a vector just added, or replaced in its slot)."""
        self.nnz[i] = 0

    cdef void add_coef(self, int i, int c, double a) noexcept nogil:
        """``A[i, c] += a`` (the class joins row ``i``'s pairs; ``error`` set if the
        rows cannot be widened)."""
        cdef int j, b = i * self.m
        for j in range(self.nnz[i]):
            if self.cls[b + j] == c:
                self.val[b + j] += a
                return
        if self.nnz[i] == self.m:
            if self.widen(min(self.K, 2 * self.m)) != 0:
                self.error = 1
                return
            b = i * self.m
        self.cls[b + self.nnz[i]] = c
        self.val[b + self.nnz[i]] = a
        self.nnz[i] += 1

    cdef void remove_row(self, int i) noexcept nogil:
        """Delete row ``i`` as ``sv.remove(i)`` deletes its vector (later rows move up)."""
        cdef int n = self.sv.n, tail
        if i < 0 or i >= n:
            return
        tail = n - i - 1
        if tail > 0:
            memmove(self.cls + i * self.m, self.cls + (i + 1) * self.m,
                    tail * self.m * sizeof(int))
            memmove(self.val + i * self.m, self.val + (i + 1) * self.m,
                    tail * self.m * sizeof(double))
            memmove(self.nnz + i, self.nnz + i + 1, tail * sizeof(int))
        self.sv.remove(i)

    cdef void scale_coefs(self, double c) noexcept nogil:
        """Every coefficient times ``c``."""
        cdef int i, j
        for i in range(0 if self.sv is None else self.sv.n):
            for j in range(self.nnz[i]):
                self.val[i * self.m + j] *= c

    cdef double row_sqnorm(self, int i) noexcept nogil:
        """``sum_c A[i, c]^2``."""
        cdef int j
        cdef double v, out = 0.0
        for j in range(self.nnz[i]):
            v = self.val[i * self.m + j]
            out += v * v
        return out

    cdef double mc_loss(self, int y) noexcept nogil:
        return 0.0

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        pass

    # -- Python surface ---------------------------------------------------------------

    def _coefficients(self):
        """The ``|S| x K`` coefficient matrix (a copy)."""
        cdef int n = 0 if self.sv is None else self.sv.n
        out = np.zeros((n, self.K))
        cdef double[:, ::1] o = out
        cdef int i, j
        for i in range(n):
            for j in range(self.nnz[i]):
                o[i, self.cls[i * self.m + j]] = self.val[i * self.m + j]
        return out

    def _classes_in_use(self):
        """Per row, the classes in use in the order they joined (for pickling)."""
        cdef int n = 0 if self.sv is None else self.sv.n
        return [[self.cls[i * self.m + j] for j in range(self.nnz[i])] for i in range(n)]

    def _put_coefficients(self, value):
        """Restore ``(matrix, classes in use)`` written by ``_coefficient_state``."""
        A, used = value
        A = np.asarray(A, dtype=np.float64)
        cdef int n = A.shape[0], i, j, width = max([2] + [len(u) for u in used])
        self.m = width
        self.a_cap = 0
        if self.mc_reserve(max(n, self.sv.capacity if self.sv is not None else n)) != 0:
            raise MemoryError("cannot allocate the class coefficients")
        for i in range(n):
            self.nnz[i] = len(used[i])
            for j, c in enumerate(used[i]):
                self.cls[i * self.m + j] = c
                self.val[i * self.m + j] = A[i, c]

    def _coefficient_state(self):
        return (self._coefficients(), self._classes_in_use())

    def _scores_of(self, Stream st):
        """``(T, K)`` scores of every row of ``st`` (no learning)."""
        out = np.empty((st.T, self.K))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t t
        cdef int c
        cdef Row row
        with nogil:
            for t in range(st.T):
                st.row(t, &row)
                self.class_scores(&row)
                for c in range(self.K):
                    o[t, c] = self.s[c]
        return out


cdef Py_ssize_t _mc_rounds(MulticlassCore L, Stream st, const int* y, int* preds,
                           double* margins, double* losses, unsigned char* mistakes,
                           int* budget, double* scores, Py_ssize_t start,
                           Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t t
    cdef Row row
    cdef int yt, c, K = L.K
    cdef double lt
    for t in range(start, stop):
        st.row(t, &row)
        L.t += 1
        L.class_scores(&row)
        yt = y[t]
        lt = L.mc_loss(yt)
        if preds != NULL:
            preds[t] = L.yhat
            margins[t] = L.s[yt] - L.s[L.best(yt)]
            losses[t] = lt
            mistakes[t] = L.yhat != yt
            if scores != NULL:
                for c in range(K):
                    scores[t * K + c] = L.s[c]
        L.mc_update(&row, yt)
        if L.error:
            return t
        if budget != NULL:
            budget[t] = L.size()
    return stop


cdef inline void* _data(object a, int typenum, Py_ssize_t n) except? NULL:
    if a is None:
        return NULL
    if not (isinstance(a, np.ndarray) and cnp.PyArray_TYPE(<cnp.ndarray> a) == typenum
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> a)
            and cnp.PyArray_SIZE(<cnp.ndarray> a) >= n):
        raise TypeError("labels and per-round arrays must be C-contiguous arrays of the "
                        "driver's types")
    return cnp.PyArray_DATA(<cnp.ndarray> a)


def _drive_multiclass(MulticlassCore L, Stream st, y, preds=None, margins=None,
                      losses=None, mistakes=None, budget=None, scores=None):
    """Run ``L`` over every row of ``st`` (``y``: int32 class indices); returns the
    number of completed rounds.  The per-round arrays (int32 predicted index, float64
    margin and loss, uint8 mistake, intc budget; optionally float64 ``(T, K)`` scores)
    are all given or all ``None``.  The rounds run without the GIL, in blocks, with
    Ctrl-C let through between blocks (the learner then holds the completed rounds)."""
    cdef Py_ssize_t T = st.T, done = 0, stop
    cdef const int* yp = <const int*> _data(y, cnp.NPY_INT32, T)
    cdef int* pr = <int*> _data(preds, cnp.NPY_INT32, T)
    cdef double* mg = <double*> _data(margins, cnp.NPY_FLOAT64, T)
    cdef double* ls = <double*> _data(losses, cnp.NPY_FLOAT64, T)
    cdef unsigned char* mk = <unsigned char*> _data(mistakes, cnp.NPY_UINT8, T)
    cdef int* bd = <int*> _data(budget, cnp.NPY_INT, T)
    cdef double* sc = <double*> _data(scores, cnp.NPY_FLOAT64, T * L.K)
    if yp == NULL:
        raise TypeError("y is required")
    if L.K < 2:
        raise ValueError("the learner's classes are not set")
    while done < T:
        stop = min(T, done + SIGNAL_CHECK_EVERY)
        with nogil:
            done = _mc_rounds(L, st, yp, pr, mg, ls, mk, bd, sc, done, stop)
        if done < stop or done == T:
            break
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            if hasattr(exc, "add_note"):
                exc.add_note(f"okl: run stopped after {done} of {T} rounds; the learner "
                             "holds exactly the completed rounds")
            raise
    return done


def _learn_one_multiclass(MulticlassCore L, Stream st, int y):
    """One round on the first row of ``st``; False if the update failed."""
    cdef Row row
    st.row(0, &row)
    with nogil:
        L.t += 1
        L.class_scores(&row)
        L.mc_loss(y)
        L.mc_update(&row, y)
    return not L.error


# ----------------------------------------------------------------------------------
# Crammer & Singer (2003): the additive ultraconservative multiclass Perceptron
# ----------------------------------------------------------------------------------

cdef enum:
    CS_MAX = 0
    CS_UNIFORM = 1
    CS_PROPORTIONAL = 2


cdef class CrammerSingerCore(MulticlassCore):
    """The ultraconservative family: ``E = {r != y : f_r >= f_y}`` (``libol``: update
    iff the prediction is wrong, ``E`` with ``f_r > f_y``); ``x`` joins the support with
    the row ``tau``: ``tau_y = 1`` and ``-1`` spread over ``E`` (max-score: all on the
    rival; uniform: ``1/|E|`` each; proportional: by ``f_r - f_y``)."""
    cdef public int update_kind
    cdef public bint libol

    cdef double mc_loss(self, int y) noexcept nogil:
        return fmax(0.0, self.s[self.best(y)] - self.s[y])      # max(0, -margin)

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r, i, n_e = 0, rival = self.best(y), K = self.K
        cdef double fy = self.s[y], total = 0.0
        if self.libol:
            if self.yhat == y:
                return
            for r in range(K):
                if r != y and self.s[r] > fy:
                    n_e += 1
                    total += self.s[r] - fy
        else:
            for r in range(K):
                if r != y and self.s[r] >= fy:
                    n_e += 1
                    total += self.s[r] - fy
            if n_e == 0:
                return
        i = self.add_vector(x)
        if i < 0:
            return
        self.add_coef(i, y, 1.0)
        if self.update_kind == CS_MAX:
            self.add_coef(i, rival, -1.0)
            return
        if n_e == 0:                       # libol: a mistake made by a tie
            return
        for r in range(K):
            if r == y or not (self.s[r] > fy or (not self.libol and self.s[r] >= fy)):
                continue
            if self.update_kind == CS_UNIFORM or total <= 0.0:
                self.add_coef(i, r, -1.0 / n_e)
            else:
                self.add_coef(i, r, -(self.s[r] - fy) / total)


# ----------------------------------------------------------------------------------
# Crammer, Dekel, Keshet, Shalev-Shwartz & Singer (2006): multiclass PA, PA-I, PA-II
# ----------------------------------------------------------------------------------

cdef enum:
    PA_0 = 0
    PA_I = 1
    PA_II = 2


cdef class MulticlassPACore(MulticlassCore):
    """The multiclass passive-aggressive step against the rival ``s`` (max-loss: the
    highest-scoring wrong class; prediction-based: the predicted class, on mistakes):
    ``f_y += tau k(x, .)``, ``f_s -= tau k(x, .)`` with ``tau`` from the loss and
    ``||Phi(x, y) - Phi(x, s)||^2 = 2 k(x, x)``."""
    cdef public int variant
    cdef public double C
    cdef public bint prediction_based

    cdef double mc_loss(self, int y) noexcept nogil:
        return fmax(0.0, 1.0 - (self.s[y] - self.s[self.best(y)]))

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int rival, i
        cdef double loss, q, tau
        if self.prediction_based:
            if self.yhat == y:
                return
            rival = self.yhat
            loss = self.s[rival] - self.s[y] + 1.0
        else:
            rival = self.best(y)
            loss = fmax(0.0, 1.0 - (self.s[y] - self.s[rival]))
        if loss <= 0.0:
            return
        q = 2.0 * kernel_self(&self.kp, x)
        if self.variant == PA_II:
            tau = loss / (q + 1.0 / (2.0 * self.C))
        elif q <= 0.0:
            return
        elif self.variant == PA_0:
            tau = loss / q
        else:
            tau = fmin(self.C, loss / q)
        if tau == 0.0:
            return
        i = self.add_vector(x)
        if i < 0:
            return
        self.add_coef(i, y, tau)
        self.add_coef(i, rival, -tau)
