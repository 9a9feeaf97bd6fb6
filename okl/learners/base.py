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
import functools
import inspect
import threading
import time
import types

import numpy as np

from okl import _core, params as _params
from okl._learner import read_fields, write_fields
from okl.learners.budget_kinds import check_budget_choice
from okl._validation import as_stream, check_label, check_labels, check_row
from okl.trace import Trace

__all__ = ["OnlineLearner", "HorizonLearner", "KernelExpansion", "one_blas_thread",
           "serialized"]


# ----------------------------------------------------------------------------------
# One BLAS thread around round loops that call BLAS/LAPACK
# ----------------------------------------------------------------------------------

_BLAS_MODE = None           # "fast" (okl._core binds OpenBLAS), "slow" (threadpoolctl), "none"
_BLAS_SLOW = {"users": 0, "limiter": None, "controller": None}
_BLAS_SLOW_LOCK = threading.Lock()


def _bind_blas() -> str:
    """Find the BLAS libraries once: OpenBLAS with its own threads (the wheels of
    numpy and scipy) is driven through ``okl._core._blas_enter``/``_blas_exit`` (two C
    calls); anything else (OpenMP builds, MKL, BLIS) through threadpoolctl."""
    global _BLAS_MODE
    if _BLAS_MODE is not None:
        return _BLAS_MODE
    mode = "none"
    try:
        import ctypes

        from threadpoolctl import ThreadpoolController

        ctl = ThreadpoolController()
        blas = [lc for lc in ctl.lib_controllers if lc.user_api == "blas"]
        pairs = []
        for lc in blas:
            get = set_ = None
            if lc.internal_api == "openblas" and getattr(lc, "threading_layer", "") != "openmp":
                get = lc._get_symbol("openblas_get_num_threads")
                set_ = lc._get_symbol("openblas_set_num_threads")
            if get is None or set_ is None:
                pairs = None
                break
            pairs.append((ctypes.cast(get, ctypes.c_void_p).value,
                          ctypes.cast(set_, ctypes.c_void_p).value))
        if pairs is None:
            _BLAS_SLOW["controller"] = ctl
            mode = "slow"
        elif pairs and _core._blas_bind(pairs) == len(pairs):
            mode = "fast"
    except Exception:  # threadpoolctl missing, or unable to act: run as is
        mode = "none"
    _BLAS_MODE = mode
    return mode


class _OneBlasThread:
    """BLAS/LAPACK limited to one thread while at least one guarded call runs.

    Process-wide and re-entrant: the first call in sets the limit, the last one out
    restores what it found, so two threads running learners never restore each
    other's limit halfway through a run (threadpoolctl's ``limit`` per call would).
    """

    __slots__ = ()

    def __enter__(self):
        mode = _BLAS_MODE or _bind_blas()
        if mode == "fast":
            _core._blas_enter()
        elif mode == "slow":
            with _BLAS_SLOW_LOCK:
                if _BLAS_SLOW["users"] == 0:
                    try:
                        _BLAS_SLOW["limiter"] = _BLAS_SLOW["controller"].limit(
                            limits=1, user_api="blas")
                    except Exception:
                        _BLAS_SLOW["limiter"] = None
                _BLAS_SLOW["users"] += 1
        return self

    def __exit__(self, *exc):
        mode = _BLAS_MODE
        if mode == "fast":
            _core._blas_exit()
        elif mode == "slow":
            with _BLAS_SLOW_LOCK:
                _BLAS_SLOW["users"] -= 1
                if _BLAS_SLOW["users"] == 0 and _BLAS_SLOW["limiter"] is not None:
                    _BLAS_SLOW["limiter"].restore_original_limits()
                    _BLAS_SLOW["limiter"] = None
        return False


_ONE_BLAS_THREAD = _OneBlasThread()
_NO_GUARD = contextlib.nullcontext()


def one_blas_thread():
    """A context limiting BLAS/LAPACK to one thread (threadpoolctl's libraries; no-op
    without threadpoolctl).

    For learners whose round calls BLAS/LAPACK on matrices of a few hundred rows
    (an incremental Gram inverse, Ahpatron's halving solve): OpenBLAS hands those
    to its thread pool, which on a busy 2-core machine made them up to ~100x
    slower than one thread (Ahpatron, B = 400: 45 s against 0.4 s for 50,000
    rounds), while the round loop itself is sequential.  Entering costs about a
    microsecond with OpenBLAS (see ``_OneBlasThread``), so ``learn_one`` can pay it.
    """
    return _ONE_BLAS_THREAD


# ----------------------------------------------------------------------------------
# One call at a time per learner
# ----------------------------------------------------------------------------------

