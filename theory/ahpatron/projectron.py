r"""Bounds of the Projectron and Projectron++ (Orabona, Keshet & Caputo, *Bounded
kernel-based online learning*, JMLR 10, 2009), the budgeted Perceptrons ``okl bounds``
checks beside Ahpatron's baselines: their mistakes and their dictionary size.

The multiclass Projectron's bounds are :mod:`theory.multiclass`'s.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _validation as v
from ._checks import NORM_RTOL, _nonnegative, _positive

__all__ = ["projectron_mistake_bound", "projectronpp_mistake_bound",
           "projectron_dictionary_bound"]


def projectron_mistake_bound(L, f_norm, eta, kappa_max=1.0):
    r"""Mistakes of the Projectron (Orabona, Keshet & Caputo, *Bounded kernel-based online
    learning*, JMLR 10, 2009; ICML 2008) against any :math:`g` with
    :math:`\eta\|g\| < 1`:

    .. math::

        |M_T| \le \Big(\frac{\|g\|X + \sqrt{\|g\|^2X^2 + 4(1 - \eta\|g\|)L}}
        {2(1 - \eta\|g\|)}\Big)^2,

    :math:`X^2 = \max_t k(x_t, x_t)`, :math:`L = \sum_t \max(0, 1 - y_t g(x_t))`.

    The paper's text was not reachable here; this is the Perceptron argument its
    Projectron theorem rests on, written out with explicit constants for the update
    ``okl.Projectron`` makes: on a mistake :math:`f_{t+1} = f_t + y_t P_t k(x_t, \cdot)`
    with the projection residual :math:`\delta_t = P_t k(x_t, \cdot) - k(x_t, \cdot)`
    of norm at most :math:`\eta` (or :math:`\delta_t = 0` when :math:`x_t` is added).
    Then :math:`\langle g, f_{T+1}\rangle \ge \sum_{t \in M}(y_t g(x_t) - \|g\|\|\delta_t\|)
    \ge |M|(1 - \eta\|g\|) - L` and :math:`\|f_{T+1}\|^2 = \sum_{t\in M}(2y_tf_t(x_t) +
    \|P_tk(x_t,\cdot)\|^2) \le |M|X^2` (:math:`f_t` lies in the span, so
    :math:`\langle f_t, P_tk(x_t,\cdot)\rangle = f_t(x_t)`); Cauchy-Schwarz and the
    quadratic in :math:`\sqrt{|M|}`.  At :math:`\eta = 0` it is the kernel Perceptron's
    bound :math:`(\|g\|X + \sqrt{\|g\|^2X^2 + 4L})^2/4`.

    Parameters
    ----------
    L : float
        :math:`L \ge 0`.
    f_norm : float
        :math:`\|g\| \ge 0` with :math:`\eta\|g\| < 1`.
    eta : float
        The Projectron's threshold on :math:`\|\delta_t\|`, ``>= 0``.
    kappa_max : float, default 1.0
        :math:`X^2 > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On a negative ``L``, ``f_norm`` or ``eta``, a non-positive ``kappa_max``, or
        :math:`\eta\|g\| \ge 1`.
    """
    L = _nonnegative(L, "L")
    R = _nonnegative(f_norm, "f_norm")
    eta = _nonnegative(eta, "eta")
    X2 = _positive(kappa_max, "kappa_max")
    c = 1.0 - eta * R
    if c <= 0.0:
        raise ValueError(f"the Projectron bound needs eta ||g|| < 1, got eta = {eta!r}, "
                         f"||g|| = {R!r}")
    RX = R * math.sqrt(X2)
    root = (RX + math.sqrt(RX * RX + 4.0 * c * L)) / (2.0 * c)
    return root * root


def projectronpp_mistake_bound(L, f_norm, eta, kappa_max=1.0):
    r"""Mistakes of Projectron++ (Orabona, Keshet & Caputo 2009) against any :math:`g`
    with :math:`\|g\| \le 1/\eta` and :math:`2 - 2\eta\|g\| - X^2 > 0`:

    .. math::

        |M_T| \le \frac{\|g\|^2 + 2L}{2 - 2\eta\|g\| - X^2},

    :math:`X^2 = \max_t k(x_t, x_t)`, :math:`L = \sum_t \max(0, 1 - y_t g(x_t))`
    (:math:`\|g\|^2 + 2L` over :math:`1 - 2\eta\|g\|` for a normalized kernel).

    Reconstructed (the paper's text was not reachable) from the potential
    :math:`\|f_t - g\|^2` for the updates ``okl.ProjectronPP`` makes: a step
    :math:`f_{t+1} = f_t + \tau_t y_t P_tk(x_t,\cdot)` changes it by
    :math:`-2\tau_t y_t\langle g - f_t, P_tk\rangle + \tau_t^2\|P_tk\|^2` and
    :math:`y_t\langle g, P_tk\rangle \ge 1 - \ell_t(g) - \|g\|\|\delta_t\|`.  A mistake
    (:math:`\tau_t = 1`, :math:`y_tf_t(x_t) \le 0`, :math:`\|\delta_t\| \le \eta`) lowers
    it by at least :math:`2 - 2\ell_t(g) - 2\eta\|g\| - X^2`; a margin update
    (:math:`0 < \tau_t \le 1`, made only when :math:`\tau_t(2l_t - \tau_t\|P_tk\|^2 -
    2\|\delta_t\|/\eta) \ge 0` with :math:`l_t = 1 - y_tf_t(x_t)`, the paper's condition)
    by at least :math:`-2\ell_t(g)` once :math:`\|g\| \le 1/\eta`.  The potential starts at
    :math:`\|g\|^2` and stays :math:`\ge 0`.  It holds for the Projectron too (no margin
    updates).

    Parameters
    ----------
    L : float
        :math:`L \ge 0`.
    f_norm : float
        :math:`\|g\| \ge 0`.
    eta : float
        Threshold on :math:`\|\delta_t\|`, ``>= 0``.
    kappa_max : float, default 1.0
        :math:`X^2 > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On negative inputs, a non-positive ``kappa_max``, :math:`\eta\|g\| > 1` or
        :math:`2 - 2\eta\|g\| - X^2 \le 0`.
    """
    L = _nonnegative(L, "L")
    R = _nonnegative(f_norm, "f_norm")
    eta = _nonnegative(eta, "eta")
    X2 = _positive(kappa_max, "kappa_max")
    if eta * R > 1.0 + NORM_RTOL:
        raise ValueError(f"the Projectron++ bound needs ||g|| <= 1/eta, got eta = {eta!r}, "
                         f"||g|| = {R!r}")
    den = 2.0 - 2.0 * eta * R - X2
    if den <= 0.0:
        raise ValueError(f"the Projectron++ bound needs 2 - 2 eta ||g|| - X^2 > 0, got "
                         f"{den!r}")
    return (R * R + 2.0 * L) / den


def projectron_dictionary_bound(K, eta):
    r"""A certified bound on the Projectron's (and Projectron++'s) dictionary size on a
    stream: the size of a greedy :math:`\eta/2`-cover of the stream's points in the
    kernel's feature space.

    A point joins the dictionary only when its distance to the span of the dictionary,
    :math:`\|\delta_t\|`, exceeds :math:`\eta`; so any two dictionary points are more
    than :math:`\eta` apart (:math:`\|k(x_i,\cdot) - k(x_j,\cdot)\|^2 = k_{ii} + k_{jj} -
    2k_{ij}`), and no ball of radius :math:`\eta/2` holds two of them: :math:`|S|` is at
    most the number of balls of any :math:`\eta/2`-cover of the points.  This is the
    packing argument behind the paper's bound on the dictionary (finite for a continuous
    kernel on a compact set); the cover is computed here, on the stream, instead of the
    paper's covering-number estimate (not reachable here).

    Parameters
    ----------
    K : array_like, shape (T, T)
        Gram matrix of the stream.
    eta : float
        Threshold ``> 0`` (at 0 every distinct point may join: no bound).

    Returns
    -------
    int
        Centers of the greedy cover (each point within :math:`\eta/2` of one).

    Raises
    ------
    ValueError
        If ``K`` is not a symmetric matrix or ``eta <= 0``.
    """
    K = v.kernel_matrix(K)
    eta = _positive(eta, "eta")
    d = np.diag(K)
    r2 = (eta / 2.0) ** 2
    covered = np.zeros(K.shape[0], dtype=bool)
    centers = 0
    for t in range(K.shape[0]):
        if covered[t]:
            continue
        centers += 1
        dist2 = d + d[t] - 2.0 * K[t]
        covered |= dist2 <= r2 * (1.0 + 1e-12)
    return centers
