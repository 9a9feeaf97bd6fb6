"""B(AO)2KS (Liao & Li, ECML-PKDD 2021) against the authors' R code and a plain-numpy oracle.

The R fixtures ``tests/fixtures/r_bao2ks_*.csv`` are the per-round outputs of the authors'
``BA2OKS.R`` (JunfLi-TJU/OKL-Hinge, the code of Li & Liao's AAAI 2023 Table 2) on
``r_pomdr_stream.csv`` with the uniforms ``r_pomdr_uniforms.csv``
(``numpy.random.default_rng(2023).random()``); ``tests/fixtures/r/pomdr/make_fixtures.py``
made them.  The oracle below follows the R code's own structure (the restart and the update
of ``<f', g_bar>`` at the start of a round, membership in ``S`` by example index, explicit
coefficient vectors) where okl prepares them at the end of the previous round."""
import math
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

import okl
from okl.learners.bao2ks import BAO2KS, default_lam, default_reservoir
from conftest import xor_stream

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
SEED = 2023


def gram(kernel, A, B):
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if isinstance(kernel, okl.Gaussian):
        return rbf_kernel(A, B, gamma=1.0 / (2.0 * kernel.sigma ** 2))
    return laplacian_kernel(A, B, gamma=1.0 / kernel.sigma)


