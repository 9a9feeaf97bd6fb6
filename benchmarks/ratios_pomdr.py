#!/usr/bin/env python
"""Speed ratios of okl's POMDR against references measured in the same process.

    python benchmarks/ratios_pomdr.py            # full sizes (about 30 s)
    python benchmarks/ratios_pomdr.py --quick    # small sizes (a few seconds)

Learner: ``POMDR`` (Li & Liao, AAAI 2023, Algorithm 1) at ``B = 400`` with the experiments'
settings ``U = 25``, ``M = 15``, ``B0 = ceil(15 ln T)`` (149 at T = 2 x 10^4),
``c = 0.1`` and the ALD threshold ``10 T^-zeta`` with ``zeta = 0.5``.  Stream: 2 x 10^4
dense rows, d = 10 (``ratios.dense_stream``: a 3-d latent with a nonlinear label rule),
Gaussian kernel with ``sigma = 0.5 * rms row norm``.  On it POMD runs the ALD test (and
projects ~55 gradients) until ``|S| = B0`` at ``t_bar ~ 1,160``; OMDR then grows ``S`` to
``B`` and halves it 13 times.  ``--quick``: 4,000 rounds, ``B = 100``, ``B0 = 40``
(``t_bar`` and several halvings too).  Each time is the best of ``--repeat`` interleaved
calls (``ratios.best_of``).

1. ``POMDR.run`` / its kernel rows alone.  A round computes ``k(x_t, S_t)`` (``|S_t| =
   Trace.budget[t-1]``) and the window row ``k(x_t, W_t)`` (``M_t = min(t - 1, M)``
   values) for the optimistic term.  OMDR removes vectors, so, as in
   ``ratios_budget.py`` (whose ``equal_size_stream`` is used), the reference is one
   ``stream_kernel_rows`` call computing, for every round, a kernel row of the same
   length ``|S_t| + M_t`` against stored vectors.  Everything else (the driver, the ALD
   residuals and triangular solves, the projections, the halvings, the trace) is
   overhead.  Aim: <= 1.5x.

2. plain numpy loop / okl (aim >= 20x): Algorithm 1 written per round in numpy in this
   script, with the paper's own bookkeeping (the rank-one update of ``K_S^{-1}``, the
   appendix's closed forms; ``k(S, W)`` as one vectorized block on ALD-projected rounds;
   the halving's nearest-kept search and norm as vectorized kernel blocks).  okl keeps
   ``K_S`` by its Cholesky factor instead: the scores agree to ``np.allclose``, and the
   final ``|S|`` must be equal; a disagreement exits 1.

No time is asserted: each ratio is followed by "aim met" or "aim MISSED".  BLAS is pinned
to one thread by default; ``--blas-threads 0`` leaves the environment alone.
"""
from __future__ import annotations

import math
import sys
import time

import _setup  # noqa: F401  (first: reads --blas-threads, pins BLAS before numpy loads)

import numpy as np  # noqa: E402

from okl._core import stream_kernel_rows  # noqa: E402
from okl.learners.pomdr import POMDR  # noqa: E402
import ratios  # noqa: E402
from ratios import (DISAGREEMENTS, best_of, dense_stream, fmt_s, gaussian_for,  # noqa: E402
                    numpy_table, row, verdict)
from ratios_budget import OVERHEAD_AIM, equal_size_stream  # noqa: E402

SPEEDUP_AIM = 20.0
SETTINGS = dict(U=25.0, M=15, zeta=0.5, c=0.1, ald_scale=10.0)   # the experiments'


# ----------------------------------------------------------------------------
# Algorithm 1 in plain numpy
# ----------------------------------------------------------------------------

def _rbf(A, a_sq, X, x_sq, gamma):
    """``exp(-gamma ||a_i - x_j||^2)``, shape ``(len(A), len(X))``."""
    return np.exp(-gamma * np.maximum(a_sq[:, None] + x_sq[None, :] - 2.0 * (A @ X.T), 0.0))


