"""Peak memory of ``okl run`` on a LIBSVM file larger than memory would like.

Writes a SUSY-like LIBSVM file (18 dense features, labels 0/1; default 2,000,000 rows)
under a temporary directory, runs ``okl run --data FILE --learner BOGD -p B=100`` in a
child process under ``/usr/bin/time -v`` and prints its maximum resident set size and
wall time, and the same for the in-memory path (``okl.datasets.load_libsvm`` and one
``learner.run``) on the first ``--check-rows`` rows, whose results must equal the chunked
run's on that prefix.

    python benchmarks/stream_memory.py                # 2,000,000 rows (about 0.4 GB)
    python benchmarks/stream_memory.py --quick        # 100,000 rows
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_susy_like(path: Path, n_rows: int, seed: int = 0, block: int = 100_000):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=18)
    with open(path, "w") as fh:
        for start in range(0, n_rows, block):
            m = min(block, n_rows - start)
            X = np.abs(rng.normal(1.0, 0.7, size=(m, 18)))
            score = X[:, 0] * X[:, 1] - X[:, 2] + 0.2 * np.tanh(X @ w)
            y = (score + 0.2 * rng.normal(size=m) > 0.05).astype(int)
            cols = " ".join(f"{j + 1}:%.6f" for j in range(18))
            np.savetxt(fh, np.column_stack([y, X]), fmt="%d " + cols)


def timed(cmd):
    """(max RSS in MB, wall seconds, user + system CPU seconds, stdout) of a child process
    under /usr/bin/time -v."""
    proc = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", proc.stderr)
    parts = [float(p) for p in wall.group(1).split(":")]
    seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([0-9.]+)", proc.stderr).group(1))
              for k in ("User", "System"))
    return rss / 1024, seconds, cpu, proc.stdout


IN_MEMORY = """
import json, sys, okl
from okl.datasets import load_libsvm
X, y = load_libsvm(sys.argv[1])
t = okl.BOGD(okl.Gaussian(1.0), B=100, seed=0).run(X, y)
print(json.dumps({"n_rounds": t.n_rounds, "mistakes": t.n_mistakes,
                  "loss": float(t.losses.sum())}))
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--check-rows", type=int, default=200_000)
    parser.add_argument("--quick", action="store_true", help="100,000 rows")
    parser.add_argument("--dir", default=None, help="where to write the file (default: a "
                                                    "temporary directory, removed after)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.check_rows = 100_000, 20_000
    if not Path("/usr/bin/time").exists():
        print("skipped: /usr/bin/time is not installed (Debian package 'time')")
        return 0
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        big = Path(tmp) / "big.libsvm"
        start = time.perf_counter()
        write_susy_like(big, args.rows)
        print(f"wrote {big.stat().st_size / 2**20:.0f} MB, {args.rows:,} rows, in "
              f"{time.perf_counter() - start:.0f} s")
        okl_run = [sys.executable, "-m", "okl.cli", "run", "--learner", "BOGD", "-p", "B=100",
                   "--no-progress"]
        out = Path(tmp) / "run.json"
        rss, wall, _, _ = timed(okl_run + ["--data", str(big), "--json", str(out)])
        chunked = json.loads(out.read_text())
        print(f"okl run (chunked), {args.rows:,} rows: max RSS {rss:.0f} MB, wall {wall:.1f} s, "
              f"mistake rate {chunked['mistake_rate']:.5f}")
        # equality with the in-memory path on a prefix small enough to load
        prefix = Path(tmp) / "prefix.libsvm"
        with open(big, "rb") as src, open(prefix, "wb") as dst:
            for _ in range(args.check_rows):
                dst.write(src.readline())
        rss_c, wall_c, _, _ = timed(okl_run + ["--data", str(prefix), "--json", str(out)])
        small = json.loads(out.read_text())
        rss_m, wall_m, _, text = timed([sys.executable, "-c", IN_MEMORY, str(prefix)])
        memory = json.loads(text)
        same = (small["n_rounds"] == memory["n_rounds"] and small["mistakes"] == memory["mistakes"]
                and abs(small["average_loss"] * small["n_rounds"] - memory["loss"])
                <= 1e-9 * abs(memory["loss"]))
        print(f"{args.check_rows:,}-row prefix: chunked max RSS {rss_c:.0f} MB ({wall_c:.1f} s), "
              f"in memory {rss_m:.0f} MB ({wall_m:.1f} s); mistakes {small['mistakes']} vs "
              f"{memory['mistakes']}: {'equal' if same else 'DIFFERENT'}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
