"""Online-to-batch conversion: predict with the hypothesis of a uniformly drawn round.

Li & Liao, *Improved Kernel Alignment Regret Bound for Online Kernel Learning* (AAAI 2023),
"Extension: Batch Learning" and Theorem 3; the conversion of Helmbold & Warmuth (1995).
"""
from __future__ import annotations

import copy

import numpy as np

from okl._validation import check_int, check_labels, check_matrix
from okl.learners.base import OnlineLearner
from okl.params import Seed, Value

__all__ = ["OnlineToBatch", "hypothesis_risks"]


def _check_learner(learner, name="learner"):
    if not isinstance(learner, OnlineLearner):
        raise ValueError(f"{name} must be an okl online learner, got {learner!r}")
    return learner


def _fresh_copy(learner: OnlineLearner, T: int) -> OnlineLearner:
    """An independent, unfitted copy of ``learner`` for a stream of ``T`` rounds.

    Learners with a horizon parameter ``T`` left at ``None`` (POMD, POMDR) get ``T`` set to
    the stream length, so that the stream can be learned in two pieces."""
    _check_learner(learner)
    if learner.n_rounds != 0:
        raise ValueError(f"learner must be unfitted (it has learned {learner.n_rounds} rounds): "
                         "the conversion draws r over the rounds of the stream given to fit")
    params = learner.get_params()
    if "T" in params and params["T"] is None:
        params["T"] = T
        return type(learner)(**params)
    return copy.deepcopy(learner)      # pickling: also copies a seeded generator's state


def _hinge_risk(scores, y) -> float:
    return float(np.mean(np.maximum(0.0, 1.0 - y * scores)))


def _checked(learner, X, y):
    X = check_matrix(X)
    y = check_labels(y, X.shape[0], learner.is_classifier)
    return X, y


class OnlineToBatch:
    r"""The online-to-batch conversion of Theorem 3 (Li & Liao, AAAI 2023).

    ``fit(X, y)`` draws ``r`` uniformly from ``{1, ..., T}`` (``T = len(y)``, seeded), runs
    a copy of ``learner`` over the first ``r - 1`` examples, keeps a copy of the resulting
    hypothesis -- ``f_r``, the hypothesis the learner uses at round ``r`` (for POMDR
    ``f_r = f'_{r-1} - lambda_r grad_bar_r``, eq. (2)) -- and finishes the stream.  The
    fitted model predicts with ``fbar = f_r``.  Theorem 3 bounds
    ``E_{I_T, r}[E(fbar)] - E(f)``, where ``E_r`` averages over ``r`` the risks of
    ``f_1, ..., f_T`` (:func:`hypothesis_risks` computes them all).

    Parameters
    ----------
    learner : okl online learner
        Unfitted; it is copied, never modified.  Any okl learner works; a POMD/POMDR with
        ``T=None`` is copied with ``T = len(y)``.
    seed : int, Generator, SeedSequence or None
        Seed of the draw of ``r``; an int gives the same ``r`` at every ``fit`` on the
        same number of rounds.

    Attributes
    ----------
    r_ : int
        The drawn round (1-based).
    hypothesis_ : learner
        Copy of the learner after ``r_ - 1`` rounds: its ``decision_function`` is ``f_r``.
    final_ : learner
        The learner after the whole stream.
    trace_ : Trace
        Trace of the whole stream (the two pieces joined); ``extras`` of the second piece.
    """

    # declared (okl.params), checked when assigned; not a stream learner, so the
    # constructor is written here (both parameters may be given by position)
    learner = Value(check=_check_learner, text="an okl online learner")
    seed = Seed()

    def __init__(self, learner, seed=None):
        self.learner = learner
        self.seed = seed

    def fit(self, X, y, r=None):
        """Draw ``r`` (or use the given ``r`` in ``1..T``), learn, keep ``f_r``; returns self.

        Invalid input raises ValueError before anything is drawn or learned.
        """
        X, y = _checked(self.learner, X, y)
        T = X.shape[0]
        if r is None:
            r = int(np.random.default_rng(self.seed).integers(1, T + 1))
        else:
            r = check_int(r, "r", low=1, high=T)
        model = _fresh_copy(self.learner, T)
        parts = []
        if r > 1:
            parts.append(model.run(X[:r - 1], y[:r - 1]))
        kept = copy.deepcopy(model)
        parts.append(model.run(X[r - 1:], y[r - 1:]))
        self.r_ = r
        self.hypothesis_ = kept
        self.final_ = model
        self.trace_ = _join(parts)
        return self

    def _need_fit(self):
        if not hasattr(self, "hypothesis_"):
            raise ValueError("this OnlineToBatch is not fitted: call fit(X, y) first")
        return self.hypothesis_

    def decision_function(self, X) -> np.ndarray:
        """``f_r(x)`` for each row of ``X``."""
        return self._need_fit().decision_function(X)

    def predict(self, X) -> np.ndarray:
        """``sign(f_r(x))`` (``+1`` for 0) or, for a regressor, ``f_r(x)``."""
        return self._need_fit().predict(X)

    def risk(self, X, y) -> float:
        """Mean hinge loss ``mean max(0, 1 - y f_r(x))`` on held-out ``(X, y)``: the empirical
        ``E(fbar)`` of Theorem 3 (classification only)."""
        h = self._need_fit()
        if not h.is_classifier:
            raise ValueError("risk is the hinge loss: it needs a classifier")
        X, y = _checked(h, X, y)
        return _hinge_risk(h.decision_function(X), y)

    def __repr__(self):
        return f"OnlineToBatch(learner={self.learner!r}, seed={self.seed!r})"


def hypothesis_risks(learner, X, y, X_test, y_test) -> np.ndarray:
    """Held-out hinge risks of ``f_1, ..., f_T``: entry ``r - 1`` is the risk of the
    hypothesis the learner uses at round ``r``.  Their mean is ``E_r[E(fbar)]`` of
    Theorem 3 for this sample.  ``learner`` is copied (unfitted, as for OnlineToBatch)."""
    if not getattr(learner, "is_classifier", False):
        raise ValueError("hypothesis_risks uses the hinge loss: it needs a classifier")
    X, y = _checked(learner, X, y)
    X_test, y_test = _checked(learner, X_test, y_test)
    if X_test.shape[1] != X.shape[1]:
        raise ValueError(f"X_test has {X_test.shape[1]} features, X has {X.shape[1]}")
    T = X.shape[0]
    model = _fresh_copy(learner, T)
    out = np.empty(T)
    for t in range(T):
        out[t] = _hinge_risk(model.decision_function(X_test), y_test)
        model.learn_one(X[t:t + 1], y[t])
    return out


def _join(parts):
    from okl.trace import Trace

    if len(parts) == 1:
        return parts[0]
    a, b = parts
    cat = lambda u, v: None if u is None else np.concatenate([u, v])
    return Trace(scores=cat(a.scores, b.scores), losses=cat(a.losses, b.losses),
                 mistakes=cat(a.mistakes, b.mistakes), budget=cat(a.budget, b.budget),
                 seconds=a.seconds + b.seconds, extras=b.extras, learner=b.learner)
