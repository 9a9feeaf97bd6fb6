# cython: language_level=3
"""Typed cores of LIBOKL's multiclass FOGD and NOGD (Lu, Hoi, Wang, Zhao & Liu, *Large
scale online kernel learning*, JMLR 17(47), 2016; ``FouGD.m`` and ``NyGD.m`` of the
folder ``multiclass/`` of ``jingcoco/Online-Kernel-Learning``): online gradient descent
on the multiclass hinge loss in an explicit feature space, one weight vector per class.
The learners: ``okl/learners/multiclass_budget.py``.

Both keep ``MulticlassCore``'s surface (classes, scores ``s``, ``yhat``, the hooks) and
override ``class_scores``: FOGD scores ``W z(x)`` with the random Fourier features
``z(x) = [cos(u_i^T x)]_i ++ [sin(u_i^T x)]_i`` (no support set); NOGD is kernel OGD on
the shared support set until its budget is full, then ``W z(x)`` with the Nystrom
features ``z(x) = D_k^{-1/2} V_k^T k_S(x)`` of the ``B`` support vectors.
"""

from libc.math cimport fmax, sqrt, floor
from libc.stdlib cimport free, malloc
from libc.string cimport memset
from scipy.linalg.cython_blas cimport ddot, dgemv, daxpy

import numpy as np

from okl._core cimport Row, Stream
from okl._learner import Field, fields
from okl.learners._fourier cimport fourier_features
from okl.learners._multiclass cimport MulticlassCore
from okl.learners._nystrom cimport nystrom_map

cdef double ONE = 1.0
cdef double ZERO = 0.0
cdef int INC1 = 1


cdef inline double _hinge(const double* s, int y, int r) noexcept nogil:
    """``max(0, 1 - (s[y] - s[r]))``: the toolbox's ``l_t``, in its order of operations."""
    return fmax(0.0, 1.0 - (s[y] - s[r]))


# ----------------------------------------------------------------------------------
# FOGD (FouGD.m)
# ----------------------------------------------------------------------------------

