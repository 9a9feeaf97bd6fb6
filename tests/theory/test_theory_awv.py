"""Bounds of Kernel-AWV and PKAWV (Jezequel, Gaillard & Rudi, NeurIPS 2019), theory/awv.py.

Oracles written here, independent of theory/awv.py's algebra:

* Kernel-AWV / PKAWV forecasts by solving eq. (3) / (4) every round in explicit
  features (eigen-features of K, the Taylor feature map of eq. (6) enumerated over
  multi-indices, or the representer system of Algorithm 2 over a dictionary);
* the kernel ridge comparator by ``numpy.linalg.solve``;
* Lemma 10's determinant ratios by ``numpy.linalg.slogdet``;
* ``mu = ||(I - P) C_n^{1/2}||^2`` as the top eigenvalue of ``K - V V^T`` with the
  explicit features ``V``;
* the Taylor truncation error as ``K - V V^T`` with the explicit feature map.

No learner runs here (see test_awv_bounds_on_runs.py).
"""
import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from theory.awv import (
    THEOREM4_CONSTANT,
    THEOREM4_PROOF_CONSTANT,
    approximation_mu,
    corollary7,
    corollary8,
    kernel_awv_forecasts,
    kernel_awv_regret,
    lemma13_bound,
    lemma13_pointwise_bound,
    nystrom_mu,
    nystrom_projected_kernel,
    online_leverage,
    pkawv_forecasts,
    proposition1_bound,
    proposition2_bound,
    proposition2_refined,
    proposition5_beta,
    proposition5_size_bound,
    taylor_basis_size,
    taylor_mu,
    taylor_projected_kernel,
    theorem3_bound,
    theorem4_bound,
    theorem4_chain,
    theorem4_condition,
    theorem4_cost,
    theorem4_M,
    theorem6_bound,
    theorem9_bound,
    theorem9_terms_fixed,
    theorem9_terms_nested,
)
from theory.spectrum import effective_dimension, log_det_term
from theory_data import gaussian_kernel

FAST = settings(max_examples=40, deadline=None)


# -- oracles -------------------------------------------------------------------------------

def taylor_features(X, sigma, M):
    """g_k(x) = prod_i psi_{k_i}(x_i), psi_t(x) = x^t / (sigma^t sqrt(t!)) e^{-x^2/(2 sigma^2)},
    for every multi-index |k| <= M (eq. (6)), enumerated explicitly."""
    X = np.atleast_2d(X)
    n, d = X.shape
    idx = [k for k in itertools.product(range(M + 1), repeat=d) if sum(k) <= M]
    V = np.empty((n, len(idx)))
    for c, k in enumerate(idx):
        col = np.ones(n)
        for i, ki in enumerate(k):
            col *= (X[:, i] ** ki / (sigma ** ki * math.sqrt(math.factorial(ki)))
                    * np.exp(-X[:, i] ** 2 / (2 * sigma ** 2)))
        V[:, c] = col
    return V


def awv_in_features(Phi, y, lam):
    """Linear AWV (eq. (3) / Algorithm 1) in explicit features, one solve per round."""
    n, r = Phi.shape
    out = np.zeros(n)
    for t in range(n):
        A = Phi[:t + 1].T @ Phi[:t + 1] + lam * np.eye(r)
        out[t] = Phi[t] @ np.linalg.solve(A, Phi[:t].T @ y[:t])
    return out


def eigen_features(K):
    l, U = np.linalg.eigh(K)
    return U * np.sqrt(np.maximum(l, 0.0))


def ridge(K, y, lam):
    a = np.linalg.solve(K + lam * np.eye(len(y)), y)
    f = K @ a
    return np.sum((y - f) ** 2), a @ K @ a


