r"""The unbudgeted first-order baselines beside NORMA (Kivinen, Smola & Williamson, IEEE TSP
2004): kernel online gradient descent (``okl.KernelOGD``, eq. (9) of that paper without
truncation) and Gentile's ALMA_2 (``okl.ALMA``, the baseline of its Sec. VI-A).

* :func:`ogd_regret_bound`: Zinkevich (ICML 2003, "Online convex programming and
  generalized infinitesimal gradient ascent"), Theorem 1, for the two rates ``okl.KernelOGD``
  runs.  Zinkevich states it for a projected step on a set :math:`F` of diameter
  :math:`\|F\|`, gradients :math:`\|\nabla c_t\| \le G` and :math:`\eta_t = t^{-1/2}`:
  :math:`R(T) \le \|F\|^2\sqrt T/2 + (\sqrt T - 1/2)G^2`.  Its proof only uses
  :math:`\|w_t - w\| \le \|F\|` for the iterates and the comparator, and for a constant
  rate from :math:`w_1 = 0` it telescopes to :math:`\|w\|^2/(2\eta) + \eta\sum_t
  \|g_t\|^2/2` with no projection at all (the same two lines).  KernelOGD has no
  projection: for ``schedule="sqrt"`` (:math:`\eta_t = \eta/\sqrt t`) the diameter is the
  run's own :math:`\max_t\|f_t - f\|` (measured; the bound is pathwise), for
  ``schedule="constant"`` it is not needed.
* :func:`alma2_correction_bound`: ALMA_2(alpha; B, C) (Gentile, JMLR 2, 2001).  The
  paper's text was not reachable here; this is a bound derived for the algorithm as
  ``okl.ALMA`` runs it (its update is Gentile's), by the projected-gradient argument of
  the paper's own analysis, with every constant explicit (see the function).  Its
  separable form (:math:`L = 0`) is :math:`m \le a^2/\gamma^2` with
  :math:`a = 2(1-\alpha)B + 2/C + C`, the :math:`O(1/(\alpha^2\gamma^2))` corrections of
  the paper's abstract (at :math:`B = 1/\alpha`, :math:`a \le 2/\alpha + 2\sqrt 2`).

Depends only on numpy.
"""
from __future__ import annotations

import math

import numpy as np

from . import _validation as v

__all__ = ["ogd_regret_bound", "alma2_correction_bound", "alma2_constant",
           "kernel_ogd_path_distances"]


def ogd_regret_bound(f_norm2, eta, T, G2, *, schedule="constant", max_distance2=None):
    r"""Zinkevich (2003), Theorem 1: the regret of (kernel) online gradient descent from
    :math:`f_1 = 0` against any fixed :math:`f`.

    .. math::

        \sum_{t\le T} \ell_t(f_t) - \ell_t(f) \le
        \begin{cases}
        \dfrac{\|f\|^2}{2\eta} + \dfrac{\eta}{2} T G^2 & \eta_t = \eta
          \ (\text{constant}),\\[1ex]
        \dfrac{D^2\sqrt T}{2\eta} + \eta\Big(\sqrt T - \dfrac12\Big)G^2 &
          \eta_t = \eta/\sqrt t,
        \end{cases}

    with :math:`G^2 \ge \|\nabla\ell_t(f_t)\|^2` every round (for a loss that is
    1-Lipschitz in :math:`f(x)`, such as the hinge, logistic and absolute losses,
    :math:`G^2 = \sup_t k(x_t, x_t)`) and :math:`D^2 \ge \max_{t \le T}\|f_t - f\|^2`.
    The constant-rate form is the theorem's proof at a constant step (the first term is
    :math:`\|f_1 - f\|^2/(2\eta)`); the second is the theorem with :math:`\|F\| = D` and the
    step scaled by :math:`\eta` (:math:`\sum_{t\le T} t^{-1/2} \le 2\sqrt T - 1`).

    Parameters
    ----------
    f_norm2 : float
        :math:`\|f\|^2 \ge 0` (used by the constant rate).
    eta : float
        :math:`\eta > 0`.
    T : int
        Rounds ``>= 1``.
    G2 : float
        :math:`G^2 \ge 0`.
    schedule : {"constant", "sqrt"}
    max_distance2 : float, optional
        :math:`D^2 \ge 0`, required for ``schedule="sqrt"``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On a negative norm, distance or ``G2``, a non-positive ``eta``, ``T < 1``, an
        unknown schedule, or ``schedule="sqrt"`` without ``max_distance2``.
    """
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    eta = v.positive(eta, "eta")
    T = v.integer(T, "T", 1)
    G2 = v.nonnegative(G2, "G2")
    if schedule == "constant":
        return f_norm2 / (2.0 * eta) + 0.5 * eta * T * G2
    if schedule == "sqrt":
        if max_distance2 is None:
            raise ValueError("max_distance2 (D^2 >= max_t ||f_t - f||^2) is required for "
                             "schedule='sqrt'")
        D2 = v.nonnegative(max_distance2, "max_distance2")
        rt = math.sqrt(T)
        return D2 * rt / (2.0 * eta) + eta * (rt - 0.5) * G2
    raise ValueError(f"schedule must be 'constant' or 'sqrt', got {schedule!r}")


