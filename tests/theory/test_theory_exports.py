"""What ``theory`` exports is read from its modules (issue 25): every name of every module's
``__all__`` is exported flat unless ``theory.KEPT_IN_MODULE`` keeps it in its module and
says why; a package's ``__all__`` is its parts'; no module of theory over 1,000 lines."""
import importlib
import pkgutil
from pathlib import Path
from types import SimpleNamespace

import pytest

import theory

ROOT = Path(theory.__file__).parent


def _kept(module, name):
    return module in theory.KEPT_IN_MODULE or f"{module}.{name}" in theory.KEPT_IN_MODULE


def test_every_public_module_is_imported():
    found = {m.name for m in pkgutil.iter_modules(theory.__path__) if not m.name.startswith("_")}
    assert set(theory.MODULES) == found
    for name in found:
        assert getattr(theory, name) is importlib.import_module(f"theory.{name}")


@pytest.mark.parametrize("module", theory.MODULES)
def test_every_name_of_a_module_is_exported_flat_unless_kept(module):
    mod = getattr(theory, module)
    for name in mod.__all__:
        if not _kept(module, name):
            assert name in theory.__all__, f"theory.{module}.{name} is not exported flat"
            assert getattr(theory, name) is getattr(mod, name), f"theory.{module}.{name}"
        elif name in theory.__all__:
            # flat through another module, as the same object (theory.selection's
            # batbooks_theorem9_bound is theory.experts')
            assert getattr(theory, name) is getattr(mod, name), f"theory.{module}.{name}"


def test_every_flat_name_comes_from_a_module_that_does_not_keep_it():
    flat = [n for n in theory.__all__ if n not in theory.MODULES]
    assert len(flat) == len(set(flat))
    for name in flat:
        assert any(name in getattr(theory, m).__all__ and not _kept(m, name)
                   for m in theory.MODULES), name


def test_the_modules_in_all_are_those_that_keep_names():
    keeping = [m for m in theory.MODULES
               if any(_kept(m, n) for n in getattr(theory, m).__all__)]
    assert [n for n in theory.__all__ if n in theory.MODULES] == keeping


def test_every_kept_entry_names_a_module_or_one_of_its_names_and_says_why():
    for key, why in theory.KEPT_IN_MODULE.items():
        module, _, name = key.partition(".")
        assert module in theory.MODULES, key
        if name:
            assert name in getattr(theory, module).__all__, key
            assert module not in theory.KEPT_IN_MODULE, f"{key}: its module is kept whole"
        assert isinstance(why, str) and why.strip(), key


def test_every_collision_is_kept():
    """A name two modules export for two objects is flat for one of them at most."""
    where = {}
    for m in theory.MODULES:
        for n in getattr(theory, m).__all__:
            where.setdefault(n, []).append(m)
    for name, modules in where.items():
        flat = {id(getattr(getattr(theory, m), name)) for m in modules if not _kept(m, name)}
        assert len(flat) <= 1, (name, modules)


def test_a_collision_kept_nowhere_fails_the_import():
    a = SimpleNamespace(__all__=["bound"], bound=lambda: 1)
    b = SimpleNamespace(__all__=["bound"], bound=lambda: 2)
    with pytest.raises(ImportError, match="KEPT_IN_MODULE"):
        theory._exports({"a": a, "b": b}, {})
    flat, keeping = theory._exports({"a": a, "b": b}, {"b.bound": "collides with a.bound"})
    assert flat == {"bound": a.bound} and keeping == ["b"]
    flat, keeping = theory._exports({"a": a, "b": b}, {"b": "kept whole"})
    assert flat == {"bound": a.bound} and keeping == ["b"]
    # one object exported by two modules is one name
    c = SimpleNamespace(__all__=["bound"], bound=a.bound)
    assert theory._exports({"a": a, "c": c}, {}) == ({"bound": a.bound}, [])
    with pytest.raises(ImportError, match="no __all__"):
        theory._exports({"a": SimpleNamespace(bound=a.bound)}, {})
    with pytest.raises(ImportError, match="named as the module"):
        theory._exports({"a": SimpleNamespace(__all__=["c"], c=1), "c": c}, {})


def test_multiclass_stays_a_module():
    from theory import ahpatron, multiclass

    assert multiclass.projectron_mistake_bound is not ahpatron.projectron_mistake_bound
    assert "projectron_mistake_bound" not in theory.__all__
    assert not hasattr(theory, "projectron_mistake_bound")
    assert theory.multiclass is multiclass and "multiclass" in theory.__all__


@pytest.mark.parametrize("package", [m for m in theory.MODULES
                                     if hasattr(getattr(theory, m), "PARTS")])
def test_a_package_exports_its_parts(package):
    pkg = getattr(theory, package)
    assert pkg.__all__ == [n for part in pkg.PARTS for n in part.__all__]
    assert len(pkg.__all__) == len(set(pkg.__all__))
    parts = {p.name for p in pkgutil.iter_modules(pkg.__path__) if not p.name.startswith("_")}
    assert {p.__name__.rsplit(".", 1)[1] for p in pkg.PARTS} == parts
    for part in pkg.PARTS:
        for name in part.__all__:
            assert getattr(pkg, name) is getattr(part, name), f"{part.__name__}.{name}"


def test_no_module_of_theory_over_1000_lines():
    long = {str(p.relative_to(ROOT.parent)): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 1000}
    assert not long, long
