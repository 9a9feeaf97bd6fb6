"""Sketched-KONS and Pros-N-KONS (okl.learners.kons) against plain-numpy oracles driven by
the same uniform draws:

* Sketched-KONS: online Newton step in the *primal* -- the empirical feature map
  ``Phi = V Lambda^{1/2}`` of the whole stream's Gram matrix (exact for any kernel on a
  finite stream; the identity for the linear kernel), an explicit ``A`` and
  ``np.linalg.solve`` -- nothing of the learner's Woodbury/kernel-coefficient form;
* Pros-N-KONS: KORS with the temporary dictionary and explicit inverses, the embedding
  ``Sigma^{-1/2} U^T k_I(x)`` of the eigendecomposition (the paper's; okl uses a
  Cholesky factor), ``A`` accumulated explicitly and solved;
* ``variant="jgr2019"``: the behaviour of the code of Jezequel et al. (``predict`` from
  ``w_{t-1}`` on the previous dictionary, ``phi~ = 0`` on restarts, KORS weights ``1/p``),
  re-implemented here from its description.
"""
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.learners.kons import DEPENDENCE_TOL, ProsNKONS, SketchedKONS, square_loss_eta
from conftest import ref_gram, sparse_stream, xor_stream


def uniforms(seed, n):
    """The learner's uniform() stream: numpy's Generator.random."""
    return np.random.default_rng(seed).random(n)


def regression_stream(T, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, d))
    y = np.clip(np.sin(3 * X[:, 0]) * np.cos(2 * X[:, 1 % d]) + 0.2 * rng.normal(size=T), -1, 1)
    return X, y


def clip(z, C):
    return min(max(z, -C), C)


# ----------------------------------------------------------------------------
# Oracles
# ----------------------------------------------------------------------------

def empirical_features(G):
    """Rows phi_i with phi_i . phi_j = G_ij (eigendecomposition; tiny negative eigenvalues
    of round-off clipped)."""
    lam, V = np.linalg.eigh((G + G.T) / 2)
    keep = lam > 1e-12 * max(lam.max(), 1e-300)
    return V[:, keep] * np.sqrt(lam[keep])


def ons_oracle(F, y, u, *, alpha, C, eta, beta, gamma):
    """Sketched-KONS (gamma = 1: KONS) in the primal, rows of F the features; A^{-1} is
    recomputed by numpy's inverse whenever A changes."""
    T, r = F.shape
    A = alpha * np.eye(r)
    Ainv = np.linalg.inv(A)
    logdet = np.linalg.slogdet(A)[1]
    w = np.zeros(r)
    g = np.zeros(r)
    out = dict(scores=np.zeros(T), budget=np.zeros(T, int), sampled=0, proj=0, proj_loose=0,
               sum_p=0.0, lev=0.0, logdet=0.0, rows=[])
    m = 0
    for t in range(T):
        phi = F[t]
        ut = w - Ainv @ g
        raw = phi @ ut
        hat = clip(raw, C)
        Aphi = Ainv @ phi
        h = raw - hat
        w = ut - (h / (phi @ Aphi)) * Aphi if h != 0 else ut
        out["proj"] += abs(h) > 1e-9                # clear projections
        out["proj_loose"] += abs(raw) >= C - 1e-9   # and those round-off may decide
        assert abs(phi @ w - hat) <= 1e-9 * (1 + abs(raw))
        out["scores"][t] = hat
        lp = 2 * (hat - y[t])
        g = lp * phi
        tau = eta * g @ Ainv @ g
        p = max(min(beta * tau, 1.0), gamma)
        out["sum_p"] += p
        if u[t] < p:
            out["sampled"] += 1
            if lp != 0:
                A = A + eta * np.outer(g, g)
                Ainv = np.linalg.inv(A)
                new = np.linalg.slogdet(A)[1]
                out["logdet"] += new - logdet
                logdet = new
                m += 1
                out["rows"].append(t)
        out["lev"] += g @ Ainv @ g
        out["budget"][t] = m
    return out


