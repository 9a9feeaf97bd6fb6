"""okl.experiments.compare and ``okl compare`` against independent oracles.

* Demsar's worked example (JMLR 7, 2006, section 3.2.2, Table 6: the AUC of C4.5 and
  three variants on 14 data sets): the average ranks, the Friedman statistic and its
  Iman-Davenport correction, the Nemenyi critical differences at 0.05 and 0.10 and
  the groups they separate, the Holm procedure against C4.5;
* ``scipy.stats`` called directly on the same numbers (Friedman with ties, the paired,
  Wilcoxon and Welch tests, the normal and studentized-range distributions for the
  post-hoc p-values, Holm's step-down written out here);
* two learners that differ by noise only (no mark of significance) and one that
  differs clearly, on made-up and on swept runs; runs that share no permutation
  (never paired by position).
"""
import csv
import json
import math

import numpy as np
import pytest
from scipy import stats

from okl.cli import main
from okl.experiments import sweep as sw
from okl.experiments.compare import compare, critical_difference, friedman_test, read_runs

# Demsar (2006), Table 6: AUC of C4.5 with the parameters m and cf tuned or not, rows in
# the paper's order (adult (sample), breast cancer, breast cancer wisconsin, cmc,
# ionosphere, iris, liver disorders, lung cancer, lymphography, mushroom, primary tumor,
# rheum, voting, wine)
DEMSAR_LEARNERS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_DATASETS = ["adult", "breast cancer", "breast cancer wisconsin", "cmc", "ionosphere",
                   "iris", "liver disorders", "lung cancer", "lymphography", "mushroom",
                   "primary tumor", "rheum", "voting", "wine"]
DEMSAR_AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970]])


def _demsar_runs(table=DEMSAR_AUC):
    return [{"dataset": d, "learner": n, "permutation": 0, "auc": float(table[i, j])}
            for i, d in enumerate(DEMSAR_DATASETS) for j, n in enumerate(DEMSAR_LEARNERS)]


def _voting_untied():
    """The table as Demsar ranked it: his average ranks (2.893 and 1.964 for C4.5+cf and
    C4.5+m+cf) are those of the printed table but for voting, where both print .975 and
    C4.5+cf is second, C4.5+m+cf third (the unrounded AUCs differ)."""
    table = DEMSAR_AUC.copy()
    table[DEMSAR_DATASETS.index("voting"), 2] = 0.9751
    return table


def test_demsar_worked_example_ranks_friedman_and_critical_differences():
    result = compare(_demsar_runs(_voting_untied()), "auc", higher_is_better=True,
                     tie_correction=False, control="C4.5")
    ranks = [result.average_ranks[n] for n in DEMSAR_LEARNERS]
    assert np.round(ranks, 3).tolist() == [3.143, 2.000, 2.893, 1.964]
    f = result.friedman
    assert (f["n_datasets"], f["k"]) == (14, 4)
    assert round(f["chi2"], 2) == 9.28 and round(f["ff"], 2) == 3.69
    assert f["ff_df"] == [3, 39]
    # "the critical value of F(3, 39) for alpha = 0.05 is 2.85, so we reject"
    assert round(stats.f.ppf(0.95, 3, 39), 2) == 2.85 and f["ff_p"] < 0.05
    nemenyi = result.nemenyi
    assert round(nemenyi["q_alpha"], 3) == 2.569 and round(nemenyi["cd"], 2) == 1.25
    # at 0.05 no pair differs by more than CD, "even the best and the worst"
    assert all(p >= 0.05 for a in DEMSAR_LEARNERS for b, p in nemenyi["pvalues"][a].items())
    ten = compare(_demsar_runs(_voting_untied()), "auc", higher_is_better=True,
                  tie_correction=False, alpha=0.10)
    assert round(ten.nemenyi["q_alpha"], 3) == 2.291 and round(ten.nemenyi["cd"], 2) == 1.12
    # at 0.10: C4.5 is worse than C4.5+m and C4.5+m+cf, and only these pairs differ
    differ = {(a, b) for i, a in enumerate(DEMSAR_LEARNERS) for b in DEMSAR_LEARNERS[i + 1:]
              if ten.nemenyi["pvalues"][a][b] < 0.10}
    assert differ == {("C4.5", "C4.5+m"), ("C4.5", "C4.5+m+cf")}
    assert critical_difference(4, 14, 0.05)[0] == pytest.approx(nemenyi["cd"])
    # Holm against C4.5: z = (3.143 - R_j) / 0.488; p = 0.016 (C4.5+m+cf), 0.019 (C4.5+m)
    # and 0.607 (C4.5+cf); the first two below 0.05/3 and 0.05/2, so both are better
    holm = {h["learner"]: h for h in result.holm}
    se = math.sqrt(4 * 5 / (6 * 14))
    assert round(se, 3) == 0.488
    for name, p in (("C4.5+m+cf", 0.016), ("C4.5+m", 0.019), ("C4.5+cf", 0.608)):
        z = (ranks[DEMSAR_LEARNERS.index(name)] - ranks[0]) / se
        assert holm[name]["z"] == pytest.approx(z)
        assert holm[name]["p"] == pytest.approx(2 * stats.norm.sf(abs(z)))
        assert round(holm[name]["p"], 3) == p
    assert holm["C4.5+m+cf"]["p"] < 0.05 / 3 and holm["C4.5+m"]["p"] < 0.05 / 2
    assert [holm[n]["significant"] for n in DEMSAR_LEARNERS[1:]] == [True, False, True]


