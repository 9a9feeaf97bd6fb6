"""Sec. VI of Kivinen, Smola & Williamson, *Online Learning with Kernels* (IEEE TSP 2004).

``norma-fig2``: cumulative mistakes on drifting and switching data (Fig. 2).
``norma-fig3``: online novelty detection on handwritten digits (Fig. 3).
"""
from __future__ import annotations

import itertools
import json
import math
import time
from pathlib import Path

import numpy as np

from okl.datasets.drifting import drifting_mixture
from okl.experiments import register
from okl.kernels import Gaussian
from okl.learners.alma import ALMA
from okl.learners.norma import NORMA
from okl.learners.perceptron import Perceptron
from okl.plotting import plot_cumulative_mistakes, plot_image_grid, save_figure

__all__ = ["norma_fig2", "norma_fig3", "fig2_learners", "fig2_grid", "FIG2_PARAMS",
           "FIG2_GRID", "FIG2_TUNING_SEEDS"]

# ----------------------------------------------------------------------------
# Fig. 2: drifting and switching data
# ----------------------------------------------------------------------------

FIG2_ALGORITHMS = ("NORMA_lam_rho", "NORMA_lam_0", "Perceptron", "ALMA_2", "ALMA_0")
FIG2_LABELS = {
    "NORMA_lam_rho": r"NORMA$_{\lambda,\rho}$",
    "NORMA_lam_0": r"NORMA$_{\lambda,0}$",
    "Perceptron": "Perceptron",
    "ALMA_2": r"ALMA$_2$",
    "ALMA_0": r"ALMA$_0$",
}

# "The parameters of the algorithms were tuned by hand optimally for each example
# distribution" (Sec. VI-A).  Here: the grid below, scored by the total mistakes over
# 10,000 rounds on the three tuning seeds FIG2_TUNING_SEEDS (never the evaluation seed
# of norma_fig2, 0 by default), per schedule; ``fig2_grid`` reruns it.
#
# NORMA uses eta = 1: with the soft margin loss the margin errors depend only on
# eta * lam and rho / eta (scaling eta and rho together scales f), so fixing eta
# loses nothing.  Every algorithm uses a Gaussian kernel whose width is tuned too.
FIG2_TUNING_SEEDS = (101, 102, 103)
FIG2_GRID = {
    "NORMA_lam_rho": dict(sigma=[0.25, 0.5, 1.0, 2.0], lam=[0.001, 0.003, 0.01, 0.03, 0.1],
                          rho=[0.3, 1.0, 3.0, 10.0]),
    "NORMA_lam_0": dict(sigma=[0.25, 0.5, 1.0, 2.0],
                        lam=[0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1]),
    "Perceptron": dict(sigma=[0.25, 0.5, 1.0, 2.0]),
    "ALMA_2": dict(sigma=[0.25, 0.5, 1.0, 2.0], alpha=[0.05, 0.1, 0.3, 0.5, 0.7, 0.9],
                   C=[0.5, math.sqrt(2.0), 4.0, 8.0, 16.0]),
    "ALMA_0": dict(sigma=[0.25, 0.5, 1.0, 2.0], C=[0.5, math.sqrt(2.0), 4.0, 8.0, 16.0]),
}
# The winners of FIG2_GRID: ``fig2_grid(schedule)``; the trailing comments give the
# total mistakes over the three tuning streams (10,000 rounds each).  Some sit on an
# edge of the grid, where the totals around them differ by a few mistakes only.
FIG2_PARAMS = {
    "drift": {
        "NORMA_lam_rho": dict(sigma=0.5, lam=0.03, rho=10.0),      # 34
        "NORMA_lam_0": dict(sigma=1.0, lam=0.0003),                 # 184
        "Perceptron": dict(sigma=1.0),                              # 173
        "ALMA_2": dict(sigma=0.25, alpha=0.05, C=8.0),              # 50
        "ALMA_0": dict(sigma=1.0, C=math.sqrt(2.0)),                # 176
    },
    "switch": {
        "NORMA_lam_rho": dict(sigma=0.5, lam=0.03, rho=1.0),       # 167
        "NORMA_lam_0": dict(sigma=1.0, lam=0.001),                  # 231
        "Perceptron": dict(sigma=1.0),                              # 294
        "ALMA_2": dict(sigma=0.5, alpha=0.3, C=8.0),                # 211
        "ALMA_0": dict(sigma=0.5, C=8.0),                           # 265
    },
}


