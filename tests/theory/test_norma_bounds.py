"""Bounds of NORMA (Kivinen, Smola & Williamson, IEEE TSP 2004), theory/norma.py.

Two kinds of tests:

* the expressions against hand-computed closed forms and independent
  computations (brute force, scipy minimization, explicit sums);
* okl.NORMA run with the parameters the theorems prescribe, on generated
  streams whose comparator quantities (K, B, D1, D2, R_reg[g]) are measured,
  and the measured margin errors / mistakes / cumulative risk checked against
  the bound evaluated on that same stream (and on all its prefixes, where the
  untuned form (45)-(46) or Theorem 4 with a fixed g applies).
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize

import okl
from theory.comparators import best_hinge_in_ball, kernel_ridge_comparator
from theory.norma import (
    best_regularized_soft_margin,
    comparator_path,
    cumulative_instantaneous_risk,
    cumulative_risk_bound,
    eta_prime,
    h,
    margin_error_bound,
    margin_error_bound_general,
    mistake_bound,
    mistake_bound_general,
    regularized_risk,
    relative_loss_bound,
    risk_bound_constants,
    soft_margin_comparator_loss,
    soft_margin_losses,
    theorem2_constant_C,
    theorem2_parameters,
    theorem3_parameters,
    theorem6_t0,
    theorem6_window,
    truncated_cumulative_risk_bound,
    truncation_error_bound,
)

FAST = settings(max_examples=25, deadline=None)
RUNS = settings(max_examples=8, deadline=None)


# -- streams ---------------------------------------------------------------------------

def _ball_points(rng, n, d, rmin=0.3):
    x = rng.normal(size=(n, d))
    x /= np.linalg.norm(x, axis=1)[:, None]
    return x * rng.uniform(rmin, 1.0, size=(n, 1))


def separable_stream(T, d, mu, seed):
    """Linear kernel; labels sign(<u, x>) of a unit u, every point at margin >= mu."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = np.empty((0, d))
    while len(X) < T:
        x = _ball_points(rng, 4 * T, d)
        X = np.vstack([X, x[np.abs(x @ u) >= mu]])
    X = X[:T]
    return X, np.sign(X @ u), u


def noisy_stream(T, d, flip, seed):
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = _ball_points(rng, T, d)
    y = np.where(X @ u >= 0, 1.0, -1.0)
    y[rng.random(T) < flip] *= -1
    return X, y


def drifting_stream(T, d, gamma, angle, flip, mode, seed):
    """Unit target w_t turning by ``angle`` in the (e1, e2) plane, either at constant
    speed (``rotate``: sqrt(m D2) ~ D1) or in three jumps (``switch``: D2 large);
    points at margin >= gamma from the current target, then a fraction ``flip`` of
    labels flipped."""
    rng = np.random.default_rng(seed)
    if mode == "rotate":
        theta = angle * np.arange(T) / (T - 1)
    else:
        theta = angle * np.floor(4 * np.arange(T) / T) / 3
    W = np.zeros((T, d))
    W[:, 0], W[:, 1] = np.cos(theta), np.sin(theta)
    X = np.empty((T, d))
    for t in range(T):                  # rejection: margin >= gamma w.r.t. w_t
        while True:
            x = _ball_points(rng, 1, d, rmin=0.5)[0]
            if abs(x @ W[t]) >= gamma:
                X[t] = x
                break
    y = np.sign(np.einsum("ij,ij->i", W, X))
    y[rng.random(T) < flip] *= -1
    return X, y, W


def xor_like_stream(T, seed, flip=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, 2))
    y = np.where(np.sin(2 * X[:, 0]) + X[:, 1] ** 2 - 0.4 >= 0, 1.0, -1.0)
    y[rng.random(T) < flip] *= -1
    return X, y


def gaussian_gram(X, sigma):
    sq = np.sum(X ** 2, axis=1)
    D = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0)
    return np.exp(-D / (2 * sigma ** 2))


def run_norma(kernel, X, y, tuning):
    return okl.NORMA(kernel=kernel, loss="soft_margin", eta=tuning.eta, lam=tuning.lam,
                     rho=tuning.rho, schedule="constant").run(X, y)


# -- h (30) and Lemma 7 ----------------------------------------------------------------

def test_h_closed_form_and_limits():
    # (30) as printed, at a hand-checked point: C/K = 2, x = 6: sqrt(2 * 8) - 2 = 2
    assert h(6.0, 1.0, 2.0) == pytest.approx(2.0, rel=1e-15)
    assert h(3.0, 0.0, 5.0) == 1.5                      # h(x, 0, C) = x / 2 by definition
    assert h(3.0, 1e-300, 5.0) == 1.5
    assert h(3.0, 1e-9, 5.0) == pytest.approx(1.5, rel=1e-9)   # the K -> 0+ limit
    assert h(3.0, 1e12, 5.0) == pytest.approx(math.sqrt(5e-12 * 3.0), rel=1e-5)  # ~ sqrt(xC/K)


