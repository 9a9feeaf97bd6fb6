"""okl's online learners as `River <https://riverml.xyz>`_ estimators.

>>> from okl.river import Classifier                                      # doctest: +SKIP
>>> model = Classifier(okl.BOGD(kernel=okl.Gaussian(2.0), B=100, seed=0))  # doctest: +SKIP
>>> for x, y in river.datasets.Phishing():                                # doctest: +SKIP
...     y_pred = model.predict_one(x)
...     model.learn_one(x, y)

River drives a model one example at a time with feature dicts, ``learn_one(x, y)``
and ``predict_one(x)``; its maintainers leave budgeted kernel learners to other
libraries.  :class:`Classifier` and :class:`Regressor` hold an okl learner *as a
parameter* (the specification, never trained itself, as in :mod:`okl.sklearn`) and
train a fresh copy of it, ``learner_``, through okl's own ``learn_one``: the same
typed round as ``learner.run`` on the same rows in the same order.

Feature names become columns on the first example learned: its keys, sorted (so the
order of a dict's keys never matters), are column ``0 .. d - 1`` of ``learner_`` for
the rest of the stream -- or the names given as ``features=(...)``, in that order
(for sparse dicts, such as one-hot data, whose first example names only a few of the
features).  Afterwards

* a feature missing from ``x`` is 0 (the convention of River's linear models);
* a feature that was not in the first example is ignored, with one ``UserWarning``
  per estimator naming it (a kernel learner's input dimension is fixed once its
  first vector or random frequencies exist: restart the model with that feature
  present in the first example to use it);
* a value that is not a real number (a string, ``None``) is a ``ValueError`` naming
  the feature (encode categories first, e.g. ``river.preprocessing.OneHotEncoder``),
  and so are NaN and infinity; nothing is learned from such an example.

Requires the optional dependency ``river`` (``pip install okl[river]``).
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from okl._dictrow import dict_row
from okl._wrapper import HeldLearner

try:
    from river import base
except ImportError as exc:  # pragma: no cover - exercised only without river
    raise ImportError("okl.river needs River: pip install 'okl[river]' (or pip install river)"
                      ) from exc

__all__ = ["Classifier", "Regressor"]


def _default_classifier():
    from okl.learners import FOGD

    return FOGD(loss="logistic", seed=0)


def _default_regressor():
    from okl.learners import FOGD

    return FOGD(loss="squared", seed=0)


def _column_key(name):
    """Sort key of a feature name: by type, then value (repr if unorderable)."""
    return (type(name).__name__, name) if isinstance(name, (str, numbers.Real)) \
        else (type(name).__name__, repr(name))


class _OKLEstimator(HeldLearner):
    """Shared by Classifier and Regressor: the learner spec, the column map, ``learn_one``."""

    _is_classifier: bool
    _defaults = (_default_classifier, _default_regressor)
    _wrappers = ("okl.river.Classifier", "okl.river.Regressor")

    def __init__(self, learner=None, features=None):
        self.learner = learner
        self.features = features

    # -- the learner -----------------------------------------------------------------

    @property
    def features_(self) -> tuple:
        """The feature names, in column order (fixed at the first example learned);
        empty before it."""
        return getattr(self, "_columns", ())

    # -- dict -> row -------------------------------------------------------------------

    def _row(self, x: dict) -> np.ndarray:
        """The dense row of ``x`` in the fixed column order (missing features are 0)."""
        index = self._index
        row = dict_row(x, index, len(index))         # C: floats and ints of known features
        if row is not None:
            return row
        # new features, or values other than float/int (bools, numpy scalars, strings
        # that numpy would parse, None): one by one, with their checks
        row = np.zeros(len(index))
        for name, value in x.items():
            j = index.get(name)
            if j is None:
                self._unseen(name, value)
                continue
            _check_value(name, value)
            row[j] = float(value)
        return row

    def _unseen(self, name, value):
        _check_value(name, value)
        if not self._warned:
            self._warned = True
            where = ("in features=" if self.features is not None
                     else "in the first example learned")
            warnings.warn(f"okl.river: feature {name!r} was not {where} ({len(self._index)} "
                          "features, fixed then); it is ignored, as is every later new feature "
                          "(this warning is shown once)", UserWarning, stacklevel=5)

    def _start(self, x: dict):
        """Fix the columns on the first example learned and make the learner."""
        for name, value in x.items():
            _check_value(name, value)
        if self.features is None:
            if not x:
                raise ValueError("the first example learned has no features: its keys fix "
                                 "the columns of the learner (or pass features=...)")
            columns = tuple(sorted(x, key=_column_key))
        else:
            columns = tuple(self.features)
            if not columns or len(set(columns)) != len(columns):
                raise ValueError(f"features must be distinct feature names, got "
                                 f"{self.features!r}")
        learner = self._fresh()
        self._columns = columns
        self._index = {name: j for j, name in enumerate(columns)}
        self._warned = False
        self.learner_ = learner

    def _learn(self, x: dict, target: float):
        if not isinstance(x, dict):
            raise ValueError(f"x must be a dict of feature values, got {type(x).__name__}")
        if "learner_" not in self.__dict__:
            self._start(x)
        self.learner_.learn_one(self._row(x), target)

    def _score(self, x: dict) -> float | None:
        """``f(x)`` of the current hypothesis, ``None`` before anything was learned."""
        if not isinstance(x, dict):
            raise ValueError(f"x must be a dict of feature values, got {type(x).__name__}")
        if "learner_" not in self.__dict__:
            return None
        return float(self.learner_.decision_function(self._row(x)[None, :])[0])

    def _predict(self, x: dict) -> float | None:
        """``learner_.predict_one`` of the row (a label in {-1, +1} or a regression value),
        ``None`` before anything was learned."""
        if not isinstance(x, dict):
            raise ValueError(f"x must be a dict of feature values, got {type(x).__name__}")
        if "learner_" not in self.__dict__:
            return None
        return self.learner_.predict_one(self._row(x))

    def score_one(self, x: dict) -> float:
        """The learner's score ``f(x)`` (0 before the first example learned)."""
        f = self._score(x)
        return 0.0 if f is None else f

    @classmethod
    def _unit_test_params(cls):
        import okl

        k = okl.Gaussian(1.0)
        if cls._is_classifier:
            yield {"learner": okl.FOGD(k, D=50, loss="logistic", seed=0)}
            yield {"learner": okl.BOGD(k, B=30, seed=0)}
        else:
            yield {"learner": okl.FOGD(k, D=50, loss="squared", eta=0.05, seed=0)}


