r"""The projections PKAWV forecasts with and what they lose: :math:`\mu = \|(I -
P)C_n^{1/2}\|^2` from the kernel matrices, the kernels of the Nystrom projection onto a
dictionary (eq. (7)) and of the Taylor basis :math:`G_M` (eq. (6)), and the basis size.

Notation: :mod:`theory.awv`.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from .. import _validation as v
from ._checks import _points

__all__ = [
    "approximation_mu",
    "nystrom_projected_kernel",
    "nystrom_mu",
    "taylor_projected_kernel",
    "taylor_mu",
    "taylor_basis_size",
]

RANK_RTOL = 1e-12
#: Round-off allowed (relative to max k(x, x)) in the PSD check of Nystrom projection
#: differences: the pseudo-inverse of an ill-conditioned K_II amplifies round-off by up to
#: ``RANK_RTOL ** -0.5``.
NYSTROM_PSD_RTOL = 1e-7


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