def test_demsar_table_as_printed_through_scipy():
    """The printed table (ties averaged, voting included): the ranks are scipy's
    ``rankdata`` row by row, the default Friedman statistic is
    ``scipy.stats.friedmanchisquare`` (corrected for ties) and Demsar's formula is the
    uncorrected one from the same ranks."""
    signed = -DEMSAR_AUC
    ranks = stats.rankdata(signed, axis=1).mean(axis=0)
    result = compare(_demsar_runs(), "auc", higher_is_better=True)
    assert [result.average_ranks[n] for n in DEMSAR_LEARNERS] == pytest.approx(ranks.tolist())
    assert np.round(ranks, 3).tolist() == [3.143, 2.000, 2.929, 1.929]
    direct = stats.friedmanchisquare(*signed.T)
    assert result.friedman["chi2"] == pytest.approx(direct.statistic, rel=1e-12)
    assert result.friedman["p"] == pytest.approx(direct.pvalue, rel=1e-12)
    N, k = signed.shape
    uncorrected = 12 * N / (k * (k + 1)) * (np.sum(ranks ** 2) - k * (k + 1) ** 2 / 4)
    assert friedman_test(signed, tie_correction=False)["chi2"] == pytest.approx(uncorrected)
    assert uncorrected < direct.statistic                       # ties shrink the variance
    ff = (N - 1) * direct.statistic / (N * (k - 1) - direct.statistic)
    assert result.friedman["ff"] == pytest.approx(ff)
    assert result.friedman["ff_p"] == pytest.approx(stats.f.sf(ff, k - 1, (k - 1) * (N - 1)))
    # Nemenyi p-values from the studentized range directly
    se = math.sqrt(k * (k + 1) / (6 * N))
    for i, a in enumerate(DEMSAR_LEARNERS):
        for j, b in enumerate(DEMSAR_LEARNERS):
            if i != j:
                q = abs(ranks[i] - ranks[j]) / se * math.sqrt(2)
                assert result.nemenyi["pvalues"][a][b] == pytest.approx(
                    stats.studentized_range.sf(q, k, np.inf), rel=1e-6)
    # Holm against the best average rank (C4.5+m+cf), written out: sort the normal
    # p-values, multiply the i-th smallest by (m - i), keep them non-decreasing
    assert result.control == "C4.5+m+cf"
    others = [n for n in DEMSAR_LEARNERS if n != "C4.5+m+cf"]
    raw = [2 * stats.norm.sf(abs(ranks[DEMSAR_LEARNERS.index(n)] - ranks[3]) / se)
           for n in others]
    order, adjusted, running = np.argsort(raw), {}, 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(raw) - step) * raw[i]))
        adjusted[others[i]] = running
    for h in result.holm:
        assert h["p"] == pytest.approx(raw[others.index(h["learner"])])
        assert h["p_holm"] == pytest.approx(adjusted[h["learner"]])


