"""Effective dimension and log-determinant term (Jezequel, Gaillard & Rudi, NeurIPS 2019)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theory import effective_dimension, kernel_eigenvalues, log_det_term
from theory_data import gaussian_kernel, real_data

SETTINGS = settings(max_examples=40, deadline=None)


@pytest.fixture(scope="module")
def cancer_kernel():
    X, _ = real_data("cancer", n=200)
    return gaussian_kernel(X, 3.0)


@pytest.mark.parametrize("lam", [1e-3, 0.1, 1.0, 10.0, 1e3])
def test_effective_dimension_matches_trace_formula(cancer_kernel, lam):
    K = cancer_kernel
    explicit = np.trace(K @ np.linalg.inv(K + lam * np.eye(len(K))))
    assert effective_dimension(K, lam) == pytest.approx(explicit, rel=1e-9)


@pytest.mark.parametrize("lam", [1e-3, 0.1, 1.0, 10.0, 1e3])
def test_log_det_term_matches_slogdet(cancer_kernel, lam):
    K = cancer_kernel
    sign, logdet = np.linalg.slogdet(np.eye(len(K)) + K / lam)
    assert sign == 1.0
    assert log_det_term(K, lam) == pytest.approx(logdet, rel=1e-9)


def test_eigenvalue_keyword_matches_matrix(cancer_kernel):
    ev = np.linalg.eigvalsh(cancer_kernel)
    assert np.allclose(kernel_eigenvalues(cancer_kernel), np.sort(np.maximum(ev, 0))[::-1],
                       atol=1e-12)
    for lam in (0.01, 1.0):
        assert effective_dimension(lam=lam, eigenvalues=ev) == pytest.approx(
            effective_dimension(cancer_kernel, lam), rel=1e-12)
        assert log_det_term(lam=lam, eigenvalues=ev[::-1]) == pytest.approx(
            log_det_term(cancer_kernel, lam), rel=1e-12)


def test_closed_forms():
    T = 7
    # K = c I: every eigenvalue is c.
    assert effective_dimension(3.0 * np.eye(T), 1.5) == pytest.approx(T * 3.0 / 4.5)
    assert log_det_term(3.0 * np.eye(T), 1.5) == pytest.approx(T * np.log(3.0))
    # Rank one K = v v^T: one eigenvalue ||v||^2.
    v = np.arange(1.0, T + 1)
    s = v @ v
    assert effective_dimension(np.outer(v, v), 2.0) == pytest.approx(s / (s + 2.0))
    assert log_det_term(np.outer(v, v), 2.0) == pytest.approx(np.log1p(s / 2.0))


def test_log1p_accuracy_for_tiny_eigenvalues():
    ev = np.full(10, 1e-20)
    assert log_det_term(lam=1.0, eigenvalues=ev) == pytest.approx(1e-19, rel=1e-12, abs=0)
    assert effective_dimension(lam=1.0, eigenvalues=ev) == pytest.approx(1e-19, rel=1e-12, abs=0)


def test_round_off_negative_eigenvalues_are_clamped():
    ev = np.array([2.0, 1.0, -1e-16])
    assert effective_dimension(lam=1.0, eigenvalues=ev) == pytest.approx(2 / 3 + 1 / 2)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        effective_dimension(lam=1.0, eigenvalues=np.array([2.0, 1.0, -0.1]))
    with pytest.raises(ValueError, match="K is not positive semidefinite"):
        log_det_term(np.array([[1.0, 2.0], [2.0, 1.0]]), 1.0)


@st.composite
def kernels(draw):
    T = draw(st.integers(1, 30))
    d = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    X = np.round(rng.normal(size=(T, d)), draw(st.integers(0, 2)))  # rounding makes duplicates
    return gaussian_kernel(X, draw(st.floats(0.05, 5.0)))


@SETTINGS
@given(kernels(), st.floats(1e-4, 1e4), st.floats(1.01, 100.0))
def test_effective_dimension_range_and_monotonicity(K, lam, factor):
    rank = np.linalg.matrix_rank(K)
    d = effective_dimension(K, lam)
    assert -1e-12 <= d <= rank + 1e-9
    # Smaller lam, larger effective dimension (non-strict at round-off).
    assert effective_dimension(K, lam / factor) >= d - 1e-12


@SETTINGS
@given(kernels(), st.floats(1e-4, 1e4))
def test_log_det_term_vs_effective_dimension(K, lam):
    # x / (1 + x) <= log(1 + x) termwise; Prop. 2 of Jezequel et al. bounds it from above.
    T = len(K)
    d = effective_dimension(K, lam)
    ld = log_det_term(K, lam)
    kappa2 = np.max(np.diag(K))
    assert d <= ld * (1 + 1e-12) + 1e-15
    assert ld <= np.log(np.e + np.e * T * kappa2 / lam) * d * (1 + 1e-10) + 1e-15
    sign, logdet = np.linalg.slogdet(np.eye(T) + K / lam)
    assert ld == pytest.approx(logdet, rel=1e-8, abs=1e-10)
