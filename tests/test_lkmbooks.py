"""LKMBooks (Li & Liao, Sec. 3.2, Theorems 2-3) against a plain-numpy oracle.

The oracle is written from the paper (eqs. (3)-(6), Theorems 2-3) with numpy only: direct
squared distances, multiplicative exponential weights, the sampling rule (5) driven by
``np.random.default_rng(seed).random()`` -- the stream ``Learner.uniform()`` draws from.
"""
import math
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.learners.budget_kinds import MemoryBudget, TimeBudget
from okl.learners.lkmbooks import LKMBooks, paper_kernels
from conftest import sparse_stream, xor_stream


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)


def theorem3_lam(B, T, upsilon):
    # D = 1 (Gaussian), L = 1 (hinge, absolute)
    if B < T:
        return math.sqrt((1 + upsilon) * B) / (math.sqrt(1 - upsilon) * T)
    return 1.0 / math.sqrt(T)


def oracle(sigmas, X, y, *, loss, B, T, upsilon=1 / 3, eta=None, lam=None, C=None,
           l_m=None, z_form="theorem2", seed=0):
    """Rounds of LKMBooks in numpy; returns per-round records and the final state."""
    Xd = dense(X)
    sig = np.asarray(sigmas, dtype=float)
    K = len(sig)
    rng = np.random.default_rng(seed)
    eta = math.sqrt(8 * math.log(K) / T) if eta is None else eta
    lam = theorem3_lam(B, T, upsilon) if lam is None else lam
    C = float(B) if C is None else C
    scale = 1.0 if l_m is None else max(l_m, 1.0)
    S, a = [], []
    p = np.full(K, 1.0 / K)
    nE = sampled = blocked = restarts = 0
    rec = {k: [] for k in ("f", "loss", "fv", "p", "size", "a", "prob")}
    for t in range(len(y)):
        x = Xd[t]
        if S:
            d2 = ((np.array(S) - x) ** 2).sum(axis=1)
            fv = np.exp(-d2[None, :] / (2 * sig[:, None] ** 2)) @ np.array(a)
        else:
            fv = np.zeros(K)
        f = float(p @ fv)
        if loss == "hinge":
            lt = max(0.0, 1 - y[t] * f)
            lp = -y[t] if y[t] * f < 1 else 0.0
        else:
            lt = abs(f - y[t])
            lp = float(np.sign(f - y[t]))
        rec["f"].append(f)
        rec["loss"].append(lt)
        rec["fv"].append(fv)
        prob = np.nan
        if lp != 0:
            r = abs(lp) * (fv.max() - fv.min())
            if l_m is None and r > scale:
                while scale < r:
                    scale *= 2
                p = np.full(K, 1.0 / K)
                restarts += 1
            c = lp * (fv - (fv.min() if lp > 0 else fv.max())) / scale
            assert np.all(c >= 0)
            w = p * np.exp(-eta * c)
            p = w / w.sum()
            if z_form == "theorem2":
                z = T ** (1 - upsilon) * (nE + 1) ** upsilon / (1 - upsilon)
            else:
                z = (1 - upsilon) * T ** (1 - upsilon) * (nE + 1) ** upsilon
            prob = min(1.0, C / z)
            nE += 1
            if rng.random() < prob:
                sampled += 1
                if len(S) >= B:
                    blocked += 1
                else:
                    S.append(x.copy())
                    a.append(-lam * lp / prob)
        rec["p"].append(p.copy())
        rec["size"].append(len(S))
        rec["a"].append(np.array(a))
        rec["prob"].append(prob)
    out = {k: np.array(v) if k not in ("a",) else v for k, v in rec.items()}
    out.update(S=np.array(S).reshape(len(S), Xd.shape[1]), coef=np.array(a), p_final=p,
               n_nonzero=nE, n_sampled=sampled, guard_blocked=blocked, restarts=restarts,
               scale=scale, eta=eta, lam=lam, C=C)
    return out


def regression_stream(T, d, seed):
    X, _ = xor_stream(T, d, seed=seed)
    return X, X[:, 0] * X[:, 1] + 0.3 * X[:, 2 % d]


