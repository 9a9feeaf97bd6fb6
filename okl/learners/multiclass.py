"""Multiclass kernel learners: one support set, a coefficient per class, one kernel row a
round for all ``K`` classes (``okl/learners/_multiclass.pyx``).

:class:`MulticlassLearner` is the surface every multiclass learner shares (labels of any
``K >= 2`` distinct values, ``classes_``, the multiclass :class:`~okl.trace.Trace`,
``predict`` returning labels, ``decision_function`` the ``(n, K)`` scores); the learners:

* :class:`MulticlassPerceptron`: Crammer & Singer's (2003) ultraconservative additive
  family, with the updates LIBOL calls max-score, uniform and proportional;
* :class:`MulticlassPA`: the multiclass passive-aggressive algorithms PA, PA-I, PA-II of
  Crammer, Dekel, Keshet, Shalev-Shwartz & Singer (2006).
"""
from __future__ import annotations

import time

import numpy as np

from okl._learner import Field, fields
from okl._validation import as_stream, check_row
from okl.kernels import Gaussian
from okl.learners._multiclass import (CrammerSingerCore, MulticlassPACore,
                                      _drive_multiclass, _learn_one_multiclass)
from okl.learners.base import OnlineLearner
from okl.params import Choice, KernelParam, Real, Seed, Value
from okl.registry import register_learner
from okl.trace import CLASS_SCORES_MAX, Trace

__all__ = ["MulticlassLearner", "MulticlassPerceptron", "MulticlassPA", "check_classes",
           "label_indices", "label_array"]


def check_classes(value, name="classes"):
    """``classes``: ``None`` or at least two distinct labels (kept as given; sorted for
    use)."""
    if value is None:
        return None
    try:
        arr = np.asarray(value)
    except Exception as exc:
        raise ValueError(f"{name} must be a sequence of labels: {exc}") from None
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"{name} must hold at least 2 labels, got {value!r}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} holds a label twice: {value!r}")
    return value


def label_indices(y, n, classes, name="the learner"):
    """``(indices, classes)``: ``y`` (``n`` labels) as int32 indices into ``classes``
    (``None``: the sorted distinct labels of ``y``, which must be at least two); a
    ``ValueError`` naming the problem (nothing is kept: the caller fixes the classes of
    a first stream once it is learned)."""
    arr = label_array(y, n, name)
    if classes is None:
        classes = np.unique(arr)
        if classes.size < 2:
            raise ValueError(f"the first stream of {name} shows "
                             f"{classes.size} class ({classes.tolist()}): a multiclass "
                             f"learner needs at least 2; give classes=[...]")
    try:
        idx = np.searchsorted(classes, arr)
    except TypeError:
        raise ValueError(f"y holds labels of another kind than classes_ "
                         f"{classes.tolist()}") from None
    idx = np.minimum(idx, classes.size - 1)
    bad = classes[idx] != arr
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"y holds labels outside the classes {classes.tolist()}: "
                         f"{np.unique(arr[bad])[:5].tolist()} (round {first})")
    return idx.astype(np.int32), classes