@FAST
@given(x=st.floats(1e-3, 1e3), K=st.floats(0.0, 1e4), C=st.floats(1e-3, 1e4))
def test_h_bounds_and_printed_form(x, K, C):
    z = h(x, K, C)
    assert 0.0 < z <= x / 2 * (1 + 1e-15) <= x
    if K > 0 and C / K < 1e6:
        printed = math.sqrt(C / K * (x + C / K)) - C / K
        # the printed form cancels: its own error is ~ eps * C / K
        assert z == pytest.approx(printed, rel=1e-7, abs=1e-14 * (C / K + x))


@FAST
@given(gamma=st.floats(0.05, 5.0), K=st.floats(0.01, 100.0), C=st.floats(0.01, 100.0),
       rho=st.floats(0.0, 2.0))
def test_lemma7_h_minimizes_and_gives_the_bound(gamma, K, C, rho):
    """Lemma 7: z = h(gamma, K, C) minimizes K/(gamma - z) + C/(z (gamma - z)) on
    (0, gamma) (the paper says 'maximized'), with minimum = Theorem 2's bound."""
    f = lambda z: K / (gamma - z) + C / (z * (gamma - z))  # noqa: E731
    z = h(gamma, K, C)
    res = optimize.minimize_scalar(f, bounds=(gamma * 1e-9, gamma * (1 - 1e-9)),
                                   method="bounded", options={"xatol": 1e-12 * gamma})
    assert f(z) <= res.fun * (1 + 1e-9)
    assert f(z) <= min(f(0.5 * z), f(z + 0.5 * (gamma - z)))
    assert margin_error_bound(K, C, gamma + rho, rho) == pytest.approx(f(z), rel=1e-10)


# -- Theorems 2 and 3: expressions -----------------------------------------------------

def test_constant_C_by_hand():
    # (31): X = 2, B = 3, m = 4, D1 = 1, D2 = 9: 1/4 * 4 * (9 + 3 (sqrt(36) + 1)) = 30
    assert theorem2_constant_C(2.0, 3.0, 4, 1.0, 9.0) == pytest.approx(30.0)
    assert theorem2_constant_C(2.0, 3.0, 4, 0.0, 0.0) == pytest.approx(9.0)  # X^2 B^2 / 4


def test_bounds_by_hand():
    # K = 3, C = 2, gamma = 1: 3 + 4 + 2 sqrt(2) sqrt(5)
    assert margin_error_bound(3.0, 2.0, 1.5, 0.5) == pytest.approx(7 + 2 * math.sqrt(10))
    assert mistake_bound(3.0, 2.0, 1.0) == pytest.approx(7 + 2 * math.sqrt(10))
    # K = 0: 4 C / gamma^2
    assert margin_error_bound(0.0, 2.0, 0.5, 0.0) == pytest.approx(32.0)


@FAST
@given(X=st.floats(0.1, 10), B=st.floats(0.1, 10), mu=st.floats(0.01, 3),
       frac=st.floats(0.0, 0.99))
def test_perceptron_special_case(X, B, mu, frac):
    """K = 0, D1 = D2 = 0: Theorem 3 is the Perceptron convergence bound X^2 B^2/mu^2,
    Theorem 2 gives X^2 B^2/(mu - rho)^2 (the paper's '4 X^2 B^2/mu' for rho = mu/2
    is a typo for 4 X^2 B^2/mu^2); no regularization."""
    rho = frac * mu
    C = theorem2_constant_C(X, B, 1000, 0.0, 0.0)
    assert mistake_bound(0.0, C, mu) == pytest.approx(X ** 2 * B ** 2 / mu ** 2, rel=1e-12)
    assert margin_error_bound(0.0, C, mu, rho) == pytest.approx(
        X ** 2 * B ** 2 / (mu - rho) ** 2, rel=1e-12)
    t3 = theorem3_parameters(X, B, 1000, 0.0, 0.0, 0.0, mu)
    assert t3.lam == 0.0 and t3.eta == t3.eta_prime
    assert t3.rho == pytest.approx(mu / 2) and t3.eta == pytest.approx(mu / X ** 2)
    t2 = theorem2_parameters(X, B, 1000, 0.0, 0.0, 0.0, mu, rho)
    assert t2.lam == 0.0 and t2.eta == pytest.approx((mu - rho) / X ** 2)
    assert margin_error_bound(0.0, C, mu, mu / 2) == pytest.approx(4 * X ** 2 * B ** 2 / mu ** 2)


