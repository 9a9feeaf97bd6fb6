"""Forgetron, RBP, BOGD and BOGD++ against plain-numpy oracles written from the papers.

Randomized learners are driven by the same uniform draws as the oracle:
``np.random.default_rng(seed).random()`` reproduces ``Learner.uniform()``.
"""
import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

import okl
from okl.learners.fixed_budget import BOGD, BOGDPP, RBP, Forgetron
from conftest import KERNELS, ref_gram, sparse_stream, xor_stream


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)


def score_of(kernel, x, S, a):
    return float(ref_gram(kernel, x[None], np.array(S))[0] @ np.array(a)) if S else 0.0


# ----------------------------------------------------------------------------
# Forgetron
# ----------------------------------------------------------------------------

def psi(lam, mu):
    """Psi(lambda, mu) = lambda^2 + 2 lambda - 2 lambda mu (Dekel et al.)."""
    return lam * lam + 2.0 * lam - 2.0 * lam * mu


def self_tuned_phi(sigma, mu, Q, M):
    """max{phi in (0, 1] : Psi(sigma phi, phi mu) + Q <= 15/32 M}, by root bracketing."""
    def g(p):
        return psi(sigma * p, p * mu) + Q - 15.0 / 32.0 * M
    assert g(0.0) < 0.0
    if g(1.0) <= 0.0:
        return 1.0
    # g < 0 at 0 and > 0 at 1: the largest feasible phi is the first crossing, which
    # is the only one in (0, 1) (g is a quadratic with g'(0) = 2 sigma > 0)
    return brentq(g, 0.0, 1.0, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def forgetron_oracle(kernel, X, y, B):
    Xd = dense(X)
    S, a, stamps = [], [], []
    Q, M = 0.0, 0
    scores, budget, phis, rounds, Qs = [], [], [], [], []
    for t in range(len(y)):
        x = Xd[t]
        f = score_of(kernel, x, S, a)
        scores.append(f)
        if y[t] * f <= 0:
            M += 1
            S2, a2, st2 = S + [x], a + [y[t]], stamps + [t + 1]
            if len(S2) <= B:
                S, a, stamps = S2, a2, st2
            else:
                r = 0  # the oldest active example
                mu = np.sign(a[r]) * score_of(kernel, S[r], S2, a2)  # y_r f'_t(x_r)
                sigma = abs(a[r])
                phi = self_tuned_phi(sigma, mu, Q, M)
                Q += psi(sigma * phi, phi * mu)  # y_r f''_t(x_r) = phi mu
                a2 = [phi * v for v in a2]
                S, a, stamps = S2[1:], a2[1:], st2[1:]
                phis.append(phi)
                rounds.append(t + 1)
        budget.append(len(S))
        Qs.append(Q)
    return dict(scores=np.array(scores), budget=np.array(budget), phi=np.array(phis),
                rounds=np.array(rounds, dtype=np.int64), Q=Q, M=M, a=np.array(a),
                stamps=np.array(stamps), Qs=np.array(Qs))


FORGETRON_CASES = [
    (okl.Gaussian(0.7), 8, False),
    (okl.Gaussian(3.0), 12, False),
    (okl.Laplacian(2.0), 10, True),
    (okl.Polynomial(degree=3, gamma=0.5, coef0=1.0), 6, False),
    (okl.Linear(), 5, True),
]


@pytest.mark.parametrize("kernel,B,sparse", FORGETRON_CASES, ids=repr)
def test_forgetron_matches_oracle_round_for_round(kernel, B, sparse):
    X, y = sparse_stream(300, 8, seed=3) if sparse else xor_stream(300, 4, seed=3)
    if isinstance(kernel, okl.Polynomial):
        X = X * 0.25  # k(x, x) of order 1, as the analysis assumes: phi < 1 does occur
    ref = forgetron_oracle(kernel, X, y, B)
    learner = Forgetron(kernel=kernel, B=B)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
    np.testing.assert_allclose(tr.losses, np.maximum(0, -y * ref["scores"]), rtol=1e-9,
                               atol=1e-9)
    np.testing.assert_array_equal(tr.extras["removal_rounds"], ref["rounds"])
    np.testing.assert_allclose(tr.extras["phi"], ref["phi"], rtol=1e-9)
    assert tr.extras["M"] == ref["M"] == tr.n_mistakes
    assert tr.extras["removals"] == len(ref["phi"])
    assert tr.extras["Q"] == pytest.approx(ref["Q"], rel=1e-9)
    np.testing.assert_allclose(learner.coefficients, ref["a"], rtol=1e-9, atol=1e-12)
    assert tr.budget.max() <= B and tr.budget[-1] == B
    assert len(ref["phi"]) > 50                 # many removals ...
    assert (ref["phi"] < 1).sum() > 5           # ... and the shrinking rule is exercised


def test_forgetron_invariants_hold_at_every_round():
    """Q_t <= 15/32 M_t always, with equality after every removal with phi_t < 1;
    the support set is the last B mistakes, each weighted by the phis since it entered."""
    X, y = xor_stream(600, 3, seed=7)
    B = 9
    learner = Forgetron(kernel=okl.Gaussian(0.8), B=B)
    mistakes, phis, tight = [], [], 0
    for t in range(len(y)):
        tr = learner.run(X[t:t + 1], y[t:t + 1])
        if tr.mistakes[0]:
            mistakes.append(t + 1)
        Q, M = learner.Q_, learner.M_
        assert Q <= 15 / 32 * M * (1 + 1e-12)
        if tr.extras["removals"] and len(tr.extras["phi"]):
            phi = tr.extras["phi"][0]
            assert 0 < phi <= 1
            phis.append((t + 1, phi))
            if phi < 1:
                assert Q == pytest.approx(15 / 32 * M, rel=1e-12)
                tight += 1
    assert tight > 10
    assert M == len(mistakes)
    np.testing.assert_array_equal(learner.support_rounds, mistakes[-B:])
    expected = []
    for s in mistakes[-B:]:
        expected.append(y[s - 1] * np.prod([p for r, p in phis if r >= s]))
    np.testing.assert_allclose(learner.coefficients, expected, rtol=1e-12)
    assert learner.U_ == pytest.approx(math.sqrt(B + 1) / (4 * math.sqrt(math.log(B + 1))))


def test_forgetron_with_room_to_spare_is_the_perceptron():
    X, y = xor_stream(300, 4, seed=2)
    a = Forgetron(kernel=okl.Gaussian(1.0), B=300).run(X, y)
    b = okl.Perceptron(kernel=okl.Gaussian(1.0)).run(X, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.extras["removals"] == 0 and len(a.extras["phi"]) == 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 16), T=st.integers(1, 80), B=st.integers(1, 6),
       sigma=st.floats(0.3, 4.0))
