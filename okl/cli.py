"""The ``okl`` command.

``okl run`` runs one learner on one stream and prints what it did.  With no
arguments it needs no download: a Gaussian-kernel Perceptron on a synthetic
nonlinear stream.  ``okl sweep`` runs grids of learners, parameters, kernels and
permutations (joblib locally, ``--dask ADDRESS`` on a cluster); ``okl bounds``
puts a run's measured quantities beside the theorems' bounds on the same stream;
``okl plot`` draws saved runs and sweeps; ``okl compare`` tests the differences between
learners in their runs (significance marks, ranks, Friedman and post-hoc tests, a
critical-difference diagram); ``okl reproduce`` reruns the papers' figures and tables.
"""
from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from pathlib import Path

from okl.datasets.streams import SYNTHETIC
from okl.kernels import KERNELS


# ----------------------------------------------------------------------------------
# Arguments: every argparse field is read here, and only here; the library below takes
# values (okl.learners.build, okl.datasets.stream, okl.experiments.*)
# ----------------------------------------------------------------------------------

def _positive_int(text: str) -> int:
    """An argparse ``type``: ``"3"`` -> 3; ``"0"``, ``"-1"`` and ``"x"`` are usage errors
    that name the option (``--rounds``), not the library parameter it feeds."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _jobs(text: str) -> int:
    """An argparse ``type`` for ``--jobs``: joblib's worker count, a nonzero integer
    (``-1``: every core).  ``"0"`` was joblib's ``n_jobs == 0 in Parallel has no
    meaning`` after ``okl sweep`` had created its journal, which then refused the next
    sweep; it is a usage error naming the option."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be a nonzero integer (worker processes; -1: "
                                         f"every core), got {text!r}")
    return value


def _assignments(items, *, lists: bool) -> dict:
    """``["lam=0.1,1", "tau=100"]`` -> ``{"lam": ["0.1", "1"], "tau": ["100"]}`` (or the
    texts alone): the values stay text, for the learner's declarations to parse
    (:func:`okl.learners.parse_params`)."""
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"a parameter is NAME=VALUE, got {item!r}")
        out[name.strip()] = [v.strip() for v in value.split(",")] if lists else value.strip()
    return out


def _dataset_names(values) -> list[str] | None:
    """``--datasets a9a magic04`` or ``--datasets a9a,magic04`` -> ``["a9a", "magic04"]``
    (``None`` when not given)."""
    if not values:
        return None
    out = []
    for v in values:
        out += [s.strip() for s in str(v).split(",") if s.strip()]
    return out or None


def _add_data_arguments(parser):
    """``--data``, ``--download``, ``--rounds``, ``--features``, ``--seed``."""
    parser.add_argument("--data", default="xor",
                        help="a LIBSVM/CSV file (CSV: the label in the last column, numeric "
                             "and binary), a benchmark dataset name (a9a, w8a, magic04, ...) "
                             "or a synthetic stream: " + ", ".join(SYNTHETIC) + " (default xor)")
    parser.add_argument("--download", action="store_true",
                        help="download a benchmark dataset that is not cached yet")
    parser.add_argument("--rounds", type=_positive_int, default=20_000,
                        help="synthetic stream length (default %(default)s)")
    parser.add_argument("--features", type=_positive_int, default=10,
                        help="synthetic stream dimension (default 10)")
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed (default 0)")


def _add_learner_arguments(parser):
    """``--kernel``, ``--sigma``, ``--degree``, ``-p NAME=VALUE`` (``okl run``, ``bounds``)."""
    parser.add_argument("--kernel", choices=KERNELS, default="gaussian",
                        help="the learner's kernel (default gaussian)")
    parser.add_argument("--sigma", type=float, default=None,
                        help="Gaussian/Laplacian width (default 1), the same as -p sigma=...")
    parser.add_argument("--degree", type=int, default=None,
                        help="polynomial degree (default 2), the same as -p degree=...")
    parser.add_argument("--param", "-p", action="append", metavar="NAME=VALUE",
                        help="a learner or kernel parameter, e.g. -p lam=0.01 -p tau=500 "
                             "(repeatable; a kernel's parameter, as sigma, is the kernel's: "
                             "a learner's own parameter of that name is -p learner.sigma=...)")
    parser.add_argument("--multiclass", choices=("ovr", "ovo"), default=None,
                        help="run a binary learner on K classes: one-vs-rest (K copies) or "
                             "one-vs-one (K (K - 1) / 2 copies)")


