"""The Python surface every learner shares.

A learner class is ``class Name(OnlineLearner, NameCore)`` where ``NameCore``
is a ``cdef class`` deriving from ``okl._core.Learner`` and holding the typed
``score``/``update``/``loss``.  This mixin adds, once for all learners:
input validation before any state changes, the stream driver call that
returns a ``Trace``, the interactive ``learn_one``/``predict_one`` API (the
same typed methods, one round at a time), scikit-learn style
``partial_fit``/``decision_function``/``predict``, ``get_params`` and
pickling that resumes mid-stream with an identical continuation.
"""
from __future__ import annotations

import contextlib
import time

import numpy as np

from okl import _core
from okl._validation import as_stream, check_labels, check_row
from okl.trace import Trace

__all__ = ["OnlineLearner", "HorizonLearner"]

_BLAS_CONTROLLER = None


def one_blas_thread():
    """A context limiting BLAS/LAPACK to one thread (threadpoolctl; no-op without it).

    For learners whose round calls BLAS/LAPACK on matrices of a few hundred rows
    (an incremental Gram inverse, Ahpatron's halving solve): OpenBLAS hands those
    to its thread pool, which on a busy 2-core machine made them up to ~100x
    slower than one thread (Ahpatron, B = 400: 45 s against 0.4 s for 50,000
    rounds), while the round loop itself is sequential.
    """
    global _BLAS_CONTROLLER
    try:
        if _BLAS_CONTROLLER is None:
            from threadpoolctl import ThreadpoolController

            _BLAS_CONTROLLER = ThreadpoolController()
        return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")
    except Exception:  # threadpoolctl missing or unable to act: run as is
        return contextlib.nullcontext()


class OnlineLearner:
    """Mixin providing the public API on top of a typed learner core."""

    #: constructor parameters, in order (used by get_params, repr and pickling)
    _param_names: tuple[str, ...] = ()

    #: True for learners whose round calls BLAS/LAPACK on sizeable matrices
    _blas_in_round_loop: bool = False

    # -- hooks for subclasses -----------------------------------------------------

    def _allocation(self) -> tuple[int, bool]:
        """``(capacity, growable)`` of the support set allocated at the first example."""
        return 64, True

    def _blas_guard(self, n_rounds: int):
        """Context around learning ``n_rounds``: one BLAS thread if the round uses BLAS."""
        return one_blas_thread() if self._blas_in_round_loop else contextlib.nullcontext()

    def _begin_stream(self, n_rounds: int) -> None:
        """Called after validation, before a stream of ``n_rounds`` is learned."""

    def _extras(self) -> dict:
        """Algorithm quantities reported in ``Trace.extras``."""
        return {}

    def _state(self) -> dict:
        """Typed state beyond the support set, for pickling."""
        return {}

    def _restore(self, state: dict) -> None:
        """Inverse of ``_state``."""

    # -- parameters ---------------------------------------------------------------

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters (``deep`` is accepted for scikit-learn and ignored:
        a learner holds no nested estimators)."""
        return {name: getattr(self, name) for name in self._param_names}

    def set_params(self, **params):
        """Re-initialise a learner that has not learned yet with changed parameters
        (what scikit-learn's grid search does to ``OnlineClassifier(learner)``)."""
        unknown = sorted(set(params) - set(self._param_names))
        if unknown:
            raise ValueError(f"{type(self).__name__} has no parameter(s) {unknown}; "
                             f"parameters: {list(self._param_names)}")
        if self.n_rounds:
            raise ValueError(f"set_params on a {type(self).__name__} that has learned "
                             f"{self.n_rounds} rounds: build a new learner instead")
        self.__init__(**{**self.get_params(), **params})
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # -- learning -----------------------------------------------------------------

    @property
    def needs_labels(self) -> bool:
        """False for unsupervised learners (novelty detection), which accept ``y=None``."""
        return True

    def _labels(self, y, n):
        if y is None:
            if self.needs_labels:
                raise ValueError(f"y is required: {type(self).__name__} learns from labels")
            return np.zeros(n)
        return check_labels(y, n, self.is_classifier)

    def _checked(self, X, y):
        stream = as_stream(X, -1 if self.n_features is None else self.n_features)
        return stream, self._labels(y, stream.T)

    def _ensure_allocated(self, d: int) -> None:
        if self.n_features is None:
            self._core_allocate(d, *self._allocation())

    def run(self, X, y=None) -> Trace:
        """Learn from the stream ``(X, y)`` one round at a time; return its ``Trace``.

        The learner continues from its current state, so consecutive calls
        are one longer stream.  ``X`` is ``(T, d)`` dense or CSR; ``y`` has
        ``T`` labels in {-1, +1} (classification) or reals (regression); it
        may be omitted for unsupervised learners (novelty detection).  Invalid input raises ``ValueError`` before anything is learned.
        """
        stream, labels = self._checked(X, y)
        self._ensure_allocated(stream.d)
        self._begin_stream(stream.T)
        T = stream.T
        scores = np.empty(T)
        losses = np.empty(T)
        mistakes = np.zeros(T, dtype=np.uint8)
        budget = np.zeros(T, dtype=np.intc)
        with self._blas_guard(T):
            start = time.perf_counter()
            done = _core._drive(self, stream, labels, scores, losses, mistakes, budget)
            seconds = time.perf_counter() - start
        if done < T:
            raise MemoryError(f"{type(self).__name__} could not grow its memory at round "
                              f"{self.n_rounds}")
        return Trace(
            scores=scores,
            losses=losses,
            mistakes=mistakes.view(bool) if self.is_classifier else None,
            budget=budget,
            seconds=seconds,
            extras=self._extras(),
            learner=repr(self),
        )

    def partial_fit(self, X, y=None):
        """Learn from ``(X, y)`` as a continuation of the stream; returns ``self``."""
        self.run(X, y)
        return self

    def learn_one(self, x, y=None) -> None:
        """Learn from one example ``x`` (1-D array or 1-row matrix) with label ``y``."""
        stream = check_row(x, -1 if self.n_features is None else self.n_features)
        labels = self._labels(None if y is None else np.atleast_1d(y), 1)
        self._ensure_allocated(stream.d)
        self._begin_stream(1)
        scores, losses = np.empty(1), np.empty(1)
        mistakes, budget = np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.intc)
        with self._blas_guard(1):
            done = _core._drive(self, stream, labels, scores, losses, mistakes, budget)
        if done < 1:
            raise MemoryError(f"{type(self).__name__} could not grow its memory")

    def decision_function(self, X) -> np.ndarray:
        """Scores ``f(x)`` of the current hypothesis for each row of ``X`` (no learning)."""
        stream = as_stream(X, -1 if self.n_features is None else self.n_features)
        if self.n_features is None:
            return np.zeros(stream.T)
        return _core._decide(self, stream)

    def predict(self, X) -> np.ndarray:
        """Labels ``sign(f(x))`` (with ``+1`` for a zero score) or regression values."""
        f = self.decision_function(X)
        return np.where(f >= 0.0, 1.0, -1.0) if self.is_classifier else f

    def predict_one(self, x) -> float:
        """Prediction for one example: a label in {-1, +1} or a regression value."""
        stream = check_row(x, -1 if self.n_features is None else self.n_features)
        f = 0.0 if self.n_features is None else float(_core._decide(self, stream)[0])
        if self.is_classifier:
            return 1.0 if f >= 0.0 else -1.0
        return f

    # -- pickling -----------------------------------------------------------------

    def __reduce__(self):
        state = self._core_state()
        state["extra"] = self._state()
        return (_rebuild, (type(self), self.get_params(), state))


