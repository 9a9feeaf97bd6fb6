#!/usr/bin/env python
"""okl's multiclass learners beside LIBOKL's MATLAB toolbox run under Octave (issue 26,
item 6): the toolbox's own dna and satimage, Experiment.m's permutations (rows 1-2 of its
ID_list) and parameters (Gaussian sigma 8, Budget 200, the learners' other options), one
row per toolbox learner.

    python benchmarks/libokl_side_by_side.py [--runs 2] [--octave-runs CSV ...]

The Octave side is read from ``--octave-runs``: the CSVs ``run_libokl.m``
(``benchmarks/peers/libokl_multiclass/``) writes, one line per run and learner, measured
on this machine just before (GNU Octave, one BLAS thread; the seconds are the learner's
own tic/toc; the per-run minimum is compared).  Without them it falls back to
``tests/fixtures/libokl_multiclass/<set>_results.csv``, whose seconds were measured while
the machine ran other jobs (load 9-16): they overstate Octave's time several-fold (on an
idle core FouGD.m takes 0.30 s on dna, not 2.98 s), so quote speedups from a same-session
run only.  The okl side runs here: mistake rate (mean over the runs), final
support size, and learning seconds (process CPU time of ``learner.run``, the minimum over
the runs).  Speedup = Octave's minimum seconds / okl's.

Where the algorithms are deterministic and the same (Perceptron, OGD, NOGD, Forgetron,
BPAs, BOGD) the mistake rates are equal: the test suite checks them round for round
(tests/test_multiclass_budget.py).  RBP and FOGD draw their own random numbers (the rates
differ by the draws).  The toolbox's projectron.m / proplus.m are not the paper's
Projectron: they add until the budget is full and then project onto its span, with no
threshold; okl's MulticlassProjectron / ProjectronPP are the paper's (eta = 0.1 here), so
those two rows compare different algorithms and say so.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

import okl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from oracles.libokl_fixtures import FIXTURES, load_data  # noqa: E402  (the toolbox's .mat)
SIGMA, BUDGET = 8.0, 200

#: the toolbox's learner -> (okl's class, its parameters beside kernel and classes, same
#: algorithm?)
LEARNERS = {
    "Perceptron": ("MulticlassPerceptron", {"convention": "libol"}, True),
    "OGD": ("MulticlassOGD", {}, True),
    "FOGD": ("MulticlassFOGD", {"D": 4 * BUDGET, "seed": 1}, "draws"),
    "NOGD": ("MulticlassNOGD", {"B": BUDGET}, True),
    "RBP": ("MulticlassRBP", {"B": BUDGET, "seed": 1}, "draws"),
    "Forgetron": ("MulticlassForgetron", {"B": BUDGET}, True),
    "Projectron": ("MulticlassProjectron", {}, False),
    "Projectron++": ("MulticlassProjectronPP", {}, False),
    "BPAs": ("MulticlassBPAs", {"B": BUDGET}, True),
    "BOGD": ("MulticlassBOGD", {"B": BUDGET}, True),
}


#: run_libokl.m's learner names (the toolbox's files) -> the rows' names
MATLAB = {"perceptron": "Perceptron", "ogd": "OGD", "FouGD": "FOGD", "NyGD": "NOGD",
          "RBP": "RBP", "forgetron": "Forgetron", "projectron": "Projectron",
          "proplus": "Projectron++", "BPAs": "BPAs", "BOGD": "BOGD"}


def octave_results(name, runs_csvs=()):
    """{learner: {mistake_rate_mean, support_size_mean, seconds_per_run_min, runs}} of
    ``name``: from run_libokl.m's per-run CSVs when given (``dataset, run, learner,
    mistake rate, SVs, seconds``, no header), else the fixtures' summary."""
    lines = [row for path in runs_csvs for row in csv.reader(open(path))
             if row and row[0] == name]
    if not lines:
        with open(FIXTURES / f"{name}_results.csv") as fh:
            return {r["learner"]: r for r in csv.DictReader(fh)}, "fixtures (loaded machine)"
    out = {}
    for _, _, learner, rate, svs, seconds in lines:
        r = out.setdefault(MATLAB[learner], {"rates": [], "svs": [], "secs": []})
        r["rates"].append(float(rate))
        r["svs"].append(float(svs))
        r["secs"].append(float(seconds))
    return ({k: {"mistake_rate_mean": np.mean(v["rates"]),
                 "support_size_mean": np.mean(v["svs"]),
                 "seconds_per_run_min": min(v["secs"]), "runs": len(v["secs"])}
             for k, v in out.items()}, f"run_libokl.m CSVs ({len(lines)} lines)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2, help="permutations (Experiment.m: 2)")
    ap.add_argument("--octave-runs", nargs="*", default=(), metavar="CSV",
                    help="run_libokl.m's output files, measured on this machine")
    args = ap.parse_args(argv)
    print(f"okl {okl.__version__}; sigma {SIGMA}, Budget {BUDGET}")
    for name in ("dna", "satimage"):
        X, y, ids = load_data(name)
        classes = sorted(set(y.tolist()))
        octave, source = octave_results(name, args.octave_runs)
        print(f"\n{name}: {len(y)} rounds, K = {len(classes)}, d = {X.shape[1]}; okl "
              f"{args.runs} permutation(s); Octave from {source}")
        print(f"  {'learner':13s} {'Octave %':>9s} {'okl %':>8s} {'Octave SVs':>10s} "
              f"{'okl SVs':>8s} {'Octave s':>9s} {'okl s':>8s} {'speedup':>8s}  same algorithm")
        for label, (cls, params, same) in LEARNERS.items():
            rates, sizes, secs = [], [], []
            for run in range(args.runs):
                Xr, yr = X[ids[run] - 1], y[ids[run] - 1]
                learner = okl.learners.learner_class(cls)(okl.Gaussian(SIGMA), classes=classes,
                                                         **params)
                t0 = time.process_time()
                tr = learner.run(Xr, yr)
                secs.append(time.process_time() - t0)
                rates.append(tr.mistake_rate)
                sizes.append(int(tr.budget[-1]) if len(tr.budget) else 0)
            o = octave[label]
            o_s = float(o["seconds_per_run_min"])
            ok_s = min(secs)
            note = {True: "yes (checked round for round in the tests)",
                    "draws": "yes, with its own random draws",
                    False: "no: the toolbox's budgeted variant vs the paper's (eta 0.1)"}[same]
            print(f"  {label:13s} {100 * float(o['mistake_rate_mean']):9.2f} "
                  f"{100 * np.mean(rates):8.2f} {float(o['support_size_mean']):10.0f} "
                  f"{np.mean(sizes):8.0f} {o_s:9.2f} {ok_s:8.3f} "
                  f"{o_s / max(ok_s, 1e-9):7.0f}x  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
