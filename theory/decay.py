r"""Eigenvalue-decay envelopes of Theorem 1 of Li & Liao (AAAI 2023).

Theorem 1 bounds the ALD budget when the eigenvalues
:math:`\lambda_1 \ge \dots \ge \lambda_T` of :math:`K_T` decay either
exponentially, :math:`\lambda_i \le R_0 r^i` with :math:`0 < r < 1`, or
polynomially, :math:`\lambda_i \le R_0 i^{-p}` with :math:`p \ge 1`
(indices start at 1).

Fitting method (both fits):

1. Keep the eigenvalues :math:`\lambda_i > \mathrm{rtol}\cdot\lambda_1`
   (a prefix :math:`i = 1..n` of the sorted spectrum); smaller ones are
   treated as numerical zeros and are not constrained by the envelope.
2. The rate is the ordinary least-squares slope of :math:`\log\lambda_i`
   against :math:`i` (exponential: slope :math:`\log r`) or against
   :math:`\log i` (polynomial: slope :math:`-p`).
3. If the rate falls outside the range Theorem 1 requires it is clipped:
   :math:`r` to at most ``MAX_RATIO`` (:math:`1 - 10^{-12}`), :math:`p` to at
   least 1, and ``clipped`` is set.
4. :math:`R_0` is the smallest constant for which the envelope dominates every
   kept eigenvalue, :math:`R_0 = \max_{i \le n} \lambda_i / e_i` (with
   :math:`e_i = r^i` or :math:`i^{-p}`), enlarged by 4 ulp so that the
   inequality of Theorem 1 holds exactly in floating point on the fitted
   eigenvalues.

On a spectrum that is exactly :math:`R_0 r^i` (resp. :math:`R_0 i^{-p}`) this
recovers :math:`(R_0, r)` (resp. :math:`(R_0, p)`) up to rounding.
"""
import numbers
from dataclasses import dataclass

import numpy as np

from . import _validation as v

__all__ = [
    "MAX_RATIO",
    "ExponentialDecay",
    "PolynomialDecay",
    "fit_exponential_decay",
    "fit_polynomial_decay",
]

#: Largest decay ratio an exponential fit returns (Theorem 1 needs r < 1).
MAX_RATIO = 1.0 - 1e-12
_SAFETY = 1.0 + 4 * np.finfo(float).eps


def _indices(i):
    i = np.asarray(i, dtype=float)
    if np.any(i < 1) or not np.all(np.isfinite(i)):
        raise ValueError("i must contain indices >= 1")
    return i


@dataclass(frozen=True)
class ExponentialDecay:
    """Exponential envelope :math:`\\lambda_i \\le R_0 r^i` (Li & Liao 2023, Theorem 1).

    Attributes
    ----------
    R0 : float
        Envelope constant.
    r : float
        Decay ratio in (0, 1).
    n_fit : int
        Number of leading eigenvalues the fit used (and that the envelope dominates).
    clipped : bool
        True if the least-squares ratio was >= 1 and was clipped to ``MAX_RATIO``.
    """

    R0: float
    r: float
    n_fit: int
    clipped: bool

    def envelope(self, i):
        """Envelope values :math:`R_0 r^i` at the 1-based indices ``i``."""
        return self.R0 * np.power(self.r, _indices(i))


@dataclass(frozen=True)
class PolynomialDecay:
    """Polynomial envelope :math:`\\lambda_i \\le R_0 i^{-p}` (Li & Liao 2023, Theorem 1).

    Attributes
    ----------
    R0 : float
        Envelope constant.
    p : float
        Decay exponent, at least 1.
    n_fit : int
        Number of leading eigenvalues the fit used (and that the envelope dominates).
    clipped : bool
        True if the least-squares exponent was < 1 and was clipped to 1.
    """

    R0: float
    p: float
    n_fit: int
    clipped: bool

    def envelope(self, i):
        """Envelope values :math:`R_0 i^{-p}` at the 1-based indices ``i``."""
        return self.R0 * np.power(_indices(i), -self.p)


def _leading(K, eigenvalues, rtol):
    if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real) or not 0 <= rtol < 1:
        raise ValueError(f"rtol must be a number in [0, 1), got {rtol!r}")
    ev = v.spectrum(K, eigenvalues)
    ev = ev[ev > max(rtol * ev[0], 0.0)]
    if ev.size < 2:
        raise ValueError(
            "fewer than two eigenvalues exceed rtol * lambda_1: the decay rate is undetermined"
        )
    return ev, np.arange(1, ev.size + 1, dtype=float)


def fit_exponential_decay(K=None, *, eigenvalues=None, rtol=1e-10):
    r"""Fit :math:`\lambda_i \le R_0 r^i` (Li & Liao 2023, Theorem 1, exponential case).

    See the module docstring for the method (least squares on
    :math:`\log\lambda_i`, then the smallest dominating :math:`R_0`).

    Parameters
    ----------
    K : array_like, shape (T, T), optional
        PSD kernel matrix.  Give either ``K`` or ``eigenvalues``.
    eigenvalues : array_like, optional
        Precomputed eigenvalues (any order; they are sorted decreasingly).
    rtol : float, default 1e-10
        Eigenvalues at most ``rtol * lambda_1`` are ignored (numerical zeros).

    Returns
    -------
    ExponentialDecay

    Raises
    ------
    ValueError
        On invalid ``K``/``eigenvalues``/``rtol``, or if fewer than two
        eigenvalues exceed ``rtol * lambda_1``.
    """
    ev, i = _leading(K, eigenvalues, rtol)
    slope = np.polyfit(i, np.log(ev), 1)[0]
    r = float(np.exp(slope))
    clipped = r > MAX_RATIO
    r = min(r, MAX_RATIO)
    R0 = float(np.max(ev / np.power(r, i)) * _SAFETY)
    return ExponentialDecay(R0=R0, r=r, n_fit=int(ev.size), clipped=bool(clipped))


def fit_polynomial_decay(K=None, *, eigenvalues=None, rtol=1e-10):
    r"""Fit :math:`\lambda_i \le R_0 i^{-p}` (Li & Liao 2023, Theorem 1, polynomial case).

    See the module docstring for the method (least squares of
    :math:`\log\lambda_i` on :math:`\log i`, then the smallest dominating
    :math:`R_0`).

    Parameters
    ----------
    K : array_like, shape (T, T), optional
        PSD kernel matrix.  Give either ``K`` or ``eigenvalues``.
    eigenvalues : array_like, optional
        Precomputed eigenvalues (any order; they are sorted decreasingly).
    rtol : float, default 1e-10
        Eigenvalues at most ``rtol * lambda_1`` are ignored (numerical zeros).

    Returns
    -------
    PolynomialDecay

    Raises
    ------
    ValueError
        As for :func:`fit_exponential_decay`.
    """
    ev, i = _leading(K, eigenvalues, rtol)
    p = float(-np.polyfit(np.log(i), np.log(ev), 1)[0])
    clipped = p < 1.0
    p = max(p, 1.0)
    R0 = float(np.max(ev / np.power(i, -p)) * _SAFETY)
    return PolynomialDecay(R0=R0, p=p, n_fit=int(ev.size), clipped=bool(clipped))
