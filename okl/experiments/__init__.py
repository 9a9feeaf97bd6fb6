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


def available() -> dict:
    for module in _MODULES:
        import_module(module)
    return dict(EXPERIMENTS)


def run(name: str, out_dir, *, quick: bool = False, seed: int = 0) -> dict:
    experiments = available()
    if name not in experiments:
        raise ValueError(f"unknown experiment {name!r}; available: {sorted(experiments)}")
    return experiments[name](out_dir, quick=quick, seed=seed)