def test_forgetron_property(seed, T, B, sigma):
    X, y = xor_stream(T, 3, seed=seed)
    kernel = okl.Gaussian(sigma)
    ref = forgetron_oracle(kernel, X, y, B)
    tr = Forgetron(kernel=kernel, B=B).run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    np.testing.assert_allclose(tr.extras["phi"], ref["phi"], rtol=1e-8)


# ----------------------------------------------------------------------------
# RBP
# ----------------------------------------------------------------------------

def rbp_oracle(kernel, X, y, B, seed):
    Xd = dense(X)
    rng = np.random.default_rng(seed)
    S, a, stamps, scores, budget, removed = [], [], [], [], [], 0
    for t in range(len(y)):
        f = score_of(kernel, Xd[t], S, a)
        scores.append(f)
        if y[t] * f <= 0:
            if len(S) == B:
                k = min(int(rng.random() * B), B - 1)  # uniform over the support set
                S[k], a[k], stamps[k] = Xd[t], y[t], t + 1  # the new one takes slot k
                removed += 1
            else:
                S.append(Xd[t])
                a.append(y[t])
                stamps.append(t + 1)
        budget.append(len(S))
    return np.array(scores), np.array(budget), removed, np.array(stamps)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
def test_rbp_matches_oracle_round_for_round(kernel, sparse):
    X, y = sparse_stream(300, 8, seed=4) if sparse else xor_stream(300, 4, seed=4)
    if isinstance(kernel, okl.Polynomial):
        X = X * 0.5
    B = 10
    ref_scores, ref_budget, removed, stamps = rbp_oracle(kernel, X, y, B, seed=11)
    learner = RBP(kernel=kernel, B=B, seed=11)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref_scores, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref_budget)
    np.testing.assert_array_equal(tr.mistakes, y * ref_scores <= 0)
    np.testing.assert_array_equal(learner.support_rounds, stamps)
    np.testing.assert_array_equal(learner.coefficients, y[stamps - 1])
    assert tr.extras["removals"] == removed > 30
    assert tr.budget.max() <= B


# ----------------------------------------------------------------------------
# BOGD and BOGD++
# ----------------------------------------------------------------------------

