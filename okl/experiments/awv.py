"""Experiments of Jezequel, Gaillard & Rudi, *Efficient online learning with kernels for
adversarial large scale problems* (2019): Section 4 and Appendix G.

``awv-adversarial`` (Appendix G, Figure 3)
------------------------------------------
A greedy adversary plays ``(x_t, y_t) in [-1, 1]^d x [-1, 1]``, ``d = 5``, up to
``n = 80``, against Kernel-AWV, PKAWV with the Taylor basis (``M = 2, 3, 4``), FOGD and
Pros-N-KONS, each learner facing its own adversary.  The paper only says "at each step an
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
Pros-N-KONS (:class:`okl.ProsNKONS`, ``variant="paper"``) with KORS as Section 4 sets it
(``KORS``: ``mu = 1``, ``beta = 1``, ``eps = 0.5``, "as in [12]") and the KONS settings
the paper leaves open (``KONS``), chosen so: ``alpha = lambda = 1`` (the text's "for all
algorithms ... lambda = 1"); ``C = 1``, the feasible set ``|f(x_t)| <= C`` of labels and
forecasts in ``[-1, 1]`` (the scaling of Section 4); the Newton step ``eta = 1/16``, the
step of the authors' ``Pros_n_kons`` (``u = g/4``, ``A += u u^T``; within the square
loss' ``1/(2 (C + 1)^2) = 1/8``, ``okl.learners.kons.square_loss_eta``); square loss, the
learner regressing the labels.  Two columns are okl's, not the figure's
(``NOT_IN_PAPER``; marked ``*`` and dashed in the plots): ``Pros-N-KONS jgr2019``, the
authors' own code of it (``variant="jgr2019"``, its KORS ``mu`` = its ``lbd`` =
``lambda``; where it differs from the NeurIPS paper's algorithm is listed in
:class:`okl.ProsNKONS`; okl's ``Pros-N-KONS`` column follows the paper, whose forecast is
the one its bounds are about), and Sketched-KONS (:class:`okl.SketchedKONS`, the issue's
request: Jezequel et al. compare it in theory only, eq. (8) and Table 1) with the same
``KONS``, ``beta = 1`` and ``gamma = SKETCHED_GAMMA = 0.1`` (Table 1's ``c = 1/gamma``;
the paper gives none).  Reported beside each run: Proposition 1's bound (Kernel-AWV),
Theorem 3's bound with the measured ``mu = ||(I - P) C_n^{1/2}||^2`` (PKAWV) and
``theory.kons.pros_n_kons_regret_bound`` (Pros-N-KONS, with whether its conditions --
``|P_j f(x_t)| <= C``, ``eta <= 1/(2 max_t (yhat_t - y_t)^2)`` -- hold on the run) on the
learner's own adversarial stream, at ``f = f*_n`` (``theory.awv``, ``theory.kons``), and
the learners' scalar extras (Pros-N-KONS: ``restarts``, one per point joining KORS).
A Pros-N-KONS restart forecasts 0 (``w = 0``): against a greedy adversary that makes it
add a point on most rounds (the restarts the paper blames for its "poor performance"),
those rounds lose 1 each.

Each learner's whole game is one run of :mod:`okl.experiments.runner` (its dataset,
"greedy adversary", is ``"generated"``: the adversary plays the stream inside the run):
a progress bar over the games, ``--jobs`` / ``--dask``, each finished game journaled in
``awv_adversarial-journal.jsonl`` and ``--resume`` after an interruption.  A game
depends only on the learner's position ``i`` in ``ADVERSARIAL_LEARNERS`` (its adversary
draws from ``numpy.random.default_rng([seed, i])``, its learner is seeded ``seed``) and
on the sizes (``n``, starts, candidates) passed with the run, so the results are the
same for any ``--jobs``, on Dask, after a resume and with ``--learners`` choosing a
subset.  Outputs: the runner's table (``awv_adversarial.csv`` / ``.txt``: final
regret, the bound and whether the regret is within it, ``||f*_n||^2``, PKAWV's ``mu``,
Pros-N-KONS' restarts and dictionary, seconds), ``awv_adversarial_runs.csv``,
``awv_adversarial.json`` (the runner's summary plus the game's settings and ``runs``:
each learner's regret curve, bound and extras), every round of every game in
``awv_adversarial_rounds.csv`` (``x_t``, ``y_t``, forecast, loss, regret) and Figure 3's
regret curves in ``awv_adversarial.png`` / ``.svg``.

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
``lambda = 1``; Pros-N-KONS, Pros-N-KONS jgr2019 and Sketched-KONS as in
``awv-adversarial`` (the last two marked ``*``: not in the figures).  Data through ``okl.datasets.paper_data(name, "awv")``: ``x`` scaled to
``[-1, 1]^d`` and ``y`` to ``[-1, 1]`` (Section 4; min-max over the prepared rows); SUSY:
``SUSY_ROWS`` rows drawn uniformly (the paper runs PKAWV on "the first million
examples"; its 5,000,000 rows do not fit a time budget of minutes anyway); one random
order of the rows (``okl.experiments.runner.stream_order(seed, dataset, 0)``; the paper
does not say).  The paper stops each algorithm after 5 minutes ("the results of the
algorithms are only recorded until this time"): each learner runs chunk by chunk
between checkpoints and stops after the first checkpoint past ``TIME_BUDGET`` seconds
(``QUICK_TIME_BUDGET`` with ``quick=True``), so the recorded length depends on the
machine.  Each (dataset, learner) is one run of
:mod:`okl.experiments.runner` (progress, ``--jobs``, ``--resume``; a run cut by its
time budget is not bit-reproducible, by design).  The paper gives these results as
figures only: there is no number to compare with, and the table printed per dataset is
okl's (final ``n``, average loss, seconds, and KORS' dictionary and Pros-N-KONS'
restarts).  The classification error counts ``y_t yhat_t <= 0``: a forecast of 0 (every
Pros-N-KONS restart round) is an error.

A dataset whose files are missing is replaced by a generated *stand-in* of the same
dimension and task (``stand_in``), marked as such everywhere; its numbers are not the
paper's.  ``quick=True`` draws at most ``QUICK_ROUNDS`` rows.

Paper notes: Figure 2's caption gives SUSY ``d = 22``, but SUSY has 18 features and the
text's ``r = 190`` Taylor features at ``M = 2`` is ``C(20, 2)``, i.e. ``d = 18``; SUSY has
5,000,000 rows (caption: ``6 x 10^6``).
"""
from __future__ import annotations

