# cython: language_level=3
"""Rows and streams: dense or CSR rows behind one row accessor; validation in one pass.

``Row`` (``okl/_stream.pxd``) is one example as the kernels read it; a ``Stream`` hands
out the rows of a dense C-contiguous float64 matrix or of a canonical CSR matrix without
copying it.  The checks that let an input through unconverted (finite values, canonical
CSR, labels) run here in one pass each; ``okl._validation`` is the general path above
them (it converts, or raises the ``ValueError`` naming the problem).

Part of the typed core (``okl._core`` re-exports every name; see its docstring).
"""

from cpython.object cimport PyTypeObject

import sys

import numpy as np
cimport numpy as cnp

cnp.import_array()


cdef extern from "_vcheck.h":
    long long okl_first_nonfinite(const double* v, long long n) noexcept nogil
    void okl_row_norms(const double* v, int n, double* sq, double* l1) noexcept nogil
    int okl_unsorted(const int* idx, long long n) noexcept nogil


# a CSR row must never carry indices == NULL (that marks a dense row): rows of a
# matrix without stored values point here
cdef double _NO_DATA[1]
cdef int _NO_INDICES[1]


cdef class Stream:
    """Rows of a dense C-contiguous float64 matrix or of a canonical CSR matrix.

    Built by ``okl._validation.as_stream`` (or ``_core._stream_of``) after the
    input was checked; the arrays are kept alive here and read through raw
    pointers in the loop, never copied.  ``||x||^2`` and ``||x||_1`` of a row are
    computed when ``row`` hands it out (one pass over its non-zeros, in cache
    just before the kernel row reads them) unless arrays of them were given, so
    a stream costs no memory beyond its input.
    """
    def __cinit__(self, X=None, sqnorm=None, l1norm=None):
        cdef const double[:, ::1] dense
        cdef const double[::1] values
        cdef const int[::1] idx
        cdef const long long[::1] ptr
        cdef const double[::1] sq
        cdef const double[::1] l1
        self.sqnorm = NULL
        self.l1norm = NULL
        self.indptr = NULL
        self.indices = NULL
        self.data = NULL
        self.T = 0
        self.d = 0
        self.sparse = False
        if X is None:           # filled in by _stream_of
            return
        self.T = X.shape[0]
        self.d = X.shape[1]
        self.sparse = not isinstance(X, np.ndarray)
        self._keep = (X, sqnorm, l1norm)
        if self.sparse:
            data, indices, indptr = X.data, X.indices, X.indptr
            self._keep = (X, sqnorm, l1norm, data, indices, indptr)
            ptr = indptr
            self.indptr = &ptr[0]
            if data.shape[0] == 0:
                self.data = _NO_DATA
                self.indices = _NO_INDICES
            else:
                values = data
                idx = indices
                self.data = &values[0]
                self.indices = &idx[0]
        else:
            dense = X
            self.data = &dense[0, 0]
        if sqnorm is not None:
            sq = sqnorm
            l1 = l1norm
            self.sqnorm = &sq[0]
            self.l1norm = &l1[0]

    @property
    def arrays(self):
        """The arrays the stream reads (its input's own buffers when nothing was copied)."""
        return self._keep if isinstance(self._keep, tuple) else (self._keep,)

    cdef void row(self, Py_ssize_t t, Row* out) noexcept nogil:
        cdef long long start
        if self.indptr == NULL:
            out.data = self.data + t * self.d
            out.indices = NULL
            out.nnz = self.d
        else:
            start = self.indptr[t]
            out.data = self.data + start
            out.indices = self.indices + start
            out.nnz = <int> (self.indptr[t + 1] - start)
        if self.sqnorm != NULL:
            out.sqnorm = self.sqnorm[t]
            out.l1norm = self.l1norm[t]
        else:
            okl_row_norms(out.data, out.nnz, &out.sqnorm, &out.l1norm)


cdef class _CSR32Stream(Stream):
    """A CSR stream whose ``indptr`` is int32 (scipy's choice for matrices that fit),
    read as it is instead of being copied to int64."""
    cdef const int* indptr32
    cdef int own_ptr[2]       # [0, nnz] of a single row whose indptr is not int32

    cdef void row(self, Py_ssize_t t, Row* out) noexcept nogil:
        cdef int start = self.indptr32[t]
        out.data = self.data + start
        out.indices = self.indices + start
        out.nnz = self.indptr32[t + 1] - start
        okl_row_norms(out.data, out.nnz, &out.sqnorm, &out.l1norm)


