"""scikit-learn estimators around okl's online learners.

>>> from okl.sklearn import OnlineClassifier
>>> clf = OnlineClassifier(okl.NORMA(kernel=okl.Gaussian(2.0), lam=0.01, tau=500))  # doctest: +SKIP
>>> clf.fit(X, y).score(X_test, y_test)                                              # doctest: +SKIP

An estimator holds an okl learner *as a parameter* (never trained: it is the
specification) and trains a fresh copy of it, ``learner_``, in ``fit``.  One pass
over the rows of ``X`` in the given order is one online stream: ``fit(X, y)``
equals ``learner.run(X, y)`` on a new learner, and ``partial_fit`` continues the
stream.  So everything scikit-learn offers around estimators applies --
``clone``, pipelines, ``cross_val_score``, grid search over ``learner=[...]``
-- with the online learner unchanged inside.

``OnlineClassifier`` accepts any two labels for a binary learner (``classes_[0]`` is the
learner's -1, ``classes_[1]`` its +1) and any K labels for a multiclass one (a native
multiclass learner, or ``okl.OneVsRest`` / ``okl.OneVsOne`` around a binary one);
``OnlineRegressor`` real targets.  :func:`estimator`
picks the right one for a learner.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from okl._wrapper import HeldLearner

__all__ = ["OnlineClassifier", "OnlineRegressor", "estimator"]


def _default_classifier():
    from okl.learners import Perceptron

    return Perceptron()


def _default_regressor():
    from okl.learners import KernelOGD

    return KernelOGD(loss="squared")


class _OnlineEstimator(HeldLearner, BaseEstimator):
    """Shared fit/partial_fit/decision logic; subclasses map labels."""

    _is_classifier: bool
    _defaults = (_default_classifier, _default_regressor)
    _wrappers = ("OnlineClassifier", "OnlineRegressor")

    def __init__(self, learner=None):
        self.learner = learner

    def _validate(self, X, y="no_validation", reset=True):
        if isinstance(y, str) and y == "no_validation":
            return validate_data(self, X, reset=reset, accept_sparse="csr", dtype=np.float64)
        return validate_data(self, X, y, reset=reset, accept_sparse="csr", dtype=np.float64,
                             y_numeric=not self._is_classifier)

    def _learn(self, X, targets):
        self.learner_.run(X, targets)

    def fit(self, X, y):
        """Learn the rows of ``X`` as one stream, in order, with a fresh learner."""
        X, y = self._validate(X, y)
        targets = self._targets(y, fitting=True)
        self.learner_ = self._fresh()
        self._learn(X, targets)
        return self

    def partial_fit(self, X, y, **kwargs):
        """Continue the stream with the rows of ``X`` (starts one if not fitted)."""
        first = not hasattr(self, "learner_")
        X, y = self._validate(X, y, reset=first)
        targets = self._targets(y, fitting=first, **kwargs)
        if first:
            self.learner_ = self._fresh()
        self._learn(X, targets)
        return self

    def _scores(self, X):
        """``f(x)`` of the current hypothesis for each row (nothing is learned)."""
        check_is_fitted(self, "learner_")
        X = self._validate(X, reset=False)
        return self.learner_.decision_function(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class OnlineClassifier(ClassifierMixin, _OnlineEstimator):
    """A binary okl classifier (Perceptron, NORMA, POMDR, ...) as a scikit-learn estimator.

    Parameters
    ----------
    learner : okl online classifier, default ``okl.Perceptron()``
        The specification; ``fit`` trains a fresh copy, ``learner_``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[0]`` is learned as -1, ``classes_[1]`` as +1.
    learner_ : the trained learner (its ``Trace``-level state: support set, extras ...).
    n_features_in_ : int
    """

    _is_classifier = True

    def _multiclass(self) -> bool:
        """Whether the learner is a multiclass one (native, or a OneVsRest/OneVsOne)."""
        return getattr(self._spec(), "task", None) == "multiclass"

    def _fresh(self):
        learner = super()._fresh()
        if self._multiclass():
            learner.set_params(classes=list(self.classes_))
        return learner

    def _learn(self, X, targets):
        self.learner_.run(X, targets)

    def _targets(self, y, *, fitting, classes=None):
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        multiclass = self._multiclass()
        if not multiclass and y_type != "binary":
            raise ValueError("Only binary classification is supported. The type of the "
                             f"target is {y_type}: give a multiclass learner, or the "
                             f"binary one wrapped in okl.OneVsRest / okl.OneVsOne.")
        self._fix_classes(y, fitting=fitting, classes=classes, binary=not multiclass)
        if multiclass:                 # a multiclass learner learns the labels themselves
            return np.asarray(y)
        return np.where(y == self.classes_[1], 1.0, -1.0)

    def _fix_classes(self, y, *, fitting, classes, binary):
        """``classes_`` from the first fit (or ``classes``): exactly two for a binary
        learner, at least two for a multiclass one; later labels must be among them."""
        if fitting:
            classes = np.unique(y) if classes is None else np.unique(np.asarray(classes))
            if binary and classes.size != 2:
                raise ValueError(f"{type(self).__name__} is a binary classifier: it needs "
                                 f"exactly 2 classes, got {classes.size} class(es) {classes!r}")
            if classes.size < 2:
                raise ValueError(f"{type(self).__name__} needs at least 2 classes, got "
                                 f"{classes.size} class(es) {classes!r}")
            self.classes_ = classes
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={classes!r} differ from the classes of the first "
                             f"partial_fit, {self.classes_!r}")
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(f"y contains labels {np.unique(y[unknown])!r} outside "
                             f"classes_ = {self.classes_!r}")

    def partial_fit(self, X, y, classes=None):
        """Continue the stream; ``classes`` (every label) may be given on the first call,
        else the first batch must contain them all."""
        return super().partial_fit(X, y, classes=classes)

    def decision_function(self, X):
        """Scores of the current hypothesis (nothing is learned): ``f(x)``, positive
        meaning ``classes_[1]``, for a binary learner; the ``(n, K)`` class scores of a
        multiclass one (with two classes ``f_1(x) - f_0(x)``, as scikit-learn's)."""
        f = self._scores(X)
        if f.ndim == 2 and f.shape[1] == 2:
            return f[:, 1] - f[:, 0]
        return f

    def predict(self, X):
        f = self._scores(X)
        if f.ndim == 2:
            return self.classes_[np.argmax(f, axis=1)]
        return self.classes_[(f >= 0.0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            tags.classifier_tags.multi_class = self._multiclass()
        except ValueError:
            tags.classifier_tags.multi_class = False
        return tags


class OnlineRegressor(RegressorMixin, _OnlineEstimator):
    """An okl regressor (KernelOGD or NORMA with a regression loss, PKAWV, ...) as a
    scikit-learn estimator.

    Parameters
    ----------
    learner : okl online regressor, default ``okl.KernelOGD(loss="squared")``
    """

    _is_classifier = False

    def _targets(self, y, *, fitting):
        return np.asarray(y, dtype=np.float64)

    def predict(self, X):
        """Forecasts ``f(x)`` of the current hypothesis (nothing is learned)."""
        return self._scores(X)


def estimator(learner):
    """The scikit-learn estimator for ``learner``: ``OnlineClassifier`` or ``OnlineRegressor``."""
    cls = OnlineClassifier if learner.is_classifier else OnlineRegressor
    return cls(learner)
