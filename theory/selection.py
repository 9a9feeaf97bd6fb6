r"""Budget, regret and lower bounds of Li & Liao, *Online kernel selection with
computational constraints*: LKMBooks (Sec. 3.2), PFMBooks (Sec. 3.3) and
BATBooks (Sec. 4.2).

Notation of the paper: ``T`` rounds, ``K`` kernels, the example budget ``B`` (``B =
alpha T_mem`` for a memory budget, ``B = beta T_time`` for a time budget, Assumption 3),
``upsilon`` of the sampling rates ``z_t``, confidence ``delta``, ``D = max_i D_i`` with
``kappa_i(x, x) <= D_i``, ``L`` the Lipschitz constant of the loss, ``f_norm`` the norm
``||f*_i||_{H_i}`` of the comparator, ``U`` the radius of the balls, ``ell_m`` the
normalizer of criterion (6).

Groups of functions:

* **Sampling and budgets** (Theorems 2, 4, 8): :func:`sampling_rate` (the ``z`` of each
  theorem, printed or corrected form), :func:`addition_probabilities` (the Bernoulli
  probabilities of ``rho_t``), :func:`budget_tail` (exact tail of the number of added
  examples, a Poisson-binomial law), :func:`bernstein_budget_bound`,
  :func:`lkmbooks_theorem2_condition`, :func:`lkmbooks_theorem2_bound`,
  :func:`pfmbooks_theorem4_condition`, :func:`pfmbooks_theorem4_bound`,
  :func:`batbooks_condition12`, :func:`batbooks_theorem8_bound`.
* **Lower bounds** (Theorems 1, 7): :func:`memory_lower_bound`,
  :func:`time_lower_bound`, :func:`memory_budget_for_rate`.
* **Upper bounds as printed** (orders, constant 1): :func:`lkmbooks_theorem3_rate`,
  :func:`pfmbooks_theorem5_rate`, :func:`pfmbooks_theorem6_rate`,
  :func:`batbooks_theorem9_bound`, :func:`batbooks_theorem10_rate`.
* **Parameters of the theorems**: :func:`lkmbooks_theorem3_parameters`,
  :func:`pfmbooks_radii`, :func:`pfmbooks_theorem6_parameters`,
  :func:`batbooks_theorem10_lambda`.
* **Explicit bounds reconstructed from the analysis** (no hidden constant, for checks
  against runs): :func:`sampled_ogd_regret_bound`, :func:`lkmbooks_regret_bound`,
  :func:`pfmbooks_regret_bound`, :func:`batbooks_regret_bound`.

Reconstructions (the paper as read here has no appendix and no algorithm boxes):

* **The sampling rates ``z_t`` (Theorems 2, 4, 8).**  The budget bounds have Bernstein's
  form ``mu + (2/3) ln(1/delta) + sqrt(2 mu ln(1/delta))`` with ``mu = B`` (Theorem 2)
  and ``mu = B/2`` (Theorems 4, 8), so the analysis needs the probabilities of adding an
  example to sum to at most ``B`` (``B/2``).  With the printed rates, e.g. Theorem 2's
  ``z = (1-upsilon) T^{1-upsilon} n^upsilon`` at the ``n``-th round with a non-zero
  gradient, the sum is ``B/((1-upsilon) T^{1-upsilon}) sum_{n<=T} n^{-upsilon}``, about
  ``B/(1-upsilon)^2`` for large ``T`` (2.25 B at the experiments' ``upsilon = 1/3``), and
  the printed bounds fail (see the tests, which compute the exact tail).  Moving
  ``(1-upsilon)`` to the denominator, ``z = T^{1-upsilon} n^upsilon / (1-upsilon)``
  (Theorem 2) and ``z = 2 T^{1-upsilon} t^upsilon / (1-upsilon)`` (Theorems 4, 8), makes
  the sum at most ``B`` (``B/2``) because ``sum_{n<=N} n^{-upsilon} <= N^{1-upsilon}/(1-
  upsilon)``; the two forms coincide at ``upsilon = 0``.  ``form="corrected"`` is that
  choice and is the default of the explicit bounds here; ``form="printed"`` evaluates the
  rates as printed.  The printed step sizes of Theorems 3, 6, 10 were tuned for the
  printed rates; with the corrected ones the orders of the theorems are unchanged (the
  variance term changes by the factor ``1/(1-upsilon)^2``), which
  :func:`sampled_ogd_regret_bound` makes explicit.
* **Theorem 2's conditions.**  The printed condition ``(1-upsilon) T^{1-upsilon} > B`` is
  the condition ``z_1 > C`` (no probability clipped at 1) of the printed rate; for the
  corrected rate the same role is played by ``T^{1-upsilon} > (1-upsilon) B``.  Both are
  evaluated by :func:`lkmbooks_theorem2_condition`.  The bounds hold whether or not the
  minimum clips (clipping only lowers the probabilities).
* **The regret decompositions.**  LKMBooks: by convexity, ``l(f_t(x_t)) - l(f(x_t)) <=
  l'_t (f_t(x_t) - f_{t,i}(x_t)) + <l'_t phi_i(x_t), f_{t,i} - f>``; the first term is
  ``<p_t, c_t> - c_{t,i}`` for the criterion (6) times ``max{ell_m, 1}`` (the shift by
  ``min_j``/``max_j f_{t,j}(x_t)`` is common to all kernels), the second the linear loss
  that the unbiased estimate ``nabla~`` of OGD is an estimate of.  PFMBooks and BATBooks
  predict with ``f_{t,I_t}``, so ``E l(f_{t,I_t}(x_t)) = <p_t, l_t>`` and the regret is the
  experts' (MSMW) or bandit's (OSMD) regret plus the (projected) OGD regret of the
  compared hypothesis.  OGD with an unbiased gradient estimate started at 0:
  ``E sum_t <g_t, f_t - f> <= ||f||^2/(2 lambda) + (lambda/2) sum_t E||g~_t||^2``, with
  ``E||g~_t||^2 = ||g_t||^2 / P_t <= L^2 D_i / P_t``.

Depends only on numpy and scipy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from . import _validation as v
from .experts import (
    batbooks_theorem9_bound,
    hedge_regret_bound,
    msmw_regret_bound,
    msmw_theorem5_rate,
    osmd_explore_regret_bound,
)

__all__ = [
    "PFMBooksParameters",
    "addition_probabilities",
    "batbooks_condition12",
    "batbooks_regret_bound",
    "batbooks_theorem10_lambda",
    "batbooks_theorem10_rate",
    "batbooks_theorem8_bound",
    "batbooks_theorem9_bound",
    "bernstein_budget_bound",
    "budget_tail",
    "lkmbooks_regret_bound",
    "lkmbooks_theorem2_bound",
    "lkmbooks_theorem2_condition",
    "lkmbooks_theorem3_parameters",
    "lkmbooks_theorem3_rate",
    "memory_budget_for_rate",
    "memory_lower_bound",
    "pfmbooks_radii",
    "pfmbooks_regret_bound",
    "pfmbooks_theorem4_bound",
    "pfmbooks_theorem4_condition",
    "pfmbooks_theorem5_rate",
    "pfmbooks_theorem6_parameters",
    "pfmbooks_theorem6_rate",
    "sampled_ogd_regret_bound",
    "sampling_rate",
    "time_lower_bound",
]

_THEOREMS = ("2", "4", "8")
_FORMS = ("corrected", "printed")


# -- argument checks -------------------------------------------------------------------

def _upsilon(upsilon):
    u = v.real(upsilon, "upsilon")
    if not 0.0 <= u < 1.0:
        raise ValueError(f"upsilon must lie in [0, 1), got {upsilon!r}")
    return u


def _delta(delta):
    d = v.real(delta, "delta")
    if not 0.0 < d < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    return d


def _theorem(theorem):
    t = str(theorem)
    if t not in _THEOREMS:
        raise ValueError(f"theorem must be one of {_THEOREMS} (the sampling rules of "
                         f"Theorems 2, 4 and 8), got {theorem!r}")
    return t


def _form(form):
    if form not in _FORMS:
        raise ValueError(f"form must be one of {_FORMS}, got {form!r}")
    return form


def _budget(B):
    return v.integer(B, "B", 1)


# -- sampling rules and budgets (Theorems 2, 4, 8) ---------------------------------------

def sampling_rate(n, T, upsilon, theorem="2", form="corrected"):
    r"""The rate ``z`` of the sampling rule (5) of Li & Liao at index ``n``.

    * Theorem 2 (LKMBooks): ``n = |E_t| + 1``, the rank of the round among the rounds
      with a non-zero gradient; printed ``z = (1-upsilon) T^{1-upsilon} n^upsilon``.
    * Theorems 4 (PFMBooks) and 8 (BATBooks): ``n = t``, the round; printed
      ``z = 2 (1-upsilon) T^{1-upsilon} t^upsilon``.

    ``form="corrected"`` divides by ``(1-upsilon)`` instead of multiplying (module
    docstring: the form under which Theorems 2, 4 and 8 hold).  ``n`` may be an array.
    """
    T = v.integer(T, "T", 1)
    u = _upsilon(upsilon)
    theorem, form = _theorem(theorem), _form(form)
    n = np.asarray(n, dtype=float)
    if np.any(n < 1) or not np.all(np.isfinite(n)):
        raise ValueError("n must be finite and >= 1")
    factor = (1.0 - u) if form == "printed" else 1.0 / (1.0 - u)
    scale = 1.0 if theorem == "2" else 2.0
    return scale * factor * T ** (1.0 - u) * n ** u


def addition_probabilities(T, B, upsilon, theorem="2", form="corrected", K=1, n=None):
    r"""Probabilities that successive sampled rounds add an example to a buffer.

    * Theorem 2: ``P = min{1, B/z_n}`` at the ``n``-th round with a non-zero gradient,
      ``n = 1..N`` (``N = n`` rounds, default ``T``: every gradient non-zero, the worst
      case and the case of the absolute loss).
    * Theorem 4: ``P = min{1, B/z_t}`` at every round ``t = 1..T`` (oblivious rule).
    * Theorem 8: for one buffer ``S_i``, ``P = (1/K) min{1, K B/z_t}`` (``C = K B``,
      ``J_t = i`` with probability ``1/K``), ``t = 1..T``, when every gradient is non-zero
      (otherwise fewer terms; the bound only needs an upper bound).

    The number of added examples is the sum of independent Bernoulli variables with
    these probabilities whenever the sequence of rounds with a non-zero gradient does
    not depend on the draws (always for Theorem 4; for the absolute loss, whose gradient
    is non-zero almost surely, for Theorems 2 and 8).  Returns an ``(N,)`` array.
    """
    T = v.integer(T, "T", 1)
    B = _budget(B)
    K = v.integer(K, "K", 1)
    theorem = _theorem(theorem)
    N = T if n is None else v.integer(n, "n", 0)
    if N > T:
        raise ValueError(f"n must be <= T = {T}, got {n!r}")
    if N == 0:
        return np.empty(0)
    z = sampling_rate(np.arange(1, N + 1), T, upsilon, theorem, form)
    C = K * B if theorem == "8" else B
    p = np.minimum(1.0, C / z)
    return p / K if theorem == "8" else p


def budget_tail(probabilities, size):
    r"""``P[sum_n rho_n > size]`` for independent ``rho_n ~ Ber(p_n)``: the exact tail
    of the number of examples added (``scipy.stats.poisson_binom``).  ``size`` may be
    an array (one tail per entry)."""
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("probabilities must be a 1-D array of numbers in [0, 1]")
    k = np.asarray(size, dtype=float)
    if not np.all(np.isfinite(k)):
        raise ValueError("size must be finite")
    if p.size == 0:
        out = np.zeros(k.shape)
    else:
        out = np.asarray(stats.poisson_binom.sf(np.floor(k), p), dtype=float)
    return float(out) if out.ndim == 0 else out


def bernstein_budget_bound(mean_bound, delta):
    r"""``mu + (2/3) ln(1/delta) + sqrt(2 mu ln(1/delta))``: Bernstein's (Freedman's)
    inequality for a sum of Bernoulli variables whose (conditional) probabilities sum to
    at most ``mu = mean_bound``; the form of Theorems 2, 4 and 8."""
    mu = v.nonnegative(mean_bound, "mean_bound")
    a = math.log(1.0 / _delta(delta))
    return mu + 2.0 * a / 3.0 + math.sqrt(2.0 * mu * a)


def lkmbooks_theorem2_condition(T, B, upsilon, form="printed"):
    r"""Theorem 2's condition: ``(1-upsilon) T^{1-upsilon} > B`` as printed (``z_1 > C``);
    ``form="corrected"``: ``T^{1-upsilon}/(1-upsilon) > B``, i.e. ``z_1 > C`` for the
    corrected rate."""
    return bool(sampling_rate(1, T, upsilon, "2", form) > _budget(B))


def lkmbooks_theorem2_bound(B, delta):
    r"""Theorem 2: ``|S| <= B + (2/3) ln(1/delta) + sqrt(2 B ln(1/delta))`` with
    probability at least ``1 - delta`` (when the condition holds; ``|S| <= B``
    otherwise, which the returned value also bounds)."""
    return bernstein_budget_bound(_budget(B), delta)


def pfmbooks_theorem4_condition(T, B, upsilon, form="printed"):
    r"""Theorem 4's condition: ``2 (1-upsilon) T^{1-upsilon} > B`` (printed; the
    corrected rate's ``z_1 > C`` with ``form="corrected"``)."""
    return bool(sampling_rate(1, T, upsilon, "4", form) > _budget(B))


