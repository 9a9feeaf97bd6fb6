"""The reproduction runner (okl.experiments.runner): agreement arithmetic, identical
results for any --jobs, and --resume after SIGINT / SIGKILL at random points."""
import csv
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from okl.experiments import pomdr
from okl.experiments import runner as rn


# ---------------------------------------------------------------- agreement arithmetic
def test_agreement_hand_computed():
    # POMDR on magic04: paper 16.17 +- 0.21 %, okl 16.23 %
    a = rn.agreement(0.1623, 0.1617, 0.0021, floor=0.01)
    assert a["difference"] == pytest.approx(0.0006)
    assert a["spreads"] == pytest.approx(0.0006 / 0.0021)          # 0.2857...
    assert a["tolerance"] == pytest.approx(0.01)                   # 3 * 0.21 < 1 point
    assert a["agrees"] is True
    # 3 spreads wider than the floor: 3 * 0.5 = 1.5 points
    a = rn.agreement(0.18, 0.16, 0.005, floor=0.01)
    assert a["difference"] == pytest.approx(0.02) and a["spreads"] == pytest.approx(4.0)
    assert a["tolerance"] == pytest.approx(0.015) and a["agrees"] is False
    a = rn.agreement(0.174, 0.16, 0.005, floor=0.01)               # 2.8 spreads
    assert a["spreads"] == pytest.approx(2.8) and a["agrees"] is True
    # exactly on the edge agrees (1 point, paper spread 0.1 point)
    assert rn.agreement(0.1725, 0.1625, 0.001, floor=0.01)["agrees"] is True
    assert rn.agreement(0.1726, 0.1625, 0.001, floor=0.01)["agrees"] is False
    # below the paper by more than the tolerance disagrees too
    assert rn.agreement(0.10, 0.1625, 0.001, floor=0.01)["agrees"] is False
    # a zero or missing spread: no spreads, the floor decides
    a = rn.agreement(0.0958, 0.0958 + 0.005, 0.0, floor=0.01)
    assert a["spreads"] is None and a["tolerance"] == 0.01 and a["agrees"] is True
    a = rn.agreement(9000.0, 9234.0, None, floor=0.05 * 9234)
    assert a["tolerance"] == pytest.approx(461.7) and a["agrees"] is True
    assert rn.agreement(8700.0, 9234.0, None, floor=0.05 * 9234)["agrees"] is False
    # a missing figure is not compared
    assert rn.agreement(None, 0.16, 0.01) == {"difference": None, "spreads": None,
                                              "tolerance": None, "agrees": None}
    assert rn.agreement(0.16, None, None)["agrees"] is None


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_agreement_files_merge_per_reproduction(tmp_path):
    rows = [dict(dataset="a9a", learner="FOGD", metric="AMR", data="real", paper=0.16,
                 paper_std=0.001, okl=0.19, okl_std=0.002, **rn.agreement(0.19, 0.16, 0.001,
                                                                          floor=0.01)),
            dict(dataset="a9a", learner="POMDR", metric="AMR", data="real", paper=0.16,
                 paper_std=0.002, okl=0.161, okl_std=0.001, **rn.agreement(0.161, 0.16, 0.002,
                                                                           floor=0.01)),
            dict(dataset="w8a", learner="SkeGD", metric="AMR", data="real", paper=0.03,
                 paper_std=0.001, okl=None, okl_std=None, note="not implemented",
                 **rn.agreement(None, 0.03, 0.001))]
    s = rn.write_agreement(tmp_path, "x-table", rows, seconds=12.34)
    assert (s["rows_compared"], s["agree"], s["disagree"], s["not_compared"]) == (2, 1, 1, 1)
    assert s["max_abs_spreads"] == pytest.approx(30.0)
    rn.write_agreement(tmp_path, "y-table", rows[1:2])
    rn.write_agreement(tmp_path, "x-table", rows[:1])                # replaces x's rows
    detail = _csv(tmp_path / "agreement.csv")
    assert [(r["reproduction"], r["learner"]) for r in detail] == \
        [("y-table", "POMDR"), ("x-table", "FOGD")]
    assert detail[1]["agrees"] == "False" and float(detail[1]["spreads"]) == pytest.approx(30)
    summary = {r["reproduction"]: r for r in _csv(tmp_path / "agreement_summary.csv")}
    assert set(summary) == {"x-table", "y-table"} and summary["x-table"]["agree"] == "0"


