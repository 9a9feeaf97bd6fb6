# Typed declarations shared by every extension module of okl.
#
# A learner module does ``from okl._core cimport Learner, Row, SupportSet, ...``
# and overrides ``score``/``update``; the stream driver in _core.pyx calls them
# round after round without the GIL.

from numpy.random cimport bitgen_t

# Kernel kinds understood by the typed kernel routines.
cdef enum:
    KERNEL_GAUSSIAN = 0
    KERNEL_POLYNOMIAL = 1
    KERNEL_LINEAR = 2
    KERNEL_LAPLACIAN = 3


ctypedef struct KernelParams:
    int kind
    double gamma      # Gaussian: 1/(2 sigma^2); Laplacian: 1/sigma; polynomial: scale
    double coef0      # polynomial offset
    int degree        # polynomial degree


ctypedef struct Row:
    # One example.  Dense: ``indices == NULL`` and ``nnz == d``.
    # CSR: ``data[k]`` is the value of feature ``indices[k]``.
    const double* data
    const int* indices
    int nnz
    double sqnorm     # ||x||_2^2
    double l1norm     # ||x||_1


cdef double kernel_self(const KernelParams* kp, const Row* x) noexcept nogil
# out[i] = ||x - s_i||^2 (near-duplicates recomputed exactly): the distances that
# every Gaussian kernel of a family shares (one row of distances, K exponentials)
cdef void sq_dist_row(const double* S, int ld, const double* s_sq, int n, int d,
                      const Row* x, double* out) noexcept nogil
# x[i] = exp(c * x[i]) for i < n, vectorized (okl/_vexp.h)
cdef void exp_scaled(double* x, int n, double c) noexcept nogil
cdef void kernel_row(const KernelParams* kp, const double* S, int ld, const double* s_sq,
                     const double* s_l1, int n, int d, const Row* x,
                     double* out) noexcept nogil


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


cdef class GramDictionary:
    """``K_S`` and a second matrix ``M`` (inverse or Cholesky factor) kept incrementally."""
    cdef double* K
    cdef double* M
    cdef double* work
    cdef int n, capacity
    cdef bint growable

    cdef int reserve(self, int capacity) noexcept nogil
    cdef int make_room(self) noexcept nogil
    cdef void set_gram_column(self, const double* k, double kxx) noexcept nogil
    cdef double residual(self, const double* k, double kxx, double* aux) noexcept nogil
    cdef int add(self, const double* k, double kxx, const double* aux, double alpha) noexcept nogil
    cdef void remove(self, int i) noexcept nogil
    cdef void to_beta(self, double* aux) noexcept nogil


cdef class GramInverse(GramDictionary):
    """``M = K_S^{-1}`` by block updates (add) and downdates (remove)."""
    pass


cdef class GramCholesky(GramDictionary):
    """``M = L`` with ``K_S = L L^T``, by appended rows and Givens-rotation deletions."""
    cdef void solve(self, double* b) noexcept nogil


cdef int regularized_projection_c(const double* K2, int ld2, const double* K21, int ld21,
                                  int m, int n, const double* a, double eta,
                                  double* theta, double* work) noexcept nogil


cdef class Learner:
    cdef KernelParams kp
    cdef SupportSet sv
    cdef long long t            # rounds learned so far
    cdef int d                  # input dimension (-1 until the first example)
    cdef bint classification    # labels in {-1, +1}; mistakes are counted
    cdef int error              # set by update() on failure (e.g. out of memory)
    cdef object _kernel
    cdef object _rng
    cdef bitgen_t* bitgen

    cdef double score(self, const Row* x) noexcept nogil
    cdef void update(self, const Row* x, double y, double f) noexcept nogil
    cdef double loss(self, double y, double f) noexcept nogil
    cdef int size(self) noexcept nogil
    cdef double uniform(self) noexcept nogil
