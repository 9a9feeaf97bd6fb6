"""POMD and POMDR against a plain-numpy oracle of Algorithm 1 of Li & Liao, *Improved Kernel
Alignment Regret Bound for Online Kernel Learning* (AAAI 2023)."""
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.learners.pomdr import POMD, POMDR, default_B0
from conftest import ref_gram, sparse_stream, xor_stream


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)


def sqnorm(G, idx, coef):
    """``||sum_i coef_i k(x_idx_i, .)||^2`` from the explicit Gram matrix."""
    idx = np.asarray(idx, dtype=int)
    return float(coef @ G[np.ix_(idx, idx)] @ coef) if idx.size else 0.0


def pomdr_oracle(kernel, X, y, *, U=25.0, B=None, B0=None, M=15, zeta=0.5, c=1.0, T=None,
                 D=1.0, ald_scale=None):
    """Algorithm 1 written out with explicit linear algebra.

    ``B=None`` is POMD (never switches).  Every RKHS quantity is an explicit quadratic form
    of the stream's Gram matrix (scikit-learn's kernels): the ALD residual (4) with
    ``np.linalg.solve`` on ``K_S``, ``delta`` and ``delta~`` as
    ``||h - grad_bar||^2 - ||grad_bar||^2`` of explicit coefficient vectors, and every
    projection from ``a^T K_S a``."""
    Xd = dense(X)
    n = len(y)
    T = n if T is None else T
    if B is not None and B0 is None:
        B0 = max(1, math.ceil(15 * math.log(T)))
    G = ref_gram(kernel, Xd, Xd)
    thr = (math.sqrt(D) if ald_scale is None else ald_scale) * T ** (-zeta)
    S, a = [], np.zeros(0)
    rate_sum = sum_delta = sum_tilde = 0.0
    t_bar = math.inf
    halvings, n_added, n_proj = [], 0, 0
    rec = {k: [] for k in ("scores", "sizes", "rates", "deltas", "alphas", "S_before", "norms")}
    for t in range(n):
        tt = t + 1                                   # 1-based round
        W = list(range(max(0, t - M), t))            # the last M_t = min(t, M) rounds
        mt = len(W)
        lam = U / math.sqrt(3 * D + rate_sum) * (c if halvings else 1.0)
        fprime = float(G[t, S] @ a) if S else 0.0
        f = fprime + (lam / mt * float(y[W] @ G[W, t]) if mt else 0.0)     # (2)
        rec["scores"].append(f)
        rec["rates"].append(lam)
        rec["S_before"].append(list(S))
        delta, alpha = 0.0, np.nan
        if 1 - y[t] * f > 0:
            # grad = -y_t k(x_t, .), grad_bar = -(1/M_t) sum y_r k(x_r, .), over idx = W + [t]
            gb = np.r_[-y[W] / mt if mt else np.zeros(0), 0.0]
            g = np.r_[np.zeros(mt), -y[t]]
            delta = max(sqnorm(G, W + [t], g - gb) - sqnorm(G, W + [t], gb), 0.0)
            sum_delta += delta
            if t_bar >= T:                            # line 8: POMD
                if S:
                    KS = G[np.ix_(S, S)]
                    beta = np.linalg.solve(KS, G[S, t])
                    alpha = G[t, t] - G[S, t] @ beta                         # (4)
                else:
                    beta, alpha = np.zeros(0), D                              # footnote 2
                if math.sqrt(max(alpha, 0.0)) <= thr:                        # (5) holds: (6)
                    idx = S + W
                    h = np.r_[-y[t] * beta, np.zeros(mt)]
                    gbar = np.r_[np.zeros(len(S)), -y[W] / mt if mt else np.zeros(0)]
                    dtil = max(sqnorm(G, idx, h - gbar) - sqnorm(G, idx, gbar), 0.0)
                    a = a + lam * y[t] * beta
                    n_proj += 1
                else:                                                        # (7)
                    S.append(t)
                    a = np.append(a, lam * y[t])
                    dtil = delta
                    n_added += 1
                    if B0 is not None and len(S) == B0:
                        t_bar = tt + 1                                       # line 17
                nrm = math.sqrt(sqnorm(G, S, a))
                if nrm > U:
                    a = a * (U / nrm)
                rate_sum += dtil
                sum_tilde += dtil
            else:                                                            # (8)
                S.append(t)
                a = np.append(a, lam * y[t])
                nrm = math.sqrt(sqnorm(G, S, a))
                if nrm > U:
                    a = a * (U / nrm)
                rate_sum += delta
                sum_tilde += delta
                if len(S) == B:                                              # line 22, (9)
                    h = B // 2
                    kept = S[:h]
                    for j in range(h, B):
                        i = int(np.argmax(G[kept, S[j]]))                    # first on ties
                        a[i] += a[j]
                    S, a = kept, a[:h].copy()
                    nrm = math.sqrt(sqnorm(G, S, a))
                    a = a * (U / nrm) if nrm > 0 else a * 0.0
                    rate_sum = 0.0                                           # (10)
                    halvings.append(tt)
        rec["deltas"].append(delta)
        rec["alphas"].append(alpha)
        rec["sizes"].append(len(S))
        rec["norms"].append(math.sqrt(sqnorm(G, S, a)))
    out = {k: (np.array(v) if k != "S_before" else v) for k, v in rec.items()}
    out.update(S=np.array(S, dtype=int), a=a, sum_delta=sum_delta, sum_tilde=sum_tilde,
               rate_sum=rate_sum, t_bar=t_bar, halvings=np.array(halvings, dtype=int),
               n_added=n_added, n_proj=n_proj, T=T,
               lam_next=U / math.sqrt(3 * D + rate_sum) * (c if halvings else 1.0))
    return out


