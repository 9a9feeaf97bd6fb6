r"""The budgeted baselines of Li & Liao, *Improved Kernel Alignment Regret Bound for Online
Kernel Learning* (AAAI 2023): SkeGD (Zhang & Liao, ICML 2019) and B(AO)2KS
(Liao & Li, ECML-PKDD 2021), as that paper states them.

Its Table 1 ("Regret bound and computational complexity of online kernel learning
algorithms in the regime of the Hinge loss.  :math:`B \le T` is the size of budget"):

* SkeGD: regret :math:`O(\sqrt{TB})`, complexity :math:`O(dB\,\mathrm{poly}(\ln T))`;
* B(AO)2KS: regret :math:`O((\mathcal A_T T\ln T)^{1/4})`, complexity
  :math:`O(d\sqrt{\mathcal A_T T\ln T})`;
* POMDR (budgeted): regret :math:`O(\sqrt{\mathcal A_T} + \sqrt{T\mathcal A_T}/\sqrt B)`,
  complexity :math:`O(dB)`;

and, in "Comparison with Previous Results": B(AO)2KS's bound holds "with high
probability"; with polynomially decaying eigenvalues and :math:`B = \sqrt{T\mathcal A_T}`
POMDR "improves the regret bound of B(AO)2KS by a :math:`O(\ln^{1/4} T)` factor, and
reduces the computational complexity by a :math:`O(\sqrt{\ln T})` factor"; SkeGD's
results "become worse in the case of :math:`B = \Theta(T^\mu)`, :math:`0 < \mu < 1`"
(than OGD's :math:`O(\sqrt T)`); "B(AO)2KS uses the restart technique when the budget
exceeds B".

Functions:

* The rows, as orders: :func:`skegd_regret_bound`, :func:`skegd_complexity`,
  :func:`bao2ks_regret_bound`, :func:`bao2ks_complexity`, and
  :func:`bao2ks_budget` (the number of stored examples behind the complexity row:
  :math:`\sqrt{\mathcal A_T T\ln T}`, each costing :math:`O(d)` a round).  The paper prints
  orders only and neither original paper was available here, so every function takes the
  hidden constant as ``constant`` (default 1) -- values for comparing rates side by side,
  not certified bounds; :func:`skegd_complexity` also takes the power of
  :math:`\mathrm{poly}(\ln T)` (``log_power``, default 1: the paper does not say).
* The paper's comparisons: :func:`pomdr_improvement_over_bao2ks` (the factors
  :math:`\ln^{1/4}T` and :math:`\sqrt{\ln T}` at :math:`B = \sqrt{T\mathcal A_T}`) and
  :func:`skegd_over_ogd` (:math:`T^{\mu/2}` at :math:`B = T^\mu`).
* What the authors' R code guarantees about the memory of each run (the algorithms as
  Table 2 ran them, ``okl.SkeGD`` / ``okl.BAO2KS``): :func:`bao2ks_max_support`
  (``|S| <= B + M + 1``: the restart is tested a round late, after ``x_t`` and up to ``M``
  reservoir copies joined) and :func:`skegd_support` (``B`` support vectors, plus one per
  sketch update: the switch and each refresh).

``tests/theory/test_pomdr_baselines.py`` holds runs of ``okl.SkeGD`` and ``okl.BAO2KS``
to these: the amortized kernel work of a run against the complexity rows at constant 1,
the memory rules exactly, and the growth of the measured regret (against the best hinge
function in a ball, :func:`theory.best_hinge_in_ball`) with ``T`` against the regret rows'
exponents.  ``okl bounds`` reports them beside a run (``okl.experiments.bounds.pomdr``).

Depends only on numpy.
"""
from __future__ import annotations

import math

from . import _validation as v

__all__ = [
    "skegd_regret_bound",
    "skegd_complexity",
    "bao2ks_regret_bound",
    "bao2ks_complexity",
    "bao2ks_budget",
    "pomdr_table1_regret",
    "pomdr_improvement_over_bao2ks",
    "skegd_over_ogd",
    "bao2ks_max_support",
    "skegd_support",
    "rff_error_probability",
    "rff_epsilon",
    "fogd_theorem1_bound",
    "feature_ogd_regret_bound",
]


def _T(T):
    return v.integer(T, "T", 2)


