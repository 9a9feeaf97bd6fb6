"""Input and parameter checks shared by every learner.

Every check runs before a learner's state is touched, and every failure is a
``ValueError`` that names the offending argument (and row, where there is one).
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from okl import _stream  # typed rows and checks (okl._core sits above this module)


#: the loss codes of the typed cores (okl/_losses.pxd), by name
LOSS_CODES = {"hinge": 0, "logistic": 1, "squared": 2, "absolute": 3}
#: the losses of labels in {-1, +1} (mistakes are counted); the others are regression losses
CLASSIFICATION_LOSSES = frozenset({"hinge", "logistic"})


def _aligned(a, dtype):
    """``a`` as a C-contiguous, aligned array of ``dtype`` (a copy only if it is not one):
    ``np.ascontiguousarray`` keeps an array that is contiguous but not aligned (made by
    ``np.frombuffer`` at an odd offset), which the typed code must not read in place
    (see ``okl/_stream.pyx``)."""
    return np.require(a, dtype=dtype, requirements=("C", "A"))


def _dense(X, name):
    """``X`` as a C-contiguous, aligned float64 2-D array, checked finite in one pass.

    An input that already is one is returned as it is (no copy); anything else is
    converted once.
    """
    if not (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype == np.float64
            and X.flags.c_contiguous and X.flags.aligned):
        try:
            X = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise ValueError(f"{name} must be a 2-D numeric array: {exc}") from None
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (rounds x features), got shape {X.shape}")
        X = _aligned(X, np.float64)
    bad = _stream._first_nonfinite(X)
    if bad >= 0:
        raise ValueError(f"{name} contains NaN or infinity (row {bad // X.shape[1]})")
    return X


def _index_array(a, name, *, bound=None):
    """A C-contiguous int32 copy of an index array when it is not one already; values
    are range-checked before an int64 array is narrowed (no silent wrap-around)."""
    if a.dtype == np.int32 and a.flags.c_contiguous and a.flags.aligned:
        return a
    if a.dtype.kind not in "iu":
        raise ValueError(f"{name} has non-integer CSR indices (dtype {a.dtype})")
    if bound is not None:
        if not (a.dtype == np.int64 and a.flags.c_contiguous and a.flags.aligned):
            if a.size and a.max() > np.iinfo(np.int64).max:      # huge uint64 values
                raise ValueError(f"{name} has a column index outside [0, {bound})")
            a = _aligned(a, np.int64)
        out, bad = _stream._narrow_indices(a, bound)
        if out is None:
            raise ValueError(f"{name} has a column index outside [0, {bound}) "
                             f"(stored value {bad})")
        return out
    return _aligned(a, np.int32)


def _csr_parts(X, name):
    """``(data, indices, indptr, T, d)`` of a sparse ``X``: canonical CSR (sorted,
    distinct column indices), finite, float64 data and int32 indices.

    One typed pass checks a CSR input; it is used as it is when it passes (no
    copy).  Only what must change is copied: another sparse format, another
    dtype, int64 indices (narrowed to int32), or unsorted / duplicate indices
    (summed and sorted in a copy, as scipy's ``sum_duplicates``).
    """
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got {X.ndim} dimensions")
    if not (np.issubdtype(X.dtype, np.floating) or np.issubdtype(X.dtype, np.integer)
            or X.dtype == bool):
        raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
    if X.format != "csr":
        X = X.tocsr()
    T, d = X.shape
    for attempt in range(2):
        data = X.data
        if not (data.dtype == np.float64 and data.flags.c_contiguous and data.flags.aligned
                and data.ndim == 1):
            data = _aligned(data, np.float64)
        indices = _index_array(X.indices, name, bound=d)
        indptr = X.indptr
        if not ((indptr.dtype == np.int32 or indptr.dtype == np.int64)
                and indptr.flags.c_contiguous and indptr.flags.aligned):
            indptr = _aligned(indptr, np.int64)
        code, where = _stream._csr_scan(data, indices, indptr, T, d)
        if code == _stream.CSR_OK:
            return data, indices, indptr, T, d
        if code == _stream.CSR_NONFINITE:
            raise ValueError(f"{name} contains NaN or infinity (row {where})")
        if code == _stream.CSR_BAD_INDEX:
            raise ValueError(f"{name} is not a valid CSR matrix: row {where} has a column "
                             f"index outside [0, {d})")
        if code == _stream.CSR_BAD_INDPTR:
            raise ValueError(f"{name} is not a valid CSR matrix: indptr is not a "
                             f"non-decreasing sequence from 0 within the stored values "
                             f"(row {where})")
        # unsorted or duplicate indices: sum and sort them in a copy
        X = sp.csr_matrix((data, indices, indptr), shape=(T, d), copy=True)
        X.sum_duplicates()
        X.sort_indices()  # kernel rows walk CSR indices in order
    raise AssertionError("a summed and sorted CSR matrix must be canonical")


def _check_shape(T, d, want_d, name):
    if T == 0:
        raise ValueError(f"{name} is empty: a stream needs at least one round")
    if d == 0:
        raise ValueError(f"{name} has no features")
    if want_d >= 0 and d != want_d:
        raise ValueError(f"{name} has {d} features, but this learner has seen "
                         f"{want_d}-dimensional inputs")


def check_matrix(X, d: int = -1, name: str = "X"):
    """Return ``X`` as a C-contiguous float64 array or a canonical CSR matrix.

    CSR matrices come back with float64 data and int32 indices (``indptr`` int32
    or int64), which is what ``okl._core.Stream`` reads.  An input already in
    that form is returned without a copy; the check is one pass over it.
    """
    if sp.issparse(X):
        data, indices, indptr, T, dd = _csr_parts(X, name)
        _check_shape(T, dd, d, name)
        if (isinstance(X, sp.csr_matrix) and X.data is data and X.indices is indices
                and X.indptr is indptr):
            return X
        out = sp.csr_matrix((T, dd))
        out.data, out.indices, out.indptr = data, indices, indptr
        return out
    X = _dense(X, name)
    _check_shape(X.shape[0], X.shape[1], d, name)
    return X


def row_norms(X):
    """Squared Euclidean and L1 norms of each row (the stream computes them per row
    itself; this is for callers that want the arrays)."""
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
        l1 = np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()
    else:
        sq = np.einsum("ij,ij->i", X, X)
        l1 = np.abs(X).sum(axis=1)
    return np.ascontiguousarray(sq), np.ascontiguousarray(l1)


def as_stream(X, d: int = -1, name: str = "X"):
    """Check ``X`` and wrap it as an ``okl._core.Stream`` (no copy of a float64
    C-contiguous array or of a canonical CSR matrix with float64 data and int32
    indices; rows' norms are computed by the stream as it hands them out)."""
    stream = _stream._stream_checked(X, d)
    if stream is not None:
        return stream
    if sp.issparse(X):
        data, indices, indptr, T, dd = _csr_parts(X, name)
        _check_shape(T, dd, d, name)
        return _stream._stream_of(None, data, indices, indptr, T, dd)
    X = _dense(X, name)
    _check_shape(X.shape[0], X.shape[1], d, name)
    return _stream._stream_of(X)


def check_row(x, d: int = -1, name: str = "x"):
    """One example as a 1-row stream: accepts a 1-D array or a 1-row matrix.

    A float64 vector, ``(1, d)`` array or 1-row CSR matrix (float64 data, int32
    indices) that passes the checks is wrapped as it is (``_stream._row_stream``,
    about a microsecond); anything else goes through ``as_stream``.
    """
    stream = _stream._row_stream(x, d)
    if stream is not None:
        return stream
    if not sp.issparse(x):
        try:
            x = np.asarray(x)
        except Exception as exc:
            raise ValueError(f"{name} must be a 1-D numeric array: {exc}") from None
        if x.dtype.kind in "biuf" and x.ndim == 1:
            x = _aligned(x, np.float64)   # a list, ints, float32, an unaligned vector ...
            stream = _stream._row_stream(x, d)
            if stream is not None:
                return stream
            x = x.reshape(1, -1)
    stream = as_stream(x, d, name)
    if stream.T != 1:
        raise ValueError(f"{name} must be a single example, got {stream.T} rows")
    return stream


def check_labels(y, n: int, classification: bool, name: str = "y"):
    """``y`` as a float64 vector of length ``n``; in {-1, +1} for classification."""
    checked = _stream._labels_checked(y, n, classification)
    if checked is not None:
        return checked
    if not (isinstance(y, np.ndarray) and y.dtype == np.float64 and y.flags.c_contiguous):
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
    y = _aligned(y, np.float64)
    if _stream._first_bad_label(y, False) >= 0:
        raise ValueError(f"{name} contains NaN or infinity (round {int(np.flatnonzero(~np.isfinite(y))[0])})")
    if classification and _stream._first_bad_label(y, True) >= 0:
        bad = (y != 1.0) & (y != -1.0)
        found = np.unique(y[bad])[:5]
        raise ValueError(f"{name} must hold labels -1 or +1 for classification; "
                         f"found {found.tolist()} (round {int(np.flatnonzero(bad)[0])})")
    return y


_SCALARS = (float, int, np.floating, np.integer)
_BOOLS = (bool, np.bool_)


def check_label(y, classification: bool, name: str = "y") -> float:
    """One label as a float (``learn_one``): finite, and -1 or +1 for classification.
    A 1-element array is accepted too; anything wrong raises as ``check_labels``."""
    if isinstance(y, _SCALARS) and not isinstance(y, _BOOLS):
        v = float(y)
        if (v == 1.0 or v == -1.0) if classification else (v - v == 0.0):
            return v
    return float(check_labels(np.atleast_1d(y), 1, classification, name)[0])


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
    check_decay(eta, lam)
    return eta, schedule, lam


def check_decay(eta, lam) -> None:
    """``eta * lam < 1``: eq. (9) of Kivinen et al. needs ``eta_t < 1/lambda`` so that
    the decay ``1 - eta_t lambda`` of the old coefficients stays positive."""
    if eta * lam >= 1.0:
        raise ValueError(f"eta * lam must be < 1 (eq. (9) needs eta_t < 1/lambda), got "
                         f"eta={eta}, lam={lam}")


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
