"""ISKA (okl/learners/iska.py) against a plain-numpy oracle that recomputes the alignment
criterion from the buffers' Gram matrices every time (the learner updates block sums
incrementally), driven by the same uniforms; and against the R code of the kernel-selection
paper of Li & Liao (tests/fixtures/r/ISKA-*.R on tests/fixtures/r_stream_c.csv)."""
import math
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from conftest import ref_gram
from okl.learners.iska import INIT_SIGMA, ISKA

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
R_SEED = 20240513
R_KERNELS = [okl.Gaussian(2.0 ** e) for e in range(4, -5, -1)]   # R's exp(-2^{-9:2:7} d^2)
KERNELS = [okl.Gaussian(0.25), okl.Gaussian(0.7), okl.Gaussian(2.0)]


def criterion(kernel, P, N):
    """||mean phi(P) - mean phi(N)||^2 from the full Gram matrices."""
    P, N = np.array(P), np.array(N)
    return (ref_gram(kernel, P, P).mean() + ref_gram(kernel, N, N).mean()
            - 2 * ref_gram(kernel, P, N).mean())


def oracle(kernels, X, y, B, *, T=None, eta=None, lam=1e-4, mu=0.5, q=3, step="constant",
           init_sigma=INIT_SIGMA, seed=0):
    """ISKA from its docstring, in numpy; buffers are lists of [x, w]."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    T = len(y) if T is None else T
    eta = 5 / math.sqrt(T) if eta is None else eta
    rng = np.random.default_rng(seed)
    cap = B // 2
    buf = {1.0: [], -1.0: []}
    cur = None
    window = []
    rec = {"f": [], "kernel": [], "sizes": [], "C": []}

    def kern(i):
        return okl.Gaussian(init_sigma) if i is None else kernels[i]

    def select():
        nonlocal cur
        C = np.array([criterion(k, [e[0] for e in buf[1.0]], [e[0] for e in buf[-1.0]])
                      for k in kernels])
        window.append(C)
        if len(window) > q:
            C = np.median(np.array(window[-q:]), axis=0)
        rec["C"].append(C)
        cur = int(np.argmax(C))

    for t in range(1, len(y) + 1):
        x, yt = X[t - 1], y[t - 1]
        k = kern(cur)
        entries = buf[1.0] + buf[-1.0]
        if entries:
            f = float(ref_gram(k, x[None], np.array([e[0] for e in entries]))[0]
                      @ np.array([e[1] for e in entries]))
            f = 0.5 if f == 0 else f
        else:
            f = 1.0
        rec["f"].append(f)
        rec["kernel"].append(-1 if cur is None else cur)
        et = eta if step == "constant" else 1 / (lam * t)
        c = 1 - et * lam
        own, oth = buf[yt], buf[-yt]
        for e in own + oth:                             # w decays every round
            e[1] *= c
        if yt * f < 1:
            if not own or not oth:
                if len(own) < cap:                      # (okl stops at B // 2)
                    own.append([x.copy(), et * yt])
            elif len(own) < cap:
                own.append([x.copy(), et * yt])
                select()
            else:
                phi = ref_gram(k, x[None], np.array([e[0] for e in own]))[0]
                s = int(np.argmax(phi))
                r = int(np.argmin([abs(e[1]) for e in own]))   # before this round's step
                u = rng.random()
                own[s][1] += et * yt
                if u < min(B / (2 * t), 1.0) and phi[s] <= mu:
                    own[r] = [x.copy(), et * yt]
                    select()
        rec["sizes"].append((len(buf[1.0]), len(buf[-1.0])))
    out = {k: np.array(v) for k, v in rec.items()}
    out["w"] = np.array([e[1] for e in buf[1.0] + buf[-1.0]])
    out["S"] = np.array([e[0] for e in buf[1.0] + buf[-1.0]])
    return out


def data(T=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((T, d))
    y = np.where(np.sin(6 * X[:, 0]) + X[:, 1] - 0.5 + 0.3 * rng.normal(size=T) >= 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("B,q,step", [(10, 3, "constant"), (16, 4, "constant"),
                                      (12, 1, "decaying"), (400, 3, "constant")])
def test_matches_numpy_oracle(B, q, step):
    X, y = data()
    kw = dict(lam=0.01, mu=0.6, q=q, step=step, seed=7)
    m = ISKA(KERNELS, B=B, **kw)
    tr = m.run(X, y)
    ref = oracle(KERNELS, X, y, B, **kw)
    np.testing.assert_allclose(tr.scores, ref["f"], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(tr.budget, ref["sizes"].sum(axis=1))
    np.testing.assert_allclose(m.coefficients, ref["w"], rtol=1e-10, atol=1e-14)
    np.testing.assert_array_equal(m.support_vectors, ref["S"])
    assert m.kernel_index_ == ref["kernel"][-1] or len(ref["C"]) == 0
    if len(ref["C"]):
        np.testing.assert_allclose(m.criteria_, ref["C"][-1], rtol=1e-9, atol=1e-12)
    assert tr.extras["n_criterion_updates"] == len(ref["C"])
    if B < 20:
        assert tr.extras["n_replaced"] > 0 and tr.budget.max() == 2 * (B // 2)


def test_block_sums_equal_the_gram_matrices():
    X, y = data(250)
    m = ISKA(KERNELS, B=14, lam=0.01, seed=1)
    m.run(X, y)
    P, N = m.buffers[0].vectors, m.buffers[1].vectors
    bp, bn, gm = m.block_sums()
    for i, k in enumerate(KERNELS):
        np.testing.assert_allclose(bp[i], ref_gram(k, P, P).sum(), rtol=1e-10)
        np.testing.assert_allclose(bn[i], ref_gram(k, N, N).sum(), rtol=1e-10)
        np.testing.assert_allclose(gm[i], ref_gram(k, P, N).sum(), rtol=1e-10)


@pytest.mark.parametrize("case,B,lam,q", [("r_iska", 20, 1e-4, 3), ("r_iska_q4", 30, 0.01, 4)])
def test_reproduces_the_authors_r_code(case, B, lam, q):
    """SKA_EMD.R of Li & Liao's ISKA.rar on the same stream, the Bernoulli draws read from the
    uniforms okl draws: f_t, the selected kernel, the buffer sizes, the number of draws,
    and the final buffers and weights."""
    S = np.loadtxt(os.path.join(FIX, "r_stream_c.csv"), delimiter=",")
    X, y = np.ascontiguousarray(S[:, 1:]), S[:, 0]
    R = np.genfromtxt(os.path.join(FIX, case + ".csv"), delimiter=",", names=True)
    F = np.genfromtxt(os.path.join(FIX, case + "_final.csv"), delimiter=",", names=True)
    m = ISKA(R_KERNELS, B=B, lam=lam, q=q, T=len(y), seed=R_SEED)
    kernels, sizes, draws = [], [], []
    for t in range(len(y)):
        m.learn_one(X[t], y[t])
        kernels.append(m.kernel_index_ + 1)
        p, n = m.buffers
        sizes.append((p.size, n.size))
        draws.append(m.n_draws)
    assert kernels == list(R["kernel"].astype(int))
    np.testing.assert_array_equal(sizes, np.column_stack([R["n_pos"], R["n_neg"]]))
    assert draws == list(R["draws"].astype(int))
    tr = ISKA(R_KERNELS, B=B, lam=lam, q=q, seed=R_SEED).run(X, y)
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-9, atol=1e-12)
    assert tr.n_mistakes == int(np.sum(np.sign(R["f"]) != y))
    np.testing.assert_allclose(m.coefficients, F["w"], rtol=1e-9, atol=1e-12)
    stored = np.concatenate([m.buffers[0].stamps, m.buffers[1].stamps])
    np.testing.assert_array_equal(stored, F["round"].astype(int))


def test_sparse_input_equals_dense():
    X, y = data(200, 6)
    X[X < 0.5] = 0.0
    a = ISKA(KERNELS, B=12, seed=3).run(X, y)
    b = ISKA(KERNELS, B=12, seed=3).run(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-12)


def test_one_shared_budget():
    """Both classes' buffers together stay within B (each within B // 2); a memory budget
    buys B = (quanta - (4 + q) K) / (d + 1)."""
    X, y = data(400, 3)
    m = ISKA(KERNELS, memory_budget=200, seed=0)
    tr = m.run(X, y)
    assert m.B_ == (200 - 7 * 3) // 4 == 44
    assert tr.budget.max() <= 44 and max(tr.extras["sizes"]) <= 22
    assert tr.extras["max_memory"] <= 200
    odd = ISKA(KERNELS, B=11, seed=0).run(X, y)
    assert odd.budget.max() == 10


def test_one_class_first_keeps_the_budget():
    """R appends to a class's buffer past B/2 while the other class is unseen; okl stops."""
    X, y = data(60)
    y = np.r_[-np.ones(50), y[50:]]          # f = 1 on empty buffers: negatives update
    m = ISKA(KERNELS, B=8, init_sigma=0.01, seed=0)      # narrow: |f| stays below 1
    tr = m.run(X, y)
    assert tr.budget[49] == 4 and tr.budget.max() <= 8 and tr.extras["n_blocked"] > 0


