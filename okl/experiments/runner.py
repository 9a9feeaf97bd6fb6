"""The one runner behind every paper-table reproduction (``okl reproduce NAME``).

A reproduction (a :class:`Reproduction` subclass: ``pomdr-table2``, ``ahpatron-table2``,
``selection-memory``, ...) says three things per dataset: how its data are prepared
(:meth:`Reproduction.prepare`, through ``okl.datasets.paper_data`` with a generated
stand-in when the files are missing), which independent *runs* it needs
(:meth:`Reproduction.runs`: one learner configuration on one permutation, say), and how
the finished runs make its table rows (:meth:`Reproduction.rows`: means over
permutations, the grid point selected in hindsight, the paper's figure beside okl's).
The runner does the rest, the same way for every reproduction:

* **Runs in parallel** with joblib (``n_jobs``) or on a Dask cluster (``scheduler``).  A
  run's permutation and learner seed come from ``(seed, dataset, permutation)`` only
  (:func:`stream_order`), never from a worker or from the order runs finish in, so the
  results are identical for any ``n_jobs`` and on Dask.
* **Each finished run is on disk at once**: appended to ``STEM-journal.jsonl`` in the
  output directory (:class:`okl.experiments.journal.Journal`: one fsynced line per run,
  written by the parent process as results arrive).  After a Ctrl-C, a ``SIGKILL`` or a
  lost worker, ``resume=True`` (``okl reproduce NAME --resume``) runs only what the
  journal lacks and writes exactly the tables of an uninterrupted reproduction.  The
  journal records a fingerprint of each dataset as prepared; resuming on other data is
  refused.  It is removed once the outputs are written.
* **Progress**: a tqdm bar over runs (``progress=True``); each dataset's table is printed
  as soon as its runs are done, and all outputs so far are rewritten (atomically) then.
* **One table form** (:func:`format_table`): per dataset a header (real data or
  STAND-IN, the preprocessing steps applied, the settings), then one line per learner
  with okl's figure, the paper's, their difference and that difference in units of the
  paper's spread (its standard deviation), flagged when outside the tolerance
  (:func:`agreement`: three spreads or the reproduction's floor, e.g. one AMR point,
  whichever is wider).
* **Files**: ``STEM.csv`` (the table rows), ``STEM_grid.csv`` (every grid point:
  mean and std over the permutations, which one was selected), ``STEM_runs.csv`` (every
  run), ``STEM.json`` (everything, with the data's preparation steps), ``STEM.txt`` (the
  printed tables), ``STEM_agreement.png``/``.svg`` (okl's figure beside the paper's,
  hollow, with their error bars), and ``agreement.csv`` / ``agreement_summary.csv``
  (one line per compared row / per reproduction; shared by the reproductions written to
  the same directory).
"""
from __future__ import annotations

import csv
import io
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from okl.experiments.executor import (Progress, atomic_write, data_fingerprint, execute,
                                      stream_order)

__all__ = ["Prepared", "Run", "Options", "Reproduction", "reproduce", "agreement",
           "format_table", "stream_order", "learner_run", "grid_runs", "summarize_grid",
           "paper_dataset", "write_agreement", "AGREEMENT_FIELDS", "SPREADS",
           "LearnerSpec", "build_learner", "own_grid", "make_own"]

#: a row agrees when |okl - paper| <= max(SPREADS * paper_std, floor)
SPREADS = 3.0


# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------

@dataclass
class Prepared:
    """A dataset as a reproduction streams it (before permutation).

    ``source`` is ``"file"`` (the paper's data, prepared as ``steps`` say),
    ``"stand-in"`` (generated, not the paper's data), ``"generated"`` (the stream is the
    experiment itself, as the paper generates it: ``awv-adversarial``'s greedy adversary
    plays it during each run, ``X`` has no rows) or ``"none"`` (neither: the rows of
    this dataset are reported with the paper's figures only).
    """

    name: str
    X: object = None
    y: np.ndarray | None = None
    source: str = "none"
    description: str = ""
    steps: tuple = ()
    files: tuple = ()
    task: str = "classification"
    settings: dict = field(default_factory=dict)
    index: int = 0              # the dataset's position in the reproduction (seeds)
    adversarial: float | None = None    # the kernel-selection paper's factor of later rounds
    missing: str = ""           # why the paper's files were not used

    @property
    def stand_in(self) -> bool:
        return self.source == "stand-in"

    @property
    def n(self) -> int:
        return 0 if self.X is None else int(self.X.shape[0])

    @property
    def d(self) -> int:
        return 0 if self.X is None else int(self.X.shape[1])

    def info(self, n_rounds=None) -> dict:
        T = self.n if n_rounds is None else min(self.n, int(n_rounds))
        return {"dataset": self.name, "source": self.source, "stand_in": self.stand_in,
                "description": self.description, "steps": list(self.steps),
                "files": [str(f) for f in self.files], "task": self.task,
                "n_available": self.n, "n_features": self.d, "n_rounds": T,
                "adversarial": self.adversarial, "missing": self.missing or None,
                **self.settings}


