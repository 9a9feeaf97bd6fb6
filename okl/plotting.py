"""Matplotlib figures of what a run did. Every figure is saved as PNG and SVG."""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["save_figure", "plot_cumulative_mistakes"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, stem) -> list[Path]:
    """Save ``fig`` as ``stem.png`` and ``stem.svg``; returns both paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for path in paths:
        fig.savefig(path, bbox_inches="tight", dpi=120)
    _pyplot().close(fig)
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