def pros_n_kons_oracle(G, y, u, *, alpha, C, eta, mu, beta, eps, code=False):
    """Pros-N-KONS round by round; G the Gram matrix of the whole stream."""
    T = len(y)
    D, W = [], []
    E = None                         # Sigma^{-1/2} U^T: embedding of k_I(x)
    A = w = g = None
    out = dict(scores=np.zeros(T), budget=np.zeros(T, int), p=np.zeros(T), rejected=0,
               proj=0, proj_loose=0, lev=0.0, logdet=0.0)
    power = 1.0 if code else 0.5
    for t in range(T):
        kxx = G[t, t]
        # KORS, temporary dictionary D + (t, 1), explicit inverse
        idx = D + [t]
        s = np.array(W + [1.0])
        Kaug = G[np.ix_(idx, idx)]
        M = s[:, None] * Kaug * s[None, :] + mu * np.eye(len(idx))
        kbar = s * Kaug[:, -1]
        tau = (1 + eps) / mu * (kxx - kbar @ np.linalg.solve(M, kbar))
        p = (1.0 if tau > 0 else 0.0) if math.isinf(beta) else min(max(beta * tau, 0.0), 1.0)
        out["p"][t] = p
        z = u[t] < p
        kI = G[t, D]
        phi_old = E @ kI if D else np.zeros(0)
        if code:                     # the code's predict(): w_{t-1}, previous dictionary
            out["scores"][t] = clip(phi_old @ w, C) if D else 0.0
        join = False
        if z:
            ald = kxx - (kI @ np.linalg.solve(G[np.ix_(D, D)], kI) if D else 0.0)
            join = ald > DEPENDENCE_TOL * kxx
            out["rejected"] += not join
        if join:
            D.append(t)
            W.append(p ** -power)
            lam, U = np.linalg.eigh(G[np.ix_(D, D)])
            E = (U / np.sqrt(lam)).T
            m = len(D)
            A = alpha * np.eye(m)
            w = np.zeros(m)
            g = np.zeros(m)
            if not code:
                phi = E @ G[t, D]
                out["scores"][t] = 0.0
                lp = 2 * (0.0 - y[t])
                g = lp * phi
                logdet0 = np.linalg.slogdet(A)[1]
                A = A + eta * np.outer(g, g)
                out["lev"] += g @ np.linalg.solve(A, g)
                out["logdet"] += np.linalg.slogdet(A)[1] - logdet0
        elif D:
            phi = phi_old
            ut = w - np.linalg.solve(A, g)
            raw = phi @ ut
            hat = clip(raw, C)
            Aphi = np.linalg.solve(A, phi)
            h = raw - hat
            w = ut - (h / (phi @ Aphi)) * Aphi if h != 0 else ut
            out["proj"] += abs(h) > 1e-9            # clear projections
            out["proj_loose"] += abs(raw) >= C - 1e-9   # and those round-off may decide
            if not code:
                out["scores"][t] = hat
            lp = 2 * (hat - y[t])
            g = lp * phi
            logdet0 = np.linalg.slogdet(A)[1]
            A = A + eta * np.outer(g, g)
            out["lev"] += g @ np.linalg.solve(A, g)
            out["logdet"] += np.linalg.slogdet(A)[1] - logdet0
        out["budget"][t] = len(D)
    out["D"], out["W"] = np.array(D, int), np.array(W)
    return out


# ----------------------------------------------------------------------------
# Sketched-KONS
# ----------------------------------------------------------------------------

SKETCH_CASES = [
    # kernel, params, task, sparse
    (okl.Linear(), dict(alpha=1.0, C=1.0, eta=1 / 16, beta=1.0, gamma=0.1), "regression", False),
    (okl.Gaussian(0.7), dict(alpha=1.0, C=1.0, eta=1 / 16, beta=1.0, gamma=0.1), "regression",
     False),
    (okl.Gaussian(1.0), dict(alpha=0.5, C=0.6, eta=0.1, beta=4.0, gamma=0.05), "regression",
     False),
    (okl.Gaussian(1.0), dict(alpha=1.0, C=1.0, eta=1 / 8, beta=1.0, gamma=1.0), "regression",
     False),                                                               # exact KONS
    (okl.Laplacian(2.0), dict(alpha=2.0, C=1.0, eta=1 / 16, beta=2.0, gamma=0.2),
     "classification", True),
    (okl.Polynomial(degree=2, gamma=0.5, coef0=1.0), dict(alpha=1.0, C=0.8, eta=1 / 16,
                                                          beta=1.0, gamma=0.3),
     "classification", False),
]


