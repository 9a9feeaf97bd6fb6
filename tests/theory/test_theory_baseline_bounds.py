"""The bounds of the ten learners issue 19 added, as functions: closed forms, independent
computations and the argument checks (theory.norma_baselines, theory.ahpatron's
Projectron bounds, theory.pomdr_baselines' FOGD/NOGD terms, theory.selection_baselines'
OMKC bound).  Runs of the learners held to them: test_baseline_bounds_on_runs.py."""
from __future__ import annotations

import math

import numpy as np
import pytest
from theory_data import gaussian_kernel

from theory import ahpatron as tah
from theory import norma_baselines as nb
from theory import pomdr_baselines as pb
from theory import selection_baselines as sb


def test_ogd_regret_bound_closed_forms():
    # constant: ||f||^2/(2 eta) + eta T G^2 / 2
    assert nb.ogd_regret_bound(4.0, 0.5, 100, 1.0) == pytest.approx(4.0 + 25.0)
    # sqrt: D^2 sqrt(T)/(2 eta) + eta (sqrt(T) - 1/2) G^2; Zinkevich's Theorem 1 at eta = 1
    F2, G2, T = 3.0, 2.0, 49
    assert nb.ogd_regret_bound(0.0, 1.0, T, G2, schedule="sqrt", max_distance2=F2) == \
        pytest.approx(F2 * 7 / 2 + (7 - 0.5) * G2)
    # sum_{t<=T} t^-1/2 <= 2 sqrt(T) - 1, the step the sqrt form uses
    for T in (1, 2, 10, 1000):
        assert np.sum(1 / np.sqrt(np.arange(1, T + 1))) <= 2 * math.sqrt(T) - 1 + 1e-12
    with pytest.raises(ValueError, match="max_distance2"):
        nb.ogd_regret_bound(1.0, 1.0, 5, 1.0, schedule="sqrt")
    with pytest.raises(ValueError, match="schedule"):
        nb.ogd_regret_bound(1.0, 1.0, 5, 1.0, schedule="cubic")
    with pytest.raises(ValueError, match="eta"):
        nb.ogd_regret_bound(1.0, 0.0, 5, 1.0)


def test_kernel_ogd_path_distances_against_explicit_coefficients():
    rng = np.random.default_rng(3)
    T = 40
    X = rng.normal(size=(T, 3))
    K = gaussian_kernel(X, 1.2)
    c = rng.normal(size=T) * (rng.random(T) < 0.6)
    beta = rng.normal(size=T)
    f_vals, f2 = K @ beta, float(beta @ K @ beta)
    scores = np.array([K[t, :t] @ c[:t] for t in range(T)])       # f_t(x_t)
    got = nb.kernel_ogd_path_distances(c, scores, np.diag(K), f_vals, f2)
    for t in range(T + 1):
        a = np.concatenate([c[:t], np.zeros(T - t)]) - beta      # f_{t+1} - f, t terms
        assert got[t] == pytest.approx(float(a @ K @ a), rel=1e-9, abs=1e-9)


def test_alma2_bound_closed_form_and_separable_case():
    a = nb.alma2_constant(1.0, 1.0, math.sqrt(2))
    assert a == pytest.approx(2 * math.sqrt(2))
    # separable (L = 0): m <= a^2 ||f||^2 = 8/gamma^2 at alpha = 1, C = sqrt(2)
    assert nb.alma2_correction_bound(0.0, 2.0, 1.0, 1.0, math.sqrt(2)) == pytest.approx(32.0)
    # the quadratic's root: m = bound solves m - a R sqrt(m) - L = 0
    for L, R, alpha in ((10.0, 1.5, 0.5), (0.3, 4.0, 0.9), (100.0, 0.2, 1.0)):
        B = 1 / alpha
        m = nb.alma2_correction_bound(L, R, alpha, B, 1.1)
        a = nb.alma2_constant(alpha, B, 1.1)
        assert m - a * R * math.sqrt(m) - L == pytest.approx(0.0, abs=1e-9 * max(1, m))
    with pytest.raises(ValueError, match="alpha"):
        nb.alma2_constant(1.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="f_norm"):
        nb.alma2_correction_bound(1.0, 0.0, 1.0, 1.0, 1.0)


