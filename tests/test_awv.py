"""Kernel-AWV (eq. (3)) and PKAWV with the Gaussian Taylor basis (eq. (4), (6),
Appendix H Algorithm 1) of Jézéquel, Gaillard & Rudi (2019), against plain-numpy
oracles written from the paper:

* Kernel-AWV / KRR: the closed form of (3) solved from scratch every round with
  ``numpy.linalg.solve`` on the Gram matrix (scikit-learn's kernels);
* PKAWV-Taylor: (a) Algorithm 1 literally, with the features of (6) built here from
  factorials and an explicit ``r x r`` inverse; (b) the closed form (3) with the
  finite kernel ``k_M(x, x') = sum_{j<=M} Q_j(x, x')`` of Appendix F.2 (no feature
  map at all: projection onto Span(G_M) = AWV with the truncated kernel);
  (c) ``v(x)^T v(x')`` against the Gaussian kernel within Lemma 13's bound.
"""
import math
import pickle
from itertools import product

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from okl.learners.awv import (KernelAWV, PKAWV, _PKAWVTaylor, taylor_exponents,
                              taylor_feature_count, theorem4_M)
from conftest import ref_gram, sparse_stream, xor_stream

AWV_KERNELS = [
    okl.Gaussian(sigma=0.7),
    okl.Laplacian(sigma=2.0),
    okl.Polynomial(degree=2, gamma=0.5, coef0=1.0),
    okl.Linear(),
]


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)


