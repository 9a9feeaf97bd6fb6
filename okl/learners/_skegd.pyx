# cython: language_level=3
"""Typed core of SkeGD (Zhang & Liao, *Incremental Randomized Sketching for Online Kernel
Learning*, ICML 2019) as the authors' R code ``SkeGD.R`` runs it: kernel OGD on the first
``B`` support vectors, then OGD on a sketched explicit feature map rebuilt every ``cycle``
margin errors.  See ``okl/learners/skegd.py`` for the algorithm and the sources."""

from libc.math cimport sqrt, floor, floorl, fabs
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy

from scipy.linalg.cython_blas cimport ddot, dgemv, dgemm, daxpy, dscal
from scipy.linalg.cython_lapack cimport (dgesdd, dpstrf, dsyevr, dsytrd, dstemr, dormtr,
                                         dsterf, dstein)

from okl._core cimport Learner, Row, SupportSet, kernel_self

import numpy as np

cdef int INC1 = 1
cdef double ONE = 1.0
cdef double ZERO = 0.0
cdef double GINV_TOL = 1.4901161193847656e-08      # sqrt(.Machine$double.eps), MASS::ginv


cdef bint r_mod_is_one(long long T0, double cycle) noexcept nogil:
    """R's ``T0 %% cycle == 1`` for doubles (``myfmod`` of R's arithmetic.c: the quotient's
    floor in double, the remainder in long double)."""
    cdef double x1 = <double> T0
    cdef double q = x1 / cycle
    cdef long double tmp = <long double> x1 - floor(q) * <long double> cycle
    cdef long double r = tmp - floorl(tmp / cycle) * cycle
    return <double> r == 1.0


cdef int svd_thin(int m, int n, double* A, double* s, double* U, double* VT) noexcept nogil:
    """``A = U diag(s) VT`` (LAPACK ``dgesdd``, ``jobz = 'S'`` as R's ``svd``); ``A`` (m x n,
    column-major) is destroyed; ``U`` is m x min(m, n), ``VT`` min(m, n) x n.  0 or -1."""
    cdef int q = m if m < n else n, info = 0, lwork = -1
    cdef double wq
    cdef int* iwork = <int*> malloc(8 * (q if q > 0 else 1) * sizeof(int))
    cdef double* work
    if iwork == NULL:
        return -1
    dgesdd(b"S", &m, &n, A, &m, s, U, &m, VT, &q, &wq, &lwork, iwork, &info)
    if info != 0:
        free(iwork)
        return -1
    lwork = <int> wq + 1
    work = <double*> malloc(lwork * sizeof(double))
    if work == NULL:
        free(iwork)
        return -1
    dgesdd(b"S", &m, &n, A, &m, s, U, &m, VT, &q, work, &lwork, iwork, &info)
    free(work)
    free(iwork)
    return 0 if info == 0 else -1


cdef int sqrt_factor(int n, double* A, double* R, int* piv, double* work) noexcept nogil:
    """A square root of the PSD ``A`` (n x n, column-major, destroyed): ``A = R R^T``, ``R``
    (n x rank) by pivoted Cholesky (LAPACK ``dpstrf``, its default tolerance: pivots
    below ``n eps max(diag)`` end the factorization).  Returns the rank, or -1."""
    cdef int rank = 0, info = 0, i, j
    cdef double tol = -1.0
    dpstrf(b"L", &n, A, &n, piv, &rank, &tol, work, &info)
    if info < 0:
        return -1
    for j in range(rank):                        # R = P L: row piv[i] - 1 of R = row i of L
        for i in range(n):
            R[piv[i] - 1 + j * n] = A[i + j * n] if i >= j else 0.0
    return rank


cdef int top_eigen_evr(int n, int k, double* A, double* w, double* Z) noexcept nogil:
    """The ``k`` largest eigenpairs of the symmetric ``A`` (LAPACK ``dsyevr``, ``A``
    destroyed): ``w`` ascending, ``Z`` (n x k) the eigenvectors.  0 or -1.  For a subset
    ``dsyevr`` runs bisection and inverse iteration (``dstebz``, ``dstein``): the fallback
    of ``top_eigen``."""
    cdef int il = n - k + 1, iu = n, m = 0, info = 0, lwork = -1, liwork = -1, iwq = 0
    cdef double vl = 0.0, vu = 0.0, abstol = 0.0, wq = 0.0
    cdef int* isuppz = <int*> malloc(2 * (k if k > 0 else 1) * sizeof(int))
    cdef int* iwork
    cdef double* work
    if isuppz == NULL:
        return -1
    dsyevr(b"V", b"I", b"L", &n, A, &n, &vl, &vu, &il, &iu, &abstol, &m, w, Z, &n, isuppz,
           &wq, &lwork, &iwq, &liwork, &info)
    lwork = <int> wq + 1
    liwork = iwq + 1
    work = <double*> malloc(lwork * sizeof(double))
    iwork = <int*> malloc(liwork * sizeof(int))
    if work == NULL or iwork == NULL or info != 0:
        free(work)
        free(iwork)
        free(isuppz)
        return -1
    dsyevr(b"V", b"I", b"L", &n, A, &n, &vl, &vu, &il, &iu, &abstol, &m, w, Z, &n, isuppz,
           work, &lwork, iwork, &liwork, &info)
    free(work)
    free(iwork)
    free(isuppz)
    return 0 if (info == 0 and m == k) else -1


