"""Sweeps: grid expansion, permutations, joblib and Dask giving the same rows, the CLI."""
import csv
import json

import numpy as np
import pytest

import okl
from conftest import xor_stream
from okl.cli import main
from okl.experiments import sweep as sw

GRID = {"learner": ["Perceptron", "NORMA"], "lam": [0.01, 0.2], "sigma": [0.8, 2.0]}


def _without_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_configurations_drop_what_a_learner_does_not_take():
    configs = sw.configurations(GRID)
    # the Perceptron ignores lam: 2 sigmas; NORMA: 2 lams x 2 sigmas
    assert [c.learner for c in configs] == ["Perceptron"] * 2 + ["NORMA"] * 4
    assert {dict(c.params).get("lam") for c in configs if c.learner == "Perceptron"} == {None}
    assert sorted((dict(c.params)["lam"], dict(c.kernel_params)["sigma"])
                  for c in configs if c.learner == "NORMA") == [
        (0.01, 0.8), (0.01, 2.0), (0.2, 0.8), (0.2, 2.0)]
    built = configs[-1].build(seed=3)
    assert isinstance(built, okl.NORMA) and built.kernel.sigma == 2.0 and built.lam == 0.2


def test_bad_grids_fail_before_running():
    with pytest.raises(ValueError, match="unknown learner 'Bogus'"):
        sw.configurations({"learner": ["Bogus"]})
    with pytest.raises(ValueError, match="no learner of the grid takes"):
        sw.configurations({"learner": ["Perceptron"], "lamda": [1.0]})
    with pytest.raises(ValueError, match="lam"):          # the constructor's own check
        sw.configurations({"learner": ["NORMA"], "lam": [-1.0]})
    with pytest.raises(ValueError, match="unknown kernel"):
        sw.configurations({"learner": ["NORMA"], "kernel": ["rbf"]})
    X, y = xor_stream(20, 2)
    with pytest.raises(ValueError, match="permutations"):
        sw.sweep(GRID, X, y, permutations=0)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sw.sweep(GRID, X, y)


def test_a_row_is_the_learner_on_its_permutation():
    X, y = xor_stream(300, 3, seed=2)
    rows = sw.sweep({"learner": ["Perceptron"], "sigma": [1.0]}, X, y, permutations=3, seed=7)
    orders = [np.random.default_rng([7, p]).permutation(300) for p in range(3)]
    assert all(sorted(o) == list(range(300)) for o in orders)
    assert len({tuple(o) for o in orders}) == 3
    for p, (row, order) in enumerate(zip(rows, orders)):
        assert row["permutation"] == p
        trace = okl.Perceptron(kernel=okl.Gaussian(1.0)).run(X[order], y[order])
        assert row["mistake_rate"] == trace.mistake_rate
        assert row["final_budget"] == trace.final_budget


def test_summary_is_mean_and_sample_std_over_permutations():
    X, y = xor_stream(200, 3, seed=3)
    rows = sw.sweep(GRID, X, y, permutations=4)
    summary = sw.summarize(rows)
    assert len(summary) == 6 and all(s["permutations"] == 4 for s in summary)
    for s in summary:
        mine = [r["mistake_rate"] for r in rows
                if all(r.get(k) == s.get(k) for k in ("learner", "lam", "sigma"))]
        assert len(mine) == 4
        assert s["mistake_rate_mean"] == pytest.approx(np.mean(mine), rel=1e-12)
        assert s["mistake_rate_std"] == pytest.approx(np.std(mine, ddof=1), rel=1e-12)
    # the rank of each configuration by mean mistake rate (1 = best, ties averaged)
    from scipy.stats import rankdata

    assert [s["rank"] for s in summary] == rankdata(
        [s["mistake_rate_mean"] for s in summary]).tolist()
    assert list(summary[0]).index("rank") == list(summary[0]).index("mistake_rate_std") + 1


def test_joblib_processes_give_the_same_rows():
    X, y = xor_stream(200, 3, seed=4)
    one = sw.sweep(GRID, X, y, permutations=2, seed=1)
    two = sw.sweep(GRID, X, y, permutations=2, seed=1, n_jobs=2)
    assert _without_time(one) == _without_time(two)


