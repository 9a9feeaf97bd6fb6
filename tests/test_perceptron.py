"""Perceptron and KernelOGD against plain-numpy per-round oracles."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from conftest import KERNELS, ref_gram, sparse_stream, xor_stream


def perceptron_oracle(kernel, X, y):
    Xd = X.toarray() if sp.issparse(X) else X
    S, a, scores, budget = [], [], [], []
    for t in range(len(y)):
        f = float(ref_gram(kernel, Xd[t:t + 1], np.array(S))[0] @ np.array(a)) if S else 0.0
        scores.append(f)
        if y[t] * f <= 0:
            S.append(Xd[t])
            a.append(y[t])
        budget.append(len(S))
    return np.array(scores), np.array(budget), np.array(S), np.array(a)


def dloss(loss, y, f):
    if loss == "hinge":
        return -y if y * f < 1 else 0.0
    if loss == "logistic":
        return -y / (1.0 + np.exp(y * f))
    if loss == "squared":
        return f - y
    return float(np.sign(f - y))


def loss_value(loss, y, f):
    return {"hinge": max(0.0, 1 - y * f), "logistic": np.log1p(np.exp(-y * f)),
            "squared": 0.5 * (f - y) ** 2, "absolute": abs(f - y)}[loss]


def ogd_oracle(kernel, X, y, loss, eta, schedule, lam):
    """Eq. (9)-(12) of Kivinen et al. with every coefficient shrunk explicitly each round."""
    S, a, scores, losses = [], [], [], []
    for t in range(1, len(y) + 1):
        x = X[t - 1]
        f = float(ref_gram(kernel, x[None], np.array(S))[0] @ np.array(a)) if S else 0.0
        scores.append(f)
        losses.append(loss_value(loss, y[t - 1], f))
        eta_t = eta / np.sqrt(t) if schedule == "sqrt" else eta
        a = [(1 - eta_t * lam) * ai for ai in a]
        g = dloss(loss, y[t - 1], f)
        if g != 0:
            S.append(x)
            a.append(-eta_t * g)
    return np.array(scores), np.array(losses), np.array(a)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
def test_perceptron_matches_oracle_round_for_round(kernel, sparse):
    X, y = sparse_stream(300, 8, seed=3) if sparse else xor_stream(300, 4, seed=3)
    if isinstance(kernel, okl.Polynomial):
        X = X * 0.5
    ref_scores, ref_budget, ref_S, ref_a = perceptron_oracle(kernel, X, y)
    tr = okl.Perceptron(kernel=kernel).run(X, y)
    np.testing.assert_allclose(tr.scores, ref_scores, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref_budget)
    np.testing.assert_array_equal(tr.mistakes, y * ref_scores <= 0)
    np.testing.assert_allclose(tr.losses, np.maximum(0, -y * ref_scores), rtol=1e-9, atol=1e-9)
    assert ref_budget[-1] > 20  # the stream exercises a growing support set


def test_perceptron_state_is_the_mistake_set():
    X, y = xor_stream(500, 3, seed=7)
    p = okl.Perceptron(kernel=okl.Gaussian(0.8))
    tr = p.run(X, y)
    mistakes = np.flatnonzero(tr.mistakes)
    np.testing.assert_array_equal(p.support_vectors, X[mistakes])
    np.testing.assert_array_equal(p.coefficients, y[mistakes])
    np.testing.assert_array_equal(p.support_set.stamps, mistakes + 1)
    assert tr.n_mistakes == tr.final_budget


@pytest.mark.parametrize("loss", ["hinge", "logistic", "squared", "absolute"])
@pytest.mark.parametrize("schedule", ["constant", "sqrt"])
@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_kernel_ogd_matches_oracle(loss, schedule, lam):
    X, y = xor_stream(250, 3, seed=11)
    if loss in ("squared", "absolute"):
        y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2
    kernel = okl.Gaussian(1.3)
    ref_scores, ref_losses, ref_a = ogd_oracle(kernel, X, y, loss, 0.4, schedule, lam)
    learner = okl.KernelOGD(kernel=kernel, loss=loss, eta=0.4, schedule=schedule, lam=lam)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref_scores, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(tr.losses, ref_losses, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(learner.coefficients, ref_a, rtol=1e-9, atol=1e-12)
    assert (tr.mistakes is None) == (loss in ("squared", "absolute"))


def test_kernel_ogd_lazy_scale_survives_underflow():
    """Shrinking by (1 - eta lam) for thousands of rounds underflows a naive product."""
    X, y = xor_stream(3000, 2, seed=4)
    learner = okl.KernelOGD(kernel=okl.Gaussian(1.0), loss="hinge", eta=0.9, lam=1.0)
    tr = learner.run(X, y)
    # (1 - 0.9)^3000 = 1e-3000: the scale was folded into the coefficients many times
    ref_scores, _, ref_a = ogd_oracle(okl.Gaussian(1.0), X[:3000], y[:3000], "hinge", 0.9,
                                      "constant", 1.0)
    np.testing.assert_allclose(tr.scores, ref_scores, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(learner.coefficients, ref_a, rtol=1e-9, atol=1e-300)


def test_kernel_ogd_dense_equals_sparse():
    X, y = sparse_stream(300, 10, seed=5)
    a = okl.KernelOGD(kernel=okl.Laplacian(2.0), loss="logistic", eta=0.7, lam=0.01).run(X, y)
    b = okl.KernelOGD(kernel=okl.Laplacian(2.0), loss="logistic", eta=0.7, lam=0.01).run(
        X.toarray(), y)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-13)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2 ** 16), T=st.integers(1, 60), d=st.integers(1, 6),
       sigma=st.floats(0.2, 5.0))
def test_perceptron_property(seed, T, d, sigma):
    X, y = xor_stream(T, max(d, 2), seed=seed)
    kernel = okl.Gaussian(sigma)
    ref_scores, ref_budget, _, _ = perceptron_oracle(kernel, X, y)
    tr = okl.Perceptron(kernel=kernel).run(X, y)
    np.testing.assert_allclose(tr.scores, ref_scores, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref_budget)


@pytest.mark.parametrize("bad", [
    dict(loss="hinge2"), dict(eta=0.0), dict(eta=-1.0), dict(eta=float("nan")),
    dict(schedule="linear"), dict(lam=-0.1), dict(eta=2.0, lam=0.5), dict(seed=-3),
    dict(seed=1.5), dict(kernel="rbf"),
])
def test_kernel_ogd_parameter_validation(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        okl.KernelOGD(**bad)
