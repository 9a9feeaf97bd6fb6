"""OKS and BOKS (okl/learners/oks.py) against a plain-numpy oracle driven by the same
uniforms, and against the R code of the kernel-selection paper of Li & Liao
(tests/fixtures/r/BOKS-*.R, run on tests/fixtures/r_stream_*.csv with the uniforms of
tests/fixtures/r_uniforms.csv)."""
import math
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from conftest import ref_gram
from okl.learners.budget_kinds import MemoryBudget
from okl.learners.oks import BOKS, OKS

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
R_SEED = 20240513          # tests/fixtures/r/make_fixtures.py
KERNELS = [okl.Gaussian(0.4), okl.Gaussian(1.5), okl.Laplacian(1.0)]


def draw(q, u):
    """Inverse CDF of ``q`` at ``u`` in the kernels' order."""
    c = np.cumsum(q)
    i = int(np.searchsorted(c, u, side="right"))
    return min(i, len(q) - 1)


def oracle(kernels, X, y, *, loss, delta, T=None, eta=None, lam=None, B=None,
           update="mistake", importance_weighted=True, seed=0):
    """OKS / BOKS written from the docstring, one round at a time in numpy."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    K = len(kernels)
    T = len(y) if T is None else T
    eta = math.sqrt(2 * (1 - delta) * math.log(K) / (K * T)) if eta is None else eta
    lam = 5 / math.sqrt(T) if lam is None else lam
    rng = np.random.default_rng(seed)
    L = np.zeros(K)
    q = np.full(K, 1.0 / K)
    sets = [([], []) for _ in range(K)]
    I = draw(q, rng.random())
    rec = {k: [] for k in ("f", "I", "q", "sizes", "err")}
    for t in range(len(y)):
        rows, co = sets[I]
        f = float(ref_gram(kernels[I], X[t][None], np.array(rows))[0] @ np.array(co)) \
            if rows else 0.0
        rec["f"].append(f)
        rec["I"].append(I)
        if loss == "hinge":
            yhat = 1.0 if f >= 0 else -1.0
            err = float(yhat != y[t])
            step = err > 0 if update == "mistake" else y[t] * f < 1
            a = lam * y[t]
        else:
            err = abs(f - y[t])
            step = True
            a = -lam * np.sign(f - y[t])
        if step:
            if importance_weighted:
                a /= q[I]
            if B is None or sum(len(r) for r, _ in sets) < B:
                rows.append(X[t].copy())
                co.append(a)
        L[I] += err / q[I]
        w = np.exp(-eta * (L - L.min()))
        q = (1 - delta) * w / w.sum() + delta / K
        rec["q"].append(q.copy())
        rec["sizes"].append([len(r) for r, _ in sets])
        rec["err"].append(err)
        I = draw(q, rng.random())
    return {k: np.array(v) for k, v in rec.items()}


def data(T=220, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    yc = np.where(np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] + 0.2 * rng.normal(size=T) >= 0, 1.0, -1.0)
    yr = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=T)
    return X, yc, yr


def learner_rounds(learner, X, y):
    """``(scores, I_t, q_{t+1})`` round by round through ``learn_one``."""
    f, I, q = [], [], []
    for t in range(len(y)):
        f.append(learner.decision_function(X[t:t + 1])[0])
        I.append(learner.next_kernel_ if learner.n_features is not None else None)
        learner.learn_one(X[t], y[t])
        q.append(learner.q_)
    return np.array(f), I, np.array(q)


@pytest.mark.parametrize("loss", ["hinge", "absolute"])
@pytest.mark.parametrize("B", [None, 25])
@pytest.mark.parametrize("update,iw", [("mistake", True), ("hinge", False)])
def test_matches_numpy_oracle(loss, B, update, iw):
    X, yc, yr = data()
    y = yc if loss == "hinge" else yr
    kw = dict(loss=loss, delta=0.1, update=update, importance_weighted=iw, seed=5)
    m = OKS(KERNELS, **kw) if B is None else BOKS(KERNELS, B=B, **kw)
    tr = m.run(X, y)
    ref = oracle(KERNELS, X, y, B=B, **kw)
    np.testing.assert_allclose(tr.scores, ref["f"], rtol=1e-10, atol=1e-12)
    # the learner exponentiates -eta (L - shift) with the shift of its last rescaling (as
    # the R code's unshifted exp(-eta L)); the oracle shifts by the current minimum: the
    # rounding of arguments of up to ~700 differs by ~1e-13 relative
    np.testing.assert_allclose(m.q_, ref["q"][-1], rtol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["sizes"].sum(axis=1))
    np.testing.assert_array_equal(tr.extras["sizes"], ref["sizes"][-1])
    np.testing.assert_array_equal(tr.extras["n_selected"], np.bincount(ref["I"], minlength=3))
    if loss == "hinge":
        assert tr.extras["n_errors"] == int(ref["err"].sum())
    if B is not None:
        assert tr.budget.max() == B and tr.extras["n_blocked"] > 0


def test_rounds_and_weights_match_oracle_one_at_a_time():
    X, yc, _ = data(150)
    m = OKS(KERNELS, delta=0.2, T=150, seed=11)
    f, I, q = learner_rounds(m, X, yc)
    ref = oracle(KERNELS, X, yc, loss="hinge", delta=0.2, seed=11)
    np.testing.assert_allclose(f, ref["f"], rtol=1e-10, atol=1e-12)
    assert I[1:] == list(ref["I"][1:])
    np.testing.assert_allclose(q, ref["q"], rtol=1e-10)


def _r_case(stream, name):
    S = np.loadtxt(os.path.join(FIX, f"r_stream_{stream}.csv"), delimiter=",")
    R = np.genfromtxt(os.path.join(FIX, name), delimiter=",", names=True)
    return np.ascontiguousarray(S[:, 1:]), S[:, 0], R


@pytest.mark.parametrize("stream,name,cls,kw", [
    ("c", "r_oks_c.csv", OKS, dict(delta=0.2)),
    ("c", "r_boks_c.csv", BOKS, dict(B=25, delta=0.02)),
    ("r", "r_oks_r.csv", OKS, dict(loss="absolute", delta=0.02)),
    ("r", "r_boks_r.csv", BOKS, dict(loss="absolute", B=30, delta=0.002)),
])
def test_reproduces_the_authors_r_code(stream, name, cls, kw):
    """Li & Liao's BOKS-c.R / BOKS-r.R (B = Inf: OKS) on the same stream and uniforms:
    the drawn kernel, the prediction, the loss, the set sizes and q, round for round."""
    X, y, R = _r_case(stream, name)
    K = 9
    u = np.loadtxt(os.path.join(FIX, "r_uniforms.csv"))
    m = cls(seed=R_SEED, T=len(y), **kw)
    np.testing.assert_array_equal(m._uniform_draws(len(u)), u)   # the same uniforms
    m = cls(seed=R_SEED, T=len(y), **kw)
    f, I, q = learner_rounds(m, X, y)
    np.testing.assert_allclose(f, R["f"], rtol=1e-9, atol=1e-12)
    assert [i + 1 for i in I[1:]] == list(R["It"][1:].astype(int))
    P = np.column_stack([R[f"p{i}"] for i in range(1, K + 1)])
    np.testing.assert_allclose(q, P, rtol=1e-11, atol=1e-14)
    tr = cls(seed=R_SEED, **kw).run(X, y)
    sizes = np.column_stack([R[f"k{i}"] for i in range(1, K + 1)])
    np.testing.assert_array_equal(tr.extras["sizes"], sizes[-1])
    np.testing.assert_array_equal(tr.budget, sizes.sum(axis=1))
    if "B" in kw:
        assert tr.budget.max() == kw["B"]
    if stream == "c":
        assert tr.extras["n_errors"] == int(R["err"].sum())
        np.testing.assert_allclose(tr.losses, np.maximum(0, 1 - y * R["f"]), atol=1e-9)
    else:
        np.testing.assert_allclose(tr.losses, R["err"], rtol=1e-9, atol=1e-12)


def test_sparse_input_equals_dense():
    X, yc, _ = data(120, 6)
    X[np.abs(X) < 0.6] = 0.0
    a = BOKS(KERNELS, B=40, seed=2).run(X, yc)
    b = BOKS(KERNELS, B=40, seed=2).run(sp.csr_matrix(X), yc)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(a.budget, b.budget)


def test_k_separate_sets_under_the_pooled_budget():
    """BOKS stores each example in the set of the kernel drawn that round only; the total
    over the K sets never exceeds B, and the weights keep learning once it is full."""
    X, _, yr = data(300)
    m = BOKS(KERNELS, loss="absolute", B=40, delta=0.3, seed=1)
    tr = m.run(X, yr)
    assert tr.budget.max() == 40 and np.all(np.diff(tr.budget) >= 0)
    rounds = np.concatenate([m.kernel_support(i)[2] for i in range(3)])
    assert len(rounds) == len(set(rounds)) == 40          # no example stored twice
    assert tr.extras["n_blocked"] == 300 - 40             # regression updates every round
    assert tr.extras["n_selected"].sum() == 300
    full = m.q_
    ref = oracle(KERNELS, X, yr, loss="absolute", delta=0.3, B=40, seed=1)
    np.testing.assert_allclose(full, ref["q"][-1], rtol=1e-10)


def test_budget_from_memory_and_time():
    X, yc, _ = data(200, 3)
    K = len(KERNELS)
    m = BOKS(KERNELS, memory_budget=400, seed=0)
    tr = m.run(X, yc)
    assert m.B_ == (400 - K) // (3 + 1) == 99
    assert tr.budget.max() <= 99 and tr.extras["max_memory"] <= 400
    t = BOKS(KERNELS, time_budget=400, seed=0)
    assert t.run(X, yc).budget.max() <= 99 and t.B_ == 99
    assert BOKS(KERNELS, memory_budget=MemoryBudget(400, alpha=0.05), seed=0).run(
        X, yc).extras["B"] == 20
    tiny = BOKS(KERNELS, memory_budget=5)
    with pytest.raises(ValueError, match="memory_budget"):
        tiny.run(X, yc)
    assert tiny.n_rounds == 0


def test_pickle_resumes_identically_after_the_budget_fills():
    X, yc, _ = data(200)
    full = BOKS(KERNELS, B=20, delta=0.2, T=200, seed=9).run(X, yc)
    m = BOKS(KERNELS, B=20, delta=0.2, T=200, seed=9)
    m.run(X[:120], yc[:120])
    clone = pickle.loads(pickle.dumps(m))
    rest = clone.run(X[120:], yc[120:])
    np.testing.assert_array_equal(rest.scores, full.scores[120:])
    np.testing.assert_array_equal(rest.budget, full.budget[120:])
    ref = BOKS(KERNELS, B=20, delta=0.2, T=200, seed=9)
    ref.run(X, yc)
    np.testing.assert_array_equal(clone.q_, ref.q_)
    assert clone.next_kernel_ == ref.next_kernel_


def test_decision_function_consumes_no_randomness():
    X, yc, _ = data(100)
    a, b = OKS(KERNELS, T=100, seed=4), OKS(KERNELS, T=100, seed=4)
    a.run(X[:50], yc[:50])
    b.run(X[:50], yc[:50])
    for _ in range(3):
        b.decision_function(X)
    np.testing.assert_array_equal(a.run(X[50:], yc[50:]).scores,
                                  b.run(X[50:], yc[50:]).scores)


def test_earlier_r_version_settings():
    """OKS.R of KARegret-OKS: hinge-triggered updates, lambda y without 1/q, eta = delta/K."""
    X, yc, _ = data(200)
    K, delta = 3, 0.2
    m = OKS(KERNELS, delta=delta, eta=delta / K, update="hinge", importance_weighted=False,
            seed=3)
    tr = m.run(X, yc)
    ref = oracle(KERNELS, X, yc, loss="hinge", delta=delta, eta=delta / K, update="hinge",
                 importance_weighted=False, seed=3)
    np.testing.assert_allclose(tr.scores, ref["f"], rtol=1e-10, atol=1e-12)
    lam = 5 / math.sqrt(200)
    for i in range(K):
        np.testing.assert_allclose(np.abs(m.kernel_support(i)[1]), lam)


def test_prefers_the_right_kernel():
    """A kernel so narrow that its scores vanish away from its support vectors predicts +1
    everywhere and errs on half the stream; its probability falls to the floor delta/K."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    m = OKS([okl.Gaussian(1e-3), okl.Gaussian(2.0)], delta=0.02, seed=0)
    m.run(X, y)
    assert m.q_[1] > 0.95