def paper_dataset(name: str, paper: str, *, stand_in=None, n_rows=None,
                  seed: int = 0, task: str = "classification", **settings) -> Prepared:
    """``name`` of ``paper`` prepared by ``okl.datasets.paper_data`` (its files, with the
    paper's preprocessing, ``steps`` recorded), else ``stand_in()`` when the files are
    missing (``DatasetNotFoundError``) or ``paper_data`` does not declare the dataset.

    ``stand_in()`` returns ``(X, y, description)`` or None (no stand-in: source
    ``"none"``).  ``settings`` (the paper's kernel width, budget, ...) are shown in the
    table header and kept in the summary.  A dataset with the adversarial rescaling of
    the kernel-selection paper of Li & Liao keeps its factor in ``Prepared.adversarial``:
    the rescaling acts on the rounds of each permuted stream (:func:`learner_run`), not on
    the rows.
    """
    try:
        from okl.datasets import DatasetNotFoundError, paper_data, paper_datasets
    except ImportError:                   # pragma: no cover - an older okl.datasets
        paper_data = None
    if paper_data is None:                # pragma: no cover
        missing = "okl.datasets.paper_data is not available"
    elif name.lower() not in {k.lower() for k in paper_datasets(paper)}:
        missing = f"okl.datasets.paper_data declares no dataset {name!r} for {paper!r}"
    else:
        try:
            pd = paper_data(name, paper, n_rows=n_rows, seed=seed)
        except DatasetNotFoundError as exc:
            missing = str(exc)
        else:
            data = Prepared(name, pd.X, np.asarray(pd.y, dtype=float), "file",
                            f"{' + '.join(Path(f).name for f in pd.files)} "
                            f"({pd.X.shape[0]} x {pd.X.shape[1]})",
                            tuple(pd.steps), tuple(str(f) for f in pd.files), pd.task,
                            dict(settings))
            data.adversarial = getattr(pd, "adversarial", None)
            return data
    made = None if stand_in is None else stand_in()
    if made is None:
        data = Prepared(name, description=f"no data: {missing.split('.  ')[0]}",
                        settings=dict(settings), task=task)
        data.missing = missing
        return data
    X, y, text = made
    data = Prepared(name, X, np.asarray(y, dtype=float), "stand-in", text,
                    ("generated stand-in, not the paper's data: "
                     + missing.split(".  ")[0],), (), task, dict(settings))
    data.missing = missing
    return data


# ----------------------------------------------------------------------------
# Runs
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """One independent unit of work: ``fn(X, y, **kwargs) -> dict`` on a dataset.

    ``label`` identifies it (dataset, learner, params, permutation, ...; JSON-able) and is
    the start of its row in ``STEM_runs.csv``; the journal key is its canonical JSON.
    ``fn`` must be a module-level function (it is pickled by reference to the workers).
    """

    label: dict
    fn: object
    kwargs: dict

    @property
    def key(self) -> str:
        from okl.experiments.journal import run_key

        return run_key(**self.label)


@dataclass(frozen=True)
class Options:
    """What decides a reproduction's rows (with the data)."""

    seed: int = 0
    quick: bool = False
    n_permutations: int = 10
    n_rounds: int | None = None
    timing: bool = True
    learners: tuple | None = None
    #: the grid of the learners of your own: ((name, (values, ...)), ...), sorted
    params: tuple | None = None


_EXTRAS = ("sum_delta", "t_bar", "n_margin", "M_prime", "added_vectors", "projected_updates")


# ----------------------------------------------------------------------------
# Learners: a table's rows as data, and learners of your own
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class LearnerSpec:
    """How a reproduction builds the learner of one of its rows.

    ``learner``: the registered learner (``okl.registry``) or ``module:Class``;
    ``fixed``: the paper's fixed parameters; ``settings``: names of per-dataset settings
    (``B``, ``zeta``, ``landmark_pool``, ...) passed on as parameters of the same name;
    ``derive``: a module-level function ``settings -> parameters`` for parameters
    computed from the settings (POMDR's ``B0`` from ``T``).  The kernel (the paper's, on
    the dataset) and the run's seed are passed as ``kernel=`` and ``seed=`` to a
    learner whose constructor takes them, the horizon as ``T=`` to one that takes
    ``T`` and has no other value for it.
    """

    learner: str
    fixed: dict = field(default_factory=dict)
    settings: tuple = ()
    derive: object = None
    #: ``settings -> bool``: whether the paper runs the learner there (None: always)
    applies: object = None


def build_learner(spec: LearnerSpec, params: dict, *, kernel, seed, settings: dict):
    """A fresh learner of ``spec`` with the grid point ``params`` (see :class:`LearnerSpec`),
    through the one factory :func:`okl.learners.build` (the kernel, the seed and the
    horizon ``settings["T"]`` go to the parameters with those roles)."""
    from okl.learners import build

    kwargs = dict(spec.fixed)
    kwargs.update({k: settings[k] for k in spec.settings if k in settings})
    if spec.derive is not None:
        kwargs.update(spec.derive(settings))
    kwargs.update(params)
    return build(spec.learner, kwargs, kernel=kernel, seed=seed, horizon=settings.get("T"))


def make_own(name: str, params: dict, *, seed, kernel, **settings):
    """A learner of your own (``name``: registered or ``module:Class``) for a run."""
    return build_learner(LearnerSpec(name), params, kernel=kernel, seed=seed,
                         settings=settings)