@FAST
@given(X=st.floats(0.2, 5), B=st.floats(0.2, 5), m=st.integers(1, 10 ** 5),
       D1=st.floats(0, 50), D2=st.floats(1e-4, 50), K=st.floats(0, 500),
       mu=st.floats(0.05, 3), frac=st.floats(0, 0.95))
def test_tuned_general_form_is_the_theorem(X, B, m, D1, D2, K, mu, frac):
    """(45)-(46) with the choices of Theorems 2 and 3 reproduce the stated bounds
    (Lemma 7), and lambda of (32) minimizes the untuned right side over lambda."""
    rho = frac * mu
    t2 = theorem2_parameters(X, B, m, D1, D2, K, mu, rho)
    assert t2.lam == pytest.approx(math.sqrt(D2 / m) / (B * t2.eta_prime), rel=1e-13)
    assert t2.eta == pytest.approx(t2.eta_prime / (1 + t2.eta_prime * t2.lam), rel=1e-13)
    assert eta_prime(t2.eta, t2.lam) == pytest.approx(t2.eta_prime, rel=1e-12)
    assert margin_error_bound_general(K, B, D1, D2, m, X, mu, rho, t2.eta_prime, t2.lam) \
        == pytest.approx(t2.bound, rel=1e-10)
    rhs = relative_loss_bound(K, B, D1, D2, m, t2.eta_prime, t2.lam)
    for factor in (0.5, 0.9, 1.1, 2.0):
        assert rhs <= relative_loss_bound(K, B, D1, D2, m, t2.eta_prime,
                                          factor * t2.lam) * (1 + 1e-12)
    for margin in ("positive", "zero"):
        t3 = theorem3_parameters(X, B, m, D1, D2, K, mu, margin=margin)
        assert t3.bound == pytest.approx(mistake_bound(K, t3.C, mu))
        assert mistake_bound_general(K, B, D1, D2, m, X, mu, t3.rho, t3.eta_prime, t3.lam) \
            == pytest.approx(t3.bound, rel=1e-10)
    assert theorem3_parameters(X, B, m, D1, D2, K, mu, margin="positive").rho >= mu / 2


def test_lambda_zero_needs_a_constant_comparator():
    assert relative_loss_bound(1.0, 1.0, 0.0, 0.5, 10, 1.0, 0.0) == math.inf
    assert relative_loss_bound(1.0, 2.0, 0.0, 0.0, 10, 0.5, 0.0) == pytest.approx(1 + 4 / 1.0)
    assert margin_error_bound_general(0.0, 1.0, 0, 0, 10, 1.0, 1.0, 0.0, 2.0, 0.0) == math.inf


# -- Theorems 4 and 6: expressions -----------------------------------------------------

def test_risk_constants_by_hand():
    # lam = 0.5, eta = 1, c = X = 1: U = 2, eta lam = 1/2
    assert risk_bound_constants(0.5, 1.0, 1.0, 1.0) == pytest.approx((2.0, 12.0, 2.0))
    assert cumulative_risk_bound(100, 0.5, 1.0, 1.0, 1.0, 0.3) == pytest.approx(30 + 120 + 2)
    assert risk_bound_constants(0.5, 1.0, 1.0, 1.0, truncated=True) == pytest.approx(
        (2.0, 28.0, 2.0))
    assert truncated_cumulative_risk_bound(100, 0.5, 1.0, 1.0, 1.0, 0.3) == pytest.approx(312)
    assert truncated_cumulative_risk_bound(100, 0.5, 1.0, 1.0, 1.0, 0.3, constants="proof") \
        == pytest.approx(30 + 640 + 10)
    # U = c X / lam scales: c = 2, X = 3, lam = 0.5 -> U = 12
    assert risk_bound_constants(0.5, 1.0, 2.0, 3.0)[0] == pytest.approx(12.0)


def _t0_by_definition(eta, lam, eps, horizon):
    el, last = eta * lam, 0
    for t in range(1, horizon):
        ok = (el / math.sqrt(t) <= 1 and math.exp(-el * t ** eps) <= el / math.sqrt(t)
              and 4 * math.ceil(t ** (0.5 + eps)) <= 3 * t)
        if not ok:
            last = t
    return last + 1


@pytest.mark.parametrize("el, eps", [(0.9, 0.3), (0.7, 0.3), (0.5, 0.4), (0.8, 0.25),
                                     (0.6, 0.35), (0.95, 0.45), (0.2, 0.4)])
def test_t0_matches_appendix_c_definition(el, eps):
    t0 = theorem6_t0(el / 0.5, 0.5, eps)
    assert t0 == _t0_by_definition(el / 0.5, 0.5, eps, horizon=max(4 * t0, 3000))


def test_t0_out_of_range_and_window():
    with pytest.raises(ValueError, match="2\\*\\*53"):
        theorem6_t0(0.3, 1.0, 0.1)
    assert [theorem6_window(t, 3, 0.25) for t in (1, 3, 4, 16)] == [1, 3, 3, 8]