# -- validation: one pass, no temporaries -----------------------------------------
#
# Every array the typed code reads in place must be aligned as well as C-contiguous:
# a float64 array made by np.frombuffer at an odd offset is neither rejected by numpy
# nor copied by np.ascontiguousarray, and reading a double from an address that is not
# a multiple of 8 is undefined behaviour in C (UBSan's misaligned loads in okl_row_norms,
# okl_dense_dots, ...; a vectorizer that peels a loop to reach an aligned address
# never gets there).  Such inputs take the general path, which copies them.

cdef inline bint _is_c_float64(object a, int ndim):
    return (isinstance(a, np.ndarray) and cnp.PyArray_NDIM(<cnp.ndarray> a) == ndim
            and cnp.PyArray_TYPE(<cnp.ndarray> a) == cnp.NPY_FLOAT64
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> a)
            and cnp.PyArray_ISALIGNED(<cnp.ndarray> a))


cdef inline bint _is_c_int(object a, int typenum):
    return (isinstance(a, np.ndarray) and cnp.PyArray_NDIM(<cnp.ndarray> a) == 1
            and cnp.PyArray_TYPE(<cnp.ndarray> a) == typenum
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> a)
            and cnp.PyArray_ISALIGNED(<cnp.ndarray> a))


def _first_nonfinite(cnp.ndarray a):
    """Flat index of the first NaN or infinity of a C-contiguous float64 array, or -1.

    The GIL is released during the scan (large inputs)."""
    if not (cnp.PyArray_TYPE(a) == cnp.NPY_FLOAT64 and cnp.PyArray_IS_C_CONTIGUOUS(a)
            and cnp.PyArray_ISALIGNED(a)):
        raise TypeError("an aligned C-contiguous float64 array is required")
    cdef const double* p = <const double*> cnp.PyArray_DATA(a)
    cdef long long n = cnp.PyArray_SIZE(a), i
    if n < 65536:
        return okl_first_nonfinite(p, n)
    with nogil:
        i = okl_first_nonfinite(p, n)
    return i


# codes of _csr_scan, in order of precedence
CSR_OK = 0
CSR_UNSORTED = 1          # unsorted or duplicate column indices in a row: fixable by a copy
CSR_NONFINITE = 2         # a NaN or infinite value
CSR_BAD_INDEX = 3         # a column index outside [0, d)
CSR_BAD_INDPTR = 4        # indptr not starting at 0, decreasing, or beyond the stored values

ctypedef fused index_t:
    int
    long long


cdef int _scan_csr(const double* data, const int* indices, const index_t* indptr,
                   long long nstored, Py_ssize_t T, int d, Py_ssize_t* where) noexcept nogil:
    """Canonicity and finiteness of a CSR matrix: one pass over ``indptr`` and the
    column indices, one (vectorized) over the stored values."""
    cdef Py_ssize_t t, lo, hi, mid
    cdef long long k, a, b, bad
    cdef int code = 0, j, prev
    where[0] = -1
    if indptr[0] != 0 or indptr[T] > nstored:
        where[0] = 0 if indptr[0] != 0 else T - 1
        return 4
    for t in range(T):
        a = indptr[t]
        b = indptr[t + 1]
        if b < a:
            where[0] = t
            return 4
        if b == a:
            continue
        # strictly increasing (a branch-free reduction the compiler vectorizes); then
        # the first and last index bound them all
        if okl_unsorted(indices + a, b - a) == 0:
            if indices[a] < 0 or indices[b - 1] >= d:
                where[0] = t
                return 3
            continue
        for k in range(a, b):
            j = indices[k]
            if j < 0 or j >= d:
                where[0] = t
                return 3
        if code == 0:
            code = 1
            where[0] = t
    bad = okl_first_nonfinite(data, indptr[T])
    if bad >= 0:
        lo = 0                  # the row holding stored value ``bad``: indptr[lo] <= bad
        hi = T                  # < indptr[lo + 1]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if indptr[mid] <= bad:
                lo = mid
            else:
                hi = mid
        where[0] = lo
        return 2
    return code


def _narrow_indices(a, long long bound):
    """``(int32 copy, -1)`` of an int64 index array whose values are in ``[0, bound)``,
    or ``(None, k)`` with ``k`` the first stored value outside: one pass (range check
    and narrowing together), without the GIL for large arrays."""
    if not _is_c_int(a, cnp.NPY_INT64):
        raise TypeError("an aligned C-contiguous int64 array is required")
    cdef Py_ssize_t n = cnp.PyArray_DIM(<cnp.ndarray> a, 0), i, bad = -1
    out = np.empty(n, dtype=np.int32)
    cdef const long long* src = <const long long*> cnp.PyArray_DATA(<cnp.ndarray> a)
    cdef int* dst = <int*> cnp.PyArray_DATA(<cnp.ndarray> out)
    cdef long long v
    with nogil:
        for i in range(n):
            v = src[i]
            if v < 0 or v >= bound:
                bad = i
                break
            dst[i] = <int> v
    if bad >= 0:
        return None, bad
    return out, -1


