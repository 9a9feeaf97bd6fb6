"""PKAWV with Nystrom projections (KORS + Algorithm 2 of Jezequel, Gaillard & Rudi 2019)
against plain-numpy oracles: the literal algorithm with explicit inverses, the
Nystrom-kernel closed form, and exact Kernel-AWV (3)."""
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.learners._awv_nystrom import cholesky_rank_one
from okl.learners.awv import PKAWV
from okl.learners.awv_nystrom import DEPENDENCE_TOL, _PKAWVNystrom
from conftest import ref_gram, sparse_stream, xor_stream


def make(**kw):
    kw.setdefault("kernel", okl.Gaussian(1.0))
    kw.setdefault("seed", 0)
    return PKAWV(basis="nystrom", **kw)


def regression_stream(T, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    y = np.sin(2 * X[:, 0]) * np.cos(X[:, 1 % d]) + 0.1 * rng.normal(size=T)
    return X, y


def uniforms(seed, n):
    """The learner's uniform() stream: numpy's Generator.random (checked in test_learner_api)."""
    return np.random.default_rng(seed).random(n)


# ----------------------------------------------------------------------------
# The oracle: KORS (temporary dictionary, explicit inverse) and (4) refactorized
# ----------------------------------------------------------------------------

def oracle(kernel, X, y, *, lam, mu, beta, eps, forecaster, u):
    """Round t (0-based here):

    * KORS as in App. H.2's code, with the selection matrix of Calandriello et al.
      (entries 1/sqrt(p)): temporary dictionary I + (t, weight 1), explicit inverse of
      S K S + mu I, tau = (1 + eps)/mu (k_tt - kbar^T (S K S + mu I)^{-1} kbar),
      p = min(beta tau, 1), z = [u_t < p];
    * a sampled point joins unless the Schur complement of its column in
      A = K_{<t,I+t}^T K_{<t,I+t} + lam K is <= DEPENDENCE_TOL (1 + d_t) (documented);
    * forecast (4): alpha = A_t^{-1} K_t^T (Y_{t-1}, 0) with A_t built from scratch
      (rows s <= t; rows s < t for "krr"), yhat = k_I(x_t)^T alpha.
    """
    X = X.toarray() if sp.issparse(X) else np.asarray(X, float)
    T = len(y)
    G = ref_gram(kernel, X, X)                 # all kernel values, computed once
    D, W = [], []
    out = dict(scores=np.zeros(T), budget=np.zeros(T, int), p=np.zeros(T), q=np.zeros(T),
               rejected=0)
    for t in range(T):
        kxx = G[t, t]
        idx = D + [t]
        s = np.array(W + [1.0])
        Kaug = G[np.ix_(idx, idx)]
        M = s[:, None] * Kaug * s[None, :] + mu * np.eye(len(idx))
        kbar = s * Kaug[:, -1]
        tau = (1 + eps) / mu * (kxx - kbar @ np.linalg.inv(M) @ kbar)
        if math.isinf(beta):
            p = 1.0 if tau > 0 else 0.0
        else:
            p = min(max(beta * tau, 0.0), 1.0)
        out["p"][t] = p
        if u[t] < p:
            Kp = G[np.ix_(range(t), idx)]
            A0 = Kp.T @ Kp + lam * Kaug
            s0 = A0[-1, -1]
            if D:
                s0 -= A0[-1, :-1] @ np.linalg.solve(A0[:-1, :-1], A0[:-1, -1])
            if s0 > DEPENDENCE_TOL * (1 + A0[-1, -1] + kxx ** 2):
                D.append(t)
                W.append(1 / math.sqrt(p))
            else:
                out["rejected"] += 1
        if D:
            Kt = G[np.ix_(range(t + 1), D)]
            KII = G[np.ix_(D, D)]
            rows = t if forecaster == "krr" else t + 1
            A = Kt[:rows].T @ Kt[:rows] + lam * KII
            alpha = np.linalg.solve(A, Kt[:t].T @ y[:t])
            out["scores"][t] = Kt[t] @ alpha
            A_prev = Kt[:t].T @ Kt[:t] + lam * KII      # q_t of Theorem 9 (rows < t)
            out["q"][t] = Kt[t] @ np.linalg.solve(A_prev, Kt[t])
        out["budget"][t] = len(D)
    out["D"], out["W"] = np.array(D, int), np.array(W)
    return out


def stream_for(kernel, sparse, task, T=220, seed=3):
    if sparse:
        X, yc = sparse_stream(T, 8, seed=seed)
        X = X * 0.7
        yr = np.sin(X.toarray().sum(axis=1))
    else:
        X, yc = xor_stream(T, 3, seed=seed)
        yr = np.sin(2 * X[:, 0]) * np.cos(X[:, 1])
    if isinstance(kernel, okl.Polynomial):
        X = X * 0.5
    return X, (yc if task == "classification" else yr)


CASES = [
    # kernel, params, forecaster, task, sparse
    (okl.Gaussian(0.7), dict(lam=1.0, mu=1.0, beta=1.0, eps=0.5), "awv", "regression", False),
    (okl.Gaussian(0.7), dict(lam=1.0, mu=1.0, beta=1.0, eps=0.5), "krr", "regression", False),
    (okl.Gaussian(1.0), dict(lam=0.5, mu=0.3, beta=1.0, eps=0.3), "awv", "classification",
     False),
    (okl.Gaussian(3.0), dict(lam=2.0, mu=0.01, beta=12 * math.log(220 / 0.1), eps=0.5), "awv",
     "regression", False),
    (okl.Laplacian(2.0), dict(lam=1.0, mu=1.0, beta=0.5, eps=0.9), "krr", "classification",
     False),
    (okl.Gaussian(1.0), dict(lam=1.0, mu=0.1, beta=2.0, eps=0.5), "awv", "regression", True),
    (okl.Laplacian(2.0), dict(lam=1.0, mu=0.1, beta=2.0, eps=0.5), "krr", "classification",
     True),
    # finite-dimensional feature spaces: sampled points beyond the span are rejected
    (okl.Polynomial(degree=2, gamma=0.5, coef0=1.0), dict(lam=1.0, mu=0.01, beta=50.0, eps=0.5),
     "awv", "regression", False),
    (okl.Linear(), dict(lam=1.0, mu=1e-3, beta=100.0, eps=0.5), "awv", "classification", False),
    (okl.Linear(), dict(lam=0.3, mu=1e-3, beta=100.0, eps=0.5), "krr", "regression", True),
]


@pytest.mark.parametrize("kernel,params,forecaster,task,sparse", CASES,
                         ids=[f"{c[0]!r}-{c[2]}-{c[3]}-{'csr' if c[4] else 'dense'}"
                              for c in CASES])
def test_matches_oracle_round_for_round(kernel, params, forecaster, task, sparse):
    X, y = stream_for(kernel, sparse, task)
    seed = 11
    learner = make(kernel=kernel, forecaster=forecaster, task=task, seed=seed, **params)
    tr = learner.run(X, y)
    ref = oracle(kernel, X, y, forecaster=forecaster, u=uniforms(seed, len(y) + 1), **params)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    np.testing.assert_allclose(tr.losses, (y - ref["scores"]) ** 2, rtol=1e-8, atol=1e-10)
    if task == "classification":
        np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
    else:
        assert tr.mistakes is None
    np.testing.assert_array_equal(learner.dictionary_rounds - 1, ref["D"])
    np.testing.assert_allclose(learner.dictionary_weights, ref["W"], rtol=1e-9)
    Xd = X.toarray() if sp.issparse(X) else X
    np.testing.assert_array_equal(learner.dictionary, Xd[ref["D"]])
    ex = tr.extras
    assert ex["added"] == len(ref["D"]) == ex["dictionary_size"]
    assert ex["rejected"] == ref["rejected"]
    assert ex["downdate_fallbacks"] == 0
    np.testing.assert_allclose(ex["sum_p"], ref["p"].sum(), rtol=1e-10)
    np.testing.assert_allclose(ex["log_det"], np.log1p(ref["q"]).sum(), rtol=1e-8)
    np.testing.assert_allclose(ex["sum_y2_leverage"], (y ** 2 * ref["q"] / (1 + ref["q"])).sum(),
                               rtol=1e-8)
    # the test exercises both branches: points joined and points skipped
    assert 2 <= ex["added"] < len(y)
    if isinstance(kernel, (okl.Linear, okl.Polynomial)):
        assert ex["rejected"] > 0


def test_kors_probabilities_follow_the_leverage():
    """First round: empty dictionary, tau = (1 + eps) k(x,x) / (k(x,x) + mu)."""
    X, y = regression_stream(1, 3)
    for mu, beta, eps in [(1.0, 1.0, 0.5), (0.1, 0.5, 0.2), (4.0, 3.0, 0.9)]:
        tr = make(mu=mu, beta=beta, eps=eps).run(X, y)
        assert tr.extras["sum_p"] == pytest.approx(min(beta * (1 + eps) / (1 + mu), 1.0),
                                                   rel=1e-14)


# ----------------------------------------------------------------------------
# Closed forms: the Nystrom kernel P K P, and exact Kernel-AWV when I_t = {1..t}
# ----------------------------------------------------------------------------

def nystrom_closed_form(kernel, X, y, rounds, lam, forecaster):
    """Kernel-AWV (3) with the Nystrom kernel K~ = K_{.I} K_II^{-1} K_{I.} of the dictionary
    I_t = {j : rounds[j] <= t}: yhat_t = [K~ (K~ + lam I)^{-1} (Y_{t-1}, 0)]_t."""
    G = ref_gram(kernel, X, X)
    T = len(y)
    out = np.zeros(T)
    for t in range(T):
        D = [r - 1 for r in rounds if r - 1 <= t]
        if not D:
            continue
        Kt = G[np.ix_(range(t + 1), D)]
        Kn = Kt @ np.linalg.solve(G[np.ix_(D, D)], Kt.T)
        if forecaster == "awv":
            Y0 = np.r_[y[:t], 0.0]
            out[t] = (Kn @ np.linalg.solve(Kn + lam * np.eye(t + 1), Y0))[t]
        else:
            out[t] = Kn[t, :t] @ np.linalg.solve(Kn[:t, :t] + lam * np.eye(t), y[:t])
    return out


@pytest.mark.parametrize("forecaster", ["awv", "krr"])
@pytest.mark.parametrize("kernel,mu,beta", [(okl.Gaussian(0.8), 0.05, 2.0),
                                            (okl.Laplacian(1.5), 1.0, 0.5)], ids=repr)
def test_projected_forecaster_is_kernel_awv_with_the_nystrom_kernel(kernel, mu, beta, forecaster):
    X, y = regression_stream(160, 3, seed=5)
    learner = make(kernel=kernel, lam=0.7, mu=mu, beta=beta, forecaster=forecaster, seed=2)
    tr = learner.run(X, y)
    assert 10 < tr.budget[-1] < 160
    expected = nystrom_closed_form(kernel, X, y, learner.dictionary_rounds, 0.7, forecaster)
    np.testing.assert_allclose(tr.scores, expected, rtol=1e-7, atol=1e-9)


def kernel_awv(kernel, X, y, lam, forecaster="awv"):
    """Eq. (3): yhat_t = [K_t (K_t + lam I)^{-1} (Y_{t-1}, 0)]_t (kernel ridge with y_t = 0)."""
    G = ref_gram(kernel, X, X)
    out = np.zeros(len(y))
    for t in range(len(y)):
        if forecaster == "awv":
            K = G[: t + 1, : t + 1]
            out[t] = (K @ np.linalg.solve(K + lam * np.eye(t + 1), np.r_[y[:t], 0.0]))[t]
        elif t:
            out[t] = G[t, :t] @ np.linalg.solve(G[:t, :t] + lam * np.eye(t), y[:t])
    return out


@pytest.mark.parametrize("forecaster", ["awv", "krr"])
@pytest.mark.parametrize("kernel", [okl.Gaussian(1.0), okl.Laplacian(2.0)], ids=repr)
def test_full_dictionary_is_exact_kernel_awv(kernel, forecaster):
    X, y = regression_stream(120, 5, seed=8)
    learner = make(kernel=kernel, lam=1.0, beta=np.inf, forecaster=forecaster)
    tr = learner.run(X, y)
    np.testing.assert_array_equal(tr.budget, np.arange(1, 121))      # every point joined
    assert tr.extras["rejected"] == 0
    np.testing.assert_allclose(tr.scores, kernel_awv(kernel, X, y, 1.0, forecaster),
                               rtol=1e-7, atol=1e-9)


def test_repeated_points_are_not_added_and_the_forecaster_is_unchanged():
    """Exact repeats lie in the span of the dictionary: H~_t is the same without them,
    so accept-all PKAWV still equals Kernel-AWV (3) (whose K is then singular)."""
    rng = np.random.default_rng(4)
    base, yb = regression_stream(30, 3, seed=6)
    order = rng.integers(0, 30, size=120)
    order[:30] = np.arange(30)
    X, y = base[order], yb[order] + 0.05 * rng.normal(size=120)
    learner = make(kernel=okl.Gaussian(1.0), beta=np.inf)
    tr = learner.run(X, y)
    assert tr.budget[-1] == 30 and tr.extras["rejected"] == 90
    np.testing.assert_allclose(tr.scores, kernel_awv(okl.Gaussian(1.0), X, y, 1.0),
                               rtol=1e-7, atol=1e-9)


# ----------------------------------------------------------------------------
# Numerical stability of the up- and down-dates
# ----------------------------------------------------------------------------

def test_rank_one_routines_match_numpy():
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 40):
        B = rng.normal(size=(n, n))
        A = B @ B.T + n * np.eye(n)
        L = np.linalg.cholesky(A)
        x = rng.normal(size=n)
        np.testing.assert_allclose(cholesky_rank_one(L, x, +1),
                                   np.linalg.cholesky(A + np.outer(x, x)), rtol=1e-12, atol=1e-12)
        x = 0.5 * L @ rng.normal(size=n) / math.sqrt(n)       # ||L^{-1} x|| = 0.5
        x *= 0.5 / np.linalg.norm(np.linalg.solve(L, x))
        np.testing.assert_allclose(cholesky_rank_one(L, x, -1),
                                   np.linalg.cholesky(A - np.outer(x, x)), rtol=1e-10, atol=1e-12)
        with pytest.raises(ValueError, match="positive definite"):
            cholesky_rank_one(L, 1.0001 * x / 0.5, -1)          # ||L^{-1} x|| > 1