def skegd_regret_bound(T, B, constant=1.0):
    r"""SkeGD's regret, Table 1 of Li & Liao (2023): :math:`O(\sqrt{TB})`; returns
    :math:`C\sqrt{TB}`, ``C = constant`` (an order: the constant is not in the paper).

    Parameters
    ----------
    T : int
        Number of rounds ``>= 2``.
    B : int
        Budget ``1 <= B`` (Table 1: :math:`B \le T`; not enforced, the order is defined).
    constant : float, default 1.0
        :math:`C > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``T < 2``, ``B < 1`` or ``constant`` is not positive.
    """
    T = _T(T)
    B = v.integer(B, "B", 1)
    return v.positive(constant, "constant") * math.sqrt(T * B)


def skegd_complexity(d, B, T, constant=1.0, log_power=1.0):
    r"""SkeGD's per-round computational complexity, Table 1 of Li & Liao (2023):
    :math:`O(dB\,\mathrm{poly}(\ln T))`; returns :math:`C\,d\,B\,(\ln T)^p`.

    Parameters
    ----------
    d : int
        Input dimension ``>= 1`` (the cost of one kernel evaluation).
    B : int
        Budget ``>= 1``.
    T : int
        Number of rounds ``>= 2``.
    constant : float, default 1.0
        :math:`C > 0`.
    log_power : float, default 1.0
        :math:`p \ge 0`, the degree of :math:`\mathrm{poly}(\ln T)` (not in the paper).

    Returns
    -------
    float
    """
    d = v.integer(d, "d", 1)
    B = v.integer(B, "B", 1)
    T = _T(T)
    p = v.nonnegative(log_power, "log_power")
    return v.positive(constant, "constant") * d * B * math.log(T) ** p


def bao2ks_regret_bound(A_T, T, constant=1.0):
    r"""B(AO)2KS's regret, Table 1 of Li & Liao (2023), with high probability:
    :math:`O((\mathcal A_T T\ln T)^{1/4})`; returns :math:`C(\mathcal A_T T\ln T)^{1/4}`.

    Parameters
    ----------
    A_T : float
        Kernel alignment :math:`\mathcal A_T \ge 0` (:func:`theory.kernel_alignment`).
    T : int
        Number of rounds ``>= 2``.
    constant : float, default 1.0

    Returns
    -------
    float
    """
    A_T = v.nonnegative(A_T, "A_T")
    T = _T(T)
    return v.positive(constant, "constant") * (A_T * T * math.log(T)) ** 0.25


def bao2ks_budget(A_T, T, constant=1.0):
    r""":math:`C\sqrt{\mathcal A_T T\ln T}`: the number of stored examples behind
    B(AO)2KS's complexity row (:func:`bao2ks_complexity` divided by ``d``, one kernel
    evaluation of cost :math:`O(d)` per stored example and round).

    Parameters
    ----------
    A_T : float
        Kernel alignment :math:`\ge 0`.
    T : int
        Number of rounds ``>= 2``.
    constant : float, default 1.0

    Returns
    -------
    float
    """
    A_T = v.nonnegative(A_T, "A_T")
    T = _T(T)
    return v.positive(constant, "constant") * math.sqrt(A_T * T * math.log(T))


def bao2ks_complexity(d, A_T, T, constant=1.0):
    r"""B(AO)2KS's per-round computational complexity, Table 1 of Li & Liao (2023):
    :math:`O(d\sqrt{\mathcal A_T T\ln T})`; returns :math:`C\,d\sqrt{\mathcal A_T T\ln T}`.

    Parameters
    ----------
    d : int
        Input dimension ``>= 1``.
    A_T : float
        Kernel alignment :math:`\ge 0`.
    T : int
        Number of rounds ``>= 2``.
    constant : float, default 1.0

    Returns
    -------
    float
    """
    d = v.integer(d, "d", 1)
    return d * bao2ks_budget(A_T, T, constant)