def own_grid(name: str, params) -> list[dict]:
    """The grid of a learner of your own: every combination of the ``-p`` values
    (``params``: ``{name: [values]}``) of the parameters its constructor takes (as in
    ``okl sweep``, one grid serves several learners: each takes what it has)."""
    from sklearn.model_selection import ParameterGrid

    from okl import learners, registry

    names = registry.all_parameter_names(learners.learner_class(name))
    mine = {k: list(v) for k, v in dict(params or {}).items() if k in names}
    return [dict(sorted(p.items())) for p in ParameterGrid(mine)] or [{}]


def permuted_stream(X, y, order, adversarial=None):
    """``(X[order], y[order])``, then the adversarial rescaling of the kernel-selection
    paper of Li & Liao: the rounds after the first ``ceil(T/20)`` multiplied by
    ``adversarial`` when it is given."""
    Xs, ys = X[order], y[order]
    if adversarial is not None:
        from okl.datasets.synthetic import adversarial_rescaling

        Xs, ys = adversarial_rescaling(Xs, ys, scale=adversarial)
    return Xs, ys


def learner_run(X, y, *, make, name, params, settings, seed, index, permutation, n_rounds,
                timing=True, metric="mistake_rate", adversarial=None):
    """One learner on one permutation: ``make(name, params, seed=learner_seed,
    **settings).run(*permuted_stream(X, y, order, adversarial))``; returns its numbers
    (the metric as ``value``, budgets, seconds, scalar extras)."""
    order, learner_seed = stream_order(seed, index, permutation, X.shape[0], n_rounds)
    learner = make(name, dict(params), seed=learner_seed, **settings)
    tr = learner.run(*permuted_stream(X, y, order, adversarial))
    row = {"value": float(tr.mistake_rate if metric == "mistake_rate" else tr.average_loss),
           "rounds": int(tr.n_rounds), "max_budget": int(tr.max_budget),
           "final_budget": int(tr.final_budget)}
    if timing:
        row["seconds"] = float(tr.seconds)
    for key in _EXTRAS:
        if key in tr.extras:
            v = tr.extras[key]
            row[key] = float(v) if isinstance(v, (float, np.floating)) else int(v)
    return row


def grid_runs(data: Prepared, learner: str, grid, options: Options, *, make, settings,
              metric="mistake_rate", extra_label=None) -> list[Run]:
    """The runs of ``learner`` at every point of ``grid`` on every permutation."""
    runs = []
    for params in grid:
        for p in range(options.n_permutations):
            label = {"dataset": data.name, "learner": learner, "params": dict(params),
                     **(extra_label or {}), "permutation": p}
            runs.append(Run(label, learner_run, dict(
                make=make, name=learner, params=dict(params), settings=dict(settings),
                seed=options.seed, index=data.index, permutation=p,
                n_rounds=options.n_rounds, timing=options.timing, metric=metric,
                adversarial=data.adversarial)))
    return runs


def _std(values) -> float:
    """Sample standard deviation (``ddof = 1``, R's ``sd``); 0 for a single value."""
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1)) if values.size > 1 else 0.0


def summarize_grid(runs: list[Run], results: dict, *, group=("learner", "params")):
    """Mean and std over permutations per grid point of ``runs``; ``(best, points)``
    with ``best`` the index of the smallest mean (first on ties, grid order)."""
    points: dict = {}
    for run in runs:
        key = json.dumps([run.label.get(g) for g in group], sort_keys=True)
        points.setdefault(key, {"label": {g: run.label.get(g) for g in group}, "rows": []})
        points[key]["rows"].append(results[run.key])
    out = []
    for entry in points.values():
        rows = entry["rows"]
        values = [r["value"] for r in rows]
        point = {**entry["label"], "values": values, "mean": float(np.mean(values)),
                 "std": _std(values), "max_budget": int(max(r["max_budget"] for r in rows)),
                 "mean_budget": float(np.mean([r["max_budget"] for r in rows])),
                 "n_permutations": len(rows)}
        if all("seconds" in r for r in rows):
            point["seconds"] = float(np.mean([r["seconds"] for r in rows]))
            point["seconds_std"] = _std([r["seconds"] for r in rows])
        for key in _EXTRAS:
            if all(key in r for r in rows):
                vals = [r[key] for r in rows]
                point[key] = vals
                with np.errstate(invalid="ignore"):      # t_bar may be inf
                    point[f"{key}_mean"] = float(np.mean(vals))
                    point[f"{key}_std"] = _std(vals)
                point[f"{key}_median"] = float(np.median(vals))
        out.append(point)
    best = min(range(len(out)), key=lambda i: out[i]["mean"]) if out else None
    return best, out


def params_text(params) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in dict(params or {}).items())


# ----------------------------------------------------------------------------
# Agreement
# ----------------------------------------------------------------------------

