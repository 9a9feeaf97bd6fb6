# cython: language_level=3
"""K separate support sets, one per candidate kernel.

The multi-kernel learners of Li & Liao's comparisons that do not share memory across
kernels (OKS / BOKS of Yang et al. 2012, BOMKR of Sahoo, Hoi & Li 2014) keep one support
set per kernel: an example stored by two kernels is stored twice.  ``KernelSets`` holds the
``K`` sets in plain buffers (feature-major vectors, cached squared and l1 norms,
coefficients, the round each entry arrived), so that a round can score and update any set
without the GIL: ``score(i, x)`` is one ``okl._core.kernel_row`` against set ``i`` and a
dot product.  Sets are either fixed-capacity (a per-kernel budget) or growable (doubling
when full; an unbudgeted learner, or a pooled budget a learner enforces itself).
"""

from libc.stdlib cimport malloc, realloc, free, calloc
from libc.string cimport memcpy

from okl._core cimport KernelParams, Row, Stream, kernel_row, sq_dist_row, exp_scaled
from okl._kernels cimport _params_of
from scipy.linalg.cython_blas cimport ddot, dscal

import numpy as np

cdef int INC1 = 1


cdef extern from "../_vexp.h":
    # the 4-accumulator dot product of okl._core (no BLAS call for a few dozen entries)
    double okl_dot(const double* a, const double* b, int n) noexcept nogil


cdef int _grow(void** p, size_t nbytes) noexcept nogil:
    cdef void* q = realloc(p[0], nbytes if nbytes > 0 else 1)
    if q == NULL:
        return -1
    p[0] = q
    return 0


cdef KernelParams* kernel_params_array(kernels) except NULL:
    """The ``KernelParams`` of each kernel spec, in order, in a ``malloc``'ed array (the
    caller frees it): the table every multi-kernel core keeps for its nogil rounds."""
    cdef Py_ssize_t i, K = len(kernels)
    cdef KernelParams* kps = <KernelParams*> malloc(max(K, 1) * sizeof(KernelParams))
    if kps == NULL:
        raise MemoryError()
    try:
        for i in range(K):
            kps[i] = _params_of(kernels[i])
    except BaseException:
        free(kps)
        raise
    return kps


cdef void free_sets(int K, double*** X, double*** sq, double*** l1, double*** alpha,
                    long long*** stamp) noexcept nogil:
    """Free the ``K`` sets' buffers and the five pointer arrays; set the five to NULL
    (the layout of ``KernelSets``, shared by the cores that keep their own sets)."""
    cdef int i
    if X[0] != NULL:
        for i in range(K):
            free(X[0][i])
            free(sq[0][i])
            free(l1[0][i])
            free(alpha[0][i])
            free(stamp[0][i])
    free(X[0])
    free(sq[0])
    free(l1[0])
    free(alpha[0])
    free(stamp[0])
    X[0] = sq[0] = l1[0] = alpha[0] = NULL
    stamp[0] = NULL