def _csr_scan(data, indices, indptr, Py_ssize_t T, int d):
    """``(code, row)`` of ``_scan_csr`` for a CSR triple: float64 ``data``, int32
    ``indices`` and int32 or int64 ``indptr`` (C-contiguous; checked here).  The GIL
    is released for large matrices."""
    if not (_is_c_float64(data, 1) and _is_c_int(indices, cnp.NPY_INT32)):
        raise TypeError("float64 data and int32 indices are required")
    if cnp.PyArray_DIM(<cnp.ndarray> indptr, 0) != T + 1:
        return CSR_BAD_INDPTR, 0
    cdef long long nstored = min(cnp.PyArray_DIM(<cnp.ndarray> data, 0),
                                 cnp.PyArray_DIM(<cnp.ndarray> indices, 0))
    cdef const double* dp = <const double*> cnp.PyArray_DATA(<cnp.ndarray> data)
    cdef const int* ip = <const int*> cnp.PyArray_DATA(<cnp.ndarray> indices)
    cdef const int* p32
    cdef const long long* p64
    cdef Py_ssize_t where = -1
    cdef int code
    cdef bint big = nstored > 65536
    if _is_c_int(indptr, cnp.NPY_INT32):
        p32 = <const int*> cnp.PyArray_DATA(<cnp.ndarray> indptr)
        if big:
            with nogil:
                code = _scan_csr(dp, ip, p32, nstored, T, d, &where)
        else:
            code = _scan_csr(dp, ip, p32, nstored, T, d, &where)
    elif _is_c_int(indptr, cnp.NPY_INT64):
        p64 = <const long long*> cnp.PyArray_DATA(<cnp.ndarray> indptr)
        if big:
            with nogil:
                code = _scan_csr(dp, ip, p64, nstored, T, d, &where)
        else:
            code = _scan_csr(dp, ip, p64, nstored, T, d, &where)
    else:
        raise TypeError("int32 or int64 indptr is required")
    return code, where


def _stream_of(X, data=None, indices=None, indptr=None, Py_ssize_t T=0, int d=0):
    """A ``Stream`` over checked arrays, without copying them: a C-contiguous float64
    ``X``, or (``X=None``) a canonical CSR triple with float64 ``data``, int32
    ``indices`` and int32 or int64 ``indptr``, of shape ``(T, d)``."""
    cdef Stream s
    cdef _CSR32Stream s32
    if X is not None:
        if not _is_c_float64(X, 2):
            raise TypeError("a C-contiguous float64 2-D array is required")
        s = Stream.__new__(Stream)
        s.T = cnp.PyArray_DIM(<cnp.ndarray> X, 0)
        s.d = <int> cnp.PyArray_DIM(<cnp.ndarray> X, 1)
        s.data = <const double*> cnp.PyArray_DATA(<cnp.ndarray> X)
        s._keep = X
        return s
    if not (_is_c_float64(data, 1) and _is_c_int(indices, cnp.NPY_INT32)):
        raise TypeError("float64 data and int32 indices are required")
    if _is_c_int(indptr, cnp.NPY_INT32):
        s32 = _CSR32Stream.__new__(_CSR32Stream)
        s32.indptr32 = <const int*> cnp.PyArray_DATA(<cnp.ndarray> indptr)
        s = s32
    elif _is_c_int(indptr, cnp.NPY_INT64):
        s = Stream.__new__(Stream)
        s.indptr = <const long long*> cnp.PyArray_DATA(<cnp.ndarray> indptr)
    else:
        raise TypeError("int32 or int64 indptr is required")
    if cnp.PyArray_DIM(<cnp.ndarray> indptr, 0) != T + 1:
        raise ValueError("indptr must have T + 1 entries")
    s.T = T
    s.d = d
    s.sparse = True
    if cnp.PyArray_DIM(<cnp.ndarray> data, 0) == 0:
        s.data = _NO_DATA
        s.indices = _NO_INDICES
    else:
        s.data = <const double*> cnp.PyArray_DATA(<cnp.ndarray> data)
        s.indices = <const int*> cnp.PyArray_DATA(<cnp.ndarray> indices)
    s._keep = (data, indices, indptr)
    return s


