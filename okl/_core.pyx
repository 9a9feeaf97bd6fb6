# cython: language_level=3
"""Typed hot paths of okl.

What lives here, and why in one module: every learner's round is a kernel row
``k(x, S)`` against its support set, a little linear algebra on that row, and
a coefficient update.  The pieces are

* ``kernel_row`` / ``kernel_self``: Gaussian, polynomial, linear and Laplacian
  kernels on dense rows (one BLAS ``dgemv`` plus cached squared norms) and on
  CSR rows (gathering the row's non-zeros);
* ``SupportSet``: support vectors, their norms and coefficients in
  preallocated buffers;
* ``GramInverse`` and ``GramCholesky``: the Gram matrix of a dictionary kept
  incrementally, with the approximate-linear-dependence (ALD) residual
  ``alpha_t = k(x,x) - k_S(x)^T K_S^{-1} k_S(x)``;
* ``regularized_projection``: ``(K_2 + eta I)^{-1} K_21 a`` through LAPACK;
* ``Learner``: the base class with ``score``/``update`` and the single driver
  that runs a whole stream without the GIL.
"""

from cpython.exc cimport PyErr_CheckSignals
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport fabs, sqrt, hypot, fmax
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memmove, memset
from scipy.linalg.cython_blas cimport ddot, dgemv, dger, dscal, dtrsv, drot, dcopy
from scipy.linalg.cython_lapack cimport dposv, dpocon

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef double ONE = 1.0
cdef double ZERO = 0.0
cdef int INC1 = 1


# ----------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------

cdef inline KernelParams _params_of(object kernel) except *:
    """Read (kind, gamma, coef0, degree) from a kernel spec of okl.kernels."""
    cdef KernelParams kp
    kind, gamma, coef0, degree = kernel.kernel_params()
    kp.kind = kind
    kp.gamma = gamma
    kp.coef0 = coef0
    kp.degree = degree
    return kp


cdef double kernel_self(const KernelParams* kp, const Row* x) noexcept nogil:
    """``k(x, x)``."""
    cdef double v, out
    cdef int k
    if kp.kind == KERNEL_GAUSSIAN or kp.kind == KERNEL_LAPLACIAN:
        return 1.0
    if kp.kind == KERNEL_POLYNOMIAL:
        v = kp.gamma * x.sqnorm + kp.coef0
        out = v
        for k in range(1, kp.degree):
            out *= v
        return out
    return x.sqnorm


cdef extern from "_vexp.h":
    void okl_exp_scaled(double* x, int n, double c) noexcept nogil
    double okl_dot(const double* a, const double* b, int n) noexcept nogil
    void okl_dense_dots(const double* S, int ld, int n, int d, const double* x,
                        double* out) noexcept nogil
    void okl_sparse_dots(const double* S, int ld, int n, const int* idx, const double* val,
                         int nnz, double* out) noexcept nogil
    int okl_sq_dists(double* out, const double* s_sq, double x_sq, int n,
                     double rel) noexcept nogil


# Where ||s||^2 + ||x||^2 - 2<s, x> is below this fraction of ||s||^2 + ||x||^2 the
# subtraction has cancelled most digits; such (near-duplicate) pairs are recomputed
# exactly, so k(x, x) == 1 and ALD residuals of near-duplicates stay accurate.
cdef double CANCELLATION = 1e-4


cdef double _dist_exact(const double* s, int ld, int d, const Row* x, bint l1) noexcept nogil:
    """``||s - x||^2`` (or ``||s - x||_1``) term by term; ``s`` has stride ``ld``.

    CSR indices must be sorted (``okl._validation`` sorts them)."""
    cdef int j, k = 0
    cdef double acc = 0.0, v
    for j in range(d):
        if x.indices == NULL:
            v = s[<Py_ssize_t> j * ld] - x.data[j]
        elif k < x.nnz and x.indices[k] == j:
            v = s[<Py_ssize_t> j * ld] - x.data[k]
            k += 1
        else:
            v = s[<Py_ssize_t> j * ld]
        acc += fabs(v) if l1 else v * v
    return acc


cdef void sq_dist_row(const double* S, int ld, const double* s_sq, int n, int d,
                      const Row* x, double* out) noexcept nogil:
    """``out[i] = ||x - s_i||^2`` for the ``n`` vectors stored feature-major.

    ``||s||^2 + ||x||^2 - 2 <s, x>`` from the cached norms; where that cancels
    (near-duplicates) the distance is recomputed exactly, so ``||x - x||^2 = 0``.
    One row of distances serves every Gaussian kernel of a family (the kernel
    selection learners evaluate K widths from it).
    """
    cdef int i
    if n <= 0:
        return
    if x.indices == NULL:
        okl_dense_dots(S, ld, n, d, x.data, out)
    else:
        okl_sparse_dots(S, ld, n, x.indices, x.data, x.nnz, out)
    if okl_sq_dists(out, s_sq, x.sqnorm, n, CANCELLATION) > 0:
        for i in range(n):
            if out[i] < CANCELLATION * (s_sq[i] + x.sqnorm):
                out[i] = _dist_exact(S + i, ld, d, x, False)