import csv
import io
import json
import math
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy import optimize

from okl.experiments import executor, register
from okl.experiments import runner as rn
from okl.kernels import Gaussian
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
#: KORS as Section 4 sets it ("mu = 1, beta = 1 and eps = 0.5"): PKAWV's Nystrom basis
#: and Pros-N-KONS' dictionary
KORS = dict(mu=1.0, beta=1.0, eps=0.5)
#: the KONS settings the paper leaves open (module docstring): ``alpha = lambda``, the
#: feasible set ``|f(x_t)| <= C = 1`` of labels in [-1, 1], the Newton step 1/16 of the
#: authors' code (``u = g/4``), within the square loss' ``1/(2 (C + 1)^2) = 1/8``
KONS = dict(alpha=LAM, C=1.0, eta=1.0 / 16)
#: Sketched-KONS' sampling floor (Table 1's ``c = 1/gamma``; no value in the paper)
SKETCHED_GAMMA = 0.1
#: columns okl adds to the paper's figures (marked so in tables, JSON and legends)
NOT_IN_PAPER = ("Sketched-KONS", "Pros-N-KONS jgr2019")
NOT_IMPLEMENTED = ()

# -- adversarial ---------------------------------------------------------------------------
ADVERSARIAL_D = 5
ADVERSARIAL_N = 80
QUICK_ADVERSARIAL_N = 12
N_CANDIDATES = 256
N_STARTS = 3
QUICK_N_STARTS = 1
ADVERSARIAL_LEARNERS = ("Kernel-AWV", "PKAWV M=2", "PKAWV M=3", "PKAWV M=4", "FOGD",
                        "Pros-N-KONS", "Pros-N-KONS jgr2019", "Sketched-KONS")


def _fogd_eta(settings):
    return {"eta": 1.0 / math.sqrt(settings["n"])}


#: the KONS learners of both tables: Pros-N-KONS (the NeurIPS paper's algorithm, okl's
#: default), Pros-N-KONS as the code of Jezequel et al. (``variant="jgr2019"``, its ``mu``
#: = its ``lbd`` = ``lambda``) and Sketched-KONS, with ``KONS``, ``KORS`` and
#: ``SKETCHED_GAMMA``; the run's seed seeds their draws (KORS' or the sketch's)
KONS_SPECS = {
    "Pros-N-KONS": rn.LearnerSpec("ProsNKONS", {**KONS, **KORS}),
    "Pros-N-KONS jgr2019": rn.LearnerSpec("ProsNKONS", {**KONS, **KORS, "mu": KONS["alpha"],
                                                         "variant": "jgr2019"}),
    "Sketched-KONS": rn.LearnerSpec("SketchedKONS", {**KONS, "beta": KORS["beta"],
                                                     "gamma": SKETCHED_GAMMA}),
}
#: Appendix G's game: each column's learner (FOGD's step ``1/sqrt(n)``, ``n`` the game's
#: length)
ADVERSARIAL_SPECS = {
    "Kernel-AWV": rn.LearnerSpec("KernelAWV", {"lam": LAM}),
    **{f"PKAWV M={M}": rn.LearnerSpec("PKAWV", {"basis": "taylor", "M": M, "lam": LAM})
       for M in (2, 3, 4)},
    "FOGD": rn.LearnerSpec("FOGD", {"D": FOGD_D, "loss": "squared"}, derive=_fogd_eta),
    **KONS_SPECS,
}


