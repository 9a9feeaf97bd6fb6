r"""Regret bounds of the expert and bandit updates used by Li & Liao, *Online kernel
selection with computational constraints*: Hedge (LKMBooks, Sec. 3.2,
Theorem 3), MSMW (PFMBooks, Sec. 3.3, Theorem 5 and Remark 2) and OSMD with the
negative entropy (BATBooks, Sec. 4.2, eqs. (10)-(11), Theorem 9).

Notation: ``T`` rounds, ``K`` actions (``K'`` for MSMW), losses ``l_{t,k}``, the
learner's distribution ``p_t``; the regret against action ``k`` is
``Reg_k = sum_t <p_t, l_t> - sum_t l_{t,k}`` (for bandits, in expectation over the
learner's draws, the loss matrix being fixed in advance).

Groups of functions:

* Hedge: :func:`hedge_tuned_eta`, :func:`hedge_regret_bound` (untuned
  ``ln(1/pi_k)/eta + eta T (b-a)^2 / 8``; tuned ``(b-a) sqrt(T ln K / 2)``), and the
  data-dependent :func:`hedge_data_bound`.
* MSMW: :func:`msmw_theorem5_eta`, :func:`msmw_regret_bound` (explicit mirror-descent
  bound for every action and any initial distribution), :func:`msmw_data_bound`
  (its data-dependent form on a run), :func:`msmw_theorem5_rate` (Theorem 5's
  ``g_k sqrt(T ln(K'T))``) and :func:`msmw_theorem5_constant`.
* OSMD: :func:`osmd_bandit_eta`, :func:`osmd_bandit_regret_bound`
  (``ln K/eta + eta K T/2``, ``sqrt(2 T K ln K)`` tuned),
  :func:`osmd_explore_regret_bound` (estimator (10), small-loss form),
  :func:`batbooks_theorem9_eta`, :func:`batbooks_theorem9_bound`.

The paper as read here has no appendix: the MSMW and OSMD bounds with explicit constants are
derived here (each docstring gives the derivation) by the standard online mirror
descent analysis (e.g. Bubeck & Cesa-Bianchi 2012, Thm. 5.5):
``sum_t <l_t, p_t - u> <= D_psi(u, p_1) + sum_t D_psi(p_t, p~_{t+1})`` with
``p~_{t+1} = grad psi^*(grad psi(p_t) - l_t)``.

Depends only on numpy.
"""
from __future__ import annotations

import math

import numpy as np

from . import _validation as v

__all__ = [
    "batbooks_theorem9_bound",
    "batbooks_theorem9_eta",
    "hedge_data_bound",
    "hedge_regret_bound",
    "hedge_tuned_eta",
    "msmw_data_bound",
    "msmw_regret_bound",
    "msmw_scale_prior",
    "msmw_theorem5_constant",
    "msmw_theorem5_eta",
    "msmw_theorem5_rate",
    "osmd_bandit_eta",
    "osmd_bandit_regret_bound",
    "osmd_explore_regret_bound",
]


def _range(loss_range):
    if np.ndim(loss_range) == 0:
        return v.positive(loss_range, "loss_range")
    a, b = loss_range
    a, b = v.real(a, "loss_range[0]"), v.real(b, "loss_range[1]")
    if not b > a:
        raise ValueError(f"loss_range must have a < b, got {loss_range!r}")
    return b - a


def _scales(scales):
    c = np.asarray(scales, dtype=float)
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"scales must be a non-empty vector, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise ValueError("scales must be positive and finite")
    return c


