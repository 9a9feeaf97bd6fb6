"""NORMA against a plain-numpy oracle written from Sec. III of Kivinen, Smola & Williamson."""
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from conftest import ref_gram, xor_stream


def norma_oracle(kernel, X, y, *, loss, eta, lam, schedule="constant", rho=1.0, nu=0.5,
                 epsilon=0.0, sigma=1.0, offset=False, window=None):
    """Every coefficient decayed explicitly each round; ``window(h)`` = s_h or None."""
    S, a, rounds = [], [], []
    b, scores, losses, sizes = 0.0, [], [], []
    for t in range(1, len(X) + 1):
        x = X[t - 1]
        yt = 0.0 if y is None else y[t - 1]
        f = float(ref_gram(kernel, x[None], np.array(S))[0] @ np.array(a)) if S else 0.0
        eta_t = eta / math.sqrt(t) if schedule == "sqrt" else eta
        new = 0.0
        if loss in ("soft_margin", "nu_classification"):
            g = f + b
            scores.append(g)
            losses.append(max(0.0, rho - yt * g) - (nu * rho if loss == "nu_classification" else 0))
            err = yt * g <= rho
            if err:
                new = eta_t * yt
                if offset:
                    b += eta_t * yt
            if loss == "nu_classification":
                rho += eta_t * (nu - err)
        elif loss == "novelty":
            scores.append(f - rho)
            losses.append(max(0.0, rho - f) - nu * rho)
            if f < rho:
                new = eta_t
                rho -= eta_t * (1 - nu)
            else:
                rho += eta_t * nu
        else:
            scores.append(f)
            delta = yt - f
            if loss == "squared":
                losses.append(0.5 * delta ** 2)
                new = eta_t * delta
            elif loss == "nu_epsilon":
                losses.append(max(0.0, abs(delta) - epsilon) + nu * epsilon)
                if abs(delta) > epsilon:
                    new = eta_t * np.sign(delta)
                    epsilon += (1 - nu) * eta_t
                else:
                    epsilon -= eta_t * nu
            else:
                losses.append(abs(delta) - sigma / 2 if abs(delta) >= sigma
                              else delta ** 2 / (2 * sigma))
                big = abs(delta) > sigma
                new = eta_t * np.sign(delta) if big else eta_t * delta / sigma
                if loss == "huber_adaptive":
                    sigma += eta_t * (1 - nu) if big else -eta_t * nu
        a = [(1 - eta_t * lam) * ai for ai in a]
        if new != 0.0:
            S.append(x)
            a.append(new)
            rounds.append(t)
        if window is not None:  # f_{t+1} keeps rounds t + 1 - s_{t+1} .. t
            keep = [i for i, r in enumerate(rounds) if r >= t + 1 - window(t + 1)]
            S, a, rounds = [S[i] for i in keep], [a[i] for i in keep], [rounds[i] for i in keep]
        sizes.append(len(S))
    return dict(scores=np.array(scores), losses=np.array(losses), a=np.array(a),
                rounds=np.array(rounds), sizes=np.array(sizes), b=b, rho=rho, eps=epsilon,
                sigma=sigma)


def regression_stream(T, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, 3))
    y = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] + 0.2 * rng.standard_t(2, size=T)
    return X, y


LOSS_CASES = [
    ("soft_margin", dict(rho=1.0)),
    ("soft_margin", dict(rho=0.5, offset=True)),
    ("nu_classification", dict(rho=0.2, nu=0.3, offset=True)),
    ("novelty", dict(rho=0.0, nu=0.2)),
    ("squared", {}),
    ("nu_epsilon", dict(nu=0.3, epsilon=0.1)),
    ("huber", dict(sigma=0.5)),
    ("huber_adaptive", dict(sigma=0.5, nu=0.3)),
]


