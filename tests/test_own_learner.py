"""The tutorial's learner (docs/own_learner.rst): the kernel Passive-Aggressive algorithm
of Crammer et al. (JMLR 2006) as a module outside okl, through every part of okl.

Oracles: a hand-written loop of the same algorithm (mistake for mistake, score for
score), and for the Cython core built against okl's .pxd files, the Python prototype.
"""
import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.cli import main
from okl.testing import ContractError, check_learner

TUTORIAL = Path(__file__).resolve().parents[1] / "docs" / "own_learner"


@pytest.fixture
def tutorial(tmp_path, monkeypatch):
    """The tutorial's folder copied to a fresh directory, the current one."""
    for f in TUTORIAL.iterdir():
        if f.is_file():
            shutil.copy(f, tmp_path / f.name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    yield tmp_path
    for name in ("kernel_pa", "kernel_pa_cython", "_kernel_pa"):
        sys.modules.pop(name, None)


def _import(folder, name):
    sys.path.insert(0, str(folder))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(folder))


def hand_pa(X, y, sigma, C, variant):
    """Kernel PA as a plain loop (Crammer et al. 2006, Fig. 1 and eqs. 3, 6, 7)."""
    S, alpha, scores = [], [], []
    for x, label in zip(X, y):
        f = 0.0
        for s, a in zip(S, alpha):
            f += a * np.exp(-np.sum((s - x) ** 2) / (2 * sigma ** 2))
        scores.append(f)
        loss = max(0.0, 1.0 - label * f)
        if loss > 0:
            tau = {"PA": loss, "PA-I": min(C, loss), "PA-II": loss / (1 + 1 / (2 * C))}[variant]
            S.append(x)
            alpha.append(tau * label)
    return np.asarray(scores), len(S)


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_the_prototype_equals_a_hand_written_loop(tutorial, variant):
    KernelPA = _import(tutorial, "kernel_pa").KernelPA
    X, y = okl.datasets.xor_stream(400, 4, seed=2)
    tr = KernelPA(okl.Gaussian(1.5), C=0.3, variant=variant).run(X, y)
    scores, n = hand_pa(X, y, 1.5, 0.3, variant)
    np.testing.assert_allclose(tr.scores, scores, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(tr.mistakes, y * scores <= 0)
    assert tr.final_budget == n
    # CSR rows arrive as dense rows: the same run
    Xs = X.copy()
    Xs[np.abs(Xs) < 0.7] = 0.0
    a = KernelPA(okl.Gaussian(1.5), C=0.3, variant=variant).run(Xs, y)
    b = KernelPA(okl.Gaussian(1.5), C=0.3, variant=variant).run(sp.csr_matrix(Xs), y)
    np.testing.assert_array_equal(a.scores, b.scores)


def _forgetful(base):
    """A broken copy of the tutorial's learner: it keeps its support vectors on the
    class (shared by every instance, left out of its pickles)."""

    class ForgetfulPA(base):
        shared = {"S": [], "alpha": []}

        def score(self, x):
            S, a = self.shared["S"], self.shared["alpha"]
            if not S:
                return 0.0
            return float(np.exp(-((np.asarray(S) - x) ** 2).sum(1) / 2.0) @ np.asarray(a))

        def update(self, x, y, score):
            loss = max(0.0, 1.0 - y * score)
            if loss > 0:
                self.shared["S"].append(x)
                self.shared["alpha"].append(min(self.C, loss) * y)
            return loss

    ForgetfulPA.__qualname__ = ForgetfulPA.__name__ = "ForgetfulPA"
    ForgetfulPA.__module__ = __name__
    globals()["ForgetfulPA"] = ForgetfulPA          # picklable by name
    return ForgetfulPA


def test_the_prototype_keeps_the_contract_and_a_broken_copy_does_not(tutorial):
    module = _import(tutorial, "kernel_pa")
    check_learner(module.KernelPA, C=0.5)
    broken = _forgetful(module.KernelPA)
    with pytest.raises(ContractError, match="ForgetfulPA breaks the rule 'one stream'"):
        check_learner(broken, C=0.5, rules=["one stream"])
    broken.shared = {"S": [], "alpha": []}
    with pytest.raises(ContractError, match="ForgetfulPA breaks the rule 'pickling'"):
        check_learner(broken, C=0.5, rules=["pickling"])


def test_an_unpicklable_learner_breaks_the_pickling_rule(tutorial):
    module = _import(tutorial, "kernel_pa")

    class Local(module.KernelPA):       # a class pickle cannot find by name
        pass

    with pytest.raises(ContractError, match="breaks the rule 'pickling'.*importable"):
        check_learner(Local, C=0.5, rules=["bad input"])


def test_the_cython_core_built_against_okls_pxd_files_equals_the_prototype(tutorial):
    """The tutorial's _kernel_pa.pyx, compiled as a user would (setup.py with
    okl.get_include()), against the prototype as its oracle."""
    proc = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"],
                          cwd=tutorial, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    KernelPA = _import(tutorial, "kernel_pa").KernelPA
    sys.path.insert(0, str(tutorial))
    try:
        KernelPAFast = _import(tutorial, "kernel_pa_cython").KernelPAFast
        X, y = okl.datasets.xor_stream(600, 5, seed=3)
        for variant in ("PA", "PA-I", "PA-II"):
            slow = KernelPA(okl.Gaussian(2.0), C=0.4, variant=variant).run(X, y)
            fast = KernelPAFast(okl.Gaussian(2.0), C=0.4, variant=variant).run(X, y)
            np.testing.assert_array_equal(slow.mistakes, fast.mistakes)
            np.testing.assert_allclose(slow.scores, fast.scores, rtol=0, atol=1e-10)
            np.testing.assert_array_equal(slow.budget, fast.budget)
        check_learner(KernelPAFast, C=0.5)
    finally:
        sys.path.remove(str(tutorial))


def test_the_prototype_through_every_command(tutorial, capsys):
    spec = "kernel_pa:KernelPA"
    # okl run: the hand-written loop's mistakes
    assert main(["run", "--learner", spec, "-p", "C=0.5", "--sigma", "2", "--rounds", "300",
                 "--features", "4", "--json", "run.json"]) == 0, capsys.readouterr().err
    summary = json.loads(Path("run.json").read_text())
    X, y = okl.datasets.xor_stream(300, 4, seed=0)
    scores, n = hand_pa(X, y, 2.0, 0.5, "PA-I")
    assert summary["mistakes"] == int(np.sum(y * scores <= 0)) and summary["final_budget"] == n
    # okl sweep on two processes, beside an okl learner
    assert main(["sweep", "--learner", spec, "--learner", "BOGD", "-p", "C=0.1,1",
                 "-p", "B=30", "--rounds", "300", "--features", "4", "--jobs", "2",
                 "--no-progress", "--out", "sw"]) == 0, capsys.readouterr().err
    rows = list(csv.DictReader(open("sw.csv")))
    # -p values parsed by the learners' declarations: C is a real, B an integer
    assert sorted((r["learner"], r["C"] or r["B"]) for r in rows) == [
        ("BOGD", "30"), (spec, "0.1"), (spec, "1.0")]
    # okl bounds: the bound the learner declares (Crammer et al.'s Theorem 4 for PA-I)
    assert main(["bounds", "--learner", spec, "--rounds", "200", "--features", "3",
                 "--json", "b.json"]) == 0
    out = capsys.readouterr().out
    assert "Crammer et al. 2006, Theorem 4 (PA-I)" in out and "every bound holds" in out
    report = json.loads(Path("b.json").read_text())
    thm = [r for r in report["rows"] if r["source"].startswith("Crammer")][0]
    assert thm["holds"] and 0.05 < thm["ratio"] <= 1.0
    # okl reproduce: a starred row under the paper's protocol
    assert main(["reproduce", "pomdr-table2", "--quick", "--datasets", "magic04",
                 "--learners", "POMDR", spec, "-p", "C=0.1,1", "--permutations", "1",
                 "--rounds", "300", "--no-progress", "--out", "rep"]) == 0
    out = capsys.readouterr().out
    assert f"{spec}*" in out
    table = list(csv.DictReader(open("rep/pomdr_table2.csv")))
    row = [r for r in table if r["learner"] == spec][0]
    assert row["in_paper"] == "False" and row["paper"] == "" and row["status"] == "ok"
