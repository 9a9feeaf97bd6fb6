"""okl.river: okl's learners as River estimators, held to River's own estimator checks
and to the learner's own run on the same rows."""
import math
import pickle
import warnings

import numpy as np
import pytest

river = pytest.importorskip("river")
from river import checks  # noqa: E402

import okl  # noqa: E402
from okl.river import Classifier, Regressor  # noqa: E402

K = okl.Gaussian(1.5)

CLASSIFIERS = {
    "FOGD-logistic": lambda: okl.FOGD(K, D=40, loss="logistic", seed=1),
    "BOGD": lambda: okl.BOGD(K, B=25, seed=2),
    "NOGD": lambda: okl.NOGD(K, B=20, k=5),
    "Projectron": lambda: okl.Projectron(K, eta=0.5),
    "Forgetron": lambda: okl.Forgetron(K, B=20),
    "POMDR": lambda: okl.POMDR(K, B=30, B0=10, T=5000),
}
REGRESSORS = {
    "FOGD-squared": lambda: okl.FOGD(K, D=40, loss="squared", eta=0.05, seed=1),
    "KernelOGD-squared": lambda: okl.KernelOGD(K, loss="squared", eta=0.05),
    "PKAWV-taylor": lambda: okl.PKAWV(okl.Gaussian(30.0), M=2, lam=10.0),
}


def _quiet(check, model):
    # the emerging-features checks add features after the first example: okl.river
    # warns once that it ignores them (documented); the warning is tested below
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="okl.river: feature", category=UserWarning)
        check(model)


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_river_estimator_checks_classifiers(name):
    _quiet(checks.check_estimator, Classifier(CLASSIFIERS[name]()))


@pytest.mark.parametrize("name", list(REGRESSORS))
def test_river_estimator_checks_regressors(name):
    _quiet(checks.check_estimator, Regressor(REGRESSORS[name]()))


def test_river_checks_cover_the_defaults():
    _quiet(checks.check_estimator, Classifier())
    _quiet(checks.check_estimator, Regressor())
    assert Classifier()._spec().loss == "logistic" and Regressor()._spec().loss == "squared"


# -- against the learner's own run ---------------------------------------------------

def dict_stream(T=400, d=6, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    if sparse:
        X[rng.random((T, d)) < 0.5] = 0.0
    y = np.where(X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=T) >= 0, 1.0, -1.0)
    names = [f"f{j}" for j in range(d)]
    dicts = []
    for t, row in enumerate(X):
        # the first example names every feature (its keys fix the columns), later ones
        # leave their zeros out
        items = [(names[j], float(v)) for j, v in enumerate(row)
                 if not (sparse and t > 0 and v == 0.0)]
        order = rng.permutation(len(items))         # the keys' order must not matter
        dicts.append({items[i][0]: items[i][1] for i in order})
    return dicts, X, y


@pytest.mark.parametrize("name", ["FOGD-logistic", "BOGD", "Projectron"])
@pytest.mark.parametrize("sparse", [False, True])
def test_classifier_is_the_learner_run_on_the_same_rows(name, sparse):
    dicts, X, y = dict_stream(sparse=sparse)
    labels = y > 0                                   # River's binary convention: bools
    model = Classifier(CLASSIFIERS[name]())
    predicted = []
    for x, label in zip(dicts, labels):
        predicted.append(model.predict_one(x))
        model.learn_one(x, label)
    reference = CLASSIFIERS[name]()
    trace = reference.run(X, y)
    assert model.features_ == tuple(f"f{j}" for j in range(6))
    # predict_one before each learn_one is the run's sign(f_t), zero counted +1
    np.testing.assert_array_equal(np.array(predicted[1:]), trace.scores[1:] >= 0.0)
    np.testing.assert_array_equal(model.learner_.decision_function(X),
                                  reference.decision_function(X))
    assert model.learner_._extras() == trace.extras
    for x, row in zip(dicts[:20], X[:20]):
        f = reference.decision_function(row[None])[0]
        assert model.score_one(x) == f
        assert model.predict_one(x) == (f >= 0.0)