def test_format_table_flags_rows_on_real_data():
    class Rep(rn.Reproduction):
        name, stem = "x-table", "x"
        columns = (("budget", "budget", "d"),)

    data = rn.Prepared("a9a", np.zeros((5, 2)), np.ones(5), "file", "a9a (5 x 2)",
                       steps=("file(s) a9a", "features not scaled"))
    rows = []
    for learner, okl_v in (("FOGD", 0.19), ("POMDR", 0.161)):
        r = dict(dataset="a9a", learner=learner, status="ok", okl=okl_v, okl_std=0.001,
                 paper=0.16, paper_std=0.001, budget=150, params="eta=0.1")
        r.update(rn.agreement(okl_v, 0.16, 0.001, floor=0.01))
        rows.append(r)
    rows.append(dict(dataset="a9a", learner="SkeGD", status="not implemented", okl=None,
                     paper=0.17, paper_std=0.002))
    text = rn.format_table(Rep(), data, rows, rn.Options(n_permutations=3))
    lines = text.splitlines()
    assert lines[0].startswith("a9a [real data: a9a (5 x 2); 5 rounds x 3 permutation(s)")
    assert lines[1].strip() == "1. file(s) a9a" and lines[2].strip() == "2. features not scaled"
    fogd = next(line for line in lines if line.lstrip().startswith("FOGD"))
    assert "19.00 +- 0.10" in fogd and "16.00 +- 0.10" in fogd and "+3.00" in fogd
    assert "+30.0" in fogd and "FLAG" in fogd and "150" in fogd and "eta=0.1" in fogd
    pomdr_line = next(line for line in lines if line.lstrip().startswith("POMDR"))
    assert " ok " in pomdr_line and "+1.0" in pomdr_line
    assert "not implemented" in next(line for line in lines if "SkeGD" in line)
    data.source = "stand-in"
    text = rn.format_table(Rep(), data, rows, rn.Options(n_permutations=3))
    assert "FLAG" not in text and "STAND-IN" in text


def test_stream_order_depends_on_seed_dataset_and_permutation_only():
    a, sa = rn.stream_order(0, 2, 5, 100)
    b, sb = rn.stream_order(0, 2, 5, 100)
    assert np.array_equal(a, b) and sa == sb and sorted(a) == list(range(100))
    c, _ = rn.stream_order(0, 2, 5, 100, n_rounds=30)
    assert np.array_equal(c, a[:30])
    assert not np.array_equal(a, rn.stream_order(0, 2, 4, 100)[0])
    assert not np.array_equal(a, rn.stream_order(1, 2, 5, 100)[0])
    assert not np.array_equal(a, rn.stream_order(0, 3, 5, 100)[0])


# ---------------------------------------------------------------- --jobs invariance
@pytest.fixture
def no_data(tmp_path, monkeypatch):
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("OKL_DATA", str(empty))
    return empty


OUTPUTS = ("pomdr_table2.csv", "pomdr_table2_grid.csv", "pomdr_table2_runs.csv",
           "pomdr_table2.txt")


def test_jobs_do_not_change_the_results(no_data, tmp_path):
    kw = dict(quick=True, datasets=["magic04"], n_rounds=600, timing=False, verbose=False,
              learners=["FOGD", "NOGD", "POMDR"])
    one = pomdr.pomdr_table2(tmp_path / "one", n_jobs=1, **kw)
    two = pomdr.pomdr_table2(tmp_path / "two", n_jobs=2, **kw)
    assert one["rows"] == two["rows"]
    for name in OUTPUTS:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    # with --no-timing every file is the same, figures (PNG, SVG) and summaries included;
    # the JSON names its own directory
    files = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "two").iterdir())
    assert {"pomdr_table2_agreement.svg", "agreement_summary.csv"} <= set(files)
    for name in files:
        a = (tmp_path / "one" / name).read_bytes()
        b = (tmp_path / "two" / name).read_bytes()
        if name.endswith(".json"):
            a = a.replace(bytes(tmp_path / "one"), b"OUT")
            b = b.replace(bytes(tmp_path / "two"), b"OUT")
        assert a == b, name
    summary = (tmp_path / "one" / "agreement_summary.csv").read_text().splitlines()
    assert summary[1].endswith(","), summary        # seconds left out