def _stream(args, learners=()):
    """``(X, y, description)`` of the data arguments, a file's labels read as
    ``learners`` need them (``okl.streaming.label_reading``: -1/+1 for binary learners,
    kept for multiclass learners and regressors; one way for all of them)."""
    from okl.datasets import stream
    from okl.streaming import label_reading

    ways = {label_reading(learner) for learner in learners}
    if len(ways) > 1:
        raise ValueError("the learners read the file's labels differently (binary "
                         "classifiers map them to -1/+1, multiclass learners and regressors "
                         "keep them): run them in separate commands")
    return stream(args.data, download=args.download, rounds=args.rounds,
                  features=args.features, seed=args.seed, labels=next(iter(ways), None))


def _kernel_options(args) -> dict:
    """The kernel parameters given as options (``--sigma``, ``--degree``), as text."""
    return {name: str(value) for name, value in
            (("sigma", getattr(args, "sigma", None)), ("degree", getattr(args, "degree", None)))
            if value is not None}


def _learner_maker(args):
    """``make(seed=None, budget=None)``: the learner of ``--learner``, ``-p``, the kernel
    options and ``--seed``, through the one factory (:func:`okl.learners.build`); another
    seed or budget for ``okl bounds --seeds / --rate-budgets``."""
    from okl import learners
    from okl.kernels import make_kernel, parse_kernel_param

    texts = _assignments(args.param, lists=False)
    mine, kernel_texts = learners.split_params(args.learner, args.kernel, texts)
    options = _kernel_options(args)
    given = {**(options if "kernel" in learners.roles(learners.learner_class(args.learner), mine)
                else {}), **kernel_texts}
    kernel = None
    if "kernel" in learners.roles(learners.learner_class(args.learner), mine):
        names = KERNELS[args.kernel][1]
        for name in given:
            if name not in names:
                raise ValueError(f"--{name}: the {args.kernel} kernel takes "
                                 f"{list(names) or 'no parameters'}")
        kernel = make_kernel(args.kernel, **{k: parse_kernel_param(k, v)
                                             for k, v in given.items()})
    params = learners.parse_params(learners.learner_class(args.learner), mine)

    def make(seed=None, budget=None):
        learner = learners.build(args.learner, params, kernel=kernel,
                                 seed=args.seed if seed is None else seed, budget=budget)
        reduction = getattr(args, "multiclass", None)
        if reduction is not None:
            learner = (learners.OneVsRest if reduction == "ovr" else learners.OneVsOne)(learner)
        return learner

    make(seed=args.seed)          # every check, before anything is read or run
    return make


def _plain_text(text: str) -> str:
    """reST of a docstring as terminal text: ``code`` and :role:`target` lose their
    markup (argparse prints help verbatim)."""
    import re

    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    text = re.sub(r"``([^`]+)``", r"\1", text)
    return re.sub(r"`([^`]+)`", r"\1", text).strip()