def agreement(okl_value, paper, paper_std, *, floor: float = 0.0,
              spreads: float = SPREADS) -> dict:
    """okl's figure against the paper's.

    ``difference = okl - paper``; ``spreads = difference / paper_std`` (``None`` when
    the paper gives no spread or a zero one); ``tolerance = max(spreads * paper_std,
    floor)``; ``agrees``: ``|difference| <= tolerance`` (``None`` when either figure is
    missing).  With AMR as a fraction and ``floor = 0.01`` a row agrees within three of
    the paper's standard deviations or one AMR point, whichever is wider.
    """
    if okl_value is None or paper is None:
        return {"difference": None, "spreads": None, "tolerance": None, "agrees": None}
    okl_value, paper = float(okl_value), float(paper)
    std = None if paper_std is None else float(paper_std)
    diff = okl_value - paper
    tol = max(spreads * (std or 0.0), float(floor))
    return {"difference": diff, "spreads": (diff / std) if std else None,
            "tolerance": tol, "agrees": bool(abs(diff) <= tol * (1 + 1e-9) + 1e-15)}


AGREEMENT_FIELDS = ("reproduction", "dataset", "learner", "metric", "data", "paper",
                    "paper_std", "okl", "okl_std", "difference", "spreads", "tolerance",
                    "agrees", "note")
_SUMMARY_FIELDS = ("reproduction", "rows_compared", "agree", "disagree", "on_stand_ins",
                   "max_abs_spreads", "not_compared", "seconds")


def write_agreement(out_dir, name: str, rows: list[dict], seconds=None):
    """Merge ``name``'s rows into ``out_dir/agreement.csv`` and its summary line into
    ``agreement_summary.csv`` (rows of other reproductions there are kept)."""
    out_dir = Path(out_dir)
    detail = [r for r in _read_csv(out_dir / "agreement.csv") if r["reproduction"] != name]
    detail += [{**{k: r.get(k) for k in AGREEMENT_FIELDS}, "reproduction": name}
               for r in rows]
    _write_csv(out_dir / "agreement.csv", AGREEMENT_FIELDS, detail)
    summary = [r for r in _read_csv(out_dir / "agreement_summary.csv")
               if r["reproduction"] != name]
    compared = [r for r in rows if r.get("agrees") is not None]
    real = [r for r in compared if r.get("data") == "real"]
    spreads = [abs(r["spreads"]) for r in real if r.get("spreads") is not None]
    summary.append({"reproduction": name, "rows_compared": len(real),
                    "agree": sum(1 for r in real if r["agrees"]),
                    "disagree": sum(1 for r in real if not r["agrees"]),
                    "on_stand_ins": len(compared) - len(real),
                    "max_abs_spreads": max(spreads) if spreads else None,
                    "not_compared": len(rows) - len(compared),
                    "seconds": None if seconds is None else round(float(seconds), 1)})
    _write_csv(out_dir / "agreement_summary.csv", _SUMMARY_FIELDS, summary)
    return summary[-1]


# ----------------------------------------------------------------------------
# Reproductions
# ----------------------------------------------------------------------------

def _same_learner(a: str, b: str) -> bool:
    """Whether learner names ``a`` and ``b`` (registered names, aliases, any case) are the
    same learner."""
    from okl import learners

    try:
        return learners.get(a).cls is learners.get(b).cls
    except ValueError:
        return False


def _entry(name):
    from okl import learners

    return learners.get(name)


def own_tables() -> list:
    """The reproductions whose tables give a learner of your own a starred row."""
    from okl import experiments

    return [n for n, e in sorted(experiments.entries().items()) if e.own_learners]


