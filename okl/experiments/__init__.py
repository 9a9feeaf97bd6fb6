"""Paper reproductions, callable from Python and as ``okl reproduce NAME``.

An experiment is a function ``f(out_dir, quick=False, seed=0, **options) -> dict`` that
writes its figures and tables under ``out_dir`` and returns a JSON-ready summary, declared
once beside its code with ``@register(NAME, paper=...)``: a paper table's function hands
its :class:`~okl.experiments.runner.Reproduction` to the one runner
(:func:`okl.experiments.runner.reproduce`), a figure's computes it directly.  As learners
are found (:mod:`okl.registry`), experiments are found by importing every module of this
package: no list names them, and a new module's experiments appear in ``okl reproduce``.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

EXPERIMENTS: dict = {}


@dataclass(frozen=True)
class ExperimentEntry:
    """What okl knows about one experiment: its name, the paper (a key of
    :data:`okl.registry.PAPERS`) and the function."""

    name: str
    paper: str
    fn: object
    #: whether a learner of your own (``--learners``) gets a starred row in its tables
    own_learners: bool = False

    @property
    def summary(self) -> str:
        doc = (self.fn.__doc__ or "").strip()
        return doc.splitlines()[0].strip() if doc else self.name


#: name -> ExperimentEntry
ENTRIES: dict = {}


def register(name: str, *, paper: str, own_learners: bool = False):
    """Decorator: make ``f`` available as ``okl reproduce name``; ``paper`` is the
    paper whose figure or table it reproduces (a key of :data:`okl.registry.PAPERS`);
    ``own_learners``: its tables give a learner of your own a starred row."""
    from okl.registry import PAPERS

    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {list(PAPERS)}, got {paper!r}")

    def wrap(fn):
        if name in EXPERIMENTS and EXPERIMENTS[name] is not fn:
            raise ValueError(f"experiment {name!r} is registered twice")
        EXPERIMENTS[name] = fn
        ENTRIES[name] = ExperimentEntry(name, paper, fn, own_learners)
        return fn

    return wrap


def _import_all() -> None:
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")


def table_setup(out_dir, quick, datasets, n_permutations, n_rounds, *, known,
                quick_datasets, permutations, quick_permutations, quick_rounds):
    """The arguments of a paper-table reproduction, checked and defaulted.

    Returns ``(out_dir, datasets, n_permutations, n_rounds)``: the output directory
    (created), the datasets (``quick_datasets`` or all of ``known`` when ``None``;
    unknown names raise ``ValueError``), the permutation count and the stream length
    (``quick_rounds`` in quick mode unless given; ``None`` is the whole dataset).
    """
    from pathlib import Path

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if datasets is None:
        datasets = quick_datasets if quick else tuple(known)
    unknown = [d for d in datasets if d not in known]
    if unknown:
        raise ValueError(f"unknown datasets {unknown}; known: {list(known)}")
    if n_permutations is None:
        n_permutations = quick_permutations if quick else permutations
    if n_rounds is None and quick:
        n_rounds = quick_rounds
    return out_dir, tuple(datasets), int(n_permutations), n_rounds


def available() -> dict:
    """``{name: function}`` of every experiment (importing each module of the package)."""
    _import_all()
    return dict(EXPERIMENTS)


def entries() -> dict:
    """``{name: ExperimentEntry}`` of every experiment."""
    _import_all()
    return dict(ENTRIES)


def accepts(name: str, option: str) -> bool:
    """Whether experiment ``name`` takes keyword ``option`` (``datasets``, ``n_jobs``,
    ``resume``, ...: the paper-table reproductions of ``okl.experiments.runner`` take
    them all)."""
    import inspect

    fn = available()[name]
    params = inspect.signature(fn).parameters
    return option in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def run(name: str, out_dir, *, quick: bool = False, seed: int = 0, **options) -> dict:
    """Run experiment ``name``; ``options`` (``datasets``, ``n_permutations``,
    ``n_rounds``, ``learners``, ``n_jobs``, ``scheduler``, ``resume``, ``progress``,
    ``timing``, ``verbose``) go to the experiments that take them; giving one to an
    experiment that does not is a ``ValueError`` naming it."""
    experiments = available()
    if name not in experiments:
        raise ValueError(f"unknown experiment {name!r}; available: {sorted(experiments)}")
    refused = [k for k in options if not accepts(name, k)]
    if refused:
        raise ValueError(f"experiment {name!r} does not take {', '.join(refused)} (it is a "
                         f"fixed figure, not a paper table)")
    return experiments[name](out_dir, quick=quick, seed=seed, **options)


def summary_text(summary: dict) -> str:
    """A few readable lines of an experiment's summary ("" for a paper table, whose
    tables the runner printed as it went); the whole summary is in its JSON file."""
    if "reproduction" in summary:
        return ""
    lines = []

    def show(prefix, value, depth):
        if isinstance(value, dict) and depth < 2:
            for k, v in value.items():
                show(f"{prefix}{k}." if depth < 1 else f"{prefix}{k} ", v, depth + 1)
        elif isinstance(value, float):
            lines.append(f"  {prefix.rstrip('. ')}: {value:.6g}")
        elif isinstance(value, (int, str, bool)) or value is None:
            lines.append(f"  {prefix.rstrip('. ')}: {value}")
        elif isinstance(value, (list, tuple)) and len(value) <= 6 and \
                all(isinstance(v, (int, float, str)) for v in value):
            lines.append(f"  {prefix.rstrip('. ')}: {', '.join(map(str, value))}")

    for key, value in summary.items():
        if key not in ("files", "text"):
            show(f"{key}.", value, 0)
    return "\n".join(lines)
