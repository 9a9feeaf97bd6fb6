#!/usr/bin/env python
"""Speed of PKAWV with Nyström projections (KORS + Algorithm 2 of Jézéquel, Gaillard &
Rudi 2019) against a plain-numpy version measured in the same process.

    python benchmarks/ratios_awv_nystrom.py            # full: 2 x 10^4 rounds (~100 s)
    python benchmarks/ratios_awv_nystrom.py --quick    # 5 x 10^3 rounds (a few seconds)

Stream: the one of ``ratios_awv.py`` (rows uniform in ``[-1, 1]^8 / sqrt(8)``, labels
``sin(3 x_1) + x_8^2 + noise``), Gaussian kernel ``sigma = 1``, ``lam = 1`` and the
paper's KORS settings ``mu = beta = 1``, ``eps = 0.5`` (Section 4): the dictionary
ends with a few hundred points (411 after 2 x 10^4 rounds).  Each time is the best of
``--repeat`` calls, ``time.perf_counter``, the two sides interleaved (``ratios.best_of``).

1. per round: ``PKAWV(basis="nystrom").run`` over the whole stream (validation,
   driver and trace included), for the AWV and KRR forecasters, with the final
   dictionary size and the share of rounds that added a point.
2. plain numpy loop / okl (aim >= 10x, ``ratios.numpy_table``).  numpy has neither a
   triangular solve nor a Cholesky up/down-date, so the numpy version is the "naive"
   implementation that App. H starts from: ``A = K_t^T K_t + lam K_II`` kept explicitly
   (``A += k k^T`` each round, a new row/column when a point joins) and
   ``np.linalg.solve`` each round (O(m^3)); KORS' well-conditioned
   ``(S K S + mu I)^{-1}`` by block updates; the same O(t m) column ``K_t^T a_t`` from a
   stored ``K_{t,I}``; the same seeded uniforms.  The script checks that both give the
   same forecasts (``np.allclose``) and the same final dictionary size before comparing
   times; a disagreement exits with status 1.
3. accuracy: ``||L L^T - A|| / ||A||`` for okl's factor (``A`` from numpy), and the
   O(m^2) numpy alternative App. H warns about -- explicit inverses by
   Sherman-Morrison and block updates: its speed, and how far its forecasts drift
   from okl's (it is not used as the reference because it does not agree).

``nystrom_cases(X, y, T)`` is a case builder in the form of ``ratios_awv.CASE_BUILDERS``.

No time is asserted: each ratio is followed by "aim met" or "aim MISSED".  BLAS is
pinned to one thread by default; ``--blas-threads 0`` leaves the environment alone.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Print the speed of PKAWV (Nystrom) against a same-process numpy version.")
    p.add_argument("--quick", action="store_true",
                   help="5 x 10^3 rounds instead of 2 x 10^4 (a few seconds)")
    p.add_argument("--repeat", type=int, default=None,
                   help="at least k calls per timing, best taken (default 2); short calls "
                        "are repeated for up to 1 s (0.2 s with --quick)")
    p.add_argument("--blas-threads", type=int, default=1,
                   help="set OPENBLAS/OMP/MKL_NUM_THREADS before numpy loads "
                        "(default 1; 0 leaves the environment unchanged)")
    return p


if __name__ == "__main__":
    ARGS = build_parser().parse_args()
    if ARGS.blas_threads > 0:
        for _var in _BLAS_VARS:
            os.environ[_var] = str(ARGS.blas_threads)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # ratios.py, next to this file
try:
    import okl  # noqa: E402
except ImportError:  # running from a checkout with an in-place build
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import okl  # noqa: E402
from okl.learners.awv import PKAWV  # noqa: E402
from ratios import DISAGREEMENTS, SEED, best_of, fmt_s, numpy_table, row  # noqa: E402

D = 8
SIGMA = 1.0
LAM = 1.0
MU, BETA, EPS = 1.0, 1.0, 0.5       # Section 4: "mu = 1, beta = 1 and eps = 0.5"
KORS_SEED = 7
DEPENDENCE_TOL = 1e-10              # okl.learners.awv_nystrom.DEPENDENCE_TOL


def regression_stream(T, d=D, seed=SEED):
    """Rows uniform in ``[-1, 1]^d / sqrt(d)``, labels ``sin(3 x_1) + x_d^2 + noise``
    (the stream of ``ratios_awv.py``)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(T, d)) / math.sqrt(d)
    y = np.sin(3.0 * X[:, 0]) + X[:, -1] ** 2 + 0.05 * rng.standard_normal(T)
    return X, y


def make_learner(forecaster="awv"):
    return PKAWV(basis="nystrom", kernel=okl.Gaussian(SIGMA), lam=LAM, mu=MU, beta=BETA,
                 eps=EPS, forecaster=forecaster, seed=KORS_SEED)