def _prior(prior, K, scales=None):
    if prior is None or (isinstance(prior, str) and prior == "uniform"):
        return np.full(K, 1.0 / K)
    if isinstance(prior, str):
        if prior != "scale" or scales is None:
            raise ValueError(f"prior must be 'uniform', 'scale' (MSMW) or a distribution, "
                             f"got {prior!r}")
        return msmw_scale_prior(scales)
    p = np.asarray(prior, dtype=float)
    if p.ndim != 1 or p.shape[0] != K:
        raise ValueError(f"prior must be a vector of {K} probabilities, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p <= 0) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError("prior must be positive, finite and sum to 1")
    return p


# ----------------------------------------------------------------------------
# Hedge
# ----------------------------------------------------------------------------

def hedge_tuned_eta(T, K, loss_range=1.0):
    """``eta = sqrt(8 ln K / T) / (b - a)``: Theorem 3 of Li & Liao (criterion (6) in
    [0, 1]); Cesa-Bianchi & Lugosi (2006), Thm. 2.2."""
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    return math.sqrt(8.0 * math.log(K) / T) / _range(loss_range)


def hedge_regret_bound(T, K, eta=None, loss_range=1.0, prior_mass=None):
    r"""Regret of exponential weights against any action ``k``, losses in ``[a, b]``.

    Untuned (``eta`` given): :math:`\ln(1/\pi_k)/\eta + \eta T (b-a)^2 / 8` with
    ``pi_k = prior_mass`` (default ``1/K``: ``ln K / eta``); Hoeffding's lemma on
    ``ln sum_j p_j exp(-eta l_j)`` (Cesa-Bianchi & Lugosi 2006, Thm. 2.2).  Tuned
    (``eta=None``, :func:`hedge_tuned_eta`, uniform prior): :math:`(b-a)\sqrt{T\ln K/2}`,
    the bound behind the ``sqrt(T ln K)`` term of Theorem 3 of Li & Liao.
    """
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    width = _range(loss_range)
    if eta is None:
        if prior_mass is not None:
            raise ValueError("the tuned bound assumes the uniform prior; give eta")
        return width * math.sqrt(T * math.log(K) / 2.0)
    eta = v.positive(eta, "eta")
    log_inv = math.log(K) if prior_mass is None else -math.log(v.positive(prior_mass,
                                                                           "prior_mass"))
    return log_inv / eta + eta * T * width ** 2 / 8.0


def hedge_data_bound(eta, probabilities, losses, prior=None):
    r"""Data-dependent Hedge bound on a run, for every action ``k``:

    .. math:: \mathrm{Reg}_k \le \frac{\ln(1/\pi_k)}{\eta} + \sum_t \Big(\langle p_t,
              \ell_t\rangle + \frac1\eta \ln \sum_j p_{t,j} e^{-\eta \ell_{t,j}}\Big)

    (the potential identity ``Reg_k = that - ln(1/p_{T+1,k}) / eta``: exact up to the
    last term).  ``probabilities`` is ``(T, K)`` (``p_t`` of each round), ``losses``
    ``(T, K)``.  Each summand is at most ``eta (b-a)^2 / 8`` (Hoeffding).
    """
    eta = v.positive(eta, "eta")
    P, L = _run_arrays(probabilities, losses)
    pi = _prior(prior, P.shape[1])
    m = (-eta * L).max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(P * np.exp(-eta * L - m), axis=1))
    terms = np.sum(P * L, axis=1) + lse / eta
    return -np.log(pi) / eta + terms.sum()


def _run_arrays(probabilities, losses):
    P = np.asarray(probabilities, dtype=float)
    L = np.asarray(losses, dtype=float)
    if P.ndim != 2 or P.shape != L.shape:
        raise ValueError(f"probabilities and losses must be (T, K) arrays of one shape, got "
                         f"{P.shape} and {L.shape}")
    if not (np.all(np.isfinite(P)) and np.all(np.isfinite(L))):
        raise ValueError("probabilities or losses contain NaN or inf")
    return P, L


# ----------------------------------------------------------------------------
# MSMW
# ----------------------------------------------------------------------------

def msmw_scale_prior(scales):
    """The initial distribution of ``okl.MSMW`` (``prior="scale"``): ``pi_k = c_min/(K' c_k)``
    plus the remaining mass shared by the smallest-scale actions; ``pi_k >= c_min/(K' c_k)``
    and ``sum_j c_j pi_j <= 2 c_min``."""
    c = _scales(scales)
    K = c.shape[0]
    pi = c.min() / (K * c)
    low = c == c.min()
    pi[low] += max(1.0 - pi.sum(), 0.0) / low.sum()
    return pi / pi.sum()


def msmw_theorem5_eta(T, n_actions):
    """Theorem 5 of Li & Liao: ``eta = sqrt(2 ln(K' T) / T)``."""
    T = v.integer(T, "T", 1)
    K = v.integer(n_actions, "n_actions", 1)
    return math.sqrt(2.0 * math.log(K * T) / T)


def _divergence_term(c, pi):
    """``c_k ln(1/pi_k) - c_k + sum_j c_j pi_j`` for every k (= eta D_psi(e_k, pi))."""
    return c * np.log(1.0 / pi) - c + np.dot(c, pi)


