"""okl's learner contract as one suite: :func:`check_learner`.

Every learner okl ships passes it (``tests/test_contract.py``), and a learner of your own
(an :class:`okl.PythonLearner` subclass, or a Cython core of your own) can be held to the
same rules, the way scikit-learn's ``check_estimator`` and River's ``yield_checks`` hold
estimators to theirs::

    from okl.testing import check_learner
    check_learner(MyLearner, C=1.0)             # raises AssertionError naming the rule

The rules (:data:`RULES`), each on small generated streams (width 3, a few hundred
rounds, labels by a nonlinear rule; real-valued labels for a regressor):

``parameters``
    ``get_params()`` holds the constructor's parameters under their names, the learner
    rebuilt from them has the same ``repr``, and ``set_params`` with them is accepted.
``bad input``
    NaN, infinity, the wrong width, the wrong shape, non-numeric values, empty batches
    and labels outside the task (a classifier's labels are -1 and +1), given to
    ``run``, ``partial_fit``, ``learn_one``, ``predict_one``, ``decision_function`` and
    ``predict`` on a fresh learner and on one that has learned 40 rounds, raise a
    ``ValueError`` naming the problem, and the learner's state (its pickle) is unchanged.
``one stream``
    ``run`` over the stream, ``partial_fit`` over chunks of it, and ``learn_one`` round
    by round learn the same thing: the score of every round (``decision_function``
    before ``learn_one``) equals ``run``'s, ``predict_one`` agrees with it, and the three
    learners end in the same state (rounds, scores, continuation).
``pickling``
    A learner pickled at any of several points of its stream (the start, early, the
    middle, the end) and unpickled continues exactly as the uninterrupted learner:
    the same per-round scores, losses, mistakes and budget, bitwise.
``seed``
    Two learners built with the same parameters (and seed) make the same run.
``threads``
    Several threads making mixed calls on one learner lose no round, and the result
    equals the calls replayed one after the other in the order the learner's lock
    admitted them (its state and every answer a read call gave).

A broken rule raises :class:`ContractError` (an ``AssertionError``) whose message names
the rule, the learner and, where there is one, the round.
"""
from __future__ import annotations

import io
import pickle
import re
import sys
import threading
import time

import numpy as np

__all__ = ["check_learner", "yield_checks", "ContractError", "RULES"]

RULES = ("parameters", "bad input", "one stream", "pickling", "seed", "threads")

D = 3                 # width of the generated streams
N_ROUNDS = 240        # rounds of the stream most rules use
WARM = 40             # rounds learned before the mid-stream bad-input checks
N_THREADS = 6
ROWS_PER_THREAD = 80        # 480 rounds in all


class ContractError(AssertionError):
    """A learner broke a rule of okl's contract (``.rule``, ``.round``: ``None`` if no round)."""

    def __init__(self, rule, learner, message, round=None):
        self.rule = rule
        self.round = round
        where = f" at round {round}" if round is not None else ""
        super().__init__(f"{learner} breaks the rule {rule!r}{where}: {message}")


# ----------------------------------------------------------------------------------
# entry points
# ----------------------------------------------------------------------------------

def check_learner(learner_class, /, *, rules=None, **params) -> None:
    """Hold ``learner_class(**params)`` to okl's learner contract (module docstring).

    Parameters
    ----------
    learner_class : type
        An okl learner class (a subclass of :class:`okl.OnlineLearner`, e.g. of
        :class:`okl.PythonLearner`).
    rules : iterable of str, optional
        A subset of :data:`RULES` (default: all of them).
    **params
        Constructor parameters.  A learner with a ``seed`` parameter and no seed given
        is built with ``seed=1234`` (an unseeded generator draws differently in each
        instance, by design).  A learner with a horizon ``T`` needs ``T >= 480``.

    Raises
    ------
    ContractError
        (an ``AssertionError``) naming the rule that broke, the learner and the round.
    """
    for _, check in yield_checks(learner_class, rules=rules, **params):
        check()


