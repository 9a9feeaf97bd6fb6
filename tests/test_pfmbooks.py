"""PFMBooks against a plain-numpy oracle written from Sec. 3.3 of Li & Liao, *Online kernel
selection with computational constraints* (eqs. (7)-(8), Theorems 4-6, Remark 2).

The oracle keeps explicit index lists and coefficient matrices, explicit Gram matrices from
scikit-learn, exact norms ``sqrt(a^T K a)`` for the projections, and its own MSMW step
(the multiplier found by scipy's ``brentq``); it is driven by the same uniforms as the
learner (``np.random.default_rng(seed).random()`` reproduces ``Learner.uniform()``):
``I_1`` first, then per round the uniform of ``rho_t`` and the uniform of ``I_{t+1}``.
"""
import math
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.special import logsumexp

import okl
from okl.learners.budget_kinds import MemoryBudget, TimeBudget
from okl.learners.pfmbooks import PFMBooks, nested_radii, paper_kernels, sampling_probabilities
from conftest import ref_gram, sparse_stream, xor_stream

KS3 = [okl.Gaussian(0.5), okl.Gaussian(1.0), okl.Gaussian(3.0)]


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)


def oracle_prior(c):
    """Remark 2 (ii)'s initial distribution as reconstructed for okl.MSMW:
    pi_k = c_min / (K' c_k), the remaining mass to the actions of the smallest scale."""
    c = np.asarray(c, float)
    pi = c.min() / (len(c) * c)
    low = c == c.min()
    pi[low] += (1.0 - pi.sum()) / low.sum()
    return pi / pi.sum()


def oracle_msmw_step(p, losses, c, eta):
    """argmin_q <q, l> + D_psi(q, p), psi(q) = sum_k (c_k/eta) q_k ln q_k:
    q_k = p_k exp(eta (lam - l_k) / c_k) with sum_k q_k = 1, lam by bracketing root search."""
    if eta == 0.0:
        return p
    logp = np.log(p)

    def G(lam):
        return logsumexp(logp + eta * (lam - losses) / c)

    lo, hi = losses.min(), losses.max()
    lam = hi if G(hi) <= 0 else (lo if G(lo) >= 0 else brentq(G, lo, hi, xtol=1e-300,
                                                                   rtol=1e-15, maxiter=500))
    q = np.exp(logp + eta * (lam - losses) / c)
    return q / q.sum()


def oracle_sample(p, u):
    return int(np.searchsorted(np.cumsum(p), u, side="right").clip(max=len(p) - 1))