def _paired_runs(values: dict, dataset="d", seed=0):
    """Runs of a sweep: ``{learner: [value per permutation]}``."""
    return [{"dataset": dataset, "learner": name, "permutation": p, "seed": seed,
             "rounds": 100, "mistake_rate": float(v)}
            for name, vs in values.items() for p, v in enumerate(vs)]


def test_noise_only_is_not_significant_a_clear_difference_is():
    rng = np.random.default_rng(2)
    base = rng.uniform(0.10, 0.30, 10)                 # each permutation's difficulty
    a = base + rng.normal(0, 0.004, 10)
    b = base + rng.normal(0, 0.004, 10)                # a and b: the same up to noise
    c = base + 0.02 + rng.normal(0, 0.004, 10)         # two points worse, every time
    result = compare(_paired_runs({"A": a, "B": b, "C": c}))
    top = "A" if a.mean() < b.mean() else "B"
    other = "B" if top == "A" else "A"
    best = {"A": a, "B": b}[top]
    row = result.row(other, "d")
    assert result.row(top, "d")["marked"] == "best"
    assert row["pairing"] == "paired" and row["test"] == "one-sided paired t-test"
    assert row["p_value"] == pytest.approx(
        stats.ttest_rel({"A": a, "B": b}[other], best, alternative="greater").pvalue)
    assert row["p_value"] > 0.05 and row["marked"] == "not worse"
    clear = result.row("C", "d")
    assert clear["p_value"] == pytest.approx(
        stats.ttest_rel(c, best, alternative="greater").pvalue)
    assert clear["p_value"] < 1e-6 and clear["marked"] == ""
    assert clear["mean"] == pytest.approx(c.mean())
    assert clear["std"] == pytest.approx(c.std(ddof=1))
    assert (clear["n"], clear["rank"]) == (10, 3.0)
    # the same with Wilcoxon's signed-rank test
    wil = compare(_paired_runs({"A": a, "B": b, "C": c}), test="wilcoxon")
    assert wil.row(other, "d")["p_value"] == pytest.approx(
        stats.wilcoxon({"A": a, "B": b}[other], best, alternative="greater").pvalue)
    assert wil.row("C", "d")["p_value"] == pytest.approx(
        stats.wilcoxon(c, best, alternative="greater").pvalue)
    assert wil.row(other, "d")["marked"] == "not worse" and wil.row("C", "d")["marked"] == ""
    # higher is better: the marks turn round
    up = compare(_paired_runs({"A": -a, "B": -b, "C": -c}), "mistake_rate",
                 higher_is_better=True)
    assert up.row(top, "d")["marked"] == "best" and up.row("C", "d")["marked"] == ""


def test_runs_that_share_no_permutation_are_never_paired_by_position():
    """Two sweeps with different seeds: permutation p is not the same order in both.
    Paired by position, a constant difference of 0.01 would be significant (p = 0);
    Welch's unpaired test on the same values is far from it."""
    a = np.array([0.10, 0.20, 0.30, 0.40, 0.25])
    b = a + 0.01
    runs = _paired_runs({"A": a}, seed=0) + _paired_runs({"B": b}, seed=1)
    result = compare(runs)
    row = result.row("B", "d")
    assert row["pairing"] == "unpaired" and row["test"] == "Welch's one-sided t-test"
    welch = stats.ttest_ind(b, a, equal_var=False, alternative="greater").pvalue
    assert row["p_value"] == pytest.approx(welch) and welch > 0.4
    assert row["marked"] == "not worse"
    assert any("share no permutation" in n and "cannot be paired" in n for n in result.notes)
    mw = compare(runs, test="wilcoxon").row("B", "d")
    assert mw["p_value"] == pytest.approx(
        stats.mannwhitneyu(b, a, alternative="greater").pvalue)
    # the same seed: paired, and the constant difference is then significant
    paired = compare(_paired_runs({"A": a, "B": b}, seed=0)).row("B", "d")
    assert (paired["pairing"], paired["p_value"], paired["marked"]) == ("paired", 0.0, "")


