"""BPegasos with merging (``okl.BSGD``, B = 500) on a checkerboard LIBSVM file of up to
10 million rows, read in chunks: resident memory flat as the file grows, rows per second.

Issue 27 item 6.  Writes the BSGD paper's 4 x 4 checkerboard
(``okl.datasets.checkerboard_stream``: uniform on ``[0, 4)^2``, alternating classes, no
noise; the paper's Section 7.1) as one LIBSVM file under a temporary directory, grown in
blocks of 1,000,000 rows to each size of ``--rows`` in turn (so each file is a prefix of
the next); after each size, a child process under ``/usr/bin/time -v`` learns the whole
file through ``okl.streaming.run_file`` (what ``okl run --data FILE`` calls: a first pass
for the width and labels, then ``learner.run`` chunk by chunk, ``--chunk-rows`` lines at a
time) and tests the model on 10,000 held-out rows generated with another seed.  Printed
per size: rows, file MB, max RSS of the child, wall seconds (process: the scan, reading,
learning, testing), learning seconds (``Trace.seconds``: the rounds alone), rows per
second on both and per CPU second of the child, the online mistake rate and the held-out accuracy; and first the max RSS
of the same child on one chunk's rows (the floor: imports, one chunk, the model).

    python benchmarks/bsgd_stream.py                       # 1M, 3M, 10M rows
    python benchmarks/bsgd_stream.py --rows 1000000,3000000
    python benchmarks/bsgd_stream.py --quick               # 100k, 300k

Hyperparameters: lambda 1e-4 (the paper's Table 4) and the kernel width of
``okl.experiments.bsgd.HYPER["Checkerb"]``, sigma 0.2 on the board standardised to sd 1
(cells 0.87 wide), i.e. ``--sigma 0.231`` on the raw board written here (cells 1 wide).
The paper's own ``exp(-0.0625 ||x - x'||^2)`` (okl sigma 2.83) is ``--sigma 2.83``: on
this board it stays near chance (HYPER's note: 54.5 % at validation) and, merging on
nearly every round, runs about 7x slower.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from stream_memory import timed  # the child under /usr/bin/time -v: max RSS, wall, CPU

BLOCK = 1_000_000
HELD_OUT = 10_000

CHILD = r"""
import json, sys, time
import numpy as np
import okl
from okl.datasets import checkerboard_stream
from okl.streaming import run_file

path, B, lam, sigma, chunk, test_seed = sys.argv[1:7]
learner = okl.BSGD(okl.Gaussian(float(sigma)), B=int(B), lam=float(lam), rule="pegasos",
                   maintenance="merging")
start = time.perf_counter()
trace, n_rows = run_file(learner, path, chunk_rows=int(chunk), progress=False)
wall_run = time.perf_counter() - start
Xt, yt = checkerboard_stream(%d, seed=int(test_seed))
accuracy = float(np.mean(learner.predict(Xt) == yt))
print(json.dumps({"n_rounds": int(trace.n_rounds), "mistake_rate": float(trace.mistake_rate),
                  "learn_seconds": float(trace.seconds), "run_file_seconds": wall_run,
                  "support": int(trace.final_budget), "accuracy": accuracy,
                  "maintenance_steps": int(trace.extras.get("maintenance_steps", -1))}))
