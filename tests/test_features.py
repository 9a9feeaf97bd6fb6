"""FOGD and NOGD (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016) against plain-numpy oracles."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

import okl
from okl.learners.features import FOGD, NOGD
from conftest import ref_gram, sparse_stream, xor_stream

LOSSES = ("hinge", "logistic", "squared", "absolute")
CLASSIFICATION = {"hinge", "logistic"}
EPS = np.finfo(float).eps


# -- oracles ------------------------------------------------------------------------

def loss_value(loss, y, f):
    if loss == "hinge":
        return max(0.0, 1.0 - y * f)
    if loss == "logistic":
        return float(np.logaddexp(0.0, -y * f))
    if loss == "squared":
        return 0.5 * (f - y) ** 2
    return abs(f - y)


def loss_grad(loss, y, f):
    """d l / d f, with the subgradient 0 at the kinks."""
    if loss == "hinge":
        return -y if y * f < 1 else 0.0
    if loss == "logistic":
        return -y * expit(-y * f)
    if loss == "squared":
        return f - y
    return float(np.sign(f - y))


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, float)


def fogd_oracle(kernel, X, y, D, eta, loss, seed):
    """Random Fourier features drawn as documented, then OGD on w, literally."""
    Xd = dense(X)
    rng = np.random.default_rng(seed)
    if isinstance(kernel, okl.Gaussian):
        U = rng.standard_normal((D, Xd.shape[1])) / kernel.sigma
    else:
        U = rng.standard_cauchy((D, Xd.shape[1])) / kernel.sigma
    w = np.zeros(2 * D)
    scores, losses, updates = [], [], 0
    for x, yt in zip(Xd, y):
        z = np.concatenate([np.cos(U @ x), np.sin(U @ x)]) / np.sqrt(D)
        f = float(w @ z)
        scores.append(f)
        losses.append(loss_value(loss, yt, f))
        g = loss_grad(loss, yt, f)
        if g != 0:
            w = w - eta * g * z
            updates += 1
    return dict(scores=np.array(scores), losses=np.array(losses), w=w, U=U, n_updates=updates)


def nogd_oracle(kernel, X, y, B, k, eta, loss):
    """Kernel OGD until |S| = B; then eigh(K_B), top-k, M = L^-1/2 V^T, w = alpha pinv(M)."""
    Xd = dense(X)
    S, alpha = [], []
    M = w = None
    out = dict(scores=[], losses=[], budget=[], switch_round=None, rank=None, n_updates=0)
    for t, (x, yt) in enumerate(zip(Xd, y), start=1):
        kx = ref_gram(kernel, x[None], np.array(S))[0] if S else np.zeros(0)
        if M is None:
            f = float(np.dot(alpha, kx)) if S else 0.0
        else:
            z = M @ kx
            f = float(w @ z)
        out["scores"].append(f)
        out["losses"].append(loss_value(loss, yt, f))
        g = loss_grad(loss, yt, f)
        if g != 0:
            out["n_updates"] += 1
            if M is None:
                S.append(x)
                alpha.append(-eta * g)
                if len(S) == B:
                    K = ref_gram(kernel, np.array(S), np.array(S))
                    lam, V = np.linalg.eigh(K)
                    order = np.argsort(lam)[::-1][:k]
                    lam, V = lam[order], V[:, order]
                    keep = lam > max(lam[0], 0) * B * EPS
                    lam, V = lam[keep], V[:, keep]
                    M = np.diag(lam ** -0.5) @ V.T
                    w = np.asarray(alpha) @ np.linalg.pinv(M)
                    out["switch_round"], out["rank"] = t, len(lam)
            else:
                w = w - eta * g * z
        out["budget"].append(len(S))
    out["scores"] = np.array(out["scores"])
    out["losses"] = np.array(out["losses"])
    out["budget"] = np.array(out["budget"])
    out["S"] = np.array(S)
    out["coef"] = np.asarray(alpha) if M is None else M.T @ w
    out["M"], out["w"] = M, w
    return out


# -- streams ------------------------------------------------------------------------

def stream(loss, sparse, T, seed=3):
    """Classification labels for hinge/logistic, real targets for the regression losses."""
    if sparse:
        X, y = sparse_stream(T, 8, density=0.4, seed=seed)
    else:
        X, y = xor_stream(T, 3, seed=seed)
    if loss not in CLASSIFICATION:
        rng = np.random.default_rng(seed + 100)
        Xd = dense(X)
        y = np.sin(2 * Xd[:, 0]) + Xd[:, 1] * Xd[:, 2] + 0.1 * rng.normal(size=T)
    return X, y


# -- FOGD ---------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", [okl.Gaussian(0.8), okl.Gaussian(3.0), okl.Laplacian(2.0)],
                         ids=repr)
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("sincos", ["vector", "libm"])
def test_fogd_matches_oracle_round_for_round(kernel, loss, sparse, sincos):
    X, y = stream(loss, sparse, 300)
    ref = fogd_oracle(kernel, X, y, D=40, eta=0.3, loss=loss, seed=11)
    learner = FOGD(kernel, D=40, eta=0.3, loss=loss, seed=11, sincos=sincos)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(tr.losses, ref["losses"], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(learner.weights, ref["w"], rtol=1e-9, atol=1e-11)
    np.testing.assert_array_equal(learner.frequencies, ref["U"])
    assert tr.extras == {"n_updates": ref["n_updates"], "D": 40}
    assert np.all(tr.budget == 40)
    assert learner.is_classifier == (loss in CLASSIFICATION)
    if loss in CLASSIFICATION:
        np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
        # the hinge loss skips the rounds with y f >= 1; the logistic loss never does
        assert (0 < ref["n_updates"] < 300) if loss == "hinge" else ref["n_updates"] == 300
    else:
        assert tr.mistakes is None
    # the features are those of the oracle, dense and CSR alike
    Z = learner.transform(X[:5])
    U = ref["U"]
    Xd = dense(X[:5])
    np.testing.assert_allclose(Z, np.hstack([np.cos(Xd @ U.T), np.sin(Xd @ U.T)]) / np.sqrt(40),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel", [okl.Gaussian(1.3), okl.Laplacian(1.7)], ids=repr)
def test_fogd_features_approximate_the_kernel(kernel):
    """z(x)^T z(v) = (1/D) sum_i cos(u_i^T (x - v)): a mean of D i.i.d. terms whose
    expectation is k(x, v).  Each of 12 pairs is within 4 standard errors (with D = 4000
    the SE is ~0.01; scaling sigma by 1.5, or dropping the 1/sqrt(D), fails by > 10 SE)."""
    rng = np.random.default_rng(5)
    X = rng.normal(scale=0.8, size=(24, 4))
    learner = FOGD(kernel, D=4000, seed=2)
    learner.learn_one(X[0], 1.0)
    Z = learner.transform(X)
    D = 4000
    K = ref_gram(kernel, X, X)
    for i in range(0, 24, 2):
        x, v = Z[i], Z[i + 1]
        terms = D * (x[:D] * v[:D] + x[D:] * v[D:])        # cos(u_i^T (x - v)), i = 1..D
        assert terms.mean() == pytest.approx(float(x @ v), rel=1e-12)
        se = terms.std(ddof=1) / np.sqrt(D)
        assert abs(x @ v - K[i, i + 1]) < 4 * se, (i, x @ v, K[i, i + 1], se)
        assert se < 0.02
    np.testing.assert_allclose(np.sum(Z * Z, axis=1), 1.0, rtol=1e-12)   # k(x, x) = 1 exactly


def test_fogd_sincos_paths():
    """One-hot rows make ``U x`` exact (a column of U), so the features are exactly
    ``cos(u_ij) / sqrt(D)``: libm's values bit for bit with ``sincos="libm"``, within one
    unit in the last place of them (plus the scaling's rounding) with ``"vector"``."""
    import math
    D, d = 300, 7
    X = np.eye(d)[np.arange(40) % d] * 1.0
    vec = FOGD(okl.Laplacian(0.05), D=D, seed=3)          # Cauchy: arguments up to ~1e5
    lib = FOGD(okl.Laplacian(0.05), D=D, seed=3, sincos="libm")
    vec.learn_one(X[0], 1.0)
    lib.learn_one(X[0], 1.0)
    U = lib.frequencies
    assert np.abs(U).max() > 1e3
    scale = 1.0 / math.sqrt(D)
    want = np.array([[math.cos(u) * scale for u in U[:, j]] + [math.sin(u) * scale for u in U[:, j]]
                     for j in range(d)])
    Zl, Zv = lib.transform(X[:d]), vec.transform(X[:d])
    np.testing.assert_array_equal(Zl, want)
    gap = np.abs(Zv - want) / np.spacing(np.abs(want))
    assert gap.max() <= 2.0
    # the two paths learn the same stream to round-off
    Xs, ys = sparse_stream(400, 30, density=0.3, seed=2)
    a = FOGD(okl.Gaussian(0.7), D=64, seed=5).run(Xs, ys)
    b = FOGD(okl.Gaussian(0.7), D=64, seed=5, sincos="libm").run(Xs, ys)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(a.mistakes, b.mistakes)
    assert repr(FOGD(sincos="libm")).endswith("sincos='libm')")


def test_fogd_seeds():
    X, y = xor_stream(400, 3, seed=4)
    a = FOGD(okl.Gaussian(1.0), D=30, seed=7).run(X, y)
    b = FOGD(okl.Gaussian(1.0), D=30, seed=7).run(X, y)
    c = FOGD(okl.Gaussian(1.0), D=30, seed=8).run(X, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert not np.allclose(a.scores[1:], c.scores[1:])
    g = FOGD(okl.Gaussian(1.0), D=30, seed=np.random.default_rng(7)).run(X, y)
    np.testing.assert_array_equal(a.scores, g.scores)


def test_fogd_dense_equals_csr():
    X, y = sparse_stream(300, 12, seed=6)
    a = FOGD(okl.Gaussian(1.0), D=25, seed=1).run(X, y)
    b = FOGD(okl.Gaussian(1.0), D=25, seed=1).run(X.toarray(), y)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("loss", ["hinge", "squared"])
def test_fogd_pickle_resumes_mid_stream(loss):
    X, y = stream(loss, False, 500, seed=9)
    full = FOGD(okl.Gaussian(1.0), D=20, loss=loss, eta=0.2, seed=3).run(X, y)
    learner = FOGD(okl.Gaussian(1.0), D=20, loss=loss, eta=0.2, seed=3)
    fresh = pickle.loads(pickle.dumps(learner))          # before the first example
    first = learner.run(X[:173], y[:173])
    clone = pickle.loads(pickle.dumps(learner))
    assert repr(clone) == repr(learner)
    rest = clone.run(X[173:], y[173:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    assert rest.extras == full.extras
    np.testing.assert_array_equal(fresh.run(X, y).scores, full.scores)


def test_fogd_learn_one_equals_run():
    X, y = xor_stream(120, 3, seed=3)
    a, b = FOGD(D=15, seed=4), FOGD(D=15, seed=4)
    tr = a.run(X, y)
    for x, label in zip(X, y):
        b.learn_one(x, label)
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert tr.extras["n_updates"] == b._extras()["n_updates"]


# -- NOGD ---------------------------------------------------------------------------

NOGD_KERNELS = [okl.Gaussian(0.7), okl.Gaussian(1.5), okl.Laplacian(2.0), okl.Linear()]


@pytest.mark.parametrize("kernel", NOGD_KERNELS, ids=repr)
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("k", [5, 20])
def test_nogd_matches_oracle_round_for_round(kernel, loss, sparse, k):
    X, y = stream(loss, sparse, 160, seed=2)
    B = 20
    ref = nogd_oracle(kernel, X, y, B=B, k=k, eta=0.4, loss=loss)
    learner = NOGD(kernel, B=B, k=k, eta=0.4, loss=loss)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(tr.losses, ref["losses"], rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    assert ref["switch_round"] is not None and ref["switch_round"] < 100   # both stages run
    assert tr.extras == {"n_updates": ref["n_updates"], "switched": True,
                         "switch_round": ref["switch_round"], "rank": ref["rank"]}
    np.testing.assert_array_equal(learner.support_vectors, ref["S"])
    np.testing.assert_allclose(learner.coefficients, ref["coef"], rtol=1e-7, atol=1e-9)
    if isinstance(kernel, okl.Linear):
        assert ref["rank"] == min(k, X.shape[1])       # K_B has rank d: the rest is dropped
    else:
        assert ref["rank"] == k
    # the map itself, up to the eigenvectors' signs
    M = learner.feature_map
    np.testing.assert_allclose(np.abs(M), np.abs(ref["M"]), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.abs(learner.weights), np.abs(ref["w"]), rtol=1e-6, atol=1e-8)
    if loss in CLASSIFICATION:
        np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)


def test_nogd_before_the_budget_is_kernel_ogd():
    """Stage 1 is kernel OGD with the same loss and step (eq. (9) of Kivinen et al.)."""
    X, y = xor_stream(300, 3, seed=5)
    n = NOGD(okl.Gaussian(1.0), B=1000, eta=0.3)
    o = okl.KernelOGD(okl.Gaussian(1.0), eta=0.3)
    a, b = n.run(X, y), o.run(X, y)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(a.budget, b.budget)
    assert a.extras["switched"] is False and a.extras["switch_round"] is None
    with pytest.raises(ValueError, match="before its budget is full"):
        n.transform(X[:3])


@pytest.mark.parametrize("kernel", [okl.Gaussian(1.0), okl.Laplacian(3.0)], ids=repr)
def test_nogd_features_reproduce_the_gram_matrix(kernel):
    """At full rank z(x_i)^T z(x_j) = k_i^T V L^-1 V^T k_j = K_ij on the B support
    vectors; at rank k < B it is the best rank-k approximation V_k L_k V_k^T."""
    X, y = xor_stream(400, 3, seed=6)
    full = NOGD(kernel, B=40, k=40, eta=0.2)
    full.run(X, y)
    S = full.support_vectors
    K = ref_gram(kernel, S, S)
    Z = full.transform(S)
    assert Z.shape == (40, 40)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-9)
    low = NOGD(kernel, B=40, k=8, eta=0.2)
    low.run(X, y)
    np.testing.assert_array_equal(low.support_vectors, S)
    Zk = low.transform(S)
    lam, V = np.linalg.eigh(K)
    best = (V[:, -8:] * lam[-8:]) @ V[:, -8:].T
    np.testing.assert_allclose(Zk @ Zk.T, best, atol=1e-9)
    np.testing.assert_allclose(low.eigenvalues, lam[::-1][:8], rtol=1e-10)
    assert np.abs(Zk @ Zk.T - K).max() > 1e-3          # the truncation is visible
    # CSR input gives the same features
    np.testing.assert_allclose(low.transform(sp.csr_matrix(S)), Zk, rtol=1e-12, atol=1e-13)


def test_nogd_initial_weights_continue_the_kernel_model():
    """At k = B, w = alpha pinv(M) gives w^T z(x) = alpha^T k_S(x) for every x: right
    after the switch the linear model is the kernel model."""
    X, y = xor_stream(200, 3, seed=8)
    t0 = NOGD(okl.Gaussian(1.0), B=30, k=30, eta=0.2).run(X, y).extras["switch_round"]
    learner = NOGD(okl.Gaussian(1.0), B=30, k=30, eta=0.2)
    learner.run(X[:t0], y[:t0])            # the switch is the last thing this run does
    assert learner._extras()["switched"] and learner.weights.shape == (30,)
    kernel_model = NOGD(okl.Gaussian(1.0), B=1000, eta=0.2)
    kernel_model.run(X[:t0], y[:t0])
    np.testing.assert_array_equal(kernel_model.support_vectors, learner.support_vectors)
    np.testing.assert_allclose(learner.decision_function(X), kernel_model.decision_function(X),
                               rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(learner.coefficients, kernel_model.coefficients, rtol=1e-7)
    # at k < B the same switch gives the projection alpha^T V_k V_k^T k_S(x) instead
    low = NOGD(okl.Gaussian(1.0), B=30, k=5, eta=0.2)
    low.run(X[:t0], y[:t0])
    assert not np.allclose(low.decision_function(X), kernel_model.decision_function(X),
                           atol=1e-3)


def test_nogd_duplicates_drop_null_eigenpairs():
    """Repeated support vectors make K_B singular: the null eigenpairs are dropped."""
    base, labels = xor_stream(6, 3, seed=1)
    X, y = np.repeat(base, 8, axis=0), np.repeat(labels, 8)
    learner = NOGD(okl.Gaussian(1.0), B=12, k=12, eta=0.3, loss="squared")
    tr = learner.run(X, y)
    assert tr.extras["rank"] <= 6 and tr.extras["rank"] >= 2
    assert np.all(np.isfinite(tr.scores))
    ref = nogd_oracle(okl.Gaussian(1.0), X, y, B=12, k=12, eta=0.3, loss="squared")
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-7, atol=1e-9)
    assert ref["rank"] == tr.extras["rank"]


@pytest.mark.parametrize("cut", [9, 70])
def test_nogd_pickle_resumes_before_and_after_the_switch(cut):
    X, y = xor_stream(300, 3, seed=12)
    kw = dict(B=25, k=6, eta=0.3)
    full = NOGD(okl.Gaussian(0.9), **kw).run(X, y)
    learner = NOGD(okl.Gaussian(0.9), **kw)
    first = learner.run(X[:cut], y[:cut])
    assert learner._extras()["switched"] == (cut == 70)
    clone = pickle.loads(pickle.dumps(learner))
    rest = clone.run(X[cut:], y[cut:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
    assert rest.extras == full.extras


def three_phase_stream(seed=4, n=1500):
    """Random labels (most rounds update), then a constant label (updates stop), then
    random labels again: NOGD's cheaper form for its linear model changes twice."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(3 * n, 3))
    y = np.r_[rng.choice([-1.0, 1.0], n), np.ones(n), rng.choice([-1.0, 1.0], n)]
    return X, y


@pytest.mark.parametrize("k", [4, 20])
def test_nogd_both_forms_of_the_linear_model_match_the_oracle(k):
    """After the switch the core keeps w (eager) or beta = M^T w (lazy), whichever the
    last 512 rounds' update share makes cheaper (okl/learners/_features.pyx): at B = 20,
    k = 4 the form goes eager -> lazy -> eager on this stream, at k = B it stays lazy; the
    scores, w and beta follow the oracle's w through every change."""
    X, y = three_phase_stream()
    ref = nogd_oracle(okl.Gaussian(1.5), X, y, B=20, k=k, eta=0.3, loss="hinge")
    learner = NOGD(okl.Gaussian(1.5), B=20, k=k, eta=0.3)
    forms, scores = [], []
    for i in range(0, len(y), 250):
        scores.append(learner.run(X[i:i + 250], y[i:i + 250]).scores)
        forms.append(learner.keeps_coefficients)
    np.testing.assert_allclose(np.concatenate(scores), ref["scores"], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(learner.coefficients, ref["coef"], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(np.abs(learner.weights), np.abs(ref["w"]), rtol=1e-6, atol=1e-8)
    changes = [a for a, b in zip(forms, forms[1:]) if a != b]
    if k == 4:
        assert forms[0] is False and changes == [False, True], forms
    else:
        assert all(forms), forms


@pytest.mark.parametrize("cut", [1234, 2300, 3500, 3900])   # eager, lazy, lazy, eager
def test_nogd_pickle_resumes_in_either_form(cut):
    X, y = three_phase_stream(seed=5)
    kw = dict(B=20, k=4, eta=0.3)
    full = NOGD(okl.Gaussian(1.5), **kw).run(X, y)
    learner = NOGD(okl.Gaussian(1.5), **kw)
    first = learner.run(X[:cut], y[:cut])
    clone = pickle.loads(pickle.dumps(learner))
    assert clone.keeps_coefficients == learner.keeps_coefficients
    rest = clone.run(X[cut:], y[cut:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    assert rest.extras == full.extras


def test_nogd_deterministic_and_default_rank():
    X, y = xor_stream(300, 3, seed=2)
    a = NOGD(okl.Gaussian(1.0), B=50).run(X, y)
    b = NOGD(okl.Gaussian(1.0), B=50, seed=99).run(X, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert NOGD(B=50).k_ == 10 and NOGD(B=400).k_ == 80 and NOGD(B=3).k_ == 1
    assert a.extras["rank"] == 10


# -- validation ---------------------------------------------------------------------

@pytest.mark.parametrize("bad,name", [
    (dict(D=0), "D"), (dict(D=2.5), "D"), (dict(eta=0.0), "eta"), (dict(eta=float("nan")), "eta"),
    (dict(eta="1"), "eta"), (dict(loss="hinge2"), "loss"), (dict(seed=-1), "seed"),
    (dict(kernel=okl.Polynomial()), "kernel"), (dict(kernel=okl.Linear()), "kernel"),
    (dict(kernel="rbf"), "kernel"), (dict(sincos="fast"), "sincos"), (dict(sincos=None), "sincos"),
])
def test_fogd_parameter_validation(bad, name):
    with pytest.raises(ValueError, match=name):
        FOGD(**bad)


@pytest.mark.parametrize("bad,name", [
    (dict(B=0), "B"), (dict(B=1.5), "B"), (dict(k=0), "k"), (dict(B=10, k=11), "k"),
    (dict(k=2.0), "k"), (dict(eta=-1.0), "eta"), (dict(eta=float("inf")), "eta"),
    (dict(loss=None), "loss"), (dict(seed=1.5), "seed"), (dict(kernel=3), "kernel"),
])
def test_nogd_parameter_validation(bad, name):
    with pytest.raises(ValueError, match=name):
        NOGD(**bad)


@pytest.mark.parametrize("make", [lambda: FOGD(okl.Gaussian(1.0), D=10, seed=1),
                                  lambda: NOGD(okl.Gaussian(1.0), B=15, k=4)],
                         ids=["FOGD", "NOGD"])
def test_bad_input_leaves_state_unchanged(make):
    X, y = xor_stream(200, 3, seed=7)
    full = make().run(X, y)
    learner = make()
    first = learner.run(X[:60], y[:60])
    bad_X = X[60:70].copy()
    bad_X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        learner.run(bad_X, y[60:70])
    with pytest.raises(ValueError, match="features"):
        learner.run(X[60:70, :2], y[60:70])
    with pytest.raises(ValueError, match="labels"):
        learner.run(X[60:70], 2 * y[60:70])
    with pytest.raises(ValueError, match="y has"):
        learner.run(X[60:70], y[60:69])
    with pytest.raises(ValueError, match="empty"):
        learner.run(X[:0], y[:0])
    assert learner.n_rounds == 60
    rest = learner.run(X[60:], y[60:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)


def test_regression_labels_are_real():
    X, y = stream("squared", False, 50)
    tr = FOGD(D=5, loss="squared", seed=0).run(X, y)
    assert tr.mistakes is None and not FOGD(loss="absolute").is_classifier
    with pytest.raises(ValueError, match="labels"):
        FOGD(D=5, loss="hinge", seed=0).run(X, y)
    with pytest.raises(ValueError, match="before transform"):
        FOGD(D=5).transform(X)


# -- NOGD, stage1="every": the POMDR authors' NOGD.R -----------------------------------

def nogd_r_oracle(kernel, X, y, B, k, eta):
    """NOGD.R's loop (JunfLi-TJU/OKL-Hinge, the POMDR version) in numpy: every stage-1
    example joins S with eta y_t, no loss test; then hinge OGD on z(x) = D^-1/2 V^T k_S(x).
    Two documented departures of okl are taken over (okl.NOGD's Notes): the map is used
    from the round after the B-th addition (NOGD.R re-runs that example through stage 2)
    and w = alpha pinv(M) (NOGD.R's solve(D * V) scales the wrong axis).  Mistakes are
    counted as NOGD.R does: round 1 always, then sign(f) with f = 0 read as +1."""
    Xd = dense(X)
    S, svpara = [], []
    Vr = Dr = w = None
    out = dict(scores=[], budget=[], switch_round=None, errors=0)
    for t, (x, yt) in enumerate(zip(Xd, y), start=1):
        if t == 1:
            f = 0.0
            out["errors"] += 1                           # error <- 1
        else:
            kt = np.exp(-((np.array(S) - x) ** 2).sum(axis=1) / (2 * kernel.sigma ** 2))
            f = float(np.dot(svpara, kt)) if Vr is None else float(w @ (Dr * (Vr.T @ kt)))
            out["errors"] += int((-1.0 if f < 0 else 1.0) != yt)
        out["scores"].append(f)
        if Vr is None:                                   # k < B: add, no loss test
            S.append(x)
            svpara.append(eta * yt)
            if len(S) == B:
                Sa = np.array(S)
                sq = ((Sa[:, None, :] - Sa[None, :, :]) ** 2).sum(axis=2)
                lam, V = np.linalg.svd(np.exp(-sq / (2 * kernel.sigma ** 2)))[1:]
                Dr, Vr = lam[:k] ** -0.5, V[:k].T        # svd of a PSD matrix: descending
                w = np.asarray(svpara) @ np.linalg.pinv(Dr[:, None] * Vr.T)
                out["switch_round"] = t
        elif yt * f < 1:                                 # stage 2: hinge OGD on w
            w = w + eta * yt * (Dr * (Vr.T @ kt))
        out["budget"].append(len(S))
    out["scores"] = np.array(out["scores"])
    out["budget"] = np.array(out["budget"])
    out["coef"] = np.asarray(svpara) if Vr is None else Vr @ (Dr * w)
    return out


def separable_stream(T=400, seed=8):
    """Two well separated clusters: hinge losses stop after a few rounds."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], T)
    X = 0.6 * rng.normal(size=(T, 4))
    X[:, 0] += 2.0 * y
    return X, y


def test_nogd_every_matches_the_nogd_r_oracle_round_for_round():
    """stage1="every" is NOGD.R's rule; on an easy separable stream the default rule keeps
    a handful of vectors and never switches, NOGD.R's always fills B and switches."""
    X, y = separable_stream()
    kernel, B, k, eta = okl.Gaussian(3.0), 30, 6, 1.0
    ref = nogd_r_oracle(kernel, X, y, B=B, k=k, eta=eta)
    learner = NOGD(kernel, B=B, k=k, eta=eta, stage1="every")
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=0, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    assert ref["switch_round"] == B and tr.extras["switch_round"] == B
    assert tr.extras["switched"] is True and tr.extras["rank"] == k
    assert int(tr.mistakes.sum()) == ref["errors"] > 1
    assert np.all(ref["scores"][1:] != 0)                # f = 0 only in round 1
    np.testing.assert_allclose(learner.coefficients, ref["coef"], rtol=0, atol=1e-10)
    assert len(learner.support_vectors) == B
    # stage 2 ran hinge updates: every stage-1 round plus at least one after the switch
    stage2_updates = int(np.sum(y[B:] * ref["scores"][B:] < 1))
    assert stage2_updates > 0 and tr.extras["n_updates"] == B + stage2_updates
    # the default rule on the same stream: kernel OGD, far from the budget
    loss = NOGD(kernel, B=B, k=k, eta=eta).run(X, y)
    assert loss.extras["switched"] is False and loss.budget.max() <= B // 2
    assert not np.allclose(loss.scores, tr.scores)


def test_nogd_every_before_the_budget_adds_every_example():
    X, y = separable_stream(T=50, seed=3)
    learner = NOGD(okl.Gaussian(1.0), B=200, eta=0.3, stage1="every")
    tr = learner.run(X, y)
    np.testing.assert_array_equal(tr.budget, np.arange(1, 51))
    np.testing.assert_array_equal(learner.coefficients, 0.3 * y)
    np.testing.assert_array_equal(learner.support_vectors, X)


@pytest.mark.parametrize("cut", [17, 120])
def test_nogd_every_pickles_and_resumes(cut):
    X, y = separable_stream(seed=9)
    kw = dict(B=30, k=6, eta=0.5, stage1="every")
    full = NOGD(okl.Gaussian(1.0), **kw).run(X, y)
    learner = NOGD(okl.Gaussian(1.0), **kw)
    first = learner.run(X[:cut], y[:cut])
    clone = pickle.loads(pickle.dumps(learner))
    assert clone.get_params()["stage1"] == "every"
    rest = clone.run(X[cut:], y[cut:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    assert rest.extras == full.extras
    fresh = NOGD(okl.Gaussian(1.0), B=30, k=6, eta=0.5).set_params(stage1="every")
    np.testing.assert_array_equal(fresh.run(X, y).scores, full.scores)


@pytest.mark.parametrize("loss", ["logistic", "squared", "absolute"])
def test_nogd_every_is_hinge_only(loss):
    with pytest.raises(ValueError, match="hinge loss only"):
        NOGD(okl.Gaussian(1.0), loss=loss, stage1="every")
    with pytest.raises(ValueError, match="stage1"):
        NOGD(okl.Gaussian(1.0), stage1="all")
