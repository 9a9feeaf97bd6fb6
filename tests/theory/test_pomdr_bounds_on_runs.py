"""POMD / POMDR runs (okl.learners.pomdr) against the bounds of Li & Liao (AAAI 2023).

Streams: ``okl.datasets.spectral`` (linear kernel on explicit features, Gram
spectrum known exactly: lambda_i <= R0 r^i or R0 i^-p with the stream's R0, and
k(x, x) = 1, so D = A = 1 and Theorem 1's C1 = C2 = 1).  The quantities on the
theory side are computed here with numpy from ``X @ X.T`` and ``theory``:

* Theorem 1: the learner's per-round budget equals the ALD process of
  ``theory.pomdr.ald_dictionary`` run on the Gram matrix with the rounds of
  positive loss (its exact dictionary), and the final size is within the
  interlacing bound and Theorem 1 (exponential: also within bound - 1, the
  proof's sharper form).  Measured / Theorem 1: 0.33-0.71, above 0.45 when the
  grid is walked in order (printed with -s).
* Theorem 2 / Corollary 1: regret against the best hinge loss in ``||f|| <= U``
  (``theory.best_hinge_in_ball``; its certified lower bound is used, so the
  measured regret is an upper bound on the true one) within the bound on
  ``sum delta_t`` of the same run.  The paper's worst-case constants leave
  slack: measured / bound reaches 0.29 in the exponential case (the check
  fails if the bound is divided by 4, asserted below) and ~0.12 in the budgeted case.
* Lemma 4 and the learner's ``sum_delta`` extra: equal to
  ``theory.pomdr.sum_delta`` on the rounds of positive loss (per round too),
  and <= 4 A_T + 7 D.
* |S_T| = O(ln T): over T = 250 ... 8000 the final budget grows linearly in
  ln T with a slope below Theorem 1's 2 (1 + 2 zeta) / ln(1/r).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from okl.datasets.spectral import spectral_stream
from okl.learners.pomdr import POMD, POMDR
from theory import best_hinge_in_ball, kernel_alignment
from theory.pomdr import (
    ald_budget_spectral_bound,
    ald_dictionary,
    ald_threshold,
    corollary1_bound,
    delta_sequence,
    lemma4_bound,
    sum_delta,
    theorem1_exponential_bound,
    theorem1_polynomial_bound,
    theorem2_bound,
    theorem2_max_halvings,
)

RTOL = 1e-9


def _ordered(s, order):
    """The stream's rows in one of three orders (the spectrum does not change)."""
    T = s.T
    if order == "random":
        idx = np.arange(T)
    elif order == "sorted":           # the grid walked around the circle
        idx = np.argsort(s.u)
    else:                             # labels alternate while both classes last
        p, n = np.flatnonzero(s.y > 0), np.flatnonzero(s.y < 0)
        m = min(p.size, n.size)
        idx = np.r_[np.c_[p[:m], n[:m]].ravel(), p[m:], n[m:]]
    return s.X[idx], s.y[idx]


@functools.lru_cache(maxsize=None)
def _stream(T, decay, rate, d, flip, seed, order):
    kw = {"r": rate} if decay == "exponential" else {"p": rate}
    s = spectral_stream(T, decay, d=d, flip=flip, seed=seed, **kw)
    X, y = _ordered(s, order)
    return s, X, y, X @ X.T


@functools.lru_cache(maxsize=None)
def _comparator_lower_bound(key, U):
    _, _, y, K = _stream(*key)
    return best_hinge_in_ball(K, y, U).lower_bound


# -- Theorem 1 ---------------------------------------------------------------------------