def check(learner, tr, ref, y, *, rtol=1e-9):
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=rtol, atol=1e-10)
    np.testing.assert_allclose(tr.losses, np.maximum(0, 1 - y * ref["scores"]), rtol=rtol,
                               atol=1e-10)
    np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    np.testing.assert_array_equal(learner.support_set.stamps, ref["S"] + 1)
    np.testing.assert_allclose(learner.coefficients, ref["a"], rtol=rtol, atol=1e-10)
    ex = tr.extras
    np.testing.assert_allclose(ex["rates"], ref["rates"], rtol=rtol)
    np.testing.assert_allclose(ex["deltas"], ref["deltas"], rtol=rtol, atol=1e-10)
    np.testing.assert_array_equal(np.isnan(ex["ald_residuals"]), np.isnan(ref["alphas"]))
    ok = ~np.isnan(ref["alphas"])
    np.testing.assert_allclose(ex["ald_residuals"][ok], ref["alphas"][ok], rtol=1e-7,
                               atol=1e-10)
    assert ex["sum_delta"] == pytest.approx(ref["sum_delta"], rel=1e-10)
    assert ex["sum_delta_tilde"] == pytest.approx(ref["sum_tilde"], rel=1e-9)
    assert ex["rate_sum"] == pytest.approx(ref["rate_sum"], rel=1e-9, abs=1e-10)
    assert ex["lam"] == pytest.approx(ref["lam_next"], rel=1e-10)
    assert ex["t_bar"] == ref["t_bar"]
    assert ex["omdr"] == (ref["t_bar"] < ref["T"])
    np.testing.assert_array_equal(ex["halving_rounds"], ref["halvings"])
    assert ex["halvings"] == len(ref["halvings"])
    assert ex["ald_added"] == ref["n_added"] and ex["ald_projected"] == ref["n_proj"]
    assert ex["n_updates"] == int(np.sum(y * ref["scores"] < 1))
    assert ex["norm"] == pytest.approx(ref["norms"][-1], rel=1e-8, abs=1e-12)


# (kernel, stream, params): each case names what it exercises
XOR = lambda T=500, d=3, seed=11: xor_stream(T, d, seed=seed)

