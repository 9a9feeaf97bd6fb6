# Kernels on rows (okl/_kernels.pyx).

from okl._stream cimport Row

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


# (kind, gamma, coef0, degree) of a kernel spec of okl.kernels
cdef KernelParams _params_of(object kernel) except *
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