def regression_stream(T, d, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = scale * rng.uniform(-1.0, 1.0, size=(T, d)) / math.sqrt(d)
    y = np.sin(3.0 * X[:, 0]) + X[:, -1] ** 2 + 0.1 * rng.normal(size=T)
    return X, y


# ----------------------------------------------------------------------------
# oracles
# ----------------------------------------------------------------------------

def kernel_awv_oracle(K, y, lam, forecaster="awv"):
    """Closed form of (3) from the full Gram matrix ``K`` (n x n), every round from scratch.

    AWV: kernel ridge regression on ``(x_1, y_1), ..., (x_{t-1}, y_{t-1}), (x_t, 0)``,
    ``yhat_t = K[t, :t+1] (K[:t+1, :t+1] + lam I)^{-1} (Y_{t-1}, 0)``.
    KRR: without the ``f(x_t)^2`` term, ``K[t, :t] (K[:t, :t] + lam I)^{-1} Y_{t-1}``.
    Also the leverage ``<A_t^{-1} phi(x_t), phi(x_t)> = (K_tt - k^T (K_t + lam I)^{-1} k) / lam``
    with ``k = K[:t+1, t]`` the column including ``x_t`` itself (``A_t = C_t + lam I``).
    """
    n = len(y)
    scores, lev = np.zeros(n), np.zeros(n)
    for t in range(n):
        if forecaster == "awv":
            target = np.r_[y[:t], 0.0]
            a = np.linalg.solve(K[:t + 1, :t + 1] + lam * np.eye(t + 1), target)
            scores[t] = K[t, :t + 1] @ a
        else:
            a = np.linalg.solve(K[:t, :t] + lam * np.eye(t), y[:t]) if t else np.zeros(0)
            scores[t] = K[t, :t] @ a
        k = K[:t + 1, t]
        lev[t] = (K[t, t] - k @ np.linalg.solve(K[:t + 1, :t + 1] + lam * np.eye(t + 1), k)) / lam
    return scores, lev


def taylor_features(X, M, sigma):
    """(6) literally: ``g_k(x) = prod_i x_i^{k_i} / (sigma^{k_i} sqrt(k_i!)) exp(-x_i^2 / (2 sigma^2))``
    for every ``k`` in N_0^d with ``|k| <= M`` (enumerated by itertools); returns
    ``(V, exps)`` with the multi-indices as tuples, for matching with the learner's order."""
    X = dense(X)
    d = X.shape[1]
    exps = [k for k in product(range(M + 1), repeat=d) if sum(k) <= M]
    V = np.empty((len(X), len(exps)))
    for j, k in enumerate(exps):
        col = np.ones(len(X))
        for i, ki in enumerate(k):
            col *= (X[:, i] ** ki / (sigma ** ki * math.sqrt(math.factorial(ki)))
                    * np.exp(-X[:, i] ** 2 / (2 * sigma ** 2)))
        V[:, j] = col
    return V, exps


def algorithm1_oracle(V, y, lam, forecaster="awv"):
    """Appendix H, Algorithm 1, with an explicit inverse updated as printed; ``"krr"``
    predicts with ``A_{t-1}^{-1}`` (no ``f(x_t)^2`` term).  Also returns the leverages
    ``<A_t^{-1} v_t, v_t>``."""
    r = V.shape[1]
    Ainv, b = np.eye(r) / lam, np.zeros(r)
    scores, lev = np.zeros(len(y)), np.zeros(len(y))
    for t in range(len(y)):
        v = V[t]
        if forecaster == "krr":
            scores[t] = v @ Ainv @ b
        Av = Ainv @ v
        Ainv = Ainv - np.outer(Av, Av) / (1.0 + v @ Av)
        if forecaster == "awv":
            scores[t] = v @ Ainv @ b
        b = b + y[t] * v
        lev[t] = v @ Ainv @ v            # <A_t^{-1} v_t, v_t>
    return scores, Ainv, b, lev


def truncated_gaussian_gram(A, B, M, sigma):
    """``k_M(x, x') = sum_{j=0}^M Q_j(x, x')`` of Appendix F.2:
    ``exp(-(||x||^2 + ||x'||^2) / (2 sigma^2)) sum_j (x^T x' / sigma^2)^j / j!``."""
    A, B = dense(A), dense(B)
    G = A @ B.T / sigma ** 2
    S = sum(G ** j / math.factorial(j) for j in range(M + 1))
    na = np.exp(-np.einsum("ij,ij->i", A, A) / (2 * sigma ** 2))
    nb = np.exp(-np.einsum("ij,ij->i", B, B) / (2 * sigma ** 2))
    return na[:, None] * S * nb[None, :]


def lemma13_bound(R, sigma, M):
    """(30): ``(R / sigma)^{2M+2} / (M+1)!``."""
    return (R / sigma) ** (2 * M + 2) / math.factorial(M + 1)


# ----------------------------------------------------------------------------
# Kernel-AWV
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", AWV_KERNELS, ids=repr)
@pytest.mark.parametrize("forecaster", ["awv", "krr"])
def test_kernel_awv_matches_closed_form(kernel, forecaster):
    X, y = regression_stream(70, 3, seed=1)
    lam = 0.7
    K = ref_gram(kernel, X, X)
    ref, lev = kernel_awv_oracle(K, y, lam, forecaster)
    learner = KernelAWV(kernel, lam=lam, forecaster=forecaster)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(tr.losses, (y - ref) ** 2, rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, np.arange(1, len(y) + 1))
    assert tr.mistakes is None
    # state: the Cholesky factor of K + lam I, the KRR coefficients
    L = learner.cholesky_factor
    np.testing.assert_allclose(L @ L.T, K + lam * np.eye(len(y)), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(learner.dual_coef, np.linalg.solve(K + lam * np.eye(len(y)), y),
                               rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(learner.inputs, X)
    # Proposition 1's sum and Theorem 9's first term, from the eigenvalues / the oracle
    eig = np.linalg.eigvalsh(K)
    assert tr.extras["log_det"] == pytest.approx(np.sum(np.log1p(np.maximum(eig, 0) / lam)),
                                                 rel=1e-10)
    assert tr.extras["sum_y2_leverage"] == pytest.approx(np.sum(y ** 2 * lev), rel=1e-9)


def test_kernel_awv_awv_term_shrinks_towards_zero():
    """(3) vs KRR: the extra f(x_t)^2 penalty shrinks the forecast by 1 + q_t > 1."""
    X, y = regression_stream(50, 2, seed=3)
    k = okl.Gaussian(0.5)
    awv = KernelAWV(k, lam=1.0).run(X, y).scores
    krr = KernelAWV(k, lam=1.0, forecaster="krr").run(X, y).scores
    K = ref_gram(k, X, X)
    _, lev = kernel_awv_oracle(K, y, 1.0)
    # <A_t^{-1} phi, phi> = q / (1 + q) with q = <A_{t-1}^{-1} phi, phi>: awv = krr (1 - lev)
    np.testing.assert_allclose(awv, krr * (1.0 - lev), rtol=1e-9, atol=1e-12)
    assert np.all(np.abs(awv[1:]) < np.abs(krr[1:]) + 1e-15)


def test_kernel_awv_decision_function_is_next_forecast():
    X, y = regression_stream(40, 3, seed=4)
    k = okl.Gaussian(1.0)
    for forecaster in ("awv", "krr"):
        ref, _ = kernel_awv_oracle(ref_gram(k, X, X), y, 0.3, forecaster)
        learner = KernelAWV(k, lam=0.3, forecaster=forecaster)
        learner.run(X[:25], y[:25])
        f = learner.decision_function(X[25:26])
        assert f[0] == pytest.approx(ref[25], rel=1e-10, abs=1e-12)
        assert learner.predict_one(X[25]) == pytest.approx(ref[25], rel=1e-10, abs=1e-12)
        assert learner.n_rounds == 25          # no learning
        for t in range(25, 40):
            assert learner.predict_one(X[t]) == pytest.approx(ref[t], rel=1e-9, abs=1e-12)
            learner.learn_one(X[t], y[t])


def test_kernel_awv_classification():
    X, y = xor_stream(120, 3, seed=2)
    k = okl.Gaussian(1.0)
    ref, _ = kernel_awv_oracle(ref_gram(k, X, X), y, 1.0)
    learner = KernelAWV(k, task="classification")
    tr = learner.run(X, y)
    assert learner.is_classifier
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(tr.mistakes, y * ref <= 0)
    np.testing.assert_allclose(tr.losses, (y - ref) ** 2, rtol=1e-9, atol=1e-12)
    assert 0 < tr.mistakes.sum() < 0.5 * len(y)          # it learns XOR
    np.testing.assert_array_equal(learner.predict(X[:5]),
                                  np.where(learner.decision_function(X[:5]) >= 0, 1.0, -1.0))
    with pytest.raises(ValueError, match="-1 or \\+1"):
        KernelAWV(k, task="classification").run(X, y * 0.5)


def test_kernel_awv_sparse_equals_dense():
    X, y = sparse_stream(80, 12, seed=5)
    k = okl.Gaussian(1.5)
    a = KernelAWV(k, lam=0.5).run(X, y).scores
    b = KernelAWV(k, lam=0.5).run(X.toarray(), y).scores
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    ref, _ = kernel_awv_oracle(ref_gram(k, X, X), y, 0.5)
    np.testing.assert_allclose(a, ref, rtol=1e-10, atol=1e-12)


def test_kernel_awv_pickle_midstream():
    X, y = regression_stream(90, 3, seed=6)
    full = KernelAWV(okl.Gaussian(0.8), lam=0.4)
    whole = full.run(X, y)
    part = KernelAWV(okl.Gaussian(0.8), lam=0.4)
    first = part.run(X[:37], y[:37])
    clone = pickle.loads(pickle.dumps(part))
    assert clone.get_params() == part.get_params()
    rest = clone.run(X[37:], y[37:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], whole.scores)
    assert rest.extras == whole.extras
    # growing past the initial buffers after a restore
    clone.run(X, y)
    assert clone.n_rounds == 180


# ----------------------------------------------------------------------------
# Taylor basis
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("d,M", [(1, 0), (1, 5), (2, 3), (3, 2), (8, 2), (4, 4)])
def test_taylor_exponents_are_all_multi_indices(d, M):
    E = taylor_exponents(d, M)
    ref = {k for k in product(range(M + 1), repeat=d) if sum(k) <= M}
    assert E.shape == (math.comb(d + M, M), d) == (len(ref), d)
    assert {tuple(k) for k in E} == ref                       # each exactly once
    assert len({tuple(k) for k in E}) == len(E)
    assert np.all(np.diff(E.sum(axis=1)) >= 0)                # graded order
    assert taylor_feature_count(d, M) == len(ref)
    learner = PKAWV(kernel=okl.Gaussian(1.0), M=M)
    tr = learner.run(np.zeros((2, d)), np.zeros(2))
    assert learner.n_basis() == len(ref) == tr.budget[0] == tr.extras["r"]
    np.testing.assert_array_equal(learner.exponents, E)


def test_feature_count_d8_M2_is_45():
    assert taylor_feature_count(8, 2) == 45
    assert PKAWV(M=2).n_basis(8) == 45


@pytest.mark.parametrize("sigma", [0.6, 1.0, 2.5])
def test_taylor_features_match_eq6(sigma):
    X, _ = regression_stream(30, 3, seed=7, scale=2.0)
    learner = PKAWV(kernel=okl.Gaussian(sigma), M=4)
    F_before = learner.features(X)              # before allocation
    learner.run(X[:3], np.zeros(3))
    F = learner.features(X)
    V, exps = taylor_features(X, 4, sigma)
    col = {k: j for j, k in enumerate(exps)}
    order = [col[tuple(k)] for k in learner.exponents]
    np.testing.assert_allclose(F, V[:, order], rtol=1e-13, atol=1e-300)
    np.testing.assert_array_equal(F, F_before)
    # CSR rows
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))
    np.testing.assert_allclose(learner.features(Xs), taylor_features(Xs, 4, sigma)[0][:, order],
                               rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("d,sigma,R", [(1, 1.0, 0.9), (3, 1.0, 0.6), (2, 2.0, 2.0)])
def test_lemma13_taylor_kernel_converges_within_bound(d, sigma, R):
    """(c): ``|k(x, x') - v(x)^T v(x')| <= (R/sigma)^{2M+2} / (M+1)!`` on the ball of
    radius R, shrinking with M.  Teeth: for ``x = x'`` with ``||x|| = R`` the error is
    ``e^{-a} sum_{j>M} a^j / j! >= e^{-a} a^{M+1} / (M+1)!`` (``a = R^2 / sigma^2``), so
    the measured worst error is at least ``e^{-a}`` times the bound (0.44 .. 0.70 here):
    the check fails if the bound is divided by e^a (<= 2.3)."""
    rng = np.random.default_rng(8)
    P = rng.normal(size=(40, d))
    P *= (R * rng.uniform(0.2, 1.0, size=40) / np.linalg.norm(P, axis=1))[:, None]
    P[0] *= R / np.linalg.norm(P[0])                          # one point on the sphere
    K = ref_gram(okl.Gaussian(sigma), P, P)
    a = R * R / sigma ** 2
    prev = np.inf
    for M in range(0, 11):
        V = PKAWV(kernel=okl.Gaussian(sigma), M=M).features(P)
        err = np.abs(K - V @ V.T).max()
        bound = lemma13_bound(R, sigma, M)
        assert err <= bound * (1 + 1e-12) + 1e-15
        if bound > 1e-12:
            assert err >= math.exp(-a) * bound * (1 - 1e-9)
        assert err <= prev
        prev = err
        # the finite kernel is the truncated series sum_{j<=M} Q_j (Appendix F.2)
        np.testing.assert_allclose(V @ V.T, truncated_gaussian_gram(P, P, M, sigma),
                                   rtol=1e-12, atol=1e-15)
    assert prev < 1e-6


def test_theorem4_M():
    # M = ceil(8 R^2 / sigma^2 v 2 log(n / (lam ^ 1))), at least 1
    assert theorem4_M(1000, 1.0, 0.5, 1.0) == math.ceil(2 * math.log(1000))          # 14
    assert theorem4_M(1000, 0.1, 0.5, 1.0) == math.ceil(2 * math.log(10000))         # 19
    assert theorem4_M(10, 1.0, 2.0, 1.0) == 32                                        # 8 R^2
    assert theorem4_M(10, 1.0, 2.0, 2.0) == math.ceil(max(8.0, 2 * math.log(10)))     # 8
    assert theorem4_M(1, 5.0, 0.0, 1.0) == 1                                          # clamp
    learner = PKAWV(kernel=okl.Gaussian(1.0), n=1000, R=0.5, lam=1.0)
    assert learner.M is None and learner.degree == 14
    assert learner.get_params()["M"] is None
    with pytest.raises(ValueError, match="n and R"):
        PKAWV(kernel=okl.Gaussian(1.0), n=1000)
    with pytest.raises(ValueError, match="n and R"):
        PKAWV(kernel=okl.Gaussian(1.0), R=1.0)
    for bad in [dict(n=0, lam=1.0, R=1.0, sigma=1.0), dict(n=10, lam=0.0, R=1.0, sigma=1.0),
                dict(n=10, lam=1.0, R=-1.0, sigma=1.0), dict(n=10, lam=1.0, R=1.0, sigma=0.0)]:
        with pytest.raises(ValueError):
            theorem4_M(**bad)


# ----------------------------------------------------------------------------
# PKAWV-Taylor against the oracles
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("forecaster", ["awv", "krr"])
@pytest.mark.parametrize("d,M,sigma,lam", [(2, 3, 0.8, 0.5), (3, 2, 1.0, 1.0), (1, 6, 0.5, 2.0)])
def test_pkawv_matches_algorithm1(forecaster, d, M, sigma, lam):
    """(a) Algorithm 1 with explicit features (6) and an explicit inverse."""
    X, y = regression_stream(80, d, seed=9)
    learner = PKAWV(kernel=okl.Gaussian(sigma), lam=lam, M=M, forecaster=forecaster)
    tr = learner.run(X, y)
    V, exps = taylor_features(X, M, sigma)
    ref, Ainv, b, lev = algorithm1_oracle(V, y, lam, forecaster)
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tr.losses, (y - ref) ** 2, rtol=1e-9, atol=1e-12)
    col = {k: j for j, k in enumerate(exps)}
    order = [col[tuple(k)] for k in learner.exponents]
    np.testing.assert_allclose(learner.A_inv, Ainv[np.ix_(order, order)], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(learner.b_vector, b[order], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(learner.coef, (Ainv @ b)[order], rtol=1e-8, atol=1e-10)
    # Theorem 3's log-det sum and Theorem 9's first term on the features
    eig = np.linalg.eigvalsh(V @ V.T)
    assert tr.extras["log_det"] == pytest.approx(np.sum(np.log1p(np.maximum(eig, 0) / lam)),
                                                 rel=1e-9)
    assert tr.extras["sum_y2_leverage"] == pytest.approx(np.sum(y ** 2 * lev), rel=1e-8)
    assert tr.extras["max_radius"] == pytest.approx(np.linalg.norm(X, axis=1).max(), rel=1e-12)
    assert tr.extras["lemma13_bound"] == pytest.approx(
        lemma13_bound(tr.extras["max_radius"], sigma, M), rel=1e-12)


@pytest.mark.parametrize("forecaster", ["awv", "krr"])
@pytest.mark.parametrize("M", [1, 2, 4])
def test_pkawv_is_kernel_awv_with_truncated_kernel(forecaster, M):
    """(b) Span(G_M) with ||.||_H is, by Lemma 11 (orthonormal g_k, Q = I), the RKHS of
    ``k_M = sum_{j<=M} Q_j``; so (4) on Span(G_M) is (3) with the Gram matrix of k_M
    (built here from the series, not from features)."""
    X, y = regression_stream(60, 3, seed=10, scale=1.5)
    sigma, lam = 0.9, 0.6
    ref, _ = kernel_awv_oracle(truncated_gaussian_gram(X, X, M, sigma), y, lam, forecaster)
    tr = PKAWV(kernel=okl.Gaussian(sigma), lam=lam, M=M, forecaster=forecaster).run(X, y)
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-9, atol=1e-11)


def test_pkawv_approaches_kernel_awv_as_M_grows():
    """With ||x|| <= R = 0.5, sigma = 1 the kernels differ by at most Lemma 13's
    (1/4)^{M+1} / (M+1)!; the forecasts of (4) approach those of (3)."""
    X, y = regression_stream(60, 2, seed=11)
    X *= 0.5 / np.linalg.norm(X, axis=1).max()
    k = okl.Gaussian(1.0)
    exact = KernelAWV(k, lam=1.0).run(X, y).scores
    gaps = [np.abs(PKAWV(kernel=k, lam=1.0, M=M, R=0.5).run(X, y).scores - exact).max()
            for M in range(0, 9)]
    assert all(b < a for a, b in zip(gaps, gaps[1:]))
    assert gaps[-1] < 1e-9
    assert gaps[0] > 1e-3


def test_pkawv_classification():
    X, y = xor_stream(300, 2, seed=12)
    X = X / np.linalg.norm(X, axis=1).max()
    learner = PKAWV(kernel=okl.Gaussian(0.5), M=4, lam=1.0, task="classification")
    tr = learner.run(X, y)
    V, _ = taylor_features(X, 4, 0.5)
    ref, _, _, _ = algorithm1_oracle(V, y, 1.0)
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(tr.mistakes, y * ref <= 0)
    assert learner.is_classifier
    assert tr.mistakes[150:].mean() < 0.3                     # XOR needs degree >= 2
    assert learner.predict_one(X[0]) in (-1.0, 1.0)
    with pytest.raises(ValueError, match="-1 or \\+1"):
        learner.run(X, y + 1.0)


def test_pkawv_sparse_equals_dense():
    X, y = sparse_stream(100, 6, density=0.4, seed=13)
    X = X / 3.0
    a = PKAWV(kernel=okl.Gaussian(1.0), M=3).run(X, y).scores
    b = PKAWV(kernel=okl.Gaussian(1.0), M=3).run(X.toarray(), y).scores
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    ref, _, _, _ = algorithm1_oracle(taylor_features(X, 3, 1.0)[0], y, 1.0)
    np.testing.assert_allclose(a, ref, rtol=1e-10, atol=1e-12)


def test_pkawv_learn_one_predict_one_match_run():
    X, y = regression_stream(50, 3, seed=14)
    ref = PKAWV(kernel=okl.Gaussian(0.7), M=3, lam=0.5).run(X, y).scores
    learner = PKAWV(kernel=okl.Gaussian(0.7), M=3, lam=0.5)
    for t in range(len(y)):
        assert learner.predict_one(X[t]) == pytest.approx(ref[t], rel=1e-12, abs=1e-14)
        learner.learn_one(X[t], y[t])
    np.testing.assert_allclose(learner.decision_function(X[:3]),
                               PKAWV(kernel=okl.Gaussian(0.7), M=3, lam=0.5)
                               .partial_fit(X, y).decision_function(X[:3]), rtol=1e-12)


@pytest.mark.parametrize("forecaster", ["awv", "krr"])
def test_pkawv_pickle_midstream(forecaster):
    X, y = regression_stream(120, 4, seed=15)
    kw = dict(kernel=okl.Gaussian(1.0), n=120, R=1.0, lam=0.8, forecaster=forecaster)
    whole = PKAWV(**kw).run(X, y)
    part = PKAWV(**kw)
    first = part.run(X[:53], y[:53])
    clone = pickle.loads(pickle.dumps(part))
    assert type(clone) is _PKAWVTaylor and isinstance(clone, PKAWV)
    assert clone.get_params() == part.get_params() and clone.degree == part.degree
    rest = clone.run(X[53:], y[53:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], whole.scores)
    assert rest.extras == whole.extras
    # rebuilt from its parameters: same subclass; unfitted learner pickles too
    again = type(part)(**part.get_params())
    assert type(again) is _PKAWVTaylor
    fresh = pickle.loads(pickle.dumps(PKAWV(M=2)))
    np.testing.assert_array_equal(fresh.run(X, y).scores, PKAWV(M=2).run(X, y).scores)


def test_pkawv_trace_and_repr():
    X, y = regression_stream(20, 3)
    learner = PKAWV(kernel=okl.Gaussian(1.0), M=2)
    tr = learner.run(X, y)
    assert repr(learner).startswith("PKAWV(basis='taylor'")
    assert np.all(tr.budget == 10) and tr.extras["M"] == 2


# ----------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------

def test_parameters_validated():
    for bad, match in [(dict(lam=0.0), "lam"), (dict(lam=-1.0), "lam"), (dict(lam=np.nan), "lam"),
                       (dict(forecaster="ridge"), "forecaster"), (dict(task="ranking"), "task")]:
        with pytest.raises(ValueError, match=match):
            KernelAWV(okl.Gaussian(1.0), **bad)
        with pytest.raises(ValueError, match=match):
            PKAWV(kernel=okl.Gaussian(1.0), M=2, **bad)
    with pytest.raises(ValueError, match="kernel"):
        KernelAWV("rbf")
    for bad, match in [(dict(M=-1), "M"), (dict(M=2.5), "M"), (dict(M=2, n=0), "n"),
                       (dict(M=2, R=-0.1), "R"), (dict(M=True), "M")]:
        with pytest.raises(ValueError, match=match):
            PKAWV(kernel=okl.Gaussian(1.0), **bad)
    with pytest.raises(ValueError, match="basis"):
        PKAWV(basis="fourier", M=2)
    with pytest.raises(ValueError, match="Gaussian"):
        PKAWV(kernel=okl.Laplacian(1.0), M=2)
    with pytest.raises(ValueError, match="Gaussian"):
        PKAWV(kernel=okl.Polynomial(2), M=2)


def test_bad_input_leaves_state_unchanged():
    X, y = regression_stream(30, 3, seed=16)
    for make in (lambda: KernelAWV(okl.Gaussian(1.0)),
                 lambda: PKAWV(kernel=okl.Gaussian(1.0), M=2, R=1.0)):
        learner = make()
        learner.run(X[:10], y[:10])
        before = learner.decision_function(X)
        Xn = X.copy()
        Xn[3, 1] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            learner.run(Xn, y)
        with pytest.raises(ValueError, match="features"):
            learner.run(X[:, :2], y)
        with pytest.raises(ValueError, match="labels"):
            learner.run(X, y[:-1])
        yi = y.copy()
        yi[4] = np.inf
        with pytest.raises(ValueError, match="y"):
            learner.run(X, yi)
        assert learner.n_rounds == 10
        np.testing.assert_array_equal(learner.decision_function(X), before)


def test_radius_R_is_enforced():
    X, y = regression_stream(30, 3, seed=17)
    R = float(np.linalg.norm(X, axis=1).max())
    learner = PKAWV(kernel=okl.Gaussian(1.0), M=2, R=R)
    learner.run(X, y)                                    # the boundary itself is fine
    i = int(np.argmax(np.linalg.norm(X, axis=1)))
    far = X.copy()
    far[i] *= 1.001
    with pytest.raises(ValueError, match=f"row {i} .* > R"):
        learner.run(far, y)
    with pytest.raises(ValueError, match="> R"):
        learner.learn_one(far[i], 0.0)
    with pytest.raises(ValueError, match="> R"):
        learner.run(sp.csr_matrix(far), y)
    assert learner.n_rounds == 30
    # without R nothing is assumed: far rows are learned
    assert PKAWV(kernel=okl.Gaussian(1.0), M=2).run(far * 10, y).scores.shape == (30,)


def test_too_many_taylor_features_refused_before_learning():
    learner = PKAWV(kernel=okl.Gaussian(1.0), M=6)
    with pytest.raises(ValueError, match="r = C\\(d \\+ M, M\\)"):
        learner.run(np.zeros((3, 40)), np.zeros(3))      # C(46, 6) = 9.4e6 features
    assert learner.n_features is None and learner.n_rounds == 0
    learner.run(np.zeros((3, 2)), np.zeros(3))           # still usable
    assert learner.n_basis() == 28


@settings(max_examples=15, deadline=None)
@given(T=st.integers(1, 25), d=st.integers(1, 3), M=st.integers(0, 3),
       lam=st.floats(0.05, 5.0), seed=st.integers(0, 10 ** 6))
def test_pkawv_property_against_truncated_kernel_awv(T, d, M, lam, seed):
    X, y = regression_stream(T, d, seed=seed, scale=2.0)
    ref, _ = kernel_awv_oracle(truncated_gaussian_gram(X, X, M, 1.0), y, lam)
    tr = PKAWV(kernel=okl.Gaussian(1.0), lam=lam, M=M).run(X, y)
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-8, atol=1e-10)
    tr2 = KernelAWV(okl.Gaussian(1.0), lam=lam).run(X, y)
    ref2, _ = kernel_awv_oracle(ref_gram(okl.Gaussian(1.0), X, X), y, lam)
    np.testing.assert_allclose(tr2.scores, ref2, rtol=1e-9, atol=1e-11)


class PaperPhiAWV:
    """The paper's own code (Appendix H.2, ``PhiAWV``), transcribed.  Its ``taylor_phi``
    enumerates ordered index tuples (``sum_k d^k`` features, e.g. 73 for d = 8, M = 2,
    against C(10, 2) = 45 multi-indices in (6)); both feature maps have the inner
    product ``sum_{j<=M} Q_j``, so the forecasts agree."""

    def __init__(self, sigma, lbd, M):
        self.b = None
        self.A_inv = None
        self.M, self.lbd, self.sigma = M, lbd, sigma

    def taylor_phi(self, x):
        res = np.array([1.0])
        mm = np.array([1.0])
        for k in range(1, self.M + 1):
            mm = np.outer(mm, x).flatten()
            q = self.sigma ** k * np.sqrt(math.factorial(k))
            res = np.concatenate((res, mm / q))
        return res * np.exp(-np.dot(x, x) / (2 * self.sigma ** 2))

    def predict(self, x):
        z = self.taylor_phi(x)
        if self.b is None:
            self.b = np.zeros(len(z))
            self.A_inv = np.eye(len(z)) / self.lbd
        v = self.A_inv @ z
        v /= np.sqrt(1 + z @ v)
        self.A_inv -= np.outer(v, v)
        self.z = z
        return (self.A_inv @ self.b) @ z

    def update(self, y):
        self.b += y * self.z


def test_pkawv_matches_the_papers_python_code():
    X, y = regression_stream(60, 3, seed=18)
    paper = PaperPhiAWV(sigma=0.9, lbd=0.7, M=3)
    ref = []
    for x, yt in zip(X, y):
        ref.append(paper.predict(x))
        paper.update(yt)
    assert len(paper.b) == 1 + 3 + 9 + 27 != taylor_feature_count(3, 3)
    tr = PKAWV(kernel=okl.Gaussian(0.9), lam=0.7, M=3).run(X, y)
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-9, atol=1e-11)


def test_large_basis_runs_with_one_blas_thread():
    X, y = regression_stream(40, 3, seed=19)
    learner = PKAWV(kernel=okl.Gaussian(1.0), M=10, lam=0.5)       # r = C(13, 3) = 286
    assert not learner._blas_in_round_loop                          # unknown d yet
    tr = learner.run(X, y)
    assert learner._blas_in_round_loop and tr.final_budget == 286
    ref, _, _, _ = algorithm1_oracle(taylor_features(X, 10, 1.0)[0], y, 0.5)
    np.testing.assert_allclose(tr.scores, ref, rtol=1e-9, atol=1e-11)


def test_extras_on_far_inputs_do_not_overflow():
    X = np.full((3, 2), 1e9)
    tr = PKAWV(kernel=okl.Gaussian(1.0), M=30).run(X, np.ones(3))
    assert tr.extras["lemma13_bound"] == math.inf
    assert np.all(tr.scores == 0.0)            # exp(-||x||^2 / 2) underflows: v(x) = 0