def _parser():
    parser = argparse.ArgumentParser(
        prog="okl", description=_plain_text(__doc__.split("\n\n", 1)[1]),
        epilog="okl COMMAND --help describes a command's options.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one learner over one stream")
    run.add_argument("--learner", default="Perceptron",
                     help="an okl learner, e.g. NORMA, POMDR, Ahpatron (okl run --list names "
                          "them), or a learner class of your own as module:Class or "
                          "file.py:Class (default Perceptron)")
    run.add_argument("--list", action="store_true",
                     help="list the learners (name, paper, task) and exit")
    _add_learner_arguments(run)
    _add_data_arguments(run)
    run.add_argument("--json", help="write the run summary to this JSON file")
    run.add_argument("--trace", help="save the whole trace (per-round arrays) to this .npz "
                                     "file, for okl plot")
    run.add_argument("--chunk-rows", dest="chunk_rows", type=_positive_int, default=None,
                     help="a file or dataset is read and learned in chunks of this many "
                          "lines (default 16384): memory is one chunk, the model and the "
                          "trace, the result that of one pass over the whole file")
    run.add_argument("--summary-every", dest="summary_every", type=_positive_int, default=1000,
                     help="without --trace, keep cumulative mistakes and loss every this "
                          "many rounds instead of per-round arrays (default 1000)")
    run.add_argument("--no-progress", dest="no_progress", action="store_true",
                     help="no progress bar")
    swp = sub.add_parser("sweep", help="a grid of learners, parameters, kernels and permutations",
                         conflict_handler="resolve")     # its --data is repeatable
    swp.add_argument("--learner", action="append", required=True,
                     help="an okl learner or module:Class of your own (repeatable)")
    swp.add_argument("--kernel", default="gaussian",
                     help="comma-separated kernels: " + ", ".join(KERNELS))
    swp.add_argument("--param", "-p", action="append", metavar="NAME=V1,V2",
                     help="values of a learner or kernel parameter, e.g. -p lam=0.01,0.1 "
                          "-p sigma=1,2 (repeatable; a learner ignores what it does not take)")
    swp.add_argument("--permutations", type=_positive_int, default=1,
                     help="random orders of the stream per configuration (default 1)")
    _add_data_arguments(swp)
    swp.add_argument("--data", action="append", metavar="DATA",
                     help="a LIBSVM/CSV file, a benchmark dataset name (a9a, w8a, magic04, ...) "
                          "or a synthetic stream: " + ", ".join(SYNTHETIC) + "; repeatable: "
                          "the grid runs on each, every row names its dataset (default xor)")
    swp.add_argument("--jobs", type=_jobs, default=1,
                     help="local worker processes (joblib; -1: every core; default 1)")
    swp.add_argument("--dask", metavar="ADDRESS",
                     help="run on the Dask cluster at this scheduler address (tcp://host:port)")
    swp.add_argument("--out", default="okl-sweep",
                     help="output prefix: writes PREFIX.csv (one row per run) and "
                          "PREFIX-summary.csv / .json (default okl-sweep)")
    swp.add_argument("--no-progress", action="store_true", help="no progress bar")
    swp.add_argument("--resume", action="store_true",
                     help="continue an interrupted sweep: each finished run is saved in "
                          "PREFIX-journal.jsonl as it completes; with --resume the runs found "
                          "there are not run again, and the outputs are those of an "
                          "uninterrupted sweep (the same command line is needed; --jobs and "
                          "--dask may change)")
    swp.add_argument("--no-timing", dest="timing", action="store_false",
                     help="leave out each run's wall-clock seconds, so that the CSV depends "
                          "on the grid, data and seed only (byte-identical across reruns)")
    bnd = sub.add_parser("bounds",
                         help="measured quantities of one run beside the theory's bounds")
    bnd.add_argument("--learner", default="Perceptron",
                     help="an okl learner or module:Class of your own (default Perceptron)")
    _add_learner_arguments(bnd)
    _add_data_arguments(bnd)
    bnd.set_defaults(rounds=1000)        # comparators in hindsight cost O(T^3)
    bnd.add_argument("--U", help="comma-separated comparator radii (default 1,2,4,8)")
    bnd.add_argument("--prefix", type=int, help="keep only the first N rounds of the stream")
    bnd.add_argument("--max-rounds", dest="max_rounds", type=_positive_int, default=None,
                     help="with the exact comparator, refuse longer streams (it is cubic in "
                          "T; default 3000: a longer stream then gets the subset comparator "
                          "unless this option is given)")
    bnd.add_argument("--comparator", choices=("auto", "exact", "subset"), default="auto",
                     help="exact: the best f in hindsight over the whole stream (O(T^3)); "
                          "subset: the best f over --subset rows, its loss exact on every "
                          "row (a valid f for the bounds that hold for every f; any T); "
                          "auto (default): exact up to 3000 rounds")
    bnd.add_argument("--subset", type=_positive_int, default=None,
                     help="rows of the subset comparator (default 2000)")
    bnd.add_argument("--delta", type=float, default=None,
                     help="confidence of the high-probability bounds (default 0.05)")
    bnd.add_argument("--seeds", type=int, default=None, metavar="N",
                     help="run N draws (learner seeds 1..N, or N orders of the stream for a "
                          "deterministic learner) and judge each bound by its kind: "
                          "violations/N against delta (binomial test), the mean against an "
                          "expectation bound (t interval)")
    bnd.add_argument("--rate", action="store_true",
                     help="fit the growth exponent in T of each measured quantity on the "
                          "prefixes T0, 2 T0, 4 T0, ... against the bound's")
    bnd.add_argument("--rate-t0", dest="rate_t0", type=_positive_int, default=None,
                     help="first prefix of --rate (default max(32, T/16))")
    bnd.add_argument("--rate-budgets", dest="rate_budgets", metavar="B1,B2,...",
                     help="also fit the exponent in the budget B over these values")
    bnd.add_argument("--json", help="write the report (rows and curves) to this JSON file")
    bnd.add_argument("--plot", metavar="STEM",
                     help="save measured-against-bound curves as STEM*.png/.svg")
    cmp = sub.add_parser("compare", help="significance marks, ranks, Friedman and post-hoc "
                                         "tests, a critical-difference diagram of runs")
    cmp.add_argument("results", nargs="+", metavar="RESULTS",
                     help="runs CSVs: okl sweep's PREFIX.csv, a reproduction's STEM_runs.csv "
                          "(one row per learner, dataset and permutation)")
    cmp.add_argument("--metric", help="the column compared (default mistake_rate; a "
                                      "reproduction's value; any numeric column)")
    direction = cmp.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher", action="store_true",
                           default=None, help="a larger metric is better (needed for a "
                                              "metric okl does not know)")
    direction.add_argument("--lower-is-better", dest="higher", action="store_false",
                           help="a smaller metric is better")
    cmp.add_argument("--test", choices=("t", "wilcoxon"), default="t",
                     help="one-sided test against each dataset's best, paired over shared "
                          "permutations: t-test or Wilcoxon signed-rank (default t)")
    cmp.add_argument("--alpha", type=float, default=0.05,
                     help="level of every test (default 0.05)")
    cmp.add_argument("--control", help="the learner Holm's procedure compares the others with "
                                       "(default: the best average rank)")
    cmp.add_argument("--best", action="store_true",
                     help="keep each learner's configuration of best mean per dataset (a "
                          "grid point selected in hindsight)")
    cmp.add_argument("--no-tie-correction", dest="tie_correction", action="store_false",
                     help="the Friedman statistic of Demsar (2006) from the average ranks, "
                          "without scipy's correction for ties")
    cmp.add_argument("--out", default="okl-compare",
                     help="output prefix: PREFIX.csv, .tex, .md, .json and PREFIX-cd.png/.svg "
                          "(default okl-compare)")
    plot = sub.add_parser("plot", help="figures of saved runs or of a sweep (PNG and SVG)")
    plot.add_argument("inputs", nargs="+",
                      help="traces saved by okl run --trace (.npz), or one sweep CSV")
    plot.add_argument("--out", default="okl-plot",
                      help="output prefix of the figures: PREFIX-mistake-rate.png/.svg, ... "
                           "(default okl-plot)")
    rep = sub.add_parser("reproduce", help="reproduce a paper's figure or table")
    rep.add_argument("name", nargs="?",
                     help="experiment name (omit to list them; with --quick, runs all)")
    rep.add_argument("--quick", action="store_true", help="a small version, for smoke runs")
    rep.add_argument("--out", default="okl-results",
                     help="output directory (default okl-results)")
    rep.add_argument("--seed", type=int, default=0,
                     help="seed of the permutations and learners (default 0)")
    rep.add_argument("--datasets", nargs="+", metavar="NAME",
                     help="only these of the paper's datasets (names as the paper's; "
                          "--datasets a9a magic04 or --datasets a9a,magic04)")
    rep.add_argument("--learners", nargs="+", metavar="NAME",
                     help="only these learners of the table; any other okl learner or a "
                          "class of your own (module:Class) joins as a starred row, run "
                          "under the paper's protocol (pomdr-table2, ahpatron-table2)")
    rep.add_argument("--param", "-p", action="append", metavar="NAME=V1,V2",
                     help="the grid of the learners of your own in --learners, e.g. "
                          "-p C=0.1,1 (repeatable); the paper's rule selects the point")
    rep.add_argument("--permutations", type=_positive_int, dest="n_permutations",
                     help="random orders per dataset (default: the paper's, e.g. 10)")
    rep.add_argument("--rounds", type=_positive_int, dest="n_rounds",
                     help="rounds per permutation, drawn uniformly (default: the whole "
                          "dataset)")
    rep.add_argument("--jobs", type=_jobs, default=1,
                     help="local worker processes (joblib; -1: every core; default 1); "
                          "results do not depend on it")
    rep.add_argument("--dask", metavar="ADDRESS",
                     help="run on the Dask cluster at this scheduler address (tcp://host:port)")
    rep.add_argument("--resume", action="store_true",
                     help="continue an interrupted reproduction: each finished run is saved "
                          "in OUT/STEM-journal.jsonl as it completes; with --resume the runs "
                          "found there are not run again and the outputs are those of an "
                          "uninterrupted run (same command line; --jobs and --dask may change)")
    rep.add_argument("--variant", choices=("okl", "r"),
                     help="selection-memory / selection-time: okl's reading of the paper "
                          "(default) or the settings of the authors' R scripts")
    rep.add_argument("--no-progress", action="store_true", help="no progress bar")
    rep.add_argument("--no-timing", dest="timing", action="store_false",
                     help="leave out wall-clock seconds, so that the outputs depend on the "
                          "data, seed and settings only (byte-identical across reruns)")
    return parser


