"""KORS (okl.learners.kors / _kors), the dictionary shared by PKAWV (Nystrom basis),
Pros-N-KONS and Sketched-KONS, against a plain-numpy oracle driven by the same
uniform draws."""
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.learners._kors import KORS, RidgeLeverage
from okl.learners.awv import PKAWV
from okl.learners.kors import kors_dictionary
from conftest import ref_gram, sparse_stream


def kors_oracle(G, u, *, mu, beta, eps, power):
    """KORS with the temporary dictionary I + (t, weight 1) and an explicit inverse of
    S K S + mu I (the literal form); weight p^-power of a joining point."""
    D, W, P = [], [], []
    for t in range(len(u)):
        idx = D + [t]
        s = np.array(W + [1.0])
        Kaug = G[np.ix_(idx, idx)]
        M = s[:, None] * Kaug * s[None, :] + mu * np.eye(len(idx))
        kbar = s * Kaug[:, -1]
        tau = (1 + eps) / mu * (G[t, t] - kbar @ np.linalg.solve(M, kbar))
        p = (1.0 if tau > 0 else 0.0) if math.isinf(beta) else min(max(beta * tau, 0.0), 1.0)
        P.append(p)
        if u[t] < p:
            D.append(t)
            W.append(p ** -power)
    return np.array(D, int), np.array(W), np.array(P)


@pytest.mark.parametrize("weights,power", [("sqrt", 0.5), ("inverse", 1.0)])
@pytest.mark.parametrize("kernel,mu,beta,eps,sparse", [
    (okl.Gaussian(0.8), 1.0, 1.0, 0.5, False),
    (okl.Gaussian(2.0), 0.05, 3.0, 0.2, False),
    (okl.Laplacian(1.5), 0.3, 1.0, 0.9, True),
    (okl.Gaussian(1.0), 0.5, np.inf, 0.5, False),
], ids=lambda v: repr(v))
def test_dictionary_matches_the_oracle(kernel, mu, beta, eps, sparse, weights, power):
    rng = np.random.default_rng(7)
    if sparse:
        X, _ = sparse_stream(250, 6, seed=2)
        Xd = X.toarray()
    else:
        X = Xd = rng.normal(size=(250, 3))
    u = rng.random(250)
    res = kors_dictionary(X, kernel, mu=mu, beta=beta, eps=eps, weights=weights, uniforms=u)
    G = ref_gram(kernel, Xd, Xd)
    D, W, P = kors_oracle(G, u, mu=mu, beta=beta, eps=eps, power=power)
    np.testing.assert_allclose(res.probabilities, P, rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(res.indices, D)
    np.testing.assert_allclose(res.weights, W, rtol=1e-10)
    S = np.diag(W)
    A = S @ G[np.ix_(D, D)] @ S + mu * np.eye(len(D))
    np.testing.assert_allclose(res.factor @ res.factor.T, A, rtol=1e-10, atol=1e-10)
    if math.isinf(beta):
        assert len(D) == 250               # beta = inf: every point of positive leverage
    else:
        assert 3 <= len(D) < 250           # both branches


def test_seed_and_uniforms_agree():
    X = np.random.default_rng(1).normal(size=(200, 2))
    a = kors_dictionary(X, seed=5)
    b = kors_dictionary(X, uniforms=np.random.default_rng(5).random(200))
    np.testing.assert_array_equal(a.indices, b.indices)
    c = kors_dictionary(X, seed=6)
    assert not np.array_equal(a.indices, c.indices)


def test_ridge_residual_weighted_solution_and_pickle():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 3))
    G = ref_gram(okl.Gaussian(1.0), X, X)
    w = rng.uniform(0.5, 3.0, size=12)
    rl = RidgeLeverage(0.7, 2)                    # grows past its initial capacity
    for j in range(8):
        rl.evaluate(G[j, :j], G[j, j])
        rl.append(w[j])
    S = np.diag(w[:8])
    M = S @ G[:8, :8] @ S + 0.7 * np.eye(8)
    np.testing.assert_allclose(rl.gram, M, rtol=1e-12)
    np.testing.assert_allclose(rl.weights, w[:8])
    k = G[10, :8]
    r = rl.evaluate(k, G[10, 10])
    assert r == pytest.approx(G[10, 10] - k @ S @ np.linalg.solve(M, S @ k), rel=1e-12)
    np.testing.assert_allclose(rl.weighted_solve(), S @ np.linalg.solve(M, S @ k), rtol=1e-10)
    clone = pickle.loads(pickle.dumps(rl))
    assert type(clone) is RidgeLeverage and clone.ridge == 0.7
    np.testing.assert_array_equal(clone.factor, rl.factor)
    assert clone.evaluate(k, G[10, 10]) == r


