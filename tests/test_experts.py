"""Hedge, MSMW and OSMD against plain-numpy oracles written from the updates of Li & Liao,
*Online kernel selection with computational constraints* (LKMBooks' exponential weights,
PFMBooks' MSMW, BATBooks' estimator (10) and OSMD step (11)), round for round."""
import math
import pickle

import numpy as np
import pytest
from scipy import optimize, stats

from okl.learners._experts import HedgeCore, MSMWCore, OSMDCore
from okl.learners.experts import MSMW, OSMD, ExpertsTrace, Hedge, msmw_scale_prior


# ----------------------------------------------------------------------------
# oracles (numpy / scipy only)
# ----------------------------------------------------------------------------

def softmax(z):
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def draw(p, u):
    """Inverse CDF: the first k with u < p_1 + ... + p_k."""
    return int(min(np.searchsorted(np.cumsum(p), u, side="right"), len(p) - 1))


def hedge_oracle(L, eta, prior=None):
    """p_t ∝ p_1 exp(-eta L_{t-1}) (closed form of the multiplicative update)."""
    T, K = L.shape
    logp1 = np.log(np.full(K, 1.0 / K) if prior is None else prior)
    cum = np.vstack([np.zeros(K), np.cumsum(L, axis=0)[:-1]])
    return np.array([softmax(logp1 - eta * cum[t]) for t in range(T)])


def msmw_step(p, loss, c, eta):
    """p_{t+1,k} = p_k exp(eta (lam - l_k)/c_k), lam by Brent's method on sum = 1."""
    f = lambda lam: np.sum(p * np.exp(eta * (lam - loss) / c)) - 1.0  # noqa: E731
    lo, hi = loss.min(), loss.max()
    if f(lo) == 0.0 or lo == hi:
        lam = lo
    elif f(hi) == 0.0:
        lam = hi
    else:
        lam = optimize.brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    q = p * np.exp(eta * (lam - loss) / c)
    return q / q.sum(), lam


def msmw_oracle(L, c, eta, prior):
    p = np.array(prior, dtype=float)
    out, lams = [], []
    for t in range(L.shape[0]):
        out.append(p)
        p, lam = msmw_step(p, L[t], c, eta)
        lams.append(lam)
    return np.array(out), p, np.array(lams)


def osmd_oracle(L, eta, seed, feedback):
    """Exp3 / BATBooks' (10)+(11) with the learner's uniform stream reproduced."""
    T, K = L.shape
    rng = np.random.default_rng(seed)
    p = np.full(K, 1.0 / K)
    P, I, J = [], [], []
    for t in range(T):
        P.append(p)
        i = draw(p, rng.random())
        est = np.zeros(K)
        if feedback == "explore":
            j = min(int(rng.random() * K), K - 1)
            q = (K - 1) / K * p + 1.0 / K
            est[j] = L[t, j] / q[j]
            est[i] = L[t, i] / q[i]
            J.append(j)
        else:
            est[i] = L[t, i] / p[i]
        I.append(i)
        p = softmax(np.log(p) - eta * est)
    return np.array(P), np.array(I), np.array(J)


def losses(T, K, seed=0, scales=None):
    rng = np.random.default_rng(seed)
    L = rng.random((T, K)) * np.linspace(0.3, 1.0, K)
    return L if scales is None else L * np.asarray(scales)


def same_trace(a: ExpertsTrace, b: ExpertsTrace):
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.expected_losses, b.expected_losses)
    np.testing.assert_array_equal(a.entropy, b.entropy)
    if a.explored is not None or b.explored is not None:
        np.testing.assert_array_equal(a.explored, b.explored)