def bogdpp_probabilities(w):
    """p_j = 1 - (n-1) w_j / W when that is a distribution; otherwise the water-filling
    1 - p_j = min(1, c w_j) with sum (1 - p_j) = n - 1, found by capping the largest."""
    n = len(w)
    if (w == 0).any():
        p = np.zeros(n)
        p[np.flatnonzero(w == 0)[0]] = 1.0
        return p, False
    p = 1 - (n - 1) * w / w.sum()
    if (p >= 0).all():
        return p, False
    order = np.argsort(-w)
    for m in range(1, n):
        c = (n - 1 - m) / w[order[m:]].sum()
        if c * w[order[m - 1]] >= 1 and c * w[order[m]] < 1:
            q = np.minimum(1.0, c * w)
            q[order[:m]] = 1.0
            return 1 - q, True
    raise AssertionError("no water level")


def bogd_oracle(kernel, X, y, *, B, eta, lam, gamma, nonuniform, seed):
    Xd = dense(X)
    rng = np.random.default_rng(seed)
    cap = math.inf if gamma is None else eta * gamma
    decay = 1 - eta * lam
    S, a = [], []
    scores, budget, removed, capped_events, updates = [], [], 0, 0, 0
    for t in range(len(y)):
        f = score_of(kernel, Xd[t], S, a)
        scores.append(f)
        if y[t] * f >= 1:               # zero hinge loss: the gradient is lam f
            a = [decay * v for v in a]
        else:
            updates += 1
            if len(S) < B:
                a = [decay * v for v in a]
                S.append(Xd[t])
                a.append(float(np.clip(eta * y[t], -cap, cap)))
            else:
                u = rng.random()
                if nonuniform:
                    kdiag = np.diag(ref_gram(kernel, np.array(S), np.array(S)))
                    w = np.abs(a) * np.sqrt(np.maximum(kdiag, 0))
                    p, capped = bogdpp_probabilities(w)
                    capped_events += capped
                    cum = np.cumsum(p)
                    k = int(np.searchsorted(cum, u * cum[-1], side="right"))
                else:
                    p = np.full(B, 1.0 / B)
                    k = min(int(u * B), B - 1)
                # unbiased: survivor j divided by its survival probability 1 - p_j
                a = [float(np.clip(decay * a[j] / (1 - p[j]), -cap, cap)) if j != k else 0.0
                     for j in range(B)]
                S[k], a[k] = Xd[t], float(np.clip(eta * y[t], -cap, cap))  # takes slot k
                removed += 1
        budget.append(len(S))
    return dict(scores=np.array(scores), budget=np.array(budget), removed=removed,
                capped=capped_events, updates=updates, a=np.array(a))


BOGD_CASES = [
    # kernel, B, eta, lam, gamma, sparse
    (okl.Gaussian(1.0), 8, 0.5, 0.05, None, False),
    (okl.Gaussian(0.7), 10, 0.8, 0.3, 4.0, False),
    (okl.Laplacian(2.0), 6, 0.3, 0.2, 2.0, True),
    (okl.Polynomial(degree=2, gamma=0.5, coef0=1.0), 7, 0.2, 0.5, None, False),
    (okl.Linear(), 5, 0.4, 0.0, 1.0, True),
    (okl.Gaussian(1.5), 1, 1.0, 0.1, None, False),
]


@pytest.mark.parametrize("nonuniform", [False, True], ids=["BOGD", "BOGD++"])
@pytest.mark.parametrize("kernel,B,eta,lam,gamma,sparse", BOGD_CASES, ids=repr)
def test_bogd_matches_oracle_round_for_round(nonuniform, kernel, B, eta, lam, gamma, sparse):
    X, y = sparse_stream(250, 8, seed=6) if sparse else xor_stream(250, 4, seed=6)
    if isinstance(kernel, okl.Polynomial):
        X = X * 0.5
    cls = BOGDPP if nonuniform else BOGD
    ref = bogd_oracle(kernel, X, y, B=B, eta=eta, lam=lam, gamma=gamma,
                      nonuniform=nonuniform, seed=5)
    learner = cls(kernel=kernel, B=B, eta=eta, lam=lam, gamma=gamma, seed=5)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    np.testing.assert_allclose(tr.losses, np.maximum(0, 1 - y * ref["scores"]), rtol=1e-9,
                               atol=1e-10)
    np.testing.assert_allclose(learner.coefficients, ref["a"], rtol=1e-9, atol=1e-13)
    assert tr.extras["removals"] == ref["removed"] > 20
    assert tr.extras["n_updates"] == ref["updates"]
    assert tr.budget.max() <= B
    if gamma is not None:
        assert np.abs(learner.coefficients).max() <= eta * gamma * (1 + 1e-15)


