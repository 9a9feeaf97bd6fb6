"""Streams larger than memory: a file read in chunks, learned chunk by chunk.

``run_chunks(learner, chunks)`` feeds ``(X, y)`` blocks (``okl.datasets.iter_chunks``) to
``learner.run`` one after the other: a learner's state carries across calls, so the
rounds are those of one ``run`` over the whole file, bit for bit (tested).  Memory is
one chunk, the model and the trace; the trace is either a ``SummaryTrace`` (cumulative
mistakes and loss every ``every`` rounds, O(T / every)) or, with ``keep_rounds``, the
whole per-round ``okl.trace.Trace``.  A ``tqdm`` bar shows the examples learned and the
examples per second.

``run_file(learner, path_or_name)`` does it for a LIBSVM / CSV file or a dataset of
``okl.datasets.DATASETS``; ``okl run --data FILE`` uses it.
"""
from __future__ import annotations

import json

import numpy as np

__all__ = ["SummaryTrace", "run_chunks", "run_file", "DEFAULT_EVERY", "label_reading"]

DEFAULT_EVERY = 1000


class SummaryTrace:
    """What a chunked run keeps: totals, and cumulative sums every ``every`` rounds.

    Attributes
    ----------
    every : int
        Rounds between checkpoints.
    rounds : (m,) int array
        The round counts of the checkpoints (``every``, ``2 every``, ..., and the last
        round).
    cumulative_mistakes : (m,) int array or None
        Mistakes up to each checkpoint (``None`` for regression learners).
    cumulative_loss : (m,) float array
        The learner's loss summed up to each checkpoint.
    budget : (m,) int array
        The learner's memory at each checkpoint.
    seconds : float
        Time spent learning (reading the file excluded).
    extras : dict
        The learner's algorithm quantities after the last chunk.
    learner : str
        ``repr`` of the learner.

    The totals (``n_rounds``, ``n_mistakes``, ``mistake_rate``, ``average_loss``,
    ``final_budget``, ``max_budget``) are exact, not sampled; ``to_dict`` has the keys of
    ``Trace.to_dict``.
    """

    def __init__(self, every: int = DEFAULT_EVERY, learner: str = ""):
        if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
            raise ValueError(f"every must be a positive integer, got {every!r}")
        self.every = int(every)
        self.learner = learner
        self.n_rounds = 0
        self._mistakes = None
        self._loss = 0.0
        self.max_budget = 0
        self.final_budget = 0
        self.seconds = 0.0
        self.extras = {}
        self._rounds, self._cum_m, self._cum_l, self._budget = [], [], [], []
        self._sq_error = None      # regression: sum (f_t(x_t) - y_t)^2

    @property
    def mean_squared_error(self):
        """A regressor's ``mean (f_t(x_t) - y_t)^2`` over the rounds (``None`` for a
        classifier)."""
        return None if self._sq_error is None else self._sq_error / self.n_rounds

    def add(self, trace) -> None:
        """Account for the next chunk's per-round ``Trace``."""
        T = trace.n_rounds
        if T == 0:
            return
        if trace.mean_squared_error is not None:
            self._sq_error = trace.mean_squared_error * T + (self._sq_error or 0.0)
        cum_l = self._loss + np.cumsum(trace.losses)
        if trace.mistakes is not None:
            base = 0 if self._mistakes is None else self._mistakes
            cum_m = base + np.cumsum(trace.mistakes, dtype=np.int64)
            self._mistakes = int(cum_m[-1])
        else:
            cum_m = None
        # checkpoints that fall in this chunk: rounds every, 2 every, ... (1-based)
        first = self.n_rounds
        marks = np.arange((first // self.every + 1) * self.every, first + T + 1, self.every)
        local = marks - first - 1
        self._rounds.extend(marks.tolist())
        self._cum_l.extend(cum_l[local].tolist())
        self._budget.extend(np.asarray(trace.budget)[local].tolist())
        if cum_m is not None:
            self._cum_m.extend(cum_m[local].tolist())
        self._loss = float(cum_l[-1])
        self.n_rounds += T
        self.final_budget = int(trace.budget[-1])
        self.max_budget = max(self.max_budget, int(np.max(trace.budget)))
        self.seconds += trace.seconds
        self.extras = trace.extras
        self.learner = trace.learner
        self._last = (self.n_rounds, self._loss, self.final_budget,
                      None if cum_m is None else self._mistakes)

    # -- the checkpoints, with the last round always included ---------------------------

    def _with_last(self, values, index):
        out = list(values)
        rounds = list(self._rounds)
        if self.n_rounds and (not rounds or rounds[-1] != self.n_rounds):
            rounds.append(self.n_rounds)
            out.append(self._last[index])
        return rounds, out

    @property
    def rounds(self) -> np.ndarray:
        return np.array(self._with_last([], 0)[0], dtype=np.int64)

    @property
    def cumulative_loss(self) -> np.ndarray:
        return np.array(self._with_last(self._cum_l, 1)[1], dtype=float)

    @property
    def budget(self) -> np.ndarray:
        return np.array(self._with_last(self._budget, 2)[1], dtype=np.int64)

    @property
    def cumulative_mistakes(self):
        if self._mistakes is None:
            return None
        return np.array(self._with_last(self._cum_m, 3)[1], dtype=np.int64)

    # -- totals -----------------------------------------------------------------------

    @property
    def is_classification(self) -> bool:
        return self._mistakes is not None

    @property
    def n_mistakes(self) -> int:
        if self._mistakes is None:
            raise ValueError("this trace comes from a regression learner: it has no mistakes")
        return self._mistakes

    @property
    def mistake_rate(self) -> float:
        return self.n_mistakes / self.n_rounds

    @property
    def average_loss(self) -> float:
        return self._loss / self.n_rounds

    def to_dict(self, per_round: bool = False) -> dict:
        """A JSON-ready summary with ``Trace.to_dict``'s keys, plus the checkpoints."""
        out = {"learner": self.learner, "n_rounds": self.n_rounds, "seconds": self.seconds,
               "average_loss": self.average_loss, "final_budget": self.final_budget,
               "max_budget": self.max_budget}
        if self.is_classification:
            out["mistakes"] = self.n_mistakes
            out["mistake_rate"] = self.mistake_rate
        if self.mean_squared_error is not None:
            out["mean_squared_error"] = self.mean_squared_error
        out["extras"] = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                         for k, v in self.extras.items()}
        out["summary_every"] = self.every
        out["checkpoints"] = {"rounds": self.rounds.tolist(),
                              "cumulative_loss": self.cumulative_loss.tolist(),
                              "budget": self.budget.tolist()}
        if self.is_classification:
            out["checkpoints"]["cumulative_mistakes"] = self.cumulative_mistakes.tolist()
        return out

    def save(self, path) -> None:
        """The checkpoints and totals as ``.npz`` (``rounds``, ``cumulative_loss``,
        ``budget``, ``cumulative_mistakes``, and the ``to_dict`` summary as JSON)."""
        arrays = {"rounds": self.rounds, "cumulative_loss": self.cumulative_loss,
                  "budget": self.budget}
        if self.is_classification:
            arrays["cumulative_mistakes"] = self.cumulative_mistakes
        summary = self.to_dict()
        summary.pop("checkpoints")
        np.savez_compressed(path, summary=np.array(json.dumps(summary, default=str)), **arrays)

    def __repr__(self) -> str:
        head = f"SummaryTrace({self.learner or 'learner'}: {self.n_rounds} rounds"
        if self.is_classification and self.n_rounds:
            head += f", mistake rate {self.mistake_rate:.4f}"
        if self.n_rounds:
            head += f", average loss {self.average_loss:.4g}"
        return head + f", final budget {self.final_budget}, every {self.every})"


def _concatenate(traces):
    from okl.trace import Trace

    last = traces[-1]
    mistakes = None if last.mistakes is None else np.concatenate([t.mistakes for t in traces])
    multi = {}
    if last.is_multiclass:
        multi = dict(predictions=np.concatenate([t.predictions for t in traces]),
                     classes=last.classes,
                     class_scores=(None if any(t.class_scores is None for t in traces)
                                   else np.concatenate([t.class_scores for t in traces])))
    mse = None
    if all(t.mean_squared_error is not None for t in traces):
        n = sum(t.n_rounds for t in traces)
        mse = sum(t.mean_squared_error * t.n_rounds for t in traces) / n
    return Trace(scores=np.concatenate([t.scores for t in traces]),
                 losses=np.concatenate([t.losses for t in traces]),
                 mistakes=mistakes,
                 budget=np.concatenate([t.budget for t in traces]),
                 seconds=float(sum(t.seconds for t in traces)), extras=last.extras,
                 learner=last.learner, mean_squared_error=mse, **multi)


def run_chunks(learner, chunks, *, every: int = DEFAULT_EVERY, keep_rounds: bool = False,
               total: int | None = None, progress: bool | None = None, desc: str = ""):
    """Learn the ``(X, y)`` blocks of ``chunks`` in order; return the run's trace.

    Each block goes to ``learner.run`` (``partial_fit`` plus the block's per-round
    record): the learner continues from its state, so the rounds equal those of one
    ``run`` over the concatenated blocks.  A bad block raises before anything of it is
    learned; the blocks before it stay learned.

    Parameters
    ----------
    learner : okl learner
    chunks : iterable of (X, y)
    every : int
        Rounds between the checkpoints of the ``SummaryTrace``.
    keep_rounds : bool
        Return the whole per-round ``Trace`` (memory O(T)) instead of a ``SummaryTrace``.
    total : int, optional
        The number of examples, for the progress bar.
    progress : bool, optional
        Show a ``tqdm`` bar of examples and examples per second (default: when standard
        error is a terminal).
    """
    from tqdm.auto import tqdm

    summary = SummaryTrace(every=every, learner=repr(learner))
    kept = []
    disable = None if progress is None else not progress
    with tqdm(total=total, unit=" ex", unit_scale=True, desc=desc or "learning",
              disable=disable, leave=False, dynamic_ncols=True) as bar:
        for X, y in chunks:
            trace = learner.run(X, y)
            summary.add(trace)
            if keep_rounds:
                kept.append(trace)
            bar.update(trace.n_rounds)
    if summary.n_rounds == 0:
        raise ValueError("the stream holds no examples")
    return _concatenate(kept) if keep_rounds else summary


def label_reading(learner):
    """How a file's labels are read for ``learner``: ``None`` (mapped to -1/+1) for a
    binary classifier, ``"keep"`` for a multiclass learner (the file's classes) and a
    regressor (real targets)."""
    if getattr(learner, "task", None) == "multiclass" or not learner.is_classifier:
        return "keep"
    return None


def _plain_labels(labels):
    """A file's labels, integral floats as ints (``1.0`` -> ``1``)."""
    vals = list(labels)
    if all(isinstance(v, float) and v.is_integer() for v in vals):
        return [int(v) for v in vals]
    return vals


def _needs_horizon(learner) -> bool:
    return "T" in getattr(learner, "_param_names", ()) and getattr(learner, "T", 0) is None


def run_file(learner, source, *, chunk_rows: int | None = None, every: int = DEFAULT_EVERY,
             keep_rounds: bool = False, progress: bool | None = None, data_home=None,
             download: bool = False):
    """Learn a LIBSVM / CSV file (or a ``DATASETS`` name) chunk by chunk.

    Returns ``(trace, n_rows)``.  The file's width, labels and (for learners whose
    parameters depend on the horizon ``T`` and were built without it) its number of
    rows come from the registry or from a first pass (``okl.datasets.scan``); such a
    learner is given ``T`` = the number of rows, which is what one ``run`` over the
    whole file would take.
    """
    from pathlib import Path

    from okl.datasets import fetch
    from okl.datasets.chunks import DEFAULT_CHUNK_ROWS, _format_of, scan
    from okl.datasets.fetch import iter_chunks       # a file or a dataset name

    chunk_rows = DEFAULT_CHUNK_ROWS if chunk_rows is None else chunk_rows
    info = None
    total = None
    from okl.datasets.streams import is_keel, stream

    if Path(source).exists() and is_keel(source):
        # a KEEL file is read whole (its classes are names), then learned chunk by chunk
        X, y, _ = stream(str(source), labels=label_reading(learner))
        if getattr(learner, "task", None) == "multiclass" and learner.classes_ is None:
            learner.set_params(classes=_plain_labels(np.unique(y).tolist()))
        if _needs_horizon(learner):
            learner.set_params(T=X.shape[0])
        blocks = ((X[i:i + chunk_rows], y[i:i + chunk_rows])
                  for i in range(0, X.shape[0], chunk_rows))
        trace = run_chunks(learner, blocks, every=every, keep_rounds=keep_rounds,
                           total=X.shape[0], progress=progress, desc=Path(str(source)).name)
        return trace, trace.n_rounds
    if Path(source).exists():
        fmt = _format_of(source, None)
        info = scan(source, format=fmt, chunk_rows=chunk_rows, need_mapping=True)
        total = info.n_rows
    else:
        spec = fetch._spec(source)
        fetch.fetch_file(spec, data_home=data_home, download=download)
        total = spec.n_rows
        if _needs_horizon(learner):
            path, src = fetch.find(spec, data_home)
            info = scan(path, format=spec.format, label_column=spec.label_column,
                        header=spec.header, member=src.member, chunk_rows=chunk_rows,
                        skip_columns=spec.skip_columns,
                        zero_based=False if spec.format == "libsvm" else "auto")
            total = info.n_rows
    if _needs_horizon(learner):
        learner.set_params(T=total)
    labels = label_reading(learner)
    if getattr(learner, "task", None) == "multiclass" and learner.classes_ is None:
        # the learner's task reads the file's labels as they are: a multiclass learner
        # is given the file's classes (a chunk need not show them all)
        if Path(source).exists():
            info = scan(source, format=fmt, chunk_rows=chunk_rows, need_mapping=False)
            classes = info.labels
        else:
            path, src = fetch.find(spec, data_home)
            classes = scan(path, format=spec.format, label_column=spec.label_column,
                           header=spec.header, member=src.member, chunk_rows=chunk_rows,
                           skip_columns=spec.skip_columns,
                           zero_based=False if spec.format == "libsvm" else "auto").labels
        learner.set_params(classes=_plain_labels(classes))
    chunks = iter_chunks(source, chunk_rows=chunk_rows, data_home=data_home,
                         info=info if Path(source).exists() else None, labels=labels)
    trace = run_chunks(learner, chunks, every=every, keep_rounds=keep_rounds, total=total,
                       progress=progress, desc=Path(str(source)).name)
    return trace, trace.n_rounds
