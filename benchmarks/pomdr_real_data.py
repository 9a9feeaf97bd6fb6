#!/usr/bin/env python
"""SkeGD and B(AO)2KS on the real datasets of Li & Liao (AAAI 2023), Tables 2/4.

    OKL_DATA=~/data python benchmarks/pomdr_real_data.py                 # 10 perms
    OKL_DATA=~/data python benchmarks/pomdr_real_data.py --datasets magic04 \\
        --permutations 3 --eta-grid                                           # + step grid

Data (``okl.datasets``, nothing downloaded): magic04 (UCI, 19,020 x 10, min-max scaled to
[0, 1] per feature as the authors' "magic04-N"), a9a (``a9a`` + ``a9a.t``, 48,842 x 123,
the authors' ``a9a_all``), w8a (49,749 x 300), each in file order; the paper's kernel widths
(Gaussian, sigma = 0.5, 4, 4).  Permutation ``p`` is ``numpy.random.default_rng([seed, p])
.permutation(T)``; every learner runs on the same ones, seeded with ``p``.

Learners, with the settings of the authors' R code (okl's defaults, B = 400):

* ``SkeGD``: the method (landmarks = the sampled support vectors);
* ``SkeGD-R``: the R code's landmarks ``X[SVb, ]`` = rows ``r`` of the file
  (``landmark_pool`` = the first B rows in file order), what the authors' runs computed;
* ``B(AO)2KS``: ``BAO2KS`` (lambda = 10/sqrt(T), M = round(ln T), beta = 6, U = 30).

``--eta-grid`` adds the step grid ``10^{-3..3}/sqrt(T)`` of the paper ("we tune the stepsize of
gradient descent") for each learner and prints the mean AMR at every point
(``--eta-exponents e ...``: some points of it; ``--no-default``: without the default step).  Prints AMR
(mean +- std over permutations, %) beside the paper's and each run's mean seconds.
"""
from __future__ import annotations

import math
import sys
import time

import _setup  # noqa: F401  (pins BLAS to one thread before numpy loads)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import okl  # noqa: E402
from okl.datasets import fetch  # noqa: E402

PAPER = {  # Table 2 / Table 4: (AMR %, std %)
    "magic04": {"SkeGD": (24.17, 0.95), "B(AO)2KS": (22.04, 0.43)},
    "a9a": {"SkeGD": (17.31, 0.21), "B(AO)2KS": (20.65, 0.26)},
    "w8a": {"SkeGD": (3.04, 0.01), "B(AO)2KS": (2.91, 0.02)},
}
SIGMA = {"magic04": 0.5, "a9a": 4.0, "w8a": 4.0}
B = 400


def load(name):
    if name == "magic04":
        X, y = fetch.load("magic04")[:2]
        X = np.asarray(X, dtype=float)
        lo, hi = X.min(axis=0), X.max(axis=0)
        X = (X - lo) / np.where(hi > lo, hi - lo, 1.0)
        return np.ascontiguousarray(X), np.asarray(y, dtype=float)
    parts = ("a9a", "a9a.t") if name == "a9a" else (name,)
    blocks = [fetch.load(p)[:2] for p in parts]
    d = max(b[0].shape[1] for b in blocks)
    mats = []
    for Xb, _ in blocks:
        Xb = sp.csr_matrix(Xb)
        Xb.resize((Xb.shape[0], d))
        mats.append(Xb)
    X = sp.vstack(mats, format="csr")
    X.sort_indices()
    X.indices = X.indices.astype(np.int32)
    return X, np.concatenate([np.asarray(b[1], dtype=float) for b in blocks])


def make(name, sigma, T, pool, seed, eta=None):
    k = okl.Gaussian(sigma)
    if name == "SkeGD":
        return okl.SkeGD(k, B=B, eta=eta, seed=seed)
    if name == "SkeGD-R":
        return okl.SkeGD(k, B=B, eta=eta, landmark_pool=pool, seed=seed)
    return okl.BAO2KS(k, B=B, lam=eta, seed=seed)


def main(argv=None):
    p = _setup.parser("SkeGD and B(AO)2KS on the real datasets of Li & Liao (AAAI 2023)")
    p.add_argument("--datasets", nargs="+", default=list(PAPER))
    p.add_argument("--learners", nargs="+", default=["SkeGD", "SkeGD-R", "B(AO)2KS"])
    p.add_argument("--permutations", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eta-grid", action="store_true",
                   help="also every step 10^e/sqrt(T), e = -3..3 (the paper's grid)")
    p.add_argument("--eta-exponents", type=int, nargs="*", default=None,
                   help="also the steps 10^e/sqrt(T) for these e")
    p.add_argument("--no-default", action="store_true", help="skip the default step")
    args = p.parse_args(argv)
    if args.quick:
        args.permutations = min(args.permutations, 2)
    for ds in args.datasets:
        t0 = time.perf_counter()
        X, y = load(ds)
        T = len(y)
        pool = X[:B].toarray() if sp.issparse(X) else X[:B]
        perms = [np.random.default_rng([args.seed, q]).permutation(T)
                 for q in range(args.permutations)]
        print(f"{ds}: {T} x {X.shape[1]}, sigma = {SIGMA[ds]}, B = {B}, "
              f"{args.permutations} permutations (loaded in {time.perf_counter() - t0:.1f} s)")
        for name in args.learners:
            paper = PAPER[ds]["SkeGD" if name.startswith("SkeGD") else "B(AO)2KS"]
            exps = list(range(-3, 4)) if args.eta_grid else (args.eta_exponents or [])
            etas = ([] if args.no_default else [None]) + [10.0 ** e / math.sqrt(T)
                                                          for e in exps]
            for eta in etas:
                amr, secs, extra = [], [], []
                for q, perm in enumerate(perms):
                    Xp, yp = X[perm], y[perm]
                    tr = make(name, SIGMA[ds], T, pool, q, eta).run(Xp, yp)
                    amr.append(100 * tr.mistake_rate)
                    secs.append(tr.seconds)
                    e = tr.extras
                    extra.append(e.get("refreshes", e.get("restarts")))
                label = "default" if eta is None else f"eta = 10^{round(math.log10(eta * math.sqrt(T)))}/sqrt(T)"
                print(f"  {name:9s} {label:22s} AMR {np.mean(amr):6.2f} +- {np.std(amr, ddof=1) if len(amr) > 1 else 0:5.2f}"
                      f"   paper {paper[0]:5.2f} +- {paper[1]:4.2f}   {np.mean(secs):6.2f} s/run   "
                      f"{'refreshes' if name.startswith('SkeGD') else 'restarts'} {extra}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