def _reproduce(args) -> int:
    from okl import experiments

    if args.name is None and not args.quick:
        for name in sorted(experiments.available()):
            print(name)
        print("(okl reproduce NAME runs one; okl reproduce --quick runs every one, small)")
        return 0
    if args.name is not None and args.name not in experiments.available():
        raise ValueError(f"unknown experiment {args.name!r}; the experiments: "
                         f"{', '.join(sorted(experiments.available()))}")
    options = {"datasets": _dataset_names(args.datasets), "learners": args.learners,
               "params": _assignments(args.param, lists=True) or None,
               "n_permutations": args.n_permutations, "n_rounds": args.n_rounds,
               "n_jobs": args.jobs if args.jobs != 1 else None, "scheduler": args.dask,
               "resume": args.resume or None, "timing": None if args.timing else False,
               "variant": args.variant}
    if args.name is None:
        given = [k for k, v in options.items() if v is not None]
        if given:
            raise ValueError(f"okl reproduce --quick without a NAME runs every experiment "
                             f"with its defaults; {', '.join(given)} need a NAME")
    names = [args.name] if args.name else sorted(experiments.available())
    for name in names:
        out = Path(args.out) if args.name else Path(args.out) / name
        start = time.perf_counter()
        chosen = {k: v for k, v in options.items() if v is not None}
        if "variant" in chosen and "variant" not in inspect.signature(
                experiments.available()[name]).parameters:
            raise ValueError(f"--variant applies to selection-memory and selection-time, "
                             f"not {name}")
        if args.name and experiments.accepts(name, "progress"):
            chosen["progress"] = not args.no_progress
        if not args.name and experiments.accepts(name, "verbose"):
            chosen["verbose"] = False
        try:
            summary = experiments.run(name, out, quick=args.quick, seed=args.seed, **chosen)
        except KeyboardInterrupt:
            journals = sorted(str(p) for p in out.glob("*-journal.jsonl"))
            where = f": finished runs are saved in {', '.join(journals)}" if journals else ""
            print(f"okl: interrupted{where}; run the same command with --resume to continue",
                  file=sys.stderr)
            return 130
        if args.name:
            text = experiments.summary_text(summary)
            if text:
                print(text)
            flagged = any(isinstance(r, dict) and r.get("agrees") is False
                          for r in summary.get("rows") or ())   # a paper table's FLAG rows
            if args.quick and flagged:             # docs/experiments.rst says so too
                print("(--quick shortens the runs: rows that a full run matches can FLAG; "
                      "only full runs are comparable with the paper)")
            print(f"{name}: {time.perf_counter() - start:.1f} s; wrote "
                  + ", ".join(Path(f).name for f in summary.get("files", [])) + f" in {out}")
        else:
            print(f"{name:<24} {time.perf_counter() - start:7.1f} s   -> {out}")
    return 0


