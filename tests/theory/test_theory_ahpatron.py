"""Bounds of AVP and Ahpatron (Liao, Li, Liao, Hu & Dang, AAAI 2024), theory/ahpatron.py.

Closed forms checked against hand-computed values, the special cases and
constants the paper states (Corollary 1 = Theorem 1 at |N_T| = 0, eq. (10)'s
4 / 1.3 / 2, the worked example after Theorem 6: 3/2, 2.1, sqrt(B)/1.6, 1/3),
monotonicity in B and U, the condition checks, and the exact removal count
against a simulation of the active-set size.  No learner runs here.
"""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from theory.ahpatron import (
    AVPParameters,
    ahpatron_check_theorem5,
    ahpatron_lemma1_bound,
    ahpatron_removal_count,
    ahpatron_theorem4_bound,
    ahpatron_theorem4_conditions,
    ahpatron_theorem4_parameters,
    ahpatron_theorem6_bound,
    ahpatron_theorem6_conditions,
    ahpatron_theorem6_delta,
    ahpatron_theorem6_parameters,
    ahpatron_zeta,
    avp_constant_rate_bound,
    avp_corollary1_bound,
    avp_corollary1_parameters,
    avp_corollary2_bound,
    avp_corollary2_delta,
    avp_corollary2_parameters,
    avp_theorem3_bound,
    bogd_expected_mistake_bound,
    comparator_hinge_loss,
    forgetron_mistake_bound,
    forgetron_radius,
    perceptron_theorem1_bound,
    perceptron_theorem2_bound,
    pomdr_mistake_bound,
    rbp_expected_mistake_bound,
    rbp_max_radius,
)
from theory_data import gaussian_kernel, real_data

FAST = settings(max_examples=60, deadline=None)

losses = st.floats(0.0, 1e4)
norms = st.floats(0.0, 50.0)
counts = st.integers(0, 10 ** 5)
even_budgets = st.integers(8, 5000).map(lambda b: 2 * b)          # even, >= 16


# -- Perceptron: Theorems 1 and 2 ----------------------------------------------------------

def test_perceptron_closed_forms():
    assert perceptron_theorem1_bound(3.0, 2.0) == pytest.approx(10.0)
    assert perceptron_theorem1_bound(3.0, 2.0, kappa_max=0.5) == pytest.approx(8.0)
    assert perceptron_theorem2_bound(4.0, 3.0) == pytest.approx(4.0 + 3.0 * 2.0 + 9.0)
    # X = 2: L + X ||f|| sqrt(L) + X^2 ||f||^2
    assert perceptron_theorem2_bound(4.0, 3.0, kappa_max=4.0) == pytest.approx(4 + 12 + 36)
    # Separable comparator: both are ||f||^2, the classical (R ||u|| / margin)^2.
    assert perceptron_theorem1_bound(0.0, 5.0) == perceptron_theorem2_bound(0.0, 5.0) == 25.0


@FAST
@given(losses, norms, st.floats(1e-3, 10.0))
def test_theorem1_beats_theorem2_iff_loss_below_norm_squared(L, F, X2):
    # The paper: "If L_T(f) <= ||f||^2, then Theorem 1 is better than Theorem 2";
    # the difference is sqrt(L) (sqrt(L) - X ||f||).
    t1 = perceptron_theorem1_bound(L, F, X2)
    t2 = perceptron_theorem2_bound(L, F, X2)
    assert t1 - t2 == pytest.approx(math.sqrt(L) * (math.sqrt(L) - math.sqrt(X2) * F),
                                    rel=1e-9, abs=1e-7)
    if L <= X2 * F * F * (1 - 1e-9):
        assert t1 <= t2 + 1e-9 * t2
    elif L >= X2 * F * F * (1 + 1e-9):
        assert t1 >= t2 - 1e-9 * t2
    # kernel scaling: kappa / X^2 has norm X ||f||
    assert t1 == pytest.approx(perceptron_theorem1_bound(L, math.sqrt(X2) * F), rel=1e-12)
    assert t2 == pytest.approx(perceptron_theorem2_bound(L, math.sqrt(X2) * F), rel=1e-12)


# -- AVP: Theorem 3, Corollaries 1 and 2 -----------------------------------------------------

def test_theorem3_closed_form():
    # L + drift + sum lam_M / 2 + sum (lam_N / 2 - eps_N)
    b = avp_theorem3_bound(2.0, 1.5, [1.0, 1.0, 0.5], [1.0, 0.5], [0.75, 0.5])
    assert b == pytest.approx(2.0 + 1.5 + 1.25 + (0.5 - 0.75) + (0.25 - 0.5))
    assert avp_theorem3_bound(2.0, -0.5, [], [], []) == pytest.approx(1.5)


