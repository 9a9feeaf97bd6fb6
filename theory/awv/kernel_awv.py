r"""Kernel-AWV, eq. (3): its forecasts in closed form, the quantities of Lemma 10, the
exact regret identity behind Proposition 1, and Propositions 1 and 2.

Notation: :mod:`theory.awv`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .. import _validation as v
from ..comparators import RidgeComparator, kernel_ridge_comparator
from ..spectrum import effective_dimension, log_det_term

__all__ = [
    "OnlineLeverage",
    "online_leverage",
    "kernel_awv_forecasts",
    "KernelAWVRegret",
    "kernel_awv_regret",
    "proposition1_bound",
    "proposition2_bound",
    "proposition2_refined",
]


@dataclass(frozen=True, eq=False)
class OnlineLeverage:
    r"""Sequential leverage quantities of a stream (Lemma 10; proofs of Prop. 1, Thm. 9).

    Attributes
    ----------
    u : ndarray, shape (n,)
        :math:`u_t = \langle A_{t-1}^{-1}\phi(x_t), \phi(x_t)\rangle
        = (k(x_t,x_t) - k_{t-1}(x_t)^\top (K_{t-1} + \lambda I)^{-1} k_{t-1}(x_t))/\lambda`.
    q : ndarray, shape (n,)
        :math:`q_t = \langle A_t^{-1}\phi(x_t), \phi(x_t)\rangle = u_t/(1 + u_t)
        = 1 - \det(A_{t-1}/\lambda)/\det(A_t/\lambda)` (Lemma 10).
    log_det : float
        :math:`\sum_t \log(1 + u_t) = \log\det(I + K_{nn}/\lambda)
        = \sum_k \log(1 + \lambda_k(K_{nn})/\lambda)` (the telescoped determinants).
    cholesky : ndarray, shape (n, n)
        Lower Cholesky factor ``L`` of :math:`K_{nn} + \lambda I`;
        :math:`L_{tt}^2 = \lambda(1 + u_t)`.
    """

    u: np.ndarray
    q: np.ndarray
    log_det: float
    cholesky: np.ndarray


def online_leverage(K, lam):
    r"""The leverage of each round given the previous ones, from one Cholesky factorization.

    With :math:`K_{nn} + \lambda I = LL^\top`, the Schur complement of the leading
    ``t - 1`` block gives :math:`L_{tt}^2 = k(x_t, x_t) + \lambda
    - k_{t-1}(x_t)^\top (K_{t-1} + \lambda I)^{-1} k_{t-1}(x_t) = \lambda (1 + u_t)`
    (Woodbury: :math:`A_{t-1}^{-1} = \lambda^{-1}(I - S_{t-1}^*(K_{t-1} + \lambda I)^{-1}
    S_{t-1})`), so :math:`u_t = (k_{tt} - \|L_{t,<t}\|^2)/\lambda`.

    Parameters
    ----------
    K : array_like, shape (n, n)
        PSD kernel matrix of the stream, rows in round order.
    lam : float
        :math:`\lambda > 0`.

    Returns
    -------
    OnlineLeverage

    Raises
    ------
    ValueError
        If ``K`` is not a finite symmetric PSD matrix or ``lam <= 0``.
    """
    K = v.kernel_matrix(K)
    lam = v.positive(lam, "lam")
    n = K.shape[0]
    try:
        L = linalg.cholesky(K + lam * np.eye(n), lower=True)
    except linalg.LinAlgError:
        raise ValueError("K + lam * I is not positive definite: K must be PSD") from None
    off = np.tril(L, -1)
    u = np.maximum(np.diag(K) - np.einsum("ij,ij->i", off, off), 0.0) / lam
    q = u / (1.0 + u)
    return OnlineLeverage(u=u, q=q, log_det=float(np.sum(np.log1p(u))), cholesky=L)


def kernel_awv_forecasts(K, y, lam):
    r"""Forecasts :math:`\hat y_t = \hat f_t(x_t)` of Kernel-AWV, eq. (3), for a whole stream.

    :math:`\hat f_t = \arg\min_f \sum_{s<t}(y_s - f(x_s))^2 + \lambda\|f\|^2 + f(x_t)^2`
    gives :math:`\hat y_t = \hat g_t(x_t) / (1 + u_t)` where
    :math:`\hat g_t(x_t) = k_{t-1}(x_t)^\top (K_{t-1} + \lambda I)^{-1} Y_{t-1}` is the
    kernel ridge forecast (eq. (3) without :math:`f(x_t)^2`) and :math:`u_t` is
    :func:`online_leverage`'s (Sherman-Morrison on :math:`A_t = A_{t-1} + \phi_t\otimes\phi_t`).
    With :math:`K_{nn} + \lambda I = LL^\top` and :math:`z = L^{-1}y`,
    :math:`\hat g_t(x_t) = L_{t,<t}\, z_{<t}` (prefixes of a Cholesky factor are the
    factors of the prefixes).  Cost: one Cholesky factorization, :math:`O(n^3)`.

    Parameters
    ----------
    K : array_like, shape (n, n)
        PSD kernel matrix, rows in round order.
    y : array_like, shape (n,)
        Outputs.
    lam : float
        :math:`\lambda > 0`.

    Returns
    -------
    ndarray, shape (n,)
        :math:`\hat y_1 = 0, \hat y_2, \dots, \hat y_n`.
    """
    lev = online_leverage(K, lam)
    y = v.labels(y, lev.u.size)
    return _awv_from_leverage(lev, y)


def _awv_from_leverage(lev, y):
    L = lev.cholesky
    z = linalg.solve_triangular(L, y, lower=True)
    ridge = np.tril(L, -1) @ z
    return ridge / (1.0 + lev.u)


@dataclass(frozen=True, eq=False)
class KernelAWVRegret:
    r"""Kernel-AWV's regret against the kernel ridge comparator, and the identity behind
    Proposition 1 (see :func:`kernel_awv_regret`).

    Attributes
    ----------
    predictions : ndarray
        The forecasts the regret is measured on (given, or Kernel-AWV's).
    regret : float
        :math:`R_n(f^\star) = \sum_t (y_t - \hat y_t)^2 - \sum_t (y_t - f^\star(x_t))^2`.
    comparator : RidgeComparator
        :math:`f^\star`, the kernel ridge solution with the same :math:`\lambda`.
    norm_term : float
        :math:`\lambda \|f^\star\|^2`.
    estimation : float
        :math:`\sum_t y_t^2 q_t` (Theorem 9's first term with :math:`P_t = I`).
    correction : float
        :math:`\sum_t \hat y_t^{\mathrm{AWV}\,2} u_t \ge 0` for Kernel-AWV's own forecasts.
    identity : float
        ``norm_term + estimation - correction``: equals ``regret`` exactly when the
        predictions are Kernel-AWV's.
    log_det : float
        :math:`\log\det(I + K/\lambda)`.
    leverage : OnlineLeverage
    """

    predictions: np.ndarray
    regret: float
    comparator: RidgeComparator
    norm_term: float
    estimation: float
    correction: float
    identity: float
    log_det: float
    leverage: OnlineLeverage


def kernel_awv_regret(K, y, lam, predictions=None):
    r"""Regret against the kernel ridge comparator and the exact regret identity of Kernel-AWV.

    Following the proof of Theorem 9 with :math:`P_t = I` (then every inequality in
    (15) and (22) is an equality and :math:`\Omega(t) = 0`), and
    :math:`\hat f_t - \hat g_t = -A_t^{-1}\phi_t\,\hat g_t(x_t)`,
    :math:`\hat g_t(x_t) = (1 + u_t)\hat y_t`:

    .. math::

        R_n(f^\star) = \lambda\|f^\star\|^2 + \sum_{t=1}^n y_t^2 q_t
                       - \sum_{t=1}^n \hat y_t^2 u_t ,

    the kernel form of the identity of Cesa-Bianchi & Lugosi (Thm. 11.8's proof) and
    Zhdanov & Kalnishkan (ref. [11]).  Dropping the last sum, bounding
    :math:`y_t^2 \le B^2` and :math:`q_t = 1 - \det(A_{t-1}/\lambda)/\det(A_t/\lambda)
    \le \log(\det(A_t/\lambda)/\det(A_{t-1}/\lambda))` gives Proposition 1.

    Parameters
    ----------
    K : array_like, shape (n, n)
        PSD kernel matrix, rows in round order.
    y : array_like, shape (n,)
        Outputs.
    lam : float
        :math:`\lambda > 0` (the learner's and the comparator's).
    predictions : array_like, shape (n,), optional
        Forecasts of a run (e.g. ``Trace.scores``); default: Kernel-AWV's own, from
        :func:`kernel_awv_forecasts`.

    Returns
    -------
    KernelAWVRegret
    """
    lev = online_leverage(K, lam)
    n = lev.u.size
    y = v.labels(y, n)
    awv = _awv_from_leverage(lev, y)
    pred = awv if predictions is None else v.labels(predictions, n, name="predictions")
    comp = kernel_ridge_comparator(K, y, lam)
    regret = float(np.sum((y - pred) ** 2) - comp.loss)
    norm_term = float(comp.lam * comp.norm2)
    estimation = float(np.sum(y * y * lev.q))
    correction = float(np.sum(awv * awv * lev.u))
    return KernelAWVRegret(predictions=pred, regret=regret, comparator=comp,
                           norm_term=norm_term, estimation=estimation, correction=correction,
                           identity=norm_term + estimation - correction,
                           log_det=lev.log_det, leverage=lev)


def proposition1_bound(lam, f_norm2, B, K=None, *, eigenvalues=None):
    r"""Proposition 1: :math:`R_n(f) \le \lambda\|f\|^2 + B^2\sum_{k=1}^n
    \log(1 + \lambda_k(K_{nn})/\lambda)` for Kernel-AWV, every :math:`f \in \mathcal H`.

    Parameters
    ----------
    lam : float
        :math:`\lambda > 0`.
    f_norm2 : float
        :math:`\|f\|^2_{\mathcal H} \ge 0`.
    B : float
        :math:`B > 0` with :math:`|y_t| \le B`.
    K : array_like, shape (n, n), optional
        Kernel matrix of the stream; or give ``eigenvalues``.
    eigenvalues : array_like, optional
        Its eigenvalues.

    Returns
    -------
    float
    """
    lam = v.positive(lam, "lam")
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    B = v.positive(B, "B")
    return lam * f_norm2 + B * B * log_det_term(K, lam, eigenvalues=eigenvalues)


def proposition2_bound(K=None, lam=None, kappa2=None, *, eigenvalues=None):
    r"""Proposition 2: :math:`\sum_k \log(1 + \lambda_k(K_{nn})/\lambda) \le
    \log(e + e n\kappa^2/\lambda)\, d_{\mathrm{eff}}(\lambda)`.

    Parameters
    ----------
    K : array_like, shape (n, n), optional
        Kernel matrix; or give ``eigenvalues`` (then ``n`` is their number).
    lam : float
        :math:`\lambda > 0`.
    kappa2 : float
        :math:`\kappa^2 \ge \sup_x k(x, x)`; must be at least :math:`\max_t K_{tt}`
        when ``K`` is given.
    eigenvalues : array_like, optional

    Returns
    -------
    float
    """
    lam = v.positive(lam, "lam")
    kappa2 = v.positive(kappa2, "kappa2")
    ev = v.spectrum(K, eigenvalues)
    if K is not None and np.max(np.diag(np.asarray(K, float))) > kappa2 * (1 + 1e-12):
        raise ValueError("kappa2 must be >= max_t k(x_t, x_t)")
    n = ev.size
    return math.log(math.e + math.e * n * kappa2 / lam) * effective_dimension(
        lam=lam, eigenvalues=ev)


def proposition2_refined(K=None, lam=None, *, eigenvalues=None):
    r"""The intermediate bound of Proposition 2's proof, eq. (28):
    :math:`a(\lambda_1, \lambda)\, d_{\mathrm{eff}}(\lambda)` with
    :math:`a(s, \lambda) = 1 + \log(1 + s/\lambda)` and :math:`\lambda_1 = \lambda_{\max}(K_{nn})`.
    """
    lam = v.positive(lam, "lam")
    ev = v.spectrum(K, eigenvalues)
    return (1.0 + math.log1p(ev[0] / lam)) * effective_dimension(lam=lam, eigenvalues=ev)
