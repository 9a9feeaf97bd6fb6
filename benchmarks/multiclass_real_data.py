#!/usr/bin/env python
"""Every multiclass learner of okl on real multiclass files, one pass each (issue 26's
closing table).

    python benchmarks/multiclass_real_data.py FILE [FILE ...] [--sigma S] [--budget B]
        [--permutation P] [--out results.csv]

A file is LIBSVM (labels kept) or KEEL ``.dat``; each
learner runs the stream in a random order (``--permutation``: the seed of the order,
``-1`` the file's order) with the Gaussian kernel of width ``--sigma`` and the budget
``--budget`` (the parameter with the role "budget", for the learners that have one; the
LIBOKL protocol: sigma 8, B 200).  Printed: mistake rate, final support size (or
features, or hyperplanes), learning seconds; ``--out`` writes the rows as CSV.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time

import numpy as np

import okl
from okl import learners
from okl.datasets.streams import is_keel

#: (row name, learner, its parameters beside kernel and budget)
LEARNERS = [
    ("Perceptron (Crammer-Singer, max)", "MulticlassPerceptron", {}),
    ("Perceptron (uniform)", "MulticlassPerceptron", {"update": "uniform"}),
    ("Perceptron (proportional)", "MulticlassPerceptron", {"update": "proportional"}),
    ("PA-I", "MulticlassPA", {"variant": "pa1"}),
    ("PA-II", "MulticlassPA", {"variant": "pa2"}),
    ("Projectron (eta 0.1)", "MulticlassProjectron", {}),
    ("Projectron++ (eta 0.1)", "MulticlassProjectronPP", {}),
    ("OGD (LIBOKL)", "MulticlassOGD", {}),
    ("RBP", "MulticlassRBP", {"seed": 1}),
    ("Forgetron (LIBOKL)", "MulticlassForgetron", {}),
    ("BPAs", "MulticlassBPAs", {}),
    ("BOGD (LIBOKL)", "MulticlassBOGD", {}),
    ("FOGD", "MulticlassFOGD", {"seed": 1}),
    ("NOGD", "MulticlassNOGD", {}),
    ("BSGD (pegasos, merging)", "MulticlassBSGD", {"maintenance": "merging", "seed": 1}),
    ("Kernel Pegasos", "MulticlassKernelPegasos", {}),
    ("AMM online", "AMMOnline", {}),
]


def load(path):
    if is_keel(path):
        return okl.datasets.load_keel(path)
    X, y = okl.datasets.load_libsvm(path, labels="keep")
    return X, y


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--sigma", type=float, default=8.0)
    p.add_argument("--budget", type=int, default=200)
    p.add_argument("--permutation", type=int, default=1)
    p.add_argument("--reductions", action="store_true",
                   help="also OneVsRest and OneVsOne over the binary Perceptron")
    p.add_argument("--out")
    args = p.parse_args(argv)
    rows = []
    for path in args.files:
        X, y = load(path)
        if args.permutation >= 0:
            order = np.random.default_rng(args.permutation).permutation(len(y))
            X, y = X[order], y[order]
        classes = np.unique(y).tolist()
        kernel = okl.Gaussian(args.sigma)
        makers = list(LEARNERS)
        if args.reductions:
            makers += [("OneVsRest(Perceptron)", "ovr", {}), ("OneVsOne(Perceptron)", "ovo", {})]
        print(f"\n{path}: {X.shape[0]} rows, {X.shape[1]} features, {len(classes)} classes; "
              f"sigma {args.sigma}, budget {args.budget}")
        for name, learner, params in makers:
            if learner in ("ovr", "ovo"):
                wrap = okl.OneVsRest if learner == "ovr" else okl.OneVsOne
                model = wrap(okl.Perceptron(kernel), classes=classes)
            else:
                cls = learners.learner_class(learner)
                has_budget = "budget" in learners.roles(cls, params)
                model = learners.build(learner, {**params, "classes": classes}, kernel=kernel,
                                       budget=args.budget if has_budget else None)
            start = time.perf_counter()
            tr = model.run(X, y)
            wall = time.perf_counter() - start
            row = {"file": path, "learner": name, "mistake_rate": tr.mistake_rate,
                   "size": tr.final_budget, "seconds": tr.seconds, "wall": wall,
                   "sigma": args.sigma, "budget": args.budget}
            rows.append(row)
            print(f"  {name:<34} {100 * tr.mistake_rate:6.2f} %  size {tr.final_budget:6d}"
                  f"  {tr.seconds:8.3f} s")
    if args.out:
        with open(args.out, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
