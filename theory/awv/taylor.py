r"""PKAWV with Taylor features (Section 3.1): Lemma 13 and Theorem 4, each step of its
proof (Appendix D.2) and its cost.

Notation: :mod:`theory.awv`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .. import _validation as v
from ._checks import _points

__all__ = [
    "lemma13_bound",
    "lemma13_pointwise_bound",
    "theorem4_M",
    "theorem4_condition",
    "THEOREM4_CONSTANT",
    "THEOREM4_PROOF_CONSTANT",
    "theorem4_bound",
    "Theorem4Chain",
    "theorem4_chain",
    "theorem4_cost",
]

#: Constant in front of :math:`B^2 \sum_j \log(1 + \lambda_j/\lambda)` in Theorem 4's statement.
THEOREM4_CONSTANT = 1.5
#: The constant its proof gives: 1 + 4/9 (eqs. (33)-(34)).
THEOREM4_PROOF_CONSTANT = 13.0 / 9.0


def _log_lemma13(log_ratio, M):
    """log of a^(M+1) / (M+1)! given log a."""
    return (M + 1) * log_ratio - special.gammaln(M + 2)


def lemma13_bound(R, sigma, M):
    r"""Lemma 13, eq. (30): for :math:`\|x\|, \|x'\| \le R`,
    :math:`|k(x, x') - \sum_{g \in G_M} g(x)g(x')| \le (R/\sigma)^{2M+2}/(M+1)!`."""
    R = v.positive(R, "R")
    sigma = v.positive(sigma, "sigma")
    M = v.integer(M, "M", 0)
    return float(np.exp(_log_lemma13(2.0 * math.log(R / sigma), M)))


def lemma13_pointwise_bound(X, Z=None, *, sigma, M):
    r"""The step of Lemma 13's proof before :math:`\|x\|,\|x'\| \le R`:
    :math:`(|x^\top x'|/\sigma^2)^{M+1}/(M+1)!` for every pair of rows (see module notes
    for the corrected mean-value argument)."""
    X = _points(X)
    Z = X if Z is None else _points(Z, "Z")
    sigma = v.positive(sigma, "sigma")
    M = v.integer(M, "M", 0)
    a = np.abs(X @ Z.T) / sigma ** 2
    with np.errstate(divide="ignore"):
        return np.exp(_log_lemma13(np.log(a), M))


def theorem4_M(n, lam, R, sigma):
    r"""Theorem 4's degree :math:`M = \lceil 8R^2/\sigma^2 \vee 2\log(n/(\lambda \wedge 1))\rceil`:
    the smallest integer satisfying :func:`theorem4_condition` (``R = 0``, inputs at the
    origin, is allowed: then only the second term counts).  The printed formula can
    give 0; the proof's step (32) also needs ``M >= 1``, which PKAWV adds
    (``okl.learners.awv.theorem4_M``)."""
    n = v.integer(n, "n", 1)
    lam = v.positive(lam, "lam")
    R = v.nonnegative(R, "R")
    sigma = v.positive(sigma, "sigma")
    return max(int(math.ceil(max(8.0 * R * R / sigma ** 2, 2.0 * math.log(n / min(lam, 1.0))))),
               0)


def theorem4_condition(M, n, lam, R, sigma):
    r"""``True`` iff :math:`M \ge 8R^2/\sigma^2` and :math:`M \ge 2\log(n/(\lambda\wedge 1))`,
    the two properties the proof of Theorem 4 uses (:math:`M + 1 \ge e^2R^2/\sigma^2` and
    :math:`M \ge \log(n/\lambda)`, :math:`e^{-M} \le (\lambda \wedge 1)^2/n^2`)."""
    M = v.integer(M, "M", 0)
    n = v.integer(n, "n", 1)
    lam = v.positive(lam, "lam")
    R = v.nonnegative(R, "R")
    sigma = v.positive(sigma, "sigma")
    return bool(M >= 8.0 * R * R / sigma ** 2 and M >= 2.0 * math.log(n / min(lam, 1.0)))


def theorem4_bound(lam, f_norm2, B, log_det, *, constant=THEOREM4_CONSTANT):
    r"""Theorem 4: with :func:`theorem4_M`'s ``M``, PKAWV with the Taylor basis :math:`G_M`
    has :math:`R_n(f) \le \lambda\|f\|^2 + \frac{3}{2}B^2\sum_j\log(1 + \lambda_j(K_{nn})/\lambda)`.

    ``constant=THEOREM4_PROOF_CONSTANT`` (13/9) gives what the proof shows.  The theorem
    is for the Gaussian kernel (:math:`k(x, x) = 1`, used in eq. (34)).
    """
    lam = v.positive(lam, "lam")
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    B = v.positive(B, "B")
    log_det = v.nonnegative(log_det, "log_det")
    constant = v.positive(constant, "constant")
    return lam * f_norm2 + constant * B * B * log_det


@dataclass(frozen=True, eq=False)
class Theorem4Chain:
    r"""The successive upper bounds of the proof of Theorem 4 (Appendix D.2), each at least
    the previous one's left-hand side when :func:`theorem4_condition` holds.

    Attributes
    ----------
    mu_lemma13 : float
        :math:`n (R/\sigma)^{2M+2}/(M+1)!` (eq. (32), first bound on :math:`\mu`).
    mu_stirling : float
        :math:`n e^{-(M+1)\log((M+1)\sigma^2/(eR^2))}/\sqrt{2\pi(M+1)}`.
    mu_exp : float
        :math:`n e^{-(M+1)}/\sqrt{2\pi(M+1)}`.
    mu_ninth : float
        :math:`n e^{-M}/9` (needs :math:`M \ge 1`).
    lam_ninth : float
        :math:`\lambda/9`.
    approx_term : float
        :math:`2B^2 n^2 e^{-M}/(9\lambda)`, bounding :math:`B^2(\mu+\lambda)\mu n/\lambda^2`
        for :math:`\mu \le` ``mu_ninth``.
    approx_min : float
        :math:`\frac29 B^2(\lambda \wedge \lambda^{-1})` (eq. (33)).
    approx_log : float
        :math:`\frac49 B^2\log(1 + 1/\lambda)` (eq. (33)).
    approx_logdet_floor : float
        :math:`\frac49 B^2\log(1 + n/\lambda)` (eq. (34); at most :math:`\frac49 B^2
        \sum_j\log(1 + \lambda_j/\lambda)` for a kernel with :math:`k(x,x) = 1`).
    """

    mu_lemma13: float
    mu_stirling: float
    mu_exp: float
    mu_ninth: float
    lam_ninth: float
    approx_term: float
    approx_min: float
    approx_log: float
    approx_logdet_floor: float


def theorem4_chain(n, lam, R, sigma, B, M=None):
    r"""Evaluate each inequality of the proof of Theorem 4 (eqs. (32)-(34)).

    ``M`` defaults to :func:`theorem4_M`.  See :class:`Theorem4Chain`.
    """
    n = v.integer(n, "n", 1)
    lam = v.positive(lam, "lam")
    R = v.positive(R, "R")
    sigma = v.positive(sigma, "sigma")
    B = v.positive(B, "B")
    M = theorem4_M(n, lam, R, sigma) if M is None else v.integer(M, "M", 1)
    r2 = (R / sigma) ** 2
    m1 = M + 1
    stirling = n * math.exp(-m1 * math.log(m1 / (math.e * r2))) / math.sqrt(2 * math.pi * m1)
    return Theorem4Chain(
        mu_lemma13=n * lemma13_bound(R, sigma, M),
        mu_stirling=stirling,
        mu_exp=n * math.exp(-m1) / math.sqrt(2 * math.pi * m1),
        mu_ninth=n * math.exp(-M) / 9.0,
        lam_ninth=lam / 9.0,
        approx_term=2.0 * B * B * n * n * math.exp(-M) / (9.0 * lam),
        approx_min=2.0 / 9.0 * B * B * min(lam, 1.0 / lam),
        approx_log=4.0 / 9.0 * B * B * math.log1p(1.0 / lam),
        approx_logdet_floor=4.0 / 9.0 * B * B * math.log1p(n / lam),
    )


def theorem4_cost(n, lam, d):
    r"""Theorem 4's per-round cost order :math:`(3 + \frac1d\log\frac{n}{\lambda\wedge 1})^{2d}`.

    An order (``O``) statement: Algorithm 1 with :math:`r = \binom{M+d}{d}` features costs
    :math:`O(r^2 + rd)` per round, and :math:`r \le e^d(1 + M/d)^d`; compare with
    ``taylor_basis_size(theorem4_M(...), d) ** 2``.
    """
    n = v.integer(n, "n", 1)
    lam = v.positive(lam, "lam")
    d = v.integer(d, "d", 1)
    return (3.0 + math.log(n / min(lam, 1.0)) / d) ** (2 * d)
