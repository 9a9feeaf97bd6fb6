"""Incremental Gram inverse / Cholesky, ALD residual and the regularized projection."""
import pickle

import numpy as np
import pytest
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from conftest import ref_gram

GRAMS = [okl.GramInverse, okl.GramCholesky]


def exact_residual(K_S, k, kxx):
    """min_beta ||Phi_S beta - phi(x)||^2 computed by least squares (eq. (4) of Li & Liao)."""
    if K_S.shape[0] == 0:
        return kxx
    beta = np.linalg.solve(K_S, k)
    return kxx - k @ beta


@pytest.mark.parametrize("cls", GRAMS)
@settings(max_examples=30, deadline=None)
@given(ops=st.lists(st.tuples(st.booleans(), st.integers(0, 1000)), min_size=1, max_size=30),
       seed=st.integers(0, 2 ** 16))
def test_matches_numpy_over_add_remove_sequences(cls, ops, seed):
    rng = np.random.default_rng(seed)
    kernel = okl.Gaussian(1.0)
    G = cls(4, growable=True)
    pts = []
    for add, r in ops:
        if add or not pts:
            x = rng.normal(size=3)
            k = ref_gram(kernel, np.array(pts), x[None])[:, 0] if pts else np.empty(0)
            alpha_ref = exact_residual(ref_gram(kernel, np.array(pts), np.array(pts))
                                       if pts else np.empty((0, 0)), k, 1.0)
            alpha = G.append(k, 1.0)
            assert alpha == pytest.approx(alpha_ref, rel=1e-8, abs=1e-12)
            pts.append(x)
        else:
            i = r % len(pts)
            G.delete(i)
            del pts[i]
        K = ref_gram(kernel, np.array(pts), np.array(pts)) if pts else np.empty((0, 0))
        assert G.size == len(pts)
        np.testing.assert_allclose(G.gram, K, rtol=1e-13, atol=1e-14)
        if pts:
            q = rng.normal(size=3)
            kq = ref_gram(kernel, np.array(pts), q[None])[:, 0]
            a, beta = G.ald(kq, 1.0)
            np.testing.assert_allclose(beta, np.linalg.solve(K, kq), rtol=1e-6, atol=1e-8)
            assert a == pytest.approx(exact_residual(K, kq, 1.0), rel=1e-6, abs=1e-10)
    if cls is okl.GramInverse and pts:
        np.testing.assert_allclose(G.inverse, np.linalg.inv(K), rtol=1e-6, atol=1e-8)
    if cls is okl.GramCholesky and pts:
        L = G.factor
        np.testing.assert_allclose(L @ L.T, K, rtol=1e-12, atol=1e-13)
        assert np.all(np.diag(L) > 0)