cdef void exp_scaled(double* x, int n, double c) noexcept nogil:
    """``x[i] = exp(c x[i])``, vectorized (``okl/_vexp.h``)."""
    okl_exp_scaled(x, n, c)


cdef void kernel_row(const KernelParams* kp, const double* S, int ld, const double* s_sq,
                     const double* s_l1, int n, int d, const Row* x,
                     double* out) noexcept nogil:
    """``out[i] = k(x, s_i)`` for the ``n`` support vectors stored feature-major
    (``s_i[j] = S[i + j * ld]``).

    Inner products: one ``dgemv`` for a dense row; one axpy over a contiguous
    column per non-zero for a CSR row.  Gaussian/Laplacian distances that
    cancel (near-duplicates) are recomputed exactly, and the exponentials go
    through a vectorized loop (``_vexp.h``).
    """
    cdef int i, j, k
    cdef double v, xj
    cdef const double* col
    if n <= 0:
        return
    if kp.kind == KERNEL_LAPLACIAN:
        if x.indices == NULL:
            memset(out, 0, n * sizeof(double))
            for j in range(d):
                col = S + <Py_ssize_t> j * ld
                xj = x.data[j]
                for i in range(n):
                    out[i] += fabs(col[i] - xj)
        else:
            # ||s - x||_1 = ||s||_1 + sum over x's non-zeros of |s_j - x_j| - |s_j|
            memcpy(out, s_l1, n * sizeof(double))
            for k in range(x.nnz):
                col = S + <Py_ssize_t> x.indices[k] * ld
                xj = x.data[k]
                for i in range(n):
                    out[i] += fabs(col[i] - xj) - fabs(col[i])
            for i in range(n):
                if out[i] < CANCELLATION * (s_l1[i] + x.l1norm):
                    out[i] = _dist_exact(S + i, ld, d, x, True)
        okl_exp_scaled(out, n, -kp.gamma)
        return
    if kp.kind == KERNEL_GAUSSIAN:
        sq_dist_row(S, ld, s_sq, n, d, x, out)
        okl_exp_scaled(out, n, -kp.gamma)
        return
    if x.indices == NULL:
        okl_dense_dots(S, ld, n, d, x.data, out)
    else:
        okl_sparse_dots(S, ld, n, x.indices, x.data, x.nnz, out)
    if kp.kind == KERNEL_POLYNOMIAL:
        for i in range(n):
            v = kp.gamma * out[i] + kp.coef0
            out[i] = v
            for k in range(1, kp.degree):
                out[i] *= v


# ----------------------------------------------------------------------------
# Streams: dense or CSR rows behind one row accessor; validation in one pass
# ----------------------------------------------------------------------------

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

cdef inline bint _is_c_float64(object a, int ndim):
    return (isinstance(a, np.ndarray) and cnp.PyArray_NDIM(<cnp.ndarray> a) == ndim
            and cnp.PyArray_TYPE(<cnp.ndarray> a) == cnp.NPY_FLOAT64
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> a))


cdef inline bint _is_c_int(object a, int typenum):
    return (isinstance(a, np.ndarray) and cnp.PyArray_NDIM(<cnp.ndarray> a) == 1
            and cnp.PyArray_TYPE(<cnp.ndarray> a) == typenum
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> a))


def _first_nonfinite(cnp.ndarray a):
    """Flat index of the first NaN or infinity of a C-contiguous float64 array, or -1.

    The GIL is released during the scan (large inputs)."""
    if not (cnp.PyArray_TYPE(a) == cnp.NPY_FLOAT64 and cnp.PyArray_IS_C_CONTIGUOUS(a)):
        raise TypeError("a C-contiguous float64 array is required")
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
        raise TypeError("a C-contiguous int64 array is required")
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
    if not (cnp.PyArray_TYPE(y) == cnp.NPY_FLOAT64 and cnp.PyArray_IS_C_CONTIGUOUS(y)):
        raise TypeError("a C-contiguous float64 array is required")
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
        if cnp.PyArray_TYPE(a) != cnp.NPY_FLOAT64 or not cnp.PyArray_IS_C_CONTIGUOUS(a):
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


# ----------------------------------------------------------------------------
# Support set
# ----------------------------------------------------------------------------

cdef inline int _grow(void** p, size_t nbytes) noexcept nogil:
    """``realloc`` in place of ``*p``; -1 (and ``*p`` untouched) if out of memory."""
    cdef void* q = realloc(p[0], nbytes)
    if q == NULL:
        return -1
    p[0] = q
    return 0


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
    from okl._validation import as_stream
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


# ----------------------------------------------------------------------------
# Incremental Gram inverse (the Projectron / ALD inverse update)
# ----------------------------------------------------------------------------

cdef inline void _delete_index(double* A, int n, int ld, int i) noexcept nogil:
    """Delete row and column ``i`` of the n x n column-major ``A`` (in place)."""
    cdef int j
    cdef int tail = n - i - 1
    if tail > 0:
        # columns i+1.. move left by one
        memmove(A + <Py_ssize_t> i * ld, A + <Py_ssize_t> (i + 1) * ld,
                <size_t> tail * ld * sizeof(double))
    for j in range(n - 1):
        if tail > 0:
            memmove(A + <Py_ssize_t> j * ld + i, A + <Py_ssize_t> j * ld + i + 1, tail * sizeof(double))


