r"""Section V: NORMA's cumulative regularized risk with :math:`\eta_t = \eta t^{-1/2}`,
Theorems 4 and 6 (with and without truncation).

Notation: :mod:`theory.norma`.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from ._checks import _integer, _nonnegative, _positive, _rate, _real

__all__ = [
    "risk_bound_constants",
    "cumulative_risk_bound",
    "truncated_cumulative_risk_bound",
    "theorem6_t0",
    "theorem6_window",
]


def risk_bound_constants(lam, eta, c, X, truncated=False, constants="paper"):
    r"""The constants :math:`(U, a, b)` of Theorems 4 and 6.

    * (34): :math:`U = cX/\lambda`, the bound on :math:`\|f_t\|` (and
      :math:`\|\hat g\|`);
    * Theorem 4 (35): :math:`a = 2\lambda U^2(2\eta\lambda + 1/(\eta\lambda))`,
      :math:`b = U^2/(2\eta)`;
    * Theorem 6 (37), ``constants="paper"``:
      :math:`a = 2\lambda U^2(10\eta\lambda + 1/(\eta\lambda))`,
      :math:`b = U^2/(2\eta)`, as printed;
    * Theorem 6, ``constants="proof"``:
      :math:`a = 2\lambda U^2(16\eta\lambda + 4/(\eta\lambda))`,
      :math:`b = U^2/(2\eta) + 4\lambda U^2` -- the constants that Appendix C's
      own estimates give.  Appendix C shows :math:`\|f_t\| \le 3U` and
      :math:`\|f_t - g\| \le 4U` for the truncated run, but then reuses
      Theorem 4's :math:`\|\partial_f R_{\mathrm{inst}}\| \le 2cX` (which needs
      :math:`\|f_t\| \le U`; :math:`4cX` follows from :math:`3U`) and
      :math:`\|f_{t+1} - g\| \le 2U` in the telescoping step (:math:`4U`
      follows).  The window of Theorem 6 also shrinks from :math:`t_0` to
      :math:`\lceil (t_0+1)^{1/2+\epsilon}\rceil` at once, against the proof's
      assumption :math:`s_{t+1} \in \{s_t, s_t + 1\}`; the dropped terms then
      have norm at most :math:`\eta_t c X` (geometric sum of the decayed
      coefficients times the second condition on :math:`t_0`), one round whose
      cost is the :math:`4\lambda U^2` added to ``b``.

    Parameters
    ----------
    lam : float
        :math:`\lambda > 0`.
    eta : float
        :math:`0 < \eta < 1/\lambda` (the rate is :math:`\eta_t = \eta t^{-1/2}`).
    c : float
        Lipschitz constant :math:`c > 0` of the loss, (33) (1 for the soft margin loss).
    X : float
        :math:`X > 0` with :math:`k(x_t, x_t) \le X^2`.
    truncated : bool, default False
        Theorem 6 instead of Theorem 4.
    constants : {"paper", "proof"}, default "paper"
        Only for ``truncated=True`` (see above).

    Returns
    -------
    (U, a, b) : tuple of float

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    eta, lam = _rate(eta, lam)
    c = _positive(c, "c")
    X = _positive(X, "X")
    if not isinstance(truncated, (bool, np.bool_)):
        raise ValueError(f"truncated must be True or False, got {truncated!r}")
    if constants not in ("paper", "proof"):
        raise ValueError(f"constants must be 'paper' or 'proof', got {constants!r}")
    U = c * X / lam
    el = eta * lam
    b = U * U / (2.0 * eta)
    if not truncated:
        return U, 2.0 * lam * U * U * (2.0 * el + 1.0 / el), b
    if constants == "paper":
        return U, 2.0 * lam * U * U * (10.0 * el + 1.0 / el), b
    return U, 2.0 * lam * U * U * (16.0 * el + 4.0 / el), b + 4.0 * lam * U * U


def cumulative_risk_bound(m, lam, eta, c, X, R_reg_g):
    r"""Theorem 4, (35): :math:`\sum_{t=1}^m R_{\mathrm{inst},\lambda}[f_t, x_t, y_t]
    \le m R_{\mathrm{reg},\lambda}[g, S] + a\sqrt m + b`.

    For NORMA with :math:`\eta_t = \eta t^{-1/2}`, a convex loss with Lipschitz
    constant ``c`` (33), and *any* :math:`g \in \mathcal H`; ``a`` and ``b`` are
    those of :func:`risk_bound_constants`.  :math:`R_{\mathrm{reg},\lambda}` is
    (4), with :math:`\lambda/2` (see :func:`regularized_risk`).

    Parameters
    ----------
    m : int
        Number of rounds ``>= 1``.
    lam, eta, c, X : float
        As in :func:`risk_bound_constants`.
    R_reg_g : float
        :math:`R_{\mathrm{reg},\lambda}[g, S] \ge 0` of a comparator ``g`` on the
        same ``m`` examples (e.g. :func:`best_regularized_soft_margin`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    return _risk_bound(m, lam, eta, c, X, R_reg_g, truncated=False, constants="paper")


def truncated_cumulative_risk_bound(m, lam, eta, c, X, R_reg_g, constants="paper"):
    r"""Theorem 6, (37): the bound of Theorem 4 for truncated NORMA with the
    expansion sizes :math:`s_t` of :func:`theorem6_window`, with
    :math:`a = 2\lambda U^2(10\eta\lambda + 1/(\eta\lambda))` as printed
    (``constants="paper"``) or the constants of Appendix C's own estimates
    (``constants="proof"``; see :func:`risk_bound_constants`).

    Parameters
    ----------
    m, lam, eta, c, X, R_reg_g
        As in :func:`cumulative_risk_bound`.
    constants : {"paper", "proof"}, default "paper"

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    return _risk_bound(m, lam, eta, c, X, R_reg_g, truncated=True, constants=constants)


