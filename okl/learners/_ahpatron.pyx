# cython: language_level=3
"""Typed cores of AVP and Ahpatron (Liao, Li, Liao, Hu & Dang, AAAI 2024)."""

from libc.math cimport sqrt, fmax, fabs
from libc.stdlib cimport malloc, realloc, free, qsort
from libc.string cimport memcpy

from okl._core cimport Learner, Row, kernel_self, regularized_projection_c
from okl._learner import Field, fields
from scipy.linalg.cython_blas cimport ddot, dsymv

import numpy as np

# below this the lazy scale factor is folded into the stored coefficients
cdef double SCALE_FLOOR = 1e-100

# step-size rules of AVP
cdef enum:
    RATE_CONSTANT = 0      # lambda_t = lam (Corollary 1: lam = 1; Algorithm 2: lam)
    RATE_COROLLARY2 = 1    # lambda_t = U / sqrt(U^2 + #{tau <= t : y_tau f_tau(x_tau) <= 0})


ctypedef struct KeyIndex:
    double key
    int index


# how Ahpatron's split chooses S_{t,1}, the half it removes (Ahpatron's ``split``)
cdef enum:
    SPLIT_OLDEST = 0   # the B/2 smallest |alpha|; among equal |alpha| the older removed
    SPLIT_NEWEST = 1   # the B/2 smallest |alpha|; among equal |alpha| the newer removed
    SPLIT_R = 2        # Ahpatron.R: keep the first B/2 (in order) with |alpha| >= median


cdef inline int _by_key_then(const void* a, const void* b, int older_first) noexcept nogil:
    """Ascending ``|alpha|``; ties by ascending index times ``older_first`` (+1: the
    older vector first, -1: the newer first)."""
    cdef const KeyIndex* p = <const KeyIndex*> a
    cdef const KeyIndex* q = <const KeyIndex*> b
    if p.key < q.key:
        return -1
    if p.key > q.key:
        return 1
    return older_first * ((p.index > q.index) - (p.index < q.index))


cdef int _by_key_then_index(const void* a, const void* b) noexcept nogil:
    """Ascending ``|alpha|``; ties by ascending index (the older vector first)."""
    return _by_key_then(a, b, 1)


cdef int _by_key_then_newer(const void* a, const void* b) noexcept nogil:
    """Ascending ``|alpha|``; ties by descending index (the newer vector first)."""
    return _by_key_then(a, b, -1)


cdef int _by_int(const void* a, const void* b) noexcept nogil:
    cdef int p = (<const int*> a)[0]
    cdef int q = (<const int*> b)[0]
    return (p > q) - (p < q)


cdef class AVPCore(Learner):
    """AVP, Algorithm 1: ``f_{t+1} = Proj_H(f_t + lambda_t y_t k(x_t, .))`` when
    ``y_t f_t(x_t) < 1 - eps``.

    ``f_t = scale * sum_i alpha_i k(x_i, .)``: the projection
    ``min{1, U / ||g||} g`` only rescales, so it is kept in the lazy factor ``scale``,
    and ``||f||^2`` by the exact recursion
    ``||f + a k_x||^2 = ||f||^2 + 2 a f(x) + a^2 k(x, x)``: a round is one kernel row.
    """
    cdef public double U        # radius of the ball H (inf: no projection)
    cdef public double lam, eps # the learner's parameters (okl.params; Ahpatron: U_, lam_)
    cdef public int rate        # RATE_*: AVP's setting
    cdef public double scale
    cdef public double norm_sq          # ||f_t||_H^2 of the current hypothesis
    cdef public double lam_t            # the step of the last update
    cdef public long long m_prime       # |M'_T| = #{t : y_t f_t(x_t) <= 0}
    cdef public long long n_margin      # |N_T| = #{t : 0 < y_t f_t(x_t) < 1 - eps_t}
    cdef public long long n_updates     # rounds with y_t f_t(x_t) < 1 - eps_t

    _state_fields = fields("scale", "norm_sq", "lam_t", "m_prime", "n_margin", "n_updates")

    def __cinit__(self, *args, **kwargs):
        self.scale = 1.0

    def _setup(self):
        self.scale = 1.0
        self.norm_sq = 0.0
        self.lam_t = 0.0
        self.m_prime = 0
        self.n_margin = 0
        self.n_updates = 0

    cdef double score(self, const Row* x) noexcept nogil:
        if self.sv.n == 0:
            return 0.0
        return self.scale * self.sv.score(x)

    cdef double loss(self, double y, double f) noexcept nogil:
        """The hinge loss ``max(0, 1 - y f)`` of Theorem 3 (``L_T`` is its sum)."""
        return fmax(0.0, 1.0 - y * f)

    cdef inline double step_size(self) noexcept nogil:
        """``lambda_t``; for Corollary 2 ``m_prime`` already counts round ``t``."""
        if self.rate == RATE_COROLLARY2:
            return self.U / sqrt(self.U * self.U + <double> self.m_prime)
        return self.lam

    cdef inline bint classify(self, double margin) noexcept nogil:
        """Count round ``t`` in ``M'_T`` or ``N_T``; True if the margin condition fires."""
        if margin <= 0.0:
            self.m_prime += 1
        if not (margin < 1.0 - self.eps):
            return False
        if margin > 0.0:
            self.n_margin += 1
        self.n_updates += 1
        return True

    cdef int step(self, const Row* x, double y, double fx, double lam, double kxx) noexcept nogil:
        """``f <- Proj_H(f + lam y k(x, .))`` given ``fx = f(x)``; -1 if the add failed."""
        cdef double nsq = fmax(self.norm_sq + 2.0 * lam * y * fx + lam * lam * kxx, 0.0)
        if self.sv.add(x, lam * y / self.scale, self.t) < 0:
            self.error = 1
            return -1
        self.lam_t = lam
        if nsq > self.U * self.U:
            self.scale *= self.U / sqrt(nsq)
            self.norm_sq = self.U * self.U
            if self.scale < SCALE_FLOOR:
                self.sv.scale(self.scale)
                self.scale = 1.0
        else:
            self.norm_sq = nsq
        return 0

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        if self.classify(y * f):
            self.step(x, y, f, self.step_size(), kernel_self(&self.kp, x))

    # -- inspection ---------------------------------------------------------------

    @property
    def coefficient_scale(self):
        return self.scale


