"""ALMA_2 against a plain-numpy oracle written from Gentile (JMLR 2001), Fig. 1, p = 2."""
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from okl.learners.alma import ALMA
from conftest import KERNELS, ref_gram, sparse_stream, xor_stream


def alma_oracle(kernel, X, y, *, alpha=1.0, B=None, C=math.sqrt(2.0)):
    """ALMA_2 with explicit coefficients on normalized instances.

    ``w = sum_i c_i x_hat_i`` with ``x_hat = phi(x) / ||phi(x)||``; the inner
    products ``x_hat_i . x_hat_j`` are scikit-learn's Gram matrix normalized by its
    diagonal, ``||w'||`` is recomputed from it at every update and every coefficient
    divided by ``max(1, ||w'||)`` explicitly.
    """
    B = 1.0 / alpha if B is None else B
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    K = ref_gram(kernel, Xd, Xd)
    diag = np.diag(K).copy()
    sd = np.sqrt(np.where(diag > 0, diag, 1.0))
    Kn = K / np.outer(sd, sd)              # normalized kernel (rows with k(x,x) = 0 unused)
    idx, c, scores, updates, sizes = [], [], [], [], []
    k = 1
    for t in range(len(y)):
        f = float(Kn[t, idx] @ np.array(c)) if idx and diag[t] > 0 else 0.0
        scores.append(f)
        gamma = B * math.sqrt(2 - 1) / math.sqrt(k)
        upd = y[t] * f <= (1 - alpha) * gamma
        updates.append(upd)
        if upd:
            eta = C / (math.sqrt(2 - 1) * math.sqrt(k))
            k += 1
            if diag[t] > 0:
                idx.append(t)
                c.append(eta * y[t])
                ca = np.array(c)
                norm = math.sqrt(max(ca @ Kn[np.ix_(idx, idx)] @ ca, 0.0))
                c = list(ca / max(1.0, norm))
        sizes.append(len(idx))
    return dict(scores=np.array(scores), updates=np.array(updates), sizes=np.array(sizes),
                c=np.array(c), S=Xd[idx], k=k)


def true_coefficients_oracle(kernel, S, c):
    """Coefficients on the unnormalized phi(x_i): c_i / sqrt(k(x_i, x_i))."""
    return c / np.sqrt(np.diag(ref_gram(kernel, S, S)))


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("alpha", [1.0, 0.6, 0.1])
def test_matches_oracle_round_for_round_dense(kernel, alpha):
    X, y = xor_stream(250, 3, seed=4)
    if isinstance(kernel, okl.Polynomial):
        X = X * 0.5
    ref = alma_oracle(kernel, X, y, alpha=alpha)
    learner = ALMA(kernel=kernel, alpha=alpha)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
    np.testing.assert_allclose(learner.coefficients,
                               true_coefficients_oracle(kernel, ref["S"], ref["c"]),
                               rtol=1e-8, atol=1e-12)
    assert learner.n_corrections == ref["k"] - 1 == ref["updates"].sum()
    assert ref["sizes"][-1] > 20
    # ||w||^2 kept by the recursion equals the Gram form, and the projection holds it <= 1
    G = ref_gram(kernel, learner.support_vectors, learner.support_vectors)
    a = learner.coefficients
    assert learner.norm_sq_ == pytest.approx(a @ G @ a, rel=1e-8)
    assert learner.norm_sq_ <= 1.0 + 1e-12


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_matches_oracle_on_csr_input(alpha):
    X, y = sparse_stream(300, 10, seed=8)
    kernel = okl.Gaussian(1.5)
    ref = alma_oracle(kernel, X, y, alpha=alpha)
    tr = ALMA(kernel=kernel, alpha=alpha).run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    dense = ALMA(kernel=kernel, alpha=alpha).run(X.toarray(), y)
    np.testing.assert_allclose(tr.scores, dense.scores, rtol=1e-12, atol=1e-13)


