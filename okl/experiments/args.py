"""Command-line arguments shared by ``okl run``, ``okl sweep``, ``okl bounds`` and
``okl reproduce``: learner parameters (``-p NAME=VALUE``), kernels and data (``--data``).

This module sits below both ``okl.cli`` and the experiment modules (``bounds``,
reproductions), so that neither imports the other for its parsing.
"""
from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["SYNTHETIC", "KERNELS", "literal", "assignments", "stream", "add_data_arguments",
           "add_learner_arguments", "kernel_from_args", "learner_from_args", "dataset_names", "positive_int",
           "jobs", "check_required"]

from okl.kernels import KERNELS as _KERNELS

SYNTHETIC = ("xor", "drifting", "switching")
KERNELS = tuple(_KERNELS)


def literal(text: str):
    """``"0.1"`` -> 0.1, ``"None"`` -> None, ``"hinge"`` -> "hinge"."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def positive_int(text: str) -> int:
    """An argparse ``type``: ``"3"`` -> 3; ``"0"``, ``"-1"`` and ``"x"`` are usage errors
    that name the option (``--rounds``), not the library parameter it feeds."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def jobs(text: str) -> int:
    """An argparse ``type`` for ``--jobs``: joblib's worker count, a nonzero integer
    (``-1``: every core).  ``"0"`` was joblib's ``n_jobs == 0 in Parallel has no
    meaning`` after ``okl sweep`` had created its journal, which then refused the next
    sweep; it is a usage error naming the option."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be a nonzero integer (worker processes; -1: "
                                         f"every core), got {text!r}")
    return value


def assignments(items, *, lists: bool) -> dict:
    """``["lam=0.1,1", "tau=100"]`` -> ``{"lam": [0.1, 1], "tau": [100]}`` (or scalars)."""
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"a parameter is NAME=VALUE, got {item!r}")
        values = [literal(v) for v in value.split(",")] if lists else literal(value)
        out[name.strip()] = values
    return out


def stream(args):
    """``(X, y, description)`` of ``--data``: a file, a benchmark name, or synthetic.

    Uses ``args.data``, ``args.download``, ``args.rounds``, ``args.features`` and
    ``args.seed`` (see :func:`add_data_arguments`).
    """
    from okl.datasets import drifting_mixture, load_libsvm, xor_stream

    spec = args.data
    if spec in SYNTHETIC:
        if spec == "xor":
            X, y = xor_stream(args.rounds, args.features, seed=args.seed)
            return X, y, f"synthetic xor stream ({args.rounds} x {args.features}, seed {args.seed})"
        X, y = drifting_mixture(args.rounds, "drift" if spec == "drifting" else "switch",
                                seed=args.seed)
        return X, y, f"{spec} Gaussian mixture ({args.rounds} rounds, seed {args.seed})"
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
        X, y = fetch.load(spec, download=args.download)
        return X, y, spec
    raise ValueError(f"--data {spec!r} is neither a file, a benchmark dataset "
                     f"({', '.join(sorted(fetch.DATASETS))}) nor a synthetic stream "
                     f"({', '.join(SYNTHETIC)})")


def add_data_arguments(parser):
    """``--data``, ``--download``, ``--rounds``, ``--features``, ``--seed``."""
    parser.add_argument("--data", default="xor",
                        help="a LIBSVM/CSV file (CSV: the label in the last column, numeric "
                             "and binary), a benchmark dataset name (a9a, w8a, magic04, ...) "
                             "or a synthetic stream: " + ", ".join(SYNTHETIC) + " (default xor)")
    parser.add_argument("--download", action="store_true",
                        help="download a benchmark dataset that is not cached yet")
    parser.add_argument("--rounds", type=positive_int, default=20_000,
                        help="synthetic stream length (default %(default)s)")
    parser.add_argument("--features", type=positive_int, default=10,
                        help="synthetic stream dimension (default 10)")
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed (default 0)")


def add_learner_arguments(parser):
    """``--kernel``, ``--sigma``, ``--degree``, ``-p NAME=VALUE``: with the command's own
    ``--learner``, what :func:`learner_from_args` reads (``okl run``, ``okl bounds``)."""
    parser.add_argument("--kernel", choices=KERNELS, default="gaussian",
                        help="the learner's kernel (default gaussian)")
    parser.add_argument("--sigma", type=float, default=1.0,
                        help="Gaussian/Laplacian width (default 1)")
    parser.add_argument("--degree", type=int, default=2, help="polynomial degree (default 2)")
    parser.add_argument("--param", "-p", action="append", metavar="NAME=VALUE",
                        help="a learner parameter, e.g. -p lam=0.01 -p tau=500 (repeatable)")


def kernel_from_args(args):
    """The kernel of ``--kernel`` with ``--sigma`` / ``--degree``."""
    from okl.kernels import make_kernel

    kparams = {"gaussian": {"sigma": args.sigma}, "laplacian": {"sigma": args.sigma},
               "polynomial": {"degree": args.degree}, "linear": {}}[args.kernel]
    return make_kernel(args.kernel, **kparams)


def learner_from_args(args, names_of=None):
    """The learner of ``--learner`` with ``-p NAME=VALUE``, the kernel of the kernel
    arguments (if it takes one) and ``--seed`` (if it takes one and none is given).

    ``names_of(cls, params)`` gives the parameters the class accepts (default
    ``okl.registry.parameter_names``); a parameter it does not accept is a
    ``ValueError`` listing the ones it does.
    """
    from okl.learners import learner_class
    from okl.registry import parameter_names

    cls = learner_class(args.learner)
    params = assignments(args.param, lists=False)
    names = (names_of or parameter_names)(cls, params)
    if "kernel" in names:
        params["kernel"] = kernel_from_args(args)
    if "seed" in names:
        params.setdefault("seed", args.seed)
    unknown = sorted(set(params) - set(names))
    if unknown:
        options = {"sigma": "--sigma", "degree": "--degree"}
        hint = [f"{options[k]} {params[k]}" for k in unknown if k in options]
        hint = (f" (the kernel's {' and '.join(k for k in unknown if k in options)}: "
                f"{' '.join(hint)})") if hint and "kernel" in names else ""
        raise ValueError(f"{cls.__name__} takes no parameter(s) {unknown}; its parameters: "
                         f"{list(names)}{hint}")
    if "sigma" in params and "kernel" in names:     # NORMA's own sigma (Huber loss)
        import warnings

        warnings.warn(f"-p sigma={params['sigma']} is {cls.__name__}'s own parameter sigma, "
                      f"not the kernel's width (--sigma, now {params['kernel']})",
                      UserWarning, stacklevel=2)
    check_required(cls, params)
    return cls(**params)


def check_required(cls, given) -> None:
    """A ``ValueError`` naming ``-p NAME=VALUE`` for each parameter of learner class
    ``cls`` that has no default and is not in ``given`` (``okl run --learner Ahpatron``
    was a ``TypeError`` traceback: ``missing 1 required keyword-only argument: 'B'``)."""
    import inspect

    missing = [p.name for p in inspect.signature(cls).parameters.values()
               if p.default is p.empty and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
               and p.name not in given]
    if missing:
        raise ValueError(f"{cls.__name__} has no default for {', '.join(missing)}: give "
                         + " ".join(f"-p {m}=VALUE" for m in missing))


def dataset_names(values) -> list[str] | None:
    """``--datasets a9a magic04`` or ``--datasets a9a,magic04`` -> ``["a9a", "magic04"]``
    (``None`` when not given)."""
    if not values:
        return None
    out = []
    for v in values:
        out += [s.strip() for s in str(v).split(",") if s.strip()]
    return out or None