def test_cholesky_factor_stays_accurate_on_a_long_stream():
    """20,000 rank-one updates and a few hundred up/down-date pairs (one per new point)."""
    T = 20_000
    X, y = regression_stream(T, 3, seed=1)
    kernel = okl.Gaussian(0.8)
    # KORS' mu is on the scale of K_n (eigenvalues grow with n): mu = 30 keeps ~280 points
    learner = make(kernel=kernel, lam=1.0, mu=30.0, beta=1.0, seed=5)
    tr = learner.run(X, y)
    m = tr.budget[-1]
    assert m >= 200 and tr.extras["downdate_fallbacks"] == 0
    D = learner.dictionary
    KtI = ref_gram(kernel, X, D)
    A = KtI.T @ KtI + 1.0 * ref_gram(kernel, D, D)
    L = learner.factor
    assert np.linalg.norm(L @ L.T - A) <= 1e-12 * np.linalg.norm(A)
    np.testing.assert_allclose(learner.kernel_rows, KtI, rtol=0, atol=1e-14)
    np.testing.assert_allclose(learner.ridge_target, KtI.T @ y, rtol=1e-10, atol=1e-10)
    # the ridge fit K alpha, alpha = A^{-1} K^T Y, from the factor vs numpy's solve
    # (alpha itself is ill-conditioned: K_II of 280 Gaussian centres in 3-d)
    fit = KtI @ np.linalg.solve(A, KtI.T @ y)
    np.testing.assert_allclose(KtI @ learner.ridge_coefficients(), fit, rtol=0,
                               atol=1e-7 * np.abs(fit).max())
    # the last forecasts against (4) with numpy on the final dictionary.  cond(A) ~ 7e10
    # here (K_II of ~280 Gaussian centres): numpy's solve and a QR least-squares solve
    # of the same problem differ by ~1e-9 relative, ours by <= 5e-8.
    for t in range(T - 5, T):
        Dt = learner.dictionary_rounds <= t + 1
        K = ref_gram(kernel, X[: t + 1], D[Dt])
        At = K.T @ K + ref_gram(kernel, D[Dt], D[Dt])
        expected = K[t] @ np.linalg.solve(At, K[:t].T @ y[:t])
        assert tr.scores[t] == pytest.approx(expected, rel=1e-6, abs=1e-10)


