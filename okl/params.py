"""Parameters declared once, beside their class.

A learner's constructor parameters are class attributes of its class::

    class BOGD(_Budgeted, OnlineLearner, BOGDCore):
        kernel = KernelParam()
        B = Int(100, low=1, high=INT_MAX, role="budget")
        eta = Real(1.0, low=0, low_open=True)
        lam = Real(0.0, low=0)
        gamma = Real(1.0, low=0, low_open=True, none="no clip", core_none=math.inf)
        clip = Choice("element", {"element": False, "rescale": True}, core="rescale")
        seed = Seed()

Everything else okl needs of a parameter comes from that one line:

* **the constructor.**  A class that declares parameters and writes no ``__init__`` gets
  one (``OnlineLearner.__init_subclass__``), with the signature the declarations give
  (``kernel`` positional, the others keyword-only, in declaration order; a parameter
  without a default is required), so ``inspect.signature``, ``help`` and the
  documentation show it;
* **the checks.**  Assigning a parameter checks it: a ``ValueError`` naming the
  parameter and its allowed range or choices (the messages of
  :mod:`okl._validation`), before anything else is set up; checks that involve
  several parameters are the class's ``_check_params``;
* **the typed core's values.**  Each declared value is written, converted, into the
  core's typed field of the same name (or ``core=``): a ``cdef public double eta`` is
  set from ``eta``, a ``Choice`` writes the code its choice maps to, and ``None``
  writes ``core_none`` (what ``None`` means to the core).  A core has no setter with
  positional arguments: its ``_setup()`` (no arguments) allocates what its typed
  fields ask for;
* **``get_params``, ``set_params``, ``repr`` and pickling** (the names, in order);
* **the command line.**  ``-p NAME=TEXT`` is parsed by the declaration
  (:meth:`Param.parse`: ``-p B=12`` is the integer 12, ``-p B=1.5`` and ``-p B=0`` are
  refused naming ``B`` and its range before any data is read);
* **roles.**  ``role="kernel"``, ``"kernels"``, ``"seed"``, ``"horizon"`` or
  ``"budget"`` say what a parameter *is* to the rest of okl: the factory
  (:func:`okl.learners.build`) hands the kernel, the seed and the horizon to whichever
  parameter has the role, and ``okl bounds --rate-budgets`` varies the budget of any
  learner, whatever its name (``B``, FOGD's ``D``, a user's learner's own).

A learner of your own (:class:`okl.PythonLearner`) may use the same declarations; with
its own ``__init__`` assigning ``self.C = C`` the assignment is checked the same way.
A class without declarations keeps River's convention: its parameters are read from
its constructor's signature.

Once constructed, a learner's parameters are read-only: ``learner.B = 5`` would leave
its typed buffers sized for the old value; ``set_params`` (before learning) rebuilds it.
"""
from __future__ import annotations

import ast
import types

__all__ = ["Param", "Real", "Int", "Choice", "Flag", "KernelParam", "KernelsParam",
           "Seed", "Value", "INT_MAX", "REQUIRED", "declared", "ROLES", "role_of",
           "params_with_role"]

#: the largest budget a typed core's ``int`` holds
INT_MAX = 2 ** 31 - 1

#: what a parameter's role tells the rest of okl
ROLES = ("kernel", "kernels", "seed", "horizon", "budget")


class _Required:
    __slots__ = ()

    def __repr__(self):
        return "REQUIRED"

    def __reduce__(self):
        return "REQUIRED"


#: the default of a parameter that has none (a required keyword)
REQUIRED = _Required()

_CORE_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)