def test_reproduction_runs_pair_within_their_file_only(tmp_path):
    """A reproduction's runs CSV has no seed column: its permutations pair within the
    file, not with another file's permutation of the same number."""
    def write(path, learners):
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["dataset", "learner", "params", "permutation", "value", "rounds"])
            for name, values in learners.items():
                for p, v in enumerate(values):
                    w.writerow(["a9a", name, '{"B": 400}', p, v, 1500])
    write(tmp_path / "one_runs.csv", {"POMDR": [0.20, 0.21, 0.22], "FOGD": [0.25, 0.26, 0.27]})
    write(tmp_path / "mine_runs.csv", {"Mine": [0.19, 0.20, 0.215]})
    result = compare([tmp_path / "one_runs.csv", tmp_path / "mine_runs.csv"])
    assert result.metric == "value" and result.learners == ["POMDR", "FOGD", "Mine"]
    assert result.row("Mine", "a9a")["marked"] == "best"
    assert result.row("FOGD", "a9a")["pairing"] == "unpaired"
    assert result.row("POMDR", "a9a")["pairing"] == "unpaired"
    within = compare(tmp_path / "one_runs.csv")
    assert within.row("FOGD", "a9a")["pairing"] == "paired"
    assert read_runs(tmp_path / "one_runs.csv")[0]["_config"] == ("params",)


def _swept(tmp_path):
    out = tmp_path / "sweep"
    assert main(["sweep", "--learner", "Perceptron", "--learner", "NORMA", "--learner", "BOGD",
                 "-p", "tau=60", "-p", "B=30", "-p", "lam=0.01", "--data", "xor", "--data",
                 "drifting", "--data", "switching", "--permutations", "4", "--rounds", "400",
                 "--features", "3", "--out", str(out), "--no-progress"]) == 0
    return f"{out}.csv"


def test_a_sweep_compared_from_its_csv_and_from_its_rows(tmp_path, capsys):
    path = _swept(tmp_path)
    capsys.readouterr()
    result = compare(path)
    assert result.learners == ["Perceptron", "NORMA", "BOGD"]
    assert result.datasets == ["xor", "drifting", "switching"]
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    for r in result.rows:                      # each figure recomputed from the CSV
        mine = [float(x["mistake_rate"]) for x in rows
                if x["learner"] == r["learner"] and x["dataset"] == r["dataset"]]
        assert r["mean"] == pytest.approx(np.mean(mine)) and r["n"] == 4
        assert r["std"] == pytest.approx(np.std(mine, ddof=1))
        if r["marked"] != "best":
            top = next(t for t in result.rows if t["dataset"] == r["dataset"]
                       and t["marked"] == "best")
            theirs = [float(x["mistake_rate"]) for x in rows
                      if x["learner"] == top["learner"] and x["dataset"] == r["dataset"]]
            d = np.array(mine) - np.array(theirs)
            expected = (1.0 if d[0] <= 0 else 0.0) if np.all(d == d[0]) else \
                stats.ttest_rel(mine, theirs, alternative="greater").pvalue
            assert r["p_value"] == pytest.approx(expected)
            assert (r["marked"] == "not worse") == (r["p_value"] > 0.05)
    means = np.array([[result.row(n, d)["mean"] for n in result.learners]
                      for d in result.datasets])
    assert [result.average_ranks[n] for n in result.learners] == pytest.approx(
        stats.rankdata(means, axis=1).mean(axis=0).tolist())
    # the same rows from Python (a notebook): the same comparison
    X_rows = [{k: v for k, v in r.items()} for r in rows]
    assert compare(X_rows).rows == result.rows
    frame = result.to_frame()
    assert list(frame.columns)[:9] == ["learner", "dataset", "metric", "mean", "std", "n",
                                       "rank", "p_value", "marked"]


