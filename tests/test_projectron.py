"""Projectron and Projectron++ against plain-numpy oracles of the papers' pseudo-code."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import okl
from okl.learners.projectron import Projectron, ProjectronPP
from conftest import KERNELS, ref_gram, sparse_stream, xor_stream

ALD_TOL = 1e-10   # ||delta||^2 <= ALD_TOL k(x, x) is exact linear dependence (documented)


def projectron_oracle(kernel, X, y, eta, margin="none"):
    """Orabona, Keshet & Caputo (JMLR 2009), Projectron / Projectron++, literally.

    The projection is recomputed every time from the explicit Gram matrix of S with
    ``np.linalg.solve``; ``||delta_t||`` is the RKHS norm of ``f''_t - f'_t``, i.e. of
    ``sum_i d_i k(x_i, .) - k(x_t, .)``, from the Gram matrix of ``S + {x_t}``.
    ``margin``: "none" (Projectron), "paper" (Projectron++), "full" (Projectron step
    on every ``y f < 1``).
    """
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X, float)
    S, a = [], np.zeros(0)
    out = dict(scores=[], budget=[], projected_updates=0, added_vectors=0, margin_updates=0)

    def projection(x, k):
        kxx = ref_gram(kernel, x[None], x[None])[0, 0]
        if S:
            K = ref_gram(kernel, np.array(S), np.array(S))
            d = np.linalg.solve(K, k)
            Kaug = ref_gram(kernel, np.array(S + [x]), np.array(S + [x]))
            c = np.r_[d, -1.0]
            res = c @ Kaug @ c                     # ||P k(x,.) - k(x,.)||^2
            pk2 = d @ K @ d                        # ||P k(x,.)||^2
        else:
            d, res, pk2 = np.zeros(0), kxx, 0.0
        res = max(res, 0.0)
        if res <= ALD_TOL * kxx:
            res = 0.0
        return d, np.sqrt(res), pk2

    for t in range(len(y)):
        x, yt = Xd[t], y[t]
        k = ref_gram(kernel, x[None], np.array(S))[0] if S else np.zeros(0)
        f = float(k @ a) if S else 0.0
        out["scores"].append(f)
        m = yt * f
        if m <= 0 or (margin == "full" and m < 1):
            d, delta, _ = projection(x, k)
            if delta <= eta:                                   # f_t = f''_t
                a = a + yt * d
                out["projected_updates"] += 1
            else:                                              # f_t = f'_t
                S.append(x)
                a = np.r_[a, yt]
                out["added_vectors"] += 1
            if m > 0:
                out["margin_updates"] += 1
        elif margin == "paper" and m < 1:
            loss = 1.0 - m
            d, delta, pk2 = projection(x, k)
            with np.errstate(over="ignore"):               # delta / eta for a tiny eta
                update = eta > 0 and loss - delta / eta > 0 and pk2 > 0
            if update:
                tau = min(loss / pk2, 2 * (loss - delta / eta) / pk2, 1.0)
                a = a + yt * tau * d
                out["margin_updates"] += 1
        out["budget"].append(len(S))
    out["scores"] = np.array(out["scores"])
    out["budget"] = np.array(out["budget"])
    out["S"], out["a"] = np.array(S), a
    return out


def make(margin, kernel, eta):
    if margin == "none":
        return Projectron(kernel=kernel, eta=eta)
    return ProjectronPP(kernel=kernel, eta=eta, margin_update=margin)


def check_against_oracle(learner, tr, ref, X, y, margin):
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref["budget"])
    np.testing.assert_array_equal(tr.mistakes, y * ref["scores"] <= 0)
    hinge = margin != "none"
    expected_loss = np.maximum(0, (1.0 if hinge else 0.0) - y * ref["scores"])
    np.testing.assert_allclose(tr.losses, expected_loss, rtol=1e-8, atol=1e-9)
    for key in ("projected_updates", "added_vectors") + (("margin_updates",) if hinge else ()):
        assert tr.extras[key] == ref[key], key
    if margin == "none":
        assert "margin_updates" not in tr.extras
    Xd = X.toarray() if sp.issparse(X) else X
    np.testing.assert_array_equal(learner.support_vectors, ref["S"].reshape(-1, Xd.shape[1]))
    np.testing.assert_allclose(learner.coefficients, ref["a"], rtol=1e-8, atol=1e-9)


def stream_for(kernel, sparse, T=250, seed=3):
    """Dense XOR in 2-D or sparse 8-D rows.  All-zero CSR rows are dropped: the score
    of x = 0 is often an exact tie f = 0 in theory, decided by round-off."""
    if sparse:
        X, y = sparse_stream(int(T * 1.25), 8, seed=seed)
        keep = np.flatnonzero(np.diff(X.indptr) > 0)[:T]
        X, y = X[keep], y[keep]
    else:
        X, y = xor_stream(T, 2, seed=seed)
    if isinstance(kernel, okl.Polynomial):
        X = X * 0.5
    return X, y


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("margin,eta", [("none", 0.1), ("none", 0.9), ("paper", 0.1),
                                        ("paper", 0.9), ("full", 0.3)])
def test_matches_oracle_round_for_round(kernel, sparse, margin, eta):
    X, y = stream_for(kernel, sparse)
    ref = projectron_oracle(kernel, X, y, eta, margin)
    learner = make(margin, kernel, eta)
    tr = learner.run(X, y)
    check_against_oracle(learner, tr, ref, X, y, margin)
    # every branch of the algorithm is exercised on this stream (the rough Laplacian
    # kernel keeps residuals large: at eta = 0.1 it projects (almost) nothing)
    assert ref["added_vectors"] >= (1 if eta >= 0.9 else 2)
    if eta >= 0.3 or not isinstance(kernel, okl.Laplacian):
        assert ref["projected_updates"] >= 3
        if margin != "none":
            assert ref["margin_updates"] >= 3


def test_dense_equals_csr():
    X, y = sparse_stream(300, 10, seed=5)
    for cls in (Projectron, ProjectronPP):
        a = cls(kernel=okl.Laplacian(2.0), eta=0.2).run(X, y)
        b = cls(kernel=okl.Laplacian(2.0), eta=0.2).run(X.toarray(), y)
        np.testing.assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(a.budget, b.budget)


def test_eta_zero_is_the_perceptron():
    """Distinct points have positive residuals: eta = 0 adds every mistake, exactly.

    Over this stream K_S reaches cond ~1e11: an explicit inverse updated by blocks
    drifts there (its residuals stop being positive), the Cholesky factor does not."""
    X, y = xor_stream(4000, 4, seed=8)
    kernel = okl.Gaussian(1.0)
    p = okl.Perceptron(kernel=kernel).run(X, y)
    learner = Projectron(kernel=kernel, eta=0.0)
    tr = learner.run(X, y)
    np.testing.assert_array_equal(tr.scores, p.scores)
    np.testing.assert_array_equal(tr.budget, p.budget)
    assert tr.extras == {"projected_updates": 0, "added_vectors": p.n_mistakes}
    np.testing.assert_array_equal(learner.coefficients, y[p.mistakes])


def test_eta_zero_projects_exactly_dependent_points():
    """A repeated point lies in the span of S: eta = 0 projects it (up to round-off)
    onto its earlier copy, the same hypothesis as the Perceptron's with fewer vectors."""
    rng = np.random.default_rng(0)
    base, labels = xor_stream(40, 3, seed=2)
    idx = rng.integers(0, 40, size=400)
    X, y = base[idx], labels[idx]
    kernel = okl.Gaussian(1.5)
    p = okl.Perceptron(kernel=kernel).run(X, y)
    tr = Projectron(kernel=kernel, eta=0.0).run(X, y)
    np.testing.assert_allclose(tr.scores, p.scores, rtol=1e-8, atol=1e-8)
    assert tr.extras["projected_updates"] > 0
    assert tr.budget[-1] == p.budget[-1] - tr.extras["projected_updates"]
    assert tr.budget[-1] <= 40
    ref = projectron_oracle(kernel, X, y, 0.0)
    np.testing.assert_array_equal(tr.budget, ref["budget"])


