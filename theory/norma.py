r"""Bounds of NORMA: Kivinen, Smola & Williamson, *Online Learning with Kernels*
(IEEE Trans. Signal Processing 52(8), 2004).

Every expression names the equation or theorem it evaluates.  Notation of the
paper: ``m`` is the length of the stream, ``X`` bounds
:math:`k(x_t, x_t) \le X^2`, ``lam`` is :math:`\lambda`, ``eta`` the learning
rate :math:`\eta`, ``C`` either the derivative bound of Prop. 1 or the constant
(31) of Theorems 2-3 (each function says which).

Conventions (checked against the paper, Sec. II-A):

* regularized risk (4): :math:`R_{\mathrm{reg},\lambda}[f, S] = \frac1m\sum_t
  l(f(x_t), y_t) + \frac{\lambda}{2}\|f\|_{\mathcal H}^2` -- with
  :math:`\lambda/2`, the convention under which the gradient step (9) decays by
  :math:`1 - \eta\lambda`;
* instantaneous risk (5): :math:`R_{\mathrm{inst},\lambda}[f, x, y] =
  l(f(x), y) + \frac{\lambda}{2}\|f\|_{\mathcal H}^2`.

Groups of functions:

* Prop. 1 (truncation error): :func:`truncation_error_bound`.
* Sec. IV, Theorems 2 and 3 (margin errors and mistakes of the soft margin
  update (29) against a drifting comparator sequence in
  :math:`\mathcal G(B, D_1, D_2)`): :func:`h` (30),
  :func:`theorem2_constant_C` (31), :func:`theorem2_parameters` (32),
  :func:`theorem3_parameters`, :func:`margin_error_bound`,
  :func:`mistake_bound`; the untuned form (45)-(46) for arbitrary
  :math:`(\eta, \lambda, \rho)` and any prefix of a stream:
  :func:`eta_prime`, :func:`relative_loss_bound`,
  :func:`margin_error_bound_general`, :func:`mistake_bound_general`.
* Sec. V, Theorems 4 and 6 (cumulative regularized risk with
  :math:`\eta_t = \eta t^{-1/2}`): :func:`risk_bound_constants`,
  :func:`cumulative_risk_bound`, :func:`truncated_cumulative_risk_bound`,
  :func:`theorem6_t0`, :func:`theorem6_window`.
* Quantities measured on a stream: :func:`soft_margin_losses`,
  :func:`soft_margin_comparator_loss`, :func:`comparator_path`,
  :func:`regularized_risk`, :func:`cumulative_instantaneous_risk`,
  :func:`best_regularized_soft_margin`.

Depends only on numpy and scipy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from . import _validation as v
from .comparators import best_hinge_in_ball

__all__ = [
    "ComparatorPath",
    "NormaTuning",
    "RegularizedComparator",
    "SoftMarginComparator",
    "best_regularized_soft_margin",
    "comparator_path",
    "cumulative_instantaneous_risk",
    "cumulative_risk_bound",
    "eta_prime",
    "h",
    "margin_error_bound",
    "margin_error_bound_general",
    "mistake_bound",
    "mistake_bound_general",
    "regularized_risk",
    "relative_loss_bound",
    "risk_bound_constants",
    "soft_margin_comparator_loss",
    "soft_margin_losses",
    "theorem2_constant_C",
    "theorem2_parameters",
    "theorem3_parameters",
    "theorem6_t0",
    "theorem6_window",
    "truncated_cumulative_risk_bound",
    "truncation_error_bound",
]


# -- argument checks (every failure names the argument) ---------------------------------

_real = v.real
_positive = v.positive
_nonnegative = v.nonnegative
_integer = v.integer


def _rate(eta, lam, name_eta="eta", name_lam="lam"):
    """``eta > 0``, ``lam > 0`` and ``eta * lam < 1`` (NORMA's ``eta in (0, 1/lam)``)."""
    eta = _positive(eta, name_eta)
    lam = _positive(lam, name_lam)
    if eta * lam >= 1.0:
        raise ValueError(f"{name_eta} * {name_lam} must be < 1 (the paper needs "
                         f"0 < eta < 1/lambda), got {name_eta}={eta!r}, {name_lam}={lam!r}")
    return eta, lam


def _margins(mu, rho):
    mu = _positive(mu, "mu")
    rho = _nonnegative(rho, "rho")
    if rho >= mu:
        raise ValueError(f"rho must be < mu (Theorem 2 needs mu > rho >= 0), got "
                         f"rho={rho!r}, mu={mu!r}")
    return mu, rho


def _vector(x, name, length=None):
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {x.shape}")
    if length is not None and x.size != length:
        raise ValueError(f"{name} must have length {length}, got {x.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or inf")
    return x


# -- Proposition 1 -----------------------------------------------------------------------

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


# -- Section IV: Theorems 2 and 3 ------------------------------------------------------

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


# -- Section V: Theorems 4 and 6 ---------------------------------------------------------

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


# -- quantities measured on a stream -----------------------------------------------------

def soft_margin_losses(values, y, margin):
    r"""Per-round soft margin loss (13): :math:`l_\mu(g_t(x_t), y_t) = \max(0, \mu - y_t g_t(x_t))`.

    Its sum is :math:`L_{\mathrm{cum},\mu}[\mathbf g, S]` (6), the ``K`` of
    Theorems 2-3 when ``values`` are a comparator's predictions.

    Parameters
    ----------
    values : array_like, shape (m,)
        Predictions :math:`g_t(x_t)`.
    y : array_like, shape (m,)
        Labels in {-1, +1}.
    margin : float
        :math:`\mu \ge 0`.

    Returns
    -------
    ndarray, shape (m,)

    Raises
    ------
    ValueError
        If ``values`` is not a finite non-empty vector, ``y`` not a matching
        vector of -1/+1 labels, or ``margin < 0``.
    """
    values = _vector(values, "values")
    y = v.labels(y, values.size, binary=True)
    margin = _nonnegative(margin, "margin")
    return np.maximum(0.0, margin - y * values)


@dataclass(frozen=True, eq=False)
class SoftMarginComparator:
    """Solution of :func:`soft_margin_comparator_loss`.

    Attributes
    ----------
    loss : float
        :math:`\\sum_t \\max(0, \\mu - y_t g(x_t))` at the returned ``g`` (an achieved
        value: a valid ``K`` for Theorems 2-3).
    lower_bound : float
        Certified lower bound on the minimum (``loss - lower_bound`` is the gap).
    coef : ndarray, shape (m,)
        :math:`g = \\sum_t a_t k(x_t, \\cdot)`.
    fitted : ndarray, shape (m,)
        :math:`g(x_t)`.
    norm : float
        :math:`\\|g\\|_{\\mathcal H}` (at most ``B`` up to round-off).
    B, mu : float
        Radius and margin.
    """

    loss: float
    lower_bound: float
    coef: np.ndarray
    fitted: np.ndarray
    norm: float
    B: float
    mu: float


def soft_margin_comparator_loss(K, y, B, mu, **solver):
    r"""Best stationary comparator of Theorems 2-3:
    :math:`\min_{\|g\|_{\mathcal H} \le B} \sum_t \max(0, \mu - y_t g(x_t))`.

    Scaling: :math:`\max(0, \mu - y g(x)) = \mu\max(0, 1 - y (g/\mu)(x))` and
    :math:`\|g\| \le B \iff \|g/\mu\| \le B/\mu`, so the minimum is
    :math:`\mu` times the hinge minimum over the ball of radius :math:`B/\mu`,
    computed by :func:`theory.best_hinge_in_ball`; the returned ``g`` is
    :math:`\mu` times its minimizer.

    Parameters
    ----------
    K : array_like, shape (m, m)
        PSD kernel matrix of the stream.
    y : array_like, shape (m,)
        Labels in {-1, +1}.
    B : float
        Radius :math:`B > 0`.
    mu : float
        Margin :math:`\mu > 0`.
    **solver
        Passed to :func:`theory.best_hinge_in_ball` (``tol``, ``rank_rtol``, ``max_iter``).

    Returns
    -------
    SoftMarginComparator

    Raises
    ------
    ValueError
        If ``B`` or ``mu`` is not positive, or ``K``/``y`` are invalid (see
        :func:`theory.best_hinge_in_ball`).
    """
    B = _positive(B, "B")
    mu = _positive(mu, "mu")
    res = best_hinge_in_ball(K, y, B / mu, **solver)
    return SoftMarginComparator(loss=mu * res.loss, lower_bound=mu * res.lower_bound,
                                coef=mu * res.coef, fitted=mu * res.fitted,
                                norm=mu * res.norm, B=B, mu=mu)


@dataclass(frozen=True)
class ComparatorPath:
    """Norms and path lengths of a comparator sequence (Sec. IV-B).

    Attributes
    ----------
    B : float
        :math:`\\max_t \\|g_t\\|_{\\mathcal H}`.
    D1 : float
        :math:`\\sum_{t=1}^{m-1} \\|g_t - g_{t+1}\\|_{\\mathcal H}`.
    D2 : float
        :math:`\\sum_{t=1}^{m-1} \\|g_t - g_{t+1}\\|_{\\mathcal H}^2`.
    norms : ndarray, shape (m,)
        :math:`\\|g_t\\|`.
    steps : ndarray, shape (m - 1,)
        :math:`\\|g_t - g_{t+1}\\|`.
    """

    B: float
    D1: float
    D2: float
    norms: np.ndarray
    steps: np.ndarray


def comparator_path(weights=None, *, coef=None, gram=None):
    r"""Path quantities :math:`B, D_1, D_2` of :math:`\mathcal G(B, D_1, D_2)` (Sec. IV-B).

    Give either explicit weight vectors (linear kernel :math:`k(x, v) = \langle x, v\rangle`,
    :math:`g_t = \langle w_t, \cdot\rangle`, :math:`\|g_t - g_{t+1}\| = \|w_t - w_{t+1}\|`),
    or kernel-expansion coefficients ``coef[t]`` of :math:`g_t = \sum_j a_{tj} k(z_j, \cdot)`
    with the Gram matrix ``gram`` of the centres :math:`z_j`
    (:math:`\|g_t - g_{t+1}\|^2 = (a_t - a_{t+1})^\top G (a_t - a_{t+1})`).

    Parameters
    ----------
    weights : array_like, shape (m, d), optional
    coef : array_like, shape (m, n), optional
    gram : array_like, shape (n, n), optional
        Required with ``coef``.

    Returns
    -------
    ComparatorPath

    Raises
    ------
    ValueError
        Unless exactly one of ``weights`` and ``coef`` (with ``gram``) is given as a
        finite 2-D array of matching shapes.
    """
    if (weights is None) == (coef is None):
        raise ValueError("give exactly one of weights and coef")
    if weights is not None:
        if gram is not None:
            raise ValueError("gram goes with coef, not with weights")
        W = np.asarray(weights, dtype=float)
        if W.ndim != 2 or W.shape[0] == 0:
            raise ValueError(f"weights must be a non-empty 2-D array (m, d), got shape {W.shape}")
        if not np.all(np.isfinite(W)):
            raise ValueError("weights contains NaN or inf")
        norms = np.linalg.norm(W, axis=1)
        steps = np.linalg.norm(np.diff(W, axis=0), axis=1)
    else:
        if gram is None:
            raise ValueError("gram is required with coef")
        A = np.asarray(coef, dtype=float)
        if A.ndim != 2 or A.shape[0] == 0:
            raise ValueError(f"coef must be a non-empty 2-D array (m, n), got shape {A.shape}")
        if not np.all(np.isfinite(A)):
            raise ValueError("coef contains NaN or inf")
        G = v.kernel_matrix(gram, "gram")
        if G.shape[0] != A.shape[1]:
            raise ValueError(f"gram must be ({A.shape[1]}, {A.shape[1]}) to match coef, "
                             f"got {G.shape}")
        sq = lambda M: np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", M, G, M), 0.0))  # noqa: E731
        norms = sq(A)
        steps = sq(np.diff(A, axis=0))
    return ComparatorPath(B=float(norms.max()), D1=float(steps.sum()),
                          D2=float(np.sum(steps ** 2)), norms=norms, steps=steps)


def regularized_risk(losses, norm_sq, lam):
    r"""Regularized risk (4) of a fixed ``g``:
    :math:`R_{\mathrm{reg},\lambda}[g, S] = \frac1m\sum_t l(g(x_t), y_t) + \frac\lambda2\|g\|^2`.

    Parameters
    ----------
    losses : array_like, shape (m,)
        :math:`l(g(x_t), y_t)`.
    norm_sq : float
        :math:`\|g\|_{\mathcal H}^2 \ge 0`.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``losses`` is not a finite non-empty vector or ``norm_sq``/``lam`` is negative.
    """
    losses = _vector(losses, "losses")
    norm_sq = _nonnegative(norm_sq, "norm_sq")
    lam = _nonnegative(lam, "lam")
    return float(losses.mean() + 0.5 * lam * norm_sq)


def cumulative_instantaneous_risk(losses, norm_sq, lam):
    r"""Left side of (35)/(37): :math:`\sum_t R_{\mathrm{inst},\lambda}[f_t, x_t, y_t]
    = \sum_t \big(l(f_t(x_t), y_t) + \frac\lambda2\|f_t\|^2\big)`, as a running sum.

    With an okl trace: ``losses = tr.losses``, ``norm_sq = tr.extras["norm_sq"]``
    (recorded with ``track_norm=True``).

    Parameters
    ----------
    losses : array_like, shape (m,)
    norm_sq : array_like, shape (m,)
        :math:`\|f_t\|^2 \ge 0` of the hypothesis used at round t.
    lam : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    ndarray, shape (m,)
        Entry ``n - 1`` is the sum over the first ``n`` rounds.

    Raises
    ------
    ValueError
        If the arrays are not finite vectors of equal length, ``norm_sq`` has a
        negative entry below round-off, or ``lam < 0``.
    """
    losses = _vector(losses, "losses")
    norm_sq = _vector(norm_sq, "norm_sq", losses.size)
    lam = _nonnegative(lam, "lam")
    if norm_sq.min() < -1e-9 * max(1.0, norm_sq.max()):
        raise ValueError("norm_sq has negative entries")
    return np.cumsum(losses + 0.5 * lam * np.maximum(norm_sq, 0.0))


@dataclass(frozen=True, eq=False)
class RegularizedComparator:
    """Solution of :func:`best_regularized_soft_margin`.

    Attributes
    ----------
    risk : float
        :math:`R_{\\mathrm{reg},\\lambda}[g, S]` at the returned ``g`` (achieved: any
        ``g`` is valid in Theorems 4 and 6).
    lower_bound : float
        Dual value, a certified lower bound on :math:`\\min_g R_{\\mathrm{reg},\\lambda}[g, S]`.
    gap : float
        ``risk - lower_bound``.
    coef : ndarray, shape (m,)
        :math:`g = \\sum_t a_t k(x_t, \\cdot)`.
    fitted : ndarray, shape (m,)
        :math:`g(x_t)`.
    norm_sq : float
        :math:`\\|g\\|_{\\mathcal H}^2`.
    lam, rho : float
    """

    risk: float
    lower_bound: float
    gap: float
    coef: np.ndarray
    fitted: np.ndarray
    norm_sq: float
    lam: float
    rho: float


def best_regularized_soft_margin(K, y, lam, rho=1.0, *, features=None, tol=1e-9,
                                 max_iter=20000):
    r"""Near-minimizer of (4) for the soft margin loss:
    :math:`\min_g \frac1m\sum_t \max(0, \rho - y_t g(x_t)) + \frac\lambda2\|g\|^2`.

    The comparator :math:`\hat g` of Theorems 4 and 6.  By the representer
    theorem :math:`g = \sum_t a_t k(x_t, \cdot)`.  Solved through the dual
    (the bias-free SVM dual)

    .. math::

        \max_{\beta \in [0, 1]^m} \frac{\rho}{m}\sum_t \beta_t
        - \frac{1}{2\lambda m^2}(\beta\circ y)^\top K (\beta\circ y),
        \qquad a = \frac{\beta \circ y}{\lambda m},

    a smooth box-constrained concave quadratic, with ``scipy.optimize``'s
    L-BFGS-B.  The returned ``g`` is the primal point of the final
    :math:`\beta` and ``risk`` its exact primal value, so the result is valid
    in the bounds however accurate the solver was (they hold for every ``g``);
    ``gap`` certifies how close to the minimum it is.  The primal point is then
    rescaled by the best :math:`s \in [0, 4]` (a convex 1-D problem; ``s = 0`` is
    :math:`g = 0`, risk :math:`\rho`), which repairs a dual point that is
    accurate while its primal image is not (degenerate duals).  ``rho = 0``
    returns :math:`g = 0` (risk 0, exact).

    Accuracy and cost: for :math:`\rho` of order 1 and :math:`\lambda \ge 0.05`
    the gap is below ``1e-6`` in the cases tried; for :math:`\rho` far below
    :math:`X^2/\lambda` (e.g. ``rho = 6e-5``, ``lam = 0.5``) the dual stalls and
    ``gap / risk`` can reach 0.3 -- the returned ``g`` remains valid.  L-BFGS-B
    needs many iterations when :math:`\lambda` is small (2-5 s for ``m = 1000``
    and :math:`\lambda \le 0.1` with a dense ``K``); with explicit ``features``
    each iteration costs :math:`O(m r)` instead of :math:`O(m^2)`.

    Parameters
    ----------
    K : array_like, shape (m, m), or None
        PSD kernel matrix; ``None`` when ``features`` is given.
    y : array_like, shape (m,)
        Labels in {-1, +1}.
    lam : float
        :math:`\lambda > 0`.
    rho : float, default 1.0
        Margin :math:`\rho \ge 0` of the loss (13).
    features : array_like, shape (m, r), optional
        Explicit features with :math:`K = \Phi\Phi^\top` (for the linear
        kernel, the inputs themselves); exclusive with ``K``.  Then ``coef`` is
        still the expansion on the ``m`` points, and ``g`` is also
        :math:`w = \Phi^\top a`.
    tol : float, default 1e-9
        ``ftol`` (and ``gtol = tol / m``) of L-BFGS-B, on the dual objective
        divided by :math:`\rho` (a relative tolerance).
    max_iter : int, default 20000
        Iteration cap.

    Returns
    -------
    RegularizedComparator

    Raises
    ------
    ValueError
        If not exactly one of ``K`` (a symmetric finite square matrix) and
        ``features`` (a finite 2-D array) is given, ``y`` is not a matching
        vector of -1/+1 labels, ``lam <= 0``, ``rho < 0``, ``tol <= 0`` or
        ``max_iter < 1``.
    """
    if (K is None) == (features is None):
        raise ValueError("give exactly one of K and features")
    if K is not None:
        K = v.kernel_matrix(K)
        m = K.shape[0]
        apply_K = lambda a: K @ a  # noqa: E731
    else:
        Phi = np.asarray(features, dtype=float)
        if Phi.ndim != 2 or Phi.shape[0] == 0 or Phi.shape[1] == 0:
            raise ValueError(f"features must be a non-empty 2-D array (m, r), got shape "
                             f"{Phi.shape}")
        if not np.all(np.isfinite(Phi)):
            raise ValueError("features contains NaN or inf")
        m = Phi.shape[0]
        apply_K = lambda a: Phi @ (Phi.T @ a)  # noqa: E731
    y = v.labels(y, m, binary=True)
    lam = _positive(lam, "lam")
    rho = _nonnegative(rho, "rho")
    tol = _positive(tol, "tol")
    max_iter = _integer(max_iter, "max_iter", 1)
    if rho == 0.0:      # the loss and the penalty are >= 0 and g = 0 attains 0
        zero = np.zeros(m)
        return RegularizedComparator(risk=0.0, lower_bound=0.0, gap=0.0, coef=zero,
                                     fitted=zero.copy(), norm_sq=0.0, lam=lam, rho=rho)
    scale = 1.0 / (lam * m)

    # minimize -dual / rho = (-rho sum(beta) + beta^T Q beta / 2) / (rho m), with
    # Q = diag(y) K diag(y) / (lam m): of order 1, so that L-BFGS-B's tolerances
    # (relative to max(|f|, 1)) are relative for every rho
    def fun(beta):
        Qb = scale * y * apply_K(y * beta)
        return ((-rho * beta.sum() + 0.5 * beta @ Qb) / (rho * m), (Qb - rho) / (rho * m))

    res = optimize.minimize(fun, np.full(m, 0.5), jac=True, method="L-BFGS-B",
                            bounds=[(0.0, 1.0)] * m,
                            options={"maxiter": max_iter, "ftol": tol, "gtol": tol / m,
                                     "maxcor": 30})
    beta = np.clip(res.x, 0.0, 1.0)
    by = beta * y
    coef = by / (lam * m)
    fitted = apply_K(coef)
    norm_sq = float(max(coef @ fitted, 0.0))
    dual = float(rho * beta.mean() - 0.5 * lam * norm_sq)   # ||w||^2 = (by)^T K (by)/(lam m)^2
    # polish the primal point along its own ray (s g, s >= 0; s = 0 is g = 0): a
    # convex 1-D problem, which repairs the scale when the dual point is accurate but
    # its primal image is not (degenerate duals, rho small against X^2 / lam)
    yf = y * fitted

    def ray(s):
        return float(np.mean(np.maximum(0.0, rho - s * yf)) + 0.5 * lam * s * s * norm_sq)
    s_best = min((0.0, 1.0), key=ray)
    if norm_sq > 0.0:
        line = optimize.minimize_scalar(ray, bounds=(0.0, 4.0), method="bounded",
                                        options={"xatol": 1e-12})
        if ray(line.x) < ray(s_best):
            s_best = float(line.x)
    risk = ray(s_best)
    coef, fitted, norm_sq = s_best * coef, s_best * fitted, s_best * s_best * norm_sq
    # the value of the returned g itself (equal to ray(s_best) up to round-off)
    risk = float(np.mean(np.maximum(0.0, rho - y * fitted)) + 0.5 * lam * norm_sq)
    return RegularizedComparator(risk=risk, lower_bound=dual, gap=max(risk - dual, 0.0),
                                 coef=coef, fitted=fitted, norm_sq=norm_sq, lam=lam, rho=rho)
