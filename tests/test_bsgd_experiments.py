"""okl reproduce bsgd-table3 (okl/experiments/bsgd.py): Tables 3 (a) and (b) of Wang,
Crammer & Vucetic (JMLR 2012).

A quick run on generated and stand-in data (no files: ``$OKL_DATA`` points to an empty
folder), the table's rows and columns, the paper's figures beside okl's with the
agreement of the runner, the splits of each kind, a learner of your own's starred row, and
the synthetic streams Gauss and Checkerboard.
"""
import csv
import json
import math

import numpy as np
import pytest

import okl.experiments as E
from okl.datasets import checkerboard_stream, gauss_mixture_stream
from okl.experiments import bsgd as xb
from okl.experiments import runner as rn


@pytest.fixture
def no_files(tmp_path, monkeypatch):
    monkeypatch.setenv("OKL_DATA", str(tmp_path))
    return tmp_path


def test_registered():
    entry = E.entries()["bsgd-table3"]
    assert entry.paper == "bsgd" and entry.own_learners


def test_paper_figures_transcribed():
    t = xb.PAPER_TABLE3
    assert t["BPegasos+merge B=500"]["Letter"] == (89.68, 0.61)
    assert t["Projectron++ B=500"]["IJCNN"] == (94.73, 1.95)
    assert t["BMP+merge B=100"]["DNA"] == (93.76, 0.31)
    assert t["LIBSVM"]["Adult"] == (84.29, 0.0)
    assert "BPA B=100" in t and "Letter" not in t["BPA B=100"]      # binary only
    # every paper row of every dataset of its table is there
    for ds, info in xb.DATASETS.items():
        names = [r for r in t if ds in t[r]]
        assert ("TVM B=100" in names) == (info["table"] == "a")
        assert len(names) == (2 + 3 + 2 * 10 if info["table"] == "a" else 1 + 3 + 2 * 8)


def test_paper_marks_read_from_the_pdf():
    """The paper's bold (best) and bold italic (not significantly worse) figures, as read
    from its PDF (PAPER_MARKS' comment)."""
    m = xb.PAPER_MARKS
    assert m[("BPegasos+merge B=100", "Adult")] == "best"              # 84.55
    assert m[("BPegasos+merge B=500", "IJCNN")] == "not worse"         # 98.08
    assert m[("TVM B=500", "Checkerb")] == "best"                      # 99.94
    assert m[("BPA B=500", "Adult")] == "not worse"                    # 83.58
    assert m[("MP+stop B=500", "Pen")] == "not worse"                  # 97.78
    assert m[("BPegasos+merge B=500", "Letter")] == "best"             # 89.68
    assert all(m[("BMP+merge B=100", ds)] == "best"
               for ds, info in xb.DATASETS.items() if info["table"] == "b")
    # the same figures, unmarked where the paper prints them plain
    assert ("BPegasos+project B=500", "Checkerb") not in m             # 98.08 too
    assert ("BPegasos+project B=100", "Checkerb") not in m             # 97.27 too
    assert ("BPA B=100", "Banana") not in m
    assert len(m) == 48
    assert sum(xb.DATASETS[ds]["table"] == "a" for _, ds in m) == 28
    # every mark is on a budgeted figure of the paper's table (never offline/unbudgeted)
    assert set(m.values()) == {"best", "not worse"}
    for (row, ds), mark in m.items():
        assert ds in xb.PAPER_TABLE3[row], (row, ds)
        name, _, B = row.partition(" B=")
        assert name in xb.BUDGETED and int(B) in xb.BUDGETS
    # the paper's rule: per dataset and budget, over the budgeted rows, exactly one best,
    # the largest mean
    for ds in xb.DATASETS:
        for B in xb.BUDGETS:
            rows = [f"{r} B={B}" for r in xb.BUDGETED
                    if ds in xb.PAPER_TABLE3.get(f"{r} B={B}", {})]
            best = [r for r in rows if m.get((r, ds)) == "best"]
            assert len(best) == 1, (ds, B, best)
            top = max(xb.PAPER_TABLE3[r][ds][0] for r in rows)
            assert xb.PAPER_TABLE3[best[0]][ds][0] == top, (ds, B)