cdef bint tridiagonal_splits(int n, const double* d, const double* e) noexcept nogil:
    """Whether the tridiagonal ``(d, e)`` splits by ``dstebz``'s rule (``e_j^2 <=
    |d_j d_{j+1}| ulp^2 + safmin``)."""
    cdef int j
    cdef double ulp = 2.220446049250313e-16, safmin = 2.2250738585072014e-308
    for j in range(n - 1):
        if fabs(d[j] * d[j + 1]) * (ulp * ulp) + safmin > e[j] * e[j]:
            return True
    return False


cdef int top_eigen(int n, int k, double* A, double* w, double* Z, int method=0) noexcept nogil:
    """The ``k`` largest eigenpairs of the symmetric ``A`` (``A`` destroyed): ``w``
    ascending, ``Z`` (n x k) the eigenvectors.  0, 1 (``A`` destroyed, nothing computed:
    call ``top_eigen_evr`` on a fresh copy) or -1.

    ``dsytrd`` (tridiagonal ``T = Q^T A Q``), the eigenpairs ``n - k + 1 .. n`` of ``T``,
    and ``dormtr`` (``Z = Q Z_T``): the steps of ``dsyevr``, whose subset path (bisection
    ``dstebz`` and inverse iteration ``dstein``) spends half of its time in the bisection.
    Here the eigenvalues of ``T`` are all computed by ``dsterf`` (Pal-Walker-Kahan QR,
    ``O(n^2)``, a quarter of the bisection's time at ``n = 300``) and the ``k`` vectors by
    ``dstein`` when ``T`` does not split (``method`` 0), else by MRRR ``dstemr`` for those
    ``k`` (``method`` 1, also the fallback if ``dsterf`` or ``dstein`` fail).  Same
    eigenpairs to rounding (eigenvector signs may differ: the map ``Qx Qx^T`` does not see
    them).  At ``n = 300``, ``k = 40``: about 2.9 ms against 6 ms for ``dsyevr``."""
    cdef int info = 0, lwork = -1, liwork = -1, m = 0, nzc = k, il = n - k + 1
    cdef int iu = n, lw1, lw2, lw3, i
    cdef bint tryrac = True, done = False
    cdef double vl = 0.0, vu = 0.0, wq = 0.0
    cdef double* dg
    cdef double* work
    cdef int* iwork
    cdef int* isuppz
    if k <= 0:
        return 0
    dg = <double*> malloc(5 * <size_t> n * sizeof(double))   # d, e (n), tau, d', e'
    isuppz = <int*> malloc((2 * <size_t> k + 3 * <size_t> n) * sizeof(int))
    if dg == NULL or isuppz == NULL:
        free(dg)
        free(isuppz)
        return -1
    # workspace: the largest of the queries
    dsytrd(b"L", &n, A, &n, dg, dg + n, dg + 2 * n, &wq, &lwork, &info)
    lw1 = <int> wq + 1
    dormtr(b"L", b"L", b"N", &n, &k, A, &n, dg + 2 * n, Z, &n, &wq, &lwork, &info)
    lw2 = <int> wq + 1
    lw3 = 18 * n + 1
    lwork = lw1 if lw1 > lw2 else lw2
    lwork = lwork if lwork > lw3 else lw3
    liwork = 10 * n + 1
    work = <double*> malloc(<size_t> lwork * sizeof(double))
    iwork = <int*> malloc(<size_t> liwork * sizeof(int))
    if work == NULL or iwork == NULL:
        free(work)
        free(iwork)
        free(dg)
        free(isuppz)
        return -1
    dsytrd(b"L", &n, A, &n, dg, dg + n, dg + 2 * n, work, &lwork, &info)
    if info == 0 and method == 0 and not tridiagonal_splits(n, dg, dg + n):
        memcpy(dg + 3 * n, dg, <size_t> n * sizeof(double))
        memcpy(dg + 4 * n, dg + n, <size_t> (n - 1) * sizeof(double))
        dsterf(&n, dg + 3 * n, dg + 4 * n, &info)       # all eigenvalues, ascending
        if info == 0:
            memcpy(w, dg + 3 * n + (n - k), <size_t> k * sizeof(double))
            for i in range(k):
                isuppz[i] = 1                           # iblock: one block
            isuppz[k] = n                               # isplit
            dstein(&n, dg, dg + n, &k, w, isuppz, isuppz + k, Z, &n, work, iwork,
                   isuppz + k + n, &info)
            done = info == 0
        info = 0
    if info == 0 and not done:
        dstemr(b"V", b"I", &n, dg, dg + n, &vl, &vu, &il, &iu, &m, w, Z, &n, &nzc, isuppz,
               &tryrac, work, &lwork, iwork, &liwork, &info)
        done = info == 0 and m == k
    if done:
        dormtr(b"L", b"L", b"N", &n, &k, A, &n, dg + 2 * n, Z, &n, work, &lwork, &info)
        done = info == 0
    free(work)
    free(iwork)
    free(dg)
    free(isuppz)
    return 0 if done else 1


