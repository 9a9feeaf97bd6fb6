"""Spectral capacity terms: effective dimension and the log-determinant term.

Both come from Jezequel, Gaillard & Rudi, *Efficient online learning with
kernels for adversarial large scale problems* (NeurIPS 2019).
Every function takes either a kernel matrix ``K`` or, through the keyword
``eigenvalues=``, its precomputed eigenvalues.  Negative eigenvalues within
round-off (``64 * T * eps * max|lambda|``) are clamped to 0; larger ones raise
:class:`ValueError` (the matrix is not PSD).
"""
import numpy as np

from . import _validation as v

__all__ = ["kernel_eigenvalues", "effective_dimension", "log_det_term"]


def kernel_eigenvalues(K):
    """Eigenvalues of the PSD kernel matrix ``K``, sorted decreasingly.

    Parameters
    ----------
    K : array_like, shape (T, T)
        Symmetric positive semidefinite kernel matrix.

    Returns
    -------
    ndarray, shape (T,)
        :math:`\\lambda_1 \\ge \\dots \\ge \\lambda_T \\ge 0`, round-off
        negatives clamped to 0.

    Raises
    ------
    ValueError
        If ``K`` is not square, symmetric, finite and PSD (up to round-off).
    """
    return v.spectrum(K=K)


def effective_dimension(K=None, lam=None, *, eigenvalues=None):
    r"""Effective dimension :math:`d_{\mathrm{eff}}(\lambda)`.

    Jezequel, Gaillard & Rudi, eq. (2):
    :math:`d_{\mathrm{eff}}(\lambda) = \operatorname{Tr}(K (K + \lambda I)^{-1})
    = \sum_i \lambda_i / (\lambda_i + \lambda)`.  The same quantity
    (with :math:`\gamma` for :math:`\lambda`) appears in Li & Liao (AAAI 2023), Section
    "Related work" on KORS.

    Parameters
    ----------
    K : array_like, shape (T, T), optional
        PSD kernel matrix.  Give either ``K`` or ``eigenvalues``.
    lam : float
        Regularization :math:`\lambda > 0`.
    eigenvalues : array_like, shape (T,), optional
        Precomputed eigenvalues of ``K``.

    Returns
    -------
    float
        A value in ``[0, rank(K)]``, decreasing in ``lam``.

    Raises
    ------
    ValueError
        If ``lam <= 0`` or not finite, if both or neither of ``K`` and
        ``eigenvalues`` are given, or if they are invalid (see module doc).
    """
    lam = v.positive(lam, "lam")
    ev = v.spectrum(K, eigenvalues)
    return float(np.sum(ev / (ev + lam)))


def log_det_term(K=None, lam=None, *, eigenvalues=None):
    r"""Log-determinant term :math:`\sum_k \log(1 + \lambda_k / \lambda)`.

    Jezequel, Gaillard & Rudi, Proposition 1 (regret of Kernel-AWV) and Proposition 2; it
    equals :math:`\log\det(I + K / \lambda)`.  Computed with ``log1p``, so it is
    accurate when :math:`\lambda_k \ll \lambda`.  Proposition 2 bounds it by
    :math:`\log(e + e T \kappa^2 / \lambda)\, d_{\mathrm{eff}}(\lambda)`.

    Parameters
    ----------
    K : array_like, shape (T, T), optional
        PSD kernel matrix.  Give either ``K`` or ``eigenvalues``.
    lam : float
        Regularization :math:`\lambda > 0`.
    eigenvalues : array_like, shape (T,), optional
        Precomputed eigenvalues of ``K``.

    Returns
    -------
    float
        The non-negative log-determinant term.

    Raises
    ------
    ValueError
        As for :func:`effective_dimension`.
    """
    lam = v.positive(lam, "lam")
    ev = v.spectrum(K, eigenvalues)
    return float(np.sum(np.log1p(ev / lam)))
