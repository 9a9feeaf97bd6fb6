"""Finding learners: every learner okl ships, and learners of your own by import path.

The declarations are in :mod:`okl.registry`; this module reads them once the package
``okl.learners`` has imported each of its modules (which it does on import, before this
module is reached), so it sees every learner okl ships.  ``okl.learners.entries()``,
``okl.learners.get(name)`` and ``okl.learners.learner_class(name)`` are its functions.
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

from okl import registry
from okl.learners.base import OnlineLearner
from okl.registry import _REGISTRY, TASKS, LearnerEntry, _qualname

__all__ = ["entries", "names", "get", "learner_class"]


def entries() -> dict[str, LearnerEntry]:
    """Every registered learner: ``{name: LearnerEntry}`` (okl's, then any registered since)."""
    return dict(_REGISTRY)


def names() -> list[str]:
    """The names of okl's registered learners, in registration order."""
    return list(entries())


def _key(name: str) -> str:
    return str(name).replace("-", "").replace("_", "").lower()


def get(name) -> LearnerEntry:
    """The entry of learner ``name``.

    ``name`` is a registered name (case-insensitive; ``-`` and ``_`` ignored) or an
    alias, an import path ``"module:Class"`` / ``"path/to/file.py:Class"``, or a class.
    A class from outside okl without a declaration gets an entry with no paper, no
    bounds and no examples, its task read from ``is_classifier`` where it can be.
    """
    if isinstance(name, type):
        return _entry_of_class(name, None)
    text = str(name)
    if ":" in text:
        return _entry_of_class(_import_class(text), text)
    table = entries()
    key = _key(text)
    for entry in table.values():
        if _key(entry.name) == key or key in (_key(a) for a in entry.aliases):
            return entry
    raise ValueError(f"unknown learner {text!r}; learners: {list(table)}, or a class of "
                     f"your own as module:Class (e.g. mymodule:MyLearner)")


def learner_class(name):
    """The class of learner ``name`` (see :func:`get`)."""
    return get(name).cls



def _entry_of_class(cls, spec) -> LearnerEntry:
    if not (isinstance(cls, type) and issubclass(cls, OnlineLearner)):
        raise ValueError(f"{spec or cls!r} is not an okl learner class: a learner derives "
                         f"from okl.OnlineLearner (in Python: okl.PythonLearner)")
    entry = cls.__dict__.get("okl_entry")
    for registered in entries().values():
        if registered.cls is cls:
            return registered
    if entry is None:
        task = getattr(cls, "task", "classification")
        entry = LearnerEntry(name=spec or _qualname(cls), cls=cls,
                             task=task if task in TASKS else "classification",
                             role="method")
    elif spec is not None and entry.name != spec:
        entry = LearnerEntry(**{**entry.__dict__, "name": spec})
    return entry


def _import_class(spec: str):
    """``"pkg.module:Class"`` or ``"dir/file.py:Class"`` -> the class."""
    target, _, attr = spec.rpartition(":")
    if not target or not attr:
        raise ValueError(f"a learner's import path is module:Class, got {spec!r}")
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"learner {spec!r}: no file {target}")
        module_name = path.stem
        module = sys.modules.get(module_name)
        if module is None or Path(getattr(module, "__file__", "") or "").resolve() != path.resolve():
            # the file's folder on sys.path, so that pickles (worker processes) find it by name
            registry._add_path(str(path.resolve().parent))
            module = importlib.import_module(module_name)
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name != target.split(".")[0] or "" in sys.path or os.getcwd() in sys.path:
                raise ValueError(f"learner {spec!r}: {exc}") from None
            registry._add_path(os.getcwd())               # as `python -m` does: the current folder
            try:
                module = importlib.import_module(target)
            except ModuleNotFoundError as exc2:
                raise ValueError(f"learner {spec!r}: {exc2} (looked in the current folder "
                                 f"and on sys.path)") from None
    cls = module
    for part in attr.split("."):
        try:
            cls = getattr(cls, part)
        except AttributeError:
            raise ValueError(f"learner {spec!r}: module {target!r} has no {attr!r}") from None
    return cls
