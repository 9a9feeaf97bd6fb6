"""scikit-learn estimators: check_estimator on every learner, and equality with the learner."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

import okl
from conftest import LEARNERS, xor_stream
from okl.sklearn import OnlineClassifier, OnlineRegressor, estimator


def _id(make):
    return repr(make())


# check_estimator fits once on its own small problems and asks for training
# accuracy > 0.83 (two standardized blobs) or R^2 > 0.5 (make_regression with one
# informative feature, 200 rows).  One online pass reaches that with settings
# suited to standardized data: the classifiers of LEARNERS as they are, and these
# regressors (LEARNERS' regressors use small steps chosen to exercise the API:
# KernelOGD with Laplacian(2.0), eta=0.2 reaches R^2 = 0.41 there).
# LKMBooks needs its horizon T for partial_fit; Theorem 3's step size for a long
# horizon underfits the 200-row check, so the step is given here.
OWN_SETTINGS = [
    lambda: okl.LKMBooks(B=50, T=1000, lam=0.5, seed=1),
]
_OWN = {type(make()) for make in OWN_SETTINGS}
SKLEARN_CASES = [make for make in LEARNERS
                 if make().is_classifier and type(make()) not in _OWN] + OWN_SETTINGS + [
    lambda: okl.KernelOGD(kernel=okl.Laplacian(5.0), loss="squared", eta=0.3),
    lambda: okl.KernelOGD(kernel=okl.Gaussian(3.0), loss="absolute", eta=0.3),
    lambda: okl.NORMA(kernel=okl.Gaussian(3.0), loss="squared", lam=0.01, tau=100),
    lambda: okl.NORMA(kernel=okl.Gaussian(3.0), loss="nu_epsilon", nu=0.3, lam=0.01),
    lambda: okl.NORMA(kernel=okl.Gaussian(3.0), loss="huber", lam=0.01),
    lambda: okl.KernelAWV(kernel=okl.Gaussian(3.0), lam=1.0),
    lambda: okl.PKAWV(basis="taylor", kernel=okl.Gaussian(3.0), lam=1.0, M=2),
    # the selection baselines: T for partial_fit; wide kernels and larger steps than the
    # papers' 5/sqrt(T) for one pass over the 200-row regression check
    lambda: okl.BOKS(kernels=[okl.Gaussian(3.0), okl.Gaussian(6.0)], loss="absolute", B=200,
                     T=1000, lam=0.5, importance_weighted=False, seed=0),
    lambda: okl.BOMKR(kernels=[okl.Gaussian(3.0), okl.Gaussian(6.0)], B=400, T=1000,
                      eta=0.5, lam=0.01),
    lambda: okl.BOMKRV(kernels=[okl.Gaussian(3.0), okl.Gaussian(6.0)], B=200, T=1000,
                       eta=0.5, lam=0.01),
    lambda: okl.NORMAReplace(kernel=okl.Gaussian(3.0), B=400, eta=0.5, lam=0.01),
    # any binary learner on K classes (check_estimator's multiclass checks)
    lambda: okl.OneVsRest(okl.Perceptron()),
    lambda: okl.OneVsOne(okl.BOGD(B=50, seed=0)),
]


@pytest.mark.parametrize("make", SKLEARN_CASES, ids=_id)
def test_check_estimator(make):
    check_estimator(estimator(make()))


def test_every_learner_class_is_checked():
    checked = {type(make()) for make in SKLEARN_CASES}
    learners = {entry.cls for entry in okl.learners.entries().values()
                if entry.cls.__module__.startswith("okl.")}
    assert learners <= {getattr(okl, name) for name in okl.__all__}
    missing = {cls for cls in learners if not any(issubclass(c, cls) for c in checked)}
    assert not missing, sorted(c.__name__ for c in missing)


@pytest.mark.parametrize("make", LEARNERS, ids=_id)
def test_fit_is_one_run_of_a_fresh_learner(make):
    X, y = xor_stream(300, 3, seed=4)
    spec = make()
    target = np.where(y > 0, "yes", "no") if spec.is_classifier else X[:, 0] - X[:, 2]
    est = estimator(spec).fit(X, target)
    assert spec.n_rounds == 0, "the specification itself is never trained"
    reference = make()
    reference.run(X, y if spec.is_classifier else target)
    f = est.decision_function(X) if spec.is_classifier else est.predict(X)
    g = reference.decision_function(X)
    if getattr(spec, "task", None) == "multiclass":       # two classes: f_1 - f_0
        g = g[:, 1] - g[:, 0]
    np.testing.assert_array_equal(f, g)
    if spec.is_classifier:
        assert list(est.classes_) == ["no", "yes"]
        np.testing.assert_array_equal(est.predict(X), np.where(f >= 0, "yes", "no"))
    else:
        np.testing.assert_array_equal(est.predict(X), f)


def test_partial_fit_continues_the_stream():
    X, y = xor_stream(400, 3, seed=5)
    whole = OnlineClassifier(okl.NORMA(kernel=okl.Gaussian(1.0), lam=0.05, tau=60)).fit(X, y)
    parts = OnlineClassifier(okl.NORMA(kernel=okl.Gaussian(1.0), lam=0.05, tau=60))
    parts.partial_fit(X[:150], y[:150], classes=[-1, 1])
    parts.partial_fit(X[150:], y[150:])
    np.testing.assert_array_equal(parts.decision_function(X), whole.decision_function(X))
    assert parts.learner_.n_rounds == 400


def test_partial_fit_checks_classes():
    X, y = xor_stream(50, 3, seed=6)
    clf = OnlineClassifier()
    with pytest.raises(ValueError, match="exactly 2 classes"):
        clf.partial_fit(X[:5], np.ones(5))               # one class and none declared
    clf.partial_fit(X, y, classes=[-1, 1])
    before = clf.decision_function(X)
    with pytest.raises(ValueError, match="outside classes_"):
        clf.partial_fit(X[:3], np.array([1, 2, 1]))
    with pytest.raises(ValueError, match="differ from the classes"):
        clf.partial_fit(X[:3], y[:3], classes=[0, 1])
    np.testing.assert_array_equal(clf.decision_function(X), before)  # nothing learned


def test_wrong_task_is_refused():
    X, y = xor_stream(20, 3, seed=1)
    with pytest.raises(ValueError, match="is a classifier: wrap it in OnlineClassifier"):
        OnlineRegressor(okl.Perceptron()).fit(X, y)
    with pytest.raises(ValueError, match="is a regressor: wrap it in OnlineRegressor"):
        OnlineClassifier(okl.KernelOGD(loss="squared")).fit(X, y)
    with pytest.raises(ValueError, match="okl online learner"):
        OnlineClassifier("Perceptron").fit(X, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        OnlineClassifier().fit(X[:3], [0, 1, 2])


def test_clone_pipeline_cross_validation_and_grid_search():
    X, y = xor_stream(600, 2, seed=7)
    clf = OnlineClassifier(okl.NORMA(kernel=okl.Gaussian(1.0), lam=0.01, tau=200))
    twin = clone(clf)
    assert twin.learner is not clf.learner and repr(twin.learner) == repr(clf.learner)
    pipe = make_pipeline(StandardScaler(), clf)
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.7   # XOR is learnable by a kernel
    grid = GridSearchCV(clf, {"learner__lam": [0.001, 0.5]}, cv=3).fit(X, y)
    assert grid.best_params_["learner__lam"] in (0.001, 0.5)
    assert grid.best_estimator_.learner_.lam == grid.best_params_["learner__lam"]


def test_sparse_input_and_pickling():
    X = sp.random(200, 30, density=0.2, format="csr", random_state=0)
    total = np.asarray(X.sum(axis=1)).ravel()
    y = (total > np.median(total)).astype(int)
    clf = OnlineClassifier(okl.Perceptron(kernel=okl.Gaussian(0.5))).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    dense = OnlineClassifier(okl.Perceptron(kernel=okl.Gaussian(0.5))).fit(X.toarray(), y)
    np.testing.assert_allclose(dense.decision_function(X), clf.decision_function(X),
                               rtol=1e-12, atol=1e-12)


def test_set_params_on_a_learner():
    learner = okl.NORMA(lam=0.1, tau=10)
    learner.set_params(lam=0.3)
    assert learner.lam == 0.3 and learner.tau == 10
    with pytest.raises(ValueError, match="no parameter"):
        learner.set_params(bogus=1)
    X, y = xor_stream(10, 2)
    learner.run(X, y)
    with pytest.raises(ValueError, match="has learned 10 rounds"):
        learner.set_params(lam=0.2)
    assert learner.lam == 0.3