class Reproduction:
    """Base class of a paper-table reproduction (see the module docstring).

    Subclasses set the class attributes and implement :meth:`prepare`, :meth:`runs` and
    :meth:`rows`.  A table row (a dict) has at least ``dataset``, ``learner``,
    ``status`` (``"ok"``, ``"not implemented"``, ``"no data"``, ...), ``okl``,
    ``okl_std``, ``paper``, ``paper_std`` (the compared metric, ``None`` when absent),
    ``in_paper`` and ``params``; :attr:`columns` names further columns to print.
    """

    name = ""
    stem = ""
    paper = ""
    datasets: dict = {}
    quick_datasets: tuple = ()
    permutations = 10
    quick_permutations = 2
    quick_rounds: int | None = None
    metric = "AMR"
    percent = True            # print the metric (a fraction) in percent
    floor = 0.01              # agreement tolerance floor, in the metric's units
    #: further printed columns: (header, row key, format spec or callable)
    columns: tuple = ()
    notes: tuple = ()         # printed under every table

    # -- to implement -------------------------------------------------------------------
    def prepare(self, dataset: str, options: Options) -> Prepared:
        raise NotImplementedError

    def runs(self, data: Prepared, options: Options, results: dict) -> list[Run]:
        """Every run of ``data``.  ``results`` (``{key: row}``) holds the runs finished so
        far: a reproduction whose later runs depend on earlier ones (AVP at the ``eps``
        selected for Ahpatron) returns the first stage while their results are missing;
        the runner calls again until the list stops growing."""
        raise NotImplementedError

    def rows(self, data: Prepared, runs: list[Run], results: dict,
             options: Options) -> tuple[list[dict], list[dict]]:
        """``(table rows, grid rows)`` of one dataset from its finished runs."""
        raise NotImplementedError

    def protocol(self) -> dict:
        return {}

    def floor_text(self) -> str:
        return f"{100 * self.floor:g} point(s)" if self.percent else f"{self.floor:g}"

    def metric_of(self, data: Prepared) -> tuple:
        """``(name, percent, floor)`` of the compared metric on ``data``."""
        return self.metric, self.percent, self.floor

    # -- shared -------------------------------------------------------------------------
    #: the rows of the table (the paper's learners and okl's extra ones), in order
    table_learners: tuple = ()
    #: okl's extra rows of the table, run only when named in ``--learners``
    extra_learners: tuple = ()
    #: ``{row: LearnerSpec}``: the learner each row runs (``--learners`` takes a row's
    #: name or its learner's registered name, e.g. ``Kernel-AWV`` or ``KernelAWV``)
    specs: dict = {}
    #: the task a learner of your own must have for a starred row (None: none runs here)
    own_task: str | None = None

    def learner_of(self, row: str) -> str:
        """The registered learner of table row ``row`` (the row's name when it is one)."""
        spec = self.specs.get(row)
        return spec.learner if spec is not None else row

    #: learners of your own join as starred rows (the paper's kernel, grid from -p,
    #: selected by the paper's rule) when the reproduction defines :meth:`paper_kernel`
    def paper_kernel(self, data: Prepared):
        """The kernel the paper uses on ``data`` (for learners of your own)."""
        raise ValueError(self.own_reason(None))

    def own_reason(self, entry) -> str | None:
        """Why learner ``entry`` (an ``okl.registry.LearnerEntry`` of your own, or ``None``
        for any) gets no starred row in this table; ``None`` when it gets one."""
        if self.own_task is None:
            return (f"{self.name} compares the paper's own quantities of its learners; a "
                    f"learner of your own has no row in it (the tables that take one: "
                    f"{', '.join(own_tables())})")
        if entry is not None and entry.task not in (self.own_task, "both"):
            return (f"{self.name} is a {self.own_task} table and {entry.name} is a "
                    f"{entry.task} learner")
        return None

    def own_settings(self, data: Prepared, T: int) -> dict:
        """Settings a learner of your own is built with (``T``: the horizon)."""
        return {"T": T}

    def split_learners(self, options: Options) -> tuple[list, list]:
        """``(the table's rows to run, learners of your own)`` of ``options.learners``.

        A name is a row of the table, or a registered learner's name (or alias, any case)
        that some rows run (all of them; or those of them run by default), or else a
        learner of your own: a registered learner or ``module:Class`` (``ValueError``
        otherwise)."""
        from okl import learners, registry

        if options.learners is None:
            return list(self.default_learners()), []
        known = self.table_learners
        mine, table = [], []
        for name in options.learners:
            if name in known:
                table.append(name)
                continue
            try:
                entry = learners.get(name)
            except ValueError as exc:
                raise ValueError(f"unknown learner {name!r}: not a learner of {self.name}'s "
                                 f"table ({', '.join(known)}) nor {exc}") from None
            rows = [r for r in known if _same_learner(self.learner_of(r), entry.name)]
            default = [r for r in rows if r in self.default_learners()]
            if rows:
                table += default or rows
            else:
                mine.append(name)
        if options.params and not mine:
            raise ValueError("-p gives the grid of a learner of your own: name one in "
                             "--learners (module:Class or an okl learner)")
        taken = set()
        for name in mine:
            taken |= registry.all_parameter_names(learners.learner_class(name))
        unknown = sorted(k for k, _ in options.params or () if k not in taken)
        if unknown:
            raise ValueError(f"no learner of your own in --learners ({', '.join(mine)}) "
                             f"takes parameter(s) {unknown} (given with -p)")
        return [n for n in known if n in table], mine

    def own_learners(self, options: Options) -> tuple[list, list]:
        """``(learners of your own that get a starred row, [(name, why not)] of the
        others)``."""
        from okl import learners

        run, refused = [], []
        for name in self.split_learners(options)[1]:
            why = self.own_reason(learners.get(name))
            if why is None:
                run.append(name)
            else:
                refused.append((name, why))
        return run, refused

    def default_learners(self) -> tuple:
        """The rows run when ``--learners`` names none: the table's but okl's extra ones."""
        return tuple(n for n in self.table_learners if n not in self.extra_learners)

    def chosen_learners(self, options: Options) -> list:
        """The table's rows to run, in the table's order (:meth:`split_learners`)."""
        return self.split_learners(options)[0]

    def table_runs(self, data: Prepared, options: Options, row_runs) -> list[Run]:
        """The runs of the table's rows to run (``row_runs(name)`` of each, in the table's
        order), then those of the learners of your own (:meth:`own_runs`)."""
        table = self.split_learners(options)[0]
        runs = []
        for name in table:
            runs += row_runs(name)
        return runs + self.own_runs(data, options, self.own_learners(options)[0])

    def own_runs(self, data: Prepared, options: Options, names) -> list[Run]:
        """The runs of the learners of your own ``names``: every point of their ``-p``
        grid on every permutation, under the paper's protocol for ``data``."""
        runs = []
        if not names or data.X is None:
            return runs
        T = data.info(options.n_rounds)["n_rounds"]
        settings = {"kernel": self.paper_kernel(data), **self.own_settings(data, T)}
        for name in names:
            runs += grid_runs(data, name, own_grid(name, dict(options.params or ())), options,
                              make=make_own, settings=settings)
        return runs

    def own_rows(self, data: Prepared, runs: list[Run], results: dict, names):
        """Starred rows (and grid rows) of the learners of your own: the grid point of
        smallest mean metric over the permutations, as the paper selects its own."""
        rows, grid = [], []
        for name in names:
            if name not in {r.label["learner"] for r in runs} and data.X is not None \
                    and self.own_reason(_entry(name)) is not None:
                continue               # refused: said once under every table (refusals)
            row = dict(dataset=data.name, learner=name, in_paper=False, status="ok",
                       okl=None, okl_std=None, paper=None, paper_std=None, params="")
            mine = [r for r in runs if r.label["learner"] == name]
            if data.X is None:
                row["status"] = "no data"
            else:
                best, points = summarize_grid(mine, results)
                sel = points[best]
                row.update(okl=sel["mean"], okl_std=sel["std"], budget=sel["max_budget"],
                           seconds=sel.get("seconds"), params=params_text(sel["params"]),
                           selected=sel["params"],
                           selection=f"best mean {self.metric} of {len(points)} grid points")
                grid += [{"dataset": data.name, **p, "selected": i == best}
                         for i, p in enumerate(points)]
            rows.append(row)
        return rows, grid

    def options(self, quick, seed, n_permutations, n_rounds, timing, learners,
                params=None) -> Options:
        if n_permutations is None:
            n_permutations = self.quick_permutations if quick else self.permutations
        if n_rounds is None and quick:
            n_rounds = self.quick_rounds
        if isinstance(n_permutations, bool) or int(n_permutations) != n_permutations \
                or n_permutations < 1:
            raise ValueError(f"n_permutations must be an integer >= 1, got {n_permutations!r}")
        if n_rounds is not None and (int(n_rounds) != n_rounds or n_rounds < 1):
            raise ValueError(f"n_rounds must be an integer >= 1, got {n_rounds!r}")
        if params is not None:
            params = tuple(sorted((str(k), tuple(v if isinstance(v, (list, tuple)) else [v]))
                                  for k, v in dict(params).items())) or None
        return Options(int(seed), bool(quick), int(n_permutations),
                       None if n_rounds is None else int(n_rounds), bool(timing),
                       None if learners is None else tuple(learners), params)

    def dataset_list(self, datasets, quick) -> tuple:
        if datasets is None:
            return tuple(self.quick_datasets if quick else self.datasets)
        datasets = [datasets] if isinstance(datasets, str) else list(datasets)
        lower = {k.lower(): k for k in self.datasets}
        unknown = [d for d in datasets if str(d).lower() not in lower]
        if unknown:
            raise ValueError(f"unknown datasets {unknown} for {self.name}; known: "
                             f"{list(self.datasets)}")
        return tuple(lower[str(d).lower()] for d in datasets)

    def figures(self, rows, datas, stem) -> list:
        from okl.plotting import plot_agreement, save_figure

        shown = [{**r, "learner": r["learner"] + ("" if r.get("in_paper", True) else "*")}
                 for r in rows if r.get("okl") is not None or r.get("paper") is not None]
        if not shown:
            return []
        fig = plot_agreement(shown, metric=self.metric, percent=self.percent,
                             stand_ins={d for d, p in datas.items() if p.stand_in},
                             title=f"{self.name}: okl (filled) and the paper (hollow)")
        return save_figure(fig, stem)

    def format_header(self, data: Prepared, options: Options) -> str:
        tag = {"file": "real data", "stand-in": "STAND-IN", "generated": "generated",
               "none": "NO DATA"}[data.source]
        T = data.info(options.n_rounds)["n_rounds"]
        settings = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                             for k, v in data.settings.items()
                             if isinstance(v, (int, float, str)) and not k.startswith("paper"))
        lines = [f"{data.name} [{tag}: {data.description}; {T} rounds x "
                 f"{options.n_permutations} permutation(s)"
                 + (f"; {settings}" if settings else "") + "]"]
        for i, step in enumerate(data.steps, 1):
            lines.append(f"    {i}. {step}")
        return "\n".join(lines)