def test_downdate_fallback_path_gives_the_same_forecaster():
    """The bordered factor used when Algorithm 2's downdate fails by round-off (forced
    here on every new point) is the same Cholesky factor: same forecasts as the oracle."""
    kernel = okl.Gaussian(0.7)
    params = dict(lam=1.0, mu=0.3, beta=1.0, eps=0.5)
    X, y = stream_for(kernel, False, "regression")
    learner = make(kernel=kernel, seed=11, **params)
    learner._force_downdate_fallback(True)
    tr = learner.run(X, y)
    ref = oracle(kernel, X, y, forecaster="awv", u=uniforms(11, len(y) + 1), **params)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    assert tr.extras["downdate_fallbacks"] == tr.extras["added"] > 10
    D = learner.dictionary
    K = ref_gram(kernel, X, D)
    A = K.T @ K + ref_gram(kernel, D, D)
    L = learner.factor
    assert np.linalg.norm(L @ L.T - A) <= 1e-12 * np.linalg.norm(A)


# ----------------------------------------------------------------------------
# API: dispatch, decision_function, pickling, seeds, validation
# ----------------------------------------------------------------------------

def test_dispatch_and_rebuild():
    learner = PKAWV(basis="nystrom", kernel=okl.Laplacian(1.0), lam=2.0, mu=0.5, seed=3)
    assert isinstance(learner, PKAWV) and type(learner) is _PKAWVNystrom
    params = learner.get_params()
    assert params["basis"] == "nystrom"
    clone = type(learner)(**params)
    assert repr(clone) == repr(learner) and repr(learner).startswith("PKAWV(basis='nystrom'")
    assert type(PKAWV(**params)) is _PKAWVNystrom
    with pytest.raises(ValueError, match="basis"):
        _PKAWVNystrom(basis="taylor")


