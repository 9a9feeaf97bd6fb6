#!/usr/bin/env python
"""Speed ratios of okl's native multiclass learners against references measured in the
same process (issue 26, item 6).

    python benchmarks/ratios_multiclass.py            # full sizes (T = 20,000)
    python benchmarks/ratios_multiclass.py --quick    # T = 5,000

Stream: the shape of UCI letter, K = 26 classes in d = 16 (a Gaussian mixture, one
centre per class, unit noise; ``letter_stream``), Gaussian kernel sigma = 2.  The
learner is the Crammer & Singer max-score Perceptron (``okl.MulticlassPerceptron``):
one kernel row per round for all 26 classes.

1. **Its scores against the binary Perceptron's with the same support set** (aim: at
   most 1.5x).  A binary ``okl.Perceptron`` is given exactly the multiclass learner's
   final support vectors (each learned with the label its score gets wrong, so each is
   added); then both score the same rows (``decision_function``: one kernel row per
   row against the same vectors; the multiclass one also adds each vector's two class
   coefficients into 26 scores).  Per-round work beside the kernel row is what the
   ratio shows.
2. **The native learner against ``okl.OneVsRest`` over 26 binary Perceptrons** on the
   same stream (aim: at least 5x faster): 26 kernel rows a round against one, each
   against its own binary learner's support set.  The 26 sets together hold more
   vectors than the native one (each binary learner adds on its own mistakes), but each
   holds far fewer than it: the script prints both sizes, which say how much of the 26
   rows' cost remains (the ratio is at most about their total over the native size,
   plus the native learner's 26 additions per vector).
3. **The native learner against the same algorithm in a plain numpy loop** (aim: at
   least 10x faster): per round one vectorized kernel row, the 26 scores as a
   matrix-vector product, the update; the script checks that both make the same
   predictions on every round before comparing times.

No time is asserted: each ratio is followed by "aim met" or "aim MISSED".  BLAS is
pinned to one thread by default (``--blas-threads 0`` leaves the environment alone).
"""
from __future__ import annotations

import sys
import time

import _setup  # noqa: F401  (first: pins BLAS before numpy loads)

import numpy as np  # noqa: E402

import okl  # noqa: E402
from ratios import best_of, fmt_s, verdict  # noqa: E402

SEED = 26
SIGMA = 2.0
DISAGREEMENTS = []


def letter_stream(T, d=16, K=26, seed=SEED):
    """``(X, y)``: one centre per class, ``N(0, 1.5^2)``, unit Gaussian noise around it."""
    rng = np.random.default_rng(seed)
    centres = 1.5 * rng.normal(size=(K, d))
    y = rng.integers(0, K, T)
    return np.ascontiguousarray(centres[y] + rng.normal(size=(T, d))), y


def numpy_crammer_singer(X, y, K, sigma):
    """The max-score Crammer & Singer kernel Perceptron (``convention="paper"``), one
    round at a time in numpy; returns the predictions."""
    T, d = X.shape
    gamma = 1.0 / (2.0 * sigma ** 2)
    S = np.empty((T, d))
    sq = np.empty(T)
    A = np.zeros((T, K))
    n = 0
    pred = np.empty(T, dtype=np.int64)
    for t in range(T):
        x = X[t]
        if n:
            k = np.exp(-gamma * np.maximum(sq[:n] + x @ x - 2.0 * (S[:n] @ x), 0.0))
            F = A[:n].T @ k
        else:
            F = np.zeros(K)
        pred[t] = int(np.argmax(F))
        yt = y[t]
        G = F.copy()
        G[yt] = -np.inf
        rival = int(np.argmax(G))
        if F[rival] >= F[yt]:                      # E = {r != y : f_r >= f_y} not empty
            S[n] = x
            sq[n] = x @ x
            A[n, yt] = 1.0
            A[n, rival] = -1.0
            n += 1
    return pred