def msmw_regret_bound(scales, T, eta, prior="scale", action_losses=None):
    r"""Regret of MSMW against every action ``k`` (losses of action ``k`` in ``[0, c_k]``).

    Derivation (online mirror descent, ``psi(p) = sum_j (c_j/eta)(p_j ln p_j - p_j)``):

    * ``D_psi(e_k, pi) = (c_k ln(1/pi_k) - c_k + sum_j c_j pi_j) / eta =: A_k / eta``;
    * ``D_psi(p_t, p~_{t+1}) = sum_j (c_j/eta) p_{t,j} phi(eta l_{t,j}/c_j)``,
      ``phi(x) = e^{-x} - 1 + x <= x^2/2`` for ``x >= 0``, so with ``0 <= l <= c`` it is
      at most ``(eta/2) <p_t, l_t>``;
    * summing, ``Reg_k <= A_k/eta + (eta/2)(L_k + Reg_k)`` with ``L_k = sum_t l_{t,k}``:

    .. math:: \mathrm{Reg}_k \le \frac{A_k/\eta + \eta L_k / 2}{1 - \eta/2}, \qquad
              \eta < 2,

    with ``L_k <= c_k T`` when ``action_losses`` is not given.  With
    :func:`msmw_scale_prior`, ``A_k <= c_k (ln(K' c_k / c_min) + 1)``: the bound scales
    with ``c_k``, not with ``max_j c_j`` (Remark 2).  Returns the ``(K',)`` vector.
    """
    c = _scales(scales)
    T = v.integer(T, "T", 1)
    eta = v.positive(eta, "eta")
    if eta >= 2.0:
        raise ValueError(f"the bound needs eta < 2, got {eta!r}")
    pi = _prior(prior, c.shape[0], c)
    if action_losses is None:
        Lk = c * T
    else:
        Lk = np.asarray(action_losses, dtype=float)
        if Lk.shape != c.shape or not np.all(np.isfinite(Lk)) or np.any(Lk < 0):
            raise ValueError(f"action_losses must be {c.shape[0]} non-negative finite numbers")
    return (_divergence_term(c, pi) / eta + eta * Lk / 2.0) / (1.0 - eta / 2.0)


def msmw_data_bound(scales, eta, probabilities, losses, prior="scale"):
    r"""The mirror-descent inequality of :func:`msmw_regret_bound` before the last two
    relaxations, on a run (``probabilities``: ``(T, K')`` with ``p_t`` of each round):

    .. math:: \mathrm{Reg}_k \le \frac{A_k}{\eta} + \sum_t \sum_j \frac{c_j}{\eta} p_{t,j}
              \big(e^{-\eta \ell_{t,j}/c_j} - 1 + \eta \ell_{t,j}/c_j\big).

    Valid for any real losses and any ``eta > 0``.  Returns the ``(K',)`` vector.
    """
    c = _scales(scales)
    eta = v.positive(eta, "eta")
    P, L = _run_arrays(probabilities, losses)
    if P.shape[1] != c.shape[0]:
        raise ValueError(f"probabilities have {P.shape[1]} columns for {c.shape[0]} scales")
    x = eta * L / c
    stab = np.sum((c / eta) * P * (np.expm1(-x) + x))
    return _divergence_term(c, _prior(prior, c.shape[0], c)) / eta + stab


def msmw_theorem5_rate(scales, T):
    r"""Theorem 5 of Li & Liao as stated: ``O(g_k sqrt(T ln(K'T)))`` evaluated with
    constant 1, ``g_k = c_k`` (the ``(K',)`` vector).  :func:`msmw_theorem5_constant`
    gives the constant that :func:`msmw_regret_bound` proves."""
    c = _scales(scales)
    T = v.integer(T, "T", 1)
    return c * math.sqrt(T * math.log(c.shape[0] * T))


def msmw_theorem5_constant(T, n_actions):
    r"""``C`` with ``msmw_regret_bound(scales, T, msmw_theorem5_eta(T, K'), "scale") <=
    C * msmw_theorem5_rate(scales, T)`` whenever ``max c / min c <= T``:

    with ``Lambda = ln(K'T)``, ``A_k <= c_k (Lambda + 1)`` and
    ``eta = sqrt(2 Lambda / T)``,
    ``C = (2 + 1/Lambda) / (sqrt(2) (1 - eta/2))`` (about 1.5 for large ``T``).
    """
    eta = msmw_theorem5_eta(T, n_actions)
    if eta >= 2.0:
        raise ValueError(f"Theorem 5's eta = {eta:.3g} >= 2 for T={T}: the bound does not apply")
    lam = math.log(n_actions * T)
    return (2.0 + 1.0 / lam) / (math.sqrt(2.0) * (1.0 - eta / 2.0))


