r"""The baselines of Li & Liao, *Online kernel selection with computational constraints*
(Sec. 5, Tables 3-7): what the paper says about their memory, their time and
their regret, and the bounds of their combination steps that can be held to runs.

The paper states about them:

* **Budgets (Table 3; Secs. 3.2, 5.2).**  "BOKS and BOMKR do not share the memory and
  maintain K different sets of support vectors"; BOMKR's "available budget for
  constructing ``{f_{t,i}}`` is ``B_0/K``"; "LKMBooks, PFMBooks and BOMKR-V can share the
  support vectors, whose available budget is ``B_0``, ``d B_0/(d + K')`` and ``d B_0/(d +
  K)``"; OMKC_{D,D} "``B = d B_0/(d + K)``" over ``K`` sets; "the space complexity of ISKA
  is ``O(Bd + K)``.  Thus ``B = B_0``"; BOKS "allocates the available budget ``B_0`` to K
  hypotheses"; space ``O(dB + KB + K)`` (BOMKR-V) and ``O(KBd)`` (BOMKR).  The body of
  Table 3 is not in the paper as read: :func:`paper_available_budget` is that table's third
  row as the text states it (``B_0`` is the example budget of the single-kernel baseline);
  :func:`space_quanta` / :func:`available_budget` are the same accounting in okl's quanta
  (one float64 per quantum, ``okl.learners.budget_kinds``), which the learners use.
* **The cost of not sharing (Sec. 3.2).**  "An intuitive approach is to allocate the
  memory budget to the K base kernels.  According to the lower bound (2), such an approach
  will increase the regret by a factor of order ``O(sqrt(K))``": Theorem 1's lower bound at
  the per-kernel budget ``B/K`` (:func:`separate_sets_lower_bound`,
  :func:`sharing_factor`).  This is a worst-case statement (an adversary's sequence), so
  it is evaluated beside runs, not held to them.
* **Time (Sec. 4.1).**  "The online multi-kernel learning algorithms in (Hoi et al. 2013;
  Sahoo et al. 2014) and the online kernel selection algorithm in (Yang et al. 2012)
  randomly update a hypothesis for reducing time complexity": a round of OKS/BOKS
  evaluates one kernel against one set, BOMKR every kernel against its own set (``d + 1``
  per stored entry), BOMKR-V and ISKA share one distance row (``d + K`` per stored
  vector): :func:`round_time_quanta`.
* **Regret.**  "BOKMR did not provide a regret bound"; for ISKA "the regret bounds of ISKA
  does not reveal the superiority" (no formula is given).  Neither is restated here.

What *can* be held to a run is the regret of each baseline's **combination step** against
its own best kernel hypothesis sequence (not against a fixed ``f`` in ``H_i``):

* :func:`exponential_weights_regret_bound` -- BOMKR and BOMKR-V predict ``sum_i p_{t,i}
  f_{t,i}(x_t)`` with ``p_{t+1,i} ∝ p_{t,i} beta^{e_{t,i}}``, ``e_{t,i} = |f_{t,i}(x_t) -
  y_t|``.  By convexity of the absolute loss and the exponentially weighted average
  forecaster's analysis with Hoeffding's lemma applied round by round (Cesa-Bianchi &
  Lugosi 2006, Theorem 2.2, whose proof allows per-round ranges): ``sum_t |f_t(x_t) -
  y_t| - sum_t e_{t,i} <= ln(K)/eta + (eta/8) sum_t R_t^2`` for every ``i``, with ``eta =
  ln(1/beta)`` and ``R_t = max_j e_{t,j} - min_j e_{t,j}``.  Deterministic: it holds on
  every run.
* :func:`importance_weighted_regret_bound` -- OKS and BOKS draw ``I_t ~ q_t``, ``q_t =
  (1 - delta) p_t + delta/K``, and update ``p_{t+1} ∝ exp(-eta L_{t+1})`` with
  ``L_{t+1,i} = L_{t,i} + e_{t,i} 1[I_t = i] / q_{t,i}``.  The exponential-weights
  analysis with ``exp(-x) <= 1 - x + x^2/2`` (``x >= 0``) on the importance-weighted
  losses (Auer et al. 2002's Exp3 argument), and ``E[p_j ehat_j^2 | past] = p_j
  e_j^2/q_j <= e_j^2/(1 - delta)``, give for every ``i``:
  ``E sum_t e_{t,I_t} - E sum_t e_{t,i} <= (1 - delta)(ln(K)/eta + eta/(2(1 - delta)) E
  sum_t sum_j e_{t,j}^2) + delta E sum_t (mean_j e_{t,j} - e_{t,i})``, where ``e_{t,j}``
  is the loss kernel ``j``'s hypothesis *would* have had on round ``t`` (the mistake
  indicator for classification, the absolute loss for regression).  An expectation over
  the draws: a run is one draw.

Depends only on numpy.
"""
from __future__ import annotations

