"""Synthetic streams with known structure."""
from __future__ import annotations

import numpy as np

from okl._validation import check_int, check_real, check_seed


def xor_stream(n_rounds: int = 10_000, n_features: int = 10, *, noise: float = 0.1,
               seed=0):
    """A binary stream labelled by ``sign(x_1 x_2 + noise)``: not linearly separable.

    ``x ~ N(0, I_d)``; a Gaussian-kernel learner keeps adding support vectors
    near the two separating axes, so it exercises the budget machinery.
    Returns ``(X, y)`` with ``y`` in {-1, +1}.
    """
    n_rounds = check_int(n_rounds, "n_rounds", low=1)
    n_features = check_int(n_features, "n_features", low=2)
    noise = check_real(noise, "noise", low=0)
    rng = np.random.default_rng(check_seed(seed))
    X = rng.normal(size=(n_rounds, n_features))
    y = np.where(X[:, 0] * X[:, 1] + noise * rng.normal(size=n_rounds) >= 0, 1.0, -1.0)
    return X, y
