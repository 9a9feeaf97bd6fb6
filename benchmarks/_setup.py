"""Shared preamble of the ``benchmarks/ratios*.py`` scripts.

Import it before numpy (``import _setup`` as a script's first import):

* BLAS reads its thread count when numpy/scipy are first imported, so this module reads
  ``--blas-threads n`` from the command line *at import* and sets
  ``OPENBLAS/OMP/MKL_NUM_THREADS`` to ``n`` (default 1, as in ``asv.conf.json``; ``0``
  leaves the environment alone).  It does so only when the running script
  (``__main__``) lives in this directory, so importing a ``ratios*`` module from
  elsewhere (asv, pytest, a notebook) changes nothing.
* It then makes ``okl`` importable: an installed ``okl`` if there is one, otherwise the
  checkout this directory belongs to (after ``python setup.py build_ext --inplace``).
* ``parser()`` is the scripts' common command line (``--quick``, ``--repeat``,
  ``--blas-threads``); ``header()`` and ``finish()`` print the first and last lines
  every script prints (versions, mode, BLAS threads; aims met, and exit status 1 if
  okl and a numpy reference disagreed).
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
DEFAULT_BLAS_THREADS = 1


def _blas_threads_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--blas-threads", type=int, default=DEFAULT_BLAS_THREADS,
                   help="set OPENBLAS/OMP/MKL_NUM_THREADS before numpy loads "
                        f"(default {DEFAULT_BLAS_THREADS}; 0 leaves the environment unchanged)")


def parser(description: str, *, quick_help: str = "small sizes (finishes in well under 30 s)",
           repeat_default: str = "5, or 3 with --quick") -> argparse.ArgumentParser:
    """The command line of every ratio script: ``--quick``, ``--repeat k``, ``--blas-threads n``."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--repeat", type=int, default=None,
                   help=f"at least k calls per timing, best taken (default {repeat_default}); "
                        "short calls are repeated for up to 1 s (0.2 s with --quick)")
    _blas_threads_option(p)
    return p


def _run_as_script() -> bool:
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return bool(path) and os.path.dirname(os.path.abspath(path)) == HERE


def pin_blas(argv=None) -> int | None:
    """Set the BLAS thread variables from ``--blas-threads`` in ``argv``; returns the count
    set (``None`` if the environment was left alone).  Unknown options are ignored here:
    the script's own ``parser()`` reports them."""
    p = argparse.ArgumentParser(add_help=False)
    _blas_threads_option(p)
    known, _ = p.parse_known_args(sys.argv[1:] if argv is None else argv)
    n = known.blas_threads
    if n <= 0:
        return None
    if "numpy" in sys.modules:
        print("warning: numpy was imported before benchmarks/_setup.py; "
              "--blas-threads may not take effect", file=sys.stderr)
    for var in BLAS_VARS:
        os.environ[var] = str(n)
    return n


if _run_as_script():
    pin_blas()

# ratios*.py import each other: the directory of this file first
if HERE not in sys.path:
    sys.path.insert(0, HERE)
try:
    import okl  # noqa: E402,F401
except ImportError:  # running from a checkout with an in-place build
    sys.path.insert(1, ROOT)
    import okl  # noqa: E402,F401


def header(args, k: int, min_time: float | None = None) -> None:
    """The first lines of every script: versions, mode, repeats, BLAS threads."""
    import numpy as np

    extra = f" (more for short ones, up to {min_time:g} s each)" if min_time else ""
    print(f"okl {okl.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}; "
          f"{'quick' if args.quick else 'full'} mode, best of >= {k} interleaved calls{extra}")
    print("BLAS threads: " + ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in BLAS_VARS))


def finish(ok, start: float, disagreements) -> int:
    """The last lines: ``n/m aims met``; exit status 1 if okl and numpy disagreed."""
    import time

    print(f"{sum(ok)}/{len(ok)} aims met; total {time.perf_counter() - start:.1f} s")
    if disagreements:
        print(f"FAILED: okl and its numpy reference disagree for {', '.join(disagreements)}")
        return 1
    return 0