@FAST
@given(losses, norms, st.floats(0.01, 1.99), st.floats(0.0, 1.0), st.integers(0, 2000),
       st.integers(0, 5000))
def test_constant_rate_bound_is_theorem3_solved_for_mistakes(L, F, lam, t, n, m):
    # m <= Theorem 3 (with lam_t = lam on the m mistake rounds and the telescoped drift
    # ||f||^2 / (2 lam))  <=>  m <= avp_constant_rate_bound.
    eps = lam / 2 + (1 - lam / 2) * t
    assume(lam / 2 < eps < 1)
    t3 = avp_theorem3_bound(L, F * F / (2 * lam), np.full(m, lam), np.full(n, lam),
                            np.full(n, eps))
    cr = avp_constant_rate_bound(L, F, lam, eps, n)
    tol = 1e-9 * (1 + abs(t3) + m)
    if m <= t3 - tol:
        assert m <= cr + tol / (1 - lam / 2)
    if m >= t3 + tol:
        assert m >= cr - tol / (1 - lam / 2)


def test_corollary1():
    p = avp_corollary1_parameters()
    assert p == AVPParameters(U=math.inf, lam=1.0, eps_low=0.5, eps_high=1.0)
    # 2L + ||f||^2 + (1 - 2 eps)|N_T|
    assert avp_corollary1_bound(3.0, 2.0, 0.75, 4) == pytest.approx(6 + 4 - 2)
    assert avp_corollary1_bound(3.0, 2.0, 0.9, 0) == perceptron_theorem1_bound(3.0, 2.0)
    # The improvement over Theorem 1 is (2 eps - 1)|N_T|, growing in eps and |N_T|.
    b = [avp_corollary1_bound(3.0, 2.0, e, 100) for e in (0.55, 0.7, 0.85, 0.99)]
    assert all(x > y for x, y in zip(b, b[1:]))
    assert avp_corollary1_bound(3.0, 2.0, 0.75, 100) == pytest.approx(10.0 - 50.0)
    with pytest.raises(ValueError, match="eps"):
        avp_corollary1_bound(3.0, 2.0, 0.5, 1)


def test_corollary2_rates_and_bound():
    assert avp_corollary2_parameters(2.0, 0).lam == 1.0
    p = avp_corollary2_parameters(2.0, 5)
    assert p.lam == pytest.approx(2.0 / 3.0) and p.eps_low == pytest.approx(1.0 / 3.0)
    assert p.eps_high == 1.0 and p.U == 2.0
    lams = [avp_corollary2_parameters(1.5, n).lam for n in range(50)]
    assert all(x > y for x, y in zip(lams, lams[1:]))
    assert avp_corollary2_delta([1.0, 0.5], [0.6, 0.3]) == pytest.approx(-0.15)
    assert avp_corollary2_delta([], []) == 0.0
    # A = L + 2U^2 + Delta = 2: A + 9U^2 + 3U sqrt(A)
    assert avp_corollary2_bound(1.0, 1.0, -1.0) == pytest.approx(2 + 9 + 3 * math.sqrt(2))
    # Delta so negative that A = 0: only 9U^2 remains.
    assert avp_corollary2_bound(1.0, 2.0, -100.0) == pytest.approx(36.0)


@FAST
@given(st.floats(0.05, 30.0), st.integers(0, 3000))
def test_corollary2_reconstruction_steps(U, m):
    # The two sums behind the constants 2U^2, 9U^2 and 3U of Corollary 2.
    lam = np.array([avp_corollary2_parameters(U, j).lam for j in range(1, m + 1)])
    assert lam.sum() / 2 <= U * math.sqrt(U * U + m) - U * U + 1e-9 * (1 + m)
    lam_T = avp_corollary2_parameters(U, m).lam
    assert 2 * U * U / lam_T == pytest.approx(2 * U * math.sqrt(U * U + m))


@FAST
@given(losses, st.floats(0.05, 30.0), st.floats(-1e4, 0.0))
def test_corollary2_bound_solves_its_inequality(L, U, delta):
    # Every m with m <= A + 3U sqrt(m) (A = max(L + 2U^2 + Delta, 0)) is below the bound,
    # and the largest such m is close to it.
    A = max(L + 2 * U * U + delta, 0.0)
    root = ((3 * U + math.sqrt(9 * U * U + 4 * A)) / 2) ** 2
    b = avp_corollary2_bound(L, U, delta)
    assert root <= b * (1 + 1e-12)
    assert b <= root + 3 * U * math.sqrt(A) + 1e-9          # slack of x <= A + b^2 + b sqrt(A)
    assert avp_corollary2_bound(L + 1.0, U, delta) >= b
    assert avp_corollary2_bound(L, U, delta - 1.0) <= b


