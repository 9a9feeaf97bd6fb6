"""okl.experiments.awv: the adversarial simulation (App. G) and the large-scale runs
(Figs. 2 and 4) of Jezequel, Gaillard & Rudi (2019), quick versions in a temp dir.

Every number in the summaries is recomputed here independently: the learners are
re-run from scratch on the recorded (or regenerated) streams, the kernel ridge
comparator is solved with numpy, the data scaling is redone with numpy.
"""
import csv
import json
import math

import numpy as np
import pytest

import okl.experiments.awv as ex
from okl.experiments import EXPERIMENTS
from okl.kernels import Gaussian
from okl.learners.awv import PKAWV, KernelAWV
from okl.learners.features import FOGD
from okl.learners.kons import ProsNKONS, SketchedKONS

# Section 4: KORS mu = 1, beta = 1, eps = 0.5; lambda = 1 (KONS' alpha); C = 1 (labels in
# [-1, 1]); Newton step 1/16 (the authors' code); Sketched-KONS' gamma = 0.1 (okl's)
KONS = dict(alpha=1.0, C=1.0, eta=1 / 16)


def kons(name, kernel, seed):
    if name == "Pros-N-KONS":
        return ProsNKONS(kernel, mu=1.0, beta=1.0, eps=0.5, seed=seed, **KONS)
    if name == "Pros-N-KONS jgr2019":
        return ProsNKONS(kernel, mu=1.0, beta=1.0, eps=0.5, variant="jgr2019", seed=seed,
                         **KONS)
    assert name == "Sketched-KONS"
    return SketchedKONS(kernel, beta=1.0, gamma=0.1, seed=seed, **KONS)


def gram(X, sigma=1.0):
    diff = X[:, None, :] - X[None, :, :]
    return np.exp(-np.einsum("ijk,ijk->ij", diff, diff) / (2 * sigma ** 2))


def ridge_loss(K, y, lam):
    f = K @ np.linalg.solve(K + lam * np.eye(len(y)), y)
    return np.sum((y - f) ** 2)


def fresh(name, n, seed):
    k = Gaussian(1.0)
    if name == "Kernel-AWV":
        return KernelAWV(k, lam=1.0)
    if name == "FOGD":
        return FOGD(k, D=1000, eta=1 / math.sqrt(n), loss="squared", seed=seed)
    if "KONS" in name:
        return kons(name, k, seed)
    return PKAWV(k, basis="taylor", M=int(name[-1]), lam=1.0)


def test_registered():
    assert EXPERIMENTS["awv-adversarial"] is ex.awv_adversarial
    assert EXPERIMENTS["awv-large-scale"] is ex.awv_large_scale


@pytest.fixture(scope="module")
def adversarial(tmp_path_factory):
    out = tmp_path_factory.mktemp("adv")
    mp = pytest.MonkeyPatch()
    mp.setattr(ex, "QUICK_ADVERSARIAL_N", 9)
    mp.setattr(ex, "N_CANDIDATES", 64)
    try:
        summary = ex.awv_adversarial(out, quick=True, seed=3, verbose=False)
    finally:
        mp.undo()
    return out, summary


