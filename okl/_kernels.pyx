# cython: language_level=3
"""Kernels on rows: ``k(x, x)`` and a kernel row ``k(x, S)`` against stored vectors.

Gaussian, polynomial, linear and Laplacian kernels (``KernelParams``,
``okl/_kernels.pxd``) on dense rows (one ``dgemv``-like pass plus cached squared norms)
and on CSR rows (gathering the row's non-zeros).  ``sq_dist_row`` and ``exp_scaled`` are
the two halves of a Gaussian row, shared by the learners that evaluate several widths
from one row of distances.

Part of the typed core (``okl._core`` re-exports every name; see its docstring).
"""

from libc.math cimport fabs
from libc.string cimport memcpy, memset


#: the typed code of each kernel kind (okl.kernels names the kind; the codes are the
#: enum of okl/_kernels.pxd, written nowhere else)
KERNEL_KINDS = {"gaussian": KERNEL_GAUSSIAN, "polynomial": KERNEL_POLYNOMIAL,
                "linear": KERNEL_LINEAR, "laplacian": KERNEL_LAPLACIAN}


cdef KernelParams _params_of(object kernel) except *:
    """Read (kind, gamma, coef0, degree) from a kernel spec of okl.kernels."""
    cdef KernelParams kp
    kind, gamma, coef0, degree = kernel.kernel_params()
    kp.kind = KERNEL_KINDS[kind]
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

