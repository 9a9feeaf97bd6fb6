"""The bad-input matrix: every learner of the learner registry x every entry point x
every kind of bad input gets a ``ValueError`` naming the problem, and nothing changes.

"Nothing changes" is checked on the pickled learner (its whole state: rounds, support
set, typed buffers, random generator, per-run records): the bytes before and after a
refused call are equal, on a fresh learner (the first call must not even fix ``d``)
and on one that has learned 40 rounds.

Learners join by themselves: every learner of the learner registry is covered by the
examples it declares (``conftest.LEARNERS``); one that declares none fails
``test_every_exported_learner_is_covered``.
docs/bad_input.rst lists what each bad input gets.
"""
import inspect

import numpy as np
import pytest
import scipy.sparse as sp

import okl
import okl.learners
from conftest import LEARNERS, xor_stream

D = 3          # width of the streams
WARM = 40      # rounds learned before the mid-stream checks


# ----------------------------------------------------------------------------
# the learners
# ----------------------------------------------------------------------------

#: every learner okl ships: the learner registry
LEARNER_CLASSES = [entry.cls for entry in okl.learners.entries().values()
                   if entry.cls.__module__.startswith("okl.")]


#: every learner's declared examples (a class without one fails the test below)
CASES = list(LEARNERS)


def _case_id(make):
    try:
        return repr(make())[:60]
    except Exception as exc:  # reported by test_every_exported_learner_is_covered
        return f"unbuildable-{getattr(make, '__name__', 'factory')}-{type(exc).__name__}"


def test_every_exported_learner_is_covered():
    built = {type(make()) for make in CASES}
    missing = [cls.__name__ for cls in LEARNER_CLASSES
               if not any(issubclass(t, cls) for t in built)]
    assert not missing, f"declare examples=[...] in register_learner for {missing}"
    assert len(LEARNER_CLASSES) >= 20


# ----------------------------------------------------------------------------
# the bad inputs
# ----------------------------------------------------------------------------

def _with(X, value, at=4):
    X = np.array(X, dtype=float)
    X.flat[at] = value
    return X


def _stream():
    X, y = xor_stream(WARM + 20, D, seed=11)
    return X, y


def _labels(learner, X, y):
    return y if learner.is_classifier else X[:, 0] - 0.3 * X[:, 1]


# The bad batches and rows, the entry points and the "state unchanged" check are okl's
# contract (okl.testing.BAD_BATCHES / BAD_ROWS, rule "bad input"), run over every
# learner's examples by tests/test_contract.py.
from okl.testing import BAD_BATCHES, _refused  # noqa: E402
from okl.testing import state_bytes as _state  # noqa: E402


def test_the_matrix_checks_can_fail():
    """The harness itself: a call that changes state or raises the wrong thing is caught."""
    learner = okl.Perceptron()
    problems = []
    before = _state(learner)
    _refused(lambda: learner.learn_one([1.0, 2.0], 1.0), "x", before, learner, problems,
             "accepted")
    _refused(lambda: (_ for _ in ()).throw(TypeError("t")), "x", _state(learner), learner,
             problems, "type error")
    _refused(lambda: (_ for _ in ()).throw(ValueError("other")), "NaN", _state(learner),
             learner, problems, "message")
    assert [p.split(":")[0] for p in problems] == ["accepted", "accepted", "type error",
                                                   "message"]


# ----------------------------------------------------------------------------
# the scikit-learn estimators
# ----------------------------------------------------------------------------

SK_BATCHES = [
    ("NaN in X", lambda X: _with(X, np.nan), None, "NaN"),
    ("inf in X", lambda X: _with(X, np.inf), None, "infinity"),
    ("NaN in CSR X", lambda X: sp.csr_matrix(_with(X, np.nan)), None, "NaN"),
    ("wrong width", lambda X: np.c_[X, X[:, :1]], None, "features"),
    ("3-D array", lambda X: X.reshape(len(X), D, 1), None, "dim 3|2D|2-D"),
    ("strings", lambda X: np.full(X.shape, "a"), None, "string|float|numeric"),
    ("empty batch", lambda X: X[:0], None, "0 sample"),
    ("label NaN", None, lambda y: np.where(np.arange(len(y)) == 5, np.nan, y), "NaN"),
    ("third class", None, lambda y: np.where(np.arange(len(y)) == 5, 7.0, y),
     "outside classes_|Only binary"),
    ("too few labels", None, lambda y: y[:-1], "inconsistent numbers of samples"),
]