cdef inline int _relayout(double** A, int n, int old_ld, int new_ld) noexcept nogil:
    """Move the n x n block of ``*A`` to a new buffer with leading dimension ``new_ld``."""
    cdef double* B = <double*> malloc(<size_t> new_ld * new_ld * sizeof(double))
    cdef int j
    if B == NULL:
        return -1
    for j in range(n):
        memcpy(B + <Py_ssize_t> j * new_ld, A[0] + <Py_ssize_t> j * old_ld, n * sizeof(double))
    free(A[0])
    A[0] = B
    return 0


cdef double _norm1(const double* A, int n, int ld) noexcept nogil:
    cdef int i, j
    cdef double best = 0.0, col
    for j in range(n):
        col = 0.0
        for i in range(n):
            col += fabs(A[i + <Py_ssize_t> j * ld])
        best = fmax(best, col)
    return best


cdef class GramDictionary:
    """Base of the incremental dictionaries: the Gram matrix ``K_S`` and a second
    ``|S| x |S|`` matrix ``M`` (``K_S^{-1}`` or a Cholesky factor), both column-major
    with leading dimension ``capacity``, grown on demand when ``growable``.

    Subclasses implement the typed ``residual`` (the ALD residual and an
    auxiliary vector), ``add``, ``remove`` and ``to_beta`` (turn the auxiliary
    vector into ``K_S^{-1} k``); the Python surface below is shared.
    """

    def __cinit__(self, int capacity, bint growable=False):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.n = 0
        self.capacity = 0
        self.growable = growable
        self.K = NULL
        self.M = NULL
        self.work = NULL
        if self.reserve(capacity) != 0:
            raise MemoryError(f"cannot allocate a {capacity} x {capacity} dictionary")

    def __dealloc__(self):
        free(self.K)
        free(self.M)
        free(self.work)

    cdef int reserve(self, int capacity) noexcept nogil:
        if capacity <= self.capacity:
            return 0
        if _relayout(&self.K, self.n, self.capacity, capacity) != 0:
            return -1
        if _relayout(&self.M, self.n, self.capacity, capacity) != 0:
            return -1
        if _grow(<void**> &self.work, 3 * capacity * sizeof(double)) != 0:
            return -1
        self.capacity = capacity
        return 0

    cdef inline int make_room(self) noexcept nogil:
        """0 if one more point fits (growing if allowed), -1 otherwise."""
        if self.n < self.capacity:
            return 0
        if not self.growable:
            return -1
        return self.reserve(2 * self.capacity)

    cdef inline void set_gram_column(self, const double* k, double kxx) noexcept nogil:
        """Write row/column ``n`` of ``K_S`` (the point being appended)."""
        cdef int j, n = self.n, ld = self.capacity
        for j in range(n):
            self.K[j + <Py_ssize_t> n * ld] = k[j]
            self.K[n + <Py_ssize_t> j * ld] = k[j]
        self.K[n + <Py_ssize_t> n * ld] = kxx

    cdef double residual(self, const double* k, double kxx, double* aux) noexcept nogil:
        return fmax(kxx, 0.0)

    cdef int add(self, const double* k, double kxx, const double* aux, double alpha) noexcept nogil:
        return -1

    cdef void remove(self, int i) noexcept nogil:
        pass

    cdef void to_beta(self, double* aux) noexcept nogil:
        pass

    # -- Python surface ---------------------------------------------------------

    @property
    def size(self):
        return self.n

    @property
    def max_size(self):
        return self.capacity

    @property
    def gram(self):
        """Copy of ``K_S``."""
        return _block_copy(self.K, self.n, self.capacity)

    def ald(self, k, double kxx):
        """``(alpha, beta)``: the ALD residual of a point and ``beta = K_S^{-1} k``.

        ``k`` is the point's kernel column against the dictionary, ``kxx`` its
        ``k(x, x)``; ``alpha = kxx - k^T K_S^{-1} k`` clamped at 0.
        """
        kv = _column(k, self.n)
        aux = np.zeros(self.n)
        cdef const double[::1] kk = kv
        cdef double[::1] a = aux
        alpha = self.residual(&kk[0] if self.n else NULL, kxx, &a[0] if self.n else NULL)
        if self.n:
            self.to_beta(&a[0])
        return alpha, aux

    def append(self, k, double kxx):
        """Add a point from its kernel column and ``k(x, x)``; returns its ALD residual.

        Raises ``ValueError`` if the residual is zero (the point is linearly
        dependent on the dictionary) or the dictionary is full.
        """
        kv = _column(k, self.n)
        aux = np.zeros(self.n)
        cdef const double[::1] kk = kv
        cdef double[::1] a = aux
        alpha = self.residual(&kk[0] if self.n else NULL, kxx, &a[0] if self.n else NULL)
        if self.add(&kk[0] if self.n else NULL, kxx, &a[0] if self.n else NULL, alpha) < 0:
            raise ValueError(_refusal(alpha, self.n, self.capacity, self.growable))
        return alpha

    def delete(self, int i):
        """Remove point ``i`` (later points shift down by one)."""
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range for a dictionary of size {self.n}")
        self.remove(i)

    def __reduce__(self):
        return (_rebuild_gram, (type(self), self.capacity, self.growable, self.gram,
                                _block_copy(self.M, self.n, self.capacity)))


