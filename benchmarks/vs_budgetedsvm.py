"""okl's BSGD against BudgetedSVM's ``budgetedsvm-train -A 4`` on the same LIBSVM file.

Issue 27 item 5: same file, same order, budget, lambda, kernel width and epochs; prints
both training times (CPU and wall) and both test accuracies; the aim is okl at least 5x
faster at the same accuracy (within the spread over permutations).

    python benchmarks/vs_budgetedsvm.py --bin /path/to/BudgetedSVM/bin            # a9a
    python benchmarks/vs_budgetedsvm.py --bin DIR --quick                        # < 1 min
    python benchmarks/vs_budgetedsvm.py --bin DIR --train $OKL_DATA/letter.libsvm \\
        --holdout 4000 --budgets 500 --maintenance merge --sigma 5                # letter

BudgetedSVM (C++, v1.2) is not in this repository: ``--bin`` (or ``$BUDGETEDSVM_BIN``) is
the directory of its ``budgetedsvm-train`` and ``budgetedsvm-predict``, built elsewhere
(``benchmarks/peers/budgetedsvm/README.md``).

What is compared.  BudgetedSVM trains the Crammer-Singer multiclass problem, a binary
file as two classes; okl's exact peer is ``MulticlassBSGD(variant="budgetedsvm",
lam=L)`` with the file's K classes (``--formulation multiclass``, the default), which
follows ``budgetedsvm-train -A 4`` round for round up to tie-breaking (its docstring).
``--formulation binary`` runs ``BSGD(variant="budgetedsvm", lam=L)`` on a two-class file
instead (the same model as ``alpha(+1) - alpha(-1)``, lambda halved inside).  Kernel:
``Gaussian(sigma)`` is BudgetedSVM's ``-g 1/sigma^2``.  One pass (``-e 1``) unless
``--epochs``.

Order.  For each permutation the training rows are permuted once (seeded) and written to
a temporary file; BudgetedSVM reads it in file order (``-r 0``) and okl reads the same
file (``okl.datasets.load_libsvm``, the same ``n_features``).  BudgetedSVM numbers the
classes by first appearance in the training file, okl by sorted label, which decides
ties; so the written files (training and test) relabel the classes so that the order of
first appearance is the sorted one (a bijection of the labels: accuracies unchanged).

Timing (the machine may be shared: CPU seconds are the figure to compare).  okl: CPU
(``resource.getrusage``) and wall seconds of ``learner.run`` alone ("learn") and of loading
the training file plus the run ("+load").  BudgetedSVM: its own "Training completed in"
seconds (``clock()``, CPU of its learning loop, no parsing), and the wall and CPU
(``RUSAGE_CHILDREN``) of the whole ``budgetedsvm-train`` process (parsing the file
included).  okl and BudgetedSVM alternate run by run (which goes first alternates by
permutation).  ratio = BudgetedSVM learning CPU / okl learning CPU; "ratio +load" the
whole process' CPU against okl's load + learn CPU.

Accuracy.  okl: ``learner.predict`` on the test file.  BudgetedSVM: ``budgetedsvm-predict``
on the model with its first model line padded by one space (``budgetedsvm-predict`` skips
that line's first character; the README explains), from its "Testing error rate".  Both
mean +- std (ddof 1) over the permutations; okl is "within" when ``|mean_okl -
mean_bsvm| <= 2 max(std_okl, std_bsvm, 0.05 pp)``.  Verdict per row: "aim met" when the
ratio is >= 5 and okl is within, else "aim MISSED"; nothing is asserted (exit status 0
unless something fails to run).
"""
from __future__ import annotations

import _setup  # noqa: F401  (BLAS threads before numpy; okl importable)

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import okl
from okl.datasets import load_libsvm

AIM = 5.0
MAINT = {"removal": ("removal", 0), "merge": ("merging", 1), "merging": ("merging", 1)}


def cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def read_rows(path: Path, limit: int | None = None):
    """The example lines of a LIBSVM file (bytes, newline stripped), their labels (as
    floats) and the largest feature index."""
    lines, labels, dim = [], [], 0
    with open(path, "rb") as fh:
        for line in fh:
            body = line.split(b"#", 1)[0].strip()
            if not body:
                continue
            head, _, rest = body.partition(b" ")
            lines.append(rest.strip())
            labels.append(float(head))
            last = rest.rsplit(b":", 1)[0].rsplit(b" ", 1)[-1] if b":" in rest else b"0"
            dim = max(dim, int(last))
            if limit is not None and len(lines) >= limit:
                break
    return lines, np.array(labels), dim