def pfm_oracle(kernels, X, y, *, loss, B, T, U=None, U_min=None, upsilon=1 / 3, C=None,
               eta=None, g="assumption5", Y=1.0, prediction="sample", seed=0):
    Xd = dense(X)
    rng = np.random.default_rng(seed)
    K = len(kernels)
    U = math.sqrt(B) if U is None else U
    U_min = U / math.sqrt(T) if U_min is None else U_min
    lo, hi = math.ceil(math.log(U_min)), math.ceil(math.log(U))
    M = hi - lo + 1
    radii = np.array([math.exp(j + lo - 1) for j in range(1, M + 1)])       # U_j of (7)
    Kp = K * M
    kern = [i for i in range(K) for _ in range(M)]                          # h*(k)_1
    rad = np.array([radii[j] for _ in range(K) for j in range(M)])          # U_{h*(k)_2}
    lam = rad * math.sqrt((1 + upsilon) * B) / (math.sqrt(2 * (1 - upsilon) * 1.0) * 1.0 * T)
    if g == "experiments":
        scales = rad + 0.1
    elif loss == "hinge":
        scales = 1.0 + Y * rad
    else:
        scales = rad + Y
    eta = math.sqrt(2 * math.log(Kp * T) / T) if eta is None else eta
    C = float(B) if C is None else C
    grams = [ref_gram(k, Xd, Xd) for k in kernels]

    def ell(f, yy):
        return max(0.0, 1 - yy * f) if loss == "hinge" else abs(f - yy)

    def dell(f, yy):
        if loss == "hinge":
            return -yy if 1 - yy * f > 0 else 0.0
        return float(np.sign(f - yy))

    S, A = [], np.zeros((0, Kp))
    p = oracle_prior(scales)
    I = oracle_sample(p, rng.random())
    out = {k: [] for k in ("scores", "losses", "sizes", "actions", "rho", "P", "expected",
                           "p", "A", "norms", "S")}
    guard = 0
    for s in range(len(y)):
        t = s + 1
        fx = np.array([grams[kern[k]][s, S] @ A[:, k] if S else 0.0 for k in range(Kp)])
        pred = fx[I] if prediction == "sample" else float(p @ fx)
        crit = np.array([ell(f, y[s]) for f in fx])
        out["scores"].append(pred)
        out["losses"].append(ell(pred, y[s]))
        out["actions"].append(I)
        out["expected"].append(float(p @ crit))
        p = oracle_msmw_step(p, crit, scales, eta)
        P = min(1.0, C / (2 * (1 - upsilon) * T ** (1 - upsilon) * t ** upsilon))
        rho = rng.random() < P
        out["rho"].append(rho)
        out["P"].append(P)
        if rho:
            if len(S) == B:
                guard += 1
            else:
                S.append(s)
                A = np.vstack([A, [-lam[k] * dell(fx[k], y[s]) / P for k in range(Kp)]])
                for k in range(Kp):                                   # projection onto U_j
                    G = grams[kern[k]][np.ix_(S, S)]
                    nrm = math.sqrt(max(A[:, k] @ G @ A[:, k], 0.0))
                    if nrm > rad[k]:
                        A[:, k] *= rad[k] / nrm
        norms = [math.sqrt(max(A[:, k] @ grams[kern[k]][np.ix_(S, S)] @ A[:, k], 0.0))
                 if S else 0.0 for k in range(Kp)]
        out["norms"].append(norms)
        out["sizes"].append(len(S))
        out["p"].append(p.copy())
        out["A"].append(A.copy())
        out["S"].append(list(S))
        I = oracle_sample(p, rng.random())
    out = {k: (np.array(v) if k not in ("A", "S") else v) for k, v in out.items()}
    out.update(guard=guard, M=M, radii=radii, rad=rad, lam=lam, scales=scales, eta=eta, C=C,
               Kp=Kp)
    return out


def regression_labels(X):
    Xd = dense(X)
    return np.clip(Xd[:, 0] - 0.3 * Xd[:, 1], -2.5, 2.5)


def stream_for(loss, sparse, T, seed=3):
    X, y = sparse_stream(T, 6, density=0.5, seed=seed) if sparse else xor_stream(T, 3, seed=seed)
    return X, (y if loss == "hinge" else regression_labels(X))