def test_regressor_is_the_learner_run_on_the_same_rows():
    dicts, X, _ = dict_stream(seed=3)
    target = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    model = Regressor(REGRESSORS["KernelOGD-squared"]())
    preds = []
    for x, t in zip(dicts, target):
        preds.append(model.predict_one(x))
        model.learn_one(x, t)
    trace = REGRESSORS["KernelOGD-squared"]().run(X, target)
    np.testing.assert_array_equal(preds, trace.scores)
    assert model.predict_one(dicts[0]) == model.learner_.decision_function(X[:1])[0]


def test_missing_features_are_zero_and_new_ones_are_ignored_with_one_warning():
    dicts, X, y = dict_stream(T=60, seed=4)
    model = Classifier(okl.BOGD(K, B=25, seed=2))
    model.learn_one(dicts[0], True)
    ref = okl.BOGD(K, B=25, seed=2)
    ref.learn_one(X[0], 1.0)
    with pytest.warns(UserWarning, match="'extra' was not in the first example") as record:
        for i in range(1, 60):
            x = dict(dicts[i], extra=123.0, other=-4.0)     # never in the first example
            del x["f3"]                                      # missing: 0
            model.learn_one(x, bool(y[i] > 0))
            row = X[i].copy()
            row[3] = 0.0
            ref.learn_one(row, y[i])
    assert len(record) == 1
    np.testing.assert_array_equal(model.learner_.decision_function(X), ref.decision_function(X))
    assert model.features_ == tuple(f"f{j}" for j in range(6))