def stream_for(task, sparse, T=120, seed=3):
    if sparse:
        X, yc = sparse_stream(T, 8, seed=seed)
        yr = np.clip(np.sin(X.toarray().sum(axis=1)), -1, 1)
    else:
        X, yr = regression_stream(T, 3, seed=seed)
        yc = np.where(yr >= 0, 1.0, -1.0)
    return X, (yc if task == "classification" else yr)


@pytest.mark.parametrize("kernel,params,task,sparse", SKETCH_CASES,
                         ids=[f"{c[0]!r}-{c[1]['gamma']}-{c[2]}" for c in SKETCH_CASES])
def test_sketched_kons_matches_the_primal_oracle(kernel, params, task, sparse):
    X, y = stream_for(task, sparse)
    learner = SketchedKONS(kernel, task=task, seed=5, **params)
    tr = learner.run(X, y)
    Xd = X.toarray() if sp.issparse(X) else X
    F = Xd if isinstance(kernel, okl.Linear) else empirical_features(ref_gram(kernel, Xd, Xd))
    ref = ons_oracle(F, y, uniforms(5, len(y)), **params)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    np.testing.assert_allclose(tr.losses, (y - ref["scores"]) ** 2, rtol=1e-7, atol=1e-9)
    if task == "classification":
        np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
    ex = tr.extras
    assert ex["sampled"] == ref["sampled"]
    assert ref["proj"] <= ex["projections"] <= ref["proj_loose"]
    np.testing.assert_array_equal(learner.sketch_rows, ref["rows"])
    np.testing.assert_allclose(ex["sum_p"], ref["sum_p"], rtol=1e-9)
    np.testing.assert_allclose(ex["sum_leverage"], ref["lev"], rtol=1e-7)
    np.testing.assert_allclose(ex["log_det"], ref["logdet"], rtol=1e-7, atol=1e-9)
    assert ex["stored_inputs"] == len(y)
    assert ref["proj"] > 0                      # the projection branch is exercised
    if params["gamma"] < 1:
        assert 0 < ref["sampled"] < len(y)      # both branches of the sketch
    else:
        assert ref["sampled"] == len(y)


def test_sketched_kons_sketch_weights_and_factor():
    X, y = regression_stream(120, 2, seed=1)
    learner = SketchedKONS(okl.Gaussian(0.8), gamma=0.2, seed=2)
    tr = learner.run(X, y)
    rows = learner.sketch_rows
    np.testing.assert_array_equal(learner.sketch, X[rows])
    lp = 2 * (tr.scores[rows] - y[rows])
    np.testing.assert_allclose(learner.sketch_weights, math.sqrt(1 / 16) * np.abs(lp),
                               rtol=1e-12)
    S = np.diag(learner.sketch_weights)
    M = S @ ref_gram(okl.Gaussian(0.8), X[rows], X[rows]) @ S + np.eye(len(rows))
    L = learner.sketch_factor
    np.testing.assert_allclose(L @ L.T, M, rtol=1e-10, atol=1e-12)
    # u_{t+1} = sum_s c_s phi(x_s): the next forecast is its clipped value
    c = learner.newton_coefficients()
    x_new = np.array([[0.3, -0.2]])
    raw = ref_gram(okl.Gaussian(0.8), x_new, X)[0] @ c
    assert learner.decision_function(x_new)[0] == pytest.approx(clip(raw, 1.0), abs=1e-12)


def test_square_loss_eta():
    assert square_loss_eta() == 1 / 8
    assert square_loss_eta(2.0, 0.5) == pytest.approx(1 / (2 * 6.25))
    with pytest.raises(ValueError, match="C"):
        square_loss_eta(0.0)


