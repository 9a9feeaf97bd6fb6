# cython: language_level=3
"""The support set: support vectors, their cached norms and coefficients in
preallocated buffers, and the kernel rows and Gram matrices computed through it.

Part of the typed core (``okl._core`` re-exports every name; see its docstring).
"""

from cpython.object cimport PyTypeObject
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memmove
from scipy.linalg.cython_blas cimport dscal

import sys

import numpy as np
cimport numpy as cnp

from okl._kernels cimport _params_of, kernel_row
from okl._memory cimport _grow
from okl._validation import as_stream

cnp.import_array()

cdef extern from "_vexp.h":
    double okl_dot(const double* a, const double* b, int n) noexcept nogil

cdef int INC1 = 1


cdef class SupportSet:
    """Support vectors, cached norms and coefficients in preallocated buffers.

    Parameters
    ----------
    kernel : okl kernel spec
        Kernel used by ``kernel_row`` / ``score``.
    d : int
        Input dimension; every vector is stored densely.
    capacity : int
        Number of slots allocated up front.
    growable : bool, default False
        If False, ``add`` refuses to exceed ``capacity`` (a budget); if True
        the buffers double when full (unbudgeted learners).

    Notes
    -----
    The vectors are stored feature-major (``s_i[j] = X[i + j * capacity]``), so
    a kernel row is one ``dgemv`` (dense input) or one contiguous axpy per
    non-zero (CSR input).  ``remove`` preserves the order of the remaining
    vectors (index ``0`` is the oldest survivor); ``swap_remove`` is O(d) and
    does not.  Both move the last kernel row along with the vectors.
    """

    def __cinit__(self, kernel, int d, int capacity, bint growable=False):
        if d < 1:
            raise ValueError(f"d must be >= 1, got {d}")
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.kernel = kernel
        self.kp = _params_of(kernel)
        self.d = d
        self.n = 0
        self.capacity = 0
        self.growable = growable
        self.X = NULL
        self.sqnorm = NULL
        self.l1norm = NULL
        self.alpha = NULL
        self.stamp = NULL
        self.krow = NULL
        self.rowbuf = <double*> malloc(d * sizeof(double))
        if self.rowbuf == NULL or self.reserve(capacity) != 0:
            raise MemoryError(f"cannot allocate a support set of {capacity} x {d}")

    def __dealloc__(self):
        free(self.X)
        free(self.sqnorm)
        free(self.l1norm)
        free(self.alpha)
        free(self.stamp)
        free(self.krow)
        free(self.rowbuf)

    cdef int reserve(self, int capacity) noexcept nogil:
        """Grow the buffers to ``capacity`` slots; 0 on success, -1 if out of memory."""
        cdef size_t c = capacity
        cdef double* X
        cdef int j
        if capacity <= self.capacity:
            return 0
        X = <double*> malloc(c * self.d * sizeof(double))
        if X == NULL:
            return -1
        for j in range(self.d):  # columns move to the new leading dimension
            if self.n > 0:
                memcpy(X + j * c, self.X + <Py_ssize_t> j * self.capacity, self.n * sizeof(double))
        if (_grow(<void**> &self.sqnorm, c * sizeof(double))
                or _grow(<void**> &self.l1norm, c * sizeof(double))
                or _grow(<void**> &self.alpha, c * sizeof(double))
                or _grow(<void**> &self.stamp, c * sizeof(long long))
                or _grow(<void**> &self.krow, c * sizeof(double))):
            free(X)
            return -1
        free(self.X)
        self.X = X
        self.capacity = capacity
        return 0

    cdef inline void write_row(self, int i, const Row* x) noexcept nogil:
        cdef int j, k
        cdef Py_ssize_t ld = self.capacity
        if x.indices == NULL:
            for j in range(self.d):
                self.X[i + j * ld] = x.data[j]
        else:
            for j in range(self.d):
                self.X[i + j * ld] = 0.0
            for k in range(x.nnz):
                self.X[i + x.indices[k] * ld] = x.data[k]
        self.sqnorm[i] = x.sqnorm
        self.l1norm[i] = x.l1norm

    cdef int add(self, const Row* x, double a, long long stamp) noexcept nogil:
        """Append ``x`` with coefficient ``a``; its index, or -1 when full."""
        if self.n == self.capacity:
            if not self.growable or self.reserve(2 * self.capacity) != 0:
                return -1
        self.write_row(self.n, x)
        self.alpha[self.n] = a
        self.stamp[self.n] = stamp
        self.n += 1
        return self.n - 1

    cdef void remove(self, int i) noexcept nogil:
        """Delete slot ``i``; later slots move down by one."""
        cdef int j, tail = self.n - i - 1
        if i < 0 or i >= self.n:
            return
        if tail > 0:
            for j in range(self.d):
                memmove(self.X + <Py_ssize_t> j * self.capacity + i,
                        self.X + <Py_ssize_t> j * self.capacity + i + 1, tail * sizeof(double))
            memmove(self.sqnorm + i, self.sqnorm + i + 1, tail * sizeof(double))
            memmove(self.l1norm + i, self.l1norm + i + 1, tail * sizeof(double))
            memmove(self.alpha + i, self.alpha + i + 1, tail * sizeof(double))
            memmove(self.stamp + i, self.stamp + i + 1, tail * sizeof(long long))
            memmove(self.krow + i, self.krow + i + 1, tail * sizeof(double))
        self.n -= 1

    cdef void swap_remove(self, int i) noexcept nogil:
        """Delete slot ``i`` in O(d) by moving the last slot into it (order not kept)."""
        cdef int j, last = self.n - 1
        if i < 0 or i > last:
            return
        if i != last:
            for j in range(self.d):
                self.X[i + <Py_ssize_t> j * self.capacity] = self.X[last + <Py_ssize_t> j * self.capacity]
            self.sqnorm[i] = self.sqnorm[last]
            self.l1norm[i] = self.l1norm[last]
            self.alpha[i] = self.alpha[last]
            self.stamp[i] = self.stamp[last]
            self.krow[i] = self.krow[last]
        self.n = last

    cdef void replace(self, int i, const Row* x, double a, long long stamp) noexcept nogil:
        """Overwrite slot ``i`` with ``x`` and coefficient ``a``."""
        self.write_row(i, x)
        self.alpha[i] = a
        self.stamp[i] = stamp

    cdef void kernel_row_into(self, const Row* x, double* out) noexcept nogil:
        """``out[i] = k(x, s_i)`` for every support vector."""
        kernel_row(&self.kp, self.X, self.capacity, self.sqnorm, self.l1norm, self.n, self.d,
                   x, out)

    cdef void fill_krow(self, const Row* x) noexcept nogil:
        """``krow[i] = k(x, s_i)`` for every support vector."""
        self.kernel_row_into(x, self.krow)

    cdef double score(self, const Row* x) noexcept nogil:
        """``sum_i alpha_i k(x, s_i)``; leaves the kernel row in ``krow``."""
        if self.n == 0:
            return 0.0
        self.fill_krow(x)
        return okl_dot(self.alpha, self.krow, self.n)

    cdef void scale(self, double c) noexcept nogil:
        """Multiply every coefficient by ``c``."""
        if self.n > 0:
            dscal(&self.n, &c, self.alpha, &INC1)

    cdef void as_row(self, int i, Row* out) noexcept nogil:
        """A dense ``Row`` holding a copy of support vector ``i``.

        The copy lives in an internal buffer: valid until the next ``as_row``."""
        cdef int j
        for j in range(self.d):
            self.rowbuf[j] = self.X[i + <Py_ssize_t> j * self.capacity]
        out.data = self.rowbuf
        out.indices = NULL
        out.nnz = self.d
        out.sqnorm = self.sqnorm[i]
        out.l1norm = self.l1norm[i]

    # -- Python surface (tests, inspection, pickling) --------------------------

    @property
    def size(self):
        return self.n

    @property
    def dim(self):
        return self.d

    @property
    def max_size(self):
        return self.capacity

    @property
    def vectors(self):
        """Copy of the stored support vectors, shape ``(size, d)``."""
        out = np.empty((self.n, self.d))
        cdef double[:, ::1] o = out
        cdef int i, j
        for i in range(self.n):
            for j in range(self.d):
                o[i, j] = self.X[i + <Py_ssize_t> j * self.capacity]
        return out

    @property
    def coefficients(self):
        return np.array(<double[:self.n]> self.alpha, copy=True) if self.n else np.empty(0)

    @property
    def stamps(self):
        return np.array(<long long[:self.n]> self.stamp, copy=True) if self.n else np.empty(0, np.int64)

    @property
    def last_kernel_row(self):
        return np.array(<double[:self.n]> self.krow, copy=True) if self.n else np.empty(0)

    def push(self, X, a, long long stamp=0):
        """Append the single row ``X`` (1-D dense array or 1-row CSR) with coefficient ``a``.

        Returns the new index; raises ``ValueError`` if the set is full.
        """
        cdef Row row
        cdef Stream s = _single_row_stream(X, self.d)
        s.row(0, &row)
        i = self.add(&row, a, stamp)
        if i < 0:
            raise ValueError(f"support set is full (capacity {self.capacity})")
        return i

    def pop(self, int i):
        """Remove support vector ``i`` (later ones shift down)."""
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range for a support set of size {self.n}")
        self.remove(i)

    def pop_swap(self, int i):
        """Remove support vector ``i`` in O(d); the last one takes its place."""
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range for a support set of size {self.n}")
        self.swap_remove(i)

    def put(self, int i, X, double a, long long stamp=0):
        """Replace support vector ``i`` by the row ``X`` with coefficient ``a``."""
        cdef Row row
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range for a support set of size {self.n}")
        cdef Stream s = _single_row_stream(X, self.d)
        s.row(0, &row)
        self.replace(i, &row, a, stamp)

    def decision(self, X):
        """``[sum_i alpha_i k(x, s_i) for x in X]`` for a 2-D ``X``."""
        cdef Stream s = _stream(X, self.d)
        cdef Row row
        cdef Py_ssize_t t
        out = np.empty(s.T)
        cdef double[::1] o = out
        with nogil:
            for t in range(s.T):
                s.row(t, &row)
                o[t] = self.score(&row)
        return out

    def kernel_rows(self, X):
        """``k(x, S)`` for each row of ``X``: shape ``(len(X), size)``."""
        return self.rows_of(_stream(X, self.d))

    cdef object rows_of(self, Stream s):
        cdef Row row
        cdef Py_ssize_t t
        out = np.empty((s.T, self.n))
        cdef double[:, ::1] o = out
        if self.n == 0:
            return out
        with nogil:
            for t in range(s.T):
                s.row(t, &row)
                self.kernel_row_into(&row, &o[t, 0])
        return out

    def __reduce__(self):
        return (_rebuild_support_set,
                (self.kernel, self.d, self.capacity, self.growable, self.vectors,
                 self.coefficients, self.stamps,
                 np.array(<double[:self.n]> self.sqnorm, copy=True) if self.n else np.empty(0),
                 np.array(<double[:self.n]> self.l1norm, copy=True) if self.n else np.empty(0)))

    def __repr__(self):
        return (f"SupportSet(kernel={self.kernel!r}, d={self.d}, size={self.n}, "
                f"capacity={self.capacity}, growable={self.growable})")


