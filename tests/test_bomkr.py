"""BOMKR and BOMKR-V (okl/learners/bomkr.py) against plain-numpy oracles and against the
R code of the kernel-selection paper of Li & Liao (tests/fixtures/r/BOMKR.R, BOMKR-V.R
on tests/fixtures/r_stream_r.csv)."""
import math
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from conftest import ref_gram
from okl.learners.bomkr import BOMKR, BOMKRV

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
GAUSS = [okl.Gaussian(0.3), okl.Gaussian(1.0), okl.Gaussian(3.0)]
MIXED = [okl.Gaussian(0.5), okl.Laplacian(1.0), okl.Polynomial(2, 0.5, 1.0)]


def defaults(T, K, eta=None, beta=None):
    return (5 / math.sqrt(T) if eta is None else eta,
            math.sqrt(T) / (math.sqrt(T) + math.sqrt(K)) if beta is None else beta)


def bomkr_oracle(kernels, X, y, per_kernel, *, eta=None, lam=0.1, nu=0.5, eps=0.001,
                 beta=None):
    """K NORMA regressors on separate FIFO sets, weights p beta^|f_i - y|, in numpy."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    K = len(kernels)
    eta, beta = defaults(len(y), K, eta, beta)
    rows = [[] for _ in range(K)]
    co = [np.zeros(0) for _ in range(K)]
    flag = [0] * K
    e = np.full(K, eps)
    p = np.full(K, 1.0 / K)
    out = {"f": [], "fi": [], "p": [], "eps": [], "sizes": []}
    for t in range(len(y)):
        fi = np.array([float(ref_gram(k, X[t][None], np.array(r))[0] @ c) if r else 0.0
                       for k, r, c in zip(kernels, rows, co)])
        out["f"].append(p @ fi)
        out["fi"].append(fi)
        err = np.abs(fi - y[t])
        for i in range(K):
            co[i] = co[i] * (1 - eta * lam)
            if err[i] > e[i]:
                a = -eta * np.sign(fi[i] - y[t])
                if len(rows[i]) < per_kernel:
                    rows[i].append(X[t].copy())
                    co[i] = np.append(co[i], a)
                else:
                    rows[i][flag[i]] = X[t].copy()
                    co[i][flag[i]] = a
                    flag[i] = (flag[i] + 1) % len(rows[i])
                e[i] += (1 - nu) * eta
            else:
                e[i] -= nu * eta
        p = p * beta ** err
        p = p / p.sum()
        out["p"].append(p.copy())
        out["eps"].append(e.copy())
        out["sizes"].append([len(r) for r in rows])
    return {k: np.array(v) for k, v in out.items()}


def bomkrv_oracle(kernels, X, y, B, *, eta=None, lam=0.1, beta=None):
    """K absolute-loss OGD regressors on one shared FIFO set, in numpy."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    K = len(kernels)
    eta, beta = defaults(len(y), K, eta, beta)
    S = []
    A = np.zeros((K, 0))
    flag = 0
    p = np.full(K, 1.0 / K)
    out = {"f": [], "p": [], "A": None}
    for t in range(len(y)):
        if S:
            fi = np.array([ref_gram(k, X[t][None], np.array(S))[0] @ A[i]
                           for i, k in enumerate(kernels)])
        else:
            fi = np.zeros(K)
        out["f"].append(p @ fi)
        p = p * beta ** np.abs(fi - y[t])
        p = p / p.sum()
        out["p"].append(p.copy())
        A = A * (1 - eta * lam)
        a = -eta * np.sign(fi - y[t])
        if len(S) < B:
            S.append(X[t].copy())
            A = np.column_stack([A, a])
        else:
            S[flag] = X[t].copy()
            A[:, flag] = a
            flag = (flag + 1) % B
    out = {k: np.array(v) for k, v in out.items() if v is not None}
    out["A"], out["S"] = A, np.array(S)
    return out


