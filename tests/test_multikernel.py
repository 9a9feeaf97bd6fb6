"""OMKC_{D,D} with a budget (okl/learners/multikernel.py) against a plain-numpy oracle:
K separate support sets, weights w_i beta^{z_i}, Perceptron (classification) or
absolute-loss gradient steps (regression), pooled and static budgets."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import pairwise

import okl
from okl.learners.budget_kinds import MemoryBudget
from okl.learners.multikernel import OMKC

KERNELS = [okl.Gaussian(0.5), okl.Gaussian(2.0), okl.Laplacian(1.0), okl.Polynomial(2, 1.0, 0.5)]


def gram(kernel, A, B):
    if isinstance(kernel, okl.Gaussian):
        return pairwise.rbf_kernel(A, B, gamma=1.0 / (2.0 * kernel.sigma ** 2))
    if isinstance(kernel, okl.Laplacian):
        return pairwise.laplacian_kernel(A, B, gamma=1.0 / kernel.sigma)
    return pairwise.polynomial_kernel(A, B, degree=kernel.degree, gamma=kernel.gamma,
                                      coef0=kernel.coef0)


def oracle(kernels, X, y, B, beta=0.8, lam=0.1, loss="hinge", allocation="pooled"):
    """Plain numpy OMKC_{D,D}: returns scores, losses, per-round weights and the sets."""
    K = len(kernels)
    sets = [([], []) for _ in range(K)]               # (rows, coefficients) per kernel
    w = np.ones(K)
    cap = B // K if allocation == "static" else None
    scores, losses, weights, sizes = [], [], [], []
    for x, yt in zip(X, y):
        f = np.array([0.0 if not rows else gram(k, x[None], np.array(rows))[0] @ np.array(co)
                      for k, (rows, co) in zip(kernels, sets)])
        q = w / w.sum()
        weights.append(q)
        if loss == "hinge":
            s = q @ np.sign(f)
            scores.append(s)
            losses.append(max(0.0, 1.0 - yt * s))
            z = (yt * f <= 0).astype(float)
        else:
            s = q @ f
            scores.append(s)
            losses.append(abs(s - yt))
            z = np.abs(f - yt)
        w = w * beta ** z
        for i in range(K):
            if loss == "hinge":
                if not z[i]:
                    continue
                a = yt
            else:
                if f[i] == yt:
                    continue
                a = -lam * np.sign(f[i] - yt)
            room = (len(sets[i][0]) < cap) if cap is not None else \
                (sum(len(r) for r, _ in sets) < B)
            if room:
                sets[i][0].append(x.copy())
                sets[i][1].append(a)
        sizes.append(sum(len(r) for r, _ in sets))
    return np.array(scores), np.array(losses), np.array(weights), sets, np.array(sizes)


def data(n=150, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1.0, -1.0)
    return X, y, np.sin(X[:, 0]) + 0.5 * X[:, 1]


@pytest.mark.parametrize("loss", ["hinge", "absolute"])
@pytest.mark.parametrize("allocation", ["pooled", "static"])
@pytest.mark.parametrize("B", [12, 40, 1000])
def test_matches_numpy_oracle(loss, allocation, B):
    X, yc, yr = data()
    y = yc if loss == "hinge" else yr
    m = OMKC(KERNELS, loss=loss, B=B, beta=0.7, lam=0.3, allocation=allocation)
    tr = m.run(X, y)
    s, l, q, sets, sizes = oracle(KERNELS, X, y, B, 0.7, 0.3, loss, allocation)
    np.testing.assert_allclose(tr.scores, s, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(tr.losses, l, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, sizes)
    for i in range(len(KERNELS)):
        V, a, _ = m.kernel_support(i)
        np.testing.assert_allclose(V, np.array(sets[i][0]).reshape(-1, X.shape[1]))
        np.testing.assert_allclose(a, sets[i][1])
    assert tr.budget.max() <= B
    assert tr.extras["max_size"] == sizes.max()
    if allocation == "static":
        assert all(len(r) <= B // 4 for r, _ in sets)


@pytest.mark.parametrize("loss", ["hinge", "absolute"])
def test_weights_match_oracle_round_for_round(loss):
    X, yc, yr = data(80)
    y = yc if loss == "hinge" else yr
    m = OMKC(KERNELS, loss=loss, B=30, beta=0.6, lam=0.2)
    _, _, q, _, _ = oracle(KERNELS, X, y, 30, 0.6, 0.2, loss)
    for t in range(len(y)):
        np.testing.assert_allclose(m.p_, q[t], rtol=1e-10, atol=1e-14)
        m.learn_one(X[t], y[t])


def test_sparse_input_equals_dense():
    X, y, _ = data(100, 5)
    X[np.abs(X) < 0.7] = 0.0
    a = OMKC(KERNELS, B=50).run(X, y)
    b = OMKC(KERNELS, B=50).run(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-12)


def test_budget_from_memory_and_time():
    X, y, _ = data(200, 3)
    m = OMKC(KERNELS, memory_budget=400)
    tr = m.run(X, y)
    # (400 - K) / (d + 1) = 396 / 4 = 99 entries
    assert m.B_ == 99 and tr.budget.max() <= 99
    assert tr.extras["max_memory"] <= 400
    t = OMKC(KERNELS, time_budget=MemoryBudget(400).quanta)
    assert t.run(X, y).extras["B"] == 99
    m2 = OMKC(KERNELS, memory_budget=MemoryBudget(400, alpha=0.05))
    m2.run(X, y)
    assert m2.B_ == 20


def test_pickle_resumes_identically():
    X, yc, yr = data(160)
    for loss, y in (("hinge", yc), ("absolute", yr)):
        full = OMKC(KERNELS, loss=loss, B=40).run(X, y)
        m = OMKC(KERNELS, loss=loss, B=40)
        m.run(X[:70], y[:70])
        m2 = pickle.loads(pickle.dumps(m))
        rest = m2.run(X[70:], y[70:])
        np.testing.assert_array_equal(rest.scores, full.scores[70:])
        np.testing.assert_array_equal(rest.budget, full.budget[70:])
        ref = OMKC(KERNELS, loss=loss, B=40)
        ref.run(X, y)
        np.testing.assert_array_equal(m2.p_, ref.p_)
    fresh = pickle.loads(pickle.dumps(OMKC(KERNELS, B=40)))
    np.testing.assert_array_equal(fresh.run(X, yc).scores, OMKC(KERNELS, B=40).run(X, yc).scores)


@pytest.mark.parametrize("kwargs,match", [
    (dict(B=10, beta=1.0), "beta"),
    (dict(B=10, beta=0.0), "beta"),
    (dict(B=10, lam=0.0), "lam"),
    (dict(B=10, loss="squared"), "loss"),
    (dict(B=10, allocation="greedy"), "allocation"),
    (dict(), "exactly one"),
    (dict(B=10, memory_budget=100), "exactly one"),
    (dict(B=0), "B"),
    (dict(B=10, kernels=[]), "kernels"),
    (dict(B=10, kernels=[1.0]), "kernels"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        OMKC(**kwargs)


def test_bad_input_changes_nothing():
    X, y, _ = data(20)
    m = OMKC(KERNELS, B=10, allocation="static")
    with pytest.raises(ValueError):
        m.run(X, np.where(y > 0, 2.0, -1.0))             # labels outside {-1, +1}
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError):
        m.run(Xn, y)
    assert m.n_rounds == 0 and m.n_features is None
    with pytest.raises(ValueError, match="static"):
        OMKC(KERNELS, B=3, allocation="static")
    small = OMKC(KERNELS, memory_budget=15, allocation="static")    # (15 - 4) / 4 = 2 < K
    with pytest.raises(ValueError, match="static"):
        small.run(X, y)
    assert small.n_rounds == 0
    tiny = OMKC(KERNELS, memory_budget=5)
    with pytest.raises(ValueError, match="memory_budget"):
        tiny.run(X, y)
    assert tiny.n_rounds == 0


def test_prefers_the_right_kernel():
    """The combination learns which kernel predicts: a kernel so narrow that its scores
    underflow to 0 away from its support vectors errs every round (z = 1), and its
    weight vanishes against a wide kernel's."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(800, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    m = OMKC([okl.Gaussian(1e-3), okl.Gaussian(2.0)], B=60)
    m.run(X, y)
    assert m.p_[1] > 0.99


