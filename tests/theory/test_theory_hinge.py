"""Best hinge loss in the RKHS ball ||f|| <= U (the comparator of Li & Liao, AAAI 2023, and
of the Ahpatron paper, Liao et al., AAAI 2024)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import optimize

from theory import best_hinge_in_ball, kernel_alignment, kernel_polarization
from theory_data import gaussian_kernel, real_data

SETTINGS = settings(max_examples=25, deadline=None)


def hinge(K, y, a):
    return np.sum(np.maximum(0.0, 1.0 - y * (K @ a)))


def check_certificate(res, K, y, rel=1e-6):
    """Recompute everything the result claims from K, y and the returned vectors."""
    U = res.U
    f = K @ res.coef
    assert np.allclose(res.fitted, f, atol=1e-9 * (1 + np.abs(f).max()))
    assert res.loss == pytest.approx(hinge(K, y, res.coef), rel=1e-9, abs=1e-9)
    assert res.norm == pytest.approx(np.sqrt(max(res.coef @ K @ res.coef, 0)), rel=1e-7, abs=1e-9)
    assert res.norm <= U * (1 + 1e-7)
    beta = res.dual
    assert np.all((beta >= 0) & (beta <= 1))
    by = beta * y
    lower = np.sum(beta) - U * np.sqrt(max(by @ K @ by, 0))
    assert res.lower_bound == pytest.approx(lower, rel=1e-9, abs=1e-9)
    # gap is loss - lower_bound clipped at 0; round-off may put the bound a hair above
    scale = 1e-9 * max(1.0, res.loss)
    assert res.loss - res.lower_bound >= -scale
    assert res.gap == max(res.loss - res.lower_bound, 0.0)
    assert 0 <= res.gap <= rel * max(1.0, res.loss)


def slsqp_hinge(K, y, U):
    """General-purpose solver on the a-parametrization: min sum xi, xi >= 1 - y K a, a'Ka <= U^2."""
    T = len(y)
    cons = [{"type": "ineq", "fun": lambda z: z[T:] - 1 + y * (K @ z[:T]),
             "jac": lambda z: np.hstack([y[:, None] * K, np.eye(T)])},
            {"type": "ineq", "fun": lambda z: U ** 2 - z[:T] @ K @ z[:T],
             "jac": lambda z: np.concatenate([-2 * K @ z[:T], np.zeros(T)])}]
    z0 = np.concatenate([np.zeros(T), np.ones(T)])
    sol = optimize.minimize(lambda z: z[T:].sum(), z0, jac=lambda z: np.r_[np.zeros(T), np.ones(T)],
                            bounds=[(None, None)] * T + [(0, None)] * T, constraints=cons,
                            method="SLSQP", options={"ftol": 1e-13, "maxiter": 1000})
    a = sol.x[:T]
    assert a @ K @ a <= U ** 2 * (1 + 1e-6)
    return hinge(K, y, a)


# ---------------------------------------------------------------- closed forms

@pytest.mark.parametrize("c,U", [(1.0, 0.5), (2.0, 1.5), (0.5, 10.0)])
def test_scaled_identity(c, U):
    # Orthogonal points: loss = max(0, T - U sqrt(c T)) (equal weights U / sqrt(T)).
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0])
    T = len(y)
    res = best_hinge_in_ball(c * np.eye(T), y, U)
    assert res.loss == pytest.approx(max(0.0, T - U * np.sqrt(c * T)), abs=1e-6)
    check_certificate(res, c * np.eye(T), y)


@pytest.mark.parametrize("c,U", [(1.0, 0.3), (4.0, 0.2), (1.0, 2.0)])
def test_ideal_kernel(c, U):
    # K = c y y^T: one feature sqrt(c) y_t, margin U sqrt(c) for every point.
    y = np.array([1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0])
    res = best_hinge_in_ball(c * np.outer(y, y), y, U)
    assert res.loss == pytest.approx(len(y) * max(0.0, 1 - U * np.sqrt(c)), abs=1e-6)
    assert res.rank == 1
    check_certificate(res, c * np.outer(y, y), y)


def test_single_point():
    res = best_hinge_in_ball([[4.0]], [-1.0], 0.2)
    assert res.loss == pytest.approx(1 - 0.2 * 2.0, abs=1e-8)
    assert res.fitted[0] == pytest.approx(-0.4, abs=1e-7)


def test_zero_kernel():
    res = best_hinge_in_ball(np.zeros((4, 4)), [1.0, -1.0, 1.0, 1.0], 3.0)
    assert res.loss == 4.0 and res.gap == 0.0 and res.rank == 0


# ------------------------------------------------------ independent solvers