def _rebuild_support_set(kernel, int d, int capacity, bint growable, X, alpha, stamp, sqnorm, l1norm):
    cdef SupportSet s = SupportSet(kernel, d, capacity, growable)
    cdef Py_ssize_t n = X.shape[0]
    cdef const double[:, ::1] Xv = np.ascontiguousarray(X, dtype=np.float64)
    cdef Py_ssize_t i, j
    if n > s.capacity and s.reserve(<int> n) != 0:
        raise MemoryError("cannot restore support set")
    for i in range(n):
        for j in range(d):
            s.X[i + j * s.capacity] = Xv[i, j]
        s.alpha[i] = alpha[i]
        s.stamp[i] = stamp[i]
        s.sqnorm[i] = sqnorm[i]
        s.l1norm[i] = l1norm[i]
    s.n = <int> n
    return s


def _stream(X, int d=-1):
    """A ``Stream`` over an already validated 2-D input (see okl._validation)."""
    return as_stream(X, d)


cdef Stream _single_row_stream(X, int d):
    if not hasattr(X, "tocsr"):
        X = np.asarray(X, dtype=np.float64).reshape(1, -1)
    return _stream(X, d)


def kernel_matrix(kernel, X, Y):
    """Gram matrix ``[k(x, y) for x in X, y in Y]`` through the typed kernel rows.

    ``X`` and ``Y`` may each be dense or CSR; ``Y`` is stored densely.
    """
    cdef Stream sy = _stream(Y)
    cdef Stream sx = _stream(X, sy.d)
    cdef SupportSet S = SupportSet(kernel, sy.d, max(<int> sy.T, 1), False)
    cdef Row row
    cdef Py_ssize_t t
    for t in range(sy.T):
        sy.row(t, &row)
        S.add(&row, 0.0, t)
    return S.rows_of(sx)


