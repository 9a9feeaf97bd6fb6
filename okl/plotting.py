"""Matplotlib figures of what a run did. Every figure is saved as PNG and SVG."""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["save_figure", "plot_cumulative_mistakes", "plot_mistake_rate", "plot_budget",
           "plot_against_bounds", "plot_time_vs_budget", "plot_image_grid",
           "plot_agreement", "plot_critical_difference"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, stem) -> list[Path]:
    """Save ``fig`` as ``stem.png`` and ``stem.svg``; returns both paths.  The same figure
    gives the same bytes (the SVG without its date, its element ids from a fixed salt),
    so two runs of a reproduction can be compared file by file."""
    plt = _pyplot()
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    with plt.rc_context({"svg.hashsalt": "okl"}):
        fig.savefig(paths[0], bbox_inches="tight", dpi=120)
        fig.savefig(paths[1], bbox_inches="tight", dpi=120, metadata={"Date": None})
    plt.close(fig)
    return paths


def plot_cumulative_mistakes(traces: dict, *, title: str = "", ax=None):
    """Cumulative mistakes over rounds, one line per ``{label: Trace}``."""
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4))
    for label, trace in traces.items():
        ax.plot(np.arange(1, trace.n_rounds + 1), trace.cumulative_mistakes, label=label)
    ax.set_xlabel("round")
    ax.set_ylabel("cumulative mistakes")
    if title:
        ax.set_title(title)
    ax.legend()
    return ax.figure


def _axes(ax, figsize=(6, 4)):
    if ax is None:
        _, ax = _pyplot().subplots(figsize=figsize)
    return ax


def _finish(ax, xlabel, ylabel, title, legend=True):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend()
    return ax.figure


def plot_mistake_rate(traces: dict, *, title: str = "", ax=None):
    """Cumulative mistake rate ``M_t / t`` over rounds (average loss for regression
    traces), one line per ``{label: Trace}``."""
    ax = _axes(ax)
    ylabel = "cumulative mistake rate"
    for label, trace in traces.items():
        t = np.arange(1, trace.n_rounds + 1)
        if trace.is_classification:
            ax.plot(t, trace.cumulative_mistakes / t, label=label)
        else:
            ax.plot(t, trace.cumulative_loss / t, label=label)
            ylabel = "average loss"
    return _finish(ax, "round", ylabel, title)


def plot_budget(traces: dict, *, bounds: dict | None = None, title: str = "", ax=None):
    """Memory ``|S_t|`` over rounds, one line per trace, with bound curves dashed.

    ``bounds`` maps a label to an array of the bound at rounds ``1..T`` (e.g. the
    ALD budget bound of Theorem 1 of Li & Liao 2023 evaluated at each ``t``) or to
    a number (a fixed budget ``B``).
    """
    ax = _axes(ax)
    for label, trace in traces.items():
        ax.step(np.arange(1, trace.n_rounds + 1), trace.budget, where="post", label=label)
    for label, bound in (bounds or {}).items():
        bound = np.asarray(bound, dtype=float)
        if bound.ndim == 0:
            ax.axhline(float(bound), ls="--", color="k", lw=1, label=label)
        else:
            ax.plot(np.arange(1, bound.size + 1), bound, ls="--", label=label)
    return _finish(ax, "round", "support vectors |S_t|", title)


def plot_against_bounds(measured: dict, bounds: dict, *, ylabel: str = "regret",
                        title: str = "", ax=None, log: bool = False):
    """Measured curves (solid) beside bound curves (dashed) over rounds.

    ``measured`` and ``bounds`` map labels to arrays over rounds ``1..T`` (a
    bound may also be a number, drawn as a horizontal line): regret against a
    regret bound, mistakes against a mistake bound, ...
    """
    ax = _axes(ax)
    for label, values in measured.items():
        values = np.asarray(values, dtype=float)
        ax.plot(np.arange(1, values.size + 1), values, label=label)
    for label, bound in bounds.items():
        bound = np.asarray(bound, dtype=float)
        if bound.ndim == 0:
            ax.axhline(float(bound), ls="--", color="k", lw=1, label=label)
        else:
            ax.plot(np.arange(1, bound.size + 1), bound, ls="--", label=label)
    if log:
        ax.set_yscale("log")
    return _finish(ax, "round", ylabel, title)


