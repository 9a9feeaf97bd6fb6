#!/usr/bin/env python
"""Speed of PKAWV (Jézéquel, Gaillard & Rudi 2019) against a plain-numpy version
measured in the same process.

    python benchmarks/ratios_awv.py            # full sizes: 10^5 rounds (about 20 s)
    python benchmarks/ratios_awv.py --quick    # 10^4 rounds (a few seconds)

Stream: ``T`` rounds (10^5; 10^4 with ``--quick``) of dense rows, d = 8, uniform in
``[-1, 1]^8`` scaled by ``1/sqrt(8)`` (so ``||x|| <= 1``: the paper scales its data to
``[-1, 1]^d``), real labels ``sin(3 x_1) + x_8^2 + noise``; Gaussian kernel
``sigma = 1`` and ``lam = 1`` (the paper's experiments).  Each time is the best of
``--repeat`` calls, ``time.perf_counter``, the two sides of a ratio interleaved
(``ratios.best_of``).

1. per-round cost of ``PKAWV(basis="taylor")`` for M = 2 (r = C(10, 2) = 45
   features: the size of the paper's experiments) and M = 3 (r = 165), the whole
   stream in one ``run`` (validation, driver and trace included).
2. plain numpy loop / okl (aim >= 10x, ``ratios.numpy_table``): Appendix H's
   Algorithm 1 written per round in numpy in this script -- the features (6)
   from a precomputed exponent table (``np.prod(x ** E) * c``, the ``r`` products
   in one call), ``A^{-1} v``, the Sherman-Morrison rank-one downdate of the
   explicit inverse (``np.outer`` and in-place subtraction), the forecast
   ``v^T A_t^{-1} b_{t-1}`` and ``b += y v``.  The script checks that both give
   the same forecasts (``np.allclose``) and the same r before comparing times;
   a disagreement exits with status 1.  After the run it also prints how far
   okl's kept inverse has drifted from ``(V^T V + lam I)^{-1}`` recomputed with
   ``numpy.linalg.inv`` on the features of the whole stream.

Other bases append their rows to ``CASE_BUILDERS`` (see ``main``): each builder
takes ``(X, y, T)`` and returns ``(name, T, run_okl, run_numpy)`` cases for
``ratios.numpy_table``.

No time is asserted: each ratio is followed by "aim met" or "aim MISSED".  BLAS
is pinned to one thread by default (as in asv.conf.json and ``ratios.py``);
``--blas-threads 0`` leaves the environment alone.
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
        description="Print the speed of PKAWV against a same-process numpy version.")
    p.add_argument("--quick", action="store_true",
                   help="10^4 rounds instead of 10^5 (a few seconds)")
    p.add_argument("--repeat", type=int, default=None,
                   help="at least k calls per timing, best taken (default 5, or 3 with "
                        "--quick); short calls are repeated for up to 1 s (0.2 s with --quick)")
    p.add_argument("--blas-threads", type=int, default=1,
                   help="set OPENBLAS/OMP/MKL_NUM_THREADS before numpy loads "
                        "(default 1; 0 leaves the environment unchanged)")
    return p


if __name__ == "__main__":
    # BLAS reads its thread count when numpy/scipy are first imported, so the
    # arguments are parsed before those imports.
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
from okl.learners.awv import PKAWV, taylor_exponents  # noqa: E402
from ratios import (DISAGREEMENTS, SEED, best_of, fmt_s, numpy_table,  # noqa: E402
                    row)

D = 8
SIGMA = 1.0
LAM = 1.0


def regression_stream(T, d=D, seed=SEED):
    """Rows uniform in ``[-1, 1]^d / sqrt(d)`` (``||x|| <= 1``), labels ``sin(3 x_1) + x_d^2 + noise``."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(T, d)) / math.sqrt(d)
    y = np.sin(3.0 * X[:, 0]) + X[:, -1] ** 2 + 0.05 * rng.standard_normal(T)
    return X, y


# ----------------------------------------------------------------------------
# plain numpy reference: Algorithm 1 of Appendix H, one round at a time
# ----------------------------------------------------------------------------

def numpy_taylor_features(d, M, sigma):
    """``(E, c)`` with ``g_k(x) = exp(-||x||^2 / (2 sigma^2)) c_k prod_i x_i^{k_i}``,
    ``c_k = prod_i 1 / (sigma^{k_i} sqrt(k_i!))`` (eq. (6))."""
    E = taylor_exponents(d, M)
    c = np.array([np.prod([1.0 / (sigma ** j * math.sqrt(math.factorial(j))) for j in k])
                  for k in E])
    return E, c


