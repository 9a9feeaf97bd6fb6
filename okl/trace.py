"""What a run returns."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Trace", "CLASS_SCORES_MAX"]

#: the largest ``T K`` for which a multiclass run keeps every class score per round
CLASS_SCORES_MAX = 1 << 24


@dataclass(repr=False)
class Trace:
    """Per-round record of one pass of a learner over a stream.

    Attributes
    ----------
    scores : (T,) float array
        ``f_t(x_t)``, the prediction made before learning from round ``t``.
    losses : (T,) float array
        The learner's own loss at that prediction (see each learner's docs).
    mistakes : (T,) bool array or None
        ``y_t f_t(x_t) <= 0`` (a zero score counts as a mistake, as in the
        Perceptron analyses); ``None`` for regression learners.
    budget : (T,) int array
        Size of the learner's memory (support vectors, features) after round ``t``.
    seconds : float
        Wall time of the run.
    extras : dict
        Algorithm-specific quantities (e.g. ``sum_delta``, ``t_bar``, ``removals``).
    learner : str
        ``repr`` of the learner that produced the trace.
    predictions : (T,) array or None
        A multiclass learner's predicted class per round (a label of ``classes``); its
        ``scores`` are then the margins ``f_y(x_t) - max_{c != y} f_c(x_t)`` and its
        ``mistakes`` the rounds where the prediction is not ``y_t``.
    classes : (K,) array or None
        A multiclass learner's classes, in the order of ``class_scores``' columns.
    class_scores : (T, K) float array or None
        A multiclass learner's ``f_c(x_t)`` for every class, before round ``t``'s update
        (kept when ``T K`` is at most :data:`CLASS_SCORES_MAX` values).
    mean_squared_error : float or None
        A regressor's ``mean (f_t(x_t) - y_t)^2`` (``None`` for a classifier, or without
        labels).
    """

    scores: np.ndarray
    losses: np.ndarray
    mistakes: np.ndarray | None
    budget: np.ndarray
    seconds: float
    extras: dict = field(default_factory=dict)
    learner: str = ""
    predictions: np.ndarray | None = None
    classes: np.ndarray | None = None
    class_scores: np.ndarray | None = None
    mean_squared_error: float | None = None

    @property
    def is_multiclass(self) -> bool:
        return self.predictions is not None

    @property
    def n_rounds(self) -> int:
        return int(self.scores.shape[0])

    @property
    def is_classification(self) -> bool:
        return self.mistakes is not None

    def _need_mistakes(self):
        if self.mistakes is None:
            raise ValueError("this trace comes from a regression learner: it has no mistakes")
        return self.mistakes

    @property
    def n_mistakes(self) -> int:
        return int(self._need_mistakes().sum())

    @property
    def mistake_rate(self) -> float:
        """Fraction of rounds with ``y_t f_t(x_t) <= 0``."""
        return float(self._need_mistakes().mean())

    @property
    def cumulative_mistakes(self) -> np.ndarray:
        return np.cumsum(self._need_mistakes(), dtype=np.int64)

    @property
    def cumulative_loss(self) -> np.ndarray:
        return np.cumsum(self.losses)

    @property
    def average_loss(self) -> float:
        return float(self.losses.mean())

    @property
    def final_budget(self) -> int:
        return int(self.budget[-1])

    @property
    def max_budget(self) -> int:
        return int(self.budget.max())

    def to_dict(self, per_round: bool = False) -> dict:
        """A JSON-ready summary; with ``per_round`` the arrays as lists too."""
        out = {
            "learner": self.learner,
            "n_rounds": self.n_rounds,
            "seconds": self.seconds,
            "average_loss": self.average_loss,
            "final_budget": self.final_budget,
            "max_budget": self.max_budget,
        }
        if self.is_classification:
            out["mistakes"] = self.n_mistakes
            out["mistake_rate"] = self.mistake_rate
        if self.is_multiclass:
            out["classes"] = self.classes.tolist()
        if self.mean_squared_error is not None:
            out["mean_squared_error"] = self.mean_squared_error
        out["extras"] = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                         for k, v in self.extras.items()}
        if per_round:
            out["scores"] = self.scores.tolist()
            out["losses"] = self.losses.tolist()
            out["budget"] = self.budget.tolist()
            if self.is_classification:
                out["mistakes_per_round"] = self.mistakes.astype(int).tolist()
            if self.is_multiclass:
                out["predictions"] = self.predictions.tolist()
        return out

    def save(self, path) -> None:
        """Write the whole trace (per-round arrays, extras, learner) to ``path`` (``.npz``)."""
        import json

        arrays = {"scores": self.scores, "losses": self.losses, "budget": self.budget}
        if self.mistakes is not None:
            arrays["mistakes"] = self.mistakes
        for name in ("predictions", "classes", "class_scores"):
            if getattr(self, name) is not None:
                arrays[name] = getattr(self, name)
        extras = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                  for k, v in self.extras.items()}
        meta = {"seconds": self.seconds, "learner": self.learner, "extras": extras}
        if self.mean_squared_error is not None:
            meta["mean_squared_error"] = self.mean_squared_error
        np.savez_compressed(path, meta=np.array(json.dumps(meta, default=_plain)), **arrays)

    @classmethod
    def load(cls, path) -> "Trace":
        """A trace written by :meth:`save` (extras' lists come back as lists)."""
        import json
        import os
        import zipfile

        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: no such file")
        try:
            data = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path} is not a trace written by Trace.save: {exc}") from None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError(f"{path} is not a trace written by Trace.save (not an .npz)")
        with data:
            if "meta" not in data or "scores" not in data:
                raise ValueError(f"{path} is not a trace written by Trace.save")
            meta = json.loads(str(data["meta"]))
            return cls(scores=data["scores"], losses=data["losses"],
                       mistakes=data["mistakes"] if "mistakes" in data else None,
                       budget=data["budget"], seconds=meta["seconds"],
                       extras=meta["extras"], learner=meta["learner"],
                       mean_squared_error=meta.get("mean_squared_error"),
                       **{k: data[k] for k in ("predictions", "classes", "class_scores")
                          if k in data})

    def __repr__(self) -> str:
        head = f"Trace({self.learner or 'learner'}: {self.n_rounds} rounds"
        if self.is_classification:
            head += f", mistake rate {self.mistake_rate:.4f}"
        head += f", average loss {self.average_loss:.4g}, final budget {self.final_budget}"
        return head + f", {self.seconds:.3g} s)"


def _plain(value):
    """JSON for numpy scalars and non-finite floats in extras."""
    if isinstance(value, np.generic):
        return value.item()
    return str(value)