def test_projectron_bounds_closed_forms():
    # eta = 0: the kernel Perceptron's (R X + sqrt(R^2 X^2 + 4 L))^2 / 4
    R, L = 3.0, 17.0
    assert tah.projectron_mistake_bound(L, R, 0.0) == \
        pytest.approx((R + math.sqrt(R * R + 4 * L)) ** 2 / 4)
    # the root of |M| (1 - eta R) - L = R X sqrt(|M|)
    for eta in (0.05, 0.2):
        M = tah.projectron_mistake_bound(L, R, eta, kappa_max=2.0)
        assert M * (1 - eta * R) - L == pytest.approx(R * math.sqrt(2.0) * math.sqrt(M))
    assert tah.projectronpp_mistake_bound(L, R, 0.1) == pytest.approx((9 + 34) / (1 - 0.6))
    with pytest.raises(ValueError, match="eta"):
        tah.projectron_mistake_bound(L, 10.0, 0.1)
    with pytest.raises(ValueError, match="2 - 2 eta"):
        tah.projectronpp_mistake_bound(L, 4.0, 0.2)


def test_projectron_dictionary_bound_is_a_cover():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    K = gaussian_kernel(X, 0.7)
    eta = 0.5
    n = tah.projectron_dictionary_bound(K, eta)
    # independent greedy cover, then every point within eta/2 of some center
    d = np.diag(K)
    D2 = d[:, None] + d[None, :] - 2 * K
    centers = []
    for t in range(len(X)):
        if not any(D2[t, c] <= (eta / 2) ** 2 * (1 + 1e-12) for c in centers):
            centers.append(t)
    assert n == len(centers)
    assert np.all(D2[:, centers].min(axis=1) <= (eta / 2) ** 2 * (1 + 1e-12))
    # an eta-separated subset (greedy packing) never exceeds it
    pack = []
    for t in range(len(X)):
        if all(D2[t, p] > eta ** 2 for p in pack):
            pack.append(t)
    assert len(pack) <= n


def test_rff_probability_and_its_inverse():
    p = pb.rff_error_probability(0.5, 400, 10, 3.0, 4.0)
    assert p == pytest.approx(256 * (3 * 4 / 0.5) ** 2 * math.exp(-400 * 0.25 / 48))
    for delta in (0.05, 0.5):
        eps = pb.rff_epsilon(delta, 2000, 5, 1.0, 2.0)
        assert pb.rff_error_probability(eps, 2000, 5, 1.0, 2.0) == pytest.approx(delta, rel=1e-8)
    assert pb.rff_epsilon(0.1, 10, 2, 1.0, 0.0) == 0.0
    with pytest.raises(ValueError, match="delta"):
        pb.rff_epsilon(1.0, 10, 2, 1.0, 1.0)


def test_feature_bounds_closed_forms():
    assert pb.feature_ogd_regret_bound(2.0, 0.5, 10.0, approx=1.5) == pytest.approx(2 + 2.5 + 1.5)
    assert pb.fogd_theorem1_bound(3.0, 0.5, 100, 0.1) == pytest.approx(9 + 25 + 30)
    with pytest.raises(ValueError, match="approx"):
        pb.feature_ogd_regret_bound(1.0, 1.0, 1.0, approx=-1.0)


def test_omkc_bound_closed_forms():
    Mi = [30, 12, 40]
    beta = 0.8
    exact = (math.log(1 / beta) * 12 + math.log(3)) / math.log(2 / 1.8)
    assert sb.omkc_mistake_bound(Mi, beta) == pytest.approx(exact)
    relaxed = sb.omkc_mistake_bound(Mi, beta, form="relaxed")
    assert relaxed == pytest.approx(2 / 0.2 * (math.log(1.25) * 12 + math.log(3)))
    assert relaxed >= exact
    with pytest.raises(ValueError, match="beta"):
        sb.omkc_mistake_bound(Mi, 1.0)
    with pytest.raises(ValueError, match="kernel_mistakes"):
        sb.omkc_mistake_bound([], 0.5)


def test_omkc_bound_on_an_independent_weighted_majority():
    """The bound against a plain-numpy weighted majority of random experts' signs."""
    rng = np.random.default_rng(1)
    for trial in range(30):
        T, K = 200, 5
        y = rng.choice([-1.0, 1.0], T)
        acc = rng.uniform(0.4, 0.9, K)
        s = np.where(rng.random((T, K)) < acc, y[:, None], -y[:, None])
        s[rng.random((T, K)) < 0.05] = 0.0                       # sgn(0) = 0
        beta = rng.uniform(0.3, 0.95)
        w = np.ones(K)
        M = 0
        for t in range(T):
            q = w / w.sum()
            M += y[t] * (q @ s[t]) <= 0
            w = w * beta ** (y[t] * s[t] <= 0)
        Mi = np.sum(y[:, None] * s <= 0, axis=0)
        assert M <= sb.omkc_mistake_bound(Mi, beta) + 1e-9