def kons_learner(name, kernel, seed):
    """The KONS learner ``name`` of :data:`KONS_SPECS` with ``kernel``, seeded ``seed``."""
    if name not in KONS_SPECS:
        raise ValueError(f"unknown learner {name!r}")
    return rn.build_learner(KONS_SPECS[name], {}, kernel=kernel, seed=seed, settings={})


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
    return rn.build_learner(ADVERSARIAL_SPECS[name], {}, kernel=Gaussian(SIGMA), seed=seed,
                            settings={"n": n})


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


def adversarial_run(X, y, *, name, index, seed, n, d, n_starts, n_candidates, timing=True,
                    own_params=None):
    """One learner's whole adversarial game (a run of :mod:`okl.experiments.runner`;
    ``X``, ``y`` are the empty placeholders of the generated dataset): ``n`` greedy
    rounds of ``greedy_adversary`` seeded ``default_rng([seed, index])`` (``index``: the
    learner's position in ``ADVERSARIAL_LEARNERS``), then the regret curve, the
    comparator, the learner's bound and scalar extras.  Depends on its arguments only,
    so the same in any process."""
    rng = np.random.default_rng([seed, index])
    if own_params is None:
        learner = _make_adversarial(name, n, seed)
    else:                      # a learner of your own (--learners), with a -p grid point
        from okl.learners import build

        learner = build(name, own_params, kernel=Gaussian(SIGMA), seed=seed)
    start = time.perf_counter()
    Xs, ys, preds, regret = greedy_adversary(learner, n, d, rng, n_starts=n_starts,
                                             n_candidates=n_candidates)
    seconds = time.perf_counter() - start
    K = gaussian_gram(Xs)
    comp = kernel_ridge_comparator(K, ys, LAM)
    B = 1.0
    bound = None
    if name == "Kernel-AWV":
        bound = {"name": "Proposition 1",
                 "value": proposition1_bound(LAM, comp.norm2, B, K)}
    elif name.startswith("PKAWV"):
        M = int(name.split("=")[1])
        mu = taylor_mu(Xs, sigma=SIGMA, M=M, K=K)
        bound = {"name": "Theorem 3", "mu": mu,
                 "value": theorem3_bound(LAM, comp.norm2, B, log_det_term(K, LAM), mu, n)}
    extras = _scalar_extras(learner._extras())
    if name == "Pros-N-KONS":
        bound = _pros_n_kons_bound(learner, K, ys, comp, preds, extras)
    bound = None if bound is None else {k: (float(v) if isinstance(v, (float, np.floating))
                                            else v) for k, v in bound.items()}
    row = {"final_regret": float(regret[-1]), "regret": regret.tolist(),
           "comparator_norm2": float(comp.norm2), "bound": bound,
           "learner_repr": repr(learner), "extras": extras, "X": Xs.tolist(),
           "y": ys.tolist(), "predictions": preds.tolist()}
    if timing:
        row["adversary_seconds"] = float(seconds)
    return row


def _in_paper(name):
    """Whether game ``name`` is a column of the paper's figure (not okl's extra columns,
    nor a learner of your own)."""
    return name in ADVERSARIAL_LEARNERS and name not in NOT_IN_PAPER


def _holds(res):
    """Whether the final regret is within the run's bound (``None``: no bound, or a
    Pros-N-KONS bound whose conditions fail on the run)."""
    b = res["bound"]
    if b is None or ("eta_ok" in b and not (b["eta_ok"] and b["comparator_in_C"])):
        return None
    return bool(res["final_regret"] <= b["value"] + 1e-9)