def test_linear_kernel_keeps_at_most_d_vectors():
    """The RKHS of the linear kernel has dimension d: after d independent vectors every
    residual is zero up to round-off, so even eta = 0 projects."""
    X, y = xor_stream(300, 5, seed=4)
    for eta in (0.0, 0.05):
        tr = Projectron(kernel=okl.Linear(), eta=eta).run(X, y)
        assert tr.budget.max() <= 5
        assert tr.extras["projected_updates"] > 0
        ref = projectron_oracle(okl.Linear(), X, y, eta)
        np.testing.assert_array_equal(tr.budget, ref["budget"])
        np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("cls", [Projectron, ProjectronPP])
def test_larger_eta_gives_a_smaller_active_set(cls):
    X, y = xor_stream(1000, 4, seed=21)
    sizes = [cls(kernel=okl.Gaussian(1.0), eta=eta).run(X, y).budget[-1]
             for eta in (0.0, 0.1, 0.3, 0.6, 0.9)]
    assert all(a >= b for a, b in zip(sizes, sizes[1:])), sizes
    assert sizes[0] > 2 * sizes[-1], sizes


def test_eta_at_least_the_feature_norm_never_adds():
    """||delta_t|| <= sqrt(k(x, x)) = 1 (Gaussian): with eta >= 1 every mistake projects,
    and projecting onto the empty span is the zero function."""
    X, y = xor_stream(100, 3, seed=1)
    tr = Projectron(kernel=okl.Gaussian(1.0), eta=1.0).run(X, y)
    assert tr.budget.max() == 0 and np.all(tr.scores == 0)
    assert tr.extras["projected_updates"] == 100