""" % HELD_OUT



def append_board(path: Path, start: int, stop: int, seed: int) -> None:
    """Append rows ``start .. stop - 1`` of the board: block ``i`` (rows ``i * BLOCK ..``)
    is ``checkerboard_stream(BLOCK, seed=(seed, i))``, so a file of n rows is the same
    whatever sizes were written before."""
    from okl.datasets import checkerboard_stream

    with open(path, "a") as fh:
        while start < stop:
            i, off = divmod(start, BLOCK)
            X, y = checkerboard_stream(BLOCK, seed=np.random.default_rng([seed, i]))
            end = min(stop, (i + 1) * BLOCK)
            rows = slice(off, end - i * BLOCK)
            np.savetxt(fh, np.column_stack([y[rows], X[rows]]), fmt="%d 1:%.6f 2:%.6f")
            start = end


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", default="1000000,3000000,10000000",
                   help="file sizes, comma-separated (default 1M, 3M, 10M)")
    p.add_argument("--quick", action="store_true", help="100,000 and 300,000 rows")
    p.add_argument("--B", type=int, default=500)
    p.add_argument("--lam", type=float, default=1e-4)
    p.add_argument("--sigma", type=float, default=0.231,
                   help="Gaussian width on the raw board (default 0.231: HYPER's 0.2 on "
                        "the standardised board; the paper's kernel is 2.83)")
    p.add_argument("--chunk-rows", type=int, default=16_384)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dir", default=None, help="where to write the file (default: a "
                                               "temporary directory, removed after)")
    args = p.parse_args(argv)
    sizes = [100_000, 300_000] if args.quick else [int(r) for r in args.rows.split(",")]
    if sizes != sorted(sizes):
        p.error("--rows must be increasing (each file is a prefix of the next)")
    if not Path("/usr/bin/time").exists():
        print("skipped: /usr/bin/time is not installed (Debian package 'time')")
        return 0
    import okl

    print(f"okl {okl.__version__}; BSGD(Gaussian({args.sigma:g}), B={args.B}, "
          f"lam={args.lam:g}, rule='pegasos', maintenance='merging') through "
          f"okl.streaming.run_file, chunks of {args.chunk_rows:,} rows; held-out "
          f"{HELD_OUT:,} rows; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    test_seed = 10_000 + args.seed
    head = (f"{'rows':>12} {'file MB':>8} {'max RSS MB':>10} {'wall s':>8} {'CPU s':>8} "
            f"{'learn s':>8} {'rows/s wall':>11} {'rows/s learn':>12} {'rows/CPU s':>10} "
            f"{'mistakes':>9} "
            f"{'held-out acc':>12} {'|S|':>5} {'merges':>10}")
    lines = []
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="okl-bsgd-stream-") as tmp:
        path = Path(tmp) / "checkerboard.libsvm"
        # the floor: the same child on one chunk's rows (imports, one chunk, the model)
        floor = Path(tmp) / "floor.libsvm"
        append_board(floor, 0, args.chunk_rows, args.seed)
        rss0, _, _, _ = timed([sys.executable, "-c", CHILD, str(floor), str(args.B),
                               repr(args.lam), repr(args.sigma), str(args.chunk_rows),
                               str(test_seed)])
        floor.unlink()
        print(f"floor: the same child on {args.chunk_rows:,} rows (one chunk): max RSS "
              f"{rss0:.0f} MB", flush=True)
        written = 0
        for n in sizes:
            start = time.perf_counter()
            append_board(path, written, n, args.seed)
            written = n
            mb = path.stat().st_size / 2 ** 20
            print(f"wrote {n:,} rows ({mb:.0f} MB) in {time.perf_counter() - start:.0f} s",
                  flush=True)
            rss, wall, cpu, out = timed([sys.executable, "-c", CHILD, str(path), str(args.B),
                                         repr(args.lam), repr(args.sigma),
                                         str(args.chunk_rows), str(test_seed)])
            r = json.loads(out.strip().splitlines()[-1])
            assert r["n_rounds"] == n, (r["n_rounds"], n)
            line = (f"{n:>12,} {mb:>8.0f} {rss:>10.0f} {wall:>8.1f} {cpu:>8.1f} "
                    f"{r['learn_seconds']:>8.1f} {n / wall:>11,.0f} "
                    f"{n / r['learn_seconds']:>12,.0f} {n / cpu:>10,.0f} "
                    f"{r['mistake_rate']:>9.4f} "
                    f"{100 * r['accuracy']:>11.2f}% {r['support']:>5} "
                    f"{r['maintenance_steps']:>10,}")
            if not lines:
                print(head)
            lines.append(line)
            print(line, flush=True)
    print()
    print(head)
    print("\n".join(lines))
    print("wall s: the child process (first pass over the file, reading, learning, testing); "
          "learn s: the rounds alone (Trace.seconds, wall clock); rows/CPU s: rows over the "
          "child's user + system seconds (what a busy machine does not inflate); mistakes: "
          "online mistake rate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
