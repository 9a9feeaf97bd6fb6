r"""PKAWV with Nystrom projections chosen by KORS (Section 3.2): Proposition 5 (the size
of the dictionary), Theorem 6 and the rates of Corollaries 7 and 8.

Notation: :mod:`theory.awv`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _validation as v
from ._checks import _gamma, _prob

__all__ = [
    "proposition5_beta",
    "proposition5_size_bound",
    "theorem6_bound",
    "CorollaryRate",
    "corollary7",
    "corollary8",
]


def proposition5_beta(n, delta):
    r"""KORS's :math:`\beta = 12\log(n/\delta)` of Proposition 5 ([13, Prop. 1])."""
    n = v.integer(n, "n", 1)
    return 12.0 * math.log(n / _prob(delta))


def proposition5_size_bound(d_eff_mu, n, delta):
    r"""Proposition 5: w.p. :math:`1 - \delta`,
    :math:`|\mathcal I_t| \le 9 d_{\mathrm{eff}}(\mu)\log(2n/\delta)^2`."""
    d_eff_mu = v.nonnegative(d_eff_mu, "d_eff_mu")
    n = v.integer(n, "n", 1)
    return 9.0 * d_eff_mu * math.log(2.0 * n / _prob(delta)) ** 2


def theorem6_bound(lam, f_norm2, B, d_eff, n, kappa2, dict_size, mu):
    r"""Theorem 6: :math:`R_n \le \lambda\|f\|^2 + B^2 d_{\mathrm{eff}}(\lambda)
    \log(e + en\kappa^2/\lambda) + 2B^2(|\mathcal I_n| + 1)n\mu/\lambda`.

    Holds (deterministically, Appendix E.1) whenever the dictionaries are nested and
    :math:`\|(I - P_t)C_t^{1/2}\|^2 \le \mu \le \lambda` for every ``t``; Proposition 5
    makes this hold for KORS with probability :math:`1 - \delta`.  On a run, ``mu`` can be
    the measured :math:`\max_t\|(I - P_t)C_t^{1/2}\|^2`
    (``Theorem9Terms.mu_residual_max``).

    Raises
    ------
    ValueError
        If ``mu > lam`` (the theorem assumes :math:`\lambda \ge \mu`).
    """
    lam = v.positive(lam, "lam")
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    B = v.positive(B, "B")
    d_eff = v.nonnegative(d_eff, "d_eff")
    n = v.integer(n, "n", 1)
    kappa2 = v.positive(kappa2, "kappa2")
    dict_size = v.integer(dict_size, "dict_size", 0)
    mu = v.nonnegative(mu, "mu")
    if mu > lam:
        raise ValueError(f"Theorem 6 needs mu <= lam, got mu={mu!r} > lam={lam!r}")
    return (lam * f_norm2 + B * B * d_eff * math.log(math.e + math.e * n * kappa2 / lam)
            + 2.0 * B * B * (dict_size + 1) * n * mu / lam)


@dataclass(frozen=True)
class CorollaryRate:
    r"""Parameters and rate order of Corollary 7 or 8 (orders in ``n``, constants and logs
    dropped, as the corollaries' :math:`\lesssim`).

    Attributes
    ----------
    mu : float
        :math:`\mu = n m^{-1/\gamma}`.
    lam : float
        The prescribed :math:`\lambda`.
    regime : str
        ``"optimal"`` (dictionary large enough) or ``"dictionary-limited"``.
    threshold : float
        The dictionary size separating the regimes.
    rate : float
        The regret order.
    terms : tuple of float
        The three terms of the proof's bound at ``lam``: :math:`\lambda`,
        :math:`(n/\lambda)^\gamma` and the approximation term (:math:`n^2m^{1-1/\gamma}/\lambda`
        for Cor. 7, eq. (35)-(36); :math:`n^2 m^{-1/\gamma}/\lambda` for Cor. 8); each is at
        most ``rate``.
    """

    mu: float
    lam: float
    regime: str
    threshold: float
    rate: float
    terms: tuple


def _corollary_args(n, m, gamma):
    n = v.integer(n, "n", 1)
    m = v.real(m, "m")
    if m < 1.0:
        raise ValueError(f"m must be >= 1, got {m!r}")
    return n, m, _gamma(gamma)


def corollary7(n, m, gamma):
    r"""Corollary 7 (capacity :math:`d_{\mathrm{eff}}(\lambda') \le (n/\lambda')^\gamma`,
    sequentially revealed inputs): with :math:`\mu = n m^{-1/\gamma}`,
    :math:`R_n \lesssim n^{\gamma/(1+\gamma)}` for :math:`\lambda = n^{\gamma/(1+\gamma)}` if
    :math:`m \ge n^{2\gamma/(1-\gamma^2)}`, else :math:`R_n \lesssim nm^{1/2 - 1/(2\gamma)}`
    for :math:`\lambda = nm^{1/2 - 1/(2\gamma)}`."""
    n, m, g = _corollary_args(n, m, gamma)
    threshold = n ** (2 * g / (1 - g * g))
    if m >= threshold:
        lam, regime = n ** (g / (1 + g)), "optimal"
    else:
        lam, regime = n * m ** (0.5 - 0.5 / g), "dictionary-limited"
    terms = (lam, (n / lam) ** g, n * n * m ** (1 - 1 / g) / lam)
    return CorollaryRate(mu=n * m ** (-1 / g), lam=lam, regime=regime, threshold=threshold,
                         rate=lam, terms=terms)


def corollary8(n, m, gamma):
    r"""Corollary 8 (inputs known beforehand, fixed dictionary :math:`\mathcal I_n`):
    :math:`R_n \lesssim n^{\gamma/(1+\gamma)}` for :math:`\lambda = n^{\gamma/(1+\gamma)}` if
    :math:`m \ge n^{2\gamma/(1+\gamma)}`, else :math:`R_n \lesssim nm^{-1/(2\gamma)}` for
    :math:`\lambda = nm^{-1/(2\gamma)}`."""
    n, m, g = _corollary_args(n, m, gamma)
    threshold = n ** (2 * g / (1 + g))
    if m >= threshold:
        lam, regime = n ** (g / (1 + g)), "optimal"
    else:
        lam, regime = n * m ** (-0.5 / g), "dictionary-limited"
    terms = (lam, (n / lam) ** g, n * n * m ** (-1 / g) / lam)
    return CorollaryRate(mu=n * m ** (-1 / g), lam=lam, regime=regime, threshold=threshold,
                         rate=lam, terms=terms)