def stream_kernel_rows(kernel, X, added, window=None):
    """Compute the kernel rows a learner computes on a stream, and nothing else.

    Round ``t`` computes ``k(x_t, S_t)`` with ``S_t`` the rows ``x_s``, ``s < t``,
    with ``added[s]`` (and ``s >= t - window`` when a window is given, as
    NORMA's truncation keeps); ``x_t`` joins ``S`` afterwards when
    ``added[t]``.  This is the kernel-row work alone of a Perceptron, KernelOGD
    or truncated NORMA run, the reference cost of the benchmarks.  Returns the
    sum of all computed kernel values (so the work cannot be optimized out).
    """
    cdef Stream s = _stream(X)
    cdef const unsigned char[::1] add = np.ascontiguousarray(added, dtype=np.uint8)
    if add.shape[0] != s.T:
        raise ValueError("added must have one entry per row of X")
    cdef long long w = -1 if window is None else int(window)
    if window is not None and w < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    cdef SupportSet S = SupportSet(kernel, s.d, 64 if w < 0 else <int> w, w < 0)
    cdef Row row
    cdef Py_ssize_t t
    cdef int i
    cdef double total = 0.0
    with nogil:
        for t in range(s.T):
            if w > 0:  # rounds are 0-based here: keep s >= t - w
                i = 0
                while i < S.n:
                    if S.stamp[i] < t - w:
                        S.swap_remove(i)
                    else:
                        i += 1
            s.row(t, &row)
            S.fill_krow(&row)
            for i in range(S.n):
                total += S.krow[i]
            if add[t]:
                S.add(&row, 1.0, t)
    return total


# okl._core is the public home of these names (see its docstring): the classes carry its
# name, and pickles, reprs and argument errors name it as before the split.

(<PyTypeObject*> SupportSet).tp_name = b"okl._core.SupportSet"
for _f in (_rebuild_support_set, _stream, kernel_matrix, stream_kernel_rows):
    _f.__module__ = sys.intern("okl._core")
del _f