def pfmbooks_theorem4_bound(B, delta):
    r"""Theorem 4: ``|S| <= B/2 + (2/3) ln(1/delta) + sqrt(B ln(1/delta))`` with
    probability at least ``1 - delta`` (Bernstein with ``mu = B/2``)."""
    return bernstein_budget_bound(_budget(B) / 2.0, delta)


def batbooks_condition12(T, B, K, upsilon, form="printed"):
    r"""Condition (12) of Theorem 10: ``2 (1-upsilon) T^{1-upsilon} > K B`` (printed;
    ``form="corrected"``: ``2 T^{1-upsilon}/(1-upsilon) > K B``)."""
    return bool(sampling_rate(1, T, upsilon, "8", form) > v.integer(K, "K", 1) * _budget(B))


def batbooks_theorem8_bound(B, K, delta):
    r"""Theorem 8: every ``|S_i| <= B/2 + (2/3) ln(K/delta) + sqrt(B ln(K/delta))`` with
    probability at least ``1 - delta`` (Theorem 4's bound at level ``delta/K`` and a
    union bound over the ``K`` buffers)."""
    K = v.integer(K, "K", 1)
    d = _delta(delta)
    if d / K >= 1.0:
        raise ValueError("delta/K must be < 1")
    return bernstein_budget_bound(_budget(B) / 2.0, d / K)