def test_adversarial_outputs_equal_direct_computation(adversarial):
    out, summary = adversarial
    for f in ("awv_adversarial.png", "awv_adversarial.svg", "awv_adversarial.json",
              "awv_adversarial.csv", "awv_adversarial_rounds.csv", "awv_adversarial.txt"):
        assert (out / f).stat().st_size > 0
    assert not (out / "awv_adversarial-journal.jsonl").exists()
    assert json.loads((out / "awv_adversarial.json").read_text()) == json.loads(
        json.dumps(summary))
    assert summary["not_implemented"] == [] and ex.NOT_IMPLEMENTED == ()
    assert summary["not_in_paper"] == ["Pros-N-KONS jgr2019", "Sketched-KONS"]
    assert summary["datasets"]["greedy adversary"]["source"] == "generated"
    assert summary["n"] == 9 and summary["n_candidates"] == 64     # the patched sizes
    with open(out / "awv_adversarial_rounds.csv") as fh:
        rows = list(csv.DictReader(fh))
    with open(out / "awv_adversarial.csv") as fh:                  # the printed table
        table = {r["learner"]: r for r in csv.DictReader(fh)}
    assert list(table) == list(summary["runs"]) == list(ex.ADVERSARIAL_LEARNERS)
    with open(out / "awv_adversarial_runs.csv") as fh:             # one row per game
        games = list(csv.DictReader(fh))
    assert [g["learner"] for g in games] == list(ex.ADVERSARIAL_LEARNERS)
    assert [g["learner_repr"] for g in games] == [r["learner"] for r in summary["runs"].values()]
    assert [float(g["final_regret"]) for g in games] == [
        r["final_regret"] for r in summary["runs"].values()]
    n = summary["n"]
    assert set(summary["runs"]) == set(ex.ADVERSARIAL_LEARNERS)
    assert {"Kernel-AWV", "PKAWV M=2", "PKAWV M=3", "PKAWV M=4", "FOGD",
            "Pros-N-KONS"} == {k for k, r in summary["runs"].items() if r["in_paper"]}
    for name, run in summary["runs"].items():
        mine = [r for r in rows if r["learner"] == name]
        assert [int(r["t"]) for r in mine] == list(range(1, n + 1))
        X = np.array([[float(r[f"x{j}"]) for j in range(1, 6)] for r in mine])
        y = np.array([float(r["y"]) for r in mine])
        pred = np.array([float(r["prediction"]) for r in mine])
        assert np.all(np.abs(X) <= 1.0) and set(y) <= {-1.0, 1.0}  # y at a vertex: convexity
        # the recorded forecasts are those of a fresh learner on the recorded stream
        learner = fresh(name, n, summary["seed"])
        trace = learner.run(X, y)
        assert np.allclose(trace.scores, pred, atol=1e-10)
        if name.startswith("Pros-N-KONS"):
            # one restart per KORS addition, on this stream and in the reproduction
            joined = learner.dictionary_rounds - 1
            assert run["extras"]["restarts"] == run["extras"]["dictionary_size"] \
                == trace.extras["restarts"] == len(joined) >= 1
            if name == "Pros-N-KONS":             # KONS restarts from w = 0: yhat = 0
                assert np.all(pred[joined] == 0.0)
        assert np.allclose([float(r["loss"]) for r in mine], (y - pred) ** 2, atol=1e-12)
        # regret against the kernel ridge comparator refit on every prefix (numpy)
        K = gram(X)
        cum = np.cumsum((y - pred) ** 2)
        regret = [cum[t] - ridge_loss(K[:t + 1, :t + 1], y[:t + 1], 1.0) for t in range(n)]
        assert np.allclose(run["regret"], regret, atol=1e-9)
        assert np.allclose([float(r["regret"]) for r in mine], regret, atol=1e-9)
        assert run["final_regret"] == pytest.approx(regret[-1], abs=1e-9)
        assert float(table[name]["okl"]) == run["final_regret"]
        assert float(table[name]["bound_value"] or "nan") == pytest.approx(
            (run["bound"] or {}).get("value", math.nan), nan_ok=True)
        if name == "Kernel-AWV":
            a = np.linalg.solve(K + np.eye(n), y)
            bound = a @ K @ a + np.sum(np.log1p(np.maximum(np.linalg.eigvalsh(K), 0)))
            assert run["bound"]["value"] == pytest.approx(bound, rel=1e-9)
            assert regret[-1] <= bound  # Proposition 1 on the adversarial stream
        elif name.startswith("PKAWV"):
            assert run["bound"]["name"] == "Theorem 3"
            assert regret[-1] <= run["bound"]["value"]
        elif name == "Pros-N-KONS":
            b = run["bound"]
            eta_ok = 1 / 16 <= 1 / (2 * np.max((pred - y) ** 2))
            assert b["eta_ok"] == eta_ok
            if b["eta_ok"] and b["comparator_in_C"]:
                assert regret[-1] <= b["value"] + 1e-9


