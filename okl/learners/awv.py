r"""Kernel-AWV and PKAWV of Jézéquel, Gaillard & Rudi, *Efficient online learning
with kernels for adversarial large scale problems* (2019, hal-02019402v2).

* :class:`KernelAWV` -- the exact Vovk-Azoury-Warmuth forecaster in the RKHS,
  eq. (3), Proposition 1; kernel ridge regression as an option.  O(t^2) a round:
  the reference the projected forecasters are compared with.
* :class:`PKAWV` -- the projected forecaster (4) on a subspace of the RKHS.
  ``PKAWV(basis="taylor", ...)`` (Section 3.1, eq. (6), Theorem 4, embedding (37),
  Appendix H Algorithm 1) is implemented here as ``_PKAWVTaylor``;
  ``PKAWV(basis="nystrom", ...)`` (Section 3.2, Algorithm 2) lives in
  ``okl.learners.awv_nystrom`` (``_PKAWVNystrom``, a subclass of :class:`PKAWV`).

Both learners are regressors (square loss) or, with ``task="classification"``,
classifiers by the sign of the same forecast (labels in {-1, +1}; mistakes are
counted as ``y_t yhat_t <= 0``).

Notes on the paper's text (hal-02019402v2), and the choices made here:

* Theorem 4's ``M`` is clamped at 1 (:func:`theorem4_M`): the printed formula can
  give 0, while step (32) of its proof uses ``M >= 1`` (it needs
  ``sqrt(2 pi (M + 1)) >= 9 / e``).
* Proof of Theorem 4, point 1: ``r`` is the number of monomials of
  ``(1 + x_1 + ... + x_d)^M`` (printed ``^d``); ``r = C(M + d, M)`` as stated.
* Appendix H.2's ``taylor_phi`` enumerates ordered index tuples (``sum_{k<=M} d^k``
  features, 73 for d = 8 and M = 2) instead of the ``C(d + M, M)`` multi-indices
  of (6) (45): the inner products are the same (``sum_{j<=M} Q_j``), hence the
  same forecasts (tested); this module uses (6).  The "r = 190 features with
  M = 2" quoted for SUSY is ``C(20, 2)``, i.e. d = 18 (SUSY's 18 features), not
  the "d = 22" of Figure 2's caption.
* Proof of Lemma 13 (printed as "E.3"): the derivative is that of ``e^{s/sigma^2}``
  (printed ``e^{-s/sigma^2}``); the bound itself holds and is tested.
"""
from __future__ import annotations

import math

import numpy as np

from okl._learner import fields
from okl._validation import check_int, check_real, check_row
from okl.kernels import Gaussian, Laplacian
from okl.learners._awv import KernelAWVCore, TaylorAWVCore
from okl.learners.base import OnlineLearner
from okl.params import Choice, Int, KernelParam, Real, Value
from okl.registry import register_learner

__all__ = ["KernelAWV", "PKAWV", "taylor_exponents", "taylor_feature_count", "theorem4_M"]

_BASES = ("taylor", "nystrom")
_FORECASTERS = {"awv": 1, "krr": 0}           # value: the core's ``awv`` flag
_TASKS = {"regression": False, "classification": True}

#: largest number of Taylor features r = C(d + M, M): A^{-1} is r x r doubles (512 MiB)
MAX_TAYLOR_FEATURES = 8192

#: from this many Taylor features on, runs pin BLAS to one thread (``one_blas_thread``).
#: Measured (2-core machine, 2*10^4 rounds, us a round, OpenBLAS default threads against
#: one thread): r = 45: 0.96 / 0.72, r = 91: 3.3 / 2.1, r = 120: 62 / 2.8, r = 165:
#: 170 / 4.9 (OpenBLAS threads dsymv/dsyr from about r = 100); the guard costs ~1 us a call.
BLAS_GUARD_FEATURES = 32

#: relative slack of the radius check ||x|| <= R (round-off of rows scaled to norm R)
RADIUS_RTOL = 1e-12