def fmt_label(v: float) -> bytes:
    return (b"%d" % int(v)) if float(v).is_integer() else repr(float(v)).encode()


def write_rows(path: Path, lines, labels, order, mapping) -> None:
    with open(path, "wb") as fh:
        fh.writelines(fmt_label(mapping.get(labels[i], labels[i])) + b" " + lines[i] + b"\n" for i in order)


def first_appearance_map(labels, order):
    """Label -> label so that the classes' order of first appearance along ``order`` is
    their sorted order (what BudgetedSVM numbers by, what okl numbers by)."""
    seen = []
    for i in order:
        if labels[i] not in seen:
            seen.append(labels[i])
        if len(seen) == len(set(labels.tolist())):
            break
    return dict(zip(seen, sorted(seen)))


def run_okl(args, train: Path, test_X, test_y, B, maint, n_features, classes):
    c0, w0 = cpu_self(), time.perf_counter()
    keep = "keep" if args.formulation == "multiclass" else None
    X, y = load_libsvm(train, n_features=n_features, labels=keep)
    c1, w1 = cpu_self(), time.perf_counter()
    kernel = okl.Gaussian(args.sigma)
    common = dict(B=B, lam=args.lam, maintenance=maint, variant="budgetedsvm")
    if args.formulation == "multiclass":
        learner = okl.MulticlassBSGD(kernel, classes=classes, **common)
    else:
        learner = okl.BSGD(kernel, **common)
    for _ in range(args.epochs):
        trace = learner.run(X, y)
    c2, w2 = cpu_self(), time.perf_counter()
    acc = 100.0 * float(np.mean(learner.predict(test_X) == test_y))
    steps = trace.extras.get("maintenance_steps", 0) + trace.extras.get("duplicate_steps", 0)
    return dict(cpu=c2 - c1, wall=w2 - w1, cpu_load=c2 - c0, wall_load=w2 - w0, acc=acc,
                steps=steps)


def run_bsvm(args, bindir: Path, train: Path, test: Path, tmp: Path, B, m, n_features):
    model = tmp / "model.txt"
    g = 1.0 / args.sigma ** 2
    cmd = [str(bindir / "budgetedsvm-train"), "-A", "4", "-B", str(B), "-m", str(m),
           "-L", repr(args.lam), "-g", repr(g), "-e", str(args.epochs), "-r", "0",
           "-D", str(n_features), "-v", "1", str(train), str(model)]
    c0, w0 = cpu_children(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    c1, w1 = cpu_children(), time.perf_counter()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n"
                           f"{proc.stdout[-1500:]}{proc.stderr[-1500:]}")
    found = re.search(r"Training completed in\s*([0-9.]+)\s*seconds", proc.stdout)
    steps = re.search(r"Number of budget maintenance steps:\s*(\d+)", proc.stdout)
    if not found:
        raise RuntimeError(f"no 'Training completed in' in budgetedsvm-train's output:\n"
                           f"{proc.stdout[-1500:]}")
    # budgetedsvm-predict skips the first character of the first model line: pad it
    text = model.read_text().split("\n")
    k = text.index("MODEL:") + 1
    text[k] = " " + text[k]
    fixed = tmp / "model_padded.txt"
    fixed.write_text("\n".join(text))
    pred = subprocess.run([str(bindir / "budgetedsvm-predict"), "-v", "1", str(test),
                           str(fixed), str(tmp / "pred.txt")], capture_output=True, text=True)
    err = re.search(r"Testing error rate:\s*([0-9.]+)\s*percent", pred.stdout)
    if pred.returncode != 0 or not err:
        raise RuntimeError(f"budgetedsvm-predict failed:\n{pred.stdout[-1500:]}"
                           f"{pred.stderr[-1500:]}")
    return dict(cpu=float(found.group(1)), wall_load=w1 - w0, cpu_load=c1 - c0,
                acc=100.0 - float(err.group(1)), steps=int(steps.group(1)) if steps else None)


def mean_std(values):
    a = np.asarray(values, dtype=float)
    return float(a.mean()), (float(a.std(ddof=1)) if a.size > 1 else 0.0)