cdef class MulticlassFOGDCore(MulticlassCore):
    """``s_c = w_c^T z(x)``, ``z(x) = [cos(U x), sin(U x)]`` (times ``1/sqrt(D)`` when
    ``normalized``); ``l_t > 0``: ``w_y += eta z``, ``w_{s_t} -= eta z``.

    ``U`` (``D x d``, row ``i`` the frequency ``u_i``) is stored feature-major
    (``u_i[j] = U[i + j D]``) so that ``U x`` is one sweep per four input features
    (``okl_dense_dots``) or four non-zeros (``okl_sparse_dots``); ``W`` is ``K x 2D``,
    row ``c`` the weights of class ``c``.  A round costs ``d D`` multiply-adds for
    ``U x``, ``D`` sines and cosines (``okl_sincos``) and ``2 D K`` for the scores; an
    update ``4 D``.
    """
    cdef public int D
    cdef public double eta
    cdef public bint normalized
    cdef public long long n_updates
    cdef int n_feat
    cdef double* U
    cdef double* W
    cdef double* ux
    cdef double* z

    _state_fields = fields(Field("U", get="_frequencies", put="_put_frequencies"),
                           Field("W", get="_weights_state", put="_put_weights"),
                           "n_updates")

    def __cinit__(self, *args, **kwargs):
        self.U = NULL
        self.W = NULL
        self.ux = NULL
        self.z = NULL

    def __dealloc__(self):
        self._free()

    cdef void _free(self) noexcept nogil:
        free(self.U)
        free(self.W)
        free(self.ux)
        free(self.z)
        self.U = NULL
        self.W = NULL
        self.ux = NULL
        self.z = NULL

    def _setup(self):
        self._free()
        self.n_feat = 2 * self.D
        self.n_updates = 0

    def _fogd_allocate(self, u):
        """Take the frequencies ``u`` (``d x D``, column ``i`` the frequency ``u_i``: the
        toolbox's ``u``) and zero weights; the classes must be known."""
        cdef int d = self.d, D = self.D, K = self.K
        cdef Py_ssize_t i, j
        u = np.asarray(u, dtype=np.float64)
        if u.shape != (d, D):
            raise ValueError(f"the frequencies must have shape ({d}, {D}), got {u.shape}")
        if K < 2:
            raise ValueError("the classes must be known before the features are drawn")
        cdef const double[:, :] uv = u
        self._free()
        self.U = <double*> malloc(<size_t> D * d * sizeof(double))
        self.W = <double*> malloc(<size_t> K * self.n_feat * sizeof(double))
        self.ux = <double*> malloc(D * sizeof(double))
        self.z = <double*> malloc(self.n_feat * sizeof(double))
        if self.U == NULL or self.W == NULL or self.ux == NULL or self.z == NULL:
            self._free()
            raise MemoryError(f"cannot allocate {D} random features of dimension {d}")
        for j in range(d):
            for i in range(D):
                self.U[i + j * D] = uv[j, i]
        memset(self.W, 0, <size_t> K * self.n_feat * sizeof(double))
        memset(self.z, 0, self.n_feat * sizeof(double))

    cdef void features(self, const Row* x, double* out) noexcept nogil:
        fourier_features(self.U, self.D, self.d, x, self.ux,
                         1.0 / sqrt(<double> self.D) if self.normalized else 1.0, 0, out)

    cdef void class_scores(self, const Row* x) noexcept nogil:
        cdef int c
        if self.U == NULL:
            for c in range(self.K):
                self.s[c] = 0.0
        else:
            self.features(x, self.z)
            for c in range(self.K):
                self.s[c] = ddot(&self.n_feat, self.W + <Py_ssize_t> c * self.n_feat,
                                 &INC1, self.z, &INC1)
        self.yhat = self.best(-1)

    cdef double mc_loss(self, int y) noexcept nogil:
        return _hinge(self.s, y, self.best(y))

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r = self.best(y)
        cdef double a
        if not _hinge(self.s, y, r) > 0.0 or self.U == NULL:
            return
        a = self.eta
        daxpy(&self.n_feat, &a, self.z, &INC1, self.W + <Py_ssize_t> y * self.n_feat,
              &INC1)
        a = -self.eta
        daxpy(&self.n_feat, &a, self.z, &INC1, self.W + <Py_ssize_t> r * self.n_feat,
              &INC1)
        self.n_updates += 1

    cdef int size(self) noexcept nogil:
        return self.D

    # -- inspection and pickling ----------------------------------------------------

    def _frequencies(self):
        """``u`` (``d x D``, column ``i`` the frequency ``u_i``), or None before the
        first example."""
        if self.U == NULL:
            return None
        out = np.empty((self.d, self.D))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t i, j
        for j in range(self.d):
            for i in range(self.D):
                o[j, i] = self.U[i + j * self.D]
        return out

    def _put_frequencies(self, u):
        if u is not None:
            self._fogd_allocate(u)

    def _weights_state(self):
        """``W`` (``K x 2D``), or None before the first example."""
        if self.W == NULL:
            return None
        out = np.empty((self.K, self.n_feat))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t c, i
        for c in range(self.K):
            for i in range(self.n_feat):
                o[c, i] = self.W[c * self.n_feat + i]
        return out

    def _put_weights(self, w):
        cdef Py_ssize_t c, i
        if w is None:
            return
        w = np.ascontiguousarray(w, dtype=np.float64)
        if self.W == NULL or w.shape != (self.K, self.n_feat):
            raise ValueError(f"the state's weights have shape {w.shape}, the learner's "
                             f"({self.K}, {self.n_feat})")
        for c in range(self.K):
            for i in range(self.n_feat):
                self.W[c * self.n_feat + i] = w[c, i]

    def _fogd_transform(self, Stream st):
        out = np.empty((st.T, self.n_feat))
        cdef double[:, ::1] o = out
        cdef Py_ssize_t t
        cdef Row row
        with nogil:
            for t in range(st.T):
                st.row(t, &row)
                self.features(&row, &o[t, 0])
        return out


