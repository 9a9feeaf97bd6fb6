"""Tables 2 and 3 of Liao et al., Ahpatron (AAAI 2024): ahpatron-table2, ahpatron-table3."""
import bz2
import csv
import json
import lzma
import time

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl import experiments
from okl.experiments import ahpatron as exp
from okl.learners.features import FOGD, NOGD

IMPLEMENTED = ("Projectron++", "Projectron", "BOGD++", "Ahpatron", "AVP", "BOGD", "Forgetron",
               "RBP", "FOGD", "NOGD")
ALL_LEARNERS = set(exp.TABLE2_LEARNERS) | set(exp.EXTRA_LEARNERS)


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """An empty data directory: every dataset is a stand-in, whatever ~/.okl holds."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("OKL_DATA", str(empty))
    return empty


@pytest.fixture(scope="module")
def quick2(tmp_path_factory):
    """One quick run of Table 2 on stand-ins, shared by the checks below."""
    mp = pytest.MonkeyPatch()
    empty = tmp_path_factory.mktemp("no-data")
    mp.setenv("OKL_DATA", str(empty))
    out = tmp_path_factory.mktemp("table2")
    start = time.perf_counter()
    summary = exp.ahpatron_table2(out, quick=True, seed=0, verbose=False)
    elapsed = time.perf_counter() - start
    mp.undo()
    return out, summary, elapsed


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _write_libsvm(path, X, y, opener=open):
    lines = []
    for row, label in zip(X, y):
        feats = " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row) if v != 0)
        lines.append(f"{label:g} {feats}\n")
    with opener(path, "wt") as fh:
        fh.writelines(lines)


def _binary_rows(n, d, seed, ones=14):
    """Rows with ``ones`` binary features (an a9a-like coding) and a learnable label."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    for i in range(n):
        X[i, rng.choice(d, size=ones, replace=False)] = 1.0
    y = np.where(X[:, :20].sum(axis=1) >= 3, 1, -1)
    return X, y


def test_registered():
    assert experiments.EXPERIMENTS["ahpatron-table2"] is exp.ahpatron_table2
    assert experiments.EXPERIMENTS["ahpatron-table3"] is exp.ahpatron_table3


def test_paper_constants():
    assert list(exp.PAPER_DATASETS) == ["phishing", "SUSY", "ijcnn1", "cod-rna", "w8a", "a9a"]
    budgets = {k: v["B"] for k, v in exp.PAPER_DATASETS.items()}
    assert budgets == {"phishing": 400, "SUSY": 400, "ijcnn1": 600, "cod-rna": 600,
                       "w8a": 300, "a9a": 150}
    assert {k: v["sigma"] for k, v in exp.PAPER_DATASETS.items() if v["sigma"] != 1} == \
        {"w8a": 2.0, "a9a": 2.0}
    for ds, table in exp.PAPER_TABLE2.items():
        assert set(table) == set(exp.TABLE2_LEARNERS)
        assert table["Ahpatron"][2] == budgets[ds]
    assert set(exp.PAPER_TABLE3) == set(exp.PAPER_DATASETS)
    assert exp.AHPATRON_EPS == (0.5, 0.6, 0.7, 0.8, 0.9)
    assert exp.PROJECTRON_ETA == (0.1, 0.9)
    T = 10_000
    steps = [p["eta"] for p in exp.learner_grid("BOGD++", T)]
    assert np.allclose(steps, [10.0 ** k / 100.0 for k in range(-3, 4)])


