"""Theorems 2, 3, 4, 6, 8 and 10 of the kernel-selection paper of Li & Liao against runs of
LKMBooks, PFMBooks and BATBooks (theory/selection.py).

* Budgets: over many seeds, the number of rounds with ``rho_t = 1`` (the buffer size of
  the unguarded algorithm; the learners also keep a hard guard at ``B``) exceeds the
  theorem's bound no more often than ``delta`` plus a 3-sigma binomial tolerance.
* Regret: the loss averaged over seeds (the expectation of the theorems) minus the loss
  of the best comparator of each kernel in a ball (theory.best_hinge_in_ball on that
  kernel's Gram matrix) stays below the explicit bound of theory/selection.py evaluated
  with the run's parameters.  Every bound term is deterministic; the only randomness is
  the average over seeds, whose standard error (<= 2% of the bound here) is added as a
  3-sigma tolerance.  The measured slack of each check is in its docstring.
"""
import math

import numpy as np
import pytest

import okl
from okl.learners.batbooks import BATBooks
from okl.learners.lkmbooks import LKMBooks
from okl.learners.pfmbooks import PFMBooks
from theory.comparators import best_hinge_in_ball
from theory.selection import (
    addition_probabilities,
    batbooks_regret_bound,
    batbooks_theorem8_bound,
    lkmbooks_regret_bound,
    lkmbooks_theorem2_bound,
    pfmbooks_regret_bound,
    pfmbooks_theorem4_bound,
)
from theory_data import gaussian_kernel

KERNELS = [okl.Gaussian(s) for s in (0.5, 1.0, 2.0)]


def stream(T, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1.0, -1.0)
    return X, y, 0.6 * np.sin(X[:, 0]) + 0.3 * np.tanh(X[:, 1])


def tolerance(delta, runs):
    return delta + 3.0 * math.sqrt(delta * (1.0 - delta) / runs)


# -- budgets ---------------------------------------------------------------------------------

def test_lkmbooks_theorem2_over_seeds():
    """Absolute loss (every gradient non-zero), upsilon = 1/3, corrected z_t (the
    learner's default): P[#(rho = 1) > bound] <= delta.  Measured: about 1% of the runs
    exceed at delta = 0.1; teeth: more than 20% exceed B itself, and with the printed
    z_t (z_form="printed") nearly every run exceeds the bound (the paper's typo)."""
    T, B, delta, runs = 1500, 30, 0.1, 150
    X, _, yr = stream(T)
    counts = np.array([LKMBooks(KERNELS, loss="absolute", B=B, T=T, seed=s).run(X, yr)
                       .extras["n_sampled"] for s in range(runs)])
    bound = lkmbooks_theorem2_bound(B, delta)
    assert np.mean(counts > bound) <= tolerance(delta, runs)
    assert np.mean(counts > B) > 0.2
    printed = np.array([LKMBooks(KERNELS, loss="absolute", B=B, T=T, z_form="printed",
                                 seed=s).run(X, yr).extras["n_sampled"] for s in range(20)])
    assert np.mean(printed > bound) > 0.9


def test_pfmbooks_theorem4_over_seeds():
    """Oblivious sampling at upsilon = 0 (printed and corrected z_t coincide):
    P[#(rho = 1) > B/2 + ...] <= delta.  Teeth: more than 20% of the runs exceed B/2."""
    T, B, delta, runs = 1500, 30, 0.1, 150
    X, _, yr = stream(T)
    counts = np.array([PFMBooks(KERNELS, loss="absolute", B=B, T=T, upsilon=0.0, seed=s)
                       .run(X, yr).extras["n_sampled"] for s in range(runs)])
    assert np.mean(counts > pfmbooks_theorem4_bound(B, delta)) <= tolerance(delta, runs)
    assert np.mean(counts > B / 2) > 0.2


def test_batbooks_theorem8_over_seeds():
    """Per buffer, the rounds with rho_{t,J_t} = 1 and J_t = i (added or refused by the
    hard guard), upsilon = 0: P[max_i count_i > bound] <= delta (the union bound of
    Theorem 8).  Teeth: the largest buffer exceeds B/2 in more than 20% of the runs."""
    T, B, delta, runs, K = 1500, 30, 0.1, 150, len(KERNELS)
    X, _, yr = stream(T)
    worst = []
    for s in range(runs):
        e = BATBooks(KERNELS, loss="absolute", B=B, T=T, upsilon=0.0, seed=s).run(X, yr).extras
        rho, J = np.asarray(e["rho"]), np.asarray(e["explored"])
        worst.append(np.bincount(J[rho >= 1], minlength=K).max())
    worst = np.array(worst)
    assert np.mean(worst > batbooks_theorem8_bound(B, K, delta)) <= tolerance(delta, runs)
    assert np.mean(worst > B / 2) > 0.2


# -- regret ----------------------------------------------------------------------------------

def comparators(X, y, radii):
    """{(kernel index, radius): HingeComparator} on each kernel's Gram matrix."""
    return {(i, U): best_hinge_in_ball(gaussian_kernel(X, k.sigma), y, U)
            for i, k in enumerate(KERNELS) for U in radii}


