# cython: language_level=3
"""Typed cores of Kernel-AWV (eq. (3)) and PKAWV with the Gaussian Taylor basis
(eq. (4), (6), Appendix H Algorithm 1) of Jézéquel, Gaillard & Rudi (2019).

See ``okl/learners/awv.py`` for the algorithms' statements; this module holds
the round loop: ``score`` computes the forecast and caches what ``update``
needs (the driver always calls ``update`` right after ``score`` on the same row).
"""

from libc.math cimport exp, log1p, sqrt, fmax
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from scipy.linalg.cython_blas cimport ddot, dsymv, dsyr, dtpsv, dcopy

import numpy as np

from okl._core cimport Learner, Row, Stream, kernel_self
from okl._memory cimport _grow

from okl._learner import Field, fields

cdef int INC1 = 1
cdef double ONE = 1.0
cdef double ZERO = 0.0


def _check_buffer(arr, Py_ssize_t n, name):
    a = np.ascontiguousarray(arr, dtype=np.float64).reshape(-1)
    if a.shape[0] != n:
        raise ValueError(f"{name} has {a.shape[0]} entries, expected {n}")
    return a


# ----------------------------------------------------------------------------
# Kernel-AWV, eq. (3): K_t + lam I = U^T U with U packed upper (column j at j(j+1)/2)
# ----------------------------------------------------------------------------