def pkawv_representer(K, y, lam, dicts):
    """Eq. (4) over span{phi(x_j), j in I_t}: f = sum_j a_j k(x_j, .), normal equations
    (K_{I,<=t} K_{<=t,I} + lam K_II) a = K_{I,<t} y_{<t} (Algorithm 2's alpha_t)."""
    n = len(y)
    out = np.zeros(n)
    for t in range(n):
        I = np.asarray(dicts[t], dtype=int)
        if I.size == 0:
            continue
        KtI = K[:t + 1][:, I]
        A = KtI.T @ KtI + lam * K[np.ix_(I, I)]
        a = np.linalg.lstsq(A, KtI[:t].T @ y[:t], rcond=1e-13)[0]
        out[t] = KtI[t] @ a
    return out


def stream(n, d, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-scale, scale, size=(n, d))
    y = np.clip(np.sin(3 * X[:, 0]) + 0.3 * rng.normal(size=n), -1, 1)
    return X, y


# -- Kernel-AWV: eq. (3), Lemma 10, Propositions 1 and 2 -------------------------------------

@pytest.mark.parametrize("lam", [0.1, 1.0, 7.0])
def test_awv_forecasts_match_explicit_features(lam):
    X, y = stream(40, 2, seed=1)
    K = gaussian_kernel(X, 0.8)
    expected = awv_in_features(eigen_features(K), y, lam)
    assert np.allclose(kernel_awv_forecasts(K, y, lam), expected, atol=1e-9)


def test_online_leverage_is_lemma10():
    X, _ = stream(30, 3, seed=2)
    K = gaussian_kernel(X, 1.0)
    lam = 0.5
    lev = online_leverage(K, lam)
    Phi = eigen_features(K)
    for t in range(30):
        A_prev = Phi[:t].T @ Phi[:t] + lam * np.eye(30)
        A = A_prev + np.outer(Phi[t], Phi[t])
        assert lev.u[t] == pytest.approx(Phi[t] @ np.linalg.solve(A_prev, Phi[t]), rel=1e-8)
        assert lev.q[t] == pytest.approx(Phi[t] @ np.linalg.solve(A, Phi[t]), rel=1e-8)
        # Lemma 10: q_t = 1 - det(A_{t-1}/lam) / det(A_t/lam)
        d1 = np.linalg.slogdet(np.eye(t + 1) + K[:t + 1, :t + 1] / lam)[1]
        d0 = np.linalg.slogdet(np.eye(t) + K[:t, :t] / lam)[1] if t else 0.0
        assert lev.q[t] == pytest.approx(1 - np.exp(d0 - d1), rel=1e-8)
    assert lev.log_det == pytest.approx(np.linalg.slogdet(np.eye(30) + K / lam)[1], rel=1e-10)


@pytest.mark.parametrize("seed,lam,sigma", [(0, 1.0, 1.0), (1, 0.05, 0.5), (2, 10.0, 2.0)])
def test_regret_identity_and_proposition1(seed, lam, sigma):
    X, y = stream(60, 2, seed)
    K = gaussian_kernel(X, sigma)
    pred = awv_in_features(eigen_features(K), y, lam)
    loss_star, norm2 = ridge(K, y, lam)
    regret = np.sum((y - pred) ** 2) - loss_star
    res = kernel_awv_regret(K, y, lam)
    assert res.regret == pytest.approx(regret, rel=1e-8, abs=1e-9)
    assert res.comparator.loss == pytest.approx(loss_star, rel=1e-9)
    assert res.norm_term == pytest.approx(lam * norm2, rel=1e-9)
    # the identity R_n(f*) = lam ||f*||^2 + sum y^2 q - sum yhat^2 u, exactly
    assert res.identity == pytest.approx(regret, rel=1e-8, abs=1e-9)
    assert res.correction >= 0
    # given predictions are used as given
    moved = kernel_awv_regret(K, y, lam, predictions=pred + 0.1)
    assert moved.regret == pytest.approx(np.sum((y - pred - 0.1) ** 2) - loss_star, rel=1e-9)
    assert moved.identity == pytest.approx(res.identity)
    B = np.max(np.abs(y))
    bound = proposition1_bound(lam, norm2, B, K)
    assert res.estimation <= B ** 2 * res.log_det + 1e-12
    assert regret <= lam * norm2 + res.estimation <= bound + 1e-12
    assert bound == pytest.approx(lam * norm2 + B ** 2 * log_det_term(K, lam))


