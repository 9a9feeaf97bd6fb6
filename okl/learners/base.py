"""The Python surface every learner shares (the other concerns a learner's classes share
are beside it: the BLAS guard in ``okl.learners.blas``, the lock in
``okl.learners.locking``, the families' mixins in ``okl.learners.mixins``; their names
are imported here too, where they were before the split).

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

import inspect
import time

import numpy as np

from okl import _core, params as _params
from okl._learner import read_fields, write_fields
from okl.learners.blas import _NO_GUARD, _ONE_BLAS_THREAD, one_blas_thread
from okl.learners.locking import Serialized, _unlocked, serialized
from okl._validation import as_stream, check_label, check_labels, check_row
from okl.trace import Trace

__all__ = ["OnlineLearner", "HorizonLearner", "KernelExpansion", "one_blas_thread",
           "serialized"]



def _is_default(cls, name):
    return getattr(cls, name) is getattr(OnlineLearner, name)


class OnlineLearner(Serialized):
    """Mixin providing the public API on top of a typed learner core."""

    #: constructor parameters, in order (used by get_params, repr and pickling): read
    #: from the signature of ``__init__`` of each class that defines one
    _param_names: tuple[str, ...] = ()

    #: True for cores whose score may fail with a Python exception (PythonLearner):
    #: the calls that only score check for it afterwards
    _okl_score_may_fail: bool = False

    #: True for learners whose round calls BLAS/LAPACK on sizeable matrices
    _blas_in_round_loop: bool = False

    #: the declared parameters ``{name: okl.params.Param}`` (okl.params.install)
    _okl_params: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _params.install(cls)
        if "_okl_params" in cls.__dict__:
            cls._okl_roles = {p.role: n for n, p in reversed(cls._okl_params.items())
                              if p.role is not None}
        if "_param_names" in cls.__dict__:
            pass
        elif getattr(cls.__dict__.get("__init__"), "_okl_generated", False):
            cls._param_names = tuple(cls._okl_params)       # the declarations' constructor
        elif "__init__" in cls.__dict__:
            cls._param_names = _signature_params(cls)       # a constructor written by hand
        # the per-call path skips the hooks a class leaves at their defaults
        cls._okl_plain_labels = _is_default(cls, "_labels") and _is_default(cls, "needs_labels")
        cls._okl_plain_begin = _is_default(cls, "_begin_stream")
        cls._okl_plain_guard = _is_default(cls, "_blas_guard")
        cls._okl_plain_run = _is_default(cls, "run")
        # learn_one entirely in okl._core._learn_one_fast (one call, ~1 us) when no hook
        # needs Python on a round
        cls._okl_fast_one = (cls._okl_plain_labels and cls._okl_plain_begin
                             and cls._okl_plain_guard and not cls._blas_in_round_loop
                             and _is_default(cls, "_ensure_allocated"))

    # -- hooks for subclasses -----------------------------------------------------

    #: role -> the name of the declared parameter with that role (first declared)
    _okl_roles: dict = {}

    def _check_params(self) -> None:
        """Checks involving several declared parameters (each one alone was checked
        when it was assigned); ``ValueError`` naming them."""

    def _classifies(self) -> bool:
        """Whether the learner classifies (labels in {-1, +1}, mistakes counted): the
        default; a regression learner, or one whose loss decides, overrides it."""
        return True

    def _configure(self) -> None:
        """Set up the typed core once the declared parameters are assigned (their
        values are in the core's typed fields already): the kernel and the seed of
        their roles, the task, then the core's own ``_setup()``."""
        roles = self._okl_roles
        kernel = roles.get("kernel")
        seed = roles.get("seed")
        self._core_setup(None if kernel is None else getattr(self, kernel),
                         None if seed is None else getattr(self, seed), self._classifies())
        self._setup()

    def _allocation(self) -> tuple[int, bool]:
        """``(capacity, growable)`` of the support set allocated at the first example."""
        return 64, True

    def _blas_guard(self, n_rounds: int):
        """Context around learning ``n_rounds``: one BLAS thread if the round uses BLAS."""
        return _ONE_BLAS_THREAD if self._blas_in_round_loop else _NO_GUARD

    def _begin_stream(self, n_rounds: int) -> None:
        """Called after validation, before a stream of ``n_rounds`` is learned."""

    def _extras(self) -> dict:
        """Algorithm quantities reported in ``Trace.extras``: the fields the class
        declares in ``_extras_fields`` (``okl._learner.fields``: core fields or any
        attribute, properties included)."""
        return read_fields(self, self._extras_fields)

    def _state(self) -> dict:
        """Typed state beyond the support set, for pickling: the fields the core
        declares in ``_state_fields`` (``okl._learner.fields``)."""
        return read_fields(self, self._state_fields)

    def _restore(self, state: dict) -> None:
        """Inverse of ``_state``."""
        write_fields(self, self._state_fields, state)

    # -- parameters ---------------------------------------------------------------

    @_unlocked
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
        old = self.get_params()
        try:
            self.__init__(**{**old, **params})
        except BaseException:          # a refused value changes nothing
            self.__init__(**old)
            raise
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # -- learning -----------------------------------------------------------------

    @property
    @_unlocked
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

    def _learn(self, X, y, record: bool):
        """Validate, then learn the stream ``(X, y)``; the caller holds the lock.

        Returns ``(per-round arrays or None, seconds, the checked labels)``.  Nothing
        is copied that is already in the typed form (``okl._validation.as_stream``);
        with ``record`` False (``partial_fit``) no per-round array is allocated.
        """
        stream, labels = self._checked(X, y)
        self._ensure_allocated(stream.d)
        self._begin_stream(stream.T)
        T = stream.T
        arrays = ((np.empty(T), np.empty(T), np.empty(T, dtype=np.uint8),
                   np.empty(T, dtype=np.intc)) if record else (None, None, None, None))
        with self._blas_guard(T):
            start = time.perf_counter()
            done = _core._drive(self, stream, labels, *arrays)
            seconds = time.perf_counter() - start
        if done < T:
            raise self._failure()
        if self._okl_score_may_fail:
            self._raise_failure(True)
        return arrays, seconds, labels

    @_unlocked
    def run(self, X, y=None) -> Trace:
        """Learn from the stream ``(X, y)`` one round at a time; return its ``Trace``.

        The learner continues from its current state, so consecutive calls
        are one longer stream.  ``X`` is ``(T, d)`` dense or CSR; ``y`` has
        ``T`` labels in {-1, +1} (classification) or reals (regression); it
        may be omitted for unsupervised learners (novelty detection).  Invalid
        input raises ``ValueError`` before anything is learned.  A float64
        C-contiguous array, or a CSR matrix with float64 data and int32 indices
        (sorted, no duplicates), is read in place, never copied: the check is
        one pass over it.
        """
        with self._okl_lock:
            (scores, losses, mistakes, budget), seconds, labels = self._learn(X, y, True)
            mse = (None if self.is_classifier or y is None
                   else float(np.mean((scores - labels) ** 2)))
            return Trace(
                scores=scores,
                losses=losses,
                mistakes=mistakes.view(bool) if self.is_classifier else None,
                budget=budget,
                seconds=seconds,
                extras=self._extras(),
                learner=repr(self),
                mean_squared_error=mse,
            )

    @_unlocked
    def partial_fit(self, X, y=None):
        """Learn from ``(X, y)`` as a continuation of the stream; returns ``self``.

        Equal to ``run`` without its trace (no per-round array is kept)."""
        with self._okl_lock:
            if self._okl_plain_run:
                self._learn(X, y, False)
            else:                       # a subclass's run adds to learning: keep it
                self.run(X, y)
        return self

    @_unlocked
    def learn_one(self, x, y=None) -> None:
        """Learn from one example ``x`` (1-D array, list, 1-row matrix or 1-row CSR)
        with label ``y``.

        A float64 1-D array or 1-row CSR matrix (float64 data, int32 indices) is read
        in place; the checks of ``run`` apply (``ValueError`` naming the problem,
        nothing learned).
        """
        if self._okl_fast_one:
            done = _core._learn_one_fast(self, self._okl_lock, x, y)
            if done is not None:
                if not done:
                    raise self._failure()
                return
        with self._okl_lock:
            d = self.n_features
            stream = check_row(x, -1 if d is None else d)
            if self._okl_plain_labels and y is not None:
                label = check_label(y, self.is_classifier)
            else:
                label = float(self._labels(None if y is None else np.atleast_1d(y), 1)[0])
            if d is None:
                self._ensure_allocated(stream.d)
            if not self._okl_plain_begin:
                self._begin_stream(1)
            if self._blas_in_round_loop or not self._okl_plain_guard:
                with self._blas_guard(1):
                    ok = _core._learn_one(self, stream, label)
            else:
                ok = _core._learn_one(self, stream, label)
            if not ok:
                raise self._failure()

    @_unlocked
    def decision_function(self, X) -> np.ndarray:
        """Scores ``f(x)`` of the current hypothesis for each row of ``X`` (no learning)."""
        with self._okl_lock:
            d = self.n_features
            stream = as_stream(X, -1 if d is None else d)
            if d is None:
                return np.zeros(stream.T)
            scores = _core._decide(self, stream)
            if self._okl_score_may_fail:
                self._raise_failure()
            return scores

    @_unlocked
    def predict(self, X) -> np.ndarray:
        """Labels ``sign(f(x))`` (with ``+1`` for a zero score) or regression values."""
        f = self.decision_function(X)
        return np.where(f >= 0.0, 1.0, -1.0) if self.is_classifier else f

    @_unlocked
    def predict_one(self, x) -> float:
        """Prediction for one example: a label in {-1, +1} or a regression value."""
        f = None if self._okl_score_may_fail else _core._predict_one_fast(
            self, self._okl_lock, x)
        if f is None:
            with self._okl_lock:
                d = self.n_features
                stream = check_row(x, -1 if d is None else d)
                f = 0.0 if d is None else _core._predict_one(self, stream)
                if self._okl_score_may_fail:
                    self._raise_failure()
        if self.is_classifier:
            return 1.0 if f >= 0.0 else -1.0
        return f

    def _failure(self) -> BaseException:
        """The exception for a stream the core stopped early (``error`` set): the
        Python exception of a PythonLearner's code, else the typed core's out of memory."""
        exc = self._core_failure(True)
        if exc is not None:
            return exc
        return MemoryError(f"{type(self).__name__} could not grow its memory at round "
                           f"{self.n_rounds}")

    def _core_failure(self, in_round: bool):
        """A Python exception that stopped the core (PythonLearner), else ``None``;
        ``in_round``: raised while learning (the failed round is then uncounted)."""
        return None

    def _raise_failure(self, in_round: bool = False) -> None:
        exc = self._core_failure(in_round)
        if exc is not None:
            raise exc

    # -- pickling -----------------------------------------------------------------

    @_unlocked
    def __reduce__(self):
        with self._okl_lock:
            state = self._core_state()
            state["extra"] = self._state()
            return (_rebuild, (type(self), self.get_params(), state))


def _signature_params(cls) -> tuple:
    """The keyword parameters of ``cls.__init__``, in order (``self``, ``*args`` and
    ``**kwargs`` left out): a learner's parameters are its constructor's."""
    sig = inspect.signature(cls.__init__)
    return tuple(p.name for p in list(sig.parameters.values())[1:]
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _rebuild(cls, params, state):
    obj = cls(**params)
    obj._core_restore(state)
    obj._restore(state["extra"])
    return obj


# the families' mixins, where they were before the split (okl.learners.mixins)
from okl.learners.mixins import (ExampleBudgeted, HorizonLearner,  # noqa: E402,F401
                                 KernelExpansion, KORSDictionaryView)