def yield_checks(learner_class, /, *, rules=None, **params):
    """``(rule, check)`` pairs, one per rule: ``check()`` runs it (for pytest's
    ``parametrize``, as River's ``yield_checks``)."""
    make = _factory(learner_class, params)
    chosen = RULES if rules is None else tuple(rules)
    unknown = [r for r in chosen if r not in RULES]
    if unknown:
        raise ValueError(f"unknown rule(s) {unknown}; rules: {list(RULES)}")
    for rule in chosen:
        yield rule, (lambda rule=rule: _CHECKS[rule](make))


def _factory(cls, params):
    from okl.learners.base import OnlineLearner

    if not (isinstance(cls, type) and issubclass(cls, OnlineLearner)):
        raise TypeError(f"check_learner takes an okl learner class (a subclass of "
                        f"okl.OnlineLearner), got {cls!r}")
    params = dict(params)
    probe = cls(**params)
    if "seed" in type(probe)._param_names and params.get("seed") is None:
        params["seed"] = 1234
    if _multiclass(probe) and "classes" in type(probe)._param_names \
            and params.get("classes") is None:
        # the rules cut streams anywhere (a first chunk may show one class): the
        # classes of the generated streams, given up front as sklearn's partial_fit wants
        params["classes"] = [0, 1, 2]

    def make():
        return cls(**params)

    make.__name__ = f"{cls.__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
    return make


# ----------------------------------------------------------------------------------
# streams and helpers
# ----------------------------------------------------------------------------------

def stream(T=N_ROUNDS, d=D, seed=0, noise=0.1):
    """``(X, y)``: ``x ~ N(0, I_d)``, ``y = sign(x_1 x_2 + noise)`` (kernel learners keep
    adding support vectors)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    y = np.sign(X[:, 0] * X[:, 1] + noise * rng.normal(size=T))
    y[y == 0] = 1.0
    return X, y


def _multiclass(learner) -> bool:
    return getattr(learner, "task", None) == "multiclass"


def labels(learner, X, y):
    """``y`` for a classifier, three classes by a nonlinear rule for a multiclass learner
    (labels 0, 1, 2), a smooth real target for a regressor."""
    if _multiclass(learner):
        return np.digitize(X[:, 0] * X[:, 1] + 0.3 * X[:, 2], [-0.3, 0.4]).astype(np.int64)
    return y if learner.is_classifier else X[:, 0] - 0.3 * X[:, 1]


def state_bytes(learner) -> bytes:
    """The learner's whole state: its pickle, written without pickle's memo (equal for
    equal states whatever objects they share)."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(learner)
    return buf.getvalue()