# ----------------------------------------------------------------------------
# Pros-N-KONS
# ----------------------------------------------------------------------------

PNK_CASES = [
    # kernel, params, variant, task, sparse
    (okl.Gaussian(1.0), dict(alpha=1.0, C=1.0, eta=1 / 16, mu=1.0, beta=1.0, eps=0.5), "paper",
     "regression", False),
    (okl.Gaussian(1.0), dict(alpha=1.0, C=1.0, eta=1 / 16, mu=1.0, beta=1.0, eps=0.5),
     "jgr2019", "regression", False),
    (okl.Gaussian(0.5), dict(alpha=0.5, C=0.7, eta=0.1, mu=0.3, beta=2.0, eps=0.3), "paper",
     "regression", False),
    (okl.Gaussian(0.5), dict(alpha=0.5, C=0.7, eta=0.1, mu=0.5, beta=2.0, eps=0.3), "jgr2019",
     "classification", False),
    (okl.Laplacian(2.0), dict(alpha=1.0, C=1.0, eta=1 / 16, mu=0.2, beta=1.0, eps=0.9), "paper",
     "classification", True),
    # a finite-dimensional feature space: sampled points beyond the span are rejected
    (okl.Linear(), dict(alpha=1.0, C=1.0, eta=1 / 16, mu=1e-3, beta=50.0, eps=0.5), "paper",
     "regression", False),
]


@pytest.mark.parametrize("kernel,params,variant,task,sparse", PNK_CASES,
                         ids=[f"{c[0]!r}-{c[2]}-{c[3]}" for c in PNK_CASES])
def test_pros_n_kons_matches_the_oracle(kernel, params, variant, task, sparse):
    X, y = stream_for(task, sparse, T=150, seed=4)
    learner = ProsNKONS(kernel, variant=variant, task=task, seed=11, **params)
    tr = learner.run(X, y)
    Xd = X.toarray() if sp.issparse(X) else X
    ref = pros_n_kons_oracle(ref_gram(kernel, Xd, Xd), y, uniforms(11, len(y) + 1),
                             code=variant == "jgr2019", **params)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    np.testing.assert_allclose(tr.losses, (y - ref["scores"]) ** 2, rtol=1e-7, atol=1e-9)
    if task == "classification":
        np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
    np.testing.assert_array_equal(learner.dictionary_rounds - 1, ref["D"])
    np.testing.assert_allclose(learner.dictionary_weights, ref["W"], rtol=1e-9)
    np.testing.assert_array_equal(learner.dictionary, Xd[ref["D"]])
    ex = tr.extras
    assert ex["restarts"] == len(ref["D"]) == ex["dictionary_size"]
    assert ex["rejected"] == ref["rejected"]
    assert ref["proj"] <= ex["projections"] <= ref["proj_loose"]
    np.testing.assert_allclose(ex["sum_p"], ref["p"].sum(), rtol=1e-10)
    np.testing.assert_allclose(ex["sum_leverage"], ref["lev"], rtol=1e-7)
    np.testing.assert_allclose(ex["log_det"], ref["logdet"], rtol=1e-7, atol=1e-9)
    assert 2 <= ex["restarts"] < len(y) and ref["proj"] > 0
    if isinstance(kernel, okl.Linear):
        assert ex["rejected"] > 0 and ex["dictionary_size"] == 3