def _locked(f):
    """``f`` run holding its learner's lock (re-entrant)."""
    if getattr(f, "_okl_locked", False):
        return f

    @functools.wraps(f)
    def locked(self, *args, **kwargs):
        with self._okl_lock:
            return f(self, *args, **kwargs)

    locked._okl_locked = True
    return locked


def _unlocked(f):
    """Mark ``f`` as needing no lock (it reads nothing a learning call changes, or
    takes the lock itself)."""
    f._okl_locked = True
    return f


#: private names that read a learner's whole state: locked like the public calls
_LOCKED_DUNDERS = frozenset({"__reduce__", "__reduce_ex__", "__getstate__", "__setstate__"})


def serialized(cls):
    """Make every public method and property of ``cls`` (defined in Python, on it or
    on its bases) take the instance's re-entrant lock ``_okl_lock``.

    Applied automatically to every subclass of :class:`OnlineLearner`
    (``__init_subclass__``), so a learner added later is covered without doing
    anything; other learner families (the experts) apply it as a decorator and
    create ``_okl_lock`` in ``__new__`` (see :class:`Serialized`).
    """
    seen = set()
    for klass in cls.__mro__:
        for name, attr in list(vars(klass).items()):
            if name in seen or (name.startswith("_") and name not in _LOCKED_DUNDERS):
                continue
            seen.add(name)
            if isinstance(attr, types.FunctionType):
                if not getattr(attr, "_okl_locked", False):
                    setattr(cls, name, _locked(attr))
            elif isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
                if not getattr(attr.fget, "_okl_locked", False):
                    setattr(cls, name, property(
                        _locked(attr.fget),
                        None if attr.fset is None else _locked(attr.fset),
                        None if attr.fdel is None else _locked(attr.fdel),
                        attr.__doc__))
            elif isinstance(attr, types.GetSetDescriptorType) and name not in _ATOMIC:
                setattr(cls, name, _locked_getset(attr))
    return cls


#: typed cores' properties that read one C scalar or reference (safe at any time, and
#: read on every call): not wrapped
_ATOMIC = frozenset({"n_rounds", "n_features", "is_classifier", "support_set"})


def _locked_getset(desc):
    """A property reading (and, where the core allows it, writing) the typed core's
    attribute ``desc`` under the learner's lock: these copy typed buffers that a
    round loop in another thread may be reallocating."""
    def fget(self):
        with self._okl_lock:
            return desc.__get__(self, type(self))

    def fset(self, value):
        with self._okl_lock:
            desc.__set__(self, value)

    fget._okl_locked = fset._okl_locked = True
    return property(fget, fset, None, desc.__doc__)


class Serialized:
    """Base giving each instance the re-entrant lock its public calls take.

    Every call that reads or writes a learner's state -- ``run``, ``partial_fit``,
    ``learn_one``, ``predict_one``, ``decision_function``, ``predict``, pickling,
    ``set_params`` and each learner's own public methods and properties -- holds
    the learner's lock, so calls from several threads on one learner are
    serialized, each one whole, in the order the lock admits them (never
    interleaved: a round loop runs without the GIL, and two of them on one
    learner would corrupt its buffers).  The lock is released between calls, so
    a thread feeding a stream in chunks lets a predicting thread in between two
    chunks.  Separate learners share nothing and run in parallel.

    ``learner.lock`` is the lock itself: hold it to read a live object a learner
    hands out (``support_set``) while other threads may be learning.
    """

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        obj._okl_lock = threading.RLock()
        return obj

    @property
    @_unlocked
    def lock(self):
        """The learner's re-entrant lock (a context manager)."""
        return self._okl_lock

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        serialized(cls)


# ----------------------------------------------------------------------------------
# The learner surface
# ----------------------------------------------------------------------------------

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


class KernelExpansion:
    """Accessors of a learner whose hypothesis is ``f = sum_i coefficients[i]
    k(support_vectors[i], .)`` held in the core's :class:`~okl.SupportSet`."""

    @property
    def support_vectors(self) -> np.ndarray:
        return np.empty((0, 0)) if self.support_set is None else self.support_set.vectors

    @property
    def coefficients(self) -> np.ndarray:
        return np.empty(0) if self.support_set is None else self.support_set.coefficients