# -- lower bounds (Theorems 1, 7) --------------------------------------------------------

def _lower(T, budget, f_norm, L):
    T = v.integer(T, "T", 1)
    budget = v.positive(budget, "budget")
    f = v.nonnegative(f_norm, "f_norm")
    L = v.positive(L, "L")
    if T <= budget:
        return f * L * math.sqrt(T)
    return f * L * T / math.sqrt(budget)


def memory_lower_bound(T, B, f_norm, L=1.0):
    r"""Theorem 1, (2), with constant 1: ``||f*|| L sqrt(T)`` if ``T <= alpha T_mem = B``
    and ``||f*|| L T / sqrt(B)`` otherwise (the two agree at ``T = B``).  The
    ``T = O(alpha T_mem)`` case split is read as ``T <= B``."""
    return _lower(T, B, f_norm, L)


def time_lower_bound(T, allocations, f_norm, L=1.0, beta=1.0):
    r"""Theorem 7, (9), with constant 1, for a static allocation ``R(T_1, ..., T_K)``:
    ``||f*|| L sqrt(T)`` if ``T <= beta max_j T_j`` and ``||f*|| L T / sqrt(beta max_j
    T_j)`` otherwise.  ``allocations`` holds the ``T_j`` (quanta)."""
    a = np.asarray(allocations, dtype=float)
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise ValueError("allocations must be a non-empty vector of positive budgets T_j")
    return _lower(T, v.positive(beta, "beta") * float(a.max()), f_norm, L)


