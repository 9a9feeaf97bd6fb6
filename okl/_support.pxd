# The support set (okl/_support.pyx).

from okl._kernels cimport KernelParams
from okl._stream cimport Row, Stream


cdef class SupportSet:
    """Support vectors in a preallocated ``capacity x d`` buffer."""
    cdef KernelParams kp
    cdef double* X          # feature-major: s_i[j] = X[i + j * capacity]
    cdef double* sqnorm     # ||s_i||^2
    cdef double* l1norm     # ||s_i||_1
    cdef double* alpha      # coefficients
    cdef long long* stamp   # round at which each vector entered
    cdef double* krow       # kernel row k(x, S) of the last scored example
    cdef double* rowbuf     # d doubles: the copy handed out by as_row
    cdef int n, d, capacity
    cdef bint growable
    cdef object kernel      # the Python kernel spec (for pickling and repr)

    cdef int reserve(self, int capacity) noexcept nogil
    cdef void write_row(self, int i, const Row* x) noexcept nogil
    cdef int add(self, const Row* x, double a, long long stamp) noexcept nogil
    cdef void remove(self, int i) noexcept nogil
    cdef void swap_remove(self, int i) noexcept nogil
    cdef void replace(self, int i, const Row* x, double a, long long stamp) noexcept nogil
    cdef void kernel_row_into(self, const Row* x, double* out) noexcept nogil
    cdef object rows_of(self, Stream s)
    cdef void fill_krow(self, const Row* x) noexcept nogil
    cdef double score(self, const Row* x) noexcept nogil
    cdef void scale(self, double c) noexcept nogil
    cdef void as_row(self, int i, Row* out) noexcept nogil
