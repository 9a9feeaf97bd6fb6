"""Argument checks shared by the ``theory`` modules.

Every check raises :class:`ValueError` with a message that names the
offending argument.
"""
import numbers

import numpy as np
from scipy import linalg

#: Relative tolerance for the symmetry check ``max|K - K^T| <= SYM_RTOL * max|K|``.
SYM_RTOL = 1e-10


def kernel_matrix(K, name="K"):
    """Return ``K`` as a finite, square, symmetric float64 matrix.

    The returned matrix is exactly symmetric (``(K + K^T) / 2``); asymmetry
    beyond ``SYM_RTOL * max|K|`` is an error.
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square 2-D matrix, got shape {K.shape}")
    if K.shape[0] == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} contains NaN or inf")
    asym = np.max(np.abs(K - K.T))
    if asym > SYM_RTOL * np.max(np.abs(K)):
        raise ValueError(f"{name} is not symmetric (max |{name} - {name}^T| = {asym:.3g})")
    return 0.5 * (K + K.T)


def labels(y, T, name="y", binary=False):
    """Return ``y`` as a finite float64 vector of length ``T``.

    With ``binary=True`` every entry must be -1 or +1 (classification labels).
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or y.shape[0] != T:
        raise ValueError(f"{name} must be a vector of length {T}, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or inf")
    if binary and not np.all(np.abs(y) == 1.0):
        raise ValueError(f"{name} must contain only the labels -1 and +1")
    return y


def positive(value, name):
    """Return ``value`` as a float after checking it is finite and > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value <= 0.0:
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return value


def real(value, name):
    """A finite real number (bools rejected)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def nonnegative(value, name):
    value = real(value, name)
    if value < 0.0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def integer(value, name, low):
    """An integer ``>= low`` (bools rejected)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value!r}")
    return value


def spectrum(K=None, eigenvalues=None):
    """Eigenvalues of a PSD kernel matrix, sorted decreasingly, clamped at 0.

    Exactly one of ``K`` (a kernel matrix) and ``eigenvalues`` (its
    precomputed eigenvalues) must be given.  Negative values of magnitude at
    most ``64 * n * eps * max|lambda|`` are round-off and are set to 0;
    larger negative values mean the matrix is not PSD and raise.
    """
    if (K is None) == (eigenvalues is None):
        raise ValueError("give exactly one of K and eigenvalues")
    if K is not None:
        lam = linalg.eigvalsh(kernel_matrix(K))
        name = "K"
    else:
        lam = np.asarray(eigenvalues, dtype=float)
        name = "eigenvalues"
        if lam.ndim != 1 or lam.size == 0:
            raise ValueError(f"eigenvalues must be a non-empty 1-D array, got shape {lam.shape}")
        if not np.all(np.isfinite(lam)):
            raise ValueError("eigenvalues contains NaN or inf")
    scale = np.max(np.abs(lam))
    tol = 64 * lam.size * np.finfo(float).eps * scale
    if lam.min() < -tol:
        raise ValueError(
            f"{name} is not positive semidefinite (eigenvalue {lam.min():.3g} < -{tol:.3g})"
        )
    return np.sort(np.maximum(lam, 0.0))[::-1]