@pytest.mark.parametrize("lam", [2.0, 10.0, 50.0])
def test_proposition1_nearly_attained_on_orthogonal_stream(lam):
    # K = I (points far apart), |y_t| = B: yhat_t = 0, f*(x_t) = y_t/(1 + lam).
    n, B = 25, 1.5
    y = B * np.where(np.arange(n) % 3, 1.0, -1.0)
    K = np.eye(n)
    res = kernel_awv_regret(K, y, lam)
    assert np.allclose(res.predictions, 0.0)
    assert res.regret == pytest.approx(n * B ** 2 * (1 + 2 * lam) / (1 + lam) ** 2)
    bound = proposition1_bound(lam, res.comparator.norm2, B, K)
    assert bound == pytest.approx(n * B ** 2 * (lam / (1 + lam) ** 2 + np.log1p(1 / lam)))
    assert res.regret > 0.85 * bound  # ratio 0.885 (lam = 2) to 0.99: halving would fail


def test_proposition2_closed_forms_and_order():
    c, n, lam, kappa2 = 3.0, 7, 1.5, 3.0
    K = c * np.eye(n)
    deff = n * c / (c + lam)
    assert proposition2_bound(K, lam, kappa2) == pytest.approx(
        math.log(math.e + math.e * n * kappa2 / lam) * deff)
    assert proposition2_refined(K, lam) == pytest.approx((1 + math.log1p(c / lam)) * deff)
    with pytest.raises(ValueError, match="kappa2"):
        proposition2_bound(K, lam, 2.0)


@FAST
@given(st.integers(2, 40), st.floats(1e-3, 1e3), st.floats(0.2, 5.0), st.integers(0, 10 ** 6))
def test_proposition2_chain(n, lam, sigma, seed):
    X, _ = stream(n, 2, seed)
    K = gaussian_kernel(X, sigma)
    logdet = log_det_term(K, lam)
    refined = proposition2_refined(K, lam)
    bound = proposition2_bound(K, lam, 1.0)
    assert logdet <= refined * (1 + 1e-10) + 1e-12
    assert refined <= bound * (1 + 1e-10) + 1e-12


# -- Taylor features: Lemmas 11-13, mu, Theorem 3 and 4 -------------------------------------

@pytest.mark.parametrize("d,M,sigma", [(1, 0, 1.0), (1, 5, 0.7), (2, 3, 1.0), (3, 2, 1.3)])
def test_taylor_projected_kernel_matches_feature_map(d, M, sigma):
    X, _ = stream(25, d, seed=d + M)
    Z, _ = stream(9, d, seed=99)
    V, W = taylor_features(X, sigma, M), taylor_features(Z, sigma, M)
    assert V.shape[1] == taylor_basis_size(M, d) == math.comb(M + d, d)
    assert np.allclose(taylor_projected_kernel(X, Z, sigma=sigma, M=M), V @ W.T, atol=1e-13)


@pytest.mark.parametrize("d,M,sigma,scale", [(1, 1, 1.0, 1.0), (2, 2, 1.0, 1.0),
                                             (2, 4, 0.8, 1.0), (3, 3, 1.0, 0.7)])
