r"""Budget, regret and excess-risk bounds of POMDR: Li & Liao, *Improved Kernel
Alignment Regret Bound for Online Kernel Learning* (AAAI 2023).

Every function names the theorem, lemma or equation it evaluates.  Notation of
the paper: horizon :math:`T`, radius :math:`U` of
:math:`\mathbb H = \{f : \|f\|_{\mathcal H} \le U\}`, :math:`D \ge
\sup_x \kappa(x, x)`, the ALD exponent :math:`\zeta \in (0, 1]`, the window
:math:`M` of the optimistic gradient, the budgets :math:`B_0 < B`, the kernel
alignment :math:`\mathcal A_T` (:func:`theory.kernel_alignment`) and

.. math::

    \delta_t = \max\{\|\nabla_t - \bar\nabla_t\|^2_{\mathcal H}
    - \|\bar\nabla_t\|^2_{\mathcal H}, 0\}, \qquad
    \bar\nabla_t = -\frac1{M_t}\sum_{r=1}^{M_t} y_{t-r}\kappa(x_{t-r}, \cdot),
    \quad M_t = \min(t - 1, M)

(eq. (10) and Section "Optimistic estimator"), with :math:`\nabla_t =
-y_t\kappa(x_t, \cdot)` on rounds with a positive hinge loss and
:math:`\nabla_t = 0` otherwise (then :math:`\delta_t = 0`).

Groups of functions:

* ALD condition (4)-(5): :func:`ald_threshold`, :func:`ald_alpha`,
  :func:`determinant_ratio`, :func:`ald_dictionary` (the budget process of
  Theorem 1 run on a Gram matrix).
* Theorem 1 (size of the ALD budget): :func:`theorem1_constant`,
  :func:`theorem1_exponential_bound`, :func:`theorem1_polynomial_bound`, and the
  envelope-free form of its proof :func:`ald_budget_spectral_bound`.
* Theorem 2 and Corollary 1 (regret): :func:`theorem2_bound`,
  :func:`corollary1_bound`; Lemma 4: :func:`delta_sequence`, :func:`sum_delta`,
  :func:`lemma4_bound`.
* Theorem 3 (excess risk of the online-to-batch conversion): :func:`theorem3_bound`.

Typos and reconstructions (each is repeated in the function it concerns):

1. Theorem 1's statement prints the exponential bound as
   ":math:`2\ln(C_1R_0)/\ln r^{1/(\alpha - 1)}`" and the polynomial one as
   :math:`e(C_2R_0)^{1/p}`; the proof (both cases, and the proof of Theorem 2,
   which restates it) has :math:`2\ln(C_1R_0/\alpha)/\ln r^{-1}` and
   :math:`e(C_2R_0/\alpha)^{1/p}` with :math:`\alpha = DT^{-2\zeta}`.  The
   proof's forms are used.  The display before "Solving (13)" has
   :math:`R_0^{k-1}r^{k(k-1)}` on its left where (13) gives
   :math:`\alpha^{k-1}`; "ln r - 1" in the proof sketch is :math:`\ln r^{-1}`.
2. The constants :math:`C_1, C_2` are left open by the paper ("any constant
   depending on :math:`A`" with a condition that involves :math:`k` itself).
   A direct argument fixes them: the ALD dictionary :math:`S` of size
   :math:`k` has :math:`\det K_S = \prod_j \alpha_{t_j} \ge A\,\alpha^{k-1}`
   (Schur complements; the first element contributes
   :math:`\kappa(x_{t_1}, x_{t_1}) \ge A`) and, by Cauchy interlacing (Lemma 5),
   :math:`\det K_S \le \prod_{i \le k}\lambda_i`.  With
   :math:`c = \max(1, \alpha/A)`: exponential decay gives
   :math:`k \le 2\ln(cR_0/\alpha)/\ln r^{-1} - 1`, polynomial decay (with
   :math:`k! \ge (k/e)^k`) gives :math:`k \le e(cR_0/\alpha)^{1/p}`.  So the
   paper's expressions hold with :math:`C_1 = C_2 = c`
   (:func:`theorem1_constant`); only :math:`\lambda_1, \dots, \lambda_k` need be
   under the envelope.  Here :math:`A` is a lower bound on the *diagonal*
   :math:`\kappa(x_t, x_t)` (the proof uses :math:`\lambda_1^{(1)} =
   \kappa(x_{t_1}, x_{t_1}) \ge A`), not on all kernel values.
3. Lemma 4 is printed with :math:`0 \wedge [\cdot]` (a minimum); its use in
   Theorem 2 and the definition of :math:`\delta_t` need :math:`0 \vee [\cdot]`
   (a maximum), which is used.  Its :math:`\|\cdot\|_2` is the RKHS norm.
4. Corollary 1 is printed :math:`6U\sqrt{\mathcal A_T} + 2D + 9U`.  That does
   not follow from Theorem 2 and Lemma 4 (:math:`3U\sqrt{4\mathcal A_T + 7D}`
   exceeds :math:`6U\sqrt{\mathcal A_T} + 2D` for small :math:`\mathcal A_T`
   and :math:`U > 2\sqrt D/(3\sqrt 7)`); the bound with the square root over
   both terms, :math:`6U\sqrt{\mathcal A_T + 2D} + 9U`, does, has the same
   :math:`2D` as the corollary's budgeted term and as Theorem 3, and is used.
5. Theorem 2 is stated for :math:`\zeta = 1`; its proof writes the ALD test as
   :math:`\sqrt{\alpha_t} \le T^{-\zeta}` (i.e. :math:`D = 1`) and drops the
   factor :math:`U` in the last lines of Case 2; the statement's
   :math:`3U\sqrt{2T\sum_\tau\delta_\tau}/\sqrt B` is used.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from . import _validation as v

__all__ = [
    "ALDDictionary",
    "ald_alpha",
    "ald_budget_spectral_bound",
    "ald_dictionary",
    "ald_threshold",
    "corollary1_bound",
    "delta_sequence",
    "determinant_ratio",
    "lemma4_bound",
    "sum_delta",
    "theorem1_constant",
    "theorem1_exponential_bound",
    "theorem1_polynomial_bound",
    "theorem2_bound",
    "theorem2_max_halvings",
    "theorem3_bound",
]


# -- argument checks (every failure names the argument) -----------------------------------

def _zeta(zeta):
    zeta = v.real(zeta, "zeta")
    if not 0.0 < zeta <= 1.0:
        raise ValueError(f"zeta must lie in (0, 1], got {zeta!r}")
    return zeta


def _ratio(r):
    r = v.real(r, "r")
    if not 0.0 < r < 1.0:
        raise ValueError(f"r must lie in (0, 1) (exponential decay), got {r!r}")
    return r


def _exponent(p):
    p = v.real(p, "p")
    if p < 1.0:
        raise ValueError(f"p must be >= 1 (Theorem 1's polynomial decay), got {p!r}")
    return p


def _horizon_and_budget(T, B):
    if (T is None) != (B is None):
        raise ValueError("give both T and B (the budgeted case) or neither (the "
                         "exponential-decay case)")
    if T is None:
        return None, None
    T = v.integer(T, "T", 1)
    B = v.integer(B, "B", 2)
    return T, B


def _mask(active, T):
    if active is None:
        return np.ones(T, dtype=bool)
    a = np.asarray(active)
    if a.ndim != 1 or a.shape[0] != T:
        raise ValueError(f"active must be a vector of length {T}, got shape {a.shape}")
    if a.dtype != bool:
        if not np.all(np.isin(a, (0, 1))):
            raise ValueError("active must hold booleans (or 0/1)")
        a = a.astype(bool)
    return a


def _gram_block(K_S, k_S, k_xx):
    K_S = np.asarray(K_S, dtype=float)
    if K_S.size == 0:
        K_S = np.zeros((0, 0))
    else:
        K_S = v.kernel_matrix(K_S, "K_S")
    n = K_S.shape[0]
    k_S = np.asarray(k_S, dtype=float).reshape(-1)
    if k_S.shape[0] != n:
        raise ValueError(f"k_S must have length |S| = {n}, got {k_S.shape[0]}")
    if not np.all(np.isfinite(k_S)):
        raise ValueError("k_S contains NaN or inf")
    return K_S, k_S, v.real(k_xx, "k_xx")


# -- ALD condition (4)-(5) ------------------------------------------------------------------

def ald_threshold(T, zeta, D=1.0):
    r"""The :math:`\alpha = DT^{-2\zeta}` of Theorem 1: ALD (5),
    :math:`\sqrt{\alpha_t} \le \sqrt D\,T^{-\zeta}`, holds iff :math:`\alpha_t \le \alpha`.

    Parameters
    ----------
    T : int
        Horizon :math:`T \ge 1`.
    zeta : float
        :math:`\zeta \in (0, 1]`.
    D : float, default 1.0
        :math:`D \ge \sup_x \kappa(x, x) > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``T`` is not an integer ``>= 1``, ``zeta`` is not in ``(0, 1]`` or
        ``D`` is not positive.
    """
    T = v.integer(T, "T", 1)
    return v.positive(D, "D") * float(T) ** (-2.0 * _zeta(zeta))


def ald_alpha(K_S, k_S, k_xx):
    r"""Projection error :math:`\alpha_t` of (4), in the closed form of Section "Computing".

    .. math::

        \alpha_t = \min_\beta \|\Phi_{S_t}\beta - \kappa(x_t, \cdot)\|^2_{\mathcal H}
        = \kappa(x_t, x_t) - k_{S_t}^\top K_{S_t}^{-1} k_{S_t},
        \qquad \beta^*_t = K_{S_t}^{-1}k_{S_t}.

    Footnote 2 of the paper sets :math:`\alpha_t = D` when :math:`S_t` is
    empty; this function returns the projection error itself,
    :math:`\kappa(x_t, x_t)`, which is what the determinant identity of the
    proof of Theorem 1 needs (:func:`determinant_ratio` with
    :math:`\det K_\emptyset = 1`).  A singular ``K_S`` (never produced by the
    ALD test, whose dictionary has :math:`\det K_S > 0`) is handled with the
    pseudo-inverse, which gives the same minimum.

    Parameters
    ----------
    K_S : array_like, shape (n, n)
        Gram matrix of the dictionary (``n = 0`` allowed).
    k_S : array_like, shape (n,)
        :math:`(\kappa(s, x_t))_{s \in S_t}`.
    k_xx : float
        :math:`\kappa(x_t, x_t)`.

    Returns
    -------
    float
        :math:`\alpha_t` (``>= 0`` up to round-off for a PSD joint Gram matrix).

    Raises
    ------
    ValueError
        If ``K_S`` is not square, symmetric and finite, ``k_S`` has the wrong
        length or is not finite, or ``k_xx`` is not finite.
    """
    K_S, k_S, k_xx = _gram_block(K_S, k_S, k_xx)
    if K_S.shape[0] == 0:
        return k_xx
    try:
        beta = linalg.solve(K_S, k_S, assume_a="pos")
    except (linalg.LinAlgError, ValueError):
        beta = linalg.lstsq(K_S, k_S)[0]
    return float(k_xx - k_S @ beta)


def determinant_ratio(K_S, k_S, k_xx):
    r""":math:`\det K_{S_t \cup \{x_t\}} / \det K_{S_t}` (proof of Theorem 1).

    The paper's identity (block determinant / Schur complement) says this
    equals :math:`\alpha_t` of :func:`ald_alpha`; it is computed here from the
    two determinants (``numpy.linalg.slogdet``), independently of the solve in
    :func:`ald_alpha`.  :math:`\det K_\emptyset = 1`.

    Parameters
    ----------
    K_S, k_S, k_xx
        As in :func:`ald_alpha`; ``K_S`` must be nonsingular.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        As :func:`ald_alpha`, or if ``det K_S <= 0``.
    """
    K_S, k_S, k_xx = _gram_block(K_S, k_S, k_xx)
    n = K_S.shape[0]
    big = np.empty((n + 1, n + 1))
    big[:n, :n] = K_S
    big[:n, n] = big[n, :n] = k_S
    big[n, n] = k_xx
    s_big, l_big = np.linalg.slogdet(big)
    if n == 0:
        return float(s_big * math.exp(l_big))
    s_small, l_small = np.linalg.slogdet(K_S)
    if s_small <= 0:
        raise ValueError("K_S must be nonsingular with a positive determinant")
    return float(s_big * s_small * math.exp(l_big - l_small))


@dataclass(frozen=True, eq=False)
class ALDDictionary:
    """Result of :func:`ald_dictionary`.

    Attributes
    ----------
    indices : ndarray of int
        Rounds (0-based) whose example entered the dictionary, in order.
    alphas : ndarray, shape (T,)
        :math:`\\alpha_t` of each tested round (``nan`` where ``active`` was False).
    budget : ndarray of int, shape (T,)
        :math:`|S_{t+1}|`, the size after round ``t`` (0-based).
    threshold : float
        :math:`\\alpha = DT^{-2\\zeta}`.
    """

    indices: np.ndarray
    alphas: np.ndarray
    budget: np.ndarray
    threshold: float

    @property
    def size(self) -> int:
        """:math:`|S_T|`, the final size."""
        return int(self.indices.size)


def ald_dictionary(K, zeta, D=None, *, T=None, active=None):
    r"""Run the budget process of Theorem 1 on a Gram matrix.

    :math:`S_1 = \emptyset`; at every round with ``active`` true, compute
    :math:`\alpha_t` (4) w.r.t. :math:`S_t` and add :math:`x_t` iff ALD (5)
    fails, :math:`\alpha_t > DT^{-2\zeta}`.  Algorithm 1 tests only rounds with
    a positive loss (:math:`\nabla_t \ne 0`): pass that mask as ``active``; the
    proof of Theorem 1 does not depend on it.  On the empty set
    :math:`\alpha_t = \kappa(x_t, x_t)` (footnote 2's :math:`\alpha_t = D` gives
    the same decision whenever :math:`\kappa(x_t, x_t) > DT^{-2\zeta}`).

    Plain numpy/scipy: the Cholesky factor of :math:`K_{S_t}` is grown by one
    row per addition, :math:`O(T|S_T|^2)` in all.

    Parameters
    ----------
    K : array_like, shape (T0, T0)
        Gram matrix :math:`K_T` of the stream.
    zeta : float
        :math:`\zeta \in (0, 1]`.
    D : float, optional
        :math:`D`; defaults to :math:`\max_t \kappa(x_t, x_t)`.
    T : int, optional
        Horizon in the threshold; defaults to the number of rounds ``T0``.
    active : array_like of bool, shape (T0,), optional
        Rounds at which the test is made (default: all).

    Returns
    -------
    ALDDictionary

    Raises
    ------
    ValueError
        On an invalid ``K``, ``zeta``, ``D``, ``T`` or ``active``.
    """
    K = v.kernel_matrix(K)
    n = K.shape[0]
    diag = np.diag(K)
    D = float(diag.max()) if D is None else v.positive(D, "D")
    T = n if T is None else v.integer(T, "T", 1)
    thr = ald_threshold(T, zeta, D)
    act = _mask(active, n)
    L = np.zeros((0, 0))
    idx = []
    alphas = np.full(n, np.nan)
    budget = np.zeros(n, dtype=np.int64)
    for t in range(n):
        if act[t]:
            if idx:
                c = linalg.solve_triangular(L, K[idx, t], lower=True)
                a = float(diag[t] - c @ c)
            else:
                c = np.zeros(0)
                a = float(diag[t])
            alphas[t] = a
            if a > thr:
                m = len(idx)
                L2 = np.zeros((m + 1, m + 1))
                L2[:m, :m] = L
                L2[m, :m] = c
                L2[m, m] = math.sqrt(a)
                L = L2
                idx.append(t)
        budget[t] = len(idx)
    return ALDDictionary(indices=np.asarray(idx, dtype=np.int64), alphas=alphas,
                         budget=budget, threshold=thr)


# -- Theorem 1 ------------------------------------------------------------------------------

def theorem1_constant(T, zeta, D, A):
    r"""A valid :math:`C_1 = C_2` of Theorem 1: :math:`\max(1, \alpha/A)`, :math:`\alpha = DT^{-2\zeta}`.

    Reconstruction (the paper leaves :math:`C_1, C_2` open): the dictionary
    :math:`S` of size :math:`k` satisfies
    :math:`A\alpha^{k-1} \le \det K_S \le \prod_{i \le k}\lambda_i`, so
    :math:`\ln(\alpha/A) \le \ln c \le k\ln c` with :math:`c = \max(1, \alpha/A)`
    turns it into the paper's two inequalities (see the module docstring,
    item 2).  For the Gaussian kernel, :math:`A = D = 1` and :math:`c = 1`.

    Parameters
    ----------
    T : int
        Horizon.
    zeta : float
        :math:`\zeta \in (0, 1]`.
    D : float
        :math:`D > 0`.
    A : float
        Lower bound :math:`0 < A \le D` on the diagonal :math:`\kappa(x_t, x_t)`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On invalid arguments, or if ``A > D``.
    """
    alpha = ald_threshold(T, zeta, D)
    A = v.positive(A, "A")
    if A > float(D) * (1 + 1e-12):
        raise ValueError(f"A must be <= D (A bounds kappa(x, x) <= D from below), got "
                         f"A={A!r}, D={D!r}")
    return max(1.0, alpha / A)


def theorem1_exponential_bound(T, zeta, D, R0, r, C1=1.0):
    r"""Theorem 1, exponential decay: :math:`|S_T| \le 2\ln(C_1R_0/\alpha)/\ln r^{-1}`.

    With :math:`\alpha = DT^{-2\zeta}` and the eigenvalues of :math:`K_T`
    satisfying :math:`\lambda_i \le R_0r^i`.  The statement prints
    ":math:`2\ln(C_1R_0)/\ln r^{1/(\alpha-1)}`", a typesetting error for the
    proof's :math:`2\ln(C_1R_0/\alpha)/\ln r^{-1}`, which is evaluated
    (module docstring, item 1).  :func:`theorem1_constant` gives a valid
    :math:`C_1`; with it the proof actually yields this value minus 1.  The
    paper notes :math:`R_0 = \Theta(T)`.

    Parameters
    ----------
    T : int
        Horizon :math:`T \ge 1`.
    zeta : float
        :math:`\zeta \in (0, 1]`.
    D : float
        :math:`D > 0`.
    R0 : float
        Envelope constant :math:`R_0 > 0`.
    r : float
        Decay ratio :math:`0 < r < 1`.
    C1 : float, default 1.0
        :math:`C_1 > 0`.

    Returns
    -------
    float
        The bound (it can be negative when :math:`C_1R_0 < \alpha`, i.e. no
        example can fail ALD).

    Raises
    ------
    ValueError
        On an argument outside its range.
    """
    alpha = ald_threshold(T, zeta, D)
    R0 = v.positive(R0, "R0")
    r = _ratio(r)
    C1 = v.positive(C1, "C1")
    return 2.0 * math.log(C1 * R0 / alpha) / math.log(1.0 / r)


def theorem1_polynomial_bound(T, zeta, D, R0, p, C2=1.0):
    r"""Theorem 1, polynomial decay: :math:`|S_T| \le e\,(C_2R_0/\alpha)^{1/p}`.

    With :math:`\alpha = DT^{-2\zeta}` and :math:`\lambda_i \le R_0 i^{-p}`,
    :math:`p \ge 1`.  The statement prints :math:`e(C_2R_0)^{1/p}`; the proof
    (and the abstract's :math:`O((T/\alpha)^{1/p})`) has the :math:`/\alpha`,
    which is used (module docstring, item 1).  :func:`theorem1_constant` gives
    a valid :math:`C_2`.

    Parameters
    ----------
    T, zeta, D, R0
        As in :func:`theorem1_exponential_bound`.
    p : float
        Decay exponent :math:`p \ge 1`.
    C2 : float, default 1.0
        :math:`C_2 > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On an argument outside its range.
    """
    alpha = ald_threshold(T, zeta, D)
    R0 = v.positive(R0, "R0")
    p = _exponent(p)
    C2 = v.positive(C2, "C2")
    return math.e * (C2 * R0 / alpha) ** (1.0 / p)


def ald_budget_spectral_bound(eigenvalues, alpha, A):
    r"""The proof of Theorem 1 before any envelope: the largest :math:`k` with
    :math:`A\,\alpha^{k-1} \le \prod_{i=1}^k \lambda_i`.

    Any ALD dictionary (threshold :math:`\alpha`, diagonal at least :math:`A`)
    of size :math:`k` has :math:`A\alpha^{k-1} \le \det K_S \le
    \prod_{i \le k}\lambda_i` (Schur complements and Cauchy interlacing,
    Lemma 5), so its size is at most this value.  It is at most the two
    envelope bounds of Theorem 1 whenever the envelope dominates
    :math:`\lambda_1, \dots, \lambda_k`.

    Parameters
    ----------
    eigenvalues : array_like, shape (T,)
        Eigenvalues of :math:`K_T` (any order; round-off negatives are clamped).
    alpha : float
        ALD threshold :math:`\alpha > 0` (:func:`ald_threshold`).
    A : float
        Lower bound :math:`A > 0` on the diagonal of :math:`K_T`.

    Returns
    -------
    int
        The bound (``>= 1`` when :math:`\lambda_1 \ge A`).

    Raises
    ------
    ValueError
        On invalid eigenvalues, or ``alpha``/``A`` not positive.
    """
    lam = v.spectrum(eigenvalues=eigenvalues)
    alpha = v.positive(alpha, "alpha")
    A = v.positive(A, "A")
    with np.errstate(divide="ignore"):
        g = np.cumsum(np.log(lam) - math.log(alpha)) + math.log(alpha / A)
    ok = np.flatnonzero(g >= 0.0)
    return int(ok[-1] + 1) if ok.size else 0


# -- Lemma 4: delta_t and its sum ----------------------------------------------------------

def delta_sequence(K, y, M, active=None):
    r""":math:`\delta_t` of eq. (10) on a stream, exactly, from its Gram matrix.

    .. math::

        \|\nabla_t - \bar\nabla_t\|^2 - \|\bar\nabla_t\|^2
        = \kappa(x_t, x_t) - \frac{2y_t}{M_t}\sum_{r=1}^{M_t} y_{t-r}\kappa(x_t, x_{t-r})

    (Section "Computing", the case :math:`\tilde\nabla_t = \nabla_t`), with
    :math:`M_t = \min(t-1, M)`, :math:`\bar\nabla_1 = 0` (so
    :math:`\delta_1 = \kappa(x_1, x_1)`), and :math:`\delta_t = 0` on rounds
    where :math:`\nabla_t = 0` (``active`` false: no positive loss).  The
    optimistic gradient uses the previous :math:`M_t` examples whether or not
    they had a positive loss, as in its definition.

    Parameters
    ----------
    K : array_like, shape (T, T)
        Gram matrix of the stream.
    y : array_like, shape (T,)
        Labels in {-1, +1}.
    M : int
        Window :math:`M \ge 1`.
    active : array_like of bool, shape (T,), optional
        Rounds with :math:`\nabla_t \ne 0` (default: all, as in Lemma 4's
        statement, which takes :math:`\nabla_t = -y_t\kappa(x_t, \cdot)`).

    Returns
    -------
    ndarray, shape (T,)
        :math:`\delta_1, \dots, \delta_T \ge 0`.

    Raises
    ------
    ValueError
        On an invalid ``K``, ``y``, ``M`` or ``active``.
    """
    K = v.kernel_matrix(K)
    T = K.shape[0]
    y = v.labels(y, T, binary=True)
    M = v.integer(M, "M", 1)
    act = _mask(active, T)
    acc = np.zeros(T)
    for r in range(1, min(M, T - 1) + 1):
        acc[r:] += y[:-r] * np.diagonal(K, -r)        # K[t, t - r] * y[t - r]
    Mt = np.minimum(np.arange(T), M)
    mean = acc / np.maximum(Mt, 1)
    d = np.maximum(np.diag(K) - 2.0 * y * mean, 0.0)
    return np.where(act, d, 0.0)


def sum_delta(K, y, M, active=None):
    r""":math:`\sum_{t=1}^T \delta_t` (the quantity of Theorem 2; see :func:`delta_sequence`).

    The paper's Table 3 uses it as a proxy for :math:`\mathcal A_T`; Lemma 4
    bounds it by :math:`4\mathcal A_T + 7D` (:func:`lemma4_bound`).

    Returns
    -------
    float
    """
    return float(delta_sequence(K, y, M, active).sum())


def lemma4_bound(A_T, D):
    r"""Lemma 4: :math:`\sum_{\tau} \delta_\tau \le 4\mathcal A_T + 7D`.

    Printed with :math:`0 \wedge [\cdot]`, a typo for :math:`0 \vee [\cdot]`
    (module docstring, item 3); "for any :math:`t > 1`" sums over
    :math:`[t, T]`, of which the sum from :math:`t = 1` is the largest
    (:math:`\delta_\tau \ge 0`; the proof starts at :math:`\tau = 1`).  The
    experiments section quotes it as :math:`4(\mathcal A_T + D)`.  The proof
    bounds :math:`\delta_\tau \le \|\nabla_\tau - \bar\nabla_\tau\|^2` only on
    rounds with :math:`\nabla_\tau \ne 0`, so it holds for the :math:`\delta_t`
    of any run (``active`` in :func:`delta_sequence`).

    Parameters
    ----------
    A_T : float
        Kernel alignment :math:`\mathcal A_T \ge 0` (:func:`theory.kernel_alignment`).
    D : float
        :math:`D \ge \sup_x\kappa(x, x) > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``A_T`` is negative or ``D`` is not positive.
    """
    return 4.0 * v.nonnegative(A_T, "A_T") + 7.0 * v.positive(D, "D")


# -- Theorem 2, Corollary 1, Theorem 3 --------------------------------------------------------

def theorem2_bound(U, sum_delta, *, T=None, B=None):
    r"""Theorem 2: regret of POMDR against every :math:`f \in \mathbb H`.

    Exponential decay (POMD only, :math:`\bar t \ge T`; pass neither ``T`` nor ``B``):

    .. math:: \mathrm{Reg}(f) \le 3U\sqrt{\textstyle\sum_\tau\delta_\tau} + 9U.

    Otherwise (OMDR with budget :math:`B`; pass ``T`` and ``B``):

    .. math::

        \mathrm{Reg}(f) \le 3U\sqrt{\textstyle\sum_\tau\delta_\tau} + 9U
        + 3U\frac{\sqrt{2T\sum_\tau\delta_\tau}}{\sqrt B}.

    The theorem assumes :math:`\zeta = 1` and :math:`B_0 >
    2\ln(C_1R_0/\alpha)/\ln r^{-1}` (:func:`theorem1_exponential_bound`);
    its proof uses :math:`D = 1` (the learning rate's constant 3 is
    :math:`\max_t\tilde\delta_t \le 3D`), so the statement is for
    :math:`\sup\kappa(x, x) \le 1`.  The proof's last lines drop the factor
    :math:`U` of the budgeted term; the statement's is used (module
    docstring, item 5).

    Parameters
    ----------
    U : float
        Radius :math:`U > 0`.
    sum_delta : float
        :math:`\sum_{\tau=1}^T\delta_\tau \ge 0` (:func:`sum_delta`).
    T : int, optional
        Horizon (budgeted case).
    B : int, optional
        Budget :math:`B \ge 2` (budgeted case).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On an argument outside its range, or if only one of ``T`` and ``B`` is given.
    """
    U = v.positive(U, "U")
    s = v.nonnegative(sum_delta, "sum_delta")
    T, B = _horizon_and_budget(T, B)
    bound = 3.0 * U * math.sqrt(s) + 9.0 * U
    if T is not None:
        bound += 3.0 * U * math.sqrt(2.0 * T * s) / math.sqrt(B)
    return bound


def theorem2_max_halvings(T, B):
    r"""The bound :math:`N \le 2T/B - 1` on OMDR's halvings (proof of Theorem 2, Case 2).

    The first halving needs :math:`|S| = B`, so :math:`t_1 \ge B`, and each later one
    :math:`B/2` more additions, :math:`t_{j+1} - t_j \ge B/2`; hence
    :math:`B + (N - 1)B/2 \le T`.  (The proof's "t_{t+1}" is :math:`t_{j+1}`.)

    Parameters
    ----------
    T : int
        Horizon :math:`T \ge 1`.
    B : int
        Budget :math:`B \ge 2`.

    Returns
    -------
    int
        :math:`\max(0, \lfloor 2T/B \rfloor - 1)`.

    Raises
    ------
    ValueError
        If ``T`` or ``B`` is out of range.
    """
    T, B = _horizon_and_budget(T, B)
    return max(0, (2 * T) // B - 1)


def corollary1_bound(U, A_T, D, *, T=None, B=None):
    r"""Corollary 1: Theorem 2 with Lemma 4, in terms of the kernel alignment.

    Exponential decay: :math:`\mathrm{Reg}(f) \le 6U\sqrt{\mathcal A_T + 2D} + 9U`;
    otherwise, in addition,
    :math:`+\,6U\sqrt{2T(\mathcal A_T + 2D)}/\sqrt B`.

    Reconstruction (module docstring, item 4): printed
    :math:`6U\sqrt{\mathcal A_T} + 2D + 9U`, which Theorem 2 and Lemma 4 do not
    give; with :math:`\sum\delta \le 4\mathcal A_T + 7D \le 4(\mathcal A_T + 2D)`,
    :math:`3U\sqrt{\sum\delta} \le 6U\sqrt{\mathcal A_T + 2D}`, the form of the
    budgeted term and of Theorem 3.

    Parameters
    ----------
    U : float
        :math:`U > 0`.
    A_T : float
        :math:`\mathcal A_T \ge 0`.
    D : float
        :math:`D > 0`.
    T, B : int, optional
        Horizon and budget of the budgeted case (both or neither).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On an argument outside its range, or if only one of ``T`` and ``B`` is given.
    """
    U = v.positive(U, "U")
    a = v.nonnegative(A_T, "A_T") + 2.0 * v.positive(D, "D")
    T, B = _horizon_and_budget(T, B)
    bound = 6.0 * U * math.sqrt(a) + 9.0 * U
    if T is not None:
        bound += 6.0 * U * math.sqrt(2.0 * T * a) / math.sqrt(B)
    return bound


def theorem3_bound(U, expected_A_T, D, T, B=None):
    r"""Theorem 3: excess risk of :math:`\bar f = f_r`, :math:`r` uniform in :math:`[T]`.

    .. math::

        \mathbb E[\mathcal E(\bar f)] - \mathcal E(f) \le
        \frac{6U\sqrt{\mathbb E[\mathcal A_T] + 2D}}{T} + \frac{9U}{T}
        \;\Big[+\, 6U\frac{\sqrt{2\mathbb E[\mathcal A_T] + 4D}}{\sqrt{TB}}\Big]

    (the bracket in the case without exponential decay of the covariance
    operator's eigenvalues, with budget ``B``).  It is Corollary 1 divided by
    :math:`T` with Jensen's :math:`\mathbb E\sqrt{\cdot} \le \sqrt{\mathbb E\,\cdot}`;
    the proof's :math:`6U\sqrt{\mathcal A_T}/T + 8U/T` lines are the printed
    Corollary 1 with a further typo, the statement is used.

    Parameters
    ----------
    U : float
        :math:`U > 0`.
    expected_A_T : float
        :math:`\mathbb E[\mathcal A_T] \ge 0`.
    D : float
        :math:`D > 0`.
    T : int
        Sample size :math:`T \ge 1`.
    B : int, optional
        Budget :math:`B \ge 2` of the budgeted case.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On an argument outside its range.
    """
    U = v.positive(U, "U")
    a = v.nonnegative(expected_A_T, "expected_A_T") + 2.0 * v.positive(D, "D")
    T = v.integer(T, "T", 1)
    bound = 6.0 * U * math.sqrt(a) / T + 9.0 * U / T
    if B is not None:
        B = v.integer(B, "B", 2)
        bound += 6.0 * U * math.sqrt(2.0 * a) / math.sqrt(T * B)
    return bound
