r"""The comparator of the Ahpatron paper's bounds, the best hinge loss in the ball
:math:`\mathbb H`, and Theorem 5: the kernel alignment bounds it from above.

Notation: :mod:`theory.ahpatron`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validation as v
from ..alignment import kernel_alignment
from ..comparators import best_hinge_in_ball
from ._checks import _check_flag, _positive

__all__ = ["comparator_hinge_loss", "Theorem5Check", "ahpatron_check_theorem5"]


def comparator_hinge_loss(K, y, U, *, return_norm=False, **solver):
    r""":math:`L_T(f^*) = \min_{\|f\|_{\mathcal H} \le U} \sum_t \max(0, 1 - y_t f(x_t))`,
    the comparator of every bound here with :math:`f \in \mathbb H`.

    Wraps :func:`theory.best_hinge_in_ball`.  The returned loss is the loss of
    the returned (feasible) function, so it is at least the minimum (within the
    solver's certified ``gap``), and every bound of this module, valid for each
    :math:`f \in \mathbb H`, holds with it.

    Parameters
    ----------
    K : array_like, shape (T, T)
        PSD kernel matrix.
    y : array_like, shape (T,)
        Labels in {-1, +1}.
    U : float
        Radius :math:`U > 0`.
    return_norm : bool, default False
        Also return :math:`\|f^*\|_{\mathcal H}`, clipped to ``U`` (it can exceed
        ``U`` by round-off).
    **solver
        ``tol``, ``rank_rtol``, ``max_iter`` of :func:`theory.best_hinge_in_ball`.

    Returns
    -------
    float or (float, float)
        The loss, or ``(loss, norm)``.

    Raises
    ------
    ValueError
        As :func:`theory.best_hinge_in_ball`, or if ``return_norm`` is not a bool.
    """
    return_norm = _check_flag(return_norm, "return_norm")
    res = best_hinge_in_ball(K, y, U, **solver)
    if return_norm:
        return res.loss, min(res.norm, res.U)
    return res.loss


@dataclass(frozen=True)
class Theorem5Check:
    r"""Both sides of Theorem 5, :math:`\mathcal A_T \ge \min_{f \in \mathbb H} L_T(f)`.

    Attributes
    ----------
    alignment : float
        :math:`\mathcal A_T = \sum_t\kappa(x_t,x_t) - \frac1T Y^\top KY`.
    min_loss : float
        :func:`comparator_hinge_loss` (loss of a feasible :math:`f`).
    lower_bound : float
        Certified lower bound on the minimum (dual value).
    gap : float
        ``min_loss - lower_bound``.
    witness_loss : float
        :math:`L_T(f_Y)` of :math:`f_Y = \frac1T\sum_t y_t\kappa(x_t,\cdot)`;
        equals :math:`\mathcal A_T` when :math:`\kappa(x, x) = 1`.
    witness_norm : float
        :math:`\|f_Y\| = \sqrt{Y^\top KY}/T \le 1 \le U`.
    holds : bool
        ``min_loss <= alignment`` up to ``1e-9 * max(1, alignment)``.
    """

    alignment: float
    min_loss: float
    lower_bound: float
    gap: float
    witness_loss: float
    witness_norm: float
    holds: bool


def ahpatron_check_theorem5(K, y, U, **solver):
    r"""Evaluate both sides of Theorem 5: if :math:`\kappa(x, x) = 1` and
    :math:`U \ge 1`, then :math:`\mathcal A_T \ge \min_{\|f\| \le U} L_T(f)`.

    Left side: :func:`theory.kernel_alignment`; right side:
    :func:`comparator_hinge_loss`.  Proof (reconstructed; the appendix is not
    in the paper as read here): :math:`f_Y = \frac1T\sum_t y_t\kappa(x_t, \cdot)` has
    :math:`\|f_Y\|^2 = Y^\top KY/T^2 \le 1` (:math:`|K_{st}| \le 1`), and
    :math:`|y_tf_Y(x_t)| \le 1`, so every hinge term is active and
    :math:`L_T(f_Y) = T - Y^\top KY/T = \mathcal A_T`.  The consequence
    :math:`\min L_T = O(\sqrt{\mathcal A_T T})` follows from
    :math:`\mathcal A_T \le T`.

    Parameters
    ----------
    K : array_like, shape (T, T)
        PSD kernel matrix with unit diagonal (e.g. a Gaussian kernel).
    y : array_like, shape (T,)
        Labels in {-1, +1}.
    U : float
        :math:`U \ge 1`.
    **solver
        Passed to :func:`theory.best_hinge_in_ball`.

    Returns
    -------
    Theorem5Check

    Raises
    ------
    ValueError
        If ``K`` or ``y`` is invalid, the diagonal of ``K`` is not 1 (to
        ``1e-10``), or ``U < 1``.
    """
    K = v.kernel_matrix(K)
    T = K.shape[0]
    y = v.labels(y, T, binary=True)
    U = _positive(U, "U")
    if U < 1.0:
        raise ValueError(f"U must be >= 1 (Theorem 5), got {U!r}")
    if np.max(np.abs(np.diag(K) - 1.0)) > 1e-10:
        raise ValueError("K must have unit diagonal (Theorem 5 assumes kappa(x, x) = 1)")
    A = kernel_alignment(K, y)
    res = best_hinge_in_ball(K, y, U, **solver)
    Ky = K @ y
    witness_loss = float(np.sum(np.maximum(0.0, 1.0 - y * Ky / T)))
    witness_norm = float(math.sqrt(max(y @ Ky, 0.0)) / T)
    return Theorem5Check(alignment=A, min_loss=res.loss, lower_bound=res.lower_bound,
                         gap=res.gap, witness_loss=witness_loss, witness_norm=witness_norm,
                         holds=bool(res.loss <= A + 1e-9 * max(1.0, A)))