def memory_budget_for_rate(T, upsilon, C=1.0, alpha=1.0):
    r"""After Theorem 1: a regret ``T (alpha T_mem)^{-1/2} <= C T^upsilon`` needs
    ``T_mem >= C^{-2} alpha^{-1} T^{2(1-upsilon)}`` (``1/2 <= upsilon < 1``)."""
    T = v.integer(T, "T", 1)
    u = v.real(upsilon, "upsilon")
    if not 0.5 <= u < 1.0:
        raise ValueError(f"upsilon must lie in [1/2, 1), got {upsilon!r}")
    return T ** (2.0 * (1.0 - u)) / (v.positive(C, "C") ** 2 * v.positive(alpha, "alpha"))


# -- upper bounds as printed (orders with constant 1) ------------------------------------

def lkmbooks_theorem3_rate(T, K, B, f_norm, L=1.0, ell_m=1.0):
    r"""Theorem 3 with constant 1: ``max{ell_m, 1} sqrt(T ln K) + (||f*||^2 + 1) L
    max{sqrt(T), T / sqrt(B)}`` (``B = alpha T_mem``)."""
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    B = _budget(B)
    f = v.nonnegative(f_norm, "f_norm")
    return (max(v.nonnegative(ell_m, "ell_m"), 1.0) * math.sqrt(T * math.log(K))
            + (f * f + 1.0) * v.positive(L, "L") * max(math.sqrt(T), T / math.sqrt(B)))


