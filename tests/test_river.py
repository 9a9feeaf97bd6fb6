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


# -- multiclass learners ---------------------------------------------------------------

MULTICLASS = {
    "MulticlassPerceptron": lambda: okl.MulticlassPerceptron(K),
    "MulticlassPA": lambda: okl.MulticlassPA(K, variant="pa1", C=0.5),
    "MulticlassProjectron": lambda: okl.MulticlassProjectron(K, eta=0.3),
    "MulticlassProjectronPP": lambda: okl.MulticlassProjectronPP(K, eta=0.3, span="shared"),
    "OneVsRest-BOGD": lambda: okl.OneVsRest(okl.BOGD(K, B=20, seed=0)),
    "OneVsOne-Perceptron": lambda: okl.OneVsOne(okl.Perceptron(K)),
}


@pytest.mark.parametrize("name", list(MULTICLASS))
def test_river_estimator_checks_multiclass(name):
    """River's checks with the multiclass tag: its classifier checks on Phishing (bools and
    numpy bools) and on ImageSegments (7 string labels), without the binary-only ones."""
    model = Classifier(MULTICLASS[name]())
    assert model._multiclass
    assert len(list(checks._yield_datasets(model))) == 3            # ImageSegments too
    assert "check_predict_proba_one_binary" not in {c.__name__ for c in
                                                    checks.yield_checks(model)}
    _quiet(checks.check_estimator, model)


def mc_stream(T=240, d=4, K=3, seed=0):
    """Continuous features, K labels by angle sector of the first two features (labels
    drawn so that every one appears early)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    y = (np.floor((np.arctan2(X[:, 1], X[:, 0]) + np.pi) / (2 * np.pi) * K) % K).astype(int)
    names = [f"f{j}" for j in range(d)]
    return [dict(zip(names, map(float, row))) for row in X], X, y


@pytest.mark.parametrize("name", list(MULTICLASS))
def test_multiclass_with_classes_is_the_learner_run_on_the_same_rows(name):
    """classes= given: every round learns with all K classes, exactly learner.run on the
    same rows with the labels 0..K-1 in the order of classes."""
    dicts, X, y = mc_stream(T=120 if name.startswith("OneVsOne") else 240)
    labels = np.array(["zebra", "ant", "moth"])          # not sorted: their given order
    model = Classifier(MULTICLASS[name](), classes=list(labels))
    assert model.predict_proba_one(dicts[0]) == pytest.approx(
        {"zebra": 1 / 3, "ant": 1 / 3, "moth": 1 / 3})
    assert model.predict_one(dicts[0]) == "zebra"
    predicted = []
    for x, c in zip(dicts, y):
        predicted.append(model.predict_one(x))
        model.learn_one(x, labels[c])
    ref = MULTICLASS[name]()
    trace = ref.run(X, y)
    assert predicted == list(labels[trace.predictions])
    np.testing.assert_array_equal(model.learner_.decision_function(X), ref.decision_function(X))
    scores = model.class_scores_one(dicts[5])
    f = ref.decision_function(X[5:6])[0]
    assert list(scores) == list(labels) and list(scores.values()) == list(f)
    with pytest.raises(ValueError, match="not one of classes"):
        model.learn_one(dicts[0], "bee")
    assert model.learner_.n_rounds == len(y)


def growing_perceptron(X, labels, sigma):
    """Oracle: Crammer & Singer's max-score kernel Perceptron (paper convention) whose
    classes are the labels seen so far, in the order they came; nothing is learned before
    a second label.  Returns the predictions before each round and the final scores."""
    order, S, A, preds = [], [], [], []

    def scores(x):
        f = np.zeros(len(order))
        for s, a in zip(S, A):
            k = math.exp(-float(np.sum((s - x) ** 2)) / (2 * sigma ** 2))
            for c, v in a.items():
                f[c] += v * k
        return f

    for x, y in zip(X, labels):
        f = scores(x)
        preds.append(order[int(np.argmax(f))] if order else None)
        if y not in order:
            order.append(y)
            f = np.append(f, 0.0)
        if len(order) < 2:
            continue
        i = order.index(y)
        g = f.copy()
        g[i] = -np.inf
        r = int(np.argmax(g))
        if f[i] <= f[r]:
            S.append(x)
            A.append({i: 1.0, r: -1.0})
    return preds, order, np.array([scores(x) for x in X])


def test_multiclass_classes_grow_as_labels_come():
    """Without classes=, a new label joins as class K with a zero score function, the
    learner's support set and the other classes unchanged (a plain-numpy oracle)."""
    dicts, X, y = mc_stream(T=200, K=4, seed=3)
    labels = np.array(["d", "b", "a", "c"])[y]
    labels[:15] = "b"                     # one label for 15 rounds: nothing to learn yet
    model = Classifier(okl.MulticlassPerceptron(K))
    predicted = []
    for x, label in zip(dicts, labels):
        predicted.append(model.predict_one(x))
        model.learn_one(x, label)
    preds, order, f = growing_perceptron(X, labels, K.sigma)
    assert predicted == preds and predicted[0] is None and set(predicted[1:16]) == {"b"}
    assert list(model.class_scores_one(dicts[0])) == order
    np.testing.assert_allclose(model.learner_.decision_function(X), f, rtol=1e-10, atol=1e-12)
    assert list(model.learner_.classes_) == [0, 1, 2, 3]


