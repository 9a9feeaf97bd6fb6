"""SkeGD (Zhang & Liao, ICML 2019) against the authors' R code and a plain-numpy oracle.

The R fixtures ``tests/fixtures/r_skegd_*.csv`` are the per-round outputs of Xiao Zhang's
``SkeGD.R`` (the code of Li & Liao's AAAI 2023 Table 2) on ``r_pomdr_stream.csv`` with the
uniforms ``r_pomdr_uniforms.csv`` (``numpy.random.default_rng(2023).random()``: what an
okl learner seeded with 2023 draws); ``tests/fixtures/r/pomdr/make_fixtures.py`` made them.
The oracle below is the R code transcribed into numpy, with R's explicit ``w`` and ``Qx``
(okl keeps a thinner factor of the same map) and its own kernel."""
import math
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

import okl
from okl.learners.skegd import SkeGD, default_cycle, default_eta, default_sizes
from conftest import xor_stream

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
SEED = 2023          # r_pomdr_uniforms.csv = default_rng(SEED).random(1200)


# ----------------------------------------------------------------------------
# the oracle: SkeGD.R, CSketch_d.R and RandSM.R in numpy
# ----------------------------------------------------------------------------

class Draws:
    """The uniforms an okl learner seeded with ``seed`` consumes, one after another."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.n = 0

    def __call__(self, n=None):
        self.n += 1 if n is None else n
        return float(self.rng.random()) if n is None else self.rng.random(n)


def gram(kernel, A, B):
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if isinstance(kernel, okl.Gaussian):
        return rbf_kernel(A, B, gamma=1.0 / (2.0 * kernel.sigma ** 2))
    return laplacian_kernel(A, B, gamma=1.0 / kernel.sigma)


def count_sketch(n, s, d, u, hash="r"):
    """``CSketch_d(n, s, d)`` with ``sample()`` fed by ``u`` (see draws.R)."""
    C = np.zeros((n, s))
    w = s // d
    ku, su = u(d * n), u(d * n)
    if s % d:
        idx = np.floor(ku * w).astype(int) + 1
        for i in range(n):
            idx[i * d + d - 1] = math.floor(u() * (s - (d - 1) * w)) + 1
    for i in range(n):
        for j in range(d):
            q = i * d + j
            if s % d:
                col = w * j + idx[q]
            elif hash == "r":            # sample(1:s/d): values (1:s)/d, subscript truncated
                col = w * j + (math.floor(ku[q] * s) + 1) // d
            else:
                col = w * j + math.floor(ku[q] * w) + 1
            if col >= 1:                 # subscript 0 assigns nothing
                C[i, col - 1] = (math.floor(su[q] * 2) + 1 - 1.5) * 2
    return C / math.sqrt(d)


def sample_without(B, m, u):
    x = list(range(B))
    for i in range(m):
        j = i + math.floor(u() * (B - i))
        x[i], x[j] = x[j], x[i]
    return np.array(x[:m])


def ginv(A):
    """MASS::ginv."""
    U, d, Vt = np.linalg.svd(A, full_matrices=False)
    pos = d > max(math.sqrt(np.finfo(float).eps) * d[0], 0)
    return Vt[pos].T @ ((1 / d[pos])[:, None] * U[:, pos].T)


def r_mod_is_one(T0, cycle):
    """R's ``T0 %% cycle == 1`` (myfmod: floor of the double quotient, remainder in long
    double)."""
    x1, x2 = np.longdouble(T0), np.longdouble(cycle)
    tmp = x1 - np.longdouble(math.floor(float(T0) / float(cycle))) * x2
    return float(tmp - np.floor(tmp / x2) * x2) == 1.0


def skegd_oracle(kernel, X, y, seed, *, B, s_p, s_m, k, cs_d=4, eta, cycle, hash="r",
                 truncate_initial=False, pool=None, order=None):
    """SkeGD.R: the per-round scores, |SV| and the refresh rounds; ``order`` is the R
    code's id_list (0-based), ``pool`` the rows ``X[SVb, ]`` reads (None: the sampled
    support vectors)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, float)
    u = Draws(seed)
    ids = np.arange(len(y)) if order is None else np.asarray(order)
    Sa = count_sketch(B, s_p, cs_d, u, hash)
    alpha, SV = [], []
    flag, T0 = False, 0
    scores, sizes, refreshes = [], [], []
    for t, i in enumerate(ids):
        x, yt = X[i], y[i]
        if not alpha:
            f = 0.0
        elif not flag:
            f = float(np.asarray(alpha) @ gram(kernel, x, X[SV])[0])
        else:
            kb = gram(kernel, x, L)[0]
            phi = kb @ Qx
            f = float(w @ phi)
        scores.append(f)
        if yt * f < 1:
            T0 += 1
            if len(alpha) < B:
                alpha.append(eta * yt)
                SV.append(i)
            elif not flag:
                psi = gram(kernel, x, X[SV])[0]
                K_B = gram(kernel, X[SV], X[SV])
                r = sample_without(B, s_m, u)
                kb = psi[r]
                if kb.sum() > 1e-8:
                    S = Sa.T @ (K_B @ Sa)
                    M = Sa.T @ K_B[:, r]
                    ske = count_sketch(1, s_p, cs_d, u, hash)
                    M = M + ske.T @ kb[None, :]
                    Raa = ske.T @ (psi @ Sa)[None, :]
                    S = S + Raa + Raa.T + gram(kernel, x, x)[0, 0] * (ske.T @ ske)
                    Us, ds, _ = np.linalg.svd(S)
                    if truncate_initial:
                        Us, ds = Us[:, :k], ds[:k]
                    Qx = ginv(M) @ Us @ np.diag(np.sqrt(ds))
                    phi = kb @ Qx
                    w = f * phi / (phi @ phi) + eta * yt * phi
                    L = X[np.asarray(SV)[r]] if pool is None else pool[r]
                    SV.append(i)
                    Sa = np.vstack([Sa, ske])
                    flag = True
            else:
                if r_mod_is_one(T0, cycle) and kb.sum() > 1e-8:
                    psi = gram(kernel, x, X[SV])[0]
                    ske = count_sketch(1, s_p, cs_d, u, hash)
                    M = M + ske.T @ kb[None, :]
                    Raa = ske.T @ (psi @ Sa)[None, :]
                    S = S + Raa + Raa.T + gram(kernel, x, x)[0, 0] * (ske.T @ ske)
                    Us, ds, _ = np.linalg.svd(S)
                    Qx = ginv(M) @ Us[:, :k] @ np.diag(np.sqrt(ds[:k]))
                    phi = kb @ Qx
                    w = f * phi / (phi @ phi)
                    SV.append(i)
                    Sa = np.vstack([Sa, ske])
                    refreshes.append(t + 1)
                w = w + eta * yt * phi
        sizes.append(len(SV))
    return dict(scores=np.array(scores), sizes=np.array(sizes), refreshes=refreshes,
                margin_errors=T0, switched=flag, draws=u.n, sketch=Sa)