def pomdr_table1_regret(A_T, T, B, constant=1.0):
    r"""POMDR's budgeted row in Table 1 of Li & Liao (2023):
    :math:`O(\sqrt{\mathcal A_T} + \sqrt{T\mathcal A_T}/\sqrt B)`; returns
    :math:`C(\sqrt{\mathcal A_T} + \sqrt{T\mathcal A_T/B})` (for the comparisons; the
    explicit bound is :func:`theory.pomdr.theorem2_bound`).

    Parameters
    ----------
    A_T : float
        Kernel alignment :math:`\ge 0`.
    T : int
        Number of rounds ``>= 2``.
    B : float
        Budget ``> 0`` (a real number: the comparison takes :math:`B = \sqrt{T\mathcal A_T}`).
    constant : float, default 1.0

    Returns
    -------
    float
    """
    A_T = v.nonnegative(A_T, "A_T")
    T = _T(T)
    B = v.positive(B, "B")
    return v.positive(constant, "constant") * (math.sqrt(A_T) + math.sqrt(T * A_T / B))


def pomdr_improvement_over_bao2ks(A_T, T):
    r"""Li & Liao (2023), "Comparison with Previous Results", Case 2: with
    :math:`B = \sqrt{T\mathcal A_T}` POMDR's regret is :math:`O((\mathcal A_T T)^{1/4})`
    at complexity :math:`O(d\sqrt{\mathcal A_T T})`, which "improves the regret bound of
    B(AO)2KS by a :math:`O(\ln^{1/4}T)` factor, and reduces the computational complexity
    by a :math:`O(\sqrt{\ln T})` factor".

    Returns
    -------
    dict
        ``B`` (:math:`\sqrt{T\mathcal A_T}`), ``pomdr_regret`` (the Table 1 row at that
        ``B``, constant 1), ``bao2ks_regret``, ``regret_factor``
        (``bao2ks_regret / (A_T T)^{1/4}`` = :math:`\ln^{1/4}T`), ``pomdr_complexity``
        (:math:`B` per unit of ``d``), ``bao2ks_complexity`` (:func:`bao2ks_budget`) and
        ``complexity_factor`` (their ratio, :math:`\sqrt{\ln T}`).  POMDR's row at that
        ``B`` is :math:`\sqrt{\mathcal A_T} + (T\mathcal A_T)^{1/4}`: of order
        :math:`(\mathcal A_T T)^{1/4}` because :math:`\mathcal A_T \le T` when
        :math:`\kappa \le 1`.

    Raises
    ------
    ValueError
        If ``A_T`` is not positive or ``T < 2``.
    """
    A_T = v.positive(A_T, "A_T")
    T = _T(T)
    B = math.sqrt(T * A_T)
    quarter = (A_T * T) ** 0.25
    bao = bao2ks_regret_bound(A_T, T)
    return {"B": B, "pomdr_regret": pomdr_table1_regret(A_T, T, B),
            "pomdr_order": quarter, "bao2ks_regret": bao, "regret_factor": bao / quarter,
            "pomdr_complexity": B, "bao2ks_complexity": bao2ks_budget(A_T, T),
            "complexity_factor": bao2ks_budget(A_T, T) / B}


def skegd_over_ogd(T, mu):
    r"""Li & Liao (2023): SkeGD's :math:`O(\sqrt{TB})` "become[s] worse in the case of
    :math:`B = \Theta(T^\mu)`, :math:`0 < \mu < 1`" -- than OGD's :math:`O(\sqrt T)`: the
    ratio :math:`\sqrt{T\,T^\mu}/\sqrt T = T^{\mu/2}` (``> 1``, growing with ``T``).

    Parameters
    ----------
    T : int
        Number of rounds ``>= 2``.
    mu : float
        Exponent in ``(0, 1)``.

    Returns
    -------
    float
    """
    T = _T(T)
    mu = v.real(mu, "mu")
    if not 0.0 < mu < 1.0:
        raise ValueError(f"mu must be in (0, 1), got {mu!r}")
    return math.sqrt(T * T ** mu) / math.sqrt(T)


def bao2ks_max_support(B, M):
    r"""The most examples B(AO)2KS stores, as the authors' ``BA2OKS.R`` runs it:
    :math:`B + M + 1`.

    "B(AO)2KS uses the restart technique when the budget exceeds B" (Li & Liao 2023).  The R
    code tests :math:`|S| > B` at the start of a round; the round before can start with
    :math:`|S| = B` and add :math:`x_t` and up to ``M`` reservoir examples, so
    :math:`|S| \le B + M + 1` after any round, and the round after a round that ends with
    :math:`|S| > B` starts from :math:`S = \emptyset`.  (Plus the reservoir itself, ``M``
    examples, stored apart.)

    Parameters
    ----------
    B : int
        Budget ``>= 1``.
    M : int
        Reservoir size ``>= 1``.

    Returns
    -------
    int
    """
    return v.integer(B, "B", 1) + v.integer(M, "M", 1) + 1