cdef class KernelSets:
    """``K`` support sets, set ``i`` evaluated with kernel ``kernels[i]``.

    Parameters
    ----------
    kernels : list of okl kernels
    d : int >= 1
        Input dimension (vectors are stored densely).
    capacities : sequence of K ints >= 1
        Initial slots of each set.
    growable : bool
        If False, ``add`` refuses to exceed a set's capacity (a per-kernel budget); if
        True a full set doubles.
    """

    def __cinit__(self, kernels, int d, capacities, bint growable=False):
        cdef int i, K = len(kernels)
        if K < 1:
            raise ValueError("KernelSets needs at least one kernel")
        if d < 1:
            raise ValueError(f"d must be >= 1, got {d}")
        if len(capacities) != K:
            raise ValueError("one capacity per kernel is needed")
        self.K = K
        self.d = d
        self.growable = growable
        self.kernels = list(kernels)
        self.kps = kernel_params_array(kernels)
        self.X = <double**> calloc(K, sizeof(double*))
        self.sq = <double**> calloc(K, sizeof(double*))
        self.l1 = <double**> calloc(K, sizeof(double*))
        self.alpha = <double**> calloc(K, sizeof(double*))
        self.stamp = <long long**> calloc(K, sizeof(long long*))
        self.n = <int*> calloc(K, sizeof(int))
        self.cap = <int*> calloc(K, sizeof(int))
        self.krow = NULL
        self.krow_cap = 0
        if (self.X == NULL or self.sq == NULL or self.l1 == NULL or self.alpha == NULL
                or self.stamp == NULL or self.n == NULL or self.cap == NULL):
            raise MemoryError()
        for i in range(K):
            c = int(capacities[i])
            if c < 1:
                raise ValueError(f"capacities[{i}] must be >= 1, got {c}")
            if self.reserve(i, c) != 0:
                raise MemoryError()

    def __dealloc__(self):
        free_sets(self.K, &self.X, &self.sq, &self.l1, &self.alpha, &self.stamp)
        free(self.n)
        free(self.cap)
        free(self.kps)
        free(self.krow)

    # -- typed methods --------------------------------------------------------------

    cdef int reserve(self, int i, int capacity) noexcept nogil:
        """Grow set ``i`` to ``capacity`` slots; 0 on success, -1 if out of memory."""
        cdef size_t c = capacity
        cdef double* X
        cdef int j
        if capacity <= self.cap[i]:
            return 0
        X = <double*> malloc(c * self.d * sizeof(double))
        if X == NULL:
            return -1
        if self.X[i] != NULL and self.n[i] > 0:
            for j in range(self.d):   # columns move to the new leading dimension
                memcpy(X + <Py_ssize_t> j * c, self.X[i] + <Py_ssize_t> j * self.cap[i],
                       self.n[i] * sizeof(double))
        if (_grow(<void**> &self.sq[i], c * sizeof(double))
                or _grow(<void**> &self.l1[i], c * sizeof(double))
                or _grow(<void**> &self.alpha[i], c * sizeof(double))
                or _grow(<void**> &self.stamp[i], c * sizeof(long long))):
            free(X)
            return -1
        if capacity > self.krow_cap:
            if _grow(<void**> &self.krow, c * sizeof(double)):
                free(X)
                return -1
            self.krow_cap = capacity
        free(self.X[i])
        self.X[i] = X
        self.cap[i] = capacity
        return 0

    cdef void _write(self, int i, int j, const Row* x) noexcept nogil:
        cdef int k
        cdef Py_ssize_t ld = self.cap[i]
        cdef double* col = self.X[i]
        if x.indices == NULL:
            for k in range(self.d):
                col[j + k * ld] = x.data[k]
        else:
            for k in range(self.d):
                col[j + k * ld] = 0.0
            for k in range(x.nnz):
                col[j + <Py_ssize_t> x.indices[k] * ld] = x.data[k]
        self.sq[i][j] = x.sqnorm
        self.l1[i][j] = x.l1norm

    cdef int add(self, int i, const Row* x, double a, long long stamp) noexcept nogil:
        """Append ``x`` with coefficient ``a`` to set ``i``; its index, or -1 when full."""
        cdef int j = self.n[i]
        if j == self.cap[i]:
            if not self.growable or self.reserve(i, 2 * self.cap[i]) != 0:
                return -1
        self._write(i, j, x)
        self.alpha[i][j] = a
        self.stamp[i][j] = stamp
        self.n[i] = j + 1
        return j

    cdef void replace(self, int i, int j, const Row* x, double a, long long stamp) noexcept nogil:
        """Overwrite entry ``j`` of set ``i`` with ``x`` and coefficient ``a``."""
        self._write(i, j, x)
        self.alpha[i][j] = a
        self.stamp[i][j] = stamp

    cdef void row(self, int i, const Row* x, double* out) noexcept nogil:
        """``out[j] = k_i(x, s_ij)`` for every entry of set ``i``."""
        kernel_row(&self.kps[i], self.X[i], self.cap[i], self.sq[i], self.l1[i], self.n[i],
                   self.d, x, out)

    cdef double score(self, int i, const Row* x) noexcept nogil:
        """``f_i(x) = sum_j a_ij k_i(s_ij, x)`` (0 for an empty set); the kernel row is left
        in ``krow``."""
        cdef int m = self.n[i]
        if m == 0:
            return 0.0
        self.row(i, x, self.krow)
        return okl_dot(self.alpha[i], self.krow, m)

    cdef void scale(self, int i, double c) noexcept nogil:
        """``a_i *= c`` (a loop the compiler vectorizes: no BLAS call for a few dozen)."""
        cdef int j, m = self.n[i]
        cdef double* a = self.alpha[i]
        for j in range(m):
            a[j] *= c

    cdef int total(self) noexcept nogil:
        cdef int i, s = 0
        for i in range(self.K):
            s += self.n[i]
        return s

    # -- Python surface (inspection, tests, pickling) --------------------------------

    @property
    def sizes(self):
        """Entries of each set, shape ``(K,)``."""
        return np.array([self.n[i] for i in range(self.K)], dtype=np.int64)

    @property
    def capacities(self):
        return np.array([self.cap[i] for i in range(self.K)], dtype=np.int64)

    def _check(self, int i):
        if not 0 <= i < self.K:
            raise IndexError(f"kernel index {i} out of range for K = {self.K}")

    def vectors(self, int i):
        """Copy of set ``i``'s vectors, shape ``(size_i, d)``."""
        self._check(i)
        cdef int m = self.n[i], j, k
        out = np.empty((m, self.d))
        cdef double[:, ::1] o = out
        for j in range(m):
            for k in range(self.d):
                o[j, k] = self.X[i][j + <Py_ssize_t> k * self.cap[i]]
        return out

    def coefficients(self, int i):
        self._check(i)
        cdef int m = self.n[i], j
        return np.array([self.alpha[i][j] for j in range(m)], dtype=float)

    def stamps(self, int i):
        """The round (1-based) at which each entry of set ``i`` was written."""
        self._check(i)
        cdef int m = self.n[i], j
        return np.array([self.stamp[i][j] for j in range(m)], dtype=np.int64)

    def kernel_rows(self, int i, X):
        """``k_i(x, S_i)`` for each row of ``X`` (validated): shape ``(len(X), size_i)``."""
        from okl._core import _stream
        self._check(i)
        cdef Stream s = _stream(X, self.d)
        cdef int m = self.n[i]
        cdef Py_ssize_t t
        cdef Row r
        out = np.empty((s.T, m))
        cdef double[:, ::1] o = out
        if m == 0:
            return out
        for t in range(s.T):
            s.row(t, &r)
            self.row(i, &r, &o[t, 0])
        return out

    def decision(self, int i, X):
        """``f_i(x)`` for each row of ``X``."""
        from okl._core import _stream
        self._check(i)
        cdef Stream s = _stream(X, self.d)
        cdef Py_ssize_t t
        cdef Row r
        out = np.empty(s.T)
        cdef double[::1] o = out
        for t in range(s.T):
            s.row(t, &r)
            o[t] = self.score(i, &r)
        return out

    def __reduce__(self):
        sets = []
        cdef int i, j
        for i in range(self.K):
            m = self.n[i]
            sets.append((self.vectors(i), self.coefficients(i), self.stamps(i),
                         np.array([self.sq[i][j] for j in range(m)], dtype=float),
                         np.array([self.l1[i][j] for j in range(m)], dtype=float)))
        return (_rebuild_kernel_sets,
                (self.kernels, self.d, [int(self.cap[i]) for i in range(self.K)],
                 self.growable, sets))

    def __repr__(self):
        return (f"KernelSets(K={self.K}, d={self.d}, sizes={self.sizes.tolist()}, "
                f"growable={self.growable})")