def test_adversary_plays_first_order_optimal_points(adversarial):
    # At each chosen x_t the regret's gradient (finite differences on a fresh learner
    # that saw the prefix) vanishes in the free coordinates and points out of the box
    # at active bounds: the greedy step maximized R_t over x_t.
    out, summary = adversarial
    with open(out / "awv_adversarial_rounds.csv") as fh:
        rows = [r for r in csv.DictReader(fh) if r["learner"] == "Kernel-AWV"]
    X = np.array([[float(r[f"x{j}"]) for j in range(1, 6)] for r in rows])
    y = np.array([float(r["y"]) for r in rows])
    n = len(y)
    for t in range(2, n):
        learner = KernelAWV(Gaussian(1.0), lam=1.0)
        learner.run(X[:t], y[:t])

        def regret(x):  # R_t up to the constant sum_{s<t} (y_s - yhat_s)^2
            f = learner.decision_function(x[None])[0]
            Z = np.vstack([X[:t], x])
            return (y[t] - f) ** 2 - ridge_loss(gram(Z), np.append(y[:t], y[t]), 1.0)

        h = 1e-6
        g = np.array([(regret(X[t] + h * e) - regret(X[t] - h * e)) / (2 * h)
                      for e in np.eye(5)])
        scale = 1.0 + np.abs(g).max()
        for j in range(5):
            if abs(X[t, j]) < 1 - 1e-6:
                assert abs(g[j]) < 2e-3 * scale, (t, j, g)
            else:
                assert g[j] * np.sign(X[t, j]) > -2e-3 * scale, (t, j, g)


def test_adversarial_learners_option(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "QUICK_ADVERSARIAL_N", 3)
    monkeypatch.setattr(ex, "N_CANDIDATES", 8)
    with pytest.raises(ValueError, match="unknown learner 'KONS': not a learner of "
                                         "awv-adversarial's table"):
        ex.awv_adversarial(tmp_path, quick=True, learners=["Pros-N-KONS", "KONS"])
    summary = ex.awv_adversarial(tmp_path, quick=True, seed=3, learners=["Pros-N-KONS"])
    assert list(summary["runs"]) == ["Pros-N-KONS"] and summary["not_in_paper"] == []
    # a column by its learner's registered name: KernelAWV is the column Kernel-AWV
    summary = ex.awv_adversarial(tmp_path / "by-name", quick=True, seed=3,
                                 learners=["KernelAWV"])
    assert list(summary["runs"]) == ["Kernel-AWV"]


ADV_OUTPUTS = ("awv_adversarial.csv", "awv_adversarial_runs.csv", "awv_adversarial_rounds.csv",
               "awv_adversarial.txt", "agreement.csv")
ADV_LEARNERS = ["Kernel-AWV", "PKAWV M=2", "FOGD", "Pros-N-KONS"]


ADV_OPTS = dict(quick=True, seed=4, learners=ADV_LEARNERS, timing=False, verbose=False)


def _small_game(monkeypatch):
    monkeypatch.setattr(ex, "QUICK_ADVERSARIAL_N", 3)
    monkeypatch.setattr(ex, "N_CANDIDATES", 8)


@pytest.fixture(scope="module")
def adv_whole(tmp_path_factory):
    """The uninterrupted small run (one process, ``n_jobs = 1``) the others must equal."""
    mp = pytest.MonkeyPatch()
    _small_game(mp)
    out = tmp_path_factory.mktemp("adv-whole")
    try:
        summary = ex.awv_adversarial(out, **ADV_OPTS)
    finally:
        mp.undo()
    assert list(summary["runs"]) == ADV_LEARNERS and summary["n"] == 3
    return out