class Adversarial(rn.Reproduction):
    """Appendix G / Figure 3 (module docstring): one run per learner."""

    name = "awv-adversarial"
    stem = "awv_adversarial"
    paper = ("Jezequel, Gaillard & Rudi, Efficient online learning with kernels for "
             "adversarial large scale problems, NeurIPS 2019")
    datasets = {"greedy adversary": {}}
    quick_datasets = ("greedy adversary",)
    permutations = 1
    quick_permutations = 1
    metric = "final regret"
    percent = False
    floor = 0.0
    columns = (("bound", "bound_value", ".4g"), ("of", "bound_name", ""),
               ("within", "within_bound", lambda v: "yes" if v else "NO"),
               ("||f*||^2", "comparator_norm2", ".4g"), ("mu", "mu", ".3g"),
               ("restarts", "restarts", "d"), ("dictionary", "dictionary_size", "d"),
               ("seconds", "adversary_seconds", ".1f"))
    notes = ("Figure 3 gives no numbers: okl's regret against the kernel ridge comparator "
             "after the last round, the learner's bound at f = f*_n (Proposition 1: "
             "Kernel-AWV; Theorem 3 with the measured mu: PKAWV; "
             "theory.kons.pros_n_kons_regret_bound: Pros-N-KONS, 'within' left blank where "
             "its conditions fail on the run) and whether the regret is within it; the "
             "curves are in awv_adversarial.png and every round in "
             "awv_adversarial_rounds.csv.",)

    def __init__(self):
        self.games = {}

    def floor_text(self):
        return "no paper figures"

    def sizes(self, options):
        """``(n, n_starts, n_candidates)``, read when the runs are made (so that workers
        get the parent's values)."""
        return ((QUICK_ADVERSARIAL_N, QUICK_N_STARTS) if options.quick
                else (ADVERSARIAL_N, N_STARTS)) + (N_CANDIDATES,)

    def prepare(self, dataset, options):
        n, n_starts, n_candidates = self.sizes(options)
        d = ADVERSARIAL_D
        return rn.Prepared(
            dataset, np.zeros((0, d)), np.zeros(0), "generated",
            f"(x_t, y_t) in [-1, 1]^{d} x [-1, 1] chosen greedily against each learner",
            (f"each round maximizes the regret against kernel ridge (lambda = {LAM:g}) over "
             f"y_t in {{-1, 1}} and x_t by L-BFGS-B from the best of {n_candidates} random "
             f"candidates and {n_starts - 1} random start(s)",),
            settings={"n": n, "d": d, "sigma": SIGMA, "lambda": LAM})

    def format_header(self, data, options):
        lines = rn.Reproduction.format_header(self, data, options).split("\n")
        lines[0] = (f"{data.name} [generated: {data.description}; "
                    + ", ".join(f"{k} = {v:g}" for k, v in data.settings.items()) + "]")
        return "\n".join(lines)

    def protocol(self):
        return {"lam": LAM, "sigma": SIGMA, "kors": KORS, "kons": KONS,
                "sketched_gamma": SKETCHED_GAMMA, "fogd_D": FOGD_D,
                "not_in_paper": list(NOT_IN_PAPER)}

    table_learners = ADVERSARIAL_LEARNERS
    specs = ADVERSARIAL_SPECS
    own_task = "regression"

    def own_reason(self, entry):
        if entry is not None and entry.task not in ("regression", "both"):
            return (f"the adversary of Appendix G plays the square loss against a "
                    f"forecaster; {entry.name} is a {entry.task} learner")
        return None

    def _names(self, options):
        return self.split_learners(options)[0]

    def runs(self, data, options, results):
        n, n_starts, n_candidates = self.sizes(options)
        sizes = {"n": n, "n_starts": n_starts, "n_candidates": n_candidates}
        common = dict(seed=options.seed, n=n, d=ADVERSARIAL_D, n_starts=n_starts,
                      n_candidates=n_candidates, timing=options.timing)
        runs = [rn.Run({"dataset": data.name, "learner": name, **sizes}, adversarial_run,
                       dict(common, name=name, index=ADVERSARIAL_LEARNERS.index(name)))
                for name in self._names(options)]
        # a learner of your own: one game per point of its -p grid, each with an
        # adversary seeded after the paper's columns'
        index = len(ADVERSARIAL_LEARNERS)
        for name in self.own_learners(options)[0]:
            for point in rn.own_grid(name, dict(options.params or ())):
                runs.append(rn.Run({"dataset": data.name, "learner": name, "params": point,
                                    **sizes}, adversarial_run,
                                   dict(common, name=name, index=index, own_params=point)))
                index += 1
        return runs

    def rows(self, data, runs, results, options):
        rows = []
        for run in runs:
            name, res = run.label["learner"], results[run.key]
            if run.label.get("params"):
                name = f"{name} ({rn.params_text(run.label['params'])})"
            self.games[name] = res
            b = res["bound"] or {}
            row = dict(dataset=data.name, learner=name, status="ok", okl=res["final_regret"],
                       okl_std=None, paper=None, paper_std=None,
                       in_paper=_in_paper(name), bound_name=b.get("name"),
                       bound_value=b.get("value"), within_bound=_holds(res), mu=b.get("mu"),
                       comparator_norm2=res["comparator_norm2"], extras=res["extras"],
                       learner_repr=res["learner_repr"])
            for key in ("eta_ok", "comparator_in_C"):
                if key in b:
                    row[key] = b[key]
            for key in ("dictionary_size", "restarts"):
                if key in res["extras"]:
                    row[key] = res["extras"][key]
            if "adversary_seconds" in res:
                row["adversary_seconds"] = res["adversary_seconds"]
            rows.append(row)
        return rows, []

    def figures(self, rows, datas, stem):
        """The regret curves (``awv_adversarial.png``/``.svg``, Figure 3) and every
        round of every game (``awv_adversarial_rounds.csv``)."""
        out = Path(stem).parent
        lines = []
        for name, res in self.games.items():
            for t, (x, yt, p, r) in enumerate(zip(res["X"], res["y"], res["predictions"],
                                                  res["regret"])):
                lines.append([name, t + 1, *x, yt, p, (yt - p) ** 2, r])
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["learner", "t"] + [f"x{j + 1}" for j in range(ADVERSARIAL_D)]
                   + ["y", "prediction", "loss", "regret"])
        w.writerows(lines)
        path = out / "awv_adversarial_rounds.csv"
        executor.atomic_write(path, buf.getvalue())
        n = len(next(iter(self.games.values()))["regret"]) if self.games else 0
        files = _plot_adversarial({k: {**v, "in_paper": _in_paper(k)}
                                   for k, v in self.games.items()}, n, out / "awv_adversarial")
        return list(files or []) + [path]


