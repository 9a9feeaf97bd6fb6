"""The learner registry (okl.registry): one declaration per learner, read by the okl
namespace, the command line, the tests and the docs; and learners of your own by import
path through every command."""
import ast
import inspect
import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import okl
from okl import learners, registry
from okl.cli import main
from okl.learners.base import OnlineLearner

OWN_MODULE = textwrap.dedent('''
    """A user's learner module, outside okl."""
    import numpy as np
    import okl


    class MyPerceptron(okl.PythonLearner):
        """Kernel Perceptron in numpy (a user's learner)."""

        def __init__(self, kernel=None, seed=None, C=1.0):
            self.kernel = okl.Gaussian(1.0) if kernel is None else kernel
            self.seed = seed
            self.C = C
            self.S, self.alpha = [], []

        def score(self, x):
            if not self.S:
                return 0.0
            g = 1.0 / (2.0 * self.kernel.sigma ** 2)
            S = np.asarray(self.S)
            return float(np.exp(-g * ((S - x) ** 2).sum(1)) @ np.asarray(self.alpha))

        def update(self, x, y, score):
            if y * score <= 0:
                self.S.append(x)
                self.alpha.append(self.C * y)
            return max(0.0, -y * score)

        def support_size(self):
            return len(self.S)


    def at_most_one_mistake_a_round(s, learner, trace, radii, rows, curves, *, delta):
        from okl.experiments.bounds import row

        rows.append(row("mistakes", trace.n_mistakes, trace.n_rounds,
                        "a bound of my own: at most one mistake a round"))


    @okl.registry.register_learner(register=False, bounds=at_most_one_mistake_a_round)
    class Bounded(MyPerceptron):
        """MyPerceptron with a bound of its own."""
''')