def sparse_regression(T, d, seed):
    X, y = sparse_stream(T, d, seed=seed)
    return X, y * 0.7 + np.asarray(X[:, 0].todense()).ravel()


SIGMAS9 = [2.0 ** i for i in range(-4, 5)]

# (loss, sparse, upsilon, extra parameters): every option of the learner is covered
CASES = [
    ("hinge", False, 1 / 3, {}),
    ("hinge", False, 0.0, {"lam": 0.4}),
    ("hinge", True, 0.5, {"lam": 0.8, "l_m": 3.0}),
    ("absolute", False, 1 / 3, {"lam": 0.3}),
    ("absolute", True, 0.0, {}),
    ("absolute", False, 0.25, {"z_form": "printed", "lam": 0.2, "eta": 0.5}),
    ("hinge", False, 0.6, {"C": 60.0, "lam": 0.5, "z_form": "printed"}),
]


def make_stream(loss, sparse, T, seed):
    if loss == "hinge":
        return sparse_stream(T, 12, seed=seed) if sparse else xor_stream(T, 3, seed=seed)
    return sparse_regression(T, 12, seed) if sparse else regression_stream(T, 3, seed)


@pytest.mark.parametrize("loss,sparse,upsilon,extra", CASES)
def test_run_matches_oracle(loss, sparse, upsilon, extra):
    T, B = 500, 25
    X, y = make_stream(loss, sparse, T, seed=3)
    learner = LKMBooks([okl.Gaussian(s) for s in SIGMAS9], loss=loss, B=B, T=T,
                       upsilon=upsilon, seed=11, **extra)
    tr = learner.run(X, y)
    ref = oracle(SIGMAS9, X, y, loss=loss, B=B, T=T, upsilon=upsilon, seed=11, **extra)
    np.testing.assert_allclose(tr.scores, ref["f"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tr.losses, ref["loss"], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(tr.budget, ref["size"])
    np.testing.assert_allclose(learner.p_, ref["p_final"], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(learner.coefficients, ref["coef"], rtol=1e-12)
    np.testing.assert_allclose(learner.support_vectors, ref["S"], rtol=0, atol=0)
    ex = tr.extras
    for key in ("n_nonzero", "n_sampled", "guard_blocked", "restarts"):
        assert ex[key] == ref[key], key
    assert ex["n_added"] == len(ref["coef"]) == ex["n_sampled"] - ex["guard_blocked"]
    assert ex["l_m_scale"] == ref["scale"]
    assert ex["eta"] == pytest.approx(ref["eta"], rel=1e-15)
    assert ex["lam"] == pytest.approx(ref["lam"], rel=1e-15)
    assert ex["C"] == ref["C"]
    np.testing.assert_array_equal(ex["p"], learner.p_)
    assert max(tr.budget) <= B
    # the cases exercise what they are meant to: sampling with P < 1 and learning
    assert 0 < ex["n_added"] < ex["n_nonzero"]
    assert np.ptp(ref["p_final"]) > 1e-3


@pytest.mark.parametrize("loss,sparse,upsilon,extra", [CASES[2], CASES[3], CASES[5]])
def test_round_by_round_state_matches_oracle(loss, sparse, upsilon, extra):
    """p_t, |S_t|, the coefficients and the K values f_{t,i}(x_t) after every round."""
    T, B = 240, 15
    X, y = make_stream(loss, sparse, T, seed=5)
    learner = LKMBooks([okl.Gaussian(s) for s in SIGMAS9], loss=loss, B=B, T=T,
                       upsilon=upsilon, seed=2, **extra)
    ref = oracle(SIGMAS9, X, y, loss=loss, B=B, T=T, upsilon=upsilon, seed=2, **extra)
    for t in range(T):
        np.testing.assert_allclose(learner.p_, ref["p"][t - 1] if t else np.full(9, 1 / 9),
                                   rtol=1e-10, atol=1e-15)
        f = learner.decision_function(X[t:t + 1])[0]
        assert f == pytest.approx(ref["f"][t], rel=1e-9, abs=1e-12)
        learner.learn_one(X[t], y[t])
        np.testing.assert_allclose(learner._lkm_last_values(), ref["fv"][t], rtol=1e-9,
                                   atol=1e-12)
        assert learner.support_set.size == ref["size"][t]
        np.testing.assert_allclose(learner.coefficients, ref["a"][t], rtol=1e-12)
    np.testing.assert_allclose(learner.p_, ref["p_final"], rtol=1e-10, atol=1e-15)


def single_kernel_budgeted_ogd(sigma, X, y, *, loss, B, T, upsilon, lam, seed):
    """K = 1: budgeted OGD with the sampling rule (5), no kernel selection."""
    Xd = dense(X)
    rng = np.random.default_rng(seed)
    S, a, scores, n = [], [], [], 0
    for t in range(len(y)):
        x = Xd[t]
        f = sum(ai * math.exp(-np.sum((s - x) ** 2) / (2 * sigma ** 2)) for s, ai in zip(S, a))
        scores.append(f)
        g = (-y[t] if y[t] * f < 1 else 0.0) if loss == "hinge" else np.sign(f - y[t])
        if g != 0:
            n += 1
            q = min(1.0, B * (1 - upsilon) / (T ** (1 - upsilon) * n ** upsilon))
            if rng.random() < q and len(S) < B:
                S.append(x)
                a.append(-lam * g / q)
    return np.array(scores), np.array(a)


@pytest.mark.parametrize("loss", ["hinge", "absolute"])
def test_single_kernel_is_budgeted_ogd(loss):
    T, B, ups = 400, 30, 0.4
    X, y = make_stream(loss, False, T, seed=8)
    learner = LKMBooks([okl.Gaussian(1.5)], loss=loss, B=B, T=T, upsilon=ups, seed=4)
    tr = learner.run(X, y)
    scores, coef = single_kernel_budgeted_ogd(1.5, X, y, loss=loss, B=B, T=T, upsilon=ups,
                                              lam=theorem3_lam(B, T, ups), seed=4)
    np.testing.assert_allclose(tr.scores, scores, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(learner.coefficients, coef, rtol=1e-12)
    assert learner.p_.tolist() == [1.0] and tr.extras["eta"] == 0.0
    assert len(coef) > 5


def test_theorem3_branches_and_defaults():
    X, y = xor_stream(300, 3, seed=1)
    small = LKMBooks(B=40, T=300, upsilon=0.2)
    small.run(X, y)
    assert small.lam_ == pytest.approx(math.sqrt(1.2 * 40) / (math.sqrt(0.8) * 300), rel=1e-14)
    assert small.eta_ == pytest.approx(math.sqrt(8 * math.log(9) / 300), rel=1e-14)
    assert small.C_ == 40.0 and small.K == 9
    assert [k.sigma for k in small.kernels] == SIGMAS9 == [k.sigma for k in paper_kernels()]
    big = LKMBooks(B=300, T=300)
    big.run(X, y)
    assert big.lam_ == pytest.approx(1 / math.sqrt(300), rel=1e-14)
    assert big.support_set.max_size == 300  # B >= T: allocated for T examples
    # T taken from the stream when not given
    free = LKMBooks(B=500)
    free.run(X[:120], y[:120])
    assert free.horizon_ == 120 and free.lam_ == pytest.approx(1 / math.sqrt(120))
    assert free.support_set.max_size == 120


def test_guard_never_exceeds_budget_and_counts_blocks():
    # printed z_t and C = 3 B make rho_t = 1 far more often than B times
    T, B = 600, 12
    X, y = regression_stream(T, 4, seed=6)
    learner = LKMBooks([okl.Gaussian(0.5), okl.Gaussian(2.0)], loss="absolute", B=B, T=T,
                       C=3 * B, z_form="printed", lam=0.2, seed=9)
    tr = learner.run(X, y)
    ref = oracle([0.5, 2.0], X, y, loss="absolute", B=B, T=T, C=3 * B, z_form="printed",
                 lam=0.2, seed=9)
    ex = tr.extras
    assert tr.budget.max() == B == ex["max_size"] and ex["n_added"] == B
    assert ex["guard_blocked"] == ref["guard_blocked"] == ex["n_sampled"] - B > 20
    np.testing.assert_array_equal(tr.budget, ref["size"])
    # once full, nothing changes the hypotheses any more
    full = int(np.argmax(tr.budget == B))
    assert np.all(np.diff(learner.support_set.stamps) > 0)
    assert learner.support_set.stamps[-1] == full + 1


@pytest.mark.parametrize("kind", ["memory", "time"])
def test_memory_and_time_budgets(kind):
    T, d, K = 800, 5, 3
    X, y = regression_stream(T, d, seed=2)
    kernels = [okl.Gaussian(s) for s in (0.5, 1.0, 4.0)]
    if kind == "memory":
        quanta = 25 * (d + 1) + K + 4      # 25 examples of d + 1 floats, K weights, 4 spare
        spec = dict(memory_budget=quanta)
    else:
        quanta = 25 * (d + K) + K + 7      # 25 examples of d + K mults, K fixed, 7 spare
        spec = dict(time_budget=TimeBudget(quanta))
    learner = LKMBooks(kernels, loss="absolute", T=T, C=100.0, lam=0.1, seed=1, **spec)
    assert learner.B_ is None
    tr = learner.run(X, y)
    ex = tr.extras
    assert learner.B_ == ex["B"] == 25
    assert ex[f"max_{kind}"] <= quanta < ex[f"max_{kind}"] + (d + 1 if kind == "memory"
                                                               else d + K)
    assert ex[f"{kind}_budget"] == quanta and ex["guard_blocked"] > 0
    assert tr.budget.max() == 25
    # the same learner with B given directly is the same run
    same = LKMBooks(kernels, loss="absolute", T=T, C=100.0, lam=0.1, seed=1, B=25).run(X, y)
    np.testing.assert_array_equal(same.scores, tr.scores)
    # an explicit alpha (Assumption 3)
    alpha = LKMBooks(kernels, loss="absolute", T=T, seed=1,
                     memory_budget=MemoryBudget(100, alpha=0.3))
    alpha.run(X[:10], y[:10])
    assert alpha.B_ == 30


def test_budget_too_small_raises_before_learning():
    learner = LKMBooks(memory_budget=19, T=50)   # 9 weights + d + 1 = 20 > 19 for d = 10
    X, y = xor_stream(50, 10, seed=0)
    with pytest.raises(ValueError, match="too small"):
        learner.run(X, y)
    with pytest.raises(ValueError, match="too small"):
        learner.learn_one(X[0], y[0])
    assert learner.n_rounds == 0 and learner.n_features is None
    learner.run(X[:, :2], y)    # d = 2: (19 - 9) / (2 + 1) -> B = 3
    assert learner.B_ == 3 and learner.support_set.size <= 3


def test_doubling_trick_restarts_from_uniform():
    T = 300
    X, y = regression_stream(T, 3, seed=4)
    y = 6.0 * y
    learner = LKMBooks([okl.Gaussian(0.3), okl.Gaussian(3.0)], loss="absolute", B=100, T=T,
                       lam=3.0, seed=0)
    tr = learner.run(X, y)
    ref = oracle([0.3, 3.0], X, y, loss="absolute", B=100, T=T, lam=3.0, seed=0)
    assert tr.extras["restarts"] == ref["restarts"] >= 3
    assert tr.extras["l_m_scale"] == ref["scale"] >= tr.extras["l_m"] > ref["scale"] / 2
    np.testing.assert_allclose(tr.scores, ref["f"], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_shared_distance_row_equals_each_gaussian_exactly(sparse):
    X, y = (sparse_stream(200, 15, seed=3) if sparse else xor_stream(200, 6, seed=3))
    kernels = [okl.Gaussian(s) for s in SIGMAS9]
    learner = LKMBooks(kernels, B=40, T=200, C=400.0, seed=0)   # C large: S fills up
    learner.run(X, y)
    n = learner.support_set.size
    assert n == 40
    rows = learner._lkm_kernel_rows(X[:30] if not sparse else X[:30])
    assert rows.shape == (9, 30, n)
    Svec = learner.support_vectors
    S = sp.csr_matrix(Svec) if sparse else Svec
    for i, k in enumerate(kernels):
        np.testing.assert_array_equal(rows[i], k(X[:30], S))
    # and the unshared path (K kernel rows) gives bit-identical runs
    a = LKMBooks(kernels, B=40, T=200, lam=0.5, seed=3)
    b = LKMBooks(kernels, B=40, T=200, lam=0.5, seed=3)
    b._lkm_use_shared_distances(False)
    np.testing.assert_array_equal(a.run(X, y).scores, b.run(X, y).scores)
    np.testing.assert_array_equal(a.p_, b.p_)


def test_pickle_mid_stream_resumes_identically():
    T = 400
    X, y = regression_stream(T, 3, seed=7)
    make = lambda: LKMBooks([okl.Gaussian(s) for s in (0.25, 1.0, 4.0)], loss="absolute",
                            B=30, T=T, lam=2.0, seed=5)
    full = make()
    tr_full = full.run(X, y)
    part = make()
    first = part.run(X[:170], y[:170])
    clone = pickle.loads(pickle.dumps(part))
    rest = clone.run(X[170:], y[170:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], tr_full.scores)
    np.testing.assert_array_equal(clone.p_, full.p_)
    np.testing.assert_array_equal(clone.coefficients, full.coefficients)
    for key in ("n_nonzero", "n_sampled", "restarts", "l_m_scale", "guard_blocked"):
        assert rest.extras[key] == tr_full.extras[key]
    assert rest.extras["restarts"] > 0
    assert part.n_rounds == 170
    # T taken from the first stream survives pickling too
    free = LKMBooks(B=10, seed=1, loss="absolute")
    free.run(X[:50], y[:50])
    c = pickle.loads(pickle.dumps(free))
    assert c.horizon_ == 50 and c.lam_ == free.lam_ and c.eta_ == free.eta_


def test_identical_seeds_identical_traces():
    X, y = xor_stream(500, 3, seed=2)
    runs = [LKMBooks(B=20, T=500, lam=0.3, seed=s).run(X, y) for s in (4, 4, 5)]
    np.testing.assert_array_equal(runs[0].scores, runs[1].scores)
    np.testing.assert_array_equal(runs[0].budget, runs[1].budget)
    assert not np.array_equal(runs[0].budget, runs[2].budget)


BAD_PARAMS = [
    (dict(kernels=[okl.Laplacian(1.0)]), "kernels\\[0\\]"),
    (dict(kernels=[okl.Gaussian(1.0), "rbf"]), "kernels\\[1\\]"),
    (dict(kernels=[]), "non-empty"),
    (dict(kernels=5), "kernels"),
    (dict(loss="squared"), "loss"),
    (dict(B=None), "exactly one"),
    (dict(memory_budget=100), "exactly one"),
    (dict(B=0), "B must be"),
    (dict(B=2.5), "B must be"),
    (dict(T=0), "T must be"),
    (dict(upsilon=1.0), "upsilon"),
    (dict(upsilon=-0.1), "upsilon"),
    (dict(eta=-1.0), "eta"),
    (dict(lam=0.0), "lam"),
    (dict(C=0.0), "C must"),
    (dict(l_m=-1.0), "l_m"),
    (dict(z_form="paper"), "z_form"),
    (dict(seed=-1), "seed"),
]


@pytest.mark.parametrize("change,message", BAD_PARAMS)
def test_bad_parameters(change, message):
    with pytest.raises(ValueError, match=message):
        LKMBooks(**{"B": 10, **change})


def test_bad_input_keeps_state():
    X, y = xor_stream(200, 3, seed=1)
    learner = LKMBooks(B=15, T=200, lam=0.5, seed=1)
    learner.run(X[:100], y[:100])
    before = (learner.n_rounds, learner.p_.tobytes(), learner.coefficients.tobytes(),
              learner.support_vectors.tobytes())
    state = pickle.dumps(learner)
    bad = [
        (X[100:110], np.r_[y[100:109], 0.5], "-1 or \\+1"),
        (np.where(np.arange(30).reshape(10, 3) == 4, np.nan, X[100:110]), y[100:110], "NaN"),
        (X[100:110, :2], y[100:110], "features"),
        (np.r_[X[100:], X[:1]], np.r_[y[100:], y[:1]], "horizon"),   # 101 > T - 100
    ]
    for bad_X, bad_y, msg in bad:
        with pytest.raises(ValueError, match=msg):
            learner.run(bad_X, bad_y)
    with pytest.raises(ValueError, match="-1 or \\+1"):
        learner.learn_one(X[100], 2.0)
    after = (learner.n_rounds, learner.p_.tobytes(), learner.coefficients.tobytes(),
             learner.support_vectors.tobytes())
    assert after == before
    # the generator was not advanced either: the continuation equals the pickled copy's
    clone = pickle.loads(state)
    np.testing.assert_array_equal(learner.run(X[100:], y[100:]).scores,
                                  clone.run(X[100:], y[100:]).scores)


def test_streaming_use_requires_T():
    X, y = xor_stream(20, 3, seed=0)
    learner = LKMBooks(B=5)
    with pytest.raises(ValueError, match="T \\(the horizon\\) is required"):
        learner.learn_one(X[0], y[0])
    with pytest.raises(ValueError, match="T \\(the horizon\\) is required"):
        learner.partial_fit(X, y)
    assert learner.n_rounds == 0
    with pytest.raises(ValueError, match="-1 or \\+1"):
        LKMBooks(B=5, T=10).learn_one(X[0], 3.0)


# -- Theorem 2 on many seeded runs --------------------------------------------------------

def theorem2_bound(B, delta):
    return B + 2 / 3 * math.log(1 / delta) + math.sqrt(2 * B * math.log(1 / delta))


def test_theorem2_budget_over_seeds_and_the_printed_z_typo():
    """Absolute loss: every round has a gradient, so ``n_sampled`` (the |S| of Theorem 2
    with the guard counted out) is a sum of independent Bernoullis with the known
    probabilities ``min{1, B / z(k)}``, k = 1..T."""
    T, B, ups, delta, runs = 1500, 40, 1 / 3, 0.05, 200
    X, y = regression_stream(T, 2, seed=0)
    k = np.arange(1, T + 1)
    probs = {"theorem2": np.minimum(1, B * (1 - ups) / (T ** (1 - ups) * k ** ups)),
             "printed": np.minimum(1, B / ((1 - ups) * T ** (1 - ups) * k ** ups))}
    assert (1 - ups) * T ** (1 - ups) > B          # Theorem 2's condition holds
    bound = theorem2_bound(B, delta)
    for form, q in probs.items():
        counts = []
        for seed in range(runs):
            learner = LKMBooks([okl.Gaussian(1.0)], loss="absolute", B=B, T=T,
                               upsilon=ups, z_form=form, seed=seed)
            ex = learner.run(X, y).extras
            assert ex["n_nonzero"] == T and ex["max_size"] <= B
            counts.append(ex["n_sampled"])
        counts = np.array(counts)
        mean, se = q.sum(), math.sqrt((q * (1 - q)).sum() / runs)
        # the sample mean is the Poisson-binomial mean (4.5 standard errors; se ~ 0.44)
        assert abs(counts.mean() - mean) < 4.5 * se
        if form == "theorem2":
            # E|S| <= B (here 39.9), and Theorem 2's tail: a binomial count of violations
            # with p <= delta stays below 2 delta runs (P[Bin(200, .05) >= 20] < 0.001);
            # the printed z_t would violate in every run (its mean is ~2.2 B = 88 > 62).
            assert mean <= B
            assert np.sum(counts > bound) <= 2 * delta * runs
        else:
            assert mean > 2.1 * B and np.all(counts > bound)


# -- the authors' R code (tests/fixtures/r/selection/LKMBooks-{c,r}.R) --------------

R_FIX = os.path.join(os.path.dirname(__file__), "fixtures")
R_SEED = 20240513


@pytest.mark.parametrize("stream,name,kw", [
    ("c", "r_lkmbooks_c.csv", dict(loss="hinge", B=25, lam=5.0 / math.sqrt(400))),
    ("r", "r_lkmbooks_r.csv", dict(loss="absolute", B=45)),
])
def test_variant_r_reproduces_the_authors_r_code(stream, name, kw):
    """``variant="r"`` against the authors' LKMBooks-c.R / LKMBooks-r.R on the same stream
    and uniforms: the combined score, the 9 kernels' scores, p_{t+1}, |S| and the number
    of draws, round for round; the mistakes exactly."""
    S = np.loadtxt(os.path.join(R_FIX, f"r_stream_{stream}.csv"), delimiter=",")
    X, y = np.ascontiguousarray(S[:, 1:]), S[:, 0]
    R = np.genfromtxt(os.path.join(R_FIX, "r", "selection", name), delimiter=",",
                      names=True)
    T, K = len(y), 9
    m = LKMBooks(variant="r", T=T, seed=R_SEED, **kw)
    u = np.loadtxt(os.path.join(R_FIX, "r_uniforms.csv"))
    np.testing.assert_array_equal(m._uniform_draws(len(u)), u)
    m = LKMBooks(variant="r", T=T, seed=R_SEED, **kw)
    f, fx, P, size, gmax = [], [], [], [], []
    for t in range(T):
        f.append(m.decision_function(X[t:t + 1])[0])
        m.learn_one(X[t], y[t])
        fx.append(m._lkm_last_values())
        P.append(m.p_)
        size.append(m.n_added)
        gmax.append(m.g_max)
    RP = np.column_stack([R[f"p{i}"] for i in range(1, K + 1)])
    RF = np.column_stack([R[f"fx{i}"] for i in range(1, K + 1)])
    np.testing.assert_allclose(f, R["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fx, RF, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(P, RP, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(gmax, R["g_max"], rtol=1e-10)
    np.testing.assert_array_equal(size, R["k"])
    v = m._extras()
    assert v["n_added"] == R["k"][-1] == kw["B"]          # the guard was reached
    assert v["guard_blocked"] > 0
    assert v["restarts"] == 0
    tr = LKMBooks(variant="r", T=T, seed=R_SEED, **kw).run(X, y)
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(tr.budget, R["k"])
    if stream == "c":
        authors = np.where(tr.scores >= 0, 1.0, -1.0) != y
        np.testing.assert_array_equal(authors, R["mistake"].astype(bool))
        assert v["n_nonzero"] == R["draws"][-1]
    else:
        assert R["draws"][-1] == T
        np.testing.assert_allclose(tr.losses, np.abs(R["f"] - y), rtol=1e-10, atol=1e-12)


def test_variant_r_differs_from_the_default_and_switches_compose():
    """variant="r" is z_form="printed" + l_m="running" (+ sampling="every_round" for
    regression); explicit switches override the variant's defaults."""
    S = np.loadtxt(os.path.join(R_FIX, "r_stream_r.csv"), delimiter=",")
    X, y = np.ascontiguousarray(S[:, 1:]), S[:, 0]
    kw = dict(loss="absolute", B=45, T=len(y), seed=R_SEED)
    a = LKMBooks(variant="r", **kw).run(X, y).scores
    b = LKMBooks(z_form="printed", l_m="running", sampling="every_round", **kw).run(X, y).scores
    np.testing.assert_array_equal(a, b)
    # with the absolute loss l' = 0 only at f = y: the two samplings coincide here
    np.testing.assert_array_equal(a, LKMBooks(variant="r", sampling="gradient",
                                              **kw).run(X, y).scores)
    c = LKMBooks(variant="r", z_form="theorem2", **kw).run(X, y).scores
    d = LKMBooks(**kw).run(X, y).scores
    assert not np.array_equal(a, c) and not np.array_equal(a, d)
    # every_round: a sampled round with l' = 0 stores x_t with the coefficient 0
    y0 = np.zeros(20)
    m = LKMBooks(variant="r", loss="absolute", B=5, T=20, seed=1)
    m.run(X[:20], y0)
    assert m.n_added == 5 and m.n_nonzero == 0
    np.testing.assert_array_equal(m.coefficients, 0.0)
    m = LKMBooks(loss="absolute", B=5, T=20, seed=1)
    m.run(X[:20], y0)
    assert m.n_added == 0
    assert LKMBooks(**kw).get_params()["variant"] == "okl"
    with pytest.raises(ValueError, match="variant"):
        LKMBooks(variant="R2", **kw)
    with pytest.raises(ValueError, match="sampling"):
        LKMBooks(sampling="always", **kw)
    with pytest.raises(ValueError, match="l_m"):
        LKMBooks(l_m="doubling", **kw)
