#!/usr/bin/env python
"""Speed ratios of okl's budgeted learners against references measured in the same process.

    python benchmarks/ratios_budget.py            # full sizes (about 20 s)
    python benchmarks/ratios_budget.py --quick    # small sizes (about 4 s)

Learners: ``Ahpatron`` (B = 300), ``BOGD`` (B = 300, seeded) and ``Projectron``.
The Projectron has no budget: its ``eta`` (0.97) is chosen so that its support
set ends with a few hundred vectors on this stream (299 in full mode), i.e. the
same size as the budgeted ones.  Stream: 3 x 10^4 rounds (10^4 with
``--quick``) of one-hot CSR rows, d = 123, 14 non-zeros of value 1 per row
(14 categorical features, like UCI Adult / a9a; ``ratios.onehot_stream``),
labels from a nonlinear rule with 3% flipped; Gaussian kernel with
``sigma = 0.5 * rms row norm``.  Each time is the best of ``--repeat`` calls,
``time.perf_counter``, the two sides of a ratio interleaved (``ratios.best_of``).

1. ``learner.run`` / its kernel rows alone.  A round of any of these learners
   computes one kernel row ``k(x_t, S_t)`` against its current support set
   (``|S_t| = Trace.budget[t-1]``); everything else (driver, scoring, updates,
   Ahpatron's halving solve, the Projectron's triangular solves, BOGD's
   removals, the trace) is counted as overhead.

   * Projectron: nothing is ever removed, so ``okl._core.stream_kernel_rows``
     replays the exact sets (``added`` = the rounds at which ``Trace.budget``
     grew), as ``ratios.py`` does for the Perceptron.
   * Ahpatron and BOGD remove vectors (a halving; one random removal per
     update once full), so no ``added`` mask replays their sets.  What is timed
     instead is a kernel row of *the same size* for every round: one
     ``stream_kernel_rows`` call on a reordered stream that holds every
     ``x_t`` once, sorted by ``|S_t|`` (stably), with pool vector ``m``
     (``added``) placed after the rounds of size ``m``.  The rounds with
     ``|S_t| = m`` then compute ``k(x_t, .)`` against exactly ``m`` stored
     vectors: the learner's final support vectors, padded with the first rows
     of the stream if the final set is smaller than ``max |S_t|`` (Ahpatron's
     set shrinks to ``B/2 + 1`` at each halving, so it usually ends below
     ``B``).  Same ``x_t``, same row sizes, the same typed kernel-row code,
     scoring loop and storage layout as the learners; the pool rows
     themselves add ``M (M - 1) / 2`` kernel values (``M = max |S_t|``;
     44,850 for M = 300, under 1% of the total, shown as "filler").  Only the
     vectors differ, and a Gaussian row's cost does not depend on their
     values (exact recomputation only for near-duplicates, which one-hot rows
     of 14 skewed categorical features almost never are).
     ``SupportSet.kernel_rows`` on chunks of rounds of equal size would do the
     same work, but each call validates its input (``okl._validation.as_stream``
     on a CSR chunk) and allocates its output.  Measured once on the full
     BOGD run (its sizes never shrink, so an ``added`` mask also replays them,
     in stream order): reordered stream 56.9 ms, in-order replay 53.7 ms, one
     ``kernel_rows`` call per distinct size 121 ms.

   Aim: <= 1.5x, the aim of ``ratios.py``.  It is the Perceptron's aim: the
   Projectron and Ahpatron also do O(|S|^2) algebra that no kernel row
   contains, so for them the ratio shows what that algebra costs.

2. plain numpy loop / okl (aim >= 10x): each algorithm written per round in
   numpy in this script (one vectorized kernel row per round from the CSR
   row's indices; numpy for the halving solve of Ahpatron, the projection of
   the Projectron -- its inverse Gram update, the paper's own bookkeeping, as
   numpy has no triangular solve -- and BOGD's sampling and reweighting).
   The script checks that okl and numpy give the same scores (``np.allclose``)
   and the same final support-set size before comparing times; BOGD's numpy
   loop draws its removals from ``np.random.default_rng(seed).random()``, one
   draw per update with a full support set, which reproduces the learner's
   ``uniform()`` draws (okl/learners/fixed_budget.py).

No time is asserted: each ratio is followed by "aim met" or "aim MISSED".
BLAS is pinned to one thread by default (as in asv.conf.json and ``ratios.py``);
``--blas-threads 0`` leaves the environment alone.
"""
from __future__ import annotations

import math
import sys
import time