@pytest.mark.parametrize("rate", [0.3, 0.6])
@pytest.mark.parametrize("order", ["random", "sorted", "alternating"])
@pytest.mark.parametrize("zeta", [0.5, 1.0])
def test_budget_is_the_ald_dictionary_and_within_theorem1(rate, order, zeta):
    key = (600, "exponential", rate, 96, 0.2, 11, order)
    s, X, y, K = _stream(*key)
    T = s.T
    bound = theorem1_exponential_bound(T, zeta, 1.0, s.R0, rate)
    spec = ald_budget_spectral_bound(s.eigenvalues, ald_threshold(T, zeta, 1.0), 1.0)
    for learner in (POMD(s.kernel, U=4.0, M=5, zeta=zeta, D=1.0),
                    POMDR(s.kernel, U=4.0, M=5, zeta=zeta, D=1.0, B0=int(bound) + 1,
                          B=2 * int(bound) + 4)):
        tr = learner.run(X, y)
        assert tr.extras["t_bar"] == math.inf
        oracle = ald_dictionary(K, zeta, D=1.0, active=tr.losses > 0)
        np.testing.assert_array_equal(tr.budget, oracle.budget)
        k = int(tr.budget[-1])
        assert tr.extras["ald_added"] == k
        assert k <= spec <= bound
        assert k <= bound - 1
        if order == "sorted":       # teeth: ratio 0.50-0.71 walking the grid in order
            assert k > 0.45 * bound
        print(f"Thm 1 r={rate} zeta={zeta} {order}: |S_T|={k} spectral={spec} "
              f"bound={bound:.1f} ratio={k / bound:.2f}")


@pytest.mark.parametrize("p", [2.0, 4.0])
def test_budget_within_theorem1_polynomial(p):
    key = (600, "polynomial", p, 200, 0.2, 12, "sorted")
    s, X, y, K = _stream(*key)
    for zeta in (0.5, 1.0):
        tr = POMD(s.kernel, U=4.0, M=5, zeta=zeta, D=1.0).run(X, y)
        oracle = ald_dictionary(K, zeta, D=1.0, active=tr.losses > 0)
        if zeta < 1:
            np.testing.assert_array_equal(tr.budget, oracle.budget)
        # At zeta = 1 (threshold 1/T^2) K_S reaches condition numbers ~1e10 on this
        # slowly decaying spectrum: residuals near the threshold are then decided by
        # round-off (learner and numpy oracle both ~1e-8 from a 50-digit computation,
        # on opposite sides, from round 42 on), so only the bounds are checked, and
        # |S_T| only within a wide band of the oracle's: the row norms rounded
        # correctly, then moved by +-2 ulp at random, give |S_T| from 57 to 132 here
        # (the oracle: 52; okl's four-lane norms, the closest to the correctly rounded
        # ones: 148; NumPy's einsum norms: 69).
        k = int(tr.budget[-1])
        if zeta < 1:
            assert abs(k - oracle.size) <= 0.5 * k
        else:
            assert oracle.size / 2 <= k <= 3 * oracle.size
        spec = ald_budget_spectral_bound(s.eigenvalues, ald_threshold(600, zeta, 1.0), 1.0)
        assert k <= spec <= theorem1_polynomial_bound(600, zeta, 1.0, s.R0, p)


# -- Theorem 2, Corollary 1, Lemma 4 ------------------------------------------------------------

def _check_sum_delta(tr, K, y, M):
    active = tr.losses > 0
    np.testing.assert_allclose(tr.extras["deltas"], delta_sequence(K, y, M, active),
                               rtol=1e-10, atol=1e-12)
    sd = sum_delta(K, y, M, active)
    assert tr.extras["sum_delta"] == pytest.approx(sd, rel=1e-10)
    A = kernel_alignment(K, y)
    assert sd <= lemma4_bound(A, 1.0)
    return sd, A


EXP_CASES = [(order, flip, U) for order in ("random", "alternating")
             for flip in (0.2, 0.5) for U in (1.0, 4.0, 16.0)]


def test_regret_within_theorem2_exponential_decay():
    """zeta = 1 and B0 above Theorem 1's bound, so t_bar = inf (POMD only)."""
    ratios = []
    for order, flip, U in EXP_CASES:
        key = (600, "exponential", 0.5, 64, flip, 2, order)
        s, X, y, K = _stream(*key)
        b1 = theorem1_exponential_bound(600, 1.0, 1.0, s.R0, 0.5)
        for M in (1, 15):
            tr = POMDR(s.kernel, U=U, M=M, zeta=1.0, D=1.0, B0=math.ceil(b1),
                       B=2 * math.ceil(b1) + 2).run(X, y)
            assert tr.extras["t_bar"] == math.inf
            sd, A = _check_sum_delta(tr, K, y, M)
            regret = tr.losses.sum() - _comparator_lower_bound(key, U)
            bound = theorem2_bound(U, sd)
            assert regret <= bound * (1 + RTOL)
            assert regret <= corollary1_bound(U, A, 1.0) * (1 + RTOL)
            ratios.append(regret / bound)
    print("Thm 2 measured/bound:", np.round(ratios, 3))
    assert max(ratios) > 0.25          # teeth: the check fails if the bound is divided by 4


