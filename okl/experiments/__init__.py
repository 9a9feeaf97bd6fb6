"""Paper reproductions, callable from Python and as ``okl reproduce NAME``.

An experiment is a function ``f(out_dir, quick=False, seed=0) -> dict`` that
writes its figures/tables under ``out_dir`` and returns a JSON-ready summary;
``register`` makes it reachable from the command line.
"""
from __future__ import annotations

from importlib import import_module

EXPERIMENTS: dict = {}

# modules whose experiments register themselves on import
_MODULES = ("okl.experiments.norma", "okl.experiments.norma_bounds", "okl.experiments.ahpatron",
            "okl.experiments.pomdr", "okl.experiments.pomdr_bounds",
            "okl.experiments.selection", "okl.experiments.awv")


def register(name: str):
    """Decorator: make ``f`` available as ``okl reproduce name``."""

    def wrap(fn):
        if name in EXPERIMENTS:
            raise ValueError(f"experiment {name!r} is registered twice")
        EXPERIMENTS[name] = fn
        return fn

    return wrap


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
    for module in _MODULES:
        import_module(module)
    return dict(EXPERIMENTS)


def run(name: str, out_dir, *, quick: bool = False, seed: int = 0) -> dict:
    experiments = available()
    if name not in experiments:
        raise ValueError(f"unknown experiment {name!r}; available: {sorted(experiments)}")
    return experiments[name](out_dir, quick=quick, seed=seed)
