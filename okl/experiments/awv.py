"""Experiments of Jezequel, Gaillard & Rudi, *Efficient online learning with kernels for
adversarial large scale problems* (2019): Section 4 and Appendix G.

``awv-adversarial`` (Appendix G, Figure 3)
------------------------------------------
A greedy adversary plays ``(x_t, y_t) in [-1, 1]^d x [-1, 1]``, ``d = 5``, up to
``n = 80``, against Kernel-AWV, PKAWV with the Taylor basis (``M = 2, 3, 4``) and FOGD,
each learner facing its own adversary.  The paper only says "at each step an
optimization is done on the regret function [with scipy] to find (x_t, y_t)"; here:

* the regret after round ``t`` is measured against the kernel ridge comparator of
  the first ``t`` rounds (``theory.comparators.kernel_ridge_comparator``, the same
  ``lambda``): ``R_t = sum_{s<=t} (y_s - yhat_s)^2 - sum_{s<=t} (y_s - f*_t(x_s))^2``.
  ``f*_t`` maximizes ``R_t(f) - lambda ||f||^2`` over the RKHS, so it is the comparator
  at which the bounds (``lambda ||f||^2 + ...``) are tightest;
* the adversary maximizes ``R_t`` over ``(x_t, y_t)`` given the past.  ``R_t`` is a
  convex quadratic in ``y_t`` (the comparator's loss is ``Y^T (I - H)^2 Y`` with
  ``H = K (K + lambda I)^{-1}`` and ``((I - H)^2)_{tt} <= 1``), so its maximum over
  ``[-1, 1]`` is at ``y_t = -1`` or ``+1``: both are tried, and for each ``x_t`` is
  optimized by ``scipy.optimize.minimize`` (L-BFGS-B in the box, finite-difference
  gradients) from the best of ``N_CANDIDATES`` random points and ``N_STARTS - 1``
  further random starts (seeded);
* the learner's forecast at a candidate ``x`` is ``learner.decision_function`` (it does
  not change the learner's state; Kernel-AWV's and PKAWV's forecast of ``x`` includes
  the ``f(x)^2`` term of (3)/(4)), then the chosen point is learned with ``learn_one``.

Parameters as Section 4: Gaussian kernel ``sigma = 1``, ``lambda = 1``; FOGD with
``D = 1000`` random features (the paper's "number of random-features ... fixed to
1000", taken as FOGD's ``D`` frequencies) and step ``eta = 1/sqrt(n)``, square loss.
Pros-N-KONS (also in Figure 3) is not implemented in okl: listed, never silently
dropped.  Reported beside each run: Proposition 1's bound (Kernel-AWV) and Theorem 3's
bound with the measured ``mu = ||(I - P) C_n^{1/2}||^2`` (PKAWV) on the learner's own
adversarial stream, at ``f = f*_n`` (``theory.awv``).

``awv-large-scale`` (Section 4, Figures 2 and 4)
------------------------------------------------
Average loss (square loss for regression, classification error ``y_t yhat_t <= 0``
for classification) and cumulative running time as ``n`` grows, on ``cod-rna``,
``SUSY`` (Figure 2), ``casp`` and ``ijcnn1`` (Figure 4).  Learners (the paper runs the
ridge variants on i.i.d. real data): KRR (``KernelAWV(forecaster="krr")``),
Projected-KRR with the Taylor basis (``PKAWV(basis="taylor", forecaster="krr")``,
``M = 2, 3, 4`` while ``r = C(M + d, d) <= MAX_TAYLOR_FEATURES``), Projected-KRR with
KORS Nystrom (``mu = 1``, ``beta = 1``, ``eps = 0.5``, when
``okl.learners.awv_nystrom`` is available) and FOGD (``D = 1000``,
``eta = 1/sqrt(n)``, square loss).  ``sigma = 1`` (``sigma = 4`` on SUSY),
``lambda = 1``; ``x`` scaled to ``[-1, 1]^d`` (per feature, min-max over the data)
and ``y`` to ``[-1, 1]``; rows in a random order (``default_rng(seed)``; the paper does
not say).  The paper stops each algorithm after 5 minutes ("the results of the
algorithms are only recorded until this time"): each learner runs chunk by chunk
between checkpoints and stops after the first checkpoint past ``TIME_BUDGET`` seconds
(``QUICK_TIME_BUDGET`` with ``quick=True``), so the recorded length depends on the
machine.  Pros-N-KONS is not implemented (listed).

Data: the LIBSVM files through ``okl.datasets.fetch`` (``cod-rna.t``; ``ijcnn1`` +
``ijcnn1.t``; the first ``SUSY_ROWS`` rows of ``SUSY``) and UCI's ``CASP.csv`` (RMSD,
the first column, is the target) in ``okl.datasets.fetch.data_home()``, when present;
nothing is downloaded.  A missing dataset is replaced by a generated *stand-in* of the
same dimension and task (``stand_in``), marked as such everywhere; its numbers are not
the paper's.  ``quick=True`` reads at most ``QUICK_ROUNDS`` rows.

Paper notes: Figure 2's caption gives SUSY ``d = 22``, but SUSY has 18 features and the
text's ``r = 190`` Taylor features at ``M = 2`` is ``C(20, 2)``, i.e. ``d = 18``; SUSY has
5,000,000 rows (caption: ``6 x 10^6``).
"""
from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy import optimize

