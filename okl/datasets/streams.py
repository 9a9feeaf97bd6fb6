"""A stream by the name the command line gives it: a file, a benchmark dataset, or a
synthetic stream (``okl run --data ...``, ``okl sweep``, ``okl bounds``)."""
from __future__ import annotations

from pathlib import Path

__all__ = ["SYNTHETIC", "stream", "is_keel"]

#: the synthetic streams a command can name
SYNTHETIC = ("xor", "drifting", "switching")


def is_keel(path) -> bool:
    """Whether ``path`` names a KEEL ``.dat`` file (compressed or not)."""
    name = Path(path).name.lower()
    for suffix in (".gz", ".bz2", ".xz", ".zip"):
        name = name.removesuffix(suffix)
    return name.endswith(".dat")


def stream(spec: str = "xor", *, download: bool = False, rounds: int = 20_000,
           features: int = 10, seed: int = 0, labels=None):
    """``(X, y, description)`` of ``spec``: a LIBSVM, CSV or KEEL (``.dat``) file, a
    benchmark dataset's name (``download``: fetch it if it is not cached), or a synthetic
    stream (``"xor"``: ``rounds`` x ``features``, ``"drifting"``, ``"switching"``;
    ``seed``).  ``labels``: ``None`` maps a file's two labels to -1/+1 (a binary
    learner's), ``"keep"`` keeps them (a multiclass learner's classes, a regressor's
    targets: ``okl.streaming.label_reading`` says which a learner needs)."""
    from okl.datasets.drifting import drifting_mixture
    from okl.datasets.files import load_libsvm
    from okl.datasets.synthetic import xor_stream

    if spec in SYNTHETIC:
        if spec == "xor":
            X, y = xor_stream(rounds, features, seed=seed)
            return X, y, f"synthetic xor stream ({rounds} x {features}, seed {seed})"
        X, y = drifting_mixture(rounds, "drift" if spec == "drifting" else "switch",
                                seed=seed)
        return X, y, f"{spec} Gaussian mixture ({rounds} rounds, seed {seed})"
    path = Path(spec)
    if path.exists():
        if is_keel(path):
            from okl.datasets.files import load_keel

            X, y = load_keel(path, labels="keep" if labels is None else labels)
            if labels is None:
                from okl.datasets.files import _map_labels

                y = _map_labels(y, path, labels=None, positive=None, line_of=lambda i: i + 1)
        elif path.suffix.lower() == ".csv":
            from okl.datasets.files import load_csv

            X, y = load_csv(path, labels=labels)
        else:
            X, y = load_libsvm(path, labels=labels)
        return X, y, str(path)
    from okl.datasets import fetch

    if spec.lower() in {k.lower() for k in fetch.DATASETS}:
        X, y = fetch.load(spec, download=download)      # the registry maps its labels
        return X, y, spec
    raise ValueError(f"--data {spec!r} is neither a file, a benchmark dataset "
                     f"({', '.join(sorted(fetch.DATASETS))}) nor a synthetic stream "
                     f"({', '.join(SYNTHETIC)})")
