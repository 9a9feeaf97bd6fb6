"""Interrupted sweeps resume to the uninterrupted outputs, byte for byte.

Sweeps are interrupted at random points: in process (a Ctrl-C between any two runs,
any number of times), and for real in a subprocess: SIGINT and SIGKILL on joblib
with two workers, and on a Dask LocalCluster (two worker processes) one of whose
workers is SIGKILLed mid-run, before or together with the client.  Each time the
resumed CSV (and summary) must equal the uninterrupted sweep's bytes: no run
missing, none twice.  Kill points come from a seeded generator or hypothesis and
are reached by polling the journal, so what is asserted never depends on timing.
"""
import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from okl.cli import main
from okl.experiments import journal as journal_module
from okl.experiments import sweep as sw

# 8 configurations x 3 permutations = 24 runs of ~10-50 ms each
BIG = ["sweep", "--learner", "NORMA", "--learner", "Perceptron", "-p", "lam=0.001,0.002,0.004",
       "-p", "sigma=1,2", "--permutations", "3", "--rounds", "3000", "--features", "20",
       "--no-timing", "--no-progress"]
N_BIG = 24
# 2 configurations x 4 permutations = 8 runs of a few ms
SMALL = ["sweep", "--learner", "NORMA", "--learner", "Perceptron", "-p", "lam=0.05",
         "--permutations", "4", "--rounds", "150", "--features", "3", "--no-progress"]
N_SMALL = 8
OUTPUTS = (".csv", "-summary.csv", "-summary.json")
REAL_RECORD = journal_module.Journal.record


class _Outputs(dict):
    def __repr__(self):                  # hypothesis prints its arguments
        return "<reference outputs>"


def _outputs(prefix):
    return {ext: open(f"{prefix}{ext}", "rb").read() for ext in OUTPUTS}


def _records(journal):
    try:
        return max(open(journal, "rb").read().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted sweeps' outputs (one process, no journal left behind)."""
    out = tmp_path_factory.mktemp("reference")
    assert main(BIG + ["--out", str(out / "big")]) == 0
    assert main(SMALL + ["--no-timing", "--out", str(out / "small")]) == 0
    assert main(SMALL + ["--out", str(out / "timed")]) == 0
    assert not list(out.glob("*journal*"))
    return _Outputs(big=_outputs(out / "big"), small=_outputs(out / "small"),
                    timed=_outputs(out / "timed"))


def _without_seconds(data: bytes) -> list:
    rows = list(csv.reader(io.StringIO(data.decode())))
    drop = rows[0].index("seconds")
    return [r[:drop] + r[drop + 1:] for r in rows]


# ---------------------------------------------------------------- in process
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stops=st.lists(st.integers(0, N_SMALL), min_size=1, max_size=3),
       timing=st.booleans())
def test_ctrl_c_between_any_runs_then_resume_gives_the_same_outputs(
        tmp_path_factory, reference, monkeypatch, capsys, stops, timing):
    """Interrupt after ``k`` more runs, for each ``k`` in ``stops``, then resume to the end."""
    prefix = tmp_path_factory.mktemp("ctrlc") / "s"
    journal = f"{prefix}-journal.jsonl"
    args = SMALL + ([] if timing else ["--no-timing"]) + ["--out", str(prefix)]
    real_record = REAL_RECORD
    budget = {"left": 0}

    def record(self, key, row):
        if budget["left"] == 0:
            raise KeyboardInterrupt
        budget["left"] -= 1
        real_record(self, key, row)

    monkeypatch.setattr(journal_module.Journal, "record", record)
    saved = 0
    for i, k in enumerate(stops):
        budget["left"] = k
        code = main(args + (["--resume"] if i else []))
        if saved + k >= N_SMALL:             # it finished before the k-th stop
            assert code == 0
            break
        assert code == 130
        saved += k
        assert _records(journal) == saved
        assert "--resume" in capsys.readouterr().err
        assert not os.path.exists(f"{prefix}.csv")
    else:
        budget["left"] = -1                  # no more interruptions
        assert main(args + ["--resume"]) == 0
    assert not os.path.exists(journal)       # removed once the outputs hold every run
    got = _outputs(prefix)
    if not timing:
        assert got == reference["small"]
    else:
        assert _without_seconds(got[".csv"]) == _without_seconds(reference["timed"][".csv"])