def test_linear_kernel_csr_with_zero_rows_and_nondefault_B_C():
    """k(x, x) = 0 rows normalize to x_hat = 0: score 0, a correction that adds nothing."""
    X, y = sparse_stream(200, 6, density=0.15, seed=2)
    assert (X.getnnz(axis=1) == 0).any()
    kernel = okl.Linear()
    ref = alma_oracle(kernel, X, y, alpha=0.7, B=2.5, C=0.8)
    learner = ALMA(kernel=kernel, alpha=0.7, B=2.5, C=0.8)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    assert learner.n_corrections == ref["k"] - 1
    assert learner.n_corrections > learner.support_set.size  # zero rows advanced k


def test_losses_are_the_margin_shortfall():
    X, y = xor_stream(200, 2, seed=1)
    alpha, B = 0.4, 3.0
    ref = alma_oracle(okl.Gaussian(1.0), X, y, alpha=alpha, B=B)
    tr = ALMA(kernel=okl.Gaussian(1.0), alpha=alpha, B=B).run(X, y)
    k = 1 + np.r_[0, np.cumsum(ref["updates"])[:-1]]
    margin = (1 - alpha) * B / np.sqrt(k)
    np.testing.assert_allclose(tr.losses, np.maximum(0, margin - y * ref["scores"]),
                               rtol=1e-8, atol=1e-10)
    assert tr.extras["n_corrections"] == ref["updates"].sum()