def _risk_bound(m, lam, eta, c, X, R_reg_g, truncated, constants):
    """``m R_reg[g] + a sqrt(m) + b`` with the constants of Theorem 4 or 6."""
    m = _integer(m, "m", 1)
    R = _nonnegative(R_reg_g, "R_reg_g")
    _, a, b = risk_bound_constants(lam, eta, c, X, truncated=truncated, constants=constants)
    return m * R + a * math.sqrt(m) + b


def theorem6_t0(eta, lam, eps):
    r""":math:`t_0(\lambda, \eta, \epsilon)` of Theorem 6, as defined in Appendix C.

    The smallest :math:`t_0` such that for all integers :math:`t \ge t_0`:
    (i) :math:`\eta\lambda t^{-1/2} \le 1`; (ii)
    :math:`\exp(-\eta\lambda t^\epsilon) \le \eta\lambda t^{-1/2}`; (iii)
    :math:`\lceil t^{1/2+\epsilon}\rceil \le 3t/4`.

    Computed exactly, not by an open-ended scan: (i) always holds since
    :math:`\eta\lambda < 1`.  (ii) reads :math:`\varphi(t) = \eta\lambda t^\epsilon
    - \frac12\ln t + \ln(\eta\lambda) \ge 0`, and :math:`\varphi` decreases up to
    :math:`t^* = (2\eta\lambda\epsilon)^{-1/\epsilon}` and increases after it, so
    it fails exactly on an interval ending at the root of :math:`\varphi` beyond
    :math:`t^*` (found by ``brentq`` in :math:`\ln t`).  (iii):
    :math:`\psi(t) = 3t/4 - t^{1/2+\epsilon}` is convex with :math:`\psi(0) = 0`,
    so it fails below its positive root :math:`b_0` and holds with the ceiling
    beyond the root :math:`b_1` of :math:`\psi = 1`; the integers between are
    checked one by one with the same ``ceil(t ** (0.5 + eps))`` as the learner.

    Parameters
    ----------
    eta : float
        :math:`0 < \eta < 1/\lambda`.
    lam : float
        :math:`\lambda > 0`.
    eps : float
        :math:`0 < \epsilon < 1/2`.

    Returns
    -------
    int
        ``t0 >= 1``; pass it as ``tau_t0`` (and ``eps`` as ``tau_power``) to
        ``okl.NORMA``.

    Raises
    ------
    ValueError
        On an invalid argument, or if ``t0`` exceeds ``2**53`` (small
        :math:`\eta\lambda` or :math:`\epsilon` near 0 or 1/2), where it cannot be
        computed exactly in floating point.
    """
    eta, lam = _rate(eta, lam)
    eps = _real(eps, "eps")
    if not 0.0 < eps < 0.5:
        raise ValueError(f"eps must be in (0, 1/2), got {eps!r}")
    el = eta * lam
    limit = 2.0 ** 53
    # (ii) in u = ln t
    phi = lambda u: el * math.exp(eps * u) - 0.5 * u + math.log(el)   # noqa: E731
    u_star = max(0.0, -math.log(2.0 * el * eps) / eps)
    if phi(u_star) >= 0.0:
        t0_2 = 1
    else:
        hi = u_star + 1.0
        while phi(hi) < 0.0:
            hi = u_star + 2.0 * (hi - u_star)
            if hi > math.log(limit):
                raise ValueError(f"t0 exceeds 2**53 for eta*lam={el!r}, eps={eps!r}")
        root = optimize.brentq(phi, u_star, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        # every integer in [ceil(t*), root) fails and phi increases beyond t*: the
        # first passing integer from there on is t0_2
        t0_2 = max(1, math.ceil(math.exp(u_star)), math.floor(math.exp(root)) - 2)
        while phi(math.log(t0_2)) < 0.0:
            t0_2 += 1
    # (iii)
    a = 0.5 + eps
    b0 = (4.0 / 3.0) ** (1.0 / (1.0 - a))
    if b0 > limit:
        raise ValueError(f"t0 exceeds 2**53 for eps={eps!r}")
    psi = lambda t: 0.75 * t - t ** a  # noqa: E731
    hi = 2.0 * b0
    while psi(hi) < 1.0:
        hi *= 2.0
    b1 = optimize.brentq(lambda t: psi(t) - 1.0, b0, hi)
    last_fail = 0
    for t in range(max(1, math.floor(b0) - 1), math.ceil(b1) + 2):
        if 4 * math.ceil(t ** a) > 3 * t:
            last_fail = t
    t0_3 = last_fail + 1
    return int(max(1, t0_2, t0_3))


def theorem6_window(t, t0, eps):
    r"""Expansion size :math:`s_t` of Theorem 6: :math:`s_t = t` for
    :math:`t \le t_0`, :math:`\lceil t^{1/2+\epsilon}\rceil` after.

    Parameters
    ----------
    t : int
        Round ``>= 1``.
    t0 : int
        :math:`t_0 \ge 0` (see :func:`theorem6_t0`).
    eps : float
        :math:`0 < \epsilon < 1/2`.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    t = _integer(t, "t", 1)
    t0 = _integer(t0, "t0", 0)
    eps = _real(eps, "eps")
    if not 0.0 < eps < 0.5:
        raise ValueError(f"eps must be in (0, 1/2), got {eps!r}")
    return t if t <= t0 else int(math.ceil(t ** (0.5 + eps)))