def test_okl_compare_prints_the_table_and_writes_every_output(tmp_path, capsys):
    path = _swept(tmp_path)
    capsys.readouterr()
    out = tmp_path / "res" / "cmp"
    assert main(["compare", path, "--out", str(out), "--control", "perceptron"]) == 0
    text = capsys.readouterr().out
    assert "average rank" in text and "Friedman test over N = 3 datasets, k = 3" in text
    assert "Iman-Davenport" in text and "Nemenyi" in text and "Holm against Perceptron" in text
    for suffix in (".csv", ".tex", ".md", ".json", "-cd.png", "-cd.svg"):
        assert (tmp_path / "res" / f"cmp{suffix}").stat().st_size > 200, suffix
    with open(f"{out}.csv") as fh:
        tidy = list(csv.DictReader(fh))
    assert list(tidy[0])[:9] == ["learner", "dataset", "metric", "mean", "std", "n", "rank",
                                 "p_value", "marked"]
    assert len(tidy) == 9 and {r["metric"] for r in tidy} == {"mistake_rate"}
    assert sum(r["marked"] == "best" for r in tidy) == 3
    summary = json.loads(open(f"{out}.json").read())
    assert summary["control"] == "Perceptron" and len(summary["holm"]) == 2
    tex = open(f"{out}.tex").read()
    assert "\\toprule" in tex and "\\bottomrule" in tex and tex.count("\\textbf{") >= 3
    assert "Average rank" in tex
    md = open(f"{out}.md").read()
    assert md.startswith("| dataset | Perceptron | NORMA | BOGD |") and "**" in md
    assert text.splitlines()[0].split() == ["dataset", "Perceptron", "NORMA", "BOGD"]


def test_latex_and_markdown_marks(tmp_path):
    runs = _paired_runs({"my_learner": [0.10, 0.11, 0.12], "B&B": [0.105, 0.112, 0.121],
                         "C": [0.30, 0.31, 0.32]})
    result = compare(runs)
    assert [r["marked"] for r in result.rows] == ["best", "not worse", ""]
    tex = result.to_latex()
    assert "\\textbf{11.00 $\\pm$ 1.00}" in tex
    assert "\\textbf{\\textit{11.27 $\\pm$ 0.80}}" in tex
    assert "my\\_learner & B\\&B & C" in tex
    md = result.to_markdown()
    assert "| **11.00 ± 1.00** | ***11.27 ± 0.80*** | 31.00 ± 1.00 |" in md
    text = result.format_text()
    assert "11.00 +- 1.00 *" in text and "11.27 +- 0.80 ~" in text


def test_configurations_are_labelled_or_the_best_kept():
    runs = (_paired_runs({"NORMA": [0.20, 0.21, 0.22]}) + _paired_runs({"Perceptron":
                                                                          [0.25, 0.24, 0.26]}))
    for r in runs[:3]:
        r["lam"] = 0.1
    more = _paired_runs({"NORMA": [0.15, 0.16, 0.17]})
    for r in more:
        r["lam"] = 0.01
    # the configuration columns are those before permutation
    runs = [{"dataset": r["dataset"], "learner": r["learner"], "lam": r.get("lam", ""),
             **{k: v for k, v in r.items() if k not in ("dataset", "learner", "lam")}}
            for r in runs + more]
    each = compare(runs)
    assert each.learners == ["NORMA lam=0.1", "Perceptron", "NORMA lam=0.01"]
    best = compare(runs, best=True)
    assert best.learners == ["NORMA", "Perceptron"]
    assert best.row("NORMA", "d")["mean"] == pytest.approx(0.16)
    assert best.row("NORMA", "d")["config"] == "lam=0.01"
    assert any("selected in hindsight" in n for n in best.notes)
    # a reproduction's params (a dict, or its JSON in a runs CSV) name the configuration
    grid = [{"dataset": "d", "learner": "FOGD", "params": params, "permutation": p,
             "value": v} for params, base in (({"eta": 0.1}, 0.2), ('{"eta": 1.0}', 0.3))
            for p, v in enumerate((base, base + 0.01))]
    assert compare(grid).learners == ["FOGD eta=0.1", "FOGD eta=1"]