CASES = {
    "pomd-only-wide-kernel": (okl.Gaussian(3.0), lambda: xor_stream(400, 2, seed=3),
                              dict(B=400, M=15)),
    "switch-no-halving": (okl.Gaussian(1.0), XOR, dict(B=400, B0=6, M=15)),
    "halvings-M1": (okl.Gaussian(1.0), XOR, dict(B=12, B0=5, M=1)),
    "halvings-M4-c-ald10": (okl.Gaussian(0.8), XOR, dict(B=10, B0=4, M=4, c=0.1, zeta=2 / 3,
                                                      ald_scale=10.0)),
    "B0-above-half": (okl.Gaussian(1.0), XOR, dict(B=10, B0=7, M=3, U=3.0)),
    "halvings-small-U": (okl.Gaussian(1.5), XOR, dict(B=16, B0=6, M=15, U=0.7, c=0.05)),
    "laplacian": (okl.Laplacian(2.0), XOR, dict(B=14, B0=6, M=5, zeta=1.0)),
    "laplacian-pomd-phase": (okl.Laplacian(4.0), lambda: xor_stream(400, 2, seed=5),
                             dict(B=30, B0=16, M=2, U=2.0, ald_scale=10.0)),
}


@pytest.mark.parametrize("dictionary", ["cholesky", "inverse"])
@pytest.mark.parametrize("case", list(CASES))
def test_pomdr_matches_oracle_round_for_round(case, dictionary):
    kernel, make_stream, params = CASES[case]
    X, y = make_stream()
    learner = POMDR(kernel=kernel, dictionary=dictionary, **params)
    tr = learner.run(X, y)
    ref = pomdr_oracle(kernel, X, y, **params)
    # the explicit inverse (the paper's update) drifts by ~cond(K_S) * eps: the wide kernel
    # of the first case reaches cond(K_S) ~ 1e7 and coefficients 4e-9 apart
    check(learner, tr, ref, y, rtol=1e-9 if dictionary == "cholesky" else 1e-7)
    ex = tr.extras
    # each case exercises what its name says
    if case.startswith("pomd-only"):
        assert ex["t_bar"] == math.inf and ex["ald_projected"] > 50 and ex["ald_added"] > 3
    elif case == "switch-no-halving":
        assert ex["omdr"] and ex["halvings"] == 0 and ex["ald_projected"] == 0
    elif case == "laplacian-pomd-phase":
        assert ex["omdr"] and ex["ald_projected"] > 0 and ex["halvings"] > 2
    else:
        assert ex["omdr"] and ex["halvings"] >= 5
    if params.get("B0", 0) > params["B"] // 2:
        assert ex["halvings"] >= 5    # POMD-phase vectors beyond B/2 get merged too


@pytest.mark.parametrize("M", [1, 3, 15])
def test_pomd_matches_oracle(M):
    X, y = xor_stream(350, 3, seed=M)
    kernel = okl.Gaussian(1.2)
    learner = POMD(kernel=kernel, M=M, U=5.0, zeta=0.5)
    tr = learner.run(X, y)
    ref = pomdr_oracle(kernel, X, y, U=5.0, M=M, zeta=0.5)
    check(learner, tr, ref, y)
    assert tr.extras["ald_projected"] > 20 and tr.extras["ald_added"] > 20
    assert tr.extras["halvings"] == 0 and tr.extras["t_bar"] == math.inf


def test_pomdr_matches_oracle_on_csr_input():
    X, y = sparse_stream(500, 12, density=0.3, seed=8)
    kernel = okl.Gaussian(1.0)
    for params in (dict(B=12, B0=5, M=4), dict(B=300, M=2, ald_scale=10.0)):
        learner = POMDR(kernel=kernel, **params)
        tr = learner.run(X, y)
        check(learner, tr, pomdr_oracle(kernel, X, y, **params), y)
        dense_tr = POMDR(kernel=kernel, **params).run(X.toarray(), y)
        np.testing.assert_allclose(tr.scores, dense_tr.scores, rtol=1e-12, atol=1e-13)
        np.testing.assert_array_equal(tr.budget, dense_tr.budget)
    assert tr.extras["ald_projected"] > 0