cdef class GramInverse(GramDictionary):
    """The Gram matrix ``K_S`` of a dictionary and its inverse, kept incrementally.

    Adding ``x`` with kernel column ``k = k_S(x)`` and ``kxx = k(x, x)`` is the
    block (Schur complement) update with ``beta = K_S^{-1} k`` and
    ``alpha = kxx - k^T beta``::

        K_{S+x}^{-1} = [[K_S^{-1} + beta beta^T / alpha, -beta / alpha],
                        [-beta^T / alpha,                 1 / alpha    ]]

    Removing ``i`` is the matching downdate
    ``P_{-i,-i} - P_{-i,i} P_{i,-i} / P_{ii}`` on ``P = K_S^{-1}``.  Both are
    ``O(|S|^2)``.  ``alpha`` is the ALD residual: the squared RKHS distance from
    ``k(x, .)`` to the span of the dictionary (Engel et al. 2004; eq. (4) of
    Li & Liao 2023), clamped at zero against round-off.

    The explicit inverse loses accuracy when ``K_S`` is ill-conditioned
    (near-duplicate points); ``condition_number`` reports ``cond_1(K_S)``
    exactly, and ``GramCholesky`` is the stable alternative.
    """

    cdef double residual(self, const double* k, double kxx, double* beta) noexcept nogil:
        """``beta = K_S^{-1} k``; returns ``max(kxx - k^T beta, 0)``."""
        if self.n == 0:
            return fmax(kxx, 0.0)
        dgemv(b"N", &self.n, &self.n, &ONE, self.M, &self.capacity, <double*> k, &INC1,
              &ZERO, beta, &INC1)
        return fmax(kxx - ddot(&self.n, <double*> k, &INC1, beta, &INC1), 0.0)

    cdef int add(self, const double* k, double kxx, const double* beta, double alpha) noexcept nogil:
        """Append the point; ``beta``, ``alpha`` from ``residual``.

        Returns the new index, or -1 if ``alpha <= 0`` (the point lies in the
        span: its Gram matrix would be singular) or there is no room.
        """
        cdef int i, n = self.n, ld
        cdef double inv_a
        if not alpha > 0.0 or self.make_room() != 0:
            return -1
        ld = self.capacity
        inv_a = 1.0 / alpha
        if n > 0:
            dger(&n, &n, &inv_a, <double*> beta, &INC1, <double*> beta, &INC1, self.M, &ld)
        for i in range(n):
            self.M[i + <Py_ssize_t> n * ld] = -beta[i] * inv_a
            self.M[n + <Py_ssize_t> i * ld] = -beta[i] * inv_a
        self.M[n + <Py_ssize_t> n * ld] = inv_a
        self.set_gram_column(k, kxx)
        self.n = n + 1
        return n

    cdef void remove(self, int i) noexcept nogil:
        """Delete dictionary point ``i`` (later points shift down)."""
        cdef int j, m, ld = self.capacity
        cdef double q, neg_inv_q
        cdef double* p = self.work
        if i < 0 or i >= self.n:
            return
        m = self.n - 1
        q = self.M[i + <Py_ssize_t> i * ld]
        for j in range(self.n):
            if j != i:
                p[j if j < i else j - 1] = self.M[j + <Py_ssize_t> i * ld]
        _delete_index(self.M, self.n, ld, i)
        _delete_index(self.K, self.n, ld, i)
        self.n = m
        if m > 0:
            neg_inv_q = -1.0 / q
            dger(&m, &m, &neg_inv_q, p, &INC1, p, &INC1, self.M, &ld)

    @property
    def inverse(self):
        """Copy of ``K_S^{-1}``."""
        return _block_copy(self.M, self.n, self.capacity)

    def condition_number(self):
        """``cond_1(K_S) = ||K_S||_1 ||K_S^{-1}||_1`` (1.0 for an empty dictionary)."""
        if self.n == 0:
            return 1.0
        return _norm1(self.K, self.n, self.capacity) * _norm1(self.M, self.n, self.capacity)