def _first_difference(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return None
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        same = (a == b) | (np.isnan(a) & np.isnan(b))
    else:
        same = a == b
    diff = np.flatnonzero(~np.asarray(same))
    return int(diff[0]) if diff.size else None


def _same_learning(rule, name, a, b, X, y, what):
    """``a`` and ``b`` hold the same hypothesis: rounds, scores on ``X``, and the same
    continuation (both learn ``X[:20]``, so both change)."""
    if a.n_rounds != b.n_rounds:
        raise ContractError(rule, name, f"{what}: {a.n_rounds} rounds against {b.n_rounds}")
    fa, fb = a.decision_function(X), b.decision_function(X)
    i = _first_difference(fa, fb)
    if i is not None:
        raise ContractError(rule, name, f"{what}: after round {a.n_rounds} they score row "
                                        f"{i} {fa[i]!r} and {fb[i]!r}")
    ya = labels(a, X, y)[:20]
    ca, cb = a.run(X[:20], ya).scores, b.run(X[:20], ya).scores
    i = _first_difference(ca, cb)
    if i is not None:
        raise ContractError(rule, name, f"{what}: continuing the stream, they score "
                                        f"{ca[i]!r} and {cb[i]!r}", round=a.n_rounds - 20 + i + 1)


# ----------------------------------------------------------------------------------
# parameters
# ----------------------------------------------------------------------------------

def _check_parameters(make):
    import inspect

    rule, learner = "parameters", make()
    name = type(learner).__name__
    try:
        params = learner.get_params()
    except AttributeError as exc:
        raise ContractError(rule, name, f"get_params() raised AttributeError: {exc} (the "
                                        f"constructor must store each parameter under its "
                                        f"own name)") from exc
    cls = type(learner)
    sig = inspect.signature(cls.__init__)
    declared = [p.name for p in list(sig.parameters.values())[1:]
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if not set(declared) <= set(params):
        raise ContractError(rule, name, f"get_params() has {sorted(params)}, the "
                                        f"constructor takes {declared}")
    try:
        again = cls(**params)
    except Exception as exc:  # noqa: BLE001 - reported as the rule's failure
        raise ContractError(rule, name, f"{name}(**get_params()) raised "
                                        f"{type(exc).__name__}: {exc}") from exc
    if repr(again) != repr(learner):
        raise ContractError(rule, name, f"rebuilt from get_params() it is {again!r}, not "
                                        f"{learner!r}")
    try:
        learner.set_params(**params)
    except Exception as exc:  # noqa: BLE001
        raise ContractError(rule, name, f"set_params(**get_params()) raised "
                                        f"{type(exc).__name__}: {exc}") from exc


# ----------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------

def _with(X, value, at=4):
    X = np.array(X, dtype=float)
    X.flat[at] = value
    return X


def _csr(A):
    import scipy.sparse as sp

    return sp.csr_matrix(A)


def _mark(y, value):
    return np.where(np.arange(len(y)) == 5, value, y)


#: (name, X transform, y transform, message pattern, applies to): batches of 20+ rounds
BAD_BATCHES = [
    ("NaN in X", lambda X: _with(X, np.nan), None, "NaN or infinity", "all"),
    ("inf in X", lambda X: _with(X, np.inf), None, "NaN or infinity", "all"),
    ("-inf in X", lambda X: _with(X, -np.inf, at=13), None, "NaN or infinity", "all"),
    ("NaN in CSR X", lambda X: _csr(_with(X, np.nan)), None, "NaN or infinity", "all"),
    ("inf in CSR X", lambda X: _csr(_with(X, np.inf)), None, "NaN or infinity", "all"),
    ("wrong width", lambda X: np.c_[X, X[:, :1]], None, "features", "warm"),
    ("wrong width CSR", lambda X: _csr(X[:, :2]), None, "features", "warm"),
    ("3-D array", lambda X: X.reshape(len(X), X.shape[1], 1), None, "2-D", "all"),
    ("1-D array", lambda X: X[0], None, "2-D", "all"),
    ("strings", lambda X: X.astype(str), None, "numeric", "all"),
    ("objects", lambda X: np.array([[object()] * X.shape[1]] * len(X)), None, "numeric",
     "all"),
    ("ragged list", lambda X: [list(r) for r in X[:3]] + [[1.0]], None, "2-D|numeric",
     "all"),
    ("empty batch", lambda X: X[:0], None, "empty", "all"),
    ("empty CSR batch", lambda X: _csr(X[:0]), None, "empty", "all"),
    ("no features", lambda X: X[:, :0], None, "no features", "fresh"),
    ("complex", lambda X: X.astype(complex), None, "numeric", "all"),
    ("label 0", None, lambda y: _mark(y, 0.0), "-1 or \\+1", "binary"),
    ("label 2", None, lambda y: _mark(y, 2.0), "-1 or \\+1", "binary"),
    ("label outside the classes", None, lambda y: _mark(y, 7), "outside the classes",
     "multiclass"),
    ("label NaN", None, lambda y: _mark(y, np.nan), "NaN or infinity", "labels"),
    ("label inf", None, lambda y: _mark(y, np.inf), "NaN or infinity", "labels"),
    ("string labels", None, lambda y: y.astype(str), "numeric", "numeric"),
    ("2-D labels", None, lambda y: y.reshape(-1, 1), "1-D", "labels"),
    ("too few labels", None, lambda y: y[:-1], "labels for", "labels"),
    ("too many labels", None, lambda y: np.r_[y, y[:1]], "labels for", "labels"),
]

#: (name, x transform of one good row, y transform of its label, message, applies to)
BAD_ROWS = [
    ("NaN in x", lambda x: _with(x, np.nan, at=1), None, "NaN or infinity", "all"),
    ("inf in x", lambda x: _with(x, np.inf, at=0), None, "NaN or infinity", "all"),
    ("NaN in a list", lambda x: [float(x[0]), float("nan")] + [float(v) for v in x[2:]],
     None, "NaN or infinity", "all"),
    ("NaN in a CSR row", lambda x: _csr(_with(x, np.nan, at=2).reshape(1, -1)), None,
     "NaN or infinity", "all"),
    ("inf in a (1, d) row", lambda x: _with(x, -np.inf, at=2).reshape(1, -1), None,
     "NaN or infinity", "all"),
    ("wrong width", lambda x: np.r_[x, 1.0], None, "features", "warm"),
    ("wrong width CSR", lambda x: _csr(x[:2].reshape(1, -1)), None, "features", "warm"),
    ("two rows", lambda x: np.vstack([x, x]), None, "single example", "all"),
    ("3-D", lambda x: x.reshape(1, len(x), 1), None, "2-D", "all"),
    ("strings", lambda x: x.astype(str), None, "numeric", "all"),
    ("empty row", lambda x: x[:0], None, "no features", "all"),
    ("label 0", None, lambda y: 0.0, "-1 or \\+1", "binary"),
    ("label 2", None, lambda y: 2, "-1 or \\+1", "binary"),
    ("label outside the classes", None, lambda y: 7, "outside the classes",
     "multiclass"),
    ("label NaN", None, lambda y: float("nan"), "NaN or infinity", "labels"),
    ("label inf", None, lambda y: np.float64(np.inf), "NaN or infinity", "labels"),
    ("string label", None, lambda y: "1", "numeric", "numeric"),
    ("two labels", None, lambda y: [y, y], "labels for", "labels"),
]


def _applies(kind, learner, warm, has_labels):
    if kind == "warm":
        return warm
    if kind == "fresh":
        return not warm
    if kind == "binary":
        return learner.is_classifier and has_labels and not _multiclass(learner)
    if kind == "multiclass":         # a label outside the classes a learner has
        return _multiclass(learner) and has_labels and learner.classes_ is not None
    if kind == "numeric":            # a multiclass learner takes string labels
        return has_labels and not _multiclass(learner)
    if kind == "labels":
        return has_labels
    return True


def _refused(call, message, before, learner, problems, what):
    try:
        call()
    except ValueError as exc:
        if not re.search(message, str(exc)):
            problems.append(f"{what}: ValueError {str(exc)!r} does not match {message!r}")
    except Exception as exc:  # noqa: BLE001 - any other exception is a failure
        problems.append(f"{what}: {type(exc).__name__}: {exc} (a ValueError was expected)")
        return
    else:
        problems.append(f"{what}: accepted (a ValueError matching {message!r} was expected)")
    if state_bytes(learner) != before:
        problems.append(f"{what}: the learner's state changed")


def _picklable(rule, learner):
    try:
        return state_bytes(learner)
    except Exception as exc:  # noqa: BLE001 - reported as the rule's failure
        raise ContractError("pickling", type(learner).__name__,
                            f"pickling raised {type(exc).__name__}: {exc} (needed by the "
                            f"rule {rule!r} to compare states; a learner class must be "
                            f"importable by name and its attributes must pickle)") from exc


def bad_input_problems(make, X=None, y=None, warm=WARM) -> list[str]:
    """Every bad input of :data:`BAD_BATCHES` and :data:`BAD_ROWS` at every entry point,
    on a fresh learner and after ``warm`` rounds: the list of what went wrong."""
    if X is None:
        X, y = stream(warm + 40, seed=3)
    problems = []
    for is_warm in (False, True):
        learner = make()
        yy = labels(learner, X, y)
        if is_warm:
            learner.run(X[:warm], yy[:warm])
        Xb, yb = X[warm:], yy[warm:]
        before = _picklable("bad input", learner)
        tag = "warm" if is_warm else "fresh"
        batch_entries = {
            "run": lambda A, b: learner.run(A, b),
            "partial_fit": lambda A, b: learner.partial_fit(A, b),
            "decision_function": lambda A, b: learner.decision_function(A),
            "predict": lambda A, b: learner.predict(A),
        }
        row_entries = {
            "learn_one": lambda a, b: learner.learn_one(a, b),
            "predict_one": lambda a, b: learner.predict_one(a),
        }
        x0, y0 = Xb[0], yb[0]
        # (bad inputs, entry points, those that take labels, the good input they spoil)
        for bad, entries, labelled, good_x, good_y in (
                (BAD_BATCHES, batch_entries, ("run", "partial_fit"), Xb, yb),
                (BAD_ROWS, row_entries, ("learn_one",), x0, y0)):
            for name, fx, fy, message, kind in bad:
                for entry, call in entries.items():
                    has_labels = entry in labelled
                    if fx is None and not has_labels:
                        continue
                    if not _applies(kind, learner, is_warm,
                                    has_labels and learner.needs_labels):
                        continue
                    A = good_x if fx is None else fx(good_x)
                    b = good_y if fy is None else fy(good_y)
                    _refused(lambda: call(A, b), message, before, learner, problems,
                             f"{tag} {entry}, {name}")
        # after all that, the learner still learns and matches a clean copy
        clean = make()
        if is_warm:
            clean.run(X[:warm], yy[:warm])
        if _multiclass(learner) and learner.classes_ is None:
            learner.partial_fit(Xb[:20], yb[:20])       # learn_one needs the classes
            clean.partial_fit(Xb[:20], yb[:20])
        elif learner.needs_labels:
            learner.learn_one(x0, y0)
            clean.learn_one(x0, y0)
        if learner.n_rounds != clean.n_rounds or not np.array_equal(
                learner.decision_function(X), clean.decision_function(X)):
            problems.append(f"{tag}: after the refused calls the learner learns differently "
                            f"from a copy that never saw them")
    return problems


def _check_bad_input(make):
    problems = bad_input_problems(make)
    if problems:
        name = type(make()).__name__
        shown = "\n  ".join(problems[:12])
        more = f"\n  ... and {len(problems) - 12} more" if len(problems) > 12 else ""
        raise ContractError("bad input", name, f"{len(problems)} problem(s):\n  {shown}{more}")


# ----------------------------------------------------------------------------------
# one stream: run, partial_fit, learn_one
# ----------------------------------------------------------------------------------

def _check_one_stream(make):
    rule = "one stream"
    X, y = stream(N_ROUNDS, seed=9)
    a, b, c = make(), make(), make()
    name = type(a).__name__
    y = labels(a, X, y)
    tr = a.run(X, y)
    if tr.n_rounds != len(y):
        raise ContractError(rule, name, f"run returned a trace of {tr.n_rounds} rounds "
                                        f"for a stream of {len(y)}")
    multi = _multiclass(a)
    if multi and c.classes_ is None:       # learn_one needs the classes up front
        c.set_params(classes=np.unique(y).tolist())
    for t in range(len(y)):
        f = c.decision_function(X[t:t + 1])[0]
        ran = tr.class_scores[t] if multi else tr.scores[t]
        if not np.array_equal(f, ran):
            raise ContractError(rule, name, f"decision_function before learn_one gives "
                                            f"{f!r}, run scored {ran!r}", round=t + 1)
        p = c.predict_one(X[t])
        if multi:
            expected = c.classes_[int(np.argmax(f))]
        else:
            expected = (1.0 if f >= 0 else -1.0) if c.is_classifier else f
        if p != expected:
            raise ContractError(rule, name, f"predict_one gives {p!r} where the score "
                                            f"{f!r} means {expected!r}", round=t + 1)
        c.learn_one(X[t], y[t])
    rng = np.random.default_rng(0)
    cuts = np.sort(rng.choice(np.arange(1, len(y)), size=6, replace=False))
    for chunk in np.split(np.arange(len(y)), cuts):
        if b.partial_fit(X[chunk], y[chunk]) is not b:
            raise ContractError(rule, name, "partial_fit does not return the learner")
    Xp, yp = stream(60, seed=10)
    _same_learning(rule, name, a, c, Xp, yp, "run and learn_one round by round differ")
    again = make()                  # _same_learning continues both learners' streams
    again.run(X, y)
    _same_learning(rule, name, again, b, Xp, yp, "run and partial_fit in chunks differ")


# ----------------------------------------------------------------------------------
# pickling
# ----------------------------------------------------------------------------------

def _check_pickling(make):
    rule = "pickling"
    X, y = stream(N_ROUNDS, seed=21)
    full = make()
    name = type(full).__name__
    y = labels(full, X, y)
    whole = full.run(X, y)
    T = len(y)
    for cut in sorted({0, 1, 7, T // 3, T // 2, T - 1, T}):
        learner = make()
        first = learner.run(X[:cut], y[:cut]) if cut else None
        try:
            clone = pickle.loads(pickle.dumps(learner))
        except Exception as exc:  # noqa: BLE001
            raise ContractError(rule, name, f"pickling after {cut} rounds raised "
                                            f"{type(exc).__name__}: {exc}") from exc
        if repr(clone) != repr(learner):
            raise ContractError(rule, name, f"unpickled it is {clone!r}, not {learner!r}")
        if clone.n_rounds != cut:
            raise ContractError(rule, name, f"unpickled after {cut} rounds it has learned "
                                            f"{clone.n_rounds}")
        if cut == T:
            _same_learning(rule, name, full, clone, *stream(60, seed=22),
                           "unpickled at the end it differs from the original")
            continue
        rest = clone.run(X[cut:], y[cut:])
        for field in ("scores", "losses", "mistakes", "budget"):
            got = getattr(rest, field)
            want = getattr(whole, field)
            if got is None and want is None:
                continue
            i = _first_difference(got, want[cut:])
            if i is not None:
                raise ContractError(rule, name, f"pickled after {cut} rounds and resumed, "
                                                f"its {field} is {got[i]!r} where the "
                                                f"uninterrupted run's is {want[cut + i]!r}",
                                    round=cut + i + 1)
        if learner.n_rounds != cut:
            raise ContractError(rule, name, "the original changed when its clone learned")
        del first


# ----------------------------------------------------------------------------------
# seed
# ----------------------------------------------------------------------------------

def _check_seed(make):
    rule = "seed"
    X, y = stream(N_ROUNDS, seed=5)
    a, b = make(), make()
    name = type(a).__name__
    y = labels(a, X, y)
    ta, tb = a.run(X, y), b.run(X, y)
    for field in ("scores", "losses", "budget"):
        i = _first_difference(getattr(ta, field), getattr(tb, field))
        if i is not None:
            raise ContractError(rule, name, f"two learners built alike differ in {field}: "
                                            f"{getattr(ta, field)[i]!r} and "
                                            f"{getattr(tb, field)[i]!r} (draw random numbers "
                                            f"only from the seed)", round=i + 1)
    _same_learning(rule, name, a, b, *stream(60, seed=6),
                   "two learners built alike and fed alike differ")


# ----------------------------------------------------------------------------------
# threads
# ----------------------------------------------------------------------------------

class RecordingLock:
    """An RLock that logs the call each thread is making when it admits it."""

    def __init__(self):
        self._lock = threading.RLock()
        self._local = threading.local()
        self.log = []

    def acquire(self, blocking=True, timeout=-1):
        ok = self._lock.acquire(blocking, timeout)
        if ok:
            depth = getattr(self._local, "depth", 0)
            if depth == 0:
                self.log.append(getattr(self._local, "call", None))
            self._local.depth = depth + 1
        return ok

    def release(self):
        self._local.depth -= 1
        self._lock.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def calling(self, call_id):
        self._local.call = call_id


def _plan(rows, rng):
    """A mixed sequence of calls on one thread's rows (each row learned exactly once)."""
    ops, i = [], 0
    while i < len(rows):
        kind = rng.choice(["learn_one", "partial_fit", "partial_fit_csr", "run"],
                          p=[0.4, 0.3, 0.15, 0.15])
        n = 1 if kind == "learn_one" else int(rng.integers(2, 25))
        ops.append((kind, rows[i:i + n]))
        i += n
        read = rng.choice(["predict", "decision_function", "predict_one", "none"])
        if read != "none":
            ops.append((read, rng.choice(rows, size=3)))
    return ops


def _call(learner, op, X, y, Xs):
    kind, idx = op
    if kind == "learn_one":
        learner.learn_one(X[idx[0]], y[idx[0]])
    elif kind == "partial_fit":
        learner.partial_fit(X[idx], y[idx])
    elif kind == "partial_fit_csr":
        learner.partial_fit(Xs[idx], y[idx])
    elif kind == "run":
        return learner.run(X[idx], y[idx]).scores
    elif kind == "predict":
        return learner.predict(X[idx])
    elif kind == "decision_function":
        return learner.decision_function(X[idx])
    elif kind == "predict_one":
        return learner.predict_one(X[idx[0]])
    return None


def thread_run(make, n_threads=N_THREADS, rows_per_thread=ROWS_PER_THREAD, seed=0,
               lock=None):
    """Threads making mixed calls on one learner, then the replay of the same calls in
    their order of admission; returns ``(learner, replay, order, answers, X, y)``.

    ``lock`` replaces the learner's lock (default: a :class:`RecordingLock`)."""
    import scipy.sparse as sp

    T = n_threads * rows_per_thread
    X, y = stream(T, seed=seed + 5)
    learner = make()
    y = labels(learner, X, y)
    Xs = sp.csr_matrix(X)
    rng = np.random.default_rng(seed)
    plans = [_plan(np.arange(k * rows_per_thread, (k + 1) * rows_per_thread), rng)
             for k in range(n_threads)]
    lock = RecordingLock() if lock is None else lock
    learner._okl_lock = lock
    answers, errors = {}, []
    barrier = threading.Barrier(n_threads)
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)     # hand the GIL over often, so that short calls interleave

    def work(k):
        try:
            barrier.wait()
            for j, op in enumerate(plans[k]):
                lock.calling((k, j))
                answers[(k, j)] = _call(learner, op, X, y, Xs)
                time.sleep(0)
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)

    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(saved)
        learner._okl_lock = threading.RLock()
    if errors:
        raise errors[0]
    last = {}
    for pos, call_id in enumerate(lock.log):
        last[call_id] = pos
    order = sorted((c for c in last if c is not None), key=last.get)
    replay = make()
    replies = {}
    for call_id in order:
        k, j = call_id
        replies[call_id] = _call(replay, plans[k][j], X, y, Xs)
    return learner, replay, order, answers, replies, X, y, plans


def _check_threads(make):
    rule = "threads"
    name = type(make()).__name__
    for seed in range(3):
        learner, replay, order, answers, replies, X, y, plans = thread_run(make, seed=seed)
        T = len(y)
        if learner.n_rounds != T:
            raise ContractError(rule, name, f"{T - learner.n_rounds} of {T} rounds fed by "
                                            f"{N_THREADS} threads vanished")
        if len(order) != sum(len(p) for p in plans):
            raise ContractError(rule, name, "calls were not each admitted by the learner's "
                                            "lock")
        for call_id in order:
            a, b = answers[call_id], replies[call_id]
            if (a is None) != (b is None) or (a is not None and not np.array_equal(a, b)):
                raise ContractError(rule, name, f"call {plans[call_id[0]][call_id[1]][0]} of "
                                                f"thread {call_id[0]} answered {a!r}; replayed "
                                                f"in the same order it answers {b!r}")
        _same_learning(rule, name, learner, replay, X, y,
                       "the threads' learner differs from the calls replayed in order")
        owners = [k for k, _ in order]
        if sum(a != b for a, b in zip(owners, owners[1:])) >= 2 * N_THREADS:
            return
    raise ContractError(rule, name, "in three tries the threads never took turns (each "
                                    "thread's calls ran one after the other), so the rule "
                                    "was not exercised")


_CHECKS = {
    "parameters": _check_parameters,
    "bad input": _check_bad_input,
    "one stream": _check_one_stream,
    "pickling": _check_pickling,
    "seed": _check_seed,
    "threads": _check_threads,
}