# -- Proposition 1 ---------------------------------------------------------------------

def test_truncation_bound_by_hand():
    # q = 1 - 0.5 * 0.5 = 0.75: q^2 * 2 * 3 / 0.5
    assert truncation_error_bound(0.5, 0.5, 2, 2.0, 3.0) == pytest.approx(0.5625 * 12)
    assert truncation_error_bound(0.5, 0.5, 2, 2.0, 3.0, t=2) == 0.0
    # t = 4: eta C X (q^2 + q^3) = 0.5 * 6 * (0.5625 + 0.421875)
    assert truncation_error_bound(0.5, 0.5, 2, 2.0, 3.0, t=4) == pytest.approx(2.953125)


@FAST
@given(eta=st.floats(0.01, 5), el=st.floats(0.01, 0.99), tau=st.integers(0, 60),
       t=st.integers(1, 400), C=st.floats(0.1, 3), X=st.floats(0.1, 3))
def test_truncation_finite_sum(eta, el, tau, t, C, X):
    """The middle expression of Prop. 1 is the printed sum, lies below the closed
    form and tends to it; a worst-case expansion (all coefficients eta C, all
    k(x_i, .) equal with norm X) attains it up to the printed sum's extra term."""
    lam = el / eta
    q = 1 - el
    printed = sum(eta * q ** (t - i) * C * X for i in range(1, t - tau + 1))
    value = truncation_error_bound(eta, lam, tau, C, X, t=t)
    closed = truncation_error_bound(eta, lam, tau, C, X)
    assert value == pytest.approx(printed, rel=1e-10, abs=1e-300)
    assert value <= closed              # strict in exact arithmetic: the gap is closed q^(t-tau)
    assert closed - value == pytest.approx(closed * q ** max(t - tau, 0), rel=1e-6,
                                           abs=1e-14 * closed)
    assert truncation_error_bound(eta, lam, tau, C, X, t=tau + 20000) == pytest.approx(
        closed, rel=1e-6, abs=1e-300)
    # worst case: f_t = sum_{i<t} eta C q^(t-1-i) k(x, .), f_trunc keeps i >= t - tau
    dropped = sum(eta * C * q ** (t - 1 - i) for i in range(1, t - tau)) * X
    assert dropped <= value * (1 + 1e-12) + 1e-300
    if t > tau:
        assert value - dropped == pytest.approx(eta * C * X * q ** (t - 1), rel=1e-7,
                                                abs=1e-12 * value)


# -- measured quantities ---------------------------------------------------------------