def _first_bad_label(cnp.ndarray y, bint classification):
    """Index of the first label of a C-contiguous float64 vector that is not finite
    (or, for classification, not -1 or +1), or -1."""
    if not (cnp.PyArray_TYPE(y) == cnp.NPY_FLOAT64 and cnp.PyArray_IS_C_CONTIGUOUS(y)
            and cnp.PyArray_ISALIGNED(y)):
        raise TypeError("an aligned C-contiguous float64 array is required")
    cdef const double* p = <const double*> cnp.PyArray_DATA(y)
    cdef Py_ssize_t n = cnp.PyArray_SIZE(y), i
    cdef double v
    if not classification:
        return okl_first_nonfinite(p, n)
    for i in range(n):
        v = p[i]
        if v != 1.0 and v != -1.0:
            return i
    return -1


def _stream_checked(X, int d):
    """A ``Stream`` over ``X`` without copying it, or ``None``.

    The fast path of ``okl._validation.as_stream``: a float64 C-contiguous 2-D array,
    or a CSR matrix (``csr_matrix``/``csr_array``) with float64 data and int32
    indices, canonical (sorted, distinct indices), finite, non-empty and ``d`` wide
    (``d < 0``: any width).  Anything else returns ``None`` and the caller takes the
    general path, which converts or raises the ``ValueError`` naming the problem.
    """
    cdef cnp.ndarray a
    cdef Py_ssize_t T, where
    cdef long long n
    cdef int width
    if isinstance(X, np.ndarray):
        if not _is_c_float64(X, 2):
            return None
        a = <cnp.ndarray> X
        T = cnp.PyArray_DIM(a, 0)
        width = <int> cnp.PyArray_DIM(a, 1)
        if T == 0 or width == 0 or (d >= 0 and width != d):
            return None
        n = T * <long long> width
        if n < 65536:
            if okl_first_nonfinite(<const double*> cnp.PyArray_DATA(a), n) >= 0:
                return None
        else:
            if _first_nonfinite(a) >= 0:
                return None
        return _stream_of(X)
    if not isinstance(X, _csr_types()):
        return None
    shape = X.shape
    if len(shape) != 2:
        return None
    T, width = shape
    if T == 0 or width == 0 or (d >= 0 and width != d):
        return None
    data, indices, indptr = X.data, X.indices, X.indptr
    if not (_is_c_float64(data, 1) and _is_c_int(indices, cnp.NPY_INT32)
            and (_is_c_int(indptr, cnp.NPY_INT32) or _is_c_int(indptr, cnp.NPY_INT64))):
        return None
    code, where = _csr_scan(data, indices, indptr, T, width)
    if code != CSR_OK:
        return None
    return _stream_of(None, data, indices, indptr, T, width)


def _labels_checked(y, Py_ssize_t n, bint classification):
    """``y`` itself if it is a float64 C-contiguous vector of ``n`` labels that pass the
    checks of ``check_labels`` (finite; -1 or +1 for classification), else ``None``."""
    if not (_is_c_float64(y, 1) and cnp.PyArray_DIM(<cnp.ndarray> y, 0) == n):
        return None
    if _first_bad_label(<cnp.ndarray> y, classification) >= 0:
        return None
    return y


_CSR_TYPES = None


cdef object _csr_types():
    global _CSR_TYPES
    if _CSR_TYPES is None:
        import scipy.sparse as sp
        _CSR_TYPES = (sp.csr_matrix, sp.csr_array) if hasattr(sp, "csr_array") \
            else (sp.csr_matrix,)
    return _CSR_TYPES


def _row_stream(x, int d):
    """A 1-row ``Stream`` over one example without copying it, or ``None``.

    See ``_row_stream_c``."""
    return _row_stream_c(x, d)


cdef object _float_vector(object seq, int d):
    """A list or tuple of Python floats and ints as a new float64 vector, or ``None``
    (another item type, a nested sequence, a bool, the wrong length: the general path
    converts it or says what is wrong).  One pass, no intermediate object array."""
    cdef Py_ssize_t n = len(seq), i
    cdef object item
    cdef double* p
    if n == 0 or (d >= 0 and n != d):
        return None
    out = np.empty(n)
    p = <double*> cnp.PyArray_DATA(<cnp.ndarray> out)
    for i in range(n):
        item = seq[i]
        if isinstance(item, float):        # float and numpy.float64
            p[i] = <double> item
        elif type(item) is int:
            try:
                p[i] = <double> item
            except OverflowError:
                return None
        else:
            return None
    return out