def label_array(y, n, name="the learner"):
    """``y`` as a 1-D array of ``n`` finite numbers or strings."""
    if y is None:
        raise ValueError(f"y is required: {name} learns from labels")
    try:
        arr = np.asarray(y)
    except Exception as exc:
        raise ValueError(f"y must be a 1-D array of labels: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"y has {arr.shape[0]} labels for {n} rounds")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"y contains NaN or infinity (round {bad})")
    if arr.dtype.kind == "O":        # strings (or numbers) held as Python objects
        if all(isinstance(v, str) for v in arr):
            arr = arr.astype(str)
        elif all(isinstance(v, (int, float, np.integer, np.floating))
                 and not isinstance(v, bool) for v in arr):
            arr = arr.astype(np.float64)
    if arr.dtype.kind not in "biufUS":
        raise ValueError(f"y must hold numbers or strings, got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"y contains NaN or infinity (round {bad})")
    return arr


class MulticlassLearner(OnlineLearner):
    """The surface of a multiclass learner (mixin over a ``MulticlassCore``).

    Labels are any ``K >= 2`` distinct values (integers or strings, as in
    scikit-learn); ``classes_`` holds them sorted, the order of the scores' columns.
    They are the parameter ``classes``, or else the distinct labels of the first stream
    learned (which then must show at least two); a later label outside ``classes_`` is
    a ``ValueError`` naming it, with nothing learned.  A round scores every class with
    one kernel row, predicts the first class of largest score, and records the margin
    ``f_y(x_t) - max_{c != y} f_c(x_t)`` in ``Trace.scores``.
    """

    classes = Value(None, check=check_classes, text="None or a list of >= 2 distinct labels",
                    none="the sorted distinct labels of the first stream learned")

    #: what the learner learns (okl.testing, the wrappers and the commands read it)
    task = "multiclass"

    @property
    def classes_(self):
        """The classes, sorted (``None`` until known)."""
        return self.__dict__.get("_classes")

    def _check_params(self):
        super()._check_params()
        self.__dict__["_classes"] = None
        if self.classes is not None:
            self._fix_classes(np.unique(np.asarray(self.classes)))

    def _fix_classes(self, classes):
        self._set_classes(len(classes))
        self.__dict__["_classes"] = classes

    def _indices(self, y, n):
        """``y`` (``n`` labels) as int32 indices into ``classes_`` (:func:`label_indices`)."""
        return label_indices(y, n, self.classes_, type(self).__name__)

    def _learn(self, X, y, record: bool):
        stream = as_stream(X, -1 if self.n_features is None else self.n_features)
        idx, classes = self._indices(y, stream.T)
        if self.classes_ is None:
            self._fix_classes(classes)
        self._ensure_allocated(stream.d)
        self._begin_stream(stream.T)
        T, K = stream.T, self.K
        arrays = ((np.empty(T, np.int32), np.empty(T), np.empty(T),
                   np.empty(T, np.uint8), np.empty(T, np.intc),
                   np.empty((T, K)) if T * K <= CLASS_SCORES_MAX else None)
                  if record else (None,) * 6)
        with self._blas_guard(T):
            start = time.perf_counter()
            done = _drive_multiclass(self, stream, idx, *arrays)
            seconds = time.perf_counter() - start
        if done < T:
            raise self._failure()
        return arrays, seconds, idx

    def run(self, X, y=None) -> Trace:
        """Learn the stream ``(X, y)``; its :class:`~okl.trace.Trace` with the predicted
        class per round (``predictions``), the margins (``scores``), the mistakes, the
        losses, the support size and (``T K`` small enough) every class's score."""
        with self._okl_lock:
            (preds, margins, losses, mistakes, budget, scores), seconds, _ = \
                self._learn(X, y, True)
            return Trace(scores=margins, losses=losses, mistakes=mistakes.view(bool),
                         budget=budget, seconds=seconds, extras=self._extras(),
                         learner=repr(self), predictions=self.classes_[preds],
                         classes=self.classes_.copy(), class_scores=scores)

    def partial_fit(self, X, y=None):
        with self._okl_lock:
            self._learn(X, y, False)
        return self

    def learn_one(self, x, y=None) -> None:
        """Learn from one example ``x`` with label ``y`` (one of ``classes_``, or of the
        classes the learner was given)."""
        with self._okl_lock:
            d = self.n_features
            stream = check_row(x, -1 if d is None else d)
            if y is None:
                raise ValueError(f"y is required: {type(self).__name__} learns from labels")
            y = label_array(np.atleast_1d(y), 1, type(self).__name__)
            if self.classes_ is None:
                raise ValueError(f"{type(self).__name__} learns one example at a time once "
                                 f"its classes are known: give classes=[...] or learn a "
                                 f"first stream with run / partial_fit")
            idx, _ = self._indices(y, 1)
            if d is None:
                self._ensure_allocated(stream.d)
            if not _learn_one_multiclass(self, stream, int(idx[0])):
                raise self._failure()

    def decision_function(self, X) -> np.ndarray:
        """The ``(n, K)`` scores ``f_c(x)`` of the current hypothesis (no learning)."""
        with self._okl_lock:
            d = self.n_features
            stream = as_stream(X, -1 if d is None else d)
            if self.classes_ is None:
                raise ValueError(f"{type(self).__name__} has no classes yet: learn first")
            if d is None:
                return np.zeros((stream.T, self.K))
            return self._scores_of(stream)

    def predict(self, X) -> np.ndarray:
        """The predicted class of each row (the first of the largest scores)."""
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]

    def predict_one(self, x):
        """The predicted class of one example."""
        with self._okl_lock:
            stream = check_row(x, -1 if self.n_features is None else self.n_features)
            if self.classes_ is None:
                raise ValueError(f"{type(self).__name__} has no classes yet: learn first")
            if self.n_features is None:
                return self.classes_[0]
            return self.classes_[int(np.argmax(self._scores_of(stream)[0]))]

    # -- state ----------------------------------------------------------------------

    def _classes_state(self):
        return None if self.classes_ is None else self.classes_.copy()

    def _put_classes(self, value):
        if value is not None:
            self._fix_classes(np.asarray(value))

    @property
    def _known_classes(self) -> bool:
        return self.classes_ is not None

    _state_fields = fields(Field("classes_", get="_classes_state", put="_put_classes"),
                           Field("coefficients", get="_coefficient_state",
                                 put="_put_coefficients", when="_known_classes"))

    @property
    def support_vectors(self) -> np.ndarray:
        """The support vectors, one row each (in the order they joined)."""
        return np.empty((0, 0)) if self.support_set is None else self.support_set.vectors

    @property
    def coefficients(self) -> np.ndarray:
        """The ``|S| x K`` coefficients: ``f_c = sum_i A[i, c] k(s_i, .)``."""
        if self.classes_ is None:
            return np.empty((0, 0))
        return self._coefficients()


class _WeightVectorModel(MulticlassLearner):
    """A multiclass learner whose model is weight vectors, not a kernel expansion (online
    AMM's hyperplanes, linear Pegasos, FOGD's weights on random features): its core gets
    no kernel, and it has no support vectors and no coefficients (empty arrays; its
    ``weights`` hold the model)."""

    def _configure(self):
        # no kernel for the core: no support set
        self._core_setup(None, self.seed, True)
        self._setup()

    @property
    def support_vectors(self) -> np.ndarray:
        """An empty ``0 x 0`` array: the model keeps no support vectors."""
        return np.empty((0, 0))

    @property
    def coefficients(self) -> np.ndarray:
        """An empty ``0 x 0`` array: the model is its ``weights``."""
        return np.empty((0, 0))


_LIBOL_NOTE = """
    Notes
    -----
    ``convention="paper"`` follows Crammer & Singer's Fig. 2: an update whenever
    ``E = {r != y : f_r(x) >= f_y(x)}`` is not empty, ties included (so the first round,
    all scores 0, is an update even though its prediction, the lowest class, may be
    right); DOGMA's kernel Perceptron does the same for max-score.  ``"libol"`` is
    LIBOL's ``M_PerceptronM/U/S.m``: an update iff the prediction is wrong, with ``E``
    built from ``f_r > f_y``; for uniform and proportional a mistake made by a tie then
    has an empty ``E`` and only ``f_y`` moves (a step outside the family, whose mistake
    bound no longer applies).  The oracle of both is
    ``tests/oracles/multiclass_reference.py``.  ``Trace.losses`` holds
    ``max(0, -margin)``, the multiclass Perceptron loss."""


@register_learner(
    paper="multiclass", task="multiclass", role="method",
    examples=[dict(kernel=Gaussian(1.0)), dict(kernel=Gaussian(1.0), update="uniform"),
              dict(kernel=Gaussian(1.0), update="proportional", convention="libol")],
    aliases=("CrammerSinger", "PerceptronM"),
    bounds="okl.experiments.bounds.multiclass:perceptron")
class MulticlassPerceptron(MulticlassLearner, CrammerSingerCore):
    __doc__ = r"""Multiclass kernel Perceptron, Crammer & Singer, *Ultraconservative online
    algorithms for multiclass problems* (JMLR 3, 2003), the additive family of Fig. 2.

    ``f_c(x) = sum_i A[i, c] k(s_i, x)``; predict the first class of largest score.  On an
    error round (``E = {r != y : f_r(x) >= f_y(x)}`` not empty), ``x`` joins the support
    set with the row ``tau``: ``tau_y = 1``, ``tau_r <= 0`` on ``E`` summing to ``-1``,
    zero elsewhere.  ``update`` chooses ``tau`` on ``E``:

    * ``"max"`` (max-score, LIBOL's PerceptronM): ``-1`` on the rival
      ``argmax_{r != y} f_r(x)`` (lowest index on ties);
    * ``"uniform"`` (PerceptronU): ``-1/|E|`` on each;
    * ``"proportional"`` (PerceptronS): ``-(f_r - f_y) / sum_{q in E} (f_q - f_y)``, the
      uniform step when every one of ``E`` ties with ``y`` (the formula's 0/0).

    Each support vector touches ``1 + |E|`` classes (two for max-score), so a round costs
    one kernel row and ``O(|S|)`` additions whatever ``K``.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    update : {"max", "uniform", "proportional"}, default "max"
    convention : {"paper", "libol"}, default "paper"
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.
    """ + _LIBOL_NOTE

    kernel = KernelParam()
    update = Choice("max", {"max": 0, "uniform": 1, "proportional": 2}, core="update_kind")
    convention = Choice("paper", {"paper": False, "libol": True}, core="libol")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "update", "convention", "classes", "seed")


