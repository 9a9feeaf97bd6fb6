"""theory.bsgd: the minimum of (3.1) / (5.1) on a Gram matrix, its certified lower bound,
and Theorems 1-3 of Wang, Crammer & Vucetic (JMLR 2012) as printed and with the run's
constants.

The solvers are checked against independent ones (the radius search over
theory.best_hinge_in_ball for the binary problem; scipy's SLSQP on the epigraph QP for the
Crammer-Singer problem), against each other (two classes at lam = binary at lam / 2), and
on their optimality conditions; the bounds against hand-computed values.  Imports numpy,
scipy and theory only.
"""
import math

import numpy as np
import pytest
from scipy import optimize

from theory import best_hinge_in_ball
from theory import bsgd as tb


def _stream(T, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    if classes == 2:
        y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=T) > 0, 1.0, -1.0)
    else:
        y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=T), [-0.5, 0.5])
    return K, y


def _primal(K, y, lam, coef):
    f = K @ coef
    return lam / 2 * coef @ f + np.mean(np.maximum(0.0, 1.0 - y * f))


@pytest.mark.parametrize("lam", [0.1, 0.01, 0.001])
def test_svm_minimum_is_the_minimum(lam):
    K, y = _stream(80)
    r = tb.svm_minimum(K, y, lam)
    assert r.lower_bound <= r.value + 1e-12
    assert r.gap <= 1e-7 * max(1.0, r.value) + 1e-15
    assert r.value == pytest.approx(_primal(K, y, lam, r.coef), rel=1e-12)
    assert r.fitted == pytest.approx(K @ r.coef, abs=1e-10)
    assert r.norm == pytest.approx(math.sqrt(r.coef @ K @ r.coef), rel=1e-9)
    # min P = min_R lam/2 R^2 + L(R)/N over the radius R (the ball solver's minima)
    radius = optimize.minimize_scalar(
        lambda R: lam / 2 * R * R + best_hinge_in_ball(K, y, R).loss / y.size,
        bounds=(0.5 * r.norm, 1.5 * r.norm), method="bounded", options={"xatol": 1e-6})
    assert radius.fun == pytest.approx(r.value, rel=1e-6)
    assert radius.fun >= r.lower_bound - 1e-9
    # any other w is no better than the lower bound
    rng = np.random.default_rng(3)
    for _ in range(5):
        coef = r.coef + 0.01 * rng.normal(size=y.size)
        assert _primal(K, y, lam, coef) >= r.lower_bound - 1e-12


def _cs_primal(K, y, n, lam, A):
    F = K @ A
    rows = np.arange(y.size)
    other = np.where(np.arange(n)[None, :] != y[:, None], F, -np.inf).max(axis=1)
    return lam / 2 * np.sum(A * F) + np.mean(np.maximum(0.0, 1 + other - F[rows, y]))


def _cs_slsqp(K, y, n, lam):
    """The Crammer-Singer problem as an epigraph QP in the Gram matrix's features."""
    w, V = np.linalg.eigh(K)
    keep = w > 1e-10 * w.max()
    Phi = V[:, keep] * np.sqrt(w[keep])
    T, r = Phi.shape

    def unpack(z):
        return z[:r * n].reshape(r, n), z[r * n:]

    def fun(z):
        W, xi = unpack(z)
        return lam / 2 * np.sum(W * W) + xi.mean()

    def cons(z):
        W, xi = unpack(z)
        F = Phi @ W
        out = [xi]
        for m in range(n):
            mask = y != m
            out.append((xi - 1 - F[:, m] + F[np.arange(T), y])[mask])
        return np.concatenate(out)

    z0 = np.r_[np.zeros(r * n), np.ones(T)]
    res = optimize.minimize(fun, z0, constraints=[{"type": "ineq", "fun": cons}],
                            method="SLSQP", options={"maxiter": 500, "ftol": 1e-12})
    assert res.success, res.message
    return res.fun


def test_multiclass_minimum_against_slsqp():
    K, y = _stream(20, seed=1, classes=3)
    for lam in (0.05,):
        r = tb.multiclass_svm_minimum(K, y, 3, lam)
        ref = _cs_slsqp(K, y, 3, lam)
        assert r.value == pytest.approx(ref, rel=1e-5)
        assert r.lower_bound <= ref + 1e-9
        assert r.value == pytest.approx(_cs_primal(K, y, 3, lam, r.coef), rel=1e-12)
        assert np.allclose(r.coef.sum(axis=1), 0.0, atol=1e-12)


def test_two_classes_are_the_binary_problem_at_half_lambda():
    K, y = _stream(120, seed=2)
    yi = (y > 0).astype(int)
    for lam in (0.1, 0.01):
        mc = tb.multiclass_svm_minimum(K, yi, 2, lam)
        bi = tb.svm_minimum(K, y, lam / 2)
        assert mc.value == pytest.approx(bi.value, rel=1e-5)
        assert mc.lower_bound == pytest.approx(bi.lower_bound, rel=1e-5)