def pfmbooks_theorem5_rate(scales, T):
    r"""Theorem 5 with constant 1: ``g(U_j, D_i) sqrt(T ln(K'T))`` for every action
    (:func:`theory.experts.msmw_theorem5_rate`)."""
    return msmw_theorem5_rate(scales, T)


def pfmbooks_theorem6_rate(T, K, M, B, f_norm, L=1.0):
    r"""Theorem 6 with constant 1: ``||f*|| L max{sqrt(T ln(K'T)), T/sqrt(B)}
    sqrt(ln(KT)) + sqrt(T ln(K'T))`` with ``K' = K M``."""
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    M = v.integer(M, "M", 1)
    B = _budget(B)
    f = v.nonnegative(f_norm, "f_norm")
    a = math.sqrt(T * math.log(K * M * T))
    return f * v.positive(L, "L") * max(a, T / math.sqrt(B)) * math.sqrt(math.log(K * T)) + a


def batbooks_theorem10_rate(T, K, B, f_norm, best_loss, U, L=1.0, D=1.0, condition=None):
    r"""Theorem 10 with constant 1: ``sqrt((U+1) L_T(f*) K ln K) + (||f*||^2+1) L sqrt(D_i)
    T/sqrt(B)`` when (12) holds, ``... + (||f*||^2+1) L sqrt(D_i T K)`` otherwise.
    ``condition`` (bool) says which; by default the printed (12) is evaluated at
    ``upsilon = 0``, i.e. ``2 T > K B`` -- the largest ``T^{1-upsilon}`` side."""
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    B = _budget(B)
    f = v.nonnegative(f_norm, "f_norm")
    Lt = v.nonnegative(best_loss, "best_loss")
    U = v.positive(U, "U")
    L = v.positive(L, "L")
    D = v.positive(D, "D")
    if condition is None:
        condition = 2 * T > K * B
    first = math.sqrt((U + 1.0) * Lt * K * math.log(K))
    if condition:
        return first + (f * f + 1.0) * L * math.sqrt(D) * T / math.sqrt(B)
    return first + (f * f + 1.0) * L * math.sqrt(D * T * K)


# -- parameters of the theorems ----------------------------------------------------------

def lkmbooks_theorem3_parameters(T, K, B, D=1.0, L=1.0, upsilon=0.0):
    r"""``(eta, lambda)`` of Theorem 3: ``eta = sqrt(8 ln K / T)``; ``lambda =
    sqrt((1+upsilon) B) / (sqrt((1-upsilon) D) L T)`` if ``B < T`` and ``1/(sqrt(D T) L)``
    otherwise."""
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    B = _budget(B)
    D = v.positive(D, "D")
    L = v.positive(L, "L")
    u = _upsilon(upsilon)
    eta = math.sqrt(8.0 * math.log(K) / T)
    if B < T:
        lam = math.sqrt((1.0 + u) * B) / (math.sqrt((1.0 - u) * D) * L * T)
    else:
        lam = 1.0 / (math.sqrt(D * T) * L)
    return eta, lam


def pfmbooks_radii(U, U_min):
    r"""The nested radii of (7): ``M = ceil(ln U) - ceil(ln U_min) + 1`` and ``U_j =
    e^{j + ceil(ln U_min) - 1}``, ``j = 1..M`` (so ``U_1 = e^{ceil(ln U_min)} >= U_min``
    and ``U_M = e^{ceil(ln U)} >= U``).  Returns the ``(M,)`` array."""
    U = v.positive(U, "U")
    U_min = v.positive(U_min, "U_min")
    if U_min > U:
        raise ValueError(f"U_min must be <= U, got U_min={U_min!r}, U={U!r}")
    lo, hi = math.ceil(math.log(U_min)), math.ceil(math.log(U))
    M = hi - lo + 1
    return np.exp(np.arange(1, M + 1) + lo - 1.0)


