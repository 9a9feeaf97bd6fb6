"""Bounds of Li & Liao, *Online kernel selection with computational constraints*,
theory/selection.py.

Hand-evaluated points, the monotonicity the paper implies, upper bounds above the lower
bounds they are said to match up to factors, the budget bounds of Theorems 2, 4 and 8
against the exact law of the sampling process they bound (a Poisson-binomial tail from
scipy) and against a Monte-Carlo simulation of the adaptive process, and the finding that
the printed rates ``z_t`` violate the printed bounds.  No learner runs here.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from theory.experts import hedge_regret_bound, msmw_regret_bound
from theory.selection import (
    addition_probabilities,
    batbooks_condition12,
    batbooks_regret_bound,
    batbooks_theorem10_lambda,
    batbooks_theorem10_rate,
    batbooks_theorem8_bound,
    bernstein_budget_bound,
    budget_tail,
    lkmbooks_regret_bound,
    lkmbooks_theorem2_bound,
    lkmbooks_theorem2_condition,
    lkmbooks_theorem3_parameters,
    lkmbooks_theorem3_rate,
    memory_budget_for_rate,
    memory_lower_bound,
    pfmbooks_radii,
    pfmbooks_regret_bound,
    pfmbooks_theorem4_bound,
    pfmbooks_theorem4_condition,
    pfmbooks_theorem6_parameters,
    pfmbooks_theorem6_rate,
    sampled_ogd_regret_bound,
    sampling_rate,
    time_lower_bound,
)

FAST = settings(max_examples=60, deadline=None)


# -- sampling rates and probabilities -------------------------------------------------------

def test_sampling_rate_hand_values():
    # T = 100, upsilon = 1/2, n = 4: T^{1/2} n^{1/2} = 20
    assert sampling_rate(4, 100, 0.5, "2", "printed") == pytest.approx(0.5 * 20)
    assert sampling_rate(4, 100, 0.5, "2", "corrected") == pytest.approx(20 / 0.5)
    assert sampling_rate(4, 100, 0.5, "4", "printed") == pytest.approx(2 * 0.5 * 20)
    assert sampling_rate(4, 100, 0.5, "8", "corrected") == pytest.approx(2 * 20 / 0.5)
    # upsilon = 0: both forms are T (Thm 2) and 2T (Thms 4, 8)
    for form in ("printed", "corrected"):
        assert sampling_rate(7, 50, 0.0, "2", form) == pytest.approx(50.0)
        assert sampling_rate(7, 50, 0.0, "4", form) == pytest.approx(100.0)


def test_addition_probabilities_hand_values():
    p = addition_probabilities(100, 5, 0.5, "2", "corrected", n=4)
    z = 10.0 * np.sqrt(np.arange(1, 5)) / 0.5
    np.testing.assert_allclose(p, np.minimum(1.0, 5 / z))
    # Theorem 8: C = K B and the exploration draw J_t = i with probability 1/K
    p8 = addition_probabilities(100, 5, 0.5, "8", "corrected", K=3)
    z8 = 2 * 10.0 * np.sqrt(np.arange(1, 101)) / 0.5
    np.testing.assert_allclose(p8, np.minimum(1.0, 15 / z8) / 3)
    # the minimum clips when z_1 <= C
    assert addition_probabilities(10, 50, 0.0, "2")[0] == 1.0


@FAST
@given(T=st.integers(1, 20000), B=st.integers(1, 5000), u=st.floats(0.0, 0.95))
def test_corrected_rates_sum_to_at_most_the_budget(T, B, u):
    """The reconstruction: the probabilities sum to <= B (Thm 2) and <= B/2 (Thms 4, 8)."""
    assert addition_probabilities(T, B, u, "2").sum() <= B * (1 + 1e-12)
    assert addition_probabilities(T, B, u, "4").sum() <= B / 2 * (1 + 1e-12)
    assert addition_probabilities(T, B, u, "8", K=9).sum() <= B / 2 * (1 + 1e-12)


def test_printed_rates_sum_to_about_B_over_one_minus_upsilon_squared():
    """The finding behind the reconstruction: with the printed z the expected number of
    additions is ~ B/(1-upsilon)^2 (2.25 B at upsilon = 1/3), not <= B."""
    T, B, u = 100_000, 100, 1 / 3
    s2 = addition_probabilities(T, B, u, "2", "printed").sum()
    s4 = addition_probabilities(T, B, u, "4", "printed").sum()
    assert s2 == pytest.approx(B / (1 - u) ** 2, rel=0.01)
    assert s4 == pytest.approx(B / 2 / (1 - u) ** 2, rel=0.01)
    # the corrected sum is close to B (the bound is not loose either)
    assert addition_probabilities(T, B, u, "2").sum() == pytest.approx(B, rel=0.01)


# -- budget bounds: closed forms -------------------------------------------------------------

def test_budget_bounds_hand_values():
    d = math.exp(-2.0)                               # ln(1/delta) = 2
    assert bernstein_budget_bound(100, d) == pytest.approx(100 + 4 / 3 + 20)
    assert lkmbooks_theorem2_bound(100, d) == pytest.approx(100 + 4 / 3 + math.sqrt(400))
    assert pfmbooks_theorem4_bound(100, d) == pytest.approx(50 + 4 / 3 + math.sqrt(200))
    # Theorem 8: ln(K/delta) = 2 with K = 2, delta = 2 e^-2
    assert batbooks_theorem8_bound(100, 2, 2 * d) == pytest.approx(50 + 4 / 3 + math.sqrt(200))


def test_conditions():
    # printed: (1 - 1/2) * 100^{1/2} = 5 > B iff B < 5
    assert lkmbooks_theorem2_condition(100, 4, 0.5)
    assert not lkmbooks_theorem2_condition(100, 5, 0.5)
    # corrected: 100^{1/2} / (1/2) = 20
    assert lkmbooks_theorem2_condition(100, 19, 0.5, form="corrected")
    assert not lkmbooks_theorem2_condition(100, 20, 0.5, form="corrected")
    assert pfmbooks_theorem4_condition(100, 9, 0.5) and not pfmbooks_theorem4_condition(100, 10, 0.5)
    # (12): 2 (1 - u) T^{1-u} > K B
    assert batbooks_condition12(100, 1, 9, 0.5) and not batbooks_condition12(100, 2, 9, 0.5)


@FAST
@given(B=st.integers(1, 10 ** 5), d1=st.floats(1e-6, 0.5), d2=st.floats(1e-6, 0.5))
def test_budget_bounds_monotone(B, d1, d2):
    lo, hi = sorted((d1, d2))
    assert lkmbooks_theorem2_bound(B, lo) >= lkmbooks_theorem2_bound(B, hi)
    assert lkmbooks_theorem2_bound(B + 1, lo) > lkmbooks_theorem2_bound(B, lo)
    assert pfmbooks_theorem4_bound(B, lo) < lkmbooks_theorem2_bound(B, lo)
    # Theorem 8 is Theorem 4 at level delta/K
    assert batbooks_theorem8_bound(B, 9, lo) == pytest.approx(pfmbooks_theorem4_bound(B, lo / 9))
    assert batbooks_theorem8_bound(B, 9, lo) > pfmbooks_theorem4_bound(B, lo)


# -- budget bounds against the exact law of the sampling process ------------------------------

GRID = [(T, B, u) for T in (500, 5000) for B in (10, 100, 400) for u in (0.0, 1 / 3, 0.6)
        if B < T] + [(10_000, 400, 1 / 3)]
DELTAS = np.array([0.01, 0.1, 0.5])


@pytest.mark.parametrize("T,B,u", GRID)
def test_theorems_2_4_8_hold_for_the_exact_tail(T, B, u):
    """P[#additions > bound] <= delta under the corrected rates, the number of additions
    being Poisson-binomial (every gradient non-zero: the worst case, and the case of the
    absolute loss).  Teeth: test_budget_bounds_have_teeth (half the deviation fails)."""
    p2 = addition_probabilities(T, B, u, "2")
    b2 = [lkmbooks_theorem2_bound(B, d) for d in DELTAS]
    assert np.all(budget_tail(p2, b2) <= DELTAS)
    p4 = addition_probabilities(T, B, u, "4")
    b4 = [pfmbooks_theorem4_bound(B, d) for d in DELTAS]
    assert np.all(budget_tail(p4, b4) <= DELTAS)
    K = 9
    p8 = addition_probabilities(T, B, u, "8", K=K)
    b8 = [batbooks_theorem8_bound(B, K, d) for d in DELTAS]
    # union over K identically distributed buffers: K * tail <= delta
    assert np.all(K * budget_tail(p8, b8) <= DELTAS)


def test_budget_bounds_have_teeth():
    """Without the deviation term the bounds fail: the tail at the mean is ~ 1/2."""
    T, B, u, delta = 5000, 400, 1 / 3, 0.1
    p = addition_probabilities(T, B, u, "2")
    half_dev = B + 0.5 * (lkmbooks_theorem2_bound(B, delta) - B)
    assert budget_tail(p, half_dev) > delta
    assert budget_tail(p, p.sum()) > 0.4


@pytest.mark.parametrize("theorem,bound", [("2", lkmbooks_theorem2_bound),
                                           ("4", pfmbooks_theorem4_bound)])
def test_printed_rates_violate_the_printed_bounds(theorem, bound):
    """With z_t as printed, at the experiments' upsilon = 1/3 and a budget meeting the
    printed condition, the budget exceeds the bound almost surely: the typo is real."""
    T, B, u, delta = 5000, 100, 1 / 3, 0.05
    assert lkmbooks_theorem2_condition(T, B, u) and pfmbooks_theorem4_condition(T, B, u)
    p = addition_probabilities(T, B, u, theorem, "printed")
    assert budget_tail(p, bound(B, delta)) > 0.99
    # at upsilon = 0 the printed and corrected rates coincide and the bound holds
    p0 = addition_probabilities(T, B, 0.0, theorem, "printed")
    assert budget_tail(p0, bound(B, delta)) <= delta


def test_budget_tail_matches_a_direct_convolution():
    p = np.array([0.1, 0.5, 0.9, 0.3])
    pmf = np.array([1.0])
    for q in p:
        pmf = np.convolve(pmf, [1 - q, q])
    for k in range(5):
        assert budget_tail(p, k) == pytest.approx(pmf[k + 1:].sum())
    assert budget_tail(p, 1.7) == pytest.approx(pmf[2:].sum())


def test_theorem2_monte_carlo_adaptive_gradients():
    """The process of Theorem 2 with gradients that depend on the past draws (always
    non-zero while the buffer is below B/2, zero with probability 0.2 after): Freedman's bound
    still holds.  5000 runs; the frequency of exceeding the bound must stay below delta
    plus a 3-sigma binomial tolerance."""
    T, B, u, delta, runs = 2000, 40, 1 / 3, 0.1, 5000
    rng = np.random.default_rng(7)
    bound = lkmbooks_theorem2_bound(B, delta)
    sizes = np.zeros(runs, dtype=int)
    n = np.zeros(runs)                               # |E_t|
    for t in range(T):
        grad = np.where(sizes < B // 2, True, rng.random(runs) < 0.8)
        z = sampling_rate(n + 1, T, u, "2", "corrected")
        rho = grad & (rng.random(runs) < np.minimum(1.0, B / z))
        sizes += rho
        n += grad
    freq = np.mean(sizes > bound)
    assert freq <= delta + 3 * math.sqrt(delta * (1 - delta) / runs)
    # teeth: the process is not trivially far below the bound
    assert np.mean(sizes > B) > 0.15


# -- lower bounds -----------------------------------------------------------------------------

def test_lower_bounds_hand_values():
    assert memory_lower_bound(100, 400, 2.0, L=1.0) == pytest.approx(2.0 * 10)
    assert memory_lower_bound(10_000, 100, 2.0, L=0.5) == pytest.approx(2.0 * 0.5 * 10_000 / 10)
    assert memory_lower_bound(100, 100, 3.0) == pytest.approx(30.0)       # both branches
    assert time_lower_bound(10_000, [50, 100, 25], 1.0) == pytest.approx(1000.0)
    assert time_lower_bound(10_000, [50, 100], 1.0, beta=4.0) == pytest.approx(500.0)
    # after Theorem 1: O(T^{3/4}) regret needs T_mem >= T^{1/2}
    assert memory_budget_for_rate(10_000, 0.75) == pytest.approx(100.0)
    assert memory_budget_for_rate(10_000, 0.75, C=2.0, alpha=5.0) == pytest.approx(5.0)


@FAST
@given(T=st.integers(1, 10 ** 6), B1=st.integers(1, 10 ** 5), B2=st.integers(1, 10 ** 5),
       f=st.floats(0.0, 100.0))
def test_lower_bounds_monotone(T, B1, B2, f):
    lo, hi = sorted((B1, B2))
    assert memory_lower_bound(T, hi, f) <= memory_lower_bound(T, lo, f) * (1 + 1e-12)
    assert memory_lower_bound(T + 1, lo, f) >= memory_lower_bound(T, lo, f)
    # a static allocation counts through its largest share only
    assert time_lower_bound(T, [lo, hi], f) == pytest.approx(memory_lower_bound(T, hi, f))


# -- upper bounds as printed ----------------------------------------------------------------------

def test_printed_rates_hand_values():
    # T = 10^4, K = e^2 is not an integer: K = 9, ln 9
    r3 = lkmbooks_theorem3_rate(10_000, 9, 100, 2.0, L=1.0, ell_m=0.5)
    assert r3 == pytest.approx(math.sqrt(10_000 * math.log(9)) + 5.0 * 1000.0)
    r3b = lkmbooks_theorem3_rate(100, 9, 400, 0.0, L=2.0, ell_m=3.0)
    assert r3b == pytest.approx(3 * math.sqrt(100 * math.log(9)) + 2.0 * 10.0)
    a = math.sqrt(10_000 * math.log(9 * 4 * 10_000))
    assert pfmbooks_theorem6_rate(10_000, 9, 4, 100, 2.0) == pytest.approx(
        2.0 * max(a, 1000.0) * math.sqrt(math.log(90_000)) + a)
    r10 = batbooks_theorem10_rate(10_000, 9, 100, 1.0, 50.0, U=10.0, condition=True)
    assert r10 == pytest.approx(math.sqrt(11 * 50 * 9 * math.log(9)) + 2 * 1000.0)
    r10b = batbooks_theorem10_rate(10_000, 9, 100, 1.0, 50.0, U=10.0, condition=False)
    assert r10b == pytest.approx(math.sqrt(11 * 50 * 9 * math.log(9)) + 2 * math.sqrt(90_000))


@FAST
@given(T=st.integers(3, 10 ** 6), B=st.integers(1, 10 ** 5), K=st.integers(2, 50),
       f=st.floats(0.0, 100.0), M=st.integers(1, 10))
def test_upper_bounds_dominate_lower_bounds(T, B, K, f, M):
    """Theorems 3 and 6 match Theorem 1 up to factors, Theorem 10 matches Theorem 7 (with
    the R(T/2, ..., T/2) allocation: budget B) up to factors: each upper rate is above."""
    low = memory_lower_bound(T, B, f)
    assert lkmbooks_theorem3_rate(T, K, B, f) >= low
    assert pfmbooks_theorem6_rate(T, K, M, B, f) >= low
    time_low = time_lower_bound(T, [B] * K, f)
    assert batbooks_theorem10_rate(T, K, B, f, 0.0, U=1.0, condition=2 * T > K * B) >= time_low


@FAST
@given(T=st.integers(10, 10 ** 6), B1=st.integers(1, 10 ** 5), B2=st.integers(1, 10 ** 5))
def test_upper_rates_decrease_with_the_budget(T, B1, B2):
    lo, hi = sorted((B1, B2))
    assert lkmbooks_theorem3_rate(T, 9, hi, 1.0) <= lkmbooks_theorem3_rate(T, 9, lo, 1.0)
    assert pfmbooks_theorem6_rate(T, 9, 3, hi, 1.0) <= pfmbooks_theorem6_rate(T, 9, 3, lo, 1.0)


# -- parameters ---------------------------------------------------------------------------------

def test_theorem3_parameters():
    eta, lam = lkmbooks_theorem3_parameters(10_000, 9, 100, D=1.0, L=1.0, upsilon=1 / 3)
    assert eta == pytest.approx(math.sqrt(8 * math.log(9) / 10_000))
    assert lam == pytest.approx(math.sqrt(4 / 3 * 100) / (math.sqrt(2 / 3) * 10_000))
    _, lam_big = lkmbooks_theorem3_parameters(100, 9, 100, D=4.0, L=0.5)
    assert lam_big == pytest.approx(1.0 / (math.sqrt(400) * 0.5))


def test_pfmbooks_radii_and_theorem6_parameters():
    np.testing.assert_allclose(pfmbooks_radii(10.0, 1.0), np.exp([0, 1, 2, 3]))
    np.testing.assert_allclose(pfmbooks_radii(math.e, math.e), [math.e])
    P = pfmbooks_theorem6_parameters(10_000, 100, D=[1.0, 4.0], L=1.0, upsilon=0.0)
    assert P.U == pytest.approx(10.0) and P.U_min == pytest.approx(0.1)
    # ceil(ln 0.1) = -2, ceil(ln 10) = 3: M = 6, U_j = e^{-2..3}
    assert P.M == 6
    np.testing.assert_allclose(P.radii, np.exp(np.arange(-2, 4)))
    np.testing.assert_allclose(P.lam[0], P.radii * 10 / (math.sqrt(2) * 10_000))
    np.testing.assert_allclose(P.lam[1], P.lam[0] / 2)
    assert P.eta == pytest.approx(math.sqrt(2 * math.log(2 * 6 * 10_000) / 10_000))
    assert P.radii[0] >= P.U_min and P.radii[-1] >= P.U


def test_theorem10_lambda():
    assert batbooks_theorem10_lambda(10_000, 9, 100, D=1.0, upsilon=0.0) == pytest.approx(
        10 / (math.sqrt(2) * 10_000))
    assert batbooks_theorem10_lambda(10_000, 9, 100, condition=False) == pytest.approx(
        1 / math.sqrt(9 * 10_000))


# -- explicit bounds --------------------------------------------------------------------------

def test_sampled_ogd_bound_closed_form():
    p = np.array([0.5, 0.25, 1.0])                     # sum 1/p = 7
    assert sampled_ogd_regret_bound(2.0, 0.5, p, L=1.0, D=2.0) == pytest.approx(4 + 0.25 * 2 * 7)
    # at the tuned step f / sqrt(L^2 D sum 1/p) the bound is f sqrt(L^2 D sum 1/p)
    lam = 2.0 / math.sqrt(2 * 7)
    assert sampled_ogd_regret_bound(2.0, lam, p, L=1.0, D=2.0) == pytest.approx(2 * math.sqrt(14))


def test_explicit_bounds_decompose():
    T, K, B, u = 1000, 4, 50, 1 / 3
    eta, lam = lkmbooks_theorem3_parameters(T, K, B, upsilon=u)
    b = lkmbooks_regret_bound(T, K, B, 2.0, lam, eta, upsilon=u, ell_m=3.0, n_gradient=600)
    p = addition_probabilities(T, B, u, "2", n=600)
    assert b == pytest.approx(3.0 * hedge_regret_bound(T, K, eta=eta)
                              + sampled_ogd_regret_bound(2.0, lam, p))
    P = pfmbooks_theorem6_parameters(T, B, D=[1.0] * K, upsilon=u)
    scales = np.tile(1.0 + P.radii, K)
    k = 1 * P.M + 2                                    # h(i = 2, j = 3), 0-based
    bp = pfmbooks_regret_bound(T, B, 1.0, P.radii[2], P.lam[1, 2], P.eta, scales, k, upsilon=u)
    assert bp == pytest.approx(msmw_regret_bound(scales, T, P.eta)[k] + sampled_ogd_regret_bound(
        1.0, P.lam[1, 2], addition_probabilities(T, B, u, "4")))
    with pytest.raises(ValueError, match="f_norm"):
        pfmbooks_regret_bound(T, B, 100.0, P.radii[0], 0.1, P.eta, scales, 0)
    bb = batbooks_regret_bound(T, K, B, 1.0, 5.0, 0.01, 0.05, 100.0, ell_m=6.0)
    assert bb > sampled_ogd_regret_bound(1.0, 0.01, addition_probabilities(T, B, 0.0, "8", K=K))


@pytest.mark.parametrize("u", [0.0, 1 / 3, 0.6])
@pytest.mark.parametrize("T,B", [(10_000, 100), (100_000, 400), (2000, 1000)])
def test_explicit_lkmbooks_bound_has_theorem3_order(T, B, u):
    """At Theorem 3's parameters the explicit bound is at most (1 + (1-u)^{-3/2})
    times Theorem 3's rate: the corrected rates keep Theorem 3's order."""
    K = 9
    eta, lam = lkmbooks_theorem3_parameters(T, K, B, upsilon=u)
    for f in (0.0, 0.5, 3.0, 20.0):
        explicit = lkmbooks_regret_bound(T, K, B, f, lam, eta, upsilon=u)
        assert explicit <= (1 + (1 - u) ** -1.5) * lkmbooks_theorem3_rate(T, K, B, f)


# -- validation -------------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: sampling_rate(1, 10, 1.0), "upsilon"),
    (lambda: sampling_rate(0, 10, 0.5), "n must"),
    (lambda: sampling_rate(1, 10, 0.5, theorem="3"), "theorem"),
    (lambda: sampling_rate(1, 10, 0.5, form="typo"), "form"),
    (lambda: lkmbooks_theorem2_bound(10, 1.0), "delta"),
    (lambda: lkmbooks_theorem2_bound(0, 0.1), "B"),
    (lambda: batbooks_theorem8_bound(10, 0, 0.1), "K"),
    (lambda: budget_tail([0.5, 1.5], 1), "probabilities"),
    (lambda: memory_lower_bound(10, 10, -1.0), "f_norm"),
    (lambda: time_lower_bound(10, [], 1.0), "allocations"),
    (lambda: memory_budget_for_rate(10, 0.3), "upsilon"),
    (lambda: pfmbooks_radii(1.0, 2.0), "U_min"),
    (lambda: addition_probabilities(10, 5, 0.2, n=11), "n must"),
    (lambda: sampled_ogd_regret_bound(1.0, 0.1, [0.0]), "probabilities"),
    (lambda: lkmbooks_theorem3_rate(10, 9, 5, float("nan")), "f_norm"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_poisson_binomial_is_scipys():
    p = addition_probabilities(300, 20, 0.5, "4")
    assert budget_tail(p, 12) == pytest.approx(stats.poisson_binom(p).sf(12))