def test_warm_start_reaches_the_same_minimum():
    K, y = _stream(80, seed=4, classes=3)
    a = tb.multiclass_svm_minimum(K, y, 3, 0.05)
    b = tb.multiclass_svm_minimum(K, y, 3, 0.01, warm=a.coef * (0.05 * 80))
    c = tb.multiclass_svm_minimum(K, y, 3, 0.01)
    assert b.value == pytest.approx(c.value, rel=1e-6)


def test_multiclass_ball_lower_bound():
    K, y = _stream(40, seed=5, classes=3)
    for U in (1.0, 3.0):
        lb = tb.multiclass_ball_minimum(K, y, 3, U)
        # a feasible W in the ball: the regularised minimiser scaled into it
        r = tb.multiclass_svm_minimum(K, y, 3, 0.01)
        A = r.coef * min(1.0, U / r.norm)
        feasible = _cs_primal(K, y, 3, 0.0, A)
        assert 0.0 <= lb <= feasible + 1e-9
        assert lb >= feasible - 0.25          # not vacuous


def test_printed_bounds_by_hand():
    lam, N, E, eta = 0.01, 1000, 0.05, 0.5
    U = 2 / lam
    assert tb.bsgd_paper_radius(lam) == U
    assert tb.bsgd_paper_radius(5.0) == 1 / 5.0
    assert tb.bsgd_theorem1_bound(lam, N, E) == pytest.approx(
        (lam * U + 2) ** 2 * (math.log(N) + 1) / (2 * lam * N) + 2 * U * E, rel=1e-14)
    assert tb.bsgd_theorem2_bound(lam, eta, N, E) == pytest.approx(
        (2 * U * U / eta + eta * (lam * U + 2) ** 2) * math.sqrt(N) / N + 2 * U * E,
        rel=1e-14)
    assert tb.bsgd_theorem3_bound(3.0, eta, N, E) == pytest.approx(
        2 * 9 / (N * eta) + 2 * eta + 2 * 3 * E, rel=1e-14)
    # Pegasos (Shalev-Shwartz et al. 2011): c (1 + ln N) / (2 lam N), c = 4 R^2
    assert tb.pegasos_regret_bound(lam, N, 0.5) == pytest.approx(
        4 * 0.5 * (1 + math.log(N)) / (2 * lam * N), rel=1e-14)


def test_run_constants_reduce_to_the_printed_forms():
    lam, N, E = 0.01, 500, 0.2
    assert tb.iterate_radius(lam) == 2 / lam
    assert tb.bsgd_theorem1_bound(lam, N, E, U=tb.iterate_radius(lam), G=1.0, eps=1.0) \
        == pytest.approx(tb.bsgd_theorem1_bound(lam, N, E), rel=1e-14)
    assert tb.bsgd_theorem2_bound(lam, 0.3, N, E, U=tb.iterate_radius(lam)) \
        == pytest.approx(tb.bsgd_theorem2_bound(lam, 0.3, N, E), rel=1e-14)
    # smaller constants, smaller bound; no gradient error and G = R: Pegasos' form
    assert tb.bsgd_theorem1_bound(lam, N, E, G=1.0, eps=0.5) < tb.bsgd_theorem1_bound(lam, N, E)
    G = math.sqrt(2.0)
    assert tb.bsgd_theorem1_bound(lam, N, 0.0, U=G / lam, G=G, eps=0.0) == pytest.approx(
        tb.pegasos_regret_bound(lam, N, 2.0), rel=1e-14)
    # the iterate radius covers ||w*|| <= sqrt(2 / lam) for a large lam
    assert tb.iterate_radius(3.0, 1.0, 0.0) == pytest.approx(math.sqrt(2 / 3.0))


def test_average_objective_and_refusals():
    assert tb.average_objective(0.1, [0.0, 4.0], [1.0, 0.5]) == pytest.approx(
        (1.0 + 0.2 + 0.5) / 2)
    with pytest.raises(ValueError):
        tb.average_objective(0.1, [1.0], [1.0, 2.0])
    K, y = _stream(10)
    with pytest.raises(ValueError, match="lam"):
        tb.svm_minimum(K, y, 0.0)
    with pytest.raises(ValueError):
        tb.svm_minimum(K, np.arange(10.0), 0.1)
    with pytest.raises(ValueError, match="class indices"):
        tb.multiclass_svm_minimum(K, np.full(10, 3), 3, 0.1)
    with pytest.raises(ValueError, match="U"):
        tb.bsgd_theorem3_bound(0.0, 0.1, 10, 0.0)