def main(argv=None) -> int:
    default_data = os.environ.get("OKL_DATA", "")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.environ.get("BUDGETEDSVM_BIN"),
                   help="directory of budgetedsvm-train / budgetedsvm-predict "
                        "(default $BUDGETEDSVM_BIN)")
    p.add_argument("--train", default=os.path.join(default_data, "a9a"),
                   help="LIBSVM training file (default $OKL_DATA/a9a)")
    p.add_argument("--test", default=os.path.join(default_data, "a9a.t"),
                   help="LIBSVM test file (default $OKL_DATA/a9a.t)")
    p.add_argument("--holdout", type=int, default=None,
                   help="no test file: the last N rows of --train are the test set "
                        "(e.g. letter: 4000), the rows before it the training set")
    p.add_argument("--budgets", default="100,500")
    p.add_argument("--maintenance", default="removal,merge", help="removal, merge")
    p.add_argument("--lam", type=float, default=1e-4, help="lambda, BudgetedSVM's -L")
    p.add_argument("--sigma", type=float, default=10.0,
                   help="okl Gaussian sigma; BudgetedSVM -g 1/sigma^2 (default 10: -g 0.01, "
                        "the a9a example of BudgetedSVM's README)")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--permutations", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--formulation", choices=("multiclass", "binary"), default="multiclass",
                   help="okl's side: MulticlassBSGD over the file's classes (BudgetedSVM's "
                        "own problem, default) or binary BSGD (two-class files)")
    p.add_argument("--train-rows", type=int, default=None, help="use the first N training rows")
    p.add_argument("--test-rows", type=int, default=None, help="use the first N test rows")
    p.add_argument("--quick", action="store_true",
                   help="2,000 training and 2,000 test rows, budgets 50,100, 2 permutations")
    p.add_argument("--blas-threads", type=int, default=1, help="(read by _setup)")
    args = p.parse_args(argv)
    if not args.bin:
        p.error("give --bin DIR (BudgetedSVM's executables) or set $BUDGETEDSVM_BIN")
    bindir = Path(args.bin)
    for exe in ("budgetedsvm-train", "budgetedsvm-predict"):
        if not os.access(bindir / exe, os.X_OK):
            p.error(f"{bindir / exe} is not an executable")
    if args.quick:
        args.train_rows = args.train_rows or 2000
        args.test_rows = args.test_rows or 2000
        if args.budgets == "100,500":
            args.budgets = "50,100"
        args.permutations = min(args.permutations, 2)
    budgets = [int(b) for b in args.budgets.split(",")]
    maints = [MAINT[m.strip()] for m in args.maintenance.split(",")]

    start = time.perf_counter()
    if args.holdout:
        lines, labels, dim = read_rows(Path(args.train))
        n = len(lines) - args.holdout
        te_lines, te_labels = lines[n:], labels[n:]
        lines, labels = lines[:n], labels[:n]
        te_dim = dim
        source = f"{args.train} (first {n:,} rows; test: its last {args.holdout:,})"
    else:
        lines, labels, dim = read_rows(Path(args.train))
        te_lines, te_labels, te_dim = read_rows(Path(args.test))
        source = f"{args.train}, test {args.test}"
    if args.train_rows:
        lines, labels = lines[:args.train_rows], labels[:args.train_rows]
    if args.test_rows:
        te_lines, te_labels = te_lines[:args.test_rows], te_labels[:args.test_rows]
    n_features = max(dim, te_dim)
    classes = sorted(set(labels.tolist()))
    K = len(classes)
    if args.formulation == "binary" and K != 2:
        p.error(f"--formulation binary needs two classes, the file has {K}")
    peer = (f"okl.MulticlassBSGD(Gaussian({args.sigma:g}), variant='budgetedsvm', "
            f"lam={args.lam:g}) over the file's {K} classes (Crammer-Singer, BudgetedSVM's "
            f"own problem)" if args.formulation == "multiclass" else
            f"okl.BSGD(Gaussian({args.sigma:g}), variant='budgetedsvm', lam={args.lam:g}) "
            f"(binary; equals BudgetedSVM's two classes)")
    print(f"okl {okl.__version__}, numpy {np.__version__}; BudgetedSVM at {bindir}")
    print(f"data: {source}: {len(lines):,} training x {n_features} features, "
          f"{len(te_lines):,} test rows, {K} classes")
    print(f"okl: {peer}, rule pegasos")
    print(f"BudgetedSVM: budgetedsvm-train -A 4 -L {args.lam!r} -g {1 / args.sigma ** 2!r} "
          f"-e {args.epochs} -r 0 -D {n_features} -B B -m 0|1 on the same permuted file")
    print(f"{args.permutations} permutation(s), seed {args.seed}; BLAS threads "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    sys.stdout.flush()

    # warm-up (first-call costs: imports, the first kernel row) outside the timings
    warm = okl.MulticlassBSGD(okl.Gaussian(1.0), B=5, lam=1e-2, classes=[0.0, 1.0])
    warm.run(np.random.default_rng(0).random((50, 3)), np.arange(50) % 2 * 1.0)
    okl.BSGD(okl.Gaussian(1.0), B=5, lam=1e-2).run(
        np.random.default_rng(0).random((50, 3)), np.where(np.arange(50) % 2, 1.0, -1.0))

    results = {(B, m[0]): {"okl": [], "bsvm": []} for B in budgets for m in maints}
    with tempfile.TemporaryDirectory(prefix="okl-vs-bsvm-") as tmpdir:
        tmp = Path(tmpdir)
        for perm in range(args.permutations):
            order = np.random.default_rng([args.seed, perm]).permutation(len(lines))
            mapping = first_appearance_map(labels, order)
            train, test = tmp / "train.libsvm", tmp / "test.libsvm"
            write_rows(train, lines, labels, order, mapping)
            write_rows(test, te_lines, te_labels, range(len(te_lines)), mapping)
            keep = "keep" if args.formulation == "multiclass" else None
            test_X, test_y = load_libsvm(test, n_features=n_features, labels=keep)
            for B in budgets:
                for maint, m in maints:
                    runs = results[(B, maint)]
                    sides = [("okl", lambda: run_okl(args, train, test_X, test_y, B, maint,
                                                     n_features, classes)),
                             ("bsvm", lambda: run_bsvm(args, bindir, train, test, tmp, B, m,
                                                       n_features))]
                    if perm % 2:
                        sides.reverse()
                    for name, fn in sides:
                        runs[name].append(fn())
                    o, b = runs["okl"][-1], runs["bsvm"][-1]
                    print(f"  perm {perm} B={B} {maint}: okl {o['cpu']:.2f} s CPU "
                          f"({o['acc']:.2f} %, {o['steps']} steps), BudgetedSVM "
                          f"{b['cpu']:.2f} s CPU ({b['acc']:.2f} %, {b['steps']} steps)",
                          flush=True)

    print()
    print("CPU and wall seconds per run, mean over permutations; learn = learning loop "
          "only, +load = reading the training file too")
    head = (f"{'B':>5} {'maint':<8} | {'okl learn':>15} {'okl +load':>15} | "
            f"{'BSVM learn':>10} {'BSVM +load':>15} | {'ratio':>6} {'+load':>6} | "
            f"{'okl acc %':>13} {'BSVM acc %':>13} {'within':>6} | verdict")
    print(f"{'':>14} | {'cpu / wall':>15} {'cpu / wall':>15} | {'cpu':>10} "
          f"{'cpu / wall':>15} | {'cpu':>6} {'cpu':>6} |")
    print(head)
    print("-" * len(head))
    met = 0
    for (B, maint), runs in results.items():
        o, b = runs["okl"], runs["bsvm"]
        oc = np.mean([r["cpu"] for r in o]); ow = np.mean([r["wall"] for r in o])
        olc = np.mean([r["cpu_load"] for r in o]); olw = np.mean([r["wall_load"] for r in o])
        bc = np.mean([r["cpu"] for r in b])
        blc = np.mean([r["cpu_load"] for r in b]); blw = np.mean([r["wall_load"] for r in b])
        oa, osd = mean_std([r["acc"] for r in o])
        ba, bsd = mean_std([r["acc"] for r in b])
        within = abs(oa - ba) <= 2 * max(osd, bsd, 0.05)
        ratio, ratio_load = bc / max(oc, 1e-9), blc / max(olc, 1e-9)
        ok = within and ratio >= AIM
        met += ok
        print(f"{B:>5} {maint:<8} | {oc:>6.2f} / {ow:>6.2f} {olc:>6.2f} / {olw:>6.2f} | "
              f"{bc:>10.2f} {blc:>6.2f} / {blw:>6.2f} | {ratio:>5.1f}x {ratio_load:>5.1f}x | "
              f"{oa:>6.2f} +- {osd:<4.2f} {ba:>6.2f} +- {bsd:<4.2f} {'yes' if within else 'NO':>6} | "
              f"aim {'met' if ok else 'MISSED'}")
    print(f"aim: okl's learning CPU >= {AIM:g}x faster than BudgetedSVM's and okl's mean "
          f"accuracy within 2 std (>= 0.05 pp) of BudgetedSVM's")
    print(f"{met}/{len(results)} aims met; total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