def test_kors_rule_and_pickle():
    kors = KORS(1.0, 2.0, 0.5, 1.0)
    assert kors.inclusion_probability(1.0) == pytest.approx(min(2 * 1.5 * 0.5, 1.0))
    assert kors.inclusion_probability(0.2) == pytest.approx(2 * 1.5 * 0.2 / 1.2)
    assert kors.weight_of(0.25) == 4.0
    assert KORS(1.0, 2.0, 0.5, 0.5).weight_of(0.25) == 2.0
    assert KORS(1.0, np.inf, 0.5).inclusion_probability(1e-300) == 1.0
    assert KORS(1.0, np.inf, 0.5).inclusion_probability(0.0) == 0.0
    kors.evaluate(np.empty(0), 1.0)
    kors.append(2.0)
    clone = pickle.loads(pickle.dumps(kors))
    assert type(clone) is KORS and clone.weight_of(0.25) == 4.0
    np.testing.assert_array_equal(clone.weights, [2.0])
    np.testing.assert_array_equal(clone.gram, kors.gram)


@pytest.mark.parametrize("kw,msg", [(dict(mu=0.0), "mu"), (dict(beta=-1.0), "beta"),
                                    (dict(eps=1.0), "eps"), (dict(weights="p"), "weights"),
                                    (dict(uniforms=np.ones(5)), "uniforms")])
def test_bad_parameters(kw, msg):
    with pytest.raises(ValueError, match=msg):
        kors_dictionary(np.zeros((5, 2)), **kw)
    with pytest.raises(ValueError, match="NaN"):
        kors_dictionary(np.full((5, 2), np.nan))


def test_pkawv_nystrom_runs_the_shared_kors():
    """PKAWV's dictionary is KORS' (same draws: PKAWV's u_t is its t-th uniform) when no
    sampled point is refused for linear dependence, and its KORS factor is KORS'."""
    X = np.random.default_rng(4).normal(size=(300, 3))
    y = np.sin(X[:, 0])
    learner = PKAWV(okl.Gaussian(1.0), basis="nystrom", mu=0.5, beta=1.0, eps=0.5, seed=9)
    tr = learner.run(X, y)
    assert tr.extras["rejected"] == 0
    res = kors_dictionary(X, okl.Gaussian(1.0), mu=0.5, beta=1.0, eps=0.5, seed=9)
    np.testing.assert_array_equal(learner.dictionary_rounds - 1, res.indices)
    np.testing.assert_array_equal(learner.dictionary_weights, res.weights)
    assert isinstance(learner.kors_dictionary, KORS)
    np.testing.assert_array_equal(learner.kors_dictionary.factor, res.factor)
    np.testing.assert_allclose(tr.extras["sum_p"], res.probabilities.sum(), rtol=1e-12)


def test_csr_and_dense_agree():
    X, _ = sparse_stream(150, 8, seed=5)
    a = kors_dictionary(X, okl.Gaussian(1.5), seed=2)
    b = kors_dictionary(X.toarray(), okl.Gaussian(1.5), seed=2)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_allclose(a.probabilities, b.probabilities, rtol=1e-12)
    assert sp.issparse(X)