def test_learners_follow_the_protocol():
    a = exp.make_learner("Ahpatron", {"eps": 0.8}, sigma=2.0, B=150)
    assert isinstance(a, okl.Ahpatron) and a.B == 150 and a.eps == 0.8 and a.eta == 0.0005
    assert a.U_ == pytest.approx(np.sqrt(150) / 2) and a.lam_ == pytest.approx(a.U_ / np.sqrt(600))
    assert a.kernel.sigma == 2.0
    p = exp.make_learner("Projectron++", {"eta": 0.9}, sigma=1.0, B=400)
    assert isinstance(p, okl.ProjectronPP) and p.eta == 0.9 and p.margin_update == "paper"
    assert isinstance(exp.make_learner("BOGD++", {"eta": 0.1}, sigma=1.0, B=400), okl.BOGDPP)
    f = exp.make_learner("FOGD", {"eta": 0.1, "D": 300}, sigma=2.0, B=150, seed=3)
    assert isinstance(f, FOGD) and f.D == 300 and f.eta == 0.1 and f.kernel.sigma == 2.0
    n = exp.make_learner("NOGD", {"eta": 0.1}, sigma=2.0, B=150)
    assert isinstance(n, NOGD) and n.B == 150 and n.k_ == 30 and n.loss == "hinge"
    assert exp.FOGD_FEATURES == {"phishing": 2000, "SUSY": 2000, "ijcnn1": 2000,
                                 "cod-rna": 2000, "w8a": 300, "a9a": 300}
    assert exp.NOT_IMPLEMENTED == ("POMDR",)
    for name in exp.NOT_IMPLEMENTED:
        with pytest.raises(ValueError):
            exp.make_learner(name, {}, sigma=1.0, B=400)


@pytest.mark.parametrize("name", list(exp.PAPER_DATASETS))
def test_stand_ins_have_the_papers_shape(name):
    X, y, text = exp.stand_in(name, n=600)
    assert X.shape == (600, exp.PAPER_DATASETS[name]["d"])
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert "stand-in" in text
    X2, y2, _ = exp.stand_in(name, n=600)       # fixed data, whatever the experiment's seed
    assert np.array_equal(y, y2)
    assert (abs(X - X2)).max() == 0


def test_quick_table2_files_and_rows(quick2):
    out, summary, elapsed = quick2
    assert elapsed < 60      # quick mode: well under a minute (FOGD at D = 2000 is most of it)
    for name in ("ahpatron_table2.csv", "ahpatron_table2.json", "ahpatron_table2.txt",
                 "ahpatron_table2_grid.csv", "ahpatron_table2.png", "ahpatron_table2.svg"):
        assert (out / name).exists() and (out / name).stat().st_size > 0, name
    on_disk = json.loads((out / "ahpatron_table2.json").read_text())
    assert on_disk["rows"] == json.loads(json.dumps(summary["rows"]))
    assert summary["quick"] and summary["n_permutations"] == 2
    rows = _csv(out / "ahpatron_table2.csv")
    assert {r["dataset"] for r in rows} == set(exp.QUICK_DATASETS)
    for ds in exp.QUICK_DATASETS:
        mine = {r["learner"]: r for r in rows if r["dataset"] == ds}
        assert set(mine) == ALL_LEARNERS, ds
        B = exp.PAPER_DATASETS[ds]["B"]
        for name in exp.NOT_IMPLEMENTED:
            assert mine[name]["status"] == "not implemented" and mine[name]["amr_mean"] == ""
            assert mine[name]["paper_amr"] != ""       # the paper's numbers stay visible
        for name in IMPLEMENTED:
            r = mine[name]
            assert r["status"] == "ok", (ds, name)
            assert 0.0 <= float(r["amr_mean"]) <= 1.0
            assert 0.0 <= float(r["amr_std"]) <= 1.0
            assert 0 < int(r["n_rounds"]) <= exp.QUICK_ROUNDS
            assert int(r["budget"]) >= 1 and float(r["seconds_mean"]) >= 0.0
            assert int(r["n_permutations"]) == 2
            assert (r["in_paper"] == "True") == (name in exp.TABLE2_LEARNERS)
            if name in exp.BUDGETED:
                assert int(r["budget"]) <= B, (ds, name)
        assert int(mine["Ahpatron"]["budget"]) == B        # the budget is reached and kept
        assert int(mine["FOGD"]["budget"]) == exp.FOGD_FEATURES[ds]
        assert float(mine["Ahpatron"]["eps"]) in exp.AHPATRON_EPS
        assert float(mine["Projectron"]["params"].split("=")[1]) in exp.PROJECTRON_ETA
        assert float(mine["AVP"]["eps"]) == float(mine["Ahpatron"]["eps"])


