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

__all__ = ["entries", "names", "get", "learner_class", "build", "roles", "parse_params",
           "declarations", "implementation", "check_required", "split_params"]


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


# ----------------------------------------------------------------------------------
# The one way to build a learner
# ----------------------------------------------------------------------------------

#: the parameter names that stand for a role in a class without declarations (a
#: learner of your own whose constructor is read from its signature)
CONVENTIONAL_ROLES = {"kernel": "kernel", "kernels": "kernels", "seed": "seed",
                      "horizon": "T", "budget": "B"}


def implementation(cls, params=()):
    """The class whose constructor takes ``params``: ``cls`` itself, or for a dispatching
    class (``PKAWV(basis=...)``) the implementation ``params["basis"]`` selects."""
    if cls._param_names:
        return cls
    chosen = {k: (_literal(v) if isinstance(v, str) else v)
              for k, v in dict(params).items() if k == "basis"}
    return type(cls.__new__(cls, **chosen))


def declarations(cls, params=()) -> dict:
    """``{name: okl.params.Param}`` of learner class ``cls`` (of the implementation
    ``params`` select): ``{}`` for a class that declares none."""
    from okl.params import declared

    return declared(implementation(cls, params))


def roles(cls, params=()) -> dict:
    """``{role: parameter name}`` of ``cls``: its declared roles and, for a role no
    declaration takes, the conventional name its constructor has (``kernel``, ``seed``,
    ``T`` for the horizon, ``B`` for the budget) if that parameter is not declared
    otherwise (a learner of your own that declares some parameters only)."""
    impl = implementation(cls, params)
    decl = declarations(impl)
    declared_roles = {}
    for name, p in decl.items():
        if p.role is not None:
            declared_roles.setdefault(p.role, name)
    names = registry.parameter_names(impl)
    out = {role: name for role, name in CONVENTIONAL_ROLES.items()
           if name in names and name not in decl and role not in declared_roles}
    out.update(declared_roles)
    return out


def parse_params(cls, texts: dict) -> dict:
    """The values of ``-p NAME=TEXT`` for learner class ``cls``, each parsed and checked
    by its declaration (``{"B": "12"}`` -> ``{"B": 12}``; ``"B=1.5"`` and ``"B=0"`` are
    a ``ValueError`` naming ``B`` and its range).  A parameter without a declaration (a
    learner of your own read from its signature) is read as its default's type (an
    ``int`` default reads an integer, a ``float`` one a real, a ``bool`` one true/false)
    or, with no default to go by, as a Python literal."""
    import inspect

    from okl.params import Flag, Int, Param, Real

    out = dict(texts)
    chosen = {k: (_literal(v) if isinstance(v, str) else v) for k, v in texts.items()
              if k == "basis"}
    if chosen:
        out.update(chosen)
    impl = implementation(cls, chosen)
    decl = declarations(impl)
    sig = None if decl else inspect.signature(impl)
    for name, text in texts.items():
        if not isinstance(text, str):
            continue
        p = decl.get(name)
        if p is None and sig is not None and name in sig.parameters:
            default = sig.parameters[name].default
            kind = (Flag if isinstance(default, bool) else Int if isinstance(default, int)
                    else Real if isinstance(default, float) else Param)
            p = kind(default)
            p.name = name
            p.none = "allowed" if default is None else None
        if p is not None:
            out[name] = p.parse(text)
    return out


def _literal(text):
    """``"'taylor'"`` -> ``"taylor"`` (a quoted word on the command line), else the text."""
    import ast

    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


