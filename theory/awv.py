r"""Regret bounds of Kernel-AWV and PKAWV: Jezequel, Gaillard & Rudi, *Efficient online
learning with kernels for adversarial large scale problems* (2019, seed 003).

Notation of the paper: ``n`` rounds, inputs :math:`x_t`, outputs
:math:`|y_t| \le B`, a kernel with :math:`\sup_x k(x, x) \le \kappa^2` (``kappa2``),
the kernel matrix :math:`K_{nn}`, the regularization :math:`\lambda > 0` (``lam``),
the covariance operator :math:`C_t = \sum_{s \le t} \phi(x_s) \otimes \phi(x_s)`,
:math:`A_t = C_t + \lambda I`, a projection :math:`P_t` onto the subspace
:math:`\tilde{\mathcal H}_t` used at round ``t`` and :math:`\tilde A_t = P_t C_t P_t + \lambda I`.
The regret against :math:`f \in \mathcal H` is eq. (1),
:math:`R_n(f) = \sum_t (y_t - \hat y_t)^2 - \sum_t (y_t - f(x_t))^2`.

Because every bound has the form :math:`\lambda\|f\|^2 + C`,
:math:`R_n(f) - \lambda\|f\|^2` is largest at the kernel ridge solution
:math:`f^\star = \arg\min_f \sum_t (y_t - f(x_t))^2 + \lambda\|f\|^2`
(:func:`theory.comparators.kernel_ridge_comparator`): checking a bound at :math:`f^\star`
checks it for every :math:`f`.

Groups of functions
-------------------
* Kernel-AWV, eq. (3): :func:`online_leverage` (the quantities of Lemma 10),
  :func:`kernel_awv_forecasts` (eq. (3) in closed form),
  :func:`kernel_awv_regret` (the exact regret identity behind Proposition 1),
  :func:`proposition1_bound`, :func:`proposition2_bound`, :func:`proposition2_refined`.
* Projections: :func:`approximation_mu` (:math:`\mu = \|(I - P) C_n^{1/2}\|^2`),
  :func:`nystrom_projected_kernel`, :func:`taylor_projected_kernel`, :func:`taylor_mu`,
  :func:`nystrom_mu`, :func:`taylor_basis_size`, :func:`pkawv_forecasts` (eq. (4)).
* Theorem 9 (Appendix B, any sequence of projections):
  :func:`theorem9_terms_fixed`, :func:`theorem9_terms_nested`, :func:`theorem9_bound`.
* Theorem 3 (fixed projection): :func:`theorem3_bound`.
* Taylor features (Section 3.1): :func:`lemma13_bound`, :func:`lemma13_pointwise_bound`,
  :func:`theorem4_M`, :func:`theorem4_condition`, :func:`theorem4_bound`,
  :func:`theorem4_chain` (every step of the proof in Appendix D.2),
  :func:`theorem4_cost`.
* Nystrom / KORS (Section 3.2): :func:`proposition5_beta`, :func:`proposition5_size_bound`,
  :func:`theorem6_bound`, :func:`corollary7`, :func:`corollary8`.

Typos and reconstructions (each repeated where it matters)
----------------------------------------------------------
* Theorem 9's statement drops :math:`\lambda\|f\|^2` and the sum over ``t`` of the
  approximation terms and divides by :math:`\lambda` instead of :math:`\lambda^2`; its
  proof (eqs. (15), (23), (27)) gives
  :math:`R_n(f) \le \lambda\|f\|^2 + \sum_t y_t^2\langle\tilde A_t^{-1}P_t\phi(x_t),
  P_t\phi(x_t)\rangle + \sum_{t=1}^n (\mu_t + \lambda)\, t\mu_t B^2/\lambda^2`, used here
  (Theorem 3 also has :math:`\lambda^2`).
* The proof of Proposition 1 (Appendix C.1) drops the factor :math:`y_t^2 \le B^2` of
  Theorem 9's first term; the statement has :math:`B^2`.
* Proof of Lemma 13 (Appendix "E.3", i.e. F.3): the mean-value remainder is that of
  :math:`e^s` at :math:`s = x^\top x'/\sigma^2`, :math:`e^c s^{M+1}/(M+1)!` with ``c``
  between 0 and ``s``; the printed :math:`c^{M+1}` and :math:`e^{-s/\sigma^2}` are typos.
  With :math:`|c| \le \|x\|\|x'\|/\sigma^2 \le (\|x\|^2 + \|x'\|^2)/(2\sigma^2)` the
  Gaussian prefactor absorbs :math:`e^c`, giving the pointwise bound
  :math:`(|x^\top x'|/\sigma^2)^{M+1}/(M+1)!` (:func:`lemma13_pointwise_bound`).
* Theorem 4: the proof (eqs. (33)-(34)) gives the constant
  :math:`1 + 4/9 = 13/9`; the statement rounds it up to :math:`3/2` (both available).
  The proof assumes :math:`M \ge 1` (:math:`8R^2/\sigma^2 > 0` makes the prescribed M at
  least 1) and the Gaussian kernel's :math:`k(x, x) = 1`.
* Theorem 6 bounds :math:`\sum_t \langle \tilde A_t^{-1}P_t\phi_t, P_t\phi_t\rangle` by
  :math:`\log\det(I + K_{nn}/\lambda)`; this telescoping needs nested dictionaries
  :math:`\mathcal I_1 \subset \dots \subset \mathcal I_n` (true for KORS, which never
  drops a point): :math:`P_{t-1} C P_{t-1}` is a compression of :math:`P_t C P_t`.
* Proof of Corollary 7, eq. (36): the ``+ 1`` in :math:`n^2(m^{(\gamma-1)/\gamma} + 1)/\lambda`
  is a typo (with it the term is at least :math:`n^2/\lambda` and neither regime follows);
  :math:`\mu n |\mathcal I_n|/\lambda \le n^2 m^{1 - 1/\gamma}/\lambda` is used.  The
  second bullet of the proof of Corollary 8 repeats the first one; the statement's
  :math:`\lambda = n m^{-1/(2\gamma)}` balances :math:`\lambda` and
  :math:`n^2 m^{-1/\gamma}/\lambda`.

Depends only on numpy and scipy.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg, special

from . import _validation as v
from .comparators import RidgeComparator, kernel_ridge_comparator
from .spectrum import effective_dimension, log_det_term

__all__ = [
    "OnlineLeverage",
    "KernelAWVRegret",
    "Theorem9Terms",
    "Theorem4Chain",
    "CorollaryRate",
    "online_leverage",
    "kernel_awv_forecasts",
    "kernel_awv_regret",
    "proposition1_bound",
    "proposition2_bound",
    "proposition2_refined",
    "approximation_mu",
    "nystrom_projected_kernel",
    "nystrom_mu",
    "taylor_projected_kernel",
    "taylor_mu",
    "taylor_basis_size",
    "pkawv_forecasts",
    "theorem9_terms_fixed",
    "theorem9_terms_nested",
    "theorem9_bound",
    "theorem3_bound",
    "lemma13_bound",
    "lemma13_pointwise_bound",
    "theorem4_M",
    "theorem4_condition",
    "theorem4_bound",
    "theorem4_chain",
    "theorem4_cost",
    "THEOREM4_CONSTANT",
    "THEOREM4_PROOF_CONSTANT",
    "proposition5_beta",
    "proposition5_size_bound",
    "theorem6_bound",
    "corollary7",
    "corollary8",
]

#: Constant in front of :math:`B^2 \sum_j \log(1 + \lambda_j/\lambda)` in Theorem 4's statement.
THEOREM4_CONSTANT = 1.5
#: The constant its proof gives: 1 + 4/9 (eqs. (33)-(34)).
THEOREM4_PROOF_CONSTANT = 13.0 / 9.0
#: Relative eigenvalue cut-off of the dictionary Gram matrix in the Nystrom projections.
RANK_RTOL = 1e-12
#: Round-off allowed (relative to max k(x, x)) in the PSD check of Nystrom projection
#: differences: the pseudo-inverse of an ill-conditioned K_II amplifies round-off by up to
#: ``RANK_RTOL ** -0.5``.
NYSTROM_PSD_RTOL = 1e-7


# -- argument checks ---------------------------------------------------------------------

def _points(X, name="X"):
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array of points, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or inf")
    return X


def _prob(delta, name="delta"):
    delta = v.real(delta, name)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {delta!r}")
    return delta


def _gamma(gamma):
    gamma = v.real(gamma, "gamma")
    if not 0.0 < gamma < 1.0:
        raise ValueError(f"gamma must lie in (0, 1), got {gamma!r}")
    return gamma


def _bound_B(B, y):
    """``B`` checked against the outputs: the bounds need ``|y_t| <= B``."""
    B = v.positive(B, "B")
    if y is not None and np.max(np.abs(y)) > B * (1.0 + 1e-12):
        raise ValueError(f"B must be >= max |y_t| = {np.max(np.abs(y))!r}, got {B!r}")
    return B


# -- Kernel-AWV: eq. (3), Lemma 10, Propositions 1 and 2 -----------------------------------

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


# -- projections -------------------------------------------------------------------------

def approximation_mu(K, K_tilde):
    r""":math:`\mu = \|(I - P)C_n^{1/2}\|^2` of Theorem 3 from the kernel matrices.

    :math:`\|(I-P)C_n^{1/2}\|^2 = \|(I-P)S_n^*S_n(I-P)\| = \|S_n(I-P)S_n^*\|
    = \lambda_{\max}(K_{nn} - \tilde K)` with :math:`\tilde K_{ij} = \langle P\phi(x_i),
    P\phi(x_j)\rangle` (``K_tilde``), the kernel of the projected features.

    Parameters
    ----------
    K, K_tilde : array_like, shape (n, n)
        Kernel matrix of the stream and of its projection (``K - K_tilde`` must be PSD
        up to round-off).

    Returns
    -------
    float
        :math:`\mu \ge 0`.
    """
    K = v.kernel_matrix(K)
    K_tilde = v.kernel_matrix(K_tilde, "K_tilde")
    if K_tilde.shape != K.shape:
        raise ValueError(f"K_tilde must have the shape of K {K.shape}, got {K_tilde.shape}")
    return _top_eigenvalue(K - K_tilde, np.max(np.abs(K)), "K - K_tilde")


def _top_eigenvalue(D, scale, name, rtol=None):
    """Largest eigenvalue of the PSD difference ``D`` (>= 0); eigenvalues below
    ``-rtol * scale`` (``scale`` the magnitude of the matrices subtracted; default
    ``rtol = 64 n eps``) mean ``D`` is not PSD: the "projection" is not one."""
    D = 0.5 * (D + D.T)
    ev = linalg.eigvalsh(D)
    if rtol is None:
        rtol = 64 * D.shape[0] * np.finfo(float).eps
    tol = rtol * max(float(scale), 1e-300)
    if ev[0] < -tol:
        raise ValueError(f"{name} is not positive semidefinite (eigenvalue {ev[0]:.3g}): "
                         "K_tilde is not the kernel of a projection of the features")
    return float(max(ev[-1], 0.0))


def _dictionary(dictionary, n, name="dictionary"):
    idx = np.asarray(dictionary)
    if idx.size == 0:
        return np.zeros(0, dtype=np.intp)
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"{name} must be a 1-D array of integer indices")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"{name} indices must lie in [0, {n}), got {idx.min()}..{idx.max()}")
    if np.unique(idx).size != idx.size:
        raise ValueError(f"{name} has repeated indices")
    return idx.astype(np.intp)


def _coordinates(K_rows, K_dict):
    """Coordinates of the projected features in an orthonormal basis of span(dictionary):
    ``W = K_rows U diag(s)^{-1/2}`` over the eigenpairs of ``K_dict`` above the cut-off,
    so ``W W^T = K_rows K_dict^+ K_rows^T``."""
    if K_dict.shape[0] == 0:
        return np.zeros((K_rows.shape[0], 0))
    s, U = linalg.eigh(K_dict)
    keep = s > RANK_RTOL * max(s.max(), 0.0)
    if not np.any(keep):
        return np.zeros((K_rows.shape[0], 0))
    return K_rows @ (U[:, keep] / np.sqrt(s[keep]))


def nystrom_projected_kernel(K, dictionary):
    r""":math:`\tilde K = K_{n\mathcal I} K_{\mathcal I\mathcal I}^+ K_{\mathcal I n}`: the
    kernel of :math:`P\phi(x_t)`, ``P`` the projection onto
    :math:`\mathrm{Span}\{\phi(x_j), j \in \mathcal I\}` (eq. (7)).

    Eigenvalues of :math:`K_{\mathcal I\mathcal I}` below ``RANK_RTOL`` times the
    largest are treated as 0 (a numerically dependent dictionary).
    """
    K = v.kernel_matrix(K)
    idx = _dictionary(dictionary, K.shape[0])
    W = _coordinates(K[:, idx], K[np.ix_(idx, idx)])
    return W @ W.T


def nystrom_mu(K, dictionary):
    r""":math:`\mu = \|(I - P)C_n^{1/2}\|^2` for the Nystrom projection onto ``dictionary``
    (indices into the stream) -- the quantity KORS controls (Proposition 5)."""
    K = v.kernel_matrix(K)
    return _nystrom_residual(K, nystrom_projected_kernel(K, dictionary))


def _nystrom_residual(K, K_tilde):
    return _top_eigenvalue(K - K_tilde, np.max(np.abs(np.diag(K))), "K - K_tilde",
                           NYSTROM_PSD_RTOL)


def taylor_projected_kernel(X, Z=None, *, sigma, M):
    r""":math:`\sum_{g \in G_M} g(x) g(z)` for the Taylor basis of eq. (6), in closed form.

    By the multinomial expansion in the proof of Lemma 12,
    :math:`\sum_{|k| \le M} g_k(x)g_k(z) = \sum_{j=0}^M Q_j(x, z) =
    e^{-(\|x\|^2 + \|z\|^2)/(2\sigma^2)}\sum_{j=0}^M (x^\top z/\sigma^2)^j / j!`,
    the degree-``M`` Taylor polynomial of :math:`e^{x^\top z/\sigma^2}` inside the Gaussian
    kernel.  Since the :math:`g_k` are orthonormal in :math:`\mathcal H` (Lemma 11) this is
    :math:`\langle P\phi(x), P\phi(z)\rangle` for the projection ``P`` onto
    :math:`\mathrm{Span}(G_M)`.

    Parameters
    ----------
    X : array_like, shape (n, d)
    Z : array_like, shape (m, d), optional
        Default ``X``.
    sigma : float
        Width of the Gaussian kernel :math:`\exp(-\|x - z\|^2/(2\sigma^2))`.
    M : int
        Degree :math:`M \ge 0`.

    Returns
    -------
    ndarray, shape (n, m)
    """
    X = _points(X)
    Z = X if Z is None else _points(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z must have {X.shape[1]} columns, got {Z.shape[1]}")
    sigma = v.positive(sigma, "sigma")
    M = v.integer(M, "M", 0)
    s = (X @ Z.T) / sigma ** 2
    term = np.ones_like(s)
    total = np.ones_like(s)
    for j in range(1, M + 1):
        term = term * s / j
        total = total + term
    nx = np.einsum("ij,ij->i", X, X)
    nz = np.einsum("ij,ij->i", Z, Z)
    return np.exp(-(nx[:, None] + nz[None, :]) / (2.0 * sigma ** 2)) * total


def _gaussian_gram(X, sigma):
    sq = np.einsum("ij,ij->i", X, X)
    D = np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0)
    np.fill_diagonal(D, 0.0)
    return np.exp(-D / (2.0 * sigma ** 2))


def taylor_mu(X, *, sigma, M, K=None):
    r""":math:`\mu = \|(I - P)C_n^{1/2}\|^2` of Theorem 3 for ``P`` the projection onto
    :math:`\mathrm{Span}(G_M)` (Theorem 4), on the stream ``X``.

    ``K`` (the Gaussian kernel matrix of ``X``) is computed when not given.
    """
    X = _points(X)
    K = _gaussian_gram(X, v.positive(sigma, "sigma")) if K is None else K
    return approximation_mu(K, taylor_projected_kernel(X, sigma=sigma, M=M))


def taylor_basis_size(M, d):
    r""":math:`r = |G_M| = \binom{M + d}{M}` (proof of Theorem 4, point 1)."""
    M = v.integer(M, "M", 0)
    d = v.integer(d, "d", 1)
    return math.comb(M + d, M)


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


# -- Taylor features: Lemma 13 and Theorem 4 ----------------------------------------------

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


# -- Nystrom / KORS: Proposition 5, Theorem 6, Corollaries 7 and 8 ------------------------

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
