"""Spectrum decay envelopes of Theorem 1 of Li & Liao (AAAI 2023)."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theory import (ExponentialDecay, PolynomialDecay, fit_exponential_decay,
                    fit_polynomial_decay)
from theory.decay import MAX_RATIO
from theory_data import gaussian_kernel, real_data

SETTINGS = settings(max_examples=50, deadline=None)


@pytest.mark.parametrize("R0,r,T", [(3.7, 0.6, 40), (250.0, 0.9, 200), (1.0, 0.05, 8)])
def test_recovers_exact_exponential_spectrum(R0, r, T):
    i = np.arange(1, T + 1)
    ev = R0 * r ** i
    fit = fit_exponential_decay(eigenvalues=ev[::-1], rtol=0.0)  # order does not matter
    assert fit.r == pytest.approx(r, rel=1e-10)
    assert fit.R0 == pytest.approx(R0, rel=1e-10)
    assert fit.n_fit == T and not fit.clipped
    assert np.all(fit.envelope(i) >= ev)


@pytest.mark.parametrize("R0,p,T", [(50.0, 1.2, 50), (7.0, 2.5, 300), (1e3, 4.0, 30)])
def test_recovers_exact_polynomial_spectrum(R0, p, T):
    i = np.arange(1, T + 1)
    ev = R0 * i ** -p
    fit = fit_polynomial_decay(eigenvalues=ev, rtol=0.0)
    assert fit.p == pytest.approx(p, rel=1e-10)
    assert fit.R0 == pytest.approx(R0, rel=1e-10)
    assert fit.n_fit == T and not fit.clipped
    assert np.all(fit.envelope(i) >= ev)


def _check_envelope(fit, ev, atol=0.0):
    """The envelope dominates every fitted eigenvalue and touches one of them.

    ``atol = 0`` when ``ev`` is the spectrum the fit saw (the inequality is exact);
    ``atol`` of the order of the eigensolver's round-off when ``ev`` was computed
    independently.
    """
    i = np.arange(1, fit.n_fit + 1)
    env = fit.envelope(i)
    ev = ev[: fit.n_fit]
    assert np.all(env >= ev - atol)
    assert np.min((env - ev) / ev) <= 1e-12 + atol / ev[-1]  # R0 is the smallest constant


@pytest.mark.parametrize("name,sigma", [("iris", 1.0), ("wine", 2.0), ("cancer", 3.0)])
def test_real_data_kernels(name, sigma):
    X, _ = real_data(name, n=150)
    K = gaussian_kernel(X, sigma)
    ev = np.sort(np.linalg.eigvalsh(K))[::-1]  # independent eigenvalues
    for fit in (fit_exponential_decay(K), fit_polynomial_decay(K)):
        assert abs(fit.n_fit - np.sum(ev > 1e-10 * ev[0])) <= 1
        _check_envelope(fit, ev, atol=1e-12 * ev[0])
    exp_fit = fit_exponential_decay(K)
    assert 0 < exp_fit.r < 1
    # The rate is the least-squares slope of log(lambda_i) on i (independent lstsq).
    n = exp_fit.n_fit
    A = np.column_stack([np.arange(1, n + 1), np.ones(n)])
    slope = np.linalg.lstsq(A, np.log(ev[:n]), rcond=None)[0][0]
    assert exp_fit.r == pytest.approx(np.exp(slope), rel=1e-6)
    poly = fit_polynomial_decay(K)
    A = np.column_stack([np.log(np.arange(1, n + 1)), np.ones(n)])
    p = -np.linalg.lstsq(A, np.log(ev[:n]), rcond=None)[0][0]
    assert poly.p == pytest.approx(max(p, 1.0), rel=1e-6)


spectra = st.lists(st.floats(1e-6, 1e6), min_size=2, max_size=60)


@SETTINGS
@given(spectra)
def test_envelope_dominates_any_spectrum(values):
    ev = np.sort(np.array(values))[::-1]
    for fit in (fit_exponential_decay(eigenvalues=ev, rtol=0.0),
                fit_polynomial_decay(eigenvalues=ev, rtol=0.0)):
        assert fit.n_fit == len(ev)
        _check_envelope(fit, ev)
    assert 0 < fit_exponential_decay(eigenvalues=ev, rtol=0.0).r <= MAX_RATIO
    assert fit_polynomial_decay(eigenvalues=ev, rtol=0.0).p >= 1.0


def test_clipping_when_decay_is_too_slow():
    # Flat spectrum: least-squares ratio 1, clipped below 1.
    fit = fit_exponential_decay(np.eye(10))
    assert fit.clipped and fit.r == MAX_RATIO
    _check_envelope(fit, np.ones(10))
    # lambda_i = i^-0.5: exponent 0.5 < 1, clipped to p = 1 and R0 = max_i lambda_i * i.
    i = np.arange(1, 101)
    ev = i ** -0.5
    fit = fit_polynomial_decay(eigenvalues=ev)
    assert fit.clipped and fit.p == 1.0
    assert fit.R0 == pytest.approx(np.max(ev * i), rel=1e-12)
    _check_envelope(fit, ev)
    # p = 1 exactly (harmonic spectrum, the boundary of Theorem 1): p = 1 up to round-off.
    fit = fit_polynomial_decay(eigenvalues=50.0 / i)
    assert fit.p == pytest.approx(1.0, rel=1e-10) and fit.R0 == pytest.approx(50.0, rel=1e-10)
    # Increasing data (R0 r^i with r > 1 when read unsorted) is sorted first: not clipped.
    assert not fit_exponential_decay(eigenvalues=2.0 ** -i[::-1]).clipped


def test_rtol_drops_numerical_zeros():
    ev = np.concatenate([0.5 ** np.arange(1, 11), [1e-15, 0.0, -1e-18]])
    fit = fit_exponential_decay(eigenvalues=ev)
    assert fit.n_fit == 10
    assert fit.r == pytest.approx(0.5, rel=1e-10)


def test_results_are_frozen_and_envelope_validates_indices():
    fit = fit_polynomial_decay(eigenvalues=[4.0, 1.0, 0.25])
    assert isinstance(fit, PolynomialDecay)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.p = 3.0
    assert isinstance(fit_exponential_decay(eigenvalues=[4.0, 1.0]), ExponentialDecay)
    with pytest.raises(ValueError, match="i must"):
        fit.envelope([0, 1])


def test_errors():
    with pytest.raises(ValueError, match="fewer than two"):
        fit_exponential_decay(np.ones((5, 5)))  # rank one
    with pytest.raises(ValueError, match="rtol"):
        fit_polynomial_decay(eigenvalues=[1.0, 0.5], rtol=1.5)
    with pytest.raises(ValueError, match="exactly one"):
        fit_polynomial_decay()
    with pytest.raises(ValueError, match="eigenvalues contains NaN"):
        fit_exponential_decay(eigenvalues=[1.0, np.nan])