def test_quick_run_rows_and_columns(no_files, tmp_path):
    out = tmp_path / "out"
    s = E.run("bsgd-table3", out, quick=True, verbose=False, timing=False)
    assert s["stand_ins"] == ["Satimage"] and s["complete"]
    rows = {(r["dataset"], r["learner"]): r for r in s["rows"]}
    # table (a) on Gauss: every row of the paper's, okl's extra rows starred
    gauss = [r for r in s["rows"] if r["dataset"] == "Gauss"]
    names = [r["learner"] for r in gauss]
    assert names[:5] == ["LIBSVM", "IDSVM", "Pegasos", "Norma", "MP"]
    assert "TVM B=500" in names and "BNorma+project B=100" in names
    for name in xb.NOT_IMPLEMENTED:
        assert rows[("Gauss", name if "+" not in name and name not in ("TVM",)
                     else f"{name} B=100")]["status"] == "not implemented"
    assert not rows[("Gauss", "BMP+remove B=100")]["in_paper"]
    assert not rows[("Gauss", "AMM")]["in_paper"]
    ok = [r for r in gauss if r["status"] == "ok"]
    assert all(0.0 <= r["okl"] <= 1.0 for r in ok)
    assert all(r["budget"] <= 100 for r in ok if r["learner"].endswith("B=100"))
    # table (b) on the Satimage stand-in: no binary-only rows
    sat = [r["learner"] for r in s["rows"] if r["dataset"] == "Satimage"]
    assert "BPA B=100" not in sat and "TVM B=100" not in sat and "IDSVM" not in sat
    assert "LIBSVM" in sat and "BMP+merge B=500" in sat
    # the paper's figure beside okl's; the agreement of the runner; stand-ins not compared
    r = rows[("Gauss", "BPegasos+merge B=100")]
    assert r["paper"] == pytest.approx(0.8122) and r["paper_std"] == pytest.approx(0.0040)
    assert r["difference"] == pytest.approx(r["okl"] - r["paper"])
    assert r["data"] == "generated"
    text = (out / "bsgd_table3.txt").read_text()
    assert "STAND-IN" in text and "lambda = " in text and "not implemented" in text
    assert (out / "bsgd_table3.csv").exists() and (out / "agreement.csv").exists()
    _check_marks(s, out, text)


#: the CSV's columns before the marks (as earlier outputs had them)
_OLD_CSV = ("dataset,source,n_rounds,learner,in_paper,status,metric,okl,okl_std,paper,"
            "paper_std,difference,spreads,tolerance,agrees,params,selection,data,budget,"
            "seconds,E,selected").split(",")


