"""The one registry of learners: the declarations.

Each learner declares, once and beside its class, what the rest of okl needs to
know about it::

    @register_learner(paper="ahpatron", task="classification",
                      examples=[dict(kernel=Gaussian(1.0), B=10)],
                      bounds="okl.experiments.bounds.ahpatron:ahpatron")
    class Ahpatron(KernelExpansion, OnlineLearner, AhpatronCore):
        ...

The ``okl`` namespace (``okl.__all__``), the command line (``okl run``, ``sweep``,
``bounds``, ``reproduce --learners``), the contract tests and the documentation's
learner pages read the declarations through :mod:`okl.learners.catalog`
(``okl.learners.entries()``, ``okl.learners.get(name)``), which sees every learner
because importing ``okl.learners`` imports each of its modules; no other list of
learners is kept anywhere.  A new learner is found by adding its module (and, if it
has a theorem, its bound to a theory module and a handler); nothing else changes.

A learner outside okl is used by its import path, ``"mymodule:MyLearner"`` (or
``"path/to/file.py:MyLearner"``), wherever okl takes a learner name; it may carry the
same declaration (the decorator works on any class), which then supplies its bounds
and examples, or none.

This module sits below the learners and imports nothing of okl: the learner modules
import it to declare themselves.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field

__all__ = ["LearnerEntry", "register_learner", "parameter_names", "all_parameter_names",
           "added_paths", "PAPERS", "TASKS"]

#: paper words, in the order the documentation lists them: the paper whose table or
#: analysis a learner belongs to (its own, or the paper that compares against it)
PAPERS = {
    "norma": "Kivinen, Smola & Williamson, Online learning with kernels (IEEE TSP 2004)",
    "ahpatron": "Liao, Li et al., Ahpatron: a new budgeted online kernel learning machine "
                "(AAAI 2024)",
    "pomdr": "Li & Liao, Improved kernel alignment regret bound for online kernel learning "
             "(AAAI 2023)",
    "awv": "Jezequel, Gaillard & Rudi, Efficient online learning with kernels for "
           "adversarial large scale problems (NeurIPS 2019)",
    "selection": "Li & Liao, Online kernel selection with computational constraints",
    "multiclass": "Multiclass kernel learners: Crammer & Singer (JMLR 2003), Crammer et al. "
                  "(JMLR 2006), Orabona, Keshet & Caputo (JMLR 2009), Lu et al. (JMLR 2016)",
    "bsgd": "Wang, Crammer & Vucetic, Breaking the curse of kernelization: budgeted stochastic gradient descent for large-scale SVM training (JMLR 2012)",
}

TASKS = ("classification", "regression", "both", "novelty", "multiclass")


@dataclass(frozen=True)
class LearnerEntry:
    """What okl knows about one learner class.

    Attributes
    ----------
    name : str
        The name okl uses on the command line and in tables: the class name for okl's
        learners, ``"module:Class"`` for a learner given by import path.
    cls : type
        The learner class.
    paper : str or None
        The paper word (a key of :data:`PAPERS`) whose table or analysis the learner
        belongs to; ``None`` for a learner from outside okl.
    task : str
        ``"classification"``, ``"regression"``, ``"both"`` (chosen by a parameter such
        as ``loss`` or ``task``) or ``"novelty"``.
    role : str
        ``"method"`` (what a paper proposes) or ``"baseline"`` (what its tables compare
        against).
    examples : tuple of dict
        Constructor parameters of small instances, for the contract suite
        (:func:`okl.testing.check_learner`), the tests and the documentation.
    bounds : str, callable or None
        The ``okl bounds`` handler, ``"module:function"`` (resolved on use) or a
        callable ``handler(s, learner, trace, radii, rows, curves, *, delta)`` that
        appends rows (see :mod:`okl.experiments.bounds`); ``None``: measured quantities only.
    aliases : tuple of str
        Other names accepted on the command line.
    """

    name: str
    cls: type
    paper: str | None = None
    task: str = "classification"
    role: str = "method"
    examples: tuple = ()
    bounds: object = None
    aliases: tuple = field(default=())

    @property
    def summary(self) -> str:
        """The first line of the class docstring."""
        doc = (self.cls.__doc__ or "").strip()
        return doc.splitlines()[0].strip() if doc else self.name

    def build(self, index: int = 0, **overrides):
        """A fresh learner from example ``index`` (with ``overrides``)."""
        params = dict(self.examples[index]) if self.examples else {}
        params.update(overrides)
        return self.cls(**params)

    def bounds_handler(self):
        """The bounds handler as a callable, or ``None``."""
        if self.bounds is None or callable(self.bounds):
            return self.bounds
        module, sep, attr = str(self.bounds).partition(":")
        if not sep or not module or not attr:
            raise ValueError(f"{self.name}'s bounds handler is 'module:function', got "
                             f"{self.bounds!r}")
        return getattr(importlib.import_module(module), attr)


#: name -> entry, in registration order (okl's learners: module by module)
_REGISTRY: dict[str, LearnerEntry] = {}
#: folders put on sys.path to import learners of your own (worker processes get them)
_ADDED_PATHS: list[str] = []


def added_paths() -> list[str]:
    """The folders this process put on ``sys.path`` to import learners given by import
    path (the current folder, a ``file.py``'s folder): okl's executor puts them on the
    path of its worker processes too (:mod:`okl.experiments.executor`)."""
    return list(_ADDED_PATHS)


def _add_path(folder: str) -> None:
    if folder not in sys.path:
        sys.path.insert(0, folder)
    if folder not in _ADDED_PATHS:
        _ADDED_PATHS.append(folder)
    importlib.invalidate_caches()


def register_learner(*, paper=None, task="classification", role="method", examples=(),
                     bounds=None, aliases=(), name=None, register=True):
    """Class decorator declaring a learner (see the module docstring).

    ``register=False`` attaches the entry to the class (``cls.okl_entry``) without
    adding it to the process-wide registry; a user's learner found by import path
    reads it there either way.
    """
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"paper must be one of {list(PAPERS)} or None, got {paper!r}")
    if task not in TASKS:
        raise ValueError(f"task must be one of {list(TASKS)}, got {task!r}")
    if role not in ("method", "baseline"):
        raise ValueError(f"role must be 'method' or 'baseline', got {role!r}")

    def decorate(cls):
        entry = LearnerEntry(name=name or cls.__name__, cls=cls, paper=paper, task=task,
                             role=role, examples=tuple(dict(e) for e in examples),
                             bounds=bounds, aliases=tuple(aliases))
        cls.okl_entry = entry
        if register:
            old = _REGISTRY.get(entry.name)
            if old is not None and old.cls is not cls and _qualname(old.cls) != _qualname(cls):
                raise ValueError(f"a learner named {entry.name!r} is already registered "
                                 f"({_qualname(old.cls)})")
            _REGISTRY[entry.name] = entry
        return cls

    return decorate


def _qualname(cls) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def parameter_names(cls, params=()) -> tuple:
    """Constructor parameters of learner class ``cls``; for a dispatching class
    (``PKAWV(basis=...)``) those of the implementation that ``params["basis"]`` selects."""
    if cls._param_names:
        return tuple(cls._param_names)
    chosen = {k: v for k, v in dict(params).items() if k == "basis"}
    return tuple(type(cls.__new__(cls, **chosen))._param_names)


def all_parameter_names(cls) -> set:
    """Every parameter ``cls`` or one of its implementations (subclasses) takes."""
    names = set(cls._param_names)
    for sub in cls.__subclasses__():
        names |= set(sub._param_names)
    return names