@pytest.mark.parametrize("make", CASES, ids=_case_id)
def test_sklearn_estimator_bad_input(make):
    from okl.sklearn import estimator

    X, y = _stream()
    spec = make()
    if not spec.needs_labels:
        pytest.skip("novelty detection is not wrapped as a scikit-learn estimator")
    est = estimator(spec)
    yy = _labels(spec, X, y)
    if spec.is_classifier:      # any two labels: the learner sees -1/+1
        yy = np.where(yy > 0, 3.0, 0.0)
    est.fit(X[:WARM], yy[:WARM])
    Xb, yb = X[WARM:], yy[WARM:]
    before = _state(est)
    problems = []
    for name, fx, fy, message in SK_BATCHES:
        if name == "third class" and not spec.is_classifier:
            continue
        entries = {"partial_fit": lambda A, b: est.partial_fit(A, b)}
        if fy is None:
            entries["predict"] = lambda A, b: est.predict(A)
            if hasattr(est, "decision_function"):
                entries["decision_function"] = lambda A, b: est.decision_function(A)
        for entry, call in entries.items():
            A = Xb if fx is None else fx(Xb)
            b = yb if fy is None else fy(yb)
            _refused(lambda: call(A, b), message, before, est, problems, f"{entry}, {name}")
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------
# the other learner families of okl.learners.__all__
# ----------------------------------------------------------------------------

def _experts():
    from okl.learners.experts import _ExpertsLearner

    return [getattr(okl.learners, name) for name in okl.learners.__all__
            if inspect.isclass(getattr(okl.learners, name))
            and issubclass(getattr(okl.learners, name), _ExpertsLearner)]


def _expert(cls):
    if "scales" in cls._param_names:                 # MSMW: losses of action k in [0, c_k]
        return cls(scales=[1.0] * 4, horizon=100, seed=0)
    return cls(n_actions=4, horizon=100, seed=0)


EXPERT_LOSSES = [
    ("NaN", lambda L: _with(L, np.nan, at=6), "NaN or infinity"),
    ("inf", lambda L: _with(L, np.inf, at=6), "NaN or infinity"),
    ("wrong width", lambda L: L[:, :3], "columns|actions"),
    ("3-D", lambda L: L.reshape(len(L), 4, 1), "2-D"),
    ("strings", lambda L: L.astype(str), "numeric"),
    ("empty", lambda L: L[:0], "empty"),
    ("outside the range", lambda L: _with(L, 5.0, at=6), "range"),
]


@pytest.mark.parametrize("cls", _experts(), ids=lambda c: c.__name__)
def test_experts_bad_input(cls):
    assert len(_experts()) >= 3
    rng = np.random.default_rng(0)
    losses = rng.random((30, 4))
    learner = _expert(cls)
    learner.run(losses[:10])
    before = _state(learner)
    problems = []
    for name, f, message in EXPERT_LOSSES:
        _refused(lambda: learner.run(f(losses[10:])), message, before, learner, problems,
                 f"run, {name}")
    assert not problems, "\n".join(problems)


def test_online_to_batch_bad_input():
    X, y = _stream()
    model = okl.OnlineToBatch(okl.Perceptron(), seed=0).fit(X[:WARM], y[:WARM])
    before = _state(model)
    problems = []
    for name, fx, fy, message, kind in BAD_BATCHES:
        if kind in ("fresh", "multiclass"):     # a binary model; classes are a multiclass rule
            continue
        A = X[WARM:] if fx is None else fx(X[WARM:])
        b = y[WARM:] if fy is None else fy(y[WARM:])
        if kind != "warm":      # fit starts a new stream: any width is fine
            _refused(lambda: model.fit(A, b), message, before, model, problems,
                     f"fit, {name}")
        if fy is None:
            _refused(lambda: model.predict(A), message, before, model, problems,
                     f"predict, {name}")
    assert not problems, "\n".join(problems)