from okl.experiments import register
from okl.kernels import Gaussian
from okl.learners.awv import PKAWV, KernelAWV
from okl.learners.features import FOGD
from okl.plotting import save_figure
from theory.awv import proposition1_bound, taylor_mu, theorem3_bound
from theory.comparators import kernel_ridge_comparator
from theory.spectrum import log_det_term

__all__ = [
    "awv_adversarial", "awv_large_scale", "greedy_adversary", "gaussian_gram",
    "comparator_regret", "ADVERSARIAL_LEARNERS", "LARGE_SCALE_DATASETS", "stand_in",
    "load_large_scale", "large_scale_learners", "nystrom_available", "scale_data",
]

SIGMA = 1.0
LAM = 1.0
FOGD_D = 1000
NOT_IMPLEMENTED = ("Pros-N-KONS",)

# -- adversarial ---------------------------------------------------------------------------
ADVERSARIAL_D = 5
ADVERSARIAL_N = 80
QUICK_ADVERSARIAL_N = 12
N_CANDIDATES = 256
N_STARTS = 3
QUICK_N_STARTS = 1
ADVERSARIAL_LEARNERS = ("Kernel-AWV", "PKAWV M=2", "PKAWV M=3", "PKAWV M=4", "FOGD")


def gaussian_gram(X, Z=None, sigma=SIGMA):
    """``exp(-||x - z||^2 / (2 sigma^2))`` with numpy (the comparator's kernel)."""
    X = np.asarray(X, float)
    Z = X if Z is None else np.asarray(Z, float)
    D = (np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Z, Z)[None, :]
         - 2.0 * X @ Z.T)
    return np.exp(-np.maximum(D, 0.0) / (2.0 * sigma ** 2))


def comparator_regret(X, y, predictions, lam=LAM, sigma=SIGMA):
    """``R_t`` for every prefix ``t``: cumulative loss minus the kernel ridge comparator's
    loss on the same prefix (``f*_t`` refit on each prefix)."""
    X, y, p = np.asarray(X, float), np.asarray(y, float), np.asarray(predictions, float)
    K = gaussian_gram(X, sigma=sigma)
    cum = np.cumsum((y - p) ** 2)
    return np.array([cum[t] - kernel_ridge_comparator(K[:t + 1, :t + 1], y[:t + 1], lam).loss
                     for t in range(len(y))])