import math

import numpy as np

from . import _validation as v
from .selection import memory_lower_bound

__all__ = [
    "ALGORITHMS",
    "space_quanta",
    "available_budget",
    "paper_available_budget",
    "paper_space_order",
    "round_time_quanta",
    "separate_sets_lower_bound",
    "sharing_factor",
    "exponential_weights_regret_bound",
    "importance_weighted_regret_bound",
    "omkc_mistake_bound",
    "nu_trick_update_bounds",
]

#: The algorithms of :func:`space_quanta`: single-kernel baselines, okl's LKMBooks and the
#: baselines that keep ``K`` separate sets (BOKS, BOMKR, OMKC) or share one (BOMKR-V, ISKA).
ALGORITHMS = ("NORMA", "BOGD", "LKMBooks", "BOKS", "OMKC", "BOMKR", "BOMKR-V", "ISKA")
_SEPARATE = ("BOKS", "OMKC", "BOMKR")


def _name(algorithm):
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, got {algorithm!r}")
    return algorithm


def _dims(d, K):
    return v.integer(d, "d", 1), v.integer(K, "K", 1)


def _per_example_and_fixed(algorithm, d, K, q):
    """``(quanta per stored entry, fixed quanta)`` of ``algorithm`` (okl's accounting)."""
    if algorithm in ("NORMA", "BOGD"):
        return d + 1, 0
    if algorithm in ("LKMBooks", "BOKS", "OMKC"):
        return d + 1, K           # vector + one coefficient; K weights (or losses)
    if algorithm == "BOMKR":
        return d + 1, 2 * K       # vector + coefficient per entry; p and epsilon
    if algorithm == "BOMKR-V":
        return d + K, K           # vector + K coefficients; p
    return d + 1, (4 + q) * K     # ISKA: block sums, C and its window of q


def space_quanta(algorithm, B, d, K, q=3):
    r"""Memory in quanta (float64s) of ``algorithm`` holding ``B`` stored entries.

    ``B`` counts entries over all sets for the learners with ``K`` separate sets (BOKS,
    OMKC, BOMKR: an example stored by two kernels counts twice), vectors of the shared set
    otherwise.  Per entry: ``d + 1`` (vector and coefficient), ``d + K`` for BOMKR-V (``K``
    coefficients per shared vector); fixed: ``K`` (weights or cumulative losses), ``2K``
    for BOMKR (``p`` and ``epsilon``), ``(4 + q) K`` for ISKA (three block sums, ``C`` and
    its window of ``q``), 0 for a single-kernel learner.  The accounting of the learners'
    ``extras["max_memory"]``.
    """
    a = _name(algorithm)
    d, K = _dims(d, K)
    B = v.integer(B, "B", 0)
    per, fixed = _per_example_and_fixed(a, d, K, v.integer(q, "q", 1))
    return float(B * per + fixed)