# ----------------------------------------------------------------------------
# Hedge
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("prior", [None, np.array([0.1, 0.2, 0.3, 0.15, 0.25])])
@pytest.mark.parametrize("eta", [0.05, 0.7, 3.0])
def test_hedge_matches_oracle(eta, prior):
    L = losses(400, 5, seed=1)
    h = Hedge(5, eta=eta, prior=prior, seed=7)
    tr = h.run(L, keep_probabilities=True)
    P = hedge_oracle(L, eta, prior)
    np.testing.assert_allclose(tr.probabilities, P, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(tr.expected_losses, np.sum(P * L, axis=1), rtol=1e-10)
    np.testing.assert_allclose(tr.entropy, -np.sum(P * np.log(P), axis=1), rtol=1e-10,
                               atol=1e-14)
    u = np.random.default_rng(7).random(400)
    np.testing.assert_array_equal(tr.actions, [draw(P[t], u[t]) for t in range(400)])
    np.testing.assert_array_equal(tr.realized_losses, L[np.arange(400), tr.actions])
    # the distribution after the last round
    np.testing.assert_allclose(h.probabilities,
                               hedge_oracle(np.vstack([L, np.zeros(5)]), eta, prior)[-1],
                               rtol=1e-10)
    # regret bookkeeping
    best = np.cumsum(L, axis=0).min(axis=1)
    np.testing.assert_allclose(tr.cumulative_regret, np.cumsum(np.sum(P * L, axis=1)) - best,
                               rtol=1e-9, atol=1e-9)
    assert tr.best_action == int(np.argmin(L.sum(axis=0)))
    assert tr.regret == pytest.approx(max(tr.regret_to()))


def test_hedge_tuned_rate_and_general_range():
    h = Hedge(6, horizon=1000, loss_range=(-2.0, 3.0))
    assert h.learning_rate == pytest.approx(math.sqrt(8 * math.log(6) / 1000) / 5.0)
    assert h.eta is None and h.get_params()["horizon"] == 1000
    L = losses(300, 6, seed=2) * 5.0 - 2.0
    tr = h.run(L, keep_probabilities=True)
    np.testing.assert_allclose(tr.probabilities, hedge_oracle(L, h.learning_rate), rtol=1e-10)


def test_hedge_log_domain_survives_huge_losses():
    """exp(-eta * 1e6 * t) underflows in the linear domain; the log domain does not."""
    K, T = 4, 200
    rng = np.random.default_rng(3)
    L = rng.random((T, K)) * 1e6
    h = Hedge(K, eta=10.0, loss_range=(0.0, 1e6), seed=0)
    tr = h.run(L, keep_probabilities=True)
    assert np.all(np.isfinite(tr.probabilities))
    np.testing.assert_allclose(tr.probabilities.sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(tr.probabilities, hedge_oracle(L, 10.0), atol=1e-12)


def test_hedge_learning_rate_can_change_between_rounds():
    """LKMBooks may retune eta (doubling trick): p_{t+1} ∝ p_t exp(-eta_t l_t)."""
    h = Hedge(3, eta=0.5)
    L = losses(20, 3, seed=4)
    p = np.full(3, 1 / 3)
    for t in range(20):
        eta = 0.5 / math.sqrt(t + 1)
        h.learning_rate = eta
        h.update(L[t])
        p = softmax(np.log(p) - eta * L[t])
        np.testing.assert_allclose(h.probabilities, p, rtol=1e-12)
    with pytest.raises(ValueError, match="eta"):
        h.learning_rate = -1.0


# ----------------------------------------------------------------------------
# MSMW
# ----------------------------------------------------------------------------

SCALES = np.array([0.5, 1.0, 3.0, 10.0, 40.0])


@pytest.mark.parametrize("prior", ["scale", "uniform", np.array([0.3, 0.1, 0.2, 0.25, 0.15])])
@pytest.mark.parametrize("eta", [0.02, 0.4, 1.5])
def test_msmw_matches_oracle(eta, prior):
    T = 300
    L = losses(T, 5, seed=5, scales=SCALES)
    m = MSMW(SCALES, eta=eta, prior=prior, seed=3)
    tr = m.run(L, keep_probabilities=True)
    p1 = (msmw_scale_prior(SCALES) if isinstance(prior, str) and prior == "scale"
          else np.full(5, 0.2) if isinstance(prior, str) else prior)
    P, p_end, lams = msmw_oracle(L, SCALES, eta, p1)
    np.testing.assert_allclose(tr.probabilities, P, rtol=1e-10)
    np.testing.assert_allclose(m.probabilities, p_end, rtol=1e-10)
    assert m.last_multiplier == pytest.approx(lams[-1], rel=1e-10, abs=1e-12)
    u = np.random.default_rng(3).random(T)
    np.testing.assert_array_equal(tr.actions, [draw(P[t], u[t]) for t in range(T)])
    assert tr.extras["newton_iterations_max"] < 100     # Newton converged, no bisection


def test_msmw_step_is_the_mirror_descent_argmin():
    """p_{t+1} = argmin_{p in simplex} <p, l> + D_psi(p, p_t), psi = sum (c_k/eta) p ln p,
    solved by a general-purpose constrained solver (SLSQP)."""
    c = np.array([1.0, 2.0, 5.0, 0.5])
    eta = 0.8
    m = MSMW(c, eta=eta, prior="uniform")
    rng = np.random.default_rng(6)
    for _ in range(5):
        p = m.probabilities
        loss = rng.random(4) * c

        def objective(q):
            q = np.maximum(q, 1e-300)
            return q @ loss + np.sum(c / eta * (q * np.log(q / p) - q + p))

        res = optimize.minimize(objective, p, method="SLSQP", bounds=[(1e-12, 1)] * 4,
                                constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}],
                                options={"ftol": 1e-15, "maxiter": 500})
        m.update(loss)
        np.testing.assert_allclose(m.probabilities, res.x, atol=2e-6)
        assert objective(m.probabilities) <= res.fun + 1e-12