def _fmt_metric(value, std, percent):
    if value is None:
        return "-"
    scale = 100.0 if percent else 1.0
    if std is None:
        return f"{scale * value:.2f}" if percent else f"{value:.4g}"
    return (f"{scale * value:6.2f} +- {scale * std:4.2f}" if percent
            else f"{value:.4g} +- {std:.2g}")


def _cell(value, spec):
    if value is None or value == "":
        return ""
    if callable(spec):
        return spec(value)
    if isinstance(value, str):
        return value
    try:
        return format(value, spec)
    except (TypeError, ValueError):
        return str(value)


def format_table(rep: Reproduction, data: Prepared, rows: list[dict],
                 options: Options) -> str:
    """One dataset's table in the common form (see the module docstring)."""
    metric, percent, _ = rep.metric_of(data)
    unit = f"{metric} (%)" if percent else metric
    head = ["learner", f"okl {unit}", f"paper {unit}", "diff", "spreads", "agree"]
    head += [h for h, _, _ in rep.columns] + ["selected"]
    body = []
    for r in rows:
        name = r["learner"] + ("" if r.get("in_paper", True) else "*")
        if r["status"] != "ok":
            okl_text = r["status"]
        else:
            okl_text = _fmt_metric(r.get("okl"), r.get("okl_std"), percent)
        scale = 100.0 if percent else 1.0
        diff = "" if r.get("difference") is None else f"{scale * r['difference']:+.2f}" \
            if percent else f"{r['difference']:+.4g}"
        spreads = "" if r.get("spreads") is None else f"{r['spreads']:+.1f}"
        agrees = {None: "", True: "ok", False: "FLAG"}[r.get("agrees")]
        if agrees and data.source != "file":
            agrees = "n/a"          # a stand-in's figure is not the paper's
        cells = [name, okl_text, _fmt_metric(r.get("paper"), r.get("paper_std"), percent),
                 diff, spreads, agrees]
        cells += [_cell(r.get(key), spec) for _, key, spec in rep.columns]
        cells.append(str(r.get("params") or ""))
        body.append(cells)
    widths = [max(len(str(c)) for c in col) for col in zip(head, *body)]
    lines = [rep.format_header(data, options)]
    lines.append("  " + "  ".join(h.ljust(w) if i in (0, len(head) - 1) else h.rjust(w)
                                  for i, (h, w) in enumerate(zip(head, widths))))
    for cells in body:
        lines.append("  " + "  ".join(c.ljust(w) if i in (0, len(head) - 1) else c.rjust(w)
                                      for i, (c, w) in enumerate(zip(cells, widths))))
    for row in rows:
        if row.get("note"):
            lines.append(f"  note ({row['learner']}): {row['note']}")
    return "\n".join(line.rstrip() for line in lines)