# ----------------------------------------------------------------------------
# OSMD (bandits)
# ----------------------------------------------------------------------------

def osmd_bandit_eta(T, K):
    """``eta = sqrt(2 ln K / (K T))`` (Bubeck & Cesa-Bianchi 2012, Thm. 3.1)."""
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    return math.sqrt(2.0 * math.log(K) / (K * T))


def osmd_bandit_regret_bound(T, K, eta=None):
    r"""Expected regret of OSMD with the negative entropy and the importance-weighted
    estimate (Exp3 in loss form), losses in ``[0, 1]``:

    ``ln K / eta + eta K T / 2`` (``E_t sum_j p_j c~_j^2 = sum_j c_j^2 <= K`` and
    ``e^{-x} <= 1 - x + x^2/2`` for ``x >= 0``); at :func:`osmd_bandit_eta`,
    :math:`\sqrt{2 T K \ln K}` (Bubeck & Cesa-Bianchi 2012, Thm. 3.1).
    """
    T = v.integer(T, "T", 1)
    K = v.integer(K, "K", 1)
    if eta is None:
        return math.sqrt(2.0 * T * K * math.log(K))
    eta = v.positive(eta, "eta")
    return math.log(K) / eta + eta * K * T / 2.0


def osmd_explore_regret_bound(K, eta, best_loss, T=None):
    r"""Expected regret of OSMD (11) with BATBooks' estimator (10) against action ``i``
    with cumulative loss ``L = best_loss`` (losses in ``[0, 1]``).

    With ``q_j = (K-1)/K p_j + 1/K``, ``E_t sum_j p_j c~_j^2 = sum_j p_j c_j^2 / q_j`` and
    ``p_j / q_j <= min(1, K p_j)``, so the stability term is at most
    ``(eta K / 2) <p_t, c_t>`` and also ``eta K / 2``.  Hence

    .. math:: \mathbb E[\mathrm{Reg}_i] \le \frac{\ln K/\eta + \eta K L / 2}{1 - \eta K/2}
              \quad (\eta K < 2), \qquad
              \mathbb E[\mathrm{Reg}_i] \le \frac{\ln K}{\eta} + \frac{\eta K T}{2};

    the smaller of the two is returned (the second only when ``T`` is given).  At
    ``eta = sqrt(2 ln K / (K L)) <= 1/K`` the first is at most ``2 sqrt(2 L K ln K)``,
    Theorem 9 of Li & Liao.
    """
    K = v.integer(K, "K", 1)
    eta = v.positive(eta, "eta")
    L = v.nonnegative(best_loss, "best_loss")
    small = math.inf
    if eta * K < 2.0:
        small = (math.log(K) / eta + eta * K * L / 2.0) / (1.0 - eta * K / 2.0)
    if T is not None:
        T = v.integer(T, "T", 1)
        small = min(small, math.log(K) / eta + eta * K * T / 2.0)
    return small


def batbooks_theorem9_eta(K, best_loss):
    """Theorem 9 of Li & Liao: ``eta = min{sqrt(2 ln K / (K C)), 1/K}`` with ``C`` the best
    (estimated) cumulative loss ``C~_{T,*}``; ``1/K`` when ``C = 0``."""
    K = v.integer(K, "K", 1)
    C = v.nonnegative(best_loss, "best_loss")
    if C == 0.0:
        return 1.0 / K
    return min(math.sqrt(2.0 * math.log(K) / (K * C)), 1.0 / K)


def batbooks_theorem9_bound(K, best_loss):
    r"""Theorem 9 of Li & Liao as stated: :math:`2\sqrt{2\,\mathbb E[L_{T,i}]\,K\ln K}`.

    Reconstruction note: the paper tunes ``eta`` with the random ``C~_{T,*}``; with a
    fixed ``eta = sqrt(2 ln K/(K L))`` the statement follows from
    :func:`osmd_explore_regret_bound` whenever that ``eta <= 1/K`` (i.e.
    ``L >= 2 K ln K``).  When the ``1/K`` branch of the ``min`` is active the proved
    bound is ``2 K ln K + L``, which can exceed the stated one: the statement omits an
    additive ``O(K ln K)`` term.
    """
    K = v.integer(K, "K", 1)
    L = v.nonnegative(best_loss, "best_loss")
    return 2.0 * math.sqrt(2.0 * L * K * math.log(K))