def test_pickle_resumes_identically():
    X, y = data(300)
    full = ISKA(KERNELS, B=10, T=300, seed=2).run(X, y)
    m = ISKA(KERNELS, B=10, T=300, seed=2)
    m.run(X[:140], y[:140])
    clone = pickle.loads(pickle.dumps(m))
    rest = clone.run(X[140:], y[140:])
    np.testing.assert_array_equal(rest.scores, full.scores[140:])
    ref = ISKA(KERNELS, B=10, T=300, seed=2)
    ref.run(X, y)
    np.testing.assert_array_equal(clone.criteria_, ref.criteria_)
    np.testing.assert_array_equal(np.concatenate(clone.block_sums()),
                                  np.concatenate(ref.block_sums()))


def test_selects_the_aligned_kernel():
    """Two classes separated at a scale of about 1: the alignment of a far too narrow
    kernel (Gram matrices near the identity) is below that of a width near the scale."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.5, (300, 2)), rng.normal(2.5, 0.5, (300, 2))]
    y = np.r_[np.ones(300), -np.ones(300)]
    order = rng.permutation(600)
    m = ISKA([okl.Gaussian(0.01), okl.Gaussian(1.0)], B=40, seed=0)
    m.run(X[order], y[order])
    assert m.kernel_index_ == 1


@pytest.mark.parametrize("kwargs,match", [
    (dict(B=1), "B"),
    (dict(B=10, lam=0.0), "lam"),
    (dict(B=10, q=0), "q"),
    (dict(B=10, step="adagrad"), "step"),
    (dict(B=10, init_sigma=0.0), "init_sigma"),
    (dict(B=10, eta=-1.0), "eta"),
    (dict(B=10, kernels=[okl.Laplacian(1.0)]), "Gaussian"),
    (dict(), "exactly one"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ISKA(**kwargs)


def test_bad_input_changes_nothing():
    X, y = data(40)
    m = ISKA(B=10, T=40, seed=0)
    with pytest.raises(ValueError):
        m.run(X, X[:, 0])                               # real targets for a classifier
    assert m.n_rounds == 0 and m.n_features is None
    m.run(X[:30], y[:30])
    with pytest.raises(ValueError, match="T = 40"):
        m.run(X, y)
    assert m.n_rounds == 30
    small = ISKA(memory_budget=70)                      # (70 - 63) / 4 = 1 < 2
    with pytest.raises(ValueError, match="B >= 2"):
        small.run(X, y)
    assert small.n_rounds == 0