@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10 ** 6), B=st.floats(0.3, 3), mu=st.floats(0.05, 1.0))
def test_soft_margin_comparator_by_scaling_and_brute_force(seed, B, mu):
    """min_{||w|| <= B} sum max(0, mu - y <w, x>) in 2-D, against a polar grid, and
    exactly mu * best_hinge_in_ball(K, y, B / mu)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 2))
    y = np.where(X @ np.array([1.0, -0.5]) + 0.5 * rng.normal(size=40) >= 0, 1.0, -1.0)
    K = X @ X.T
    res = soft_margin_comparator_loss(K, y, B, mu, tol=1e-11)
    assert res.loss == pytest.approx(mu * best_hinge_in_ball(K, y, B / mu, tol=1e-11).loss,
                                     rel=1e-9)
    assert res.norm <= B * (1 + 1e-8)
    assert res.loss == pytest.approx(soft_margin_losses(res.fitted, y, mu).sum(), rel=1e-12)
    r = np.linspace(0, B, 101)
    a = np.linspace(0, 2 * np.pi, 721)
    W = np.stack([np.outer(r, np.cos(a)).ravel(), np.outer(r, np.sin(a)).ravel()], axis=1)
    grid = np.maximum(0.0, mu - y[None, :] * (W @ X.T)).sum(axis=1).min()
    assert res.loss <= grid + max(1e-9, res.loss - res.lower_bound)
    # every w in the disc is within B/200 + B pi/720 of a grid point; the loss sum is
    # (40 max||x||)-Lipschitz in w
    assert res.loss >= grid - 40 * np.linalg.norm(X, axis=1).max() * (B / 200 + B * np.pi / 720)
    assert res.lower_bound <= res.loss + 1e-9


def test_comparator_path_weights_and_coefficients_agree():
    W = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 4.0], [0.0, 1.0]])
    p = comparator_path(W)
    assert (p.B, p.D1, p.D2) == pytest.approx((5.0, 5.0 + 0 + math.sqrt(9 + 9), 25 + 18))
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(6, 2))            # centres; g_t = sum_j a_tj <z_j, .>, w_t = Z^T a_t
    A = rng.normal(size=(5, 6))
    q = comparator_path(coef=A, gram=Z @ Z.T)
    r = comparator_path(A @ Z)
    assert (q.B, q.D1, q.D2) == pytest.approx((r.B, r.D1, r.D2), rel=1e-10)
    single = comparator_path(W[:1] + 1.0)
    assert (single.D1, single.D2) == (0.0, 0.0)


def test_regularized_risk_conventions():
    # (4) with lambda / 2; (35)'s left side with lambda / 2 per round
    assert regularized_risk([1.0, 0.0, 0.5], 4.0, 0.1) == pytest.approx(0.5 + 0.2)
    np.testing.assert_allclose(cumulative_instantaneous_risk([1.0, 0.0], [0.0, 2.0], 0.5),
                               [1.0, 1.5])


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10 ** 6), lam=st.floats(0.2, 2.0),
       rho=st.one_of(st.just(0.0), st.floats(0.05, 2.0)))
def test_best_regularized_soft_margin_against_brute_force(seed, lam, rho):
    """1-D linear kernel: R_reg(w) = mean max(0, rho - y w x) + lam w^2 / 2 on a grid
    over |w| <= U = c X / lam (Sec. V-B: ||g_hat|| <= U, with c = 1, X = max|x|)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=60)
    y = np.where(x + 0.7 * rng.normal(size=60) >= 0, 1.0, -1.0)
    res = best_regularized_soft_margin(np.outer(x, x), y, lam, rho)
    feat = best_regularized_soft_margin(None, y, lam, rho, features=x[:, None])
    U = np.abs(x).max() / lam
    w = np.linspace(-U, U, 100001)
    grid = (np.maximum(0.0, rho - np.outer(w, y * x)).mean(axis=1) + 0.5 * lam * w ** 2).min()
    lipschitz = np.abs(x).max() + lam * U          # |d R_reg / d w| on the grid
    true_min_low = grid - lipschitz * (w[1] - w[0])
    assert res.lower_bound <= grid + 1e-12
    assert true_min_low <= res.risk <= grid + res.gap + 1e-12
    assert res.lower_bound <= res.risk + 1e-12
    assert res.gap <= 1e-6
    assert feat.risk == pytest.approx(res.risk, abs=1e-7)
    assert regularized_risk(soft_margin_losses(res.fitted, y, rho), res.norm_sq, lam) \
        == pytest.approx(res.risk, rel=1e-12)


VALIDATION = [
    (lambda: h(0.0, 1.0, 1.0), "x"),
    (lambda: h(1.0, -1.0, 1.0), "K"),
    (lambda: h(1.0, 1.0, 0.0), "C"),
    (lambda: theorem2_constant_C(0.0, 1, 1, 0, 0), "X"),
    (lambda: theorem2_constant_C(1, -1, 1, 0, 0), "B"),
    (lambda: theorem2_constant_C(1, 1, 0, 0, 0), "m"),
    (lambda: theorem2_constant_C(1, 1, 2.5, 0, 0), "m"),
    (lambda: theorem2_constant_C(1, 1, 1, -1, 0), "D1"),
    (lambda: theorem2_constant_C(1, 1, 1, 0, float("nan")), "D2"),
    (lambda: theorem2_parameters(1, 1, 10, 0, 0, 0, 1.0, 1.0), "rho"),
    (lambda: theorem2_parameters(1, 1, 10, 0, 0, 0, -1.0, 0.0), "mu"),
    (lambda: theorem3_parameters(1, 1, 10, 0, 0, 0, 1.0, margin="half"), "margin"),
    (lambda: margin_error_bound(-1, 1, 1, 0), "K"),
    (lambda: mistake_bound(0, 1, 0), "mu"),
    (lambda: eta_prime(1.0, 1.0), "eta \\* lam"),
    (lambda: relative_loss_bound(0, 1, 0, 0, 1, 0.0, 0.1), "eta_prime"),
    (lambda: relative_loss_bound(0, 1, 0, 0, 1, 1.0, -0.1), "lam"),
    (lambda: truncation_error_bound(0.5, 2.0, 1, 1, 1), "eta \\* lam"),
    (lambda: truncation_error_bound(0.5, 1.0, -1, 1, 1), "tau"),
    (lambda: truncation_error_bound(0.5, 1.0, 1, 0, 1), "C"),
    (lambda: truncation_error_bound(0.5, 1.0, 1, 1, 1, t=0), "t"),
    (lambda: risk_bound_constants(1.0, 0.5, 0, 1), "c"),
    (lambda: risk_bound_constants(1.0, 0.5, 1, 1, constants="exact"), "constants"),
    (lambda: risk_bound_constants(1.0, 0.5, 1, 1, truncated=1), "truncated"),
    (lambda: cumulative_risk_bound(0, 1.0, 0.5, 1, 1, 0.1), "m"),
    (lambda: cumulative_risk_bound(5, 1.0, 0.5, 1, 1, -0.1), "R_reg_g"),
    (lambda: theorem6_t0(0.5, 1.0, 0.5), "eps"),
    (lambda: theorem6_window(0, 1, 0.2), "t"),
    (lambda: soft_margin_losses([1.0], [0.5], 1.0), "y"),
    (lambda: soft_margin_losses([1.0], [1.0], -1.0), "margin"),
    (lambda: soft_margin_comparator_loss(np.eye(2), [1, -1], 1.0, 0.0), "mu"),
    (lambda: comparator_path(), "exactly one"),
    (lambda: comparator_path(coef=np.ones((2, 2))), "gram"),
    (lambda: comparator_path(coef=np.ones((2, 3)), gram=np.eye(2)), "gram"),
    (lambda: regularized_risk([], 0.0, 1.0), "losses"),
    (lambda: cumulative_instantaneous_risk([1.0], [1.0, 2.0], 1.0), "norm_sq"),
    (lambda: best_regularized_soft_margin(np.eye(2), [1, 1], 0.0), "lam"),
    (lambda: best_regularized_soft_margin(None, [1, 1], 1.0), "exactly one"),
]


