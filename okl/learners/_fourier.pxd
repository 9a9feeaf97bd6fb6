# The random Fourier features of FOGD (Lu, Hoi, Wang, Zhao & Liu, JMLR 17(47), 2016),
# shared by the binary core (okl/learners/_features.pyx, FOGDCore.features) and the
# multiclass one (okl/learners/_multiclass_features.pyx, MulticlassFOGDCore.features):
# inlined into each, once a round.
#
#     from okl.learners._fourier cimport fourier_features

from okl._core cimport Row

cdef extern from "../_vtrig.h" nogil:
    void okl_sincos(const double* x, int n, double scale, double* c, double* s, int exact)

cdef extern from "../_vexp.h" nogil:
    void okl_dense_dots(const double* S, int ld, int n, int d, const double* x, double* out)
    void okl_sparse_dots(const double* S, int ld, int n, const int* idx, const double* val,
                         int nnz, double* out)


cdef inline void fourier_features(const double* U, int D, int d, const Row* x, double* ux,
                                  double scale, int exact, double* out) noexcept nogil:
    """``out = scale [cos(u_i^T x)]_i ++ scale [sin(u_i^T x)]_i`` (``2 D`` values):
    ``ux = U x`` by ``okl_dense_dots`` / ``okl_sparse_dots`` (``U`` feature-major,
    ``u_i[j] = U[i + j D]``), then ``okl_sincos`` (libm's with ``exact``)."""
    if x.indices == NULL:
        okl_dense_dots(U, D, D, d, x.data, ux)
    else:
        okl_sparse_dots(U, D, D, x.indices, x.data, x.nnz, ux)
    okl_sincos(ux, D, scale, out, out + D, exact)