cdef Stream _row_stream_c(object x, int d):
    """A 1-row ``Stream`` over one example without copying it, or ``None``.

    The fast path of ``learn_one``/``predict_one``: a float64 C-contiguous 1-D
    array or ``(1, d)`` array, or a 1-row CSR matrix with float64 data and int32
    indices, canonical, finite and ``d`` wide (``d < 0``: any width).  Anything
    else -- another type, another dtype, a bad value -- returns ``None`` and the
    caller takes the general path, which converts or raises the ``ValueError``
    naming the problem.
    """
    cdef cnp.ndarray a
    cdef Stream s
    cdef _CSR32Stream s32
    cdef int ndim, n, k, prev, j
    cdef long long a0, a1
    cdef const double* dp
    cdef const int* ip
    if type(x) is list or type(x) is tuple:
        x = _float_vector(x, d)
        if x is None:
            return None
    if isinstance(x, np.ndarray):
        a = <cnp.ndarray> x
        ndim = cnp.PyArray_NDIM(a)
        if (cnp.PyArray_TYPE(a) != cnp.NPY_FLOAT64 or not cnp.PyArray_IS_C_CONTIGUOUS(a)
                or not cnp.PyArray_ISALIGNED(a)):
            return None
        if ndim == 1:
            n = <int> cnp.PyArray_DIM(a, 0)
        elif ndim == 2 and cnp.PyArray_DIM(a, 0) == 1:
            n = <int> cnp.PyArray_DIM(a, 1)
        else:
            return None
        if n == 0 or (d >= 0 and n != d):
            return None
        dp = <const double*> cnp.PyArray_DATA(a)
        if okl_first_nonfinite(dp, n) >= 0:
            return None
        s = Stream.__new__(Stream)
        s.T = 1
        s.d = n
        s.data = dp
        s._keep = x
        return s
    if not isinstance(x, _csr_types()):
        return None
    shape = x.shape
    if len(shape) != 2 or shape[0] != 1 or shape[1] == 0 or (d >= 0 and shape[1] != d):
        return None
    data, indices, indptr = x.data, x.indices, x.indptr
    if not (_is_c_float64(data, 1) and _is_c_int(indices, cnp.NPY_INT32)):
        return None
    if _is_c_int(indptr, cnp.NPY_INT32):
        a0 = (<const int*> cnp.PyArray_DATA(<cnp.ndarray> indptr))[0]
        a1 = (<const int*> cnp.PyArray_DATA(<cnp.ndarray> indptr))[1]
    elif _is_c_int(indptr, cnp.NPY_INT64):
        a0 = (<const long long*> cnp.PyArray_DATA(<cnp.ndarray> indptr))[0]
        a1 = (<const long long*> cnp.PyArray_DATA(<cnp.ndarray> indptr))[1]
    else:
        return None
    if a0 != 0 or a1 < 0 or a1 > cnp.PyArray_DIM(<cnp.ndarray> data, 0) \
            or a1 > cnp.PyArray_DIM(<cnp.ndarray> indices, 0):
        return None
    n = <int> shape[1]
    dp = <const double*> cnp.PyArray_DATA(<cnp.ndarray> data)
    ip = <const int*> cnp.PyArray_DATA(<cnp.ndarray> indices)
    prev = -1
    for k in range(<int> a1):
        j = ip[k]
        if j <= prev or j >= n:
            return None
        prev = j
    if a1 > 0 and okl_first_nonfinite(dp, a1) >= 0:
        return None
    s32 = _CSR32Stream.__new__(_CSR32Stream)
    s32.own_ptr[0] = 0
    s32.own_ptr[1] = <int> a1
    s32.indptr32 = s32.own_ptr
    s32.T = 1
    s32.d = n
    s32.sparse = True
    if a1 == 0:
        s32.data = _NO_DATA
        s32.indices = _NO_INDICES
    else:
        s32.data = dp
        s32.indices = ip
    s32._keep = x
    return s32


# okl._core is the public home of these names (see its docstring): the classes carry its
# name, and pickles, reprs and argument errors name it as before the split.

(<PyTypeObject*> Stream).tp_name = b"okl._core.Stream"
(<PyTypeObject*> _CSR32Stream).tp_name = b"okl._core._CSR32Stream"
for _f in (_first_nonfinite, _narrow_indices, _csr_scan, _stream_of, _first_bad_label,
           _stream_checked, _labels_checked, _row_stream):
    _f.__module__ = sys.intern("okl._core")
del _f