cdef class AhpatronCore(AVPCore):
    """Ahpatron, Algorithm 2: AVP on a budget ``B`` with halving and projection.

    ``K`` holds the Gram matrix of the support set (column-major, leading dimension
    ``B``, same order as the support set), extended by the kernel row that ``score``
    already computed; a halving reads ``K_2``, ``K_21`` from it, solves (9) once
    (size ``B/2``) and compacts both the support set and ``K`` in place.
    """
    cdef public int B           # the learner's parameters (okl.params)
    cdef int m
    cdef public int split       # SPLIT_OLDEST, SPLIT_NEWEST or SPLIT_R
    cdef public double eta
    cdef public double c        # constant c_t in (0, 1]; 0 (c = None): c_t = ||f_t|| / U
    cdef double* K
    cdef double* K2
    cdef double* K21
    cdef double* work
    cdef double* qtmp
    cdef double* a1
    cdef double* theta
    cdef double* v
    cdef double* delta
    cdef KeyIndex* order
    cdef int* keep
    cdef int* drop
    cdef double* dist           # ||f_t - fbar_t||_H at each removal
    cdef long long n_dist, dist_cap
    cdef public long long removals      # halvings so far (the removing operations of Lemma 1)
    cdef int solve_info

    _state_fields = AVPCore._state_fields + fields(
        Field("K", get="_gram", put="_put_gram"), "removals",
        Field("distances", get="_distances", put="_put_distances"))

    def __dealloc__(self):
        self.release()

    cdef void release(self) noexcept nogil:
        free(self.K)
        free(self.K2)
        free(self.K21)
        free(self.work)
        free(self.qtmp)
        free(self.a1)
        free(self.theta)
        free(self.v)
        free(self.delta)
        free(self.order)
        free(self.keep)
        free(self.drop)
        free(self.dist)
        self.K = self.K2 = self.K21 = self.work = self.qtmp = NULL
        self.a1 = self.theta = self.v = self.delta = self.dist = NULL
        self.order = NULL
        self.keep = self.drop = NULL
        self.n_dist = self.dist_cap = 0

    def _setup(self):
        """AVP's set-up with the radius and the step in use (the learner's ``U_`` and
        ``lam_``: ``sqrt(B) / 2`` and ``U / sqrt(4 B)`` for None) and a constant step,
        then the buffers of size ``B``."""
        cdef int B = self.B
        cdef size_t b = B, m = B // 2
        if self.split not in (SPLIT_OLDEST, SPLIT_NEWEST, SPLIT_R):
            raise ValueError(f"unknown split rule {self.split}")
        self.U = self.U_
        self.lam = self.lam_
        self.rate = RATE_CONSTANT
        AVPCore._setup(self)
        self.release()
        self.m = B // 2
        self.removals = 0
        self.solve_info = 0
        self.K = <double*> malloc(b * b * sizeof(double))
        self.K2 = <double*> malloc(m * m * sizeof(double))
        self.K21 = <double*> malloc(m * m * sizeof(double))
        self.work = <double*> malloc(m * m * sizeof(double))
        self.qtmp = <double*> malloc(b * sizeof(double))
        self.a1 = <double*> malloc(m * sizeof(double))
        self.theta = <double*> malloc(m * sizeof(double))
        self.v = <double*> malloc(m * sizeof(double))
        self.delta = <double*> malloc(b * sizeof(double))
        self.order = <KeyIndex*> malloc(b * sizeof(KeyIndex))
        self.keep = <int*> malloc(m * sizeof(int))
        self.drop = <int*> malloc(m * sizeof(int))
        if (self.K == NULL or self.K2 == NULL or self.K21 == NULL or self.work == NULL
                or self.qtmp == NULL
                or self.a1 == NULL or self.theta == NULL or self.v == NULL
                or self.delta == NULL or self.order == NULL or self.keep == NULL
                or self.drop == NULL):
            raise MemoryError(f"cannot allocate Ahpatron's buffers for B = {B}")

    cdef inline double gram(self, int i, int j) noexcept nogil:
        return self.K[i + <Py_ssize_t> j * self.B]

    cdef double quad_form(self, double* A, int n, int ld, double* v) noexcept nogil:
        """``v^T A v`` for the symmetric ``A`` (BLAS ``dsymv`` + ``ddot``)."""
        cdef double one = 1.0, zero = 0.0
        cdef int inc = 1
        dsymv(b"L", &n, &one, A, &ld, v, &inc, &zero, self.qtmp, &inc)
        return ddot(&n, v, &inc, self.qtmp, &inc)

    cdef int record_distance(self, double d) noexcept nogil:
        cdef void* p
        cdef long long cap
        if self.n_dist == self.dist_cap:
            cap = 16 if self.dist_cap == 0 else 2 * self.dist_cap
            p = realloc(self.dist, cap * sizeof(double))
            if p == NULL:
                return -1
            self.dist = <double*> p
            self.dist_cap = cap
        self.dist[self.n_dist] = d
        self.n_dist += 1
        return 0

    cdef void choose_split(self) noexcept nogil:
        """Fill ``drop`` (``S_{t,1}``) and ``keep`` (``S_{t,2}``), ``B/2`` positions each, in
        ascending position (= arrival) order, by the rule ``split``."""
        cdef int B = self.B, m = self.m, i, a, nk, nd
        cdef double* alpha = self.sv.alpha
        cdef double med
        for i in range(B):
            self.order[i].key = fabs(alpha[i])
            self.order[i].index = i
        if self.split == SPLIT_R:
            # Ahpatron.R: med <- median(abs_svpara); index <- which(abs_svpara >= med);
            # large_index <- index[1:(B/2)]: the first B/2 in order with |alpha| >= med
            # (R's median of an even count: the mean of the two middle values)
            qsort(self.order, B, sizeof(KeyIndex), _by_key_then_index)
            med = (self.order[m - 1].key + self.order[m].key) / 2.0
            nk = 0
            nd = 0
            for i in range(B):
                if nk < m and fabs(alpha[i]) >= med:
                    self.keep[nk] = i
                    nk += 1
                else:
                    self.drop[nd] = i
                    nd += 1
            return
        if self.split == SPLIT_NEWEST:
            qsort(self.order, B, sizeof(KeyIndex), _by_key_then_newer)
        else:
            qsort(self.order, B, sizeof(KeyIndex), _by_key_then_index)
        for a in range(m):
            self.drop[a] = self.order[a].index
            self.keep[a] = self.order[m + a].index
        qsort(self.drop, m, sizeof(int), _by_int)
        qsort(self.keep, m, sizeof(int), _by_int)

    cdef int halve(self, double* fbar_x) noexcept nogil:
        """Lines 10-12 of Algorithm 2 up to ``fbar_t``: split ``S_t`` by ``|alpha|``, project
        the removed half onto the kept half (6), (9), rescale to ``c_t U`` (7), drop
        ``S_{t,1}``.  Writes ``fbar_t(x_t)`` (from the kernel row of the round) into
        ``fbar_x``.  Returns -1 (and sets ``error``) if (9) cannot be solved."""
        cdef int B = self.B, m = self.m, i, j, a, b, p, info
        cdef Py_ssize_t ld = self.sv.capacity
        cdef double* alpha = self.sv.alpha
        cdef double fn2, nv2, target, r, d2, fx
        # true coefficients of f_t (fold the lazy scale)
        if self.scale != 1.0:
            self.sv.scale(self.scale)
            self.scale = 1.0
        # S_{t,1} (removed) and S_{t,2} (kept), B/2 each, by the rule ``split``
        self.choose_split()
        # K_2, K_21 and the removed coefficients alpha
        for b in range(m):
            for a in range(m):
                self.K2[a + b * m] = self.gram(self.keep[a], self.keep[b])
                self.K21[a + b * m] = self.gram(self.keep[a], self.drop[b])
            self.a1[b] = alpha[self.drop[b]]
        # (9): theta* = (K_2 + eta I)^{-1} K_21 alpha
        info = regularized_projection_c(self.K2, m, self.K21, m, m, m, self.a1, self.eta,
                                        self.theta, self.work)
        if info != 0:
            self.solve_info = info
            self.error = 1
            return -1
        # f_{t,2} + fhat_{t,1} = sum_{S_{t,2}} (alpha + theta) k, and its norm
        for a in range(m):
            self.v[a] = alpha[self.keep[a]] + self.theta[a]
        nv2 = self.quad_form(self.K2, m, m, self.v)
        # ||f_t||^2 = alpha^T K alpha (exact, also resyncs the recursion)
        fn2 = fmax(self.quad_form(self.K, B, B, alpha), 0.0)
        # (7): fbar_t = c_t U (f_{t,2} + fhat_{t,1}) / ||f_{t,2} + fhat_{t,1}||
        target = self.c * self.U if self.c > 0.0 else sqrt(fn2)
        r = target / sqrt(nv2) if nv2 > 0.0 else 0.0
        for a in range(m):
            self.v[a] *= r
        # ||f_t - fbar_t||^2 = delta^T K delta, the term of (11)
        for i in range(B):
            self.delta[i] = alpha[i]
        for a in range(m):
            self.delta[self.keep[a]] -= self.v[a]
        d2 = self.quad_form(self.K, B, B, self.delta)
        if self.record_distance(sqrt(fmax(d2, 0.0))) < 0:
            self.error = 1
            return -1
        self.removals += 1
        # remove S_{t,1}: compact the support set (order kept) and K
        for j in range(self.sv.d):
            for a in range(m):
                p = self.keep[a]
                if p != a:
                    self.sv.X[a + j * ld] = self.sv.X[p + j * ld]
        fx = 0.0
        for a in range(m):
            p = self.keep[a]
            self.sv.sqnorm[a] = self.sv.sqnorm[p]
            self.sv.l1norm[a] = self.sv.l1norm[p]
            self.sv.stamp[a] = self.sv.stamp[p]
            self.sv.krow[a] = self.sv.krow[p]
            alpha[a] = self.v[a]
            fx += self.v[a] * self.sv.krow[a]
        self.sv.n = m
        for b in range(m):
            memcpy(self.K + <Py_ssize_t> b * B, self.K2 + <Py_ssize_t> b * m, m * sizeof(double))
        self.norm_sq = target * target if nv2 > 0.0 else 0.0
        fbar_x[0] = fx
        return 0

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef int i, n
        cdef double kxx, fx = f
        if not self.classify(y * f):
            return
        if self.sv.n >= self.B:
            if self.halve(&fx) < 0:
                return
        # the new column of K: k(x_t, S) is the kernel row left by score (compacted)
        n = self.sv.n
        kxx = kernel_self(&self.kp, x)
        for i in range(n):
            self.K[n + <Py_ssize_t> i * self.B] = self.sv.krow[i]
            self.K[i + <Py_ssize_t> n * self.B] = self.sv.krow[i]
        self.K[n + <Py_ssize_t> n * self.B] = kxx
        # (8) / line 7: f_{t+1} = Proj_H(fbar_t + lambda y_t k(x_t, .))
        self.step(x, y, fx, self.lam, kxx)

    # -- inspection and pickling --------------------------------------------------

    def _distances(self):
        if self.n_dist == 0:
            return np.empty(0)
        return np.array(<double[:self.n_dist]> self.dist, copy=True)

    def _solve_info(self):
        return self.solve_info

    def _gram(self):
        """The Gram matrix of the support set kept incrementally (a copy)."""
        cdef int n = self.size()
        cdef int i, j
        out = np.empty((n, n))
        cdef double[:, ::1] o = out
        for i in range(n):
            for j in range(n):
                o[i, j] = self.K[i + <Py_ssize_t> j * self.B]
        return out

    def _put_gram(self, K):
        """Inverse of ``_gram``."""
        cdef int n, i, j
        K = np.ascontiguousarray(K, dtype=np.float64)
        n = K.shape[0]
        if n > self.B:
            raise ValueError(f"a Gram matrix of {n} vectors exceeds the budget B = {self.B}")
        cdef const double[:, ::1] kv = K
        for i in range(n):
            for j in range(n):
                self.K[i + <Py_ssize_t> j * self.B] = kv[i, j]

    def _put_distances(self, distances):
        """Inverse of ``_distances``."""
        cdef long long k
        dist = np.ascontiguousarray(distances, dtype=np.float64)
        self.n_dist = 0
        for k in range(dist.shape[0]):
            if self.record_distance(dist[k]) < 0:
                raise MemoryError("cannot restore the removal distances")
