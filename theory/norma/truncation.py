r"""NORMA's truncation error: Proposition 1 (Sec. II-D), what dropping the old terms of
the expansion costs.

Notation: :mod:`theory.norma`.
"""
from __future__ import annotations

import math

from ._checks import _integer, _positive, _rate

__all__ = ["truncation_error_bound"]


def truncation_error_bound(eta, lam, tau, C, X, t=None):
    r"""Right side of Proposition 1 (truncation error), Sec. II-D.

    With a constant rate :math:`\eta`, :math:`|\partial_z l| \le C` and
    :math:`\|k(x, \cdot)\| \le X`, dropping all but the last :math:`\tau` terms
    of the expansion (10) costs

    .. math::

        \|f - f_{\mathrm{trunc}}\| \le \sum_{i=1}^{t-\tau} \eta
        (1 - \lambda\eta)^{t-i} C X < (1 - \lambda\eta)^{\tau} \frac{C X}{\lambda}.

    Parameters
    ----------
    eta : float
        Learning rate, :math:`0 < \eta < 1/\lambda`.
    lam : float
        Regularization :math:`\lambda > 0`.
    tau : int
        Number of terms kept, :math:`\tau \ge 0`.
    C : float
        Bound :math:`C > 0` on :math:`|\partial_z l(z, y)|` (1 for the soft margin loss).
    X : float
        Bound :math:`X > 0` on :math:`\|k(x, \cdot)\|` (1 for a Gaussian kernel).
    t : int, optional
        If given, the middle (finite-sum) expression at round ``t >= 1``:
        :math:`C X (1-\lambda\eta)^{\tau}(1 - (1-\lambda\eta)^{t-\tau})/\lambda`
        for :math:`t > \tau` and 0 otherwise.  Otherwise the closed form on the right.

    Returns
    -------
    float

    Notes
    -----
    :math:`f_{\mathrm{trunc}}` keeps the terms :math:`i = t-\tau, \dots, t-1` of
    :math:`f_t`, so the dropped ones are :math:`i \le t - \tau - 1`, with
    coefficients :math:`|\alpha_i| \le \eta C (1 - \lambda\eta)^{t-1-i}` (decayed
    at rounds :math:`i+1, \dots, t-1`).  Their exact worst case is
    :math:`\eta C X \sum_{j=\tau}^{t-2} (1-\lambda\eta)^j`; the printed sum runs
    over the exponents :math:`\tau, \dots, t-1`, i.e. it has one extra term
    :math:`\eta C X (1-\lambda\eta)^{t-1}`.  It is still an upper bound (and
    strictly below the closed form), so the printed form is what is returned.

    Raises
    ------
    ValueError
        If ``eta``, ``lam``, ``C`` or ``X`` is not positive, ``eta * lam >= 1``,
        ``tau`` is not an integer ``>= 0`` or ``t`` is not an integer ``>= 1``.
    """
    eta, lam = _rate(eta, lam)
    tau = _integer(tau, "tau", 0)
    C = _positive(C, "C")
    X = _positive(X, "X")
    q = 1.0 - lam * eta
    closed = q ** tau * C * X / lam
    if t is None:
        return closed
    t = _integer(t, "t", 1)
    if t <= tau:
        return 0.0
    # eta C X sum_{j=tau}^{t-1} q^j = C X q^tau (1 - q^(t - tau)) / lam; the min only
    # removes a last-ulp excess when q^(t - tau) is below round-off
    return min(closed, C * X * q ** tau * (-math.expm1((t - tau) * math.log(q))) / lam)