@pytest.mark.parametrize("seed,U", [(0, 0.3), (1, 1.0), (2, 3.0), (3, 30.0)])
def test_linear_kernel_1d_matches_lp(seed, U):
    # With d = 1 the ball is the interval [-U, U]: the problem is an LP.
    rng = np.random.default_rng(seed)
    x = rng.normal(size=40)
    y = np.where(x + 0.8 * rng.normal(size=40) > 0, 1.0, -1.0)
    T = len(x)
    # variables (w, xi): min sum xi, -y_t x_t w - xi_t <= -1
    A = np.hstack([-(y * x)[:, None], -np.eye(T)])
    lp = optimize.linprog(np.r_[0.0, np.ones(T)], A_ub=A, b_ub=-np.ones(T),
                          bounds=[(-U, U)] + [(0, None)] * T, method="highs")
    res = best_hinge_in_ball(np.outer(x, x), y, U)
    assert res.loss == pytest.approx(lp.fun, rel=1e-7, abs=1e-7)
    check_certificate(res, np.outer(x, x), y)


@pytest.mark.parametrize("seed", range(6))
def test_matches_slsqp_on_small_problems(seed):
    X, y = real_data("iris", n=10, seed=seed)
    if seed % 2:
        X[5:] = X[:5]  # duplicated points: singular K
        y[5:] = y[:5]
    K = gaussian_kernel(X, [0.5, 1.0, 3.0][seed % 3])
    U = [0.5, 2.0, 5.0][seed % 3]
    res = best_hinge_in_ball(K, y, U)
    check_certificate(res, K, y)
    ref = slsqp_hinge(K, y, U)
    assert res.loss == pytest.approx(ref, rel=1e-5, abs=1e-6)
    assert res.lower_bound <= ref + 1e-9  # weak duality against an independent feasible point


def test_linear_kernel_rank_deficient_matches_slsqp_in_weight_space():
    X, y = real_data("wine", n=60, seed=1)
    X = X[:, :3]
    U = 1.5
    T, d = X.shape
    cons = [{"type": "ineq", "fun": lambda z: z[d:] - 1 + y * (X @ z[:d])},
            {"type": "ineq", "fun": lambda z: U ** 2 - z[:d] @ z[:d]}]
    sol = optimize.minimize(lambda z: z[d:].sum(), np.r_[np.zeros(d), np.ones(T)],
                            bounds=[(None, None)] * d + [(0, None)] * T, constraints=cons,
                            method="SLSQP", options={"ftol": 1e-13, "maxiter": 1000})
    K = X @ X.T
    res = best_hinge_in_ball(K, y, U)
    assert res.rank == 3
    assert res.loss == pytest.approx(sol.fun, rel=1e-6)
    check_certificate(res, K, y)


# ------------------------------------------------------- optimality (KKT)

@pytest.mark.parametrize("name,sigma,U", [("cancer", 4.0, 3.0), ("iris", 0.7, 8.0),
                                          ("wine", 2.0, 1.0)])
def test_kkt_conditions_on_real_data(name, sigma, U):
    X, y = real_data(name, n=300)
    K = gaussian_kernel(X, sigma)
    res = best_hinge_in_ball(K, y, U)
    check_certificate(res, K, y)
    m = y * res.fitted
    beta = res.dual
    gap = res.gap
    # Complementary slackness: beta = 1 where margin < 1, beta = 0 where margin > 1.
    assert np.all(beta[m < 1 - 1e-3] >= 1 - 1e3 * gap - 1e-9)
    assert np.all(beta[m > 1 + 1e-3] <= 1e3 * gap + 1e-9)
    # Stationarity: f is parallel (in H) to sum beta_t y_t k(x_t, .) and the ball is active.
    by = beta * y
    cos = res.coef @ K @ by / (res.norm * np.sqrt(by @ K @ by))
    assert cos == pytest.approx(1.0, abs=1e-6)
    assert res.norm == pytest.approx(U, rel=1e-6)


# ------------------------------------------------------------ limits in U

def test_separable_with_large_U_has_zero_loss():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(30, 2)) + 4, rng.normal(size=(30, 2)) - 4])
    y = np.r_[np.ones(30), -np.ones(30)]
    K = gaussian_kernel(X, 2.0)
    res = best_hinge_in_ball(K, y, 100.0)
    assert res.loss <= 1e-6
    assert res.norm < 100.0  # interior optimum
    check_certificate(res, K, y)