cdef class SkeGDCore(Learner):
    """State of SkeGD.

    * ``sv``: the support vectors ``SV`` (the first ``B`` with the kernel model's
      coefficients ``eta y``; after the switch the examples of each sketch update are
      appended, coefficient 0);
    * ``Sa``: the count sketch ``S_p`` of the R code (``|SV| x s_p``; row ``i`` has at most
      ``cs_d`` non-zeros ``+-1/sqrt(cs_d)``: ``sa_col`` / ``sa_val``, column -1 = none);
    * after the switch: ``Smat = S_p^T K S_p`` (``s_p x s_p``), ``Mmat = S_p^T K S_m``
      (``s_p x s_m``), the landmarks ``L`` (the ``s_m`` sampled columns), the map
      ``phi(x) = F^T k_L(x)`` (``F`` is ``s_m x r``, column-major) and the weights ``w``.
    """
    # parameters: okl.params writes B, hash_kind (the learner's hash: 0 "r", 1 "uniform")
    # and trunc_init (its truncate_initial); _setup the sizes, once the learner has
    # checked them against each other
    cdef public int B, hash_kind
    cdef public bint trunc_init
    cdef int s_p, s_m, k        # the learner's sizes_ (default_sizes(B) for a None)
    cdef int cs_d               # the learner's cs_d, in [1, s_p]
    cdef double eta, cycle      # T, eta and cycle: _skegd_set_horizon
    cdef long long T
    # count sketch rows
    cdef int* sa_col
    cdef double* sa_val
    cdef int sa_n, sa_cap
    # sketches and map
    cdef public bint switched
    cdef double* Smat
    cdef double* Mmat
    cdef double* F
    cdef double* w
    cdef double* phi
    cdef double* psisa
    cdef int* rloc
    cdef public int r, npos
    cdef SupportSet L
    cdef SupportSet pool
    # counters
    cdef public long long T0, switch_round, n_updates, kernel_evals
    cdef long long* refresh_t
    cdef public int n_refresh
    cdef int refresh_cap
    # round scratch
    cdef long long s_evals
    cdef double last_y

    def __dealloc__(self):
        self._free_all()

    cdef void _free_all(self) noexcept nogil:
        free(self.sa_col)
        free(self.sa_val)
        free(self.Smat)
        free(self.Mmat)
        free(self.F)
        free(self.w)
        free(self.phi)
        free(self.psisa)
        free(self.rloc)
        free(self.refresh_t)
        self.sa_col = NULL
        self.sa_val = NULL
        self.Smat = self.Mmat = self.F = self.w = self.phi = self.psisa = NULL
        self.rloc = NULL
        self.refresh_t = NULL
        self.sa_n = self.sa_cap = 0
        self.n_refresh = self.refresh_cap = 0

    # -- configuration ---------------------------------------------------------------

    def _setup(self):
        """The sketch sizes in use are the learner's ``sizes_`` (``default_sizes(B)`` for
        a None) and its ``cs_d`` (the declared value: Python's attribute, not this typed
        field); then the buffers they ask for."""
        self.s_p, self.s_m, self.k = self.sizes_
        self.cs_d = getattr(self, "cs_d")
        self._allocate()

    cdef int _allocate(self) except -1:
        """A fresh state and the sketches' buffers for the typed fields' sizes."""
        cdef int s_p = self.s_p, s_m = self.s_m
        cdef int q = s_m if s_m < s_p else s_p
        self._free_all()
        self.switched = False
        self.T0 = self.switch_round = self.n_updates = self.kernel_evals = 0
        self.Smat = <double*> malloc(<size_t> s_p * s_p * sizeof(double))
        self.Mmat = <double*> malloc(<size_t> s_p * s_m * sizeof(double))
        self.F = <double*> malloc(<size_t> s_m * q * sizeof(double))
        self.w = <double*> malloc(q * sizeof(double))
        self.phi = <double*> malloc(q * sizeof(double))
        self.psisa = <double*> malloc(s_p * sizeof(double))
        self.rloc = <int*> malloc(s_m * sizeof(int))
        if (self.Smat == NULL or self.Mmat == NULL or self.F == NULL or self.w == NULL
                or self.phi == NULL or self.psisa == NULL or self.rloc == NULL):
            self._free_all()
            raise MemoryError(f"cannot allocate SkeGD's sketches (s_p = {s_p}, s_m = {s_m})")
        return 0

    def _skegd_set_horizon(self, long long T, double eta, double cycle):
        self.T = T
        self.eta = eta
        self.cycle = cycle

    def _horizon(self):
        return self.T

    def _skegd_sets(self, pool_rows):
        """The landmark set and the landmark pool (``d`` known)."""
        self.L = SupportSet(self._kernel, self.d, self.s_m, False)
        if pool_rows is not None:
            self.pool = SupportSet(self._kernel, self.d, max(1, pool_rows.shape[0]), False)
            for i in range(pool_rows.shape[0]):
                self.pool.push(pool_rows[i], 0.0)

    def _skegd_first_sketch(self):
        """The count sketch ``S_p`` of the first ``B`` rows (``2 cs_d B`` uniforms, or
        ``(2 cs_d + 1) B``; the R code draws it before the first round)."""
        if self._sketch_rows(self.B) != 0:
            raise MemoryError("cannot allocate the count sketch")

    # -- the count sketch -------------------------------------------------------------

    cdef int _reserve_rows(self, int n) noexcept nogil:
        cdef int cap
        cdef int* c
        cdef double* v
        if n <= self.sa_cap:
            return 0
        cap = n if n > 2 * self.sa_cap else 2 * self.sa_cap
        c = <int*> realloc(self.sa_col, <size_t> cap * self.cs_d * sizeof(int))
        if c == NULL:
            return -1
        self.sa_col = c
        v = <double*> realloc(self.sa_val, <size_t> cap * self.cs_d * sizeof(double))
        if v == NULL:
            return -1
        self.sa_val = v
        self.sa_cap = cap
        return 0

    cdef int _sketch_rows(self, int n) noexcept nogil:
        """Append ``n`` rows drawn as the R code's ``CSketch_d(n, s_p, cs_d)``.

        Draw order: ``cs_d n`` uniforms for the hash values, ``cs_d n`` for the signs
        (row by row, block by block), and, when ``cs_d`` does not divide ``s_p``, ``n``
        more for the last block.  Block ``j`` (0-based) covers columns
        ``w j + 1 .. w (j + 1)``, ``w = floor(s_p / cs_d)``.  ``hash_kind`` 0 (the R code,
        ``cs_d | s_p``): ``sample(1:s/d)`` is ``sample((1:s)/d)`` (R's precedence), a
        value ``kk / cs_d`` with ``kk`` uniform in ``1..s_p``, and the subscript
        ``w j + kk / cs_d`` is truncated: offset ``floor(kk / cs_d)`` in ``0..w``; offset 0
        of block 0 is subscript 0 (R assigns nothing), of block ``j > 0`` the last column
        of block ``j - 1``, and a later block overwrites an earlier one's entry there.
        ``hash_kind`` 1: offset uniform in ``1..w`` (a count sketch).  When ``cs_d`` does not
        divide ``s_p`` both are the R code's other branch: offsets ``1..w``, the last block
        ``1..s_p - (cs_d - 1) w``.  Values ``+-1/sqrt(cs_d)``.
        """
        cdef int d = self.cs_d, s = self.s_p, wdt = s // d, i, j, e, q, col, kk, last
        cdef double scale = 1.0 / sqrt(<double> d), sign
        cdef double* ku
        cdef double* su
        cdef double* lu = NULL
        cdef bint divides = s % d == 0
        if self._reserve_rows(self.sa_n + n) != 0:
            return -1
        ku = <double*> malloc(<size_t> d * n * sizeof(double))
        su = <double*> malloc(<size_t> d * n * sizeof(double))
        if not divides:
            lu = <double*> malloc(<size_t> n * sizeof(double))
        if ku == NULL or su == NULL or (not divides and lu == NULL):
            free(ku)
            free(su)
            free(lu)
            return -1
        for q in range(d * n):
            ku[q] = self.uniform()
        for q in range(d * n):
            su[q] = self.uniform()
        if not divides:
            for i in range(n):
                lu[i] = self.uniform()
        last = s - (d - 1) * wdt
        for i in range(n):
            q = (self.sa_n + i) * d
            for e in range(d):
                self.sa_col[q + e] = -1
                self.sa_val[q + e] = 0.0
            for j in range(d):
                if divides:
                    if self.hash_kind == 0:
                        kk = <int> floor(ku[i * d + j] * s) + 1
                        col = wdt * j + kk // d            # 1-based; 0: no entry
                    else:
                        col = wdt * j + <int> floor(ku[i * d + j] * wdt) + 1
                elif j < d - 1:
                    col = wdt * j + <int> floor(ku[i * d + j] * wdt) + 1
                else:
                    col = wdt * j + <int> floor(lu[i] * last) + 1
                if col < 1:
                    continue
                sign = (floor(su[i * d + j] * 2.0) + 1.0 - 1.5) * 2.0
                for e in range(d):              # an entry in this column: overwrite it
                    if self.sa_col[q + e] == col - 1 or self.sa_col[q + e] < 0:
                        self.sa_col[q + e] = col - 1
                        self.sa_val[q + e] = scale * sign
                        break
        self.sa_n += n
        free(ku)
        free(su)
        free(lu)
        return 0

    cdef void _sketch_vector(self, int row, const double* v, double* out) noexcept nogil:
        """``out = v^T S_p[0:row]`` (``s_p`` values; rows in order, as a BLAS product)."""
        cdef int l, e, c, d = self.cs_d
        memset(out, 0, self.s_p * sizeof(double))
        for l in range(row):
            for e in range(d):
                c = self.sa_col[l * d + e]
                if c >= 0:
                    out[c] = out[c] + self.sa_val[l * d + e] * v[l]

    cdef void _sketch_update(self, const double* psi, const double* kb, double kxx) noexcept nogil:
        """Add a row: ``M += s^T kb``, ``S += s^T (psi S_p) + (psi S_p)^T s + kxx s^T s`` with
        ``s`` the newest sketch row (the R code's Rab, Raa, t(Raa) and Taa)."""
        cdef int d = self.cs_d, sp = self.s_p, sm = self.s_m, n = self.sa_n - 1, e, f, a, b, j
        cdef double va, vb
        self._sketch_vector(n, psi, self.psisa)
        for e in range(d):
            a = self.sa_col[n * d + e]
            if a < 0:
                continue
            va = self.sa_val[n * d + e]
            for j in range(sm):
                self.Mmat[a + j * sp] = self.Mmat[a + j * sp] + va * kb[j]
        for e in range(d):                       # Raa: rows a of S
            a = self.sa_col[n * d + e]
            if a < 0:
                continue
            va = self.sa_val[n * d + e]
            for b in range(sp):
                self.Smat[a + b * sp] = self.Smat[a + b * sp] + va * self.psisa[b]
        for e in range(d):                       # t(Raa): columns b of S
            b = self.sa_col[n * d + e]
            if b < 0:
                continue
            vb = self.sa_val[n * d + e]
            for a in range(sp):
                self.Smat[a + b * sp] = self.Smat[a + b * sp] + vb * self.psisa[a]
        for e in range(d):                       # Taa
            a = self.sa_col[n * d + e]
            if a < 0:
                continue
            for f in range(d):
                b = self.sa_col[n * d + f]
                if b < 0:
                    continue
                self.Smat[a + b * sp] = (self.Smat[a + b * sp]
                                         + kxx * (self.sa_val[n * d + e] * self.sa_val[n * d + f]))

    # -- the feature map -------------------------------------------------------------

    cdef int _build_map(self, int keep, const double* kb, double f) noexcept nogil:
        """``Qx = ginv(M) U_S[:, :keep] diag(sqrt(s_S[:keep]))`` as the R code, kept as
        ``F = U_Q diag(s_Q)`` (``Qx = U_Q diag(s_Q) V_Q^T``: the same ``phi . phi'``, a map
        of ``r = min(s_m, keep)`` features); ``w = f phi / ||phi||^2``.  0 or -1."""
        cdef int sp = self.s_p, sm = self.s_m, q = sm if sm < sp else sp
        cdef int rq = sm if sm < keep else keep
        cdef size_t total = (3 * <size_t> sp * sp + sp + <size_t> sp * sm + q + <size_t> sp * q
                             + <size_t> q * sm + <size_t> q * sp + <size_t> sm * sp
                             + <size_t> sm * keep + rq + <size_t> sm * rq + <size_t> rq * keep
                             + 2 * <size_t> sp)
        cdef double* ws = <double*> malloc(total * sizeof(double))
        cdef int ok
        if ws == NULL:
            return -1
        ok = self._build_map_in(keep, kb, f, ws)
        free(ws)
        return ok

    cdef int _build_map_in(self, int keep, const double* kb, double f, double* ws) noexcept nogil:
        cdef int sp = self.s_p, sm = self.s_m, q = sm if sm < sp else sp
        cdef int i, j, npos = 0, rq, cols
        cdef int rmax = sm if sm < keep else keep
        cdef double tol, n2
        cdef double* A = ws
        cdef double* US = A + <size_t> sp * sp
        cdef double* VTS = US + <size_t> sp * sp
        cdef double* sS = VTS + <size_t> sp * sp
        cdef double* Am = sS + sp
        cdef double* sM = Am + <size_t> sp * sm
        cdef double* UM = sM + q
        cdef double* VTM = UM + <size_t> sp * q
        cdef double* H = VTM + <size_t> q * sm
        cdef double* G = H + <size_t> q * sp
        cdef double* Qx = G + <size_t> sm * sp
        cdef double* sQ = Qx + <size_t> sm * keep
        cdef double* UQ = sQ + rmax
        cdef double* VTQ = UQ + <size_t> sm * rmax
        cdef double* W2 = VTQ + <size_t> rmax * keep
        # ginv(M) = V_M[:, pos] diag(1/s_M[pos]) U_M[:, pos]^T  (MASS::ginv)
        memcpy(Am, self.Mmat, <size_t> sp * sm * sizeof(double))
        if svd_thin(sp, sm, Am, sM, UM, VTM) != 0:
            return -1
        tol = GINV_TOL * sM[0]
        if tol < 0.0:
            tol = 0.0
        for i in range(q):
            if sM[i] > tol:
                npos += 1
        self.npos = npos
        for i in range(npos):                    # H = diag(1/s) U^T, npos x sp
            for j in range(sp):
                H[i + j * q] = (1.0 / sM[i]) * UM[j + i * sp]
        if npos > 0:                             # G = V[:, pos] H = VTM[pos, :]^T H
            dgemm(b"T", b"N", &sm, &sp, &npos, &ONE, VTM, &q, H, &q, &ZERO, G, &sm)
        else:
            memset(G, 0, <size_t> sm * sp * sizeof(double))
        # Qx = G R with R R^T = U_S Sigma_S U_S^T (the R code's svd(S)): all of S
        # (pivoted Cholesky) for the untruncated map, its top-`keep` eigenpairs else
        memcpy(A, self.Smat, <size_t> sp * sp * sizeof(double))
        if keep >= sp:
            cols = sqrt_factor(sp, A, US, <int*> sS, W2)
            if cols < 0:
                return -1
        else:
            i = top_eigen(sp, keep, A, sS, US)
            if i == 1:                           # dstemr declined: dsyevr on a fresh copy
                memcpy(A, self.Smat, <size_t> sp * sp * sizeof(double))
                i = top_eigen_evr(sp, keep, A, sS, US)
            if i != 0:
                return -1
            for j in range(keep):
                n2 = sqrt(fabs(sS[j]))
                for i in range(sp):
                    US[i + j * sp] = US[i + j * sp] * n2
            cols = keep
        if cols > 0:
            dgemm(b"N", b"N", &sm, &cols, &sp, &ONE, G, &sm, US, &sp, &ZERO, Qx, &sm)
        rq = sm if sm < cols else cols
        # F = U_Q diag(s_Q)
        if rq == 0:
            self.r = 0
            return 0
        if svd_thin(sm, cols, Qx, sQ, UQ, VTQ) != 0:
            return -1
        for j in range(rq):
            for i in range(sm):
                self.F[i + j * sm] = UQ[i + j * sm] * sQ[j]
        self.r = rq
        # w = f phi / ||phi||^2
        dgemv(b"T", &sm, &rq, &ONE, self.F, &sm, kb, &INC1, &ZERO, self.phi, &INC1)
        n2 = ddot(&rq, self.phi, &INC1, self.phi, &INC1)
        for j in range(rq):
            self.w[j] = f * (self.phi[j] / n2) if n2 > 0.0 else 0.0
        return 0

    cdef int _switch(self, const Row* x, double f, double kxx) noexcept nogil:
        """The first margin error with ``|SV| = B``: sample the ``s_m`` columns, and if
        ``sum k_L(x) > 1e-8`` build the sketches and the map.  1 if switched, 0 if not,
        -1 on failure."""
        cdef int B = self.B, sp = self.s_p, sm = self.s_m, i, j, e, l, c, d = self.cs_d
        cdef int* perm
        cdef double* K
        cdef double* C
        cdef double* kb
        cdef double tot = 0.0
        cdef Row row
        cdef const double* psi = self.sv.krow          # k(x, SV) of the score
        perm = <int*> malloc(B * sizeof(int))
        kb = <double*> malloc(sm * sizeof(double))
        if perm == NULL or kb == NULL:
            free(perm)
            free(kb)
            return -1
        for i in range(B):                             # sample(1:B, s_m): partial Fisher-Yates
            perm[i] = i
        for i in range(sm):
            j = i + <int> floor(self.uniform() * (B - i))
            if j >= B:
                j = B - 1
            c = perm[i]
            perm[i] = perm[j]
            perm[j] = c
            self.rloc[i] = perm[i]
            kb[i] = psi[perm[i]]
            tot = tot + kb[i]
        free(perm)
        if not tot > 1e-8:
            free(kb)
            return 0
        K = <double*> malloc(<size_t> B * B * sizeof(double))
        C = <double*> malloc(<size_t> B * sp * sizeof(double))
        if K == NULL or C == NULL:
            free(K)
            free(C)
            free(kb)
            return -1
        for i in range(B):
            self.sv.as_row(i, &row)
            self.sv.kernel_row_into(&row, K + <Py_ssize_t> i * B)
        self.kernel_evals += <long long> B * B
        # C = K S_p, S = S_p^T C, M = S_p^T K[:, r]
        memset(C, 0, <size_t> B * sp * sizeof(double))
        for l in range(B):
            for e in range(d):
                c = self.sa_col[l * d + e]
                if c >= 0:
                    daxpy(&B, &self.sa_val[l * d + e], K + <Py_ssize_t> l * B, &INC1,
                          C + <Py_ssize_t> c * B, &INC1)
        memset(self.Smat, 0, <size_t> sp * sp * sizeof(double))
        memset(self.Mmat, 0, <size_t> sp * sm * sizeof(double))
        for l in range(B):
            for e in range(d):
                c = self.sa_col[l * d + e]
                if c < 0:
                    continue
                daxpy(&sp, &self.sa_val[l * d + e], C + l, &B, self.Smat + c, &sp)
                for j in range(sm):
                    self.Mmat[c + j * sp] = (self.Mmat[c + j * sp]
                                             + self.sa_val[l * d + e] * K[l + <Py_ssize_t> self.rloc[j] * B])
        free(C)
        free(K)
        if self._sketch_rows(1) != 0:
            free(kb)
            return -1
        self._sketch_update(psi, kb, kxx)
        if self._build_map(sp if not self.trunc_init else (self.k if self.k < sp else sp),
                           kb, f) != 0:
            free(kb)
            return -1
        for i in range(self.r):
            self.w[i] = self.w[i] + self.eta * self.last_y * self.phi[i]
        free(kb)
        # the landmarks: SV[r] (the method), or rows r of the pool (the R code's X[SVb])
        self.L.n = 0
        for i in range(sm):
            if self.pool is not None:
                self.pool.as_row(self.rloc[i], &row)
            else:
                self.sv.as_row(self.rloc[i], &row)
            self.L.add(&row, 0.0, self.t)
        if self.sv.add(x, 0.0, self.t) < 0:
            return -1
        self.switched = True
        self.switch_round = self.t
        return 1

    cdef int _refresh(self, const Row* x, double f, double kxx) noexcept nogil:
        """Every ``cycle``-th margin error: the sketches take ``x_t`` and the map is rebuilt
        with rank ``k``.  0 or -1."""
        cdef int keep = self.k if self.k < self.s_p else self.s_p
        self.sv.fill_krow(x)
        self.kernel_evals += self.sv.n
        if self._sketch_rows(1) != 0:
            return -1
        self._sketch_update(self.sv.krow, self.L.krow, kxx)
        if self._build_map(keep, self.L.krow, f) != 0:
            return -1
        if self.sv.add(x, 0.0, self.t) < 0:
            return -1
        if self.n_refresh == self.refresh_cap:
            if self._grow_refresh() != 0:
                return -1
        self.refresh_t[self.n_refresh] = self.t
        self.n_refresh += 1
        return 0

    cdef int _grow_refresh(self) noexcept nogil:
        cdef int cap = 8 if self.refresh_cap == 0 else 2 * self.refresh_cap
        cdef long long* p = <long long*> realloc(self.refresh_t, cap * sizeof(long long))
        if p == NULL:
            return -1
        self.refresh_t = p
        self.refresh_cap = cap
        return 0

    # -- the round -----------------------------------------------------------------

    cdef double score(self, const Row* x) noexcept nogil:
        if not self.switched:
            self.s_evals = self.sv.n
            return self.sv.score(x)
        self.s_evals = self.s_m
        self.L.fill_krow(x)
        dgemv(b"T", &self.s_m, &self.r, &ONE, self.F, &self.s_m, self.L.krow, &INC1, &ZERO,
              self.phi, &INC1)
        return ddot(&self.r, self.w, &INC1, self.phi, &INC1)

    cdef double loss(self, double y, double f) noexcept nogil:
        cdef double l = 1.0 - y * f
        return l if l > 0.0 else 0.0

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double a, kxx
        cdef int res, j
        cdef double tot = 0.0
        self.kernel_evals += self.s_evals
        if not y * f < 1.0:
            return
        self.T0 += 1
        self.n_updates += 1
        self.last_y = y
        if not self.switched:
            if self.sv.n < self.B:
                if self.sv.add(x, self.eta * y, self.t) < 0:
                    self.error = 1
                return
            kxx = kernel_self(&self.kp, x)
            if self._switch(x, f, kxx) < 0:
                self.error = 1
            return
        if r_mod_is_one(self.T0, self.cycle):
            for j in range(self.s_m):
                tot = tot + self.L.krow[j]
            if tot > 1e-8:
                kxx = kernel_self(&self.kp, x)
                if self._refresh(x, f, kxx) != 0:
                    self.error = 1
                    return
        a = self.eta * y
        daxpy(&self.r, &a, self.phi, &INC1, self.w, &INC1)

    cdef int size(self) noexcept nogil:
        return self.sv.n if self.sv is not None else 0

    # -- inspection and pickling ----------------------------------------------------

    def _switch_round(self):
        return int(self.switch_round) if self.switched else None

    def _refresh_rounds(self):
        return [int(self.refresh_t[i]) for i in range(self.n_refresh)]

    def _skegd_sketch(self):
        """``S_p`` as a dense ``rows x s_p`` array."""
        out = np.zeros((self.sa_n, self.s_p))
        cdef int l, e
        for l in range(self.sa_n):
            for e in range(self.cs_d):
                if self.sa_col[l * self.cs_d + e] >= 0:
                    out[l, self.sa_col[l * self.cs_d + e]] = self.sa_val[l * self.cs_d + e]
        return out

    def _skegd_map(self):
        if not self.switched:
            return None
        F = np.array(<double[:self.r, :self.s_m]> self.F, copy=True).T.copy() \
            if self.r > 0 else np.zeros((self.s_m, 0))
        w = np.array(<double[:self.r]> self.w, copy=True) if self.r > 0 else np.zeros(0)
        S = np.array(<double[:self.s_p, :self.s_p]> self.Smat, copy=True).T.copy()
        M = np.array(<double[:self.s_m, :self.s_p]> self.Mmat, copy=True).T.copy()
        return {"F": F, "w": w, "S": S, "M": M,
                "rloc": np.array([self.rloc[i] for i in range(self.s_m)], dtype=np.intc),
                "landmarks": self.L}

    # The state stays written by hand: the count sketch (rows x cs_d), the sketch matrices
    # and the eigen-map after the switch are rebuilt into their buffers.

    def _skegd_state(self):
        cols = np.array([self.sa_col[i] for i in range(self.sa_n * self.cs_d)], dtype=np.intc)
        vals = np.array([self.sa_val[i] for i in range(self.sa_n * self.cs_d)])
        return {"sa": (self.sa_n, cols, vals), "map": self._skegd_map(),
                "counts": (self.T0, self.switch_round, self.n_updates, self.kernel_evals,
                           self.npos, self.last_y),
                "refresh": self._refresh_rounds()}

    def _skegd_restore(self, state):
        cdef int i, j
        n, cols, vals = state["sa"]
        self.sa_n = 0
        if self._reserve_rows(max(n, 1)) != 0:
            raise MemoryError("cannot restore the count sketch")
        for i in range(n * self.cs_d):
            self.sa_col[i] = cols[i]
            self.sa_val[i] = vals[i]
        self.sa_n = n
        (self.T0, self.switch_round, self.n_updates, self.kernel_evals, self.npos,
         self.last_y) = state["counts"]
        self.n_refresh = 0
        for t in state["refresh"]:
            if self.n_refresh == self.refresh_cap and self._grow_refresh() != 0:
                raise MemoryError("cannot restore the refresh rounds")
            self.refresh_t[self.n_refresh] = t
            self.n_refresh += 1
        m = state["map"]
        if m is None:
            return
        F, w, S, M = m["F"], m["w"], m["S"], m["M"]
        self.r = F.shape[1]
        for j in range(self.r):
            self.w[j] = w[j]
            for i in range(self.s_m):
                self.F[i + j * self.s_m] = F[i, j]
        for j in range(self.s_p):
            for i in range(self.s_p):
                self.Smat[i + j * self.s_p] = S[i, j]
        for j in range(self.s_m):
            for i in range(self.s_p):
                self.Mmat[i + j * self.s_p] = M[i, j]
            self.rloc[j] = m["rloc"][j]
        self.L = m["landmarks"]
        self.switched = True


