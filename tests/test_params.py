"""Parameters declared once (okl.params), one way to build a learner (okl.learners.build),
experiments found as learners are (issue 25).

* Every learner okl ships declares its parameters: its constructor's signature, its
  ``get_params``, its checks and the values its typed core receives all come from the
  declarations; no core has a positional setter.
* ``okl.learners.build`` gives the kernel, the seed, the horizon and the budget to the
  parameters with those roles, for okl's learners and a user's alike.
* ``-p`` values are parsed by the declarations.
"""
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import okl
from okl import learners
from okl.learners import build, parse_params, roles, split_params
from okl.params import (INT_MAX, Choice, Flag, Int, KernelParam, Param, Real, Seed,
                        declared)

ROOT = Path(__file__).resolve().parent.parent
NAMES = learners.names()


@pytest.mark.parametrize("name", NAMES)
def test_every_learner_declares_its_parameters(name):
    cls = learners.learner_class(name)
    impl = learners.implementation(cls, learners.get(name).examples[0]
                                   if learners.get(name).examples else {})
    decl = declared(impl)
    assert decl, f"{name} declares no parameters"
    sig = inspect.signature(impl)
    assert list(sig.parameters) == list(decl)
    for pname, p in decl.items():
        default = sig.parameters[pname].default
        if p.default is okl.params.REQUIRED:
            assert default is inspect.Parameter.empty
        else:
            assert default is p.default or default == p.default
        if p.default is None:
            assert p.none or p.role in ("kernel", "kernels", "seed"), \
                f"{name}.{pname}: what None means is not said"


def test_no_core_has_a_positional_setter():
    """The cores set up from their typed fields (``_setup()``, no arguments): none keeps
    a ``_<family>_setup(a, b, c)`` of positional parameters.  The one set-up every core
    shares, the base's ``_core_setup(kernel, seed, classification)`` (the values of the
    roles kernel and seed, and the task, from ``OnlineLearner._configure``), is not a
    family's."""
    bad = []
    for pyx in sorted((ROOT / "okl").rglob("*.pyx")):
        for m in re.finditer(r"def (_\w*setup\w*)\(self, ([^)]+)\)", pyx.read_text()):
            if m.group(1) != "_core_setup":
                bad.append(f"{pyx.name}:{m.group(1)}({m.group(2)})")
    assert not bad, bad


@pytest.mark.parametrize("name", NAMES)
def test_get_params_repr_and_a_rebuilt_learner_agree(name):
    entry = learners.get(name)
    learner = entry.build(0)
    params = learner.get_params()
    assert list(params) == list(type(learner)._param_names)
    again = type(learner)(**params)
    assert repr(again) == repr(learner)


def test_the_core_receives_the_declared_values():
    """A declared value lands in the core's typed field, converted as declared: a choice
    as its code, None as what it means to the core."""
    import math

    bogd = okl.BOGD(B=7, eta=0.25, lam=0.5, gamma=None, clip="rescale")
    core = okl.learners.fixed_budget.BOGDCore
    assert core.B.__get__(bogd) == 7 and core.eta.__get__(bogd) == 0.25
    assert core.gamma.__get__(bogd) == math.inf          # None: no clip
    assert core.rescale.__get__(bogd) is True            # clip="rescale"
    ogd = okl.KernelOGD(loss="logistic", schedule="sqrt")
    core = okl.learners.perceptron.KernelOGDCore
    assert core.loss_kind.__get__(ogd) == 1 and core.sqrt_schedule.__get__(ogd) is True


def test_parameters_are_read_only_once_built_and_set_params_is_atomic():
    b = okl.BOGD(B=5)
    with pytest.raises(AttributeError, match="constructor parameter.*set_params"):
        b.B = 3
    b.set_params(B=9)
    assert b.B == 9
    with pytest.raises(ValueError, match=r"B must be in \[1, 2147483647\], got -1"):
        b.set_params(B=-1, eta=0.5)
    assert b.get_params()["B"] == 9 and b.eta == 1.0    # nothing of the refused call kept
    X, y = okl.datasets.xor_stream(50, 3, seed=0)
    b.run(X, y)
    assert len(b.support_vectors) <= 9


