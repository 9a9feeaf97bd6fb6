"""okl.PythonLearner: a learner in plain Python gets everything a built-in learner has,
and okl.testing.check_learner holds it (and catches it breaking) okl's contract.

The oracle of the numpy kernel Perceptron below is okl's own Perceptron (itself tested
against a plain-numpy loop in tests/test_perceptron.py) and a hand-written loop of the
same algorithm: the same scores round for round.
"""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from conftest import xor_stream
from okl.testing import ContractError, check_learner


class NumpyPerceptron(okl.PythonLearner):
    """Kernel Perceptron with a Gaussian kernel, in numpy."""

    def __init__(self, kernel=None, *, grow=64):
        self.kernel = okl.Gaussian(1.0) if kernel is None else kernel
        self.grow = grow
        self.S = None
        self.alpha = np.empty(0)
        self.n = 0

    def score(self, x):
        if self.n == 0:
            return 0.0
        gamma = 1.0 / (2.0 * self.kernel.sigma ** 2)
        d2 = ((self.S[:self.n] - x) ** 2).sum(axis=1)
        return float(np.exp(-gamma * d2) @ self.alpha[:self.n])

    def update(self, x, y, score):
        if y * score <= 0:
            if self.S is None or self.n == len(self.S):
                size = self.grow if self.S is None else 2 * len(self.S)
                S, a = np.empty((size, x.size)), np.empty(size)
                if self.n:
                    S[:self.n], a[:self.n] = self.S[:self.n], self.alpha[:self.n]
                self.S, self.alpha = S, a
            self.S[self.n] = x
            self.alpha[self.n] = y
            self.n += 1
        return max(0.0, -y * score)

    def support_size(self):
        return self.n

    def extras(self):
        return {"n_support": self.n}


class RandomBudgetRegressor(okl.PythonLearner):
    """A seeded regressor: kernel LMS on a budget, a random vector dropped when full."""

    task = "regression"

    def __init__(self, kernel=None, *, B=10, eta=0.2, seed=None):
        self.kernel = okl.Gaussian(1.0) if kernel is None else kernel
        self.B, self.eta, self.seed = B, eta, seed
        self.rng = np.random.default_rng(seed)
        self.S, self.alpha = [], []

    def score(self, x):
        if not self.S:
            return 0.0
        return float(self.kernel(np.asarray(self.S), x[None, :])[:, 0] @ self.alpha)

    def update(self, x, y, score):
        if len(self.S) == self.B:
            i = int(self.rng.integers(self.B))
            del self.S[i], self.alpha[i]
        self.S.append(x)
        self.alpha.append(-self.eta * (score - y))
        return 0.5 * (score - y) ** 2

    def support_size(self):
        return len(self.S)


def hand_loop(X, y, sigma=1.0):
    """The same Perceptron as a plain loop (the oracle)."""
    S, alpha, scores = [], [], []
    for x, label in zip(X, y):
        f = 0.0
        if S:
            f = float(np.exp(-((np.asarray(S) - x) ** 2).sum(1) / (2 * sigma ** 2))
                      @ np.asarray(alpha))
        scores.append(f)
        if label * f <= 0:
            S.append(x)
            alpha.append(label)
    return np.asarray(scores), len(S)


def test_a_python_learner_equals_its_hand_written_loop_and_okls_perceptron():
    X, y = xor_stream(800, 4, seed=3)
    tr = NumpyPerceptron(kernel=okl.Gaussian(1.5)).run(X, y)
    scores, n = hand_loop(X, y, 1.5)
    np.testing.assert_allclose(tr.scores, scores, rtol=0, atol=1e-12)
    ref = okl.Perceptron(kernel=okl.Gaussian(1.5)).run(X, y)
    np.testing.assert_array_equal(tr.mistakes, ref.mistakes)
    np.testing.assert_allclose(tr.scores, ref.scores, rtol=0, atol=1e-12)
    assert tr.budget[-1] == n == ref.budget[-1]
    np.testing.assert_array_equal(tr.budget, ref.budget)
    np.testing.assert_allclose(tr.losses, np.maximum(0, -y * scores), atol=1e-12)
    assert tr.extras == {"n_support": n}
    assert tr.learner == "NumpyPerceptron(kernel=Gaussian(sigma=1.5), grow=64)"


def test_csr_rows_arrive_as_dense_rows():
    X, y = xor_stream(300, 5, seed=4)
    X[np.abs(X) < 0.8] = 0.0
    dense = NumpyPerceptron().run(X, y)
    sparse = NumpyPerceptron().run(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.scores, sparse.scores)