def _same_outputs(a, b):
    for f in ADV_OUTPUTS:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    ja, jb = (json.loads((d / "awv_adversarial.json").read_text()) for d in (a, b))
    for j in (ja, jb):
        del j["seconds"], j["files"]
    assert ja == jb


def test_adversarial_jobs_and_resume_give_the_same_outputs(adv_whole, tmp_path,
                                                          monkeypatch):
    """--jobs 2 (the games in two worker processes, which see the parent's sizes through
    the runs' arguments) and a run interrupted after two games then resumed write the
    outputs of one uninterrupted process, byte for byte (no timing columns)."""
    _small_game(monkeypatch)
    opts = ADV_OPTS
    ex.awv_adversarial(tmp_path / "two", n_jobs=2, **opts)
    _same_outputs(adv_whole, tmp_path / "two")

    real, calls = ex.adversarial_run, []

    def interrupted(X, y, **kwargs):
        if len(calls) == 2:
            raise KeyboardInterrupt          # as a Ctrl-C in the third game
        calls.append(kwargs["name"])
        return real(X, y, **kwargs)

    monkeypatch.setattr(ex, "adversarial_run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ex.awv_adversarial(tmp_path / "resumed", **opts)
    journal = tmp_path / "resumed" / "awv_adversarial-journal.jsonl"
    assert journal.exists() and calls == ADV_LEARNERS[:2]
    with pytest.raises(ValueError, match="resume"):    # a journal is not overwritten
        ex.awv_adversarial(tmp_path / "resumed", **opts)
    calls.clear()

    def counted(X, y, **kwargs):
        calls.append(kwargs["name"])
        return real(X, y, **kwargs)

    monkeypatch.setattr(ex, "adversarial_run", counted)
    ex.awv_adversarial(tmp_path / "resumed", resume=True, **opts)
    assert calls == ADV_LEARNERS[2:]                  # only the games the journal lacked
    assert not journal.exists()
    _same_outputs(adv_whole, tmp_path / "resumed")


_KILLED_CHILD = """
import sys, time
import okl.experiments.awv as ex
ex.QUICK_ADVERSARIAL_N, ex.N_CANDIDATES = 3, 8
real = ex.adversarial_run
def blocking(X, y, **kwargs):
    if kwargs["name"] == sys.argv[2]:
        time.sleep(600)                  # SIGKILLed in this game
    return real(X, y, **kwargs)
ex.adversarial_run = blocking
ex.awv_adversarial(sys.argv[1], quick=True, seed=4, learners=sys.argv[3:], timing=False,
                   verbose=False)
"""


def test_adversarial_resume_after_sigkill_gives_the_uninterrupted_outputs(
        adv_whole, tmp_path, monkeypatch):
    """A process SIGKILLed in its third game (a real kill: no handler runs) leaves the two
    finished games in the journal; resumed (in another process), only the missing games
    run and the outputs are those of an uninterrupted run, byte for byte."""
    import os
    import signal
    import subprocess
    import sys
    import time

    _small_game(monkeypatch)
    out = tmp_path / "killed"
    journal = out / "awv_adversarial-journal.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_CHILD, str(out), ADV_LEARNERS[2],
                             *ADV_LEARNERS], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    try:                      # header, the dataset's fingerprint, then one line per game
        while proc.poll() is None and time.monotonic() < deadline and (
                not journal.exists() or journal.read_bytes().count(b"\n") < 4):
            time.sleep(0.02)
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert journal.read_bytes().count(b"\n") == 4        # the first two games
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "awv_adversarial.csv").exists()   # nothing but the journal yet
    calls, real = [], ex.adversarial_run

    def counted(X, y, **kwargs):
        calls.append(kwargs["name"])
        return real(X, y, **kwargs)

    monkeypatch.setattr(ex, "adversarial_run", counted)
    ex.awv_adversarial(out, resume=True, **ADV_OPTS)
    assert calls == ADV_LEARNERS[2:] and not journal.exists()
    _same_outputs(adv_whole, out)