def test_variant_r_reproduces_the_authors_omkc_dd():
    """``variant="r"`` against the authors' OMKC-DD.R (tests/fixtures/r/selection/) on
    the same stream: the combined score, every kernel's score, the set sizes and the
    weights round for round; the mistakes exactly; the budget counts rounds."""
    import os
    fix = os.path.join(os.path.dirname(__file__), "fixtures")
    S = np.loadtxt(os.path.join(fix, "r_stream_c.csv"), delimiter=",")
    X, y = np.ascontiguousarray(S[:, 1:]), S[:, 0]
    R = np.genfromtxt(os.path.join(fix, "r", "selection", "r_omkc_dd.csv"),
                      delimiter=",", names=True)
    K = 9
    m = OMKC(B=60, variant="r")
    f, fk, P, sizes = [], [], [], []
    for t in range(len(y)):
        f.append(m.decision_function(X[t:t + 1])[0])
        m.learn_one(X[t], y[t])
        fk.append(m.kernel_scores())
        P.append(m.p_)
        sizes.append(np.array(m.n))
    col = lambda p: np.column_stack([R[f"{p}{i}"] for i in range(1, K + 1)])  # noqa: E731
    # (decision_function before the first example is 0: nothing is allocated yet)
    np.testing.assert_allclose(f[1:], R["f"][1:], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(fk, col("fx"), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(P, col("p"), rtol=1e-10, atol=1e-15)
    np.testing.assert_array_equal(sizes, col("k"))
    assert m.rounds_used == R["diff_vec"][-1] > 60
    assert col("k")[-1].sum() > 60            # K copies: more entries than B rounds
    tr = OMKC(B=60, variant="r").run(X, y)
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-10, atol=1e-13)
    np.testing.assert_array_equal(np.where(tr.scores >= 0, 1.0, -1.0) != y,
                                  R["mistake"].astype(bool))
    # okl's default (sgn, a zero score is a mistake; B counts entries) differs
    d = OMKC(B=60).run(X, y)
    assert d.budget.max() <= 60 and not np.array_equal(d.scores, tr.scores)
    with pytest.raises(ValueError, match="variant"):
        OMKC(B=60, variant="R")
