# cython: language_level=3
"""Typed KORS: Kernel-Online-Row-Sampling of Calandriello, Lazaric & Valko, *Efficient
second-order online kernel learning with adaptive embedding* (NeurIPS 2017), shared by
PKAWV with the Nystrom basis (Jezequel, Gaillard & Rudi 2019, Section 3.2,
Proposition 5), Pros-N-KONS and, as the weighted ridge factor, Sketched-KONS.

``RidgeLeverage`` keeps ``S K_II S + mu I`` (``S = diag(w)``, the weights of the
dictionary points) by the Cholesky factor ``L`` of an ``okl._core.GramCholesky`` with
appended rows, and gives for a point ``x`` the *weighted ridge residual*

    r(x) = k(x, x) - k^T S (S K_II S + mu I)^{-1} S k,    k = k_I(x),

computed as ``k(x, x) - ||L^{-1} S k||^2`` (clamped at 0).  ``KORS`` adds the
inclusion probability of a point: with the temporary dictionary ``I + (x, weight 1)``,

    tau = (1 + eps)/mu (k(x, x) - kbar^T (Sbar Kbar Sbar + mu I)^{-1} kbar)
        = (1 + eps) r / (r + mu)                       (block inversion),
    p = min(beta tau, 1)    (beta = inf: p = 1 if tau > 0, else 0),

and the weight ``p^{-1/2}`` of a point that joins (``weight_power = 0.5``: the selection
matrix of KORS, ``E[S S^T] = I``; ``weight_power = 1``: the ``1/p`` of the code of
Jezequel et al., App. H.2).  A joining point appends the row
``[w c^T, sqrt(w^2 r + mu)]`` (``c = L^{-1} S k``) to ``L``.
"""

from libc.math cimport sqrt, fmax, fmin, isinf
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy

from scipy.linalg.cython_blas cimport dscal

import numpy as np

from okl._core cimport GramCholesky, Row, Stream, SupportSet, kernel_self

cdef int INC1 = 1


cdef inline int _grow(double** p, int n) noexcept nogil:
    cdef double* q = <double*> realloc(p[0], (n if n > 0 else 1) * sizeof(double))
    if q == NULL:
        return -1
    p[0] = q
    return 0


cdef class RidgeLeverage:
    """The factor of ``S K_II S + mu I`` and the weighted ridge residual of new points.

    Parameters
    ----------
    mu : float > 0
        The ridge ``mu``.
    capacity : int >= 1
        Initial room (grows on demand).
    """

    def __init__(self, double mu, int capacity=64):
        if not mu > 0.0:
            raise ValueError(f"mu must be > 0, got {mu!r}")
        self.mu = mu
        self.chol = GramCholesky(max(capacity, 1), True)
        if self.reserve(max(capacity, 1)) != 0:
            raise MemoryError("cannot allocate the KORS buffers")

    def __dealloc__(self):
        free(self.w)
        free(self.kw)
        free(self.c)

    cdef int reserve(self, int need) noexcept nogil:
        """Room for ``need`` points (vectors and factor); -1 if memory is short (state kept)."""
        if need > self.cap:
            need = max(need, 2 * self.cap)
            if _grow(&self.w, need) or _grow(&self.kw, need) or _grow(&self.c, need):
                return -1
            self.cap = need
        while self.chol.capacity < need:
            if self.chol.reserve(max(need, 2 * self.chol.capacity)) != 0:
                return -1
        return 0

    cdef double residual(self, const double* k, double kxx) noexcept nogil:
        """``r = k(x,x) - ||L^{-1} S k||^2`` for ``k = k_I(x)``; caches ``S k``, ``L^{-1} S k``."""
        cdef int i
        for i in range(self.n):
            self.kw[i] = self.w[i] * k[i]
        self.kxx = kxx
        self.r = self.chol.residual(self.kw, kxx, self.c)
        return self.r

    cdef int add(self, double weight) noexcept nogil:
        """Append the last evaluated point with ``weight``: ``[w c^T, sqrt(w^2 r + mu)]``.

        Returns its index, or -1 without room (``reserve`` first)."""
        cdef int m = self.n
        if m >= self.cap:
            return -1
        if m > 0:
            dscal(&m, &weight, self.kw, &INC1)
            dscal(&m, &weight, self.c, &INC1)
        if self.chol.add(self.kw, weight * weight * self.kxx + self.mu, self.c,
                         weight * weight * self.r + self.mu) < 0:
            return -1
        self.w[m] = weight
        self.n = m + 1
        return m

    cdef void weighted_solution(self, double* out) noexcept nogil:
        """``out = S (S K_II S + mu I)^{-1} S k`` for the last evaluated point (before ``add``)."""
        cdef int i
        if self.n == 0:
            return
        memcpy(out, self.c, self.n * sizeof(double))
        self.chol.to_beta(out)
        for i in range(self.n):
            out[i] *= self.w[i]

    # -- Python surface -------------------------------------------------------------------

    @property
    def size(self):
        """Number of points."""
        return self.n

    @property
    def ridge(self):
        """``mu``."""
        return self.mu

    @property
    def weights(self):
        """The weights ``w_j`` (the diagonal of ``S``)."""
        return np.array(<double[:self.n]> self.w, copy=True) if self.n else np.empty(0)

    @property
    def factor(self):
        """Lower ``L`` with ``L L^T = S K_II S + mu I``."""
        return self.chol.factor

    @property
    def gram(self):
        """``S K_II S + mu I`` as accumulated."""
        return self.chol.gram

    def evaluate(self, k, double kxx):
        """The residual ``r`` of a point from its kernel column ``k = k_I(x)`` and ``k(x, x)``
        (cached: ``append`` adds this point)."""
        kv = np.ascontiguousarray(k, dtype=np.float64).reshape(-1)
        if kv.shape[0] != self.n:
            raise ValueError(f"k has {kv.shape[0]} entries, the dictionary has {self.n} points")
        if not (np.all(np.isfinite(kv)) and np.isfinite(kxx)):
            raise ValueError("k and kxx must be finite")
        cdef const double[::1] kk = kv
        return self.residual(&kk[0] if self.n else NULL, kxx)

    def weighted_solve(self):
        """``S (S K_II S + mu I)^{-1} S k`` for the point last passed to ``evaluate``."""
        out = np.zeros(self.n)
        cdef double[::1] o = out
        if self.n:
            self.weighted_solution(&o[0])
        return out

    def append(self, double weight):
        """Add the point last passed to ``evaluate`` with ``weight`` (> 0)."""
        if not (weight > 0.0 and np.isfinite(weight)):
            raise ValueError(f"weight must be finite and > 0, got {weight!r}")
        if self.reserve(self.n + 1) != 0 or self.add(weight) < 0:
            raise MemoryError("cannot add a point")

    def _state(self):
        return (self.chol, self.weights)

    def _set_state(self, chol, weights):
        w = np.ascontiguousarray(weights, dtype=np.float64)
        self.chol = chol
        if self.reserve(max(w.shape[0], 1)) != 0:
            raise MemoryError("cannot restore the KORS buffers")
        cdef int i
        for i in range(w.shape[0]):
            self.w[i] = w[i]
        self.n = w.shape[0]

    def __reduce__(self):
        return (_rebuild_ridge, (type(self), self._args(), self._state()))

    def _args(self):
        return (self.mu,)