def test_bogdpp_water_filling_is_exercised_and_matched():
    """lam large: old coefficients decay, (B - 1) w_j > W happens and p_j is capped at 0."""
    X, y = xor_stream(300, 3, seed=8)
    kw = dict(B=5, eta=0.5, lam=0.5, gamma=None)
    ref = bogd_oracle(okl.Gaussian(1.0), X, y, nonuniform=True, seed=3, **kw)
    assert ref["capped"] > 20 and ref["removed"] - ref["capped"] > 20
    tr = BOGDPP(kernel=okl.Gaussian(1.0), seed=3, **kw).run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-9, atol=1e-12)


def test_bogdpp_probabilities_follow_the_paper_formula():
    X, y = xor_stream(200, 3, seed=1)
    learner = BOGDPP(kernel=okl.Polynomial(degree=2, gamma=0.3, coef0=1.0), B=12, eta=0.5,
                     lam=0.02, gamma=None, seed=0)
    learner.run(X, y)
    a = learner.coefficients
    S = learner.support_vectors
    w = np.abs(a) * np.sqrt(np.diag(ref_gram(learner.kernel, S, S)))
    p = learner.removal_probabilities()
    np.testing.assert_allclose(p, 1 - (len(a) - 1) * w / w.sum(), rtol=1e-12, atol=1e-15)
    assert p.sum() == pytest.approx(1.0) and (p >= 0).all() and (p < 1).all()
    assert np.all(np.diff(p[np.argsort(w)]) <= 1e-15)  # heavier vectors are kept
    uniform = BOGD(B=4, seed=0)
    assert uniform.removal_probabilities().shape == (0,)
    uniform.run(X[:50], y[:50])
    np.testing.assert_array_equal(uniform.removal_probabilities(), np.full(4, 0.25))


@pytest.mark.parametrize("cls", [BOGD, BOGDPP])
def test_bogd_removal_is_unbiased(cls):
    """From one full-budget state, the average hypothesis after a maintenance round over
    many independent draws is (1 - eta lam) f_t + eta y_t k(x_t, .)."""
    X, y = xor_stream(400, 3, seed=12)
    kernel = okl.Gaussian(1.0)
    learner = cls(kernel=kernel, B=6, eta=0.5, lam=0.2, gamma=None, seed=0)
    learner.run(X[:100], y[:100])
    for t in range(100, 200):  # advance to a round that triggers a removal
        if learner.support_set.size == 6 and y[t] * learner.decision_function(X[t:t + 1])[0] < 1:
            break
        learner.learn_one(X[t], y[t])
    else:
        raise AssertionError("no budget maintenance round found")
    probes = X[200:260]
    f_t = learner.decision_function(probes)
    expected = 0.9 * f_t + 0.5 * y[t] * ref_gram(kernel, probes, X[t:t + 1])[:, 0]
    state = pickle.dumps(learner)
    outs = []
    for s in range(3000):
        clone = pickle.loads(state)
        clone._core_set_rng(np.random.default_rng(s))
        clone.learn_one(X[t], y[t])
        outs.append(clone.decision_function(probes))
    outs = np.array(outs)
    err = outs.mean(axis=0) - expected
    se = outs.std(axis=0) / np.sqrt(len(outs)) + 1e-12
    assert np.abs(err / se).max() < 5
    assert outs.std(axis=0).max() > 1e-3  # the draws did vary


def test_default_gamma_keeps_every_coefficient_at_eta():
    """With lam = 0 and gamma = 1 (the Ahpatron runs) the reweighted survivors are
    clipped back to eta: BOGD and BOGD++ then remove uniformly at random."""
    X, y = xor_stream(400, 3, seed=3)
    a = BOGD(B=10, eta=0.3, seed=4)
    b = BOGDPP(B=10, eta=0.3, seed=4)
    ta, tb = a.run(X, y), b.run(X, y)
    np.testing.assert_allclose(np.abs(a.coefficients), 0.3)
    np.testing.assert_allclose(ta.scores, tb.scores, rtol=1e-12, atol=1e-14)


# ----------------------------------------------------------------------------
# shared: seeds, draws, pickling, dense == CSR, validation
# ----------------------------------------------------------------------------

