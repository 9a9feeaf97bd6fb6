r"""The bounds of other budgeted algorithms as the Ahpatron paper quotes them: the
Forgetron (eq. (1)), the Randomized Budget Perceptron (eq. (2)), BOGD, and POMDR
(eq. (3)).

Notation: :mod:`theory.ahpatron`.
"""
from __future__ import annotations

import math

from ._checks import NORM_RTOL, _in_ball, _integer, _nonnegative, _positive, _real

__all__ = [
    "forgetron_radius",
    "forgetron_mistake_bound",
    "rbp_max_radius",
    "rbp_expected_mistake_bound",
    "bogd_expected_mistake_bound",
    "pomdr_mistake_bound",
]


def forgetron_radius(B):
    r"""The radius :math:`U = \sqrt{B+1}/(4\sqrt{\ln(B+1)})` under which the
    Forgetron's bound (1) holds (introduction).

    The paper's footnote claims :math:`\sqrt B/4 > U`; this holds iff
    :math:`\ln(B+1) > 1 + 1/B`, i.e. for :math:`B \ge 3` (not for
    :math:`B \in \{1, 2\}`; Theorem 4 needs :math:`B \ge 50` anyway).  The
    radius increases with :math:`B` only from :math:`B = 2` on.

    Parameters
    ----------
    B : int
        Budget ``>= 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``B`` is not an integer ``>= 1``.
    """
    B = _integer(B, "B", 1)
    return math.sqrt(B + 1) / (4.0 * math.sqrt(math.log(B + 1)))


def forgetron_mistake_bound(L, f_norm, B):
    r"""Eq. (1), the Forgetron (Dekel, Shalev-Shwartz & Singer 2005) as quoted:
    :math:`|M_T| \le 4L_T(f) + 2\|f\|^2_{\mathcal H}` for
    :math:`\|f\| \le` :func:`forgetron_radius` ``(B)``.

    The original theorem also restricts the budget (the authors' slides say
    :math:`B \ge 84`); the Ahpatron paper does not quote this and it is not
    checked here.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\| \in [0, \text{forgetron\_radius}(B)]`.
    B : int
        Budget ``>= 1``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``B`` is not an integer ``>= 1`` or ``f_norm`` is
        negative or above the radius.
    """
    L = _nonnegative(L, "L")
    f_norm = _in_ball(f_norm, forgetron_radius(B), "The Forgetron bound (1)")
    return 4.0 * L + 2.0 * f_norm * f_norm


def rbp_max_radius(B, gamma):
    r"""The largest :math:`U` of the RBP bound (2): :math:`\frac{\gamma - 1}{\gamma + 1}\sqrt B`.

    The text prints ":math:`U \le \frac{\gamma-1}{\gamma+1}\sqrt B^2`"; the
    ``2`` is footnote 2's marker (the footnote is about RBP), not a square.

    Parameters
    ----------
    B : int
        Budget ``>= 1``.
    gamma : float
        :math:`\gamma > 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``B`` is not an integer ``>= 1`` or ``gamma <= 1``.
    """
    B = _integer(B, "B", 1)
    gamma = _real(gamma, "gamma")
    if gamma <= 1.0:
        raise ValueError(f"gamma must be > 1 (RBP bound (2)), got {gamma!r}")
    return (gamma - 1.0) / (gamma + 1.0) * math.sqrt(B)


def rbp_expected_mistake_bound(L, U, B, gamma):
    r"""Eq. (2), the Randomized Budget Perceptron (Cesa-Bianchi & Gentile 2006)
    as quoted: :math:`\mathbb E|M_T| \le \gamma L_T(f) + \gamma UB
    + 0.5\gamma U\sqrt B\ln(0.5\gamma B^2)`, for :math:`\|f\| \le U \le`
    :func:`rbp_max_radius`.

    An expected bound; it grows with :math:`B` (the paper's criticism).  The
    introduction defines :math:`\mathbb H` with the Forgetron radius right
    before (2), but (2) carries its own constraint on :math:`U`, used here.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        :math:`0 < U \le \frac{\gamma-1}{\gamma+1}\sqrt B`.
    B : int
        Budget ``>= 1``.
    gamma : float
        :math:`\gamma > 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``B`` is not an integer ``>= 1``, ``gamma <= 1``
        or ``U`` is not in ``(0, rbp_max_radius(B, gamma)]``.
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    U_max = rbp_max_radius(B, gamma)
    if U > U_max * (1.0 + NORM_RTOL):
        raise ValueError(f"U must be <= (gamma - 1)/(gamma + 1) sqrt(B) = {U_max!r} "
                         f"(RBP bound (2)), got {U!r}")
    g = float(gamma)
    return g * L + g * U * B + 0.5 * g * U * math.sqrt(B) * math.log(0.5 * g * B * B)


def bogd_expected_mistake_bound(L, U, T, B, constant=1.0):
    r"""BOGD (Zhao et al. 2012) as quoted in "Comparison with Previous Results":
    :math:`\mathbb E|M_T| = L_T(f) + O(UT/\sqrt B + U\sqrt T)`.

    The paper gives only the order; this returns
    :math:`L_T(f) + C(UT/\sqrt B + U\sqrt T)` with ``C = constant``, for
    side-by-side comparisons of rates, not as a certified bound.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        Radius :math:`U > 0`.
    T : int
        Number of rounds ``>= 1``.
    B : int
        Budget ``>= 1``.
    constant : float, default 1.0
        :math:`C > 0` standing for the hidden constant.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``U``/``constant`` is not positive or
        ``T``/``B`` is not an integer ``>= 1``.
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    T = _integer(T, "T", 1)
    B = _integer(B, "B", 1)
    C = _positive(constant, "constant")
    return L + C * (U * T / math.sqrt(B) + U * math.sqrt(T))


def pomdr_mistake_bound(L, U, A_T, T, B, constant=1.0):
    r"""POMDR (Li & Liao 2023) as quoted in (3):
    :math:`|M_T| = L_T(f) + O(U\sqrt{\mathcal A_T} + \frac U{\sqrt B}\sqrt{\mathcal A_T T})`.

    Returns :math:`L_T(f) + C(U\sqrt{\mathcal A_T} + U\sqrt{\mathcal A_T T/B})`
    with ``C = constant`` (order only, as :func:`bogd_expected_mistake_bound`).
    "Comparison with Previous Results" restates it without the :math:`U` on
    :math:`\sqrt{\mathcal A_T}`, and "Problem Setting" keeps only the
    :math:`U\sqrt{\mathcal A_T T/B}` term; (3) is used.  :math:`\mathcal A_T`
    is :func:`theory.kernel_alignment`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        Radius :math:`U > 0`.
    A_T : float
        Kernel alignment :math:`\mathcal A_T \ge 0`.
    T : int
        Number of rounds ``>= 1``.
    B : int
        Budget ``>= 1``.
    constant : float, default 1.0
        :math:`C > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L``/``A_T`` is negative, ``U``/``constant`` is not positive or
        ``T``/``B`` is not an integer ``>= 1``.
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    A = _nonnegative(A_T, "A_T")
    T = _integer(T, "T", 1)
    B = _integer(B, "B", 1)
    C = _positive(constant, "constant")
    return L + C * (U * math.sqrt(A) + U * math.sqrt(A * T / B))