cdef class GramCholesky(GramDictionary):
    """The Gram matrix ``K_S = L L^T`` of a dictionary through its Cholesky factor.

    Adding a point appends the row ``[c^T, sqrt(alpha)]`` with
    ``c = L^{-1} k`` and the ALD residual ``alpha = kxx - ||c||^2``; removing
    point ``i`` deletes row ``i`` of ``L`` and restores the triangle with Givens
    rotations (``O(|S|^2)``).  No inverse is ever formed, so residuals of
    near-duplicates stay accurate where ``GramInverse`` drifts; residuals are
    clamped at zero and ``add`` refuses points whose residual is not positive.
    ``condition_number`` estimates ``cond_1(K_S)`` with LAPACK ``dpocon``.
    """

    cdef double residual(self, const double* k, double kxx, double* c) noexcept nogil:
        """``c = L^{-1} k``; returns ``max(kxx - ||c||^2, 0)``."""
        if self.n == 0:
            return fmax(kxx, 0.0)
        dcopy(&self.n, <double*> k, &INC1, c, &INC1)
        dtrsv(b"L", b"N", b"N", &self.n, self.M, &self.capacity, c, &INC1)
        return fmax(kxx - ddot(&self.n, c, &INC1, c, &INC1), 0.0)

    cdef int add(self, const double* k, double kxx, const double* c, double alpha) noexcept nogil:
        """Append the point; ``c`` and ``alpha`` from ``residual``. -1 if refused."""
        cdef int j, n = self.n, ld
        if not alpha > 0.0 or self.make_room() != 0:
            return -1
        ld = self.capacity
        for j in range(n):
            self.M[n + <Py_ssize_t> j * ld] = c[j]
            self.M[j + <Py_ssize_t> n * ld] = 0.0
        self.M[n + <Py_ssize_t> n * ld] = sqrt(alpha)
        self.set_gram_column(k, kxx)
        self.n = n + 1
        return n

    cdef void remove(self, int i) noexcept nogil:
        """Delete point ``i``: drop row ``i`` of ``L``, re-triangularize by Givens rotations."""
        cdef int r, j, m, ld = self.capacity, rows
        cdef double a, b, h, cs, sn
        cdef double* colr
        if i < 0 or i >= self.n:
            return
        m = self.n - 1
        # drop row i in every column (columns stay; rows below move up)
        for j in range(self.n):
            if m - i > 0:
                memmove(self.M + <Py_ssize_t> j * ld + i, self.M + <Py_ssize_t> j * ld + i + 1,
                        (m - i) * sizeof(double))
        # rows r >= i now have an entry at column r+1: rotate columns (r, r+1)
        for r in range(i, m):
            colr = self.M + <Py_ssize_t> r * ld
            a = colr[r]
            b = colr[ld + r]
            h = hypot(a, b)
            if h > 0.0:
                cs = a / h
                sn = b / h
                rows = m - r
                drot(&rows, colr + r, &INC1, colr + ld + r, &INC1, &cs, &sn)
                colr[r] = h
                colr[ld + r] = 0.0
        _delete_index(self.K, self.n, ld, i)
        self.n = m

    cdef void to_beta(self, double* c) noexcept nogil:
        """``c = L^{-1} k``  ->  ``K_S^{-1} k = L^{-T} c``."""
        dtrsv(b"L", b"T", b"N", &self.n, self.M, &self.capacity, c, &INC1)

    cdef void solve(self, double* b) noexcept nogil:
        """``b <- K_S^{-1} b`` by two triangular solves."""
        if self.n == 0:
            return
        dtrsv(b"L", b"N", b"N", &self.n, self.M, &self.capacity, b, &INC1)
        self.to_beta(b)

    @property
    def factor(self):
        """The lower-triangular ``L`` with ``L @ L.T == K_S``."""
        return np.tril(_block_copy(self.M, self.n, self.capacity))

    def condition_number(self):
        """LAPACK's estimate of ``cond_1(K_S)`` from the Cholesky factor (``dpocon``)."""
        cdef double anorm, rcond = 0.0
        cdef int info = 0
        if self.n == 0:
            return 1.0
        anorm = _norm1(self.K, self.n, self.capacity)
        iwork = np.empty(self.n, dtype=np.intc)
        cdef int[::1] iw = iwork
        dpocon(b"L", &self.n, self.M, &self.capacity, &anorm, &rcond, self.work, &iw[0], &info)
        return np.inf if rcond == 0.0 else 1.0 / rcond


cdef object _block_copy(const double* A, int n, int ld):
    out = np.empty((n, n))
    cdef double[:, ::1] o = out
    cdef int i, j
    for i in range(n):
        for j in range(n):
            o[i, j] = A[i + <Py_ssize_t> j * ld]
    return out


cdef void _fill_block(double* A, int ld, B) except *:
    cdef const double[:, ::1] b = np.ascontiguousarray(B, dtype=np.float64)
    cdef Py_ssize_t i, j
    for i in range(b.shape[0]):
        for j in range(b.shape[1]):
            A[i + j * ld] = b[i, j]


cdef object _column(k, int n):
    kv = np.ascontiguousarray(k, dtype=np.float64).reshape(-1)
    if kv.shape[0] != n:
        raise ValueError(f"kernel column has {kv.shape[0]} entries, the dictionary has {n} points")
    if not np.all(np.isfinite(kv)):
        raise ValueError("kernel column contains NaN or infinity")
    return kv


def _refusal(alpha, n, capacity, growable):
    if n >= capacity and not growable:
        return f"dictionary is full (capacity {capacity})"
    return (f"ALD residual is {alpha!r}: the point is linearly dependent on the "
            "dictionary and its Gram matrix would be singular")


