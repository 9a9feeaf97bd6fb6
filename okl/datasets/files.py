"""Reading LIBSVM / SVMlight files (sparse kept sparse)."""
from __future__ import annotations

import numpy as np


def load_libsvm(path, *, n_features: int | None = None):
    """Load a LIBSVM file as ``(X, y)`` with ``X`` CSR float64 and binary labels in {-1, +1}.

    Labels ``{0, 1}`` or ``{1, 2}`` (the two conventions of LIBSVM's binary
    sets) are mapped to ``{-1, +1}``; a file with any other label set, or
    with more than two labels, raises ``ValueError``.
    """
    from sklearn.datasets import load_svmlight_file  # scikit-learn's parser (C speed)

    try:
        X, y = load_svmlight_file(str(path), n_features=n_features, dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"{path}: not a valid LIBSVM file: {exc}") from None
    labels = np.unique(y)
    if len(labels) > 2:
        raise ValueError(f"{path}: {len(labels)} distinct labels; a binary file is needed")
    if set(labels) <= {-1.0, 1.0}:
        return X, y
    if len(labels) == 2:
        return X, np.where(y == labels.max(), 1.0, -1.0)
    raise ValueError(f"{path}: a single label {labels.tolist()} that is not -1 or +1")