# ----------------------------------------------------------------------------
# Theorem 4 and the Taylor basis (6)
# ----------------------------------------------------------------------------

def theorem4_M(n, lam, R, sigma) -> int:
    r"""The ``M`` of Theorem 4: ``ceil(8 R^2 / sigma^2  v  2 log(n / (lam ^ 1)))``, at least 1.

    Parameters
    ----------
    n : int >= 1
        Horizon (number of rounds) the guarantee is for.
    lam : float > 0
        Regularization of (4).
    R : float >= 0
        Radius of the inputs: ``||x_t|| <= R`` for every round.
    sigma : float > 0
        Bandwidth of the Gaussian kernel ``exp(-||x - v||^2 / (2 sigma^2))``.

    Notes
    -----
    The proof of Theorem 4 (Appendix D.2, step (32)) also uses ``M >= 1``; the
    printed formula can give ``M = 0`` (e.g. ``n = 1``, ``lam >= 1``, ``R = 0``),
    so the result is clamped at 1.  ``8 R^2 / sigma^2`` is what makes
    ``M + 1 >= e^2 R^2 / sigma^2`` in (32); ``2 log(n / (lam ^ 1))`` makes the
    approximation term (33) at most ``(4 B^2 / 9) log(1 + 1/lam)``.
    """
    from theory.awv import theorem4_M as printed_M

    n = check_int(n, "n", low=1)
    lam = check_real(lam, "lam", low=0, low_open=True)
    R = check_real(R, "R", low=0)
    sigma = check_real(sigma, "sigma", low=0, low_open=True)
    return max(1, printed_M(n, lam, R, sigma))


def taylor_feature_count(d, M) -> int:
    """``r = |G_M| = C(d + M, M)``, the number of multi-indices ``k`` in N_0^d with ``|k| <= M``."""
    d = check_int(d, "d", low=1)
    M = check_int(M, "M", low=0)
    return math.comb(d + M, M)


def taylor_exponents(d, M) -> np.ndarray:
    r"""The multi-indices ``k`` of ``G_M``, one row each, in the learners' feature order.

    Graded order: ``|k| = 0, 1, ..., M``; within degree ``j`` the monomials come
    from those of degree ``j - 1`` (in their order) multiplied by ``x^(i)`` for
    ``i >= `` the largest variable already present -- each monomial once.  Row
    ``f`` of the result is the exponent vector of feature ``g_k`` number ``f``.
    """
    d = check_int(d, "d", low=1)
    M = check_int(M, "M", low=0)
    rows = [np.zeros(d, dtype=np.int64)]
    last = [0]          # largest variable present (0 for the constant)
    prev = [0]          # indices of the previous degree's monomials
    for _ in range(M):
        cur = []
        for p in prev:
            for i in range(last[p], d):
                k = rows[p].copy()
                k[i] += 1
                rows.append(k)
                last.append(i)
                cur.append(len(rows) - 1)
        prev = cur
    return np.array(rows, dtype=np.int64).reshape(-1, d)


def _taylor_tables(d, M, sigma):
    """``(parent, var, factor)``: ``g_f(x) = g_parent(x) * x^(var) * factor`` for ``f >= 1``.

    ``factor = 1 / (sigma sqrt(k_var))`` with ``k_var`` the exponent of ``var`` in
    ``f``: ``psi_k(x) = psi_{k-1}(x) x / (sigma sqrt(k))`` in (6).
    """
    E = taylor_exponents(d, M)
    index = {tuple(k): f for f, k in enumerate(E)}
    r = len(E)
    parent = np.zeros(r, dtype=np.intc)
    var = np.zeros(r, dtype=np.intc)
    factor = np.zeros(r)
    for f in range(1, r):
        k = E[f]
        i = int(np.flatnonzero(k)[-1])      # the variable multiplied in last
        km = k.copy()
        km[i] -= 1
        parent[f] = index[tuple(km)]
        var[f] = i
        factor[f] = 1.0 / (sigma * math.sqrt(k[i]))
    return E, parent, var, factor