def test_pomdr_polynomial_kernel_with_explicit_D():
    X, y = xor_stream(300, 3, seed=4)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)       # k(x, x) = (0.5 + 1)^2 = 2.25
    kernel = okl.Polynomial(degree=2, gamma=0.5, coef0=1.0)
    with pytest.raises(ValueError, match="D"):
        POMDR(kernel=kernel)
    params = dict(B=10, B0=4, M=3, D=2.25, U=4.0)
    learner = POMDR(kernel=kernel, **params)
    tr = learner.run(X, y)
    check(learner, tr, pomdr_oracle(kernel, X, y, **params), y)
    assert tr.extras["halvings"] >= 5
    assert tr.extras["rates"][0] == pytest.approx(4.0 / math.sqrt(3 * 2.25))   # U / sqrt(3D)


def test_horizon_given_explicitly_changes_threshold_and_B0():
    """T given to the constructor and larger than the stream: the threshold and B0 follow
    T, not the stream length."""
    X, y = xor_stream(300, 3, seed=6)
    kernel = okl.Gaussian(1.0)
    learner = POMDR(kernel=kernel, B=200, M=5, T=5000)
    tr = learner.run(X, y)
    ref = pomdr_oracle(kernel, X, y, B=200, M=5, T=5000)
    check(learner, tr, ref, y)
    assert tr.extras["B0"] == learner.B0_ == default_B0(5000) == math.ceil(15 * math.log(5000))
    assert tr.extras["threshold"] == pytest.approx(5000 ** -0.5)
    assert tr.extras["T"] == 5000


def test_t_bar_equal_to_T_keeps_the_last_round_in_pomd():
    """Line 8 reads 't_bar >= T': when |S| reaches B0 at round T - 1, t_bar = T and round T
    still runs the ALD test; with one more round in the horizon, round t_bar is OMDR."""
    X = np.array([[0.0, 0.0], [5.0, 5.0], [0.1, 0.0], [0.2, 0.1]])
    y = np.array([1.0, -1.0, -1.0, 1.0])
    kernel = okl.Gaussian(1.0)
    tr = POMDR(kernel=kernel, B=4, B0=2, M=1).run(X[:3], y[:3])
    ex = tr.extras
    assert ex["t_bar"] == 3 and not ex["omdr"]
    assert tr.losses[2] > 0 and not np.isnan(ex["ald_residuals"][2])    # the ALD test ran
    ref = pomdr_oracle(kernel, X[:3], y[:3], B=4, B0=2, M=1)
    assert ref["t_bar"] == 3
    tr4 = POMDR(kernel=kernel, B=4, B0=2, M=1).run(X, y)
    assert tr4.extras["t_bar"] == 3 and tr4.extras["omdr"]
    assert tr4.losses[2] > 0 and np.isnan(tr4.extras["ald_residuals"][2])   # OMDR: no test
    learner = POMDR(kernel=kernel, B=4, B0=2, M=1)
    check(learner, learner.run(X, y), pomdr_oracle(kernel, X, y, B=4, B0=2, M=1), y)


