"""The ``okl`` command.

``okl run`` runs one learner on one stream and prints what it did.  With no
arguments it needs no download: a Gaussian-kernel Perceptron on a synthetic
nonlinear stream.
"""
from __future__ import annotations

import argparse
import json
import sys

import okl
from okl.datasets import load_libsvm, xor_stream

LEARNERS = {
    "perceptron": lambda k, a: okl.Perceptron(kernel=k, seed=a.seed),
    "kernel-ogd": lambda k, a: okl.KernelOGD(kernel=k, loss=a.loss, eta=a.eta, lam=a.lam,
                                             schedule=a.schedule, seed=a.seed),
}
KERNELS = {
    "gaussian": lambda a: okl.Gaussian(a.sigma),
    "laplacian": lambda a: okl.Laplacian(a.sigma),
    "polynomial": lambda a: okl.Polynomial(degree=a.degree),
    "linear": lambda a: okl.Linear(),
}


def _parser():
    parser = argparse.ArgumentParser(prog="okl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one learner over one stream")
    run.add_argument("--learner", choices=sorted(LEARNERS), default="perceptron")
    run.add_argument("--kernel", choices=sorted(KERNELS), default="gaussian")
    run.add_argument("--sigma", type=float, default=1.0, help="Gaussian/Laplacian width")
    run.add_argument("--degree", type=int, default=2, help="polynomial degree")
    run.add_argument("--loss", default="hinge", help="KernelOGD loss")
    run.add_argument("--eta", type=float, default=0.5)
    run.add_argument("--lam", type=float, default=0.0)
    run.add_argument("--schedule", default="constant", choices=["constant", "sqrt"])
    run.add_argument("--data", help="a LIBSVM file (default: a synthetic stream)")
    run.add_argument("--rounds", type=int, default=20_000, help="synthetic stream length")
    run.add_argument("--features", type=int, default=10, help="synthetic stream dimension")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--json", help="write the run summary to this JSON file")
    rep = sub.add_parser("reproduce", help="reproduce a paper's figure or table")
    rep.add_argument("name", nargs="?", help="experiment name (omit to list them)")
    rep.add_argument("--quick", action="store_true", help="a small version, for smoke runs")
    rep.add_argument("--out", default="okl-results", help="output directory")
    rep.add_argument("--seed", type=int, default=0)
    return parser


def _reproduce(args) -> int:
    from okl import experiments

    if args.name is None:
        for name in sorted(experiments.available()):
            print(name)
        return 0
    summary = experiments.run(args.name, args.out, quick=args.quick, seed=args.seed)
    print(json.dumps(summary, indent=2, default=str))
    return 0


def _run(args) -> int:
    kernel = KERNELS[args.kernel](args)
    learner = LEARNERS[args.learner](kernel, args)
    if args.data:
        X, y = load_libsvm(args.data)
        source = args.data
    else:
        X, y = xor_stream(args.rounds, args.features, seed=args.seed)
        source = f"synthetic xor stream ({args.rounds} x {args.features}, seed {args.seed})"
    if not learner.is_classifier:
        raise ValueError(f"okl run classifies: loss {args.loss!r} is a regression loss")
    trace = learner.run(X, y)
    summary = trace.to_dict()
    summary["data"] = source
    rows = [("learner", repr(learner)), ("data", source), ("rounds", trace.n_rounds),
            ("mistake rate", f"{trace.mistake_rate:.4f}"),
            ("support vectors", trace.final_budget), ("seconds", f"{trace.seconds:.3f}"),
            ("rounds / second", f"{trace.n_rounds / max(trace.seconds, 1e-12):,.0f}")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=2)
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "reproduce":
            return _reproduce(args)
    except ValueError as exc:
        print(f"okl: error: {exc}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
