"""From runs to the paper's table: significance marks, ranks, Friedman and post-hoc tests.

:func:`compare` takes the *runs* of a sweep or a reproduction (one row per learner,
dataset and permutation: ``okl sweep``'s ``PREFIX.csv``, a reproduction's
``STEM_runs.csv``, or the rows of :func:`okl.experiments.sweep.sweep`) and returns a
:class:`Comparison`, which ``okl compare RESULTS...`` prints and writes:

* **Per dataset**, each learner's mean and sample standard deviation (``ddof = 1``) of
  the metric over its permutations; the best mean (lower or higher, by the metric's
  direction) is marked *best* (bold), and every learner whose one-sided test against
  the best does not reject "no worse than the best" at ``alpha`` is marked *not worse*
  (bold italic), as Wang, Crammer & Vucetic (JMLR 2012, Table 3) mark theirs ("not
  significantly worse (p > 0.05, one-sided t-test)").  The test is paired over the
  permutations the two learners share: ``scipy.stats.ttest_rel`` (default) or
  ``scipy.stats.wilcoxon`` (``test="wilcoxon"``), ``alternative="greater"`` on the
  values signed so that larger is worse.
* **Pairing.**  A run's permutation is identified by its number *and* its stream: rows
  with a ``seed`` column (sweeps, whose order ``p`` depends on the seed, ``p`` and the
  stream's length only) pair with every row of the same dataset, seed, ``rounds`` and
  ``p``; rows without one (a reproduction's runs) pair only with rows of the same
  file.  Two learners that share no permutation are not paired, ever (never by
  position): Welch's unpaired t-test (``scipy.stats.ttest_ind(equal_var=False)``), or
  Mann-Whitney's for ``test="wilcoxon"``, and a note says so.
* **Across datasets** (Demsar, JMLR 7, 2006, section 3.2), on the datasets where every
  learner ran: average ranks (1 = best, ties averaged); the Friedman test
  (``scipy.stats.friedmanchisquare``, which corrects for ties; ``tie_correction=False``
  gives Demsar's formula from the average ranks) with the Iman-Davenport correction
  ``F_F = (N - 1) chi2 / (N (k - 1) - chi2)`` on ``k - 1`` and ``(k - 1)(N - 1)``
  degrees of freedom; the Nemenyi test of all pairs
  (``scikit_posthocs.posthoc_nemenyi_friedman``) with its critical difference
  ``CD = q_alpha sqrt(k (k + 1) / (6 N))``, ``q_alpha`` the studentized range quantile
  over ``sqrt(2)``; and Holm's step-down procedure against a control learner
  (``scikit_posthocs.posthoc_demsar``: ``z = (R_i - R_c) / sqrt(k (k + 1) / (6 N))``,
  two-sided normal p-values, Holm-adjusted).  With two learners the Friedman test is
  replaced by Wilcoxon's signed-rank test over the datasets' means, as Demsar advises.
* **Outputs**: the terminal table (:meth:`Comparison.format_text`), a tidy CSV (learner,
  dataset, metric, mean, std, n, rank, p-value against the best, mark), a LaTeX table
  (booktabs; bold and bold italic), a Markdown table, a JSON file of every test, and a
  critical-difference diagram (PNG and SVG, :func:`okl.plotting.plot_critical_difference`).

>>> result = compare("okl-sweep.csv")                     # doctest: +SKIP
>>> print(result.format_text())                           # doctest: +SKIP
>>> result.average_ranks, result.friedman["p"]            # doctest: +SKIP
>>> result.write("comparison")                            # doctest: +SKIP
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["compare", "read_runs", "Comparison", "DIRECTIONS", "critical_difference",
           "friedman_test"]

#: Columns whose direction is known: ``True`` when higher is better.  Any other metric
#: needs ``higher_is_better=`` (``--higher-is-better`` / ``--lower-is-better``).
DIRECTIONS = {"mistake_rate": False, "average_loss": False, "value": False, "seconds": False,
              "final_budget": False, "max_budget": False, "accuracy": True, "auc": True}

TESTS = {"t": ("one-sided paired t-test", "Welch's one-sided t-test"),
         "wilcoxon": ("one-sided Wilcoxon signed-rank test", "one-sided Mann-Whitney U test")}

_NOT_CONFIG = ("dataset", "learner")


# ----------------------------------------------------------------------------------
# Reading runs
# ----------------------------------------------------------------------------------

def read_runs(paths) -> list[dict]:
    """The rows of one or more run CSVs, each with ``_source`` (its file) and
    ``_config`` (the names of its file's configuration columns: those before
    ``permutation``).  Values are strings, as in the file."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    rows = []
    for path in paths:
        with open(path, newline="") as fh:
            reader = csv.DictReader(fh)
            fields = list(reader.fieldnames or ())
            if "permutation" not in fields or "learner" not in fields:
                raise ValueError(f"{path} is not a runs CSV: it needs the columns learner and "
                                 f"permutation, one row per learner, dataset and permutation "
                                 f"(okl sweep's PREFIX.csv, a reproduction's STEM_runs.csv; "
                                 f"a summary has means only)")
            config = tuple(f for f in fields[:fields.index("permutation")]
                           if f not in _NOT_CONFIG)
            for row in reader:
                rows.append({**row, "_source": str(path), "_config": config})
    return rows