# ----------------------------------------------------------------------------
# the authors' R code
# ----------------------------------------------------------------------------

def fixture_stream():
    D = np.loadtxt(os.path.join(FIX, "r_pomdr_stream.csv"), delimiter=",")
    order = np.loadtxt(os.path.join(FIX, "r_pomdr_order.csv")).astype(int) - 1
    return D[:, 1:], D[:, 0], order


# case -> (permuted, sigma, constructor arguments, the R code's X[SVb] needs the pool)
R_CASES = {
    "identity": (False, 0.5, dict(B=40, s_p=32, s_m=8, k=5, cs_d=4)),
    "else_branch": (False, 0.5, dict(B=40, s_p=30, s_m=6, k=4, cs_d=4, eta=0.5, cycle=50)),
    "permuted": (True, 0.5, dict(B=40, s_p=32, s_m=8, k=5, cs_d=4)),
    "permuted_sigma1": (True, 1.0, dict(B=40, s_p=32, s_m=8, k=5, cs_d=4, eta=0.3, cycle=40)),
}


@pytest.mark.parametrize("case", sorted(R_CASES))
def test_reproduces_the_authors_r_code(case):
    X, y, order = fixture_stream()
    permuted, sigma, kw = R_CASES[case]
    R = np.loadtxt(os.path.join(FIX, f"r_skegd_{case}.csv"), delimiter=",")
    ids = order if permuted else np.arange(len(y))
    # the R code's landmarks are rows of its file (X), whatever the stream's order
    learner = SkeGD(okl.Gaussian(sigma), landmark_pool=X, seed=SEED, **kw)
    tr = learner.run(X[ids], y[ids])
    np.testing.assert_allclose(tr.scores, R[:, 0], rtol=0, atol=1e-10)
    np.testing.assert_array_equal(tr.mistakes, R[:, 4].astype(bool))
    np.testing.assert_array_equal(tr.budget, R[:, 2])
    assert tr.extras["margin_errors"] == R[-1, 3]
    assert tr.extras["switch_round"] == int(np.argmax(R[:, 1])) + 1
    assert tr.extras["refreshes"] >= 3          # every case rebuilds the map several times


