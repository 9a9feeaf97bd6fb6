"""Input and parameter checks shared by every learner.

Every check runs before a learner's state is touched, and every failure is a
``ValueError`` that names the offending argument (and row, where there is one).
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp


#: the loss codes of the typed cores (okl/_losses.pxd), by name
LOSS_CODES = {"hinge": 0, "logistic": 1, "squared": 2, "absolute": 3}
#: the losses of labels in {-1, +1} (mistakes are counted); the others are regression losses
CLASSIFICATION_LOSSES = frozenset({"hinge", "logistic"})


def check_matrix(X, d: int = -1, name: str = "X"):
    """Return ``X`` as a C-contiguous float64 array or a canonical CSR matrix.

    CSR matrices come back with float64 data, int32 indices and int64 indptr,
    which is what ``okl._core.Stream`` reads.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got {X.ndim} dimensions")
        if not (np.issubdtype(X.dtype, np.floating) or np.issubdtype(X.dtype, np.integer)
                or X.dtype == bool):
            raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
        X = X.astype(np.float64, copy=True)
        X.sum_duplicates()
        X.sort_indices()  # kernel rows walk CSR indices in order
        bad = np.flatnonzero(~np.isfinite(X.data))
        if bad.size:
            row = int(np.searchsorted(X.indptr, bad[0], side="right") - 1)
            raise ValueError(f"{name} contains NaN or infinity (row {row})")
        X.indices = X.indices.astype(np.int32, copy=False)
        X.indptr = X.indptr.astype(np.int64, copy=False)
    else:
        try:
            X = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise ValueError(f"{name} must be a 2-D numeric array: {exc}") from None
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (rounds x features), got shape {X.shape}")
        X = np.ascontiguousarray(X, dtype=np.float64)
        finite = np.isfinite(X)
        if not finite.all():
            row = int(np.flatnonzero(~finite.all(axis=1))[0])
            raise ValueError(f"{name} contains NaN or infinity (row {row})")
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty: a stream needs at least one round")
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no features")
    if d >= 0 and X.shape[1] != d:
        raise ValueError(f"{name} has {X.shape[1]} features, but this learner has seen "
                         f"{d}-dimensional inputs")
    return X


def row_norms(X):
    """Squared Euclidean and L1 norms of each row."""
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
        l1 = np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()
    else:
        sq = np.einsum("ij,ij->i", X, X)
        l1 = np.abs(X).sum(axis=1)
    return np.ascontiguousarray(sq), np.ascontiguousarray(l1)


def as_stream(X, d: int = -1, name: str = "X"):
    """Check ``X`` and wrap it as an ``okl._core.Stream``."""
    from okl._core import Stream

    X = check_matrix(X, d, name)
    sq, l1 = row_norms(X)
    return Stream(X, sq, l1)


def check_row(x, d: int = -1, name: str = "x"):
    """One example as a 1-row stream: accepts a 1-D array or a 1-row matrix."""
    if not sp.issparse(x):
        x = np.asarray(x)
        if x.dtype.kind in "biuf" and x.ndim == 1:
            x = x.reshape(1, -1)
    stream = as_stream(x, d, name)
    if stream.T != 1:
        raise ValueError(f"{name} must be a single example, got {stream.T} rows")
    return stream


def check_labels(y, n: int, classification: bool, name: str = "y"):
    """``y`` as a float64 vector of length ``n``; in {-1, +1} for classification."""
    try:
        y = np.asarray(y)
    except Exception as exc:
        raise ValueError(f"{name} must be a 1-D numeric array: {exc}") from None
    if y.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got dtype {y.dtype}")
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    if y.shape[0] != n:
        raise ValueError(f"{name} has {y.shape[0]} labels for {n} rounds")
    y = np.ascontiguousarray(y, dtype=np.float64)
    if not np.isfinite(y).all():
        raise ValueError(f"{name} contains NaN or infinity (round {int(np.flatnonzero(~np.isfinite(y))[0])})")
    if classification:
        bad = (y != 1.0) & (y != -1.0)
        if bad.any():
            found = np.unique(y[bad])[:5]
            raise ValueError(f"{name} must hold labels -1 or +1 for classification; "
                             f"found {found.tolist()} (round {int(np.flatnonzero(bad)[0])})")
    return y


# -- parameters -----------------------------------------------------------------

def check_real(value, name, *, low=None, high=None, low_open=False, high_open=False,
               allow_inf=False):
    """A real number in the given range; the message names the parameter and the range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if np.isnan(value) or (np.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be finite, got {value!r}")
    lo_ok = low is None or (value > low if low_open else value >= low)
    hi_ok = high is None or (value < high if high_open else value <= high)
    if not (lo_ok and hi_ok):
        lo = "-inf" if low is None else f"{low}"
        hi = "inf" if high is None else f"{high}"
        rng = f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"
        raise ValueError(f"{name} must be in {rng}, got {value!r}")
    return value


def check_int(value, name, *, low=None, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be in [{low if low is not None else '-inf'}, "
                         f"{high if high is not None else 'inf'}], got {value}")
    return value


def check_sgd_rate(eta, schedule, lam):
    """``(eta, schedule, lam)`` of a stochastic gradient step with weight decay.

    ``eta > 0``; ``schedule`` "constant" (``eta_t = eta``) or "sqrt"
    (``eta / sqrt(t)``); ``lam >= 0`` with ``eta * lam < 1``: eq. (9) of Kivinen
    et al. needs ``eta_t < 1/lambda`` so that the decay ``1 - eta_t lambda`` of the
    old coefficients stays positive.
    """
    eta = check_real(eta, "eta", low=0, low_open=True)
    schedule = check_choice(schedule, "schedule", {"constant", "sqrt"})
    lam = check_real(lam, "lam", low=0)
    if eta * lam >= 1.0:
        raise ValueError(f"eta * lam must be < 1 (eq. (9) needs eta_t < 1/lambda), got "
                         f"eta={eta}, lam={lam}")
    return eta, schedule, lam


def check_choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return value


def check_seed(seed, name="seed"):
    if seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"{name} must be None, a non-negative integer, a SeedSequence or a "
                         f"numpy Generator, got {seed!r}")
    return int(seed)