@register_learner(
    paper="multiclass", task="multiclass", role="method",
    examples=[dict(kernel=Gaussian(1.0)), dict(kernel=Gaussian(1.0), variant="pa1", C=0.5),
              dict(kernel=Gaussian(1.0), variant="pa2", rule="prediction-based")],
    aliases=("MulticlassPassiveAggressive",),
    bounds="okl.experiments.bounds.multiclass:passive_aggressive")
class MulticlassPA(MulticlassLearner, MulticlassPACore):
    r"""Multiclass kernel passive-aggressive algorithms PA, PA-I and PA-II, Crammer, Dekel,
    Keshet, Shalev-Shwartz & Singer, *Online passive-aggressive algorithms* (JMLR 7, 2006),
    the multiclass section (one prototype per class).

    With the rival ``s`` and the multiclass hinge loss
    ``l = max(0, 1 - (f_y(x) - f_s(x)))``, an update moves ``f_y += tau k(x, .)`` and
    ``f_s -= tau k(x, .)`` (``x`` joins the support set with the row ``tau (e_y - e_s)``),
    where ``||Phi(x, y) - Phi(x, s)||^2 = 2 k(x, x)`` gives

    * PA: ``tau = l / (2 k(x, x))``;
    * PA-I: ``tau = min(C, l / (2 k(x, x)))``;
    * PA-II: ``tau = l / (2 k(x, x) + 1 / (2 C))``.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    variant : {"pa", "pa1", "pa2"}, default "pa"
    C : float > 0, default 1.0
        Aggressiveness of PA-I and PA-II.
    rule : {"max-loss", "prediction-based"}, default "max-loss"
        ``"max-loss"``: the rival is the highest-scoring wrong class, an update whenever
        the loss is positive (LIBOL's ``M_PA*``, DOGMA's ``k_pa_multi_train``);
        ``"prediction-based"``: updates on mistakes only, against the predicted class,
        with the loss ``f_pred - f_y + 1`` (the paper's prediction-based update).
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic).

    Notes
    -----
    With ``k(x, x) = 0`` PA and PA-I cannot move the scores: no update.
    ``Trace.losses`` holds the multiclass hinge loss.  Oracle:
    ``tests/oracles/multiclass_reference.py`` (``passive_aggressive``).
    """

    kernel = KernelParam()
    variant = Choice("pa", {"pa": 0, "pa1": 1, "pa2": 2})
    C = Real(1.0, low=0, low_open=True)
    rule = Choice("max-loss", {"max-loss": False, "prediction-based": True},
                  core="prediction_based")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "variant", "C", "rule", "classes", "seed")