def test_multiclass_one_vs_rest_grows_a_learner_per_new_class():
    """OneVsRest without classes=: each class's copy learns from the round its class
    appears (and not before a second label): K copies run by hand on those rows."""
    dicts, X, y = mc_stream(T=150, K=3, seed=5)
    y[:4] = y[0]
    model = Classifier(okl.OneVsRest(okl.Perceptron(K)))
    for x, c in zip(dicts, y):
        model.learn_one(x, int(c))
    order = list(dict.fromkeys(y.tolist()))
    start = next(t for t in range(len(y)) if len(set(y[:t + 1].tolist())) == 2)
    for i, c in enumerate(order):
        first = max(start, int(np.flatnonzero(y == c)[0]))
        ref = okl.Perceptron(K)
        ref.run(X[first:], np.where(y[first:] == c, 1.0, -1.0))
        np.testing.assert_array_equal(model.learner_.decision_function(X)[:, i],
                                      ref.decision_function(X))


@pytest.mark.parametrize("name", ["MulticlassPerceptron", "MulticlassPA", "MulticlassProjectron",
                                  "MulticlassProjectronPP", "OneVsOne-Perceptron"])
def test_multiclass_add_class_keeps_the_model(name):
    """okl.river._add_class: the scores of the K classes unchanged, the new one zero (a
    OneVsOne: each new pair's zero score votes for the old class, so every old class gains
    one vote); the grown learner carries on learning and pickles."""
    from okl.river import _add_class

    _, X, y = mc_stream(T=90, K=3, seed=1)
    learner = MULTICLASS[name]()
    learner.run(X[y < 2], y[y < 2])
    before = learner.decision_function(X)
    grown = _add_class(learner)
    after = grown.decision_function(X)
    if name == "OneVsOne-Perceptron":      # votes + squashed confidences: round-off
        np.testing.assert_allclose(after[:, :2], before + 1.0, rtol=1e-15, atol=0)
    else:
        np.testing.assert_array_equal(after[:, :2], before)
    np.testing.assert_array_equal(after[:, 2], 0.0)
    assert list(grown.classes_) == [0, 1, 2]
    if name == "MulticlassProjectron":
        assert grown.members.shape == (grown.support_set.size, 3)
        assert len(grown.spans) == 3
    again = pickle.loads(pickle.dumps(grown))
    for x, c in zip(X[y == 2][:10], y[y == 2][:10]):
        grown.learn_one(x, c)
        again.learn_one(x, c)
    np.testing.assert_array_equal(grown.decision_function(X), again.decision_function(X))
    assert np.any(grown.decision_function(X)[:, 2] != 0.0)


class _PerClassPerceptron(okl.MulticlassPerceptron):
    """A multiclass learner with a per-class state okl.river does not know."""

    def _state(self):
        K = 0 if self.classes_ is None else len(self.classes_)
        return dict(super()._state(), per_class=np.zeros(K))

    def _restore(self, state):
        super()._restore({k: v for k, v in state.items() if k != "per_class"})


def test_multiclass_a_class_that_cannot_be_added_is_refused():
    """A learner whose per-class state okl.river cannot extend: a ValueError naming
    classes=, with nothing learned and the label not kept."""
    dicts, X, y = mc_stream(T=30, K=3, seed=6)
    model = Classifier(_PerClassPerceptron(K))
    first, second, third = dict.fromkeys(y.tolist())         # in the order they come
    i3 = int(np.flatnonzero(y == third)[0])
    for x, c in zip(dicts[:i3], y[:i3]):
        model.learn_one(x, int(c))
    rounds = model.learner_.n_rounds
    with pytest.raises(ValueError, match=r"cannot add a class to _PerClassPerceptron.*classes="):
        model.learn_one(dicts[i3], third)
    assert model.learner_.n_rounds == rounds
    assert list(model.predict_proba_one(dicts[0])) == [first, second]
    given = Classifier(_PerClassPerceptron(K), classes=[0, 1, 2])     # the way out
    for x, c in zip(dicts, y):
        given.learn_one(x, int(c))
    assert given.learner_.n_rounds == len(y)


