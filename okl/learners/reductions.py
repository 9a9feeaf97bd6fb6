"""Any binary learner on K classes: :class:`OneVsRest` and :class:`OneVsOne`.

Both hold copies of a binary learner (okl's, or a :class:`okl.PythonLearner` of your
own), each a learner with its own stream, and answer as a multiclass learner does
(``classes_``, ``run`` returning a multiclass :class:`~okl.trace.Trace`, ``predict``
returning labels, ``decision_function`` the ``(n, K)`` scores).  Each copy learns its
own relabelled stream in its own typed loop, so a run equals the ``K`` (or
``K (K - 1) / 2``) binary learners run by hand on those streams, bit for bit.
"""
from __future__ import annotations

import threading

import numpy as np

from okl.trace import CLASS_SCORES_MAX, Trace

__all__ = ["OneVsRest", "OneVsOne"]


def _clone(learner):
    """A fresh copy of ``learner`` (its class and parameters; nothing learned)."""
    if learner.n_rounds:
        raise ValueError(f"{type(learner).__name__} has learned {learner.n_rounds} rounds: "
                         f"give a fresh binary learner to copy")
    return type(learner)(**learner.get_params())


class _Reduction:
    """What OneVsRest and OneVsOne share: the classes, the lock, the multiclass surface."""

    task = "multiclass"

    def __init__(self, learner, *, classes=None):
        from okl.learners.base import OnlineLearner
        from okl.learners.multiclass import check_classes

        if not isinstance(learner, OnlineLearner):
            raise ValueError(f"learner must be an okl learner (a binary classifier), got "
                             f"{learner!r}")
        if not learner.is_classifier or getattr(learner, "task", None) == "multiclass":
            raise ValueError(f"{type(self).__name__} takes a binary classifier, got "
                             f"{type(learner).__name__} (a "
                             f"{'multiclass learner' if learner.is_classifier else 'regressor'})")
        self.learner = learner
        self.classes = check_classes(classes)
        self._template = _clone(learner)
        self._classes = None
        self._estimators = None
        self._lock = threading.RLock()
        if classes is not None:
            self._fix(np.unique(np.asarray(classes)))

    # -- parameters -------------------------------------------------------------------

    def get_params(self, deep=True):
        return {"learner": self.learner, "classes": self.classes}

    def set_params(self, **params):
        """Rebuild with changed ``learner`` / ``classes`` (before it learns)."""
        if self._rounds:
            raise ValueError(f"set_params on a {type(self).__name__} that has learned "
                             f"{self._rounds} rounds: build a new one instead")
        unknown = sorted(set(params) - {"learner", "classes"})
        if unknown:
            raise ValueError(f"{type(self).__name__} has no parameter(s) {unknown}")
        self.__init__(**{**self.get_params(), **params})
        return self

    def __repr__(self):
        extra = "" if self.classes is None else f", classes={list(self.classes)!r}"
        return f"{type(self).__name__}({self.learner!r}{extra})"

    @property
    def classes_(self):
        return self._classes

    @property
    def estimators_(self) -> list:
        """The binary learners (OneVsRest: one per class; OneVsOne: one per pair)."""
        return list(self._estimators or [])

    @property
    def n_rounds(self) -> int:
        return self._rounds

    @property
    def n_features(self):
        return None if not self._estimators else self._estimators[0].n_features

    @property
    def is_classifier(self):
        return True

    def _fix(self, classes):
        self._classes = classes
        self._estimators = [_clone(self._template) for _ in range(self._n_estimators())]
        self._rounds = 0

    _rounds = 0

    def _indices(self, y, n):
        from okl.learners.multiclass import label_indices

        return label_indices(y, n, self._classes, type(self).__name__)

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def _begin(self, X, y):
        from okl._validation import as_stream

        d = self.n_features
        stream = as_stream(X, -1 if d is None else d)
        idx, classes = self._indices(y, stream.T)
        if self._classes is None:
            self._fix(classes)
        return stream, idx

    # -- learning ---------------------------------------------------------------------

    def run(self, X, y=None) -> Trace:
        """Learn ``(X, y)``: every binary learner its own stream; the multiclass trace."""
        with self._lock:
            self._begin(X, y)          # every check before anything is learned
            X = _as_rows(X)
            idx = self._indices(y, X.shape[0])[0]
            scores, seconds, budget, losses = self._learn(X, idx)
            self._rounds += len(idx)
            pred = self._predict_index(scores)
            other = scores.copy()
            other[np.arange(len(idx)), idx] = -np.inf
            margins = scores[np.arange(len(idx)), idx] - other.max(axis=1)
            return Trace(scores=margins, losses=losses, mistakes=pred != idx, budget=budget,
                         seconds=seconds, extras={}, learner=repr(self),
                         predictions=self._classes[pred], classes=self._classes.copy(),
                         class_scores=scores if scores.size <= CLASS_SCORES_MAX else None)

    def partial_fit(self, X, y=None):
        self.run(X, y)
        return self

    def learn_one(self, x, y=None):
        if self._classes is None:
            raise ValueError(f"{type(self).__name__} learns one example at a time once its "
                             f"classes are known: give classes=[...] or learn a first "
                             f"stream with run / partial_fit")
        self.run(np.atleast_2d(np.asarray(x, dtype=float)) if not hasattr(x, "tocsr")
                 else x, np.atleast_1d(y))

    def decision_function(self, X) -> np.ndarray:
        with self._lock:
            if self._classes is None:
                raise ValueError(f"{type(self).__name__} has no classes yet: learn first")
            return self._scores(_as_rows(X))

    def predict(self, X) -> np.ndarray:
        return self._classes[self._predict_index(self.decision_function(X))]

    def predict_one(self, x):
        return self.predict(np.atleast_2d(np.asarray(x, dtype=float))
                            if not hasattr(x, "tocsr") else x)[0]

    def _predict_index(self, scores):
        return np.argmax(scores, axis=1)