# -- Ahpatron: Lemma 1 ---------------------------------------------------------------------------

def simulate_removals(n, B):
    """Active-set size of Algorithm 2 over n updates; counts the halvings."""
    size, removals = 0, 0
    for _ in range(n):
        if size == B:
            size, removals = B // 2, removals + 1
        size += 1
    return removals


@pytest.mark.parametrize("B", [2, 4, 6, 10, 16, 50])
def test_removal_count_matches_simulation_and_lemma1(B):
    for n in range(0, 6 * B + 3):
        r = ahpatron_removal_count(n, B)
        assert r == simulate_removals(n, B)
        bound = ahpatron_lemma1_bound(n, B)
        assert r <= bound + 1e-12
        if n > B:
            assert bound - r >= 2.0 / B - 1e-12
    assert ahpatron_removal_count(B, B) == 0 and ahpatron_removal_count(B + 1, B) == 1
    assert ahpatron_removal_count(B + 1 + B // 2, B) == 2


def test_lemma1_closed_forms():
    assert ahpatron_lemma1_bound(0, 10) == 0.0
    assert ahpatron_lemma1_bound(4, 10) == 0.0               # max{., 0}
    assert ahpatron_lemma1_bound(100, 10) == pytest.approx(19.0)
    assert ahpatron_lemma1_bound(1000, 100) == pytest.approx(19.0)   # with n = T: 2T/B - 1
    with pytest.raises(ValueError, match="B must be even"):
        ahpatron_removal_count(10, 7)


@FAST
@given(st.integers(0, 10 ** 6), st.integers(1, 500).map(lambda b: 2 * b))
def test_removal_count_monotone(n, B):
    r = ahpatron_removal_count(n, B)
    assert ahpatron_removal_count(n + 1, B) >= r
    assert ahpatron_removal_count(n, B + 2) <= r
    assert ahpatron_lemma1_bound(n + 1, B) >= ahpatron_lemma1_bound(n, B)


# -- Ahpatron: Theorem 4 -------------------------------------------------------------------------

def test_theorem4_parameters():
    p = ahpatron_theorem4_parameters(64)
    assert p.U == p.U_max == 2.0
    assert p.lam == pytest.approx(math.sqrt(2) * 2 / 8) and p.c == 0.6
    assert p.eps_low == pytest.approx(0.75) and p.eps_high == 1.0
    p = ahpatron_theorem4_parameters(100, U=1.0)
    assert p.lam == pytest.approx(math.sqrt(2) / 10) and p.eps_low == pytest.approx(0.3)
    assert ahpatron_theorem4_conditions(100, 1.0, p.lam, 0.5) == ()
    with pytest.raises(ValueError, match="B must be >= 50"):
        ahpatron_theorem4_parameters(48)
    with pytest.raises(ValueError, match="U must be <= sqrt"):
        ahpatron_theorem4_parameters(64, U=2.01)


@pytest.mark.parametrize("args,kwargs,expected", [
    ((40, 1.0, math.sqrt(2) / math.sqrt(40), 0.9), {}, "B >= 50"),
    ((51, 1.0, math.sqrt(2) / math.sqrt(51), 0.9), {}, "B must be even"),
    ((64, 2.5, math.sqrt(2) * 2.5 / 8, 0.99), {}, "U <= sqrt(B)/4"),
    ((64, 1.0, 0.2, 0.9), {}, "lam = sqrt(2) U / sqrt(B)"),
    ((64, 1.0, math.sqrt(2) / 8, 0.375), {}, "3 U / sqrt(B) < eps"),
    ((64, 1.0, math.sqrt(2) / 8, 1.0), {}, "eps < 1"),
    ((64, 1.0, math.sqrt(2) / 8, 0.9), {"c": 0.5}, "c = 0.6"),
])
def test_theorem4_condition_failures(args, kwargs, expected):
    fails = ahpatron_theorem4_conditions(*args, **kwargs)
    assert len(fails) == 1 and expected in fails[0]
    with pytest.raises(ValueError, match="Theorem 4 conditions fail"):
        ahpatron_theorem4_conditions(*args, raise_on_failure=True, **kwargs)


def test_theorem4_several_failures_and_bound_raises():
    fails = ahpatron_theorem4_conditions(10, 5.0, 1.0, 1.5)
    assert len(fails) == 5          # B >= 50, U, lam, 3U/sqrt(B) < eps, eps < 1
    with pytest.raises(ValueError, match="U <= sqrt"):
        ahpatron_theorem4_bound(1.0, 0.5, 0, 64, 2.5, 0.99)
    with pytest.raises(ValueError, match="f_norm must be <= U"):
        ahpatron_theorem4_bound(1.0, 2.5, 0, 64, 2.0, 0.9)


def test_theorem4_closed_form():
    # B = 64, U = 2 (U / sqrt(B) = 1/4), L = 10, ||f|| = 1, |N_T| = 0:
    # bar = 10 + 12/4 * 10 = 40; under = 10 + 0.9/4 * 10 + 8/(2*2) * 1 = 14.25.
    r = ahpatron_theorem4_bound(10.0, 1.0, 0, 64, 2.0, 0.8)
    assert r.bound_bar == pytest.approx(40.0) and r.bound_under == pytest.approx(14.25)
    assert r.bound == pytest.approx(40.0) and r.delta_bar == r.delta_under == 0.0
    # |N_T| = 10, eps = 0.8: Delta_bar = (0.75 - 0.8)/(1 - 0.75) * 10 = -2,
    # Delta_under = (1/(4 sqrt 2) - 0.8)/(1 - 1/(4 sqrt 2)) * 10.
    r = ahpatron_theorem4_bound(10.0, 1.0, 10, 64, 2.0, 0.8)
    q = 0.25 / math.sqrt(2)
    assert r.delta_bar == pytest.approx(-2.0)
    assert r.delta_under == pytest.approx((q - 0.8) / (1 - q) * 10)
    assert r.bound == pytest.approx(38.0)


@pytest.mark.parametrize("B", [50, 64, 400, 10 ** 4])
def test_equation_10_constants(B):
    # U = sqrt(B)/4: max{4 L + Delta_bar, 1.3 L + 2 ||f||^2 + Delta_under}; the exact
    # coefficient behind the printed 1.3 is 1 + 0.9/4 = 1.225.
    U = math.sqrt(B) / 4
    eps = ahpatron_theorem4_parameters(B).eps_low + 0.1
    rL = ahpatron_theorem4_bound(1.0, 0.0, 0, B, U, eps)
    assert rL.bound_bar == pytest.approx(4.0) and rL.bound_under == pytest.approx(1.225)
    assert rL.bound_under <= 1.3
    rf = ahpatron_theorem4_bound(0.0, 1.0, 0, B, U, eps)
    assert rf.bound_under == pytest.approx(2.0) and rf.bound_bar == 0.0


@FAST
@given(losses, st.floats(0.0, 1.0), counts, st.integers(25, 20000).map(lambda b: 2 * b),
       st.floats(0.01, 1.0), st.floats(0.0, 1.0))
def test_theorem4_structure(L, fr, n, B, ur, er):
    U = ur * math.sqrt(B) / 4
    p = ahpatron_theorem4_parameters(B, U)
    eps = p.eps_low + (1 - p.eps_low) * (0.01 + 0.98 * er)
    F = fr * U
    r = ahpatron_theorem4_bound(L, F, n, B, U, eps)
    assert r.delta_bar <= 0 and r.delta_under <= 0
    assert r.bound == max(r.bound_bar, r.bound_under)
    assert r.bound <= r.bound_eq4 + 1e-9 * (1 + abs(r.bound_eq4))
    # The second branch dominates AVP's Theorem 3 bound with the same lam and eps
    # (no removal): how the printed 0.9 and sqrt(B)/(2U) come about.
    avp = avp_constant_rate_bound(L, F, p.lam, eps, n)
    assert avp <= r.bound_under + 1e-9 * (1 + abs(r.bound_under) + n)
    # More updates on N_T only lower the bound.
    assert ahpatron_theorem4_bound(L, F, n + 1, B, U, eps).bound <= r.bound


@FAST
@given(st.floats(1.0, 1e4), st.floats(0.0, 1.0), st.integers(25, 5000).map(lambda b: 2 * b))
def test_theorem4_monotone_in_B_and_U(L, fr, B):
    # Removal branch: coefficient 12 U / sqrt(B) grows with U and shrinks with B.
    U = math.sqrt(B) / 8
    eps = 0.9
    base = ahpatron_theorem4_bound(L, fr * U, 100, B, U, eps)
    more_U = ahpatron_theorem4_bound(L, fr * U, 100, B, 1.5 * U, eps)
    more_B = ahpatron_theorem4_bound(L, fr * U, 100, 2 * B, U, eps)
    assert more_U.bound_bar > base.bound_bar > more_B.bound_bar
    # (the other branch trades 0.9 U/sqrt(B) L against sqrt(B)/(2U) ||f||^2)
    assert more_U.bound_under - base.bound_under == pytest.approx(
        0.9 * 0.5 * U / math.sqrt(B) * L + (fr * U) ** 2 * math.sqrt(B) / (2 * U) * (1 / 1.5 - 1)
        + more_U.delta_under - base.delta_under, rel=1e-9, abs=1e-9)


@FAST
@given(losses, st.floats(0.0, 1.0), st.integers(42, 20000).map(lambda b: 2 * b))
def test_theorem4_improves_forgetron(L, fr, B):
    # "Ahpatron improves the mistake bound of Forgetron" (U = sqrt(B)/4 > Forgetron's U).
    UF = forgetron_radius(B)
    U = math.sqrt(B) / 4
    assert U > UF
    r = ahpatron_theorem4_bound(L, fr * UF, 0, B, U, 0.9)
    assert r.bound <= forgetron_mistake_bound(L, fr * UF, B) + 1e-9


# -- Ahpatron: Theorem 6 -------------------------------------------------------------------------

def test_zeta_from_distances():
    assert ahpatron_zeta([0.5, 1.0, 1.5], 2.0) == pytest.approx(0.5)
    assert ahpatron_zeta([], 2.0) == 0.0
    with pytest.raises(ValueError, match="distances"):
        ahpatron_zeta([0.5, -0.1], 1.0)


def test_theorem6_parameters_and_delta():
    # B = 64, zeta = 0.1, gamma = 0.5: 1/4 + 9 zeta/2 = 0.7, U_max = 0.5 * 8 / 0.7.
    p = ahpatron_theorem6_parameters(64, 0.1, 0.5)
    assert p.U == p.U_max == pytest.approx(4.0 / 0.7)
    assert p.lam == pytest.approx(p.U / 16) and p.c is None
    assert p.eps_low == pytest.approx(0.5) and p.eps_high == 1.0      # = 1 - gamma at U_max
    # Delta_T(zeta) with U = 1: a = 0.7/8 = 0.0875; |N_T| (a - eps)/(1 - a).
    assert ahpatron_theorem6_delta(100, 64, 1.0, 0.1, 0.5) == pytest.approx(
        100 * (0.0875 - 0.5) / 0.9125)
    assert ahpatron_theorem6_delta(0, 64, 1.0, 0.1, 0.5) == 0.0
    with pytest.raises(ValueError, match="eps must lie"):
        ahpatron_theorem6_delta(10, 64, 1.0, 0.1, 0.05)


@pytest.mark.parametrize("B", [16, 64, 400, 10 ** 4])
def test_theorem6_worked_example(B):
    # zeta <= 1/16, gamma = 2/3, U = (1 - gamma) sqrt(B)/(1/4 + 9 zeta/2) >= sqrt(B)/1.6,
    # 1/3 < eps < 1, |M_T| <= 3/2 L_T(f) + 2.1 ||f||^2 + Delta_T(zeta).
    coefs = []
    for zeta in np.linspace(1e-3, 1 / 16, 12):
        p = ahpatron_theorem6_parameters(B, zeta, 2 / 3)
        assert p.U >= math.sqrt(B) / 1.6
        assert p.eps_low == pytest.approx(1 / 3)
        r = ahpatron_theorem6_bound(1.0, 0.0, 0, B, p.U, zeta, 2 / 3, 0.5)
        assert r.coef_L == pytest.approx(1.5) and r.bound == pytest.approx(1.5)
        assert r.coef_f <= 2.1
        assert r.coef_f == pytest.approx(4.5 * (1 - 2 * zeta) * (0.25 + 4.5 * zeta))
        coefs.append(r.coef_f)
    assert all(x < y for x, y in zip(coefs, coefs[1:]))        # worst case at zeta = 1/16
    assert coefs[-1] == pytest.approx(2.091796875) and round(coefs[-1], 1) == 2.1
    # U at zeta = 1/16: sqrt(B)/1.59375
    U = ahpatron_theorem6_parameters(B, 1 / 16, 2 / 3).U
    assert U == pytest.approx(math.sqrt(B) / 1.59375)


@FAST
@given(losses, st.floats(0.0, 1.0), even_budgets)
def test_worked_example_improves_equation_10_when_loss_dominates(L, fr, B):
    # "(ii) The mistake bound is smaller in the case of L_T(f) > ||f||^2."
    F = fr * math.sqrt(B) / 4
    assume(L > F * F * (1 + 1e-9) and B >= 50)
    p = ahpatron_theorem6_parameters(B, 1 / 16, 2 / 3)
    r6 = ahpatron_theorem6_bound(L, F, 0, B, p.U, 1 / 16, 2 / 3, 0.9)
    r4 = ahpatron_theorem4_bound(L, F, 0, B, math.sqrt(B) / 4, 0.9)
    assert r6.bound < r4.bound


@pytest.mark.parametrize("args,expected", [
    ((8, 0.1, 0.1 / (2 * math.sqrt(8)), 0.9, 0.1, 0.5), "B >= 16"),
    ((18, 0.1, 0.1 / (2 * math.sqrt(18)), 0.9, 0.1, 0.5), None),
    ((17, 0.1, 0.1 / (2 * math.sqrt(17)), 0.9, 0.1, 0.5), "B must be even"),
    ((64, 1.0, 0.1, 0.9, 0.1, 0.5), "lam = U / (2 sqrt(B))"),
    ((64, 6.0, 6.0 / 16, 0.9, 0.1, 0.5), "U <= (1 - gamma) sqrt(B)"),
    ((64, 1.0, 1.0 / 16, 0.05, 0.1, 0.5), "(1/4 + 9 zeta / 2) U / sqrt(B) < eps"),
    ((64, 1.0, 1.0 / 16, 1.2, 0.1, 0.5), "eps < 1"),
])
def test_theorem6_conditions(args, expected):
    fails = ahpatron_theorem6_conditions(*args)
    if expected is None:
        assert fails == ()
        return
    assert len(fails) == 1 and expected in fails[0]
    with pytest.raises(ValueError, match="Theorem 6 conditions fail"):
        ahpatron_theorem6_conditions(*args, raise_on_failure=True)


def test_theorem6_argument_ranges():
    with pytest.raises(ValueError, match="zeta must lie in"):
        ahpatron_theorem6_parameters(64, 0.0, 0.5)
    with pytest.raises(ValueError, match="zeta must lie in"):
        ahpatron_theorem6_conditions(64, 1.0, 1 / 16, 0.5, 2.5, 0.5)
    with pytest.raises(ValueError, match="gamma must lie in"):
        ahpatron_theorem6_parameters(64, 0.1, 1.0)
    with pytest.raises(ValueError, match="form"):
        ahpatron_theorem6_bound(1.0, 0.0, 0, 64, 1.0, 0.1, 0.5, 0.5, form="proof")
    with pytest.raises(ValueError, match="f_norm must be <= U"):
        ahpatron_theorem6_bound(1.0, 1.5, 0, 64, 1.0, 0.1, 0.5, 0.5)


def test_theorem6_printed_factor_counterexample():
    # Two orthogonal points with opposite labels, B = 10^4: Ahpatron never removes, so (11)
    # holds for every zeta in (0, 2].  f_1 = 0 and f_2 = lam y_1 kappa(x_1, .) vanish at x_2,
    # so whatever sign(0) is, |M_T| >= 1.  f = y_1 kappa(x_1, .) + y_2 kappa(x_2, .) has
    # L_T(f) = 0 and ||f|| = sqrt(2).  The printed bound with zeta >= 1/2 is then <= 0.
    K, y, B, gamma = np.eye(2), np.array([1.0, -1.0]), 10 ** 4, 0.5
    L, F = comparator_hinge_loss(K, y, 20.0, return_norm=True)
    assert L == pytest.approx(0.0, abs=1e-7) and F <= 20.0
    for zeta in (0.5, 1.0, 2.0):
        p = ahpatron_theorem6_parameters(B, zeta, gamma)
        assert p.U >= math.sqrt(2)
        paper = ahpatron_theorem6_bound(0.0, math.sqrt(2), 0, B, p.U, zeta, gamma, 0.9)
        safe = ahpatron_theorem6_bound(0.0, math.sqrt(2), 0, B, p.U, zeta, gamma, 0.9,
                                       form="safe")
        assert paper.bound <= 1e-12 < 1.0 <= safe.bound
        assert safe.coef_f == pytest.approx(math.sqrt(B) / (gamma * p.U))


def test_removal_cost_constant_needs_B_at_least_16():
    # Reconstruction of 9 zeta / 2: (1 + U/lam) * |J| / n <= (1 + 2 sqrt(B)) * 2 / B, which is
    # <= 4.5 / sqrt(B) exactly when B >= 16 (equality at B = 16).
    for B in range(2, 200, 2):
        cost = (1 + 2 * math.sqrt(B)) * 2 / B
        assert (cost <= 4.5 / math.sqrt(B) + 1e-15) == (B >= 16)


@FAST
@given(losses, st.floats(0.0, 1.0), counts, even_budgets, st.floats(1e-3, 2.0),
       st.floats(0.01, 0.99), st.floats(0.05, 1.0), st.floats(0.01, 0.99))
def test_theorem6_structure_and_monotonicity(L, fr, n, B, zeta, gamma, ur, er):
    p = ahpatron_theorem6_parameters(B, zeta, gamma)
    U = ur * p.U_max
    q = ahpatron_theorem6_parameters(B, zeta, gamma, U=U)
    eps = q.eps_low + (1 - q.eps_low) * er
    F = fr * U
    paper = ahpatron_theorem6_bound(L, F, n, B, U, zeta, gamma, eps)
    safe = ahpatron_theorem6_bound(L, F, n, B, U, zeta, gamma, eps, form="safe")
    assert paper.delta == safe.delta == pytest.approx(ahpatron_theorem6_delta(n, B, U, zeta, eps))
    assert paper.delta <= 0 and paper.a < 1 - gamma + 1e-12
    assert paper.bound <= safe.bound + 1e-9 * (1 + abs(safe.bound))
    assert paper.coef_L == safe.coef_L == pytest.approx(1 + q.eps_low / gamma)
    # In U: coefficient of L grows, that of ||f||^2 falls; Delta rises (less negative).
    V = 0.5 * U
    half = ahpatron_theorem6_bound(L, min(F, V), n, B, V, zeta, gamma, eps, form="safe")
    assert half.coef_L < safe.coef_L and half.coef_f > safe.coef_f
    assert half.delta <= safe.delta + 1e-12
    # In B (same U): coefficient of L falls.
    bigger = ahpatron_theorem6_bound(L, F, n, 4 * B, U, zeta, gamma, eps, form="safe")
    assert bigger.coef_L < safe.coef_L and bigger.coef_f > safe.coef_f


# -- Theorem 5 and the comparator --------------------------------------------------------------

def test_comparator_hinge_loss_identity_kernel():
    # Orthogonal points, U = 1: weights y_t/2 give loss T - U sqrt(T) = 2.
    y = np.array([1.0, -1.0, 1.0, -1.0])
    assert comparator_hinge_loss(np.eye(4), y, 1.0) == pytest.approx(2.0, abs=1e-6)
    loss, norm = comparator_hinge_loss(np.eye(4), y, 1.0, return_norm=True)
    assert loss == pytest.approx(2.0, abs=1e-6) and norm <= 1.0
    assert norm == pytest.approx(1.0, abs=1e-6)


def test_theorem5_identity_kernel():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    c = ahpatron_check_theorem5(np.eye(4), y, 1.0)
    assert c.alignment == pytest.approx(3.0) and c.witness_loss == pytest.approx(3.0)
    assert c.witness_norm == pytest.approx(0.5)
    assert c.min_loss == pytest.approx(2.0, abs=1e-6) and c.holds


@pytest.mark.parametrize("name,sigma,U", [("iris", 1.0, 1.0), ("cancer", 4.0, 2.0)])
def test_theorem5_real_data(name, sigma, U):
    X, y = real_data(name, n=80)
    K = gaussian_kernel(X, sigma)
    c = ahpatron_check_theorem5(K, y, U)
    assert c.holds
    assert c.lower_bound <= c.min_loss <= c.witness_loss + 1e-9
    assert c.witness_loss == pytest.approx(c.alignment, rel=1e-12)   # L_T(f_Y) = A_T
    assert c.witness_norm <= 1.0
    assert c.min_loss == pytest.approx(comparator_hinge_loss(K, y, U))


def test_theorem5_hypotheses():
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="unit diagonal"):
        ahpatron_check_theorem5(2.0 * np.eye(3), y, 1.0)
    with pytest.raises(ValueError, match="U must be >= 1"):
        ahpatron_check_theorem5(np.eye(3), y, 0.5)


