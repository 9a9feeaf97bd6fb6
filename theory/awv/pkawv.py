r"""PKAWV, eq. (4), with any projections: its forecasts, the data-dependent terms and the
bound of Theorem 9 (Appendix B, any sequence of projections) and Theorem 3 (a fixed one).

Notation: :mod:`theory.awv`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .. import _validation as v
from .kernel_awv import kernel_awv_forecasts, online_leverage
from .projections import (NYSTROM_PSD_RTOL, _coordinates, _dictionary, _nystrom_residual,
                          _top_eigenvalue, approximation_mu)

__all__ = [
    "pkawv_forecasts",
    "Theorem9Terms",
    "theorem9_terms_fixed",
    "theorem9_terms_nested",
    "theorem9_bound",
    "theorem3_bound",
]


def pkawv_forecasts(K, y, lam, dictionaries=None, *, K_tilde=None):
    r"""Forecasts of PKAWV, eq. (4), computed directly (a reference, :math:`O(n^2 r^2)`).

    :math:`\hat f_t = \arg\min_{f \in \tilde{\mathcal H}_t} \sum_{s<t}(y_s - f(x_s))^2
    + \lambda\|f\|^2 + f(x_t)^2`.  In orthonormal coordinates ``w(x)`` of
    :math:`P_t\phi(x)` (``r`` of them), :math:`\hat y_t = w_t^\top (\sum_{s \le t}
    w_s w_s^\top + \lambda I_r)^{-1}\sum_{s<t} y_s w_s` (eq. (9)).

    Give either ``dictionaries`` (one index array per round: the Nystrom dictionary used
    at that round, eq. (7)) or ``K_tilde`` (the kernel of a fixed projection, e.g.
    :func:`taylor_projected_kernel`).
    """
    K = v.kernel_matrix(K)
    n = K.shape[0]
    y = v.labels(y, n)
    lam = v.positive(lam, "lam")
    out = np.zeros(n)
    if (dictionaries is None) == (K_tilde is None):
        raise ValueError("give exactly one of dictionaries and K_tilde")
    if K_tilde is not None:
        Kt = v.kernel_matrix(K_tilde, "K_tilde")
        if Kt.shape != K.shape:
            raise ValueError(f"K_tilde must have the shape of K {K.shape}")
        return kernel_awv_forecasts(Kt, y, lam)
    dicts = _dictionaries(dictionaries, n)
    for t in range(n):
        W = _coordinates(K[:t + 1, dicts[t]], K[np.ix_(dicts[t], dicts[t])])
        if W.shape[1] == 0:
            continue
        A = W.T @ W + lam * np.eye(W.shape[1])
        out[t] = W[t] @ linalg.solve(A, W[:t].T @ y[:t], assume_a="pos")
    return out


# -- Theorem 9 (general projections) and Theorem 3 ---------------------------------------

@dataclass(frozen=True, eq=False)
class Theorem9Terms:
    r"""Data-dependent terms of Theorem 9 on a stream.

    Attributes
    ----------
    q : ndarray, shape (n,)
        :math:`\tilde q_t = \langle \tilde A_t^{-1}P_t\phi(x_t), P_t\phi(x_t)\rangle`.
    estimation : float
        :math:`\sum_t y_t^2 \tilde q_t`.
    mu : ndarray, shape (n,)
        :math:`\mu_t = \|(P_{t+1} - P_t)C_t^{1/2}\|^2`, with :math:`P_{n+1} = I`.
    mu_residual_max : float
        :math:`\max_t \|(I - P_t)C_t^{1/2}\|^2` (what KORS keeps below its :math:`\mu`,
        Proposition 5), :math:`P_t` the projection used at round ``t``.  Between changes
        of :math:`P_t` the norm grows with :math:`C_t`, so the maximum is attained at the
        last round or at a round ``t`` with :math:`P_{t+1} \ne P_t`; only those are
        evaluated.
    n_changes : int
        Number of rounds ``t < n`` with :math:`P_{t+1} \ne P_t`.
    log_det_projected : float
        :math:`\log\det(I + P_nC_nP_n/\lambda)`.
    """

    q: np.ndarray
    estimation: float
    mu: np.ndarray
    mu_residual_max: float
    n_changes: int
    log_det_projected: float


def theorem9_terms_fixed(K, K_tilde, y, lam):
    r"""Theorem 9's terms for a fixed projection ``P`` (Theorem 3's setting).

    :math:`\tilde q_t` is :func:`online_leverage` of ``K_tilde``; :math:`\mu_t = 0` for
    ``t < n`` and :math:`\mu_n = \|(I - P)C_n^{1/2}\|^2` (:func:`approximation_mu`).
    """
    K = v.kernel_matrix(K)
    lev = online_leverage(K_tilde, lam)
    n = K.shape[0]
    if lev.u.size != n:
        raise ValueError(f"K_tilde must have the shape of K {K.shape}")
    y = v.labels(y, n)
    mu = np.zeros(n)
    mu[-1] = approximation_mu(K, K_tilde)
    return Theorem9Terms(q=lev.q, estimation=float(np.sum(y * y * lev.q)), mu=mu,
                         mu_residual_max=float(mu[-1]), n_changes=0,
                         log_det_projected=lev.log_det)


def _dictionaries(dictionaries, n):
    dicts = list(dictionaries)
    if len(dicts) != n:
        raise ValueError(f"dictionaries must have one entry per round ({n}), got {len(dicts)}")
    out = []
    for t, d in enumerate(dicts):
        idx = _dictionary(d, n, f"dictionaries[{t}]")
        if idx.size and idx.max() > t:
            raise ValueError(f"dictionaries[{t}] contains a point from a later round")
        out.append(idx)
    return out


def theorem9_terms_nested(K, y, lam, dictionaries):
    r"""Theorem 9's terms for Nystrom projections with dictionaries
    :math:`\mathcal I_1 \subset \mathcal I_2 \subset \dots` (eq. (7), KORS).

    ``dictionaries[t]`` (0-based round ``t``) holds the indices of the stream points
    spanning :math:`\tilde{\mathcal H}_t`, the space the forecast of round ``t`` is taken
    from (it may contain ``t`` itself).  In orthonormal coordinates ``W`` of
    :math:`P_t\phi(x_s)`, :math:`\tilde q_t = w_t^\top(W_{\le t}^\top W_{\le t} + \lambda
    I)^{-1}w_t`, and :math:`\mu_t = \lambda_{\max}(\tilde K^{(t+1)} - \tilde K^{(t)})` on
    the first ``t`` points (:math:`\tilde K^{(s)}` the kernel of :math:`P_s\phi`,
    :math:`\tilde K^{(n+1)} = K`).

    Raises
    ------
    ValueError
        If a dictionary holds a later point, or the dictionaries are not nested (the
        telescoping of Theorem 6 needs it).
    """
    K = v.kernel_matrix(K)
    n = K.shape[0]
    y = v.labels(y, n)
    lam = v.positive(lam, "lam")
    dicts = _dictionaries(dictionaries, n)
    for t in range(1, n):
        if not np.all(np.isin(dicts[t - 1], dicts[t])):
            raise ValueError(f"dictionaries must be nested: dictionaries[{t - 1}] is not a "
                             f"subset of dictionaries[{t}]")
    q = np.zeros(n)
    mu = np.zeros(n)
    residual = 0.0
    changes = 0
    for t in range(n):
        W = _coordinates(K[:t + 1, dicts[t]], K[np.ix_(dicts[t], dicts[t])])
        if W.shape[1]:
            A = W.T @ W + lam * np.eye(W.shape[1])
            q[t] = float(W[t] @ linalg.solve(A, W[t], assume_a="pos"))
        last = t == n - 1
        changed = not last and not np.array_equal(np.sort(dicts[t]), np.sort(dicts[t + 1]))
        if last or changed:
            Kt = W @ W.T
            here = _nystrom_residual(K[:t + 1, :t + 1], Kt)
            residual = max(residual, here)
        if last:
            mu[t] = here
        elif changed:
            changes += 1
            W1 = _coordinates(K[:t + 1, dicts[t + 1]], K[np.ix_(dicts[t + 1], dicts[t + 1])])
            mu[t] = _top_eigenvalue(W1 @ W1.T - Kt, np.max(np.abs(np.diag(K))), "P_t+1 - P_t",
                                    NYSTROM_PSD_RTOL)
    Wn = _coordinates(K[:, dicts[-1]], K[np.ix_(dicts[-1], dicts[-1])])
    logdet_p = float(np.sum(np.log1p(np.maximum(linalg.eigvalsh(Wn.T @ Wn), 0.0) / lam))) \
        if Wn.shape[1] else 0.0
    return Theorem9Terms(q=q, estimation=float(np.sum(y * y * q)), mu=mu,
                         mu_residual_max=float(residual), n_changes=changes,
                         log_det_projected=logdet_p)


def theorem9_bound(terms, lam, f_norm2, B):
    r"""Theorem 9 (Appendix B) as its proof gives it:
    :math:`R_n(f) \le \lambda\|f\|^2 + \sum_t y_t^2 \tilde q_t
    + \sum_{t=1}^n (\mu_t + \lambda)\, t\,\mu_t B^2/\lambda^2`.

    (The statement omits :math:`\lambda\|f\|^2` and the sum, and prints :math:`/\lambda`;
    eq. (27) of the proof, and Theorem 3, have :math:`/\lambda^2`.)

    Parameters
    ----------
    terms : Theorem9Terms
        From :func:`theorem9_terms_fixed` or :func:`theorem9_terms_nested`.
    lam, f_norm2, B : float
        :math:`\lambda > 0`, :math:`\|f\|^2 \ge 0`, :math:`B \ge \max_t |y_t|`.
    """
    lam = v.positive(lam, "lam")
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    B = v.positive(B, "B")
    t = np.arange(1, terms.mu.size + 1)
    approx = float(np.sum((terms.mu + lam) * t * terms.mu)) * B * B / lam ** 2
    return lam * f_norm2 + terms.estimation + approx


def theorem3_bound(lam, f_norm2, B, log_det, mu, n):
    r"""Theorem 3, eq. (5): :math:`R_n(f) \le \lambda\|f\|^2 + B^2\sum_j\log(1 +
    \lambda_j(K_{nn})/\lambda) + (\mu + \lambda)\, n\mu B^2/\lambda^2` for PKAWV with a fixed
    subspace, :math:`\mu = \|(I - P)C_n^{1/2}\|^2` (:func:`taylor_mu`, :func:`nystrom_mu`).

    Parameters
    ----------
    lam, f_norm2, B : float
    log_det : float
        :math:`\sum_j \log(1 + \lambda_j(K_{nn})/\lambda)` (:func:`theory.log_det_term`).
    mu : float
        :math:`\mu \ge 0`.
    n : int
        Number of rounds.
    """
    lam = v.positive(lam, "lam")
    f_norm2 = v.nonnegative(f_norm2, "f_norm2")
    B = v.positive(B, "B")
    log_det = v.nonnegative(log_det, "log_det")
    mu = v.nonnegative(mu, "mu")
    n = v.integer(n, "n", 1)
    return lam * f_norm2 + B * B * log_det + (mu + lam) * n * mu * B * B / lam ** 2