class KORSDictionaryView:
    """Accessors of a learner whose KORS dictionary (``okl.learners.kors``: points kept
    with weights from their sampling probabilities ``p_j``) is the core's
    :class:`~okl.SupportSet` (ProsNKONS, PKAWV with ``method="nystrom"``)."""

    @property
    def dictionary(self) -> np.ndarray:
        """The dictionary points ``x~_j``, ``j in I_t``, shape ``(|I_t|, d)``."""
        return np.empty((0, 0)) if self.support_set is None else self.support_set.vectors

    @property
    def dictionary_rounds(self) -> np.ndarray:
        """The (1-based) round at which each dictionary point was received (joined)."""
        s = self.support_set
        return np.empty(0, np.int64) if s is None else s.stamps

    @property
    def dictionary_weights(self) -> np.ndarray:
        """The KORS weights of the dictionary points: ``p_j^{-1/2}`` (ProsNKONS with
        ``variant="jgr2019"``: ``1/p_j``)."""
        return np.empty(0) if self.support_set is None else self.support_set.coefficients


class HorizonLearner:
    """Mixin for learners whose parameters depend on the horizon ``T`` (POMDR's ALD
    threshold and B0, the selection learners' sampling rates and step sizes).

    ``T`` is a constructor parameter; when it is ``None`` the first ``run`` takes the
    stream's length as the horizon.  Streaming use (``learn_one``, ``partial_fit``)
    needs ``T``, and no call may learn past it: both raise ``ValueError`` before any
    state changes.  Refusing up front is deliberate: a stream fed in pieces has no
    length to take, and the alternatives change the algorithm -- the doubling trick
    restarts the learner at ``T = 2^k`` (forgetting its whole model at each restart;
    the bounds hold within a constant factor, about 3.4 for ``sqrt(T)`` bounds), and
    re-deriving the parameters from a growing ``t`` is an algorithm none of the papers
    analyses.  Pass an upper bound of the stream's length as ``T``
    (docs/bad_input.rst).  A subclass sets ``_horizon_depends`` (what depends on ``T``, for
    the message), has a core method ``_horizon()`` (or overrides ``_core_horizon``) and
    may check a first example's width in ``_check_first``; ``_checked`` fixes the
    horizon of each learning call before any state changes (``_run_horizon()`` reads
    it when the core is set up).  It is listed before ``OnlineLearner`` in the bases.
    """

    _horizon_depends = "its parameters"

    #: the horizon the current learning call runs under (set by ``_checked``)
    _pending_T = None

    def _core_horizon(self) -> int:
        """The horizon the typed core was set up with (``<= 0``: not yet)."""
        return self._horizon()

    @property
    def horizon_(self):
        """The horizon ``T`` in use (``None`` until known)."""
        T = self._core_horizon()
        return None if T <= 0 else T

    def _known_horizon(self):
        """The horizon fixed so far: the parameter ``T``, else the core's, else ``None``."""
        T = self.T if self.T is not None else self._core_horizon()
        return None if T <= 0 else T

    def _check_first(self, d: int) -> None:
        """Raise the ``ValueError`` a first example of width ``d`` would meet (a budget
        that buys too little for that width), before any state changes."""

    def _checked(self, X, y):
        stream, labels = super()._checked(X, y)
        T = self._horizon_for(stream.T)
        if self.n_features is None:
            self._check_first(stream.d)
        self._pending_T = T
        return stream, labels

    def _run_horizon(self) -> int:
        """The horizon of the stream being set up: ``T``, else the call's (``_checked``)."""
        return self.T if self.T is not None else self._pending_T

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

    @_unlocked      # reads only T (a parameter); OnlineLearner.partial_fit takes the lock
    def partial_fit(self, X, y=None):
        self._require_T("for partial_fit")
        return super().partial_fit(X, y)


class ExampleBudgeted:
    """Mixin for learners given one of ``B``, ``memory_budget`` and ``time_budget``
    (declared with ``okl.learners.budget_kinds.example_budget_param`` and its two siblings;
    the rule between them is ``check_budget_choice``, kept as ``_budget_spec``) that turn
    a memory or time budget into an example budget with ``_example_budget(d)`` once the
    width ``d`` is known."""

    #: the int ``B`` or the budget object (``None``: no budget, e.g. OKS)
    _budget_spec = None

    def _check_budget(self) -> None:
        """The rule between the three declared budget parameters, called from the
        learner's ``_check_params``: exactly one given (``ValueError`` naming them
        otherwise), kept as the checked ``_budget_spec``."""
        self._budget_spec = check_budget_choice(self.B, self.memory_budget, self.time_budget)

    def _check_first(self, d: int) -> None:
        """A first example of width ``d``: ``ValueError`` if the budget buys too little."""
        self._example_budget(d)

    @property
    def B_(self):
        """The example budget in use (``None`` without a budget, or until ``d`` is known
        for a memory or time budget)."""
        if self._budget_spec is None:
            return None
        if isinstance(self._budget_spec, int):
            return self._budget_spec
        return None if self.n_features is None else self._example_budget(self.n_features)


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