@pytest.mark.parametrize("call, name", VALIDATION)
def test_invalid_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# -- Theorems 2 and 3 with the learner -------------------------------------------------

def _check_theorems_2_3(X, y, kernel, Xb, B, m, D1, D2, K, mu, prefix=None):
    """Run NORMA with Theorem 2's (rho = mu/2 and rho = 0) and Theorem 3's (both
    margins) parameters; assert the bounds.  Returns {name: (measured, bound)}."""
    out = {}
    for name, tune in [
        ("thm2 rho=mu/2", theorem2_parameters(Xb, B, m, D1, D2, K, mu, mu / 2)),
        ("thm2 rho=0", theorem2_parameters(Xb, B, m, D1, D2, K, mu, 0.0)),
        ("thm3 rho=mu-r", theorem3_parameters(Xb, B, m, D1, D2, K, mu)),
        ("thm3 rho=0", theorem3_parameters(Xb, B, m, D1, D2, K, mu, margin="zero")),
    ]:
        tr = run_norma(kernel, X, y, tune)
        margin_errors = tr.extras["n_updates"]
        scores = tr.scores
        assert margin_errors == int(np.sum(y * scores <= tune.rho))   # M_rho of (26)
        if name.startswith("thm2"):
            assert margin_errors <= tune.bound, (name, margin_errors, tune.bound)
            out[name] = (margin_errors, tune.bound)
        else:
            assert tr.n_mistakes <= tune.bound, (name, tr.n_mistakes, tune.bound)
            out[name] = (tr.n_mistakes, tune.bound)
        if prefix is not None:          # every prefix, through the untuned (45)-(46)
            Kn, D1n, D2n = prefix
            n = np.arange(1, m + 1)
            me = np.cumsum(y * scores <= tune.rho)
            mi = np.cumsum(y * scores <= 0)
            for i in range(m):
                args = (Kn[i], B, D1n[i], D2n[i], int(n[i]), Xb, mu, tune.rho,
                        tune.eta_prime, tune.lam)
                if name.startswith("thm2"):
                    assert me[i] <= margin_error_bound_general(*args) * (1 + 1e-12)
                assert mi[i] <= mistake_bound_general(*args) * (1 + 1e-12)
    return out


@RUNS
@given(seed=st.integers(0, 10 ** 6), d=st.integers(2, 6), mu=st.floats(0.1, 0.3))
def test_separable_stream_perceptron_regime(seed, d, mu):
    """(a) linear kernel, labels from a unit u with margin >= mu: K = 0, B = 1,
    D1 = D2 = 0 (lambda = 0).  The bounds are far below T, so they have teeth."""
    T = 1000
    X, y, u = separable_stream(T, d, mu, seed)
    K = soft_margin_losses(X @ u, y, mu).sum()
    assert K == 0.0
    Xb = float(np.linalg.norm(X, axis=1).max())
    out = _check_theorems_2_3(X, y, okl.Linear(), Xb, 1.0, T, 0.0, 0.0, K, mu)
    for name, (measured, bound) in out.items():
        assert bound < T / 2, (name, bound)
    # the Perceptron convergence bound itself
    assert out["thm3 rho=0"][1] == pytest.approx(Xb ** 2 / mu ** 2)


@RUNS
@given(seed=st.integers(0, 10 ** 6), d=st.integers(2, 5), flip=st.floats(0.02, 0.15),
       mu=st.floats(0.05, 0.25), B=st.floats(0.5, 2.0))