def test_lemma13_against_actual_taylor_error(d, M, sigma, scale):
    X, _ = stream(60, d, seed=M, scale=scale)
    err = np.abs(gaussian_kernel(X, sigma) - taylor_features(X, sigma, M) @ taylor_features(
        X, sigma, M).T)
    pointwise = lemma13_pointwise_bound(X, sigma=sigma, M=M)
    R = np.max(np.linalg.norm(X, axis=1))
    assert np.all(err <= pointwise * (1 + 1e-9) + 1e-15)
    assert np.max(pointwise) <= lemma13_bound(R, sigma, M) * (1 + 1e-12)
    assert lemma13_bound(R, sigma, M) == pytest.approx(
        (R / sigma) ** (2 * M + 2) / math.factorial(M + 1), rel=1e-12)
    # teeth: on the diagonal, err = e^{-s} sum_{j > M} s^j/j! with s = ||x||^2/sigma^2, which
    # is within a factor 2 of the bound (R = ||x||) for the points where e^{-s} > 1/2
    diag = np.diag(err) / np.array([lemma13_bound(np.linalg.norm(x), sigma, M) for x in X])
    usable = np.diag(pointwise) > 1e-9
    assert np.max(diag[usable]) > 0.5


@pytest.mark.parametrize("d,M", [(1, 2), (2, 1), (2, 3), (3, 2)])
def test_taylor_mu_and_trace_bound(d, M):
    X, _ = stream(50, d, seed=7 + M)
    sigma = 0.9
    K = gaussian_kernel(X, sigma)
    V = taylor_features(X, sigma, M)
    expected = np.linalg.eigvalsh(K - V @ V.T)[-1]
    mu = taylor_mu(X, sigma=sigma, M=M)
    assert mu == pytest.approx(expected, rel=1e-8, abs=1e-14)
    assert approximation_mu(K, V @ V.T) == pytest.approx(expected, rel=1e-8, abs=1e-14)
    # proof of Theorem 4: mu <= sum_t k(x_t,x_t) - ||P phi(x_t)||^2 <= n (R/sigma)^{2M+2}/(M+1)!
    trace = np.sum(1.0 - np.sum(V ** 2, axis=1))
    R = np.max(np.linalg.norm(X, axis=1))
    assert mu <= trace + 1e-12
    assert trace <= len(X) * lemma13_bound(R, sigma, M)
    # more features, smaller mu (nested spans)
    assert taylor_mu(X, sigma=sigma, M=M + 1) <= mu + 1e-12


def test_theorem4_M_is_the_smallest_admissible_degree():
    cases = [(1000, 1.0, 1.0, 1.0), (10 ** 6, 0.01, 0.5, 1.0), (50, 5.0, 1.0, 1.0),
             (80, 1.0, 2.5, 1.0), (3, 2.0, 0.1, 4.0), (10 ** 5, 1.0, 1.0, 2.0)]
    for n, lam, R, sigma in cases:
        M = theorem4_M(n, lam, R, sigma)
        # the condition of Theorem 4, written out: M >= 8 R^2/sigma^2 and M >= 2 log(n/(lam ^ 1))
        ok = lambda m: m >= 8 * R ** 2 / sigma ** 2 and m >= 2 * math.log(n / min(lam, 1.0))
        assert ok(M) and theorem4_condition(M, n, lam, R, sigma)
        assert not ok(M - 1) and not theorem4_condition(M - 1, n, lam, R, sigma)
    assert theorem4_M(1000, 1.0, 1.0, 1.0) == 14          # 2 log 1000 = 13.8
    assert theorem4_M(80, 1.0, 2.5, 1.0) == 50            # 8 R^2 = 50 exactly
    assert theorem4_M(3, 2.0, 0.1, 4.0) == 3              # 2 log 3 = 2.2, 8 R^2/sigma^2 = 0.005
    assert theorem4_M(1, 2.0, 0.0, 1.0) == 0              # printed: 0; PKAWV uses max(1, M)


TINY = 1e-300


@FAST
@example(n=6, lam=1.0, R=2.765625, sigma=0.3, B=1.0)
@given(st.integers(1, 10 ** 7), st.floats(1e-4, 1e4), st.floats(0.05, 3.0),
       st.floats(0.3, 3.0), st.floats(0.1, 10.0))