def _legend(rep: Reproduction, options: Options) -> str:
    lines = [f"okl and paper: mean +- std (ddof 1) over the permutations; diff = okl - paper; "
             f"spreads = diff / paper std; agree: |diff| <= max({SPREADS:g} paper std, "
             f"{rep.floor_text()}), FLAG otherwise (n/a: a generated stand-in, not "
             f"comparable).  * = not in the paper's table."]
    lines += list(rep.notes)
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# Outputs
# ----------------------------------------------------------------------------

def _json_safe(obj):
    """``obj`` ready for JSON: dict keys as strings, tuples and arrays as lists, numpy
    scalars as Python ones, non-finite floats as the strings "inf", "-inf", "nan"."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _json_safe(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    return obj


def _csv_text(fields, rows) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else _csv_value(r.get(k))) for k in fields})
    return buf.getvalue()


def _csv_value(v):
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(_json_safe(v), sort_keys=True)
    return v


def _write_csv(path, fields, rows):
    atomic_write(path, _csv_text(fields, rows))


def _read_csv(path) -> list[dict]:
    try:
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    except FileNotFoundError:
        return []
    for r in rows:
        for k, v in r.items():
            if v == "":
                r[k] = None
            elif v in ("True", "False"):
                r[k] = v == "True"
    return rows


def _columns(rows, first=()):
    cols = list(first)
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


_ROW_FIRST = ("dataset", "source", "n_rounds", "learner", "in_paper", "status", "metric",
              "okl", "okl_std", "paper", "paper_std", "difference", "spreads", "tolerance",
              "agrees", "params", "selection")


def reproduce(rep: Reproduction, out_dir, *, quick=False, seed=0, datasets=None,
              n_permutations=None, n_rounds=None, learners=None, params=None, n_jobs=1,
              scheduler=None, resume=False, progress=False, timing=True,
              verbose=True) -> dict:
    """Run reproduction ``rep`` (module docstring); returns its JSON-ready summary.

    ``learners`` may name, besides the table's rows, learners of your own (a registered
    learner or ``module:Class``) with ``params`` their grid (``{name: [values]}``, the
    ``-p`` of ``okl reproduce``): each gets a starred row run under the paper's protocol
    (:meth:`Reproduction.own_runs`)."""
    from okl.experiments.journal import Journal, run_key

    import okl

    start = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    options = rep.options(quick, seed, n_permutations, n_rounds, timing, learners, params)
    # unknown names fail before anything runs; a learner of your own that gets no row
    # here is said why, before the tables and in the summary
    refused = rep.own_learners(options)[1]
    names = rep.dataset_list(datasets, quick)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a nonzero integer, got {n_jobs!r}")
    config = {"reproduction": rep.name, "okl": okl.__version__, "seed": options.seed,
              "quick": options.quick, "n_permutations": options.n_permutations,
              "n_rounds": options.n_rounds, "timing": options.timing,
              "learners": None if options.learners is None else list(options.learners)}
    if options.params:
        config["params"] = {k: list(v) for k, v in options.params}
    journal_path = out_dir / f"{rep.stem}-journal.jsonl"
    stem = out_dir / rep.stem
    rows, grid, run_rows, datas, texts = [], [], [], {}, []
    bar = Progress(progress, rep.name)
    say = bar.write if verbose else (lambda text: None)
    for name, why in refused:
        say(f"{name}: no row in {rep.name}: {why}")
    journal = Journal(journal_path, config, resume=resume)
    try:
        for ds in names:
            data = rep.prepare(ds, options)
            data.index = list(rep.datasets).index(ds)
            datas[ds] = data
            runs = rep.runs(data, options, {}) if data.X is not None else []
            if runs:
                fp_key = run_key(data=ds)
                fp = data_fingerprint(data.X, data.y, data.source)
                if fp_key in journal:
                    old = journal.done()[fp_key]
                    if old != fp:
                        raise ValueError(
                            f"journal {journal_path}: dataset {ds} differs from the one of "
                            f"the interrupted reproduction ({old} then, {fp} now); remove "
                            f"the journal to start afresh")
                else:
                    journal.record(fp_key, fp)
            results, counted = {}, 0
            while True:                       # stages: until no new run is asked for
                keys = [r.key for r in runs]
                if len(set(keys)) != len(keys):
                    raise RuntimeError(f"{rep.name}: two runs of {ds} share a key")
                todo = [i for i, k in enumerate(keys) if k not in journal]
                bar.add(len(runs) - counted, len(runs) - counted - len(todo),
                        f"{rep.name} {ds}")
                counted = len(runs)
                tasks = [(r.fn, r.kwargs) for r in runs]
                for i, row in execute(tasks, todo, data.X, data.y, n_jobs=n_jobs,
                                      scheduler=scheduler):
                    journal.record(keys[i], row)
                    bar.step()
                done = journal.done()
                results = {k: done[k] for k in keys}
                more = rep.runs(data, options, results) if data.X is not None else []
                if {r.key for r in more} == set(keys):
                    break
                runs = more
            table, points = rep.rows(data, runs, results, options)
            source = {"file": "real", "stand-in": "stand-in", "generated": "generated",
                      "none": "none"}[data.source]
            T = data.info(options.n_rounds)["n_rounds"]
            for r in table:
                r.setdefault("in_paper", True)
                r.setdefault("params", "")
                metric, _, floor = rep.metric_of(data)
                r["source"] = data.source
                r["n_rounds"] = T
                r["metric"] = metric
                r.update(agreement(r.get("okl") if r["status"] == "ok" else None,
                                   r.get("paper"), r.get("paper_std"),
                                   floor=r.get("floor", floor)))
                r["data"] = source
            rows += table
            grid += points
            run_rows += [{**run.label, **results[run.key]} for run in runs]
            text = format_table(rep, data, table, options)
            texts.append(text)
            say(text + "\n")
            _write_outputs(rep, out_dir, stem, rows, grid, run_rows, datas, texts, options,
                           names, start, partial=True)
        bar.close()
        summary = _write_outputs(rep, out_dir, stem, rows, grid, run_rows, datas, texts,
                                 options, names, start, partial=False)
        say(_legend(rep, options))
        say(_agreement_line(rep, rows))
    except BaseException:
        bar.close()
        journal.close()
        raise
    journal.remove()
    return summary


def _agreement_line(rep, rows) -> str:
    real = [r for r in rows if r.get("agrees") is not None and r["data"] == "real"]
    stand = [r for r in rows if r.get("agrees") is not None and r["data"] != "real"]
    flagged = [f"{r['dataset']}/{r['learner']}" for r in real if not r["agrees"]]
    text = (f"agreement ({rep.name}): {sum(r['agrees'] for r in real)} of {len(real)} rows "
            f"on real data within tolerance")
    if flagged:
        text += f"; outside: {', '.join(flagged)}"
    if stand:
        text += f"; {len(stand)} row(s) on STAND-INS not comparable"
    return text


def _write_outputs(rep, out_dir, stem, rows, grid, run_rows, datas, texts, options, names,
                   start, partial):
    seconds = time.perf_counter() - start if options.timing else None   # --no-timing
    text = "\n\n".join(texts) + "\n\n" + _legend(rep, options) + "\n" + _agreement_line(rep,
                                                                                     rows)
    refused = rep.own_learners(options)[1]
    if refused:
        text += "\n" + "\n".join(f"{name}: no row in {rep.name}: {why}" for name, why in refused)
    files = [stem.with_suffix(".csv"), Path(f"{stem}_grid.csv"), Path(f"{stem}_runs.csv"),
             stem.with_suffix(".json"), stem.with_suffix(".txt")]
    _write_csv(files[0], _columns(rows, _ROW_FIRST), rows)
    _write_csv(files[1], _columns(grid, ("dataset", "learner", "params", "selected")), grid)
    _write_csv(files[2], _columns(run_rows), run_rows)
    atomic_write(files[4], text + "\n")
    if not partial:
        files += rep.figures(rows, datas, Path(f"{stem}_agreement"))
        write_agreement(out_dir, rep.name, [
            {**r, "reproduction": rep.name,
             "note": r.get("note") or ("" if r["status"] == "ok" else r["status"])}
            for r in rows], seconds)
        files += [out_dir / "agreement.csv", out_dir / "agreement_summary.csv"]
    stand = [d for d in names if d in datas and datas[d].stand_in]
    summary = _json_safe({
        "reproduction": rep.name, "paper": rep.paper, "seed": options.seed,
        "quick": options.quick, "n_permutations": options.n_permutations,
        "n_rounds": options.n_rounds, "complete": not partial,
        "datasets": {d: datas[d].info(options.n_rounds) for d in names if d in datas},
        "stand_ins": stand,
        "no_data": [d for d in names if d in datas and datas[d].source == "none"],
        "not_implemented": sorted({r["learner"] for r in rows
                                   if r["status"] == "not implemented"}),
        "protocol": rep.protocol(), "rows": rows, "grid": grid, "text": text,
        "files": [str(f) for f in files], "seconds": seconds,
        **({"own_learners_without_row": dict(refused)} if refused else {}),
    })
    atomic_write(files[3], json.dumps(summary, indent=1))
    return summary
