"""Sweeps: grids of learners, parameters, kernels and stream permutations.

A sweep is a scikit-learn ``ParameterGrid`` (a dict of lists, or a list of such
dicts) whose keys are

* ``learner``: an okl learner's name (``"NORMA"``; case-insensitive) or a learner
  class of your own as ``"module:Class"`` (:mod:`okl.registry`; worker processes import
  the module: joblib's inherit the parent's ``sys.path``, Dask workers need it installed
  or uploaded, see docs/own_learner.rst);
* ``kernel``: ``"gaussian"``, ``"laplacian"``, ``"polynomial"`` or ``"linear"``
  (default ``"gaussian"``), with the kernel's own parameters as keys
  (``sigma``, ``degree``, ``gamma``, ``coef0``);
* any constructor parameter of the learner (``lam``, ``tau``, ``B``, ...).  A
  parameter the learner does not take is dropped for that learner, so one grid
  can hold ``lam`` for NORMA and still run the Perceptron; the rows record only
  the parameters that were used, and identical configurations run once.

Every configuration runs on ``permutations`` random orders of the stream; order
``p`` and the learner's seed both come from ``(seed, p)``, so a row depends on
nothing but its configuration, ``seed`` and ``p``: the same sweep gives the same
rows in one process, in joblib's worker processes (the default) or on a Dask
cluster (``scheduler="tcp://..."``, or a ``distributed.Client``).

With ``journal=PATH`` each finished run is appended to a
:class:`~okl.experiments.journal.Journal` the moment it reaches the parent
process, so a Ctrl-C, a killed process or a lost Dask worker loses only the runs
in flight; ``resume=True`` then runs only what the journal lacks and returns
exactly the rows of an uninterrupted sweep (the same rows, in the same order,
each once).  Rows depend only on the configuration, ``seed``, ``p`` and the
data, so a sweep begun with joblib may be resumed on Dask and vice versa; a
journal written for another grid, seed, stream or okl version is refused.

>>> rows = sweep({"learner": ["Perceptron", "NORMA"], "lam": [0.01, 0.1],
...               "sigma": [1.0, 2.0]}, X, y, permutations=5)        # doctest: +SKIP
>>> summarize(rows)                                                  # doctest: +SKIP
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass

import numpy as np

import okl
from okl import learners, registry
from okl._validation import check_matrix
from okl.experiments.executor import (Progress, atomic_write, data_fingerprint, execute,
                                      sweep_order)
from okl.experiments.journal import Journal, run_key
from okl.kernels import KERNELS, make_kernel

__all__ = ["Config", "configurations", "sweep", "run_one", "summarize", "write_csv",
           "write_json", "format_table", "learner_class", "make_kernel", "run_key_of",
           "data_fingerprint"]

KERNEL_PARAMS = {name: params for name, (_, params) in KERNELS.items()}
_ALL_KERNEL_PARAMS = {p for names in KERNEL_PARAMS.values() for p in names}


def learner_class(name: str):
    """The class of learner ``name``: a registered name (case-insensitive; ``-`` and
    ``_`` ignored) or a class of your own as ``module:Class`` (:func:`okl.learners.get`)."""
    return learners.learner_class(name)


def parameter_names(cls, params=()) -> tuple:
    """Constructor parameters of learner class ``cls`` (:func:`okl.registry.parameter_names`)."""
    return registry.parameter_names(cls, params)


@dataclass(frozen=True)
class Config:
    """One learner configuration of a sweep (hashable, picklable)."""

    learner: str
    params: tuple          # sorted (name, value) pairs of learner parameters
    kernel: str
    kernel_params: tuple   # sorted (name, value) pairs

    def build(self, seed):
        kernel = make_kernel(self.kernel, **dict(self.kernel_params)) if self.kernel else None
        return learners.build(self.learner, dict(self.params), kernel=kernel, seed=seed)

    def as_dict(self) -> dict:
        out = {"learner": self.learner, "kernel": self.kernel}
        out.update(self.kernel_params)
        out.update(self.params)
        return out


def configurations(grid) -> list[Config]:
    """The distinct configurations of ``grid`` (see the module docstring), in grid order.

    Each point's keys are shared between the learner and its kernel by the one rule of
    :func:`okl.learners.split_params` (``kernel.NAME``, ``learner.NAME``; a bare name is
    the kernel's when the kernel takes it); values given as text (``okl sweep -p``) are
    parsed by the parameters' declarations."""
    # imported here: workers that unpickle run_one need not import scikit-learn
    from sklearn.model_selection import ParameterGrid

    from okl.kernels import parse_kernel_param

    seen, out = set(), []
    accepted = _accepted_anywhere(grid)
    for point in ParameterGrid(grid):
        point = dict(point)
        if "learner" not in point:
            raise ValueError("a sweep grid needs a 'learner' key")
        entry = learners.get(point.pop("learner"))
        cls = entry.cls
        kernel = str(point.pop("kernel", "gaussian")).lower()
        if kernel not in KERNEL_PARAMS:
            raise ValueError(f"unknown kernel {kernel!r}; kernels: {sorted(KERNEL_PARAMS)}")
        unknown = sorted(k for k in point if k.partition(".")[2 if "." in k else 0]
                         not in _ALL_KERNEL_PARAMS | accepted)
        if unknown:
            raise ValueError(f"no learner of the grid takes parameter(s) {unknown}")
        mine, theirs = learners.split_params(entry.name, kernel, point)
        names = parameter_names(cls, mine)
        uses_kernel = "kernel" in learners.roles(cls, mine)
        kparams = tuple(sorted((k, parse_kernel_param(k, v) if isinstance(v, str) else v)
                               for k, v in theirs.items()))
        mine = learners.parse_params(cls, {k: v for k, v in mine.items() if k in names})
        lparams = tuple(sorted((k, v) for k, v in mine.items()
                               if k not in ("kernel", "seed")))
        config = Config(entry.name, lparams, kernel if uses_kernel else "", kparams)
        if config not in seen:
            config.build(0)            # constructor validation, before anything runs
            seen.add(config)
            out.append(config)
    return out


def _accepted_anywhere(grid) -> set:
    grids = [grid] if isinstance(grid, dict) else list(grid)
    names = set()
    for g in grids:
        for name in g.get("learner", []):
            names |= registry.all_parameter_names(learner_class(name))
    return names


def run_one(config: Config, X, y, permutation: int, seed: int = 0, timing: bool = True,
            dataset: str | None = None) -> dict:
    """One row of a sweep: ``config`` on permutation ``permutation`` of ``(X, y)``.

    ``timing=False`` leaves out the wall-clock ``seconds``, the one value of a row
    that is not a function of its inputs.  ``dataset`` names the data in the row's
    first column (``dataset``); without it the row has no such column.
    """
    order, learner_seed = sweep_order(seed, permutation, X.shape[0])
    learner = config.build(seed=learner_seed)
    trace = learner.run(X[order], None if y is None else np.asarray(y)[order])
    row = {} if dataset is None else {"dataset": dataset}
    row.update(config.as_dict())
    row.update(permutation=permutation, seed=seed, rounds=trace.n_rounds,
               average_loss=trace.average_loss, final_budget=trace.final_budget,
               max_budget=int(trace.budget.max()), seconds=trace.seconds)
    if not timing:
        del row["seconds"]
    if trace.is_classification:
        row["mistake_rate"] = trace.mistake_rate
    config_keys = set(row)
    for key, value in trace.extras.items():
        if isinstance(value, (bool, int, float, np.integer, np.floating)):
            # an extra named as a column of the configuration (NORMA's adapted sigma
            # beside the kernel's sigma) is the learned value: key_, as fitted attributes
            name = f"{key}_" if key in config_keys else key
            row[name] = value.item() if isinstance(value, np.generic) else value
    return row


def _task(X, y, *, config, permutation, seed, timing, dataset=None):
    if dataset is None:              # run_one's signature before datasets were named
        return run_one(config, X, y, permutation, seed, timing)
    return run_one(config, X, y, permutation, seed, timing, dataset=dataset)


def run_key_of(config: Config, permutation: int) -> str:
    """The journal key of run (``config``, ``permutation``)."""
    return run_key(learner=config.learner, params=dict(config.params), kernel=config.kernel,
                   kernel_params=dict(config.kernel_params), permutation=int(permutation))


def sweep(grid, X, y, *, permutations: int = 1, seed: int = 0, n_jobs: int = 1,
          scheduler=None, progress: bool = False, journal=None, resume: bool = False,
          timing: bool = True, dataset: str | None = None) -> list[dict]:
    """Run every configuration of ``grid`` on ``permutations`` orders of ``(X, y)``.

    Parameters
    ----------
    grid : dict or list of dicts
        A ``ParameterGrid`` specification (module docstring).
    X, y : the stream (dense or CSR) and its labels.
    permutations : int >= 1
        Random orders per configuration (order ``p`` from ``seed`` and ``p``).
    n_jobs : int
        joblib worker processes (``-1``: all cores) when no ``scheduler`` is given.
    scheduler : str, ``distributed.Client`` or None
        A Dask scheduler address (``"tcp://host:8786"``) or client: the runs are
        submitted to that cluster, with the stream scattered to it once.
    progress : bool
        A tqdm progress bar over finished runs.
    journal : str, Path or None
        Append each finished run to this journal file as it completes
        (:class:`~okl.experiments.journal.Journal`; the file is left in place).
    resume : bool
        Continue the sweep recorded in ``journal``: its runs are not run again.
        Without it an existing journal is a ``ValueError``; a journal written for
        another grid, permutation count, seed, timing, stream or okl version is a
        ``ValueError`` naming what differs.
    timing : bool
        Record each run's wall-clock ``seconds`` (``False``: rows are a function
        of the inputs only, so two sweeps give byte-identical tables).
    dataset : str or None
        The data's name, written first in every row (``dataset``) so that the rows
        of sweeps over several datasets can be told apart and compared
        (:mod:`okl.experiments.compare`).  Permutation ``p`` is the same order for
        every configuration (it depends on ``seed``, ``p`` and the stream's length
        only), so the runs of two learners pair by permutation.

    Returns
    -------
    list of dict
        One tidy row per (configuration, permutation), in grid order then
        permutation order, whatever ran them and however often the sweep was
        interrupted and resumed.
    """
    if isinstance(permutations, bool) or not isinstance(permutations, (int, np.integer)) \
            or permutations < 1:
        raise ValueError(f"permutations must be an integer >= 1, got {permutations!r}")
    if resume and journal is None:
        raise ValueError("resume=True needs a journal to resume from")
    configs = configurations(grid)
    X = check_matrix(X)                  # bad data fails here, not in a worker
    tasks = [(c, p) for c in configs for p in range(permutations)]
    if journal is None:
        rows = [None] * len(tasks)
        for i, row in _run_tasks(tasks, range(len(tasks)), X, y, seed, timing, n_jobs,
                                 scheduler, progress, 0, dataset):
            rows[i] = row
        return rows
    keys = [run_key_of(c, p) for c, p in tasks]
    header = {"kind": "okl sweep", "okl": okl.__version__, "data": data_fingerprint(X, y),
              "configurations": [c.as_dict() for c in configs],
              "permutations": int(permutations), "seed": int(seed), "timing": bool(timing)}
    if dataset is not None:
        header["dataset"] = dataset
    with Journal(journal, header, resume=resume) as runs:
        todo = [i for i, key in enumerate(keys) if key not in runs]
        for i, row in _run_tasks(tasks, todo, X, y, seed, timing, n_jobs, scheduler,
                                 progress, len(tasks) - len(todo), dataset):
            runs.record(keys[i], row)
        done = runs.done()
    # every row through the journal's exact encoding: resumed and fresh rows alike
    return [done[key] for key in keys]


def _run_tasks(tasks, todo, X, y, seed, timing, n_jobs, scheduler, progress, initial,
               dataset=None):
    """``(index, row)`` of the tasks ``todo`` in the order they finish."""
    if not todo:
        return
    jobs = [(_task, dict(config=c, permutation=p, seed=seed, timing=timing, dataset=dataset))
            for c, p in tasks]
    bar = Progress(progress, total=len(tasks), initial=initial)
    try:
        for i, row in execute(jobs, todo, X, y, n_jobs=n_jobs, scheduler=scheduler):
            bar.step()
            yield i, row
    finally:
        bar.close()


def summarize(rows: list[dict], metric: str | None = None) -> list[dict]:
    """Mean and standard deviation over permutations, one row per configuration.

    ``metric`` defaults to ``mistake_rate`` for classification rows and
    ``average_loss`` otherwise; ``seconds`` is always summarized too.  The
    standard deviation is the sample one (``ddof=1``; 0 for one permutation).
    ``rank`` (after the metric's mean and std) is the configuration's rank on its
    dataset by mean metric: 1 the best, ties averaged (a metric whose direction
    :data:`okl.experiments.compare.DIRECTIONS` does not know gets no rank).
    """
    if not rows:
        return []
    groups: dict = {}
    for row in rows:
        keys = list(row)
        config = keys[:keys.index("permutation")]   # a row's configuration comes first
        key = tuple((k, _hashable(row[k])) for k in config)
        groups.setdefault(key, []).append(row)
    out = []
    for key, members in groups.items():
        name = metric or ("mistake_rate" if "mistake_rate" in members[0] else "average_loss")
        entry = dict(key)
        entry["permutations"] = len(members)
        for m in (name, "seconds", "final_budget"):
            if m not in members[0]:          # a sweep run with timing=False
                continue
            vals = np.array([r[m] for r in members], dtype=float)
            entry[f"{m}_mean"] = float(vals.mean())
            entry[f"{m}_std"] = float(vals.std(ddof=1)) if vals.size > 1 else 0.0
        out.append((name, entry))
    return _ranked(out)


def _ranked(entries) -> list[dict]:
    """The summary ``[(metric, entry), ...]`` with each entry's ``rank`` on its dataset."""
    from scipy.stats import rankdata

    from okl.experiments.compare import DIRECTIONS

    groups: dict = {}
    for i, (name, entry) in enumerate(entries):
        if name in DIRECTIONS:
            groups.setdefault((_hashable(entry.get("dataset")), name), []).append(i)
    ranks = {}
    for (_, name), members in groups.items():
        sign = -1.0 if DIRECTIONS[name] else 1.0
        values = rankdata([sign * entries[i][1][f"{name}_mean"] for i in members])
        ranks.update({i: float(r) for i, r in zip(members, values)})
    out = []
    for i, (name, entry) in enumerate(entries):
        if i in ranks:
            keys = list(entry)
            cut = keys.index(f"{name}_std") + 1
            entry = {**{k: entry[k] for k in keys[:cut]}, "rank": ranks[i],
                     **{k: entry[k] for k in keys[cut:]}}
        out.append(entry)
    return out


def _hashable(value):
    return value if not isinstance(value, (list, dict)) else json.dumps(value)


def _columns(rows):
    """The union of the rows' keys: configuration keys (those before ``permutation``
    or ``permutations``) first, then the measured ones, each in order of appearance."""
    config, measured = [], []
    for row in rows:
        keys = list(row)
        cut = next((i for i, k in enumerate(keys) if k in ("permutation", "permutations")),
                   len(keys))
        config += [k for k in keys[:cut] if k not in config]
        measured += [k for k in keys[cut:] if k not in measured]
    return config + [k for k in measured if k not in config]


def write_csv(rows: list[dict], path) -> None:
    """Tidy CSV: one row per run, the union of the rows' keys as columns (written
    to a temporary file renamed into place)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=_columns(rows), restval="")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path, buf.getvalue(), newline="")


def write_json(rows: list[dict], path) -> None:
    atomic_write(path, json.dumps(rows, indent=2, default=_json_default))


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return repr(value)


def format_table(rows: list[dict], digits: int = 4) -> str:
    """A plain-text table of ``rows`` (the union of their keys as columns)."""
    cols = _columns(rows)
    cells = [[_cell(r.get(c, ""), digits) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _cell(value, digits):
    if isinstance(value, (float, np.floating)):
        return f"{value:.{digits}g}"
    return str(value)
