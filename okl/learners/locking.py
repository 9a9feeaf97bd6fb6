"""One call at a time per learner: every public method and property of a learner takes
its re-entrant lock (:class:`Serialized`, applied to every subclass of
``okl.learners.base.OnlineLearner``)."""
from __future__ import annotations

import functools
import threading
import types

__all__ = ["Serialized", "serialized"]


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