def test_noisy_stream_with_measured_comparator_loss(seed, d, flip, mu, B):
    """(b) labels flipped with probability ``flip``; K := min_{||g|| <= B}
    L_cum,mu[g, S] measured on the stream (an achieved value: its g is in the ball)."""
    T = 800
    X, y = noisy_stream(T, d, flip, seed)
    cmp = soft_margin_comparator_loss(X @ X.T, y, B, mu, tol=1e-7)
    assert cmp.loss > 0
    Bq = max(B, cmp.norm)
    Xb = float(np.linalg.norm(X, axis=1).max())
    _check_theorems_2_3(X, y, okl.Linear(), Xb, Bq, T, 0.0, 0.0, cmp.loss, mu)


def test_noisy_stream_gaussian_kernel():
    """(b) with a Gaussian kernel (X = 1) on a nonlinear target."""
    T, sigma, B, mu = 400, 1.0, 4.0, 0.5
    X, y = xor_like_stream(T, seed=3, flip=0.05)
    cmp = soft_margin_comparator_loss(gaussian_gram(X, sigma), y, B, mu, tol=1e-7)
    out = _check_theorems_2_3(X, y, okl.Gaussian(sigma), 1.0, max(B, cmp.norm), T, 0.0, 0.0,
                              cmp.loss, mu)
    assert out["thm3 rho=0"][1] < T


@RUNS
@given(seed=st.integers(0, 10 ** 6), mode=st.sampled_from(["rotate", "switch"]),
       angle=st.floats(math.pi / 4, math.pi), flip=st.floats(0.0, 0.04),
       mu=st.floats(0.2, 0.4), d=st.integers(2, 5))
def test_drifting_target_known_path(seed, mode, angle, flip, mu, d):
    """(c) g_t = <w_t, .> with unit w_t turning by ``angle``: B = 1, D1 and D2 from
    the steps ||w_t - w_{t+1}||, K = sum max(0, mu - y_t <w_t, x_t>).  Final bounds
    with the tuned parameters, and every prefix through (45)-(46)."""
    T = 1200
    X, y, W = drifting_stream(T, d, 0.3, angle, flip, mode, seed)
    path = comparator_path(W)
    losses = soft_margin_losses(np.einsum("ij,ij->i", W, X), y, mu)
    steps = np.concatenate([[0.0], path.steps])
    prefix = (np.cumsum(losses), np.cumsum(steps), np.cumsum(steps ** 2))
    assert path.D2 > 0 and path.B == pytest.approx(1.0)
    Xb = float(np.linalg.norm(X, axis=1).max())
    _check_theorems_2_3(X, y, okl.Linear(), Xb, path.B, T, path.D1, path.D2,
                        losses.sum(), mu, prefix=prefix)
    assert theorem3_parameters(Xb, path.B, T, path.D1, path.D2, losses.sum(), mu).lam > 0


# -- Theorems 4 and 6 with the learner -------------------------------------------------

def _risk_run(X, y, kernel, lam, eta, **window):
    tr = okl.NORMA(kernel=kernel, loss="soft_margin", rho=1.0, eta=eta, lam=lam,
                   schedule="sqrt", track_norm=True, **window).run(X, y)
    return tr, cumulative_instantaneous_risk(tr.losses, tr.extras["norm_sq"], lam)


def _prefix_bound(g, y, lam, a, b):
    """n R_reg[g, S_n] + a sqrt(n) + b for every prefix n (a fixed g: the bound holds
    for any g, so for every prefix)."""
    n = np.arange(1, y.size + 1)
    gl = np.cumsum(soft_margin_losses(g.fitted, y, 1.0))
    return gl + n * 0.5 * lam * g.norm_sq + a * np.sqrt(n) + b


@RUNS
@given(seed=st.integers(0, 10 ** 6), lam=st.floats(0.2, 1.0), el=st.floats(0.2, 0.9),
       sigma=st.floats(0.5, 2.0), flip=st.floats(0.0, 0.15))
def test_theorem4_cumulative_risk(seed, lam, el, sigma, flip):
    """Soft margin loss (c = 1), Gaussian kernel (X = 1), eta_t = eta / sqrt(t):
    sum_t [l(f_t(x_t), y_t) + lam/2 ||f_t||^2] <= m R_reg[g, S] + a sqrt(m) + b,
    with g a certified near-minimizer of R_reg; also ||f_t|| <= U = cX/lam (34)."""
    T, eta = 800, el / lam
    X, y = xor_like_stream(T, seed, flip)
    g = best_regularized_soft_margin(gaussian_gram(X, sigma), y, lam, 1.0)
    assert g.gap <= 1e-3 * g.risk + 1e-6
    tr, lhs = _risk_run(X, y, okl.Gaussian(sigma), lam, eta)
    U, a, b = risk_bound_constants(lam, eta, 1.0, 1.0)
    bound = cumulative_risk_bound(T, lam, eta, 1.0, 1.0, g.risk)
    assert lhs[-1] <= bound
    assert np.all(lhs <= _prefix_bound(g, y, lam, a, b) * (1 + 1e-12))
    assert _prefix_bound(g, y, lam, a, b)[-1] == pytest.approx(bound, rel=1e-10)
    assert np.sqrt(tr.extras["norm_sq"].max()) <= U * (1 + 1e-9)


