#!/usr/bin/env python
"""What a call costs besides its rounds: per-call overhead, the time of a ``.run``
outside its round loop, peak memory of a run, and two learners in two threads.

    python benchmarks/overhead.py            # a9a if $OKL_DATA has it (about 2 min)
    python benchmarks/overhead.py --quick    # small synthetic sizes (about 20 s)

Sections (times are the best of ``--repeat`` interleaved calls, ``time.perf_counter``):

1. ``learn_one`` per call / ``.run`` per round (aim <= 3x, issue 14.3).  The same
   ``N`` rows (a9a's first 10,000; ``--quick``: 2,000 synthetic one-hot rows, d =
   123, like a9a) learned by a fresh learner once with one ``.run`` (its time / N is
   the per-round cost, validation and trace included) and once one row at a time,
   as a researcher's loop does: ``learn_one(row, label)`` with the row a 1-row CSR
   matrix (``X[i]``), a 1-D float64 array, or a Python list, pre-built outside the
   timing.  Also ``partial_fit`` on one-row slices and ``predict_one`` per call.
   BOGD (B = 300), Perceptron, POMDR (B = 400, T = N) and FOGD (D = 400).  Both
   learners must end identical (their scores on the first rows compared
   exactly); a difference is a correctness failure (exit 1).

2. ``.run`` outside its loop (aim < 1 ms beyond one pass over the data, issue
   14.3): a whole ``.run`` minus ``Trace.seconds`` (the round loop), on the whole
   stream as CSR with int32 indices (what scipy builds), as CSR with int64
   indices (narrowed once), and dense; beside it, one pass over the same data
   (``np.add.reduce`` of its values) for scale.

3. Peak memory of ``.run`` on a dense stream, in a child process (aim: stream +
   everything else < 1.2x the stream, issue 14.4): 10^6 x 18 (``--quick``:
   2 x 10^5 x 18).  ``tracemalloc`` peak of the run (NumPy registers its
   buffers with it: validation temporaries, the trace) and the growth of
   ``ru_maxrss`` across the run (everything, C buffers included).

4. Two independent learners in two threads against one after the other
   (aim >= 1.7x, issue 15.2): BOGD, B = 400, 40,000 x 10 each, beside a
   reference that never holds the GIL (``kernel_matrix``: kernel rows, the work
   of a round) timed the same way.  The load average is printed before and
   after: on a busy 2-core machine no two threads get two cores, whatever the
   code does, and the reference shows what the machine gave.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import _setup  # noqa: F401  (first: pins BLAS before numpy loads)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import okl  # noqa: E402
from ratios import best_of, onehot_stream  # noqa: E402

PER_CALL_AIM = 3.0
OUTSIDE_AIM = 1e-3
MEMORY_AIM = 1.2
THREADS_AIM = 1.7
DISAGREEMENTS: list = []


def learners(T):
    k = okl.Gaussian(sigma=float(np.sqrt(5.0)))     # gamma = 0.1 on a9a's 0/1 rows
    return {
        "BOGD": lambda: okl.BOGD(kernel=k, B=300, seed=0),
        "Perceptron": lambda: okl.Perceptron(kernel=k),
        "POMDR": lambda: okl.POMDR(kernel=k, B=400, T=T),
        "FOGD": lambda: okl.FOGD(kernel=k, D=400, seed=0),
    }


def load_stream(args):
    if not args.quick:
        try:
            from okl.datasets import fetch

            if fetch.available("a9a"):
                X, y = fetch.load("a9a")
                return sp.csr_matrix(X), np.asarray(y, dtype=float), "a9a"
        except Exception as exc:  # noqa: BLE001
            print(f"(a9a unavailable: {exc}; using the synthetic one-hot stream)")
    X, y = onehot_stream(40_000 if not args.quick else 8_000)
    return X, y, "synthetic one-hot (d = 123, 14 non-zeros a row)"


def per_call(X, y, N, k, min_time):
    print(f"1. learn_one per call / .run per round, over the first {N} rows "
          f"(aim <= {PER_CALL_AIM:g}x)")
    Xs = sp.csr_matrix(X[:N])
    Xd = Xs.toarray()
    yy = y[:N]
    rows = {"CSR row": [Xs[i] for i in range(N)], "1-D array": list(Xd),
            "list": [r.tolist() for r in Xd]}
    slices = [Xs[i:i + 1] for i in range(N)]
    labels = [float(v) for v in yy]
    head = f"   {'learner':<11}{'row':<11}{'run/round':>10}{'learn_one':>11}{'ratio':>8}"
    print(head + f"{'partial_fit':>13}{'ratio':>8}{'predict_one':>13}")
    ok = []
    for name, make in learners(N).items():
        for kind, rr in rows.items():
            stream = Xs if kind == "CSR row" else Xd

            def by_rows(rr=rr):
                learner = make()
                for x, lab in zip(rr, labels):
                    learner.learn_one(x, lab)
                return learner

            def by_run(stream=stream):
                learner = make()
                learner.run(stream, yy)
                return learner

            timed = [by_run, by_rows]
            if kind == "CSR row":
                def by_slices():
                    learner = make()
                    for x, lab in zip(slices, yy[:, None]):
                        learner.partial_fit(x, lab)
                    return learner
                timed.append(by_slices)
            times, outs = best_of(timed, k, min_time, max_calls=20)
            a = outs[0].decision_function(stream[:200])
            for other in outs[1:]:
                if not np.array_equal(a, other.decision_function(stream[:200])):
                    DISAGREEMENTS.append(f"{name} {kind}")
            learner = outs[0]
            (t_pred,), _ = best_of([lambda: [learner.predict_one(x) for x in rr[:1000]]],
                                   k, min_time / 4, max_calls=20)
            per_round = times[0] / N
            ratio = times[1] / N / per_round
            ok.append(ratio <= PER_CALL_AIM)
            pf = (f"{times[2] / N * 1e6:9.2f} us{times[2] / times[0]:7.1f}x"
                  if len(times) > 2 else f"{'':>13}{'':>8}")
            print(f"   {name:<11}{kind:<11}{per_round * 1e6:7.2f} us{times[1] / N * 1e6:8.2f} us"
                  f"{ratio:7.2f}x{pf}{t_pred / 1000 * 1e6:10.2f} us")
    print()
    return ok


def outside_loop(X, y, k, min_time):
    print(f"2. .run outside its round loop, whole stream ({X.shape[0]:,} x {X.shape[1]}), "
          f"BOGD B = 300 (aim < {OUTSIDE_AIM * 1e3:g} ms beyond one pass over the data)")
    X32 = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                        shape=X.shape)
    X64 = sp.csr_matrix(X32, copy=True)
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    inputs = {"CSR, int32 indices": X32, "CSR, int64 indices": X64, "dense": X32.toarray()}
    make = learners(X.shape[0])["BOGD"]
    ok = []
    for kind, A in inputs.items():
        best = float("inf")
        for _ in range(k):
            learner = make()
            start = time.perf_counter()
            tr = learner.run(A, y)
            best = min(best, time.perf_counter() - start - tr.seconds)
        values = A.data if sp.issparse(A) else A
        (one_pass,), _ = best_of([lambda: np.add.reduce(values, axis=None)], k, min_time / 4)
        ok.append(best - one_pass < OUTSIDE_AIM)
        print(f"   {kind:<20} outside the loop {best * 1e3:6.3f} ms   one pass "
              f"{one_pass * 1e3:6.3f} ms   loop {tr.seconds:.3f} s   "
              f"{'aim met' if ok[-1] else 'aim MISSED'}")
    print()
    return ok


_MEMORY_CHILD = r"""
import resource, sys, time, tracemalloc
import numpy as np
import okl
T, d, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(0)
X = rng.standard_normal((T, d))
y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
k = okl.Gaussian(2.0)
make = {"BOGD": lambda: okl.BOGD(kernel=k, B=100, seed=0),
        "Forgetron": lambda: okl.Forgetron(kernel=k, B=100),
        "FOGD": lambda: okl.FOGD(kernel=k, D=100, seed=0),
        "POMDR": lambda: okl.POMDR(kernel=k, B=100, B0=50, T=T)}[name]