def fig2_learners(params: dict) -> dict:
    """Fresh learners ``{algorithm: learner}`` from ``{algorithm: parameters}``."""
    out = {}
    for name, p in params.items():
        kernel = Gaussian(p["sigma"])
        if name == "NORMA_lam_rho":
            out[name] = NORMA(kernel=kernel, loss="soft_margin", eta=1.0, lam=p["lam"],
                              rho=p["rho"])
        elif name == "NORMA_lam_0":
            out[name] = NORMA(kernel=kernel, loss="soft_margin", eta=1.0, lam=p["lam"],
                              rho=0.0)
        elif name == "Perceptron":
            out[name] = Perceptron(kernel=kernel)
        elif name == "ALMA_2":
            out[name] = ALMA(kernel=kernel, alpha=p["alpha"], C=p["C"])
        elif name == "ALMA_0":
            out[name] = ALMA(kernel=kernel, alpha=1.0, C=p["C"])
        else:
            raise ValueError(f"unknown Fig. 2 algorithm {name!r}")
    return out


def fig2_grid(schedule: str, *, seeds=FIG2_TUNING_SEEDS, n_rounds: int = 10_000,
              algorithms=FIG2_ALGORITHMS) -> dict:
    """Rerun the tuning of ``FIG2_PARAMS``: every point of ``FIG2_GRID`` on ``seeds``.

    Returns ``{algorithm: {"best": params, "mistakes": total, "table": [(params,
    total), ...]}}`` with the table sorted by total mistakes (ties: first in grid order).
    """
    streams = [drifting_mixture(n_rounds, schedule, seed=s) for s in seeds]
    out = {}
    for name in algorithms:
        grid = FIG2_GRID[name]
        keys = list(grid)
        table = []
        for values in itertools.product(*(grid[k] for k in keys)):
            p = dict(zip(keys, values))
            total = 0
            for X, y in streams:
                total += fig2_learners({name: p})[name].run(X, y).n_mistakes
            table.append((p, total))
        table.sort(key=lambda row: row[1])
        out[name] = {"best": table[0][0], "mistakes": table[0][1], "table": table}
    return out


@register("norma-fig2")
def norma_fig2(out_dir, quick: bool = False, seed: int = 0) -> dict:
    """Fig. 2: cumulative mistakes on drifting (top) and switching (bottom) data.

    NORMA_{lam,rho} (soft margin with margin rho and decay lam), NORMA_{lam,0},
    the kernel Perceptron, ALMA_2 and ALMA_0 (margin fixed at zero, alpha = 1), with
    the hand-tuned ``FIG2_PARAMS``, on ``drifting_mixture(n_rounds, schedule,
    seed=seed)``: 10,000 rounds (3,000 with ``quick``).  Writes ``norma_fig2.png``/
    ``.svg`` and ``norma_fig2.json``; returns the final mistake counts per algorithm
    and stream together with the parameters used.
    """
    plt = _pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    n_rounds = 3_000 if quick else 10_000
    start = time.perf_counter()
    fig, axes = plt.subplots(2, 1, figsize=(7, 8), sharex=True)
    summary = {"n_rounds": n_rounds, "seed": seed, "mistakes": {}, "support_vectors": {},
               "params": FIG2_PARAMS, "tuning_seeds": list(FIG2_TUNING_SEEDS)}
    for ax, schedule, title in zip(axes, ("drift", "switch"),
                                   ("drifting data", "switching data")):
        X, y = drifting_mixture(n_rounds, schedule, seed=seed)
        traces = {}
        for name, learner in fig2_learners(FIG2_PARAMS[schedule]).items():
            traces[name] = learner.run(X, y)
        plot_cumulative_mistakes({FIG2_LABELS[k]: tr for k, tr in traces.items()},
                                 title=f"{title} (seed {seed})", ax=ax)
        summary["mistakes"][schedule] = {k: tr.n_mistakes for k, tr in traces.items()}
        summary["support_vectors"][schedule] = {k: tr.final_budget for k, tr in traces.items()}
    axes[0].set_xlabel("")
    files = save_figure(fig, out_dir / "norma_fig2")
    summary["seconds"] = time.perf_counter() - start
    summary["files"] = [str(p) for p in files] + [str(out_dir / "norma_fig2.json")]
    (out_dir / "norma_fig2.json").write_text(json.dumps(summary, indent=2))
    return summary