def test_msmw_equal_scales_is_hedge_with_rate_eta_over_c():
    """With c_k = c for all k the multiplier cancels: exponential weights at eta / c."""
    L = losses(200, 4, seed=8) * 3.0
    tr = MSMW(np.full(4, 3.0), eta=0.6, prior="scale").run(L, keep_probabilities=True)
    np.testing.assert_allclose(tr.probabilities, hedge_oracle(L, 0.2), rtol=1e-10)


def test_msmw_extreme_scales_stay_normalized():
    """Scales over 12 orders of magnitude, a long run: finite, normalized, Newton converges."""
    c = np.logspace(-6, 6, 9)
    T = 3000
    rng = np.random.default_rng(9)
    L = rng.random((T, 9)) * c
    m = MSMW(c, eta=1.0, seed=1)
    tr = m.run(L, keep_probabilities=True)
    assert np.all(np.isfinite(tr.probabilities))
    np.testing.assert_allclose(tr.probabilities.sum(axis=1), 1.0, rtol=1e-13)
    assert tr.extras["newton_iterations_max"] < 100
    # the last 50 rounds against the oracle, restarted from the learner's own p
    P, _, _ = msmw_oracle(L[-50:], c, 1.0, tr.probabilities[-50])
    np.testing.assert_allclose(tr.probabilities[-50:], P, rtol=1e-8, atol=1e-300)


def test_msmw_scale_prior_properties():
    c = np.array([2.0, 2.0, 5.0, 100.0, 7.0])
    pi = msmw_scale_prior(c)
    assert pi.sum() == pytest.approx(1.0)
    assert np.all(pi >= c.min() / (len(c) * c) - 1e-15)
    assert np.dot(c, pi) <= 2 * c.min() + 1e-12
    assert pi[0] == pi[1]                                   # ties share the remaining mass
    np.testing.assert_allclose(msmw_scale_prior(np.full(4, 3.0)), 0.25)
    m = MSMW(c, eta=0.1)
    np.testing.assert_allclose(m.probabilities, pi, rtol=1e-12)
    np.testing.assert_allclose(m.initial_distribution, pi, rtol=1e-12)


def test_msmw_tuned_rate_is_theorem5():
    m = MSMW(SCALES, horizon=500)
    assert m.learning_rate == pytest.approx(math.sqrt(2 * math.log(5 * 500) / 500))
    np.testing.assert_allclose(m.scales, SCALES)


# ----------------------------------------------------------------------------
# OSMD
# ----------------------------------------------------------------------------