def test_theorem4_proof_chain(n, lam, R, sigma, B):
    c = theorem4_chain(n, lam, R, sigma, B)
    steps = [c.mu_lemma13, c.mu_stirling, c.mu_exp, c.mu_ninth, c.lam_ninth]
    # TINY: below it the bounds are subnormal floats (e.g. n = 6, R/sigma = 9.2: M = 680 and
    # mu_lemma13 = 1.69e-321 > mu_stirling = 1.685e-321 after rounding to 3 digits)
    assert all(a <= b * (1 + 1e-12) + TINY for a, b in zip(steps, steps[1:]))
    # approximation term of Theorem 3 at the largest mu the chain allows
    mu = c.mu_lemma13
    steps = [B ** 2 * (mu + lam) * mu * n / lam ** 2, c.approx_term, c.approx_min,
             c.approx_log, c.approx_logdet_floor]
    assert all(a <= b * (1 + 1e-12) + TINY for a, b in zip(steps, steps[1:]))


def test_theorem3_and_theorem4_on_a_stream():
    X, y = stream(120, 2, seed=3, scale=0.5)
    sigma, lam = 1.0, 1.0
    R = np.max(np.linalg.norm(X, axis=1))
    n = len(y)
    K = gaussian_kernel(X, sigma)
    loss_star, norm2 = ridge(K, y, lam)
    logdet = log_det_term(K, lam)
    B = np.max(np.abs(y))
    M = theorem4_M(n, lam, R, sigma)
    for m in (1, 2, M):
        V = taylor_features(X, sigma, m)
        Kt = V @ V.T
        pred = awv_in_features(V, y, lam)
        assert np.allclose(pkawv_forecasts(K, y, lam, K_tilde=Kt), pred, atol=1e-10)
        regret = np.sum((y - pred) ** 2) - loss_star
        terms = theorem9_terms_fixed(K, Kt, y, lam)
        mu = taylor_mu(X, sigma=sigma, M=m)
        assert terms.mu[-1] == pytest.approx(mu) and np.all(terms.mu[:-1] == 0)
        assert terms.log_det_projected <= logdet + 1e-10
        assert np.sum(terms.q) <= terms.log_det_projected + 1e-10
        t9 = theorem9_bound(terms, lam, norm2, B)
        t3 = theorem3_bound(lam, norm2, B, logdet, mu, n)
        assert regret <= t9 <= t3 * (1 + 1e-12)
        assert t3 == pytest.approx(lam * norm2 + B ** 2 * logdet
                                   + (mu + lam) * n * mu * B ** 2 / lam ** 2)
    # at Theorem 4's M the approximation term is below (4/9) B^2 log(1 + 1/lam)
    c = theorem4_chain(n, lam, R, sigma, B)
    assert mu <= c.mu_lemma13
    assert t3 <= theorem4_bound(lam, norm2, B, logdet, constant=THEOREM4_PROOF_CONSTANT)
    assert theorem4_bound(lam, norm2, B, logdet) == pytest.approx(
        lam * norm2 + THEOREM4_CONSTANT * B ** 2 * logdet)


def test_theorem4_cost_and_basis_size():
    assert theorem4_cost(1000, 1.0, 2) == pytest.approx((3 + math.log(1000) / 2) ** 4)
    assert theorem4_cost(1000, 0.5, 1) == pytest.approx((3 + math.log(2000)) ** 2)
    assert taylor_basis_size(2, 18) == 190  # the paper's r = 190 features on SUSY with M = 2
    for M, d in [(3, 2), (4, 5), (7, 1)]:
        assert taylor_basis_size(M, d) <= math.e ** d * (1 + M / d) ** d


# -- Nystrom projections: Theorem 9, Theorem 6 ------------------------------------------------

def nested_dictionaries(n, p, seed, delay=0):
    """Each point joins with probability p; round t's dictionary: joined points <= t - delay."""
    rng = np.random.default_rng(seed)
    joined = np.flatnonzero(rng.random(n) < p)
    return [joined[joined <= t - delay] for t in range(n)]