def skegd_support(B, updates):
    r"""The support vectors SkeGD stores, as Xiao Zhang's ``SkeGD.R`` runs it:
    :math:`B` + ``updates`` (the switch and each refresh of the sketches appends the
    round's example to ``SV``; the kernel model itself never exceeds ``B``).

    Parameters
    ----------
    B : int
        Budget ``>= 1``.
    updates : int
        Sketch updates ``>= 0`` (``1 + refreshes`` after the switch, 0 before).

    Returns
    -------
    int
    """
    return v.integer(B, "B", 1) + v.integer(updates, "updates", 0)


# -- FOGD and NOGD (Lu, Hoi, Wang, Zhao & Liu, "Large scale online kernel learning", JMLR 17,
#    2016): a baseline in Li & Liao (2023), Liao et al. (2024) and Jezequel et al. (2019) --

def rff_error_probability(eps, D, d, sigma_p, diameter):
    r"""Rahimi & Recht (NIPS 2007), Claim 1, the event FOGD's Theorem 1 (Lu et al. 2016)
    conditions on: with :math:`D` random Fourier frequencies of a shift-invariant kernel
    on a set of diameter :math:`\mathrm{diam}` in :math:`\mathbb R^d`,

    .. math::

        \Pr\Big[\sup_{x, x'}|z(x)^\top z(x') - k(x, x')| \ge \epsilon\Big]
        \le 2^8\Big(\frac{\sigma_p\,\mathrm{diam}}{\epsilon}\Big)^2
        \exp\Big(-\frac{D\epsilon^2}{4(d + 2)}\Big),

    :math:`\sigma_p^2 = \mathbb E_p\|\omega\|^2` (for the Gaussian kernel
    :math:`\exp(-\|x - x'\|^2/(2\sigma^2))`, :math:`\sigma_p^2 = d/\sigma^2`).  Returned
    as is (it may exceed 1: then the event has no guarantee).

    Parameters
    ----------
    eps : float
        :math:`\epsilon > 0`.
    D : int
        Frequencies ``>= 1``.
    d : int
        Input dimension ``>= 1``.
    sigma_p : float
        :math:`\sigma_p > 0`.
    diameter : float
        :math:`\mathrm{diam} \ge 0` of the inputs.

    Returns
    -------
    float
    """
    eps = v.positive(eps, "eps")
    D = v.integer(D, "D", 1)
    d = v.integer(d, "d", 1)
    sigma_p = v.positive(sigma_p, "sigma_p")
    diameter = v.nonnegative(diameter, "diameter")
    return 256.0 * (sigma_p * diameter / eps) ** 2 * math.exp(-D * eps * eps / (4.0 * (d + 2)))


def rff_epsilon(delta, D, d, sigma_p, diameter):
    r"""The smallest :math:`\epsilon` at which :func:`rff_error_probability` is at most
    ``delta`` (it decreases in :math:`\epsilon`; found by bisection on its logarithm).

    Returns 0 for a zero diameter (one point: no error event).

    Parameters
    ----------
    delta : float in (0, 1)
    D, d, sigma_p, diameter
        As in :func:`rff_error_probability`.

    Returns
    -------
    float
    """
    from scipy.optimize import brentq

    delta = v.positive(delta, "delta")
    if delta >= 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if v.nonnegative(diameter, "diameter") == 0.0:
        return 0.0

    def gap(log_eps):
        return math.log(rff_error_probability(math.exp(log_eps), D, d, sigma_p, diameter)) \
            - math.log(delta)

    lo, hi = -30.0, 0.0
    while gap(hi) > 0.0:
        hi += 1.0
    return math.exp(brentq(gap, lo, hi, xtol=1e-12))


