#!/usr/bin/env python
"""Speed of PKAWV (Jézéquel, Gaillard & Rudi 2019) against plain-numpy versions measured
in the same process: the Gaussian Taylor basis and the Nyström basis (KORS dictionary
+ Appendix H's Algorithm 2).

    python benchmarks/ratios_awv.py            # full sizes (about 2 minutes)
    python benchmarks/ratios_awv.py --quick    # small sizes (a few seconds)

Stream: dense rows, d = 8, uniform in ``[-1, 1]^8`` scaled by ``1/sqrt(8)`` (so
``||x|| <= 1``: the paper scales its data to ``[-1, 1]^d``), real labels
``sin(3 x_1) + x_8^2 + noise``; Gaussian kernel ``sigma = 1`` and ``lam = 1`` (the
paper's experiments).  The Taylor basis learns ``T`` = 10^5 rounds (10^4 with
``--quick``); the Nyström basis, whose numpy reference is O(m^3) a round, the first
2 x 10^4 (5 x 10^3), with the paper's KORS settings ``mu = beta = 1``, ``eps = 0.5``
(Section 4): the dictionary ends with a few hundred points (397 after 2 x 10^4 rounds).
Each time is the best of ``--repeat`` calls (default 5, 3 with ``--quick``, for the
Taylor basis; 2 for the Nyström basis, whose numpy reference takes ~30 s a call in full
mode), ``time.perf_counter``, the two sides of a ratio interleaved (``ratios.best_of``).

1a. per-round cost of ``PKAWV(basis="taylor")`` for M = 2 (r = C(10, 2) = 45 features:
    the size of the paper's experiments) and M = 3 (r = 165), the whole stream in one
    ``run`` (validation, driver and trace included).
1b. per-round cost of ``PKAWV(basis="nystrom").run`` for the AWV and KRR forecasters,
    with the final dictionary size and the share of rounds that added a point.
2.  plain numpy loop / okl (aim >= 10x, ``ratios.numpy_table``), one table per basis:

    * Taylor: Appendix H's Algorithm 1 written per round in numpy in this script -- the
      features (6) from a precomputed exponent table (``np.prod(x ** E) * c``, the ``r``
      products in one call), ``A^{-1} v``, the Sherman-Morrison rank-one downdate of the
      explicit inverse (``np.outer`` and in-place subtraction), the forecast
      ``v^T A_t^{-1} b_{t-1}`` and ``b += y v``.
    * Nyström: numpy has neither a triangular solve nor a Cholesky up/down-date, so the
      numpy version is the "naive" implementation that App. H starts from:
      ``A = K_t^T K_t + lam K_II`` kept explicitly (``A += k k^T`` each round, a new
      row/column when a point joins) and ``np.linalg.solve`` each round (O(m^3)); KORS'
      well-conditioned ``(S K S + mu I)^{-1}`` by block updates; the same O(t m) column
      ``K_t^T a_t`` from a stored ``K_{t,I}``; the same seeded uniforms.

    The script checks that okl and numpy give the same forecasts (``np.allclose``) and
    the same ``r`` / final dictionary size before comparing times; a disagreement exits
    with status 1.
3.  drift of the Taylor basis' kept inverse after the whole stream: okl's ``A_inv``
    against ``(V^T V + lam I)^{-1}`` recomputed with ``numpy.linalg.inv``.
4.  Nyström accuracy: ``||L L^T - A|| / ||A||`` for okl's factor (``A`` from numpy), and
    the O(m^2) numpy alternative App. H warns about -- explicit inverses by
    Sherman-Morrison and block updates: its speed, and how far its forecasts drift from
    okl's (it is not used as the reference because it does not agree: "Not a valid
    reference").

Other bases append a builder to ``CASE_BUILDERS``: ``build(quick)`` makes its stream
(``regression_stream(T)``, cached) and returns a ``CaseGroup(setting, cases, repeat)`` whose ``cases`` are
``(name, T, run_okl, run_numpy)`` tuples for ``ratios.numpy_table`` (``run_numpy``
returns ``(scores, final size)``) and whose ``repeat`` is the default number of calls
per timing (``None``: 5, or 3 with ``--quick``).

No time is asserted: each ratio is followed by "aim met" or "aim MISSED".  BLAS is
pinned to one thread by default (as in asv.conf.json and ``ratios.py``);
``--blas-threads 0`` leaves the environment alone.
"""
from __future__ import annotations