# ---------------------------------------------------------------------------------------
# Round for round against the oracle
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", ["hinge", "absolute"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("prediction", ["sample", "mean"])
def test_run_matches_oracle(loss, sparse, prediction):
    T, B = 160, 24
    X, y = stream_for(loss, sparse, T)
    # upsilon = 0.6, C = 10: sum_t P_t ~ C / (2 (1 - upsilon)^2) = 31 > B, so the hard guard
    # is exercised; ||f_k|| / U_j grows like sqrt(B / C) (lambda_ij is proportional to U_j),
    # so C < B makes the projections active
    kw = dict(loss=loss, B=B, C=10.0, upsilon=0.6, U_min=0.1, T=T, Y=3.0,
              prediction=prediction, seed=7)
    ref = pfm_oracle(KS3, X, y, **kw)
    learner = PFMBooks(KS3, **kw)
    tr = learner.run(X, y)
    ex = tr.extras
    # the sampled actions, the rho_t draws and P_t first: any divergence shows here
    np.testing.assert_array_equal(ex["actions"], ref["actions"])
    np.testing.assert_array_equal(ex["sampled"], ref["rho"])
    np.testing.assert_allclose(ex["sampling_probabilities"], ref["P"], rtol=1e-15)
    np.testing.assert_array_equal(tr.budget, ref["sizes"])
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(tr.losses, ref["losses"], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(ex["expected_criteria"], ref["expected"], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(learner.probabilities_, ref["p"][-1], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(learner.coefficients_, ref["A"][-1], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(learner.norms_, ref["norms"][-1], rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(learner.support_set.stamps - 1, ref["S"][-1])
    np.testing.assert_array_equal(learner.support_set.vectors, dense(X)[ref["S"][-1]])
    assert ex["M"] == ref["M"] and ex["K_prime"] == ref["Kp"]
    np.testing.assert_allclose(ex["radii"], ref["radii"], rtol=1e-15)
    np.testing.assert_allclose(ex["lambdas"], ref["lam"], rtol=1e-14)
    np.testing.assert_allclose(ex["scales"], ref["scales"], rtol=1e-15)
    assert ex["eta"] == pytest.approx(ref["eta"], rel=1e-15)
    assert ex["guard_triggers"] == ref["guard"]
    assert ex["n_sampled"] == int(ref["rho"].sum())
    assert ex["n_added"] == ref["sizes"][-1] == ex["n_sampled"] - ex["guard_triggers"]
    # the setting has teeth: projections and the hard guard both happened, MSMW moved
    assert np.isclose(ref["norms"], ref["rad"], rtol=1e-9).any(axis=0).sum() >= 2
    assert ref["guard"] > 0
    assert np.abs(ref["p"][-1] - ref["p"][0]).max() > 1e-3


@pytest.mark.parametrize("loss", ["hinge", "absolute"])
def test_state_matches_oracle_every_round(loss):
    """learn_one round by round: p_t (MSMW), |S_t|, the K M coefficient vectors and their
    norms, which never exceed U_j after a projection (exact norms from the Gram matrix)."""
    T, B = 90, 30
    X, y = stream_for(loss, False, T, seed=11)
    kw = dict(loss=loss, B=B, C=12.0, upsilon=0.6, T=T, Y=3.0, U=3.0, U_min=0.4, seed=3)
    ref = pfm_oracle(KS3, X, y, **kw)
    learner = PFMBooks(KS3, **kw)
    rad = ref["rad"]
    hit = np.zeros(len(rad), bool)
    for s in range(T):
        assert learner.decision_function(X[s:s + 1])[0] == pytest.approx(ref["scores"][s],
                                                                          rel=1e-9, abs=1e-10)
        learner.learn_one(X[s], y[s])
        np.testing.assert_allclose(learner.probabilities_, ref["p"][s], rtol=1e-9, atol=1e-14)
        assert learner.support_set.size == ref["sizes"][s]
        A = learner.coefficients_
        np.testing.assert_allclose(A, ref["A"][s], rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(learner.norms_, ref["norms"][s], rtol=1e-8, atol=1e-10)
        # exact norms of the learner's own coefficients
        Sx = learner.support_set.vectors
        for k in range(len(rad)):
            i = k // ref["M"]
            exact = math.sqrt(max(A[:, k] @ ref_gram(KS3[i], Sx, Sx) @ A[:, k], 0.0)) \
                if len(Sx) else 0.0
            assert exact <= rad[k] * (1 + 1e-9)
            hit[k] |= exact >= rad[k] * (1 - 1e-9)
    # teeth: every kernel had a hypothesis projected back onto its ball
    assert hit.reshape(len(KS3), ref["M"]).any(axis=1).all(), hit


def test_one_distance_row_serves_every_kernel():
    """The K kernel rows of the last scored example equal scikit-learn's Gaussian kernels."""
    X, y = xor_stream(120, 4, seed=5)
    learner = PFMBooks(KS3, B=40, T=120, seed=1)
    learner.run(X[:100], y[:100])
    Sx = learner.support_set.vectors
    for x in (X[100], Sx[3]):                   # a new point and an exact duplicate of s_3
        learner.decision_function(x[None, :])
        rows = learner._pfm_kernel_rows()
        for i, k in enumerate(KS3):
            np.testing.assert_allclose(rows[i], ref_gram(k, x[None, :], Sx)[0], rtol=1e-12,
                                       atol=1e-15)
    assert rows[0][3] == 1.0


def test_dense_and_csr_streams_agree():
    X, y = sparse_stream(150, 8, density=0.4, seed=2)
    a = PFMBooks(KS3, B=30, T=150, seed=4).run(X, y)
    b = PFMBooks(KS3, B=30, T=150, seed=4).run(X.toarray(), y)
    np.testing.assert_array_equal(a.extras["actions"], b.extras["actions"])
    np.testing.assert_array_equal(a.budget, b.budget)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------------------
# Settings of Theorems 4-6
# ---------------------------------------------------------------------------------------

def test_nested_radii_follow_eq7():
    # U = sqrt(400) = 20, T = 10^4: U_min = 0.2, ceil(ln 0.2) = -1, ceil(ln 20) = 3
    M, radii = nested_radii(20.0, 0.2)
    assert M == 5
    np.testing.assert_allclose(radii, np.exp([-1.0, 0.0, 1.0, 2.0, 3.0]))
    # (0, U] is covered: U_1 >= U_min, U_M >= U > U_{M-1}, consecutive ratio e
    for U, Umin in [(20.0, 0.2), (7.0, 7.0), (math.sqrt(37), math.sqrt(37) / 30), (0.3, 0.01)]:
        M, r = nested_radii(U, Umin)
        assert M == len(r) >= 1 and r[0] >= Umin and r[-1] >= U
        assert M == 1 or r[-2] < U
        np.testing.assert_allclose(r[1:] / r[:-1], math.e)
        assert M <= math.ceil(math.log(U / Umin)) + 1
    # the brief's M = ceil(1 + ln sqrt(T)) bound for U_min = U / sqrt(T)
    for T in (100, 1000, 10_000, 54_321):
        for B in (50, 400, 1000):
            U = math.sqrt(B)
            assert nested_radii(U, U / math.sqrt(T))[0] <= math.ceil(1 + math.log(math.sqrt(T)))
    with pytest.raises(ValueError, match="U_min must be <= U"):
        nested_radii(1.0, 2.0)


def test_theorem6_settings_and_experiment_scales():
    learner = PFMBooks(B=400, T=10_000, loss="absolute", Y=2.0, g="experiments")
    st = learner._settings(10_000, 10)
    assert learner.kernels_ == tuple(paper_kernels()) and st["K"] == 9
    assert st["U"] == 20.0 and st["U_min"] == pytest.approx(0.2) and st["M"] == 5
    assert st["K_prime"] == 45
    np.testing.assert_allclose(st["scales"], np.tile(np.exp(np.arange(-1.0, 4.0)), 9) + 0.1)
    lam = np.tile(np.exp(np.arange(-1.0, 4.0)), 9) * math.sqrt(4 / 3 * 400) / (
        math.sqrt(4 / 3) * 10_000)
    np.testing.assert_allclose(st["lambdas"], lam, rtol=1e-14)
    assert st["eta"] == pytest.approx(math.sqrt(2 * math.log(45 * 10_000) / 10_000))
    hinge = PFMBooks(B=400, T=10_000, Y=1.0)._settings(10_000, 10)
    np.testing.assert_allclose(hinge["scales"], 1.0 + np.tile(np.exp(np.arange(-1.0, 4.0)), 9))


def test_sampling_probabilities_and_theorem4_typo():
    """P_t = min{1, C/z_t} as printed; with it sum_t P_t = C/2 only for upsilon = 0 and
    ~ C / (2 (1 - upsilon)^2) otherwise (the reconstruction documented in PFMBooks)."""
    T, C = 20_000, 400.0
    assert sampling_probabilities(T, C, 0.0).sum() == pytest.approx(C / 2, rel=1e-12)
    for ups in (1 / 3, 0.5):
        s = sampling_probabilities(T, C, ups).sum()
        assert s == pytest.approx(C / (2 * (1 - ups) ** 2), rel=0.03)
        assert s > 1.1 * C / 2          # not the B/2 of Theorem 4's statement
    # the learner draws rho_t with exactly these probabilities (oblivious: data-free)
    X, y = xor_stream(300, 3, seed=1)
    tr = PFMBooks(KS3[:1], B=5000, U=5.0, T=300, seed=2).run(X, y)
    np.testing.assert_allclose(tr.extras["sampling_probabilities"],
                               sampling_probabilities(300, 5000.0, 1 / 3), rtol=1e-15)


def test_sampling_frequency_over_seeds():
    """rho_t ~ Ber(P_t): over 40 seeds the number of additions has mean sum_t P_t (no guard
    at this capacity); the tolerance is 4 standard errors of the mean."""
    X, y = xor_stream(200, 2, seed=0)
    C, T = 40.0, 200
    P = sampling_probabilities(T, C, 1 / 3)
    counts = []
    for seed in range(40):
        tr = PFMBooks(KS3[:1], B=200, U=2.0, C=C, T=T, seed=seed).run(X, y)
        assert tr.extras["guard_triggers"] == 0
        counts.append(tr.extras["n_sampled"])
    se = math.sqrt((P * (1 - P)).sum() / 40)
    assert abs(np.mean(counts) - P.sum()) < 4 * se
    assert abs(np.mean(counts) - C / 2) > 4 * se    # Theorem 4's B/2 is not the mean


# ---------------------------------------------------------------------------------------
# Budgets
# ---------------------------------------------------------------------------------------

def test_example_budget_is_never_exceeded():
    X, y = xor_stream(600, 3, seed=8)
    learner = PFMBooks(KS3, B=50, T=600, seed=0)
    tr = learner.run(X, y)
    assert tr.budget.max() == 50 == learner.B_
    assert tr.extras["guard_triggers"] > 0              # the high-probability bound failed...
    assert tr.extras["guard_triggers"] == tr.extras["n_sampled"] - tr.extras["n_added"]
    assert np.all(np.diff(tr.budget) >= 0)              # ...and S stopped at the budget


@pytest.mark.parametrize("d", [3, 12])
def test_memory_budget_translation(d):
    K, T, Q = 3, 400, 3000.0
    X, y = xor_stream(T, d, seed=1)
    learner = PFMBooks(KS3, memory_budget=Q, T=T, seed=0)
    assert learner.B_ is None                            # needs d
    tr = learner.run(X, y)
    st = learner.settings_
    B, M = learner.B_, st["M"]
    # available budget (Table 3): floor((Q - K') / (d + K')), with M from U = sqrt(B)
    assert B == math.floor((Q - K * M) / (d + K * M))
    assert M == nested_radii(math.sqrt(B), math.sqrt(B) / math.sqrt(T))[0]
    # the smallest consistent M: one fewer coefficient column would give a budget whose
    # own M is larger (so the fixed point is not improvable)
    if M > 1:
        B_less = math.floor((Q - K * (M - 1)) / (d + K * (M - 1)))
        assert nested_radii(math.sqrt(B_less), math.sqrt(B_less / T))[0] > M - 1
    assert tr.extras["max_memory"] <= Q
    assert tr.extras["max_memory"] == tr.budget.max() * (d + K * M) + K * M
    assert tr.budget.max() == B and tr.extras["guard_triggers"] > 0
    # explicit alpha of Assumption 3
    fixed = PFMBooks(KS3, memory_budget=MemoryBudget(Q, alpha=0.01), T=T, seed=0)
    fixed.run(X, y)
    assert fixed.B_ == 30


def test_time_budget_translation():
    X, y = xor_stream(300, 5, seed=1)
    learner = PFMBooks(KS3, time_budget=TimeBudget(1500.0), U=4.0, U_min=0.5, T=300)
    tr = learner.run(X, y)
    Kp = 3 * 3                                          # M = ceil(ln 4) - ceil(ln .5) + 1 = 3
    assert learner.settings_["M"] == 3
    assert learner.B_ == math.floor((1500 - Kp) / (5 + Kp))
    assert tr.extras["max_time"] <= 1500.0


def test_too_small_memory_budget_raises_before_learning():
    X, y = xor_stream(50, 10, seed=1)
    learner = PFMBooks(KS3, memory_budget=20.0, T=50)
    with pytest.raises(ValueError, match="too small"):
        learner.run(X, y)
    assert learner.n_rounds == 0 and learner.n_features is None


# ---------------------------------------------------------------------------------------
# Seeds, pickling, validation
# ---------------------------------------------------------------------------------------

def test_identical_seeds_identical_traces():
    X, y = xor_stream(300, 3, seed=6)
    a = PFMBooks(KS3, B=40, T=300, seed=12).run(X, y)
    b = PFMBooks(KS3, B=40, T=300, seed=12).run(X, y)
    c = PFMBooks(KS3, B=40, T=300, seed=13).run(X, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.extras["actions"], b.extras["actions"])
    np.testing.assert_array_equal(a.extras["sampled"], b.extras["sampled"])
    assert not np.array_equal(a.extras["actions"], c.extras["actions"])
    assert not np.array_equal(a.extras["sampled"], c.extras["sampled"])


@pytest.mark.parametrize("loss", ["hinge", "absolute"])
@pytest.mark.parametrize("prediction", ["sample", "mean"])
def test_pickle_mid_stream_resumes_identically(loss, prediction):
    T = 400
    X, y = stream_for(loss, False, T, seed=2)
    make = lambda: PFMBooks(KS3, loss=loss, B=40, T=T, Y=3.0, prediction=prediction, seed=5)
    full = make()
    tf = full.run(X, y)
    part = make()
    t1 = part.run(X[:170], y[:170])
    clone = pickle.loads(pickle.dumps(part))
    assert repr(clone) == repr(part)
    t2 = clone.run(X[170:], y[170:])
    np.testing.assert_array_equal(np.r_[t1.scores, t2.scores], tf.scores)
    np.testing.assert_array_equal(np.r_[t1.budget, t2.budget], tf.budget)
    np.testing.assert_array_equal(np.r_[t1.extras["actions"], t2.extras["actions"]],
                                  tf.extras["actions"])
    np.testing.assert_array_equal(clone.coefficients_, full.coefficients_)
    np.testing.assert_array_equal(clone.probabilities_, full.probabilities_)
    assert t2.extras["guard_triggers"] == tf.extras["guard_triggers"]
    assert part.n_rounds == 170
    # a learner pickled before its first example
    fresh = pickle.loads(pickle.dumps(make()))
    np.testing.assert_array_equal(fresh.run(X, y).scores, tf.scores)


@pytest.mark.parametrize("kwargs,message", [
    (dict(kernels=[okl.Laplacian(1.0)]), "okl.Gaussian"),
    (dict(kernels=[]), "non-empty list of okl kernels, got \\[\\]"),
    (dict(kernels=3), "non-empty list of okl kernels, got 3"),
    (dict(loss="squared"), "loss"),
    (dict(B=None), "exactly one of B"),
    (dict(memory_budget=100.0), "exactly one of B"),
    (dict(B=0), "B must be"),
    (dict(U=-1.0), "U must be"),
    (dict(U=1.0, U_min=2.0), "U_min must be <= U"),
    (dict(U_min=100.0, T=50), "U_min must be <= U"),
    (dict(upsilon=1.0), "upsilon"),
    (dict(upsilon=-0.1), "upsilon"),
    (dict(C=0.0), "C must be"),
    (dict(eta=-1.0), "eta must be"),
    (dict(g="theory"), "g must be"),
    (dict(Y=0.5), "Y must be"),
    (dict(prediction="vote"), "prediction"),
    (dict(T=0), "T must be"),
    (dict(seed=-1), "seed"),
])
def test_bad_parameters(kwargs, message):
    base = dict(kernels=KS3, B=20)
    base.update(kwargs)
    with pytest.raises(ValueError, match=message):
        PFMBooks(**base)


def _snapshot(learner):
    return (learner.n_rounds, learner.support_set.size, learner.coefficients_.tobytes(),
            learner.probabilities_.tobytes(), learner.norms_.tobytes(), learner.next_action_,
            str(learner._core_state()["rng"].bit_generator.state))


@pytest.mark.parametrize("corrupt,message", [
    (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 5, np.nan, X), y), "NaN"),
    (lambda X, y: (X[:, :2], y), "features"),
    (lambda X, y: (X, np.where(np.arange(len(y)) == 2, 0.0, y)), "-1 or \\+1"),
    (lambda X, y: (X, y[:-1]), "labels for"),
    (lambda X, y: (np.vstack([X] * 20), np.tile(y, 20)), "horizon"),
])
def test_bad_input_leaves_state_unchanged(corrupt, message):
    X, y = xor_stream(100, 3, seed=1)
    learner = PFMBooks(KS3, B=20, T=300, seed=0)
    learner.run(X[:50], y[:50])
    before = _snapshot(learner)
    scores = learner.decision_function(X)
    bad_X, bad_y = corrupt(X[50:], y[50:])
    with pytest.raises(ValueError, match=message):
        learner.run(bad_X, bad_y)
    assert _snapshot(learner) == before
    np.testing.assert_array_equal(learner.decision_function(X), scores)


def test_regression_labels_beyond_Y_are_rejected():
    X, _ = xor_stream(60, 3, seed=1)
    y = regression_labels(X)
    learner = PFMBooks(KS3, loss="absolute", B=20, Y=3.0, T=60, seed=0)
    learner.run(X[:30], y[:30])
    before = _snapshot(learner)
    with pytest.raises(ValueError, match="exceeds Y"):
        learner.run(X[30:], np.where(np.arange(30) == 4, 3.5, y[30:]))
    with pytest.raises(ValueError, match="exceeds Y"):
        learner.learn_one(X[30], -4.0)
    assert _snapshot(learner) == before


def test_horizon_is_required_for_streaming_and_fixed_by_the_first_run():
    X, y = xor_stream(80, 3, seed=1)
    learner = PFMBooks(KS3, B=20, seed=0)
    with pytest.raises(ValueError, match="T \\(the horizon\\) is required"):
        learner.learn_one(X[0], y[0])
    with pytest.raises(ValueError, match="T \\(the horizon\\) is required"):
        learner.partial_fit(X, y)
    assert learner.n_rounds == 0
    tr = learner.run(X, y)
    assert tr.extras["T"] == 80 == learner.horizon_
    with pytest.raises(ValueError, match="horizon"):
        learner.run(X[:1], y[:1])
    assert learner.n_rounds == 80


# -- the authors' R code (tests/fixtures/r/selection/PFMBooks-{c,r}.R) --------------

R_FIX = os.path.join(os.path.dirname(__file__), "fixtures")
R_SEED = 20240513


def _r_stream(kind):
    S = np.loadtxt(os.path.join(R_FIX, f"r_stream_{kind}.csv"), delimiter=",")
    return np.ascontiguousarray(S[:, 1:]), S[:, 0]


@pytest.mark.parametrize("stream,name,kw", [
    ("c", "r_pfmbooks_c.csv", dict(loss="hinge", B=200)),
    ("r", "r_pfmbooks_r.csv", dict(loss="absolute", B=45, Y=2.0)),
])
def test_variant_r_reproduces_the_authors_r_code(stream, name, kw):
    """``variant="r"`` against the authors' PFMBooks-c.R / PFMBooks-r.R on the same stream
    and uniforms: the prediction f_{t,I_t}(x_t), I_t, rho_t, |S|, p_{t+1} (the bisection's
    unnormalized p) and the K' norms, round for round."""
    X, y = _r_stream(stream)
    R = np.genfromtxt(os.path.join(R_FIX, "r", "selection", name), delimiter=",",
                      names=True)
    T = len(y)
    u = np.loadtxt(os.path.join(R_FIX, "r", "selection", "r_uniforms_1300.csv"))
    m = PFMBooks(variant="r", T=T, seed=R_SEED, **kw)
    np.testing.assert_array_equal(m._uniform_draws(2 * T + 1), u[:2 * T + 1])
    m = PFMBooks(variant="r", T=T, seed=R_SEED, **kw)
    f, P, N, size = [], [], [], []
    for t in range(T):
        f.append(m.decision_function(X[t:t + 1])[0])
        m.learn_one(X[t], y[t])
        P.append(m.probabilities_.copy())
        N.append(m.norms_.copy())
        size.append(m.n_added)
    Kp = m.settings_["K_prime"]
    RP = np.column_stack([R[f"p{k}"] for k in range(1, Kp + 1)])
    RN = np.column_stack([R[f"norm{k}"] for k in range(1, Kp + 1)])
    np.testing.assert_allclose(f, R["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(P, RP, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(N, RN, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(size, R["k"])
    tr = PFMBooks(variant="r", T=T, seed=R_SEED, **kw).run(X, y)
    e = tr.extras
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(e["actions"], R["It"] - 1)
    np.testing.assert_array_equal(e["sampled"], R["rho"] == 1)
    np.testing.assert_array_equal(tr.budget, R["k"])
    # the fixture reaches the scripts' guard and leaves p unnormalized
    assert e["max_support_size"] == R["k"][-1] == e["capacity"]
    assert e["guard_triggers"] > 0
    assert np.abs(RP.sum(axis=1) - 1.0).max() > 1e-3
    if stream == "c":
        assert e["capacity"] == math.ceil(200 * 3 / (3 + Kp))       # ceil(B d / (d + K M))
        assert e["U_min"] == 5.0 and np.max(e["sampling_probabilities"]) == 1.0
        authors = np.where(tr.scores >= 0, 1.0, -1.0) != y
        np.testing.assert_array_equal(authors, R["mistake"].astype(bool))
    else:
        assert e["capacity"] == 23                                   # k < 45 / 2
        np.testing.assert_allclose(tr.losses, R["loss"], rtol=1e-10, atol=1e-12)
        assert np.any(RN == np.tile(e["radii"], 9)[None, :])          # a projection ran


def test_variant_r_differences_one_by_one():
    """The pieces of variant "r" that the fixtures cannot isolate: the prior, the defaults
    it sets, the regression norm growth at l' = 0, the unclipped step, and that it
    differs from okl's default."""
    from okl.learners.experts import msmw_scale_prior
    from okl.learners.pfmbooks import r_prior
    X, y = _r_stream("c")
    T = len(y)
    m = PFMBooks(variant="r", B=200, T=T, seed=1)
    m.learn_one(X[0], y[0])
    st = m.settings_
    M, U = st["M"], st["U"]
    c = U * math.sqrt(T)
    p1 = np.full(9 * M, 1.0 / (c * 9 * M))
    p1[::M] += (1.0 - 1.0 / c) / 9
    np.testing.assert_allclose(r_prior(9, M, U, T), p1, rtol=1e-15)
    assert abs(r_prior(9, M, U, T).sum() - 1.0) < 1e-14
    np.testing.assert_allclose(st["scales"], st["radius"] + 1.0)
    assert st["eta"] == pytest.approx(math.sqrt(8 * math.log(9 * M * T) / T), rel=1e-14)
    okl_ = PFMBooks(B=200, T=T, U_min=5.0, seed=1)
    okl_.learn_one(X[0], y[0])
    np.testing.assert_allclose(st["lambdas"], 2 * okl_.settings_["lambdas"], rtol=1e-14)
    assert not np.allclose(msmw_scale_prior(okl_.settings_["scales"]), p1)
    # regression: a stored x_t with l' = 0 everywhere still grows every norm by lambda / P
    Xr, _ = _r_stream("r")
    m = PFMBooks(variant="r", loss="absolute", B=45, T=50, seed=3)
    m.run(Xr[:1], np.zeros(1))                 # f = 0 = y: every subgradient is 0
    st = m.settings_
    P = min(1.0, 45.0 / st["zcoef"])
    assert m.n_added == 1
    np.testing.assert_array_equal(m.coefficients_, 0.0)
    np.testing.assert_allclose(m.norms_, np.minimum(st["lambdas"] / (45.0 / st["zcoef"]),
                                                    st["radius"]), rtol=1e-14)
    assert P == 1.0 and 45.0 / st["zcoef"] > 1.0      # the step used the unclipped C / z_1
    m = PFMBooks(loss="absolute", B=45, T=50, seed=3, Y=2.0)
    m.run(Xr[:1], np.zeros(1))
    np.testing.assert_array_equal(m.norms_, 0.0)
    # variant "r" is not okl's default, explicit switches still apply
    a = PFMBooks(variant="r", B=200, T=T, seed=R_SEED).run(X, y).scores
    b = PFMBooks(B=200, T=T, seed=R_SEED, U_min=5.0).run(X, y).scores
    assert not np.array_equal(a, b)
    g = PFMBooks(variant="r", g="assumption5", B=200, T=T, seed=1)
    g.learn_one(X[0], y[0])
    np.testing.assert_allclose(g.settings_["scales"], 1.0 + g.settings_["radius"])
    assert PFMBooks(B=5).get_params()["variant"] == "okl"
    with pytest.raises(ValueError, match="variant"):
        PFMBooks(B=5, variant="R")
    with pytest.raises(ValueError, match="g"):
        PFMBooks(B=5, g="plus_one")


def test_variant_r_pickles_mid_stream():
    X, y = _r_stream("r")
    kw = dict(variant="r", loss="absolute", B=45, Y=2.0, T=len(y), seed=R_SEED)
    whole = PFMBooks(**kw).run(X, y).scores
    m = PFMBooks(**kw)
    m.partial_fit(X[:150], y[:150])
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.r_code
    rest = m2.run(X[150:], y[150:]).scores
    np.testing.assert_array_equal(rest, whole[150:])


def test_variant_r_bound_rows_say_not_applicable():
    """okl bounds on variant "r": Theorem 6's rows are not applicable, with the reason."""
    from okl.experiments.bounds import bounds_report
    X, y = xor_stream(200, 4, seed=0)
    KS = [okl.Gaussian(s) for s in (0.75, 1.5, 3.0)]
    rep = bounds_report(PFMBooks(KS, B=40, U_min=1.0, variant="r", seed=0), X, y)
    rows = [r for r in rep.rows if "Theorem 6" in (r.get("source") or "")]
    assert len(rows) == 3
    for r in rows:
        assert r["bound"] is None and r["note"].startswith("not applicable")
        assert "variant = 'r'" in r["note"] and "bisection" not in r["note"]
        assert "renormalized only" in r["note"]