def feature_ogd_regret_bound(w_dist2, eta, sum_grad2, *, approx=0.0):
    r"""The two terms of Lu et al. (2016)'s Theorems 1 (FOGD) and 2 (NOGD), pathwise: the
    regret of OGD with a constant step in a finite feature space :math:`z(\cdot)` against
    a fixed weight :math:`w`, plus the price of comparing with a kernel function instead.

    .. math::

        \sum_t \ell_t(w_t^\top z(x_t)) - \sum_t \ell_t(f(x_t)) \le
        \frac{\|w_1 - w\|^2}{2\eta} + \frac\eta2\sum_t\|g_t\|^2 + \mathrm{approx},

    :math:`g_t = \ell'_t z(x_t)` the run's gradients (:math:`\|g_t\|^2 \le L^2\|z(x_t)\|^2`)
    and, for :math:`f = \sum_i\alpha_i k(x_i, \cdot)` compared through
    :math:`w = \sum_i\alpha_i z(x_i)`, :math:`\mathrm{approx} = L\sum_t|f(x_t) -
    w^\top z(x_t)| \le LT\|\alpha\|_1\epsilon` where :math:`\epsilon` bounds
    :math:`|k(x_i, x_t) - z(x_i)^\top z(x_t)|` (the term the theorems control with
    probability :math:`1 - \delta`: random features for FOGD, :func:`rff_epsilon`; the
    Nystrom approximation for NOGD).  The first two terms are Zinkevich's constant-rate
    bound in :math:`\mathbb R^D` (:func:`theory.norma_baselines.ogd_regret_bound`), the
    first step of both proofs; with ``approx = 0`` this is the regret against ``w``
    itself.

    Parameters
    ----------
    w_dist2 : float
        :math:`\|w_1 - w\|^2 \ge 0` (:math:`\|w\|^2` from :math:`w_1 = 0`).
    eta : float
        :math:`\eta > 0`.
    sum_grad2 : float
        :math:`\sum_t\|g_t\|^2 \ge 0`.
    approx : float, default 0
        The approximation term, ``>= 0``.

    Returns
    -------
    float
    """
    w_dist2 = v.nonnegative(w_dist2, "w_dist2")
    eta = v.positive(eta, "eta")
    sum_grad2 = v.nonnegative(sum_grad2, "sum_grad2")
    approx = v.nonnegative(approx, "approx")
    return w_dist2 / (2.0 * eta) + 0.5 * eta * sum_grad2 + approx


def fogd_theorem1_bound(alpha_norm1, eta, T, eps, lipschitz=1.0):
    r"""Lu et al. (JMLR 2016), Theorem 1 (FOGD), in the form its proof gives: with
    probability at least :math:`1 -` :func:`rff_error_probability` (``eps``), for every
    :math:`f = \sum_i\alpha_i k(x_i, \cdot)` with the :math:`x_i` in the data's set,

    .. math::

        \sum_t \ell(f_t(x_t), y_t) - \sum_t\ell(f(x_t), y_t) \le
        \frac{\|\alpha\|_1^2}{2\eta} + \frac{\eta L^2 T}2 + \epsilon L T\|\alpha\|_1,

    the OGD regret in :math:`\mathbb R^{2D}` against :math:`w = \sum_i\alpha_iz(x_i)`
    (:math:`\|w\| \le \|\alpha\|_1` and :math:`\|z(x)\| = 1` for the
    :math:`[\cos, \sin]/\sqrt D` features) plus :math:`L|f(x_t) - w^\top z(x_t)| \le
    L\|\alpha\|_1\epsilon` on the event.  The paper's text was not reachable here: the
    papers reproduced here quote FOGD's bound as the order
    :math:`O(\sqrt T + T/\sqrt B)` (with :math:`\eta \propto 1/\sqrt T` and
    :math:`\epsilon \propto 1/\sqrt D`); this is the
    reconstruction with explicit constants, stated as a bound in probability.

    Parameters
    ----------
    alpha_norm1 : float
        :math:`\|\alpha\|_1 \ge 0`.
    eta : float
        :math:`\eta > 0`.
    T : int
        Rounds ``>= 1``.
    eps : float
        :math:`\epsilon \ge 0`.
    lipschitz : float, default 1
        :math:`L > 0` (1 for the hinge loss).

    Returns
    -------
    float
    """
    a = v.nonnegative(alpha_norm1, "alpha_norm1")
    eta = v.positive(eta, "eta")
    T = v.integer(T, "T", 1)
    eps = v.nonnegative(eps, "eps")
    L = v.positive(lipschitz, "lipschitz")
    return a * a / (2.0 * eta) + 0.5 * eta * L * L * T + eps * L * T * a