def osmd_step_oracle(p, loss_row, eta, i, j, feedback):
    K = len(p)
    est = np.zeros(K)
    if feedback == "explore":
        q = (K - 1) / K * p + 1.0 / K
        est[j] = loss_row[j] / q[j]
        est[i] = loss_row[i] / q[i]
    else:
        est[i] = loss_row[i] / p[i]
    return softmax(np.log(p) - eta * est)


@pytest.mark.parametrize("feedback", ["bandit", "explore"])
@pytest.mark.parametrize("eta", [0.01, 0.2, 1.0])
def test_osmd_matches_oracle_round_for_round(feedback, eta):
    """Each round: the draw I_t (and J_t) from the reproduced uniform stream and the step
    (10)/(11) from the learner's own p_t, to ~1e-12."""
    T, K = 500, 6
    L = losses(T, K, seed=10)
    o = OSMD(K, eta=eta, feedback=feedback, seed=11)
    tr = o.run(L, keep_probabilities=True)
    P = np.vstack([tr.probabilities, o.probabilities])
    u = np.random.default_rng(11).random(2 * T)
    k = 0
    for t in range(T):
        i = draw(P[t], u[k])
        k += 1
        assert tr.actions[t] == i
        j = None
        if feedback == "explore":
            j = min(int(u[k] * K), K - 1)
            k += 1
            assert tr.explored[t] == j
        np.testing.assert_allclose(P[t + 1], osmd_step_oracle(P[t], L[t], eta, i, j, feedback),
                                   rtol=1e-11, atol=1e-300)
    np.testing.assert_allclose(tr.expected_losses, np.sum(P[:-1] * L, axis=1), rtol=1e-12)
    if feedback == "bandit":
        assert tr.explored is None


@pytest.mark.parametrize("feedback", ["bandit", "explore"])
def test_osmd_matches_oracle_whole_stream(feedback):
    """The independent oracle run on its own (its own draws, its own p): the same actions
    and probabilities.  Importance weights up to 1/p_t amplify rounding (both here and in
    the oracle: ~1e-8 against a long-double replay at eta = 0.2), hence rtol 1e-7; at
    eta = 1 the trajectories eventually part (a draw lands on the other side of a
    partial sum), which is why the round-for-round test above restarts from p_t."""
    T, K = 500, 6
    L = losses(T, K, seed=10)
    for eta in (0.01, 0.2):
        tr = OSMD(K, eta=eta, feedback=feedback, seed=11).run(L, keep_probabilities=True)
        P, I, J = osmd_oracle(L, eta, 11, feedback)
        np.testing.assert_array_equal(tr.actions, I)
        if feedback == "explore":
            np.testing.assert_array_equal(tr.explored, J)
        np.testing.assert_allclose(tr.probabilities, P, rtol=1e-7)


def test_osmd_estimators_are_unbiased_exactly():
    """E[c~] = c, by enumerating the draws: I ~ p (importance weighting) and
    (I, J) ~ p x uniform (estimator (10))."""
    K = 5
    o = OSMD(K, eta=0.3, seed=0)
    o.update_estimates(np.array([0.5, 2.0, 0.0, 1.0, 3.0]))
    p = o.probabilities
    c = np.array([0.2, 0.9, 0.4, 0.0, 0.7])
    iw = sum(p[i] * o.importance_weighted(i, c[i]) for i in range(K))
    np.testing.assert_allclose(iw, c, rtol=1e-13)
    ee = sum(p[i] / K * o.explore_exploit_estimate(i, j, c[i], c[j])
             for i in range(K) for j in range(K))
    np.testing.assert_allclose(ee, c, rtol=1e-13)
    # the probability of observing arm i that (10) divides by
    q = (K - 1) / K * p + 1 / K
    est = o.explore_exploit_estimate(1, 3, c[1], c[3])
    np.testing.assert_allclose(est, np.where(np.isin(np.arange(K), [1, 3]), c / q, 0.0))


