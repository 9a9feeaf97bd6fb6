r"""Regret of the kernel online Newton step (KONS) and of its two approximations compared
with PKAWV in Jézéquel, Gaillard & Rudi (NeurIPS 2019): Sketched-KONS (Calandriello,
Lazaric & Valko, ICML 2017, "[12]") and Pros-N-KONS (NeurIPS 2017, "[13]").

Square loss :math:`\ell_t(z) = (z - y_t)^2`, forecasts clipped to :math:`[-C, C]`, the
Newton matrix :math:`A_t = \alpha I + \eta\sum_{s \le t} z_s g_s g_s^\top` with
:math:`g_t = \ell_t'(\hat y_t)\phi_t` (``z_s = 1`` for KONS; the sketch's draws for
Sketched-KONS).  Regret against :math:`f \in \mathcal H`:
:math:`R_n(f) = \sum_t (y_t - \hat y_t)^2 - \sum_t (y_t - f(x_t))^2`.

Three groups of functions:

* **Pathwise bounds of the learners as implemented** (derived here with the online Newton
  step argument of Hazan, Agarwal & Kale (2007), the argument of the KONS paper; the
  papers' own statements are not reachable from here and their constants may differ):
  :func:`kons_regret_bound`, :func:`kons_logdet_bound`, :func:`sketched_kons_expected_bound`,
  :func:`pros_n_kons_regret_bound` with :func:`pros_n_kons_comparator_terms`, and the
  step condition :func:`max_eta`.
* **Jezequel, Gaillard & Rudi's summary**: eq. (8) (:func:`eq8_regret`), Table 1 as printed
  (:func:`table1_log_powers`, :func:`table1_exponents`) and the exponents obtained by
  optimizing eq. (8) under the capacity condition (:func:`eq8_exponents`).
* **Per-round cost** of the implementations (:func:`round_cost`).

The derivation behind the pathwise bounds (KONS and Sketched-KONS; :math:`u_t` the Newton
point, :math:`w_t` its projection in the :math:`A_{t-1}` norm on
:math:`S_t = \{w: |\langle w, \phi_t\rangle| \le C\}`): for :math:`f \in \cap_t S_t`,

.. math::

    \|u_{t+1} - f\|_{A_t}^2 = \|w_t - f\|_{A_t}^2 - 2 g_t^\top(w_t - f) + g_t^\top A_t^{-1}g_t,
    \qquad \|w_{t+1} - f\|_{A_t} \le \|u_{t+1} - f\|_{A_t},

so :math:`\sum_t g_t^\top(w_t - f) \le \frac\alpha2\|f\|^2 + \frac12\sum_t \eta z_t
(g_t^\top(w_t - f))^2 + \frac12\sum_t g_t^\top A_t^{-1} g_t` (telescoping, :math:`w_1 = 0`).
The square loss is exactly quadratic: :math:`\ell_t(\hat y_t) - \ell_t(f(x_t)) =
g_t^\top(w_t - f) - (g_t^\top(w_t - f))^2/\ell_t'(\hat y_t)^2`, hence

.. math::

    R_n(f) \le \frac\alpha2\|f\|^2 + \frac12\sum_t g_t^\top A_t^{-1} g_t
    \quad\text{if } \eta \le \frac{2}{\ell_t'(\hat y_t)^2} = \frac{1}{2(\hat y_t - y_t)^2}
    \text{ for every } t,

and :math:`\sum_t \eta g_t^\top A_t^{-1}g_t \le \log\det(A_n/\alpha) \le
\log\det(I + \eta L^2 K_{nn}/\alpha)` for KONS (:math:`L \ge |\ell_t'|`).  For the sketch,
with :math:`q_t = g_t^\top A_{t-1}^{-1} g_t`, :math:`p_t = \max(\min(\beta\eta q_t, 1),
\gamma)`: a round with :math:`p_t < 1` has :math:`\eta q_t < 1/\beta`, so
:math:`q_t \le \frac{1 + 1/\beta}{\gamma\eta}\, p_t\log(1 + \eta q_t)` and
:math:`E[\sum_t g_t^\top A_t^{-1} g_t] \le \frac{1 + 1/\beta}{\gamma\eta}
E[\log\det(A_n/\alpha)]`: the factor :math:`1/\gamma` of eq. (8)
(:math:`\lambda + (n/m) d_{\mathrm{eff}}(\lambda)` with :math:`m \approx \gamma n`).
Pros-N-KONS runs KONS from scratch in each epoch ``j`` (between two restarts) on the
projection :math:`P_j` onto the span of its dictionary; in epoch ``j`` the comparator is
:math:`P_j f` and the approximation costs :math:`\ell_t(P_j f(x_t)) - \ell_t(f(x_t))`:
:func:`pros_n_kons_regret_bound`; with ``m`` restarts its first terms sum to about
:math:`m(\lambda + d_{\mathrm{eff}}(\lambda))` -- eq. (8).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from . import _validation as v
from .spectrum import log_det_term

__all__ = [
    "max_eta", "kons_regret_bound", "kons_logdet_bound", "sketched_kons_expected_bound",
    "ProsNKONSComparator", "pros_n_kons_comparator_terms", "pros_n_kons_regret_bound",
    "EQ8_ALGORITHMS", "eq8_regret", "table1_log_powers", "table1_exponents",
    "Eq8Exponents", "eq8_exponents", "round_cost",
]

#: the three rows of eq. (8) (and of Table 1)
EQ8_ALGORITHMS = ("pkawv", "sketched-kons", "pros-n-kons")


def _algorithm(name):
    if name not in EQ8_ALGORITHMS:
        raise ValueError(f"algorithm must be one of {EQ8_ALGORITHMS}, got {name!r}")
    return name


def _unit_gamma(gamma, name="gamma", closed=False):
    gamma = v.real(gamma, name)
    if not (0.0 < gamma < 1.0 or (closed and gamma == 1.0)):
        raise ValueError(f"{name} must lie in (0, 1{']' if closed else ')'}, got {gamma!r}")
    return gamma


# -- pathwise bounds ----------------------------------------------------------------------

def max_eta(predictions, y):
    r"""The largest Newton step for which the pathwise bounds hold on this run:
    :math:`\min_t 1/(2(\hat y_t - y_t)^2)` (``inf`` if every forecast is exact)."""
    p = np.asarray(predictions, dtype=float)
    y = np.asarray(y, dtype=float)
    if p.shape != y.shape or p.ndim != 1:
        raise ValueError("predictions and y must be 1-D of the same length")
    worst = float(np.max((p - y) ** 2)) if p.size else 0.0
    return math.inf if worst == 0.0 else 1.0 / (2.0 * worst)


def kons_regret_bound(alpha, f_norm2, sum_leverage):
    r"""KONS and Sketched-KONS, pathwise: :math:`R_n(f) \le \frac\alpha2\|f\|^2 +
    \frac12\sum_t g_t^\top A_t^{-1} g_t` for every ``f`` with :math:`|f(x_t)| \le C` for
    all ``t``, when the step satisfies :func:`max_eta`.

    ``sum_leverage`` is the learner's ``extras["sum_leverage"]``.
    """
    alpha = v.positive(alpha, "alpha")
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    sum_leverage = v.nonnegative(sum_leverage, "sum_leverage")
    return 0.5 * alpha * f_norm2 + 0.5 * sum_leverage


def _logdet(alpha, eta, L, K, eigenvalues):
    alpha = v.positive(alpha, "alpha")
    eta = v.positive(eta, "eta")
    L = v.positive(L, "L")
    return log_det_term(K, alpha / (eta * L * L), eigenvalues=eigenvalues) / eta


def kons_logdet_bound(alpha, f_norm2, eta, L, K=None, *, eigenvalues=None):
    r"""KONS: :math:`R_n(f) \le \frac\alpha2\|f\|^2 + \frac1{2\eta}\log\det(I + \eta L^2
    K_{nn}/\alpha)`, :math:`L \ge \max_t |\ell_t'(\hat y_t)|` (:math:`2(C + \max|y_t|)`
    for the square loss), under the conditions of :func:`kons_regret_bound`.  With
    :math:`\log\det(I + K/\lambda') \le d_{\mathrm{eff}}(\lambda')\log(e + en\kappa^2/
    \lambda')` (Jezequel, Gaillard & Rudi, Prop. 2) this is the
    :math:`O(d_{\mathrm{eff}}\log n)` of KONS.
    """
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    return 0.5 * v.positive(alpha, "alpha") * f_norm2 + 0.5 * _logdet(alpha, eta, L, K,
                                                                        eigenvalues)


def sketched_kons_expected_bound(alpha, f_norm2, eta, L, beta, gamma, K=None, *,
                                 eigenvalues=None):
    r"""Sketched-KONS in expectation over the draws:
    :math:`E[R_n(f)] \le \frac\alpha2\|f\|^2 + \frac{1 + 1/\beta}{2\gamma\eta}
    \log\det(I + \eta L^2 K_{nn}/\alpha)` (conditions of :func:`kons_regret_bound`; the
    comparison :math:`\tilde A_n \preceq A_n` bounds the sketch's log-determinant).
    Pathwise, :math:`\sum_t g_t^\top\tilde A_t^{-1}g_t` is compared with
    ``extras["log_det"]`` by the same factor in expectation."""
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    beta = v.positive(beta, "beta")
    gamma = _unit_gamma(gamma, closed=True)
    factor = (1.0 + 1.0 / beta) / gamma
    return 0.5 * v.positive(alpha, "alpha") * f_norm2 + 0.5 * factor * _logdet(
        alpha, eta, L, K, eigenvalues)


@dataclass(frozen=True)
class ProsNKONSComparator:
    r"""A comparator ``f`` seen by Pros-N-KONS' epochs.

    Attributes
    ----------
    epoch_norms2 : ndarray
        :math:`\|P_j f\|^2` for each epoch ``j = 0, 1, ...`` (epoch 0: before the first
        point joins, :math:`P_0 = 0`).
    projected_values : ndarray, shape (n,)
        :math:`(P_{j(t)} f)(x_t)`, the comparator of round ``t``'s epoch.
    values : ndarray, shape (n,)
        :math:`f(x_t)`.
    approximation : float
        :math:`\sum_t \ell_t(P_{j(t)} f(x_t)) - \ell_t(f(x_t))`.
    """

    epoch_norms2: np.ndarray
    projected_values: np.ndarray
    values: np.ndarray
    approximation: float


def pros_n_kons_comparator_terms(K, y, coef, restarts):
    r"""Epoch terms of ``f = sum_i coef_i k(x_i, .)`` for Pros-N-KONS.

    Parameters
    ----------
    K : array_like, shape (n, n)
        Kernel matrix of the stream.
    y : array_like, shape (n,)
    coef : array_like, shape (n,)
        ``f``'s coefficients on the stream's points.
    restarts : array_like of int
        0-based rounds at which a point joined (``learner.dictionary_rounds - 1``), in
        increasing order; the dictionary of epoch ``j`` is ``restarts[:j]``, and epoch
        ``j >= 1`` starts at round ``restarts[j - 1]``.
    """
    K = v.kernel_matrix(K)
    n = K.shape[0]
    y = v.labels(y, n)
    a = np.asarray(coef, dtype=float).reshape(-1)
    if a.shape[0] != n or not np.all(np.isfinite(a)):
        raise ValueError(f"coef must hold {n} finite numbers")
    r = np.asarray(restarts, dtype=np.int64).reshape(-1)
    if r.size and (np.any(np.diff(r) <= 0) or r[0] < 0 or r[-1] >= n):
        raise ValueError("restarts must be increasing rounds in [0, n)")
    values = K @ a
    norms = [0.0]
    proj = np.zeros(n)
    bounds = list(r) + [n]
    for j in range(1, r.size + 1):
        D = r[:j]
        KII = K[np.ix_(D, D)]
        b = np.linalg.lstsq(KII, K[D] @ a, rcond=None)[0]      # P_j f = sum_i b_i k(x_D_i, .)
        norms.append(float(b @ KII @ b))
        lo, hi = bounds[j - 1], bounds[j]
        proj[lo:hi] = K[lo:hi][:, D] @ b
    approx = float(np.sum((proj - y) ** 2 - (values - y) ** 2))
    return ProsNKONSComparator(np.array(norms), proj, values, approx)


def pros_n_kons_regret_bound(alpha, comparator, sum_leverage):
    r"""Pros-N-KONS, pathwise: :math:`R_n(f) \le \sum_j \frac\alpha2\|P_j f\|^2 +
    \frac12\sum_t \tilde g_t^\top \tilde A_t^{-1}\tilde g_t + \sum_t(\ell_t(P_{j(t)}f(x_t))
    - \ell_t(f(x_t)))` when :math:`|P_{j(t)} f(x_t)| \le C` and the step satisfies
    :func:`max_eta` (the bound of :func:`kons_regret_bound` in every epoch, restart
    rounds included: they are each epoch's first round, ``w = 0``).  ``comparator`` from
    :func:`pros_n_kons_comparator_terms`; ``sum_leverage`` the learner's extra.  Holds for
    ``variant="paper"``."""
    alpha = v.positive(alpha, "alpha")
    sum_leverage = v.nonnegative(sum_leverage, "sum_leverage")
    return (0.5 * alpha * float(np.sum(comparator.epoch_norms2)) + 0.5 * sum_leverage
            + comparator.approximation)


# -- Jezequel, Gaillard & Rudi: eq. (8) and Table 1 ----------------------------------------

def eq8_regret(algorithm, n, lam, d_eff, m, mu=None):
    r"""Eq. (8) of Jezequel, Gaillard & Rudi, the three regret forms (up to constants and
    logs):

    * PKAWV with KORS: :math:`\lambda + d_{\mathrm{eff}}(\lambda) + nm\mu/\lambda`;
    * Sketched-KONS: :math:`\lambda + (n/m)\, d_{\mathrm{eff}}(\lambda)`;
    * Pros-N-KONS: :math:`m(\lambda + d_{\mathrm{eff}}(\lambda)) + n\mu/\lambda`.

    ``m`` is the dictionary size (sampled gradients for Sketched-KONS), ``mu`` KORS'
    regularization (unused by Sketched-KONS).
    """
    algorithm = _algorithm(algorithm)
    n = v.positive(n, "n")
    lam = v.positive(lam, "lam")
    d_eff = v.nonnegative(d_eff, "d_eff")
    m = v.positive(m, "m")
    if algorithm == "sketched-kons":
        return lam + n / m * d_eff
    mu = v.positive(mu, "mu")
    if algorithm == "pkawv":
        return lam + d_eff + n * m * mu / lam
    return m * (lam + d_eff) + n * mu / lam


def table1_log_powers(algorithm):
    r"""Table 1, first block (:math:`d_{\mathrm{eff}}(\lambda) \le (\log(n/\lambda))^d`,
    e.g. the Gaussian kernel): ``(a, b, c)`` with regret :math:`c' (\log n)^{a d + b}` and
    per-round cost :math:`(\log n)^{c d}` as printed (``c' = c`` for Sketched-KONS, whose
    cost is :math:`(n/c)^2` instead: ``c = None``)."""
    return {"pkawv": (1, 1, 2), "sketched-kons": (1, 1, None),
            "pros-n-kons": (2, 1, 2)}[_algorithm(algorithm)]


def table1_exponents(algorithm, gamma):
    r"""Table 1, second block (:math:`d_{\mathrm{eff}}(\lambda) \le (n/\lambda)^\gamma`,
    :math:`\gamma < \sqrt2 - 1`), as printed: ``(regret, cost)`` exponents of ``n``
    (Sketched-KONS: regret :math:`c\, n^{\gamma/(1+\gamma)}\log n`, cost :math:`(n/c)^2`
    -- its cost exponent is 2, with ``c`` a constant).

    * PKAWV: :math:`\gamma/(\gamma+1)`, :math:`4\gamma/(1-\gamma^2)`;
    * Sketched-KONS: :math:`\gamma/(\gamma+1)`, 2;
    * Pros-N-KONS: :math:`4\gamma/(1+\gamma)^2`, :math:`4\gamma(1-\gamma)/(1+\gamma)^2`.
    """
    g = _unit_gamma(gamma)
    if _algorithm(algorithm) == "pkawv":
        return g / (1 + g), 4 * g / (1 - g * g)
    if algorithm == "sketched-kons":
        return g / (1 + g), 2.0
    return 4 * g / (1 + g) ** 2, 4 * g * (1 - g) / (1 + g) ** 2


@dataclass(frozen=True)
class Eq8Exponents:
    """Exponents of ``n`` from optimizing eq. (8): regret ``n^regret`` at ``m = n^m``,
    ``lambda = n^lam`` (``mu = n m^{-1/gamma}`` for PKAWV and Pros-N-KONS, so that
    ``|I_n| <~ d_eff(mu) <= m``); ``cost = 2 m`` (``O(m^2)`` a round)."""

    regret: float
    m: float
    lam: float
    cost: float


def eq8_exponents(algorithm, gamma, m=None):
    r"""Minimize the regret exponent of eq. (8) under :math:`d_{\mathrm{eff}}(\lambda')
    \le (n/\lambda')^\gamma` over :math:`\lambda = n^b` (and the dictionary exponent ``a``
    of :math:`m = n^a`, ``0 <= a <= 1``, unless ``m`` fixes it), by linear programming
    on the exponents (``scipy.optimize.linprog``).

    Among the optimal choices the smallest ``m`` is returned.  For PKAWV and
    Sketched-KONS this gives Table 1's rates and costs.  For Pros-N-KONS it gives
    :math:`\gamma(3+\gamma)/(1+\gamma)^2` at :math:`m = n^{2\gamma/(1+\gamma)^2}`,
    :math:`\lambda = n^{\gamma/(1+\gamma)}`, smaller than Table 1's
    :math:`4\gamma/(1+\gamma)^2`; Table 1's row is eq. (8) at :math:`\lambda =
    n^{2\gamma/(1+\gamma)}`, :math:`m = n^{2\gamma(1-\gamma)/(1+\gamma)^2}`, where the
    terms :math:`m\lambda` and :math:`n\mu/\lambda` balance (a feasible, not optimal,
    choice).
    """
    algorithm = _algorithm(algorithm)
    g = _unit_gamma(gamma)
    # variables (a, b, r): minimize r subject to r >= each term's exponent
    if algorithm == "pkawv":
        # lam: b; d_eff: g(1-b); n m mu/lam: 1 + a + (1 - a/g) - b
        rows = [(0, 1), (0, -g), (1 - 1 / g, -1)]
        consts = [0.0, g, 2.0]
    elif algorithm == "sketched-kons":
        # lam: b; (n/m) d_eff: 1 - a + g(1 - b)
        rows = [(0, 1), (-1, -g)]
        consts = [0.0, 1 + g]
    else:
        # m lam: a + b; m d_eff: a + g(1-b); n mu / lam: 1 + (1 - a/g) - b
        rows = [(1, 1), (1, -g), (-1 / g, -1)]
        consts = [0.0, g, 2.0]
    A_ub = [[ra, rb, -1.0] for ra, rb in rows]
    b_ub = [-c for c in consts]
    a_bounds = (0.0, 1.0) if m is None else (float(m), float(m))
    res = linprog([0, 0, 1], A_ub=A_ub, b_ub=b_ub, bounds=[a_bounds, (None, None), (None, None)],
                  method="highs")
    if res.status != 0:
        raise ValueError(f"eq. (8) exponents: linear program failed ({res.message})")
    # then the smallest dictionary reaching that regret (the cheapest optimal choice)
    r_star = res.x[2]
    res = linprog([1, 0, 0], A_ub=A_ub + [[0.0, 0.0, 1.0]],
                  b_ub=b_ub + [r_star + 1e-12 * (1.0 + abs(r_star))],
                  bounds=[a_bounds, (None, None), (None, None)], method="highs")
    if res.status != 0:
        raise ValueError(f"eq. (8) exponents: linear program failed ({res.message})")
    a, b, _ = res.x
    return Eq8Exponents(regret=float(r_star), m=float(a), lam=float(b), cost=2.0 * float(a))


# -- per-round cost of the implementations ----------------------------------------------

def round_cost(algorithm, t, m, d):
    r"""Leading flop count of one round of okl's implementation at round ``t`` with a
    dictionary (sketch) of ``m`` points in dimension ``d``.

    * ``"sketched-kons"``: a kernel row over every past input and two triangular solves
      with the sketch's factor: :math:`t(d + 1) + 2m^2`;
    * ``"pros-n-kons"``: a kernel row over the dictionary, the KORS residual and the
      embedding (two triangular solves), :math:`A^{-1}\phi` and its rank-one update:
      :math:`md + 4m^2` (a restart adds :math:`m^2`);
    * ``"pkawv"`` (Nyström, App. H Algorithm 2, a round without a new point):
      :math:`md + 4m^2` (kernel row, KORS residual, triangular solve, rank-one update).
    """
    algorithm = _algorithm(algorithm)
    t = v.nonnegative(t, "t")
    m = v.nonnegative(m, "m")
    d = v.positive(d, "d")
    if algorithm == "sketched-kons":
        return t * (d + 1) + 2 * m * m
    return m * d + 4 * m * m