# -- quoted bounds of other algorithms ---------------------------------------------------------

def test_forgetron():
    assert forgetron_radius(1) == pytest.approx(math.sqrt(2) / (4 * math.sqrt(math.log(2))))
    assert forgetron_mistake_bound(3.0, 0.2, 1) == pytest.approx(12.0 + 0.08)
    with pytest.raises(ValueError, match="f_norm must be <="):
        forgetron_mistake_bound(3.0, 0.5, 1)
    # Footnote: sqrt(B)/4 > sqrt(B+1)/(4 sqrt(ln(B+1))) -- true from B = 3 on only.
    assert math.sqrt(1) / 4 < forgetron_radius(1) and math.sqrt(2) / 4 < forgetron_radius(2)
    assert all(math.sqrt(B) / 4 > forgetron_radius(B) for B in range(3, 3000))
    # The radius increases with B from B = 2 on (and dips from B = 1 to 2).
    r = [forgetron_radius(B) for B in range(2, 3000)]
    assert all(x < y for x, y in zip(r, r[1:])) and forgetron_radius(1) > forgetron_radius(2)


def test_rbp():
    assert rbp_max_radius(100, 3.0) == pytest.approx(5.0)
    # gamma L + gamma U B + 0.5 gamma U sqrt(B) ln(0.5 gamma B^2)
    assert rbp_max_radius(4, 3.0) == pytest.approx(1.0)
    assert rbp_expected_mistake_bound(1.0, 1.0, 4, 3.0) == pytest.approx(
        3 + 12 + 3 * math.log(24))
    b = [rbp_expected_mistake_bound(10.0, 1.0, B, 3.0) for B in (4, 16, 64, 256)]
    assert all(x < y for x, y in zip(b, b[1:]))          # "worse while B increases"
    with pytest.raises(ValueError, match="U must be <="):
        rbp_expected_mistake_bound(1.0, 6.0, 100, 3.0)
    with pytest.raises(ValueError, match="gamma must be > 1"):
        rbp_max_radius(100, 1.0)