@pytest.mark.parametrize("kwargs,match", [
    (dict(delta=1.5), "delta"),
    (dict(delta=-0.1), "delta"),
    (dict(eta=-1.0), "eta"),
    (dict(lam=0.0), "lam"),
    (dict(loss="squared"), "loss"),
    (dict(update="always"), "update"),
    (dict(importance_weighted=1), "importance_weighted"),
    (dict(T=0), "T"),
    (dict(kernels=[]), "kernels"),
    (dict(kernels=[2.0]), "kernels"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        OKS(**kwargs)
    with pytest.raises(ValueError, match=match):
        BOKS(B=10, **kwargs)


@pytest.mark.parametrize("kwargs", [dict(), dict(B=0), dict(B=10, memory_budget=100)])
def test_boks_needs_exactly_one_budget(kwargs):
    with pytest.raises(ValueError, match="B|exactly one"):
        BOKS(**kwargs)


def test_bad_input_changes_nothing():
    X, yc, yr = data(40)
    m = BOKS(KERNELS, B=10, T=40, seed=0)
    with pytest.raises(ValueError):
        m.run(X, yr)                                     # regression targets, classifier
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError):
        m.run(Xn, yc)
    assert m.n_rounds == 0 and m.n_features is None
    m.run(X[:20], yc[:20])
    with pytest.raises(ValueError, match="T = 40"):
        m.run(X, yc)                                     # past the horizon
    assert m.n_rounds == 20
    with pytest.raises(ValueError, match="T"):
        OKS(KERNELS).learn_one(X[0], 1.0)                # streaming needs the horizon


def test_weights_work_reference_is_the_weights_step():
    """``_oks.weights_work_reference`` (the benchmark's round-work reference) against the
    same exponential-weights step written in numpy with the same uniforms."""
    from okl.learners._oks import weights_work_reference
    K, T, eta, delta = 5, 300, 0.3, 0.2
    err = (np.random.default_rng(1).random(T) < 0.4).astype(float)
    rng = np.random.default_rng(7)
    L, w, q, I, total = np.zeros(K), np.ones(K), np.full(K, 1.0 / K), 0, 0.0
    for t in range(T):
        if err[t] or t == 0:                   # a zero loss moves nothing but the draw
            L[I] += err[t] / q[I]
            w[I] = np.exp(-eta * L[I])
            q = w * ((1 - delta) / w.sum()) + delta / K
        I = min(int(np.searchsorted(np.cumsum(q), rng.random(), side="right")), K - 1)
        total += q[I]
    assert weights_work_reference(K, T, eta, delta, err, 7) == pytest.approx(total, rel=1e-12)
    with pytest.raises(ValueError, match="T entries"):
        weights_work_reference(K, T, eta, delta, err[:10])
