"""What a run returns."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Trace"]


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
    """

    scores: np.ndarray
    losses: np.ndarray
    mistakes: np.ndarray | None
    budget: np.ndarray
    seconds: float
    extras: dict = field(default_factory=dict)
    learner: str = ""

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
        out["extras"] = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                         for k, v in self.extras.items()}
        if per_round:
            out["scores"] = self.scores.tolist()
            out["losses"] = self.losses.tolist()
            out["budget"] = self.budget.tolist()
            if self.is_classification:
                out["mistakes_per_round"] = self.mistakes.astype(int).tolist()
        return out

    def save(self, path) -> None:
        """Write the whole trace (per-round arrays, extras, learner) to ``path`` (``.npz``)."""
        import json

        arrays = {"scores": self.scores, "losses": self.losses, "budget": self.budget}
        if self.mistakes is not None:
            arrays["mistakes"] = self.mistakes
        extras = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                  for k, v in self.extras.items()}
        meta = {"seconds": self.seconds, "learner": self.learner, "extras": extras}
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
                       extras=meta["extras"], learner=meta["learner"])

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
