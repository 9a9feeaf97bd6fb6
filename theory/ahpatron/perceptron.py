r"""The kernel Perceptron's mistake bounds that the Ahpatron paper starts from: its
Theorem 1 (Dekel, Shalev-Shwartz & Singer 2005) and Theorem 2 (Shalev-Shwartz 2007).

Notation: :mod:`theory.ahpatron`.
"""
from __future__ import annotations

import math

from ._checks import _nonnegative, _positive

__all__ = ["perceptron_theorem1_bound", "perceptron_theorem2_bound"]


def perceptron_theorem1_bound(L, f_norm, kappa_max=1.0):
    r"""Theorem 1 (Dekel, Shalev-Shwartz & Singer 2005): Perceptron mistakes
    :math:`|M_T| \le 2L_T(f) + \|f\|_{\mathcal H}^2` for any :math:`f \in \mathcal H`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`, the cumulative hinge loss of the comparator.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \ge 0`.
    kappa_max : float, default 1.0
        :math:`X^2 = \max_t \kappa(x_t, x_t) > 0`.  The paper states the bound
        for :math:`\kappa \le 1`.  The kernel Perceptron's predictions do not
        change when :math:`\kappa` is scaled, and :math:`\kappa / X^2` has the
        same functions with :math:`\|f\|^2_{\kappa/X^2} = X^2\|f\|^2_\kappa`, so
        the bound is :math:`2L_T(f) + X^2\|f\|^2` (tighter than the printed
        one when :math:`X^2 < 1`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` or ``f_norm`` is negative or ``kappa_max`` is not positive.
    """
    L = _nonnegative(L, "L")
    f_norm = _nonnegative(f_norm, "f_norm")
    X2 = _positive(kappa_max, "kappa_max")
    return 2.0 * L + X2 * f_norm * f_norm


def perceptron_theorem2_bound(L, f_norm, kappa_max=1.0):
    r"""Theorem 2 (Shalev-Shwartz 2007): Perceptron mistakes
    :math:`|M_T| \le L_T(f) + \|f\|_{\mathcal H}\sqrt{L_T(f)} + \|f\|_{\mathcal H}^2`.

    With :math:`X^2 = \max_t \kappa(x_t, x_t)` (same scaling argument as
    :func:`perceptron_theorem1_bound`):
    :math:`L + X\|f\|\sqrt L + X^2\|f\|^2`.  The paper's remark holds exactly:
    Theorem 1's bound minus Theorem 2's is :math:`\sqrt L(\sqrt L - X\|f\|)`,
    so Theorem 1 is the better one iff :math:`L_T(f) \le X^2\|f\|^2`.

    Parameters
    ----------
    L, f_norm, kappa_max
        As in :func:`perceptron_theorem1_bound`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` or ``f_norm`` is negative or ``kappa_max`` is not positive.
    """
    L = _nonnegative(L, "L")
    f_norm = _nonnegative(f_norm, "f_norm")
    X = math.sqrt(_positive(kappa_max, "kappa_max"))
    return L + X * f_norm * math.sqrt(L) + (X * f_norm) ** 2