import _setup  # noqa: F401  (first: reads --blas-threads, pins BLAS before numpy loads)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import okl  # noqa: E402
from okl._core import stream_kernel_rows  # noqa: E402
from ratios import (DISAGREEMENTS, SEED, best_of, fmt_s, gaussian_for,  # noqa: E402
                    numpy_table, onehot_stream, row, verdict)

B = 300
PROJECTRON_ETA = 0.97   # no budget: this eta ends with a few hundred support vectors here
OVERHEAD_AIM = 1.5      # learner.run / kernel rows at most this (the aim of ratios.py)


# ----------------------------------------------------------------------------
# kernel rows of the same sizes as a run's (for learners that remove vectors)
# ----------------------------------------------------------------------------

def equal_size_stream(X, budget, final_vectors):
    """``(Z, added, filler)``: a stream on which ``stream_kernel_rows(kernel, Z, added)``
    computes, for every round ``t`` of the run, one kernel row of ``x_t`` against
    ``|S_t| = budget[t-1]`` stored vectors (``|S_1| = 0``).

    ``Z`` holds the rows of ``X`` sorted (stably) by ``|S_t|``; pool row ``m`` (the
    final support vectors, then the first rows of ``X`` if the final set is smaller
    than ``max |S_t|``) follows the rounds of size ``m`` with ``added`` set.
    ``filler`` is the number of kernel values the pool rows add.
    """
    T = X.shape[0]
    sizes = np.r_[0, np.asarray(budget[:-1], dtype=np.int64)]
    M = int(sizes.max())
    pool = sp.csr_matrix(final_vectors[:M])
    if pool.shape[0] < M:
        pool = sp.vstack([pool, X[:M - pool.shape[0]]], format="csr")
    rows = sp.vstack([X, pool], format="csr")
    keys = np.r_[2 * sizes, 2 * np.arange(M) + 1]  # pool row m right after the size-m rounds
    perm = np.argsort(keys, kind="stable")
    return rows[perm], perm >= T, M * (M - 1) // 2


# ----------------------------------------------------------------------------
# plain numpy references: the same algorithms, one vectorized round at a time
# ----------------------------------------------------------------------------

def _csr_rows(X):
    """Per-row ``(indices, values)`` of a CSR matrix, and the squared row norms."""
    X = sp.csr_matrix(X)
    ptr = X.indptr
    rows = [(X.indices[ptr[t]:ptr[t + 1]], X.data[ptr[t]:ptr[t + 1]]) for t in range(X.shape[0])]
    return rows, np.asarray(X.multiply(X).sum(axis=1)).ravel()


def _kernel_row(ST, s_sq, n, idx, val, x_sq, gamma):
    """``exp(-gamma ||x - s_i||^2)`` for the first ``n`` columns of the feature-major ``ST``
    (``s_i = ST[:, i]``) and the sparse ``x`` given by its non-zeros."""
    dots = val @ ST[idx, :n]
    return np.exp(-gamma * np.maximum((s_sq[:n] + x_sq) - 2.0 * dots, 0.0))


def numpy_ahpatron(X, y, gamma, B, U, lam, eps, eta):
    """Ahpatron (Algorithm 2, ``c_t = ||f_t|| / U``): AVP step on ``y f < 1 - eps``;
    with a full set, halve first: drop the ``B/2`` smallest ``|alpha|`` (ties: older
    first), ``theta = (K_2 + eta I)^{-1} K_21 alpha_1``, rescale to ``||f_t||``."""
    rows, x_sq = _csr_rows(X)
    T, d = X.shape
    m = B // 2
    ST = np.zeros((d, B))      # support vectors, feature-major
    s_sq = np.empty(B)
    alpha = np.empty(B)        # f = scale * sum alpha_i k(s_i, .)
    K = np.empty((B, B))       # Gram matrix of the support set
    reg = eta * np.eye(m)
    n, scale, norm_sq, kxx = 0, 1.0, 0.0, 1.0   # Gaussian: k(x, x) = 1
    distances = []
    scores = np.empty(T)
    for t in range(T):
        idx, val = rows[t]
        if n:
            k = _kernel_row(ST, s_sq, n, idx, val, x_sq[t], gamma)
            f = scale * float(alpha[:n] @ k)
        else:
            f = 0.0
        scores[t] = f
        yt = y[t]
        if not yt * f < 1.0 - eps:
            continue
        fx = f
        if n >= B:  # halving: lines 9-12
            a = alpha * scale
            scale = 1.0
            # okl's default split="newest": smallest |alpha| removed, among equal the newer
            order = np.lexsort((-np.arange(len(a)), np.abs(a)))
            drop, keep = np.sort(order[:m]), np.sort(order[m:])
            K2 = K[np.ix_(keep, keep)]
            theta = np.linalg.solve(K2 + reg, K[np.ix_(keep, drop)] @ a[drop])
            v = a[keep] + theta
            nv2 = float(v @ K2 @ v)
            target = math.sqrt(max(float(a @ K @ a), 0.0))
            v *= target / math.sqrt(nv2) if nv2 > 0.0 else 0.0
            delta = a.copy()
            delta[keep] -= v
            distances.append(math.sqrt(max(float(delta @ K @ delta), 0.0)))
            ST[:, :m] = ST[:, keep]
            s_sq[:m] = s_sq[keep]
            alpha[:m] = v
            k = k[keep]
            fx = float(v @ k)
            K[:m, :m] = K2
            n = m
            norm_sq = target * target if nv2 > 0.0 else 0.0
        if n:
            K[n, :n] = k
            K[:n, n] = k
        K[n, n] = kxx
        nsq = max(norm_sq + 2.0 * lam * yt * fx + lam * lam * kxx, 0.0)
        ST[:, n] = 0.0
        ST[idx, n] = val
        s_sq[n] = x_sq[t]
        alpha[n] = lam * yt / scale
        n += 1
        if nsq > U * U:
            scale *= U / math.sqrt(nsq)
            norm_sq = U * U
            if scale < 1e-100:
                alpha[:n] *= scale
                scale = 1.0
        else:
            norm_sq = nsq
    return scores, n