def _lemma13(R, sigma, M):
    """``(R / sigma)^{2M+2} / (M+1)!`` (Lemma 13), in logs: ``inf`` rather than OverflowError."""
    if R == 0.0:
        return 0.0
    log_b = (2 * M + 2) * math.log(R / sigma) - math.lgamma(M + 2)
    return math.inf if log_b > 709.0 else math.exp(log_b)


class _Forecaster:
    """The parameters Kernel-AWV and both PKAWV bases share (``okl.params``; the
    Nyström basis redeclares ``forecaster`` for its core's ``krr`` flag)."""

    kernel = KernelParam()
    lam = Real(1.0, low=0, low_open=True)
    forecaster = Choice("awv", _FORECASTERS, core="awv")
    task = Choice("regression", _TASKS)

    def _classifies(self):
        return _TASKS[self.task]


def _basis(name, owner):
    """PKAWV's ``basis`` in the implementation ``owner`` of basis ``name``
    (``PKAWV.__new__`` chose the class by it)."""
    def check(value, _):
        if value != name:
            raise ValueError(f"basis must be {name!r} for {owner}, got {value!r}")
        return value

    return Value(name, check=check, text=repr(name))


# ----------------------------------------------------------------------------
# Kernel-AWV, eq. (3)
# ----------------------------------------------------------------------------

@register_learner(
    paper="awv", task="both",
    examples=[dict(kernel=Gaussian(1.0), lam=1.0),
              dict(kernel=Laplacian(2.0), lam=0.5, forecaster="krr", task="classification")],
    bounds="okl.experiments.bounds.awv:awv")
class KernelAWV(_Forecaster, OnlineLearner, KernelAWVCore):
    r"""Kernel-AWV, eq. (3) of Jézéquel, Gaillard & Rudi (2019): the nonlinear ridge
    forecaster of Vovk (2001) and Azoury & Warmuth (2001) in the RKHS of ``kernel``.

    On round ``t`` predict ``yhat_t = fhat_t(x_t)`` with

    .. math::

        \hat f_t \in \arg\min_{f \in H} \sum_{s<t} (y_s - f(x_s))^2
                     + \lambda \|f\|^2 + f(x_t)^2 ,

    i.e. kernel ridge regression on ``(x_1, y_1), ..., (x_{t-1}, y_{t-1}), (x_t, 0)``:
    ``yhat_t = k_t(x_t)^T (K_tt + lam I_t)^{-1} (y_1, ..., y_{t-1}, 0)``.
    With ``forecaster="krr"`` the ``f(x_t)^2`` term is dropped (kernel ridge
    regression, ``yhat_t = k_{t-1}(x_t)^T (K_{t-1} + lam I)^{-1} Y_{t-1}``; the
    "KRR" of the paper's experiments on i.i.d. data).

    Computation: ``K_{t-1} + lam I = L L^T`` is kept by appending one row of its
    Cholesky factor per round (packed storage, BLAS ``dtpsv``); with
    ``c = L^{-1} k_{t-1}(x_t)`` and ``z = L^{-1} Y_{t-1}``,

    * ``yhat^KRR_t = c^T z``;
    * ``q_t = (k(x_t, x_t) - ||c||^2) / lam = <A_{t-1}^{-1} phi(x_t), phi(x_t)>`` and
      ``yhat^AWV_t = yhat^KRR_t / (1 + q_t)`` (Sherman-Morrison on
      ``A_t = A_{t-1} + phi(x_t) (x) phi(x_t)``, ``A_t = C_t + lam I`` of Appendix A);
    * the new row of ``L`` is ``[c^T, delta_t]`` with ``delta_t^2 = lam (1 + q_t) >= lam``
      (never singular), and ``z_t = (y_t - yhat^KRR_t) / delta_t``.

    Every round costs O(t^2) time and the learner O(t^2) memory: use it as the
    reference for small ``n`` (a few thousand rounds), PKAWV for large ones.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
        Any okl kernel (Proposition 1 holds for any RKHS).
    lam : float > 0, default 1.0
        The regularization ``lambda`` of (3) (the paper's experiments use 1).
    forecaster : {"awv", "krr"}, default "awv"
        ``"awv"``: (3) with the ``f(x_t)^2`` term; ``"krr"``: kernel ridge regression.
    task : {"regression", "classification"}, default "regression"
        ``"classification"``: labels in {-1, +1}, predictions ``sign(yhat_t)`` and
        mistakes ``y_t yhat_t <= 0`` counted in ``Trace.mistakes``; the forecaster
        itself is unchanged (it regresses the labels).

    Notes
    -----
    ``Trace.scores`` holds ``yhat_t``, ``Trace.losses`` the square loss
    ``(y_t - yhat_t)^2`` (for both tasks), ``Trace.budget`` the number of stored
    inputs (``t``).  ``support_set`` holds the inputs; its coefficients are unused
    (0): every coefficient changes every round, the hypothesis is ``dual_coef``
    (``(K_t + lam I)^{-1} Y_t``, computed on request) and the factor
    ``cholesky_factor``.  ``Trace.extras``:

    * ``"log_det"``: ``sum_t log(1 + q_t) = log det(I + K_nn / lam)
      = sum_k log(1 + lambda_k(K_nn) / lam)``, the sum of Proposition 1;
    * ``"sum_y2_leverage"``: ``sum_t y_t^2 <A_t^{-1} phi(x_t), phi(x_t)>
      = sum_t y_t^2 q_t / (1 + q_t)``, the first term of Theorem 9 (with
      ``P_t = I``), which Proposition 1's proof bounds by ``B^2`` times ``log_det``.

    Both are accumulated over the learner's whole life (all runs).
    """

    _blas_in_round_loop = True

    def _configure(self):
        # no seed parameter: the learner never draws; a fixed seed keeps its pickle a
        # function of the rounds (an entropy-seeded generator differs in every instance)
        self._core_setup(self.kernel, 0, self._classifies())
        self._setup()

    def _allocation(self):
        return 64, True

    _extras_fields = fields("log_det", ("sum_y2_leverage", "lev_y2"))