def available_budget(algorithm, quanta, d, K, q=3):
    r"""The example budget a memory budget of ``quanta`` buys ``algorithm`` (the inverse of
    :func:`space_quanta`, floored): the learners' ``memory_budget=`` rule.  For BOMKR it is
    the total ``K floor(B/K)`` of ``K`` per-kernel budgets ``floor(B/K)``."""
    a = _name(algorithm)
    d, K = _dims(d, K)
    quanta = v.positive(quanta, "quanta")
    per, fixed = _per_example_and_fixed(a, d, K, v.integer(q, "q", 1))
    B = max(0, math.floor((quanta - fixed) / per + 1e-9))
    if a == "BOMKR":
        B = K * (B // K)
    return int(B)


def paper_available_budget(algorithm, B0, d, K, K_prime=None):
    r"""Table 3's third row as the paper's text states it: the example budget of each
    algorithm given the single-kernel baseline's ``B_0``.

    NORMA / BOGD ``B_0``; LKMBooks ``B_0``; PFMBooks ``d B_0/(d + K')``; BOMKR-V and OMKC
    ``d B_0/(d + K)``; BOKS ``B_0`` over its ``K`` sets; BOMKR ``B_0 / K`` per kernel
    (returned per kernel); ISKA ``B_0``.  Real numbers (the paper does not round).
    """
    d, K = _dims(d, K)
    B0 = v.positive(B0, "B0")
    if algorithm == "PFMBooks":
        Kp = v.integer(K if K_prime is None else K_prime, "K_prime", 1)
        return d * B0 / (d + Kp)
    a = _name(algorithm)
    if a in ("BOMKR-V", "OMKC"):
        return d * B0 / (d + K)
    if a == "BOMKR":
        return B0 / K
    return B0


def paper_space_order(algorithm, B, d, K):
    r"""The space complexities the text prints (orders, constant 1): LKMBooks ``dB + K``,
    BOMKR-V ``dB + KB + K``, BOMKR ``KBd`` (``B`` per kernel), OMKC ``B(d + K)``, ISKA
    ``Bd + K``, a single-kernel learner ``dB``."""
    a = _name(algorithm)
    d, K = _dims(d, K)
    B = v.nonnegative(B, "B")
    return float({"NORMA": d * B, "BOGD": d * B, "LKMBooks": d * B + K,
                  "BOKS": d * B + K, "OMKC": B * (d + K), "BOMKR": K * B * d,
                  "BOMKR-V": d * B + K * B + K, "ISKA": d * B + K}[a])


def round_time_quanta(algorithm, sizes, d, K, update=False):
    r"""Multiplications of one round (Sec. 4.1's accounting, ``okl.learners.budget_kinds``).

    ``sizes`` are the sizes of the sets a round touches: OKS/BOKS (``"BOKS"``) the drawn
    kernel's set only, ``(d + 1) |S_{I_t}|``; BOMKR and OMKC every set, ``(d + 1) sum_i
    |S_i|``; BOMKR-V the shared set, ``(d + K) |S|``; ISKA ``(d + 1) |S|`` for a prediction
    and ``(d + K) |S|`` on a round that updates the block sums (``update=True``); the
    ``K`` fixed weight operations of the multi-kernel learners are added.
    """
    a = _name(algorithm)
    d, K = _dims(d, K)
    n = np.asarray(sizes, dtype=float)
    if n.ndim > 1 or np.any(n < 0) or not np.all(np.isfinite(n)):
        raise ValueError("sizes must be a scalar or a vector of non-negative set sizes")
    n = float(n.sum())
    if a in ("NORMA", "BOGD"):
        return (d + 1) * n
    if a == "BOMKR-V" or (a == "ISKA" and update):
        return (d + K) * n + K
    return (d + 1) * n + K


def separate_sets_lower_bound(T, B, K, f_norm, L=1.0):
    r"""Theorem 1's lower bound (2) for a learner that allocates its example budget ``B``
    over ``K`` separate sets, i.e. runs each kernel with ``B/K``: ``||f*|| L sqrt(T)`` if
    ``T <= B/K``, else ``||f*|| L T / sqrt(B/K)`` (constant 1, as
    :func:`theory.selection.memory_lower_bound`)."""
    K = v.integer(K, "K", 1)
    return memory_lower_bound(T, v.positive(B, "B") / K, f_norm, L)


def sharing_factor(T, B, K):
    r"""How much larger Theorem 1's lower bound is at the per-kernel budget ``B/K`` than at
    the shared ``B``: ``sqrt(K)`` once ``T >= B`` (the paper: "will increase the regret by a
    factor of order ``O(sqrt(K))``"), ``sqrt(T K / B)`` for ``B/K <= T < B`` and 1 for
    ``T <= B/K``."""
    return separate_sets_lower_bound(T, B, K, 1.0) / memory_lower_bound(T, B, 1.0)


def _loss_matrix(losses):
    e = np.asarray(losses, dtype=float)
    if e.ndim != 2 or e.shape[0] == 0 or e.shape[1] == 0:
        raise ValueError("losses must be a non-empty (T, K) matrix")
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError("losses must be finite and non-negative")
    return e


def exponential_weights_regret_bound(losses, eta):
    r"""``ln(K)/eta + (eta/8) sum_t (max_j e_{t,j} - min_j e_{t,j})^2``: the bound on
    ``sum_t <p_t, e_t> - min_i sum_t e_{t,i}`` of exponential weights ``p_{t+1} ∝ p_t
    exp(-eta e_t)`` from ``p_1`` uniform (Cesa-Bianchi & Lugosi 2006, Thm. 2.2, Hoeffding's
    lemma round by round).  For BOMKR / BOMKR-V ``eta = ln(1/beta)`` and, by convexity of
    the absolute loss, it bounds ``sum_t |f_t(x_t) - y_t| - sum_t e_{t,i}`` for every ``i``.

    ``losses`` is the ``(T, K)`` matrix of ``e_{t,i} >= 0``.
    """
    e = _loss_matrix(losses)
    eta = v.positive(eta, "eta")
    R = e.max(axis=1) - e.min(axis=1)
    return math.log(e.shape[1]) / eta + eta / 8.0 * float(np.sum(R * R))


def importance_weighted_regret_bound(losses, eta, delta, i):
    r"""The expected-regret bound of OKS / BOKS's kernel sampling against kernel ``i``
    (see the module docstring): ``(1 - delta)(ln(K)/eta + eta/(2(1 - delta)) sum_t sum_j
    e_{t,j}^2) + delta sum_t (mean_j e_{t,j} - e_{t,i})``.

    ``losses`` is the ``(T, K)`` matrix of the losses ``e_{t,j}`` every kernel's hypothesis
    would have had (one draw of them); the bound is on ``E sum_t e_{t,I_t} - E sum_t
    e_{t,i}``.  ``eta > 0``, ``delta`` in [0, 1).
    """
    e = _loss_matrix(losses)
    eta = v.positive(eta, "eta")
    delta = v.real(delta, "delta")
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    K = e.shape[1]
    i = v.integer(i, "i", 0)
    if i >= K:
        raise ValueError(f"i must be < K = {K}, got {i}")
    explore = float(np.sum(e.mean(axis=1) - e[:, i]))
    return ((1.0 - delta) * (math.log(K) / eta + eta / (2.0 * (1.0 - delta)) * float(np.sum(e * e)))
            + delta * explore)


def omkc_mistake_bound(kernel_mistakes, beta, *, form="exact"):
    r"""Mistakes of OMKC_{D,D} (Hoi, Jin, Zhao & Yang, *Online multiple kernel
    classification*, Machine Learning 90, 2013; deterministic updating and combination)
    against every kernel's own classifier on the same run:

    .. math::

        M \le \frac{\ln(1/\beta)\,M_i + \ln K}{\ln\frac{2}{1+\beta}}
        \quad\text{(``form="exact"``)}, \qquad
        M \le \frac{2}{1-\beta}\Big(\ln(1/\beta)\,M_i + \ln K\Big)
        \quad\text{(``form="relaxed"``)},

    for every kernel :math:`i`, with :math:`M_i = \sum_t z_{t,i}`,
    :math:`z_{t,i} = I(y_tf_{t,i}(x_t) \le 0)` the rounds on which kernel :math:`i`'s own
    Perceptron erred, and :math:`M` the rounds with :math:`y_t\sum_i q_{t,i}
    \mathrm{sgn}(f_{t,i}(x_t)) \le 0`.  The weighted-majority argument (Littlestone &
    Warmuth 1994) that Hoi et al.'s bound for the deterministic combination rests on: on
    a mistake the kernels with :math:`z_{t,i} = 1` hold at least half the weight, so
    :math:`W_{t+1} \le W_t(1+\beta)/2`; :math:`W_{T+1} \ge \beta^{M_i}` and
    :math:`W_1 = K`.  ``"relaxed"`` uses :math:`\ln\frac2{1+\beta} \ge \frac{1-\beta}2`,
    the form with :math:`1 - \beta` in which such bounds are usually printed (the paper's
    text was not reachable here: both are derived, and the exact one is the tighter).

    Parameters
    ----------
    kernel_mistakes : array_like of int, shape (K,)
        :math:`M_i \ge 0` for each kernel.
    beta : float in (0, 1)
        The discount of the weights.
    form : {"exact", "relaxed"}

    Returns
    -------
    float
        The bound at the best kernel (:math:`\min_i M_i`).
    """
    m = np.asarray(kernel_mistakes, dtype=float)
    if m.ndim != 1 or m.size == 0 or not np.all(np.isfinite(m)) or np.any(m < 0):
        raise ValueError("kernel_mistakes must be a non-empty 1-D array of counts >= 0")
    beta = v.positive(beta, "beta")
    if beta >= 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}")
    top = math.log(1.0 / beta) * float(m.min()) + math.log(m.size)
    if form == "exact":
        return top / math.log(2.0 / (1.0 + beta))
    if form == "relaxed":
        return 2.0 * top / (1.0 - beta)
    raise ValueError(f"form must be 'exact' or 'relaxed', got {form!r}")