def _make_adversarial(name, n, seed):
    k = Gaussian(SIGMA)
    if name == "Kernel-AWV":
        return KernelAWV(k, lam=LAM)
    if name.startswith("PKAWV M="):
        return PKAWV(k, basis="taylor", M=int(name.split("=")[1]), lam=LAM)
    if name == "FOGD":
        return FOGD(k, D=FOGD_D, eta=1.0 / math.sqrt(n), loss="squared", seed=seed)
    raise ValueError(f"unknown learner {name!r}")


def greedy_adversary(learner, n, d, rng, *, lam=LAM, sigma=SIGMA, n_starts=N_STARTS,
                     n_candidates=N_CANDIDATES):
    """Play ``n`` greedy rounds against ``learner`` (mutated: it learns the rounds).

    Returns ``X (n, d)``, ``y (n,)``, the learner's forecasts and the regret ``R_t``
    after each round (see the module docstring).
    """
    X = np.zeros((0, d))
    y = np.zeros(0)
    preds = np.zeros(n)
    regret = np.zeros(n)
    cum = 0.0
    Kp = np.zeros((0, 0))
    for t in range(n):
        def forecast(x):
            return float(learner.decision_function(x[None, :])[0]) if t else 0.0

        def comparator_loss(x, yt):
            kx = gaussian_gram(X, x[None, :], sigma)[:, 0]
            K = np.block([[Kp, kx[:, None]], [kx[None, :], np.ones((1, 1))]])
            return kernel_ridge_comparator(K, np.append(y, yt), lam).loss

        def neg_regret(x, yt):
            return -(cum + (yt - forecast(x)) ** 2 - comparator_loss(x, yt))

        cand = rng.uniform(-1.0, 1.0, size=(n_candidates, d))
        f_cand = learner.decision_function(cand) if t else np.zeros(n_candidates)
        best = (np.inf, None, None)
        for yt in (-1.0, 1.0):
            # start from the candidate with the largest learner loss, plus random starts
            starts = [cand[np.argmax((yt - f_cand) ** 2)]]
            starts += list(rng.uniform(-1.0, 1.0, size=(n_starts - 1, d)))
            for x0 in starts:
                res = optimize.minimize(neg_regret, x0, args=(yt,), method="L-BFGS-B",
                                        bounds=[(-1.0, 1.0)] * d)
                if res.fun < best[0]:
                    best = (float(res.fun), np.clip(res.x, -1.0, 1.0), yt)
        _, xt, yt = best
        preds[t] = forecast(xt)
        learner.learn_one(xt, yt)
        kx = gaussian_gram(X, xt[None, :], sigma)[:, 0]
        Kp = np.block([[Kp, kx[:, None]], [kx[None, :], np.ones((1, 1))]])
        X = np.vstack([X, xt])
        y = np.append(y, yt)
        cum += (yt - preds[t]) ** 2
        regret[t] = cum - kernel_ridge_comparator(Kp, y, lam).loss
    return X, y, preds, regret