def _rows_of(runs) -> list[dict]:
    if isinstance(runs, (str, Path)):
        return read_runs(runs)
    if hasattr(runs, "to_dict") and hasattr(runs, "columns"):       # a DataFrame
        runs = runs.to_dict("records")
    runs = list(runs)
    if runs and all(isinstance(r, (str, Path)) for r in runs):
        return read_runs(runs)
    out = []
    for row in runs:
        if not isinstance(row, dict):
            raise TypeError(f"runs are dicts, CSV paths or a DataFrame, got {type(row)!r}")
        keys = list(row)
        if "permutation" not in keys or "learner" not in keys:
            raise ValueError("a run needs 'learner' and 'permutation' (one row per learner, "
                             f"dataset and permutation); got the keys {keys}")
        config = tuple(k for k in keys[:keys.index("permutation")] if k not in _NOT_CONFIG)
        out.append({**row, "_source": row.get("_source", "rows"),
                    "_config": row.get("_config", config)})
    return out


def _missing(value) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def _as_dict(value):
    """``value`` as a dict when it is one or the JSON text of one, else None."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _text(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{value:g}"
    inner = _as_dict(value)
    if inner is not None:
        return ", ".join(f"{k}={_text(v)}" for k, v in inner.items())
    return str(value)


@dataclass
class _Run:
    dataset: str
    learner: str
    config: tuple          # ((name, text), ...) of the configuration's set columns
    key: tuple             # what identifies the permutation (see the module docstring)
    value: float


def _runs(rows, metric) -> tuple[list[_Run], list[str]]:
    notes, runs, skipped = [], [], 0
    unnamed = set()
    for row in rows:
        value = row.get(metric)
        try:
            value = None if _missing(value) else float(value)
        except (TypeError, ValueError):
            raise ValueError(f"metric {metric!r}: {value!r} (learner {row['learner']}) is not "
                             f"a number") from None
        if value is None or not math.isfinite(value):
            skipped += 1
            continue
        dataset = row.get("dataset")
        if _missing(dataset):
            source = row["_source"]
            dataset = Path(source).stem if source != "rows" else "data"
            unnamed.add(dataset)
        seed, rounds = row.get("seed"), row.get("rounds")
        stream = ("seed", _text(seed)) if not _missing(seed) else ("file", row["_source"])
        key = (int(float(row["permutation"])), *stream,
               "" if _missing(rounds) else int(float(rounds)))
        config = []
        for k in row["_config"]:
            v = row.get(k)
            if not _missing(v):          # a reproduction's params: {"eta": 0.1} -> eta=0.1
                inner = _as_dict(v)
                config += [(k, _text(v))] if inner is None else \
                    [(kk, _text(vv)) for kk, vv in inner.items()]
        config = tuple(config)
        runs.append(_Run(str(dataset), str(row["learner"]), config, key, value))
    if skipped:
        notes.append(f"{skipped} run(s) without a finite {metric} are left out")
    for name in sorted(unnamed):
        notes.append(f"runs without a dataset column are taken as one dataset, {name!r}")
    if not runs:
        raise ValueError(f"no run has a value of {metric!r}")
    return runs, notes


# ----------------------------------------------------------------------------------
# Tests
# ----------------------------------------------------------------------------------

def _one_sided(worse: dict, best: dict, test: str):
    """p-value of "``worse`` is no worse than ``best``" against "it is worse" (values
    signed: larger is worse), the pairing used, and the number of runs compared."""
    from scipy import stats

    shared = [k for k in worse if k in best]
    if shared:
        x = np.array([worse[k] for k in shared])
        y = np.array([best[k] for k in shared])
        if len(shared) < 2:
            return None, "paired", 1
        d = x - y
        if _flat(d, x, y):                           # no spread: the sign decides
            return (1.0 if d.mean() <= _tiny(x, y) else 0.0), "paired", len(shared)
        if test == "t":
            p = stats.ttest_rel(x, y, alternative="greater").pvalue
        else:
            p = stats.wilcoxon(x, y, alternative="greater").pvalue
        return float(p), "paired", len(shared)
    x, y = np.array(list(worse.values())), np.array(list(best.values()))
    if min(x.size, y.size) < 2:
        return None, "unpaired", min(x.size, y.size)
    if test == "t":
        if _flat(x, x, y) and _flat(y, x, y):
            return (1.0 if x.mean() - y.mean() <= _tiny(x, y) else 0.0), "unpaired", \
                min(x.size, y.size)
        p = stats.ttest_ind(x, y, equal_var=False, alternative="greater").pvalue
    else:
        p = stats.mannwhitneyu(x, y, alternative="greater").pvalue
    return float(p), "unpaired", min(x.size, y.size)


def _tiny(x, y) -> float:
    """What rounding leaves of a difference between values of the size of ``x`` and
    ``y``."""
    return 1e-9 * max(float(np.max(np.abs(x))), float(np.max(np.abs(y))), 1e-300)


def _flat(values, x, y) -> bool:
    """Whether ``values`` have no spread beyond rounding (where a test's variance is
    zero and scipy's p-value is 0, nan or rounding noise)."""
    return float(np.ptp(values)) <= _tiny(x, y)


def critical_difference(k: int, n_datasets: int, alpha: float = 0.05) -> tuple[float, float]:
    """``(CD, q_alpha)`` of the Nemenyi test for ``k`` learners on ``n_datasets``
    datasets (Demsar 2006, section 3.2.2): ``q_alpha`` is the studentized range
    statistic's ``1 - alpha`` quantile (``k`` groups, infinite degrees of freedom,
    ``scipy.stats.studentized_range``) over ``sqrt(2)``."""
    from scipy import stats

    q = float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))
    return q * math.sqrt(k * (k + 1) / (6.0 * n_datasets)), q