def test_the_r_codes_landmarks_differ_from_the_method():
    """On a permuted stream ``X[SVb, ]`` (file rows) is not ``X[SV[r], ]``: the default
    (the method) departs from the R code after the switch, the oracle agrees with okl."""
    X, y, order = fixture_stream()
    _, sigma, kw = R_CASES["permuted"]
    R = np.loadtxt(os.path.join(FIX, "r_skegd_permuted.csv"), delimiter=",")
    tr = SkeGD(okl.Gaussian(sigma), seed=SEED, **kw).run(X[order], y[order])
    sw = tr.extras["switch_round"]
    np.testing.assert_allclose(tr.scores[:sw], R[:sw, 0], rtol=0, atol=1e-12)
    assert np.max(np.abs(tr.scores[sw:] - R[sw:, 0])) > 0.1
    T = len(y)
    o = skegd_oracle(okl.Gaussian(sigma), X, y, SEED, order=order, eta=default_eta(T),
                     cycle=default_cycle(T), **kw)
    np.testing.assert_allclose(tr.scores, o["scores"], rtol=0, atol=1e-10)
    assert tr.n_mistakes < int(R[:, 4].sum())      # 123 against the R code's 162


# ----------------------------------------------------------------------------
# the oracle, round for round
# ----------------------------------------------------------------------------

ORACLE_CASES = [
    # (kernel, stream, constructor arguments)
    (okl.Gaussian(1.0), "dense", dict(B=30, s_p=16, s_m=6, k=4, cs_d=4, eta=0.4, cycle=35)),
    (okl.Gaussian(0.7), "dense", dict(B=25, s_p=15, s_m=5, k=3, cs_d=2, hash="uniform",
                                      eta=0.2, cycle=20, truncate_initial=True)),
    (okl.Gaussian(1.5), "sparse", dict(B=20, s_p=12, s_m=4, k=3, cs_d=3, eta=0.5,
                                       cycle=30)),
    (okl.Laplacian(2.0), "dense", dict(B=24, s_p=18, s_m=6, k=5, cs_d=3, eta=0.3,
                                       cycle=27.5)),
    (okl.Gaussian(1.0), "dense", dict(B=30, s_p=16, s_m=30, k=16, cs_d=1, eta=0.1,
                                      cycle=60)),
]


def _stream(kind, n=500):
    X, y = xor_stream(n, 5, seed=12)
    if kind == "sparse":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.6, 0.0, X))
    return X, y


@pytest.mark.parametrize("i", range(len(ORACLE_CASES)))
def test_matches_the_numpy_oracle_round_for_round(i):
    kernel, kind, kw = ORACLE_CASES[i]
    X, y = _stream(kind)
    learner = SkeGD(kernel, seed=7, **kw)
    tr = learner.run(X, y)
    o = skegd_oracle(kernel, X, y, 7, **kw)
    np.testing.assert_allclose(tr.scores, o["scores"], rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, o["sizes"])
    np.testing.assert_array_equal(tr.mistakes, y * o["scores"] <= 0)
    assert tr.extras["refresh_rounds"] == o["refreshes"]
    assert tr.extras["margin_errors"] == o["margin_errors"]
    assert tr.extras["switched"] and o["switched"]
    np.testing.assert_array_equal(learner.sketch, o["sketch"])
    # the uniforms consumed: the learner's generator is where the oracle's is
    u = Draws(7)
    u(o["draws"])
    assert learner._core_state()["rng"].random() == u()


def test_defaults_are_the_r_codes():
    learner = SkeGD()
    assert (learner.B, learner.cs_d, learner.hash, learner.truncate_initial) == (400, 4, "r",
                                                                                 False)
    assert learner.sizes_ == (300, 60, 40) == default_sizes(400)
    assert default_eta(19_020) == 0.1 / math.sqrt(19_020)
    assert default_cycle(19_020) == 5706.0            # an integer: refreshes happen
    assert default_cycle(48_842) == 0.3 * 48_842      # 14652.6: never "== 1"
    tr = SkeGD(B=5, s_p=4, s_m=2, k=2).run(*xor_stream(50, 2, seed=1))
    assert tr.extras["eta"] == 0.1 / math.sqrt(50) and tr.extras["cycle"] == 15.0


@pytest.mark.parametrize("T0, cycle, expected", [
    (1, 120.0, True), (121, 120.0, True), (241, 120.0, True), (120, 120.0, False),
    (122, 120.0, False), (5707, 5706.0, True), (14653, 0.3 * 48_842, False),
    (14654, 0.3 * 48_842, False), (1, 0.3 * 48_842, True), (51, 50.0, True),
    (71, 17.5, True), (36, 17.5, True), (53, 17.5, False)])
