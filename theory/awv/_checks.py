"""Argument checks shared by the parts of :mod:`theory.awv`."""
from __future__ import annotations

import numpy as np

from .. import _validation as v


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
