"""Matplotlib figures of what a run did. Every figure is saved as PNG and SVG."""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["save_figure", "plot_cumulative_mistakes", "plot_image_grid"]


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