def test_two_learners_across_datasets_get_wilcoxon_and_one_dataset_no_test():
    runs = []
    for i in range(6):
        runs += _paired_runs({"A": [0.1 + i / 100, 0.11 + i / 100],
                              "B": [0.12 + i / 90, 0.13 + i / 90]}, dataset=f"d{i}")
    result = compare(runs)
    assert result.friedman is None and result.nemenyi is None
    means = np.array([[result.row(n, f"d{i}")["mean"] for n in "AB"] for i in range(6)])
    direct = stats.wilcoxon(means[:, 0], means[:, 1])
    assert result.two_learners["p"] == pytest.approx(direct.pvalue)
    assert result.average_ranks == {"A": 1.0, "B": 2.0}
    one = compare(_paired_runs({"A": [0.1, 0.2], "B": [0.2, 0.3], "C": [0.3, 0.4]}))
    assert one.friedman is None and "one dataset: no test across datasets" in one.notes
    assert one.plot("never") == []


def test_a_learner_missing_on_a_dataset_leaves_that_dataset_out_of_the_ranks():
    runs = []
    for ds in ("d1", "d2", "d3"):
        runs += _paired_runs({"A": [0.1, 0.11], "B": [0.2, 0.21], "C": [0.3, 0.31]}, dataset=ds)
    runs += _paired_runs({"A": [0.5, 0.51], "B": [0.4, 0.41]}, dataset="d4")
    result = compare(runs)
    assert result.ranked_datasets == ["d1", "d2", "d3"] and result.datasets[-1] == "d4"
    assert result.average_ranks == {"A": 1.0, "B": 2.0, "C": 3.0}
    assert result.row("B", "d4")["rank"] == 1.0 and result.row("C", "d4") is None
    assert any("not every learner ran on d4" in n for n in result.notes)


def test_bad_input_is_named():
    runs = _paired_runs({"A": [0.1, 0.2], "B": [0.2, 0.3]})
    with pytest.raises(ValueError, match="--higher-is-better or --lower-is-better"):
        compare(runs, "rounds")
    with pytest.raises(ValueError, match="no column 'accuracy'"):
        compare(runs, "accuracy")
    with pytest.raises(ValueError, match="test must be one of"):
        compare(runs, test="z")
    with pytest.raises(ValueError, match="alpha"):
        compare(runs, alpha=1.5)
    three = runs + _paired_runs({"C": [0.3, 0.4]}) + _paired_runs(
        {"A": [0.1, 0.2], "B": [0.2, 0.3], "C": [0.3, 0.4]}, dataset="e")
    with pytest.raises(ValueError, match="control 'Z' is none of the learners"):
        compare(three, control="Z")
    clash = runs + [{**runs[0], "mistake_rate": 0.9}]
    with pytest.raises(ValueError, match="two different runs of permutation 0"):
        compare(clash)
    same = compare(runs + [dict(runs[0])])
    assert "1 run(s) given twice with the same value are counted once" in same.notes
    with pytest.raises(ValueError, match="needs 'learner' and 'permutation'"):
        compare([{"learner": "A", "mistake_rate_mean": 0.1}])


def test_cli_compare_errors_are_one_line(tmp_path, capsys):
    summary = tmp_path / "s-summary.csv"
    summary.write_text("learner,permutations,mistake_rate_mean\nA,3,0.1\n")
    assert main(["compare", str(summary)]) == 2
    assert "is not a runs CSV" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "missing.csv")]) == 2
    assert "missing.csv" in capsys.readouterr().err