def test_long_stream_folds_the_lazy_scale():
    """Many projections by ||w'|| ~ eta_k shrink the lazy factor far below 1e-100."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(700, 2))
    y = np.where(rng.random(700) < 0.5, 1.0, -1.0)  # pure noise: a correction most rounds
    kernel = okl.Gaussian(0.3)
    learner = ALMA(kernel=kernel, alpha=0.2, C=100.0)
    tr = learner.run(X, y)
    assert learner.n_corrections > 500
    # the oldest coefficient is eta_1 y_1 times the product of every projection since;
    # the lazy factor never goes below 1e-100, so this one was folded
    assert 0 <= abs(learner.coefficients[0]) < 1e-100
    assert 1e-100 <= learner.coefficient_scale <= 1.0
    ref = alma_oracle(kernel, X, y, alpha=0.2, C=100.0)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    a = learner.coefficients
    K = ref_gram(kernel, learner.support_vectors, learner.support_vectors)
    assert learner.norm_sq_ == pytest.approx(a @ K @ a, rel=1e-8)
    np.testing.assert_allclose(learner.decision_function(X[:50]),
                               ref_gram(kernel, X[:50], learner.support_vectors) @ a,
                               rtol=1e-9, atol=1e-12)


def test_pickle_resumes_mid_stream():
    X, y = xor_stream(600, 3, seed=12)
    for params in (dict(alpha=1.0), dict(alpha=0.3, B=2.0, C=0.9)):
        full = ALMA(kernel=okl.Gaussian(0.9), **params).run(X, y)
        learner = ALMA(kernel=okl.Gaussian(0.9), **params)
        first = learner.run(X[:237], y[:237])
        clone = pickle.loads(pickle.dumps(learner))
        assert repr(clone) == repr(learner)
        assert clone.norm_sq_ == learner.norm_sq_
        assert clone.n_corrections == learner.n_corrections
        rest = clone.run(X[237:], y[237:])
        np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
        np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
        assert learner.n_rounds == 237


def test_learn_one_equals_run():
    X, y = xor_stream(120, 3, seed=3)
    a, b = ALMA(alpha=0.5), ALMA(alpha=0.5)
    tr = a.run(X, y)
    for t in range(len(y)):
        assert b.decision_function(X[t:t + 1])[0] == tr.scores[t]
        b.learn_one(X[t], y[t])
    np.testing.assert_array_equal(a.coefficients, b.coefficients)


# -- alpha = 1: ALMA_0, the zero-margin variant of Fig. 2 -----------------------------

def test_alpha_one_updates_exactly_on_mistakes():
    X, y = xor_stream(500, 3, seed=6)
    learner = ALMA(kernel=okl.Gaussian(1.0), alpha=1.0)
    tr = learner.run(X, y)
    mistakes = np.flatnonzero(tr.mistakes)
    np.testing.assert_array_equal(learner.support_set.stamps, mistakes + 1)
    np.testing.assert_array_equal(learner.support_vectors, X[mistakes])
    assert learner.n_corrections == tr.n_mistakes
    assert np.all(tr.losses == np.maximum(0, -y * tr.scores))
    assert learner.margin_ == 0.0


def test_alpha_one_ignores_B():
    X, y = xor_stream(400, 3, seed=6)
    base = ALMA(kernel=okl.Gaussian(1.0), alpha=1.0).run(X, y)
    for B in (1e-3, 7.0, 1e6):
        other = ALMA(kernel=okl.Gaussian(1.0), alpha=1.0, B=B).run(X, y)
        np.testing.assert_array_equal(other.scores, base.scores)


def test_alpha_one_without_projection_is_a_perceptron_with_decaying_rate():
    """While ||w'|| <= 1 ALMA_0 is the Perceptron with rate C / sqrt(k): with a tiny C the
    projection never fires and its signs equal those of that Perceptron."""
    X, y = xor_stream(300, 3, seed=5)
    kernel, C = okl.Gaussian(1.0), 1e-3
    learner = ALMA(kernel=kernel, alpha=1.0, C=C)
    tr = learner.run(X, y)
    S, a, k = [], [], 1
    for t in range(len(y)):
        f = float(ref_gram(kernel, X[t:t + 1], np.array(S))[0] @ np.array(a)) if S else 0.0
        assert tr.scores[t] == pytest.approx(f, rel=1e-9, abs=1e-15)
        if y[t] * f <= 0:
            S.append(X[t])
            a.append(C / math.sqrt(k) * y[t])
            k += 1
    assert learner.norm_sq_ < 1.0
    assert learner.coefficient_scale == 1.0


@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_normalized_kernel_is_invariant_to_input_scaling(alpha):
    """The normalized linear/homogeneous-polynomial kernel does not see ||x||."""
    X, y = xor_stream(300, 4, seed=9)
    for kernel in (okl.Linear(), okl.Polynomial(degree=2, gamma=1.0, coef0=0.0)):
        a = ALMA(kernel=kernel, alpha=alpha).run(X, y)
        b = ALMA(kernel=kernel, alpha=alpha).run(3.7 * X, y)
        np.testing.assert_allclose(a.scores, b.scores, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(a.budget, b.budget)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2 ** 16), T=st.integers(1, 60), alpha=st.floats(0.05, 1.0),
       sigma=st.floats(0.3, 4.0))
def test_oracle_property(seed, T, alpha, sigma):
    X, y = xor_stream(T, 3, seed=seed)
    ref = alma_oracle(okl.Gaussian(sigma), X, y, alpha=alpha)
    tr = ALMA(kernel=okl.Gaussian(sigma), alpha=alpha).run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])


@pytest.mark.parametrize("bad,name", [
    (dict(alpha=0.0), "alpha"), (dict(alpha=1.5), "alpha"), (dict(alpha=-0.2), "alpha"),
    (dict(alpha=float("nan")), "alpha"), (dict(B=0.0), "B"), (dict(B=-1.0), "B"),
    (dict(B=float("inf")), "B"), (dict(C=0.0), "C"), (dict(C=-2.0), "C"),
    (dict(C="1"), "C"), (dict(seed=-1), "seed"), (dict(kernel="rbf"), "kernel"),
])
def test_parameter_validation(bad, name):
    with pytest.raises(ValueError, match=name):
        ALMA(**bad)


def test_default_B_is_one_over_alpha():
    assert ALMA(alpha=0.25).B_ == 4.0
    assert ALMA(alpha=0.25, B=2.0).B_ == 2.0
    assert ALMA().get_params() == dict(kernel=okl.Gaussian(1.0), alpha=1.0, B=None,
                                       C=math.sqrt(2.0), seed=None)
