# Typed KORS (Kernel-Online-Row-Sampling, Calandriello, Lazaric & Valko, NeurIPS 2017)
# and the weighted ridge Gram factor it rests on (okl/learners/_kors.pyx).
#
# PKAWV with the Nystrom basis, Pros-N-KONS and Sketched-KONS hold one of these as a
# typed attribute and call it in their nogil round loops:
#
#     from okl.learners._kors cimport KORS, RidgeLeverage
#
#     cdef KORS kors = KORS(mu, beta, eps, 0.5, 64)
#     r = kors.residual(k_I(x), k(x, x))     # caches S k_I(x) and L^{-1} S k_I(x)
#     p = kors.probability(r)                 # min(beta tau, 1), tau = (1+eps) r / (r + mu)
#     if u < p: kors.reserve(kors.n + 1); kors.add(kors.weight(p))
#
# ``residual`` and ``add`` work on the *last evaluated* point: ``add`` appends it
# with the given weight, reusing the cached vectors (O(n) instead of O(n^2)).

from okl._core cimport GramCholesky


cdef class RidgeLeverage:
    """``S K_II S + mu I`` of a weighted dictionary through its Cholesky factor."""
    cdef double mu
    cdef GramCholesky chol      # S K_II S + mu I, appended rows
    cdef double* w              # the weights (the diagonal of S)
    cdef double* kw             # S k_I(x) of the last evaluated point
    cdef double* c              # L^{-1} S k_I(x) of the last evaluated point
    cdef double kxx             # k(x, x) of the last evaluated point
    cdef double r               # its residual k(x,x) - k^T S (S K S + mu I)^{-1} S k
    cdef int n, cap

    cdef int reserve(self, int need) noexcept nogil
    cdef double residual(self, const double* k, double kxx) noexcept nogil
    cdef int add(self, double weight) noexcept nogil
    cdef void weighted_solution(self, double* out) noexcept nogil


cdef class KORS(RidgeLeverage):
    """KORS: ridge leverage of the temporary dictionary, Bernoulli inclusion."""
    cdef double beta, eps, weight_power

    cdef double probability(self, double r) noexcept nogil
    cdef double weight(self, double p) noexcept nogil