def test_features_given_up_front():
    """Sparse dicts name only their non-zeros: features=... fixes every column at once."""
    dicts, X, y = dict_stream(T=150, seed=9, sparse=True)
    dicts[0] = {k: v for k, v in dicts[0].items() if v != 0.0}
    names = tuple(f"f{j}" for j in range(6))[::-1]             # any order the user likes
    model = Classifier(okl.BOGD(K, B=25, seed=2), features=names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                           # nothing is ignored
        for x, label in zip(dicts, y):
            model.learn_one(x, label > 0)
    assert model.features_ == names
    ref = okl.BOGD(K, B=25, seed=2)
    ref.run(X[:, ::-1], y)
    np.testing.assert_array_equal(model.learner_.decision_function(X[:, ::-1]),
                                  ref.decision_function(X[:, ::-1]))
    with pytest.warns(UserWarning, match="'g' was not in features="):
        model.learn_one({"g": 1.0, "f1": 2.0}, True)
    for bad in ((), ("a", "a")):
        with pytest.raises(ValueError, match="distinct feature names"):
            Classifier(features=bad).learn_one({"a": 1.0}, True)


def test_labels():
    dicts, X, y = dict_stream(T=80, seed=5)
    for pos, neg, pos_label in ((True, False, True), (1, 0, True), (1, -1, True),
                                ("spam", "ham", "spam"), (2.0, 7, 2)):
        model = Classifier(okl.FOGD(K, D=40, loss="logistic", seed=1), pos_label=pos_label)
        assert model.predict_proba_one(dicts[0]) == {False: 0.5, pos_label: 0.5}
        for x, label in zip(dicts, y):
            model.learn_one(x, pos if label > 0 else neg)
        np.testing.assert_array_equal(model.learner_.decision_function(X), ref_scores(X, y))
        proba = model.predict_proba_one(dicts[3])
        assert set(proba) == {pos, neg}
        f = model.score_one(dicts[3])
        assert proba[pos] == pytest.approx(1.0 / (1.0 + math.exp(-f)), rel=1e-15)
        assert math.isclose(sum(proba.values()), 1.0)
        assert model.predict_one(dicts[3]) == (pos if f >= 0 else neg)
    # a third label: ValueError, nothing learned
    model = Classifier(okl.FOGD(K, D=40, loss="logistic", seed=1))
    model.learn_one(dicts[0], True)
    model.learn_one(dicts[1], False)
    with pytest.raises(ValueError, match="third label 'maybe'"):
        model.learn_one(dicts[2], "maybe")
    assert model.learner_.n_rounds == 2
    np.testing.assert_array_equal(np.asarray(list(model.predict_proba_one(dicts[0]))),
                                  np.asarray([False, True]))


def ref_scores(X, y):
    learner = okl.FOGD(K, D=40, loss="logistic", seed=1)
    learner.run(X, y)
    return learner.decision_function(X)


def test_predict_proba_only_for_the_logistic_loss():
    dicts, _, y = dict_stream(T=30, seed=6)
    model = Classifier(okl.BOGD(K, B=10, seed=0))
    for x, label in zip(dicts, y):
        model.learn_one(x, bool(label > 0))
    with pytest.raises(NotImplementedError, match="not a probability"):
        model.predict_proba_one(dicts[0])
    assert model.predict_one(dicts[0]) in (True, False)


def test_value_types():
    """Floats and ints go through the C path (okl._dictrow); bools, numpy scalars and
    the like through the checked one; all give the same row."""
    model = Classifier(okl.FOGD(K, D=10, seed=0), features=("a", "b", "c"))
    model.learn_one({"a": 1.0, "b": 2, "c": 0.5}, True)
    want = np.array([1.0, 2.0, 0.5])
    for x in ({"a": 1.0, "b": 2, "c": 0.5}, {"a": True, "b": np.int64(2), "c": np.float32(0.5)},
              {"c": 0.5, "b": 2.0, "a": 1}):
        np.testing.assert_array_equal(model._row(x), want)
    np.testing.assert_array_equal(model._row({"b": 10 ** 20}), [0.0, 1e20, 0.0])
    with pytest.raises(ValueError, match="'b' is"):
        model.learn_one({"b": 10 ** 400}, True)


@pytest.mark.parametrize("bad", [{"f0": "1.5"}, {"f0": None}, {"f0": float("nan")},
                                 {"f0": float("inf")}, {"f1": [1.0]}, {"f2": 10 ** 400},
                                 {"f3": complex(1, 1)}])
def test_bad_values_are_value_errors_and_nothing_is_learned(bad):
    dicts, _, y = dict_stream(T=10, seed=7)
    model = Classifier(okl.BOGD(K, B=10, seed=0))
    model.learn_one(dicts[0], True)
    before = pickle.dumps(model.learner_)
    with pytest.raises(ValueError):
        model.learn_one(dict(dicts[1], **bad), False)
    assert pickle.dumps(model.learner_) == before
    fresh = Classifier(okl.BOGD(K, B=10, seed=0))
    with pytest.raises(ValueError):
        fresh.learn_one(dict(dicts[1], **bad), False)
    assert "learner_" not in fresh.__dict__ and fresh.features_ == ()
    fresh.learn_one(dicts[1], False)                   # the label was not kept either
    with pytest.raises(ValueError, match="third label"):
        fresh.learn_one(dicts[2], "x")


def test_wrong_task_and_bad_input():
    with pytest.raises(ValueError, match="wrap it in okl.river.Regressor"):
        Classifier(okl.FOGD(loss="squared")).learn_one({"a": 1.0}, True)
    with pytest.raises(ValueError, match="wrap it in okl.river.Classifier"):
        Regressor(okl.BOGD()).learn_one({"a": 1.0}, 1.0)
    with pytest.raises(ValueError, match="okl online learner"):
        Classifier("BOGD").learn_one({"a": 1.0}, True)
    with pytest.raises(ValueError, match="dict"):
        Classifier().learn_one([1.0, 2.0], True)
    with pytest.raises(ValueError, match="no features"):
        Classifier().learn_one({}, True)
    for target in (float("nan"), "3", None, True):
        with pytest.raises(ValueError, match="finite real"):
            Regressor().learn_one({"a": 1.0}, target)


def test_pickle_resumes_mid_stream_and_clone_is_fresh():
    dicts, X, y = dict_stream(T=200, seed=8)
    full = Classifier(okl.BOGD(K, B=25, seed=2))
    for x, label in zip(dicts, y):
        full.learn_one(x, label > 0)
    model = Classifier(okl.BOGD(K, B=25, seed=2))
    for x, label in zip(dicts[:77], y[:77]):
        model.learn_one(x, label > 0)
    clone = model.clone()
    assert "learner_" not in clone.__dict__
    resumed = pickle.loads(pickle.dumps(model))
    for x, label in zip(dicts[77:], y[77:]):
        resumed.learn_one(x, label > 0)
    np.testing.assert_array_equal(resumed.learner_.decision_function(X),
                                  full.learner_.decision_function(X))
    assert model.learner is not None and model.learner.n_rounds == 0   # the spec is never trained
