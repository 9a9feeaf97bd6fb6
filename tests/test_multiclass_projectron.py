"""The multiclass Projectron and Projectron++ (Orabona, Keshet & Caputo 2009; issue 26).

Held round for round to the plain-numpy oracles ``projectron`` / ``projectron_pp`` of
``tests/oracles/multiclass_reference.py`` (predicted class exactly, every class's score and
the margin to 1e-10, the loss, the support set, the final coefficients and the spans'
members, the counts of projected, added and margin updates) for both spans, both
conventions, ``eta`` in {0, 0.1, 0.5} and K = 2, 3, 5 on continuous Gaussian-kernel
streams; K = 2 against okl's binary Projectron / Projectron++; ``eta = 0`` against the
max-score multiclass Perceptron; the spans' factors; pickling mid-stream; the contract.
"""
import pickle

import numpy as np
import pytest

import okl
from okl.learners.multiclass import MulticlassPerceptron
from okl.learners.multiclass_projectron import MulticlassProjectron, MulticlassProjectronPP
from oracles import multiclass_reference as ref

SIGMA = 1.0
TOL = 1e-10


def stream(T=200, d=3, K=3, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    W = rng.normal(size=(d, K))
    y = np.argmax(X @ W + noise * rng.normal(size=(T, K)), axis=1)
    return X, y


ORACLES = {MulticlassProjectron: ref.projectron, MulticlassProjectronPP: ref.projectron_pp}
SETTINGS = [("class", "okl"), ("shared", "okl"), ("class", "dogma")]


def _same(tr, learner, o):
    assert np.array_equal(tr.predictions, o.pred)
    np.testing.assert_allclose(tr.class_scores, o.scores, rtol=0, atol=TOL)
    np.testing.assert_allclose(tr.scores, o.margin, rtol=0, atol=TOL)
    assert np.array_equal(tr.mistakes, o.mistake)
    np.testing.assert_array_equal(learner.support_vectors, o.support)
    np.testing.assert_array_equal(learner.support_set.stamps - 1, o.support_rounds)
    scale = max(1.0, float(np.abs(o.coef).max(initial=0.0)))
    np.testing.assert_allclose(learner.coefficients, o.coef, rtol=0, atol=TOL * scale)
    np.testing.assert_array_equal(learner.members, o.members)
    added = np.searchsorted(o.support_rounds, np.arange(len(o.pred)), side="right")
    np.testing.assert_array_equal(tr.budget, added)
    kinds = {k: int(np.sum(o.kind == k)) for k in (ref.ADD, ref.PROJECT, ref.MARGIN)}
    assert tr.extras["added_vectors"] == kinds[ref.ADD]
    assert tr.extras["projected_updates"] == kinds[ref.PROJECT]
    assert tr.extras.get("margin_updates", 0) == kinds[ref.MARGIN]
    return kinds


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("eta", [0.0, 0.1, 0.5])
@pytest.mark.parametrize("span, convention", SETTINGS)
@pytest.mark.parametrize("cls", [MulticlassProjectron, MulticlassProjectronPP])
def test_matches_its_oracle(cls, span, convention, eta, K):
    X, y = stream(K=K, seed=10 + K)
    learner = cls(okl.Gaussian(SIGMA), eta=eta, span=span, convention=convention,
                  classes=list(range(K)))
    tr = learner.run(X, y)
    o = ORACLES[cls](X, y, ref.gaussian_kernel(SIGMA), eta=eta, n_classes=K, span=span,
                     convention=convention)
    kinds = _same(tr, learner, o)
    if cls is MulticlassProjectron:
        np.testing.assert_allclose(tr.losses, np.maximum(0.0, -o.margin), rtol=0, atol=TOL)
    else:
        np.testing.assert_allclose(tr.losses, o.loss, rtol=0, atol=TOL)
    if eta == 0.5:                          # the stream exercises what it tests
        assert kinds[ref.PROJECT] > 0 and kinds[ref.ADD] > 0
        if cls is MulticlassProjectronPP:
            assert kinds[ref.MARGIN] > 0
    if eta == 0.0:
        assert kinds[ref.PROJECT] == kinds[ref.MARGIN] == 0


def test_ill_conditioned_spans_agree_as_functions():
    """Two features, eta = 0, one shared span: ~60 support vectors of a Gaussian kernel in
    the plane, cond(K_S) ~ 1e12-1e14.  The decisions (predictions, spans, the rounds that
    add or project) and the scores still agree with the oracle's dense solves; the
    coefficients themselves only to cond(K_S) x round-off (the Cholesky factor and
    ``numpy.linalg.solve`` round differently), which is why the oracle matrix above runs
    on three features, where cond(K_S) stays below ~1e7 and they agree to 1e-10."""
    gauss = ref.gaussian_kernel(SIGMA)
    for K in (3, 5):
        X, y = stream(d=2, K=K, seed=10 + K)
        learner = MulticlassProjectron(okl.Gaussian(SIGMA), eta=0.0, span="shared")
        tr = learner.run(X, y)
        o = ref.projectron(X, y, gauss, eta=0.0, span="shared")
        assert np.linalg.cond(gauss(o.support, o.support)) > 1e11
        assert np.array_equal(tr.predictions, o.pred)
        np.testing.assert_allclose(tr.class_scores, o.scores, rtol=0, atol=TOL)
        np.testing.assert_array_equal(learner.support_vectors, o.support)
        assert tr.extras["projected_updates"] == int(np.sum(o.kind == ref.PROJECT)) > 0
        np.testing.assert_allclose(learner.decision_function(X),
                                   o.decision_function(X, gauss), rtol=0, atol=1e-9)


def test_a_numerically_dependent_point_is_projected():
    """eta = 0 on a linear kernel of rank 2: once a class's span holds two independent
    vectors, its residuals are round-off and it takes its projected step; the oracle's
    1e-10 k(x, x) rule decides the same rounds."""
    X, y = stream(T=150, d=2, K=3, seed=3)
    for cls in ORACLES:
        for span in ("class", "shared"):
            learner = cls(okl.Linear(), eta=0.0, span=span)
            tr = learner.run(X, y)
            o = ORACLES[cls](X, y, ref.linear_kernel, eta=0.0, span=span)
            kinds = _same(tr, learner, o)
            assert kinds[ref.PROJECT] > 0
            assert o.n_support <= (2 if span == "shared" else 2 * 3)


def test_dogma_convention_has_per_class_spans_only():
    with pytest.raises(ValueError, match="span must be 'class'"):
        MulticlassProjectron(convention="dogma", span="shared")
    with pytest.raises(ValueError, match="eta"):
        MulticlassProjectronPP(eta=-0.1)
    with pytest.raises(ValueError, match="span"):
        MulticlassProjectron(span="joint")


def _same_error_rounds(a, b, y):
    """The rounds that update: margin <= 0 and y f <= 0.  (Mistakes differ on a tie, e.g.
    round 1, all scores 0: the multiclass prediction is class 0, right when y = 0, where
    the binary learner counts y f = 0 as a mistake.)"""
    yb = np.where(y == 1, 1.0, -1.0)
    assert np.array_equal(a.scores <= 0, yb * b.scores <= 0)
    assert np.array_equal(a.mistakes[1:], b.mistakes[1:])


@pytest.mark.parametrize("span", ["class", "shared"])
def test_two_classes_are_the_binary_projectron(span):
    """K = 2: f_1 - f_0 follows the binary Projectron on the kernel 2k; with k itself,
    the binary learner's eta is eta / sqrt(2) and its score half the difference."""
    X, y = stream(K=2, seed=4)
    eta = 0.3
    mc = MulticlassProjectron(okl.Gaussian(SIGMA), eta=eta, span=span)
    a = mc.run(X, y)
    binary = okl.Projectron(okl.Gaussian(SIGMA), eta=eta / np.sqrt(2.0))
    b = binary.run(X, np.where(y == 1, 1.0, -1.0))
    np.testing.assert_allclose(a.class_scores[:, 1] - a.class_scores[:, 0], 2 * b.scores,
                               rtol=0, atol=TOL)
    _same_error_rounds(a, b, y)
    np.testing.assert_array_equal(mc.support_vectors, binary.support_vectors)
    assert a.extras == b.extras
    assert 0 < a.extras["projected_updates"] and 0 < a.extras["added_vectors"] < len(y)


@pytest.mark.parametrize("span", ["class", "shared"])
def test_two_classes_are_the_binary_projectron_pp(span):
    """Projectron++ needs the kernel 2k itself (its margin is ``1``, not ``1/2``): a
    linear kernel on the inputs times sqrt(2)."""
    X, y = stream(T=250, d=4, K=2, seed=5)
    eta = 0.2
    mc = MulticlassProjectronPP(okl.Linear(), eta=eta, span=span)
    a = mc.run(X, y)
    binary = okl.ProjectronPP(okl.Linear(), eta=eta)
    b = binary.run(np.sqrt(2.0) * X, np.where(y == 1, 1.0, -1.0))
    np.testing.assert_allclose(a.class_scores[:, 1] - a.class_scores[:, 0], b.scores,
                               rtol=0, atol=TOL)
    _same_error_rounds(a, b, y)
    np.testing.assert_array_equal(mc.support_set.stamps, binary.support_set.stamps)
    assert a.extras == b.extras
    assert a.extras["margin_updates"] > 0 and a.extras["projected_updates"] > 0


@pytest.mark.parametrize("span", ["class", "shared"])
def test_eta_zero_is_the_max_score_perceptron(span):
    X, y = stream(K=4, seed=6)
    for cls in ORACLES:
        a = cls(okl.Gaussian(SIGMA), eta=0.0, span=span).run(X, y)
        p = MulticlassPerceptron(okl.Gaussian(SIGMA), update="max").run(X, y)
        assert np.array_equal(a.predictions, p.predictions)
        np.testing.assert_allclose(a.class_scores, p.class_scores, rtol=0, atol=TOL)
        assert np.array_equal(a.budget, p.budget)


@pytest.mark.parametrize("span", ["class", "shared"])
def test_the_spans_factors(span):
    """Each span's factor L holds L L^T = K(S_r, S_r) over its members, in support order."""
    X, y = stream(K=4, seed=7)
    learner = MulticlassProjectronPP(okl.Gaussian(SIGMA), eta=0.3, span=span)
    learner.run(X, y)
    S, members = learner.support_vectors, learner.members
    spans = learner.spans
    assert len(spans) == (4 if span == "class" else 1)
    gauss = ref.gaussian_kernel(SIGMA)
    for r, g in enumerate(spans):
        rows = S[members[:, r]]
        L = g.factor
        np.testing.assert_allclose(L @ L.T, gauss(rows, rows), rtol=0, atol=1e-12)
    # every class's coefficients live on its span
    A = learner.coefficients
    assert np.all(A[~members] == 0.0)


@pytest.mark.parametrize("cls", [MulticlassProjectron, MulticlassProjectronPP])
@pytest.mark.parametrize("span, convention", SETTINGS)
def test_pickling_mid_stream(cls, span, convention):
    X, y = stream(T=300, K=4, seed=8)
    learner = cls(okl.Gaussian(SIGMA), eta=0.3, span=span, convention=convention)
    learner.partial_fit(X[:150], y[:150])
    copy = pickle.loads(pickle.dumps(learner))
    np.testing.assert_array_equal(copy.members, learner.members)
    a, b = learner.run(X[150:], y[150:]), copy.run(X[150:], y[150:])
    for field in ("scores", "losses", "mistakes", "budget", "predictions", "class_scores"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.extras == b.extras
    assert pickle.dumps(learner) == pickle.dumps(copy)


def test_learn_one_is_run():
    X, y = stream(T=120, K=3, seed=9)
    a = MulticlassProjectronPP(okl.Gaussian(SIGMA), eta=0.3, classes=[0, 1, 2])
    tr = a.run(X, y)
    b = MulticlassProjectronPP(okl.Gaussian(SIGMA), eta=0.3, classes=[0, 1, 2])
    for t in range(len(y)):
        np.testing.assert_array_equal(b.decision_function(X[t:t + 1])[0], tr.class_scores[t])
        b.learn_one(X[t], y[t])
    np.testing.assert_array_equal(a.coefficients, b.coefficients)


@pytest.mark.parametrize("cls", [MulticlassProjectron, MulticlassProjectronPP])
def test_contract(cls):
    okl.check_learner(cls, kernel=okl.Gaussian(1.0))


def test_contract_shared_span():
    okl.check_learner(MulticlassProjectronPP, kernel=okl.Gaussian(1.0), eta=0.3,
                      span="shared")
