#!/usr/bin/env python
"""What the harness of ``okl.PythonLearner`` costs beside the learner's own Python.

    python benchmarks/python_learner.py            # 4,000 and 12,000 rounds (about 30 s)
    python benchmarks/python_learner.py --quick    # 1,500 rounds (a few seconds)

A kernel Perceptron written in numpy (the same ``score``/``update`` methods) runs
(a) as an ``okl.PythonLearner`` subclass through ``learner.run`` -- okl's typed driver
calling back into Python each round, with validation, the per-round trace and the
budget record -- and (b) as the same methods called from a plain Python loop written by
hand (a row copy, ``score``, ``update``, the score and loss stored per round).  The
ratio (a) / (b) is the harness's overhead; the aim is <= 1.3x (issue 18).  okl's own
Cython ``Perceptron`` on the same stream shows what a typed core buys.  The three must
make the same mistakes round for round (exit status 1 otherwise).

Times are the best of ``--repeat`` interleaved calls.
"""
from __future__ import annotations

import time

import _setup  # noqa: F401  (first: pins BLAS before numpy loads)

import numpy as np  # noqa: E402

import okl  # noqa: E402
from ratios import best_of  # noqa: E402

AIM = 1.3
SIGMA = 2.0
D = 10


class NumpyPerceptron(okl.PythonLearner):
    """Kernel Perceptron, Gaussian kernel, support vectors in a doubling buffer."""

    def __init__(self, sigma=SIGMA):
        self.sigma = sigma
        self.S = np.empty((256, D))
        self.sq = np.empty(256)
        self.alpha = np.empty(256)
        self.n = 0

    def score(self, x):
        n = self.n
        if n == 0:
            return 0.0
        d2 = self.sq[:n] + x @ x - 2.0 * (self.S[:n] @ x)
        return float(np.exp(d2 * (-0.5 / self.sigma ** 2)) @ self.alpha[:n])

    def update(self, x, y, score):
        if y * score <= 0.0:
            if self.n == len(self.alpha):
                self.S = np.vstack([self.S, np.empty_like(self.S)])
                self.sq = np.resize(self.sq, 2 * self.n)
                self.alpha = np.resize(self.alpha, 2 * self.n)
            self.S[self.n] = x
            self.sq[self.n] = x @ x
            self.alpha[self.n] = y
            self.n += 1
        return max(0.0, -y * score)

    def support_size(self):
        return self.n


def by_hand(X, y):
    """The same methods from a plain loop: what a researcher writes without okl."""
    learner = NumpyPerceptron.__new__(NumpyPerceptron)
    learner.__init__()
    score, update = learner.score, learner.update
    T = len(y)
    scores, losses, budget = np.empty(T), np.empty(T), np.empty(T, dtype=np.intc)
    for t in range(T):
        x = X[t].copy()                 # okl hands each round a fresh row too
        f = score(x)
        scores[t] = f
        losses[t] = update(x, y[t], f)
        budget[t] = learner.n
    return scores


def main() -> int:
    args = _setup.parser(__doc__.splitlines()[1]).parse_args()
    k = args.repeat or (3 if args.quick else 5)
    _setup.header(args, k)
    sizes = (1500,) if args.quick else (4000, 12000)
    start, ok, bad = time.perf_counter(), [], []
    print(f"\n{'rounds':>7} {'support':>8} {'by hand':>9} {'PythonLearner':>14} "
          f"{'ratio':>6} {'okl Perceptron':>15} {'typed speed-up':>15}")
    for T in sizes:
        X, y = okl.datasets.xor_stream(T, D, seed=1)
        (t_hand, t_okl, t_typed), (s_hand, tr, tr_typed) = best_of([
            lambda: by_hand(X, y),
            lambda: NumpyPerceptron().run(X, y),
            lambda: okl.Perceptron(kernel=okl.Gaussian(SIGMA)).run(X, y),
        ], k)
        same = (np.array_equal(y * s_hand <= 0, tr.mistakes)
                and np.array_equal(tr.mistakes, tr_typed.mistakes)
                and np.allclose(tr.scores, tr_typed.scores, rtol=0, atol=1e-10))
        if not same:
            bad.append(f"T = {T}")
        ratio = t_okl / t_hand
        ok.append(ratio <= AIM)
        print(f"{T:7d} {tr.final_budget:8d} {t_hand:8.3f}s {t_okl:13.3f}s {ratio:5.2f}x "
              f"{t_typed:14.4f}s {t_okl / t_typed:14.0f}x"
              + ("" if same else "   DISAGREE"))
    print(f"\naim: PythonLearner.run within {AIM}x of the loop written by hand")
    return _setup.finish(ok, start, bad)


if __name__ == "__main__":
    raise SystemExit(main())