@register("awv-adversarial", paper="awv", own_learners=True)
def awv_adversarial(out_dir, quick=False, seed=0, learners=None, *, params=None, n_jobs=1,
                    scheduler=None, resume=False, progress=False, timing=True,
                    verbose=True) -> dict:
    """Appendix G / Figure 3: greedy adversarial regret of Kernel-AWV, PKAWV, FOGD and
    Pros-N-KONS.

    Also okl's columns ``NOT_IN_PAPER`` (see the module docstring).  Each learner's game
    is one run of :func:`okl.experiments.runner.reproduce` (``n_jobs``, ``scheduler``,
    ``resume``, ``progress``, ``timing``, ``verbose`` are its options): the games run in
    parallel, each is journaled as it finishes, and the results do not depend on
    ``n_jobs`` or on a resume.

    ``learners``: only these of ``ADVERSARIAL_LEARNERS`` (each keeps the adversary's seed
    it has in the whole run), by column name (``Kernel-AWV``) or learner (``KernelAWV``);
    a regression learner of your own (``module:Class``, with ``params`` its ``-p`` grid)
    plays the same game as a starred column.

    Returns the runner's summary (also ``awv_adversarial.json``) with the game's settings
    and ``runs``: per learner its regret curve, final regret, comparator norm, bound,
    extras and whether it is in the paper's figure.
    """
    if learners is not None:
        learners = [learners] if isinstance(learners, str) else list(learners)
    rep = Adversarial()
    summary = rn.reproduce(rep, out_dir, quick=quick, seed=seed, learners=learners,
                           params=params, n_jobs=n_jobs, scheduler=scheduler, resume=resume,
                           progress=progress, timing=timing, verbose=verbose)
    n, n_starts, n_candidates = rep.sizes(rep.options(quick, seed, None, None, timing,
                                                      learners))
    runs = {}
    for name, res in rep.games.items():
        runs[name] = {"regret": res["regret"], "final_regret": res["final_regret"],
                      "comparator_norm2": res["comparator_norm2"], "bound": res["bound"]}
        if "adversary_seconds" in res:
            runs[name]["adversary_seconds"] = res["adversary_seconds"]
        runs[name].update(learner=res["learner_repr"], in_paper=_in_paper(name),
                          extras=res["extras"])
    summary = rn._json_safe({
        **summary, "experiment": "awv-adversarial", "n": n, "d": ADVERSARIAL_D,
        "sigma": SIGMA, "lam": LAM, "fogd_D": FOGD_D, "fogd_eta": 1.0 / math.sqrt(n),
        "n_starts": n_starts, "n_candidates": n_candidates, "kors": KORS, "kons": KONS,
        "sketched_gamma": SKETCHED_GAMMA, "runs": runs,
        "not_in_paper": [x for x in runs if not _in_paper(x)],
        "not_implemented": list(NOT_IMPLEMENTED)})
    executor.atomic_write(Path(out_dir) / "awv_adversarial.json", json.dumps(summary, indent=1))
    return summary