def numpy_projectron(X, y, gamma, eta):
    """Projectron: on ``y f <= 0``, ``d* = K_S^{-1} k``, ``||delta||^2 = k(x,x) - k^T d*``;
    project (``alpha += y d*``) if ``||delta|| <= eta``, else add ``x_t`` (block update of
    ``K_S^{-1}``).  S grows by doubling."""
    rows, x_sq = _csr_rows(X)
    T, d = X.shape
    cap = 64
    ST, s_sq, alpha, Kinv = np.zeros((d, cap)), np.empty(cap), np.empty(cap), np.empty((cap, cap))
    n, kxx = 0, 1.0
    scores = np.empty(T)
    for t in range(T):
        idx, val = rows[t]
        if n:
            k = _kernel_row(ST, s_sq, n, idx, val, x_sq[t], gamma)
            f = float(alpha[:n] @ k)
        else:
            f = 0.0
        scores[t] = f
        yt = y[t]
        if yt * f > 0.0:
            continue
        if n:
            beta = Kinv[:n, :n] @ k
            res = max(kxx - float(k @ beta), 0.0)
        else:
            res = kxx
        if res <= 1e-10 * kxx:
            res = 0.0
        if math.sqrt(res) <= eta:  # project
            if n:
                alpha[:n] += yt * beta
            continue
        if n == cap:  # amortized doubling
            cap *= 2
            ST = np.concatenate([ST, np.zeros_like(ST)], axis=1)
            s_sq = np.concatenate([s_sq, np.empty_like(s_sq)])
            alpha = np.concatenate([alpha, np.empty_like(alpha)])
            grown = np.empty((cap, cap))
            grown[:n, :n] = Kinv[:n, :n]
            Kinv = grown
        if n:
            Kinv[:n, :n] += np.outer(beta, beta / res)
            Kinv[:n, n] = Kinv[n, :n] = -beta / res
        Kinv[n, n] = 1.0 / res
        ST[idx, n] = val
        s_sq[n] = x_sq[t]
        alpha[n] = yt
        n += 1
    return scores, n


def numpy_bogd(X, y, gamma, B, eta, lam, clip, seed):
    """BOGD: hinge loss > 0 with a full set removes the support vector in slot
    ``floor(u n)`` (``u = rng.random()``) and the new one takes that slot; survivors
    times ``(1 - eta lam) n / (n - 1)``, every written coefficient clipped to ``+-eta clip``.
    """
    rows, x_sq = _csr_rows(X)
    T, d = X.shape
    rng = np.random.default_rng(seed)
    cap = math.inf if clip is None else eta * clip
    decay = 1.0 - eta * lam
    ST, s_sq, alpha = np.zeros((d, B)), np.empty(B), np.empty(B)
    n = 0
    scores = np.empty(T)
    for t in range(T):
        idx, val = rows[t]
        if n:
            k = _kernel_row(ST, s_sq, n, idx, val, x_sq[t], gamma)
            f = float(alpha[:n] @ k)
        else:
            f = 0.0
        scores[t] = f
        yt = y[t]
        if yt * f >= 1.0:
            if decay != 1.0:
                alpha[:n] *= decay
            continue
        if n < B:
            if decay != 1.0:
                alpha[:n] *= decay
            slot = n
            n += 1
        else:
            slot = min(int(rng.random() * n), n - 1)
            np.clip(alpha * (decay * n / (n - 1.0)), -cap, cap, out=alpha)
        ST[:, slot] = 0.0
        ST[idx, slot] = val
        s_sq[slot] = x_sq[t]
        alpha[slot] = min(max(eta * yt, -cap), cap)
    return scores, n