def _check_value(name, value):
    if isinstance(value, (bool, np.bool_)):
        return
    if isinstance(value, numbers.Real):
        try:
            if math.isfinite(value):
                return
        except OverflowError:          # an int beyond the float range
            pass
    raise ValueError(_bad_value(name, value))


def _bad_value(name, value):
    if isinstance(value, numbers.Real):
        return f"okl.river: feature {name!r} is {value!r}: values must be finite"
    return (f"okl.river: feature {name!r} has the non-numeric value {value!r}: okl learners "
            "take real features (encode categories first, e.g. with "
            "river.preprocessing.OneHotEncoder)")


class Classifier(_OKLEstimator, base.Classifier):
    """A binary okl classifier (BOGD, FOGD, Projectron, POMDR, ...) as a River classifier.

    Parameters
    ----------
    learner : okl online classifier, default ``okl.FOGD(loss="logistic", seed=0)``
        The specification; the first ``learn_one`` trains a fresh copy, ``learner_``.
    features : tuple of feature names, optional
        The columns, in order; default: the sorted keys of the first example learned.
    pos_label : default True
        The label learned as +1.  Every label equal to it (``True == 1 == 1.0``) is
        +1; the first other label seen is -1, and a third distinct label is a
        ``ValueError`` (okl's classifiers are binary).  The default suits River's
        binary convention (``y`` a bool) and labels in {0, 1} or {-1, +1}.

    Attributes
    ----------
    learner_ : the trained okl learner (its support set, extras, pickling).
    features_ : tuple, the feature names in column order.

    Notes
    -----
    ``predict_one`` is ``pos_label`` when ``f(x) >= 0`` (okl's convention), else the
    negative label (``False`` until one is seen).  ``predict_proba_one`` exists only
    for learners trained on the logistic loss (``loss="logistic"``: FOGD, NOGD,
    KernelOGD, ...), where ``1 / (1 + exp(-f(x)))`` is the model's probability of
    ``pos_label``; for the others (hinge, Perceptron-style updates) the score is not a
    probability and it raises ``NotImplementedError``, as River allows.
    ``score_one(x)`` returns ``f(x)`` itself.  See :mod:`okl.river` for features.
    """

    _is_classifier = True

    def __init__(self, learner=None, features=None, pos_label=True):
        super().__init__(learner, features)
        self.pos_label = pos_label

    @property
    def _multiclass(self):
        return False

    def _target(self, y) -> float:
        if isinstance(y, np.bool_):
            y = bool(y)
        try:
            if y == self.pos_label:
                return 1.0
        except (TypeError, ValueError):  # labels that cannot be compared (arrays, ...)
            raise ValueError(f"okl.river: label {y!r} cannot be compared with "
                             f"pos_label = {self.pos_label!r}") from None
        neg = self.__dict__.get("_neg_label", _NONE)
        if neg is _NONE:
            self._neg_label = y
        elif not y == neg:
            raise ValueError(f"okl.river: a third label {y!r} after {neg!r} and pos_label = "
                             f"{self.pos_label!r}: okl's classifiers are binary")
        return -1.0

    def learn_one(self, x: dict, y) -> None:
        """Learn ``(x, y)``: one round of ``learner_`` (created at the first call)."""
        neg = self.__dict__.get("_neg_label", _NONE)
        target = self._target(y)
        try:
            self._learn(x, target)
        except Exception:
            if neg is _NONE:              # nothing was learned: forget the label too
                self.__dict__.pop("_neg_label", None)
            raise

    def _labels(self):
        neg = self.__dict__.get("_neg_label", _NONE)
        return (False if neg is _NONE else neg), self.pos_label

    def predict_one(self, x: dict):
        neg, pos = self._labels()
        label = self._predict(x)
        return pos if label is None or label > 0.0 else neg

    def predict_proba_one(self, x: dict) -> dict:
        spec = self._spec()
        if getattr(spec, "loss", None) != "logistic":
            raise NotImplementedError(
                f"predict_proba_one: {type(spec).__name__} does not learn the logistic loss, "
                "so its score is not a probability; use predict_one or score_one")
        f = self._score(x)
        p = 0.5 if f is None else _sigmoid(f)
        neg, pos = self._labels()
        return {neg: 1.0 - p, pos: p}