def test_osmd_one_round_api_equals_run():
    K, T = 4, 60
    L = losses(T, K, seed=12)
    for feedback in ["bandit", "explore"]:
        a = OSMD(K, eta=0.3, feedback=feedback, seed=5)
        b = OSMD(K, eta=0.3, feedback=feedback, seed=5)
        tr = a.run(L)
        for t in range(T):
            i = b.sample()
            assert i == tr.actions[t]
            if feedback == "explore":
                j = b.explore()
                assert j == tr.explored[t]
                b.update_pair(i, j, L[t, i], L[t, j])
            else:
                b.update(i, L[t, i])
        np.testing.assert_array_equal(a.probabilities, b.probabilities)


def test_osmd_tuned_rates():
    assert OSMD(7, horizon=900).learning_rate == pytest.approx(
        math.sqrt(2 * math.log(7) / (7 * 900)))
    assert OSMD(7, horizon=10, feedback="explore").learning_rate == pytest.approx(1 / 7)


# ----------------------------------------------------------------------------
# shared behaviour: seeds, sampling, pickling, the one-round API, validation
# ----------------------------------------------------------------------------

def make(kind, seed=0):
    if kind == "hedge":
        return Hedge(5, eta=0.4, seed=seed)
    if kind == "msmw":
        return MSMW(SCALES, eta=0.3, seed=seed)
    if kind == "bandit":
        return OSMD(5, eta=0.2, seed=seed)
    return OSMD(5, eta=0.2, feedback="explore", seed=seed)


def stream_for(kind, T=300, seed=0):
    return losses(T, 5, seed=seed, scales=SCALES if kind == "msmw" else None)


KINDS = ["hedge", "msmw", "bandit", "explore"]


@pytest.mark.parametrize("kind", KINDS)
def test_identical_seeds_identical_traces(kind):
    L = stream_for(kind)
    same_trace(make(kind, 3).run(L), make(kind, 3).run(L))
    assert not np.array_equal(make(kind, 3).run(L).actions, make(kind, 4).run(L).actions)


@pytest.mark.parametrize("kind", KINDS)
def test_pickling_mid_stream_resumes_identically(kind):
    L = stream_for(kind, T=400)
    whole = make(kind, 9)
    full = whole.run(L, keep_probabilities=True)
    part = make(kind, 9)
    first = part.run(L[:170])
    clone = pickle.loads(pickle.dumps(part))
    assert repr(clone) == repr(part) and clone.n_rounds == 170
    rest = clone.run(L[170:], keep_probabilities=True)
    np.testing.assert_array_equal(np.concatenate([first.actions, rest.actions]), full.actions)
    np.testing.assert_array_equal(rest.probabilities, full.probabilities[170:])
    np.testing.assert_array_equal(clone.probabilities, whole.probabilities)


@pytest.mark.parametrize("kind", ["hedge", "msmw"])
def test_full_information_one_round_api_equals_run(kind):
    L = stream_for(kind, T=80)
    a, b = make(kind, 2), make(kind, 2)
    tr = a.run(L)
    for t in range(80):
        assert b.sample() == tr.actions[t]
        b.update(L[t])
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    assert b.n_rounds == 80


@pytest.mark.parametrize("kind", KINDS)
def test_sampling_frequencies_match_p(kind):
    """Chi-square goodness of fit of 20000 draws of sample() to p_t; the same counts are
    rejected against a perturbed distribution (the test has teeth)."""
    learner = make(kind, 21)
    learner.run(stream_for(kind, T=30))          # a non-uniform p_t
    p = learner.probabilities
    n = 20000
    counts = np.bincount([learner.sample() for _ in range(n)], minlength=5)
    assert stats.chisquare(counts, n * p).pvalue > 1e-3
    wrong = np.roll(p, 1)
    assert stats.chisquare(counts, n * wrong).pvalue < 1e-6


def test_sample_core_inverse_cdf_edges():
    core = HedgeCore(3, 0.0, np.array([0.2, 0.5, 0.3]))
    us = (0.0, 0.2 - 1e-9, 0.2 + 1e-9, 0.7 - 1e-9, 0.7 + 1e-9, 1.0 - 1e-12)
    assert [core._sample_py(u) for u in us] == [0, 0, 1, 1, 2, 2]
    assert core._sample_py(1.0) == 2                       # rounding beyond the last sum