def test_the_api_of_a_built_in_learner():
    X, y = xor_stream(200, 3, seed=5)
    learner = NumpyPerceptron(kernel=okl.Gaussian(2.0), grow=8)
    assert learner.get_params() == {"kernel": okl.Gaussian(2.0), "grow": 8}
    assert repr(learner) == "NumpyPerceptron(kernel=Gaussian(sigma=2.0), grow=8)"
    assert learner.is_classifier and learner.n_features is None
    learner.partial_fit(X[:100], y[:100])
    for t in range(100, 120):
        learner.learn_one(X[t], y[t])
    assert learner.n_rounds == 120 and learner.n_features == 3
    f = learner.decision_function(X[120:130])
    np.testing.assert_array_equal(learner.predict(X[120:130]), np.where(f >= 0, 1.0, -1.0))
    assert learner.predict_one(X[125]) == (1.0 if f[5] >= 0 else -1.0)
    clone = pickle.loads(pickle.dumps(learner))
    np.testing.assert_array_equal(clone.run(X[120:], y[120:]).scores,
                                  learner.run(X[120:], y[120:]).scores)
    with pytest.raises(ValueError, match="set_params on a NumpyPerceptron that has learned"):
        learner.set_params(grow=4)
    assert NumpyPerceptron().set_params(grow=4).grow == 4


def test_bad_input_is_refused_before_the_python_code_runs():
    learner = NumpyPerceptron()
    learner.run(*xor_stream(30, 3, seed=1))
    before = pickle.dumps(learner)
    for X, y, message in [(np.full((2, 3), np.nan), [1, -1], "NaN"),
                          (np.ones((2, 4)), [1, -1], "features"),
                          (np.ones((2, 3)), [1, 0.5], "-1 or \\+1")]:
        with pytest.raises(ValueError, match=message):
            learner.run(X, y)
        assert pickle.dumps(learner) == before


class Boom(NumpyPerceptron):
    def __init__(self, kernel=None, *, at=5, where="update"):
        super().__init__(kernel)
        self.at, self.where = at, where

    def score(self, x):
        if self.where == "score" and self.n_rounds == self.at:
            raise RuntimeError(f"score failed at {self.n_rounds}")
        if self.where == "nan" and self.n_rounds == self.at:
            return float("nan")
        return super().score(x)

    def update(self, x, y, score):
        if self.where == "update" and self.n_rounds == self.at:
            raise RuntimeError(f"update failed at {self.n_rounds}")
        return super().update(x, y, score)

    def support_size(self):
        if self.where == "size" and self.n_rounds == self.at:
            raise RuntimeError(f"size failed at {self.n_rounds}")
        return self.n


@pytest.mark.parametrize("where,error,kept", [("score", RuntimeError, 6),
                                              ("update", RuntimeError, 6),
                                              ("nan", ValueError, 6),
                                              ("size", RuntimeError, 7)])
@pytest.mark.parametrize("call", ["run", "partial_fit", "learn_one"])
def test_an_exception_in_the_python_code_stops_the_stream_at_its_round(where, error, kept,
                                                                       call):
    """The learner holds the completed rounds (a round whose score or update failed is
    not counted; support_size is asked after a round completed) and learns on from
    there once the cause is gone."""
    X, y = xor_stream(40, 3, seed=2)
    learner = Boom(at=7, where=where)

    def feed():
        if call == "learn_one":
            for t in range(40):
                learner.learn_one(X[t], y[t])
        else:
            getattr(learner, call)(X, y)

    if where == "size" and call != "run":
        feed()          # only run records the budget: support_size is never asked
        assert learner.n_rounds == 40
        return
    with pytest.raises(error):
        feed()
    assert learner.n_rounds == kept
    learner.at = -1
    learner.run(X[kept:], y[kept:])
    np.testing.assert_array_equal(learner.decision_function(X),
                                  _fitted(X, y).decision_function(X))


def _fitted(X, y):
    learner = NumpyPerceptron()
    learner.run(X, y)
    return learner


def test_a_failing_score_in_predict_and_decision_function_raises():
    X, y = xor_stream(20, 3, seed=2)
    learner = Boom(at=20, where="score")
    learner.run(X[:19], y[:19])
    with pytest.raises(RuntimeError, match="score failed"):
        learner.learn_one(X[19], y[19])
    learner.where, learner.at = "nan", 19     # outside a round, n_rounds is 19
    with pytest.raises(ValueError, match="finite float"):
        learner.decision_function(X)
    with pytest.raises(ValueError, match="finite float"):
        learner.predict_one(X[0])
    learner.where = "none"
    assert learner.decision_function(X).shape == (20,)