MAKERS = {
    "Forgetron": lambda seed: Forgetron(kernel=okl.Gaussian(1.0), B=7, seed=seed),
    "RBP": lambda seed: RBP(kernel=okl.Gaussian(1.0), B=7, seed=seed),
    "BOGD": lambda seed: BOGD(kernel=okl.Gaussian(1.0), B=7, eta=0.5, lam=0.1, gamma=None,
                              seed=seed),
    "BOGD++": lambda seed: BOGDPP(kernel=okl.Gaussian(1.0), B=7, eta=0.5, lam=0.1,
                                  gamma=3.0, seed=seed),
}
RANDOMIZED = ["RBP", "BOGD", "BOGD++"]


@pytest.mark.parametrize("name", RANDOMIZED)
def test_same_seed_same_trace_different_seed_different_trace(name):
    X, y = xor_stream(400, 3, seed=5)
    a, b, c = (MAKERS[name](s).run(X, y) for s in (3, 3, 4))
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.budget, b.budget)
    assert not np.array_equal(a.scores, c.scores)


@pytest.mark.parametrize("seed", [0, 7, 2 ** 40])
def test_uniform_draws_are_numpy_default_rng(seed):
    np.testing.assert_array_equal(RBP(seed=seed)._uniform_draws(50),
                                  np.random.default_rng(seed).random(50))


@pytest.mark.parametrize("name", list(MAKERS))
def test_pickle_mid_stream_resumes_identically(name):
    X, y = xor_stream(500, 3, seed=9)
    full = MAKERS[name](21).run(X, y)
    learner = MAKERS[name](21)
    first = learner.run(X[:173], y[:173])
    clone = pickle.loads(pickle.dumps(learner))
    assert repr(clone) == repr(learner)
    rest = clone.run(X[173:], y[173:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
    assert rest.extras["removals"] == full.extras["removals"]
    if name == "Forgetron":
        assert rest.extras["Q"] == full.extras["Q"] and rest.extras["M"] == full.extras["M"]
        np.testing.assert_array_equal(np.r_[first.extras["phi"], rest.extras["phi"]],
                                      full.extras["phi"])
    # the original is untouched by its clone and continues identically too
    np.testing.assert_array_equal(learner.run(X[173:], y[173:]).scores, rest.scores)


@pytest.mark.parametrize("name", list(MAKERS))
def test_dense_equals_csr_and_learn_one_equals_run(name):
    X, y = sparse_stream(300, 10, seed=2)
    a = MAKERS[name](1).run(X, y)
    b = MAKERS[name](1).run(X.toarray(), y)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(a.budget, b.budget)
    one = MAKERS[name](1)
    for t in range(60):
        assert one.decision_function(X[t])[0] == pytest.approx(b.scores[t], rel=1e-12,
                                                               abs=1e-13)
        one.learn_one(X[t], y[t])


@pytest.mark.parametrize("cls,bad,name", [
    (Forgetron, dict(B=0), "B"), (Forgetron, dict(B=2.5), "B"), (Forgetron, dict(B=True), "B"),
    (Forgetron, dict(seed=-1), "seed"), (Forgetron, dict(kernel="rbf"), "kernel"),
    (RBP, dict(B=-3), "B"), (RBP, dict(seed=1.5), "seed"),
    (BOGD, dict(B=0), "B"), (BOGD, dict(eta=0.0), "eta"), (BOGD, dict(eta=float("nan")), "eta"),
    (BOGD, dict(lam=-0.1), "lam"), (BOGD, dict(eta=2.0, lam=0.5), "eta \\* lam"),
    (BOGD, dict(gamma=0.0), "gamma"), (BOGDPP, dict(gamma=-1.0), "gamma"),
    (BOGDPP, dict(gamma="big"), "gamma"), (BOGDPP, dict(B=None), "B"),
])
def test_parameter_validation(cls, bad, name):
    with pytest.raises(ValueError, match=name):
        cls(**bad)


def test_get_params_round_trip():
    for make in MAKERS.values():
        learner = make(3)
        clone = type(learner)(**learner.get_params())
        assert repr(clone) == repr(learner)


@pytest.mark.parametrize("cls", [BOGD, BOGDPP])
def test_bogd_margin_exactly_one_is_not_an_update(cls):
    """y f(x) = 1 has zero hinge loss (subgradient 0): only the decay applies."""
    x = np.array([[0.3, -1.2]])
    learner = cls(kernel=okl.Gaussian(1.0), B=1, eta=1.0, lam=0.0, gamma=None, seed=0)
    tr = learner.run(np.repeat(x, 4, axis=0), np.ones(4))
    np.testing.assert_array_equal(tr.scores, [0.0, 1.0, 1.0, 1.0])
    assert tr.extras["n_updates"] == 1 and tr.extras["removals"] == 0
    np.testing.assert_array_equal(tr.losses, [1.0, 0.0, 0.0, 0.0])