def bao2ks_oracle(kernel, X, y, seed, *, lam, M, eps=1.0, beta=6.0, B=400, U=30.0):
    """BA2OKS.R with one kernel: per-round scores, R's mistakes (+1 at f = 0), |S| after
    each round, the restart rounds and the number of uniforms used."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, float)
    rng = np.random.default_rng(seed)
    used = [0]

    def u():
        used[0] += 1
        return float(rng.random())

    S_id, S_a = [], np.zeros(0)            # S by example index, and f' coefficients
    V_id, V_y = [], np.zeros(0)            # the reservoir
    nag = nf = nfb_ = inner = pt = 0.0
    delta_t, upd, aver = 0, (0, 0), [0.0, 0.0]
    out = dict(scores=[], r_mistakes=[], sizes=[], restarts=[])

    def f_prime(v):
        return float(S_a @ gram(kernel, v, X[S_id])[0]) if S_id else 0.0

    def recompute():
        return -sum(V_y[j] * f_prime(X[V_id[j]]) for j in range(len(V_id))) / len(V_id)

    for i in range(1, len(y) + 1):
        x, yt = X[i - 1], y[i - 1]
        if len(S_id) > B:                                        # restart
            S_id, S_a, inner, nf = [], np.zeros(0), 0.0, 0.0
            out["restarts"].append(i)
        kV = gram(kernel, x, X[V_id])[0] if V_id else np.zeros(0)
        nres = max(len(V_id), 1)
        fS = f_prime(x)
        fx = fS + float((lam * V_y / nres) @ kV)
        aver = [aver[1], float(V_y @ kV)]
        if 2 <= i <= M + 1 and S_id:
            inner = recompute()
        if i >= M + 2 and S_id:
            if delta_t:
                inner = recompute()
            elif upd == (1, 1) or upd == (1, 0):
                if upd == (1, 1):
                    inner = (inner - lam / pt * y[i - 2] * aver[0] / len(V_id)
                             - lam * (1 - 1 / pt) * nag ** 2)
                else:
                    inner -= lam * nag ** 2
                if nfb_ > U:
                    inner *= U / nfb_
        nfb = math.sqrt(nf ** 2 + lam ** 2 * nag ** 2 - 2 * lam * inner)
        if nfb > U:
            fx *= U / nfb
        out["scores"].append(fx)
        out["r_mistakes"].append((-1.0 if fx < 0 else 1.0) != yt)
        upd = (0, 0)
        if fx * yt < eps:
            kxy = nag ** 2 + gram(kernel, x, x)[0, 0] - 2 * yt * aver[1] / nres
            pt = math.sqrt(kxy) / (beta * (math.sqrt(kxy) + nag))
            if u() < pt:
                upd = (1, 1)
                S_id.append(i - 1)
                S_a = np.r_[S_a, lam * yt / pt]
                coef = (1 - 1 / pt) * lam * V_y / nres
            else:
                upd = (1, 0)
                coef = lam * V_y / nres
            for j, vid in enumerate(V_id):
                if vid in S_id:
                    S_a[S_id.index(vid)] += coef[j]
            for j, vid in enumerate(V_id):
                if vid not in S_id:
                    S_id.append(vid)
                    S_a = np.r_[S_a, coef[j]]
            if upd == (1, 1):
                nfb_ = math.sqrt(nf ** 2 + lam ** 2 / pt ** 2 + 2 * lam / pt * fS * yt
                                 + 2 * lam ** 2 * (1 - 1 / pt) / pt * aver[1] * yt / nres
                                 - 2 * lam * (1 - 1 / pt) * inner
                                 + lam ** 2 * (1 - 1 / pt) ** 2 * nag ** 2)
            else:
                nfb_ = nfb
            nf = nfb_
            if nfb_ > U:
                S_a, nf = S_a * U / nfb_, U
        out["sizes"].append(len(S_id))
        if i <= M:                                               # the reservoir
            kv = float(V_y @ kV) if V_id else 0.0
            nag = math.sqrt(((i - 1) ** 2 * nag ** 2 + gram(kernel, x, x)[0, 0]
                             + 2 * yt * kv) / i ** 2)
            V_id.append(i - 1)
            V_y = np.r_[V_y, yt]
        else:
            delta_t = int(u() < M / i)
            if delta_t:
                jt = math.floor(u() * M)
                Kv = gram(kernel, X[V_id], X[V_id])
                nag = math.sqrt(nag ** 2 + 2 / M ** 2 * (1 - yt * V_y[jt] * kV[jt])
                                - 2 / M ** 2 * V_y[jt] * float(V_y @ Kv[:, jt])
                                + 2 / M ** 2 * yt * float(V_y @ kV))
                V_id[jt], V_y[jt] = i - 1, yt
    out = {k: np.array(v) for k, v in out.items()}
    out["used"] = used[0]
    out["coefficients"], out["support"] = S_a, S_id
    return out


# ----------------------------------------------------------------------------
# the authors' R code
# ----------------------------------------------------------------------------

def fixture_stream():
    D = np.loadtxt(os.path.join(FIX, "r_pomdr_stream.csv"), delimiter=",")
    order = np.loadtxt(os.path.join(FIX, "r_pomdr_order.csv")).astype(int) - 1
    return D[:, 1:], D[:, 0], order


R_CASES = {
    "restart": (False, 0.5, dict(B=25)),
    "projected": (True, 1.0, dict(lam=0.3, M=5, B=40, U=1.0)),
    "defaults": (False, 0.5, dict()),
}


@pytest.mark.parametrize("case", sorted(R_CASES))
def test_reproduces_the_authors_r_code(case):
    X, y, order = fixture_stream()
    permuted, sigma, kw = R_CASES[case]
    ids = order if permuted else np.arange(len(y))
    R = np.loadtxt(os.path.join(FIX, f"r_bao2ks_{case}.csv"), delimiter=",")
    learner = BAO2KS(okl.Gaussian(sigma), seed=SEED, **kw)
    tr = learner.run(X[ids], y[ids])
    np.testing.assert_allclose(tr.scores, R[:, 0], rtol=0, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, R[:, 2])
    assert tr.extras["restart_rounds"] == [int(t) for t in np.nonzero(R[:, 3])[0] + 1]
    # mistakes: R predicts +1 at f = 0; okl counts y f <= 0 (only round 1 has f = 0)
    r_mistakes = R[:, 1].astype(bool)
    zero = tr.scores == 0.0
    np.testing.assert_array_equal(tr.mistakes[~zero], r_mistakes[~zero])
    assert np.flatnonzero(zero).tolist() == [0]
    assert tr.n_mistakes == r_mistakes.sum() + (y[ids][0] > 0)
    # the sampling probabilities of the margin-error rounds
    sampled = R[:, 4] > 0
    assert tr.extras["n_margin"] == sampled.sum()


def test_fixture_cases_cover_restarts_and_projections():
    X, y, order = fixture_stream()
    R = np.loadtxt(os.path.join(FIX, "r_bao2ks_projected.csv"), delimiter=",")
    assert R[:, 3].sum() == 2 and R[:, 2].max() > 40            # |S| > B, then restarts
    tr = BAO2KS(okl.Gaussian(1.0), seed=SEED, **R_CASES["projected"][2]).run(X[order], y[order])
    assert tr.extras["norm"] == pytest.approx(1.0)              # ||f'|| held at U
    assert tr.max_budget <= 40 + 5 + 1                           # B + M + 1


# ----------------------------------------------------------------------------
# the oracle, round for round
# ----------------------------------------------------------------------------

ORACLE_CASES = [
    (okl.Gaussian(1.0), "dense", dict(lam=0.4, M=4, B=12, U=5.0)),
    (okl.Gaussian(0.8), "dense", dict(lam=1.0, M=6, B=30, U=0.8, beta=3.0, eps=0.5)),
    (okl.Laplacian(2.0), "dense", dict(lam=0.3, M=3, B=20, U=30.0)),
    (okl.Gaussian(1.5), "sparse", dict(lam=0.5, M=5, B=15, U=2.0)),
    (okl.Gaussian(1.0), "dense", dict(B=20)),          # lam, M from T
]


def _stream(kind, n=350):
    X, y = xor_stream(n, 4, seed=21)
    if kind == "sparse":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    return X, y


@pytest.mark.parametrize("i", range(len(ORACLE_CASES)))
def test_matches_the_numpy_oracle_round_for_round(i):
    kernel, kind, kw = ORACLE_CASES[i]
    X, y = _stream(kind)
    learner = BAO2KS(kernel, seed=11, **kw)
    tr = learner.run(X, y)
    T = len(y)
    o = bao2ks_oracle(kernel, X, y, 11, **{"lam": default_lam(T), "M": default_reservoir(T),
                                           **kw})
    np.testing.assert_allclose(tr.scores, o["scores"], rtol=1e-11, atol=1e-11)
    np.testing.assert_array_equal(tr.budget, o["sizes"])
    assert tr.extras["restart_rounds"] == o["restarts"].tolist()
    assert len(o["restarts"]) > 0                       # every case restarts
    np.testing.assert_allclose(learner.coefficients, o["coefficients"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(learner.support_set.stamps - 1, o["support"])
    rng = np.random.default_rng(11)
    rng.random(o["used"])
    assert learner._core_state()["rng"].random() == rng.random()


def test_defaults_are_the_r_codes():
    learner = BAO2KS()
    assert (learner.eps, learner.beta, learner.B, learner.U) == (1.0, 6.0, 400, 30.0)
    assert default_lam(19_020) == 10 / math.sqrt(19_020)
    assert default_reservoir(19_020) == 10 == round(math.log(19_020))
    assert default_reservoir(48_842) == 11
    tr = BAO2KS(B=10).run(*xor_stream(300, 3, seed=2))
    assert (tr.extras["lam"], tr.extras["M"], tr.extras["T"]) == (10 / math.sqrt(300), 6, 300)
    assert tr.extras["reservoir_size"] == 6


def test_budget_is_at_most_B_plus_M_plus_one_and_restarts_follow():
    X, y = xor_stream(800, 4, seed=3)
    learner = BAO2KS(B=10, lam=0.8, M=5, U=10.0, seed=1)
    tr = learner.run(X, y)
    assert tr.max_budget <= 10 + 5 + 1
    over = np.flatnonzero(tr.budget > 10) + 2          # 1-based rounds that restart
    assert tr.extras["restart_rounds"] == [int(t) for t in over if t <= len(y)]


# ----------------------------------------------------------------------------
# the learner surface
# ----------------------------------------------------------------------------

def test_pickle_mid_stream_resumes_identically():
    X, y = xor_stream(500, 4, seed=5)
    kw = dict(B=12, lam=0.5, M=4, U=3.0, T=500, seed=4)
    full = BAO2KS(**kw).run(X, y)
    for cut in (2, 4, 5, 137, 250):              # inside the reservoir's filling, and after
        a = BAO2KS(**kw)
        first = a.run(X[:cut], y[:cut])
        b = pickle.loads(pickle.dumps(a))
        rest = b.run(X[cut:], y[cut:])
        np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
        np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
        for key in ("n_margin", "n_sampled", "norm", "norm_g_bar", "inner", "restarts"):
            assert rest.extras[key] == full.extras[key], key
    assert rest.extras["restart_rounds"] == full.extras["restart_rounds"]        # cumulative


def test_same_seed_same_trace_other_seed_other_run():
    X, y = xor_stream(300, 4, seed=6)
    a, b, c = (BAO2KS(B=15, lam=0.5, seed=s).run(X, y) for s in (1, 1, 2))
    np.testing.assert_array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)


@pytest.mark.parametrize("kw, match", [
    (dict(lam=0), "lam"), (dict(M=0), "M"), (dict(eps=0), "eps"), (dict(beta=0.5), "beta"),
    (dict(B=0), "B"), (dict(U=-1.0), "U"), (dict(U=float("inf")), "U"), (dict(T=0), "T"),
    (dict(seed=1.5), "seed"), (dict(kernel=okl.Linear()), "bounded")])
def test_parameters_are_validated(kw, match):
    with pytest.raises(ValueError, match=match):
        BAO2KS(**kw)


def test_horizon_rules():
    X, y = xor_stream(60, 3, seed=1)
    with pytest.raises(ValueError, match="T"):
        BAO2KS().learn_one(X[0], y[0])
    learner = BAO2KS(T=50)
    with pytest.raises(ValueError, match="horizon"):
        learner.run(X, y)
    assert learner.n_rounds == 0
    a, b = BAO2KS(T=60, seed=3), BAO2KS(T=60, seed=3)
    a.run(X, y)
    for t in range(60):
        b.learn_one(X[t], y[t])
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_bad_input_leaves_the_learner_unchanged():
    X, y = xor_stream(200, 3, seed=7)
    learner = BAO2KS(B=10, lam=0.5, T=400, seed=2)
    learner.run(X, y)
    before = pickle.dumps(learner)
    with pytest.raises(ValueError, match="NaN"):
        learner.run(np.where(np.arange(15).reshape(5, 3) == 4, np.nan, X[:5]), y[:5])
    with pytest.raises(ValueError, match="features"):
        learner.run(X[:5, :2], y[:5])
    assert pickle.dumps(learner) == before
