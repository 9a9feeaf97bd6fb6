"""The learner an estimator wrapper holds as its parameter (:mod:`okl.sklearn`,
:mod:`okl.river`).

A wrapper keeps an okl learner as the *specification*, never trained itself, and trains
fresh copies of it; both wrappers check the specification the same way (the layers:
docs/design.rst).
"""
from __future__ import annotations

__all__ = ["checked_learner", "fresh"]


def checked_learner(learner, *, classifier: bool, default, wrappers: tuple):
    """The specification ``learner`` (``default()`` when it is None), checked.

    Parameters
    ----------
    learner : OnlineLearner or None
        The wrapper's ``learner`` parameter.
    classifier : bool
        Whether the wrapper is a classifier (else a regressor).
    default : callable
        Makes the wrapper's default learner, used when ``learner`` is None.
    wrappers : (str, str)
        The names of the wrapper's classifier and regressor, for the message.

    Returns
    -------
    OnlineLearner

    Raises
    ------
    ValueError
        ``learner`` is no okl online learner, or one of the other task (the message names
        the wrapper that takes it).
    """
    from okl.learners.base import OnlineLearner     # on first use, as the wrappers were

    if learner is None:
        learner = default()
    if not isinstance(learner, OnlineLearner):
        raise ValueError(f"learner must be an okl online learner, got {learner!r}")
    if bool(learner.is_classifier) != classifier:
        task = "a classifier" if learner.is_classifier else "a regressor"
        want = wrappers[0] if learner.is_classifier else wrappers[1]
        raise ValueError(f"{learner!r} is {task}: wrap it in {want}")
    return learner


def fresh(spec):
    """A new, untrained learner with the parameters of ``spec``."""
    return type(spec)(**spec.get_params())