def test_r_modulus(T0, cycle, expected):
    """``T0 %% cycle == 1`` as R computes it (values checked against R 4.2)."""
    assert r_mod_is_one(T0, cycle) is expected
    learner = SkeGD(B=2, s_p=2, s_m=1, k=1, cs_d=1, eta=1e-6, cycle=cycle, T=20_000, seed=0)
    X = np.random.default_rng(0).random((T0, 2))
    tr = learner.run(X, np.where(np.arange(T0) % 2, -1.0, 1.0))   # |f| < 1: T0 = t
    assert tr.extras["margin_errors"] == T0
    assert (T0 in tr.extras["refresh_rounds"]) is (expected and T0 > 3)


def test_refreshes_only_when_the_cycle_is_an_integer():
    """With the default ``cycle = 0.3 T`` R's exact ``%%`` refreshes for T = 400 (120) and
    never for T = 401 (120.3): okl follows."""
    X, y = xor_stream(401, 3, seed=5)
    kw = dict(B=20, s_p=12, s_m=4, k=3, seed=1)
    assert SkeGD(**kw).run(X[:400], y[:400]).extras["refreshes"] > 0
    assert SkeGD(**kw).run(X, y).extras["refreshes"] == 0


# ----------------------------------------------------------------------------
# the learner surface
# ----------------------------------------------------------------------------