def test_pros_n_kons_embedding_and_state():
    X, y = regression_stream(150, 3, seed=6)
    learner = ProsNKONS(okl.Gaussian(0.8), seed=3)
    learner.run(X, y)
    D = learner.dictionary
    KII = ref_gram(okl.Gaussian(0.8), D, D)
    L = learner.embedding_factor
    np.testing.assert_allclose(L @ L.T, KII, rtol=1e-10, atol=1e-12)
    Phi = learner.embed(X[:20])
    K = ref_gram(okl.Gaussian(0.8), X[:20], D)
    np.testing.assert_allclose(Phi @ Phi.T, K @ np.linalg.solve(KII, K.T), rtol=1e-8,
                               atol=1e-10)
    # the next forecast is clip(phi~(x)^T u) unless x would join (then 0)
    u = learner.newton_point
    x = X[:1] * 0.99
    f = learner.decision_function(x)[0]
    assert f == pytest.approx(clip(learner.embed(x)[0] @ u, 1.0), abs=1e-12) or f == 0.0
    Ainv = learner.newton_inverse
    np.testing.assert_allclose(Ainv, Ainv.T)
    assert np.all(np.linalg.eigvalsh(Ainv) <= 1.0 + 1e-12)      # A~ >= alpha I, alpha = 1


# ----------------------------------------------------------------------------
# API: decision_function, pickling, seeds, validation (both learners)
# ----------------------------------------------------------------------------

MAKERS = {
    "sketched": lambda **kw: SketchedKONS(okl.Gaussian(0.7), gamma=0.2, **kw),
    "pros": lambda **kw: ProsNKONS(okl.Gaussian(0.7), mu=0.5, **kw),
    "pros-code": lambda **kw: ProsNKONS(okl.Gaussian(0.7), mu=0.5, variant="jgr2019", **kw),
}


def fingerprint(learner):
    items = [learner.n_rounds, tuple(learner._extras().values()),
             learner.support_set.vectors.tobytes(), learner.support_set.coefficients.tobytes()]
    if isinstance(learner, ProsNKONS):
        items += [learner.newton_inverse.tobytes(), learner.newton_point.tobytes(),
                  learner.weights_.tobytes(), learner.next_uniform]
    else:
        items += [learner.newton_coefficients().tobytes(), learner.sketch_factor.tobytes()]
    return tuple(items)


@pytest.mark.parametrize("which", MAKERS)
def test_decision_function_is_the_next_forecast(which):
    X, y = regression_stream(140, 3, seed=9)
    a, b = MAKERS[which](seed=4), MAKERS[which](seed=4)
    tr = a.run(X, y)
    assert 3 < tr.budget[-1] < 140
    for t in range(len(y)):
        assert b.decision_function(X[t:t + 1])[0] == tr.scores[t]
        assert b.predict_one(X[t]) == tr.scores[t]
        b.learn_one(X[t], y[t])
    assert fingerprint(a) == fingerprint(b)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("which", MAKERS)