# ----------------------------------------------------------------------------
# PKAWV, eq. (4): dispatch on the basis
# ----------------------------------------------------------------------------

@register_learner(
    paper="awv", task="both",
    examples=[dict(basis="taylor", kernel=Gaussian(1.0), lam=1.0, M=2),
              dict(kernel=Gaussian(2.0), lam=0.5, M=3, task="classification"),
              dict(basis="nystrom", kernel=Gaussian(1.0), mu=1.0, beta=1.0, seed=3),
              dict(basis="nystrom", kernel=Laplacian(2.0), lam=0.5, mu=2.0, beta=0.5,
                   forecaster="krr", task="classification", seed=4)],
    bounds="okl.experiments.bounds.awv:awv")
class PKAWV(OnlineLearner):
    r"""Projected Kernel-AWV, eq. (4) of Jézéquel, Gaillard & Rudi (2019).

    On round ``t`` predict ``yhat_t = fhat_t(x_t)`` with

    .. math::

        \hat f_t = \arg\min_{f \in \tilde H_t} \sum_{s<t} (y_s - f(x_s))^2
                   + \lambda \|f\|_H^2 + f(x_t)^2

    for a linear subspace ``H~_t`` of the RKHS ``H`` (Kernel-AWV (3) when ``H~_t = H``).

    ``PKAWV(basis="taylor", ...)`` -- fixed ``H~ = Span(G_M)``, the Gaussian Taylor
    basis (6) (Section 3.1, Theorem 4, Appendix H Algorithm 1); parameters
    ``kernel`` (Gaussian), ``lam``, ``M``, ``n``, ``R``, ``forecaster``, ``task``:
    see ``okl.learners.awv._PKAWVTaylor``.

    ``PKAWV(basis="nystrom", ...)`` -- ``H~_t = Span{phi(x): x in I_t}`` with a KORS
    dictionary (Section 3.2, Algorithm 2): see ``okl.learners.awv_nystrom._PKAWVNystrom``.

    ``PKAWV(...)`` returns an instance of the subclass implementing the basis
    (``isinstance(obj, PKAWV)`` holds); each subclass combines this class with its
    own typed core and has its own ``_param_names`` (which include ``basis``), so
    ``type(obj)(**obj.get_params())`` and pickling rebuild the same subclass.
    Common parameters: ``kernel``, ``lam`` (> 0), ``forecaster`` ("awv" for (4),
    "krr" for the projected kernel ridge regression of the paper's experiments,
    without the ``f(x_t)^2`` term) and ``task`` ("regression" or "classification").
    """

    #: basis name -> implementing subclass; each basis module registers its class
    #: (``okl.learners.awv_nystrom`` imports this module, never the other way round)
    _basis_classes: dict = {}

    def __new__(cls, *args, basis="taylor", **kwargs):
        if cls is PKAWV:
            if basis not in _BASES:
                raise ValueError(f"basis must be one of {_BASES}, got {basis!r}")
            if basis not in PKAWV._basis_classes:
                import okl.learners  # noqa: F401  (the package imports every basis module)
            cls = PKAWV._basis_classes[basis]
        return super().__new__(cls)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"PKAWV({args})"