@pytest.mark.parametrize("kind", KINDS)
def test_bad_losses_raise_before_any_state_change(kind):
    learner = make(kind, 1)
    learner.run(stream_for(kind, T=20))
    before = pickle.dumps(learner)
    p = learner.probabilities
    K = 5
    good = stream_for(kind, T=5)
    cases = {
        "NaN": np.where(np.arange(K) == 2, np.nan, good),
        "infinity": np.where(np.arange(K) == 1, np.inf, good),
        "columns": good[:, :4],
        "2-D": good[0],
        "empty": good[:0],
        "numeric": np.array([["a"] * K]),
        "range": np.vstack([good, -np.ones((1, K)) * 0.5]),
    }
    if kind != "msmw":
        cases["range above"] = good + 1.0
    else:
        cases["range above"] = np.vstack([good, SCALES * 1.01])
    for what, bad in cases.items():
        with pytest.raises(ValueError):
            learner.run(bad)
        np.testing.assert_array_equal(learner.probabilities, p)
        assert learner.n_rounds == 20, what
    # the generator did not move either: the continuation equals that of a clean copy
    clean = pickle.loads(before)
    same_trace(learner.run(good), clean.run(good))


def test_error_messages_name_the_problem():
    h = Hedge(3, eta=0.1)
    with pytest.raises(ValueError, match=r"NaN or infinity \(round 1, action 2\)"):
        h.run(np.array([[0, 0, 0], [0, 0, np.nan]], dtype=float))
    with pytest.raises(ValueError, match="outside the declared range"):
        h.update([0.0, 1.5, 0.0])
    with pytest.raises(ValueError, match="3 actions"):
        h.run(np.zeros((2, 4)))
    m = MSMW([1.0, 2.0], eta=0.1)
    with pytest.raises(ValueError, match=r"\[0.0, 2.0\] of action 1"):
        m.update([0.5, 2.5])
    o = OSMD(3, eta=0.1, feedback="explore")
    with pytest.raises(ValueError, match="loss"):
        o.update(0, 1.2)
    with pytest.raises(ValueError, match="arm"):
        o.update(3, 0.2)
    with pytest.raises(ValueError, match="one loss per round"):
        o.update_pair(1, 1, 0.2, 0.3)
    with pytest.raises(ValueError, match="estimates"):
        o.update_estimates([0.1, np.nan, 0.0])
    assert o.n_rounds == 0 and h.n_rounds == 0 and m.n_rounds == 0


@pytest.mark.parametrize("make_bad, match", [
    (lambda: Hedge(0, eta=0.1), "n_actions"),
    (lambda: Hedge(3, eta=-0.1), "eta"),
    (lambda: Hedge(3, eta=float("nan")), "eta"),
    (lambda: Hedge(3), "horizon"),
    (lambda: Hedge(3, horizon=0), "horizon"),
    (lambda: Hedge(3, eta=0.1, loss_range=(1.0, 1.0)), "loss_range"),
    (lambda: Hedge(3, eta=0.1, loss_range=3.0), "loss_range"),
    (lambda: Hedge(3, eta=0.1, prior=[0.5, 0.5]), "prior"),
    (lambda: Hedge(3, eta=0.1, prior=[0.5, 0.5, 0.0]), "prior"),
    (lambda: Hedge(3, eta=0.1, prior=[0.5, 0.5, 0.5]), "prior"),
    (lambda: Hedge(3, eta=0.1, seed=-1), "seed"),
    (lambda: MSMW([1.0, 0.0], eta=0.1), "scales"),
    (lambda: MSMW([], eta=0.1), "scales"),
    (lambda: MSMW([[1.0, 2.0]], eta=0.1), "scales"),
    (lambda: MSMW([1.0, np.inf], eta=0.1), "scales"),
    (lambda: MSMW([1.0, 2.0]), "horizon"),
    (lambda: MSMW([1.0, 2.0], eta=0.1, prior="bogus"), "prior"),
    (lambda: OSMD(3, eta=0.1, feedback="semi"), "feedback"),
    (lambda: OSMD(3), "horizon"),
    (lambda: OSMD(2.5, eta=0.1), "n_actions"),
])
def test_bad_parameters(make_bad, match):
    with pytest.raises(ValueError, match=match):
        make_bad()