# ----------------------------------------------------------------------------
# Fig. 3: online novelty detection on digits
# ----------------------------------------------------------------------------

FIG3_NU = 0.01            # caption: nu = 0.01
FIG3_WIDTH = 0.5          # caption: Gaussian RBF width 2 sigma^2 = 0.5 d (= 128 for USPS)
# Caption: "The learning rate was 1/sqrt(t)", i.e. eta_t = eta / sqrt(t) with eta = 1,
# and lam = 1, the setting under which (20) is written.  NORMA's validation asks for
# eta * lam < 1 (the condition eta_t < 1/lambda of eq. (9), which the paper's own
# setting meets with equality at t = 1 only, where there is nothing to decay yet);
# eta is therefore the double just below 1, 1 - 2**-53: every step eta_t and decay
# 1 - eta_t are the paper's to rounding (tests/test_norma_experiments.py checks the
# run against the recursion (20) with eta_t = 1 / sqrt(t) exactly).
FIG3_ETA = float(np.nextafter(1.0, 0.0))
FIG3_LAM = 1.0
FIG3_RHO0 = 1.0           # initial rho (not given in the paper; with rho_1 = 0 there is
                          # never an alert: f_t = 0 is never < rho_t <= 0)
FIG3_TEST_FRACTION = 0.2  # held-out part of the 8x8 stand-in
FIG3_USPS_TEST = 2007     # USPS: 7291 training, 2007 test digits (Sec. VI-B)


def _fig3_learner(d: int) -> NORMA:
    """NORMA with the novelty loss (20) and the Fig. 3 settings for ``d`` pixels."""
    sigma = math.sqrt(FIG3_WIDTH * d / 2.0)  # 2 sigma^2 = 0.5 d
    return NORMA(kernel=Gaussian(sigma), loss="novelty", nu=FIG3_NU, schedule="sqrt",
                 eta=FIG3_ETA, lam=FIG3_LAM, rho=FIG3_RHO0)