class _GaussianKernel(KernelParam):
    """The Taylor basis's kernel: a Gaussian one."""

    def check(self, value):
        kernel = super().check(value)
        if not isinstance(kernel, Gaussian):
            raise ValueError("PKAWV(basis='taylor') requires a Gaussian kernel (the features "
                             f"(6) expand exp(-||x - v||^2 / (2 sigma^2))), got {kernel!r}")
        return kernel

    def describe(self):
        return "an okl Gaussian kernel (None: Gaussian(1.0))"


class _PKAWVTaylor(_Forecaster, PKAWV, TaylorAWVCore):
    r"""PKAWV with the Gaussian Taylor basis: Section 3.1 and Appendix H, Algorithm 1,
    of Jézéquel, Gaillard & Rudi (2019).  Built by ``PKAWV(basis="taylor", ...)``.

    Features (6): for ``k`` in ``N_0^d`` with ``|k| <= M``,

    .. math::

        g_k(x) = \prod_{i=1}^d \psi_{k_i}(x^{(i)}), \qquad
        \psi_j(u) = \frac{u^j}{\sigma^j \sqrt{j!}} e^{-u^2 / (2\sigma^2)},

    i.e. ``g_k(x) = exp(-||x||^2 / (2 sigma^2)) prod_i (x^(i) / sigma)^{k_i} / sqrt(k_i!)``;
    ``r = |G_M| = C(d + M, M)`` of them (order: :func:`taylor_exponents`).  They are
    orthonormal in the Gaussian RKHS (Lemma 11), so ``Q = I_r`` and the embedding
    (37) ``phi~(x) = Q^{-1/2} v(x)`` is ``v(x) = (g_1(x), ..., g_r(x))``: PKAWV on
    ``Span(G_M)`` is linear AWV on ``phi~`` (Appendix H.1), and also Kernel-AWV (3)
    with the finite kernel ``k_M(x, x') = v(x)^T v(x') = sum_{j<=M} Q_j(x, x')``
    (the truncated Taylor series of the Gaussian kernel, Appendix F.2) -- because
    ``||f||_H = ||w||`` for ``f = w^T v``.

    Algorithm 1 (``A_0^{-1} = I_r / lam``, ``b_0 = 0``), per round, with ``v_t = phi~(x_t)``:
    ``u = A_{t-1}^{-1} v_t``, ``q_t = v_t^T u``;
    ``A_t^{-1} = A_{t-1}^{-1} - u u^T / (1 + q_t)`` (Sherman-Morrison, BLAS ``dsyr``);
    ``yhat_t = v_t^T A_t^{-1} b_{t-1} = (u^T b_{t-1}) / (1 + q_t)``;
    ``b_t = b_{t-1} + y_t v_t``.  With ``forecaster="krr"``,
    ``yhat_t = v_t^T A_{t-1}^{-1} b_{t-1} = u^T b_{t-1}`` (no ``f(x_t)^2`` term).
    O(r^2) a round (``dsymv`` + ``dsyr``), O(r) for the features, O(r^2) memory.

    Parameters
    ----------
    kernel : okl.Gaussian, default ``Gaussian(1.0)``
        Must be Gaussian (``ValueError`` otherwise): the basis expands
        ``exp(-||x - v||^2 / (2 sigma^2))``.
    basis : "taylor"
    lam : float > 0, default 1.0
        The ``lambda`` of (4).
    M : int >= 0 or None, default None
        Largest total degree ``|k|`` of the basis.  ``None``: Theorem 4's
        ``M = ceil(8 R^2 / sigma^2  v  2 log(n / (lam ^ 1)))`` (:func:`theorem4_M`),
        which needs ``n`` and ``R``.  The paper's experiments use ``M`` in {2, 3, 4}.
    n : int >= 1 or None
        Horizon for Theorem 4's ``M`` (only used when ``M is None``).  The learner
        does not stop after ``n`` rounds; the guarantee is for the first ``n``.
    R : float >= 0 or None
        The paper's radius: Theorem 4 and Lemma 13 assume ``||x_t|| <= R``.  When
        given, every input is checked before learning and a row with
        ``||x|| > R`` raises ``ValueError`` (the chosen ``M`` and the Lemma 13
        error ``(R/sigma)^{2M+2} / (M+1)!`` would not hold for it).  ``None``: no
        assumption and no check (then ``M`` must be given).  The features are
        defined for every ``x``, but the truncation error grows like
        ``(||x||/sigma)^{2M+2}``: scale inputs to a ball of radius ~ sigma.
    forecaster : {"awv", "krr"}, default "awv"
        ``"awv"``: (4) / Algorithm 1; ``"krr"``: projected kernel ridge regression.
    task : {"regression", "classification"}, default "regression"
        As in :class:`KernelAWV`.

    Notes
    -----
    Inputs may be dense or CSR: a CSR row is scattered into a dense length-``d``
    buffer (O(d), less than the O(r) features) -- every feature needs every
    coordinate.  ``r`` is checked against ``MAX_TAYLOR_FEATURES`` at the first
    example (``ValueError``, nothing learned).  The explicit inverse ``A_t^{-1}``
    follows the paper (Appendix H); its eigenvalues lie in ``[1/(lam + t max|v|^2), 1/lam]``.

    ``Trace.losses`` is the square loss, ``Trace.budget`` is ``r``.  ``Trace.extras``:
    ``"log_det"`` = ``sum_t log(1 + q_t) = sum_j log(1 + lambda_j(V V^T) / lam)``
    (``V`` the ``n x r`` features: the first sum of Theorem 3's proof, with
    ``P C_n P``); ``"sum_y2_leverage"`` = ``sum_t y_t^2 q_t / (1 + q_t)``
    (``= sum_t y_t^2 <A~_t^{-1} P phi(x_t), P phi(x_t)>``, Theorem 9's first term);
    ``"max_radius"`` = ``max_t ||x_t||`` seen; ``"M"``, ``"r"``; and
    ``"lemma13_bound"`` = ``(max_radius / sigma)^{2M+2} / (M+1)!``, Lemma 13's bound
    on ``|k(x, x') - v(x)^T v(x')|`` for the inputs seen so far.
    """

    kernel = _GaussianKernel()
    basis = _basis("taylor", "_PKAWVTaylor")
    M = Int(None, low=0, none="Theorem 4's M, from n and R")
    n = Int(None, low=1, none="no horizon (M must be given)")
    R = Real(None, low=0, none="no radius: no assumption and no check (M must be given)")
    _param_order = ("kernel", "basis", "lam", "M", "n", "R", "forecaster", "task")

    @property
    def _blas_in_round_loop(self):
        # dsymv/dsyr on r x r: OpenBLAS may thread them for large r, which on a busy
        # machine is much slower than one thread; for small r the guard's cost is waste
        return self.n_features is not None and self.n_basis() >= BLAS_GUARD_FEATURES

    def _check_params(self):
        if self.M is None:
            if self.n is None or self.R is None:
                raise ValueError("M is None: Theorem 4 chooses M from the horizon n and the "
                                 "radius R (||x_t|| <= R); give n and R, or give M")
            self._M = theorem4_M(self.n, self.lam, self.R, self.kernel.sigma)
        else:
            self._M = self.M

    def _configure(self):
        self._core_setup(None, 0, self._classifies())    # never draws (see KernelAWV)
        self._setup()

    # -- the basis ------------------------------------------------------------------

    @property
    def degree(self) -> int:
        """The ``M`` in use (``M`` itself, or Theorem 4's choice when ``M is None``)."""
        return self._M

    def n_basis(self, d=None) -> int:
        """``r = C(d + M, M)`` for input dimension ``d`` (default: the one seen)."""
        d = self.n_features if d is None else d
        if d is None:
            raise ValueError("d is unknown before the first example: pass d")
        return taylor_feature_count(d, self._M)

    @property
    def exponents(self):
        """``(r, d)`` multi-indices of the features (``None`` before the first example)."""
        return None if self.n_features is None else taylor_exponents(self.n_features, self._M)

    def features(self, X) -> np.ndarray:
        """``(T, r)`` matrix of ``phi~(x) = v(x) = (g_k(x))_k`` for the rows of ``X``
        (dense or CSR), computed by the same typed routine as the round loop."""
        from okl._validation import as_stream

        if self.n_features is None:
            stream = as_stream(X)
            tables = _taylor_tables(stream.d, self._M, self.kernel.sigma)[1:]
            return self._features_with(stream, *tables)
        return self._features(as_stream(X, self.n_features))

    # -- hooks ----------------------------------------------------------------------

    def _ensure_allocated(self, d):
        if self.n_features is not None:
            return
        r = math.comb(d + self._M, self._M)
        if r > MAX_TAYLOR_FEATURES:
            raise ValueError(f"M = {self._M} on d = {d} inputs gives r = C(d + M, M) = {r} "
                             f"Taylor features; at most {MAX_TAYLOR_FEATURES} are allowed "
                             "(A^{-1} is r x r): lower M")
        _, parent, var, factor = _taylor_tables(d, self._M, self.kernel.sigma)
        self._core_allocate(d, 1, False)
        self._taylor_allocate(d, parent, var, factor)

    def _check_radius(self, stream):
        if self.R is None:
            return
        sq = self._stream_sqnorms(stream)
        bad = np.flatnonzero(sq > (self.R * self.R) * (1.0 + RADIUS_RTOL))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"X row {i} has norm {math.sqrt(sq[i])!r} > R = {self.R!r}: "
                             "Theorem 4 and Lemma 13 assume ||x_t|| <= R")

    def _checked(self, X, y):
        stream, labels = super()._checked(X, y)
        self._check_radius(stream)
        return stream, labels

    def learn_one(self, x, y=None) -> None:
        self._check_radius(check_row(x, -1 if self.n_features is None else self.n_features))
        super().learn_one(x, y)

    _extras_fields = fields("log_det", ("sum_y2_leverage", "lev_y2"),
                            ("max_radius", "max_radius_"), "r")

    def _extras(self):
        out = super()._extras()
        out["M"] = self._M
        rad = out["max_radius"]
        M = self._M
        out["lemma13_bound"] = _lemma13(rad, self.kernel.sigma, M)
        return out

    def _restore(self, state):
        if self.n_features is not None:
            _, parent, var, factor = _taylor_tables(self.n_features, self._M, self.kernel.sigma)
            self._taylor_allocate(self.n_features, parent, var, factor)
        super()._restore(state)


# get_params (repr, pickles) lists basis first; the constructor takes the kernel first
_PKAWVTaylor._param_names = ("basis",) + tuple(
    n for n in _PKAWVTaylor._param_names if n != "basis")
PKAWV._basis_classes["taylor"] = _PKAWVTaylor
