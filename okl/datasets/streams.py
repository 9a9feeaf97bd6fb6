"""A stream by the name the command line gives it: a file, a benchmark dataset, or a
synthetic stream (``okl run --data ...``, ``okl sweep``, ``okl bounds``)."""
from __future__ import annotations

from pathlib import Path

__all__ = ["SYNTHETIC", "stream"]

#: the synthetic streams a command can name
SYNTHETIC = ("xor", "drifting", "switching")


def stream(spec: str = "xor", *, download: bool = False, rounds: int = 20_000,
           features: int = 10, seed: int = 0):
    """``(X, y, description)`` of ``spec``: a LIBSVM or CSV file, a benchmark dataset's
    name (``download``: fetch it if it is not cached), or a synthetic stream
    (``"xor"``: ``rounds`` x ``features``, ``"drifting"``, ``"switching"``; ``seed``)."""
    from okl.datasets import drifting_mixture, load_libsvm, xor_stream

    if spec in SYNTHETIC:
        if spec == "xor":
            X, y = xor_stream(rounds, features, seed=seed)
            return X, y, f"synthetic xor stream ({rounds} x {features}, seed {seed})"
        X, y = drifting_mixture(rounds, "drift" if spec == "drifting" else "switch",
                                seed=seed)
        return X, y, f"{spec} Gaussian mixture ({rounds} rounds, seed {seed})"
    path = Path(spec)
    if path.exists():
        if path.suffix.lower() == ".csv":
            from okl.datasets.files import load_csv

            X, y = load_csv(path)
        else:
            X, y = load_libsvm(path)
        return X, y, str(path)
    from okl.datasets import fetch

    if spec.lower() in {k.lower() for k in fetch.DATASETS}:
        X, y = fetch.load(spec, download=download)
        return X, y, spec
    raise ValueError(f"--data {spec!r} is neither a file, a benchmark dataset "
                     f"({', '.join(sorted(fetch.DATASETS))}) nor a synthetic stream "
                     f"({', '.join(SYNTHETIC)})")