def nu_trick_update_bounds(T, nu, eta, epsilon, Y, B, D=1.0):
    r"""How many of ``T`` rounds update under the nu-trick of Kivinen, Smola & Williamson
    (IEEE TSP 2004, Sec. III-C, update (22)): both sides of their remark that "only a
    fraction :math:`\nu` of the observations will be considered for updates".

    With :math:`\epsilon_1 = \epsilon \ge 0`, (22) moves the tube's width by
    :math:`\epsilon_{t+1} - \epsilon_t = \eta(u_t - \nu)`, :math:`u_t = 1` on a round
    with :math:`|f_t(x_t) - y_t| > \epsilon_t` (an update) and 0 otherwise, so the
    updates number exactly

    .. math:: U_T = \nu T + (\epsilon_{T+1} - \epsilon_1) / \eta.

    A width below 0 forces an update (:math:`|\delta_t| \ge 0 > \epsilon_t`), so
    :math:`\epsilon_t \ge -\nu\eta` for every :math:`t`; a width above
    :math:`Y + B\eta D` forbids one when :math:`|y_t| \le Y`, every coefficient is at
    most :math:`\eta` in absolute value (they only decay) and at most :math:`B` are held
    with :math:`|k| \le D`, so :math:`\epsilon_t \le \max(\epsilon_1, Y + B\eta D) +
    (1 - \nu)\eta`.  Hence

    .. math::

        T - U_T \le (1 - \nu)T + \nu + \epsilon_1/\eta, \qquad
        U_T \le \nu T + \frac{\max(\epsilon_1, Y + B\eta D) - \epsilon_1}{\eta}
                + 1 - \nu.

    These are derived here from (22) (the paper states the fraction in words, with no
    bound); they hold for NORMA with the nu-epsilon-insensitive loss and for its budgeted
    variant with a replacement pointer (the selection paper's NORMA baseline, okl's
    ``NORMAReplace``), whose stored coefficients are the same :math:`\pm\eta` decaying.

    Parameters
    ----------
    T : int >= 0
        Rounds.
    nu : float in [0, 1]
    eta : float > 0
        The (constant) step.
    epsilon : float >= 0
        :math:`\epsilon_1`.
    Y : float >= 0
        :math:`\max_t |y_t|`.
    B : int >= 1
        The most coefficients held at once.
    D : float > 0
        :math:`\sup |k(x, v)|` (1 for the Gaussian and Laplacian kernels).

    Returns
    -------
    (float, float)
        The bound on the rounds without an update, and the bound on the updates.
    """
    T = v.integer(T, "T", 0)
    nu = v.nonnegative(nu, "nu")
    if nu > 1.0:
        raise ValueError(f"nu must be in [0, 1], got {nu!r}")
    eta = v.positive(eta, "eta")
    epsilon = v.nonnegative(epsilon, "epsilon")
    Y = v.nonnegative(Y, "Y")
    B = v.integer(B, "B", 1)
    D = v.positive(D, "D")
    quiet = (1.0 - nu) * T + nu + epsilon / eta
    updates = nu * T + (max(epsilon, Y + B * eta * D) - epsilon) / eta + 1.0 - nu
    return float(quiet), float(updates)