def test_projectron_pp_margin_errors_never_add():
    X, y = xor_stream(800, 4, seed=6)
    tr = ProjectronPP(kernel=okl.Gaussian(1.0), eta=0.3).run(X, y)
    grew = np.flatnonzero(np.diff(np.r_[0, tr.budget]) > 0)
    assert np.all(tr.mistakes[grew])
    assert tr.extras["margin_updates"] > 0


def test_zero_rows_with_the_linear_kernel():
    """k(0, .) = 0: the residual is 0, the projection is 0, so x = 0 never changes f."""
    X, y = sparse_stream(250, 8, seed=3)
    assert np.any(np.diff(X.indptr) == 0)
    for margin in ("none", "paper"):
        ref = projectron_oracle(okl.Linear(), X, y, 0.2, margin)
        learner = make(margin, okl.Linear(), 0.2)
        tr = learner.run(X, y)
        check_against_oracle(learner, tr, ref, X, y, margin)


@pytest.mark.parametrize("cls,kw", [(Projectron, {}), (ProjectronPP, {}),
                                    (ProjectronPP, {"margin_update": "full"})])
def test_dictionary_in_lockstep_with_support_set(cls, kw):
    X, y = xor_stream(500, 4, seed=9)
    kernel = okl.Gaussian(0.8)
    learner = cls(kernel=kernel, eta=0.2, **kw)
    learner.run(X, y)
    S = learner.support_vectors
    D = learner.dictionary
    assert D.size == len(S) == learner.support_set.size > 64   # the buffers grew
    K = ref_gram(kernel, S, S)
    np.testing.assert_allclose(D.gram, K, rtol=1e-12, atol=1e-14)
    L = D.factor
    np.testing.assert_allclose(L @ L.T, K, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("cls,kw", [(Projectron, {}), (ProjectronPP, {})])
def test_vectorized_solves_through_growth_and_pickling(cls, kw):
    """The core solves with L and with U = L^T (okl/_vtri.h), U kept beside the
    dictionary's factor: U is L^T bit for bit after the buffers grew past 64 points
    and after a pickle round trip, and the run follows the oracle throughout."""
    X, y = xor_stream(400, 6, seed=21)
    kernel = okl.Gaussian(1.5)
    learner = cls(kernel=kernel, eta=0.4, **kw)
    tr = learner.run(X, y)
    ref = projectron_oracle(kernel, X, y, 0.4, "paper" if cls is ProjectronPP else "none")
    check_against_oracle(learner, tr, ref, X, y, "paper" if cls is ProjectronPP else "none")
    n = learner.support_set.size
    assert n > 64 and ref["projected_updates"] >= 10
    np.testing.assert_array_equal(learner._upper(), learner.dictionary.factor.T)
    clone = pickle.loads(pickle.dumps(learner))
    np.testing.assert_array_equal(clone._upper(), learner._upper())
    more_X, more_y = xor_stream(300, 6, seed=22)
    np.testing.assert_array_equal(clone.run(more_X, more_y).scores,
                                  learner.run(more_X, more_y).scores)


@pytest.mark.parametrize("cls,kw", [(Projectron, {}), (ProjectronPP, {}),
                                    (ProjectronPP, {"margin_update": "full"})])
def test_pickle_resumes_mid_stream(cls, kw):
    X, y = xor_stream(700, 3, seed=12)
    full = cls(kernel=okl.Gaussian(0.9), eta=0.15, **kw).run(X, y)
    learner = cls(kernel=okl.Gaussian(0.9), eta=0.15, **kw)
    first = learner.run(X[:311], y[:311])
    clone = pickle.loads(pickle.dumps(learner))
    assert repr(clone) == repr(learner)
    rest = clone.run(X[311:], y[311:])
    np.testing.assert_array_equal(np.r_[first.scores, rest.scores], full.scores)
    np.testing.assert_array_equal(np.r_[first.budget, rest.budget], full.budget)
    assert rest.extras == full.extras
    assert learner.n_rounds == 311


def test_learn_one_equals_run():
    X, y = xor_stream(150, 3, seed=3)
    a, b = ProjectronPP(eta=0.2), ProjectronPP(eta=0.2)
    tr = a.run(X, y)
    for x, label in zip(X, y):
        b.learn_one(x, label)
    np.testing.assert_array_equal(a.coefficients, b.coefficients)
    np.testing.assert_array_equal(b.decision_function(X), a.decision_function(X))
    assert b.margin_updates == tr.extras["margin_updates"]
    assert b.projected_updates == tr.extras["projected_updates"]
    assert b.added_vectors == tr.extras["added_vectors"] == tr.budget[-1]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2 ** 16), T=st.integers(1, 70), d=st.integers(2, 5),
       sigma=st.floats(0.3, 4.0), eta=st.floats(0.0, 1.2),
       margin=st.sampled_from(["none", "paper", "full"]))
def test_oracle_property(seed, T, d, sigma, eta, margin):
    X, y = xor_stream(T, d, seed=seed)
    kernel = okl.Gaussian(sigma)
    ref = projectron_oracle(kernel, X, y, eta, margin)
    learner = make(margin, kernel, eta)
    tr = learner.run(X, y)
    np.testing.assert_allclose(tr.scores, ref["scores"], rtol=1e-8, atol=1e-9)
    np.testing.assert_array_equal(tr.budget, ref["budget"])


@pytest.mark.parametrize("cls", [Projectron, ProjectronPP])
@pytest.mark.parametrize("bad,name", [
    (dict(eta=-0.1), "eta"), (dict(eta=float("nan")), "eta"), (dict(eta=float("inf")), "eta"),
    (dict(eta="0.1"), "eta"), (dict(eta=True), "eta"), (dict(seed=-3), "seed"),
    (dict(kernel="rbf"), "kernel"),
])
def test_parameter_validation(cls, bad, name):
    with pytest.raises(ValueError, match=name):
        cls(**bad)


def test_margin_update_validation():
    with pytest.raises(ValueError, match="margin_update"):
        ProjectronPP(margin_update="aggressive")
    with pytest.raises(TypeError):
        Projectron(margin_update="paper")