def _rebuild_gram(cls, capacity, growable, K, M):
    cdef GramDictionary obj = cls(capacity, growable)
    n = K.shape[0]
    if obj.reserve(n) != 0:
        raise MemoryError("cannot restore the dictionary")
    _fill_block(obj.K, obj.capacity, K)
    _fill_block(obj.M, obj.capacity, M)
    obj.n = n
    return obj


# ----------------------------------------------------------------------------
# Regularized projection (Ahpatron eq. (9))
# ----------------------------------------------------------------------------

cdef int regularized_projection_c(const double* K2, int ld2, const double* K21, int ld21,
                                  int m, int n, const double* a, double eta,
                                  double* theta, double* work) noexcept nogil:
    """``theta = (K2 + eta I)^{-1} K21 a`` with ``dposv``.

    ``K2`` is m x m and ``K21`` m x n, both column-major with leading
    dimensions ``ld2``/``ld21``; ``work`` holds at least m*m doubles.  Returns
    LAPACK's ``info`` (0 on success, > 0 if ``K2 + eta I`` is not positive
    definite).
    """
    cdef int j, info = 0, nrhs = 1
    if m == 0:
        return 0
    dgemv(b"N", &m, &n, &ONE, <double*> K21, &ld21, <double*> a, &INC1, &ZERO, theta, &INC1)
    for j in range(m):
        memcpy(work + <Py_ssize_t> j * m, K2 + <Py_ssize_t> j * ld2, m * sizeof(double))
        work[j + <Py_ssize_t> j * m] += eta
    dposv(b"L", &m, &nrhs, work, &m, theta, &m, &info)
    return info


