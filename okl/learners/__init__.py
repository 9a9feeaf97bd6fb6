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

# Modules renamed since a release: their old names still resolve, so that every pickle
# the released code wrote (which names its classes by module) still loads
# (tests/test_renamed_modules.py holds pickles written before the renames).
import sys as _sys  # noqa: E402

MOVED = {
    f"{__name__}.budget": f"{__name__}.fixed_budget",        # Forgetron, RBP, BOGD, BOGDPP, NORMAReplace
    f"{__name__}.budgets": f"{__name__}.budget_kinds",       # MemoryBudget, TimeBudget
}
for _old, _new in MOVED.items():
    _sys.modules.setdefault(_old, _sys.modules[_new])
del _old, _new

from okl.learners.base import OnlineLearner  # noqa: E402
from okl.learners.experts import MSMW, OSMD, ExpertsTrace, Hedge  # noqa: E402
from okl.learners.budget_kinds import MemoryBudget, TimeBudget  # noqa: E402
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