def _top_eigenpairs(A, int k, int method=0):
    """``(w, Z)``: the ``k`` largest eigenpairs of the symmetric ``A`` (its lower triangle)
    by the routine SkeGD's refreshes use (``method`` 0: ``dsterf`` + ``dstein`` unless the
    tridiagonal splits, 1: ``dstemr``, 2: the ``dsyevr`` fallback); for tests."""
    cdef int n = A.shape[0], res
    if A.shape != (n, n) or not 0 <= k <= n:
        raise ValueError("A must be square and 0 <= k <= n")
    a = np.array(A, dtype=np.float64, order="F", copy=True)
    w = np.zeros(max(n, 1))
    Z = np.zeros((n, max(k, 1)), order="F")
    cdef double[::1, :] av = a
    cdef double[::1] wv = w
    cdef double[::1, :] zv = Z
    if n == 0 or k == 0:
        return w[:0], Z[:, :0]
    if method == 2:
        res = top_eigen_evr(n, k, &av[0, 0], &wv[0], &zv[0, 0])
    else:
        res = top_eigen(n, k, &av[0, 0], &wv[0], &zv[0, 0], method)
    if res != 0:
        raise np.linalg.LinAlgError(f"the eigensolver failed ({res})")
    return w[:k], Z[:, :k]