def _chunked(data) -> bool:
    """Whether ``--data`` is a file or a registry dataset (not a synthetic stream)."""
    if data in SYNTHETIC:
        return False
    if Path(data).exists():
        return True
    from okl.datasets.registry import DATASETS

    return data.lower() in {k.lower() for k in DATASETS}


def _list_learners() -> int:
    from okl import learners

    rows = [(e.name, e.paper or "-", e.role, e.task, e.summary)
            for e in learners.entries().values()]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(f"{v:<{w}}" for v, w in zip(r, widths)) + "  " + r[4])
    print("(okl run --learner NAME; a class of your own: --learner module:Class)")
    return 0


def _run(args) -> int:
    if args.list:
        return _list_learners()
    learner = _learner_maker(args)()
    for path in (args.json, args.trace):  # as sweep/bounds/plot do, and before the run:
        if path:                          # a missing directory failed only after it
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    if _chunked(args.data):        # a file or a dataset: read and learned chunk by chunk
        from okl.streaming import run_file

        trace, _ = run_file(learner, args.data, chunk_rows=args.chunk_rows,
                            every=args.summary_every, keep_rounds=bool(args.trace),
                            progress=False if args.no_progress else None,
                            download=args.download)
        source = args.data
    else:
        X, y, source = _stream(args)
        trace = learner.run(X, y)  # a regressor learns the labels as real targets
    summary = trace.to_dict()
    summary["data"] = source
    if trace.is_classification:
        quality = ("mistake rate", f"{trace.mistake_rate:.4f}")
    elif trace.mean_squared_error is not None:
        quality = ("mean squared loss", f"{trace.mean_squared_error:.6g}")
    else:
        quality = ("average loss", f"{trace.average_loss:.4f}")
    rows = [("learner", repr(learner)), ("data", source), ("rounds", trace.n_rounds),
            quality,
            ("support vectors", trace.final_budget), ("seconds", f"{trace.seconds:.3f}"),
            ("rounds / second", f"{trace.n_rounds / max(trace.seconds, 1e-12):,.0f}")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=2)
    if args.trace:
        trace.save(args.trace)
    return 0


