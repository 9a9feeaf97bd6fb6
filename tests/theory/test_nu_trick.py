"""The nu-trick's count of updates (theory.selection_baselines.nu_trick_update_bounds,
Kivinen, Smola & Williamson 2004, update (22)) on NORMAReplace's runs: the identity
U_T = nu T + (epsilon_{T+1} - epsilon_1) / eta behind it, both bounds on random streams,
and a stream on which the first bound is met with equality."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from okl.experiments.bounds import bounds_report
from theory.selection_baselines import nu_trick_update_bounds


def test_closed_form():
    quiet, most = nu_trick_update_bounds(100, 0.25, 0.1, 0.5, 2.0, 10, 1.0)
    assert quiet == pytest.approx(0.75 * 100 + 0.25 + 0.5 / 0.1)
    assert most == pytest.approx(25 + (3.0 - 0.5) / 0.1 + 0.75)
    # a wide initial tube: no room above it
    assert nu_trick_update_bounds(10, 0.5, 1.0, 50.0, 1.0, 2)[1] == pytest.approx(5.5)
    with pytest.raises(ValueError, match="nu"):
        nu_trick_update_bounds(10, 1.5, 1.0, 0.0, 1.0, 2)
    with pytest.raises(ValueError, match="eta"):
        nu_trick_update_bounds(10, 0.5, 0.0, 0.0, 1.0, 2)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), nu=st.floats(0.0, 1.0), eta=st.floats(0.01, 0.5),
       epsilon=st.floats(0.0, 0.5), B=st.integers(2, 40), T=st.integers(1, 300))
def test_the_bounds_and_their_identity_on_runs(seed, nu, eta, epsilon, B, T):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, 3))
    y = np.sin(X[:, 0]) + 0.3 * rng.normal(size=T)
    learner = okl.NORMAReplace(kernel=okl.Gaussian(1.0), B=B, eta=eta, lam=0.1, nu=nu,
                               epsilon=epsilon)
    tr = learner.run(X, y)
    U = tr.extras["n_updates"]
    assert U == pytest.approx(nu * T + (tr.extras["epsilon"] - epsilon) / eta, abs=1e-6)
    quiet, most = nu_trick_update_bounds(T, nu, eta, epsilon, float(np.abs(y).max()), B)
    assert T - U <= quiet + 1e-9 and U <= most + 1e-9


def test_the_first_bound_is_met_with_equality():
    """Rows 100 apart (every kernel value between two of them is exp(-5000) = 0, so f = 0
    on every round) with y = 0 and epsilon_1 = nu eta: the width goes nu eta, 0, -nu eta,
    0, -nu eta, ... (an update exactly when it is below 0), and after an even number of
    rounds it ends at -nu eta, the floor of the proof: the bound is met with equality."""
    T, nu, eta = 100, 0.5, 0.2
    X = np.c_[100.0 * np.arange(T), np.zeros(T)]
    learner = okl.NORMAReplace(kernel=okl.Gaussian(1.0), B=10, eta=eta, lam=0.1, nu=nu,
                               epsilon=nu * eta)
    rep = bounds_report(learner, X, np.zeros(T))
    assert rep.trace.extras["epsilon"] == pytest.approx(-nu * eta)
    row = [r for r in rep.rows if r["quantity"] == "rounds without an update"][0]
    assert row["measured"] == pytest.approx(row["bound"]) and row["holds"]
    assert row["measured"] > row["bound"] - 0.5     # half a round less would fail it