@register("awv-adversarial")
def awv_adversarial(out_dir, quick=False, seed=0) -> dict:
    """Appendix G / Figure 3: greedy adversarial regret of Kernel-AWV, PKAWV and FOGD."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    n = QUICK_ADVERSARIAL_N if quick else ADVERSARIAL_N
    n_starts = QUICK_N_STARTS if quick else N_STARTS
    d = ADVERSARIAL_D
    runs, rows = {}, []
    for i, name in enumerate(ADVERSARIAL_LEARNERS):
        rng = np.random.default_rng([seed, i])
        learner = _make_adversarial(name, n, seed)
        start = time.perf_counter()
        X, y, preds, regret = greedy_adversary(learner, n, d, rng, n_starts=n_starts)
        seconds = time.perf_counter() - start
        K = gaussian_gram(X)
        comp = kernel_ridge_comparator(K, y, LAM)
        B = 1.0
        bound = None
        if name == "Kernel-AWV":
            bound = {"name": "Proposition 1",
                     "value": proposition1_bound(LAM, comp.norm2, B, K)}
        elif name.startswith("PKAWV"):
            M = int(name.split("=")[1])
            mu = taylor_mu(X, sigma=SIGMA, M=M, K=K)
            bound = {"name": "Theorem 3", "mu": mu,
                     "value": theorem3_bound(LAM, comp.norm2, B, log_det_term(K, LAM), mu, n)}
        runs[name] = {"regret": regret.tolist(), "final_regret": float(regret[-1]),
                      "comparator_norm2": comp.norm2, "bound": bound,
                      "adversary_seconds": seconds, "learner": repr(learner)}
        for t in range(n):
            rows.append([name, t + 1, *X[t].tolist(), y[t], preds[t], (y[t] - preds[t]) ** 2,
                         regret[t]])
    with open(out / "awv_adversarial.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["learner", "t"] + [f"x{j + 1}" for j in range(d)]
                   + ["y", "prediction", "loss", "regret"])
        w.writerows(rows)
    summary = {"experiment": "awv-adversarial", "quick": bool(quick), "seed": seed,
               "n": n, "d": d, "sigma": SIGMA, "lam": LAM, "fogd_D": FOGD_D,
               "fogd_eta": 1.0 / math.sqrt(n), "n_starts": n_starts,
               "n_candidates": N_CANDIDATES, "runs": runs,
               "not_implemented": list(NOT_IMPLEMENTED)}
    with open(out / "awv_adversarial.json", "w") as fh:
        json.dump(summary, fh, indent=2)
    _plot_adversarial(runs, n, out / "awv_adversarial")
    return summary


def _plot_adversarial(runs, n, stem):
    from okl.plotting import _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    t = np.arange(1, n + 1)
    for name, run in runs.items():
        ax.plot(t, run["regret"], label=name)
    ax.set_xlabel("n")
    ax.set_ylabel("regret against kernel ridge")
    ax.set_title(f"Greedy adversary, d = {ADVERSARIAL_D} (Fig. 3)")
    ax.legend()
    save_figure(fig, stem)


# -- large scale ---------------------------------------------------------------------------

#: the paper's datasets: task, dimension, size, kernel width, where the file is
LARGE_SCALE_DATASETS = {
    "cod-rna": dict(task="classification", d=8, n=271_617, sigma=1.0, files=("cod-rna.t",),
                    figure="2"),
    "SUSY": dict(task="classification", d=18, n=5_000_000, sigma=4.0, files=("SUSY",),
                 figure="2"),
    "casp": dict(task="regression", d=9, n=45_730, sigma=1.0, files=("CASP.csv",),
                 figure="4"),
    "ijcnn1": dict(task="classification", d=22, n=141_691, sigma=1.0,
                   files=("ijcnn1", "ijcnn1.t"), figure="4"),
}
SUSY_ROWS = 1_000_000
STAND_IN_ROUNDS = 50_000
QUICK_ROUNDS = 1_500
TIME_BUDGET = 300.0
QUICK_TIME_BUDGET = 2.0
MAX_TAYLOR_FEATURES = 1_500
QUICK_MAX_TAYLOR_FEATURES = 400
TAYLOR_M = (2, 3, 4)
KORS = dict(mu=1.0, beta=1.0, eps=0.5)
FIRST_CHECKPOINT = 100


def nystrom_available() -> bool:
    try:
        from okl.learners import awv_nystrom  # noqa: F401
    except ImportError:
        return False
    return True


def stand_in(name, n, seed=2019):
    """Generated data of dataset ``name``'s dimension and task: ``x`` uniform in
    ``[-1, 1]^d``; a smooth target of the first three coordinates plus noise (regression)
    or its sign with 10 % of the labels flipped (classification)."""
    spec = LARGE_SCALE_DATASETS[name]
    rng = np.random.default_rng([seed, spec["d"]])
    X = rng.uniform(-1.0, 1.0, size=(n, spec["d"]))
    f = np.sin(np.pi * X[:, 0]) * np.cos(np.pi * X[:, 1] / 2) + 0.5 * X[:, 2] ** 2 - 0.25
    if spec["task"] == "regression":
        y = np.clip(f + 0.2 * rng.normal(size=n), -1.0, 1.0)
    else:
        y = np.where(f >= 0, 1.0, -1.0)
        y[rng.random(n) < 0.1] *= -1.0
    return X, y


def scale_data(X, y, task):
    """``x`` to ``[-1, 1]^d`` per feature (constant features to 0), regression ``y`` to
    ``[-1, 1]``, both by min-max over the data (Section 4)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    X = np.where(hi > lo, 2.0 * (X - lo) / span - 1.0, 0.0)
    y = np.asarray(y, dtype=float)
    if task == "regression":
        ylo, yhi = y.min(), y.max()
        y = 2.0 * (y - ylo) / (yhi - ylo) - 1.0 if yhi > ylo else np.zeros_like(y)
    return X, y