def test_ald_residual_is_the_determinant_ratio():
    """alpha_t = det(K_{S_t + x_t}) / det(K_{S_t}) (proof of Theorem 1), on every round the
    ALD test ran, with S_t the learner's own support set before round t."""
    X, y = xor_stream(250, 3, seed=2)
    kernel = okl.Gaussian(1.0)
    learner = POMD(kernel=kernel, M=4, U=5.0)
    tr = learner.run(X, y)
    G = ref_gram(kernel, X, X)
    stamps = learner.support_set.stamps           # POMD never removes: S_t = stamps < t
    res = tr.extras["ald_residuals"]
    tested = np.flatnonzero(~np.isnan(res))
    assert tested.size > 50
    for t in tested:
        S = list(stamps[stamps < t + 1] - 1)
        if not S:
            assert res[t] == 1.0                   # footnote 2: alpha = D
            continue
        _, ld_big = np.linalg.slogdet(G[np.ix_(S + [t], S + [t])])
        _, ld_small = np.linalg.slogdet(G[np.ix_(S, S)])
        assert res[t] == pytest.approx(math.exp(ld_big - ld_small), rel=1e-6, abs=1e-12)


def test_cholesky_dictionary_is_more_accurate_than_the_inverse():
    """Near-duplicate 1-d points, a wide kernel and zeta = 1 make K_S ill-conditioned: the
    Cholesky residuals stay at the high-precision (mpmath, 50 digits) values while the
    explicit inverse drifts; both take the same decisions on a benign stream (above)."""
    import mpmath  # test extras
    mpmath.mp.dps = 50
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 1))
    y = np.where(np.sin(6 * X[:, 0]) > 0, 1.0, -1.0)
    kernel = okl.Gaussian(1.0)
    errors = {}
    for dictionary in ("cholesky", "inverse"):
        learner = POMD(kernel=kernel, M=2, zeta=1.0, U=50.0, dictionary=dictionary)
        tr = learner.run(X, y)
        stamps = learner.support_set.stamps
        res = tr.extras["ald_residuals"]
        tested = np.flatnonzero(~np.isnan(res))[-40:]
        worst = 0.0
        for t in tested:
            S = list(stamps[stamps < t + 1] - 1)
            if len(S) < 2:
                continue
            pts = [mpmath.mpf(float(v)) for v in X[S, 0]]
            xt = mpmath.mpf(float(X[t, 0]))
            k = lambda u, v: mpmath.exp(-(u - v) ** 2 / 2)
            K = mpmath.matrix([[k(u, v) for v in pts] for u in pts])
            kv = mpmath.matrix([k(u, xt) for u in pts])
            exact = 1 - (kv.T * mpmath.lu_solve(K, kv))[0]
            worst = max(worst, abs(float(exact) - res[t]))
        errors[dictionary] = worst
        cond = np.linalg.cond(ref_gram(kernel, learner.support_vectors, learner.support_vectors))
        assert cond > 1e7
    # measured: cholesky 7e-16, inverse 1.8e-9 (the threshold on alpha is 400^-2 = 6e-6)
    assert errors["cholesky"] < 1e-13
    assert errors["inverse"] > 1e3 * errors["cholesky"]


def test_norm_at_most_U_after_every_round():
    """||f'_t|| <= U after every round (explicit a^T K a of the learner's own support set),
    and the incrementally kept norm matches it."""
    X, y = xor_stream(240, 3, seed=7)
    kernel = okl.Gaussian(1.0)
    for U in (0.5, 3.0):
        learner = POMDR(kernel=kernel, B=10, B0=4, M=3, U=U, T=240)
        hit = 0
        for t in range(len(y)):
            learner.learn_one(X[t], y[t])
            a, S = learner.coefficients, learner.support_vectors
            nsq = float(a @ ref_gram(kernel, S, S) @ a) if a.size else 0.0
            assert nsq <= U * U * (1 + 1e-10)
            assert learner.norm_ ** 2 == pytest.approx(nsq, rel=1e-8, abs=1e-12)
            hit += nsq >= U * U * (1 - 1e-9)
        assert hit > 50                              # the ball is actually reached
        assert learner._extras()["halvings"] > 5