def _pros_n_kons_bound(learner, K, y, comp, preds, extras):
    """``theory.kons.pros_n_kons_regret_bound`` at ``f = f*_n`` on the adversary's stream,
    with the conditions it needs (``|P_j f(x_t)| <= C``, ``eta <= theory.kons.max_eta``)
    checked on the run: the bound is proved only where both hold."""
    from theory.kons import max_eta, pros_n_kons_comparator_terms, pros_n_kons_regret_bound

    terms = pros_n_kons_comparator_terms(K, y, comp.coef, learner.dictionary_rounds - 1)
    return {"name": "theory.kons.pros_n_kons_regret_bound",
            "value": pros_n_kons_regret_bound(KONS["alpha"], terms, extras["sum_leverage"]),
            "comparator_in_C": bool(np.all(np.abs(terms.projected_values)
                                           <= KONS["C"] + 1e-12)),
            "eta_ok": bool(KONS["eta"] <= max_eta(preds, y))}


def _plot_adversarial(runs, n, stem):
    from okl.plotting import _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    t = np.arange(1, n + 1)
    for name, run in runs.items():
        extra = not run.get("in_paper", True)
        ax.plot(t, run["regret"], label=name + (" *" if extra else ""),
                linestyle="--" if extra else "-")
    ax.set_xlabel("n")
    ax.set_ylabel("regret against kernel ridge")
    ax.set_title(f"Greedy adversary, d = {ADVERSARIAL_D} (Fig. 3; * not in the paper's)")
    ax.legend(fontsize=7)
    return save_figure(fig, stem)


# -- large scale ---------------------------------------------------------------------------

#: the paper's datasets: task, dimension, size, kernel width, figure
LARGE_SCALE_DATASETS = {
    "cod-rna": dict(task="classification", d=8, n=271_617, sigma=1.0, figure="2"),
    "SUSY": dict(task="classification", d=18, n=5_000_000, sigma=4.0, figure="2"),
    "casp": dict(task="regression", d=9, n=45_730, sigma=1.0, figure="4"),
    "ijcnn1": dict(task="classification", d=22, n=141_691, sigma=1.0, figure="4"),
}
SUSY_ROWS = 1_000_000
STAND_IN_ROUNDS = 50_000
QUICK_ROUNDS = 1_500
TIME_BUDGET = 300.0
QUICK_TIME_BUDGET = 2.0
MAX_TAYLOR_FEATURES = 1_500
QUICK_MAX_TAYLOR_FEATURES = 400
TAYLOR_M = (2, 3, 4)
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
    ``[-1, 1]``, both by min-max over the data (Section 4; what ``paper_data(name,
    "awv")`` declares for the paper's files, applied here to the stand-ins)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    X = np.where(hi > lo, 2.0 * (X - lo) / span - 1.0, 0.0)
    y = np.asarray(y, dtype=float)
    if task == "regression":
        ylo, yhi = y.min(), y.max()
        y = 2.0 * (y - ylo) / (yhi - ylo) - 1.0 if yhi > ylo else np.zeros_like(y)
    return X, y


def load_large_scale(name, *, quick=False, seed=0) -> rn.Prepared:
    """Dataset ``name`` through ``okl.datasets.paper_data(name, "awv")`` (SUSY: a
    uniform draw of ``SUSY_ROWS`` rows; ``quick``: of ``QUICK_ROUNDS``), else the scaled
    stand-in; ``X`` dense, not permuted."""
    spec = LARGE_SCALE_DATASETS[name]
    cap = QUICK_ROUNDS if quick else (SUSY_ROWS if name == "SUSY" else None)
    n_stand = QUICK_ROUNDS if quick else min(spec["n"], STAND_IN_ROUNDS)

    def made():
        X, y = scale_data(*stand_in(name, n_stand), spec["task"])
        return X, y, f"generated stand-in ({n_stand} x {spec['d']}), {spec['task']}"

    data = rn.paper_dataset(name, "awv", n_rows=cap, seed=seed, stand_in=made,
                            task=spec["task"], sigma=spec["sigma"], figure=spec["figure"])
    if data.X is not None:
        data.X = np.ascontiguousarray(data.X.toarray() if sp.issparse(data.X) else data.X,
                                      dtype=float)
    return data


#: Figure 2's columns (every forecaster ``krr``: the forecast before the label is seen)
LARGE_SCALE_SPECS = {
    "KRR": rn.LearnerSpec("KernelAWV", {"lam": LAM, "forecaster": "krr"}),
    **{f"PKAWV taylor M={M}": rn.LearnerSpec("PKAWV", {"basis": "taylor", "M": M, "lam": LAM,
                                                       "forecaster": "krr"})
       for M in TAYLOR_M},
    "PKAWV nystrom": rn.LearnerSpec("PKAWV", {"basis": "nystrom", "lam": LAM,
                                              "forecaster": "krr", **KORS}),
    "FOGD": rn.LearnerSpec("FOGD", {"D": FOGD_D, "loss": "squared"}, derive=_fogd_eta),
    **KONS_SPECS,
}


def large_scale_learners(d, sigma, n, *, quick=False, seed=0):
    """``{name: factory or reason}``: a zero-argument factory building the column's learner
    of :data:`LARGE_SCALE_SPECS`, or a string saying why the learner is not run.  ``seed``
    seeds FOGD's frequencies and KORS' draws."""
    k = Gaussian(sigma)
    cap = QUICK_MAX_TAYLOR_FEATURES if quick else MAX_TAYLOR_FEATURES
    out = {}
    for name, spec in LARGE_SCALE_SPECS.items():
        M = spec.fixed.get("M")
        if spec.fixed.get("basis") == "taylor" and math.comb(M + d, d) > cap:
            r = math.comb(M + d, d)
            out[name] = f"skipped: r = C({M}+{d}, {d}) = {r} > {cap} features"
        elif spec.fixed.get("basis") == "nystrom" and not nystrom_available():
            out[name] = "not available: okl.learners.awv_nystrom is missing"
        else:
            out[name] = (lambda spec=spec: rn.build_learner(spec, {}, kernel=k, seed=seed,
                                                            settings={"n": n}))
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


def _scalar_extras(extras):
    return {k: (float(v) if isinstance(v, (float, np.floating)) else int(v))
            for k, v in extras.items() if isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, bool)}


