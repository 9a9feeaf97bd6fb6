"""Kernel polarization and alignment A_T (Li & Liao, AAAI 2023)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theory import kernel_alignment, kernel_polarization
from theory_data import gaussian_kernel, real_data

SETTINGS = settings(max_examples=40, deadline=None)


@pytest.mark.parametrize("name,sigma", [("iris", 1.0), ("wine", 2.0), ("cancer", 4.0)])
def test_matches_explicit_sums_on_real_data(name, sigma):
    X, y = real_data(name, n=120)
    K = gaussian_kernel(X, sigma)
    T = len(y)
    pol = sum(y[s] * y[t] * K[s, t] for s in range(T) for t in range(T))
    assert kernel_polarization(K, y) == pytest.approx(pol, rel=1e-12)
    A = sum(K[t, t] for t in range(T)) - pol / T
    assert kernel_alignment(K, y) == pytest.approx(A, rel=1e-12)


def test_closed_forms():
    y = np.array([1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0])
    T = len(y)
    # The ideal kernel Y Y^T: A_T = T - T^2 / T = 0 (the paper's "Theta(1)").
    assert kernel_polarization(np.outer(y, y), y) == pytest.approx(T ** 2)
    assert kernel_alignment(np.outer(y, y), y) == pytest.approx(0.0, abs=1e-12)
    # Identity: polarization T, A_T = T - 1; scaled identity c(T - 1).
    assert kernel_alignment(np.eye(T), y) == pytest.approx(T - 1)
    assert kernel_alignment(2.5 * np.eye(T), y) == pytest.approx(2.5 * (T - 1))
    # Constant kernel: polarization (sum y)^2.
    assert kernel_polarization(np.ones((T, T)), y) == pytest.approx(np.sum(y) ** 2)
    assert kernel_alignment(np.ones((T, T)), y) == pytest.approx(T - np.sum(y) ** 2 / T)


def test_flipping_labels_of_ideal_kernel_increases_alignment():
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0, -1.0])
    z = y.copy()
    z[0] = -z[0]
    assert kernel_alignment(np.outer(y, y), z) > kernel_alignment(np.outer(y, y), y) + 1.0


@st.composite
def problems(draw):
    T = draw(st.integers(2, 25))
    d = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    sigma = draw(st.floats(0.1, 10.0))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    y = rng.choice([-1.0, 1.0], size=T)
    return gaussian_kernel(X, sigma), y, rng


@SETTINGS
@given(problems())
def test_permutation_invariance(problem):
    K, y, rng = problem
    p = rng.permutation(len(y))
    assert kernel_alignment(K[np.ix_(p, p)], y[p]) == pytest.approx(
        kernel_alignment(K, y), rel=1e-10, abs=1e-10)
    assert kernel_polarization(K[np.ix_(p, p)], y[p]) == pytest.approx(
        kernel_polarization(K, y), rel=1e-10, abs=1e-10)


@SETTINGS
@given(problems())
def test_bounds_for_psd_kernel_and_binary_labels(problem):
    # 0 <= y^T K y <= T lambda_max  =>  tr K - lambda_max <= A_T <= tr K, hence A_T >= 0.
    K, y, _ = problem
    lam_max = np.linalg.eigvalsh(K)[-1]
    A = kernel_alignment(K, y)
    tol = 1e-10 * len(y)
    assert np.trace(K) - lam_max - tol <= A <= np.trace(K) + tol
    assert kernel_polarization(K, y) >= -tol


@SETTINGS
@given(problems(), st.floats(0.01, 100.0))
def test_scaling(problem, c):
    K, y, _ = problem
    assert kernel_alignment(c * K, y) == pytest.approx(c * kernel_alignment(K, y), rel=1e-9, abs=1e-9)


def test_global_label_flip_invariance():
    X, y = real_data("iris", n=60)
    K = gaussian_kernel(X, 1.0)
    assert kernel_alignment(K, -y) == pytest.approx(kernel_alignment(K, y), rel=1e-12)
