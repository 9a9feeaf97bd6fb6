"""Online kernel learners: one module per family, each class declared once in the
learner registry (:mod:`okl.registry`) beside its definition.

Importing this package imports every public module in it, which fills the registry;
``__all__`` is the registered learners followed by the building blocks that are not
stream learners (the base classes, the experts, the budgets, online-to-batch).
``entries()``, ``get(name)`` and ``learner_class(name)`` (:mod:`okl.learners.catalog`)
find a learner by name or import path.  A new learner is found by adding its module
here; no list names it (docs/design.rst).
"""
import importlib as _importlib
import pkgutil as _pkgutil

from okl import registry as _registry

for _module in _pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        _importlib.import_module(f"{__name__}.{_module.name}")

from okl.learners.base import OnlineLearner  # noqa: E402
from okl.learners.experts import MSMW, OSMD, ExpertsTrace, Hedge  # noqa: E402
from okl.learners.budgets import MemoryBudget, TimeBudget  # noqa: E402
from okl.learners.online_to_batch import OnlineToBatch, hypothesis_risks  # noqa: E402
from okl.learners.python import PythonLearner  # noqa: E402
from okl.learners.reductions import OneVsOne, OneVsRest  # noqa: E402
from okl.learners.catalog import (build, declarations, entries, get, implementation,  # noqa: E402,F401
                                  learner_class, names, parse_params, roles, split_params)

#: exported names that are not stream learners
BUILDING_BLOCKS = ["OnlineLearner", "PythonLearner", "OnlineToBatch", "hypothesis_risks",
                   "Hedge", "MSMW", "OSMD", "ExpertsTrace", "MemoryBudget", "TimeBudget",
                   "OneVsRest", "OneVsOne"]

#: okl's own learners, in registry order
LEARNERS = [name for name, entry in _registry._REGISTRY.items()
            if entry.cls.__module__.startswith(__name__ + ".")]
globals().update({name: _registry._REGISTRY[name].cls for name in LEARNERS})
__all__ = LEARNERS + BUILDING_BLOCKS
