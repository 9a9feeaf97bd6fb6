"""Argument checks and tolerances shared by the parts of :mod:`theory.ahpatron` (every
failure names the argument)."""
from __future__ import annotations

import numpy as np

from .. import _validation as v

#: Relative slack allowed in the checks ``f_norm <= U`` and ``U <= U_max`` (round-off
#: of a comparator's norm, or of a radius recomputed from ``B``).
NORM_RTOL = 1e-9
#: Relative tolerance of the equality checks ``lam == prescribed lam``.
LAM_RTOL = 1e-9

_real = v.real
_positive = v.positive
_nonnegative = v.nonnegative
_integer = v.integer


def _open_unit(value, name):
    value = _real(value, name)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return value


def _even_budget(B):
    B = _integer(B, "B", 2)
    if B % 2:
        raise ValueError(f"B must be even (Ahpatron keeps B/2 examples), got {B!r}")
    return B


def _in_ball(f_norm, U, what):
    f_norm = _nonnegative(f_norm, "f_norm")
    if f_norm > U * (1.0 + NORM_RTOL):
        raise ValueError(f"f_norm must be <= U ({what} needs f in the ball of radius U), "
                         f"got f_norm={f_norm!r}, U={U!r}")
    return min(f_norm, U)


def _vector(x, name):
    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        x = x.reshape(1)
    if x.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or inf")
    return x


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)