# ----------------------------------------------------------------------------
# plain numpy reference: KORS + (4) with explicit inverses, one round at a time
# ----------------------------------------------------------------------------

def _block_inverse(inv, m, col, diag):
    """Grow the inverse of a symmetric matrix (top-left ``m x m`` of ``inv``) by one
    row/column ``(col, diag)`` in place (Schur complement); returns False if singular."""
    e = inv[:m, :m] @ col
    s = diag - col @ e
    if not s > 0.0:
        return False
    inv[:m, :m] += np.outer(e, e / s)
    inv[:m, m] = inv[m, :m] = -e / s
    inv[m, m] = 1.0 / s
    return True


def numpy_pkawv_nystrom(X, y, sigma=SIGMA, lam=LAM, mu=MU, beta=BETA, eps=EPS,
                        seed=KORS_SEED, forecaster="awv", method="solve"):
    """PKAWV-Nystrom with a KORS dictionary, per round in numpy (Gaussian kernel, k(x,x) = 1).

    ``method="solve"``: ``A = K_t^T K_t + lam K_II`` kept explicitly (``A += k k^T`` each
    round, a new row/column when a point joins) and ``np.linalg.solve`` each round --
    the "naive" implementation of App. H, O(m^3) a round.  ``method="inverse"``:
    ``A^{-1}`` kept explicitly by Sherman-Morrison each round and a block update when a
    point joins -- O(m^2) a round, but it drifts (see ``accuracy_report``).  KORS'
    ``(S K_II S + mu I)^{-1}`` (eigenvalues >= 1/(mu + ...), well conditioned) is kept by
    block updates in both.  Returns ``(scores, final |I|)``.
    """
    T, d = X.shape
    gamma = 1.0 / (2.0 * sigma * sigma)
    u = np.random.default_rng(seed).random(T)          # the learner's uniform() draws
    xsq = np.einsum("ij,ij->i", X, X)
    inverse = method == "inverse"
    cap = 64
    Dx = np.empty((cap, d))
    Dsq = np.empty(cap)
    W = np.empty(cap)
    Minv = np.zeros((cap, cap))                          # (S K_II S + mu I)^{-1}
    A = np.zeros((cap, cap))                             # A, or A^{-1} with "inverse"
    q = np.zeros(cap)                                    # K_t^T Y_t
    K = np.empty((T, cap))                               # K_{t,I}
    m = 0
    kappa = 1.0
    scores = np.empty(T)
    for t in range(T):
        x = X[t]
        if m:
            k = np.exp(-gamma * np.maximum(Dsq[:m] + xsq[t] - 2.0 * (Dx[:m] @ x), 0.0))
            w = W[:m] * k
            r = max(kappa - w @ (Minv[:m, :m] @ w), 0.0)
        else:
            k = w = np.empty(0)
            r = kappa
        tau = (1.0 + eps) * r / (r + mu)
        p = min(beta * tau, 1.0)
        z = u[t] < p
        if z:
            a = np.exp(-gamma * np.maximum(xsq[:t] + xsq[t] - 2.0 * (X[:t] @ x), 0.0))
            qn = y[:t] @ a
            d0 = a @ a + lam * kappa
            c0 = K[:t, :m].T @ a + lam * k
        if m:
            rhs = np.column_stack((k, q[:m], c0)) if z else np.column_stack((k, q[:m]))
            sol = A[:m, :m] @ rhs if inverse else np.linalg.solve(A[:m, :m], rhs)
            h = sol[:, 0]                                 # A^{-1} k
            hh, hg = k @ h, k @ sol[:, 1]
        else:
            hh = hg = 0.0
        f, qt, join = hg, hh, False
        if z:
            e = sol[:, 2] if m else np.empty(0)           # A^{-1} c0
            s0 = d0 - c0 @ e
            if s0 > DEPENDENCE_TOL * (1.0 + d0 + kappa * kappa):
                join = True
                ke = k @ e - kappa
                f = hg + ke * (e @ q[:m] - qn) / s0
                qt = hh + ke * ke / s0
        scores[t] = f if forecaster == "krr" else f / (1.0 + qt)
        # A_t = A_{t-1} + k k^T
        if m:
            if inverse:
                A[:m, :m] -= np.outer(h, h / (1.0 + hh))
            else:
                A[:m, :m] += np.outer(k, k)
            K[t, :m] = k
        if join:
            if m + 1 > cap:
                cap *= 2
                Dx = np.resize(Dx, (cap, d))
                Dsq, W, q = (np.resize(v, cap) for v in (Dsq, W, q))
                Minv, A = (np.pad(M, ((0, cap - M.shape[0]), (0, cap - M.shape[1])))
                           for M in (Minv, A))
                K = np.pad(K, ((0, 0), (0, cap - K.shape[1])))
            wt = 1.0 / math.sqrt(p)
            _block_inverse(Minv, m, wt * w, wt * wt * kappa + mu)
            c, dd = c0 + kappa * k, d0 + kappa * kappa     # column of A_t (rows <= t)
            if inverse:
                _block_inverse(A, m, c, dd)
            else:
                A[:m, m] = A[m, :m] = c
                A[m, m] = dd
            K[:t, m] = a
            K[t, m] = kappa
            q[m] = qn
            Dx[m], Dsq[m], W[m] = x, xsq[t], wt
            m += 1
            k = np.append(k, kappa)
        if m:
            q[:m] += y[t] * k
    return scores, m


