"""Synthetic streams with known structure."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

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


def gauss_mixture_stream(n_rounds: int = 10_000, *, seed=0):
    """*Gauss* of Wang, Crammer & Vucetic (JMLR 2012, Section 7.1): "a mixture of two 2-D
    Gaussians", one class ``N((0, 0), I)``, the other ``N((2, 0), 4 I)``.

    Each row's class is drawn with probability 1/2 (the paper gives no proportion: an
    assumption); ``+1`` is the ``N((0, 0), I)`` class.  The Bayes error is about 18.4 %
    (the paper's best accuracies are 81.6 %).  Returns ``(X, y)``, ``y`` in {-1, +1}.
    """
    n_rounds = check_int(n_rounds, "n_rounds", low=1)
    rng = np.random.default_rng(check_seed(seed))
    y = np.where(rng.random(n_rounds) < 0.5, 1.0, -1.0)
    X = rng.normal(size=(n_rounds, 2))
    neg = y < 0
    X[neg] = 2.0 * X[neg] + np.array([2.0, 0.0])
    return X, y


def checkerboard_stream(n_rounds: int = 10_000, *, cells: int = 4, seed=0):
    """*Checkerboard* of Wang, Crammer & Vucetic (JMLR 2012, Section 7.1): points uniform
    on a ``cells x cells`` board (the paper's 4 x 4) with alternating classes, no label
    noise.

    ``x`` uniform on ``[0, cells)^2``; ``y = +1`` when ``floor(x_1) + floor(x_2)`` is
    even, else ``-1``.  The paper's 10 million rows are ``n_rounds = 10_000_000``
    (generated in one array of 160 MB).
    Returns ``(X, y)``.
    """
    n_rounds = check_int(n_rounds, "n_rounds", low=1)
    cells = check_int(cells, "cells", low=1)
    rng = np.random.default_rng(check_seed(seed))
    X = rng.random((n_rounds, 2)) * cells
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)
    return X, y


ADVERSARIAL_SCALE = 2.0 ** -3


def adversarial_rescaling(X, y, *, scale: float = ADVERSARIAL_SCALE, start=None):
    """The "adversarial datasets" of Li & Liao, *Online kernel selection with
    computational constraints* (Sec. 5.1, "Experimental setting").

    The paper builds Adv-magic04, Adv-a9a and Adv-SUSY from a stream
    ``(x_t, y_t), t = 1, ..., T`` as

    * ``t <= ceil(T / 20)``: ``x_t`` unchanged;
    * ``t >= ceil(T / 20) + 1``: "we multiply the features [...] by ``2^{-3}``",

    i.e. every feature of every later round is scaled by ``scale = 2^{-3}``; the
    labels are not touched.  Shrinking the inputs by 8 changes which Gaussian kernel
    width fits best after the first twentieth of the stream, which is what defeats
    a kernel selector that commits early (the paper's discussion of ISKA).

    The paper also averages over 20 random permutations of each dataset.  The
    rescaling is a property of the *rounds* (an adversary acting after round
    ``ceil(T/20)``), so permute first and rescale the permuted stream: rescaling
    first and permuting afterwards would scatter the scaled rows over the whole
    stream and there would be no switch.  This function rescales ``X`` in the
    order given.

    Parameters
    ----------
    X : array of shape (T, d) or CSR matrix
        The stream in round order; a CSR matrix stays CSR.
    y : array of shape (T,)
        Labels or targets; returned unchanged (as float64).
    scale : float
        The factor applied to the later rounds (default ``2^{-3}``); > 0.
    start : int, optional
        The number of leading rounds left unchanged (default ``ceil(T / 20)``).

    Returns
    -------
    (X_adv, y) : a new matrix of ``X``'s kind (the input is not modified) and ``y``.
    """
    from okl._validation import check_labels, check_matrix

    X = check_matrix(X)  # a float64 copy (dense) or canonical CSR copy
    T = X.shape[0]
    y = check_labels(y, T, classification=False)
    scale = check_real(scale, "scale", low=0, low_open=True)
    start = -(-T // 20) if start is None else check_int(start, "start", low=0, high=T)
    if sp.issparse(X):
        row_scale = np.ones(T)
        row_scale[start:] = scale
        X = sp.csr_matrix(sp.diags(row_scale) @ X)
    else:
        X = X.copy()  # check_matrix may return the caller's own array
        X[start:] *= scale
    return X, y