def test_adversarial_takes_the_runner_options_only():
    from okl import experiments

    for option in ("n_jobs", "scheduler", "resume", "progress", "timing", "learners"):
        assert experiments.accepts("awv-adversarial", option)
    for option in ("datasets", "n_permutations", "n_rounds"):
        assert not experiments.accepts("awv-adversarial", option)


def test_adversary_beats_random_streams(adversarial):
    _, summary = adversarial
    n = summary["n"]
    rng = np.random.default_rng(0)
    worst_random = []
    for _ in range(5):
        X = rng.uniform(-1, 1, size=(n, 5))
        y = rng.choice([-1.0, 1.0], n)
        pred = KernelAWV(Gaussian(1.0), lam=1.0).run(X, y).scores
        worst_random.append(np.sum((y - pred) ** 2) - ridge_loss(gram(X), y, 1.0))
    assert summary["runs"]["Kernel-AWV"]["final_regret"] > max(worst_random)


# -- large scale -----------------------------------------------------------------------------

def minmax(X, y, task):
    lo, hi = X.min(0), X.max(0)
    Xs = np.zeros_like(X)
    ok = hi > lo
    Xs[:, ok] = 2 * (X[:, ok] - lo[ok]) / (hi[ok] - lo[ok]) - 1
    if task == "regression":
        y = 2 * (y - y.min()) / (y.max() - y.min()) - 1
    return Xs, y


def _quick_large(tmp_path, monkeypatch, rounds, data="data", **options):
    monkeypatch.setenv("OKL_DATA", str(tmp_path / data))
    monkeypatch.setattr(ex, "QUICK_ROUNDS", rounds)
    monkeypatch.setattr(ex, "QUICK_TIME_BUDGET", 1e9)
    return ex.awv_large_scale(tmp_path / "out", quick=True, seed=5, verbose=False, **options)


def _order(name, n):
    from okl.experiments.runner import stream_order

    return stream_order(5, list(ex.LARGE_SCALE_DATASETS).index(name), 0, n)


