#!/usr/bin/env python
"""okl's SkeGD and B(AO)2KS against their authors' R code on the same stream, in one script.

    OKL_DATA=~/data python benchmarks/r_vs_okl_pomdr.py          # magic04, B = 400
    python benchmarks/r_vs_okl_pomdr.py --rounds 3000                 # a shorter prefix

Needs ``Rscript`` (r-base-core; MASS ships with it); without it the script says so and
exits 0 (CI has no R).  The R code is the authors' (``tests/fixtures/r/pomdr``: Xiao
Zhang's ``SkeGD.R`` called as ``experiment_OKS.R`` does, and ``BA2OKS.R`` of
JunfLi-TJU/OKL-Hinge, adapted only to read a fixed stream and the uniforms of a file,
``draws.R``).  Stream: magic04 min-max scaled to [0, 1] (as the authors' "magic04-N"; from
``$OKL_DATA``), or, without it, ``ratios.dense_stream`` of the same size (19,020 x 10), in
one random permutation; Gaussian kernel, sigma = 0.5 (Table 2's); B = 400 and the R code's
other settings (okl's defaults).  Both sides draw the same uniforms
(``numpy.random.default_rng(SEED)``), and okl's SkeGD is given the R code's landmarks (rows
``r`` of the file, ``landmark_pool``), so both compute the same thing: the script checks
that the scores agree.

Times: the R code's own measurement of its loop (``proc.time()`` around it, what the authors
report), the wall time of the whole ``Rscript`` call, and okl's ``Trace.seconds`` (the
round loop) and the wall time of ``learner.run`` (validation and trace included), best of
``--repeat`` for okl, one R run each.  Aim: okl >= 20x faster than R.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

import _setup  # noqa: F401  (pins BLAS before numpy loads)

import numpy as np  # noqa: E402

import okl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RDIR = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "r", "pomdr")
SEED = 2023
AIM = 20.0


def stream(n_rounds):
    try:
        from okl.datasets import fetch

        X, y = fetch.load("magic04")[:2]
        X = np.asarray(X, dtype=float)
        lo, hi = X.min(axis=0), X.max(axis=0)
        X = (X - lo) / np.where(hi > lo, hi - lo, 1.0)
        name = "magic04 (min-max scaled)"
    except Exception:                               # no $OKL_DATA: a stream of the same size
        from ratios import dense_stream

        X, y = dense_stream(19_020, d=10)
        name = "ratios.dense_stream (no magic04 in $OKL_DATA)"
    if n_rounds < len(y):                           # a random subset (the file's own order)
        keep = np.sort(np.random.default_rng([SEED, 2]).permutation(len(y))[:n_rounds])
        X, y = X[keep], y[keep]
        name += f", a random subset of {n_rounds:,} rows"
    return np.ascontiguousarray(X), np.asarray(y, dtype=float), name


def run_r(script, args, out):
    start = time.perf_counter()
    res = subprocess.run(["Rscript", os.path.join(RDIR, script)] + [str(a) for a in args]
                         + [out], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    line = [s for s in res.stdout.splitlines() if "uniforms used" in s][-1]
    loop = float(line.split("time")[-1].split()[0])
    return np.loadtxt(out, delimiter=","), loop, wall, line.strip()


def best_okl(make, X, y, k):
    best_loop = best_wall = float("inf")
    for _ in range(k):
        start = time.perf_counter()
        tr = make().run(X, y)
        best_wall = min(best_wall, time.perf_counter() - start)
        best_loop = min(best_loop, tr.seconds)
    return tr, best_loop, best_wall


def main(argv=None) -> int:
    p = _setup.parser("okl's SkeGD and B(AO)2KS against the authors' R code, one stream",
                      quick_help="3,000 rounds")
    p.add_argument("--rounds", type=int, default=None)
    args = p.parse_args(argv)
    if shutil.which("Rscript") is None:
        print("Rscript not found (apt-get install r-base-core): nothing to compare")
        return 0
    k = args.repeat or 3
    n = args.rounds or (3000 if args.quick else 19_020)
    _setup.header(args, k)
    X, y, name = stream(n)
    T = len(y)
    order = np.random.default_rng([SEED, 1]).permutation(T)
    kernel = okl.Gaussian(0.5)
    print(f"stream: {name}, {T:,} x {X.shape[1]}, one permutation; {kernel!r}, B = 400")
    ok, agree = [], True
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data.csv")
        np.savetxt(data, np.column_stack([y, X]), delimiter=",", fmt="%.17g")
        orderf = os.path.join(tmp, "order.csv")
        np.savetxt(orderf, order + 1, fmt="%d")
        unif = os.path.join(tmp, "u.csv")
        np.savetxt(unif, np.random.default_rng(SEED).random(4 * T + 10_000), fmt="%.17g")
        cases = [
            ("SkeGD", "SkeGD-run.R", [data, orderf, unif, 0.5, 400, 300, 60, 4, 40, "default",
                                      "default"],
             lambda: okl.SkeGD(kernel, B=400, landmark_pool=X, seed=SEED), 0),
            ("B(AO)2KS", "BA2OKS.R", [data, orderf, unif, 0.5, "default", "default", 1, 6,
                                      400, 30],
             lambda: okl.BAO2KS(kernel, B=400, seed=SEED), 0),
        ]
        print(f"{'learner':9s} {'R loop':>9s} {'R wall':>9s} {'okl loop':>9s} {'okl run':>9s} "
              f"{'loop ratio':>10s} {'wall ratio':>10s}  same scores (max |diff|)")
        for label, script, rargs, make, col in cases:
            R, r_loop, r_wall, line = run_r(script, rargs, os.path.join(tmp, "out.csv"))
            tr, o_loop, o_wall = best_okl(make, X[order], y[order], k)
            diff = float(np.max(np.abs(tr.scores - R[:, col])))
            same = diff <= 1e-8 * max(1.0, float(np.max(np.abs(R[:, col]))))
            agree &= same
            ratio = r_loop / o_loop
            ok.append(ratio >= AIM)
            print(f"{label:9s} {r_loop:8.2f}s {r_wall:8.2f}s {o_loop * 1e3:7.1f}ms "
                  f"{o_wall * 1e3:7.1f}ms {ratio:9.0f}x {r_wall / o_wall:9.0f}x  "
                  f"{'yes' if same else 'NO'} ({diff:.1e})   aim >= {AIM:.0f}x: "
                  f"{'met' if ratio >= AIM else 'MISSED'}")
            print(f"          R: {line}; okl: {tr.n_mistakes} mistakes")
    print(f"{sum(ok)}/{len(ok)} aims met")
    if not agree:
        print("FAILED: okl and the R code disagree")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