@dataclass(frozen=True)
class PFMBooksParameters:
    """Theorem 6's setting: radii ``U_j`` (``M`` of them), steps ``lam[i, j]``, ``U``,
    ``U_min`` and the MSMW rate ``eta`` of Theorem 5."""

    U: float
    U_min: float
    radii: np.ndarray
    lam: np.ndarray
    eta: float

    @property
    def M(self) -> int:
        return int(self.radii.shape[0])


def pfmbooks_theorem6_parameters(T, B, D, L=1.0, upsilon=0.0, U=None):
    r"""Theorem 6: ``U = sqrt(B)`` (``Theta(sqrt(B))``, constant 1 unless ``U`` is given),
    ``U_min = U / sqrt(T)``, ``lambda_{i,j} = U_j sqrt((1+upsilon) B) / (sqrt(2 (1-upsilon)
    D_i) L T)``, and Theorem 5's ``eta = sqrt(2 ln(K'T)/T)``.  ``D`` holds the ``D_i``."""
    T = v.integer(T, "T", 1)
    B = _budget(B)
    Dv = np.atleast_1d(np.asarray(D, dtype=float))
    if Dv.ndim != 1 or not np.all(np.isfinite(Dv)) or np.any(Dv <= 0):
        raise ValueError("D must hold positive finite D_i")
    L = v.positive(L, "L")
    u = _upsilon(upsilon)
    U = math.sqrt(B) if U is None else v.positive(U, "U")
    U_min = U / math.sqrt(T)
    radii = pfmbooks_radii(U, U_min)
    lam = (radii[None, :] * math.sqrt((1.0 + u) * B)
           / (np.sqrt(2.0 * (1.0 - u) * Dv)[:, None] * L * T))
    eta = math.sqrt(2.0 * math.log(Dv.size * radii.size * T) / T)
    return PFMBooksParameters(U=U, U_min=U_min, radii=radii, lam=lam, eta=eta)


def batbooks_theorem10_lambda(T, K, B, D=1.0, L=1.0, upsilon=0.0, condition=True):
    r"""Theorem 10's step: ``sqrt((1+upsilon) B) / (sqrt(2 (1-upsilon) D_i) L T)`` under
    (12), ``1 / (sqrt(K D_i T) L)`` otherwise."""
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    B = _budget(B)
    D = v.positive(D, "D")
    L = v.positive(L, "L")
    u = _upsilon(upsilon)
    if condition:
        return math.sqrt((1.0 + u) * B) / (math.sqrt(2.0 * (1.0 - u) * D) * L * T)
    return 1.0 / (math.sqrt(K * D * T) * L)


# -- explicit bounds reconstructed from the analysis -------------------------------------

def sampled_ogd_regret_bound(f_norm, lam, probabilities, L=1.0, D=1.0):
    r"""Expected regret of OGD started at ``f_1 = 0`` (projected or not, onto a ball
    containing ``f``) on linear losses ``<g_t, f>``, ``||g_t||^2 <= L^2 D``, when round
    ``t`` uses the unbiased estimate ``g~_t = g_t I_t / P_t``:

    .. math:: \mathbb E\sum_t \langle g_t, f_t - f\rangle \le \frac{\|f\|^2}{2\lambda}
              + \frac{\lambda}{2} L^2 D \sum_t \frac1{P_t}.

    ``probabilities`` are the ``P_t`` of the rounds that may update (rounds with a zero
    gradient contribute nothing).  The step of Theorems 3, 6 and 10 is ``lam``.
    """
    f = v.nonnegative(f_norm, "f_norm")
    lam = v.positive(lam, "lam")
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or not np.all(np.isfinite(p)) or np.any((p <= 0) | (p > 1)):
        raise ValueError("probabilities must be a 1-D array of numbers in (0, 1]")
    return f * f / (2.0 * lam) + 0.5 * lam * v.positive(L, "L") ** 2 * v.positive(D, "D") \
        * float(np.sum(1.0 / p))


