"""The learner an estimator wrapper holds as its parameter (:mod:`okl.sklearn`,
:mod:`okl.river`).

A wrapper keeps an okl learner as the *specification*, never trained itself, and trains
fresh copies of it; both wrappers' base classes take :class:`HeldLearner` for that (the
layers: docs/design.rst).
"""
from __future__ import annotations

__all__ = ["HeldLearner"]


class HeldLearner:
    """Mixin of an estimator wrapper whose parameter ``learner`` is an okl learner.

    The wrapper's classes set ``_is_classifier`` (its classifier or its regressor),
    ``_defaults`` (functions making the default classifier and the default regressor,
    used when ``learner`` is None) and ``_wrappers`` (the names of its classifier and
    its regressor, for the message that names the one to use).
    """

    _is_classifier: bool
    _defaults: tuple
    _wrappers: tuple

    def _spec(self):
        """The specification: ``learner`` (the default when it is None), checked.

        Raises
        ------
        ValueError
            ``learner`` is no okl online learner, or one of the other task (the message
            names the wrapper that takes it).
        """
        from okl.learners.base import OnlineLearner     # on first use, as before
        from okl.learners.reductions import OneVsOne, OneVsRest

        learner = self.learner
        if learner is None:
            learner = self._defaults[0 if self._is_classifier else 1]()
        if not isinstance(learner, (OnlineLearner, OneVsRest, OneVsOne)):
            raise ValueError(f"learner must be an okl online learner, got {learner!r}")
        if bool(learner.is_classifier) != self._is_classifier:
            task = "a classifier" if learner.is_classifier else "a regressor"
            want = self._wrappers[0 if learner.is_classifier else 1]
            raise ValueError(f"{learner!r} is {task}: wrap it in {want}")
        return learner

    def _fresh(self):
        """A new, untrained learner with the specification's parameters."""
        spec = self._spec()
        return type(spec)(**spec.get_params())
