# Gram dictionaries and the regularized projection (okl/_gram.pyx).


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
