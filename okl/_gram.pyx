# cython: language_level=3
"""Gram matrices of a dictionary kept incrementally, and the regularized projection.

``GramInverse`` (the Projectron / ALD inverse update) and ``GramCholesky`` (its stable
alternative) keep ``K_S`` and ``K_S^{-1}`` or its Cholesky factor through additions and
removals, with the approximate-linear-dependence residual
``alpha_t = k(x,x) - k_S(x)^T K_S^{-1} k_S(x)``; ``regularized_projection`` is
``(K_2 + eta I)^{-1} K_21 a`` through LAPACK (Ahpatron, eq. (9)).

Part of the typed core (``okl._core`` re-exports every name; see its docstring).
"""

from cpython.object cimport PyTypeObject
from libc.math cimport fabs, sqrt, hypot, fmax
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memmove
from scipy.linalg.cython_blas cimport ddot, dgemv, dger, dtrsv, drot, dcopy
from scipy.linalg.cython_lapack cimport dposv, dpocon

import sys

import numpy as np

from okl._memory cimport _grow

cdef double ONE = 1.0
cdef double ZERO = 0.0
cdef int INC1 = 1


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


# okl._core is the public home of these names (see its docstring): the classes carry its
# name, and pickles, reprs and argument errors name it as before the split.

(<PyTypeObject*> GramDictionary).tp_name = b"okl._core.GramDictionary"
(<PyTypeObject*> GramInverse).tp_name = b"okl._core.GramInverse"
(<PyTypeObject*> GramCholesky).tp_name = b"okl._core.GramCholesky"
for _f in (_refusal, _rebuild_gram, regularized_projection):
    _f.__module__ = sys.intern("okl._core")
del _f