class Param:
    """One constructor parameter: its default, its check, its role, its core field.

    Parameters
    ----------
    default : object, default ``REQUIRED``
        The default value (``REQUIRED``: the parameter must be given).
    role : {"kernel", "kernels", "seed", "horizon", "budget"} or None
        What the parameter is to the rest of okl (see the module docstring).
    none : str or None
        What ``None`` means, when ``None`` is allowed (e.g. ``"derived from T by
        Theorem 2"``); ``None`` is refused when this is not given (unless ``None`` is the
        default, then it means "the default rule" and should still be said here).
    core : str, False or None
        The typed core field the value is written to: ``None`` (default) the field of
        the parameter's own name if the core has one, a name, or ``False`` for none.
    core_none : object
        The value the core receives for ``None`` (e.g. ``math.inf`` for "no clip");
        without it a ``None`` is not written to the core.
    positional : bool
        Whether the parameter may be given by position (the kernel is, by convention).
    """

    kind = "object"

    def __init__(self, default=REQUIRED, *, role=None, none=None, core=None,
                 core_none=REQUIRED, positional=False):
        if role is not None and role not in ROLES:
            raise ValueError(f"role must be one of {list(ROLES)} or None, got {role!r}")
        self.default = default
        self.role = role
        self.none = none
        self.core = core
        self.core_none = core_none
        self.positional = positional
        self.name = None
        self._core_desc = None

    # -- declaration --------------------------------------------------------------

    def __set_name__(self, owner, name):
        self.name = name

    def bind_core(self, cls) -> None:
        """Find the typed core field this parameter writes (a ``cdef public`` field of a
        core class among ``cls``'s bases)."""
        if self.core is False:
            self._core_desc = None
            return
        field = self.core or self.name
        for klass in cls.__mro__:
            attr = klass.__dict__.get(field)
            if isinstance(attr, _CORE_DESCRIPTORS):
                self._core_desc = attr
                return
        if self.core:
            raise TypeError(f"{cls.__name__}.{self.name}: no typed core field {field!r} "
                            f"(declare it `cdef public` in the core)")
        self._core_desc = None

    def copy(self, **changes) -> "Param":
        """This declaration with some attributes changed (a subclass's other default)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        new._core_desc = None
        return new

    @property
    def allows_none(self) -> bool:
        return self.none is not None or self.default is None

    # -- values -------------------------------------------------------------------

    def check(self, value):
        """The value as stored (checked, normalized); ``ValueError`` naming the
        parameter otherwise."""
        if value is None and self.allows_none:
            return None
        return self._check(value)         # None where it is refused: the check's message

    def _check(self, value):
        return value

    def core_value(self, value):
        """What the typed core receives for ``value`` (``REQUIRED``: nothing)."""
        if value is None:
            return self.core_none
        return value

    def parse(self, text: str):
        """The value of ``-p NAME=TEXT`` on the command line, checked."""
        if text.strip() in ("None", "none") and self.allows_none:
            return None
        return self.check(self._parse(text.strip()))

    def _parse(self, text):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text

    def describe(self) -> str:
        """The allowed values in words (``"an integer in [1, 2147483647]"``)."""
        return "a value"

    def help(self) -> str:
        """One line for ``okl run --list``-style listings."""
        default = "required" if self.default is REQUIRED else f"default {self.default!r}"
        text = f"{self.name}: {self.describe()}, {default}"
        if self.none:
            text += f"; None: {self.none}"
        if self.role:
            text += f" [{self.role}]"
        return text

    # -- the descriptor -----------------------------------------------------------

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        try:
            return obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(f"{type(obj).__name__} has no value of {self.name} yet "
                                 f"(set by the constructor)") from None

    def __set__(self, obj, value):
        if obj.__dict__.get("_okl_params_fixed", False):
            raise AttributeError(
                f"{type(obj).__name__}.{self.name} is a constructor parameter: build a new "
                f"learner, or call set_params({self.name}=...) before it learns")
        self.assign(obj, value)

    def assign(self, obj, value):
        """Check ``value``, store it and write it to the core field."""
        value = self.check(value)
        obj.__dict__[self.name] = value
        if self._core_desc is not None:
            core = self.core_value(value)
            if core is not REQUIRED:
                self._core_desc.__set__(obj, core)
        return value

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}: {self.describe()}>"


def _range_text(low, high, low_open, high_open):
    lo = "-inf" if low is None else f"{low}"
    hi = "inf" if high is None else f"{high}"
    return (f"{'(' if low_open or low is None else '['}{lo}, {hi}"
            f"{')' if high_open or high is None else ']'}")


class Real(Param):
    """A real number in a range (``low``/``high``, open or closed ends)."""

    kind = "real"

    def __init__(self, default=REQUIRED, *, low=None, high=None, low_open=False,
                 high_open=False, allow_inf=False, **kw):
        super().__init__(default, **kw)
        self.low, self.high = low, high
        self.low_open, self.high_open = low_open, high_open
        self.allow_inf = allow_inf

    def _check(self, value):
        from okl._validation import check_real

        return check_real(value, self.name, low=self.low, high=self.high,
                          low_open=self.low_open, high_open=self.high_open,
                          allow_inf=self.allow_inf)

    def _parse(self, text):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{self.name} must be a real number, got {text!r}") from None

    def describe(self):
        if self.low is None and self.high is None:
            return "a real number"
        return f"a real number in {_range_text(self.low, self.high, self.low_open, self.high_open)}"


class Int(Param):
    """An integer in ``[low, high]``."""

    kind = "int"

    def __init__(self, default=REQUIRED, *, low=None, high=None, **kw):
        super().__init__(default, **kw)
        self.low, self.high = low, high

    def _check(self, value):
        from okl._validation import check_int

        return check_int(value, self.name, low=self.low, high=self.high)

    def _parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{self.name} must be an integer, got {text!r}") from None

    def describe(self):
        if self.low is None and self.high is None:
            return "an integer"
        return (f"an integer in [{'-inf' if self.low is None else self.low}, "
                f"{'inf' if self.high is None else self.high}]")


class Choice(Param):
    """One of a few named choices; ``choices`` maps each to what the core receives
    (a dict), or is a sequence of names (the core receives nothing unless ``core=``
    names a field, which then gets the name's index)."""

    kind = "choice"

    def __init__(self, default=REQUIRED, choices=(), *, aliases=None, **kw):
        super().__init__(default, **kw)
        if isinstance(choices, dict):
            self.choices = dict(choices)
        else:
            self.choices = {c: i for i, c in enumerate(choices)}
        #: other spellings a user types (``"merge"`` for ``"merging"``): the command
        #: line's ``-p`` text takes them for the choice; a Python value is only told the
        #: choice's name, so a learner's parameters always hold one spelling
        self.aliases = dict(aliases or {})
        assert set(self.aliases.values()) <= set(self.choices), self.aliases

    def _check(self, value):
        from okl._validation import check_choice

        try:
            hash(value)
        except TypeError:               # a list or a dict is none of the choices either
            raise ValueError(f"{self.name} must be one of {sorted(self.choices, key=str)}, "
                             f"got {value!r}") from None
        if value in self.aliases and value not in self.choices:
            raise ValueError(f"{self.name} must be one of {sorted(self.choices, key=str)}, "
                             f"got {value!r} (okl spells it {self.aliases[value]!r})")
        return check_choice(value, self.name, self.choices)

    def core_value(self, value):
        if value is None:
            return self.core_none
        return self.choices[value]

    def _parse(self, text):
        if text in self.choices:
            return text
        if text in self.aliases:
            return self.aliases[text]
        return super()._parse(text)

    def describe(self):
        return f"one of {sorted(self.choices, key=str)}"


class Flag(Param):
    """True or False (``-p NAME=true``)."""

    kind = "bool"

    def _check(self, value):
        import numpy as np

        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{self.name} must be True or False, got {value!r}")
        return bool(value)

    def _parse(self, text):
        low = text.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise ValueError(f"{self.name} must be true or false, got {text!r}")

    def describe(self):
        return "True or False"


class KernelParam(Param):
    """The learner's kernel (``None``: ``Gaussian(1.0)``); positional, role ``kernel``,
    written to the core by ``_core_setup``."""

    kind = "kernel"

    def __init__(self, default=None, *, role="kernel", positional=True, core=False, **kw):
        super().__init__(default, role=role, positional=positional, core=core, **kw)

    def check(self, value):
        from okl.kernels import check_kernel

        return check_kernel(value, self.name)

    def _parse(self, text):
        raise ValueError(f"{self.name} is a kernel: give it with --kernel and --sigma / "
                         f"--degree (or -p kernel.sigma=...)")

    def describe(self):
        return "an okl kernel (None: Gaussian(1.0))"


class KernelsParam(Param):
    """The kernel list of a multi-kernel learner (``None``: ``gaussian_family()``),
    checked by :func:`okl.kernels.check_kernels` with the declared requirements."""

    kind = "kernels"

    def __init__(self, default=None, *, gaussian=False, bounded=False, why="",
                 role="kernels", positional=True, core=False, **kw):
        super().__init__(default, role=role, positional=positional, core=core, **kw)
        self.gaussian, self.bounded, self.why = gaussian, bounded, why

    def check(self, value):
        from okl.kernels import check_kernels

        return check_kernels(value, self.name, gaussian=self.gaussian,
                             bounded=self.bounded, why=self.why)

    def _parse(self, text):
        raise ValueError(f"{self.name} is a list of kernels: give the learner its kernels "
                         f"in Python (the command line gives the paper's family)")

    def describe(self):
        return "a list of okl kernels (None: Gaussian sigma = 2^-4 ... 2^4)"


class Seed(Param):
    """The seed of the learner's random draws: ``None``, a non-negative integer, a
    ``SeedSequence`` or a numpy ``Generator`` (role ``seed``)."""

    kind = "seed"

    def __init__(self, default=None, *, role="seed", core=False, **kw):
        super().__init__(default, role=role, core=core, **kw)

    def check(self, value):
        from okl._validation import check_seed

        return check_seed(value, self.name)

    def _parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{self.name} must be an integer, got {text!r}") from None

    def describe(self):
        return "None, a non-negative integer or a numpy Generator"


class Value(Param):
    """A parameter checked by a function of its own: ``check(value, name) -> value``
    (a budget object, a prior vector, a scale list)."""

    def __init__(self, default=REQUIRED, *, check=None, parse=None, text="a value",
                 core=False, **kw):
        super().__init__(default, core=core, **kw)
        self._checker = check
        self._parser = parse
        self.text = text

    def check(self, value):
        if self._checker is None:
            return value
        return self._checker(value, self.name)

    def _parse(self, text):
        if self._parser is not None:
            return self._parser(text)
        return super()._parse(text)

    def describe(self):
        return self.text


# ----------------------------------------------------------------------------------
# A class's declarations
# ----------------------------------------------------------------------------------

def declared(cls) -> dict:
    """``{name: Param}`` of class ``cls``, in signature order (``{}`` for a class that
    declares none).  A subclass inherits its bases' declarations; redeclaring a name
    replaces it in place; ``_param_order`` (a tuple of names) reorders them."""
    return dict(getattr(cls, "_okl_params", {}) or {})


def _collect(cls) -> dict:
    params = {}
    for klass in reversed(cls.__mro__):
        for name, attr in klass.__dict__.items():
            if isinstance(attr, Param):
                params[name] = attr
    order = cls.__dict__.get("_param_order") or getattr(cls, "_param_order", None)
    if order:
        missing = set(params) - set(order)
        unknown = set(order) - set(params)
        if missing or unknown:
            raise TypeError(f"{cls.__name__}._param_order: missing {sorted(missing)}, "
                            f"unknown {sorted(unknown)}")
        params = {n: params[n] for n in order}
    return params


def role_of(cls, role: str):
    """The name of the parameter of ``cls`` with ``role`` (``None`` if none)."""
    for name, p in declared(cls).items():
        if p.role == role:
            return name
    return None


def params_with_role(cls, role: str) -> list:
    """Every parameter name of ``cls`` with ``role``."""
    return [name for name, p in declared(cls).items() if p.role == role]


def install(cls) -> None:
    """Called for every learner class (``OnlineLearner.__init_subclass__``): collect its
    declarations, bind them to the core's typed fields and, if the class declares
    parameters and writes no constructor, generate it."""
    params = _collect(cls)
    if not params:
        return
    for name, p in params.items():
        owner = p.__dict__.setdefault("_owner", cls)
        if cls.__dict__.get(name) is not p or owner is not cls:
            p = p.copy()                          # inherited or shared: this class's copy
            p.name = name
            p._owner = cls
            setattr(cls, name, p)
        p.bind_core(cls)
        params[name] = p
    cls._okl_params = params
    if "__init__" not in cls.__dict__ and not _inherits_own_init(cls):
        cls.__init__ = _make_init(cls, params)


def _inherits_own_init(cls) -> bool:
    """Whether ``cls`` inherits a constructor written by hand in a learner class above it
    (a subclass of a learner of your own keeps its parent's ``__init__``)."""
    for klass in cls.__mro__[1:]:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        return (isinstance(init, types.FunctionType) and "_okl_params" in klass.__dict__
                and not getattr(init, "_okl_generated", False))
    return False


def _make_init(cls, params):
    """``def __init__(self, kernel=<default>, *, B=<default>, ...)`` for ``params``."""
    # the leading positional parameters (the kernel); every later one is keyword-only
    names = list(params)
    first_kw = next((i for i, n in enumerate(names) if not params[n].positional), len(names))
    positional = names[:first_kw]
    keyword = names[first_kw:]
    env = {"_init_params": _init_params}
    parts = ["self"]
    for n in positional + ["*"] + keyword:
        if n == "*":
            if keyword:
                parts.append("*")
            continue
        d = params[n].default
        if d is REQUIRED:
            parts.append(n)
        else:
            env[f"_d_{n}"] = d
            parts.append(f"{n}=_d_{n}")
    body = ", ".join(names)
    src = (f"def __init__({', '.join(parts)}):\n"
           f"    _init_params(self, ({body}{',' if len(names) == 1 else ''}))\n")
    exec(src, env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = f"Construct a {cls.__name__} (parameters: see the class docstring)."
    init._okl_generated = True
    return init


def _init_params(self, values):
    """The body of a generated constructor: assign each declared parameter (checked,
    written to the core), then the class's cross-checks and its core's set-up."""
    d = self.__dict__
    d["_okl_params_fixed"] = False
    for p, v in zip(type(self)._okl_params.values(), values):
        p.assign(self, v)
    self._check_params()
    self._configure()
    d["_okl_params_fixed"] = True