def _run_timed(make, X, y, task, budget):
    learner = make()
    scores = np.zeros(len(y))
    done, seconds, points, extras = 0, 0.0, [], {}
    for c in _checkpoints(len(y)):
        tr = learner.run(X[done:c], y[done:c])
        extras = _scalar_extras(tr.extras)        # accumulated over the learner's life
        scores[done:c] = tr.scores
        seconds += tr.seconds
        done = c
        points.append({"n": c, "average_loss": float(np.mean(_average_loss(y[:c], scores[:c],
                                                                           task))),
                       "seconds": seconds})
        if seconds > budget:
            break
    return points, repr(learner), extras


def large_scale_run(X, y, *, name, task, sigma, quick, budget, seed, index, n_rounds=None,
                    timing=True):
    """Learner ``name`` of ``large_scale_learners`` on the dataset's random order, timed
    chunk by chunk (``_run_timed``): the checkpoints and the last one's average loss."""
    order, learner_seed = rn.stream_order(seed, index, 0, X.shape[0], n_rounds)
    Xp, yp = np.ascontiguousarray(X[order]), y[order]
    make = large_scale_learners(Xp.shape[1], sigma, Xp.shape[0], quick=quick,
                                seed=learner_seed)[name]
    points, desc, extras = _run_timed(make, Xp, yp, task, budget)
    return {"value": points[-1]["average_loss"], "n": points[-1]["n"],
            "seconds": points[-1]["seconds"], "points": points, "description": desc,
            "extras": extras}


