"""okl.datasets.synthetic.adversarial_rescaling: Li & Liao's Adv-* streams (Sec. 5.1).

Oracle: the paper's rule written out with a Python loop over rounds t = 1..T
(1-based, as in the paper): x_t unchanged for t <= ceil(T/20), x_t * 2^-3 after.
"""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from okl.datasets.synthetic import ADVERSARIAL_SCALE, adversarial_rescaling


def oracle(X, scale=2.0 ** -3):
    T = X.shape[0]
    out = np.array(X, dtype=float)
    for t in range(1, T + 1):
        if t >= math.ceil(T / 20) + 1:
            out[t - 1] = X[t - 1] * scale
    return out


@pytest.mark.parametrize("T, unchanged", [(1, 1), (19, 1), (20, 1), (21, 2), (40, 2),
                                          (41, 3), (1000, 50), (1001, 51)])
def test_rounds_after_ceil_T_over_20_are_scaled_by_one_eighth(T, unchanged):
    rng = np.random.default_rng(T)
    X = rng.normal(size=(T, 3))
    y = rng.choice([-1.0, 1.0], size=T)
    Xa, ya = adversarial_rescaling(X, y)
    np.testing.assert_array_equal(Xa, oracle(X))
    np.testing.assert_array_equal(Xa[:unchanged], X[:unchanged])
    np.testing.assert_array_equal(Xa[unchanged:], X[unchanged:] / 8.0)
    np.testing.assert_array_equal(ya, y)
    assert ADVERSARIAL_SCALE == 0.125


def test_sparse_stays_sparse_and_inputs_are_not_modified():
    rng = np.random.default_rng(1)
    Xs = sp.random(60, 7, density=0.3, format="csr", random_state=rng)
    dense = Xs.toarray()
    y = rng.normal(size=60)                   # real targets (regression streams) pass
    Xa, ya = adversarial_rescaling(Xs, y)
    assert sp.issparse(Xa) and Xa.format == "csr" and Xa.nnz == Xs.nnz
    np.testing.assert_array_equal(Xa.toarray(), oracle(dense))
    np.testing.assert_array_equal(Xs.toarray(), dense)
    np.testing.assert_array_equal(ya, y)
    Xd = dense.copy()
    Xb, _ = adversarial_rescaling(Xd, y)
    np.testing.assert_array_equal(Xd, dense)
    assert not np.shares_memory(Xb, Xd)


def test_scale_and_start_can_be_chosen():
    X = np.arange(12.0).reshape(6, 2)
    Xa, _ = adversarial_rescaling(X, np.ones(6), scale=2.0, start=4)
    np.testing.assert_array_equal(Xa, np.vstack([X[:4], 2 * X[4:]]))
    Xa, _ = adversarial_rescaling(X, np.ones(6), start=0)
    np.testing.assert_array_equal(Xa, X / 8)


@pytest.mark.parametrize("kwargs, X, y, message", [
    ({"scale": 0.0}, np.ones((4, 2)), np.ones(4), "scale"),
    ({"scale": float("nan")}, np.ones((4, 2)), np.ones(4), "scale"),
    ({"start": 5}, np.ones((4, 2)), np.ones(4), "start"),
    ({"start": -1}, np.ones((4, 2)), np.ones(4), "start"),
    ({}, np.ones((4, 2)), np.ones(3), "3 labels for 4 rounds"),
    ({}, np.array([[1.0, np.nan]]), np.ones(1), "NaN"),
    ({}, np.ones((0, 2)), np.ones(0), "empty"),
    ({}, np.ones(4), np.ones(4), "2-D"),
])
def test_bad_input(kwargs, X, y, message):
    with pytest.raises(ValueError, match=message):
        adversarial_rescaling(X, y, **kwargs)