def nystrom_cases(X, y, T):
    """PKAWV(basis="nystrom"), paper settings (AWV forecaster): okl against the numpy loop.
    (The KRR forecaster runs the same code but for one division: table 1 shows its time.)"""
    return [("PKAWV nystrom awv", T, lambda: make_learner("awv").run(X, y),
             lambda: numpy_pkawv_nystrom(X, y, forecaster="awv"))]


# ----------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------

def per_round_table(X, y, k, min_time):
    T = len(y)
    widths = (22, 8, 6, 8, 10, 10)
    print(f"1. PKAWV(basis='nystrom') per round: d = {X.shape[1]}, T = {T:,}, sigma = {SIGMA:g}, "
          f"lam = {LAM:g}, mu = {MU:g}, beta = {BETA:g}, eps = {EPS:g}")
    print("   " + row(("forecaster", "T", "|I_T|", "joined", "run", "us/round"), widths))
    for fc in ("awv", "krr"):
        (t_run,), (tr,) = best_of([lambda: make_learner(fc).run(X, y)], k, min_time)
        joined = tr.extras["added"] / T
        print("   " + row((fc, T, tr.final_budget, f"{joined:.1%}", fmt_s(t_run),
                           f"{t_run / T * 1e6:.1f}"), widths))
    print()


def accuracy_report(X, y, k, min_time):
    """okl's factor against numpy's A, and the O(m^2) explicit-inverse numpy version."""
    learner = make_learner()
    tr = learner.run(X, y)
    Dx = learner.dictionary
    kern = okl.Gaussian(SIGMA)
    KtI = kern(X, Dx)
    A = KtI.T @ KtI + LAM * kern(Dx, Dx)
    L = learner.factor
    rel = np.linalg.norm(L @ L.T - A) / np.linalg.norm(A)
    T = len(y)
    print(f"3. accuracy after {T:,} rounds, |I| = {len(A)}, cond(A) = {np.linalg.cond(A):.1e}: "
          f"okl's factor ||L L^T - A||_F / ||A||_F = {rel:.1e} (A = K^T K + lam K_II by numpy)")
    (t_okl, t_inv), (_, (s_inv, m_inv)) = best_of(
        [lambda: make_learner().run(X, y), lambda: numpy_pkawv_nystrom(X, y, method="inverse")],
        k, min_time)
    dev = np.abs(s_inv - tr.scores)
    first = np.flatnonzero(dev > 1e-6)
    where = f"first > 1e-6 at round {first[0] + 1:,}" if first.size else "never > 1e-6"
    print(f"   numpy with explicit inverses (Sherman-Morrison + block updates, O(m^2) a round): "
          f"{t_inv / T * 1e6:.1f} us/round = {t_inv / t_okl:.1f}x okl's run, but it drifts: "
          f"max|yhat - okl| = {dev.max():.1e} ({where}), final |I| = {m_inv} against okl's "
          f"{tr.final_budget} (a drifted leverage flips KORS draws).  Not a valid reference.")
    print()


def main(args) -> int:
    k = args.repeat or 2       # the numpy reference takes ~30 s a call in full mode
    min_time = 0.2 if args.quick else 1.0
    T = 5_000 if args.quick else 20_000
    threads = {v: os.environ.get(v, "unset") for v in _BLAS_VARS}
    print(f"okl {okl.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}; "
          f"{'quick' if args.quick else 'full'} mode, best of >= {k} interleaved calls "
          f"(more for short ones, up to {min_time:g} s each)")
    print("BLAS threads: " + ", ".join(f"{v}={threads[v]}" for v in _BLAS_VARS))
    print()
    start = time.perf_counter()
    X, y = regression_stream(T)
    per_round_table(X, y, k, min_time)
    ok = numpy_table(nystrom_cases(X, y, T), k, min_time,
                     f"dense d = {D}, T = {T:,}, Gaussian sigma = {SIGMA:g}, KORS mu = beta = 1")
    accuracy_report(X, y, k, min_time)
    print(f"{sum(ok)}/{len(ok)} aims met; total {time.perf_counter() - start:.1f} s")
    if DISAGREEMENTS:
        print(f"FAILED: okl and its numpy reference disagree for {', '.join(DISAGREEMENTS)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(ARGS))