def test_resumed_rows_keep_their_recorded_seconds(tmp_path):
    """With timing on, a resumed run's row is the journal's, seconds included."""
    X, y = _xor()
    grid = {"learner": ["NORMA"], "lam": [0.05, 0.1]}
    path = tmp_path / "j.jsonl"
    first = sw.sweep(grid, X, y, permutations=2, journal=path)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:3]) + b"\n")      # keep 2 of the 4 runs
    again = sw.sweep(grid, X, y, permutations=2, journal=path, resume=True)
    assert again[:2] == first[:2]                          # same seconds, bit for bit
    assert again[2:] != first[2:]                          # (rerun: other seconds)
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in again] == \
        [{k: v for k, v in r.items() if k != "seconds"} for r in first]
    assert len(path.read_bytes().split(b"\n")) == 6       # header + 4 runs + ""


def _xor():
    from conftest import xor_stream
    return xor_stream(150, 3)


def test_cli_refuses_a_journal_it_was_not_told_to_resume_or_that_differs(
        tmp_path, reference, capsys, monkeypatch):
    prefix = tmp_path / "s"
    args = SMALL + ["--no-timing", "--out", str(prefix)]
    real_record = REAL_RECORD
    calls = {"n": 0}

    def record(self, key, row):
        calls["n"] += 1
        if calls["n"] > 3:
            raise KeyboardInterrupt
        real_record(self, key, row)

    monkeypatch.setattr(journal_module.Journal, "record", record)
    assert main(args) == 130
    monkeypatch.setattr(journal_module.Journal, "record", real_record)
    capsys.readouterr()
    assert main(args) == 2
    assert "already exists" in capsys.readouterr().err
    for change, named in ((["--seed", "1"], "seed: 0 in the journal, 1 now"),
                          (["--permutations", "5"], "permutations: 4 in the journal, 5 now"),
                          (["--rounds", "151"], "data: "),
                          (["--learner", "BOGD"], "configurations: ")):
        assert main(args + change + ["--resume"]) == 2
        err = capsys.readouterr().err
        assert "another configuration" in err and named in err, (change, err)
    before = open(f"{prefix}-journal.jsonl", "rb").read()
    assert main(args + ["--resume", "--jobs", "2"]) == 0    # --jobs may change
    assert "8 runs (3 from s-journal.jsonl)" in capsys.readouterr().out
    assert _outputs(prefix) == reference["small"]
    assert before.count(b"\n") == 4
    # --resume with no journal is a fresh sweep
    assert main(args + ["--resume"]) == 0 and _outputs(prefix) == reference["small"]


def test_a_failed_dask_run_is_raised_after_every_other_run_is_saved(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    X, y = _xor()
    grid = {"learner": ["NORMA"], "lam": [0.05, 0.1]}
    real = sw.run_one

    def flaky(config, X, y, permutation, seed=0, timing=True):
        if dict(config.params)["lam"] == 0.05 and permutation == 1:
            raise ValueError("this run fails")
        return real(config, X, y, permutation, seed, timing)

    monkeypatch.setattr(sw, "run_one", flaky)
    path = tmp_path / "j.jsonl"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        with pytest.raises(ValueError, match="this run fails"):
            sw.sweep(grid, X, y, permutations=3, journal=path, scheduler=cluster.scheduler_address)
    with journal_module.Journal(path, json.loads(path.read_text().splitlines()[0])["config"],
                                resume=True) as j:
        assert len(j) == 5
    monkeypatch.setattr(sw, "run_one", real)
    rows = sw.sweep(grid, X, y, permutations=3, journal=path, resume=True)
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in rows] == \
        [{k: v for k, v in r.items() if k != "seconds"} for r in sw.sweep(grid, X, y,
                                                                           permutations=3)]


# ---------------------------------------------------------------- real signals
def _default_sigint():
    # a command started in the background of a non-interactive shell (`pytest &`, a CI
    # runner) inherits SIGINT ignored, and Python then keeps ignoring it: give the child
    # the default disposition, as a terminal's Ctrl-C finds it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(prefix, *extra):
    cmd = [sys.executable, "-m", "okl.cli", *BIG, "--out", str(prefix), *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_default_sigint)