def _casp(path, n_rows):
    from okl.datasets.files import load_csv

    X, y = load_csv(path, label_column=0, header=True, n_rows=n_rows, labels="keep")
    return X, y


def load_large_scale(name, *, quick=False):
    """``(X, y, source)`` of a dataset: its file(s) when present, else ``stand_in``.

    ``source`` is ``"file"`` or ``"stand-in"``.  Not scaled, not permuted.
    """
    from okl.datasets import fetch

    spec = LARGE_SCALE_DATASETS[name]
    cap = QUICK_ROUNDS if quick else (SUSY_ROWS if name == "SUSY" else None)
    try:
        if name == "casp":
            home = fetch.data_home()
            path = next((p for p in home.iterdir() if p.name.lower() == "casp.csv"), None) \
                if home.is_dir() else None
            if path is not None:
                X, y = _casp(path, cap)
                return X, y, "file"
        elif all(fetch.available(f) for f in spec["files"]):
            parts = []
            for f in spec["files"]:
                left = None if cap is None else cap - sum(len(p[1]) for p in parts)
                if left is not None and left <= 0:
                    break
                parts.append(fetch.load(f, n_rows=left))
            X = sp.vstack([sp.csr_matrix(p[0]) for p in parts], format="csr")
            y = np.concatenate([p[1] for p in parts])
            return X, y, "file"
    except (OSError, ValueError):
        pass
    X, y = stand_in(name, QUICK_ROUNDS if quick else min(spec["n"], STAND_IN_ROUNDS))
    return X, y, "stand-in"


def large_scale_learners(d, sigma, n, *, quick=False, seed=0):
    """``{name: factory or reason}``: a zero-argument factory, or a string saying why the
    learner is not run.  ``seed`` seeds FOGD's frequencies and KORS' draws."""
    k = Gaussian(sigma)
    cap = QUICK_MAX_TAYLOR_FEATURES if quick else MAX_TAYLOR_FEATURES
    out = {"KRR": lambda: KernelAWV(k, lam=LAM, forecaster="krr")}
    for M in TAYLOR_M:
        r = math.comb(M + d, d)
        if r <= cap:
            out[f"PKAWV taylor M={M}"] = (lambda M=M: PKAWV(k, basis="taylor", M=M, lam=LAM,
                                                          forecaster="krr"))
        else:
            out[f"PKAWV taylor M={M}"] = f"skipped: r = C({M}+{d}, {d}) = {r} > {cap} features"
    if nystrom_available():
        out["PKAWV nystrom"] = lambda: PKAWV(k, basis="nystrom", lam=LAM, forecaster="krr",
                                             seed=seed, **KORS)
    else:
        out["PKAWV nystrom"] = "not available: okl.learners.awv_nystrom is missing"
    out["FOGD"] = lambda: FOGD(k, D=FOGD_D, eta=1.0 / math.sqrt(n), loss="squared", seed=seed)
    for name in NOT_IMPLEMENTED:
        out[name] = "not implemented in okl"
    return out


