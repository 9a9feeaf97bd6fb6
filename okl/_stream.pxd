# Rows and streams (okl/_stream.pyx): one example as the kernels read it, and the rows
# of a dense or CSR matrix behind one accessor.


ctypedef struct Row:
    # One example.  Dense: ``indices == NULL`` and ``nnz == d``.
    # CSR: ``data[k]`` is the value of feature ``indices[k]``.
    const double* data
    const int* indices
    int nnz
    double sqnorm     # ||x||_2^2
    double l1norm     # ||x||_1


cdef class Stream:
    cdef readonly Py_ssize_t T
    cdef readonly int d
    cdef readonly bint sparse
    cdef object _keep
    cdef const double* data
    cdef const int* indices
    cdef const long long* indptr
    cdef const double* sqnorm
    cdef const double* l1norm
    cdef void row(self, Py_ssize_t t, Row* out) noexcept nogil


# a 1-row Stream over one example without copying it, or None (learn_one's fast path)
cdef Stream _row_stream_c(object x, int d)