def numpy_pomdr(X, y, gamma, *, U, B, B0, M, zeta, c, ald_scale):
    """POMDR (Gaussian kernel, D = 1): (2) with the window of the last M examples; on a
    loss, POMD's ALD test (5) with ``beta = K^{-1} k`` (rank-one inverse update on (7)) and
    the replaced gradient (6), or OMDR (8); halving (9) and the reset (10) at ``|S| = B``."""
    T, d = X.shape
    x_sq = np.einsum("ij,ij->i", X, X)
    thr = ald_scale * T ** (-zeta)
    D = 1.0
    S = np.empty((B, d))
    s_sq = np.empty(B)
    a = np.empty(B)
    Kinv = np.empty((B0 + 1, B0 + 1))
    n = 0
    norm_sq, rate_sum, halvings, t_bar, lam = 0.0, 0.0, 0, math.inf, U / math.sqrt(3 * D)
    scores = np.empty(T)
    for t in range(T):
        x, xs, yt = X[t], x_sq[t], y[t]
        lo = max(0, t - M)
        mt = t - lo
        k = _rbf(S[:n], s_sq[:n], x[None, :], np.array([xs]), gamma)[:, 0] if n else None
        fp = float(a[:n] @ k) if n else 0.0
        g = float(y[lo:t] @ _rbf(X[lo:t], x_sq[lo:t], x[None, :], np.array([xs]), gamma)[:, 0]) \
            if mt else 0.0
        f = fp + (lam * (g / mt) if mt else 0.0)
        scores[t] = f
        if 1.0 - yt * f > 0.0:
            delta = max(1.0 - 2.0 * yt * (g / mt if mt else 0.0), 0.0)
            if t_bar >= T:                                   # POMD
                if n:
                    beta = Kinv[:n, :n] @ k
                    pk = float(k @ beta)
                    alpha = max(1.0 - pk, 0.0)
                else:
                    alpha = D
                if math.sqrt(alpha) <= thr and n:           # (6)
                    dtil = pk
                    if mt:
                        KSW = _rbf(S[:n], s_sq[:n], X[lo:t], x_sq[lo:t], gamma)
                        dtil = pk - 2.0 * yt * float(beta @ (KSW @ y[lo:t])) / mt
                    dtil = max(dtil, 0.0)
                    nsq = norm_sq + 2 * lam * yt * fp + lam * lam * pk
                    a[:n] += lam * yt * beta
                elif math.sqrt(alpha) <= thr:                # empty S: nothing to project on
                    dtil, nsq = 0.0, norm_sq
                else:                                        # (7), inverse update
                    if n:
                        Kinv[:n, :n] += np.outer(beta, beta) / alpha
                        Kinv[:n, n] = Kinv[n, :n] = -beta / alpha
                    Kinv[n, n] = 1.0 / alpha
                    S[n], s_sq[n], a[n] = x, xs, lam * yt
                    n += 1
                    dtil = delta
                    nsq = norm_sq + 2 * lam * yt * fp + lam * lam
                    if n == B0:
                        t_bar = t + 2                        # 1-based round t + 1, plus one
                if nsq > U * U:
                    a[:n] *= U / math.sqrt(nsq)
                    nsq = U * U
                norm_sq = max(nsq, 0.0)
                rate_sum += dtil
            else:                                            # (8)
                S[n], s_sq[n], a[n] = x, xs, lam * yt
                n += 1
                nsq = norm_sq + 2 * lam * yt * fp + lam * lam
                if nsq > U * U:
                    a[:n] *= U / math.sqrt(nsq)
                    nsq = U * U
                norm_sq = max(nsq, 0.0)
                rate_sum += delta
                if n == B:                                   # (9), rescale, (10)
                    h = B // 2
                    near = np.argmax(_rbf(S[:h], s_sq[:h], S[h:], s_sq[h:], gamma), axis=0)
                    for j in range(h, B):
                        a[near[j - h]] += a[j]
                    n = h
                    nrm2 = float(a[:h] @ _rbf(S[:h], s_sq[:h], S[:h], s_sq[:h], gamma) @ a[:h])
                    a[:h] *= U / math.sqrt(nrm2) if nrm2 > 0 else 0.0
                    norm_sq = U * U if nrm2 > 0 else 0.0
                    rate_sum = 0.0
                    halvings += 1
        lam = U / math.sqrt(3 * D + rate_sum) * (c if halvings else 1.0)
    return scores, n