# ----------------------------------------------------------------------------------
# NOGD (NyGD.m)
# ----------------------------------------------------------------------------------

cdef class MulticlassNOGDCore(MulticlassCore):
    """Stage 1: kernel OGD on the shared support set, ``l_t > 0``: ``x`` joins with
    ``+eta`` on ``y`` and ``-eta`` on ``s_t`` while ``|S| < B``.  The first round with
    ``l_t > 0`` and ``B`` held (its prediction made by the kernel expansion) builds the
    map: ``K_B = V D V^T``, the ``k`` largest eigenpairs (LAPACK ``dsyevr``, less those
    ``<= B eps lambda_max``: ``r <= k`` kept), ``M = D_r^{-1/2} V_r^T`` (``r x B``),
    ``W = A^T V_r D_r^{1/2}`` (``K x r``: the expansion's coefficients ``A`` through
    ``pinv(M)``); then that round's step and every later one are
    ``w_y += eta z``, ``w_{s_t} -= eta z`` with ``z = M k_S(x)``.

    ``M`` is stored column-major with leading dimension ``rank`` (``M[j + i rank]``), ``W``
    row by row (``W[c rank + j]``).  A round of stage 2 costs the kernel row, one
    ``r x B`` product (``dgemv``) and ``K r`` multiply-adds; an update ``2 r``.
    """
    cdef public int B
    cdef public double eta
    cdef public int rank            # k requested (the learner's k_)
    cdef public int r               # k kept
    cdef public bint switched
    cdef public long long n_updates, switch_round
    cdef double* M
    cdef double* W
    cdef double* z
    cdef double* evals

    _state_fields = fields("switched", "r", "n_updates", "switch_round",
                           Field("nystrom", get="_map_state", put="_put_map"))

    def __cinit__(self, *args, **kwargs):
        self.M = NULL
        self.W = NULL
        self.z = NULL
        self.evals = NULL

    def __dealloc__(self):
        self._free()

    cdef void _free(self) noexcept nogil:
        free(self.M)
        free(self.W)
        free(self.z)
        free(self.evals)
        self.M = NULL
        self.W = NULL
        self.z = NULL
        self.evals = NULL

    def _setup(self):
        self._free()
        self.rank = self.k_
        self.r = 0
        self.switched = False
        self.n_updates = 0
        self.switch_round = 0

    cdef int _alloc_map(self) noexcept nogil:
        cdef int k = self.rank if self.rank > 0 else 1
        self._free()
        self.M = <double*> malloc(<size_t> k * self.B * sizeof(double))
        self.W = <double*> malloc(<size_t> k * self.K * sizeof(double))
        self.z = <double*> malloc(k * sizeof(double))
        self.evals = <double*> malloc(k * sizeof(double))
        if self.M == NULL or self.W == NULL or self.z == NULL or self.evals == NULL:
            self._free()
            return -1
        memset(self.W, 0, <size_t> k * self.K * sizeof(double))
        return 0

    cdef int build_map(self) noexcept nogil:
        """The Nystrom map of the ``B`` support vectors (``nystrom_map``,
        okl/learners/_nystrom.pxd) and the initial weights ``W = A^T V_r Lambda_r^{1/2}``;
        0, or -1 if out of memory or LAPACK failed."""
        cdef int n = self.sv.n, i, j, c, src, r
        cdef int kk = self.rank if self.rank < n else n
        cdef double sl, acc
        cdef double* V = NULL
        if self._alloc_map() != 0:
            return -1
        r = nystrom_map(self.sv, n, kk, self.M, self.rank, self.evals, &V)
        if r < 0:
            return -1
        self.r = r
        for j in range(r):
            src = kk - 1 - j                     # the j-th kept eigenvector
            sl = sqrt(self.evals[j])
            for c in range(self.K):              # W[c, j] = sqrt(lam) sum_i V[i, j] A[i, c]
                acc = 0.0
                for i in range(n):
                    acc += V[i + <Py_ssize_t> src * n] * self.coef(i, c)
                self.W[c * self.rank + j] = sl * acc
        free(V)
        self.switched = True
        self.switch_round = self.t
        return 0

    cdef void features(self, double* out) noexcept nogil:
        """``out = M k_S(x)`` from the kernel row in ``sv.krow``."""
        if self.r > 0:
            dgemv(b"N", &self.r, &self.B, &ONE, self.M, &self.rank, self.sv.krow, &INC1,
                  &ZERO, out, &INC1)

    cdef void class_scores(self, const Row* x) noexcept nogil:
        cdef int c
        if not self.switched:
            MulticlassCore.class_scores(self, x)
            return
        self.sv.fill_krow(x)
        self.features(self.z)
        for c in range(self.K):
            self.s[c] = (ddot(&self.r, self.W + <Py_ssize_t> c * self.rank, &INC1, self.z,
                              &INC1) if self.r > 0 else 0.0)
        self.yhat = self.best(-1)

    cdef double mc_loss(self, int y) noexcept nogil:
        return _hinge(self.s, y, self.best(y))

    cdef void mc_update(self, const Row* x, int y) noexcept nogil:
        cdef int r = self.best(y), i
        cdef double a
        if not _hinge(self.s, y, r) > 0.0:
            return
        self.n_updates += 1
        if not self.switched:
            if self.sv.n < self.B:
                i = self.add_vector(x)
                if i < 0:
                    return
                self.add_coef(i, y, self.eta)
                self.add_coef(i, r, -self.eta)
                return
            if self.build_map() != 0:     # the kernel row of x is still in sv.krow
                self.error = 1
                return
            self.features(self.z)
        if self.r == 0:
            return
        a = self.eta
        daxpy(&self.r, &a, self.z, &INC1, self.W + <Py_ssize_t> y * self.rank, &INC1)
        a = -self.eta
        daxpy(&self.r, &a, self.z, &INC1, self.W + <Py_ssize_t> r * self.rank, &INC1)

    # -- inspection and pickling ----------------------------------------------------

    def _nogd_map(self):
        """``(M (r x B), W (K x r), eigenvalues (r))`` after the switch, else None."""
        if not self.switched:
            return None
        cdef Py_ssize_t i, j, c
        M = np.empty((self.r, self.B))
        W = np.empty((self.K, self.r))
        ev = np.empty(self.r)
        for j in range(self.r):
            ev[j] = self.evals[j]
            for i in range(self.B):
                M[j, i] = self.M[j + i * self.rank]
            for c in range(self.K):
                W[c, j] = self.W[c * self.rank + j]
        return M, W, ev

    def _map_state(self):
        return self._nogd_map()

    def _put_map(self, value):
        cdef Py_ssize_t i, j, c
        if value is None:
            return
        M, W, ev = value
        M = np.asarray(M, dtype=np.float64)
        W = np.asarray(W, dtype=np.float64)
        ev = np.asarray(ev, dtype=np.float64)
        r = ev.shape[0]
        if r > self.rank or M.shape != (r, self.B) or W.shape != (self.K, r):
            raise ValueError("the state's Nystrom map does not fit the learner")
        if self._alloc_map() != 0:
            raise MemoryError("cannot allocate the Nystrom map")
        for j in range(r):
            self.evals[j] = ev[j]
            for i in range(self.B):
                self.M[j + i * self.rank] = M[j, i]
            for c in range(self.K):
                self.W[c * self.rank + j] = W[c, j]
        self.r = r
        self.switched = True

    def _nogd_transform(self, Stream st):
        if not self.switched:
            raise ValueError(f"MulticlassNOGD has no Nystrom features before its budget "
                             f"is full and an update needs them ({self.size()} of B = "
                             f"{self.B} support vectors)")
        out = np.zeros((st.T, self.r))
        cdef double[::1] buf = np.empty(max(self.r, 1))
        cdef Py_ssize_t t, j
        cdef Row row
        for t in range(st.T):
            st.row(t, &row)
            self.sv.fill_krow(&row)
            self.features(&buf[0])
            for j in range(self.r):
                out[t, j] = buf[j]
        return out