def test_lkmbooks_theorem3_expected_regret():
    """Hinge loss, upsilon = 1/3, C = B/2 so that the hard guard at B never acts (the
    estimator stays unbiased; checked), a fixed normalizer l_m = 4 of criterion (6) that
    bounds the observed spread (checked: the criteria lie in [0, 1]).  The bound is
    evaluated with C in the role of B (the probabilities are min{1, C/z}).  Measured
    ratios regret / bound: 0.1-0.5 (tightest: kernel 0, U = 3)."""
    T, B, runs = 400, 60, 30
    X, y, _ = stream(T)
    runs_out = [LKMBooks(KERNELS, B=B, C=B / 2, T=T, l_m=4.0, seed=s).run(X, y)
                for s in range(runs)]
    e = runs_out[0].extras
    assert all(r.extras["guard_blocked"] == 0 for r in runs_out)
    assert max(r.extras["l_m"] for r in runs_out) <= 4.0
    totals = np.array([r.losses.sum() for r in runs_out])
    se = totals.std(ddof=1) / math.sqrt(runs)
    worst = 0.0
    for (i, U), c in comparators(X, y, (1.0, 3.0, 10.0)).items():
        bound = lkmbooks_regret_bound(T, len(KERNELS), int(B / 2), c.norm, e["lam"], e["eta"],
                                      upsilon=1 / 3, ell_m=4.0)
        regret = totals.mean() - c.loss
        assert regret <= bound + 3 * se, (i, U, regret, bound)
        worst = max(worst, regret / bound)
    assert worst > 0.3          # the bound is not vacuous on this stream


def test_pfmbooks_theorem6_expected_regret():
    """Hinge loss, upsilon = 0, Theorem 6's parameters (U = sqrt(B), U_min = U/sqrt(T),
    lambda_{i,j}, Theorem 5's eta, Assumption 5's scales); expected loss per round
    <p_t, c_t> from the run, averaged over seeds; each (kernel, radius) action against
    the best comparator in its ball.  Measured: largest ratio regret / bound 0.37."""
    T, B, runs = 400, 40, 20
    X, y, _ = stream(T)
    outs = [PFMBooks(KERNELS, B=B, T=T, upsilon=0.0, seed=s).run(X, y) for s in range(runs)]
    e = outs[0].extras
    assert all(o.extras["guard_triggers"] == 0 for o in outs)
    totals = np.array([np.sum(o.extras["expected_criteria"]) for o in outs])
    se = totals.std(ddof=1) / math.sqrt(runs)
    radii = np.asarray(e["radii"])
    lams = np.asarray(e["lambdas"]).reshape(len(KERNELS), len(radii))
    worst = 0.0
    for (i, U), c in comparators(X, y, tuple(radii)).items():
        j = int(np.argmin(np.abs(radii - U)))
        bound = pfmbooks_regret_bound(T, B, min(c.norm, U), U, lams[i, j], e["eta"],
                                      e["scales"], i * len(radii) + j, upsilon=0.0)
        regret = totals.mean() - c.loss
        assert regret <= bound + 3 * se, (i, U, regret, bound)
        worst = max(worst, regret / bound)
    assert worst > 0.2


def test_batbooks_theorem10_expected_regret():
    """Hinge loss, B = T (condition (12) fails: Theorem 10's second case, lambda_i =
    1/sqrt(K D_i T)), upsilon = 0: every buffer's additions are Binomial(T, 1/K), far
    below its capacity B/2 (checked: no refusal), ell_max = 1 + U bounds every loss in the
    ball.  The bandit term uses the worst case best_loss = T ell_max.  Measured: largest
    ratio regret / bound 0.13 (the worst-case bandit term dominates)."""
    T, runs, K = 300, 30, len(KERNELS)
    B = T
    X, y, _ = stream(T)
    U = math.sqrt(B)
    outs = [BATBooks(KERNELS, B=B, T=T, upsilon=0.0, ell_max=1.0 + U, seed=s).run(X, y)
            for s in range(runs)]
    e = outs[0].extras
    assert all(o.extras["n_full"] == 0 for o in outs)
    assert not e["condition_12"]
    totals = np.array([o.losses.sum() for o in outs])
    se = totals.std(ddof=1) / math.sqrt(runs)
    lam = np.atleast_1d(e["lam"])
    etas = np.asarray(e["eta"])                     # eta_t per round: fixed (Theorem 9's rate)
    assert np.all(etas == etas[0])
    worst = 0.0
    for (i, R), c in comparators(X, y, (1.0, 3.0, U)).items():
        bound = batbooks_regret_bound(T, K, B, c.norm, U, float(lam[min(i, lam.size - 1)]),
                                      float(etas[0]), T * (1.0 + U), 1.0 + U, upsilon=0.0)
        regret = totals.mean() - c.loss
        assert regret <= bound + 3 * se, (i, R, regret, bound)
        worst = max(worst, regret / bound)
    assert worst > 0.08


def test_probabilities_used_by_the_bounds_are_the_learners():
    """The explicit bounds assume the learners' sampling probabilities: PFMBooks records
    P_t per round; they equal Theorem 4's (upsilon = 0 and 1/3, the learner's z_t form)."""
    T, B = 300, 20
    X, _, yr = stream(T)
    for u in (0.0, 1 / 3):
        e = PFMBooks(KERNELS, loss="absolute", B=B, T=T, upsilon=u, seed=0).run(X, yr).extras
        P = np.asarray(e["sampling_probabilities"])
        ok = [np.allclose(P, addition_probabilities(T, B, u, "4", form)) for form in
              ("printed", "corrected")]
        assert any(ok)
        if u == 0.0:
            assert all(ok)