def _plot(args) -> int:
    from okl import plotting
    from okl.trace import Trace

    out = Path(args.out)
    written = []
    if len(args.inputs) == 1 and args.inputs[0].endswith(".csv"):
        import csv

        with open(args.inputs[0], newline="") as fh:
            rows = list(csv.DictReader(fh))
        need = {"final_budget", "seconds", "learner"}
        if rows and need - {"seconds"} <= set(rows[0]) and "seconds" not in rows[0]:
            raise ValueError(f"{args.inputs[0]} has no seconds column (a sweep run with "
                             f"--no-timing): okl plot draws seconds against the budget; "
                             f"rerun the sweep without --no-timing")
        if not rows or not need <= set(rows[0]):
            raise ValueError(f"{args.inputs[0]} is not a sweep CSV (columns {sorted(need)} "
                             f"needed)")
        fig = plotting.plot_time_vs_budget(rows, title="time against memory")
        written += plotting.save_figure(fig, out.with_name(out.name + "-time-vs-budget"))
    else:
        traces = {}
        for name in args.inputs:
            if not name.endswith(".npz"):
                raise ValueError(f"{name}: okl plot takes .npz traces (okl run --trace) or "
                                 f"one sweep .csv")
            traces[name] = Trace.load(name)
        traces = _trace_labels(traces)
        fig = plotting.plot_mistake_rate(traces)
        written += plotting.save_figure(fig, out.with_name(out.name + "-mistake-rate"))
        fig = plotting.plot_budget(traces)
        written += plotting.save_figure(fig, out.with_name(out.name + "-budget"))
    for path in written:
        print(path)
    return 0


def _trace_labels(traces: dict) -> dict:
    """``{path: Trace}`` -> ``{label: Trace}``: each trace under its learner's name
    (``Trace.learner``, e.g. ``POMDR(B=150, ...)`` -> ``POMDR``), with the file's name
    added where two traces share a learner (or a trace has no learner recorded)."""
    names = {}
    for path, trace in traces.items():
        learner = (trace.learner or "").split("(", 1)[0].strip()
        names[path] = learner
    count = {}
    for learner in names.values():
        count[learner] = count.get(learner, 0) + 1
    out = {}
    for path, trace in traces.items():
        learner, stem = names[path], Path(path).stem
        label = learner if learner and count[learner] == 1 else \
            (f"{learner} ({stem})" if learner else stem)
        out[label] = trace
    return out