def test_multiclass_predictions_and_probabilities():
    """predict_one: the first class of largest score; predict_proba_one: the softmax of
    the scores over every label seen, its largest entry predict_one's class."""
    dicts, X, y = mc_stream(T=120, K=3, seed=2)
    model = Classifier(okl.MulticlassPA(K))
    assert model.predict_one(dicts[0]) is None and model.predict_proba_one(dicts[0]) == {}
    model.learn_one(dicts[0], "only")
    assert model.predict_one(dicts[1]) == "only"
    assert model.predict_proba_one(dicts[1]) == {"only": 1.0}
    labels = [True, "two", 3]                     # any hashable labels
    for x, c in zip(dicts[1:], y[1:]):
        model.learn_one(x, labels[c])
    order = ["only"] + [labels[c] for c in dict.fromkeys(y[1:].tolist())]
    for x in dicts[:30]:
        s = model.class_scores_one(x)
        p = model.predict_proba_one(x)
        assert list(p) == list(s) == order
        f = np.array(list(s.values()))
        e = np.exp(f - f.max())
        np.testing.assert_allclose(list(p.values()), e / e.sum(), rtol=1e-12)
        assert math.isclose(sum(p.values()), 1.0)
        assert model.predict_one(x) == max(p, key=p.get) == list(s)[int(np.argmax(f))]
    with pytest.raises(ValueError, match="class_scores_one"):
        model.score_one(dicts[0])
    with pytest.raises(ValueError, match="multiclass learner"):
        Classifier(okl.BOGD(K)).class_scores_one(dicts[0])


def test_multiclass_labels_and_bad_input():
    dicts, X, y = mc_stream(T=40, K=3, seed=4)
    model = Classifier(okl.MulticlassPerceptron(K))
    for x, c in zip(dicts[:20], y[:20]):
        model.learn_one(x, np.bool_(c == 0) if c < 2 else "other")   # numpy labels as Python
    assert set(model.predict_proba_one(dicts[0])) == {True, False, "other"}
    assert all(type(k) in (bool, str) for k in model.predict_proba_one(dicts[0]))
    rounds = model.learner_.n_rounds
    for bad in ([1, 2], None):
        with pytest.raises(ValueError, match="label"):
            model.learn_one(dicts[20], bad)
    with pytest.raises(ValueError, match="non-numeric"):
        model.learn_one(dict(dicts[20], f0="x"), "new")           # nothing kept, not the label
    assert model.learner_.n_rounds == rounds and "new" not in model.predict_proba_one(dicts[0])
    for classes in (["a"], ["a", "a"], [["a"], "b"]):
        with pytest.raises(ValueError, match="classes"):
            Classifier(okl.MulticlassPerceptron(K), classes=classes).learn_one(dicts[0], "a")
    # the learner's own classes, in its (sorted) order, when the wrapper is given none
    own = Classifier(okl.MulticlassPerceptron(K, classes=["z", "a", "m"]))
    assert list(own.predict_proba_one(dicts[0])) == ["a", "m", "z"]
    with pytest.raises(ValueError, match="not one of classes"):
        own.learn_one(dicts[0], "b")
    for x, c in zip(dicts, y):
        own.learn_one(x, "zam"[c])
    ref = okl.MulticlassPerceptron(K, classes=["z", "a", "m"])
    ref.run(X, np.array(list("zam"))[y])
    np.testing.assert_array_equal(own.learner_.decision_function(X), ref.decision_function(X))
    # pickled mid-stream, the model resumes as if never stopped
    full = Classifier(okl.MulticlassPerceptron(K))
    half = Classifier(okl.MulticlassPerceptron(K))
    for i, (x, c) in enumerate(zip(dicts, y)):
        full.learn_one(x, int(c))
        if i < 15:
            half.learn_one(x, int(c))
    half = pickle.loads(pickle.dumps(half))
    for x, c in zip(dicts[15:], y[15:]):
        half.learn_one(x, int(c))
    np.testing.assert_array_equal(half.learner_.decision_function(X),
                                  full.learner_.decision_function(X))


def test_progressive_val_score_on_image_segments():
    """River's progressive validation (predict, then learn, each of the 2,310 rows) on its
    bundled ImageSegments (7 classes, 18 features), standardized by River's running
    StandardScaler, with a Gaussian kernel of width 1:

    * okl.MulticlassPerceptron (Crammer & Singer, max-score): Accuracy 89.30%
      (248 support vectors);
    * okl.MulticlassPA (PA-I, C = 1): Accuracy 91.81% (1,056 support vectors);

    River's own HoeffdingTreeClassifier scores 77.96% and a OneVsRestClassifier over its
    LogisticRegression 79.60% behind the same scaler."""
    from river import datasets, evaluate, metrics, preprocessing

    for learner, want in ((okl.MulticlassPerceptron(okl.Gaussian(1.0)), 0.8930),
                          (okl.MulticlassPA(okl.Gaussian(1.0), variant="pa1", C=1.0), 0.9181)):
        model = preprocessing.StandardScaler() | Classifier(learner)
        acc = evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
        print(f"\n{type(learner).__name__}: {acc}")
        assert acc.get() == pytest.approx(want, abs=0.006)
        assert list(model["Classifier"].learner_.classes_) == list(range(7))
