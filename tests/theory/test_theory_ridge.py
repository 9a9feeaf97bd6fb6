"""Kernel ridge comparator: min_f sum (y_t - f(x_t))^2 + lam ||f||^2 (Jezequel, Gaillard &
Rudi, NeurIPS 2019)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import optimize

from theory import kernel_ridge_comparator
from theory_data import gaussian_kernel, real_data

SETTINGS = settings(max_examples=30, deadline=None)


def objective(K, y, lam, a):
    f = K @ a
    return np.sum((y - f) ** 2) + lam * a @ K @ a


@pytest.fixture(scope="module")
def wine():
    X, _ = real_data("wine", n=80)
    y = X[:, 0] + np.sin(X[:, 1])  # a real-valued target from the data itself
    return gaussian_kernel(X[:, 2:], 2.0), y


@pytest.mark.parametrize("lam", [1e-4, 0.1, 10.0])
def test_closed_form_and_first_order_conditions(wine, lam):
    K, y = wine
    res = kernel_ridge_comparator(K, y, lam)
    a = np.linalg.inv(K + lam * np.eye(len(y))) @ y
    assert np.allclose(res.coef, a, rtol=1e-6, atol=1e-8 * np.abs(a).max())
    # Gradient of the objective in a: 2 K ((K + lam I) a - y) = 0.
    grad = 2 * K @ ((K + lam * np.eye(len(y))) @ res.coef - y)
    assert np.linalg.norm(grad) <= 1e-9 * np.linalg.norm(2 * K @ y)
    assert np.allclose(res.fitted, K @ res.coef)
    assert res.loss == pytest.approx(np.sum((y - K @ res.coef) ** 2), rel=1e-10)
    assert res.norm2 == pytest.approx(res.coef @ K @ res.coef, rel=1e-10)
    assert res.objective == pytest.approx(res.loss + lam * res.norm2, rel=1e-12)
    # At the optimum y - f = lam a, so the objective is lam y^T a.
    assert res.objective == pytest.approx(lam * y @ res.coef, rel=1e-8)


@pytest.mark.parametrize("lam", [1e-3, 1.0])
def test_matches_lstsq_on_augmented_system(wine, lam):
    # K = Phi Phi^T with Phi = V sqrt(l); ridge in feature space is the least-squares
    # problem [Phi; sqrt(lam) I] w = [y; 0], and f = Phi w, ||f||^2 = ||w||^2.
    K, y = wine
    l, V = np.linalg.eigh(K)
    Phi = V * np.sqrt(np.maximum(l, 0))
    A = np.vstack([Phi, np.sqrt(lam) * np.eye(len(y))])
    w = np.linalg.lstsq(A, np.concatenate([y, np.zeros(len(y))]), rcond=None)[0]
    res = kernel_ridge_comparator(K, y, lam)
    assert np.allclose(res.fitted, Phi @ w, atol=1e-7)
    assert res.norm2 == pytest.approx(w @ w, rel=1e-6)
    assert res.objective == pytest.approx(np.sum((y - Phi @ w) ** 2) + lam * w @ w, rel=1e-8)


def test_matches_general_solver_on_singular_kernel():
    X, _ = real_data("iris", n=12, seed=3)
    X[6:] = X[:6]  # duplicated points: K has rank <= 6
    y = np.tanh(X[:, 0]) + 0.1 * np.arange(12)
    K = gaussian_kernel(X, 1.5)
    lam = 0.3
    res = kernel_ridge_comparator(K, y, lam)
    sol = optimize.minimize(lambda a: objective(K, y, lam, a), np.zeros(12),
                            jac=lambda a: 2 * K @ ((K + lam * np.eye(12)) @ a - y),
                            method="BFGS", options={"gtol": 1e-12})
    assert res.objective == pytest.approx(sol.fun, rel=1e-8)
    assert np.allclose(res.fitted, K @ sol.x, atol=1e-5)
    assert res.objective <= sol.fun * (1 + 1e-12)


@SETTINGS
@given(st.integers(2, 20), st.floats(1e-3, 1e2), st.integers(0, 2 ** 32 - 1))
def test_perturbations_do_not_decrease_objective(T, lam, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, 2))
    K = gaussian_kernel(X, 1.0)
    y = rng.normal(size=T)
    res = kernel_ridge_comparator(K, y, lam)
    for _ in range(5):
        delta = rng.normal(size=T) * 10.0 ** rng.uniform(-4, 1)
        assert res.objective <= objective(K, y, lam, res.coef + delta) + 1e-10 * (1 + res.objective)


def test_limits_in_lam(wine):
    K, y = wine
    # lam -> infinity: f -> 0, objective -> ||y||^2; small lam interpolates (K is nonsingular here).
    assert kernel_ridge_comparator(K, y, 1e8).objective == pytest.approx(y @ y, rel=1e-5)
    assert kernel_ridge_comparator(K, y, 1e-8).loss <= 1e-6 * (y @ y)


def test_errors():
    K = np.eye(3)
    with pytest.raises(ValueError, match="lam"):
        kernel_ridge_comparator(K, np.ones(3), 0.0)
    with pytest.raises(ValueError, match="lam"):
        kernel_ridge_comparator(K, np.ones(3), -1.0)
    with pytest.raises(ValueError, match="y must be a vector of length 3"):
        kernel_ridge_comparator(K, np.ones(4), 1.0)
    with pytest.raises(ValueError, match="y contains NaN"):
        kernel_ridge_comparator(K, np.array([1.0, np.nan, 0.0]), 1.0)
    with pytest.raises(ValueError, match="K must be PSD"):
        kernel_ridge_comparator(np.array([[1.0, 3.0], [3.0, 1.0]]), np.ones(2), 0.5)