def friedman_test(signed, tie_correction: bool = True) -> dict:
    """The Friedman test and its Iman-Davenport correction on an ``N x k`` matrix
    (datasets x learners, smaller is better).  ``tie_correction=True``:
    ``scipy.stats.friedmanchisquare``; ``False``: Demsar's (2006) formula from the
    average ranks, ``12 N / (k (k + 1)) (sum R_j^2 - k (k + 1)^2 / 4)`` (the same
    when no dataset has ties)."""
    from scipy import stats

    signed = np.asarray(signed, dtype=float)
    N, k = signed.shape
    R = stats.rankdata(signed, axis=1).mean(axis=0)
    if tie_correction:
        with np.errstate(invalid="ignore", divide="ignore"):
            res = stats.friedmanchisquare(*signed.T)
        chi2 = 0.0 if not math.isfinite(res.statistic) else float(res.statistic)
    else:
        chi2 = float(12 * N / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4))
    p = float(stats.chi2.sf(chi2, k - 1))
    denominator = N * (k - 1) - chi2
    ff = math.inf if denominator <= 0 else (N - 1) * chi2 / denominator
    df1, df2 = k - 1, (k - 1) * (N - 1)
    ff_p = 0.0 if math.isinf(ff) else float(stats.f.sf(ff, df1, df2))
    return {"chi2": chi2, "p": p, "df": k - 1, "ff": ff, "ff_p": ff_p, "ff_df": [df1, df2],
            "n_datasets": N, "k": k, "tie_correction": bool(tie_correction),
            "average_ranks": R.tolist()}


# ----------------------------------------------------------------------------------
# The comparison
# ----------------------------------------------------------------------------------