# ----------------------------------------------------------------------------

def overhead(X, y, make, k, min_time):
    kernel = make().kernel
    learner = make()
    tr = learner.run(X, y)       # untimed: sizes, final vectors, warm-up
    M = learner.M
    T = len(y)
    # row of round t (0-based): |S_t| + M_t values, M_t = min(t, M)
    sizes_after = tr.budget + np.minimum(np.arange(1, T + 1), M)
    Z, added, filler = equal_size_stream(_as_csr(X), sizes_after, learner.support_vectors)
    Z = np.ascontiguousarray(Z.toarray())    # dense rows, as the run's (the dense kernel path)
    (t_run, t_rows), (tr, _) = best_of(
        [lambda: make().run(X, y), lambda: stream_kernel_rows(kernel, Z, added)], k, min_time)
    evals = int(np.r_[0, sizes_after[:-1]].sum())
    ratio = t_run / t_rows
    widths = (24, 6, 6, 13, 9, 9, 9, 6, 10)
    print("1. POMDR.run  vs  its kernel rows alone: k(x_t, .) against |S_t| + M_t stored "
          "vectors, every round")
    print("   (stream_kernel_rows on the rows sorted by row length; ratios_budget.py's "
          f"equal_size_stream); aim: ratio <= {OVERHEAD_AIM}x")
    print("   " + row(("learner", "T", "max|S|", "kernel evals", "filler", "run", "rows",
                       "ratio", ""), widths))
    print("   " + row((f"POMDR B={learner.B}", T, tr.max_budget, f"{evals:,}", f"{filler:,}",
                       fmt_s(t_run), fmt_s(t_rows), f"{ratio:.2f}x",
                       verdict(ratio <= OVERHEAD_AIM)), widths))
    ex = tr.extras
    print(f"   run: t_bar = {ex['t_bar']}, halvings = {ex['halvings']}, ALD additions = "
          f"{ex['ald_added']}, ALD projections = {ex['ald_projected']}, updates = "
          f"{ex['n_updates']}, mistake rate = {tr.mistake_rate:.4f}")
    print()
    return [ratio <= OVERHEAD_AIM], ex


def _as_csr(X):
    import scipy.sparse as sp

    return sp.csr_matrix(X)


def build_parser():
    return _setup.parser("Print the speed ratios of okl's POMDR against same-process "
                         "references.", quick_help="small sizes (a few seconds)")


def main(args) -> int:
    k = args.repeat or (3 if args.quick else 5)
    min_time = 0.2 if args.quick else 1.0
    T, B, B0 = (4000, 100, 40) if args.quick else (20_000, 400, None)
    _setup.header(args, k)
    start = time.perf_counter()
    X, y = dense_stream(T, d=10)
    kernel = gaussian_for(X, 0.5)
    gamma = kernel.kernel_params()[1]
    make = lambda: POMDR(kernel=kernel, B=B, B0=B0, **SETTINGS)
    print(f"stream: {T:,} dense rows, d = 10; {kernel!r}; POMDR B = {B}, B0 = "
          f"{B0 or math.ceil(15 * math.log(T))}, {SETTINGS}")
    print()
    ok1, ex = overhead(X, y, make, k, min_time)
    if not (ex["omdr"] and ex["halvings"] > 0):
        DISAGREEMENTS.append("stream (OMDR did not start and halve)")
    B0_used = ex["B0"]
    ratios.SPEEDUP_AIM = SPEEDUP_AIM          # numpy_table prints and checks this aim
    cases = [(f"POMDR B={B}", T, lambda: make().run(X, y),
              lambda: numpy_pomdr(X, y, gamma, B=B, B0=B0_used, **SETTINGS))]
    ok2 = numpy_table(cases, k, min_time, "same stream; numpy keeps K_S^-1, okl its Cholesky")
    return _setup.finish(ok1 + ok2, start, DISAGREEMENTS)


if __name__ == "__main__":
    sys.exit(main(build_parser().parse_args()))