learner = make()
learner.run(X[:10], y[:10])          # imports and first allocations done
learner = make()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
tr = learner.run(X, y)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
trace = sum(a.nbytes for a in (tr.scores, tr.losses, tr.mistakes, tr.budget))
print(X.nbytes, peak, grown * 1024, trace)
"""


def memory(args):
    T, d = (200_000, 18) if args.quick else (1_000_000, 18)
    print(f"3. peak memory of .run on a dense {T:,} x {d} stream ({T * d * 8 / 1e6:.0f} MB), "
          f"in a child process (aim: peak < {MEMORY_AIM:g}x the stream)")
    print(f"   {'learner':<11}{'tracemalloc peak':>18}{'maxrss growth':>15}{'trace':>9}"
          f"{'(stream + peak) / stream':>27}")
    ok = []
    for name in ("BOGD", "Forgetron", "FOGD", "POMDR"):
        out = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(T), str(d), name],
                             capture_output=True, text=True, check=True).stdout.split()
        stream, peak, grown, trace = (int(v) for v in out)
        worst = max(peak, grown)
        ratio = (stream + worst) / stream
        ok.append(ratio < MEMORY_AIM)
        note = "  (+ its per-round records: rates, deltas, ALD residuals)" \
            if name == "POMDR" else ""
        print(f"   {name:<11}{peak / 1e6:15.1f} MB{grown / 1e6:12.1f} MB{trace / 1e6:6.1f} MB"
              f"{ratio:24.3f}x  {'aim met' if ratio < MEMORY_AIM else 'aim MISSED'}{note}")
    print()
    return ok


def threads(k):
    import threading

    print(f"4. two independent BOGD runs (40,000 x 10, B = 400) in two threads vs one "
          f"after the other (aim >= {THREADS_AIM:g}x)")
    print("   reference: kernel_matrix (20,000 x 10 against 400 rows), a loop that never "
          "holds the GIL: what the machine gives two threads right now")
    load = os.getloadavg()
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((40_000, 10)),
             np.where(rng.standard_normal(40_000) > 0, 1.0, -1.0)) for _ in range(2)]
    queries = [rng.standard_normal((20_000, 10)) for _ in range(2)]
    support = rng.standard_normal((400, 10))
    kernel = okl.Gaussian(2.0)

    def bogd(i):
        okl.BOGD(kernel=kernel, B=400, seed=0).run(*data[i])

    def reference(i):
        okl.kernel_matrix(kernel, queries[i], support)

    def sequential(job):
        return lambda: (job(0), job(1))

    def parallel(job):
        def both():
            ts = [threading.Thread(target=job, args=(i,)) for i in range(2)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        return both

    (t_seq, t_par, r_seq, r_par), _ = best_of(
        [sequential(bogd), parallel(bogd), sequential(reference), parallel(reference)],
        k, 1.0, max_calls=30)
    speedup, ref = t_seq / t_par, r_seq / r_par
    after = os.getloadavg()
    print(f"   BOGD       sequential {t_seq:.3f} s   two threads {t_par:.3f} s   speedup "
          f"{speedup:.2f}x   {'aim met' if speedup >= THREADS_AIM else 'aim MISSED'}")
    print(f"   reference  sequential {r_seq:.3f} s   two threads {r_par:.3f} s   speedup "
          f"{ref:.2f}x   (BOGD / reference: {speedup / ref:.2f})")
    print(f"   load average (1 min) before {load[0]:.2f}, after {after[0]:.2f} on "
          f"{os.cpu_count()} cores")
    print()
    return [speedup >= THREADS_AIM]


def main() -> int:
    p = _setup.parser("Per-call overhead, time outside the loop, peak memory and thread "
                      "parallelism of okl's learners.")
    p.add_argument("--sections", default="1234", help="which sections to run (default 1234)")
    args = p.parse_args()
    k = args.repeat or (3 if args.quick else 5)
    min_time = 0.2 if args.quick else 1.0
    start = time.perf_counter()
    _setup.header(args, k, min_time)
    X, y, source = load_stream(args)
    print(f"stream: {source}, {X.shape[0]:,} x {X.shape[1]}\n")
    ok = []
    if "1" in args.sections:
        ok += per_call(X, y, 2_000 if args.quick else 10_000, k, min_time)
    if "2" in args.sections:
        ok += outside_loop(X, y, k, min_time)
    if "3" in args.sections:
        ok += memory(args)
    if "4" in args.sections:
        ok += threads(k)
    return _setup.finish(ok, start, DISAGREEMENTS)


if __name__ == "__main__":
    sys.exit(main())