class Regressor(_OKLEstimator, base.Regressor):
    """An okl regressor (FOGD, NOGD or KernelOGD with a regression loss, PKAWV, KernelAWV,
    ...) as a River regressor.

    Parameters
    ----------
    learner : okl online regressor, default ``okl.FOGD(loss="squared", seed=0)``
        The specification; the first ``learn_one`` trains a fresh copy, ``learner_``.
    features : tuple of feature names, optional
        The columns, in order; default: the sorted keys of the first example learned.

    Notes
    -----
    ``predict_one(x)`` is ``f(x)`` (0.0 before the first example learned); targets
    must be finite reals.  See :mod:`okl.river` for features.
    """

    _is_classifier = False

    def learn_one(self, x: dict, y) -> None:
        """Learn ``(x, y)``: one round of ``learner_`` (created at the first call)."""
        if isinstance(y, (bool, np.bool_)) or not isinstance(y, numbers.Real) \
                or not math.isfinite(y):
            raise ValueError(f"okl.river: the target must be a finite real number, got {y!r}")
        self._learn(x, float(y))

    def predict_one(self, x: dict) -> float:
        f = self._predict(x)
        return 0.0 if f is None else float(f)


class _NoneType:
    def __repr__(self):
        return "<none>"


_NONE = _NoneType()


def _sigmoid(f: float) -> float:
    if f >= 0.0:
        return 1.0 / (1.0 + math.exp(-f))
    e = math.exp(f)
    return e / (1.0 + e)