def test_quick_table2_selects_the_best_grid_point(quick2):
    out, summary, _ = quick2
    grid = _csv(out / "ahpatron_table2_grid.csv")
    rows = {(r["dataset"], r["learner"]): r for r in _csv(out / "ahpatron_table2.csv")}
    sizes = {"Ahpatron": 5, "Projectron": 2, "Projectron++": 2, "BOGD++": 7, "BOGD": 7,
             "Forgetron": 1, "RBP": 1, "FOGD": 7, "NOGD": 7}
    for ds in exp.QUICK_DATASETS:
        for name, size in sizes.items():
            points = [g for g in grid if g["dataset"] == ds and g["learner"] == name]
            assert len(points) == size
            chosen = [g for g in points if g["selected"] == "True"]
            assert len(chosen) == 1
            assert float(chosen[0]["amr_mean"]) == min(float(g["amr_mean"]) for g in points)
            assert chosen[0]["params"] == rows[ds, name]["params"]
            assert float(chosen[0]["amr_mean"]) == float(rows[ds, name]["amr_mean"])
        detail = summary["detail"][ds]["learners"]["Ahpatron"]
        assert [g["params"]["eps"] for g in detail["grid"]] == list(exp.AHPATRON_EPS)


def test_quick_table2_labels_stand_ins(quick2):
    out, summary, _ = quick2
    assert summary["stand_ins"] == list(exp.QUICK_DATASETS)
    assert "STAND-IN" in summary["data_note"]
    assert summary["not_implemented"] == list(exp.NOT_IMPLEMENTED)
    assert all(r["source"] == "stand-in" for r in _csv(out / "ahpatron_table2.csv"))
    text = (out / "ahpatron_table2.txt").read_text()
    assert text == summary["text"] + "\n"
    for ds in exp.QUICK_DATASETS:
        assert f"{ds} [STAND-IN" in text
    assert "not implemented" in text and "POMDR" in text
    for ds in exp.QUICK_DATASETS:
        info = summary["detail"][ds]["info"]
        assert info["stand_in"] and info["source"] == "stand-in" and info["files"] == []


def test_quick_table2_is_reproducible(no_data, tmp_path):
    kw = dict(quick=True, seed=3, datasets=["a9a"], n_rounds=400,
              learners=["Ahpatron", "BOGD++"], verbose=False)
    a = exp.ahpatron_table2(tmp_path / "a", **kw)
    b = exp.ahpatron_table2(tmp_path / "b", **kw)
    key = ("learner", "amr_mean", "amr_std", "budget", "params")
    rows_a = [tuple(r[k] for k in key) for r in a["rows"]]
    assert rows_a == [tuple(r[k] for k in key) for r in b["rows"]]
    # learners left out by the caller are absent; the unimplemented ones are still listed
    assert {r["learner"] for r in a["rows"]} == {"Ahpatron", "BOGD++"} | set(exp.NOT_IMPLEMENTED)
    with pytest.raises(ValueError, match="POMDR"):
        exp.ahpatron_table2(tmp_path / "c", quick=True, learners=["POMDR"], verbose=False)
    with pytest.raises(ValueError, match="unknown datasets"):
        exp.ahpatron_table2(tmp_path / "c", quick=True, datasets=["mnist"], verbose=False)