def build(learner, params=None, *, kernel=None, seed=None, horizon=None, budget=None):
    """A fresh learner: the one way okl builds one (``okl run``, ``sweep``, ``bounds``,
    ``reproduce`` and the Python API alike).

    Parameters
    ----------
    learner : str or class
        A registered name (case-insensitive; an alias), an import path
        ``module:Class`` / ``file.py:Class``, or a learner class.
    params : dict
        Constructor parameters.  Values given as text (the command line's ``-p``) are
        parsed by the parameters' declarations (:func:`parse_params`).
    kernel, seed, horizon, budget
        Given to the parameter with that role (``okl.params``; for a class without
        declarations: ``kernel``, ``seed``, ``T``, ``B``), when the learner has one:
        ``kernel``, ``seed`` and ``horizon`` unless ``params`` sets it already,
        ``budget`` always (``okl bounds --rate-budgets`` varies it).  ``budget`` for a
        learner without a budget is a ``ValueError``; the others are skipped.

    A parameter the learner does not take is a ``ValueError`` listing those it does;
    so is a required parameter that is missing (naming ``-p NAME=VALUE``).
    """
    entry = get(learner)
    cls = entry.cls
    params = dict(params or {})
    params = parse_params(cls, params)
    names = registry.parameter_names(cls, params)
    have = roles(cls, params)
    for role, value in (("kernel", kernel), ("seed", seed), ("horizon", horizon)):
        name = have.get(role)
        if value is not None and name is not None and name not in params:
            params[name] = value
    if budget is not None:
        name = have.get("budget")
        if name is None:
            raise ValueError(f"{entry.name} has no budget parameter (a parameter with the "
                             f"role 'budget', okl.params)")
        params[name] = budget
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise ValueError(f"{entry.name} takes no parameter(s) {unknown}; its parameters: "
                         f"{list(names)}")
    check_required(implementation(cls, params), params)
    return cls(**params)


def check_required(cls, given) -> None:
    """A ``ValueError`` naming ``-p NAME=VALUE`` for each parameter of learner class
    ``cls`` that has no default and is not in ``given`` (``okl run --learner Ahpatron``
    was a ``TypeError`` traceback: ``missing 1 required keyword-only argument: 'B'``)."""
    import inspect

    missing = [p.name for p in inspect.signature(cls).parameters.values()
               if p.default is p.empty and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
               and p.name not in given]
    if missing:
        raise ValueError(f"{cls.__name__} has no default for {', '.join(missing)}: give "
                         + " ".join(f"-p {m}=VALUE" for m in missing))


def split_params(learner, kernel: str | None, params: dict) -> tuple[dict, dict]:
    """``-p NAME=VALUE`` shared between a learner and its kernel: ``(learner's, kernel's)``.

    One rule everywhere (``okl run``, ``sweep``, ``bounds``, ``reproduce``):
    ``kernel.NAME`` is the kernel's parameter, ``learner.NAME`` the learner's, and a bare
    ``NAME`` is the kernel's when the learner takes a kernel and that kernel (``kernel``,
    a name of :data:`okl.kernels.KERNELS`) has a parameter of that name (``sigma`` of a
    Gaussian or Laplacian kernel; ``degree``, ``gamma``, ``coef0`` of a polynomial one),
    otherwise the learner's.  So ``-p sigma=2`` is the Gaussian width whatever the
    learner, and NORMA's own ``sigma`` (its Huber loss) is ``-p learner.sigma=0.5``.
    """
    from okl.kernels import KERNELS

    cls = get(learner).cls
    has_kernel = "kernel" in roles(cls, params)
    kernel_names = KERNELS[kernel][1] if (has_kernel and kernel in KERNELS) else ()
    mine, theirs = {}, {}
    for name, value in params.items():
        prefix, dot, rest = name.partition(".")
        if dot and prefix == "kernel":
            if not has_kernel:
                raise ValueError(f"-p {name}: {get(learner).name} takes no kernel")
            if rest not in kernel_names:
                raise ValueError(f"-p {name}: the {kernel} kernel takes "
                                 f"{list(kernel_names) or 'no parameters'}")
            theirs[rest] = value
        elif dot and prefix == "learner":
            mine[rest] = value
        elif name in kernel_names:
            theirs[name] = value
        else:
            mine[name] = value
    return mine, theirs