def test_pickle_mid_stream_resumes_identically(which):
    X, y = regression_stream(300, 3, seed=2)
    full = MAKERS[which](seed=8).run(X, y)
    learner = MAKERS[which](seed=8)
    unborn = pickle.loads(pickle.dumps(learner))
    first = learner.run(X[:130], y[:130])
    clone = pickle.loads(pickle.dumps(learner))
    assert fingerprint(clone) == fingerprint(learner)
    rest = clone.run(X[130:], y[130:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
    assert rest.extras == full.extras
    np.testing.assert_array_equal(unborn.run(X, y).scores, full.scores)
    assert repr(type(clone)(**clone.get_params())) == repr(clone)


@pytest.mark.parametrize("which", MAKERS)
def test_seeds(which):
    X, y = regression_stream(250, 3, seed=3)
    a, b = MAKERS[which](seed=21).run(X, y), MAKERS[which](seed=21).run(X, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    c = MAKERS[which](seed=22).run(X, y)
    assert not np.array_equal(a.budget, c.budget)
    g = MAKERS[which](seed=np.random.default_rng(21)).run(X, y)
    np.testing.assert_array_equal(g.scores, a.scores)


@pytest.mark.parametrize("which", ["sketched", "pros"])
def test_csr_equals_dense(which):
    X, yc = sparse_stream(150, 10, seed=7)
    a = MAKERS[which](seed=1).run(X, yc)
    b = MAKERS[which](seed=1).run(X.toarray(), yc)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(a.budget, b.budget)


@pytest.mark.parametrize("cls,param,value,message", [
    (SketchedKONS, "alpha", 0.0, "alpha must be in"), (SketchedKONS, "alpha", np.nan, "alpha"),
    (SketchedKONS, "C", 0.0, "C must be in"), (SketchedKONS, "eta", -1.0, "eta"),
    (SketchedKONS, "eta", np.inf, "eta"), (SketchedKONS, "beta", np.inf, "beta"),
    (SketchedKONS, "gamma", 0.0, "gamma must be in"), (SketchedKONS, "gamma", 1.5, "gamma"),
    (SketchedKONS, "task", "ranking", "task"), (SketchedKONS, "seed", -1, "seed"),
    (SketchedKONS, "kernel", "rbf", "kernel"),
    (ProsNKONS, "alpha", -1.0, "alpha"), (ProsNKONS, "mu", 0.0, "mu must be in"),
    (ProsNKONS, "mu", np.inf, "mu"), (ProsNKONS, "beta", 0.0, "beta"),
    (ProsNKONS, "eps", 1.0, "eps must be in"), (ProsNKONS, "variant", "code", "variant"),
    (ProsNKONS, "C", -2.0, "C"), (ProsNKONS, "eta", "1", "eta"),
])
def test_bad_parameters(cls, param, value, message):
    with pytest.raises(ValueError, match=message):
        cls(**{param: value})


@pytest.mark.parametrize("which", MAKERS)
@pytest.mark.parametrize("task", ["regression", "classification"])
def test_bad_input_raises_before_any_state_change(which, task):
    X, yc = xor_stream(120, 3, seed=1)
    y = yc if task == "classification" else np.sin(X[:, 0])
    learner = MAKERS[which](task=task, seed=0)
    learner.run(X[:60], y[:60])
    before = fingerprint(learner)
    scores = learner.decision_function(X)
    bad = [
        (np.where(np.arange(60 * 3).reshape(60, 3) == 100, np.nan, X[60:]), y[60:], "NaN"),
        (X[60:, :2], y[60:], "features"),
        (X[60:], y[61:], "labels for"),
        (X[60:], np.where(np.arange(60) == 5, np.inf, y[60:]), "infinity"),
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
    assert fingerprint(learner) == before
    np.testing.assert_array_equal(learner.decision_function(X), scores)


def test_registered_at_the_top_level():
    assert okl.SketchedKONS is SketchedKONS and okl.ProsNKONS is ProsNKONS
    assert "SketchedKONS" in okl.learners.__all__ and "ProsNKONS" in okl.learners.__all__


# ----------------------------------------------------------------------------
# okl bounds
# ----------------------------------------------------------------------------

def test_bounds_report_rows():
    from okl.cli import main
    from okl.experiments.bounds import bounds_report

    X, y = regression_stream(200, 2, seed=5)
    sources = {}
    for learner in [SketchedKONS(okl.Gaussian(0.7), gamma=0.3, seed=0),
                    SketchedKONS(okl.Gaussian(0.7), gamma=1.0, seed=0),
                    ProsNKONS(okl.Gaussian(0.7), seed=0)]:
        rep = bounds_report(learner, X, y)
        checked = [r for r in rep.rows if r["holds"] is not None]
        assert checked and all(r["holds"] for r in checked)
        sources[repr(learner)] = [r["source"] for r in checked]
        assert any("eq. (8)" in r["source"] and r["bound"] is None for r in rep.rows)
    assert sum(len(v) for v in sources.values()) == 5
    # the recorded forecasts of the authors' code are not the learned ones: no bound
    rep = bounds_report(ProsNKONS(okl.Gaussian(0.7), variant="jgr2019", seed=0), X, y)
    assert "jgr2019" in rep.rows[0]["note"] and rep.rows[0]["holds"] is None
    # a step above 1/(2 (yhat - y)^2) voids the bounds, and the report says so
    rep = bounds_report(SketchedKONS(okl.Gaussian(0.7), eta=4.0, seed=0), X, y)
    assert "eta <=" in rep.rows[0]["note"] and rep.rows[0]["holds"] is None
    assert main(["bounds", "--learner", "ProsNKONS", "--rounds", "150", "-p", "mu=0.5"]) == 0