def kernel_ogd_path_distances(coef, scores, k_diag, f_values, f_norm2):
    r""":math:`\|f_t - f\|^2` for :math:`t = 1, \dots, T+1` along a kernel expansion
    :math:`f_{t+1} = f_t + c_t k(x_t, \cdot)` from :math:`f_1 = 0` (KernelOGD with
    :math:`\lambda = 0`), in :math:`O(T)` from the run:

    :math:`\|f_{t+1}\|^2 = \|f_t\|^2 + 2c_t f_t(x_t) + c_t^2 k(x_t, x_t)` and
    :math:`\langle f_{t+1}, f\rangle = \langle f_t, f\rangle + c_t f(x_t)`.

    Parameters
    ----------
    coef : array_like, shape (T,)
        :math:`c_t` (0 on rounds without an update).
    scores : array_like, shape (T,)
        :math:`f_t(x_t)`.
    k_diag : array_like, shape (T,)
        :math:`k(x_t, x_t)`.
    f_values : array_like, shape (T,)
        :math:`f(x_t)` of the comparator.
    f_norm2 : float
        :math:`\|f\|^2`.

    Returns
    -------
    ndarray, shape (T + 1,)
    """
    c = np.asarray(coef, dtype=float)
    T = c.size
    s = v.labels(scores, T, "scores")
    kd = v.labels(k_diag, T, "k_diag")
    fv = v.labels(f_values, T, "f_values")
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    norm2 = np.concatenate([[0.0], np.cumsum(2.0 * c * s + c * c * kd)])
    inner = np.concatenate([[0.0], np.cumsum(c * fv)])
    return np.maximum(norm2 - 2.0 * inner + f_norm2, 0.0)


def alma2_constant(alpha, B, C):
    r""":math:`a = 2(1-\alpha)B + 2/C + C` of :func:`alma2_correction_bound`."""
    alpha = v.positive(alpha, "alpha")
    if alpha > 1.0:
        raise ValueError(f"alpha must be in (0, 1], got {alpha!r}")
    B = v.positive(B, "B")
    C = v.positive(C, "C")
    return 2.0 * (1.0 - alpha) * B + 2.0 / C + C


def alma2_correction_bound(L, f_norm, alpha, B, C):
    r"""Corrections of ALMA_2(alpha; B, C) (Gentile 2001) against any :math:`f \ne 0`.

    For every :math:`f` in the RKHS of the *normalized* kernel
    :math:`\hat k(x, v) = k(x, v)/\sqrt{k(x,x)k(v,v)}` (the instances ALMA sees), the
    number :math:`m` of corrections satisfies

    .. math::

        m \le \Big(\frac{a\|f\| + \sqrt{a^2\|f\|^2 + 4L}}{2}\Big)^2,
        \qquad a = 2(1-\alpha)B + \frac2C + C,

    with :math:`L = \sum_t \max(0, 1 - y_t f(\hat x_t))` (the hinge loss over all rounds
    bounds the one over the corrections).  Every mistake is a correction
    (:math:`y_t w_k\cdot\hat x_t \le 0 \le (1-\alpha)\gamma_k`), so this bounds the
    mistakes too.

    Derivation (reconstructed; the paper's statement was not reachable).  Write
    :math:`u = f/\|f\|`, :math:`\gamma = 1/\|f\|`.  On the :math:`k`-th correction the
    step :math:`w' = w_k + \eta_k y_t\hat x_t` followed by :math:`w_{k+1} =
    w'/\max(1, \|w'\|)` (the Euclidean projection on the unit ball, where :math:`u` lies)
    gives :math:`\|w_{k+1} - u\|^2 \le \|w_k - u\|^2 + 2\eta_k y_t(w_k - u)\cdot\hat x_t +
    \eta_k^2`, i.e. :math:`y_t u\cdot\hat x_t - y_t w_k\cdot\hat x_t \le (\|w_k - u\|^2 -
    \|w_{k+1}-u\|^2)/(2\eta_k) + \eta_k/2`.  With :math:`y_t w_k\cdot\hat x_t \le
    (1-\alpha)B/\sqrt k` (the correction test), :math:`y_t u\cdot \hat x_t \ge \gamma -
    \max(0, \gamma - y_t u\cdot\hat x_t)`, :math:`\eta_k = C/\sqrt k`,
    :math:`\|w_k - u\|^2 \le 4` (so the telescoped sum is at most :math:`2/\eta_m =
    2\sqrt m/C`) and :math:`\sum_{k \le m} k^{-1/2} \le 2\sqrt m`: :math:`m\gamma -
    \gamma L \le a\sqrt m`; solve for :math:`\sqrt m`.

    Parameters
    ----------
    L : float
        :math:`L \ge 0`.
    f_norm : float
        :math:`\|f\| > 0` in the normalized kernel's RKHS.
    alpha, B, C : float
        ALMA's parameters (:math:`0 < \alpha \le 1`, :math:`B, C > 0`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On a negative ``L``, a non-positive ``f_norm``, ``B`` or ``C``, or ``alpha``
        outside ``(0, 1]``.
    """
    L = v.nonnegative(L, "L")
    R = v.positive(f_norm, "f_norm")
    a = alma2_constant(alpha, B, C)
    root = 0.5 * (a * R + math.sqrt(a * a * R * R + 4.0 * L))
    return root * root