def test_theorem4_with_huber_loss():
    """Another Lipschitz loss: Huber (23), c = 1, regression; g = the kernel ridge
    solution with ridge m lam sigma (the minimizer of R_reg if every residual stayed
    in the quadratic zone; any g is allowed), R_reg[g] with the Huber loss."""
    rng = np.random.default_rng(5)
    T, sigma_k, lam, eta, hub = 500, 0.8, 0.4, 2.0, 0.5
    X = rng.uniform(-2, 2, size=(T, 1))
    y = np.sin(2 * X[:, 0]) + 0.3 * rng.standard_t(2, size=T)
    tr = okl.NORMA(kernel=okl.Gaussian(sigma_k), loss="huber", sigma=hub, eta=eta, lam=lam,
                   schedule="sqrt", track_norm=True).run(X, y)
    lhs = cumulative_instantaneous_risk(tr.losses, tr.extras["norm_sq"], lam)[-1]
    ridge = kernel_ridge_comparator(gaussian_gram(X, sigma_k), y, T * lam * hub)
    r = np.abs(y - ridge.fitted)
    huber = np.where(r >= hub, r - hub / 2, r ** 2 / (2 * hub))
    R = regularized_risk(huber, ridge.norm2, lam)
    assert lhs <= cumulative_risk_bound(T, lam, eta, 1.0, 1.0, R)


@RUNS
@given(seed=st.integers(0, 10 ** 6), lam=st.floats(0.3, 1.0), el=st.floats(0.7, 0.95),
       eps=st.floats(0.3, 0.4), sigma=st.floats(0.5, 2.0))
def test_theorem6_truncated_cumulative_risk(seed, lam, el, eps, sigma):
    """Truncated NORMA with s_t = t (t <= t0), ceil(t^(1/2+eps)) after, t0 from
    Appendix C: the bound (37) as printed (and so the re-derived, larger one)."""
    T, eta = 1000, el / lam
    t0 = theorem6_t0(eta, lam, eps)
    assert t0 < T / 4
    X, y = xor_like_stream(T, seed, 0.05)
    g = best_regularized_soft_margin(gaussian_gram(X, sigma), y, lam, 1.0)
    tr, lhs = _risk_run(X, y, okl.Gaussian(sigma), lam, eta, tau_power=eps, tau_t0=t0)
    rounds = np.arange(1, T + 1)
    window = np.array([theorem6_window(int(t) + 1, t0, eps) for t in rounds])
    assert np.all(tr.budget <= window)                 # f_{t+1} keeps s_{t+1} terms
    assert tr.budget[-1] < tr.extras["n_updates"] - 50  # the truncation did act
    U, a, b = risk_bound_constants(lam, eta, 1.0, 1.0, truncated=True)
    assert lhs[-1] <= truncated_cumulative_risk_bound(T, lam, eta, 1.0, 1.0, g.risk)
    assert np.all(lhs <= _prefix_bound(g, y, lam, a, b) * (1 + 1e-12))
    assert np.sqrt(tr.extras["norm_sq"].max()) <= 3 * U   # Appendix C: ||f_t|| <= 3cX/lam


# -- the experiment --------------------------------------------------------------------

def test_norma_bounds_experiment_quick(tmp_path):
    from okl.experiments import EXPERIMENTS
    from okl.experiments.norma import norma_bounds

    assert EXPERIMENTS["norma-bounds"] is norma_bounds
    summary = norma_bounds(tmp_path, quick=True, seed=1)
    assert summary["all_bounds_hold"]
    for run in summary["margin_and_mistake_bounds"].values():
        measured = run["margin_errors"] if run["theorem"] == 2 else run["mistakes"]
        assert 0 < measured <= run["bound"] < summary["stream"]["m"]
    for name in ("thm4", "thm6"):
        r = summary["risk_bounds"][name]
        assert r["cumulative_risk"] <= r["bound"]
    assert summary["risk_bounds"]["thm6"]["final_expansion_size"] < summary["stream"]["m"] / 2
    assert sorted(p.rsplit(".", 1)[1] for p in summary["figures"]) == ["png", "svg"]
    assert all((tmp_path / f"norma_bounds.{ext}").stat().st_size > 0 for ext in ("png", "svg"))