def plot_time_vs_budget(rows, *, budget: str = "final_budget", time: str = "seconds",
                        by: str = "learner", title: str = "", ax=None):
    """Running time against memory, one marker series per ``by`` value.

    ``rows`` are sweep rows (``okl.experiments.sweep``) or any dicts with the
    ``budget`` and ``time`` keys; repeated permutations show as separate points.
    """
    ax = _axes(ax)
    groups: dict = {}
    for row in rows:
        groups.setdefault(row.get(by, ""), []).append((float(row[budget]), float(row[time])))
    for label, points in groups.items():
        x, y = np.array(points).T
        ax.plot(x, y, "o", label=str(label), alpha=0.8)
    return _finish(ax, budget.replace("_", " "), f"{time} per run", title)


def plot_image_grid(images, *, shape=None, n_cols: int = 10, title: str = "", ax=None,
                    cmap: str = "gray_r", pad: int = 1, n_slots: int | None = None):
    """Tile ``images`` (``(n, h, w)``, or ``(n, h * w)`` with ``shape=(h, w)``) row by row.

    Each image is scaled to its own ``[min, max]``; ``n_slots`` reserves room for that
    many tiles (blank past ``n``), so grids with fewer images keep the same layout.
    Returns the figure.
    """
    plt = _pyplot()
    images = np.asarray(images, dtype=float)
    if shape is not None:
        images = images.reshape((-1,) + tuple(shape))
    if images.ndim != 3:
        raise ValueError(f"images must be (n, h, w) or flat with shape=(h, w), got "
                         f"{images.shape}")
    n, h, w = images.shape
    slots = max(n if n_slots is None else n_slots, n, 1)
    n_cols = max(1, min(n_cols, slots))
    n_rows = -(-slots // n_cols)
    canvas = np.full((n_rows * (h + pad) + pad, n_cols * (w + pad) + pad), np.nan)
    for i, img in enumerate(images):
        lo, hi = np.min(img), np.max(img)
        img = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
        r, c = divmod(i, n_cols)
        canvas[pad + r * (h + pad):pad + r * (h + pad) + h,
               pad + c * (w + pad):pad + c * (w + pad) + w] = img
    if ax is None:
        fig, ax = plt.subplots(figsize=(0.5 * n_cols + 0.4, 0.5 * n_rows + 0.6))
    cm = plt.get_cmap(cmap).with_extremes(bad="white")
    ax.imshow(np.ma.masked_invalid(canvas), cmap=cm, vmin=0.0, vmax=1.0,
              interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title)
    return ax.figure


def plot_agreement(rows, *, metric: str = "AMR", percent: bool = True, stand_ins=(),
                   title: str = "", x: str = "learner", xlabel: str | None = None,
                   paper_x: str | None = None, log_x: bool = False):
    """okl's figure beside the paper's, one panel per dataset.

    ``rows`` are table rows with ``dataset``, ``learner``, ``okl``, ``okl_std``,
    ``paper``, ``paper_std`` (and ``agrees``).  okl's value is a filled marker with its
    error bar (std over permutations); the paper's a hollow marker of the same colour
    with its error bar, just to the right (``x="learner"``: learners on the x axis) or at
    the paper's own ``paper_x`` value (e.g. ``x="budget"``, ``paper_x="paper_budget"``).
    A row outside the agreement tolerance is drawn with a red edge (not on the datasets
    in ``stand_ins``, which are titled as stand-ins and not compared).
    """
    plt = _pyplot()
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    n = len(datasets)
    cols = min(n, 3)
    nrows = -(-n // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.8 * cols, 3.9 * nrows), squeeze=False)
    scale = 100.0 if percent else 1.0
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    names = list(dict.fromkeys(r["learner"] for r in rows))
    colour = {name: colours[i % len(colours)] for i, name in enumerate(names)}
    for ax, ds in zip(axes.ravel(), datasets):
        mine = [r for r in rows if r["dataset"] == ds]
        for i, r in enumerate(mine):
            c = colour[r["learner"]]
            if x == "learner":
                xo, xp = i - 0.12, i + 0.12
            else:
                xo, xp = r.get(x), r.get(paper_x) if paper_x else r.get(x)
            flagged = r.get("agrees") is False and ds not in set(stand_ins)
            edge = "red" if flagged else c
            if r.get("okl") is not None and xo is not None:
                std = scale * (r.get("okl_std") or 0.0)
                ax.errorbar(xo, scale * r["okl"], yerr=std or None, fmt="o", color=c,
                            mec=edge, mew=1.5 if flagged else 1.0, capsize=3,
                            label=f"{r['learner']} (okl)")
            if r.get("paper") is not None and xp is not None:
                std = scale * (r.get("paper_std") or 0.0)
                ax.errorbar(xp, scale * r["paper"], yerr=std or None, fmt="o", color=c,
                            mfc="none", mec=c, capsize=3, ls="none",
                            label=f"{r['learner']} (paper)")
        if x == "learner":
            ax.set_xlim(-0.6, len(mine) - 0.4)
            ax.set_xticks(range(len(mine)))
            ax.set_xticklabels([r["learner"] for r in mine], rotation=45, ha="right",
                               fontsize=8)
        elif log_x:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel or ("" if x == "learner" else x))
        ax.set_ylabel(f"{metric} (%)" if percent else metric)
        ax.set_title(f"{ds}{' (STAND-IN)' if ds in set(stand_ins) else ''}", fontsize=10)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", ls="none", color="0.3", label="okl"),
               Line2D([], [], marker="o", ls="none", color="0.3", mfc="none",
                      label="paper"),
               Line2D([], [], marker="o", ls="none", color="0.8", mec="red",
                      label="outside tolerance")]
    axes.ravel()[0].legend(handles=handles, fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_critical_difference(ranks: dict, pvalues, *, cd: float | None = None,
                             alpha: float = 0.05, title: str = ""):
    """A critical-difference diagram (Demsar 2006): the learners' average ranks on an
    axis (1, the best, on the left), those whose post-hoc test does not reject at
    ``alpha`` joined by a bar, and the critical difference ``cd`` drawn above.

    ``ranks`` is ``{learner: average rank}``, ``pvalues`` the post-hoc p-values of each
    pair (``{a: {b: p}}`` or a DataFrame).  Drawn by
    ``scikit_posthocs.critical_difference_diagram``.
    """
    import pandas as pd
    import scikit_posthocs as sp

    plt = _pyplot()
    names = list(ranks)
    matrix = pd.DataFrame(pvalues).reindex(index=names, columns=names).astype(float)
    fig, ax = plt.subplots(figsize=(7, 1.6 + 0.3 * len(names)))
    sp.critical_difference_diagram(pd.Series(ranks, dtype=float), matrix, alpha=alpha, ax=ax,
                                   label_fmt_left="{label} ({rank:.2f})",
                                   label_fmt_right="({rank:.2f}) {label}")
    k = len(names)
    ax.set_xlim(1 - 0.02 * k, k + 0.02 * k)        # the whole range of ranks, 1 to k
    ax.set_xticks(range(1, k + 1))
    if cd is not None:                             # above the axis, from rank 1
        ax.plot([1, 1 + cd], [0.6, 0.6], color="k", lw=2)
        ax.plot([1, 1], [0.5, 0.7], color="k", lw=1)
        ax.plot([1 + cd, 1 + cd], [0.5, 0.7], color="k", lw=1)
        ax.text(1 + cd / 2, 0.8, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    if title:
        ax.set_title(title, fontsize=9, pad=28)
    return fig