@pytest.mark.parametrize("p,delay,lam", [(0.3, 0, 1.0), (0.15, 1, 0.3), (1.0, 0, 2.0)])
def test_pkawv_nystrom_forecasts_and_theorem9(p, delay, lam):
    X, y = stream(70, 2, seed=11)
    K = gaussian_kernel(X, 0.7)
    dicts = nested_dictionaries(70, p, seed=5, delay=delay)
    pred = pkawv_representer(K, y, lam, dicts)
    assert np.allclose(pkawv_forecasts(K, y, lam, dicts), pred, atol=1e-8)
    loss_star, norm2 = ridge(K, y, lam)
    regret = np.sum((y - pred) ** 2) - loss_star
    terms = theorem9_terms_nested(K, y, lam, dicts)
    B = np.max(np.abs(y))
    bound = theorem9_bound(terms, lam, norm2, B)
    assert regret <= bound
    # the telescoping used by Theorem 6 (nested dictionaries)
    assert np.sum(terms.q) <= terms.log_det_projected + 1e-10 <= log_det_term(K, lam) + 1e-9
    # mu_t directly: ||(P_{t+1} - P_t) C_t^{1/2}||^2 with explicit projected kernels
    for t in range(69):
        Kt = nystrom_projected_kernel(K[:t + 1, :t + 1], dicts[t])
        K1 = nystrom_projected_kernel(K[:t + 2, :t + 2], dicts[t + 1])[:t + 1, :t + 1]
        assert terms.mu[t] == pytest.approx(max(np.linalg.eigvalsh(K1 - Kt)[-1], 0), abs=1e-9)
    assert terms.mu[-1] == pytest.approx(nystrom_mu(K, dicts[-1]), abs=1e-12)
    residuals = [nystrom_mu(K[:t + 1, :t + 1], dicts[t]) for t in range(70)]
    assert terms.mu_residual_max == pytest.approx(max(residuals), abs=1e-10)
    # Theorem 6 with mu = max_t ||(I - P_t) C_t^{1/2}||^2 dominates Theorem 9's bound
    mu = terms.mu_residual_max
    if mu <= lam:
        t6 = theorem6_bound(lam, norm2, B, effective_dimension(K, lam), 70, 1.0,
                            len(dicts[-1]), mu)
        assert bound <= t6
    if p == 1.0:  # every point in the dictionary at its own round: Kernel-AWV
        assert np.allclose(pred, kernel_awv_forecasts(K, y, lam), atol=1e-8)
        assert np.all(terms.mu < 1e-9)  # zero up to round-off


def test_nystrom_mu_closed_form():
    # two orthogonal unit features and a third along their diagonal
    Phi = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]) / np.array([[1.0], [1.0], [math.sqrt(2)]])
    K = Phi @ Phi.T
    # P onto phi(x_1): residuals (I-P)phi = (0,0), (0,1), (0, 1/sqrt 2): mu = 1 + 1/2
    assert nystrom_mu(K, [0]) == pytest.approx(1.5)
    assert nystrom_mu(K, [0, 1]) == pytest.approx(0.0, abs=1e-12)
    assert nystrom_mu(K, []) == pytest.approx(np.linalg.eigvalsh(K)[-1])


def test_theorem6_closed_form_and_condition():
    val = theorem6_bound(2.0, 3.0, 1.5, 4.0, 100, 1.0, 9, 0.1)
    assert val == pytest.approx(6.0 + 2.25 * 4.0 * math.log(math.e + math.e * 50)
                                + 2 * 2.25 * 10 * 100 * 0.1 / 2.0)
    with pytest.raises(ValueError, match="mu <= lam"):
        theorem6_bound(0.5, 1.0, 1.0, 1.0, 10, 1.0, 3, 0.6)


def test_proposition5():
    assert proposition5_beta(1000, 0.1) == pytest.approx(12 * math.log(10000))
    assert proposition5_size_bound(3.0, 1000, 0.1) == pytest.approx(27 * math.log(20000) ** 2)


@FAST
@given(st.integers(10, 10 ** 8), st.floats(1.0, 1e6), st.floats(0.05, 0.95))
def test_corollaries_balance_their_terms(n, m, gamma):
    for cor, exponent in ((corollary7, 2 * gamma / (1 - gamma ** 2)),
                          (corollary8, 2 * gamma / (1 + gamma))):
        c = cor(n, m, gamma)
        assert c.threshold == pytest.approx(n ** exponent)
        assert c.regime == ("optimal" if m >= c.threshold else "dictionary-limited")
        assert c.mu == pytest.approx(n * m ** (-1 / gamma))
        assert c.mu <= c.lam * (1 + 1e-9)        # Theorem 6's condition lam >= mu
        # each term of the proof's bound is at most the rate ...
        assert all(t <= c.rate * (1 + 1e-9) for t in c.terms)
        # ... and no lambda does better than the rate (one of lam, (n/lam)^gamma exceeds it)
        for lam in c.lam * np.logspace(-3, 3, 13):
            approx = c.terms[2] * c.lam / lam
            assert lam + (n / lam) ** gamma + approx >= c.rate * (1 - 1e-9)


def test_corollary_rates_closed_forms():
    n, g = 10 ** 6, 0.25
    c = corollary7(n, 10 ** 3, g)  # threshold n^{0.5/0.9375} ~ 1585 > m
    assert c.regime == "dictionary-limited"
    assert c.rate == pytest.approx(n * 1000 ** (0.5 - 2.0))
    c = corollary7(n, 10 ** 4, g)
    assert c.regime == "optimal" and c.rate == pytest.approx(n ** 0.2)
    c = corollary8(n, 10 ** 2, g)  # threshold n^{0.4} ~ 251
    assert c.regime == "dictionary-limited" and c.lam == pytest.approx(n * 100 ** -2.0)


# -- argument checks -------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda: proposition1_bound(0.0, 1.0, 1.0, np.eye(2)), "lam"),
    (lambda: proposition1_bound(1.0, -1.0, 1.0, np.eye(2)), "f_norm2"),
    (lambda: theorem3_bound(1.0, 1.0, 1.0, 1.0, -0.1, 10), "mu"),
    (lambda: theorem4_M(0, 1.0, 1.0, 1.0), "n"),
    (lambda: theorem4_M(10, 1.0, -0.5, 1.0), "R"),
    (lambda: lemma13_bound(1.0, 1.0, -1), "M"),
    (lambda: taylor_projected_kernel(np.array([[np.nan, 0.0]]), sigma=1.0, M=2), "NaN"),
    (lambda: taylor_projected_kernel(np.ones((2, 2)), np.ones((2, 3)), sigma=1.0, M=2), "Z"),
    (lambda: kernel_awv_regret(np.eye(3), [1.0, 2.0], 1.0), "y"),
    (lambda: kernel_awv_regret(np.eye(3), [1.0, 2.0, 3.0], 1.0, predictions=[0, 0]),
     "predictions"),
    (lambda: theorem9_terms_nested(np.eye(3), [1, 1, 1], 1.0, [[0], [1], [1, 2]]), "nested"),
    (lambda: theorem9_terms_nested(np.eye(3), [1, 1, 1], 1.0, [[1], [1], [1]]), "later"),
    (lambda: theorem9_terms_nested(np.eye(3), [1, 1, 1], 1.0, [[0], [0]]), "one entry"),
    (lambda: nystrom_mu(np.eye(3), [0, 5]), "indices"),
    (lambda: approximation_mu(np.eye(2), 2 * np.eye(2)), "not positive semidefinite"),
    (lambda: proposition5_beta(10, 1.5), "delta"),
    (lambda: corollary7(10, 5, 1.0), "gamma"),
    (lambda: corollary8(10, 0.5, 0.5), "m"),
    (lambda: pkawv_forecasts(np.eye(2), [1, 1], 1.0), "exactly one"),
])
def test_bad_arguments_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()