@pytest.mark.parametrize("split", [40, 100, 300])
def test_pickle_resumes_identically_mid_stream(split):
    """Splits in POMD (40), just after the switch, and in the middle of OMDR with halvings."""
    X, y = xor_stream(400, 2, seed=5)
    params = dict(kernel=okl.Laplacian(4.0), B=30, B0=16, M=2, U=2.0, ald_scale=10.0, T=400,
                  c=0.1)
    full = POMDR(**params).run(X, y)
    learner = POMDR(**params)
    first = learner.run(X[:split], y[:split])
    clone = pickle.loads(pickle.dumps(learner))
    assert repr(clone) == repr(learner)
    np.testing.assert_array_equal(clone._cross_gram(), learner._cross_gram())
    rest = clone.run(X[split:], y[split:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
    np.testing.assert_array_equal(np.r_[first.extras["rates"], rest.extras["rates"]],
                                  full.extras["rates"])
    for key in ("sum_delta", "sum_delta_tilde", "t_bar", "halvings", "ald_added", "lam",
                "ald_projected", "norm"):
        assert rest.extras[key] == full.extras[key], key
    np.testing.assert_array_equal(rest.extras["halving_rounds"], full.extras["halving_rounds"])
    assert learner.n_rounds == split
    if split == 40:
        assert not first.extras["omdr"] and first.extras["ald_projected"] > 0
    else:
        assert first.extras["omdr"]
    if split == 300:
        assert first.extras["halvings"] > 5


def test_pickle_without_T_keeps_the_inferred_horizon_and_pomd_pickles():
    X, y = xor_stream(200, 3, seed=1)
    learner = POMDR(B=10, B0=4, M=2)
    learner.run(X, y)
    clone = pickle.loads(pickle.dumps(learner))
    assert clone.horizon_ == 200 and clone.T is None
    np.testing.assert_array_equal(clone.decision_function(X), learner.decision_function(X))
    with pytest.raises(ValueError, match="T = 200"):
        clone.run(X[:1], y[:1])
    p = POMD(M=3, T=200)
    first = p.run(X[:70], y[:70])
    q = pickle.loads(pickle.dumps(p))
    rest = q.run(X[70:], y[70:])
    full = POMD(M=3, T=200).run(X, y)
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)


def test_learn_one_and_decision_function_equal_run():
    """decision_function gives f_t = f'_{t-1} - lambda_t grad_bar_t, the next round's score."""
    X, y = xor_stream(200, 3, seed=9)
    a = POMDR(B=10, B0=5, M=3, T=200)
    tr = a.run(X, y)
    b = POMDR(B=10, B0=5, M=3, T=200)
    for t in range(len(y)):
        assert b.decision_function(X[t:t + 1])[0] == tr.scores[t]
        b.learn_one(X[t], y[t])
    np.testing.assert_array_equal(a.coefficients, b.coefficients)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_horizon_is_required_for_streaming_and_never_exceeded():
    X, y = xor_stream(50, 3, seed=0)
    for make in (lambda **k: POMDR(B=10, B0=4, **k), lambda **k: POMD(**k)):
        learner = make()
        with pytest.raises(ValueError, match="T"):
            learner.learn_one(X[0], y[0])
        with pytest.raises(ValueError, match="T"):
            learner.partial_fit(X, y)
        assert learner.n_rounds == 0 and learner.n_features is None
        learner.run(X[:20], y[:20])                   # the stream is the horizon
        assert learner.horizon_ == 20
        with pytest.raises(ValueError, match="T = 20"):
            learner.run(X[20:25], y[20:25])
        assert learner.n_rounds == 20
        bounded = make(T=30)
        bounded.partial_fit(X[:25], y[:25])
        with pytest.raises(ValueError, match="T = 30"):
            bounded.partial_fit(X[25:], y[25:])
        for t in range(25, 30):
            bounded.learn_one(X[t], y[t])
        with pytest.raises(ValueError, match="T = 30"):
            bounded.learn_one(X[30], y[30])
        assert bounded.n_rounds == 30


def test_default_B0_and_B0_must_stay_below_B():
    assert default_B0(1) == 1 and default_B0(20_000) == math.ceil(15 * math.log(20_000))
    assert POMDR(T=20_000).B0_ == 149
    with pytest.raises(ValueError, match="B0"):
        POMDR(B=20, B0=20, T=10)                   # a given B0 must be below B
    with pytest.raises(ValueError, match="B0"):
        POMDR(B=8, B0=8)._horizon_for(10)
    X, y = xor_stream(30, 3, seed=0)
    assert POMDR(B=20).run(X[:3], y[:3]).extras["B0"] == math.ceil(15 * math.log(3))


def test_default_B0_falls_back_to_half_the_budget_with_a_warning():
    """The Ahpatron paper's Table 2 runs POMDR with B = 150 on a9a (T = 32,561): ceil(15 ln T) =
    156 >= B, which Algorithm 1 cannot run; the default is then B/2, with a warning
    saying so, once per horizon."""
    import warnings

    from okl.learners.pomdr import budget_B0

    assert budget_B0(32_561, 400) == (156, None)
    B0, note = budget_B0(32_561, 150)
    assert B0 == 75 and "156" in note and "B/2 = 75" in note and "Theorem 2" not in note
    B0, note = budget_B0(10, 20)                 # 35 >= 20; 10 > 4 ln 10 = 9.2
    assert B0 == 10 and "Theorem 2" not in note
    B0, note = budget_B0(1000, 40)               # 20 <= 4 ln 1000 = 27.6: said so
    assert B0 == 20 and "c > 4" in note
    with pytest.warns(UserWarning, match="B/2 = 75") as record:
        learner = POMDR(B=150, T=32_561)
        assert learner.B0_ == 75
    assert len(record) == 1
    # T taken from the stream: the fallback is decided (and warned) at the first run
    X, y = xor_stream(60, 3, seed=1)
    learner = POMDR(B=40)                        # ceil(15 ln 60) = 62 >= 40
    with pytest.warns(UserWarning, match="B/2 = 20"):
        tr = learner.run(X, y)
    assert tr.extras["B0"] == 20 == learner.B0_
    # the run is Algorithm 1 with B0 = 20: the same as passing it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = POMDR(B=40, B0=20).run(X, y)
    np.testing.assert_array_equal(tr.scores, same.scores)
    assert tr.extras["t_bar"] == same.extras["t_bar"]


@pytest.mark.parametrize("bad,name", [
    (dict(U=0.0), "U"), (dict(U=-1.0), "U"), (dict(U=math.inf), "U"), (dict(U="1"), "U"),
    (dict(B=7), "B"), (dict(B=0), "B"), (dict(B=10.0), "B"), (dict(B=True), "B"),
    (dict(B0=0), "B0"), (dict(B0=2.5), "B0"),
    (dict(M=0), "M"), (dict(M=1.5), "M"),
    (dict(zeta=0.0), "zeta"), (dict(zeta=1.5), "zeta"), (dict(zeta=math.nan), "zeta"),
    (dict(c=0.0), "c"), (dict(c=-0.1), "c"),
    (dict(T=0), "T"), (dict(T=2.0), "T"),
    (dict(D=0.0), "D"), (dict(D=math.inf), "D"),
    (dict(ald_scale=0.0), "ald_scale"), (dict(dictionary="qr"), "dictionary"),
    (dict(seed=-1), "seed"), (dict(kernel="rbf"), "kernel"),
    (dict(kernel=okl.Linear()), "D"),
])
def test_parameter_validation(bad, name):
    with pytest.raises(ValueError, match=name):
        POMDR(**bad)


def test_pomd_parameter_validation():
    for bad, name in ((dict(U=0), "U"), (dict(M=0), "M"), (dict(zeta=2), "zeta"),
                      (dict(T=-3), "T"), (dict(kernel=okl.Polynomial()), "D")):
        with pytest.raises(ValueError, match=name):
            POMD(**bad)
    with pytest.raises(TypeError):
        POMD(B=10)                                  # POMD has no budget


def test_defaults_follow_the_paper():
    learner = POMDR(T=1000)
    assert learner.get_params() == dict(kernel=okl.Gaussian(1.0), U=25.0, B=400, B0=None,
                                        M=15, zeta=0.5, c=1.0, T=1000, D=None,
                                        ald_scale=None, dictionary="cholesky", seed=None)
    assert learner.D_ == 1.0 and learner.ald_scale_ == 1.0
    assert learner.threshold_ == pytest.approx(1000 ** -0.5)
    assert POMDR(T=1000, ald_scale=10.0, zeta=2 / 3).threshold_ == pytest.approx(
        10 * 1000 ** (-2 / 3))
    # DESIGN.md's call
    okl_pomdr = POMDR(kernel=okl.Gaussian(sigma=2.0), U=25.0, B=400, M=15, zeta=0.5, seed=0)
    assert okl_pomdr.seed == 0


def test_bad_input_raises_and_keeps_state():
    X, y = xor_stream(100, 3, seed=1)
    learner = POMDR(B=10, B0=4, M=3, T=100)
    learner.run(X[:50], y[:50])
    before = (learner.coefficients.copy(), learner.support_vectors.copy(), learner._extras())
    scores = learner.decision_function(X)
    bads = [
        (np.where(np.arange(150).reshape(50, 3) == 7, np.nan, X[50:]), y[50:], "NaN"),
        (X[50:, :2], y[50:], "features"),
        (X[50:], np.where(np.arange(50) == 3, 0.0, y[50:]), "-1 or"),
        (X[50:], y[50:-1], "labels for"),
        (X[50:].astype(str), y[50:], "numeric"),
    ]
    for bx, by, msg in bads:
        with pytest.raises(ValueError, match=msg):
            learner.run(bx, by)
        with pytest.raises(ValueError):
            learner.learn_one(bx[0] if bx.ndim == 2 else bx, by[0] * 2)
    assert learner.n_rounds == 50
    np.testing.assert_array_equal(learner.coefficients, before[0])
    np.testing.assert_array_equal(learner.decision_function(X), scores)
    after = learner._extras()
    for key in ("sum_delta", "t_bar", "halvings", "lam", "norm"):
        assert after[key] == before[2][key]


def test_identical_seeds_identical_traces():
    X, y = xor_stream(400, 3, seed=5)
    a = POMDR(B=12, B0=5, M=4, seed=3).run(X, y)
    b = POMDR(B=12, B0=5, M=4, seed=3).run(X, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.budget, b.budget)
    np.testing.assert_array_equal(a.extras["rates"], b.extras["rates"])
    c = POMDR(B=12, B0=5, M=4, seed=99).run(X, y)     # deterministic: the seed is unused
    np.testing.assert_array_equal(a.scores, c.scores)


def test_halving_count_and_budget():
    """|S| <= B always; after OMDR starts every B/2 additions trigger a halving, so the
    count follows from the additions (and the proof's N <= 2T/B - 1)."""
    X, y = xor_stream(800, 3, seed=21)
    B, B0 = 12, 5
    tr = POMDR(B=B, B0=B0, M=3).run(X, y)
    ex = tr.extras
    assert tr.budget.max() <= B
    omdr_adds = ex["n_updates"] - ex["ald_added"] - ex["ald_projected"]
    expected = 0 if B0 + omdr_adds < B else (B0 + omdr_adds - B) // (B // 2) + 1
    assert ex["halvings"] == expected > 10
    assert ex["halvings"] <= 2 * 800 / B - 1
    sizes_after = tr.budget[np.asarray(ex["halving_rounds"]) - 1]
    np.testing.assert_array_equal(sizes_after, B // 2)


def test_blas_is_limited_to_one_thread():
    import threadpoolctl

    blas = lambda: [i["num_threads"] for i in threadpoolctl.threadpool_info()
                    if i["user_api"] == "blas"]
    before = blas()
    learner = POMDR(B=10, B0=4)
    with learner._blas_guard(100):
        assert blas() and all(n == 1 for n in blas())
    assert blas() == before