def _wait_for(journal, k, proc, timeout=120):
    """Poll until the journal holds ``k`` runs; the sweep must still be running."""
    deadline = time.monotonic() + timeout
    while _records(journal) < k:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.002)


KILLS = ["SIGINT", "SIGKILL", "worker"]


@pytest.mark.parametrize("kill", KILLS)
def test_a_joblib_sweep_killed_at_a_random_run_resumes_to_the_same_csv(tmp_path, reference,
                                                                      kill):
    """SIGINT or SIGKILL to the whole job (a Ctrl-C, a time limit), or SIGKILL to one of
    joblib's two worker processes, after a random number of finished runs."""
    k = int(np.random.default_rng([15, KILLS.index(kill)]).integers(1, N_BIG // 3))
    prefix = tmp_path / "s"
    journal = f"{prefix}-journal.jsonl"
    proc = _start(prefix, "--jobs", "2")
    _wait_for(journal, k, proc)
    if kill == "worker":
        import psutil                      # a dependency of distributed (test extras)

        workers = [c for c in psutil.Process(proc.pid).children(recursive=True)
                   if "LokyProcess" in " ".join(c.cmdline())]
        assert len(workers) == 2
        os.kill(workers[0].pid, signal.SIGKILL)
    else:
        os.killpg(proc.pid, getattr(signal, kill))
    out, err = proc.communicate(timeout=60)
    saved = _records(journal)
    expected = {"SIGINT": 130, "SIGKILL": -signal.SIGKILL, "worker": 1}[kill]
    assert proc.returncode == expected, err
    if kill != "SIGKILL":
        assert f"{saved} finished run(s) are saved" in err.decode()
        assert "--resume" in err.decode()
    assert k <= saved < N_BIG and not os.path.exists(f"{prefix}.csv")
    if kill == "SIGKILL":                  # as if killed inside the write of a record
        with open(journal, "ab") as fh:
            fh.write(open(journal, "rb").read().splitlines(keepends=True)[-1][:57])
    assert main(BIG + ["--out", str(prefix), "--resume", "--jobs", "2"]) == 0
    assert _outputs(prefix) == reference["big"]
    assert not os.path.exists(journal)


def test_dask_lost_worker_then_killed_client_resume_to_the_same_csv(tmp_path, reference):
    distributed = pytest.importorskip("distributed")
    rng = np.random.default_rng(150)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        address = cluster.scheduler_address

        def kill_a_busy_worker():
            pids = client.run(os.getpid, on_error="ignore")
            busy = [w for w, keys in client.processing().items() if keys and w in pids]
            assert busy, "no worker was running a task"
            os.kill(pids[busy[0]], signal.SIGKILL)
            return busy[0]

        def settle(lost):
            """Wait until the scheduler has dropped ``lost`` and the nanny's new worker
            has joined, so that the next step meets two live workers."""
            deadline = time.monotonic() + 60
            while True:
                workers = client.scheduler_info()["workers"]
                if lost not in workers and len(workers) == 2:
                    return
                assert time.monotonic() < deadline, workers
                time.sleep(0.05)

        # 1. a worker dies mid-run: Dask reruns its runs, the sweep completes unaided
        prefix = tmp_path / "a"
        proc = _start(prefix, "--dask", address)
        _wait_for(f"{prefix}-journal.jsonl", int(rng.integers(1, N_BIG // 3)), proc)
        lost = kill_a_busy_worker()
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert _outputs(prefix) == reference["big"]
        assert lost not in client.scheduler_info()["workers"]
        settle(lost)                                 # the nanny restarts the worker

        # 2. a worker dies, then the client is killed: --resume finishes the sweep
        prefix = tmp_path / "b"
        journal = f"{prefix}-journal.jsonl"
        proc = _start(prefix, "--dask", address)
        k = int(rng.integers(1, N_BIG // 3))
        _wait_for(journal, k, proc)
        lost = kill_a_busy_worker()
        _wait_for(journal, k + 2, proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=60)
        assert k + 2 <= _records(journal) < N_BIG and not os.path.exists(f"{prefix}.csv")
        settle(lost)
        assert main(BIG + ["--out", str(prefix), "--resume", "--dask", address]) == 0
    assert _outputs(prefix) == reference["big"]
