# The Nystrom map of NOGD's landmarks (Lu, Hoi, Wang, Zhao & Liu, JMLR 17(47), 2016),
# shared by the binary core (okl/learners/_features.pyx, NOGDCore.build_map) and the
# multiclass one (okl/learners/_multiclass_features.pyx, MulticlassNOGDCore.build_map):
# the eigendecomposition of the landmarks' Gram matrix and the map it gives, once.  Each
# core then projects its own model on the basis (binary ``w``, multiclass ``W``).
#
#     from okl.learners._nystrom cimport nystrom_map

from libc.float cimport DBL_EPSILON
from libc.math cimport fmax, sqrt
from libc.stdlib cimport free, malloc
from scipy.linalg.cython_lapack cimport dsyevr

from okl._core cimport Row, SupportSet


cdef inline int nystrom_map(SupportSet sv, int n, int kk, double* M, int ldm,
                            double* evals, double** V_out) noexcept nogil:
    """The Nystrom map of the first ``n`` support vectors: ``K_B = V Lambda V^T``.

    The ``kk`` largest eigenpairs by LAPACK ``dsyevr`` (relatively robust
    representations; 4.6x faster than ``dsyev``'s QR at B = 1000), less those with
    ``lambda <= n eps lambda_max`` (numerically zero: duplicated landmarks).  For the
    ``r`` kept, largest first: ``evals[j] = lambda_j`` and row ``j`` of
    ``M = Lambda_r^{-1/2} V_r^T`` (``M[j + i ldm]``, ``i < n``).

    Returns ``r``, with ``V_out[0]`` the eigenvectors (``n x kk``, column-major, in
    LAPACK's ascending order: the ``j``-th kept is column ``kk - 1 - j``), which the
    caller frees; or -1 if out of memory or LAPACK failed (nothing to free).
    """
    cdef int i, j, src, info = 0, lwork = -1, liwork = -1, iwq = 0
    cdef int il = n - kk + 1, iu = n, m = 0, r = 0
    cdef double wq = 0.0, lam, tol, sl, vl = 0.0, vu = 0.0, abstol = 0.0
    cdef double* G = NULL
    cdef double* ev = NULL
    cdef double* V = NULL
    cdef double* work = NULL
    cdef int* iwork = NULL
    cdef int* isuppz = NULL
    cdef Row row
    V_out[0] = NULL
    G = <double*> malloc(<size_t> n * n * sizeof(double))
    ev = <double*> malloc(n * sizeof(double))
    V = <double*> malloc(<size_t> n * kk * sizeof(double))
    isuppz = <int*> malloc(2 * kk * sizeof(int))
    if G == NULL or ev == NULL or V == NULL or isuppz == NULL:
        info = -1
    else:
        for i in range(n):
            sv.as_row(i, &row)
            sv.kernel_row_into(&row, G + <Py_ssize_t> i * n)
        dsyevr(b"V", b"I", b"L", &n, G, &n, &vl, &vu, &il, &iu, &abstol, &m, ev, V, &n,
               isuppz, &wq, &lwork, &iwq, &liwork, &info)
    if info == 0:
        lwork = <int> wq
        liwork = iwq
        work = <double*> malloc(max(lwork, 1) * sizeof(double))
        iwork = <int*> malloc(max(liwork, 1) * sizeof(int))
        if work == NULL or iwork == NULL:
            info = -1
        else:
            dsyevr(b"V", b"I", b"L", &n, G, &n, &vl, &vu, &il, &iu, &abstol, &m, ev, V,
                   &n, isuppz, work, &lwork, iwork, &liwork, &info)
    free(work)
    free(iwork)
    free(isuppz)
    free(G)
    if info != 0 or m != kk:
        free(ev)
        free(V)
        return -1
    tol = fmax(ev[m - 1], 0.0) * n * DBL_EPSILON
    for j in range(kk):
        src = m - 1 - j                      # eigenvalues come in ascending order
        lam = ev[src]
        if not lam > tol:
            break
        sl = sqrt(lam)
        evals[j] = lam
        for i in range(n):
            M[j + <Py_ssize_t> i * ldm] = V[i + <Py_ssize_t> src * n] / sl
        r += 1
    free(ev)
    V_out[0] = V
    return r