@pytest.fixture
def own_module(tmp_path, monkeypatch):
    """``mylearners.py`` in a fresh folder, the current directory (not on sys.path)."""
    (tmp_path / "mylearners.py").write_text(OWN_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    yield tmp_path
    sys.modules.pop("mylearners", None)


def _okl_entries():
    return {n: e for n, e in learners.entries().items() if e.cls.__module__.startswith("okl.")}


def test_the_registry_the_namespace_and_the_command_line_agree():
    entries = _okl_entries()
    assert len(entries) >= 32
    assert list(entries) == okl.learners.LEARNERS
    assert set(entries) <= set(okl.__all__) and set(entries) <= set(okl.learners.__all__)
    for name, entry in entries.items():
        assert getattr(okl, name) is entry.cls
        assert learners.learner_class(name) is entry.cls
        assert learners.learner_class(name.lower()) is entry.cls
        for alias in entry.aliases:
            assert learners.learner_class(alias) is entry.cls
    # every learner class the package defines publicly is registered
    defined = set()
    for module_name in [m for m in sys.modules if m.startswith("okl.learners.")]:
        for obj in vars(sys.modules[module_name]).values():
            if (inspect.isclass(obj) and issubclass(obj, OnlineLearner)
                    and obj.__module__ == module_name and not obj.__name__.startswith("_")
                    and obj not in (OnlineLearner, okl.PythonLearner,
                                    okl.learners.multiclass.MulticlassLearner)):
                defined.add(obj)
    assert defined == {e.cls for e in entries.values()}


def test_every_declaration_is_complete():
    for name, entry in _okl_entries().items():
        assert entry.paper in registry.PAPERS, name
        assert entry.task in registry.TASKS, name
        assert entry.examples, name
        built = entry.build()
        if entry.task == "classification":
            assert built.is_classifier, name
        if entry.task == "regression":
            assert not built.is_classifier, name
        if entry.bounds is not None:
            module, _, function = entry.bounds.partition(":")
            assert module.startswith("okl.experiments.bounds") and function, name


def _scalar_params(example):
    """The parameters of an example that the command line can give (-p NAME=VALUE)."""
    out = []
    for k, v in example.items():
        if k in ("kernel", "kernels"):
            continue
        try:
            ast.literal_eval(repr(v))
        except (ValueError, SyntaxError):
            continue
        out += ["-p", f"{k}={v!r}"]
    return out


@pytest.mark.parametrize("name", list(_okl_entries()))
def test_okl_run_reaches_every_learner(name, tmp_path, capsys):
    entry = learners.get(name)
    out = tmp_path / "run.json"
    argv = ["run", "--learner", name, "--rounds", "300", "--features", "3",
            "--json", str(out)] + _scalar_params(entry.examples[0])
    assert main(argv) == 0, capsys.readouterr().err
    summary = json.loads(out.read_text())
    assert summary["n_rounds"] == 300
    assert summary["learner"].startswith(entry.cls.__name__.split("_")[0][:4])


def test_okl_run_list_names_every_learner(capsys):
    assert main(["run", "--list"]) == 0
    text = capsys.readouterr().out
    for name in _okl_entries():
        assert f"\n{name} " in "\n" + text


def test_unknown_learners_are_one_error_line(capsys):
    assert main(["run", "--learner", "NoSuchLearner"]) == 2
    err = capsys.readouterr().err
    assert "unknown learner 'NoSuchLearner'" in err and "module:Class" in err
    assert main(["run", "--learner", "PythonLearner"]) == 2      # a base, not a learner
    assert main(["run", "--learner", "no_such_module_xyz:Learner"]) == 2
    assert "No module named 'no_such_module_xyz'" in capsys.readouterr().err
    assert main(["run", "--learner", "numpy:ndarray"]) == 2
    assert "not an okl learner class" in capsys.readouterr().err


# ---------------------------------------------------------------------------------
# a learner of your own, by import path
# ---------------------------------------------------------------------------------

def _hand_loop(X, y, sigma, C):
    S, a, mistakes = [], [], 0
    for x, label in zip(X, y):
        f = float(np.exp(-((np.asarray(S) - x) ** 2).sum(1) / (2 * sigma ** 2)) @ a) \
            if S else 0.0
        if label * f <= 0:
            mistakes += 1
            S.append(x)
            a.append(C * label)
    return mistakes, len(S)


def test_okl_run_with_a_module_class(own_module, capsys):
    argv = ["run", "--learner", "mylearners:MyPerceptron", "-p", "C=0.5", "--rounds", "400",
            "--features", "4", "--sigma", "1.5", "--json", "out.json"]
    assert main(argv) == 0, capsys.readouterr().err
    summary = json.loads(Path("out.json").read_text())
    X, y = okl.datasets.xor_stream(400, 4, seed=0)
    mistakes, size = _hand_loop(X, y, 1.5, 0.5)
    assert summary["mistakes"] == mistakes and summary["final_budget"] == size
    assert summary["learner"] == "MyPerceptron(kernel=Gaussian(sigma=1.5), seed=0, C=0.5)"
    # a file path works as well
    assert main(["run", "--learner", f"{own_module / 'mylearners.py'}:MyPerceptron",
                 "--rounds", "50"]) == 0


def test_okl_sweep_with_a_module_class_on_two_processes(own_module, capsys):
    argv = ["sweep", "--learner", "mylearners:MyPerceptron", "--learner", "Perceptron",
            "-p", "C=0.5,2", "--rounds", "300", "--features", "3", "--permutations", "2",
            "--jobs", "2", "--no-progress", "--out", "sw"]
    assert main(argv) == 0, capsys.readouterr().err
    import csv

    rows = list(csv.DictReader(open("sw.csv")))
    mine = [r for r in rows if r["learner"] == "mylearners:MyPerceptron"]
    theirs = [r for r in rows if r["learner"] == "Perceptron"]
    assert len(mine) == 4 and len(theirs) == 2
    # C only scales the coefficients: the same mistakes as okl's Perceptron, order by order
    for r in mine:
        same = [t for t in theirs if t["permutation"] == r["permutation"]][0]
        assert r["mistake_rate"] == same["mistake_rate"]


def test_okl_bounds_with_a_module_class(own_module, capsys):
    assert main(["bounds", "--learner", "mylearners:MyPerceptron", "--rounds", "200",
                 "--features", "3"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "mistakes" in out and "MyPerceptron" in out and "no theory" in out
    # a learner of your own that declares a bound gets it checked
    assert main(["bounds", "--learner", "mylearners:Bounded", "--rounds", "200",
                 "--features", "3"]) == 0
    out = capsys.readouterr().out
    assert "a bound of my own: at most one mistake a round" in out
    assert "1 bound(s) checked: every bound holds" in out
    assert "Bounded" not in okl.learners.entries()      # register=False


def test_okl_sweep_with_a_module_class_on_a_dask_cluster(own_module, capsys):
    """Dask worker processes find the user's module where okl found it (the folder okl put
    on sys.path travels with every task): the same rows as joblib's."""
    distributed = pytest.importorskip("distributed")
    argv = ["sweep", "--learner", "mylearners:MyPerceptron", "-p", "C=0.5,2", "--rounds",
            "200", "--features", "3", "--permutations", "2", "--no-progress", "--no-timing"]
    assert main(argv + ["--out", "local"]) == 0, capsys.readouterr().err
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        assert main(argv + ["--out", "remote", "--dask", cluster.scheduler_address]) == 0, \
            capsys.readouterr().err
    assert Path("local.csv").read_text() == Path("remote.csv").read_text()