def _digits(seed: int, quick: bool):
    """scikit-learn's 8x8 digits in [-1, 1], shuffled and split into train / held-out."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    X = digits.data / 8.0 - 1.0
    order = np.random.default_rng(seed).permutation(len(X))
    n_test = int(round(FIG3_TEST_FRACTION * len(X)))
    test, train = order[:n_test], order[n_test:]
    if quick:
        train, test = train[:1000], test[:200]
    return X[train], digits.target[train], X[test], digits.target[test]


def _usps(seed: int):
    """USPS ``(Xtr, digit_tr, Xte, digit_te, held_out, steps)`` through
    ``okl.datasets.paper_data("usps", "norma")`` (``DatasetNotFoundError`` when the
    file is missing).

    The stream is the training file (``usps``, 7291 digits) in its published order,
    the held-out part the test file (``usps.t``, 2007 digits).  Without ``usps.t``,
    2007 digits of the training file (at most a fifth of it), drawn with ``seed``, are
    held out instead (the rest keeps its published order).  ``y`` is the digit 0..9
    (file labels 1..10; for display only).  ``steps``: the preparation applied.
    """
    from okl.datasets import DatasetNotFoundError, paper_data

    def dense(X):
        return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)

    train = paper_data("usps", "norma")
    X, y, steps = dense(train.X), np.asarray(train.y).astype(int), list(train.steps)
    try:
        test = paper_data("usps.t", "norma")
    except DatasetNotFoundError:
        rng = np.random.default_rng(seed)
        held = np.sort(rng.choice(len(X), min(FIG3_USPS_TEST, len(X) // 5), replace=False))
        keep = np.setdiff1d(np.arange(len(X)), held)
        steps.append(f"usps.t missing: {held.size} digits of the training file drawn with "
                     f"seed {seed} are held out")
        return X[keep], y[keep], X[held], y[held], "usps (held-out subset)", steps
    return (X, y, dense(test.X), np.asarray(test.y).astype(int), "usps.t",
            steps + [f"held out: {s}" for s in test.steps])


@register("norma-fig3")
def norma_fig3(out_dir, quick: bool = False, seed: int = 0) -> dict:
    """Fig. 3: online novelty detection, one pass, on handwritten digits.

    Data: USPS (16x16 digits, features in [-1, 1]) through
    ``okl.datasets.paper_data("usps", "norma")`` when it is in ``$OKL_DATA``, as in the
    paper (the preparation steps are in the summary's ``steps``): one pass over the 7291
    training digits in the published order, the 2007 digits of ``usps.t`` held out
    (without ``usps.t``, 2007 digits drawn with ``seed`` from the training file; see
    ``_usps``).  ``seed`` does not change the USPS stream, and ``quick`` does not shorten
    it (one pass takes about a second).
    Otherwise scikit-learn's bundled 8x8 digits (1797 images, scaled to [-1, 1])
    stand in: 80 % is the stream (order shuffled by ``seed``), 20 % is held out
    (``quick``: the first 1000 / 200 of them).  The summary's ``dataset`` and the
    figure titles say which was used.

    NORMA with the novelty loss (20) and the caption's settings: ``nu = 0.01``, the
    Gaussian kernel ``exp(-||x - x'||^2 / (2 sigma^2))`` with ``2 sigma^2 = 0.5 d``
    (USPS ``d = 256``: ``sigma = 8``; 8x8 digits ``d = 64``: ``sigma = 4``),
    learning rate ``eta_t = 1 / sqrt(t)`` (see ``FIG3_ETA``) and ``lam = 1`` (Sec.
    III-B).  The initial ``rho`` is not given in the paper: 1.  An alert is
    ``f(x) < rho`` (score ``f(x) - rho < 0``); ``rho`` takes the gradient step of
    (20)'s loss (see ``NORMA``'s Notes on the signs printed in (20)).  Saves three
    image grids like the figure: ``norma_fig3_alerts`` (the first 50 patterns that
    incurred a margin error, in stream order), ``norma_fig3_train_worst`` and
    ``norma_fig3_test_worst`` (the 50 smallest ``f(x) - rho`` of the final
    hypothesis on the stream and on the held-out part), plus ``norma_fig3`` with the
    three side by side.

    The summary has the alert fraction over the pass (and over its second half),
    the final ``rho``, the fraction of digits below the final threshold, and a
    sanity check of the ranking: Spearman's correlation, on the held-out part,
    between ``-(f(x) - rho)`` and a batch outlier score (mean distance to the 10
    nearest training digits).

    Notes
    -----
    With ``lam = 1`` every coefficient decays by ``1 - eta_t`` per round, so a
    support vector added at round ``i`` weighs ``~exp(-2 (sqrt(t) - sqrt(i)))`` at
    round ``t``: the hypothesis remembers the last ``~sqrt(t)`` rounds, which at a
    1 % alert rate hold one or two support vectors.  ``f`` is then tiny, ``rho``
    follows its own walk (``+eta_t nu`` per quiet round, ``-eta_t (1 - nu)`` per
    alert), and the alerts come at nearly regular intervals of ``~1 / nu`` rounds.
    The alert fraction does approach ``nu``, but the ranking of the final
    hypothesis mostly reflects the distance to the last alert (see
    ``knn_rank_correlation``).
    """
    from scipy.stats import spearmanr
    from sklearn.neighbors import NearestNeighbors

    from okl.datasets import DatasetNotFoundError

    plt = _pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    try:
        Xtr, ytr, Xte, yte, held_out, steps = _usps(seed)
        dataset, shape, name = "usps", (16, 16), "USPS 16x16"
    except DatasetNotFoundError:
        Xtr, ytr, Xte, yte = _digits(seed, quick)
        dataset, shape, name = "sklearn-digits-8x8", (8, 8), "8x8 digits (USPS stand-in)"
        held_out = "sklearn-digits-8x8 (held-out subset)"
        steps = ["STAND-IN: USPS is not in $OKL_DATA; scikit-learn's 8x8 digits scaled to "
                 "[-1, 1], 80 % streamed in an order drawn with the seed, 20 % held out"]
    d = Xtr.shape[1]
    learner = _fig3_learner(d)
    sigma = learner.kernel.sigma
    trace = learner.run(Xtr)
    alerts = np.flatnonzero(trace.scores < 0.0)
    f_train = learner.decision_function(Xtr)
    f_test = learner.decision_function(Xte)
    worst_train = np.argsort(f_train, kind="stable")[:50]
    worst_test = np.argsort(f_test, kind="stable")[:50]

    k = min(10, len(Xtr))
    knn = NearestNeighbors(n_neighbors=k).fit(Xtr).kneighbors(Xte)[0].mean(axis=1)
    # (once every support vector has decayed below double precision of rho, f - rho is
    # constant and there is no ranking)
    rank_corr = spearmanr(-f_test, knn)[0] if np.ptp(f_test) > 0 else float("nan")

    files = []
    panels = [("alerts", Xtr[alerts[:50]], "first 50 margin errors"),
              ("train_worst", Xtr[worst_train], "50 worst, training part"),
              ("test_worst", Xte[worst_test], "50 worst, held-out part")]
    for stem, imgs, title in panels:
        fig = plot_image_grid(imgs, shape=shape, n_cols=10, n_slots=50,
                              title=f"{title} ({name})")
        files += save_figure(fig, out_dir / f"norma_fig3_{stem}")
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.6))
    for ax, (_, imgs, title) in zip(axes, panels):
        plot_image_grid(imgs, shape=shape, n_cols=10, n_slots=50, title=title, ax=ax)
    fig.suptitle(f"NORMA novelty detection, one pass: {name}, {len(Xtr)} digits, "
                 f"nu = {FIG3_NU}, 2 sigma^2 = {2 * sigma ** 2:g}")
    files += save_figure(fig, out_dir / "norma_fig3")

    half = len(trace.scores) // 2
    summary = {
        "dataset": dataset, "held_out": held_out, "steps": steps,
        "image_shape": list(shape),
        "n_train": int(len(Xtr)), "n_test": int(len(Xte)), "seed": seed, "nu": FIG3_NU,
        "sigma": sigma, "eta": FIG3_ETA, "lam": FIG3_LAM, "rho_initial": FIG3_RHO0,
        "n_alerts": int(alerts.size),
        "alert_fraction": float(alerts.size / len(Xtr)),
        "alert_fraction_second_half": float(np.mean(trace.scores[half:] < 0.0)),
        "first_alert_rounds": (alerts[:50] + 1).tolist(),
        "first_alert_labels": ytr[alerts[:50]].tolist(),
        "rho_final": learner.rho_,
        "support_vectors": learner.support_set.size,
        "train_fraction_below_threshold": float(np.mean(f_train < 0.0)),
        "test_fraction_below_threshold": float(np.mean(f_test < 0.0)),
        "train_worst_labels": ytr[worst_train].tolist(),
        "test_worst_labels": yte[worst_test].tolist(),
        "knn_rank_correlation": float(rank_corr) if np.isfinite(rank_corr) else None,
        "seconds": time.perf_counter() - start,
    }
    summary["files"] = [str(p) for p in files] + [str(out_dir / "norma_fig3.json")]
    (out_dir / "norma_fig3.json").write_text(json.dumps(summary, indent=2))
    return summary


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt
