# cython: language_level=3
"""Typed cores of FOGD and NOGD (Lu, Hoi, Wang, Zhao & Liu, *Large Scale Online
Kernel Learning*, JMLR 17(47), 2016): online gradient descent on an explicit
feature map -- random Fourier features (FOGD) or the Nystrom map of the first
``B`` support vectors (NOGD).  See ``okl/learners/features.py`` for the algorithms.
"""

from libc.math cimport cos, sin, sqrt, exp, fabs, log1p
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from scipy.linalg.cython_blas cimport ddot, dgemv, daxpy, dsymv, dsyrk

import numpy as np
cimport numpy as cnp

from okl._core cimport Learner, Row, Stream
from okl._losses cimport loss_derivative, loss_value
from okl.learners._arrays cimport c_vector
from okl.learners._fourier cimport fourier_features
from okl.learners._nystrom cimport nystrom_map
from okl._learner import Field, fields

cnp.import_array()

cdef extern from "../_vtrig.h" nogil:
    void okl_sincos(const double* x, int n, double scale, double* c, double* s, int exact)
    int okl_trig_has_fma()


def _sincos(x, double scale=1.0, bint exact=False):
    """``(scale cos(x), scale sin(x))`` of a 1-D array through FOGD's path (``okl/_vtrig.h``):
    the vectorized polynomial loop, or libm's ``sincos`` with ``exact=True``."""
    cdef const double[::1] xv = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    cdef Py_ssize_t n = xv.shape[0]
    c = np.empty(n)
    s = np.empty(n)
    cdef double[::1] cv = c
    cdef double[::1] sv = s
    if n > 2 ** 31 - 1:
        raise ValueError(f"at most 2^31 - 1 values, got {n}")
    if n:
        with nogil:
            okl_sincos(&xv[0], <int> n, scale, &cv[0], &sv[0], exact)
    return c, s


def _sincos_is_vectorized():
    """True where ``okl_sincos`` takes its polynomial path (the CPU has FMA), else libm."""
    return bool(okl_trig_has_fma())


cdef double ONE = 1.0
cdef double ZERO = 0.0
cdef int INC1 = 1


# ----------------------------------------------------------------------------
# FOGD
# ----------------------------------------------------------------------------

cdef class FOGDCore(Learner):
    """``f(x) = w^T z(x)`` with ``z(x) = [cos(U x), sin(U x)] / sqrt(D)``.

    ``U`` (``D x d``, row ``i`` the frequency ``u_i``) is stored column-major
    (``u_i[j] = U[i + j D]``, feature ``j``'s column contiguous): ``U x`` is one
    sweep over ``ux`` per four input features (dense) or four non-zeros (CSR),
    through ``okl_dense_dots`` / ``okl_sparse_dots`` of ``_vexp.h``; the sines and
    cosines go through ``okl_sincos`` of ``_vtrig.h`` (libm's with ``exact``).
    ``z`` keeps the features of the last scored example, which ``update`` uses
    (the driver scores, then updates, the same row).
    """
    cdef public int loss_kind      # the learner's parameters (okl.params)
    cdef public double eta
    cdef public int exact          # sincos="libm"
    cdef public int D
    cdef int n_feat                # 2 D
    cdef double* U
    cdef double* w
    cdef double* ux
    cdef double* z
    cdef public long long n_updates

    # the frequencies and weights are drawn / allocated at the first example (None before)
    _state_fields = fields(Field("U", get="_fogd_frequencies", put="_put_frequencies"),
                           Field("w", get="_drawn_weights", put="_put_weights"),
                           "n_updates")

    def __dealloc__(self):
        self._free()

    cdef void _free(self) noexcept nogil:
        free(self.U)
        free(self.w)
        free(self.ux)
        free(self.z)
        self.U = NULL
        self.w = NULL
        self.ux = NULL
        self.z = NULL

    def _setup(self):
        self._free()
        self.n_feat = 2 * self.D
        self.n_updates = 0

    def _fogd_allocate(self, U, w=None):
        """Take the frequencies ``U`` (``D x d``) and the weights (default 0)."""
        cdef int d = self.d
        cdef Py_ssize_t i, j
        U = np.asarray(U, dtype=np.float64)
        if U.shape != (self.D, d):
            raise ValueError(f"U must have shape ({self.D}, {d}), got {U.shape}")
        cdef const double[:, :] u = U
        self._free()
        self.U = <double*> malloc(<size_t> self.D * d * sizeof(double))
        self.w = <double*> malloc(self.n_feat * sizeof(double))
        self.ux = <double*> malloc(self.D * sizeof(double))
        self.z = <double*> malloc(self.n_feat * sizeof(double))
        if self.U == NULL or self.w == NULL or self.ux == NULL or self.z == NULL:
            self._free()
            raise MemoryError(f"cannot allocate {self.D} random features of dimension {d}")
        for j in range(d):
            for i in range(self.D):
                self.U[i + j * self.D] = u[i, j]
        memset(self.z, 0, self.n_feat * sizeof(double))
        if w is None:
            memset(self.w, 0, self.n_feat * sizeof(double))
        else:
            wv = np.ascontiguousarray(w, dtype=np.float64)
            for i in range(self.n_feat):
                self.w[i] = wv[i]

    cdef void features(self, const Row* x, double* out) noexcept nogil:
        """``out = z(x) = [cos(u_i^T x)]_i ++ [sin(u_i^T x)]_i, scaled by 1/sqrt(D)``."""
        fourier_features(self.U, self.D, self.d, x, self.ux, 1.0 / sqrt(<double> self.D),
                         self.exact, out)

    cdef double score(self, const Row* x) noexcept nogil:
        self.features(x, self.z)
        return ddot(&self.n_feat, self.w, &INC1, self.z, &INC1)

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double g = loss_derivative(self.loss_kind, y, f), a
        if g != 0.0:
            a = -self.eta * g
            daxpy(&self.n_feat, &a, self.z, &INC1, self.w, &INC1)
            self.n_updates += 1

    cdef int size(self) noexcept nogil:
        return self.D

    # -- inspection and pickling ----------------------------------------------------

    def _fogd_transform(self, Stream s):
        out = np.empty((s.T, self.n_feat))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t t
        cdef Row row
        with nogil:
            for t in range(s.T):
                s.row(t, &row)
                self.features(&row, &o[t, 0])
        return out

    def _fogd_frequencies(self):
        if self.U == NULL:
            return None
        out = np.empty((self.D, self.d))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t i, j
        for i in range(self.D):
            for j in range(self.d):
                o[i, j] = self.U[i + j * self.D]
        return out

    def _fogd_weights(self):
        return np.zeros(self.n_feat) if self.w == NULL else c_vector(self.w, self.n_feat)

    def _drawn_weights(self):
        return None if self.w == NULL else self._fogd_weights()

    def _put_frequencies(self, U):
        """Inverse of ``_fogd_frequencies`` (allocates the features; the weights 0)."""
        if U is not None:
            self._fogd_allocate(U)

    def _put_weights(self, w):
        """Inverse of ``_drawn_weights`` (after ``_put_frequencies``)."""
        cdef Py_ssize_t i
        if w is not None:
            wv = np.ascontiguousarray(w, dtype=np.float64)
            for i in range(self.n_feat):
                self.w[i] = wv[i]


# ----------------------------------------------------------------------------
# NOGD
# ----------------------------------------------------------------------------

# rounds between two choices of the form in which NOGD keeps its linear model
cdef int NOGD_WINDOW = 512


cdef class NOGDCore(Learner):
    """Kernel OGD until ``|S| = B``, then OGD on ``z(x) = M k_S(x)``, ``M = D_r^{-1/2} V_r^T``.

    ``M`` is ``r x B``, column-major with leading dimension ``k`` (``r <= k``).  After
    the switch the linear model is kept in one of two forms, whichever the recent
    rounds make cheaper:

    * eager: ``w`` itself; a round computes ``z = M k_S(x)`` (one ``r x B`` product)
      for the score ``w^T z``, and an update is ``w += a z``;
    * lazy: the coefficients on the support vectors ``beta = M^T w``; a score is
      ``beta^T k_S(x)`` (a dot product of length ``B``), and an update
      ``beta += a M^T M k_S(x)`` costs two ``r x B`` products, or one ``B x B``
      product with ``P = M^T M = V_r D_r^{-1} V_r^T`` (``dsymv``) when ``3 r > B``.

    With ``f`` the share of rounds with a non-zero gradient, lazy costs ``f`` times
    ``min(2 r B, ~0.75 B^2)`` a round against ``r B`` for eager: at ``k = B`` lazy
    always wins, at ``k = 0.2 B`` when ``f < 1/2`` (the hinge loss on an easy stream),
    never for the logistic loss (``f = 1``).  The form is chosen at the switch from
    stage 1's update share (``B / t``) and again every ``NOGD_WINDOW`` rounds from
    the window's, with a 10 % margin against flip-flopping; converting costs one
    ``r x B`` product (``beta = M^T w``; ``w = D_r M beta`` since ``M M^T = D_r^{-1}``).
    The choice depends on the rounds only, so runs are deterministic and a pickled
    learner resumes identically; the two forms agree to round-off.
    """
    cdef public int loss_kind       # the learner's parameters (okl.params)
    cdef public double eta
    cdef public int B
    cdef int k              # the rank in use (the learner's k_)
    cdef public int r
    cdef public bint switched
    cdef bint use_P, lazy
    cdef public bint add_every  # stage 1 adds every example (NOGD.R), not only loss rounds
    cdef public long long switch_round
    cdef int win_rounds, win_updates
    cdef double* M
    cdef double* P          # M^T M (B x B, upper triangle) when use_P
    cdef double* w          # the linear model (current when not lazy)
    cdef double* beta       # M^T w: its coefficients on S (current when lazy)
    cdef double* z
    cdef double* evals      # the top-k eigenvalues of K_B (descending), for inspection
    cdef public long long n_updates

    def __dealloc__(self):
        self._free()

    cdef void _free(self) noexcept nogil:
        free(self.M)
        free(self.P)
        free(self.w)
        free(self.beta)
        free(self.z)
        free(self.evals)
        self.M = NULL
        self.P = NULL
        self.w = NULL
        self.beta = NULL
        self.z = NULL
        self.evals = NULL

    def _setup(self):
        """``add_every``: stage 1 adds every example with ``alpha_t = eta y_t`` (the
        POMDR/Ahpatron authors' ``NOGD.R``; the learner allows it for the hinge loss only),
        else only rounds with a non-zero loss gradient (``NysGD.m``).  The rank is the
        learner's ``k_`` (``k``, or its default from ``B``)."""
        self._free()
        self.k = self.k_
        self.r = 0
        self.switched = False
        self.use_P = False
        self.lazy = False
        self.switch_round = 0
        self.win_rounds = 0
        self.win_updates = 0
        self.n_updates = 0

    cdef int _alloc_map(self) noexcept nogil:
        self._free()
        self.M = <double*> malloc(<size_t> self.k * self.B * sizeof(double))
        self.w = <double*> malloc(self.k * sizeof(double))
        self.beta = <double*> malloc(self.B * sizeof(double))
        self.z = <double*> malloc(self.k * sizeof(double))
        self.evals = <double*> malloc(self.k * sizeof(double))
        if (self.M == NULL or self.w == NULL or self.beta == NULL or self.z == NULL
                or self.evals == NULL):
            self._free()
            return -1
        return 0

    cdef int _finish_map(self) noexcept nogil:
        """``P = M^T M`` if the rank makes one ``B x B`` product cheaper than two
        ``r x B`` ones: ``3 r > B`` (OpenBLAS, one thread: ``dsymv`` reads one triangle
        and took 5.6 us at B = 300 and 70 us at B = 1000, two ``dgemv`` 3.0 us at
        r = 60, B = 300 and 99 us at r = 500, B = 1000).  0, or -1 if out of memory."""
        cdef int n = self.B
        self.use_P = 3 * self.r > n
        if not self.use_P:
            return 0
        self.P = <double*> malloc(<size_t> n * n * sizeof(double))
        if self.P == NULL:
            return -1
        dsyrk(b"U", b"T", &n, &self.r, &ONE, self.M, &self.k, &ZERO, self.P, &n)
        return 0

    cdef bint _lazy_is_cheaper(self, double f, double margin) noexcept nogil:
        """Whether keeping ``beta`` costs less than keeping ``w`` at update share ``f``,
        by ``margin`` (a fraction: 0.1 asks for 10 % less)."""
        cdef double B = self.B, r = self.r
        cdef double lazy = f * (0.75 * B * B if self.use_P else 2.0 * r * B)
        return lazy < (1.0 - margin) * r * B

    cdef void _set_lazy(self, bint lazy) noexcept nogil:
        """Convert the linear model to the other form (one ``r x B`` product)."""
        cdef int j
        if lazy == self.lazy or self.r == 0:
            self.lazy = lazy
            return
        if lazy:        # beta = M^T w
            dgemv(b"T", &self.r, &self.B, &ONE, self.M, &self.k, self.w, &INC1, &ZERO,
                  self.beta, &INC1)
        else:           # w = D_r M beta
            dgemv(b"N", &self.r, &self.B, &ONE, self.M, &self.k, self.beta, &INC1, &ZERO,
                  self.w, &INC1)
            for j in range(self.r):
                self.w[j] *= self.evals[j]
        self.lazy = lazy

    cdef int build_map(self) noexcept nogil:
        """The Nystrom map of the ``B`` support vectors and the initial weights.

        ``M = Lambda_r^{-1/2} V_r^T`` from the top ``k`` eigenpairs of ``K_B``
        (``nystrom_map``, okl/learners/_nystrom.pxd) and
        ``w = M^{+T} alpha = Lambda_r^{1/2} V_r^T alpha``, kept as ``beta = M^T w``.
        Returns 0, or -1 if out of memory / LAPACK failed.
        """
        cdef int n = self.B, j, r
        cdef int kk = self.k if self.k < n else n
        cdef double* V = NULL
        if self._alloc_map() != 0:
            return -1
        r = nystrom_map(self.sv, n, kk, self.M, self.k, self.evals, &V)
        if r < 0:
            return -1
        self.r = r
        for j in range(r):               # the j-th kept eigenvector: column kk - 1 - j
            self.w[j] = sqrt(self.evals[j]) * ddot(&n, V + <Py_ssize_t> (kk - 1 - j) * n,
                                                   &INC1, self.sv.alpha, &INC1)
        free(V)
        memset(self.beta, 0, n * sizeof(double))
        if self._finish_map() != 0:
            return -1
        self.switched = True
        self.switch_round = self.t
        self.win_rounds = 0
        self.win_updates = 0
        self.lazy = False
        # stage 1 added a vector on every update: its update share is B / t
        self._set_lazy(self._lazy_is_cheaper(<double> n / <double> self.t, 0.0))
        return 0

    cdef void features(self, const Row* x, double* out) noexcept nogil:
        """``out = M k_S(x)`` (after the switch); leaves ``k_S(x)`` in ``sv.krow``."""
        self.sv.fill_krow(x)
        if self.r > 0:
            dgemv(b"N", &self.r, &self.B, &ONE, self.M, &self.k, self.sv.krow, &INC1, &ZERO,
                  out, &INC1)

    cdef double score(self, const Row* x) noexcept nogil:
        if not self.switched:
            return self.sv.score(x)
        if self.r == 0:
            return 0.0
        if self.lazy:
            self.sv.fill_krow(x)                 # update() reads it
            return ddot(&self.B, self.beta, &INC1, self.sv.krow, &INC1)
        self.features(x, self.z)                 # update() reads z
        return ddot(&self.r, self.w, &INC1, self.z, &INC1)

    cdef void _update_linear(self, double g) noexcept nogil:
        """Stage 2: ``w += a z(x)`` in the current form, then the window's bookkeeping."""
        cdef double a = -self.eta * g
        if g != 0.0:
            self.n_updates += 1
            self.win_updates += 1
            if self.r > 0 and not self.lazy:
                daxpy(&self.r, &a, self.z, &INC1, self.w, &INC1)
            elif self.r > 0 and self.use_P:      # beta += a P k_S(x)
                dsymv(b"U", &self.B, &a, self.P, &self.B, self.sv.krow, &INC1, &ONE,
                      self.beta, &INC1)
            elif self.r > 0:                     # beta += a M^T (M k_S(x))
                dgemv(b"N", &self.r, &self.B, &ONE, self.M, &self.k, self.sv.krow, &INC1,
                      &ZERO, self.z, &INC1)
                dgemv(b"T", &self.r, &self.B, &a, self.M, &self.k, self.z, &INC1, &ONE,
                      self.beta, &INC1)
        self.win_rounds += 1
        if self.win_rounds == NOGD_WINDOW:
            if self.lazy != self._lazy_is_cheaper(
                    <double> self.win_updates / NOGD_WINDOW, -0.1 if self.lazy else 0.1):
                self._set_lazy(not self.lazy)
            self.win_rounds = 0
            self.win_updates = 0

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double g = loss_derivative(self.loss_kind, y, f), a
        if self.switched:
            self._update_linear(g)
            return
        if self.add_every:
            a = self.eta * y                     # NOGD.R: every stage-1 example, eta y_t
        elif g == 0.0:
            return
        else:
            a = -self.eta * g
        self.n_updates += 1
        if self.sv.add(x, a, self.t) < 0:
            self.error = 1
            return
        if self.sv.n == self.B:
            if self.build_map() != 0:
                self.error = 1

    cdef int size(self) noexcept nogil:
        return self.sv.n if self.sv is not None else 0

    # -- inspection and pickling ----------------------------------------------------

    def _nogd_transform(self, Stream s):
        if not self.switched:
            raise ValueError("NOGD has no Nystrom features before its budget is full "
                             f"({self.size()} of B = {self.B} support vectors)")
        out = np.zeros((s.T, self.r))
        cdef double[::1] buf = np.empty(max(self.r, 1))
        cdef Py_ssize_t t, j
        cdef Row row
        for t in range(s.T):
            s.row(t, &row)
            self.features(&row, &buf[0])
            for j in range(self.r):
                out[t, j] = buf[j]
        return out

    def _nogd_map(self):
        """``(M, w, eigenvalues)`` after the switch, else ``None``."""
        if not self.switched:
            return None
        M = np.empty((self.r, self.B))
        cdef double[:, ::1] m = M
        cdef Py_ssize_t i, j
        for j in range(self.r):
            for i in range(self.B):
                m[j, i] = self.M[j + i * self.k]
        ev = c_vector(self.evals, self.r)
        w = ev * (M @ c_vector(self.beta, self.B)) if self.lazy else c_vector(self.w, self.r)
        return M, w, ev

    def _nogd_beta(self):
        """``beta = M^T w`` (the coefficients on S) after the switch, else ``None``."""
        if not self.switched:
            return None
        if self.lazy:
            return c_vector(self.beta, self.B)
        M, w, _ = self._nogd_map()
        return M.T @ w

    def _switch_round(self):
        return int(self.switch_round) if self.switched else None

    @property
    def keeps_coefficients(self):
        """After the switch: True while the linear model is kept as ``beta = M^T w``
        (lazy form), False while it is kept as ``w`` (eager form)."""
        return bool(self.lazy)

    # The state stays written by hand: after the switch the Nystrom map (k x B, its
    # eigenvalues, the weights, beta) is rebuilt into its buffers and finished.

    def _nogd_state(self):
        if not self.switched:
            return {"map": None, "n_updates": self.n_updates, "switch_round": self.switch_round}
        M = self._nogd_map()[0]
        return {"map": (M, c_vector(self.w, self.r), c_vector(self.evals, self.r)),
                "beta": c_vector(self.beta, self.B), "lazy": bool(self.lazy),
                "window": (self.win_rounds, self.win_updates),
                "n_updates": self.n_updates, "switch_round": self.switch_round}

    def _nogd_restore(self, state):
        cdef Py_ssize_t i, j
        self.n_updates = state["n_updates"]
        self.switch_round = state["switch_round"]
        if state["map"] is None:
            return
        M, w, ev = state["map"]
        beta = state["beta"]
        if self._alloc_map() != 0:
            raise MemoryError("cannot restore the Nystrom map")
        self.r = M.shape[0]
        for i in range(self.B):
            self.beta[i] = beta[i]
        for j in range(self.r):
            self.w[j] = w[j]
            self.evals[j] = ev[j]
            for i in range(self.B):
                self.M[j + i * self.k] = M[j, i]
        if self._finish_map() != 0:
            raise MemoryError("cannot restore the Nystrom map")
        self.lazy = state["lazy"]
        self.win_rounds, self.win_updates = state["window"]
        self.switched = True

    @property
    def is_switched(self):
        """True once the Nystrom map is built (``|S| = B`` was reached)."""
        return bool(self.switched)