@pytest.mark.parametrize("loss,extra", LOSS_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("schedule", ["constant", "sqrt"])
@pytest.mark.parametrize("tau", [None, 25])
def test_norma_matches_oracle_round_for_round(loss, extra, schedule, tau):
    kernel = okl.Gaussian(0.9)
    if loss in ("soft_margin", "nu_classification"):
        X, y = xor_stream(300, 3, seed=2)
    elif loss == "novelty":
        X, y = xor_stream(300, 3, seed=2)[0], None
    else:
        X, y = regression_stream(300, seed=2)
    params = dict(loss=loss, eta=0.3, lam=0.2, schedule=schedule, **extra)
    ref = norma_oracle(kernel, X, y, window=None if tau is None else (lambda h: tau), **params)
    learner = okl.NORMA(kernel=kernel, tau=tau, **params)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(tr.losses, ref["losses"], rtol=1e-9, atol=1e-11)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    order = np.argsort(learner.support_rounds)
    np.testing.assert_array_equal(learner.support_rounds[order], ref["rounds"])
    np.testing.assert_allclose(learner.coefficients[order], ref["a"], rtol=1e-9, atol=1e-13)
    for name, key in (("b", "b"), ("rho", "rho"), ("epsilon", "eps"), ("sigma", "sigma")):
        assert tr.extras[name] == pytest.approx(ref[key], rel=1e-9, abs=1e-12)
    if tau is not None:
        assert tr.max_budget <= tau


def test_growing_window_of_theorem_6_matches_oracle():
    X, y = xor_stream(400, 3, seed=8)
    eps, t0 = 0.1, 30
    window = lambda h: h if h <= t0 else math.ceil(h ** (0.5 + eps))
    ref = norma_oracle(okl.Gaussian(1.0), X, y, loss="soft_margin", eta=0.5, lam=0.3,
                       schedule="sqrt", window=window)
    learner = okl.NORMA(kernel=okl.Gaussian(1.0), eta=0.5, lam=0.3, schedule="sqrt",
                        tau_power=eps, tau_t0=t0)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-9, atol=1e-11)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    assert tr.max_budget <= math.ceil(400 ** 0.6)


def test_norma_at_rho_lam_zero_is_the_kernel_perceptron():
    """Sec. III-A: rho = lambda = 0 recovers the kernel Perceptron."""
    X, y = xor_stream(2000, 4, seed=3)
    for eta in (1.0, 0.37):
        norma = okl.NORMA(kernel=okl.Gaussian(1.2), rho=0.0, lam=0.0, eta=eta).run(X, y)
        perc = okl.Perceptron(kernel=okl.Gaussian(1.2)).run(X, y)
        np.testing.assert_array_equal(norma.mistakes, perc.mistakes)
        np.testing.assert_array_equal(norma.budget, perc.budget)
        np.testing.assert_allclose(norma.scores, eta * perc.scores, rtol=1e-12, atol=1e-12)


def test_truncation_error_within_proposition_1():
    """||f - f_trunc||_H <= (1 - lam eta)^tau C X / lam along the whole run."""
    X, y = xor_stream(1500, 2, seed=4)
    kernel, eta, lam, tau = okl.Gaussian(0.7), 0.5, 0.2, 12
    full = okl.NORMA(kernel=kernel, eta=eta, lam=lam, rho=1.0)
    trunc = okl.NORMA(kernel=kernel, eta=eta, lam=lam, rho=1.0, tau=tau)
    bound = (1 - lam * eta) ** tau * 1.0 * 1.0 / lam  # C = 1 (soft margin), X = 1 (Gaussian)
    worst = 0.0
    for chunk in np.array_split(np.arange(len(y)), 30):
        full.run(X[chunk], y[chunk])
        # both evaluated on the same stream: feed the truncated learner the full
        # learner's inputs, and compare the two hypotheses (not the same sequence of
        # updates: the proposition is about dropping old terms of f)
        S, a = full.support_vectors, full.coefficients
        keep = full.support_rounds >= full.n_rounds + 1 - tau
        diff = a * ~keep
        K = ref_gram(kernel, S, S)
        worst = max(worst, math.sqrt(max(diff @ K @ diff, 0.0)))
    assert 0 < worst <= bound
    # and the truncated learner itself keeps at most tau terms
    tr = trunc.run(X, y)
    assert tr.max_budget <= tau


def test_power_series_and_rescaling_agree():
    """Constant rate + window uses Fig. 1's power series; the growing window with
    t0 beyond the stream is the same window through the rescaling trick."""
    X, y = xor_stream(800, 3, seed=6)
    tau = 800 + 1  # longer than the stream: no term expires in either representation
    a = okl.NORMA(eta=0.4, lam=0.9, tau=tau).run(X, y)
    b = okl.NORMA(eta=0.4, lam=0.9, tau_power=0.25, tau_t0=10 ** 6).run(X, y)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-10, atol=1e-13)


def test_long_stream_neither_overflows_nor_underflows():
    X, y = xor_stream(5000, 2, seed=1)
    tr = okl.NORMA(eta=0.9, lam=1.0, rho=1.0).run(X, y)  # decay 0.1 per round: 10^-5000
    assert np.isfinite(tr.scores).all() and np.abs(tr.scores).max() < 10
    tr = okl.NORMA(eta=0.9, lam=1.0, rho=1.0, tau=50).run(X, y)
    assert np.isfinite(tr.scores).all() and tr.max_budget <= 50


