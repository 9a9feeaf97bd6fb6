"""The drifting / switching Gaussian-mixture streams of Fig. 2 (Kivinen et al. 2004)."""
import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from okl.datasets.drifting import (DRIFT_PERIOD, DRIFT_STEP, SWITCH_PERIOD, SWITCH_STEP,
                                   bayes_log_odds, drifting_mixture)


def ref_log_odds(x, pos, neg, std):
    """Bayes log-odds from scipy's densities (equal priors, equal component weights)."""
    cov = std ** 2 * np.eye(2)
    lp = logsumexp([multivariate_normal(m, cov).logpdf(x) for m in pos]) - np.log(len(pos))
    ln = logsumexp([multivariate_normal(m, cov).logpdf(x) for m in neg]) - np.log(len(neg))
    return lp - ln


@pytest.mark.parametrize("schedule", ["drift", "switch"])
def test_seeded_reproducibility(schedule):
    a = drifting_mixture(3000, schedule, seed=5, return_params=True)
    b = drifting_mixture(3000, schedule, seed=5, return_params=True)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2]["pos_means"], b[2]["pos_means"])
    c = drifting_mixture(3000, schedule, seed=6)
    assert not np.array_equal(a[0], c[0])
    # a Generator is accepted and consumed
    rng = np.random.default_rng(5)
    np.testing.assert_array_equal(drifting_mixture(3000, schedule, seed=rng)[0], a[0])
    # without return_params the same stream comes back
    X, y = drifting_mixture(3000, schedule, seed=5)
    np.testing.assert_array_equal(X, a[0])


@pytest.mark.parametrize("schedule", ["drift", "switch"])
def test_shapes_labels_and_balance(schedule):
    X, y = drifting_mixture(schedule=schedule, seed=0)
    assert X.shape == (10_000, 2) and y.shape == (10_000,)
    assert X.dtype == np.float64 and np.isfinite(X).all()
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert 0.3 < (y > 0).mean() < 0.7


@pytest.mark.parametrize("schedule", ["drift", "switch"])
@pytest.mark.parametrize("margin", [0.0, 2.0, 4.0])
def test_every_example_is_on_the_bayes_side_of_its_label(schedule, margin):
    X, y, P = drifting_mixture(4000, schedule, seed=3, min_log_odds=margin,
                               return_params=True)
    std = P["std"]
    rows = np.random.default_rng(0).choice(len(y), 300, replace=False)
    ref = np.array([ref_log_odds(X[t], P["pos_means"][t], P["neg_means"][t], std)
                    for t in rows])
    assert np.all(y[rows] * ref >= margin - 1e-9)
    # the vectorized helper agrees with scipy and covers every row
    np.testing.assert_allclose(bayes_log_odds(X, P["pos_means"], P["neg_means"], std)[rows],
                               ref, rtol=1e-9, atol=1e-9)
    assert np.all(y * bayes_log_odds(X, P["pos_means"], P["neg_means"], std) >= margin)


def test_the_margin_removes_examples_near_the_boundary():
    X, y, P = drifting_mixture(3000, "drift", seed=1, return_params=True)
    r = y * bayes_log_odds(X, P["pos_means"], P["neg_means"], P["std"])
    assert r.min() >= 2.0
    # without the filter, some examples would be within the band or misclassified
    rng = np.random.default_rng(0)
    pos, neg = P["pos_means"][0], P["neg_means"][0]
    lab = np.where(rng.random(5000) < 0.5, 1.0, -1.0)
    comp = rng.integers(0, 2, 5000)
    raw = np.where(lab[:, None] > 0, pos[comp], neg[comp]) + P["std"] * rng.normal(
        size=(5000, 2))
    assert (lab * bayes_log_odds(raw, pos, neg, P["std"]) < 2.0).any()


@pytest.mark.parametrize("schedule,period,step", [("drift", DRIFT_PERIOD, DRIFT_STEP),
                                                  ("switch", SWITCH_PERIOD, SWITCH_STEP)])
def test_changes_happen_on_schedule_with_the_specified_magnitude(schedule, period, step):
    X, y, P = drifting_mixture(10_000, schedule, seed=2, return_params=True)
    pos, neg = P["pos_means"], P["neg_means"]
    assert P["period"] == period and P["step"] == step
    np.testing.assert_array_equal(P["change_rounds"], np.arange(period, 10_000, period))
    for means in (pos, neg):
        moved = np.linalg.norm(means[1:] - means[:-1], axis=2)  # (T-1, m)
        changed = np.flatnonzero(moved.max(axis=1) > 0) + 1
        np.testing.assert_array_equal(changed, P["change_rounds"])
        # every mean moves by exactly `step` at every change, and stays in the box
        np.testing.assert_allclose(moved[P["change_rounds"] - 1], step, rtol=1e-12)
        assert np.all(np.abs(means) <= P["bound"] + 1e-12)
    assert pos.shape == (10_000, 2, 2)


def test_switching_is_large_and_drifting_small():
    _, _, d = drifting_mixture(10_000, "drift", seed=4, return_params=True)
    _, _, s = drifting_mixture(10_000, "switch", seed=4, return_params=True)
    assert d["step"] <= 0.25 * d["std"] and s["step"] >= 4 * s["std"]
    # sum of squared changes (D_2 of Sec. IV): much larger for switching
    d2 = lambda P: sum(np.sum((P[k][1:] - P[k][:-1]) ** 2) for k in ("pos_means", "neg_means"))
    assert d2(s) > 3 * d2(d)


def test_overrides_and_components():
    X, y, P = drifting_mixture(500, "drift", seed=0, period=7, step=0.5, n_components=3,
                               std=0.3, bound=2.0, return_params=True)
    assert P["pos_means"].shape == (500, 3, 2)
    np.testing.assert_array_equal(P["change_rounds"], np.arange(7, 500, 7))
    moved = np.linalg.norm(P["pos_means"][7] - P["pos_means"][6], axis=1)
    np.testing.assert_allclose(moved, 0.5)
    # step 0 keeps the parameters fixed
    _, _, Q = drifting_mixture(200, "switch", seed=0, step=0.0, period=50, return_params=True)
    assert np.all(Q["pos_means"] == Q["pos_means"][0])


@pytest.mark.parametrize("bad,name", [
    (dict(n_rounds=0), "n_rounds"), (dict(schedule="walk"), "schedule"),
    (dict(std=0.0), "std"), (dict(step=-1.0), "step"), (dict(step=4.0), "step"),
    (dict(period=0), "period"), (dict(n_components=0), "n_components"),
    (dict(min_log_odds=-1.0), "min_log_odds"), (dict(seed=-2), "seed"),
    (dict(bound=0.0), "bound"),
])
def test_parameter_validation(bad, name):
    with pytest.raises(ValueError, match=name):
        drifting_mixture(**{"n_rounds": 50, **bad})
