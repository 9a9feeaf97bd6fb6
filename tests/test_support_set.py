import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from conftest import KERNELS, ref_gram


class ListSupport:
    """Plain-Python model of a support set (the oracle)."""

    def __init__(self):
        self.X, self.a = [], []

    def score(self, kernel, x):
        if not self.X:
            return 0.0
        return float(ref_gram(kernel, x[None], np.array(self.X))[0] @ np.array(self.a))


ops = st.lists(st.tuples(st.sampled_from(["add", "remove", "swap", "replace"]),
                         st.integers(0, 10 ** 6), st.floats(-2, 2)), min_size=1, max_size=40)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@settings(max_examples=25, deadline=None)
@given(ops=ops, sparse=st.booleans())
def test_support_set_matches_list_model(kernel, ops, sparse):
    rng = np.random.default_rng(len(ops))
    d = 5
    S = okl.SupportSet(kernel, d, 8, growable=True)
    model = ListSupport()
    for op, r, a in ops:
        x = rng.normal(size=d) * (rng.random(d) < 0.6)
        xin = sp.csr_matrix(x) if sparse else x
        if op == "add" or not model.X:
            S.push(xin, a, stamp=r)
            model.X.append(x)
            model.a.append(a)
        elif op == "remove":
            i = r % len(model.X)
            S.pop(i)
            del model.X[i], model.a[i]
        elif op == "swap":
            i = r % len(model.X)
            S.pop_swap(i)
            model.X[i], model.a[i] = model.X[-1], model.a[-1]
            model.X.pop()
            model.a.pop()
        elif op == "replace":
            i = r % len(model.X)
            S.put(i, xin, a)
            model.X[i], model.a[i] = x, a
        q = rng.normal(size=d)
        np.testing.assert_allclose(S.decision(q[None])[0], model.score(kernel, q), rtol=1e-9,
                                   atol=1e-10)
        assert S.size == len(model.X)
        if model.X:
            np.testing.assert_array_equal(S.vectors, np.array(model.X))
            np.testing.assert_array_equal(S.coefficients, np.array(model.a))


def test_remove_keeps_order_and_kernel_row():
    k = okl.Gaussian(1.0)
    X = np.random.default_rng(0).normal(size=(6, 3))
    S = okl.SupportSet(k, 3, 6)
    for i, x in enumerate(X):
        S.push(x, float(i), stamp=10 + i)
    q = np.ones((1, 3))
    S.decision(q)
    row = S.last_kernel_row
    S.pop(2)
    np.testing.assert_array_equal(S.stamps, [10, 11, 13, 14, 15])
    np.testing.assert_array_equal(S.vectors, X[[0, 1, 3, 4, 5]])
    np.testing.assert_array_equal(S.last_kernel_row, row[[0, 1, 3, 4, 5]])


def test_capacity_is_never_exceeded():
    S = okl.SupportSet(okl.Linear(), 2, 3, growable=False)
    for _ in range(3):
        S.push(np.ones(2), 1.0)
    with pytest.raises(ValueError, match="full"):
        S.push(np.ones(2), 1.0)
    assert S.size == 3 and S.max_size == 3


def test_growable_set_doubles():
    S = okl.SupportSet(okl.Linear(), 2, 2, growable=True)
    for i in range(9):
        S.push(np.full(2, float(i)), 1.0)
    assert S.size == 9 and S.max_size >= 9
    np.testing.assert_array_equal(S.vectors[:, 0], np.arange(9.0))


def test_kernel_rows_and_pickle():
    k = okl.Laplacian(1.5)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(7, 4))
    S = okl.SupportSet(k, 4, 10)
    for x in X:
        S.push(x, rng.normal())
    Q = rng.normal(size=(5, 4))
    np.testing.assert_allclose(S.kernel_rows(Q), ref_gram(k, Q, X), rtol=1e-12)
    T = pickle.loads(pickle.dumps(S))
    np.testing.assert_array_equal(T.decision(Q), S.decision(Q))
    assert T.max_size == S.max_size and T.size == S.size


def test_wrong_dimension_rejected():
    S = okl.SupportSet(okl.Linear(), 3, 4)
    with pytest.raises(ValueError, match="features"):
        S.push(np.ones(4), 1.0)
    with pytest.raises(ValueError, match="NaN"):
        S.push(np.array([1.0, np.nan, 0.0]), 1.0)
    assert S.size == 0


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_all_zero_csr_input(kernel):
    """A CSR matrix without stored entries is a stream of zero rows, not dense rows."""
    S = okl.SupportSet(kernel, 10, 4)
    S.push(sp.csr_matrix((1, 10)), 1.0)
    np.testing.assert_array_equal(S.vectors, np.zeros((1, 10)))
    Z = sp.csr_matrix((5, 10))
    np.testing.assert_allclose(S.kernel_rows(Z), ref_gram(kernel, np.zeros((5, 10)),
                                                          np.zeros((1, 10))))
    tr = okl.Perceptron(kernel=kernel).run(Z, np.ones(5))
    np.testing.assert_allclose(tr.scores, okl.Perceptron(kernel=kernel).run(
        np.zeros((5, 10)), np.ones(5)).scores)