@settings(max_examples=8, deadline=None)
@given(nu=st.floats(0.05, 0.6), seed=st.integers(0, 1000))
def test_novelty_alert_fraction_tends_to_nu(nu, seed):
    """Sec. III-B: on average only a fraction nu of the observations are updates."""
    X, _ = xor_stream(6000, 2, seed=seed)
    tr = okl.NORMA(loss="novelty", nu=nu, lam=1.0, eta=0.5, schedule="sqrt", rho=0.0).run(X)
    assert abs(tr.extras["n_updates"] / 6000 - nu) < 0.02
    assert tr.mistakes is None


@settings(max_examples=8, deadline=None)
@given(nu=st.floats(0.1, 0.6), seed=st.integers(0, 1000))
def test_nu_epsilon_fraction_outside_tube_tends_to_nu(nu, seed):
    X, y = regression_stream(6000, seed)
    tr = okl.NORMA(loss="nu_epsilon", nu=nu, lam=0.1, eta=0.3, schedule="sqrt").run(X, y)
    assert abs(tr.extras["n_updates"] / 6000 - nu) < 0.03


def test_pickle_resume_in_each_representation():
    X, y = xor_stream(500, 3, seed=5)
    for params in (dict(tau=40), dict(tau=40, schedule="sqrt"), dict(),
                   dict(loss="nu_classification", offset=True, nu=0.2)):
        full = okl.NORMA(lam=0.3, **params).run(X, y)
        learner = okl.NORMA(lam=0.3, **params)
        first = learner.run(X[:211], y[:211])
        rest = pickle.loads(pickle.dumps(learner)).run(X[211:], y[211:])
        np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)


def test_novelty_needs_no_labels_but_supervised_losses_do():
    X, _ = xor_stream(50, 2)
    learner = okl.NORMA(loss="novelty")
    learner.run(X)
    learner.learn_one(X[0])
    with pytest.raises(ValueError, match="y is required"):
        okl.NORMA().run(X)


@pytest.mark.parametrize("bad,name", [
    (dict(loss="hinge"), "loss"), (dict(eta=0), "eta"), (dict(lam=-1), "lam"),
    (dict(eta=1.0, lam=1.0), "eta \\* lam"), (dict(rho=-0.1), "rho"), (dict(nu=0.0), "nu"),
    (dict(nu=1.5), "nu"), (dict(sigma=0.0), "sigma"), (dict(epsilon=-1.0), "epsilon"),
    (dict(tau=0), "tau"), (dict(tau=2.5), "tau"), (dict(tau_power=0.5), "tau_power"),
    (dict(tau=3, tau_power=0.1), "exclusive"), (dict(offset=1), "offset"),
    (dict(loss="squared", offset=True), "offset"), (dict(schedule="log"), "schedule"),
])
def test_parameter_validation(bad, name):
    with pytest.raises(ValueError, match=name):
        okl.NORMA(**bad)


@pytest.mark.parametrize("params", [dict(), dict(tau=15), dict(tau=15, schedule="sqrt"),
                                    dict(tau_power=0.2, tau_t0=20, schedule="sqrt"),
                                    dict(loss="squared"), dict(loss="novelty", nu=0.2)])
def test_tracked_norm_equals_the_gram_quadratic_form(params):
    """extras['norm_sq'][t] == a_t^T K a_t for the hypothesis used at round t."""
    loss = params.get("loss", "soft_margin")
    X, y = (regression_stream(250, 1) if loss == "squared" else xor_stream(250, 3, seed=1))
    y = None if loss == "novelty" else y
    kernel = okl.Gaussian(1.0)
    learner = okl.NORMA(kernel=kernel, eta=0.4, lam=0.3, track_norm=True, **params)
    norms = []
    for t in range(len(X)):
        a = learner.coefficients
        S = learner.support_vectors
        norms.append(float(a @ ref_gram(kernel, S, S) @ a) if len(a) else 0.0)
        learner.learn_one(X[t], None if y is None else y[t])
    full = okl.NORMA(kernel=kernel, eta=0.4, lam=0.3, track_norm=True, **params).run(X, y)
    np.testing.assert_allclose(full.extras["norm_sq"], norms, rtol=1e-8, atol=1e-10)
    assert max(norms) > 0