def test_dask_local_cluster_gives_the_same_rows():
    import distributed  # installed by the test extras
    X, y = xor_stream(200, 3, seed=5)
    local = sw.sweep(GRID, X, y, permutations=2, seed=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        remote = sw.sweep(GRID, X, y, permutations=2, seed=2,
                          scheduler=cluster.scheduler_address)
    assert _without_time(remote) == _without_time(local)


def test_cli_sweep_writes_tidy_tables(tmp_path, capsys):
    out = tmp_path / "res" / "grid"
    code = main(["sweep", "--learner", "Perceptron", "--learner", "NORMA", "-p", "lam=0.01,0.2",
                 "-p", "sigma=1", "--permutations", "2", "--rounds", "300", "--features", "3",
                 "--out", str(out), "--no-progress"])
    assert code == 0
    text = capsys.readouterr().out
    assert "6 runs" in text and "mistake_rate_mean" in text
    with open(f"{out}.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6 and list(rows[0])[:5] == ["dataset", "learner", "kernel", "sigma",
                                                    "lam"]
    assert {r["dataset"] for r in rows} == {"xor"}          # --data's default
    summary = json.loads((tmp_path / "res" / "grid-summary.json").read_text())
    assert [s["learner"] for s in summary] == ["Perceptron", "NORMA", "NORMA"]
    X, y = xor_stream(300, 3, seed=0)
    direct = sw.summarize(sw.sweep({"learner": ["NORMA"], "lam": [0.2], "sigma": [1.0]},
                                   X, y, permutations=2))
    assert summary[2]["mistake_rate_mean"] == direct[0]["mistake_rate_mean"]


def test_a_sweep_over_several_datasets_names_each_row(tmp_path, capsys):
    """``--data`` repeated: the grid runs on each stream, every row names its dataset,
    and permutation p of a dataset is one order for every learner (so runs pair)."""
    out = tmp_path / "two"
    argv = ["sweep", "--learner", "Perceptron", "--learner", "NORMA", "-p", "tau=30",
            "--data", "xor", "--data", "drifting", "--permutations", "2", "--rounds", "200",
            "--features", "3", "--seed", "4", "--out", str(out), "--no-progress",
            "--no-timing"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "8 runs on synthetic xor stream" in text and "drifting Gaussian mixture" in text
    with open(f"{out}.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["dataset"], r["learner"], r["permutation"]) for r in rows] == [
        (d, learner, str(p)) for d in ("xor", "drifting") for learner in ("Perceptron", "NORMA")
        for p in range(2)]
    assert not list(tmp_path.glob("*journal*"))
    X, y = xor_stream(200, 3, seed=4)
    direct = sw.sweep({"learner": ["Perceptron", "NORMA"], "tau": [30], "sigma": [1.0]},
                      X, y, permutations=2, seed=4, timing=False, dataset="xor")
    assert [str(r["mistake_rate"]) for r in direct] == [r["mistake_rate"] for r in rows[:4]]
    # both learners ran permutation p on the same order: sweep_order(seed, p, T)
    for p in range(2):
        order = np.random.default_rng([4, p]).permutation(200)
        perceptron = okl.Perceptron(kernel=okl.Gaussian(1.0)).run(X[order], y[order])
        assert rows[p]["mistake_rate"] == str(perceptron.mistake_rate)
        seed = int(np.random.default_rng([4, p, 1]).integers(2 ** 31))
        norma = okl.NORMA(kernel=okl.Gaussian(1.0), tau=30, seed=seed).run(X[order], y[order])
        assert rows[2 + p]["mistake_rate"] == str(norma.mistake_rate)
    summary = json.loads((tmp_path / "two-summary.json").read_text())
    assert [(s["dataset"], s["learner"]) for s in summary] == [
        ("xor", "Perceptron"), ("xor", "NORMA"), ("drifting", "Perceptron"),
        ("drifting", "NORMA")]
    # ranks within each dataset, and their average over the datasets
    for ds in ("xor", "drifting"):
        mine = [s for s in summary if s["dataset"] == ds]
        low = min(mine, key=lambda s: s["mistake_rate_mean"])
        assert sorted(s["rank"] for s in mine) in ([1.0, 2.0], [1.5, 1.5])
        assert low["rank"] == min(s["rank"] for s in mine)
    average = {n: np.mean([s["rank"] for s in summary if s["learner"] == n])
               for n in ("Perceptron", "NORMA")}
    assert (f"average rank over the datasets (1 = best): Perceptron {average['Perceptron']:.2f}, "
            f"NORMA {average['NORMA']:.2f}") in text


def test_an_interrupted_sweep_over_several_datasets_resumes(tmp_path, monkeypatch, capsys):
    """One journal per dataset: interrupted in the second dataset, ``--resume`` runs only
    what is missing and writes the files of an uninterrupted sweep, byte for byte."""
    argv = ["sweep", "--learner", "Perceptron", "--data", "xor", "--data", "drifting",
            "--permutations", "2", "--rounds", "150", "--features", "2", "--no-progress",
            "--no-timing"]
    assert main(argv + ["--out", str(tmp_path / "whole")]) == 0
    real, calls = sw.sweep, []

    def interrupted(*args, **kwargs):
        calls.append(kwargs["dataset"])
        if kwargs["dataset"] == "drifting" and not kwargs["resume"]:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(sw, "sweep", interrupted)
    part = tmp_path / "part"
    capsys.readouterr()
    assert main(argv + ["--out", str(part)]) == 130
    err = capsys.readouterr().err
    assert "2 finished run(s) are saved in" in err and "part-journal-1.jsonl" in err
    assert main(argv + ["--out", str(part), "--resume"]) == 0
    assert "4 runs (2 from 2 journals)" in capsys.readouterr().out
    assert calls == ["xor", "drifting", "xor", "drifting"]
    for suffix in (".csv", "-summary.csv", "-summary.json"):
        assert (tmp_path / f"part{suffix}").read_bytes() == \
            (tmp_path / f"whole{suffix}").read_bytes()
    assert not list(tmp_path.glob("*journal*"))


def test_cli_run_any_learner_with_parameters(capsys):
    assert main(["run", "--learner", "norma", "-p", "lam=0.05", "-p", "tau=50",
                 "--rounds", "400"]) == 0
    assert "tau=50" in capsys.readouterr().out
    assert main(["run", "--learner", "Perceptron", "-p", "lam=0.1", "--rounds", "10"]) == 2
    assert "takes no parameter(s) ['lam']" in capsys.readouterr().err
    assert main(["run", "--data", "no-such-thing", "--rounds", "10"]) == 2
    assert "neither a file" in capsys.readouterr().err


def test_trace_save_load_and_cli_plot(tmp_path, capsys):
    a, b = tmp_path / "perceptron.npz", tmp_path / "norma.npz"
    assert main(["run", "--rounds", "300", "--features", "3", "--trace", str(a)]) == 0
    assert main(["run", "--learner", "NORMA", "-p", "tau=40", "--rounds", "300",
                 "--features", "3", "--trace", str(b)]) == 0
    X, y = xor_stream(300, 3, seed=0)
    direct = okl.NORMA(kernel=okl.Gaussian(1.0), tau=40, seed=0).run(X, y)
    saved = okl.Trace.load(b)
    np.testing.assert_array_equal(saved.scores, direct.scores)
    np.testing.assert_array_equal(saved.mistakes, direct.mistakes)
    np.testing.assert_array_equal(saved.budget, direct.budget)
    assert saved.extras == direct.extras and saved.learner == direct.learner
    capsys.readouterr()
    assert main(["plot", str(a), str(b), "--out", str(tmp_path / "fig")]) == 0
    for stem in ("fig-mistake-rate", "fig-budget"):
        for ext in (".png", ".svg"):
            assert (tmp_path / (stem + ext)).stat().st_size > 1000
    (tmp_path / "bad.npz").write_bytes(b"not a trace")
    assert main(["plot", str(tmp_path / "bad.npz")]) == 2
    np.savez(tmp_path / "other.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="not a trace written by Trace.save"):
        okl.Trace.load(tmp_path / "other.npz")


def test_cli_plot_of_a_sweep(tmp_path):
    out = tmp_path / "grid"
    assert main(["sweep", "--learner", "Perceptron", "--learner", "NORMA", "-p", "tau=20,80",
                 "--rounds", "200", "--features", "3", "--out", str(out), "--no-progress"]) == 0
    assert main(["plot", f"{out}.csv", "--out", str(tmp_path / "p")]) == 0
    assert (tmp_path / "p-time-vs-budget.svg").exists()
    assert main(["plot", f"{out}-summary.json"]) == 2


def test_cli_reproduce_quick_runs_every_experiment(tmp_path, capsys, monkeypatch):
    from okl import experiments

    calls = []

    def fake(name):
        def run(out_dir, quick=False, seed=0):
            calls.append((name, str(out_dir), quick, seed))
            return {"name": name}
        return run

    monkeypatch.setattr(experiments, "available", lambda: {"b": fake("b"), "a": fake("a")})
    assert main(["reproduce"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["a", "b"]   # listing only
    assert calls == []
    assert main(["reproduce", "--quick", "--out", str(tmp_path), "--seed", "3"]) == 0
    assert calls == [("a", str(tmp_path / "a"), True, 3), ("b", str(tmp_path / "b"), True, 3)]
    calls.clear()
    assert main(["reproduce", "b", "--out", str(tmp_path)]) == 0
    assert calls == [("b", str(tmp_path), False, 0)]


def test_a_dispatching_learner_takes_its_implementations_parameters(capsys):
    """PKAWV(basis=...) has one parameter set per basis: M only for taylor, mu only for
    nystrom; a regressor's run reports its mean squared loss."""
    configs = sw.configurations({"learner": ["PKAWV"], "basis": ["taylor", "nystrom"],
                                 "M": [2], "mu": [0.5]})
    assert [(dict(c.params)["basis"], sorted(dict(c.params))) for c in configs] == [
        ("taylor", ["M", "basis"]), ("nystrom", ["basis", "mu"])]
    built = configs[1].build(seed=4)
    assert isinstance(built, okl.PKAWV) and built.mu == 0.5 and built.seed == 4
    assert sw.parameter_names(okl.PKAWV, {"basis": "nystrom"}) == type(built)._param_names
    assert main(["run", "--learner", "PKAWV", "-p", "basis='nystrom'", "--rounds", "300",
                 "--features", "3"]) == 0
    out = capsys.readouterr().out
    assert "mean squared loss" in out and "basis='nystrom'" in out
    X, y = xor_stream(300, 3, seed=0)
    direct = okl.PKAWV(basis="nystrom", kernel=okl.Gaussian(1.0), seed=0).run(X, y)
    assert f"{direct.average_loss:.4f}" in out


def test_cli_names_a_missing_dataset_without_a_traceback(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OKL_DATA", str(tmp_path))
    assert main(["run", "--data", "a9a", "--rounds", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("okl: error: dataset 'a9a' is not in") and "OKL_DATA" in err