class HorizonLearner:
    """Mixin for learners whose parameters depend on the horizon ``T`` (POMDR's ALD
    threshold and B0, the selection learners' sampling rates and step sizes).

    ``T`` is a constructor parameter; when it is ``None`` the first ``run`` takes the
    stream's length as the horizon.  Streaming use (``learn_one``, ``partial_fit``)
    needs ``T``, and no call may learn past it: both raise ``ValueError`` before any
    state changes.  A subclass sets ``_horizon_depends`` (what depends on ``T``, for
    the message) and implements ``_known_horizon()`` (the horizon fixed so far, or
    ``None``); it is listed before ``OnlineLearner`` in the bases.
    """

    _horizon_depends = "its parameters"

    def _known_horizon(self):
        raise NotImplementedError

    def _horizon_for(self, n_rounds):
        """The horizon a learning call of ``n_rounds`` runs under (checked, no state change)."""
        done = self.n_rounds
        T = self._known_horizon()
        if T is None:          # first run without T: the stream is the horizon
            T = done + n_rounds
        if done + n_rounds > T:
            raise ValueError(
                f"T = {T} is the horizon of this {type(self).__name__} (rounds learned: "
                f"{done}); {n_rounds} more would exceed it.  {self._horizon_depends} depend "
                f"on T: pass a larger T to the constructor")
        return T

    def _require_T(self, what):
        if self.T is None:
            raise ValueError(f"T (the horizon) is required {what}: construct "
                             f"{type(self).__name__}(..., T=...) for streaming use")

    def learn_one(self, x, y=None) -> None:
        self._require_T("to learn one example at a time")
        self._horizon_for(1)
        super().learn_one(x, y)

    def partial_fit(self, X, y=None):
        self._require_T("for partial_fit")
        return super().partial_fit(X, y)


def _rebuild(cls, params, state):
    obj = cls(**params)
    obj._core_restore(state)
    obj._restore(state["extra"])
    return obj