def _sweep(args) -> int:
    from okl.experiments import sweep as sw

    grid = {"learner": args.learner, "kernel": args.kernel.split(",")}
    grid.update(_assignments(args.param, lists=True))
    configs = sw.configurations(grid)   # every check, before any data is read
    learners_of_grid = [c.build(0) for c in configs]
    datasets = list(dict.fromkeys(args.data or ["xor"]))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # one journal per dataset (each holds its data's fingerprint); one dataset: as before
    journals = [out.with_name(out.name + "-journal.jsonl")] if len(datasets) == 1 else \
        [out.with_name(f"{out.name}-journal-{i}.jsonl") for i in range(1, len(datasets) + 1)]
    before = sum(_journal_runs(j) for j in journals) if args.resume else 0
    rows, sources = [], []
    try:
        for data, journal in zip(datasets, journals):
            X, y, source = _stream(argparse.Namespace(**{**vars(args), "data": data}),
                                   learners_of_grid)
            sources.append(source)
            rows += sw.sweep(grid, X, y, permutations=args.permutations, seed=args.seed,
                             n_jobs=args.jobs, scheduler=args.dask,
                             progress=not args.no_progress, journal=journal,
                             resume=args.resume, timing=args.timing, dataset=data)
            del X, y                 # one dataset in memory at a time
    except KeyboardInterrupt:
        if not any(j.exists() for j in journals):
            raise                    # while the first data were read: nothing saved
        saved = sum(_journal_runs(j) for j in journals)
        print(f"okl: interrupted; {saved} finished run(s) are saved in "
              f"{_journal_names(journals)}: run the same command with --resume to continue",
              file=sys.stderr)
        return 130
    except ValueError:
        raise                        # bad arguments or data: main() reports them
    except Exception as exc:         # noqa: BLE001 - reported, or re-raised with a note
        hint = (f"{sum(_journal_runs(j) for j in journals)} finished run(s) are saved in "
                f"{_journal_names(journals)}: run the same command with --resume to continue")
        if type(exc).__name__ in ("TerminatedWorkerError", "KilledWorker"):  # a lost worker
            print(f"okl: error: a worker process died ({type(exc).__name__}); {hint}",
                  file=sys.stderr)
            return 1
        if hasattr(exc, "add_note"):
            exc.add_note(f"okl: {hint}")
        raise
    summary = sw.summarize(rows)
    sw.write_csv(rows, out.with_name(out.name + ".csv"))
    sw.write_csv(summary, out.with_name(out.name + "-summary.csv"))
    sw.write_json(summary, out.with_name(out.name + "-summary.json"))
    for journal in journals:         # the outputs now hold every run
        journal.unlink()
    names = journals[0].name if len(journals) == 1 else f"{len(journals)} journals"
    resumed = f" ({before} from {names})" if before else ""
    print(f"{len(rows)} runs{resumed} on {', '.join(sources)}; mean and standard deviation "
          f"over {args.permutations} permutation(s):")
    print(sw.format_table(summary))
    if len(datasets) > 1:          # the ranks across datasets, as okl compare gives them
        from okl.experiments.compare import compare

        ranks = compare(rows).average_ranks
        if ranks:
            print("average rank over the datasets (1 = best): "
                  + ", ".join(f"{k} {v:.2f}" for k, v in ranks.items())
                  + f"; okl compare {out}.csv tests the differences")
    print(f"wrote {out}.csv, {out}-summary.csv, {out}-summary.json")
    return 0


def _bounds(args) -> int:
    from okl.experiments.bounds import command

    make = _learner_maker(args)
    X, y, source = _stream(args, [make()])
    U = None
    if args.U is not None:
        try:
            U = [float(v) for v in args.U.split(",")]
        except ValueError:
            raise ValueError(f"--U takes comma-separated radii, got {args.U!r}") from None
    budgets = None
    if args.rate_budgets is not None:
        try:
            budgets = [int(v) for v in args.rate_budgets.split(",")]
        except ValueError:
            raise ValueError(f"--rate-budgets takes comma-separated integers, got "
                             f"{args.rate_budgets!r}") from None
    return command(make, X, y, source, prefix=args.prefix, U=U, max_rounds=args.max_rounds,
                   comparator=args.comparator, subset=args.subset, delta=args.delta,
                   seeds=args.seeds, rate=args.rate, rate_t0=args.rate_t0,
                   rate_budgets=budgets, plot=args.plot, json_path=args.json)