def test_quick_table3(no_data, tmp_path, capsys):
    start = time.perf_counter()
    summary = exp.ahpatron_table3(tmp_path, quick=True, seed=0)
    assert time.perf_counter() - start < 15
    printed = capsys.readouterr().out
    assert "|N_T|" in printed and "STAND-INS" in printed
    for suffix in ("csv", "json", "txt"):
        assert (tmp_path / f"ahpatron_table3.{suffix}").stat().st_size > 0
    rows = _csv(tmp_path / "ahpatron_table3.csv")
    assert [(r["dataset"], r["learner"]) for r in rows] == \
        [(ds, name) for ds in exp.QUICK_DATASETS for name in ("Ahpatron", "AVP")]
    for r in rows:
        assert r["source"] == "stand-in" and r["status"] == "ok"
        T = int(r["n_rounds"])
        assert 0 <= float(r["n_margin_mean"]) <= T
        assert float(r["n_margin_std"]) >= 0 and 0 <= float(r["amr_mean"]) <= 1
        assert float(r["eps"]) in exp.AHPATRON_EPS
    for ds in exp.QUICK_DATASETS:
        ahp, avp = [r for r in rows if r["dataset"] == ds]
        assert ahp["eps"] == avp["eps"]
        assert int(ahp["paper_n_margin"]) == exp.PAPER_TABLE3[ds]
        assert int(ahp["budget"]) <= exp.PAPER_DATASETS[ds]["B"]
        assert int(avp["budget"]) > int(ahp["budget"])     # AVP keeps every update
    # the same permutations and grid as Table 2 give the same eps and |N_T|
    t2 = exp.ahpatron_table2(tmp_path / "t2", quick=True, seed=0, learners=["Ahpatron"],
                             verbose=False)
    for ds in exp.QUICK_DATASETS:
        sel2 = t2["detail"][ds]["learners"]["Ahpatron"]["selected"]
        assert summary["detail"][ds]["learners"]["Ahpatron"]["selected"] == sel2