def _as_rows(X):
    import scipy.sparse as sp

    from okl._validation import check_matrix

    return check_matrix(X) if not sp.issparse(X) else check_matrix(X).tocsr()


class OneVsRest(_Reduction):
    """One-vs-rest over a binary learner: ``K`` copies, copy ``c`` learning ``+1`` for
    class ``c`` and ``-1`` for the others on every round; the scores are the copies'
    ``f_c(x)``, the prediction the first class of largest score (scikit-learn's
    ``OneVsRestClassifier``, online)."""

    def _n_estimators(self):
        return len(self._classes)

    def _learn(self, X, idx):
        T, K = X.shape[0], len(self._classes)
        scores = np.empty((T, K))
        losses = np.zeros(T)
        budget = np.zeros(T, dtype=np.intc)
        seconds = 0.0
        for c, est in enumerate(self._estimators):
            tr = est.run(X, np.where(idx == c, 1.0, -1.0))
            scores[:, c] = tr.scores
            losses += tr.losses
            budget += tr.budget
            seconds += tr.seconds
        return scores, seconds, budget, losses

    def _scores(self, X):
        return np.column_stack([est.decision_function(X) for est in self._estimators])


class OneVsOne(_Reduction):
    """One-vs-one over a binary learner: a copy per pair ``a < b`` of classes, learning
    ``+1`` for ``a`` and ``-1`` for ``b`` on the rounds of those two classes only (and
    predicting on every round).  A class's score is its votes (the pairs whose copy
    predicts it, a zero score voting ``a``) plus, to break ties as scikit-learn's
    ``OneVsOneClassifier`` does, its copies' summed confidences squashed into
    ``(-1/3, 1/3)``; the prediction is the first class of largest score."""

    def _n_estimators(self):
        K = len(self._classes)
        return K * (K - 1) // 2

    def _pairs(self):
        K = len(self._classes)
        return [(a, b) for a in range(K) for b in range(a + 1, K)]

    def _learn(self, X, idx):
        T = X.shape[0]
        pairs = self._pairs()
        f = np.empty((T, len(pairs)))
        losses = np.zeros(T)
        budget = np.zeros(T, dtype=np.intc)
        seconds = 0.0
        for p, ((a, b), est) in enumerate(zip(pairs, self._estimators)):
            mine = (idx == a) | (idx == b)
            # blocks of consecutive rounds: its own rounds learned, the others scored
            edges = np.flatnonzero(np.diff(mine.astype(np.int8))) + 1
            starts = np.r_[0, edges]
            stops = np.r_[edges, T]
            last = 0
            for s, e in zip(starts, stops):
                if mine[s]:
                    tr = est.run(X[s:e], np.where(idx[s:e] == a, 1.0, -1.0))
                    f[s:e, p] = tr.scores
                    losses[s:e] += tr.losses
                    seconds += tr.seconds
                    budget[s:e] += tr.budget
                    last = tr.budget[-1]
                else:
                    if est.n_features is None:
                        f[s:e, p] = 0.0
                    else:
                        f[s:e, p] = est.decision_function(X[s:e])
                    budget[s:e] += last
        return self._votes(f), seconds, budget, losses

    def _votes(self, f):
        T, K = f.shape[0], len(self._classes)
        votes = np.zeros((T, K))
        conf = np.zeros((T, K))
        for p, (a, b) in enumerate(self._pairs()):
            win_a = f[:, p] >= 0.0
            votes[:, a] += win_a
            votes[:, b] += ~win_a
            conf[:, a] += f[:, p]
            conf[:, b] -= f[:, p]
        return votes + conf / (3.0 * (np.abs(conf) + 1.0))

    def _scores(self, X):
        T = X.shape[0]
        f = np.column_stack([est.decision_function(X) if est.n_features is not None
                             else np.zeros(T) for est in self._estimators])
        return self._votes(f)