@pytest.mark.parametrize("decl, text, value", [
    (Int(1, low=1, high=INT_MAX), "12", 12),
    (Real(1.0, low=0, low_open=True), "0.5", 0.5),
    (Real(1.0, low=0, low_open=True, none="no clip"), "None", None),
    (Choice("a", ("a", "b")), "b", "b"),
    (Flag(False), "true", True),
    (Seed(), "3", 3),
])
def test_parse(decl, text, value):
    decl.name = "x"
    assert decl.parse(text) == value


@pytest.mark.parametrize("decl, text, message", [
    (Int(1, low=1), "1.5", "x must be an integer, got '1.5'"),
    (Int(1, low=1), "0", r"x must be in \[1, inf\], got 0"),
    (Real(1.0, low=0, low_open=True), "abc", "x must be a real number, got 'abc'"),
    (Real(1.0, low=0, low_open=True), "None", "x must be a real number, got 'None'"),
    (Choice("a", ("a", "b")), "c", r"x must be one of \['a', 'b'\], got 'c'"),
    (Flag(False), "maybe", "x must be true or false"),
    (KernelParam(), "x", "is a kernel: give it with --kernel"),
])
def test_parse_refuses_naming_the_parameter(decl, text, message):
    decl.name = "x"
    with pytest.raises(ValueError, match=message):
        decl.parse(text)


def test_roles_of_okl_learners():
    """The budget is a role, whatever the parameter's name: B of the budgeted learners,
    D of FOGD (its random features); T is the horizon; kernel and seed as named."""
    assert roles(okl.BOGD) == {"kernel": "kernel", "budget": "B", "seed": "seed"}
    assert roles(okl.FOGD)["budget"] == "D"
    assert roles(okl.POMDR)["horizon"] == "T"
    assert "budget" not in roles(okl.Perceptron)
    for name in NAMES:
        decl = declared(learners.implementation(learners.learner_class(name),
                                                learners.get(name).examples[0]
                                                if learners.get(name).examples else {}))
        budgets = [n for n, p in decl.items() if p.role == "budget"]
        assert len(budgets) <= 1, (name, budgets)


def test_build_gives_each_role_its_value():
    k = okl.Gaussian(2.0)
    b = build("bogd", {"eta": "0.5"}, kernel=k, seed=3, budget=11)
    assert (b.kernel, b.seed, b.B, b.eta) == (k, 3, 11, 0.5)
    f = build("FOGD", {}, kernel=k, budget=64)
    assert f.D == 64
    p = build("POMDR", {"B": 20, "B0": 5, "M": 3}, kernel=k, horizon=300)
    assert p.T == 300
    assert build("POMDR", {"B": 20, "B0": 5, "M": 3, "T": 100}, horizon=300).T == 100
    with pytest.raises(ValueError, match="Perceptron has no budget parameter"):
        build("Perceptron", {}, budget=5)
    with pytest.raises(ValueError, match=r"takes no parameter\(s\) \['nope'\]"):
        build("BOGD", {"nope": 1})
    with pytest.raises(ValueError, match="Ahpatron has no default for B: give -p B=VALUE"):
        build("Ahpatron", {})


class _Mine(okl.PythonLearner):
    """A user's learner with declared parameters and its own constructor."""

    C = Real(1.0, low=0, low_open=True)
    size = Int(10, low=1, role="budget")

    def __init__(self, kernel=None, C=1.0, size=10, seed=None):
        self.kernel = kernel
        self.C = C                    # checked by the declaration
        self.size = size
        self.seed = seed
        self.S = []

    def score(self, x):
        return 0.0

    def update(self, x, y, score):
        if len(self.S) < self.size:
            self.S.append(x)
        return 0.0