def test_a_journal_is_refused_without_resume_and_checked_with_it(no_data, tmp_path):
    from okl.experiments.journal import Journal

    kw = dict(quick=True, datasets=["magic04"], n_rounds=300, timing=False, verbose=False)
    out = tmp_path / "out"
    out.mkdir()
    Journal(out / "pomdr_table2-journal.jsonl", {"something": "else"}).close()
    with pytest.raises(ValueError, match="resume"):
        pomdr.pomdr_table2(out, **kw)
    with pytest.raises(ValueError, match="another configuration"):
        pomdr.pomdr_table2(out, resume=True, **kw)


# ---------------------------------------------------------------- --resume after a kill
ARGS = ["reproduce", "pomdr-table2", "--quick", "--datasets", "magic04", "--rounds", "3000",
        "--learners", "FOGD", "POMDR", "--no-timing", "--no-progress"]


def _cli(out, *extra, env):
    return [sys.executable, "-m", "okl.cli", *ARGS, "--out", str(out), *extra]


def _journal_runs(path) -> int:
    try:
        return max(path.read_bytes().count(b"\n") - 2, 0)      # header and data record
    except FileNotFoundError:
        return 0


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    empty = tmp_path_factory.mktemp("no-data")
    env = {**os.environ, "OKL_DATA": str(empty)}
    out = tmp_path_factory.mktemp("whole")
    subprocess.run(_cli(out, env=env), env=env, check=True, capture_output=True, timeout=300)
    return env, out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_resume_after_a_kill_gives_the_uninterrupted_rows(uninterrupted, tmp_path, sig):
    env, whole = uninterrupted
    total = len(list(csv.DictReader(open(whole / "pomdr_table2_runs.csv"))))   # 18 runs
    rng = np.random.default_rng(int(sig) * 7919 + int(time.time()))
    out = tmp_path / "out"
    journal = out / "pomdr_table2-journal.jsonl"
    for attempt in range(2):             # kill twice at random points
        stop_at = int(rng.integers(1, total - 4))
        proc = subprocess.Popen(_cli(out, *(["--resume"] if attempt else []), env=env), env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 240
        while _journal_runs(journal) < stop_at and proc.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        if sig == signal.SIGINT and proc.returncode == 130:
            assert b"--resume" in err and str(journal).encode() in err
        if proc.returncode == 0:         # it finished before the signal: nothing to resume
            break
    done_before = _journal_runs(journal)
    run = subprocess.run(_cli(out, "--resume", env=env), env=env, capture_output=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert not journal.exists()
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name
    runs = list(csv.DictReader(open(out / "pomdr_table2_runs.csv")))
    keys = [(r["learner"], r["params"], r["permutation"]) for r in runs]
    assert len(keys) == len(set(keys)) == total       # none twice, none missing
    assert done_before <= total


def test_dask_gives_the_rows_of_one_process(no_data, tmp_path):
    distributed = pytest.importorskip("distributed")
    kw = dict(quick=True, datasets=["magic04"], n_rounds=300, timing=False, verbose=False,
              learners=["FOGD", "POMDR"])
    local = pomdr.pomdr_table2(tmp_path / "local", **kw)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = pomdr.pomdr_table2(tmp_path / "dask", scheduler=client, **kw)
    assert remote["rows"] == local["rows"]
    for name in OUTPUTS:
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


# ---------------------------------------------------------------- the command line
def test_cli_options_reach_the_tables_and_are_refused_elsewhere(no_data, tmp_path, capsys):
    from okl.cli import main

    out = tmp_path / "out"
    assert main(["reproduce", "pomdr-table2", "--quick", "--datasets", "mushrooms",
                 "--learners", "POMDR", "--permutations", "1", "--rounds", "200",
                 "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    learners = [line.split()[0] for line in printed.splitlines() if line.startswith("  ")
                and not line.lstrip()[0].isdigit()]
    assert "mushrooms [STAND-IN" in printed and learners == ["learner", "POMDR"]
    rows = _csv(out / "pomdr_table2.csv")
    assert [(r["dataset"], r["learner"], r["n_rounds"]) for r in rows] == \
        [("mushrooms", "POMDR", "200")]
    assert main(["reproduce", "norma-fig2", "--quick", "--datasets", "x",
                 "--out", str(tmp_path / "n")]) == 2
    assert "does not take datasets" in capsys.readouterr().err
    assert main(["reproduce", "--quick", "--jobs", "2", "--out", str(tmp_path / "q")]) == 2
    assert "need a NAME" in capsys.readouterr().err
    assert main(["reproduce", "pomdr-table2", "--quick", "--datasets", "cifar",
                 "--out", str(tmp_path / "c")]) == 2
    assert "unknown datasets" in capsys.readouterr().err
