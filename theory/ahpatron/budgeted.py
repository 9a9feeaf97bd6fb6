r"""Ahpatron itself, the budgeted algorithm (Algorithm 2): its removals (Lemma 1), its
parameters and mistake bounds under the budget ``B`` (Theorem 4, eqs. (4) and (10);
eq. (11) and Theorem 6 with its worked example).

Notation: :mod:`theory.ahpatron`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._checks import (LAM_RTOL, NORM_RTOL, _check_flag, _even_budget, _in_ball, _integer,
                      _nonnegative, _open_unit, _positive, _real, _vector)

__all__ = [
    "ahpatron_removal_count",
    "ahpatron_lemma1_bound",
    "AhpatronParameters",
    "ahpatron_theorem4_parameters",
    "ahpatron_theorem4_conditions",
    "AhpatronTheorem4Bound",
    "ahpatron_theorem4_bound",
    "ahpatron_zeta",
    "ahpatron_theorem6_parameters",
    "ahpatron_theorem6_conditions",
    "ahpatron_theorem6_delta",
    "AhpatronTheorem6Bound",
    "ahpatron_theorem6_bound",
]

#: Theorem 4's fixed shrinking level c_t.
THEOREM4_C = 0.6


# -- Ahpatron: Lemma 1 ---------------------------------------------------------------------

def ahpatron_removal_count(n_updates, B):
    r"""Exact number of removal (halving) operations of Ahpatron (Algorithm 2).

    Every update (a round of :math:`M'_T \cup N_T`) adds one example; an update
    that finds :math:`|S_t| = B` first halves :math:`S_t` to :math:`B/2` and
    then adds, leaving :math:`B/2 + 1`.  So the first removal happens at update
    :math:`B + 1` and every later one :math:`B/2` updates after the previous:

    .. math::

        |\mathcal J| = 0 \ (n \le B), \qquad
        |\mathcal J| = 1 + \Big\lfloor \frac{n - B - 1}{B/2} \Big\rfloor \ (n > B),

    with :math:`n = |M'_T| + |N_T|`.  Always :math:`\le` Lemma 1's
    :func:`ahpatron_lemma1_bound` (by at least :math:`2/B` when :math:`n > B`).

    Parameters
    ----------
    n_updates : int
        :math:`n = |M'_T| + |N_T| \ge 0` (at most ``T``).
    B : int
        Even budget ``>= 2``.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``n_updates`` is not an integer ``>= 0`` or ``B`` is not an even
        integer ``>= 2``.
    """
    n = _integer(n_updates, "n_updates", 0)
    B = _even_budget(B)
    if n <= B:
        return 0
    return 1 + (n - B - 1) // (B // 2)


def ahpatron_lemma1_bound(n_updates, B):
    r"""Lemma 1: Ahpatron removes at most
    :math:`\max\{2(|M'_T| + |N_T|)/B - 1, 0\}` times.

    Since :math:`|M'_T| + |N_T| \le T`, also at most :math:`\max\{2T/B - 1, 0\}`
    (pass ``n_updates=T``).  The exact count is :func:`ahpatron_removal_count`.

    Parameters
    ----------
    n_updates : int
        :math:`|M'_T| + |N_T| \ge 0` (or ``T``).
    B : int
        Even budget ``>= 2``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``n_updates`` is not an integer ``>= 0`` or ``B`` is not an even
        integer ``>= 2``.
    """
    n = _integer(n_updates, "n_updates", 0)
    B = _even_budget(B)
    return max(2.0 * n / B - 1.0, 0.0)


# -- Ahpatron: parameters --------------------------------------------------------------------

@dataclass(frozen=True)
class AhpatronParameters:
    r"""Parameters of Ahpatron (Algorithm 2) prescribed by Theorem 4 or 6.

    Attributes
    ----------
    B : int
        Budget.
    U : float
        Radius of :math:`\mathbb H` used.
    U_max : float
        Largest radius the theorem allows (:math:`\sqrt B/4` for Theorem 4,
        :math:`(1-\gamma)\sqrt B/(1/4 + 9\zeta/2)` for Theorem 6).
    lam : float
        Learning rate :math:`\lambda`.
    c : float or None
        Shrinking level :math:`c_t` of (7): 0.6 (Theorem 4), or ``None`` for
        Theorem 6's :math:`c_t = \|f_t\|_{\mathcal H}/U` (the projection (7)
        keeps the norm of :math:`f_t`).
    eps_low, eps_high : float
        :math:`\varepsilon` must lie in the open interval ``(eps_low, eps_high)``.
    """

    B: int
    U: float
    U_max: float
    lam: float
    c: float | None
    eps_low: float
    eps_high: float


def _theorem4_values(B, U):
    s = U / math.sqrt(B)
    return s, math.sqrt(B) / 4.0, math.sqrt(2.0) * s, 3.0 * s


def ahpatron_theorem4_parameters(B, U=None):
    r"""Theorem 4's setting: :math:`c_t = 0.6`, :math:`\lambda = \sqrt2 U/\sqrt B`,
    :math:`B \ge 50`, :math:`U \le \sqrt B/4`, :math:`3U/\sqrt B < \varepsilon < 1`.

    Parameters
    ----------
    B : int
        Even budget ``>= 50``.
    U : float, optional
        Radius in ``(0, sqrt(B)/4]``; default :math:`\sqrt B/4`, the choice of
        (10) ("resolving the open problem"), where the slack range is
        :math:`(3/4, 1)` and :math:`\lambda = 1/(2\sqrt2)`.

    Returns
    -------
    AhpatronParameters

    Raises
    ------
    ValueError
        If ``B`` is not an even integer ``>= 50`` or ``U`` is not in ``(0, sqrt(B)/4]``.
    """
    B = _even_budget(B)
    if B < 50:
        raise ValueError(f"B must be >= 50 (Theorem 4), got {B!r}")
    U_max = math.sqrt(B) / 4.0
    U = U_max if U is None else _positive(U, "U")
    if U > U_max * (1.0 + NORM_RTOL):
        raise ValueError(f"U must be <= sqrt(B)/4 = {U_max!r} (Theorem 4), got {U!r}")
    U = min(U, U_max)
    s, _, lam, a = _theorem4_values(B, U)
    return AhpatronParameters(B=B, U=U, U_max=U_max, lam=lam, c=THEOREM4_C,
                              eps_low=a, eps_high=1.0)


def ahpatron_theorem4_conditions(B, U, lam, eps, c=THEOREM4_C, *, raise_on_failure=False):
    r"""Which of Theorem 4's conditions fail.

    The conditions: ``B`` even (implicit: Algorithm 2 keeps :math:`B/2`
    examples), :math:`B \ge 50`, :math:`U \le \sqrt B/4`,
    :math:`\lambda = \sqrt2 U/\sqrt B`, :math:`3U/\sqrt B < \varepsilon < 1`,
    :math:`c_t = 0.6`.

    Parameters
    ----------
    B : int
        Budget, an integer ``>= 1``.
    U : float
        Radius :math:`U > 0`.
    lam : float
        Learning rate :math:`\lambda > 0`.
    eps : float
        Slack :math:`\varepsilon`.
    c : float, default 0.6
        Shrinking level :math:`c_t \in (0, 1]`.
    raise_on_failure : bool, default False
        Raise a ValueError listing the failed conditions instead of returning them.

    Returns
    -------
    tuple of str
        One message per failed condition (each names the arguments); empty
        when all hold.

    Raises
    ------
    ValueError
        If an argument is malformed (``B`` not an integer ``>= 1``, ``U`` or
        ``lam`` not positive, ``eps`` not finite, ``c`` not in ``(0, 1]``), or a
        condition fails and ``raise_on_failure`` is true.
    """
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    lam = _positive(lam, "lam")
    eps = _real(eps, "eps")
    c = _positive(c, "c")
    if c > 1.0:
        raise ValueError(f"c must lie in (0, 1], got {c!r}")
    raise_on_failure = _check_flag(raise_on_failure, "raise_on_failure")
    s, U_max, lam_star, a = _theorem4_values(B, U)
    fails = []
    if B % 2:
        fails.append(f"B must be even (Algorithm 2 keeps B/2 examples), got B={B}")
    if B < 50:
        fails.append(f"B >= 50 fails: B={B}")
    if U > U_max * (1.0 + NORM_RTOL):
        fails.append(f"U <= sqrt(B)/4 fails: U={U!r}, sqrt(B)/4={U_max!r}")
    if abs(lam - lam_star) > LAM_RTOL * lam_star:
        fails.append(f"lam = sqrt(2) U / sqrt(B) fails: lam={lam!r}, "
                     f"sqrt(2) U / sqrt(B)={lam_star!r}")
    if not eps > a:
        fails.append(f"3 U / sqrt(B) < eps fails: eps={eps!r}, 3 U / sqrt(B)={a!r}")
    if not eps < 1.0:
        fails.append(f"eps < 1 fails: eps={eps!r}")
    if abs(c - THEOREM4_C) > 1e-12:
        fails.append(f"c = 0.6 fails: c={c!r}")
    if fails and raise_on_failure:
        raise ValueError("Theorem 4 conditions fail: " + "; ".join(fails))
    return tuple(fails)


@dataclass(frozen=True)
class AhpatronTheorem4Bound:
    r"""Theorem 4's bound and its parts.

    Attributes
    ----------
    bound : float
        :math:`L_T(f) + \max\{\text{bar}, \text{under}\}`, i.e.
        ``max(bound_bar, bound_under)``.
    bound_bar : float
        :math:`L_T(f) + \frac{12U}{\sqrt B}L_T(f) + \overline\Delta`.
    bound_under : float
        :math:`L_T(f) + \frac{0.9U}{\sqrt B}L_T(f) + \frac{\sqrt B}{2U}\|f\|^2 + \underline\Delta`.
    delta_bar : float
        :math:`\overline\Delta = \frac{3U/\sqrt B - \varepsilon}{1 - 3U/\sqrt B}|N_T| \le 0`.
    delta_under : float
        :math:`\underline\Delta = \frac{U/\sqrt{2B} - \varepsilon}{1 - U/\sqrt{2B}}|N_T| \le 0`.
    bound_eq4 : float
        The looser "Main Results" form (4), :math:`L_T(f) + \Delta_T +
        \max\{\frac{12U}{\sqrt B}L_T(f), \frac{0.9U}{\sqrt B}L_T(f) + \frac{\sqrt B}{2U}\|f\|^2\}`
        with :math:`\Delta_T = \max\{\overline\Delta, \underline\Delta\}` (the
        paper leaves :math:`\Delta_T` of (4) undefined; this choice makes (4)
        follow from Theorem 4).  ``bound <= bound_eq4``.
    """

    bound: float
    bound_bar: float
    bound_under: float
    delta_bar: float
    delta_under: float
    bound_eq4: float


def ahpatron_theorem4_bound(L, f_norm, n_margin, B, U, eps):
    r"""Theorem 4: Ahpatron's mistake bound for :math:`f \in \mathbb H`.

    .. math::

        |M_T| \le L_T(f) + \max\Big\{\frac{12U}{\sqrt B}L_T(f) + \overline\Delta,\
        \frac{0.9U}{\sqrt B}L_T(f) + \frac{\sqrt B}{2U}\|f\|^2_{\mathcal H}
        + \underline\Delta\Big\},

    run with :func:`ahpatron_theorem4_parameters` (:math:`c_t = 0.6`,
    :math:`\lambda = \sqrt2U/\sqrt B`).  At :math:`U = \sqrt B/4` it is (10):
    :math:`\max\{4L + \overline\Delta, 1.225L + 2\|f\|^2 + \underline\Delta\}`;
    the paper prints :math:`1.3L` (1.225 rounded up, still a valid bound);
    this function returns the exact 1.225.

    How the branches read (the proof is not in the paper as read here): the second branch is
    at least Theorem 3's bound for AVP with the same :math:`\lambda`,
    :math:`\varepsilon` and no removal (:func:`avp_constant_rate_bound`):
    :math:`(\lambda/2)/(1-\lambda/2) \le 0.86\,U/\sqrt B` and
    :math:`1/(2\lambda(1-\lambda/2)) \le 0.43\sqrt B/U` when
    :math:`U \le \sqrt B/4`; in the first, each update costs
    :math:`a = 3U/\sqrt B` and :math:`a/(1-a) \le 4a = 12U/\sqrt B`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \in [0, U]`.
    n_margin : int
        :math:`|N_T| \ge 0`.
    B : int
        Even budget ``>= 50``.
    U : float
        :math:`0 < U \le \sqrt B/4`.
    eps : float
        :math:`3U/\sqrt B < \varepsilon < 1`.

    Returns
    -------
    AhpatronTheorem4Bound

    Raises
    ------
    ValueError
        If an argument is malformed, ``f_norm > U``, or a condition of
        :func:`ahpatron_theorem4_conditions` fails (the message lists them).
    """
    L = _nonnegative(L, "L")
    n = _integer(n_margin, "n_margin", 0)
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    s, _, lam, a_bar = _theorem4_values(B, U)
    ahpatron_theorem4_conditions(B, U, lam, eps, raise_on_failure=True)
    eps = float(eps)
    f_norm = _in_ball(f_norm, U, "Theorem 4")
    a_under = lam / 2.0                                   # = U / sqrt(2B)
    delta_bar = (a_bar - eps) / (1.0 - a_bar) * n
    delta_under = (a_under - eps) / (1.0 - a_under) * n
    F2 = f_norm * f_norm
    bar = 12.0 * s * L
    under = 0.9 * s * L + F2 / (2.0 * s)
    bound_bar = L + bar + delta_bar
    bound_under = L + under + delta_under
    return AhpatronTheorem4Bound(
        bound=max(bound_bar, bound_under),
        bound_bar=bound_bar,
        bound_under=bound_under,
        delta_bar=delta_bar,
        delta_under=delta_under,
        bound_eq4=L + max(delta_bar, delta_under) + max(bar, under),
    )


# -- Ahpatron: eq. (11) and Theorem 6 ----------------------------------------------------------

def _theorem6_k(zeta):
    return 0.25 + 4.5 * zeta


def _zeta(zeta):
    zeta = _real(zeta, "zeta")
    if not 0.0 < zeta <= 2.0:
        raise ValueError(f"zeta must lie in (0, 2] (eq. (11)), got {zeta!r}")
    return zeta


def ahpatron_zeta(distances, U):
    r"""Smallest :math:`\zeta` satisfying (11) on a measured run.

    (11) reads :math:`\frac{U+\lambda}{\lambda}\sum_{t \in \mathcal J}\|f_t - \bar f_t\|
    \le \frac{U+\lambda}{\lambda}\zeta U|\mathcal J|`; the factor cancels, so the
    smallest :math:`\zeta` is the mean of :math:`\|f_t - \bar f_t\|_{\mathcal H}/U`
    over the removal rounds :math:`\mathcal J`.

    Parameters
    ----------
    distances : array_like, shape ``(|J|,)``
        :math:`\|f_t - \bar f_t\|_{\mathcal H} \ge 0` at each removal round
        (may be empty).
    U : float
        Radius :math:`U > 0`.

    Returns
    -------
    float
        The mean ratio; 0.0 if there was no removal, in which case (11) holds
        for every :math:`\zeta \in (0, 2]`.  With :math:`c_t = \|f_t\|/U` it is
        at most 2 up to round-off (:math:`\|f_t - \bar f_t\| \le 2\|f_t\| \le 2U`).

    Raises
    ------
    ValueError
        If ``distances`` is not 1-D, not finite or has a negative entry, or
        ``U`` is not positive.
    """
    d = _vector(distances, "distances")
    U = _positive(U, "U")
    if d.size and np.min(d) < 0.0:
        raise ValueError("distances must be >= 0")
    return float(d.mean() / U) if d.size else 0.0


def ahpatron_theorem6_parameters(B, zeta, gamma, U=None):
    r"""Theorem 6's setting: :math:`c_t = \|f_t\|/U`, :math:`B \ge 16`,
    :math:`\lambda = U/(2\sqrt B)`, :math:`U \le (1-\gamma)\sqrt B/(\frac14 + \frac92\zeta)`,
    :math:`(\frac14 + \frac{9\zeta}2)\frac U{\sqrt B} < \varepsilon < 1`.

    The worked example after Theorem 6: :math:`\zeta = 1/16`, :math:`\gamma = 2/3`
    and :math:`U` at its maximum give :math:`U = \sqrt B/1.59375 \ge \sqrt B/1.6`
    and the slack range :math:`(1/3, 1)`.  The experiments' :math:`U = \sqrt B/2`,
    :math:`\lambda = U/\sqrt{4B}` fit this only when
    :math:`\frac14 + \frac92\zeta \le 2(1-\gamma)`, i.e. :math:`\zeta < 7/18`
    (and :math:`\varepsilon = 0.5` needs :math:`\zeta < 1/6`).

    Parameters
    ----------
    B : int
        Even budget ``>= 16``.
    zeta : float
        :math:`\zeta \in (0, 2]` of (11).
    gamma : float
        :math:`\gamma \in (0, 1)`.
    U : float, optional
        Radius in ``(0, U_max]``; default ``U_max``.

    Returns
    -------
    AhpatronParameters
        With ``c=None`` (:math:`c_t = \|f_t\|/U`).

    Raises
    ------
    ValueError
        If ``B`` is not an even integer ``>= 16``, ``zeta`` is not in ``(0, 2]``,
        ``gamma`` is not in ``(0, 1)`` or ``U`` is not in ``(0, U_max]``.
    """
    B = _even_budget(B)
    if B < 16:
        raise ValueError(f"B must be >= 16 (Theorem 6), got {B!r}")
    zeta = _zeta(zeta)
    gamma = _open_unit(gamma, "gamma")
    k = _theorem6_k(zeta)
    U_max = (1.0 - gamma) * math.sqrt(B) / k
    U = U_max if U is None else _positive(U, "U")
    if U > U_max * (1.0 + NORM_RTOL):
        raise ValueError(f"U must be <= (1 - gamma) sqrt(B) / (1/4 + 9 zeta / 2) = "
                         f"{U_max!r} (Theorem 6), got {U!r}")
    U = min(U, U_max)
    s = U / math.sqrt(B)
    return AhpatronParameters(B=B, U=U, U_max=U_max, lam=s / 2.0, c=None,
                              eps_low=k * s, eps_high=1.0)


def ahpatron_theorem6_conditions(B, U, lam, eps, zeta, gamma, *, raise_on_failure=False):
    r"""Which of Theorem 6's conditions fail.

    The conditions: ``B`` even (implicit), :math:`B \ge 16`,
    :math:`\lambda = U/(2\sqrt B)`,
    :math:`U \le (1-\gamma)\sqrt B/(\frac14 + \frac92\zeta)`,
    :math:`(\frac14 + \frac{9\zeta}2)\frac U{\sqrt B} < \varepsilon < 1`.
    The remaining hypotheses -- :math:`c_t = \|f_t\|/U` and (11) with this
    :math:`\zeta` -- concern the run (see :func:`ahpatron_zeta`).

    Parameters
    ----------
    B : int
        Budget, an integer ``>= 1``.
    U : float
        Radius :math:`U > 0`.
    lam : float
        Learning rate :math:`\lambda > 0`.
    eps : float
        Slack :math:`\varepsilon`.
    zeta : float
        :math:`\zeta \in (0, 2]`.
    gamma : float
        :math:`\gamma \in (0, 1)`.
    raise_on_failure : bool, default False
        Raise a ValueError listing the failed conditions instead of returning them.

    Returns
    -------
    tuple of str
        One message per failed condition; empty when all hold.

    Raises
    ------
    ValueError
        If an argument is malformed, or a condition fails and
        ``raise_on_failure`` is true.
    """
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    lam = _positive(lam, "lam")
    eps = _real(eps, "eps")
    zeta = _zeta(zeta)
    gamma = _open_unit(gamma, "gamma")
    raise_on_failure = _check_flag(raise_on_failure, "raise_on_failure")
    k = _theorem6_k(zeta)
    s = U / math.sqrt(B)
    U_max = (1.0 - gamma) * math.sqrt(B) / k
    lam_star = s / 2.0
    a = k * s
    fails = []
    if B % 2:
        fails.append(f"B must be even (Algorithm 2 keeps B/2 examples), got B={B}")
    if B < 16:
        fails.append(f"B >= 16 fails: B={B}")
    if abs(lam - lam_star) > LAM_RTOL * lam_star:
        fails.append(f"lam = U / (2 sqrt(B)) fails: lam={lam!r}, U / (2 sqrt(B))={lam_star!r}")
    if U > U_max * (1.0 + NORM_RTOL):
        fails.append(f"U <= (1 - gamma) sqrt(B) / (1/4 + 9 zeta / 2) fails: U={U!r}, "
                     f"bound={U_max!r}")
    if not eps > a:
        fails.append(f"(1/4 + 9 zeta / 2) U / sqrt(B) < eps fails: eps={eps!r}, "
                     f"(1/4 + 9 zeta / 2) U / sqrt(B)={a!r}")
    if not eps < 1.0:
        fails.append(f"eps < 1 fails: eps={eps!r}")
    if fails and raise_on_failure:
        raise ValueError("Theorem 6 conditions fail: " + "; ".join(fails))
    return tuple(fails)


def ahpatron_theorem6_delta(n_margin, B, U, zeta, eps):
    r"""Theorem 6's :math:`\Delta_T(\zeta) = \frac{|N_T|}{1 - a}(a - \varepsilon) \le 0`,
    :math:`a = (\frac14 + \frac{9\zeta}2)\frac U{\sqrt B}`.

    Parameters
    ----------
    n_margin : int
        :math:`|N_T| \ge 0`.
    B : int
        Budget, an integer ``>= 1``.
    U : float
        Radius :math:`U > 0` with :math:`a < 1`.
    zeta : float
        :math:`\zeta \in (0, 2]`.
    eps : float
        :math:`a < \varepsilon < 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``n_margin`` is not an integer ``>= 0``, ``B`` not an integer
        ``>= 1``, ``U`` not positive, ``zeta`` not in ``(0, 2]``, ``a >= 1``
        (``U`` too large) or ``eps`` not in ``(a, 1)``.
    """
    n = _integer(n_margin, "n_margin", 0)
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    zeta = _zeta(zeta)
    eps = _real(eps, "eps")
    a = _theorem6_k(zeta) * U / math.sqrt(B)
    if a >= 1.0:
        raise ValueError(f"U must make (1/4 + 9 zeta / 2) U / sqrt(B) < 1, got {a!r}")
    if not a < eps < 1.0:
        raise ValueError(f"eps must lie in ((1/4 + 9 zeta / 2) U / sqrt(B), 1) = ({a!r}, 1), "
                         f"got {eps!r}")
    return n * (a - eps) / (1.0 - a)


@dataclass(frozen=True)
class AhpatronTheorem6Bound:
    r"""Theorem 6's bound
    :math:`\text{coef\_L}\,L_T(f) + \text{coef\_f}\,\|f\|^2 + \Delta_T(\zeta)`.

    Attributes
    ----------
    bound : float
    coef_L : float
        :math:`1 + a/\gamma`.
    coef_f : float
        :math:`(1 - 2\zeta)\sqrt B/(\gamma U)` (``form="paper"``) or
        :math:`\sqrt B/(\gamma U)` (``form="safe"``).
    delta : float
        :math:`\Delta_T(\zeta)`.
    a : float
        :math:`(\frac14 + \frac{9\zeta}2)\frac U{\sqrt B}`, the cost per update.
    """

    bound: float
    coef_L: float
    coef_f: float
    delta: float
    a: float


def ahpatron_theorem6_bound(L, f_norm, n_margin, B, U, zeta, gamma, eps, form="paper"):
    r"""Theorem 6 (algorithm-dependent mistake bound of Ahpatron), for :math:`f \in \mathbb H`:

    .. math::

        |M_T| \le L_T(f) + \frac1\gamma\Big(\frac14 + \frac{9\zeta}2\Big)\frac U{\sqrt B}L_T(f)
        + \frac{1 - 2\zeta}{\gamma}\frac{\|f\|^2_{\mathcal H}\sqrt B}{U} + \Delta_T(\zeta).

    Worked example after the theorem: :math:`\zeta \le 1/16`, :math:`\gamma = 2/3`,
    :math:`U = U_{\max}` give :math:`|M_T| \le \frac32 L_T(f) + 2.1\|f\|^2 + \Delta_T(\zeta)`
    (exactly :math:`\text{coef\_f} = 4.5(1-2\zeta)(\frac14 + \frac{9\zeta}2)`,
    increasing in :math:`\zeta` up to :math:`2.0918` at :math:`\zeta = 1/16`).

    The factor :math:`1 - 2\zeta` is a gap in the statement: it is
    :math:`\le 0` for :math:`\zeta \ge 1/2`, and the printed bound then fails.
    Counterexample: two orthogonal points with opposite labels and a large
    ``B``; there is no removal, so (11) holds for every :math:`\zeta`;
    :math:`f_1 = 0` and :math:`f_2 = \lambda y_1\kappa(x_1,\cdot)` vanish at
    :math:`x_2`, so :math:`|M_T| \ge 1` whatever :math:`\mathrm{sign}(0)` is;
    :math:`f = y_1\kappa(x_1,\cdot) + y_2\kappa(x_2,\cdot)` has
    :math:`L_T(f) = 0`, and with :math:`|N_T| = 0` the printed right side is
    :math:`\le 0`.  Reconstructing the proof from (11) and Lemma 1: a
    removal round costs at most :math:`\frac{U+\lambda}\lambda\|f_t - \bar f_t\|`
    in units of :math:`\delta_t/(2\lambda)` (as :math:`\|\bar f_t\| = \|f_t\|`,
    :math:`\|\bar f_t - f\|^2 - \|f_t - f\|^2 = 2\langle f_t - \bar f_t, f\rangle
    \le 2U\|f_t - \bar f_t\|`, and
    :math:`|(f_t - \bar f_t)(x_t)| \le \|f_t - \bar f_t\|`); with :math:`|\mathcal J| \le 2n/B`,
    :math:`U/\lambda = 2\sqrt B` and :math:`B \ge 16` this is
    :math:`\frac92\zeta\frac U{\sqrt B}` per update, giving
    :math:`(1-a)|M'_T| \le L_T(f) + \|f\|^2\sqrt B/U + (a - \varepsilon)|N_T|`
    and then ``form="safe"`` (coefficient 1 instead of :math:`1 - 2\zeta`).
    Keeping Lemma 1's :math:`-1` subtracts
    :math:`(1 + 2\sqrt B)\zeta U \ge 2\zeta\|f\|^2\sqrt B/U`, which is exactly
    the printed :math:`-2\zeta` -- but this needs :math:`|M'_T| + |N_T| \ge B/2`
    (else Lemma 1's max is 0) and dividing the then negative term by
    :math:`1 - a \ge \gamma` is only valid for :math:`\zeta \le 1/2`.
    ``form="paper"`` (the default) returns the printed expression; use
    ``form="safe"`` for short runs or :math:`\zeta > 1/2`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \in [0, U]`.
    n_margin : int
        :math:`|N_T| \ge 0`.
    B : int
        Even budget ``>= 16``.
    U : float
        :math:`0 < U \le (1-\gamma)\sqrt B/(\frac14 + \frac92\zeta)`.
    zeta : float
        :math:`\zeta \in (0, 2]` satisfying (11) (e.g. :func:`ahpatron_zeta`
        of the run, or any larger value).
    gamma : float
        :math:`\gamma \in (0, 1)`.
    eps : float
        :math:`a < \varepsilon < 1`.
    form : {"paper", "safe"}, default "paper"

    Returns
    -------
    AhpatronTheorem6Bound

    Raises
    ------
    ValueError
        If an argument is malformed, ``f_norm > U``, ``form`` is unknown, or a
        condition of :func:`ahpatron_theorem6_conditions` fails (the message
        lists them).
    """
    if form not in ("paper", "safe"):
        raise ValueError(f"form must be 'paper' or 'safe', got {form!r}")
    L = _nonnegative(L, "L")
    n = _integer(n_margin, "n_margin", 0)
    B = _integer(B, "B", 1)
    U = _positive(U, "U")
    s = U / math.sqrt(B)
    ahpatron_theorem6_conditions(B, U, s / 2.0, eps, zeta, gamma, raise_on_failure=True)
    zeta, gamma, eps = float(zeta), float(gamma), float(eps)
    f_norm = _in_ball(f_norm, U, "Theorem 6")
    a = _theorem6_k(zeta) * s
    delta = n * (a - eps) / (1.0 - a)
    coef_L = 1.0 + a / gamma
    coef_f = (1.0 - 2.0 * zeta if form == "paper" else 1.0) / (gamma * s)
    return AhpatronTheorem6Bound(bound=coef_L * L + coef_f * f_norm * f_norm + delta,
                                 coef_L=coef_L, coef_f=coef_f, delta=delta, a=a)