import functools
import math
import sys
import time
from typing import NamedTuple

import _setup  # noqa: F401  (first: reads --blas-threads, pins BLAS before numpy loads)

import numpy as np  # noqa: E402

import okl  # noqa: E402
from okl.learners.awv import PKAWV, taylor_exponents  # noqa: E402
from ratios import (DISAGREEMENTS, SEED, best_of, fmt_s, numpy_table,  # noqa: E402
                    row)

D = 8
SIGMA = 1.0
LAM = 1.0
MU, BETA, EPS = 1.0, 1.0, 0.5       # Section 4: "mu = 1, beta = 1 and eps = 0.5"
KORS_SEED = 7
DEPENDENCE_TOL = 1e-10              # okl.learners.awv_nystrom.DEPENDENCE_TOL


def rounds(quick):
    """``(T_taylor, T_nystrom)``: the rounds each basis learns."""
    return (10_000, 5_000) if quick else (100_000, 20_000)


@functools.lru_cache(maxsize=4)
def regression_stream(T, d=D, seed=SEED):
    """Rows uniform in ``[-1, 1]^d / sqrt(d)`` (``||x|| <= 1``), labels ``sin(3 x_1) + x_d^2 + noise``."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(T, d)) / math.sqrt(d)
    y = np.sin(3.0 * X[:, 0]) + X[:, -1] ** 2 + 0.05 * rng.standard_normal(T)
    return X, y


def make_nystrom(forecaster="awv"):
    return PKAWV(basis="nystrom", kernel=okl.Gaussian(SIGMA), lam=LAM, mu=MU, beta=BETA,
                 eps=EPS, forecaster=forecaster, seed=KORS_SEED)


class CaseGroup(NamedTuple):
    """One numpy table: its setting line, its cases, its default ``--repeat``."""
    setting: str
    cases: list
    repeat: int | None = None


# ----------------------------------------------------------------------------
# plain numpy references: Algorithm 1 (Taylor) and KORS + (4) (Nystrom),
# one round at a time
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


def taylor_cases(quick):
    """PKAWV(basis="taylor"), M = 2 on d = 8 (r = 45): okl against the numpy loop."""
    T = rounds(quick)[0]
    X, y = regression_stream(T)
    make = lambda: PKAWV(basis="taylor", kernel=okl.Gaussian(SIGMA), lam=LAM, M=2)  # noqa: E731
    return CaseGroup(f"Taylor basis: dense d = {D}, T = {T:,}, Gaussian sigma = {SIGMA:g}",
                     [("PKAWV taylor M=2 (r=45)", T, lambda: make().run(X, y),
                       lambda: numpy_pkawv_taylor(X, y, 2))])


def nystrom_cases(quick):
    """PKAWV(basis="nystrom"), paper settings (AWV forecaster): okl against the numpy loop.
    (The KRR forecaster runs the same code but for one division: table 1b shows its time.)"""
    T = rounds(quick)[1]
    X, y = regression_stream(T)
    return CaseGroup(f"Nystrom basis: dense d = {D}, T = {T:,}, Gaussian sigma = {SIGMA:g}, "
                     "KORS mu = beta = 1",
                     [("PKAWV nystrom awv", T, lambda: make_nystrom("awv").run(X, y),
                       lambda: numpy_pkawv_nystrom(X, y, forecaster="awv"))],
                     repeat=2)       # the numpy reference takes ~30 s a call in full mode


#: builders ``quick -> CaseGroup`` of the numpy tables
CASE_BUILDERS = [taylor_cases, nystrom_cases]


# ----------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------

def taylor_per_round_table(X, y, k, min_time):
    """Ratio-free: the per-round cost of PKAWV-Taylor for M = 2 and 3."""
    T = len(y)
    widths = (26, 8, 5, 10, 10)
    print(f"1a. PKAWV(basis='taylor') per round: d = {X.shape[1]}, T = {T:,}, "
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
    print(f"3.  drift of the kept inverse after {len(y):,} rounds (M = 2): "
          f"max|A_inv - inv(A)| / max|inv(A)| = {rel:.1e}, max|A_inv A - I| = {resid:.1e}, "
          f"cond(A) = {np.linalg.cond(A):.1e}")
    print()


def nystrom_per_round_table(X, y, k, min_time):
    T = len(y)
    widths = (22, 8, 6, 8, 10, 10)
    print(f"1b. PKAWV(basis='nystrom') per round: d = {X.shape[1]}, T = {T:,}, sigma = {SIGMA:g}, "
          f"lam = {LAM:g}, mu = {MU:g}, beta = {BETA:g}, eps = {EPS:g}")
    print("   " + row(("forecaster", "T", "|I_T|", "joined", "run", "us/round"), widths))
    for fc in ("awv", "krr"):
        (t_run,), (tr,) = best_of([lambda: make_nystrom(fc).run(X, y)], k, min_time)
        joined = tr.extras["added"] / T
        print("   " + row((fc, T, tr.final_budget, f"{joined:.1%}", fmt_s(t_run),
                           f"{t_run / T * 1e6:.1f}"), widths))
    print()


def accuracy_report(X, y, k, min_time):
    """Section 4: okl's factor against numpy's A, and the O(m^2) explicit-inverse numpy version."""
    learner = make_nystrom()
    tr = learner.run(X, y)
    Dx = learner.dictionary
    kern = okl.Gaussian(SIGMA)
    KtI = kern(X, Dx)
    A = KtI.T @ KtI + LAM * kern(Dx, Dx)
    L = learner.factor
    rel = np.linalg.norm(L @ L.T - A) / np.linalg.norm(A)
    T = len(y)
    print(f"4.  accuracy after {T:,} rounds, |I| = {len(A)}, cond(A) = {np.linalg.cond(A):.1e}: "
          f"okl's factor ||L L^T - A||_F / ||A||_F = {rel:.1e} (A = K^T K + lam K_II by numpy)")
    (t_okl, t_inv), (_, (s_inv, m_inv)) = best_of(
        [lambda: make_nystrom().run(X, y), lambda: numpy_pkawv_nystrom(X, y, method="inverse")],
        k, min_time)
    dev = np.abs(s_inv - tr.scores)
    first = np.flatnonzero(dev > 1e-6)
    where = f"first > 1e-6 at round {first[0] + 1:,}" if first.size else "never > 1e-6"
    print(f"   numpy with explicit inverses (Sherman-Morrison + block updates, O(m^2) a round): "
          f"{t_inv / T * 1e6:.1f} us/round = {t_inv / t_okl:.1f}x okl's run, but it drifts: "
          f"max|yhat - okl| = {dev.max():.1e} ({where}), final |I| = {m_inv} against okl's "
          f"{tr.final_budget} (a drifted leverage flips KORS draws).  Not a valid reference.")
    print()


def build_parser():
    return _setup.parser("Print the speed of PKAWV (Taylor and Nystrom bases) against "
                         "same-process numpy versions.",
                         quick_help="10^4 Taylor / 5 x 10^3 Nystrom rounds (a few seconds)",
                         repeat_default="5, or 3 with --quick; 2 for the Nystrom basis")


def main(args) -> int:
    k = args.repeat or (3 if args.quick else 5)
    min_time = 0.2 if args.quick else 1.0
    T, T_nys = rounds(args.quick)
    _setup.header(args, k, min_time)
    print()
    start = time.perf_counter()

    taylor_per_round_table(*regression_stream(T), k, min_time)
    nystrom_per_round_table(*regression_stream(T_nys), args.repeat or 2, min_time)
    ok = []
    for build in CASE_BUILDERS:
        group = build(args.quick)
        ok += numpy_table(group.cases, args.repeat or group.repeat or k, min_time, group.setting)
    drift_report(*regression_stream(T))
    accuracy_report(*regression_stream(T_nys), args.repeat or 2, min_time)
    return _setup.finish(ok, start, DISAGREEMENTS)


if __name__ == "__main__":
    sys.exit(main(build_parser().parse_args()))