def test_a_subclass_must_define_score_and_update():
    class Half(okl.PythonLearner):
        def score(self, x):
            return 0.0

    with pytest.raises(TypeError, match="must define update"):
        Half()

    with pytest.raises(TypeError, match="task"):
        class Odd(okl.PythonLearner):
            task = "ranking"


def test_python_learners_pass_check_learner():
    check_learner(NumpyPerceptron, kernel=okl.Gaussian(1.0))
    check_learner(RandomBudgetRegressor, B=8, seed=3)


# ---------------------------------------------------------------------------------
# deliberately broken copies: check_learner names the rule they break
# ---------------------------------------------------------------------------------

class ForgetsParameter(NumpyPerceptron):
    def __init__(self, kernel=None, *, C=1.0):
        super().__init__(kernel)
        self.c = C                  # stored under another name: get_params cannot read it


class ScoreChangesState(NumpyPerceptron):
    def score(self, x):
        self.n_calls = getattr(self, "n_calls", 0) + 1
        return super().score(x) + 1e-3 * (self.n_calls % 2)


class UnseededDraws(RandomBudgetRegressor):
    def update(self, x, y, score):
        self.rng = np.random.default_rng()   # not from the seed
        return super().update(x, y, score)


_SHARED = []


class SharedMemory(NumpyPerceptron):
    """Keeps its support vectors in a module-level list: pickles lose them."""

    def score(self, x):
        if not _SHARED:
            return 0.0
        S = np.asarray([s for s, _ in _SHARED])
        a = np.asarray([a for _, a in _SHARED])
        return float(np.exp(-((S - x) ** 2).sum(1) / 2.0) @ a)

    def update(self, x, y, score):
        if y * score <= 0:
            _SHARED.append((x, y))
        return max(0.0, -y * score)


@pytest.mark.parametrize("cls,rule,params", [
    (ForgetsParameter, "parameters", {"C": 2.0}),
    (ScoreChangesState, "one stream", {}),
    (UnseededDraws, "seed", {"seed": 1}),
    (SharedMemory, "pickling", {}),
])
def test_check_learner_names_the_rule_a_broken_learner_breaks(cls, rule, params):
    _SHARED.clear()
    with pytest.raises(ContractError) as info:
        check_learner(cls, rules=[rule], **params)
    assert info.value.rule == rule
    assert f"{cls.__name__} breaks the rule {rule!r}" in str(info.value)
    assert isinstance(info.value, AssertionError)


def test_check_learner_names_the_round():
    with pytest.raises(ContractError, match=r"at round 1:") as info:
        check_learner(ScoreChangesState, rules=["one stream"])
    assert info.value.round == 1


def test_a_learner_that_mutates_before_validating_breaks_bad_input(monkeypatch):
    """A built-in learner whose run changes its state before the checks fail."""
    from okl.learners import base

    original = base.OnlineLearner._checked

    def careless(self, X, y):
        self._core_restore({**self._core_state(), "t": self.n_rounds + 1})
        return original(self, X, y)

    monkeypatch.setattr(base.OnlineLearner, "_checked", careless)
    with pytest.raises(ContractError, match="(?s)bad input.*state changed"):
        check_learner(okl.Perceptron, rules=["bad input"])


# ---------------------------------------------------------------------------------
# okl's scikit-learn and River wrappers take a Python learner as they take any other
# ---------------------------------------------------------------------------------

def test_scikit_learn_estimator_checks_pass_on_a_python_learner():
    from sklearn.utils.estimator_checks import check_estimator

    from okl.sklearn import estimator

    check_estimator(estimator(NumpyPerceptron(kernel=okl.Gaussian(3.0))))
    reg = RandomBudgetRegressor(kernel=okl.Gaussian(3.0), B=200, eta=0.5, seed=0)
    check_estimator(estimator(reg))


def test_river_estimator_checks_pass_on_a_python_learner():
    import warnings

    pytest.importorskip("river")
    from river import checks

    from okl.river import Classifier

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="okl.river: feature", category=UserWarning)
        checks.check_estimator(Classifier(NumpyPerceptron(kernel=okl.Gaussian(1.5))))