def test_large_scale_on_stand_ins_equals_direct_runs(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    summary = _quick_large(tmp_path, monkeypatch, 300, datasets=["casp", "ijcnn1"])
    out = tmp_path / "out"
    assert json.loads((out / "awv_large_scale.json").read_text()) == json.loads(
        json.dumps(summary))
    with open(out / "awv_large_scale_points.csv") as fh:
        points = list(csv.DictReader(fh))
    for name in ("casp", "ijcnn1"):
        info = summary["datasets"][name]
        spec = ex.LARGE_SCALE_DATASETS[name]
        assert info["source"] == "stand-in" and info["n_rounds"] == 300
        assert info["n_features"] == spec["d"]
        assert (out / f"awv_large_scale_{name}.png").exists()
        assert (out / f"awv_large_scale_{name}.svg").exists()
        rows = {r["learner"]: r for r in summary["rows"] if r["dataset"] == name}
        assert all(r["status"] != "not implemented" for r in rows.values())
        assert {k for k, r in rows.items() if not r["in_paper"]} == {
            "Pros-N-KONS jgr2019", "Sketched-KONS"}
        for M in (2, 3, 4):
            r = math.comb(M + spec["d"], M)
            key = f"PKAWV taylor M={M}"
            assert (rows[key]["status"] == "ok") == (r <= ex.QUICK_MAX_TAYLOR_FEATURES)
        X, y = ex.stand_in(name, 300)
        X, y = minmax(X, y, spec["task"])
        order, lseed = _order(name, 300)
        X, y = X[order], y[order]
        k = Gaussian(spec["sigma"])
        factories = {"KRR": lambda: KernelAWV(k, lam=1.0, forecaster="krr"),
                     "FOGD": lambda: FOGD(k, D=1000, eta=1 / math.sqrt(300), loss="squared",
                                          seed=lseed),
                     "PKAWV nystrom": lambda: PKAWV(k, basis="nystrom", lam=1.0, mu=1.0,
                                                    beta=1.0, eps=0.5, forecaster="krr",
                                                    seed=lseed)}
        for M in (2, 3, 4):
            factories[f"PKAWV taylor M={M}"] = (lambda M=M: PKAWV(
                k, basis="taylor", M=M, lam=1.0, forecaster="krr"))
        for lname in ("Pros-N-KONS", "Pros-N-KONS jgr2019", "Sketched-KONS"):
            factories[lname] = lambda lname=lname: kons(lname, k, lseed)
        ran = {k for k, r in rows.items() if r["status"] == "ok"}
        assert ran <= set(factories) and {"KRR", "FOGD", "PKAWV taylor M=2", "Pros-N-KONS",
                                          "Pros-N-KONS jgr2019", "Sketched-KONS"} <= ran
        for lname in ran:
            learner = factories[lname]()
            s = learner.run(X, y).scores
            if lname.startswith("Pros-N-KONS"):
                # the run restarted once per KORS addition, as a direct run does
                assert rows[lname]["restarts"] == rows[lname]["dictionary_size"] \
                    == len(learner.dictionary_rounds) >= 1
            per_round = (y * s <= 0) if spec["task"] == "classification" else (y - s) ** 2
            mine = rows[lname]["points"]
            assert [p["n"] for p in mine] == [100, 200, 300]
            for p in mine:
                assert p["average_loss"] == pytest.approx(np.mean(per_round[:p["n"]]),
                                                          abs=1e-12)
            assert rows[lname]["okl"] == mine[-1]["average_loss"]
            csv_rows = [r for r in points if r["dataset"] == name and r["learner"] == lname]
            assert [int(r["n"]) for r in csv_rows] == [100, 200, 300]
            secs = [p["seconds"] for p in mine]
            assert all(a <= b for a, b in zip(secs, secs[1:]))


@pytest.mark.filterwarnings("ignore:.*is published with")
def test_large_scale_reads_real_rows(tmp_path, monkeypatch):
    """casp (CASP.csv, RMSD first) and cod-rna (cod-rna.t) from the real-format fixtures,
    x and y scaled to [-1, 1] as Section 4 says."""
    import shutil
    from pathlib import Path

    from okl.datasets import paper_data

    fixtures = Path(__file__).parent / "fixtures" / "data"
    shutil.copytree(fixtures, tmp_path / "data")
    summary = _quick_large(tmp_path, monkeypatch, 30, datasets=["cod-rna", "casp"],
                           learners=["KRR"])
    cod, casp = summary["datasets"]["cod-rna"], summary["datasets"]["casp"]
    assert cod["source"] == "file" and cod["n_rounds"] == cod["n_available"] == 20
    assert casp["source"] == "file" and casp["n_rounds"] == 30      # 30 of its 40 rows
    assert any("[-1, 1]" in step for step in casp["steps"])
    pd = paper_data("casp", "awv", n_rows=30, seed=5, data_home=tmp_path / "data")
    X = np.asarray(pd.X)
    assert X.min() >= -1 and X.max() <= 1 and pd.y.min() == -1 and pd.y.max() == 1
    order, _ = _order("casp", 30)
    s = KernelAWV(Gaussian(1.0), lam=1.0, forecaster="krr").run(X[order], pd.y[order]).scores
    row = [r for r in summary["rows"] if r["dataset"] == "casp" and r["learner"] == "KRR"][0]
    assert row["okl"] == pytest.approx(np.mean((pd.y[order] - s) ** 2), rel=1e-9)
    cod_row = [r for r in summary["rows"] if r["dataset"] == "cod-rna"][0]
    assert cod_row["status"] == "ok" and cod_row["n"] == 20
