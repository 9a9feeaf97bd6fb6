r"""The budgeted baselines of Li & Liao, *Improved Kernel Alignment Regret Bound for Online
Kernel Learning* (AAAI 2023, seed 000): SkeGD (Zhang & Liao, ICML 2019) and B(AO)2KS
(Liao & Li, ECML-PKDD 2021), as seed 000 states them.

Seed 000, Table 1 ("Regret bound and computational complexity of online kernel learning
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
  :math:`\sqrt{\mathcal A_T T\ln T}`, each costing :math:`O(d)` a round).  The seed prints
  orders only and neither original paper was available here, so every function takes the
  hidden constant as ``constant`` (default 1) -- values for comparing rates side by side,
  not certified bounds; :func:`skegd_complexity` also takes the power of
  :math:`\mathrm{poly}(\ln T)` (``log_power``, default 1: the seed does not say).
* The seed's comparisons: :func:`pomdr_improvement_over_bao2ks` (the factors
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
]


def _T(T):
    return v.integer(T, "T", 2)


def skegd_regret_bound(T, B, constant=1.0):
    r"""SkeGD's regret, seed 000 Table 1: :math:`O(\sqrt{TB})`; returns
    :math:`C\sqrt{TB}`, ``C = constant`` (an order: the constant is not in the seed).

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
    r"""SkeGD's per-round computational complexity, seed 000 Table 1:
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
        :math:`p \ge 0`, the degree of :math:`\mathrm{poly}(\ln T)` (not given by the seed).

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
    r"""B(AO)2KS's regret, seed 000 Table 1 (with high probability):
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
    r"""B(AO)2KS's per-round computational complexity, seed 000 Table 1:
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
    r"""POMDR's budgeted row of seed 000 Table 1:
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
    r"""Seed 000, "Comparison with Previous Results", Case 2: with
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
    r"""Seed 000: SkeGD's :math:`O(\sqrt{TB})` "become[s] worse in the case of
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

    "B(AO)2KS uses the restart technique when the budget exceeds B" (seed 000).  The R code
    tests :math:`|S| > B` at the start of a round; the round before can start with
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
