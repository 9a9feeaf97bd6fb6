"""Native multiclass learners (issue 26): one support set, a coefficient row per vector,
one kernel row per round for all K classes.

Each learner is held round for round to the plain-numpy oracles of
``tests/oracles/multiclass_reference.py`` (predicted class, every class's score, the
margin, the loss and the final coefficient matrix), on streams with K = 2 .. 6 classes,
string labels, dense and CSR rows; then the multiclass surface: classes_, labels outside
them, the Trace, predict, pickling mid-stream.
"""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.learners.multiclass import MulticlassPA, MulticlassPerceptron
from oracles import multiclass_reference as ref

SIGMA = 1.5


def stream(T=250, d=4, K=4, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    W = rng.normal(size=(d, K))
    y = np.argmax(X @ W + noise * rng.normal(size=(T, K)), axis=1)
    return X, y


def _same(tr, learner, o):
    assert np.array_equal(tr.predictions, o.pred)
    np.testing.assert_allclose(tr.class_scores, o.scores, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.scores, o.margin, rtol=0, atol=1e-12)
    assert np.array_equal(tr.mistakes, o.mistake)
    np.testing.assert_allclose(learner.coefficients, o.coef, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(learner.support_vectors, o.support)


@pytest.mark.parametrize("K", [2, 3, 6])
@pytest.mark.parametrize("update", ["max", "uniform", "proportional"])
@pytest.mark.parametrize("convention", ["paper", "libol"])
def test_crammer_singer_matches_its_oracle(K, update, convention):
    X, y = stream(K=K, seed=K)
    learner = MulticlassPerceptron(okl.Gaussian(SIGMA), update=update, convention=convention,
                                   classes=list(range(K)))
    tr = learner.run(X, y)
    o = ref.crammer_singer_perceptron(X, y, ref.gaussian_kernel(SIGMA), n_classes=K,
                                      update=update, convention=convention)
    _same(tr, learner, o)
    np.testing.assert_allclose(tr.losses, np.maximum(0.0, -o.margin), atol=1e-12)


@pytest.mark.parametrize("variant", ["pa", "pa1", "pa2"])
@pytest.mark.parametrize("rule", ["max-loss", "prediction-based"])
def test_pa_matches_its_oracle(variant, rule):
    X, y = stream(K=5, seed=1)
    learner = MulticlassPA(okl.Gaussian(SIGMA), variant=variant, C=0.3, rule=rule)
    tr = learner.run(X, y)
    o = ref.passive_aggressive(X, y, ref.gaussian_kernel(SIGMA), n_classes=5,
                               variant=variant, C=0.3, rule=rule)
    _same(tr, learner, o)
    np.testing.assert_allclose(tr.losses, o.loss, atol=1e-12)


def test_a_two_class_stream_is_the_binary_perceptron():
    """K = 2 with max-score: f_1 - f_0 is the binary kernel Perceptron's score up to the
    factor 2 (each update moves both classes by one), its mistakes the same."""
    X, y = stream(K=2, seed=4)
    mc = MulticlassPerceptron(okl.Gaussian(SIGMA), convention="libol").run(X, y)
    bin_ = okl.Perceptron(okl.Gaussian(SIGMA)).run(X, np.where(y == 1, 1.0, -1.0))
    np.testing.assert_allclose(mc.class_scores[:, 1] - mc.class_scores[:, 0],
                               2 * bin_.scores, atol=1e-12)


def test_csr_rows_and_string_labels():
    X, y = stream(K=3, seed=2)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    a = MulticlassPerceptron(okl.Gaussian(SIGMA)).run(X, names)
    b = MulticlassPerceptron(okl.Gaussian(SIGMA)).run(sp.csr_matrix(X), y)
    assert a.classes.tolist() == ["setosa", "versicolor", "virginica"]
    assert np.array_equal(a.predictions, np.array(a.classes)[b.predictions])
    np.testing.assert_allclose(a.class_scores, b.class_scores, atol=1e-12)


def test_classes_and_labels_outside_them():
    X, y = stream(K=3, seed=3)
    learner = MulticlassPA(okl.Gaussian(SIGMA), variant="pa1")
    with pytest.raises(ValueError, match="learns one example at a time once its classes"):
        learner.learn_one(X[0], y[0])
    with pytest.raises(ValueError, match="shows 1 class"):
        learner.run(X[:5], np.zeros(5, int))
    learner.run(X[:100], y[:100])
    before = pickle.dumps(learner)
    with pytest.raises(ValueError, match=r"outside the classes \[0, 1, 2\]: \[9\]"):
        learner.run(X[100:110], np.r_[y[100:109], 9])
    with pytest.raises(ValueError, match="outside the classes"):
        learner.learn_one(X[100], 4)
    with pytest.raises(ValueError, match="NaN or infinity"):
        learner.run(X[100:110], np.r_[y[100:109], np.nan])
    assert pickle.dumps(learner) == before
    given = MulticlassPA(okl.Gaussian(SIGMA), variant="pa1", classes=[2, 0, 1, 5])
    assert given.classes_.tolist() == [0, 1, 2, 5]
    given.learn_one(X[0], 5)
    assert given.predict_one(X[0]) == 5
    with pytest.raises(ValueError, match="at least 2 labels"):
        MulticlassPA(classes=[1])
    with pytest.raises(ValueError, match="twice"):
        MulticlassPA(classes=[1, 1, 2])


def test_trace_predict_and_pickling_mid_stream(tmp_path):
    X, y = stream(T=300, K=4, seed=5)
    learner = MulticlassPerceptron(okl.Gaussian(SIGMA), update="proportional")
    learner.partial_fit(X[:120], y[:120])
    copy = pickle.loads(pickle.dumps(learner))
    a, b = learner.run(X[120:], y[120:]), copy.run(X[120:], y[120:])
    for field in ("scores", "losses", "mistakes", "budget", "predictions", "class_scores"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.mistake_rate == np.mean(a.predictions != y[120:])
    f = learner.decision_function(X[:7])
    assert f.shape == (7, 4)
    assert np.array_equal(learner.predict(X[:7]), learner.classes_[np.argmax(f, axis=1)])
    a.save(tmp_path / "t.npz")
    back = okl.Trace.load(tmp_path / "t.npz")
    assert np.array_equal(back.predictions, a.predictions) and back.is_multiclass


@pytest.mark.parametrize("cls, params", [(MulticlassPerceptron, {}),
                                         (MulticlassPerceptron, {"update": "uniform"}),
                                         (MulticlassPA, {"variant": "pa2"})])
def test_contract(cls, params):
    okl.check_learner(cls, kernel=okl.Gaussian(1.0), **params)


# -- any binary learner on K classes ----------------------------------------------------

def _ovo_by_hand(make, X, y, K):
    """K (K - 1) / 2 binary learners run by hand: learner (a, b) scores every round and
    learns the rounds of a (+1) and b (-1)."""
    pairs = [(a, b) for a in range(K) for b in range(a + 1, K)]
    ests = [make() for _ in pairs]
    f = np.zeros((len(y), len(pairs)))
    for t in range(len(y)):
        for p, ((a, b), est) in enumerate(zip(pairs, ests)):
            f[t, p] = 0.0 if est.n_features is None else est.decision_function(X[t:t + 1])[0]
            if y[t] in (a, b):
                est.learn_one(X[t], 1.0 if y[t] == a else -1.0)
    votes, conf = np.zeros((len(y), K)), np.zeros((len(y), K))
    for p, (a, b) in enumerate(pairs):
        votes[:, a] += f[:, p] >= 0
        votes[:, b] += f[:, p] < 0
        conf[:, a] += f[:, p]
        conf[:, b] -= f[:, p]
    return votes + conf / (3 * (np.abs(conf) + 1))


@pytest.mark.parametrize("make", [lambda: okl.Perceptron(okl.Gaussian(SIGMA)),
                                  lambda: okl.BOGD(okl.Gaussian(SIGMA), B=15, seed=2),
                                  lambda: okl.FOGD(okl.Gaussian(SIGMA), D=20, seed=3)])
def test_one_vs_rest_and_one_vs_one_are_the_binary_learners_run_by_hand(make):
    X, y = stream(T=160, K=4, seed=6)
    ovr = okl.OneVsRest(make()).run(X, y)
    by_hand = np.column_stack([make().run(X, np.where(y == c, 1.0, -1.0)).scores
                               for c in range(4)])
    assert np.array_equal(ovr.class_scores, by_hand)
    assert np.array_equal(ovr.predictions, np.argmax(by_hand, axis=1))
    ovo = okl.OneVsOne(make()).run(X, y)
    np.testing.assert_allclose(ovo.class_scores, _ovo_by_hand(make, X, y, 4), atol=1e-12)
    assert np.array_equal(ovo.predictions, np.argmax(ovo.class_scores, axis=1))


def test_reductions_of_a_python_learner_pickle_and_refuse_bad_input():
    class Centroid(okl.PythonLearner):        # a user's binary learner
        def __init__(self, kernel=None):
            self.kernel = kernel
            self.w = None

        def score(self, x):
            return 0.0 if self.w is None else float(self.w @ x)

        def update(self, x, y, score):
            self.w = y * x if self.w is None else self.w + (y * x if y * score <= 0 else 0)
            return max(0.0, -y * score)

    import sys
    sys.modules[__name__].Centroid = Centroid      # picklable by name
    Centroid.__qualname__ = "Centroid"
    X, y = stream(T=120, K=3, seed=7)
    names = np.array(["a", "b", "c"])[y]
    ovr = okl.OneVsRest(Centroid())
    tr = ovr.run(X[:60], names[:60])
    assert tr.classes.tolist() == ["a", "b", "c"] and len(ovr.estimators_) == 3
    copy = pickle.loads(pickle.dumps(ovr))
    assert np.array_equal(copy.run(X[60:], names[60:]).class_scores,
                          ovr.run(X[60:], names[60:]).class_scores)
    before = pickle.dumps(ovr)
    with pytest.raises(ValueError, match="outside the classes"):
        ovr.run(X[:5], np.array(["a", "b", "z", "a", "a"]))
    with pytest.raises(ValueError, match="NaN or infinity"):
        ovr.run(np.where(np.arange(15)[:, None] == 3, np.nan, X[:15]), names[:15])
    assert pickle.dumps(ovr) == before
    with pytest.raises(ValueError, match="takes a binary classifier"):
        okl.OneVsRest(MulticlassPerceptron())
    with pytest.raises(ValueError, match="takes a binary classifier"):
        okl.OneVsOne(okl.KernelOGD(loss="squared"))