@dataclass
class Comparison:
    """What :func:`compare` found (see the module docstring).

    ``rows``: one dict per learner and dataset (``learner``, ``dataset``, ``metric``,
    ``mean``, ``std``, ``n``, ``rank``, ``p_value`` against the dataset's best,
    ``marked`` (``"best"``, ``"not worse"`` or ``""``), ``test``, ``pairing``);
    ``average_ranks``: ``{learner: rank}`` over ``ranked_datasets`` (those where every
    learner ran); ``friedman``, ``nemenyi`` (``cd``, ``q_alpha``, ``pvalues[a][b]``),
    ``holm`` (one dict per learner against ``control``) and ``two_learners`` (the
    Wilcoxon signed-rank test over datasets when there are two learners) are ``None``
    when they do not apply; ``notes`` say what was left out and why.
    """

    metric: str
    higher_is_better: bool
    test: str
    alpha: float
    learners: list
    datasets: list
    rows: list
    average_ranks: dict = field(default_factory=dict)
    ranked_datasets: list = field(default_factory=list)
    friedman: dict | None = None
    nemenyi: dict | None = None
    control: str | None = None
    holm: list | None = None
    two_learners: dict | None = None
    notes: list = field(default_factory=list)

    # -- access --------------------------------------------------------------------
    def row(self, learner: str, dataset: str) -> dict | None:
        return next((r for r in self.rows if r["learner"] == learner
                     and r["dataset"] == dataset), None)

    def to_frame(self):
        """The tidy table as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=_CSV_FIELDS + [
            c for c in ("config",) if any(c in r for r in self.rows)])

    def to_dict(self) -> dict:
        """Everything, JSON-ready (the ``PREFIX.json`` that :meth:`write` writes)."""
        return _json_safe({
            "metric": self.metric, "higher_is_better": self.higher_is_better,
            "test": self.test, "alpha": self.alpha, "learners": self.learners,
            "datasets": self.datasets, "rows": self.rows,
            "average_ranks": self.average_ranks, "ranked_datasets": self.ranked_datasets,
            "friedman": self.friedman, "nemenyi": self.nemenyi, "control": self.control,
            "holm": self.holm, "two_learners": self.two_learners, "notes": self.notes})

    # -- the table in three forms ----------------------------------------------------
    @property
    def percent(self) -> bool:
        return self.metric == "mistake_rate"

    def _cell(self, r, pm) -> str:
        if r is None:
            return "-"
        scale = 100.0 if self.percent else 1.0
        if self.percent:
            return f"{scale * r['mean']:.2f} {pm} {scale * r['std']:.2f}"
        return f"{r['mean']:.4g} {pm} {r['std']:.2g}"

    def _unit(self) -> str:
        return f"{self.metric} (%)" if self.percent else self.metric

    def _legend(self) -> str:
        paired, unpaired = TESTS[self.test]
        better = "higher" if self.higher_is_better else "lower"
        return (f"mean and standard deviation of {self._unit()} over the permutations "
                f"({better} is better); best mean: bold; not significantly worse than the "
                f"best ({paired} over the shared permutations, p > {self.alpha:g}; "
                f"{unpaired} where none is shared): bold italic")

    def _marked_cells(self, dataset, pm, styles) -> list:
        """Each learner's cell on ``dataset`` (mean ``pm`` std), formatted by its mark:
        ``styles`` maps "best", "not worse" and "" (no mark, or no runs) to a format with
        one ``{}``, so the terminal, Markdown and LaTeX tables mark alike."""
        out = []
        for name in self.learners:
            r = self.row(name, dataset)
            out.append(styles[(r["marked"] if r else "") or ""].format(self._cell(r, pm)))
        return out

    def format_text(self) -> str:
        """The table as the terminal shows it: ``*`` best, ``~`` not significantly
        worse than the best; then the tests across datasets."""
        head = ["dataset"] + list(self.learners)
        body = []
        for ds in self.datasets:
            body.append([ds] + self._marked_cells(ds, "+-", {"best": "{} *", "not worse":
                                                              "{} ~", "": "{}  "}))
        if self.average_ranks:
            body.append(["average rank"] + [f"{self.average_ranks[n]:.2f}  "
                                            for n in self.learners])
        widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                           for i, (c, w) in enumerate(zip(row, widths))).rstrip()
                 for row in [head] + body]
        lines.insert(1, "  ".join("-" * w for w in widths))
        if self.average_ranks:
            lines.insert(len(lines) - 1, lines[1])
        lines.append(f"({self._legend().replace('bold italic', '~').replace('bold', '*')})")
        lines += self.test_lines()
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def test_lines(self) -> list[str]:
        """The tests across datasets, one sentence each."""
        out = []
        N = len(self.ranked_datasets)
        if self.two_learners:
            t = self.two_learners
            out.append(f"Wilcoxon signed-rank test over the {N} datasets' means "
                       f"({' vs '.join(self.learners)}): W = {t['statistic']:g}, "
                       f"p = {_p(t['p'])}")
        if self.friedman:
            f = self.friedman
            ties = "tie-corrected, " if f["tie_correction"] else ""
            out.append(f"Friedman test over N = {N} datasets, k = {f['k']} learners: "
                       f"chi2_F = {f['chi2']:.2f} ({ties}df {f['df']}), p = {_p(f['p'])}; "
                       f"Iman-Davenport F_F = {f['ff']:.2f} (df {f['ff_df'][0]}, "
                       f"{f['ff_df'][1]}), p = {_p(f['ff_p'])}")
            if f["ff_p"] >= self.alpha:
                out.append(f"  (no difference at alpha = {self.alpha:g}: the post-hoc tests "
                           f"below are not to be read as findings)")
        if self.nemenyi:
            nm = self.nemenyi
            pairs = [f"{a} / {b} (p = {_p(nm['pvalues'][a][b])})"
                     for i, a in enumerate(self.learners) for b in self.learners[i + 1:]
                     if nm["pvalues"][a][b] < self.alpha]
            out.append(f"Nemenyi, alpha = {self.alpha:g}: CD = {nm['cd']:.3f} (q_alpha = "
                       f"{nm['q_alpha']:.3f}); pairs whose average ranks differ by more: "
                       + (", ".join(pairs) if pairs else "none"))
        if self.holm:
            parts = [f"{h['learner']} z = {h['z']:+.2f}, p = {_p(h['p'])}, Holm p = "
                     f"{_p(h['p_holm'])}{' *' if h['significant'] else ''}" for h in self.holm]
            out.append(f"Holm against {self.control} (two-sided, * significant at "
                       f"alpha = {self.alpha:g}): " + "; ".join(parts))
        return out

    def to_markdown(self) -> str:
        """A Markdown table: best ``**bold**``, not significantly worse ``***bold
        italic***``, the average ranks, then the tests."""
        head = ["dataset"] + [_md(n) for n in self.learners]
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join([":---"] + ["---:"] * len(self.learners)) + "|"]
        for ds in self.datasets:
            cells = [_md(ds)] + self._marked_cells(ds, "±", {"best": "**{}**",
                                                             "not worse": "***{}***",
                                                             "": "{}"})
            lines.append("| " + " | ".join(cells) + " |")
        if self.average_ranks:
            lines.append("| average rank | " + " | ".join(
                f"{self.average_ranks[n]:.2f}" for n in self.learners) + " |")
        lines += ["", self._legend().replace("bold italic", "***bold italic***")
                  .replace("bold;", "**bold**;") + "."]
        lines += [""] + [f"* {line.strip()}" for line in self.test_lines()]
        return "\n".join(lines).rstrip() + "\n"

    def to_latex(self, caption: str | None = None, label: str = "tab:okl-compare") -> str:
        """A LaTeX table (``\\usepackage{booktabs}``): datasets in rows, learners in
        columns, the best mean in ``\\textbf``, those not significantly worse in
        ``\\textbf{\\textit{...}}``, the average ranks in the last row."""
        cols = "l" + "c" * len(self.learners)
        lines = ["% okl compare; needs \\usepackage{booktabs}", "\\begin{table}[t]",
                 "\\centering", f"\\caption{{{_tex(caption or self._caption())}}}",
                 f"\\label{{{label}}}", f"\\begin{{tabular}}{{{cols}}}", "\\toprule",
                 "Dataset & " + " & ".join(_tex(n) for n in self.learners) + " \\\\",
                 "\\midrule"]
        for ds in self.datasets:
            cells = [_tex(ds)] + self._marked_cells(
                ds, "$\\pm$", {"best": "\\textbf{{{}}}",
                               "not worse": "\\textbf{{\\textit{{{}}}}}", "": "{}"})
            lines.append(" & ".join(cells) + " \\\\")
        if self.average_ranks:
            lines += ["\\midrule", "Average rank & " + " & ".join(
                f"{self.average_ranks[n]:.2f}" for n in self.learners) + " \\\\"]
        lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
        return "\n".join(lines) + "\n"

    def _caption(self) -> str:
        text = self._legend().replace("bold italic", "in bold italic").replace(
            "bold;", "in bold;")
        text = "M" + text[1:] + "."
        if self.friedman:
            f = self.friedman
            text += (f" Friedman test over {f['n_datasets']} datasets: p = {_p(f['p'])}"
                     f" (Iman-Davenport p = {_p(f['ff_p'])}).")
        if self.nemenyi:
            text += f" Nemenyi critical difference at {self.alpha:g}: {self.nemenyi['cd']:.2f}."
        return text

    # -- files -------------------------------------------------------------------------
    def write_csv(self, path) -> Path:
        fields = _CSV_FIELDS + [c for c in ("config",) if any(c in r for r in self.rows)]
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore", restval="")
        writer.writeheader()
        for r in self.rows:
            writer.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in fields})
        from okl.experiments.executor import atomic_write

        atomic_write(path, buf.getvalue(), newline="")
        return Path(path)

    def figure(self):
        """The critical-difference diagram (a matplotlib figure; ``None`` when there is
        no Nemenyi test: fewer than three learners or two datasets)."""
        if not self.nemenyi:
            return None
        from okl.plotting import plot_critical_difference

        N = len(self.ranked_datasets)
        return plot_critical_difference(
            self.average_ranks, self.nemenyi["pvalues"], cd=self.nemenyi["cd"],
            alpha=self.alpha,
            title=f"{self.metric}: average ranks over {N} datasets (Nemenyi, "
                  f"alpha = {self.alpha:g}, CD = {self.nemenyi['cd']:.2f})")

    def plot(self, stem) -> list[Path]:
        """:meth:`figure` saved as ``stem.png`` and ``stem.svg`` ([] without one)."""
        fig = self.figure()
        if fig is None:
            return []
        from okl.plotting import save_figure

        return save_figure(fig, stem)

    def write(self, prefix) -> list[Path]:
        """``PREFIX.csv``, ``.tex``, ``.md``, ``.json`` and ``PREFIX-cd.png``/``.svg``."""
        from okl.experiments.executor import atomic_write

        prefix = Path(prefix)
        prefix.parent.mkdir(parents=True, exist_ok=True)
        stem = str(prefix)
        files = [self.write_csv(stem + ".csv")]
        for suffix, text in ((".tex", self.to_latex()), (".md", self.to_markdown()),
                             (".json", json.dumps(self.to_dict(), indent=1) + "\n")):
            atomic_write(stem + suffix, text)
            files.append(Path(stem + suffix))
        return files + self.plot(stem + "-cd")


_CSV_FIELDS = ["learner", "dataset", "metric", "mean", "std", "n", "rank", "p_value", "marked",
               "test", "pairing"]


def _p(p) -> str:
    if p is None:
        return "-"
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.1e}"


def _md(text) -> str:
    return str(text).replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


_TEX = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#",
        "_": "\\_", "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}",
        "^": "\\textasciicircum{}"}


def _tex(text) -> str:
    return "".join(_TEX.get(c, c) for c in str(text))


def _json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    return obj


def compare(runs, metric: str | None = None, *, higher_is_better: bool | None = None,
            test: str = "t", alpha: float = 0.05, control: str | None = None,
            best: bool = False, tie_correction: bool = True) -> Comparison:
    """Compare the learners of ``runs`` per dataset and across datasets.

    Parameters
    ----------
    runs : path, list of paths, list of dicts or DataFrame
        Run CSVs (``okl sweep``'s ``PREFIX.csv``, a reproduction's ``STEM_runs.csv``) or
        their rows: one per learner, dataset and permutation, with ``learner`` and
        ``permutation``; ``dataset`` (else one dataset); ``seed`` and ``rounds`` when
        the runs of several sources pair (module docstring).  The columns before
        ``permutation`` other than ``dataset`` are the configuration: a learner run
        with several configurations is compared once per configuration, labelled by
        the parameters that differ (``NORMA lam=0.01``), unless ``best``.
    metric : str
        The column compared: ``mistake_rate`` by default (``value`` for a
        reproduction's runs, ``average_loss`` for regression); any numeric column.
    higher_is_better : bool or None
        The metric's direction; known for okl's columns (:data:`DIRECTIONS`), needed
        for any other.
    test : ``"t"`` or ``"wilcoxon"``
        The one-sided test against each dataset's best: paired t-test or Wilcoxon
        signed-rank (unpaired: Welch or Mann-Whitney, where no permutation is shared).
    alpha : float
        The level of every test.
    control : str or None
        The learner Holm's procedure compares the others with (default: the best
        average rank).
    best : bool
        Keep, per learner and dataset, the configuration of best mean only (a grid
        point selected in hindsight, as the papers select theirs; it favours learners
        with larger grids).
    tie_correction : bool
        The Friedman statistic corrected for ties (``scipy.stats.friedmanchisquare``;
        default) or Demsar's formula from the average ranks.
    """
    from scipy import stats

    if test not in TESTS:
        raise ValueError(f"test must be one of {sorted(TESTS)}, got {test!r}")
    if not 0 < float(alpha) < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    rows = _rows_of(runs)
    if not rows:
        raise ValueError("no runs to compare")
    if metric is None:
        metric = next((m for m in ("mistake_rate", "value", "average_loss")
                       if any(not _missing(r.get(m)) for r in rows)), None)
        if metric is None:
            raise ValueError("no mistake_rate, value or average_loss column: name the "
                             "metric (--metric)")
    elif not any(metric in r for r in rows):
        columns = sorted({k for r in rows for k in r if not k.startswith("_")})
        raise ValueError(f"no column {metric!r} in the runs; their columns: {columns}")
    if higher_is_better is None:
        if metric not in DIRECTIONS:
            raise ValueError(f"is a higher {metric} better or worse? say so "
                             f"(--higher-is-better or --lower-is-better; "
                             f"higher_is_better=True/False)")
        higher_is_better = DIRECTIONS[metric]
    sign = -1.0 if higher_is_better else 1.0
    all_runs, notes = _runs(rows, metric)
    cells, labels, datasets, chosen = _cells(all_runs, best, sign, notes)

    out_rows, untested, unpaired = [], 0, {}
    for ds in datasets:
        present = [n for n in labels if (n, ds) in cells]
        means = {n: float(np.mean(list(cells[n, ds].values()))) for n in present}
        top = min(present, key=lambda n: sign * means[n])
        ranks = stats.rankdata([sign * means[n] for n in present])
        for n, rank in zip(present, ranks):
            values = np.array(list(cells[n, ds].values()))
            row = {"learner": n, "dataset": ds, "metric": metric, "mean": means[n],
                   "std": float(values.std(ddof=1)) if values.size > 1 else 0.0,
                   "n": int(values.size), "rank": float(rank), "p_value": None,
                   "marked": "best" if n == top else "", "test": "", "pairing": ""}
            if n != top:
                signed = {k: sign * v for k, v in cells[n, ds].items()}
                signed_top = {k: sign * v for k, v in cells[top, ds].items()}
                p, pairing, m = _one_sided(signed, signed_top, test)
                row.update(p_value=p, pairing=pairing,
                           test=TESTS[test][0 if pairing == "paired" else 1])
                if p is not None and p > alpha:
                    row["marked"] = "not worse"
                if p is None:
                    untested += 1
                elif pairing == "unpaired":
                    unpaired.setdefault((n, top), []).append(ds)
                elif m < min(len(cells[n, ds]), len(cells[top, ds])):
                    notes.append(f"{ds}: {n} and {top} share {m} of their permutations: "
                                 f"paired on those")
            if (n, ds) in chosen:
                row["config"] = chosen[n, ds]
            out_rows.append(row)

    for (n, top), where in unpaired.items():
        notes.append(f"{n} and {top} share no permutation on {', '.join(where)}: they cannot "
                     f"be paired; {TESTS[test][1]} instead")
    if untested:
        notes.append(f"{untested} learner(s) with fewer than two runs to compare with their "
                     f"dataset's best (one permutation?): not tested, not marked")
    result = Comparison(metric, bool(higher_is_better), test, float(alpha), labels, datasets,
                        out_rows, notes=notes)
    _across(result, cells, sign, control, tie_correction)
    return result


def _cells(all_runs, best, sign, notes):
    """``{(label, dataset): {key: value}}``, the labels and datasets in order of
    appearance, and the configuration kept per (label, dataset) when ``best``."""
    configs: dict = {}
    for r in all_runs:
        configs.setdefault(r.learner, {}).setdefault(r.config, None)
    label_of = {}
    for learner, seen in configs.items():
        if len(seen) == 1 or best:
            for c in seen:
                label_of[learner, c] = learner
            continue
        varying = [k for k in dict.fromkeys(k for c in seen for k, _ in c)
                   if len({dict(c).get(k) for c in seen}) > 1]
        for c in seen:
            label_of[learner, c] = f"{learner} " + ", ".join(
                f"{k}={dict(c).get(k, '-')}" for k in varying)
    groups: dict = {}
    twice = 0
    for r in all_runs:
        cell = groups.setdefault((label_of[r.learner, r.config], r.config, r.dataset), {})
        if r.key in cell:
            if cell[r.key] != r.value:
                raise ValueError(f"{r.learner} ({_text(dict(r.config)) or 'no parameters'}) "
                                 f"on {r.dataset} has two different runs of permutation "
                                 f"{r.key[0]} ({cell[r.key]} and {r.value}): give each run "
                                 f"once")
            twice += 1
            continue
        cell[r.key] = r.value
    if twice:
        notes.append(f"{twice} run(s) given twice with the same value are counted once")
    cells, chosen = {}, {}
    for (label, config, ds), values in groups.items():
        if best and (label, ds) in cells:
            mean_new = sign * np.mean(list(values.values()))
            if mean_new >= sign * np.mean(list(cells[label, ds].values())):
                continue
        cells[label, ds] = values
        if best:
            chosen[label, ds] = _text(dict(config))
    labels = list(dict.fromkeys(label for label, _ in cells))
    datasets = list(dict.fromkeys(ds for _, ds in cells))
    multi = [learner for learner, seen in configs.items() if len(seen) > 1]
    if multi and best:
        notes.append(f"--best: {', '.join(multi)} shown at the configuration of best mean on "
                     f"each dataset (selected in hindsight; column config)")
    elif multi:
        notes.append(f"{', '.join(multi)}: several configurations, each compared as a learner "
                     f"of its own (--best keeps each learner's best per dataset)")
    return cells, labels, datasets, chosen


def _across(result: Comparison, cells, sign, control, tie_correction) -> None:
    """The tests across datasets (module docstring), into ``result``."""
    from scipy import stats

    labels, k = result.learners, len(result.learners)
    ranked = [ds for ds in result.datasets if all((n, ds) in cells for n in labels)]
    left = [ds for ds in result.datasets if ds not in ranked]
    if left and k > 1:
        result.notes.append(f"not every learner ran on {', '.join(left)}: the ranks and tests "
                            f"across datasets leave it out")
    if k < 2 or not ranked:
        return
    M = np.array([[sign * float(np.mean(list(cells[n, ds].values()))) for n in labels]
                  for ds in ranked])
    N = len(ranked)
    R = stats.rankdata(M, axis=1).mean(axis=0)
    result.average_ranks = {n: float(r) for n, r in zip(labels, R)}
    result.ranked_datasets = ranked
    if N < 2:
        result.notes.append("one dataset: no test across datasets")
        return
    if k == 2:
        d = M[:, 0] - M[:, 1]
        if np.all(d == 0):
            stat, p = 0.0, 1.0
        else:
            res = stats.wilcoxon(M[:, 0], M[:, 1])
            stat, p = float(res.statistic), float(res.pvalue)
        result.two_learners = {"test": "Wilcoxon signed-rank over datasets (two-sided)",
                               "statistic": stat, "p": p, "n_datasets": N}
        return
    result.friedman = friedman_test(M, tie_correction)
    import pandas as pd
    import scikit_posthocs as sp

    frame = pd.DataFrame(M, columns=labels)
    nemenyi = sp.posthoc_nemenyi_friedman(frame).reindex(index=labels, columns=labels)
    cd, q = critical_difference(k, N, result.alpha)
    result.nemenyi = {"cd": cd, "q_alpha": q, "pvalues": {
        a: {b: float(nemenyi.loc[a, b]) for b in labels} for a in labels}}
    if control is None:
        control = min(labels, key=lambda n: result.average_ranks[n])
        result.notes.append(f"Holm's control: {control}, the best average rank (--control "
                            f"names another)")
    else:
        control = _label(control, labels)
    result.control = control
    raw = sp.posthoc_demsar(frame, control=control, to_matrix=False)
    holm = sp.posthoc_demsar(frame, control=control, p_adjust="holm", to_matrix=False)
    se = math.sqrt(k * (k + 1) / (6.0 * N))
    result.holm = [{"learner": n, "z": (result.average_ranks[n] - result.average_ranks[control])
                    / se, "p": float(raw[control, n]), "p_holm": float(holm[control, n]),
                    "significant": bool(holm[control, n] < result.alpha)}
                   for n in labels if n != control]


def _label(name: str, labels: list) -> str:
    if name in labels:
        return name
    lower = [n for n in labels if n.lower() == str(name).lower()]
    if len(lower) == 1:
        return lower[0]
    raise ValueError(f"control {name!r} is none of the learners compared: {labels}")