def test_bogd_and_pomdr_orders():
    assert bogd_expected_mistake_bound(5.0, 2.0, 100, 25) == pytest.approx(5 + 40 + 20)
    assert bogd_expected_mistake_bound(5.0, 2.0, 100, 25, constant=0.5) == pytest.approx(35)
    assert pomdr_mistake_bound(5.0, 2.0, 16.0, 100, 25) == pytest.approx(5 + 8 + 2 * 8)
    b = [bogd_expected_mistake_bound(0.0, 1.0, 10 ** 4, B) for B in (16, 64, 256)]
    assert all(x > y for x, y in zip(b, b[1:]))


# -- argument validation ------------------------------------------------------------------------

@pytest.mark.parametrize("call,name", [
    (lambda: perceptron_theorem1_bound(-1.0, 1.0), "L"),
    (lambda: perceptron_theorem1_bound(1.0, float("nan")), "f_norm"),
    (lambda: perceptron_theorem2_bound(1.0, 1.0, 0.0), "kappa_max"),
    (lambda: avp_theorem3_bound(1.0, float("inf"), [], [], []), "drift"),
    (lambda: avp_theorem3_bound(1.0, 0.0, [2.0], [], []), "lam_mistakes"),
    (lambda: avp_theorem3_bound(1.0, 0.0, [], [1.0], [0.4]), "eps_margin"),
    (lambda: avp_theorem3_bound(1.0, 0.0, [], [1.0, 1.0], [0.6]), "lam_margin"),
    (lambda: avp_theorem3_bound(1.0, 0.0, [[1.0]], [], []), "lam_mistakes"),
    (lambda: avp_constant_rate_bound(1.0, 1.0, 2.0, 0.9, 0), "lam"),
    (lambda: avp_constant_rate_bound(1.0, 1.0, 1.0, 0.4, 0), "eps"),
    (lambda: avp_constant_rate_bound(1.0, 1.0, 1.0, 0.6, -1), "n_margin"),
    (lambda: avp_constant_rate_bound(1.0, 1.0, 1.0, 0.6, 1.5), "n_margin"),
    (lambda: avp_corollary2_parameters(0.0, 1), "U"),
    (lambda: avp_corollary2_parameters(1.0, True), "n_mistakes"),
    (lambda: avp_corollary2_bound(1.0, 1.0, 0.5), "delta"),
    (lambda: avp_corollary2_delta([1.0], [0.4]), "eps_margin"),
    (lambda: ahpatron_removal_count(-1, 4), "n_updates"),
    (lambda: ahpatron_lemma1_bound(3, 0), "B"),
    (lambda: ahpatron_theorem4_conditions(64, -1.0, 0.1, 0.9), "U"),
    (lambda: ahpatron_theorem4_conditions(64, 1.0, 0.1, 0.9, c=1.5), "c"),
    (lambda: ahpatron_theorem4_conditions(64, 1.0, 0.1, 0.9, raise_on_failure=1),
     "raise_on_failure"),
    (lambda: ahpatron_theorem4_bound(1.0, 0.1, 0, 64.0, 1.0, 0.9), "B"),
    (lambda: ahpatron_theorem6_bound(-1.0, 0.1, 0, 64, 1.0, 0.1, 0.5, 0.5), "L"),
    (lambda: ahpatron_theorem6_delta(3, 64, 100.0, 0.1, 0.5), "U"),
    (lambda: comparator_hinge_loss(np.eye(2), [1.0, -1.0], 1.0, return_norm="yes"), "return_norm"),
    (lambda: forgetron_radius(0), "B"),
    (lambda: bogd_expected_mistake_bound(1.0, 1.0, 0, 4), "T"),
    (lambda: pomdr_mistake_bound(1.0, 1.0, -1.0, 10, 4), "A_T"),
    (lambda: pomdr_mistake_bound(1.0, 1.0, 1.0, 10, 4, constant=0.0), "constant"),
])
def test_invalid_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()