@pytest.mark.parametrize("kind", KINDS)
def test_get_params_and_repr_round_trip(kind):
    learner = make(kind, 4)
    twin = type(learner)(**learner.get_params())
    assert repr(twin) == repr(learner)
    np.testing.assert_array_equal(twin.probabilities, learner.probabilities)
    assert repr(learner).startswith(type(learner).__name__ + "(")


def test_cores_are_usable_and_picklable_alone():
    """What LKMBooks / PFMBooks / BATBooks hold: bare cores, no generator needed."""
    h = HedgeCore(3, 0.5)
    h._update_py(np.array([1.0, 0.0, 0.5]))
    np.testing.assert_allclose(h.probabilities, softmax(-0.5 * np.array([1.0, 0.0, 0.5])))
    m = MSMWCore(np.array([1.0, 4.0]), 0.5)
    m._update_py(np.array([0.5, 3.0]))
    np.testing.assert_allclose(m.probabilities, msmw_step(np.full(2, 0.5), np.array([0.5, 3.0]),
                                                          np.array([1.0, 4.0]), 0.5)[0])
    o = OSMDCore(4, 0.2)
    o._update_pair_py(1, 3, 0.5, 0.25)
    for core in (h, m, o):
        twin = pickle.loads(pickle.dumps(core))
        assert type(twin) is type(core)
        np.testing.assert_array_equal(twin.probabilities, core.probabilities)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(o)).last_estimate, o.last_estimate)
    with pytest.raises(ValueError, match="generator"):
        h._uniform_py()


def test_trace_summaries():
    L = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    tr = Hedge(2, eta=0.5, seed=0).run(L, keep_probabilities=True)
    assert tr.n_rounds == 3 and tr.best_action == 0
    np.testing.assert_allclose(tr.action_losses, [1.0, 2.0])
    assert tr.realized_regret == pytest.approx(tr.realized_losses.sum() - 1.0)
    d = tr.to_dict(per_round=True)
    assert d["regret"] == pytest.approx(tr.regret) and len(d["actions"]) == 3
    assert "3 rounds" in repr(tr)


def test_msmw_learning_rate_can_change_between_rounds():
    c = np.array([1.0, 2.0, 8.0])
    m = MSMW(c, eta=0.5, prior="uniform")
    p = np.full(3, 1 / 3)
    L = losses(15, 3, seed=13, scales=c)
    for t in range(15):
        eta = 0.5 / math.sqrt(t + 1)
        m.learning_rate = eta
        m.update(L[t])
        p = msmw_step(p, L[t], c, eta)[0]
        np.testing.assert_allclose(m.probabilities, p, rtol=1e-11)


@pytest.mark.parametrize("core_kind", ["hedge", "msmw", "osmd"])
def test_bare_cores_pickle_bit_for_bit_after_many_updates(core_kind):
    """p and log p are restored as saved, not renormalized: a renormalization moved p
    by an ulp after ~170 MSMW rounds, and a resumed PFMBooks run then differed."""
    rng = np.random.default_rng(7)
    scales = np.array([0.5, 1.0, 2.0, 8.0])
    core = {"hedge": lambda: HedgeCore(4, 0.3), "msmw": lambda: MSMWCore(scales, 0.3),
            "osmd": lambda: OSMDCore(4, 0.2)}[core_kind]()
    for _ in range(300):
        if core_kind == "osmd":
            i, j = rng.integers(4, size=2)
            core._update_pair_py(int(i), int(j), rng.random(), rng.random())
        else:
            core._update_py(rng.random(4) * scales)
    twin = pickle.loads(pickle.dumps(core))
    assert twin.probabilities.tobytes() == core.probabilities.tobytes()
    assert twin.log_probabilities.tobytes() == core.log_probabilities.tobytes()