def test_a_users_learner_declares_and_is_built_the_same_way():
    with pytest.raises(ValueError, match=r"C must be in \(0, inf\), got -1.0"):
        _Mine(C=-1.0)
    m = build(_Mine, {"C": "0.5"}, seed=2, budget=4)
    assert (m.C, m.size, m.seed) == (0.5, 4, 2)
    assert roles(_Mine)["budget"] == "size"

    class Plain(okl.PythonLearner):           # no declarations: its signature's types
        def __init__(self, kernel=None, B=5, eta=0.1, flag=False, seed=None):
            self.kernel, self.B, self.eta, self.flag, self.seed = kernel, B, eta, flag, seed

        def score(self, x):
            return 0.0

        def update(self, x, y, score):
            return 0.0

    assert parse_params(Plain, {"B": "7", "eta": "1", "flag": "true"}) == \
        {"B": 7, "eta": 1.0, "flag": True}
    with pytest.raises(ValueError, match="B must be an integer, got '7.5'"):
        parse_params(Plain, {"B": "7.5"})
    assert roles(Plain) == {"kernel": "kernel", "seed": "seed", "budget": "B"}
    assert build(Plain, {}, budget=3).B == 3


def test_choice_aliases_are_command_line_spellings():
    """``-p maintenance=merge`` (the spelling of the BSGD issue and BudgetedSVM's users)
    is the choice 'merging'; a Python value keeps one spelling and is told the name."""
    assert parse_params(okl.BSGD, {"maintenance": "merge"}) == {"maintenance": "merging"}
    assert parse_params(okl.BSGD, {"maintenance": "remove"}) == {"maintenance": "removal"}
    assert parse_params(okl.MulticlassBSGD, {"maintenance": "projection"}) == \
        {"maintenance": "projection"}
    with pytest.raises(ValueError, match="got 'merge' \\(okl spells it 'merging'\\)"):
        okl.BSGD(maintenance="merge")
    with pytest.raises(ValueError, match="maintenance must be one of"):
        parse_params(okl.BSGD, {"maintenance": "merger"})


def test_split_params_one_rule():
    assert split_params("NORMA", "gaussian", {"sigma": 2, "lam": 1}) == \
        ({"lam": 1}, {"sigma": 2})
    assert split_params("NORMA", "gaussian", {"learner.sigma": 0.5, "kernel.sigma": 3}) == \
        ({"sigma": 0.5}, {"sigma": 3})
    assert split_params("BOGD", "gaussian", {"gamma": 2}) == ({"gamma": 2}, {})
    assert split_params("BOGD", "polynomial", {"gamma": 2, "learner.gamma": 1}) == \
        ({"gamma": 1}, {"gamma": 2})
    assert split_params("LKMBooks", "gaussian", {"sigma": 2}) == ({"sigma": 2}, {})
    with pytest.raises(ValueError, match="takes no kernel"):
        split_params("LKMBooks", "gaussian", {"kernel.sigma": 2})


def test_experiments_are_found_without_a_list():
    """Every module of okl.experiments is imported to find the experiments; each
    declares its paper."""
    from okl import experiments
    from okl.registry import PAPERS

    assert not hasattr(experiments, "_MODULES")
    found = experiments.entries()
    assert {"pomdr-table2", "norma-bounds", "pomdr-bounds", "selection-time",
            "awv-adversarial"} <= set(found)
    assert all(e.paper in PAPERS for e in found.values())
    assert {n for n, e in found.items() if e.own_learners} == {
        "pomdr-table2", "ahpatron-table2", "selection-memory", "selection-time",
        "awv-adversarial", "bsgd-table3"}


def test_learners_of_a_table_by_registered_name():
    """``--learners KernelAWV`` finds the column ``Kernel-AWV``; ``PKAWV`` the three
    Taylor columns; a classification learner of your own is told why it has no row
    in a regression game."""
    from okl.experiments.awv import Adversarial

    rep = Adversarial()
    opts = rep.options(True, 0, None, None, False, ["KernelAWV", "pkawv"])
    assert rep.split_learners(opts) == (["Kernel-AWV", "PKAWV M=2", "PKAWV M=3",
                                         "PKAWV M=4"], [])
    opts = rep.options(True, 0, None, None, False, ["Perceptron"])
    run, refused = rep.own_learners(opts)
    assert run == [] and "Perceptron is a classification learner" in refused[0][1]