def test_pickle_mid_stream_after_the_switch_resumes_identically():
    X, y = xor_stream(600, 4, seed=3)
    kw = dict(B=30, s_p=16, s_m=6, k=4, eta=0.3, cycle=40, T=600, seed=9)
    full = SkeGD(**kw).run(X, y)
    a = SkeGD(**kw)
    first = a.run(X[:300], y[:300])
    assert first.extras["switched"] and first.extras["refreshes"] > 0
    b = pickle.loads(pickle.dumps(a))
    rest = b.run(X[300:], y[300:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    assert rest.extras["refresh_rounds"] == full.extras["refresh_rounds"]
    c = SkeGD(**kw)
    c.run(X, y)
    np.testing.assert_array_equal(b.decision_function(X[:20]), c.decision_function(X[:20]))


def test_pickle_with_a_landmark_pool():
    X, y, order = fixture_stream()
    kw = dict(B=40, s_p=32, s_m=8, k=5, T=400, seed=SEED, landmark_pool=X)
    full = SkeGD(okl.Gaussian(0.5), **kw).run(X[order], y[order])
    a = SkeGD(okl.Gaussian(0.5), **kw)
    first = a.run(X[order[:200]], y[order[:200]])
    b = pickle.loads(pickle.dumps(a))
    rest = b.run(X[order[200:]], y[order[200:]])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)


def test_same_seed_same_trace_other_seed_other_sketch():
    X, y = xor_stream(400, 4, seed=8)
    kw = dict(B=30, s_p=16, s_m=6, k=4, eta=0.3)
    a, b, c = SkeGD(seed=1, **kw), SkeGD(seed=1, **kw), SkeGD(seed=2, **kw)
    ta, tb, tc = a.run(X, y), b.run(X, y), c.run(X, y)
    np.testing.assert_array_equal(ta.scores, tb.scores)
    assert not np.array_equal(a.sketch, c.sketch)
    assert not np.array_equal(ta.scores, tc.scores)


def test_transform_is_the_feature_map():
    X, y = xor_stream(300, 4, seed=4)
    learner = SkeGD(B=30, s_p=16, s_m=6, k=4, eta=0.3, seed=2)
    with pytest.raises(ValueError, match="switch"):
        learner.transform(X[:3])
    tr = learner.run(X, y)
    m = learner.feature_map
    Z = learner.transform(X[:10])
    np.testing.assert_allclose(Z @ m["w"], learner.decision_function(X[:10]), atol=1e-12)
    assert m["F"].shape == (6, tr.extras["rank"]) == (6, 4)


@pytest.mark.parametrize("kw, match", [
    (dict(B=0), "B"), (dict(B=10, s_m=11), "s_m"), (dict(s_p=0), "s_p"),
    (dict(B=10, s_p=5, k=6), "k"), (dict(B=10, s_p=5, cs_d=6), "cs_d"), (dict(eta=0), "eta"),
    (dict(cycle=-1.0), "cycle"), (dict(cycle=float("nan")), "cycle"), (dict(hash="x"), "hash"),
    (dict(truncate_initial=1), "truncate_initial"), (dict(T=0), "T"), (dict(seed=-1), "seed"),
    (dict(B=10, landmark_pool=np.zeros((5, 2))), "landmark_pool"),
    (dict(B=8, landmark_pool=np.r_[[[np.nan, 1.0]], np.zeros((7, 2))]), "landmark_pool"),
    (dict(kernel="rbf"), "kernel")])
def test_parameters_are_validated(kw, match):
    with pytest.raises(ValueError, match=match):
        SkeGD(**kw)


def test_pool_width_and_horizon_are_checked_before_learning():
    X, y = xor_stream(50, 3, seed=1)
    learner = SkeGD(B=5, s_p=4, s_m=2, k=2, landmark_pool=np.zeros((5, 2)))
    with pytest.raises(ValueError, match="landmark_pool"):
        learner.run(X, y)
    assert learner.n_rounds == 0
    with pytest.raises(ValueError, match="T"):
        SkeGD(B=5, s_p=4, s_m=2, k=2).learn_one(X[0], y[0])
    short = SkeGD(B=5, s_p=4, s_m=2, k=2, T=30)
    with pytest.raises(ValueError, match="horizon"):
        short.run(X, y)
    assert short.n_rounds == 0


def test_bad_input_leaves_the_switched_learner_unchanged():
    X, y = xor_stream(200, 3, seed=6)
    learner = SkeGD(B=20, s_p=12, s_m=4, k=3, eta=0.3, T=400, seed=1)
    learner.run(X, y)
    before = pickle.dumps(learner)
    bad = X[:5].copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        learner.run(bad, y[:5])
    with pytest.raises(ValueError, match="labels"):
        learner.run(X[:5], np.array([1.0, -1.0, 2.0, 1.0, 1.0]))
    assert pickle.dumps(learner) == before


@pytest.mark.parametrize("method", [0, 1, 2])
@pytest.mark.parametrize("n,k,rank", [(30, 5, 30), (40, 40, 40), (25, 8, 6), (1, 1, 1),
                                      (20, 6, -1), (120, 20, 120)])
def test_top_eigenpairs_match_numpy(method, n, k, rank):
    """The refreshes' top-``k`` eigensolver (``dsytrd``, then ``dsterf`` + ``dstein``, or
    ``dstemr`` when the tridiagonal splits, then ``dormtr``), its ``dstemr`` path and its
    ``dsyevr`` fallback against ``numpy.linalg.eigh``: the same eigenvalues, the same
    rank-``k`` part ``U_k diag(w_k) U_k^T``, including rank-deficient PSD matrices and one
    whose tridiagonal splits (``rank = -1``: two decoupled blocks)."""
    from okl.learners._skegd import _top_eigenpairs
    rng = np.random.default_rng(n + k + abs(rank))
    A = rng.standard_normal((n, abs(rank)))
    S = A @ A.T + np.diag(np.arange(n) * 1e-3)
    if rank < 0:
        S[: n // 2, n // 2:] = S[n // 2:, : n // 2] = 0.0
    w, Z = _top_eigenpairs(S, k, method)
    ew, eV = np.linalg.eigh(S)
    np.testing.assert_allclose(w, ew[n - k:], rtol=1e-12, atol=1e-12 * ew[-1])
    np.testing.assert_allclose(Z.T @ Z, np.eye(k), atol=1e-12)
    np.testing.assert_allclose((Z * w) @ Z.T, (eV[:, n - k:] * ew[n - k:]) @ eV[:, n - k:].T,
                               atol=1e-11 * ew[-1])


def test_dense_work_reference_runs_the_maps_routines():
    """``dense_work_reference`` (the benchmark's round-work reference) runs the map's
    routines on a run's Gram matrix and count sketch, is deterministic, depends on the
    margin errors, and checks its input."""
    from okl.learners._skegd import dense_work_reference
    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, 3))
    K = rbf_kernel(X, gamma=0.3)
    cols = rng.integers(-1, 12, size=2 * 43).astype(np.intc)
    vals = rng.choice([-1.0, 1.0], size=2 * 43) / math.sqrt(2)
    sa = (43, cols, vals)
    margins = rng.random(50) < 0.7
    a = dense_work_reference(K, sa, 12, 6, 4, False, [41, 42], margins)
    assert np.isfinite(a) and a == dense_work_reference(K, sa, 12, 6, 4, False, [41, 42],
                                                        margins)
    assert a != dense_work_reference(K, sa, 12, 6, 4, False, [41, 42], ~margins)
    with pytest.raises(ValueError, match="B x B"):
        dense_work_reference(K[:, :30], sa, 12, 6, 4, False, [], margins)
    with pytest.raises(ValueError, match="sketch"):
        dense_work_reference(K, (20, cols[:40], vals[:40]), 12, 6, 4, False, [], margins)
