r"""Section IV: margin errors and mistakes of NORMA's soft margin classifier (the update
(29)) against a drifting comparator sequence in :math:`\mathcal G(B, D_1, D_2)`:
Theorems 2 and 3 with their tuning (30)-(32), and the untuned form (45)-(46) for any
:math:`(\eta, \lambda, \rho)` and any prefix of a stream.

Notation: :mod:`theory.norma`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ._checks import _integer, _margins, _nonnegative, _positive

__all__ = [
    "h",
    "theorem2_constant_C",
    "margin_error_bound",
    "mistake_bound",
    "NormaTuning",
    "theorem2_parameters",
    "theorem3_parameters",
    "eta_prime",
    "relative_loss_bound",
    "margin_error_bound_general",
    "mistake_bound_general",
]


def h(x, K, C):
    r"""The tuning function (30): :math:`h(x, K, C) = \sqrt{\frac CK(x + \frac CK)} - \frac CK`.

    Lemma 7 (Appendix A): :math:`z = h(\gamma, K, C)` minimizes
    :math:`K/(\gamma - z) + C/(z(\gamma - z))` over :math:`0 < z < \gamma`.
    Evaluated in the cancellation-free form
    :math:`h = x / (1 + \sqrt{1 + xK/C})`, which also gives the limit
    :math:`h(x, 0, C) = x/2` that the paper takes as the definition at
    :math:`K = 0`.  In particular :math:`0 < h \le x/2` (the paper states the
    weaker :math:`0 \le h \le x`), decreasing in :math:`K`, increasing in :math:`C`.

    Parameters
    ----------
    x : float
        :math:`x > 0` (a margin: :math:`\mu - \rho` in Theorem 2, :math:`\mu` in Theorem 3).
    K : float
        :math:`K \ge 0`, bound on the comparator's cumulative soft margin loss.
    C : float
        :math:`C > 0`, the constant (31).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``x`` or ``C`` is not positive or ``K`` is negative.
    """
    x = _positive(x, "x")
    K = _nonnegative(K, "K")
    C = _positive(C, "C")
    return x / (1.0 + math.sqrt(1.0 + x * K / C))


def theorem2_constant_C(X, B, m, D1, D2):
    r"""The constant (31) of Theorems 2 and 3:
    :math:`C = \frac14 X^2 (B^2 + B(\sqrt{m D_2} + D_1))`.

    Parameters
    ----------
    X : float
        :math:`X > 0` with :math:`k(x_t, x_t) \le X^2`.
    B : float
        :math:`B > 0`, bound on :math:`\|g_t\|_{\mathcal H}` of the comparators.
    m : int
        Length of the stream, ``>= 1``.
    D1, D2 : float
        :math:`D_1, D_2 \ge 0`: bounds on :math:`\sum_t \|g_t - g_{t+1}\|` and
        :math:`\sum_t \|g_t - g_{t+1}\|^2`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``X`` or ``B`` is not positive, ``m`` is not an integer ``>= 1`` or
        ``D1``/``D2`` is negative.
    """
    X = _positive(X, "X")
    B = _positive(B, "B")
    m = _integer(m, "m", 1)
    D1 = _nonnegative(D1, "D1")
    D2 = _nonnegative(D2, "D2")
    return 0.25 * X * X * (B * B + B * (math.sqrt(m * D2) + D1))


def margin_error_bound(K, C, mu, rho):
    r"""Theorem 2: bound on the margin errors :math:`M_\rho(\mathbf f, S)` (26).

    With :math:`\gamma = \mu - \rho`,

    .. math::

        M_\rho \le \frac{K}{\gamma} + \frac{2C}{\gamma^2}
        + 2\Big(\frac{C}{\gamma^2}\Big)^{1/2}\Big(\frac K\gamma + \frac{C}{\gamma^2}\Big)^{1/2}
        = \Big(\sqrt{\tfrac K\gamma + \tfrac{C}{\gamma^2}} + \tfrac{\sqrt C}{\gamma}\Big)^2 .

    Valid for NORMA run with :func:`theorem2_parameters` whenever some
    :math:`\mathbf g \in \mathcal G(B, D_1, D_2)` has
    :math:`L_{\mathrm{cum},\mu}[\mathbf g, S] \le K` and ``C`` is (31).  For
    :math:`K = 0`, :math:`D_1 = D_2 = 0` it is :math:`X^2B^2/(\mu - \rho)^2`,
    so :math:`4X^2B^2/\mu^2` at :math:`\rho = \mu/2` (the discussion after
    Theorem 3 prints :math:`4X^2B^2/\mu`, a typo).

    Parameters
    ----------
    K : float
        :math:`K \ge 0`.
    C : float
        :math:`C > 0`, from :func:`theorem2_constant_C`.
    mu : float
        Comparator margin :math:`\mu > 0`.
    rho : float
        Algorithm margin, :math:`0 \le \rho < \mu`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``K < 0``, ``C <= 0``, ``mu <= 0`` or ``rho`` is not in ``[0, mu)``.
    """
    K = _nonnegative(K, "K")
    C = _positive(C, "C")
    mu, rho = _margins(mu, rho)
    g = mu - rho
    return (math.sqrt(K / g + C / g ** 2) + math.sqrt(C) / g) ** 2


def mistake_bound(K, C, mu):
    r"""Theorem 3: bound on the mistakes :math:`M(\mathbf f, S)` (25).

    .. math::

        M \le \frac K\mu + \frac{2C}{\mu^2}
        + 2\Big(\frac{C}{\mu^2}\Big)^{1/2}\Big(\frac K\mu + \frac{C}{\mu^2}\Big)^{1/2},

    for both margins :math:`\rho = 0` and :math:`\rho = \mu - h(\mu, K, C)` of
    :func:`theorem3_parameters`.  With :math:`K = D_1 = D_2 = 0` it is the
    Perceptron convergence bound :math:`X^2 B^2/\mu^2`.

    Parameters
    ----------
    K : float
        :math:`K \ge 0`.
    C : float
        :math:`C > 0`, from :func:`theorem2_constant_C`.
    mu : float
        Comparator margin :math:`\mu > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``K < 0``, ``C <= 0`` or ``mu <= 0``.
    """
    return margin_error_bound(K, C, mu, 0.0)


@dataclass(frozen=True)
class NormaTuning:
    """Parameters of NORMA chosen by Theorem 2 or 3, and the bound they give.

    Attributes
    ----------
    C : float
        The constant (31).
    z : float
        The value of :func:`h` used: :math:`h(\\mu - \\rho, K, C)` (Theorem 2) or
        :math:`r = h(\\mu, K, C)` (Theorem 3); :math:`\\eta' = 2z/X^2`.
    eta_prime : float
        :math:`\\eta'`.
    lam : float
        :math:`\\lambda` of (32) (0 when :math:`D_2 = 0`).
    eta : float
        Learning rate :math:`\\eta = \\eta'/(1 + \\eta'\\lambda)` to give NORMA.
    rho : float
        Margin :math:`\\rho` to give NORMA.
    mu : float
        Comparator margin :math:`\\mu`.
    bound : float
        Theorem 2's margin-error bound or Theorem 3's mistake bound.
    """

    C: float
    z: float
    eta_prime: float
    lam: float
    eta: float
    rho: float
    mu: float
    bound: float


def _tuning(X, B, m, D2, C, z, rho, mu, bound):
    eta_p = 2.0 * z / (X * X)
    lam = math.sqrt(D2 / m) / (B * eta_p)           # (32)
    eta = eta_p / (1.0 + eta_p * lam)
    return NormaTuning(C=C, z=z, eta_prime=eta_p, lam=lam, eta=eta, rho=rho, mu=mu,
                       bound=bound)


def theorem2_parameters(X, B, m, D1, D2, K, mu, rho):
    r"""Theorem 2's parameter choice: :math:`\eta' = 2h(\mu - \rho, K, C)/X^2`,
    :math:`\lambda = (B\eta')^{-1}\sqrt{D_2/m}` (32), :math:`\eta = \eta'/(1 + \eta'\lambda)`.

    :math:`D_2 = 0` (a stationary comparator) gives :math:`\lambda = 0` and
    :math:`\eta = \eta'`: the regularization-free update (29), i.e. a margin
    Perceptron with step :math:`\eta'`.

    Parameters
    ----------
    X, B : float
        :math:`X, B > 0`.
    m : int
        Stream length ``>= 1``.
    D1, D2, K : float
        Non-negative bounds (see :func:`theorem2_constant_C`, :func:`h`).
    mu : float
        Comparator margin :math:`\mu > 0`.
    rho : float
        Algorithm margin :math:`0 \le \rho < \mu`.

    Returns
    -------
    NormaTuning
        ``bound`` is :func:`margin_error_bound`.

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    C = theorem2_constant_C(X, B, m, D1, D2)
    mu, rho = _margins(mu, rho)
    z = h(mu - rho, K, C)
    return _tuning(float(X), float(B), int(m), float(D2), C, z, rho, mu,
                   margin_error_bound(K, C, mu, rho))


def theorem3_parameters(X, B, m, D1, D2, K, mu, margin="positive"):
    r"""Theorem 3's parameter choice: :math:`r = h(\mu, K, C)`,
    :math:`\eta' = 2r/X^2`, :math:`\lambda` by (32),
    :math:`\eta = \eta'/(1 + \eta'\lambda)`, and :math:`\rho = 0` or
    :math:`\rho = \mu - r`.

    Parameters
    ----------
    X, B : float
        :math:`X, B > 0`.
    m : int
        Stream length ``>= 1``.
    D1, D2, K : float
        Non-negative bounds.
    mu : float
        Comparator margin :math:`\mu > 0`.
    margin : {"positive", "zero"}, default "positive"
        ``"positive"``: :math:`\rho = \mu - r` (:math:`\ge \mu/2`); ``"zero"``:
        :math:`\rho = 0` (then the choice coincides with :func:`theorem2_parameters`
        at :math:`\rho = 0`).

    Returns
    -------
    NormaTuning
        ``bound`` is :func:`mistake_bound`.

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    if margin not in ("positive", "zero"):
        raise ValueError(f"margin must be 'positive' or 'zero', got {margin!r}")
    C = theorem2_constant_C(X, B, m, D1, D2)
    mu = _positive(mu, "mu")
    r = h(mu, K, C)
    rho = mu - r if margin == "positive" else 0.0
    return _tuning(float(X), float(B), int(m), float(D2), C, r, rho, mu,
                   mistake_bound(K, C, mu))


def eta_prime(eta, lam):
    r""":math:`\eta'` of Theorems 2-3 from NORMA's rate: the inverse of
    :math:`\eta = \eta'/(1 + \eta'\lambda)`, i.e. :math:`\eta' = \eta/(1 - \eta\lambda)`.

    Parameters
    ----------
    eta : float
        :math:`\eta > 0`.
    lam : float
        :math:`\lambda \ge 0` with :math:`\eta\lambda < 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``eta <= 0``, ``lam < 0`` or ``eta * lam >= 1``.
    """
    eta = _positive(eta, "eta")
    lam = _nonnegative(lam, "lam")
    if eta * lam >= 1.0:
        raise ValueError(f"eta * lam must be < 1, got eta={eta!r}, lam={lam!r}")
    return eta / (1.0 - eta * lam)


def relative_loss_bound(K, B, D1, D2, m, eta_prime, lam):
    r"""Right side of (46) before the tuning (32), from (45) (Appendix A).

    For NORMA (29) with any :math:`\lambda \ge 0`, :math:`\eta = \eta'/(1+\eta'\lambda)`
    and margin :math:`\rho`, and any :math:`\mathbf g` with
    :math:`\|g_t\| \le B`, path lengths :math:`D_1, D_2` and
    :math:`L_{\mathrm{cum},\mu}[\mathbf g, S] \le K` on a stream of length ``m``:

    .. math::

        L_{\mathrm{cum},\rho}[\mathbf f, S] + M_\rho(\mathbf f, S)
        \Big(\mu - \rho - \frac{\eta' X^2}{2}\Big) \le K +
        \frac{B^2 + B D_1 + \frac{D_2}{2\eta'\lambda} + \frac{m\eta'\lambda B^2}{2}}{2\eta'} .

    With :math:`\lambda` of (32) the bracket is
    :math:`B^2 + B(D_1 + \sqrt{m D_2}) = 4C/X^2` and (46) is recovered (whose
    factor of :math:`M_\rho` is printed as :math:`(\mu - \rho - \eta'X^2)/2`;
    (45) gives :math:`\mu - \rho - \eta'X^2/2`, which is what the next display
    of the proof and Theorem 3's choice :math:`\eta' = 2(\mu-\rho)/X^2` use).
    Because the parameters need not be tuned to the stream, this also bounds
    every *prefix* of a run.  :math:`\lambda = 0`
    requires a constant comparator (:math:`D_2 = 0`, then the :math:`D_2` and
    :math:`\lambda` terms vanish); with :math:`\lambda = 0 < D_2` the result is
    ``inf``.

    Parameters
    ----------
    K, B, D1, D2 : float
        Comparator quantities (``B > 0``, the others ``>= 0``).
    m : int
        Stream (or prefix) length ``>= 1``.
    eta_prime : float
        :math:`\eta' > 0` (see :func:`eta_prime`).
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    K = _nonnegative(K, "K")
    B = _positive(B, "B")
    D1 = _nonnegative(D1, "D1")
    D2 = _nonnegative(D2, "D2")
    m = _integer(m, "m", 1)
    ep = _positive(eta_prime, "eta_prime")
    lam = _nonnegative(lam, "lam")
    if lam == 0.0:
        if D2 > 0.0:
            return math.inf
        drift = 0.0
    else:
        z = ep * lam
        drift = D2 / (2.0 * z) + m * z * B * B / 2.0
    return K + (B * B + B * D1 + drift) / (2.0 * ep)


def margin_error_bound_general(K, B, D1, D2, m, X, mu, rho, eta_prime, lam):
    r"""Margin errors from (46) for arbitrary parameters:
    :math:`M_\rho \le \mathrm{RHS}/(\mu - \rho - \eta' X^2/2)`.

    The right side is :func:`relative_loss_bound`; the estimate drops
    :math:`L_{\mathrm{cum},\rho}[\mathbf f, S] \ge 0` as in the proof of
    Theorem 2.  With :func:`theorem2_parameters` it equals
    :func:`margin_error_bound` (Lemma 7).  Returns ``inf`` when
    :math:`\eta' X^2/2 \ge \mu - \rho` (no bound).

    Parameters
    ----------
    K, B, D1, D2, m, eta_prime, lam
        As in :func:`relative_loss_bound`.
    X : float
        :math:`X > 0`.
    mu, rho : float
        :math:`\mu > \rho \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    rhs = relative_loss_bound(K, B, D1, D2, m, eta_prime, lam)
    X = _positive(X, "X")
    mu, rho = _margins(mu, rho)
    slack = mu - rho - float(eta_prime) * X * X / 2.0
    return rhs / slack if slack > 0.0 else math.inf


def mistake_bound_general(K, B, D1, D2, m, X, mu, rho, eta_prime, lam):
    r"""Mistakes from (46)-(48) for arbitrary parameters.

    The smaller of the applicable estimates: :math:`M \le M_\rho` and
    :func:`margin_error_bound_general`; and, for :math:`\rho > 0` with
    :math:`\eta' X^2/2 \le \mu - \rho`, :math:`M \le
    L_{\mathrm{cum},\rho}[\mathbf f, S]/\rho \le \mathrm{RHS}/\rho`
    (the argument of (47)-(48): :math:`l_\rho \ge \rho` on a mistake; a
    relative round-off of ``1e-12`` in the second condition is accepted, since
    Theorem 3's choice makes it an equality).  With
    :func:`theorem3_parameters` (either margin) it equals :func:`mistake_bound`.

    Parameters
    ----------
    K, B, D1, D2, m, X, mu, rho, eta_prime, lam
        As in :func:`margin_error_bound_general`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On any invalid argument (named in the message).
    """
    best = margin_error_bound_general(K, B, D1, D2, m, X, mu, rho, eta_prime, lam)
    rho, mu = float(rho), float(mu)
    # Theorem 3's choice makes the slack exactly 0; allow its round-off
    slack = mu - rho - float(eta_prime) * float(X) ** 2 / 2.0
    if rho > 0.0 and slack >= -1e-12 * mu:
        best = min(best, relative_loss_bound(K, B, D1, D2, m, eta_prime, lam) / rho)
    return best