def lkmbooks_regret_bound(T, K, B, f_norm, lam, eta, L=1.0, D=1.0, upsilon=0.0,
                          criterion_range=1.0, ell_m=1.0, n_gradient=None,
                          form="corrected"):
    r"""Explicit expected-regret bound of LKMBooks against any ``f in H_i``
    (reconstructed proof of Theorem 3, module docstring):

    .. math:: \mathbb E\,\mathrm{Reg}(f) \le \max\{\ell_m, 1\}\Big(\frac{\ln K}{\eta} +
              \frac{\eta T r^2}{8}\Big) + \frac{\|f\|^2}{2\lambda} + \frac{\lambda}{2} L^2 D
              \sum_{n=1}^{N} \max\{1, z_n / B\}

    with ``r = criterion_range`` the range of criterion (6) (1 when ``ell_m`` is the
    true maximum), ``N = n_gradient`` the number of rounds with a non-zero gradient
    (default ``T``) and ``z_n`` the Theorem 2 rate (``form``).  Hoeffding's Hedge bound
    (:func:`theory.experts.hedge_regret_bound`) is the first term.
    """
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    hedge = hedge_regret_bound(T, K, eta=eta, loss_range=criterion_range)
    p = addition_probabilities(T, B, upsilon, "2", form, n=n_gradient)
    ogd = sampled_ogd_regret_bound(f_norm, lam, p, L, D) if p.size else \
        v.nonnegative(f_norm, "f_norm") ** 2 / (2.0 * v.positive(lam, "lam"))
    return max(v.nonnegative(ell_m, "ell_m"), 1.0) * hedge + ogd


def pfmbooks_regret_bound(T, B, f_norm, radius, lam, eta, scales, action, L=1.0, D=1.0,
                          upsilon=0.0, form="corrected"):
    r"""Explicit expected-regret bound of PFMBooks against any ``f`` with ``||f|| <=
    U_j = radius`` in ``H_i``, ``action = h(i, j)`` (0-based):

    MSMW's regret against that action (:func:`theory.experts.msmw_regret_bound`, losses
    of action ``k`` in ``[0, scales[k]]``, ``prior="scale"``) plus the projected OGD bound
    of ``f_{t,i,j}`` (:func:`sampled_ogd_regret_bound` with the oblivious probabilities of
    Theorem 4, every round).
    """
    T = v.integer(T, "T", 1)
    f = v.nonnegative(f_norm, "f_norm")
    radius = v.positive(radius, "radius")
    if f > radius * (1.0 + 1e-9):
        raise ValueError(f"f_norm must be <= radius (f in the ball of the action), got "
                         f"f_norm={f_norm!r}, radius={radius!r}")
    k = v.integer(action, "action", 0)
    experts = msmw_regret_bound(scales, T, eta, prior="scale")
    if k >= experts.size:
        raise ValueError(f"action must be < {experts.size}, got {action!r}")
    p = addition_probabilities(T, B, upsilon, "4", form)
    return float(experts[k]) + sampled_ogd_regret_bound(f, lam, p, L, D)


def batbooks_regret_bound(T, K, B, f_norm, U, lam, eta, best_loss, ell_m, L=1.0, D=1.0,
                          upsilon=0.0, form="corrected"):
    r"""Explicit expected-regret bound of BATBooks against any ``f`` with ``||f|| <= U`` in
    ``H_i``: ``ell_m`` times OSMD's regret with estimator (10) on the normalized losses
    ``c = l / ell_m`` (:func:`theory.experts.osmd_explore_regret_bound` with cumulative
    normalized loss ``best_loss / ell_m`` of kernel ``i``; ``ell_m`` must bound every
    loss) plus the projected OGD bound with ``P_t = (1/K) min{1, K B / z_t}`` (Theorem 8's
    probabilities; :func:`sampled_ogd_regret_bound`).
    """
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    f = v.nonnegative(f_norm, "f_norm")
    U = v.positive(U, "U")
    if f > U * (1.0 + 1e-9):
        raise ValueError(f"f_norm must be <= U, got f_norm={f_norm!r}, U={U!r}")
    ell_m = v.positive(ell_m, "ell_m")
    bandit = osmd_explore_regret_bound(K, eta, v.nonnegative(best_loss, "best_loss") / ell_m,
                                       T=T)
    p = addition_probabilities(T, B, upsilon, "8", form, K=K)
    return ell_m * bandit + sampled_ogd_regret_bound(f, lam, p, L, D)
