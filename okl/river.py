"""okl's online learners as `River <https://riverml.xyz>`_ estimators.

>>> from okl.river import Classifier                                      # doctest: +SKIP
>>> model = Classifier(okl.BOGD(kernel=okl.Gaussian(2.0), B=100, seed=0))  # doctest: +SKIP
>>> for x, y in river.datasets.Phishing():                                # doctest: +SKIP
...     y_pred = model.predict_one(x)
...     model.learn_one(x, y)

A multiclass learner (``okl.MulticlassPerceptron``, ``okl.MulticlassPA``, the multiclass
Projectrons, or ``okl.OneVsRest`` / ``okl.OneVsOne`` around a binary learner) makes
:class:`Classifier` a multiclass River classifier: labels of any hashable kind, learned as
they come (or given as ``classes=``); see :class:`Classifier`.

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
    """An okl classifier as a River classifier: a binary one (BOGD, FOGD, Projectron,
    POMDR, ...), or a multiclass one (``MulticlassPerceptron``, ``MulticlassPA``,
    ``MulticlassProjectron(PP)``, ``OneVsRest`` / ``OneVsOne`` around a binary learner).

    Parameters
    ----------
    learner : okl online classifier, default ``okl.FOGD(loss="logistic", seed=0)``
        The specification; the first ``learn_one`` trains a fresh copy, ``learner_``.
    features : tuple of feature names, optional
        The columns, in order; default: the sorted keys of the first example learned.
    pos_label : default True
        The label learned as +1.  Every label equal to it (``True == 1 == 1.0``) is
        +1; the first other label seen is -1, and a third distinct label is a
        ``ValueError`` (a binary learner: use a multiclass one for more).  The default
        suits River's binary convention (``y`` a bool) and labels in {0, 1} or {-1, +1}.
        Unused with a multiclass learner.
    classes : sequence of labels, optional
        A multiclass learner's labels, all known up front (any hashable values, at least
        two, distinct; their order is the order of the class scores, and ties go to the
        first).  The learner then learns every round with all ``K`` classes, exactly as
        ``learner.run`` on the same rows with the labels ``0 .. K-1`` in this order; a
        label outside them is a ``ValueError``.  Default: the learner's own ``classes``
        if it was given some (sorted, its order), else the labels as they come (see
        Notes).  Unused with a binary learner.

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

    *Multiclass learners.*  Labels are any hashable values (``True == 1 == 1.0`` are one
    label, as in a dict); ``learner_`` learns them as the class indices ``0 .. K-1`` in
    the order the labels were first seen (or the order of ``classes=``).  Without
    ``classes``, the classes grow as labels come, as River's own multiclass models do:

    * until a second label has been seen there is nothing to tell apart: the rounds
      teach the learner nothing (``learner_`` learns from the round that shows a second
      label on, with those two classes);
    * a new label joins as class ``K`` with a zero score function: ``learner_`` carries
      on with ``K + 1`` classes, its support set and every earlier class's coefficients
      unchanged (a native learner is rebuilt from its state with a zero column; a
      ``OneVsRest`` gains a fresh copy of its binary learner for the class, a
      ``OneVsOne`` one per new pair, whose zero score votes for the old class: every
      old class gains one vote, so their order is kept).  This is not the learner
      given every class up front, whose unseen classes take part in the updates of
      earlier rounds (a Crammer-Singer update lowers every class that ties the true
      one): give ``classes=`` for that.

    ``predict_one`` is the first class of largest score ``f_c(x)`` (the learner's
    ``predict_one``); the only label seen when there is one, ``None`` before any.
    ``predict_proba_one`` is the softmax ``exp(f_c(x)) / sum_r exp(f_r(x))`` over every
    label seen (or given): it sums to 1, is monotone in the scores (so its largest
    probability is ``predict_one``'s class) and is defined for every learner, which
    River's checks ask of a classifier that tracks its labels; the scores are not
    trained as log-odds (a Perceptron's grow with its support set), so it is a ranking
    rather than a calibrated probability.  ``class_scores_one(x)`` returns the scores
    themselves, label by label.
    """

    _is_classifier = True

    def __init__(self, learner=None, features=None, pos_label=True, classes=None):
        super().__init__(learner, features)
        self.pos_label = pos_label
        self.classes = classes

    @property
    def _multiclass(self):
        """Whether the learner is a multiclass one (River's tag: its multiclass checks)."""
        learner = self.__dict__.get("learner_")
        if learner is None:
            try:
                learner = self._spec()
            except ValueError:
                return False
        return getattr(learner, "task", None) == "multiclass"

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
        if self._multiclass:
            self._learn_multiclass(x, y)
            return
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
        if self._multiclass:
            labels, f = self._class_scores(x)
            return None if not labels else labels[int(np.argmax(f))]
        neg, pos = self._labels()
        label = self._predict(x)
        return pos if label is None or label > 0.0 else neg

    def score_one(self, x: dict) -> float:
        """The learner's score ``f(x)`` (0 before the first example learned); a
        multiclass learner's scores are :meth:`class_scores_one`'s."""
        if self._multiclass:
            raise ValueError("score_one: a multiclass learner has one score per class; "
                             "use class_scores_one")
        return super().score_one(x)

    def class_scores_one(self, x: dict) -> dict:
        """A multiclass learner's score ``f_c(x)`` of every label seen (or given), in
        class order (all 0 before the learner learns)."""
        if not self._multiclass:
            raise ValueError("class_scores_one is for a multiclass learner; a binary one "
                             "has the one score of score_one")
        labels, f = self._class_scores(x)
        return {label: float(v) for label, v in zip(labels, f)}

    def predict_proba_one(self, x: dict) -> dict:
        if self._multiclass:
            labels, f = self._class_scores(x)
            if not labels:
                return {}
            e = np.exp(f - f.max())
            p = e / e.sum()
            return {label: float(v) for label, v in zip(labels, p)}
        spec = self._spec()
        if getattr(spec, "loss", None) != "logistic":
            raise NotImplementedError(
                f"predict_proba_one: {type(spec).__name__} does not learn the logistic loss, "
                "so its score is not a probability; use predict_one or score_one")
        f = self._score(x)
        p = 0.5 if f is None else _sigmoid(f)
        neg, pos = self._labels()
        return {neg: 1.0 - p, pos: p}


    # -- multiclass learners ----------------------------------------------------------

    def _given_classes(self):
        """The labels given up front, checked (at least two distinct hashable ones):
        ``classes``, else the learner's own ``classes`` in its order (sorted), else
        None."""
        classes = self.classes
        if classes is None:
            own = getattr(self._spec(), "classes", None)
            if own is None:
                return None
            classes = np.unique(np.asarray(own)).tolist()
        try:
            labels = [_plain(c) for c in classes]
        except TypeError:
            raise ValueError(f"classes must be a sequence of labels, got "
                             f"{self.classes!r}") from None
        try:
            distinct = len({c: None for c in labels})
        except TypeError:
            raise ValueError(f"classes must hold hashable labels, got {self.classes!r}"
                             ) from None
        if len(labels) < 2 or distinct != len(labels):
            raise ValueError(f"classes must hold at least 2 distinct labels, got "
                             f"{classes!r}")
        if any(c is None for c in labels):
            raise ValueError("classes: None is not a label")
        return labels

    def _known_labels(self) -> list:
        """The labels in class order: seen so far, or given (``classes``)."""
        labels = self.__dict__.get("_class_labels")
        if labels is not None:
            return labels
        return self._given_classes() or []

    def _learn_multiclass(self, x: dict, y):
        if not isinstance(x, dict):
            raise ValueError(f"x must be a dict of feature values, got {type(x).__name__}")
        y = _plain(y)
        if y is None:
            raise ValueError("okl.river: None is not a label")
        try:
            hash(y)
        except TypeError:
            raise ValueError(f"okl.river: a label must be hashable, got {y!r}") from None
        if "learner_" not in self.__dict__:
            given = self._given_classes()
            if given is not None and y not in given:
                raise ValueError(f"okl.river: label {y!r} is not one of classes = {given!r}")
            self._start(x)                      # checks x before anything is kept
            self._class_labels = [] if given is None else list(given)
            self._class_of = {c: i for i, c in enumerate(self._class_labels)}
            self._fixed_classes = given is not None
            if given is not None:
                self.learner_.set_params(classes=list(range(len(given))))
        row = self._row(x)
        idx = self._class_of.get(y)
        if idx is None and self._fixed_classes:
            raise ValueError(f"okl.river: label {y!r} is not one of classes = "
                             f"{self._class_labels!r}")
        if idx is None:                         # a new label: class K
            K = len(self._class_labels)
            if K == 1:
                self.learner_.set_params(classes=[0, 1])
            elif K >= 2:
                self.learner_ = _add_class(self.learner_)
            self._class_labels.append(y)
            self._class_of[y] = idx = K
        if len(self._class_labels) >= 2:
            self.learner_.learn_one(row, idx)

    def _class_scores(self, x: dict):
        """``(labels, f)``: the labels in class order and their scores ``f_c(x)``."""
        if not isinstance(x, dict):
            raise ValueError(f"x must be a dict of feature values, got {type(x).__name__}")
        labels = self._known_labels()
        if "learner_" not in self.__dict__ or len(labels) < 2:
            if "learner_" in self.__dict__:
                self._row(x)                    # the same checks of x as later on
            return labels, np.zeros(len(labels))
        row = self._row(x)
        return labels, np.asarray(self.learner_.decision_function(row[None, :])[0], float)


def _plain(y):
    """A numpy scalar label as the Python value it equals (``np.True_`` -> ``True``)."""
    return y.item() if isinstance(y, np.generic) else y


def _add_class(learner):
    """``learner`` (a multiclass learner with ``K`` classes ``0 .. K-1``) with one more
    class, ``K``, whose score function is zero: the same support set and coefficients of
    the other classes.  A native learner is rebuilt from its pickled state with a zero
    column (and, with per-class spans, an empty span for the new class); a ``OneVsRest``
    gains a fresh copy of its binary learner, a ``OneVsOne`` one per new pair (a zero score
    votes for the pair's first class, the old one: every old class gains one vote).

    Raises ``ValueError`` for a learner whose per-class state okl.river does not know how
    to extend (give ``classes=`` up front instead)."""
    from okl.learners.reductions import OneVsOne, OneVsRest, _clone

    K = len(learner.classes_)
    if isinstance(learner, (OneVsRest, OneVsOne)):     # extended in place
        if isinstance(learner, OneVsRest):
            ests = learner._estimators + [_clone(learner._template)]
        else:
            pairs = dict(zip(learner._pairs(), learner._estimators))
            ests = [pairs[a, b] if b < K else _clone(learner._template)
                    for a in range(K + 1) for b in range(a + 1, K + 1)]
        learner._estimators = ests
        learner._classes = np.arange(K + 1)
        learner.classes = list(range(K + 1))
        return learner
    rebuild, (cls, params, state) = learner.__reduce__()
    params = dict(params, classes=list(range(K + 1)))
    extra = dict(state["extra"])
    probe = cls(**params)._state()            # a fresh learner with K + 1 classes
    before = cls(**dict(params, classes=list(range(K))))._state()
    for key, value in extra.items():
        if key == "classes_":
            extra[key] = np.arange(K + 1)
        elif key == "coefficients" and isinstance(value, tuple):
            A, used = value
            extra[key] = (np.column_stack([A, np.zeros(A.shape[0])]), used)
        elif key == "spans" and isinstance(value, tuple):
            grams, members = value
            if members is not None:           # per-class spans: an empty one for K
                grams = list(grams) + [probe["spans"][0][-1]]
                members = list(members) + [np.zeros(0, dtype=np.int32)]
            extra[key] = (grams, members)
        elif _layout(before.get(key)) != _layout(probe.get(key)):
            raise ValueError(f"okl.river cannot add a class to {cls.__name__} (its state "
                             f"{key!r} depends on the classes): give classes=[...] up front")
    try:
        return rebuild(cls, params, dict(state, extra=extra))
    except ValueError as exc:                 # a per-class state the probes did not show
        raise ValueError(f"okl.river cannot add a class to {cls.__name__} ({exc}): give "
                         f"classes=[...] up front") from None


def _layout(value):
    """The shape of a state value (arrays: their shape; sequences: their length and their
    items' layouts), to tell the per-class ones."""
    if isinstance(value, np.ndarray):
        return ("array", value.shape)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, len(value), tuple(_layout(v) for v in value))
    return type(value).__name__


class Regressor(_OKLEstimator, base.Regressor):
    """An okl regressor (FOGD, NOGD or KernelOGD with a regression loss, PKAWV, KernelAWV,
    ...) as a River regressor.

    Parameters
    ----------
    learner : okl online regressor, default ``okl.FOGD(loss="squared", seed=0)``
        As in :class:`Classifier`.
    features : tuple of feature names, optional
        As in :class:`Classifier`.

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