def _checkpoints(n):
    cps, c = [], FIRST_CHECKPOINT
    while c < n:
        cps.append(c)
        c *= 2
    return cps + [n]


def _average_loss(y, scores, task):
    if task == "classification":
        return (y * scores <= 0.0).astype(float)
    return (y - scores) ** 2


def _run_timed(make, X, y, task, budget):
    learner = make()
    scores = np.zeros(len(y))
    done, seconds, points = 0, 0.0, []
    for c in _checkpoints(len(y)):
        tr = learner.run(X[done:c], y[done:c])
        scores[done:c] = tr.scores
        seconds += tr.seconds
        done = c
        points.append({"n": c, "average_loss": float(np.mean(_average_loss(y[:c], scores[:c],
                                                                           task))),
                       "seconds": seconds})
        if seconds > budget:
            break
    return points, repr(learner)


@register("awv-large-scale")
def awv_large_scale(out_dir, quick=False, seed=0) -> dict:
    """Figures 2 and 4: average loss and time against ``n`` (see the module docstring)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    budget = QUICK_TIME_BUDGET if quick else TIME_BUDGET
    summary = {"experiment": "awv-large-scale", "quick": bool(quick), "seed": seed,
               "lam": LAM, "time_budget": budget, "kors": KORS, "fogd_D": FOGD_D,
               "datasets": {}}
    rows = []
    for name, spec in LARGE_SCALE_DATASETS.items():
        X, y, source = load_large_scale(name, quick=quick)
        X, y = scale_data(X, y, spec["task"])
        order = np.random.default_rng(seed).permutation(len(y))
        X, y = np.ascontiguousarray(X[order]), y[order]
        n, d = X.shape
        results, skipped = {}, {}
        for lname, make in large_scale_learners(d, spec["sigma"], n, quick=quick,
                                                      seed=seed).items():
            if isinstance(make, str):
                skipped[lname] = make
                continue
            points, desc = _run_timed(make, X, y, spec["task"], budget)
            results[lname] = {"points": points, "learner": desc}
            rows += [[name, source, lname, p["n"], p["average_loss"], p["seconds"]]
                     for p in points]
        summary["datasets"][name] = {"source": source, "n": n, "d": d, "task": spec["task"],
                                     "sigma": spec["sigma"], "figure": spec["figure"],
                                     "results": results, "skipped": skipped}
        _plot_large_scale(name, summary["datasets"][name], out / f"awv_large_scale_{name}")
    with open(out / "awv_large_scale.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["dataset", "source", "learner", "n", "average_loss", "seconds"])
        w.writerows(rows)
    with open(out / "awv_large_scale.json", "w") as fh:
        json.dump(summary, fh, indent=2)
    return summary


def _plot_large_scale(name, info, stem):
    from okl.plotting import _pyplot

    plt = _pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for lname, res in info["results"].items():
        ns = [p["n"] for p in res["points"]]
        a1.plot(ns, [p["average_loss"] for p in res["points"]], marker=".", label=lname)
        a2.plot(ns, [max(p["seconds"], 1e-6) for p in res["points"]], marker=".", label=lname)
    tag = " (stand-in)" if info["source"] == "stand-in" else ""
    loss = "classification error" if info["task"] == "classification" else "square loss"
    a1.set_xscale("log")
    a1.set_xlabel("n")
    a1.set_ylabel(f"average {loss}")
    a1.set_title(f"{name}{tag}, d = {info['d']} (Fig. {info['figure']})")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("n")
    a2.set_ylabel("seconds")
    a1.legend(fontsize=7)
    save_figure(fig, stem)