def _check_marks(s, out, text):
    """okl's marks are the one-sided paired t-test (scipy, here) of each budgeted row of the
    paper against the best mean at its B, on the runs of the quick run; the paper's are
    PAPER_MARKS; both printed, and in the CSV after the earlier columns."""
    from scipy import stats

    with open(out / "bsgd_table3_runs.csv", newline="") as fh:
        runs = list(csv.DictReader(fh))
    tested = 0
    for ds in ("Gauss", "Satimage"):
        rows = {r["learner"]: r for r in s["rows"] if r["dataset"] == ds}
        for B in xb.BUDGETS:
            marked = {n: r for n, r in rows.items() if r.get("okl_mark") is not None
                      and n.endswith(f" B={B}")}
            assert set(marked) == {n for n, r in rows.items() if r["status"] == "ok"
                                   and n.partition(" B=")[0] in xb.BUDGETED
                                   and n.endswith(f" B={B}")}
            acc = {n: {int(u["run"]): float(u["accuracy"]) for u in runs
                       if u["dataset"] == ds and u["learner"] == n
                       and json.loads(u["params"]) == r["selected"]}
                   for n, r in marked.items()}
            assert all(len(a) == xb.QUICK_RUNS for a in acc.values())
            means = {n: np.mean(list(a.values())) for n, a in acc.items()}
            best = [n for n, r in marked.items() if r["okl_mark"] == "best"]
            assert len(best) == 1 and means[best[0]] == max(means.values())
            top = acc[best[0]]
            for n, r in marked.items():
                if n == best[0]:
                    continue
                x = np.array([top[k] for k in sorted(top)])
                y = np.array([acc[n][k] for k in sorted(top)])
                if np.ptp(x - y) == 0:           # no spread: the sign decides (compare)
                    expect = "not worse" if np.all(x == y) else ""
                    assert r["okl_mark"] == expect, (ds, n)
                    continue
                p = stats.ttest_rel(x, y, alternative="greater").pvalue
                assert r["okl_p_value"] == pytest.approx(p, rel=1e-9), (ds, n)
                assert r["okl_mark"] == ("not worse" if p > 0.05 else ""), (ds, n, p)
                tested += 1
        # the paper's marks beside, on its budgeted rows (not-implemented ones too)
        for n, r in rows.items():
            paper = xb.PAPER_TABLE3.get(n, {}).get(ds)
            if n.partition(" B=")[0] in xb.BUDGETED and paper is not None:
                assert r["paper_mark"] == xb.PAPER_MARKS.get((n, ds), "")
            else:
                assert r["paper_mark"] is None and r["okl_mark"] is None
    assert tested >= 5
    rows = {(r["dataset"], r["learner"]): r for r in s["rows"]}
    assert rows[("Gauss", "TVM B=100")]["paper_mark"] == "best"
    assert rows[("Gauss", "BPA B=500")]["paper_mark"] == "best"
    assert rows[("Gauss", "BPegasos+merge B=100")]["paper_mark"] == "not worse"
    assert rows[("Satimage", "BMP+merge B=100")]["paper_mark"] == "best"
    assert rows[("Satimage", "BPegasos+remove B=100")]["paper_mark"] == ""
    # printed: okl's and the paper's symbols in their columns, the legend under the table
    symbol = {"best": "*", "not worse": "~", "": " ", None: " "}
    lines = text.splitlines()
    shown = 0
    for ds in ("Gauss", "Satimage"):
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{ds} (Table 3"))
        head = lines[start + 2]
        at_okl = head.index("okl sig") + len("okl sig") - 1
        at_paper = head.index("paper sig") + len("paper sig") - 1
        for line in lines[start + 3:]:
            if not line.startswith("  ") or line.startswith("  note"):
                break
            name = line[2:head.index("okl accuracy")].strip()
            r = rows[(ds, name.rstrip("*"))]
            cell = line.ljust(at_paper + 1)
            assert cell[at_okl] == symbol[r.get("okl_mark")], (ds, name)
            assert cell[at_paper] == symbol[r.get("paper_mark")], (ds, name)
            shown += cell[at_okl] != " "
    assert shown > 10
    assert "okl sig / paper sig: among the paper's budgeted rows" in text
    assert "~ = not significantly worse than the best" in text
    # in the CSV after the earlier columns
    with open(out / "bsgd_table3.csv", newline="") as fh:
        header = next(csv.reader(fh))
    assert header[:len(_OLD_CSV)] == _OLD_CSV
    assert header[-3:] == ["okl_mark", "okl_p_value", "paper_mark"]


def test_agreement_on_real_data_rows():
    a = rn.agreement(0.90, 0.8936, 0.0131, floor=0.01)
    assert a["agrees"] and a["spreads"] == pytest.approx((0.90 - 0.8936) / 0.0131)
    assert not rn.agreement(0.80, 0.8936, 0.0131, floor=0.01)["agrees"]


def test_learner_of_your_own_gets_a_starred_row(no_files, tmp_path):
    s = E.run("bsgd-table3", tmp_path / "own", quick=True, datasets=["Gauss"],
              learners=["BPegasos+merge B=100", "Perceptron"], verbose=False, timing=False)
    rows = {r["learner"]: r for r in s["rows"]}
    assert set(rows) == {"BPegasos+merge B=100", "Perceptron"}
    mine = rows["Perceptron"]
    assert mine["in_paper"] is False and mine["status"] == "ok"
    assert 0.4 <= mine["okl"] <= 1.0
    assert "Perceptron*" in s["text"]


def test_splits():
    settings = dict(n_train=30, n_test=10, split="common", K=2, name="X")
    X = np.arange(50.0)[:, None]
    y = np.ones(50)
    Xtr, _, Xte, _, _ = xb._split(X, y, settings, 0, 0, 1)
    assert sorted(Xtr[:, 0]) == list(range(30)) and list(Xte[:, 0]) == list(range(30, 50))
    settings["split"] = "drawn"
    a = xb._split(X, y, settings, 0, 0, 1)
    b = xb._split(X, y, settings, 0, 0, 2)
    assert a[0].shape == (30, 1) and a[2].shape == (10, 1)
    assert not set(a[0][:, 0]) & set(a[2][:, 0])
    assert not np.array_equal(a[0], b[0])
    settings.update(split="generated", name="Gauss", n_train=200, n_test=50)
    g = xb._split(None, None, settings, 0, 1, 0)
    assert g[0].shape == (200, 2) and g[2].shape == (50, 2)
    both = np.vstack([g[0], g[2]])
    assert np.allclose(both.mean(0), 0, atol=1e-12) and np.allclose(both.std(0, ddof=1), 1)


def test_gauss_and_checkerboard_streams():
    X, y = gauss_mixture_stream(20_000, seed=1)
    assert X.shape == (20_000, 2) and set(np.unique(y)) == {-1.0, 1.0}
    pos, neg = X[y > 0], X[y < 0]
    assert np.allclose(pos.mean(0), [0, 0], atol=0.05) and np.allclose(pos.var(0), 1, atol=0.06)
    assert np.allclose(neg.mean(0), [2, 0], atol=0.1) and np.allclose(neg.var(0), 4, atol=0.25)
    assert abs(np.mean(y > 0) - 0.5) < 0.02
    assert np.array_equal(gauss_mixture_stream(50, seed=3)[0], gauss_mixture_stream(50, seed=3)[0])
    X, y = checkerboard_stream(5_000, seed=2)
    assert X.min() >= 0 and X.max() < 4
    cells = np.floor(X).astype(int)
    assert np.array_equal(y > 0, (cells.sum(1) % 2) == 0)
    counts = np.bincount(cells[:, 0] * 4 + cells[:, 1], minlength=16)
    assert counts.min() > 5_000 / 16 * 0.8
    X, y = checkerboard_stream(100, cells=2, seed=0)
    assert X.max() < 2
    with pytest.raises(ValueError):
        gauss_mixture_stream(0)