cdef class KORS(RidgeLeverage):
    """KORS' sampling rule on top of ``RidgeLeverage``.

    Parameters
    ----------
    mu : float > 0
        KORS regularization (the ``gamma`` of Calandriello et al.).
    beta : float > 0 or inf
        Oversampling: ``p = min(beta tau, 1)``.
    eps : float in (0, 1)
        Accuracy: ``tau = (1 + eps) r / (r + mu)``.
    weight_power : 0.5 or 1.0
        Weight ``p^{-weight_power}`` of a joining point.
    capacity : int
        Initial room.
    """

    def __init__(self, double mu, double beta, double eps, double weight_power=0.5,
                 int capacity=64):
        RidgeLeverage.__init__(self, mu, capacity)
        if not (beta > 0.0):
            raise ValueError(f"beta must be > 0, got {beta!r}")
        if not (0.0 < eps < 1.0):
            raise ValueError(f"eps must be in (0, 1), got {eps!r}")
        if weight_power != 0.5 and weight_power != 1.0:
            raise ValueError(f"weight_power must be 0.5 or 1.0, got {weight_power!r}")
        self.beta = beta
        self.eps = eps
        self.weight_power = weight_power

    cdef double probability(self, double r) noexcept nogil:
        """``p = min(beta tau, 1)`` with ``tau = (1 + eps) r / (r + mu)``."""
        cdef double tau = (1.0 + self.eps) * r / (r + self.mu)
        if isinf(self.beta):
            return 1.0 if tau > 0.0 else 0.0
        return fmin(fmax(self.beta * tau, 0.0), 1.0)

    cdef double weight(self, double p) noexcept nogil:
        """``p^{-1/2}`` (KORS) or ``1/p`` (the code of Jezequel et al.)."""
        if self.weight_power == 1.0:
            return 1.0 / p
        return 1.0 / sqrt(p)

    def inclusion_probability(self, double r):
        """``p`` of a point of residual ``r``."""
        return self.probability(r)

    def weight_of(self, double p):
        """The weight of a point joining with probability ``p``."""
        return self.weight(p)

    def _args(self):
        return (self.mu, self.beta, self.eps, self.weight_power)


def _rebuild_ridge(cls, args, state):
    obj = cls(*args)
    obj._set_state(*state)
    return obj


def kors_stream(KORS kors, SupportSet sv, Stream s, const double[::1] u):
    """Run KORS over the rows of ``s`` from an empty dictionary: round ``t`` joins iff
    ``u[t] < p_t`` (see ``okl.learners.kors.kors_dictionary``).

    ``sv`` receives the dictionary points (coefficient: weight, stamp: 0-based round).
    Returns ``(p, joined)`` per round; ``kors`` and ``sv`` are updated in place.
    """
    cdef Py_ssize_t t, T = s.T
    cdef Row row
    cdef double kxx, r, p
    cdef int m
    if u.shape[0] < T:
        raise ValueError(f"{u.shape[0]} uniforms for {T} rounds")
    if sv.n or kors.n:
        raise ValueError("kors_stream starts from an empty dictionary")
    probs = np.zeros(T)
    joined = np.zeros(T, dtype=np.uint8)
    cdef double[::1] pv = probs
    cdef unsigned char[::1] jv = joined
    kb = np.zeros(64)
    cdef double[::1] kbv = kb
    for t in range(T):
        s.row(t, &row)
        m = sv.n
        if kbv.shape[0] < m + 1:
            kb = np.zeros(2 * (m + 1))
            kbv = kb
        kxx = kernel_self(&sv.kp, &row)
        if m:
            sv.kernel_row_into(&row, &kbv[0])
        r = kors.residual(&kbv[0], kxx)
        p = kors.probability(r)
        pv[t] = p
        if u[t] < p:
            if (kors.reserve(m + 1) != 0
                    or (sv.n == sv.capacity and sv.reserve(2 * sv.capacity) != 0)):
                raise MemoryError("cannot grow the KORS dictionary")
            kors.add(kors.weight(p))
            sv.add(&row, kors.w[m], t)
            jv[t] = 1
    return probs, joined.view(bool)