cdef class KernelAWVCore(Learner):
    """Exact (Kernel-)AWV / KRR over every past input.

    State: the support set ``sv`` holds ``x_1, ..., x_{t}``; ``U`` the packed upper
    Cholesky factor of ``K_t + lam I`` (``U = L^T``; column ``j`` of ``U`` is row
    ``j`` of ``L`` and sits at offset ``j (j + 1) / 2``, so appending a point
    never moves the others); ``z = L^{-1} Y_t``.  ``score`` leaves in ``c`` the
    solution of ``L c = k_t(x)`` and in ``p``/``s2`` the KRR forecast and the
    posterior variance ``k(x, x) - ||c||^2``.
    """
    cdef public double lam         # the learner's parameters (okl.params)
    cdef public int awv            # forecaster "awv" (1) or "krr" (0)
    cdef double* U
    cdef double* z
    cdef double* c
    cdef Py_ssize_t U_cap      # doubles allocated in U
    cdef int cap               # points z and c can hold
    cdef double p, s2          # cached by score for update
    cdef public double log_det, lev_y2

    # U and z grow inside the rounds (raw buffers): their code copies them out and back
    _state_fields = fields(Field("U", get="_packed_factor", put="_put_packed_factor"),
                           Field("z", get="_forward", put="_put_forward"),
                           "log_det", "lev_y2")

    def __dealloc__(self):
        free(self.U)
        free(self.z)
        free(self.c)

    def _setup(self):
        if self._reserve(64) != 0:
            raise MemoryError("cannot allocate Kernel-AWV buffers")

    cdef int _reserve(self, int cap) noexcept nogil:
        """Room for ``cap`` points in ``z``, ``c`` and ``U``; 0, or -1 if out of memory.

        ``z`` and ``c`` (O(t)) double; the packed factor (``t (t + 1) / 2`` doubles)
        grows by a quarter, so it never holds more than ~1.6x what it needs.
        """
        cdef Py_ssize_t need = <Py_ssize_t> cap * (cap + 1) // 2
        cdef int vcap
        if cap > self.cap:
            vcap = max(cap, 2 * self.cap)
            if _grow(<void**> &self.z, vcap * sizeof(double)) != 0:
                return -1
            if _grow(<void**> &self.c, vcap * sizeof(double)) != 0:
                return -1
            self.cap = vcap
        if need > self.U_cap:
            need = max(need, self.U_cap + self.U_cap // 4)
            if _grow(<void**> &self.U, need * sizeof(double)) != 0:
                return -1
            self.U_cap = need
        return 0

    cdef double score(self, const Row* x) noexcept nogil:
        cdef int n = self.sv.n
        cdef double kxx = kernel_self(&self.kp, x)
        if n == 0:
            self.p = 0.0
            self.s2 = fmax(kxx, 0.0)
            return 0.0
        self.sv.fill_krow(x)
        dcopy(&n, self.sv.krow, &INC1, self.c, &INC1)
        dtpsv(b"U", b"T", b"N", &n, self.U, self.c, &INC1)     # U^T c = k, i.e. L c = k
        self.p = ddot(&n, self.c, &INC1, self.z, &INC1)
        self.s2 = fmax(kxx - ddot(&n, self.c, &INC1, self.c, &INC1), 0.0)
        if self.awv:
            return self.p / (1.0 + self.s2 / self.lam)
        return self.p

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int n = self.sv.n
        cdef Py_ssize_t off = <Py_ssize_t> n * (n + 1) // 2
        cdef double q = self.s2 / self.lam
        cdef double delta = sqrt(self.lam + self.s2)
        if self._reserve(n + 2) != 0:      # this point, and the scratch of the next score
            self.error = 1
            return
        if self.sv.add(x, 0.0, self.t) < 0:
            self.error = 1
            return
        if n > 0:
            memcpy(self.U + off, self.c, n * sizeof(double))
        self.U[off + n] = delta
        self.z[n] = (y - self.p) / delta
        self.log_det += log1p(q)
        self.lev_y2 += y * y * q / (1.0 + q)

    cdef double loss(self, double y, double f) noexcept nogil:
        return (y - f) * (y - f)

    # -- inspection and pickling --------------------------------------------------

    @property
    def cholesky_factor(self):
        """Lower-triangular ``L`` with ``L @ L.T == K_t + lam I`` over the inputs seen."""
        cdef int n = 0 if self.sv is None else self.sv.n
        out = np.zeros((n, n))
        cdef double[:, ::1] o = out
        cdef int i, j
        for j in range(n):
            for i in range(j + 1):
                o[j, i] = self.U[<Py_ssize_t> j * (j + 1) // 2 + i]
        return out

    @property
    def dual_coef(self):
        """``alpha = (K_t + lam I)^{-1} Y_t``: the KRR hypothesis
        ``f = sum_i alpha_i k(x_i, .)`` after the rounds seen (AWV forecasts
        ``f(x) / (1 + q(x))``, see the class docstring)."""
        cdef int n = 0 if self.sv is None else self.sv.n
        out = np.zeros(n)
        cdef double[::1] o = out
        if n == 0:
            return out
        memcpy(&o[0], self.z, n * sizeof(double))
        dtpsv(b"U", b"N", b"N", &n, self.U, &o[0], &INC1)      # U a = z: a = L^{-T} L^{-1} Y
        return out

    @property
    def inputs(self):
        """The stored inputs ``x_1, ..., x_t`` as a dense ``(t, d)`` array."""
        if self.sv is None:
            return np.zeros((0, 0))
        return self.sv.vectors

    def _packed_factor(self):
        """The packed upper factor ``U`` of the points seen (a copy)."""
        cdef int n = 0 if self.sv is None else self.sv.n
        cdef Py_ssize_t m = <Py_ssize_t> n * (n + 1) // 2
        U = np.zeros(m)
        cdef double[::1] u_ = U
        if m > 0:
            memcpy(&u_[0], self.U, m * sizeof(double))
        return U

    def _forward(self):
        """``z = L^{-1} Y_t`` (a copy)."""
        cdef int n = 0 if self.sv is None else self.sv.n
        z = np.zeros(n)
        cdef double[::1] z_ = z
        if n > 0:
            memcpy(&z_[0], self.z, n * sizeof(double))
        return z

    def _put_packed_factor(self, U):
        """Inverse of ``_packed_factor`` (reserves the buffers)."""
        cdef int n = 0 if self.sv is None else self.sv.n
        cdef Py_ssize_t m = <Py_ssize_t> n * (n + 1) // 2
        cdef const double[::1] u_ = _check_buffer(U, m, "U")
        if self._reserve(max(64, n + 1)) != 0:
            raise MemoryError("cannot allocate Kernel-AWV buffers")
        if m > 0:
            memcpy(self.U, &u_[0], m * sizeof(double))

    def _put_forward(self, z):
        """Inverse of ``_forward`` (after ``_put_packed_factor``)."""
        cdef int n = 0 if self.sv is None else self.sv.n
        cdef const double[::1] z_ = _check_buffer(z, n, "z")
        if n > 0:
            memcpy(self.z, &z_[0], n * sizeof(double))


# ----------------------------------------------------------------------------
# PKAWV with the Taylor basis: Algorithm 1 on phi~(x) = (g_k(x))_{|k| <= M}
# ----------------------------------------------------------------------------

cdef class TaylorAWVCore(Learner):
    """Algorithm 1 of Appendix H on the Taylor features (6).

    ``Ainv`` is ``A_t^{-1}`` (``r x r``, column-major, upper triangle kept: BLAS
    ``dsymv``/``dsyr`` with ``uplo = 'U'``), ``b = b_t = sum_s y_s v_s``.
    ``score`` fills ``v = phi~(x)``, ``u = A_{t-1}^{-1} v``, ``q = v^T u`` and
    ``p = u^T b_{t-1}``; ``update`` does the Sherman-Morrison step and ``b += y v``.
    Feature ``f >= 1`` is ``v[parent[f]] * x[var[f]] * factor[f]`` (tables from
    ``okl.learners.awv._taylor_tables``), ``v[0] = exp(-||x||^2 / (2 sigma^2))``.
    """
    cdef public double lam     # the learner's parameters (okl.params)
    cdef public int awv        # forecaster "awv" (1) or "krr" (0)
    cdef double sigma, gamma   # the Gaussian kernel's width, 1 / (2 sigma^2)
    cdef int M                 # the degree in use (M, or Theorem 4's)
    cdef public int r          # features (0 before the first example)
    cdef double* Ainv
    cdef double* b
    cdef double* v
    cdef double* u
    cdef double* xbuf
    cdef int* parent
    cdef int* var
    cdef double* factor
    cdef double q, p
    cdef public double log_det, lev_y2, max_sq

    # {"Ainv": None} before the first example; A^{-1} is kept raw (column-major, upper
    # triangle meaningful), so that a resumed run is bit-identical
    _state_fields = fields(Field("Ainv", get="_raw_inverse", put="_put_raw_inverse"),
                           Field("b", "b_vector", put="_put_b", when="r"),
                           Field("log_det", when="r"), Field("lev_y2", when="r"),
                           Field("max_sq", when="r"))

    def __dealloc__(self):
        self._free()

    cdef void _free(self) noexcept:
        free(self.Ainv)
        free(self.b)
        free(self.v)
        free(self.u)
        free(self.xbuf)
        free(self.parent)
        free(self.var)
        free(self.factor)
        self.Ainv = NULL
        self.b = NULL
        self.v = NULL
        self.u = NULL
        self.xbuf = NULL
        self.parent = NULL
        self.var = NULL
        self.factor = NULL

    def _setup(self):
        """The degree in use (the learner's ``degree``: ``M``, or Theorem 4's) and the
        Gaussian kernel's width (the ``kernel`` parameter; the core computes no kernel)."""
        self.M = self.degree
        self.sigma = self.kernel.sigma
        self.gamma = 1.0 / (2.0 * self.sigma * self.sigma)

    def _taylor_allocate(self, int d, parent, var, factor):
        """Allocate ``A^{-1} = I / lam``, ``b = 0`` and the feature tables for ``d`` inputs."""
        cdef const int[::1] pa = np.ascontiguousarray(parent, dtype=np.intc)
        cdef const int[::1] va = np.ascontiguousarray(var, dtype=np.intc)
        cdef const double[::1] fa = np.ascontiguousarray(factor, dtype=np.float64)
        cdef int r = pa.shape[0], i
        if va.shape[0] != r or fa.shape[0] != r or r < 1:
            raise ValueError("inconsistent Taylor feature tables")
        self._free()
        self.r = r
        self.Ainv = <double*> malloc(<size_t> r * r * sizeof(double))
        self.b = <double*> malloc(r * sizeof(double))
        self.v = <double*> malloc(r * sizeof(double))
        self.u = <double*> malloc(r * sizeof(double))
        self.xbuf = <double*> malloc(d * sizeof(double))
        self.parent = <int*> malloc(r * sizeof(int))
        self.var = <int*> malloc(r * sizeof(int))
        self.factor = <double*> malloc(r * sizeof(double))
        if (self.Ainv == NULL or self.b == NULL or self.v == NULL or self.u == NULL
                or self.xbuf == NULL or self.parent == NULL or self.var == NULL
                or self.factor == NULL):
            self._free()
            self.r = 0
            raise MemoryError(f"cannot allocate {r} Taylor features")
        memset(self.Ainv, 0, <size_t> r * r * sizeof(double))
        for i in range(r):
            self.Ainv[i + <Py_ssize_t> i * r] = 1.0 / self.lam
            self.parent[i] = pa[i]
            self.var[i] = va[i]
            self.factor[i] = fa[i]
        memset(self.b, 0, r * sizeof(double))

    cdef void features(self, const Row* x, double* out) noexcept nogil:
        """``out = phi~(x) = (g_k(x))_k`` (eq. (6)); CSR rows via the dense buffer."""
        cdef const double* xd
        cdef int f, k
        if x.indices == NULL:
            xd = x.data
        else:
            memset(self.xbuf, 0, self.d * sizeof(double))
            for k in range(x.nnz):
                self.xbuf[x.indices[k]] = x.data[k]
            xd = self.xbuf
        out[0] = exp(-self.gamma * x.sqnorm)
        for f in range(1, self.r):
            out[f] = out[self.parent[f]] * xd[self.var[f]] * self.factor[f]

    cdef double score(self, const Row* x) noexcept nogil:
        cdef int r = self.r
        self.features(x, self.v)
        dsymv(b"U", &r, &ONE, self.Ainv, &r, self.v, &INC1, &ZERO, self.u, &INC1)
        self.q = ddot(&r, self.v, &INC1, self.u, &INC1)
        self.p = ddot(&r, self.u, &INC1, self.b, &INC1)   # v^T A_{t-1}^{-1} b_{t-1}
        if self.awv:
            return self.p / (1.0 + self.q)                # v^T A_t^{-1} b_{t-1}
        return self.p

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int r = self.r
        cdef double alpha = -1.0 / (1.0 + self.q)
        dsyr(b"U", &r, &alpha, self.u, &INC1, self.Ainv, &r)
        # b += y v
        cdef int i
        for i in range(r):
            self.b[i] += y * self.v[i]
        self.log_det += log1p(self.q)
        self.lev_y2 += y * y * self.q / (1.0 + self.q)
        if x.sqnorm > self.max_sq:
            self.max_sq = x.sqnorm

    cdef double loss(self, double y, double f) noexcept nogil:
        return (y - f) * (y - f)

    cdef int size(self) noexcept nogil:
        return self.r

    # -- Python surface -----------------------------------------------------------

    def _features_with(self, Stream s, parent, var, factor):
        """Features of a stream with the given tables (before allocation)."""
        self._taylor_allocate(s.d, parent, var, factor)
        try:
            return self._features(s)
        finally:
            self._free()
            self.r = 0

    def _features(self, Stream s):
        out = np.empty((s.T, self.r))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t t
        cdef Row row
        cdef int saved_d = self.d
        self.d = s.d
        with nogil:
            for t in range(s.T):
                s.row(t, &row)
                self.features(&row, &o[t, 0])
        self.d = saved_d
        return out

    def _stream_sqnorms(self, Stream s):
        """``||x_t||^2`` of every row of the stream (as computed for the kernels)."""
        out = np.empty(s.T)
        cdef double[::1] o = out
        cdef Py_ssize_t t
        cdef Row row
        for t in range(s.T):
            s.row(t, &row)          # the stream computes a row's norms as it hands it out
            o[t] = row.sqnorm
        return out

    @property
    def max_radius_(self):
        """``max_t ||phi~(x_t)||``."""
        return sqrt(self.max_sq)

    @property
    def A_inv(self):
        """``A_t^{-1}`` (``r x r``, symmetric), ``None`` before the first example."""
        cdef int r = self.r
        if r == 0:
            return None
        out = np.empty((r, r))
        cdef double[:, ::1] o = out
        cdef int i, j
        for j in range(r):
            for i in range(j + 1):
                o[i, j] = self.Ainv[i + <Py_ssize_t> j * r]
                o[j, i] = o[i, j]
        return out

    @property
    def b_vector(self):
        """``b_t = sum_s y_s phi~(x_s)``, ``None`` before the first example."""
        if self.r == 0:
            return None
        out = np.empty(self.r)
        cdef double[::1] o = out
        memcpy(&o[0], self.b, self.r * sizeof(double))
        return out

    @property
    def coef(self):
        """``w_t = A_t^{-1} b_t``: the hypothesis ``f = w^T phi~`` after the rounds seen
        (``np.linalg.solve``-free: computed from the kept inverse)."""
        if self.r == 0:
            return None
        return self.A_inv @ self.b_vector

    def _raw_inverse(self):
        """``A^{-1}``'s buffer as it is (``r * r``), ``None`` before the first example."""
        if self.r == 0:
            return None
        cdef int r = self.r
        A = np.empty(<Py_ssize_t> r * r)
        cdef double[::1] a = A
        memcpy(&a[0], self.Ainv, <size_t> r * r * sizeof(double))
        return A

    def _put_raw_inverse(self, A):
        """Inverse of ``_raw_inverse`` (the buffers are allocated for ``r`` features)."""
        if A is None:
            return
        cdef const double[::1] a = _check_buffer(A, <Py_ssize_t> self.r * self.r, "Ainv")
        memcpy(self.Ainv, &a[0], <size_t> self.r * self.r * sizeof(double))

    def _put_b(self, b):
        """Inverse of ``b_vector``."""
        cdef const double[::1] bb = _check_buffer(b, self.r, "b")
        memcpy(self.b, &bb[0], self.r * sizeof(double))