class LargeScale(rn.Reproduction):
    """Figures 2 and 4 (module docstring)."""

    name = "awv-large-scale"
    stem = "awv_large_scale"
    paper = ("Jezequel, Gaillard & Rudi, Efficient online learning with kernels for "
             "adversarial large scale problems, NeurIPS 2019")
    datasets = LARGE_SCALE_DATASETS
    quick_datasets = tuple(LARGE_SCALE_DATASETS)
    permutations = 1
    quick_permutations = 1
    columns = (("n reached", "n", "d"), ("seconds", "seconds", ".2f"),
               ("dictionary", "dictionary_size", "d"), ("restarts", "restarts", "d"))
    notes = ("Figures 2 and 4 give no numbers: okl's final average loss (error for "
             "classification, square loss for regression) after the time budget, with the n "
             "reached; the curves are in awv_large_scale_DATASET.png and the checkpoints in "
             "awv_large_scale_points.csv.  dictionary: KORS' points (PKAWV nystrom, "
             "Pros-N-KONS) or the sketch's gradients (Sketched-KONS); restarts: "
             "Pros-N-KONS' (one per point joining KORS).",)

    def metric_of(self, data):
        return (("error", True, 0.01) if data.task == "classification"
                else ("square loss", False, 0.0))

    def floor_text(self):
        return "no paper figures"

    def prepare(self, dataset, options):
        return load_large_scale(dataset, quick=options.quick, seed=options.seed)

    def budget(self, options):
        return QUICK_TIME_BUDGET if options.quick else TIME_BUDGET

    def protocol(self):
        return {"lam": LAM, "kors": KORS, "kons": KONS, "sketched_gamma": SKETCHED_GAMMA,
                "not_in_paper": list(NOT_IN_PAPER), "fogd_D": FOGD_D, "time_budget": TIME_BUDGET,
                "quick_time_budget": QUICK_TIME_BUDGET, "susy_rows": SUSY_ROWS,
                "max_taylor_features": MAX_TAYLOR_FEATURES}

    table_learners = tuple(LARGE_SCALE_SPECS)
    specs = LARGE_SCALE_SPECS

    def _learners(self, data, options):
        table = large_scale_learners(data.d, data.settings["sigma"],
                                     data.info(options.n_rounds)["n_rounds"],
                                     quick=options.quick)
        chosen = self.split_learners(options)[0]
        return {k: v for k, v in table.items() if k in chosen}

    def runs(self, data, options, results):
        return [rn.Run({"dataset": data.name, "learner": name}, large_scale_run,
                       dict(name=name, task=data.task, sigma=data.settings["sigma"],
                            quick=options.quick, budget=self.budget(options),
                            seed=options.seed, index=data.index, n_rounds=options.n_rounds))
                for name, make in self._learners(data, options).items()
                if not isinstance(make, str)]

    def rows(self, data, runs, results, options):
        rows = []
        done = {r.label["learner"]: results[r.key] for r in runs}
        for name, make in self._learners(data, options).items():
            row = dict(dataset=data.name, learner=name, status="ok", okl=None, okl_std=None,
                       paper=None, paper_std=None, in_paper=name not in NOT_IN_PAPER)
            if isinstance(make, str):
                row["status"] = make
            elif data.X is None:
                row["status"] = "no data"
            else:
                res = done[name]
                row.update(okl=res["value"], n=res["n"], seconds=res["seconds"],
                           points=res["points"], learner_repr=res["description"],
                           extras=res.get("extras", {}))
                for key in ("dictionary_size", "restarts"):
                    if key in row["extras"]:
                        row[key] = row["extras"][key]
            rows.append(row)
        return rows, []

    def figures(self, rows, datas, stem):
        """The paper's curves per dataset (``awv_large_scale_NAME.png``) and every
        checkpoint in ``awv_large_scale_points.csv``."""
        out = Path(stem).parent
        files, lines = [], []
        for ds, data in datas.items():
            mine = [r for r in rows if r["dataset"] == ds and r.get("points")]
            info = {"source": data.source, "task": data.task, "d": data.d,
                    "figure": data.settings.get("figure"),
                    "results": {r["learner"]: {"points": r["points"]} for r in mine}}
            files += _plot_large_scale(ds, info, out / f"awv_large_scale_{ds}")
            lines += [[ds, data.source, r["learner"], p["n"], p["average_loss"], p["seconds"]]
                      for r in mine for p in r["points"]]
        path = out / "awv_large_scale_points.csv"
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["dataset", "source", "learner", "n", "average_loss", "seconds"])
            w.writerows(lines)
        return files + [path]


@register("awv-large-scale", paper="awv")
def awv_large_scale(out_dir, quick=False, seed=0, **options) -> dict:
    """Figures 2 and 4: average loss and time against ``n`` (see the module docstring).

    ``options`` are :func:`okl.experiments.runner.reproduce`'s.
    """
    return rn.reproduce(LargeScale(), out_dir, quick=quick, seed=seed, **options)


def _plot_large_scale(name, info, stem):
    from okl.plotting import _pyplot

    plt = _pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for lname, res in info["results"].items():
        ns = [p["n"] for p in res["points"]]
        style = dict(marker=".", label=lname + (" *" if lname in NOT_IN_PAPER else ""),
                     linestyle="--" if lname in NOT_IN_PAPER else "-")
        a1.plot(ns, [p["average_loss"] for p in res["points"]], **style)
        a2.plot(ns, [max(p["seconds"], 1e-6) for p in res["points"]], **style)
    tag = " (stand-in)" if info["source"] == "stand-in" else ""
    loss = "classification error" if info["task"] == "classification" else "square loss"
    a1.set_xscale("log")
    a1.set_xlabel("n")
    a1.set_ylabel(f"average {loss}")
    a1.set_title(f"{name}{tag}, d = {info['d']} (Fig. {info['figure']}; "
                 f"* not in the paper's)")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("n")
    a2.set_ylabel("seconds")
    if info["results"]:
        a1.legend(fontsize=7)
    return save_figure(fig, stem)
