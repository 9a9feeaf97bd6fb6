"""Learners written in plain Python: :class:`PythonLearner`.

A researcher's new algorithm enters okl here first.  A subclass defines two methods,
``score(x)`` and ``update(x, y, score)``, and keyword parameters in its constructor;
everything else a built-in learner has comes with it: ``run`` returning the same
:class:`~okl.trace.Trace`, ``partial_fit``, ``learn_one``/``predict_one``, ``predict``,
``decision_function``, ``get_params``/``set_params``/``repr`` from the constructor's
signature, input validation before any state changes, pickling mid-stream, one call
at a time from several threads, okl's scikit-learn and River wrappers, and every
``okl`` command by import path (``okl run --learner mymodule:MyLearner``).
:func:`okl.testing.check_learner` holds it to okl's contract.

The stream still runs in okl's typed driver (``okl._core._drive``); each round calls
back into the subclass's Python (``okl/learners/_python.pyx``), which costs about a
microsecond a round beside the subclass's own work (``benchmarks/python_learner.py``
prints the ratio against the same loop written by hand).  When the prototype is right,
its Cython core can be written against okl's ``.pxd`` files and tested against the
prototype as its oracle (docs/own_learner.rst).
"""
from __future__ import annotations

import types

from okl.learners._python import PythonCore
from okl.learners.base import OnlineLearner

__all__ = ["PythonLearner"]

#: methods of a subclass that the driver calls (under the learner's lock already)
_CALLBACKS = ("score", "update", "support_size", "extras")


class PythonLearner(OnlineLearner, PythonCore):
    """Base class of a learner written in Python.

    Subclass it and define:

    ``score(self, x) -> float``
        The prediction ``f_t(x)`` of the current hypothesis.  ``x`` is a fresh 1-D
        float64 array of the stream's width (CSR rows are handed over as dense rows,
        zeros filled in), which the learner may keep (a support vector).
    ``update(self, x, y, score) -> float``
        Learn from the round: ``x`` is the array ``score`` received this round, ``y``
        the label (a float: -1.0 or +1.0 for classification), ``score`` the value
        ``score`` returned.  Returns the round's loss (``None`` counts as 0), recorded
        in ``Trace.losses``.

    and, optionally, ``support_size(self) -> int`` (recorded per round in
    ``Trace.budget``; without it the budget is 0) and ``extras(self) -> dict`` (the
    algorithm's quantities in ``Trace.extras``).

    The constructor takes keyword parameters and stores each under its own name, as
    scikit-learn's estimators do (``get_params``, ``repr``, ``set_params``, cloning
    and pickling read them back): ``kernel=`` if it uses an okl kernel (the commands
    pass ``--kernel``/``--sigma`` and the reproductions the paper's kernel there),
    ``seed=`` if it draws random numbers (take them only from
    ``numpy.random.default_rng(seed)``, so that a seed gives one run).

    Class attribute ``task``: ``"classification"`` (labels in {-1, +1}, mistakes
    counted; the default) or ``"regression"`` (real labels).

    Everything else is inherited.  Input is validated before any state changes
    (``ValueError`` naming the problem).  An exception raised by the subclass's code,
    or a score or loss that is not a finite float, stops the stream at that round:
    the learner holds the completed rounds (the failed round is not counted) and the
    call re-raises it.  The round's number is ``self.n_rounds`` inside ``score`` and
    ``update`` (1-based); ``self.n_features`` is the stream's width.

    Pickling saves the constructor's parameters and the instance's attributes (its
    ``__dict__``), which must therefore pickle.

    Examples
    --------
    A kernel Perceptron::

        import numpy as np
        import okl

        class MyPerceptron(okl.PythonLearner):
            def __init__(self, kernel=None):
                self.kernel = kernel
                self.S, self.alpha = [], []

            def score(self, x):
                if not self.S:
                    return 0.0
                gamma = 1.0 / (2.0 * self.kernel.sigma ** 2)
                S = np.asarray(self.S)
                return float(np.exp(-gamma * ((S - x) ** 2).sum(axis=1)) @ self.alpha)

            def update(self, x, y, score):
                if y * score <= 0:
                    self.S.append(x)
                    self.alpha.append(y)
                return max(0.0, -y * score)

            def support_size(self):
                return len(self.S)

        trace = MyPerceptron(kernel=okl.Gaussian(1.0)).run(X, y)
    """

    #: "classification" or "regression"
    task = "classification"

    _okl_score_may_fail = True

    def __init_subclass__(cls, **kwargs):
        for name in _CALLBACKS:          # called by the driver, which holds the lock
            f = cls.__dict__.get(name)
            if isinstance(f, types.FunctionType):
                f._okl_locked = True
        super().__init_subclass__(**kwargs)
        # the one-call paths of learn_one/predict_one check for a failure after they
        # release the lock; a failing Python round must be reported under it
        cls._okl_fast_one = False
        if cls.task not in ("classification", "regression"):
            raise TypeError(f"{cls.__name__}.task must be 'classification' or "
                            f"'regression', got {cls.task!r}")

    def __new__(cls, *args, **kwargs):
        for name in ("score", "update"):
            if getattr(cls, name) is getattr(PythonLearner, name):
                raise TypeError(f"{cls.__name__} must define {name}(): see "
                                f"okl.PythonLearner")
        obj = super().__new__(cls)
        obj._core_setup(None, None, cls.task == "classification")
        size = None if cls.support_size is PythonLearner.support_size else obj.support_size
        obj._py_bind(obj.score, obj.update, size)
        return obj

    def __init__(self):
        pass

    # -- what a subclass defines -------------------------------------------------------

    def score(self, x) -> float:
        """``f_t(x)`` (define it in the subclass)."""
        raise NotImplementedError

    def update(self, x, y: float, score: float) -> float:
        """Learn from ``(x, y)`` given its ``score``; return the round's loss (define it)."""
        raise NotImplementedError

    def support_size(self) -> int:
        """The size of the learner's memory (optional; recorded in ``Trace.budget``)."""
        return 0

    def extras(self) -> dict:
        """Algorithm quantities for ``Trace.extras`` (optional)."""
        return {}

    # -- the OnlineLearner hooks -------------------------------------------------------

    def _extras(self) -> dict:
        return dict(self.extras())

    def _state(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_okl")}

    def _restore(self, state: dict) -> None:
        self.__dict__.update(state)

    def _core_failure(self, in_round):
        return self._py_failure(in_round)