def dense_work_reference(K, sketch, int s_p, int s_m, int k, bint trunc_init,
                         refresh_sizes, margins_after):
    """The dense linear algebra of a SkeGD run beyond its kernel rows, by the learner's own
    typed routines on the run's matrices, and nothing else: at the switch the sketch
    products ``C = K S_p``, ``S = S_p^T C``, ``M = S_p^T K[:, :s_m]``, one sketch update and
    the map (``ginv(M)`` by ``dgesdd``, the square root of ``S``, ``Qx`` and its
    ``dgesdd``); at each refresh (``refresh_sizes``: ``|SV|`` then) the sketch vector
    ``psi^T S_p``, the rank-2 update of ``S`` and ``M`` and the map with the top ``k``
    eigenpairs; every round after the switch ``phi = F^T k_L(x)`` (``dgemv``) and
    ``w . phi`` (``ddot``), and where ``margins_after`` is set ``w += a phi`` (``daxpy``).
    ``K`` is the run's ``B x B`` Gram matrix (its kernel values are not counted here) and
    ``sketch`` its count sketch ``(rows, columns, values)`` as ``SkeGD._skegd_state()["sa"]``
    (so ``S`` and ``M`` are the run's: LAPACK's time depends on their spectra); the rows
    ``psi`` of the updates are columns of ``K``.  ``benchmarks/ratios_pomdr_baselines.py`` times a
    run against the run's kernel rows plus this.  Returns a checksum."""
    Kc = np.asfortranarray(K, dtype=np.float64)
    cdef int B = Kc.shape[0], i, j, e, l, c, n, t, nref, q
    if Kc.shape != (B, B) or s_m > B or B < 1:
        raise ValueError("K must be B x B with B >= s_m")
    n_rows, cols_a, vals_a = sketch
    cols_a = np.ascontiguousarray(cols_a, dtype=np.intc)
    vals_a = np.ascontiguousarray(vals_a, dtype=np.float64)
    cdef int cs_d = cols_a.shape[0] // n_rows if n_rows > 0 else 0
    if n_rows < B or cs_d < 1 or cols_a.shape[0] != n_rows * cs_d or vals_a.shape != cols_a.shape:
        raise ValueError("sketch must have at least B rows of columns and values")
    sizes = np.ascontiguousarray(refresh_sizes, dtype=np.intc)
    cdef const unsigned char[::1] marg = np.ascontiguousarray(margins_after, dtype=np.uint8)
    cdef int[::1] sz = sizes
    nref = sizes.shape[0]
    cdef int nmax = max(B + 1 + nref, int(sizes.max()) + 1 if nref else 0)
    cdef SkeGDCore core = SkeGDCore.__new__(SkeGDCore)
    core.B, core.s_p, core.s_m, core.k, core.cs_d = B, s_p, s_m, k, cs_d
    core.hash_kind = 1
    core.trunc_init = trunc_init
    core._allocate()
    if core._reserve_rows(nmax) != 0:
        raise MemoryError("cannot allocate the count sketch")
    for l in range(nmax):                          # the run's rows, repeated if need be
        for e in range(cs_d):
            core.sa_col[l * cs_d + e] = cols_a[(l % n_rows) * cs_d + e]
            core.sa_val[l * cs_d + e] = vals_a[(l % n_rows) * cs_d + e]
    core.sa_n = B
    psi_a = np.ascontiguousarray(np.resize(Kc[:, 0], nmax))
    kb_a = np.ascontiguousarray(Kc[:s_m, 1])
    Cm = np.zeros((B, s_p), order="F")
    cdef double[::1, :] Kv = Kc
    cdef double[::1, :] Cv = Cm
    cdef double[::1] psi = psi_a
    cdef double[::1] kb = kb_a
    cdef double total = 0.0, a = 1e-3, kxx = 1.0
    cdef int keep = k if k < s_p else s_p
    with nogil:
        for l in range(B):                         # C = K S_p, S = S_p^T C, M = S_p^T K[:, r]
            for e in range(cs_d):
                c = core.sa_col[l * cs_d + e]
                if c >= 0:
                    daxpy(&B, &core.sa_val[l * cs_d + e], &Kv[0, l], &INC1, &Cv[0, c], &INC1)
        memset(core.Smat, 0, <size_t> s_p * s_p * sizeof(double))
        memset(core.Mmat, 0, <size_t> s_p * s_m * sizeof(double))
        for l in range(B):
            for e in range(cs_d):
                c = core.sa_col[l * cs_d + e]
                if c < 0:
                    continue
                daxpy(&s_p, &core.sa_val[l * cs_d + e], &Cv[l, 0], &B, core.Smat + c, &s_p)
                for j in range(s_m):
                    core.Mmat[c + j * s_p] = (core.Mmat[c + j * s_p]
                                              + core.sa_val[l * cs_d + e] * Kv[l, j])
        core.sa_n += 1
        core._sketch_update(&psi[0], &kb[0], kxx)
        if core._build_map(s_p if not trunc_init else keep, &kb[0], 1.0) != 0:
            core.error = 1
        q = 0
        for t in range(marg.shape[0]):
            if q < nref and t == (q + 1) * (marg.shape[0] // (nref + 1)):  # evenly spaced
                core.sa_n = sz[q] + 1
                core._sketch_update(&psi[0], &kb[0], kxx)
                if core._build_map(keep, &kb[0], 1.0) != 0:
                    core.error = 1
                q += 1
            dgemv(b"T", &s_m, &core.r, &ONE, core.F, &s_m, &kb[0], &INC1, &ZERO, core.phi,
                  &INC1)
            total += ddot(&core.r, core.w, &INC1, core.phi, &INC1)
            if marg[t]:
                daxpy(&core.r, &a, core.phi, &INC1, core.w, &INC1)
    if core.error:
        raise np.linalg.LinAlgError("a factorization failed")
    return total