def numpy_pkawv_taylor(X, y, M, sigma=SIGMA, lam=LAM):
    """Algorithm 1 on the Taylor features: explicit inverse, Sherman-Morrison, per round."""
    T, d = X.shape
    E, c = numpy_taylor_features(d, M, sigma)
    r = len(E)
    Ainv = np.eye(r) / lam
    b = np.zeros(r)
    scores = np.empty(T)
    half = 1.0 / (2.0 * sigma * sigma)
    for t in range(T):
        x = X[t]
        v = np.prod(x ** E, axis=1) * c * math.exp(-half * (x @ x))
        u = Ainv @ v
        q = v @ u
        Ainv -= np.outer(u, u / (1.0 + q))
        scores[t] = (u @ b) / (1.0 + q)          # v^T A_t^{-1} b_{t-1}
        b += y[t] * v
    return scores, r


def taylor_cases(X, y, T):
    """PKAWV(basis="taylor"), M = 2 on d = 8 (r = 45): okl against the numpy loop."""
    make = lambda: PKAWV(basis="taylor", kernel=okl.Gaussian(SIGMA), lam=LAM, M=2)  # noqa: E731
    return [("PKAWV taylor M=2 (r=45)", T, lambda: make().run(X, y),
             lambda: numpy_pkawv_taylor(X, y, 2))]


#: builders of ``(name, T, run_okl, run_numpy)`` cases for the numpy table
CASE_BUILDERS = [taylor_cases]


# ----------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------

def per_round_table(X, y, k, min_time):
    """Ratio-free: the per-round cost of PKAWV-Taylor for M = 2 and 3."""
    T = len(y)
    widths = (26, 8, 5, 10, 10)
    print(f"1. PKAWV(basis='taylor') per round: d = {X.shape[1]}, T = {T:,}, "
          f"sigma = {SIGMA:g}, lam = {LAM:g}")
    print("   " + row(("learner", "T", "r", "run", "us/round"), widths))
    for M in (2, 3):
        make = lambda M=M: PKAWV(basis="taylor", kernel=okl.Gaussian(SIGMA), lam=LAM, M=M)
        (t_run,), (tr,) = best_of([lambda: make().run(X, y)], k, min_time)
        print("   " + row((f"PKAWV taylor M={M}", T, tr.final_budget, fmt_s(t_run),
                           f"{t_run / T * 1e6:.2f}"), widths))
    print()


def drift_report(X, y):
    """How far the kept ``A_T^{-1}`` (T Sherman-Morrison downdates) is from a fresh inverse."""
    learner = PKAWV(basis="taylor", kernel=okl.Gaussian(SIGMA), lam=LAM, M=2)
    learner.run(X, y)
    V = learner.features(X)
    A = V.T @ V + LAM * np.eye(V.shape[1])
    exact = np.linalg.inv(A)
    kept = learner.A_inv
    rel = np.abs(kept - exact).max() / np.abs(exact).max()
    resid = np.abs(kept @ A - np.eye(len(A))).max()
    print(f"3. drift of the kept inverse after {len(y):,} rounds (M = 2): "
          f"max|A_inv - inv(A)| / max|inv(A)| = {rel:.1e}, max|A_inv A - I| = {resid:.1e}, "
          f"cond(A) = {np.linalg.cond(A):.1e}")
    print()


def main(args) -> int:
    k = args.repeat or (3 if args.quick else 5)
    min_time = 0.2 if args.quick else 1.0
    T = 10_000 if args.quick else 100_000
    threads = {v: os.environ.get(v, "unset") for v in _BLAS_VARS}
    print(f"okl {okl.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}; "
          f"{'quick' if args.quick else 'full'} mode, best of >= {k} interleaved calls "
          f"(more for short ones, up to {min_time:g} s each)")
    print("BLAS threads: " + ", ".join(f"{v}={threads[v]}" for v in _BLAS_VARS))
    print()
    start = time.perf_counter()

    X, y = regression_stream(T)
    per_round_table(X, y, k, min_time)
    cases = [case for build in CASE_BUILDERS for case in build(X, y, T)]
    ok = numpy_table(cases, k, min_time, f"dense d = {D}, T = {T:,}, Gaussian sigma = {SIGMA:g}")
    drift_report(X, y)

    print(f"{sum(ok)}/{len(ok)} aims met; total {time.perf_counter() - start:.1f} s")
    if DISAGREEMENTS:
        print(f"FAILED: okl and its numpy reference disagree for {', '.join(DISAGREEMENTS)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(ARGS))