def _journal_runs(path) -> int:
    """Complete run records in a sweep journal (0 if there is none)."""
    try:
        return max(Path(path).read_bytes().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


def _compare(args) -> int:
    from okl.experiments.compare import compare

    result = compare(args.results, args.metric, higher_is_better=args.higher, test=args.test,
                     alpha=args.alpha, control=args.control, best=args.best,
                     tie_correction=args.tie_correction)
    print(result.format_text())
    files = result.write(args.out)
    print("wrote " + ", ".join(str(f) for f in files))
    return 0


def _journal_names(journals) -> str:
    """The journals of a sweep that exist, for a message (the first when none does)."""
    there = [str(j) for j in journals if Path(j).exists()] or [str(journals[0])]
    return ", ".join(there)


#: The ``okl`` command's advice for labels that need a mapping (the loaders' ``labels=``
#: is no option of the command).
_LABELS_ADVICE = ("a binary learner reads numeric binary labels only: give it --multiclass "
                  "ovr|ovo, or use a multiclass learner (okl run --list), or a benchmark "
                  "that maps its own (--data magic04)")


def _multiclass_sibling(name):
    """``"MulticlassBSGD"`` for ``"BSGD"``: the registered multiclass learner named after
    a binary one, if there is one."""
    from okl.learners import names

    if not isinstance(name, str) or name.startswith("Multiclass"):
        return None
    return next((n for n in names() if n.lower() == f"multiclass{name}".lower()), None)


def _error_text(exc, args) -> str:
    """The message of ``exc`` for a shell user, from the fields of the exceptions whose
    message names a Python call: a dataset that is not cached points at this command's
    ``--download``, labels that need a mapping at ``--data``, a stream too long for
    ``okl bounds`` at ``--prefix`` and ``--max-rounds``."""
    from okl.datasets.fetch import DatasetNotFoundError
    from okl.datasets.files import LabelsError

    if isinstance(exc, DatasetNotFoundError) and hasattr(args, "download"):
        return exc.message(download=f"`okl {args.command} ... --download`")
    if isinstance(exc, LabelsError) and hasattr(args, "data"):
        advice = _LABELS_ADVICE
        names = getattr(args, "learner", None) if exc.numeric and exc.n_labels > 2 else None
        for name in names if isinstance(names, list) else [names]:
            sibling = _multiclass_sibling(name)
            if sibling:          # BSGD -> MulticlassBSGD: the native one, said first
                advice = (f"--learner {sibling} (the multiclass version of {name}), or "
                          + advice)
                break
        return exc.message(advice=advice)
    if getattr(args, "command", None) == "bounds":
        from okl.experiments.bounds import TooManyRoundsError

        if isinstance(exc, TooManyRoundsError):
            return exc.message(advice=f"pass --prefix {exc.max_rounds} or raise --max-rounds")
    return str(exc)


def _format_warning(message, category, filename, lineno, line=None):
    """A warning on the command line: one line, ``okl: warning: ...``, instead of the
    library's source file, line number and code line (recorded warnings, as in
    ``pytest.warns``, are not formatted and stay as they are)."""
    return f"okl: warning: {message}\n"


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    import warnings

    formatwarning, warnings.formatwarning = warnings.formatwarning, _format_warning
    try:
        return _main(args)
    except KeyboardInterrupt:                # the commands that journal their runs say more
        print("okl: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = formatwarning


def _main(args) -> int:
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "plot":
            return _plot(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "bounds":
            return _bounds(args)
        if args.command == "reproduce":
            return _reproduce(args)
    except (ValueError, FileNotFoundError, ConnectionError) as exc:
        # bad arguments or data; a dataset that is not in $OKL_DATA; a failed download
        print(f"okl: error: {_error_text(exc, args)}", file=sys.stderr)
        return 2
    except OSError as exc:               # distributed's 'Timed out trying to connect to ...'
        if not getattr(args, "dask", None):
            raise
        notes = "".join(f"; {n.removeprefix('okl: ')}" for n in getattr(exc, "__notes__", ()))
        print(f"okl: error: --dask {args.dask}: {exc}{notes}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