def test_regret_within_theorem2_budgeted():
    """Polynomial decay, small B0 and B: OMDR halves the budget many times."""
    ratios = []
    for flip, U, (B0, B) in [(0.0, 4.0, (8, 16)), (0.2, 4.0, (10, 40)),
                             (0.2, 16.0, (8, 16)), (0.5, 16.0, (10, 40))]:
        key = (800, "polynomial", 2.0, 200, flip, 3, "random")
        s, X, y, K = _stream(*key)
        M = 3
        tr = POMDR(s.kernel, U=U, M=M, zeta=1.0, D=1.0, B0=B0, B=B).run(X, y)
        assert tr.extras["omdr"] and tr.extras["halvings"] > 0
        assert tr.budget.max() < B
        assert tr.extras["halvings"] <= theorem2_max_halvings(800, B)
        sd, A = _check_sum_delta(tr, K, y, M)
        regret = tr.losses.sum() - _comparator_lower_bound(key, U)
        bound = theorem2_bound(U, sd, T=800, B=B)
        assert regret <= bound * (1 + RTOL)
        assert regret <= corollary1_bound(U, A, 1.0, T=800, B=B) * (1 + RTOL)
        ratios.append(regret / bound)
    print("Thm 2 (budgeted) measured/bound:", np.round(ratios, 3))
    assert max(ratios) > 0.08


def test_halvings_reach_the_proofs_count():
    """OMDR's halvings, counted from the run's losses, attain N = 2T/B - 1 at U = 1."""
    for p, flip, expect_max in ((1.0, 0.0, True), (2.0, 0.5, False)):
        key = (800, "polynomial", p, 200, flip, 3, "random")
        s, X, y, K = _stream(*key)
        B0, B = 8, 16
        tr = POMDR(s.kernel, U=1.0, M=3, zeta=1.0, D=1.0, B0=B0, B=B).run(X, y)
        # from round t_bar on (1-based) every positive loss adds one example
        n_add = int(np.sum(tr.losses[tr.extras["t_bar"] - 1:] > 0))
        count = 0 if B0 + n_add < B else 1 + (B0 + n_add - B) // (B // 2)
        assert tr.extras["halvings"] == count <= theorem2_max_halvings(800, B)
        assert (count == theorem2_max_halvings(800, B) == 99) is expect_max


# -- |S_T| = O(ln T) -----------------------------------------------------------------------------

@pytest.mark.parametrize("zeta, r", [(1.0, 0.5), (0.5, 0.3)])
def test_budget_grows_like_log_T(zeta, r):
    Ts = np.array([250, 500, 1000, 2000, 4000, 8000])
    sizes, bounds = [], []
    for T in Ts:
        s = spectral_stream(int(T), "exponential", r=r, d=96, flip=0.1, seed=0)
        tr = POMD(s.kernel, U=5.0, M=5, zeta=zeta, D=1.0).run(s.X, s.y)
        sizes.append(int(tr.budget[-1]))
        bounds.append(theorem1_exponential_bound(int(T), zeta, 1.0, s.R0, r))
    sizes, bounds = np.array(sizes), np.array(bounds)
    assert np.all(sizes <= bounds - 1)
    slope, intercept = np.polyfit(np.log(Ts), sizes, 1)
    resid = sizes - (intercept + slope * np.log(Ts))
    theorem_slope = 2 * (1 + 2 * zeta) / math.log(1 / r)    # R0 = cT, alpha = T^-2zeta
    print(f"zeta={zeta} r={r}: |S_T|={sizes.tolist()} slope in ln T={slope:.2f} "
          f"(Theorem 1: {theorem_slope:.2f}), max residual {np.abs(resid).max():.2f}")
    assert 0 < slope <= theorem_slope
    assert np.abs(resid).max() <= 3.0     # observed 1.95 and 0.59
    # far from linear growth: 32x more rounds, less than 2x the budget
    assert sizes[-1] < 2 * sizes[0]