def test_real_file_is_used(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    X, y = _binary_rows(240, 123, seed=1)
    _write_libsvm(data / "a9a", X, y)
    monkeypatch.setenv("OKL_DATA", str(data))
    assert exp.data_dir() == data
    assert exp.find_data("a9a") == [data / "a9a"]
    assert exp.find_data("phishing") is None
    summary = exp.ahpatron_table2(tmp_path / "out", quick=True, seed=0, verbose=False,
                                  learners=["Ahpatron", "Projectron"])
    info = summary["detail"]["a9a"]["info"]
    assert info["source"] == "file" and not info["stand_in"]
    assert info["files"] == [str(data / "a9a")]
    assert info["n_available"] == 240 and info["n_features"] == 123 and info["n_rounds"] == 240
    assert summary["stand_ins"] == ["phishing"]            # the other quick dataset
    rows = _csv(tmp_path / "out" / "ahpatron_table2.csv")
    assert {r["source"] for r in rows if r["dataset"] == "a9a"} == {"file"}
    assert {r["source"] for r in rows if r["dataset"] == "phishing"} == {"stand-in"}
    assert "a9a [real data: LIBSVM file(s) a9a" in summary["text"]
    # the numbers are those of the file's rows, in the experiment's permutations
    rng = np.random.default_rng([0, list(exp.PAPER_DATASETS).index("a9a")])
    losses = []
    for _ in range(2):
        order = rng.permutation(240)
        seed = int(rng.integers(2 ** 31))
        learner = okl.Ahpatron(okl.Gaussian(2.0), B=150, eps=float(
            [r for r in rows if r["dataset"] == "a9a" and r["learner"] == "Ahpatron"][0]["eps"]),
            seed=seed)
        losses.append(learner.run(sp.csr_matrix(X[order]), y[order]).mistake_rate)
    a9a_ahp = [r for r in rows if r["dataset"] == "a9a" and r["learner"] == "Ahpatron"][0]
    assert float(a9a_ahp["amr_mean"]) == pytest.approx(np.mean(losses))


def test_file_names_parts_and_compression(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    X1, y1 = _binary_rows(50, 123, seed=2)
    X2, y2 = _binary_rows(30, 122, seed=3)          # a9a.t: one column fewer, as in LIBSVM
    _write_libsvm(data / "A9A.txt", X1, y1)
    _write_libsvm(data / "a9a.t.bz2", X2, y2, opener=bz2.open)
    found = exp.find_data("a9a", data)
    assert [p.name for p in found] == ["A9A.txt", "a9a.t.bz2"]      # both parts, any case
    X, y = exp.load_dataset("a9a", found)
    assert X.shape == (80, 123) and sp.issparse(X)
    assert np.array_equal(y, np.concatenate([y1, y2]))
    # ijcnn1 = ijcnn1 + ijcnn1.t (the paper's 141,691); dense features are kept dense
    rng = np.random.default_rng(4)
    Xd = rng.uniform(-1, 1, size=(40, 22))
    yd = np.where(Xd[:, 0] > 0, 1, -1)
    _write_libsvm(data / "ijcnn1", Xd[:25], yd[:25])
    assert [p.name for p in exp.find_data("ijcnn1", data)] == ["ijcnn1"]
    _write_libsvm(data / "ijcnn1.t", Xd[25:], yd[25:])
    X, y = exp.load_dataset("ijcnn1", exp.find_data("ijcnn1", data))
    assert isinstance(X, np.ndarray) and X.shape == (40, 22)
    assert np.allclose(X, Xd, atol=1e-5) and np.array_equal(y, yd)
    # cod-rna: LIBSVM's cod-rna.t (271,617 rows) is preferred to cod-rna
    _write_libsvm(data / "cod-rna", Xd[:10, :8], yd[:10])
    assert [p.name for p in exp.find_data("cod-rna", data)] == ["cod-rna"]
    _write_libsvm(data / "cod-rna.t", Xd[:12, :8], yd[:12])
    assert [p.name for p in exp.find_data("cod-rna", data)] == ["cod-rna.t"]
    # SUSY: .xz, labels {0, 1}, subsampled uniformly to the paper's size (here 60)
    Xs = rng.normal(size=(200, 18))
    ys = (Xs[:, 0] > 0).astype(int)
    _write_libsvm(data / "SUSY.xz", Xs, ys, opener=lzma.open)
    monkeypatch.setitem(exp._SUBSAMPLE, "SUSY", 60)
    X, y = exp.load_dataset("SUSY", exp.find_data("SUSY", data), np.random.default_rng(0))
    assert X.shape == (60, 18) and set(np.unique(y)) == {-1.0, 1.0}
    # each drawn row is a row of the file, with its label
    for row, label in zip(X, y):
        i = int(np.argmin(np.abs(Xs - row).sum(axis=1)))
        assert np.allclose(Xs[i], row, atol=1e-5) and label == (1.0 if ys[i] else -1.0)
    # and the experiment reads all of them from OKL_DATA
    monkeypatch.setenv("OKL_DATA", str(data))
    s = exp.ahpatron_table3(tmp_path / "out", datasets=["SUSY", "cod-rna"], n_permutations=1,
                            verbose=False)
    assert s["stand_ins"] == []
    assert s["detail"]["SUSY"]["info"]["n_rounds"] == 60
    assert s["detail"]["cod-rna"]["info"]["n_rounds"] == 12


def test_quick_table2_fogd_nogd_equal_direct_runs(quick2):
    """FOGD and NOGD rows re-run on the rebuilt permutations give the table's AMR."""
    out, summary, _ = quick2
    rows = {(r["dataset"], r["learner"]): r for r in summary["rows"]}
    for ds in exp.QUICK_DATASETS:
        X, y, _ = exp.stand_in(ds)
        info = exp.PAPER_DATASETS[ds]
        rng = np.random.default_rng([0, list(exp.PAPER_DATASETS).index(ds)])
        streams = []
        for _ in range(2):
            order = rng.permutation(X.shape[0])[:exp.QUICK_ROUNDS]
            streams.append((X[order], y[order], int(rng.integers(2 ** 31))))
        for name in ("FOGD", "NOGD"):
            sel = summary["detail"][ds]["learners"][name]["selected"]
            amr = []
            for Xp, yp, s in streams:
                if name == "FOGD":
                    assert sel["D"] == exp.FOGD_FEATURES[ds]
                    learner = FOGD(okl.Gaussian(info["sigma"]), D=sel["D"], eta=sel["eta"], seed=s)
                else:
                    learner = NOGD(okl.Gaussian(info["sigma"]), B=info["B"],
                                   k=int(0.2 * info["B"]), eta=sel["eta"])
                amr.append(learner.run(Xp, yp).mistake_rate)
            assert rows[ds, name]["amr_mean"] == pytest.approx(np.mean(amr), abs=1e-15)
