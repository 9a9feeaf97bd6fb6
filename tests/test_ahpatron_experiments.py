"""Tables 2 and 3 of Liao et al., Ahpatron (AAAI 2024): ahpatron-table2, ahpatron-table3."""
import csv
import json
import math

import numpy as np
import pytest

import okl
from okl import experiments
from okl.experiments import ahpatron as exp
from okl.experiments.runner import stream_order
from okl.learners.features import FOGD, NOGD

ALL_LEARNERS = exp.TABLE2_LEARNERS + exp.EXTRA_LEARNERS
BUDGETED = ("Ahpatron", "BOGD++", "BOGD", "Forgetron", "RBP", "NOGD", "POMDR")


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """An empty data directory: every dataset is a stand-in, whatever ~/.okl holds."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    monkeypatch.setenv("OKL_DATA", str(empty))
    return empty


@pytest.fixture(scope="module")
def quick2(tmp_path_factory):
    """One quick run of Table 2 (every learner, extras included) on stand-ins."""
    mp = pytest.MonkeyPatch()
    empty = tmp_path_factory.mktemp("no-data")
    mp.setenv("OKL_DATA", str(empty))
    out = tmp_path_factory.mktemp("table2")
    summary = exp.ahpatron_table2(out, quick=True, seed=0, verbose=False,
                                  learners=list(ALL_LEARNERS))
    mp.undo()
    return out, summary


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


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
    assert exp.PROJECTRON_ETA == {"phishing": 0.1, "SUSY": 0.1, "ijcnn1": 0.1, "cod-rna": 0.1,
                                  "w8a": 0.9, "a9a": 0.9}
    assert exp.PROJECTRON_ETA_TEXT == (0.1, 0.9)
    assert exp.learner_grid("Projectron", 100, dataset="a9a") == [{"eta": 0.9}]
    assert exp.learner_grid("Projectron++", 100, dataset="ijcnn1") == [{"eta": 0.1}]
    with pytest.raises(ValueError, match="eta"):
        exp.learner_grid("Projectron", 100)
    assert exp.NOT_IMPLEMENTED == ()             # POMDR runs now
    T = 10_000
    steps = [p["eta"] for p in exp.learner_grid("BOGD++", T)]
    assert np.allclose(steps, [10.0 ** k / 100.0 for k in range(-3, 4)])
    assert exp.learner_grid("Projectron", T, projectron_eta=(0.1, 0.9)) == \
        [{"eta": 0.1}, {"eta": 0.9}]


def test_learners_follow_the_protocol():
    a = exp.make_learner("Ahpatron", {"eps": 0.8}, sigma=2.0, B=150)
    assert isinstance(a, okl.Ahpatron) and a.B == 150 and a.eps == 0.8 and a.eta == 0.0005
    assert a.U_ == pytest.approx(np.sqrt(150) / 2) and a.lam_ == pytest.approx(a.U_ / np.sqrt(600))
    assert a.kernel.sigma == 2.0
    p = exp.make_learner("Projectron++", {"eta": 0.9}, sigma=1.0, B=400)
    assert isinstance(p, okl.ProjectronPP) and p.eta == 0.9 and p.margin_update == "full"
    p = exp.make_learner("Projectron++", {"eta": 0.9}, sigma=1.0, B=400, margin="paper")
    assert p.margin_update == "paper"
    assert isinstance(exp.make_learner("BOGD++", {"eta": 0.1}, sigma=1.0, B=400), okl.BOGDPP)
    f = exp.make_learner("FOGD", {"eta": 0.1}, sigma=2.0, B=150, D=300, seed=3)
    assert isinstance(f, FOGD) and f.D == 300 and f.eta == 0.1 and f.kernel.sigma == 2.0
    n = exp.make_learner("NOGD", {"eta": 0.1}, sigma=2.0, B=150)
    assert isinstance(n, NOGD) and n.B == 150 and n.k_ == 30 and n.loss == "hinge"
    assert exp.FOGD_FEATURES == {"phishing": 2000, "SUSY": 2000, "ijcnn1": 2000,
                                 "cod-rna": 2000, "w8a": 300, "a9a": 300}
    # POMDR as the authors' POMDR.R: B0 = round(10 ln T), threshold T^-1/2, c = 0.1
    m = exp.make_learner("POMDR", {}, sigma=2.0, B=150, T=48_842)
    assert isinstance(m, okl.POMDR) and (m.B, m.B0, m.U, m.M, m.c) == (150, 108, 25.0, 15, 0.1)
    assert m.zeta == 0.5 and m.ald_scale == 1.0 and m.kernel.sigma == 2.0
    with pytest.raises(ValueError, match="T"):
        exp.make_learner("POMDR", {}, sigma=2.0, B=150)
    with pytest.raises(ValueError):
        exp.make_learner("SkeGD", {}, sigma=1.0, B=400)


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
    out, summary = quick2
    for name in ("ahpatron_table2.csv", "ahpatron_table2.json", "ahpatron_table2.txt",
                 "ahpatron_table2_grid.csv", "ahpatron_table2.png", "ahpatron_table2.svg",
                 "ahpatron_table2_agreement.png", "agreement.csv", "agreement_summary.csv"):
        assert (out / name).exists() and (out / name).stat().st_size > 0, name
    on_disk = json.loads((out / "ahpatron_table2.json").read_text())
    assert on_disk["rows"] == json.loads(json.dumps(summary["rows"]))
    assert summary["quick"] and summary["n_permutations"] == 2
    rows = _csv(out / "ahpatron_table2.csv")
    assert [(r["dataset"], r["learner"]) for r in rows] == \
        [(ds, n) for ds in exp.QUICK_DATASETS for n in ALL_LEARNERS]
    for ds in exp.QUICK_DATASETS:
        mine = {r["learner"]: r for r in rows if r["dataset"] == ds}
        B = exp.PAPER_DATASETS[ds]["B"]
        for name, r in mine.items():
            assert r["status"] == "ok", (ds, name)
            assert 0.0 <= float(r["okl"]) <= 1.0 and 0.0 <= float(r["okl_std"]) <= 1.0
            assert int(r["n_rounds"]) == exp.QUICK_ROUNDS
            assert int(r["budget"]) >= 1 and float(r["seconds"]) >= 0.0
            assert (r["in_paper"] == "True") == (name in exp.TABLE2_LEARNERS)
            assert (r["paper"] != "") == (name in exp.TABLE2_LEARNERS)
            if name in BUDGETED:
                assert int(r["budget"]) <= B, (ds, name)
        assert int(mine["Ahpatron"]["budget"]) == B        # the budget is reached and kept
        assert int(mine["FOGD"]["budget"]) == exp.FOGD_FEATURES[ds]
        assert float(mine["Ahpatron"]["eps"]) in exp.AHPATRON_EPS
        assert mine["Projectron"]["params"] == f"eta={exp.PROJECTRON_ETA[ds]:g}"
        assert float(mine["AVP"]["eps"]) == float(mine["Ahpatron"]["eps"])
        assert int(mine["AVP"]["budget"]) > B             # AVP keeps every update


def test_quick_table2_selects_the_best_grid_point(quick2):
    out, summary = quick2
    grid = _csv(out / "ahpatron_table2_grid.csv")
    rows = {(r["dataset"], r["learner"]): r for r in _csv(out / "ahpatron_table2.csv")}
    sizes = {"Ahpatron": 5, "Projectron": 1, "Projectron++": 1, "BOGD++": 7, "BOGD": 7,
             "Forgetron": 1, "RBP": 1, "FOGD": 7, "NOGD": 7, "POMDR": 1, "AVP": 1}
    for ds in exp.QUICK_DATASETS:
        for name, size in sizes.items():
            points = [g for g in grid if g["dataset"] == ds and g["learner"] == name]
            assert len(points) == size, (ds, name)
            chosen = [g for g in points if g["selected"] == "True"]
            assert len(chosen) == 1
            assert float(chosen[0]["mean"]) == min(float(g["mean"]) for g in points)
            assert float(chosen[0]["mean"]) == float(rows[ds, name]["okl"])
        eps = [json.loads(g["params"])["eps"] for g in grid
               if g["dataset"] == ds and g["learner"] == "Ahpatron"]
        assert eps == list(exp.AHPATRON_EPS)


def test_quick_table2_labels_stand_ins(quick2):
    out, summary = quick2
    assert summary["stand_ins"] == list(exp.QUICK_DATASETS)
    assert summary["not_implemented"] == []
    assert all(r["source"] == "stand-in" for r in _csv(out / "ahpatron_table2.csv"))
    text = (out / "ahpatron_table2.txt").read_text()
    assert text == summary["text"] + "\n"
    for ds in exp.QUICK_DATASETS:
        assert f"{ds} [STAND-IN" in text
        info = summary["datasets"][ds]
        assert info["stand_in"] and info["source"] == "stand-in" and info["files"] == []
        assert info["steps"][0].startswith("generated stand-in")


def test_quick_table2_is_reproducible(no_data, tmp_path):
    kw = dict(quick=True, seed=3, datasets=["a9a"], n_rounds=400,
              learners=["Ahpatron", "BOGD++"], verbose=False, timing=False)
    a = exp.ahpatron_table2(tmp_path / "a", **kw)
    b = exp.ahpatron_table2(tmp_path / "b", **kw)
    assert (tmp_path / "a" / "ahpatron_table2.csv").read_bytes() == \
        (tmp_path / "b" / "ahpatron_table2.csv").read_bytes()
    assert {r["learner"] for r in a["rows"]} == {"Ahpatron", "BOGD++"}
    assert a["rows"] == b["rows"]
    with pytest.raises(ValueError, match="unknown learner 'SkeGDX'"):
        exp.ahpatron_table2(tmp_path / "c", quick=True, learners=["SkeGDX"], verbose=False)
    with pytest.raises(ValueError, match="unknown datasets"):
        exp.ahpatron_table2(tmp_path / "c", quick=True, datasets=["mnist"], verbose=False)


def test_quick_table3(no_data, tmp_path, capsys):
    summary = exp.ahpatron_table3(tmp_path, quick=True, seed=0)
    printed = capsys.readouterr().out
    assert "|N_T|" in printed and "STAND-IN" in printed
    for suffix in ("csv", "json", "txt"):
        assert (tmp_path / f"ahpatron_table3.{suffix}").stat().st_size > 0
    rows = _csv(tmp_path / "ahpatron_table3.csv")
    assert [(r["dataset"], r["learner"]) for r in rows] == \
        [(ds, name) for ds in exp.QUICK_DATASETS for name in ("Ahpatron", "AVP")]
    for r in rows:
        assert r["source"] == "stand-in" and r["status"] == "ok"
        T = int(r["n_rounds"])
        assert 0 <= float(r["okl"]) <= T and float(r["okl"]) == float(r["n_margin_mean"])
        assert float(r["okl_std"]) >= 0 and 0 <= float(r["amr"]) <= 1
        assert float(r["eps"]) in exp.AHPATRON_EPS
    for ds in exp.QUICK_DATASETS:
        ahp, avp = [r for r in rows if r["dataset"] == ds]
        assert ahp["eps"] == avp["eps"]
        assert int(float(ahp["paper"])) == exp.PAPER_TABLE3[ds]
        assert float(ahp["tolerance"]) == pytest.approx(0.05 * exp.PAPER_TABLE3[ds])
        assert int(ahp["budget"]) <= exp.PAPER_DATASETS[ds]["B"]
        assert int(avp["budget"]) > int(ahp["budget"])     # AVP keeps every update
    # the same permutations and grid as Table 2 give the same eps
    t2 = exp.ahpatron_table2(tmp_path / "t2", quick=True, seed=0, learners=["Ahpatron"],
                             verbose=False)
    for ds in exp.QUICK_DATASETS:
        sel2 = [r for r in t2["rows"] if r["dataset"] == ds][0]["eps"]
        assert float([r for r in rows if r["dataset"] == ds][0]["eps"]) == sel2


def test_quick_table2_direct_runs(quick2):
    """FOGD, NOGD, POMDR and Projectron++ rows re-run on the rebuilt permutations give
    the table's AMR."""
    out, summary = quick2
    rows = {(r["dataset"], r["learner"]): r for r in summary["rows"]}
    for ds in exp.QUICK_DATASETS:
        X, y, _ = exp.stand_in(ds)
        info = exp.PAPER_DATASETS[ds]
        index = list(exp.PAPER_DATASETS).index(ds)
        streams = []
        for p in range(2):
            order, s = stream_order(0, index, p, X.shape[0], exp.QUICK_ROUNDS)
            streams.append((X[order], y[order], s))
        T = exp.QUICK_ROUNDS
        for name in ("FOGD", "NOGD", "POMDR", "Projectron++"):
            sel = rows[ds, name]["selected"]
            amr = []
            for Xp, yp, s in streams:
                k = okl.Gaussian(info["sigma"])
                if name == "FOGD":
                    learner = FOGD(k, D=exp.FOGD_FEATURES[ds], eta=sel["eta"], seed=s)
                elif name == "NOGD":
                    learner = NOGD(k, B=info["B"], k=int(0.2 * info["B"]), eta=sel["eta"])
                elif name == "POMDR":
                    learner = okl.POMDR(k, B=info["B"], B0=round(10 * math.log(T)), U=25.0,
                                        M=15, zeta=0.5, ald_scale=1.0, c=0.1)
                else:
                    learner = okl.ProjectronPP(k, eta=exp.PROJECTRON_ETA[ds],
                                               margin_update="full")
                amr.append(learner.run(Xp, yp).mistake_rate)
            assert rows[ds, name]["okl"] == pytest.approx(np.mean(amr), abs=1e-15), (ds, name)