def data(T=200, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((T, d))
    y = np.sin(4 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=T)
    return X, y


@pytest.mark.parametrize("kernels", [GAUSS, MIXED], ids=["gaussian", "mixed"])
@pytest.mark.parametrize("B", [12, 1000])
def test_bomkr_matches_numpy_oracle(kernels, B):
    X, y = data()
    m = BOMKR(kernels, B=B, lam=0.2, nu=0.3, epsilon=0.05)
    tr = m.run(X, y)
    ref = bomkr_oracle(kernels, X, y, -(-B // 3), lam=0.2, nu=0.3, eps=0.05)
    np.testing.assert_allclose(tr.scores, ref["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.p_, ref["p"][-1], rtol=1e-12)
    np.testing.assert_allclose(tr.extras["epsilon"], ref["eps"][-1], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(tr.budget, ref["sizes"].sum(axis=1))
    np.testing.assert_allclose(tr.losses, np.abs(ref["f"] - y), rtol=1e-10, atol=1e-12)
    if B == 12:
        assert tr.extras["n_replaced"].sum() > 0 and tr.budget.max() == 12


def test_bomkr_weights_match_oracle_round_for_round():
    X, y = data(120)
    m = BOMKR(GAUSS, B=9, T=120)
    ref = bomkr_oracle(GAUSS, X, y, 3)
    for t in range(len(y)):
        m.learn_one(X[t], y[t])
        np.testing.assert_allclose(m.kernel_scores(), ref["fi"][t], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(m.p_, ref["p"][t], rtol=1e-12)


@pytest.mark.parametrize("B", [10, 1000])
def test_bomkrv_matches_numpy_oracle(B):
    X, y = data()
    m = BOMKRV(GAUSS, B=B, lam=0.3, beta=0.9)
    tr = m.run(X, y)
    ref = bomkrv_oracle(GAUSS, X, y, B, lam=0.3, beta=0.9)
    np.testing.assert_allclose(tr.scores, ref["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.p_, ref["p"][-1], rtol=1e-12)
    np.testing.assert_allclose(m.coefficients_, ref["A"], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(m.support_set.vectors, ref["S"])
    assert tr.budget.max() == min(B, 200)


def test_shared_distance_rows_equal_kernel_rows():
    X, y = data(150)
    a = BOMKRV(GAUSS, B=40)
    b = BOMKRV(GAUSS, B=40)
    b._bomkrv_use_shared_distances(False)
    np.testing.assert_array_equal(a.run(X, y).scores, b.run(X, y).scores)
    rows = a._bomkrv_kernel_rows(X[:5])
    for i, k in enumerate(GAUSS):
        np.testing.assert_allclose(rows[i], ref_gram(k, X[:5], a.support_set.vectors),
                                   rtol=1e-12, atol=1e-15)


def _r(name):
    S = np.loadtxt(os.path.join(FIX, "r_stream_r.csv"), delimiter=",")
    R = np.genfromtxt(os.path.join(FIX, name), delimiter=",", names=True)
    return np.ascontiguousarray(S[:, 1:]), S[:, 0], R


@pytest.mark.parametrize("name,B,per_kernel", [("r_bomkr_table4.csv", 45, 5),
                                               ("r_bomkr_table6.csv", 54, 6)])
def test_bomkr_reproduces_the_authors_r_code(name, B, per_kernel):
    """table4/BOMKR.R (per-kernel budget ceiling(B/K)) and table6/BOMKR.R (per-kernel B):
    every kernel's prediction, epsilon and weight, round for round."""
    X, y, R = _r(name)
    K = 9
    m = BOMKR(B=B, T=len(y))
    assert m.B_ == K * per_kernel
    for t in range(len(y)):
        m.learn_one(X[t], y[t])
        np.testing.assert_allclose(m.kernel_scores(), [R[f"f{i}"][t] for i in range(1, K + 1)],
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(m.p_, [R[f"p{i}"][t] for i in range(1, K + 1)], rtol=1e-10)
    tr = BOMKR(B=B).run(X, y)
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tr.extras["epsilon"], [R[f"eps{i}"][-1] for i in range(1, K + 1)],
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(tr.extras["sizes"], [R[f"k{i}"][-1] for i in range(1, K + 1)])


def test_bomkrv_reproduces_the_authors_r_code():
    X, y, R = _r("r_bomkr_v.csv")
    K = 9
    m = BOMKRV(B=25, T=len(y))
    for t in range(len(y)):
        m.learn_one(X[t], y[t])
        np.testing.assert_allclose(m.kernel_scores(), [R[f"f{i}"][t] for i in range(1, K + 1)],
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(m.p_, [R[f"p{i}"][t] for i in range(1, K + 1)], rtol=1e-10)
    tr = BOMKRV(B=25).run(X, y)
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(tr.budget, R["size"].astype(int))


def test_sparse_input_equals_dense():
    X, y = data(120, 6)
    X[X < 0.5] = 0.0
    for make in (lambda: BOMKR(MIXED, B=30), lambda: BOMKRV(GAUSS, B=30)):
        a, b = make().run(X, y), make().run(sp.csr_matrix(X), y)
        np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-12)


def test_budgets_separate_and_shared():
    """BOMKR keeps K separate sets (an example may be stored by several kernels); BOMKR-V one
    set of at most B vectors with K coefficients each (Table 3's O(KBd) vs O(dB + KB + K))."""
    X, y = data(300, 4)
    K, d = 3, 4
    sep = BOMKR(GAUSS, memory_budget=400)
    tr = sep.run(X, y)
    total = (400 - 2 * K) // (d + 1)                    # 78 entries
    assert tr.extras["per_kernel"] == total // K == 26
    assert tr.budget.max() <= 78 and tr.extras["max_memory"] <= 400
    stamps = [set(sep.kernel_support(i)[2]) for i in range(K)]
    assert stamps[0] & stamps[1]                         # stored twice: memory not shared
    sh = BOMKRV(GAUSS, memory_budget=400)
    tr = sh.run(X, y)
    assert sh.B_ == (400 - K) // (d + K) == 56
    assert tr.budget.max() == 56 and tr.extras["max_memory"] <= 400
    assert sh.coefficients_.shape == (K, 56)
    assert BOMKRV(GAUSS, time_budget=400).run(X, y).extras["B"] == 56


def test_pickle_resumes_identically():
    X, y = data(200)
    for make in (lambda: BOMKR(MIXED, B=12, T=200), lambda: BOMKRV(GAUSS, B=15, T=200)):
        full = make().run(X, y)
        m = make()
        m.run(X[:90], y[:90])
        clone = pickle.loads(pickle.dumps(m))
        rest = clone.run(X[90:], y[90:])
        np.testing.assert_array_equal(rest.scores, full.scores[90:])
        ref = make()
        ref.run(X, y)
        np.testing.assert_array_equal(clone.p_, ref.p_)


def test_prefers_the_right_kernel():
    """A width that fits the target wins the weights; one so narrow that it predicts 0 away
    from its support vectors loses them."""
    rng = np.random.default_rng(1)
    X = rng.random((1500, 2))
    y = np.sin(3 * X[:, 0])
    for m in (BOMKR([okl.Gaussian(1e-3), okl.Gaussian(0.5)], B=100),
              BOMKRV([okl.Gaussian(1e-3), okl.Gaussian(0.5)], B=50)):
        m.run(X, y)
        assert m.p_[1] > 0.99


@pytest.mark.parametrize("kwargs,match", [
    (dict(B=10, lam=-1.0), "lam"),
    (dict(B=10, eta=0.0), "eta"),
    (dict(B=10, eta=1.0, lam=1.0), "eta \\* lam"),
    (dict(B=10, beta=1.0), "beta"),
    (dict(B=10, T=0), "T"),
    (dict(), "exactly one"),
    (dict(B=0), "B"),
    (dict(B=10, kernels=[]), "kernels"),
])
def test_bad_parameters(kwargs, match):
    for cls in (BOMKR, BOMKRV):
        with pytest.raises(ValueError, match=match):
            cls(**kwargs)
    with pytest.raises(ValueError, match="nu"):
        BOMKR(B=10, nu=0.0)
    with pytest.raises(ValueError, match="Gaussian"):
        BOMKRV(MIXED, B=10)


def test_bad_input_changes_nothing():
    X, y = data(40)
    for m in (BOMKR(B=10, T=40), BOMKRV(B=10, T=40)):
        Xn = X.copy()
        Xn[2, 0] = np.inf
        with pytest.raises(ValueError):
            m.run(Xn, y)
        assert m.n_rounds == 0 and m.n_features is None
        m.run(X[:30], y[:30])
        with pytest.raises(ValueError, match="T = 40"):
            m.run(X, y)
        assert m.n_rounds == 30
    small = BOMKR(memory_budget=20)                       # (20 - 18) / 4 = 0 < K entries
    with pytest.raises(ValueError, match="budget"):
        small.run(X, y)
    assert small.n_rounds == 0