def test_decision_function_is_the_next_forecast_including_the_kors_draw():
    X, y = regression_stream(150, 3, seed=9)
    a, b = make(mu=0.5, beta=1.0, seed=4), make(mu=0.5, beta=1.0, seed=4)
    tr = a.run(X, y)
    joined = np.diff(np.r_[0, tr.budget]) > 0
    assert 5 < joined.sum() < 145          # both kinds of rounds occur
    for t in range(len(y)):
        assert b.decision_function(X[t:t + 1])[0] == tr.scores[t]
        assert b.predict_one(X[t]) == tr.scores[t]
        b.learn_one(X[t], y[t])
    np.testing.assert_array_equal(a.factor, b.factor)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def fingerprint(learner):
    return (learner.n_rounds, learner.dictionary.tobytes(), learner.dictionary_weights.tobytes(),
            learner.factor.tobytes(), learner.ridge_target.tobytes(), learner.next_uniform,
            tuple(learner._extras().values()))


@pytest.mark.parametrize("forecaster", ["awv", "krr"])
def test_pickle_mid_stream_resumes_identically(forecaster):
    X, y = regression_stream(400, 3, seed=2)
    kw = dict(kernel=okl.Gaussian(0.7), mu=0.02, beta=2.0, forecaster=forecaster, seed=8)
    full = make(**kw).run(X, y)
    learner = make(**kw)
    unborn = pickle.loads(pickle.dumps(learner))       # before any example
    first = learner.run(X[:170], y[:170])
    clone = pickle.loads(pickle.dumps(learner))
    assert fingerprint(clone) == fingerprint(learner)
    rest = clone.run(X[170:], y[170:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
    assert rest.extras == full.extras
    assert learner.n_rounds == 170
    np.testing.assert_array_equal(unborn.run(X, y).scores, full.scores)


def test_seeds():
    X, y = regression_stream(300, 3, seed=3)
    kw = dict(mu=0.05, beta=1.0)
    a, b = make(seed=21, **kw).run(X, y), make(seed=21, **kw).run(X, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.budget, b.budget)
    c = make(seed=22, **kw)
    tc = c.run(X, y)
    assert not np.array_equal(a.budget, tc.budget)
    g = make(seed=np.random.default_rng(21), **kw).run(X, y)
    np.testing.assert_array_equal(g.scores, a.scores)


@pytest.mark.parametrize("param,value,message", [
    ("lam", 0.0, "lam must be in"), ("lam", -1.0, "lam must be in"), ("lam", np.nan, "lam"),
    ("mu", 0.0, "mu must be in"), ("mu", np.inf, "mu must be finite"),
    ("beta", 0.0, "beta must be in"), ("beta", -2.0, "beta"), ("beta", "1", "beta"),
    ("eps", 0.0, "eps must be in"), ("eps", 1.0, "eps must be in"),
    ("forecaster", "ridge", "forecaster"), ("task", "ranking", "task"),
    ("seed", -1, "seed"), ("kernel", "rbf", "kernel"),
])
def test_bad_parameters(param, value, message):
    with pytest.raises(ValueError, match=message):
        make(**{param: value})


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_bad_input_raises_before_any_state_change(task):
    X, yc = xor_stream(120, 3, seed=1)
    y = yc if task == "classification" else np.sin(X[:, 0])
    learner = make(mu=0.05, beta=2.0, task=task)
    learner.run(X[:60], y[:60])
    before = fingerprint(learner)
    scores = learner.decision_function(X)
    bad = [
        (np.where(np.arange(60 * 3).reshape(60, 3) == 100, np.nan, X[60:]), y[60:], "NaN"),
        (X[60:, :2], y[60:], "features"),
        (X[60:], y[61:], "labels for"),
        (X[60:], np.where(np.arange(60) == 5, np.inf, y[60:]), "infinity"),
        (sp.csr_matrix(np.where(np.arange(180).reshape(60, 3) == 7, np.inf, X[60:])), y[60:],
         "infinity"),
    ]
    if task == "classification":
        bad.append((X[60:], np.where(np.arange(60) == 3, 0.5, y[60:]), "-1 or \\+1"))
    for bx, by, msg in bad:
        with pytest.raises(ValueError, match=msg):
            learner.run(bx, by)
        assert fingerprint(learner) == before
    with pytest.raises(ValueError, match="NaN"):
        learner.learn_one(np.array([0.1, np.nan, 0.3]), y[0])
    with pytest.raises(ValueError, match="features"):
        learner.learn_one(np.ones(4), y[0])
    if task == "classification":
        with pytest.raises(ValueError, match="-1 or \\+1"):
            learner.learn_one(X[70], 0.0)
    assert fingerprint(learner) == before
    np.testing.assert_array_equal(learner.decision_function(X), scores)