# ----------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------

def overhead_table(cases, k, min_time):
    """Ratio 1: learner.run / its kernel rows (exact replay or equal-size rows)."""
    widths = (31, 6, 6, 13, 8, 9, 9, 6, 10)
    print("1. learner.run  vs  its kernel rows alone: k(x_t, .) against |S_t| = "
          "Trace.budget[t-1] vectors, every round")
    print("   exact = stream_kernel_rows replays S_t (nothing removed);  equal-size = "
          "stream_kernel_rows on the rows")
    print("   sorted by |S_t|, against the final support vectors (see the docstring)")
    print(f"   aim: ratio <= {OVERHEAD_AIM}x")
    print("   " + row(("learner", "T", "max|S|", "kernel evals", "filler", "run", "rows",
                       "ratio", ""), widths))
    results = []
    for name, X, y, make in cases:
        kernel = make().kernel
        learner = make()
        tr = learner.run(X, y)  # untimed: sizes and final vectors (and a warm-up)
        if not tr.extras.get("removals", 0):  # nothing removed: replay the exact sets
            Z, added, filler, how = X, np.diff(np.r_[0, tr.budget]) > 0, 0, "exact"
        else:
            Z, added, filler = equal_size_stream(X, tr.budget, learner.support_vectors)
            how = "equal-size"
        (t_run, t_rows), (tr, _) = best_of(
            [lambda: make().run(X, y), lambda: stream_kernel_rows(kernel, Z, added)],
            k, min_time)
        evals = int(tr.budget[:-1].sum())
        ratio = t_run / t_rows
        results.append(ratio <= OVERHEAD_AIM)
        print("   " + row((f"{name} ({how})", len(y), tr.max_budget, f"{evals:,}",
                           f"{filler:,}", fmt_s(t_run), fmt_s(t_rows), f"{ratio:.2f}x",
                           verdict(ratio <= OVERHEAD_AIM)), widths))
    print()
    return results


def build_parser():
    return _setup.parser("Print the speed ratios of okl's budgeted learners against "
                         "same-process references.")


def main(args) -> int:
    k = args.repeat or (3 if args.quick else 5)
    min_time = 0.2 if args.quick else 1.0  # per timed function, for short ones
    T = 10_000 if args.quick else 30_000
    _setup.header(args, k, min_time)
    start = time.perf_counter()

    X, y = onehot_stream(T)
    kernel = gaussian_for(X, 0.5)
    gamma = kernel.kernel_params()[1]
    print(f"stream: {T:,} rounds, one-hot CSR d = {X.shape[1]}, {X.nnz / T:.0f} non-zeros a "
          f"row; {kernel!r}; B = {B}; Projectron eta = {PROJECTRON_ETA} (no budget)")
    print()
    makers = {
        f"Ahpatron B={B}": lambda: okl.Ahpatron(kernel=kernel, B=B),
        f"Projectron eta={PROJECTRON_ETA}": lambda: okl.Projectron(kernel=kernel,
                                                                   eta=PROJECTRON_ETA),
        f"BOGD B={B}": lambda: okl.BOGD(kernel=kernel, B=B, seed=SEED),
    }
    ok1 = overhead_table([(name, X, y, make) for name, make in makers.items()], k, min_time)

    ah, pr, bo = (make() for make in makers.values())
    references = [
        lambda: numpy_ahpatron(X, y, gamma, ah.B, ah.U_, ah.lam_, ah.eps, ah.eta),
        lambda: numpy_projectron(X, y, gamma, pr.eta),
        lambda: numpy_bogd(X, y, gamma, bo.B, bo.eta, bo.lam, bo.gamma, SEED),
    ]
    cases = [(name, T, (lambda make=make: make().run(X, y)), ref)
             for (name, make), ref in zip(makers.items(), references)]
    ok2 = numpy_table(cases, k, min_time, "same stream, same seed")

    return _setup.finish(ok1 + ok2, start, DISAGREEMENTS)


if __name__ == "__main__":
    sys.exit(main(build_parser().parse_args()))