@pytest.mark.parametrize("cls", GRAMS)
def test_ald_residual_is_the_determinant_ratio(cls):
    """alpha_t = det(K_{S+x}) / det(K_S) (proof of Theorem 1, Li & Liao 2023)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(9, 4))
    kernel = okl.Laplacian(2.0)
    G = cls(9)
    for t in range(9):
        k = ref_gram(kernel, X[:t], X[t:t + 1])[:, 0] if t else np.empty(0)
        alpha = G.append(k, 1.0)
        K_new = ref_gram(kernel, X[:t + 1], X[:t + 1])
        det_ratio = np.linalg.det(K_new) / (np.linalg.det(K_new[:t, :t]) if t else 1.0)
        assert alpha == pytest.approx(det_ratio, rel=1e-9)


@pytest.mark.parametrize("cls", GRAMS)
def test_dependent_points_are_refused_and_residual_clamped(cls):
    G = cls(5)
    G.append(np.empty(0), 1.0)
    # exact duplicate under a Gaussian kernel: residual 0, clamped, refused
    a, _ = G.ald(np.array([1.0]), 1.0)
    assert a == 0.0
    with pytest.raises(ValueError, match="linearly dependent"):
        G.append(np.array([1.0]), 1.0)
    # residual below zero by round-off is clamped, never negative
    a, _ = G.ald(np.array([1.0 + 1e-15]), 1.0)
    assert a == 0.0
    assert G.size == 1


@pytest.mark.parametrize("cls", GRAMS)
def test_capacity_is_a_hard_limit(cls):
    G = cls(2)
    G.append(np.empty(0), 1.0)
    G.append(np.array([0.1]), 1.0)
    with pytest.raises(ValueError, match="full"):
        G.append(np.array([0.1, 0.2]), 1.0)
    assert G.size == 2


def test_cholesky_stays_accurate_on_near_duplicates():
    """On an ill-conditioned dictionary the explicit inverse drifts; the factor does not.

    Linear kernel on explicit vectors, so the exact ALD residual is the squared
    distance to the span of the dictionary, computed by a QR projection that
    never forms the Gram matrix.
    """
    rng = np.random.default_rng(0)
    d, off = 20, 1e-3
    base = rng.normal(size=(5, d))
    X = np.vstack([base, base + off * rng.normal(size=base.shape)])
    K = X @ X.T
    Gi, Gc = okl.GramInverse(len(X)), okl.GramCholesky(len(X))
    for t in range(len(X)):
        Gi.append(K[:t, t], K[t, t])
        Gc.append(K[:t, t], K[t, t])
    for r in range(300):  # add/remove cycles with fresh near-duplicates
        i = r % len(X)
        Gi.delete(i)
        Gc.delete(i)
        X = np.delete(X, i, axis=0)
        x = X[r % len(X)] + off * rng.normal(size=d)
        Gi.append(X @ x, x @ x)
        Gc.append(X @ x, x @ x)
        X = np.vstack([X, x])
    K = X @ X.T
    cond = np.linalg.cond(K, 1)
    assert cond > 1e7  # the regime the Cholesky variant is for
    q = X[0] + off * rng.normal(size=d)
    Q, _ = np.linalg.qr(X.T)
    exact = np.sum((q - Q @ (Q.T @ q)) ** 2)
    err_chol = abs(Gc.ald(X @ q, q @ q)[0] - exact) / exact
    err_inv = abs(Gi.ald(X @ q, q @ q)[0] - exact) / exact
    assert err_chol <= 1e-6
    assert err_chol < err_inv
    # conditioning is reported: dpocon's estimate is within a factor of the exact value
    assert cond / 10 <= Gc.condition_number() <= cond * 10
    assert Gi.condition_number() == pytest.approx(
        np.linalg.norm(Gi.gram, 1) * np.linalg.norm(Gi.inverse, 1), rel=1e-12)


@pytest.mark.parametrize("cls", GRAMS)
def test_gram_pickles(cls):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5, 2))
    K = ref_gram(okl.Gaussian(1.0), X, X)
    G = cls(8)
    for t in range(5):
        G.append(K[:t, t], 1.0)
    H = pickle.loads(pickle.dumps(G))
    q = rng.normal(size=5) * 0.1
    assert H.ald(q, 1.0)[0] == G.ald(q, 1.0)[0]
    np.testing.assert_array_equal(H.gram, G.gram)


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 12), n=st.integers(1, 12), eta=st.floats(1e-6, 10.0),
       seed=st.integers(0, 2 ** 16))
def test_regularized_projection_matches_solve(m, n, eta, seed):
    """theta = (K_2 + eta I)^{-1} K_21 a, eq. (9) of Ahpatron."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m + n, 3))
    K = ref_gram(okl.Gaussian(1.0), X, X)
    K2, K21 = K[:m, :m], K[:m, m:]
    a = rng.normal(size=n)
    ref = sla.solve(K2 + eta * np.eye(m), K21 @ a, assume_a="pos")
    np.testing.assert_allclose(okl.regularized_projection(K2, K21, a, eta), ref,
                               rtol=1e-7, atol=1e-9)


def test_regularized_projection_errors():
    with pytest.raises(ValueError, match="K2 must be square"):
        okl.regularized_projection(np.ones((2, 3)), np.ones((2, 1)), np.ones(1), 1.0)
    with pytest.raises(ValueError, match="a must have"):
        okl.regularized_projection(np.eye(2), np.ones((2, 3)), np.ones(2), 1.0)
    with pytest.raises(ValueError, match="eta"):
        okl.regularized_projection(np.eye(2), np.ones((2, 1)), np.ones(1), -1.0)
    with pytest.raises(ValueError, match="not positive definite"):
        okl.regularized_projection(np.ones((2, 2)), np.ones((2, 1)), np.ones(1), 0.0)
    with pytest.raises(ValueError, match="NaN"):
        okl.regularized_projection(np.eye(2), np.full((2, 1), np.nan), np.ones(1), 1.0)
