"""Argument checks shared by the parts of :mod:`theory.norma` (every failure names the
argument)."""
from __future__ import annotations

import numpy as np

from .. import _validation as v

_real = v.real
_positive = v.positive
_nonnegative = v.nonnegative
_integer = v.integer


def _rate(eta, lam, name_eta="eta", name_lam="lam"):
    """``eta > 0``, ``lam > 0`` and ``eta * lam < 1`` (NORMA's ``eta in (0, 1/lam)``)."""
    eta = _positive(eta, name_eta)
    lam = _positive(lam, name_lam)
    if eta * lam >= 1.0:
        raise ValueError(f"{name_eta} * {name_lam} must be < 1 (the paper needs "
                         f"0 < eta < 1/lambda), got {name_eta}={eta!r}, {name_lam}={lam!r}")
    return eta, lam


def _margins(mu, rho):
    mu = _positive(mu, "mu")
    rho = _nonnegative(rho, "rho")
    if rho >= mu:
        raise ValueError(f"rho must be < mu (Theorem 2 needs mu > rho >= 0), got "
                         f"rho={rho!r}, mu={mu!r}")
    return mu, rho


def _vector(x, name, length=None):
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {x.shape}")
    if length is not None and x.size != length:
        raise ValueError(f"{name} must have length {length}, got {x.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or inf")
    return x