def binary_with(vectors, kernel):
    """A binary Perceptron holding exactly ``vectors`` (each learned with the label its
    score gets wrong, so each joins the support set)."""
    b = okl.Perceptron(kernel)
    for v in vectors:
        f = 0.0 if b.n_features is None else b.decision_function(v[None, :])[0]
        b.learn_one(v, -1.0 if f >= 0.0 else 1.0)
    assert b.support_set.vectors.shape[0] == len(vectors)
    return b


def main(args) -> int:
    k = args.repeat or (3 if args.quick else 5)
    min_time = 0.2 if args.quick else 1.0
    T = 5_000 if args.quick else 20_000
    T_np = 1_500 if args.quick else 4_000
    _setup.header(args, k, min_time)
    start = time.perf_counter()
    ok = []
    X, y = letter_stream(T)
    kernel = okl.Gaussian(SIGMA)

    mc = okl.MulticlassPerceptron(kernel, classes=list(range(26)))
    tr = mc.run(X, y)
    S = mc.support_vectors
    print(f"\nletter-shaped stream: T = {T}, d = 16, K = 26, sigma = {SIGMA}; the native "
          f"learner ends with |S| = {len(S)}, mistake rate {tr.mistake_rate:.4f}")

    # 1. scores with the same support set
    b = binary_with(S, kernel)
    Q = X[: min(T, 4000)]
    (t_mc, t_b), _ = best_of([lambda: mc.decision_function(Q), lambda: b.decision_function(Q)],
                             k, min_time)
    r = t_mc / t_b
    ok.append(r <= 1.5)
    print(f"\n1. scoring {len(Q)} rows against the same {len(S)} support vectors")
    print(f"   native multiclass (26 scores) {fmt_s(t_mc)}  binary Perceptron {fmt_s(t_b)}  "
          f"ratio {r:.2f}x (aim <= 1.5x) {verdict(ok[-1])}")

    # 2. against one-vs-rest over 26 binary Perceptrons
    def native():
        return okl.MulticlassPerceptron(kernel, classes=list(range(26))).run(X, y)

    def ovr():
        return okl.OneVsRest(okl.Perceptron(kernel), classes=list(range(26))).run(X, y)

    (t_n, t_o), (tn, to) = best_of([native, ovr], max(1, k - 2), 0.0, max_calls=k)
    r = t_o / t_n
    ok.append(r >= 5.0)
    o = okl.OneVsRest(okl.Perceptron(kernel), classes=list(range(26)))
    o.run(X, y)
    sizes = [len(e.support_set.vectors) for e in o.estimators_]
    print(f"\n2. the whole stream: native {fmt_s(t_n)} (mistakes {tn.mistake_rate:.4f}), "
          f"OneVsRest(26 Perceptrons) {fmt_s(t_o)} (mistakes {to.mistake_rate:.4f})")
    print(f"   support vectors: native {len(S)}; the 26 binary learners {sum(sizes)} in all, "
          f"{min(sizes)} to {max(sizes)} each")
    print(f"   OneVsRest / native {r:.1f}x (aim >= 5x) {verdict(ok[-1])}")

    # 3. against the same algorithm in numpy
    Xn, yn = X[:T_np], y[:T_np]

    def okl_run():
        return okl.MulticlassPerceptron(kernel, classes=list(range(26))).run(Xn, yn)

    (t_okl, t_np), (to, pred_np) = best_of(
        [okl_run, lambda: numpy_crammer_singer(Xn, yn, 26, SIGMA)], max(1, k - 2), 0.0,
        max_calls=k)
    same = np.array_equal(to.predictions, pred_np)
    if not same:
        DISAGREEMENTS.append("MulticlassPerceptron")
    r = t_np / t_okl
    ok.append(r >= 10.0 and same)
    print(f"\n3. {T_np} rounds: okl {fmt_s(t_okl)}, numpy loop {fmt_s(t_np)}: {r:.1f}x "
          f"(aim >= 10x; same predictions every round: {same}) {verdict(ok[-1])}")
    print()
    return _setup.finish(ok, start, DISAGREEMENTS)


if __name__ == "__main__":
    sys.exit(main(_setup.parser(__doc__.splitlines()[1]).parse_args()))