def test_tiny_U_has_loss_T():
    X, y = real_data("iris", n=50)
    K = gaussian_kernel(X, 1.0)
    U = 1e-3
    res = best_hinge_in_ball(K, y, U)
    # Every margin is < 1, so beta = 1 and the minimum is T - U sqrt(y'Ky) exactly.
    assert res.loss == pytest.approx(len(y) - U * np.sqrt(kernel_polarization(K, y)), abs=1e-9)
    assert np.all(res.dual == 1.0)
    check_certificate(res, K, y, rel=1e-12)
    assert best_hinge_in_ball(K, y, 1e-12).loss == pytest.approx(len(y), abs=1e-9)


def test_monotone_in_U_and_polarization_bound():
    X, y = real_data("wine", n=100, seed=2)
    K = gaussian_kernel(X, 3.0)
    pol = kernel_polarization(K, y)
    prev = None
    for U in [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0]:
        res = best_hinge_in_ball(K, y, U)
        check_certificate(res, K, y)
        # Dual point beta = 1: min loss >= T - U sqrt(y'Ky).
        assert res.loss >= len(y) - U * np.sqrt(pol) - 1e-9
        if prev is not None:
            assert res.loss <= prev.loss + prev.gap + res.gap
        prev = res


# ------------------------- the Ahpatron paper, Theorem 5: A_T >= min L_T

@pytest.mark.parametrize("name,sigma", [("iris", 0.5), ("iris", 2.0), ("wine", 1.0),
                                        ("cancer", 3.0), ("cancer", 10.0)])
def test_alignment_dominates_best_hinge_loss(name, sigma):
    # kappa(x, x) = 1 (Gaussian kernel) and U >= 1  =>  A_T >= min_{||f|| <= U} L_T(f).
    X, y = real_data(name, n=150)
    K = gaussian_kernel(X, sigma)
    A = kernel_alignment(K, y)
    for U in (1.0, 3.0):
        res = best_hinge_in_ball(K, y, U)
        assert res.lower_bound <= res.loss <= A + 1e-9


# -------------------------------------------------------- property tests

@st.composite
def problems(draw):
    T = draw(st.integers(1, 40))
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    X = np.round(rng.normal(size=(T, d)), draw(st.integers(0, 3)))  # coarse rounding: duplicates
    y = rng.choice([-1.0, 1.0], size=T)
    K = gaussian_kernel(X, draw(st.floats(0.1, 5.0))) if draw(st.booleans()) else X @ X.T
    return K, y, draw(st.floats(1e-3, 100.0)), rng


@SETTINGS
@given(problems())
def test_certificate_and_weak_duality(problem):
    K, y, U, rng = problem
    res = best_hinge_in_ball(K, y, U)
    check_certificate(res, K, y)
    # Any feasible f (random direction scaled to the ball) has loss >= lower bound.
    T = len(y)
    for _ in range(5):
        a = rng.normal(size=T)
        nrm = np.sqrt(max(a @ K @ a, 0))
        if nrm > 1e-12:
            assert hinge(K, y, a * U * rng.uniform() / nrm) >= res.lower_bound - 1e-9


@SETTINGS
@given(problems())
def test_alignment_dominates_best_hinge_loss_property(problem):
    K, y, U, _ = problem
    d = np.sqrt(np.diag(K))
    if np.any(d == 0):
        return
    K = K / np.outer(d, d)  # normalized kernel: kappa(x, x) = 1
    assert best_hinge_in_ball(K, y, max(U, 1.0)).loss <= kernel_alignment(K, y) + 1e-9


@SETTINGS
@given(problems())
def test_permutation_invariance(problem):
    K, y, U, rng = problem
    p = rng.permutation(len(y))
    a = best_hinge_in_ball(K, y, U)
    b = best_hinge_in_ball(K[np.ix_(p, p)], y[p], U)
    assert a.loss == pytest.approx(b.loss, abs=1e-6 * max(1.0, a.loss))


# ------------------------------------------------------------- validation

def test_errors():
    K = np.eye(3)
    with pytest.raises(ValueError, match="U must be finite and > 0"):
        best_hinge_in_ball(K, [1, -1, 1], 0.0)
    with pytest.raises(ValueError, match="U"):
        best_hinge_in_ball(K, [1, -1, 1], -2.0)
    with pytest.raises(ValueError, match="y must contain only the labels -1 and \\+1"):
        best_hinge_in_ball(K, [1, 0, 1], 1.0)
    with pytest.raises(ValueError, match="y must be a vector of length 3"):
        best_hinge_in_ball(K, [1, -1], 1.0)
    with pytest.raises(ValueError, match="K is not positive semidefinite"):
        best_hinge_in_ball(np.array([[1.0, 3.0], [3.0, 1.0]]), [1, -1], 1.0)
    with pytest.raises(ValueError, match="K is not symmetric"):
        best_hinge_in_ball(np.array([[1.0, 0.5], [0.0, 1.0]]), [1, -1], 1.0)
