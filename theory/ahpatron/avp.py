r"""AVP, the Ahpatron paper's Perceptron without a budget (Algorithm 1): Theorem 3 and its
tunings, Corollaries 1 and 2.

Notation: :mod:`theory.ahpatron`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._checks import _integer, _nonnegative, _positive, _real, _vector

__all__ = [
    "AVPParameters",
    "avp_theorem3_bound",
    "avp_constant_rate_bound",
    "avp_corollary1_parameters",
    "avp_corollary1_bound",
    "avp_corollary2_parameters",
    "avp_corollary2_delta",
    "avp_corollary2_bound",
]


@dataclass(frozen=True)
class AVPParameters:
    r"""Parameters of AVP (Algorithm 1) prescribed by Corollary 1 or 2.

    Attributes
    ----------
    U : float
        Radius of :math:`\mathbb H` (``inf`` for Corollary 1: no projection).
    lam : float
        Learning rate :math:`\lambda_t`.
    eps_low, eps_high : float
        :math:`\varepsilon_t` must lie in the *open* interval
        ``(eps_low, eps_high)`` (condition (5): :math:`\lambda_t/2 < \varepsilon_t < 1`).
    """

    U: float
    lam: float
    eps_low: float
    eps_high: float


def avp_theorem3_bound(L, drift, lam_mistakes, lam_margin, eps_margin):
    r"""Theorem 3: the bound on :math:`|M'_T|` for AVP with any rates and slacks.

    .. math::

        |M'_T| \le L_T(f) + \sum_{t \in M'_T \cup N_T} \frac{\delta_t}{2\lambda_t}
        + \sum_{t \in M'_T}\frac{\lambda_t}{2}
        + \sum_{t \in N_T}\Big(\frac{\lambda_t}{2} - \varepsilon_t\Big),
        \qquad \delta_t = \|f_t - f\|^2 - \|f_{t+1} - f\|^2,

    for any :math:`f \in \mathbb H`, under (5): :math:`0 < \lambda_t < 2` and
    :math:`\lambda_t/2 < \varepsilon_t < 1`.  Meant for a measured run: every
    argument is a per-round quantity of the same run.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    drift : float
        :math:`\sum_{t \in M'_T \cup N_T} \delta_t / (2\lambda_t)` (any sign).
        With a constant :math:`\lambda` it telescopes to at most
        :math:`\|f\|^2/(2\lambda)` (:math:`f_1 = 0`; :math:`\delta_t = 0` on
        rounds without update).
    lam_mistakes : array_like, shape ``(|M'_T|,)``
        :math:`\lambda_t` on the rounds of :math:`M'_T` (may be empty).
    lam_margin : array_like, shape ``(|N_T|,)``
        :math:`\lambda_t` on the rounds of :math:`N_T` (may be empty).
    eps_margin : array_like, shape ``(|N_T|,)``
        :math:`\varepsilon_t` on the rounds of :math:`N_T`.

    Returns
    -------
    float
        The right-hand side (a bound on :math:`|M'_T| \ge |M_T|`).

    Raises
    ------
    ValueError
        If ``L`` is negative, ``drift`` is not finite, an array is not 1-D or
        not finite, ``lam_margin`` and ``eps_margin`` differ in length, or
        (5) fails: some rate is not in ``(0, 2)`` or some
        ``eps_margin`` is not in ``(lam_margin / 2, 1)``.
    """
    L = _nonnegative(L, "L")
    drift = _real(drift, "drift")
    lam_m = _vector(lam_mistakes, "lam_mistakes")
    lam_n = _vector(lam_margin, "lam_margin")
    eps_n = _vector(eps_margin, "eps_margin")
    if lam_n.size != eps_n.size:
        raise ValueError(f"lam_margin and eps_margin must have the same length, got "
                         f"{lam_n.size} and {eps_n.size}")
    for arr, name in ((lam_m, "lam_mistakes"), (lam_n, "lam_margin")):
        if arr.size and not (np.all(arr > 0.0) and np.all(arr < 2.0)):
            raise ValueError(f"{name} must lie in (0, 2) (Theorem 3 needs lambda_t < 2)")
    if eps_n.size and not (np.all(eps_n > lam_n / 2.0) and np.all(eps_n < 1.0)):
        raise ValueError("eps_margin must lie in (lam_margin / 2, 1) (condition (5))")
    return float(L + drift + lam_m.sum() / 2.0 + np.sum(lam_n / 2.0 - eps_n))


def avp_constant_rate_bound(L, f_norm, lam, eps, n_margin):
    r"""Theorem 3 with a constant rate and slack, solved for :math:`|M'_T|`.

    With :math:`\lambda_t = \lambda \in (0, 2)`, :math:`\varepsilon_t =
    \varepsilon \in (\lambda/2, 1)` and the telescoped drift
    :math:`\sum_t \delta_t/(2\lambda) \le \|f\|^2/(2\lambda)`,

    .. math::

        |M_T| \le |M'_T| \le \frac{L_T(f) + \|f\|^2_{\mathcal H}/(2\lambda)
        + (\lambda/2 - \varepsilon)|N_T|}{1 - \lambda/2}.

    :math:`\lambda = 1` is Corollary 1 (:func:`avp_corollary1_bound`).  The
    derivation needs only :math:`\|f\| \le U` (projection onto
    :math:`\mathbb H` is non-expansive towards :math:`f`), so it holds for any
    :math:`U \ge \|f\|`, including :math:`U = \infty`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \ge 0`.
    lam : float
        :math:`0 < \lambda < 2`.
    eps : float
        :math:`\lambda/2 < \varepsilon < 1`.
    n_margin : int
        :math:`|N_T| \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L``/``f_norm`` is negative, ``lam`` is not in ``(0, 2)``, ``eps`` is
        not in ``(lam/2, 1)`` or ``n_margin`` is not an integer ``>= 0``.
    """
    L = _nonnegative(L, "L")
    f_norm = _nonnegative(f_norm, "f_norm")
    lam = _positive(lam, "lam")
    if lam >= 2.0:
        raise ValueError(f"lam must be < 2 (Theorem 3), got {lam!r}")
    eps = _real(eps, "eps")
    if not lam / 2.0 < eps < 1.0:
        raise ValueError(f"eps must lie in (lam/2, 1) (condition (5)), got eps={eps!r}, "
                         f"lam={lam!r}")
    n = _integer(n_margin, "n_margin", 0)
    return (L + f_norm * f_norm / (2.0 * lam) + (lam / 2.0 - eps) * n) / (1.0 - lam / 2.0)


def avp_corollary1_parameters():
    r"""Corollary 1's setting: :math:`U = +\infty`, :math:`\lambda_t = 1`,
    :math:`\varepsilon_t = \varepsilon \in (1/2, 1)`.

    Returns
    -------
    AVPParameters
        ``U=inf, lam=1, eps_low=0.5, eps_high=1``.
    """
    return AVPParameters(U=math.inf, lam=1.0, eps_low=0.5, eps_high=1.0)


def avp_corollary1_bound(L, f_norm, eps, n_margin):
    r"""Corollary 1: :math:`|M_T| \le 2L_T(f) + \|f\|_{\mathcal H}^2 + (1 - 2\varepsilon)|N_T|`.

    AVP with :math:`U = \infty`, :math:`\lambda = 1`, :math:`\varepsilon \in
    (1/2, 1)`, any :math:`f \in \mathcal H`.  The last term is :math:`\le 0`:
    Theorem 1's Perceptron bound minus :math:`(2\varepsilon - 1)|N_T|`.  (The
    "Main Results" section writes it :math:`\Delta_T`, a symbol Corollary 2
    reuses for a different sum, see :func:`avp_corollary2_delta`.)  Note
    :math:`|N_T|` is a property of the run and depends on :math:`\varepsilon`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    f_norm : float
        :math:`\|f\|_{\mathcal H} \ge 0`.
    eps : float
        :math:`\varepsilon \in (1/2, 1)`.
    n_margin : int
        :math:`|N_T| \ge 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L``/``f_norm`` is negative, ``eps`` is not in ``(1/2, 1)`` or
        ``n_margin`` is not an integer ``>= 0``.
    """
    eps_r = _real(eps, "eps")
    if not 0.5 < eps_r < 1.0:
        raise ValueError(f"eps must lie in (1/2, 1) (Corollary 1), got {eps!r}")
    return avp_constant_rate_bound(L, f_norm, 1.0, eps_r, n_margin)


def avp_corollary2_parameters(U, n_mistakes):
    r"""Corollary 2's rate at a round :math:`t`:
    :math:`\lambda_t = U / \sqrt{U^2 + \sum_{\tau=1}^t \mathbb I_{y_\tau f_\tau(x_\tau) \le 0}}`
    and the slack range :math:`\lambda_t/2 < \varepsilon_t < 1`.

    The count includes round :math:`t` itself (so :math:`\lambda_t = 1` until
    the first round of :math:`M'_T`); :math:`\lambda_t \le 1` is
    non-increasing.

    Parameters
    ----------
    U : float
        Finite radius :math:`U > 0`.
    n_mistakes : int
        :math:`|M'_T \cap [t]| \ge 0`.

    Returns
    -------
    AVPParameters

    Raises
    ------
    ValueError
        If ``U`` is not positive and finite or ``n_mistakes`` is not an integer ``>= 0``.
    """
    U = _positive(U, "U")
    n = _integer(n_mistakes, "n_mistakes", 0)
    lam = U / math.sqrt(U * U + n)
    return AVPParameters(U=U, lam=lam, eps_low=lam / 2.0, eps_high=1.0)


def avp_corollary2_delta(lam_margin, eps_margin):
    r"""Corollary 2's :math:`\Delta_T = \sum_{t \in N_T} (\lambda_t/2 - \varepsilon_t) \le 0`.

    Parameters
    ----------
    lam_margin : array_like, shape ``(|N_T|,)``
        :math:`\lambda_t > 0` on the rounds of :math:`N_T` (may be empty).
    eps_margin : array_like, shape ``(|N_T|,)``
        :math:`\varepsilon_t \in (\lambda_t/2, 1)` on the same rounds.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the arrays are not 1-D and finite, differ in length, some rate is
        not positive or some slack is outside ``(lam/2, 1)``.
    """
    lam = _vector(lam_margin, "lam_margin")
    eps = _vector(eps_margin, "eps_margin")
    if lam.size != eps.size:
        raise ValueError(f"lam_margin and eps_margin must have the same length, got "
                         f"{lam.size} and {eps.size}")
    if lam.size and not np.all(lam > 0.0):
        raise ValueError("lam_margin must be > 0")
    if eps.size and not (np.all(eps > lam / 2.0) and np.all(eps < 1.0)):
        raise ValueError("eps_margin must lie in (lam_margin / 2, 1) (condition (5))")
    return float(np.sum(lam / 2.0 - eps))


def avp_corollary2_bound(L, U, delta):
    r"""Corollary 2: AVP with the rates of :func:`avp_corollary2_parameters`,
    for any :math:`f \in \mathbb H`:

    .. math::

        |M_T| \le A + 9U^2 + 3U\sqrt A, \qquad A = \max\{L_T(f) + 2U^2 + \Delta_T, 0\}.

    Reconstructed: :math:`\sum_t \delta_t/(2\lambda_t) \le 2U^2/\lambda_T =
    2U\sqrt{U^2 + m}` (:math:`\lambda_t` non-increasing,
    :math:`\|f_t - f\| \le 2U`), :math:`\sum_{M'_T}\lambda_t/2 \le U\sqrt{U^2+m} - U^2`
    with :math:`m = |M'_T|`, then :math:`\sqrt{U^2+m} \le U + \sqrt m` gives
    :math:`m \le A + 3U\sqrt m`, whose solution is the bound; it bounds
    :math:`|M'_T|`.

    Parameters
    ----------
    L : float
        :math:`L_T(f) \ge 0`.
    U : float
        Radius :math:`U > 0` (finite).
    delta : float
        :math:`\Delta_T \le 0` from :func:`avp_corollary2_delta`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``L`` is negative, ``U`` is not positive and finite, or ``delta`` is
        positive (impossible under (5)).
    """
    L = _nonnegative(L, "L")
    U = _positive(U, "U")
    delta = _real(delta, "delta")
    if delta > 0.0:
        raise ValueError(f"delta must be <= 0 (Delta_T <= 0 under (5)), got {delta!r}")
    A = max(L + 2.0 * U * U + delta, 0.0)
    return A + 9.0 * U * U + 3.0 * U * math.sqrt(A)