def _rebuild_kernel_sets(kernels, d, capacities, growable, sets):
    cdef KernelSets S = KernelSets(kernels, d, capacities, growable)
    cdef int i, j, k
    cdef Py_ssize_t ld
    for i, (V, a, st, sq, l1) in enumerate(sets):
        ld = S.cap[i]
        for j in range(V.shape[0]):
            for k in range(S.d):
                S.X[i][j + k * ld] = V[j, k]
            S.alpha[i][j] = a[j]
            S.stamp[i][j] = st[j]
            S.sq[i][j] = sq[j]
            S.l1[i][j] = l1[j]
        S.n[i] = V.shape[0]
    return S


def shared_distance_rows(X, added, rows, exps, double gamma):
    """The kernel-row work of a learner that shares squared distances across kernels, and
    nothing else (the reference of ``benchmarks/ratios_selection.py``).

    Round ``t`` computes ``rows[t]`` rows of squared distances ``||x_t - s||^2`` against
    the current set ``S`` (``okl._core.sq_dist_row``) and ``exps[t]`` vectorized
    exponentials of a copy of such a row (``okl._core.exp_scaled``), summing the kernel
    values (one dot product each); ``x_t`` joins ``S`` afterwards when ``added[t]``.  BOMKR-V computes one row and
    ``K`` exponentials a round; ISKA one row and one exponential to predict, and more rows
    and ``K`` exponentials each on the rounds that update its block sums.  Returns the sum
    of all computed kernel values (so the work cannot be optimized out).
    """
    from okl._core import _stream
    cdef Stream s = _stream(X)
    cdef const unsigned char[::1] add = np.ascontiguousarray(added, dtype=np.uint8)
    cdef const int[::1] nr = np.ascontiguousarray(rows, dtype=np.intc)
    cdef const int[::1] ne = np.ascontiguousarray(exps, dtype=np.intc)
    if add.shape[0] != s.T or nr.shape[0] != s.T or ne.shape[0] != s.T:
        raise ValueError("added, rows and exps must have one entry per row of X")
    cdef KernelSets S = KernelSets([_GammaKernel(gamma)], s.d, [64], True)
    cdef double* dist = NULL
    cdef double* tmp = NULL
    cdef double* ones = NULL
    cdef int cap = 0, n, j, r, e
    cdef Py_ssize_t t
    cdef Row row
    cdef double total = 0.0
    try:
        for t in range(s.T):
            s.row(t, &row)
            n = S.n[0]
            if n > cap:
                cap = 2 * n
                free(dist)
                free(tmp)
                free(ones)
                dist = <double*> malloc(cap * sizeof(double))
                tmp = <double*> malloc(cap * sizeof(double))
                ones = <double*> malloc(cap * sizeof(double))
                if dist == NULL or tmp == NULL or ones == NULL:
                    raise MemoryError()
                for j in range(cap):
                    ones[j] = 1.0
            with nogil:
                if n > 0:
                    for r in range(nr[t]):
                        sq_dist_row(S.X[0], S.cap[0], S.sq[0], n, S.d, &row, dist)
                    for e in range(ne[t]):
                        memcpy(tmp, dist, n * sizeof(double))
                        exp_scaled(tmp, n, -gamma)
                        total += ddot(&n, tmp, &INC1, ones, &INC1)   # as a learner's dot
                if add[t]:
                    S.add(0, &row, 1.0, t)
    finally:
        free(dist)
        free(tmp)
        free(ones)
    return total


class _GammaKernel:
    """A Gaussian kernel given by ``gamma`` (``KernelSets`` reads ``kernel_params``)."""

    def __init__(self, gamma):
        self.gamma = gamma

    def kernel_params(self):
        return "gaussian", self.gamma, 0.0, 0