def regularized_projection(K2, K21, a, double eta):
    """``(K_2 + eta I)^{-1} K_21 a`` (Ahpatron, eq. (9)) through LAPACK ``dposv``.

    Parameters
    ----------
    K2 : (m, m) array
        Gram matrix of the kept half.
    K21 : (m, n) array
        Kernel values between the kept and the removed half.
    a : (n,) array
        Coefficients of the removed half.
    eta : float
        Regularization, ``>= 0``.
    """
    K2 = np.asfortranarray(K2, dtype=np.float64)
    K21 = np.asfortranarray(K21, dtype=np.float64)
    av = np.ascontiguousarray(a, dtype=np.float64).reshape(-1)
    if K2.ndim != 2 or K2.shape[0] != K2.shape[1]:
        raise ValueError(f"K2 must be square, got shape {K2.shape}")
    m = K2.shape[0]
    if K21.ndim != 2 or K21.shape[0] != m:
        raise ValueError(f"K21 must have shape ({m}, n), got {K21.shape}")
    if av.shape[0] != K21.shape[1]:
        raise ValueError(f"a must have {K21.shape[1]} entries, got {av.shape[0]}")
    if not eta >= 0:
        raise ValueError(f"eta must be >= 0, got {eta}")
    for name, arr in (("K2", K2), ("K21", K21), ("a", av)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinity")
    theta = np.zeros(m)
    if m == 0 or K21.shape[1] == 0:
        return theta
    work = np.empty(m * m)
    cdef const double[::1, :] k2 = K2
    cdef const double[::1, :] k21 = K21
    cdef const double[::1] aa = av
    cdef double[::1] th = theta
    cdef double[::1] w = work
    info = regularized_projection_c(&k2[0, 0], m, &k21[0, 0], m, m, K21.shape[1],
                                    &aa[0], eta, &th[0], &w[0])
    if info != 0:
        raise ValueError(f"K2 + eta I is not positive definite (LAPACK dposv info={info}); "
                         "increase eta")
    return theta


# ----------------------------------------------------------------------------
# Learners: base class and the stream driver
# ----------------------------------------------------------------------------

cdef class Learner:
    """Base of every okl learner.

    A subclass overrides the typed methods ``score`` (prediction for ``x``
    from the current hypothesis), ``update`` (learn from ``(x, y)`` given that
    score) and ``loss``; the driver ``_drive`` calls them round after round
    without the GIL.  During round ``t`` (1-based), ``self.t == t``.

    The Python surface (``run``, ``learn_one``, ``predict_one``,
    ``partial_fit``, ``decision_function``, ``predict``, pickling) lives in
    ``okl.learners.base.OnlineLearner`` so that it is written once.
    """

    def __cinit__(self, *args, **kwargs):
        self.t = 0
        self.d = -1
        self.error = 0
        self.classification = True
        self.sv = None
        self._kernel = None
        self._rng = None
        self.bitgen = NULL

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        pass

    cdef double loss(self, double y, double f) noexcept nogil:
        return 0.0

    cdef int size(self) noexcept nogil:
        return self.sv.n if self.sv is not None else 0

    cdef double uniform(self) noexcept nogil:
        """A uniform draw in [0, 1) from the learner's seeded generator."""
        return self.bitgen.next_double(self.bitgen.state)

    # -- configuration, used by okl.learners.base ------------------------------

    def _core_setup(self, kernel, seed, bint classification):
        self._kernel = kernel
        if kernel is not None:
            self.kp = _params_of(kernel)
        self.classification = classification
        self._core_set_rng(np.random.default_rng(seed))

    def _core_set_rng(self, rng):
        self._rng = rng
        self.bitgen = <bitgen_t*> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")

    def _core_allocate(self, int d, int capacity, bint growable):
        """Called once, at the first example: fixes ``d`` and allocates the support set."""
        self.d = d
        if self._kernel is not None:
            self.sv = SupportSet(self._kernel, d, capacity, growable)

    def _core_state(self):
        return {"t": self.t, "d": self.d, "sv": self.sv, "rng": self._rng}

    def _core_restore(self, dict state):
        self.t = state["t"]
        self.d = state["d"]
        self.sv = state["sv"]
        self._core_set_rng(state["rng"])

    def _uniform_draws(self, int n):
        """``n`` draws of the typed ``uniform()`` (the stream the learners consume)."""
        out = np.empty(n)
        cdef double[::1] o = out
        cdef int i
        for i in range(n):
            o[i] = self.uniform()
        return out

    @property
    def n_rounds(self):
        """Rounds learned so far."""
        return self.t

    @property
    def n_features(self):
        """Input dimension, or ``None`` before the first example."""
        return None if self.d < 0 else self.d

    @property
    def support_set(self):
        """The learner's ``SupportSet`` (``None`` before the first example)."""
        return self.sv

    @property
    def is_classifier(self):
        return self.classification


# ----------------------------------------------------------------------------
# One BLAS thread around a learner's round loop, cheaply
# ----------------------------------------------------------------------------
# threadpoolctl's ``limit`` costs ~12 us a call (it re-reads every library's state
# through ctypes), as much as dozens of rounds.  okl.learners.base binds here, once,
# the ``openblas_get/set_num_threads`` of each OpenBLAS (pthreads) library that
# threadpoolctl finds; entering and leaving then costs two C calls.  The count of
# calls inside the guard is process-wide and changed with the GIL held: the first
# call in limits, the last one out restores, so threads running learners in
# parallel never restore each other's limit halfway.

ctypedef int (*_get_threads_t)() noexcept nogil
ctypedef void (*_set_threads_t)(int) noexcept nogil

cdef int _N_BLAS = 0
cdef _get_threads_t _BLAS_GET[8]
cdef _set_threads_t _BLAS_SET[8]
cdef int _BLAS_SAVED[8]
cdef long _BLAS_USERS = 0


def _blas_bind(pairs):
    """Bind ``[(get_address, set_address), ...]`` (at most 8); returns how many."""
    global _N_BLAS
    if _BLAS_USERS:
        raise RuntimeError("cannot rebind BLAS thread controls while a guard is active")
    cdef int n = 0
    cdef size_t g, s
    for g, s in pairs[:8]:
        _BLAS_GET[n] = <_get_threads_t> <void*> g
        _BLAS_SET[n] = <_set_threads_t> <void*> s
        n += 1
    _N_BLAS = n
    return n


def _blas_enter():
    """Enter the one-BLAS-thread section (limit on the first entry)."""
    global _BLAS_USERS
    cdef int i
    if _BLAS_USERS == 0:
        for i in range(_N_BLAS):
            _BLAS_SAVED[i] = _BLAS_GET[i]()
            if _BLAS_SAVED[i] != 1:
                _BLAS_SET[i](1)
    _BLAS_USERS += 1


def _blas_exit():
    """Leave it (restore the saved thread counts on the last exit)."""
    global _BLAS_USERS
    cdef int i
    if _BLAS_USERS <= 0:
        return
    _BLAS_USERS -= 1
    if _BLAS_USERS == 0:
        for i in range(_N_BLAS):
            if _BLAS_SAVED[i] != 1:
                _BLAS_SET[i](_BLAS_SAVED[i])


# rounds between two checks for Ctrl-C during a run
cdef Py_ssize_t SIGNAL_CHECK_EVERY = 4096


cdef Py_ssize_t _rounds(Learner L, Stream s, const double* y, double* scores,
                        double* losses, unsigned char* mistakes, int* budget,
                        Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    """Rounds ``start .. stop - 1`` of ``s``; returns the end of the completed ones
    (``stop``, or the round whose ``update`` set ``L.error``).  The per-round records
    are written where their array is given (``NULL``: ``partial_fit`` keeps none);
    ``loss`` is called either way, so a learner sees the same calls."""
    cdef Py_ssize_t t
    cdef Row row
    cdef double f, yt, lt
    for t in range(start, stop):
        s.row(t, &row)
        L.t += 1
        f = L.score(&row)
        yt = y[t]
        lt = L.loss(yt, f)
        if scores != NULL:
            scores[t] = f
            losses[t] = lt
            mistakes[t] = L.classification and yt * f <= 0.0
        L.update(&row, yt, f)
        if L.error:
            return t
        if budget != NULL:
            budget[t] = L.size()
    return stop


cdef inline void* _data_or_null(object a, int typenum, Py_ssize_t n,
                                bint write=True) except? NULL:
    if a is None:
        return NULL
    if not (isinstance(a, np.ndarray) and cnp.PyArray_NDIM(<cnp.ndarray> a) == 1
            and cnp.PyArray_TYPE(<cnp.ndarray> a) == typenum
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> a)
            and (cnp.PyArray_ISWRITEABLE(<cnp.ndarray> a) or not write)
            and cnp.PyArray_DIM(<cnp.ndarray> a, 0) >= n):
        raise TypeError("labels and per-round arrays must be C-contiguous vectors of T "
                        "entries of the driver's types (the latter writeable)")
    return cnp.PyArray_DATA(<cnp.ndarray> a)


def _drive(Learner L, Stream s, y, scores=None, losses=None, mistakes=None, budget=None):
    """Run ``L`` over every row of ``s``; returns the number of completed rounds.

    ``y`` is a float64 C-contiguous vector of ``s.T`` labels; ``scores``,
    ``losses`` (float64), ``mistakes`` (uint8) and ``budget`` (intc) receive the
    per-round records, or are all ``None`` (nothing recorded).  The rounds run
    without the GIL, in blocks of ``SIGNAL_CHECK_EVERY``; between two blocks the
    GIL is taken briefly so that Ctrl-C (or any signal handler's exception) gets
    through: it is re-raised there, so the learner holds exactly the completed
    rounds.  Stops early if ``update`` sets ``L.error``.
    """
    cdef Py_ssize_t T = s.T, done = 0, stop
    cdef const double* yp = <const double*> _data_or_null(y, cnp.NPY_FLOAT64, T, False)
    if yp == NULL:
        raise TypeError("y is required")
    cdef double* sc = <double*> _data_or_null(scores, cnp.NPY_FLOAT64, T)
    cdef double* ls = <double*> _data_or_null(losses, cnp.NPY_FLOAT64, T)
    cdef unsigned char* mk = <unsigned char*> _data_or_null(mistakes, cnp.NPY_UINT8, T)
    cdef int* bd = <int*> _data_or_null(budget, cnp.NPY_INT, T)
    if (sc == NULL) != (ls == NULL) or (sc == NULL) != (mk == NULL) \
            or (sc == NULL) != (bd == NULL):
        raise TypeError("give all four per-round arrays or none")
    while done < T:
        stop = min(T, done + SIGNAL_CHECK_EVERY)
        with nogil:
            done = _rounds(L, s, yp, sc, ls, mk, bd, done, stop)
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


def _learn_one(Learner L, Stream s, double y):
    """One round on the first row of ``s`` (the GIL released); False if ``update``
    failed (``L.error``)."""
    cdef Row row
    cdef double f
    s.row(0, &row)
    with nogil:
        L.t += 1
        f = L.score(&row)
        L.loss(y, f)
        L.update(&row, y, f)
    return not L.error


cdef inline int _label_of(object y, bint classification, double* out):
    """A float (Python or NumPy) label that passes the checks of ``check_label``."""
    cdef double v
    if not isinstance(y, float):        # np.float64 is a float too
        return 0
    v = y
    if classification:
        if v != 1.0 and v != -1.0:
            return 0
    elif v - v != 0.0:
        return 0
    out[0] = v
    return 1


def _learn_one_fast(Learner L, lock, x, y):
    """``learn_one`` in one call when nothing needs Python: ``L`` has seen its first
    example, ``x`` is a float64 vector / 1-row array / 1-row CSR (float64, int32)
    that passes the checks, and ``y`` a float label that does.  Returns ``None``
    (nothing done, nothing changed) when the general path must handle the call;
    otherwise ``True``, or ``False`` if ``update`` failed.  Holds ``lock`` (the
    learner's) from the checks to the end of the round."""
    cdef Stream s
    cdef Row row
    cdef double v, f
    lock.acquire()
    try:
        if L.d < 0:
            return None
        s = _row_stream_c(x, L.d)
        if s is None or not _label_of(y, L.classification, &v):
            return None
        s.row(0, &row)
        with nogil:
            L.t += 1
            f = L.score(&row)
            L.loss(v, f)
            L.update(&row, v, f)
        return not L.error
    finally:
        lock.release()


def _predict_one_fast(Learner L, lock, x):
    """``f(x)`` for ``predict_one`` in one call (see ``_learn_one_fast``), or ``None``."""
    cdef Stream s
    cdef Row row
    cdef double f
    lock.acquire()
    try:
        if L.d < 0:
            return None
        s = _row_stream_c(x, L.d)
        if s is None:
            return None
        s.row(0, &row)
        with nogil:
            f = L.score(&row)
        return f
    finally:
        lock.release()


def _predict_one(Learner L, Stream s):
    """``f(x)`` of the current hypothesis on the first row of ``s``."""
    cdef Row row
    cdef double f
    s.row(0, &row)
    with nogil:
        f = L.score(&row)
    return f


def _decide(Learner L, Stream s):
    """Scores of the current hypothesis on every row of ``s`` (no learning)."""
    out = np.empty(s.T)
    cdef double[::1] o = out
    cdef Py_ssize_t t
    cdef Row row
    with nogil:
        for t in range(s.T):
            s.row(t, &row)
            o[t] = L.score(&row)
    return out
