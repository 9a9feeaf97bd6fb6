"""Sec. "Experiments" (and the supplementary "More Experiments") of Li & Liao, *Improved
Kernel Alignment Regret Bound for Online Kernel Learning* (AAAI 2023).

``pomdr-table2``: average mistake ratio (AMR, mean +- std over 10 random permutations)
and running time of POMDR against FOGD and NOGD (Lu et al., JMLR 2016) with the paper's
budgets and parameters (Tables 2 and 4).  SkeGD and B(AO)2KS are listed with the
paper's numbers and marked "not implemented".

``pomdr-table3``: for each dataset and each kernel width of Tables 3 and 5, POMDR's AMR,
the kernel alignment ``A_T`` (``theory.kernel_alignment``, exact), the proxy
``sum_t delta_t`` (``Trace.extras["sum_delta"]``) and ``t_bar``.  The paper's row
labelled ``A_T`` is, by its own text, ``sum delta`` ("we use sum delta as a proxy of A_T
and show it in Table 3"): it is printed beside our ``sum delta``.

Data
----
The paper's datasets (``PAPER_DATASETS``): w8a, magic04, mushrooms and, in the
supplementary, mnist12, a9a, SUSY, ijcnn1.  Each is looked up, nothing downloaded:

1. in the data directory of ``okl.datasets`` (``$OKL_DATA``, default
   ``~/.cache/okl``; ``okl.datasets.fetch_file(name)`` downloads) under its published
   names: a9a = ``a9a`` + ``a9a.t`` (48,842 rows), ijcnn1 = ``ijcnn1`` + ``ijcnn1.t``
   (141,691), SUSY: 50,000 rows drawn uniformly from the file (the paper's "uniformly
   selecting 50,000 instances"), magic04 (UCI csv), mushrooms, w8a;
2. else, for the datasets the Ahpatron reproduction knows, under the other file names
   it accepts (``okl.experiments.ahpatron.find_data``, same directory);
3. else a generated *stand-in* of the same dimension and feature type (marked as such
   in every output; its numbers are not the paper's).  mnist12 (MNIST digits 1 and 2)
   has no loader and no stand-in: it is listed as "no data" with the paper's numbers.

Protocol (the paper's "Experimental Setups")
--------------------------------------------
Gaussian kernel ``exp(-||x - v||^2 / (2 sigma^2))`` with the ``sigma`` of each table
header (the paper tunes ``sigma`` over ``2^{-2..6}`` and reports the chosen one; we use
the reported one, not the search).  10 random permutations (``numpy.random.
default_rng([seed, index])``), all learners on the same ones; the seed of each
permutation also seeds FOGD's frequencies.  Selection "in hindsight": the grid point
with the smallest mean AMR over the same permutations.

* POMDR: ``B = 400``, ``B0 = ceil(15 ln T)``, ``M = 15``, ``U = 25``, the ALD threshold
  ``10 T^-zeta`` (``ald_scale = 10``) with the table's ``zeta``, and the learning-rate
  constant ``c`` best of ``{0.05, 0.1}``.
* FOGD: ``D = 400`` random frequencies (``2 D`` features), step best of
  ``10^{-3..3} / sqrt(T)`` (the paper: "we tune the stepsize of gradient descent from
  10^[-3:1:3]/sqrt(T)"); hinge loss.
* NOGD: budget ``B = 400``, rank ``k = 0.2 B = 80`` ("the other parameters ... follow
  the original papers": the JMLR paper's ``k = 0.2 B``), the same step grid.

Table 3: POMDR at each ``sigma`` with the dataset's ``zeta`` and ``c`` best of
``{0.05, 0.1}`` at that ``sigma``; ``A_T`` on the (unpermuted) stream, which it does not
depend on, of the first permutation (the whole dataset unless ``n_rounds`` truncates it); ``sum delta`` and AMR averaged over the permutations; ``t_bar`` their median
(``inf``: ``|S|`` never reached ``B0``, POMD only).
"""
from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import theory
from okl.experiments import ahpatron as _ahp
from okl.datasets import fetch
from okl.experiments import register, table_setup
from okl.kernels import Gaussian
from okl.learners.features import FOGD, NOGD
from okl.learners.pomdr import POMDR

__all__ = ["pomdr_table2", "pomdr_table3", "PAPER_DATASETS", "PAPER_TABLE2", "PAPER_TABLE3",
           "TABLE2_LEARNERS", "NOT_IMPLEMENTED", "POMDR_C", "STEP_EXPONENTS", "FOGD_D",
           "BUDGET", "NOGD_RANK", "learner_grid", "make_learner", "load", "stand_in",
           "kernel_alignment_of"]

# ----------------------------------------------------------------------------
# What the paper says
# ----------------------------------------------------------------------------

# size, features, Table 2/4 header (sigma, zeta), Table 3/5 widths; main text or supplementary
PAPER_DATASETS = {
    "magic04": dict(n=19_020, d=10, sigma=0.5, zeta=2 / 3, sigmas=(0.5, 4.0), part="main"),
    "w8a": dict(n=49_749, d=300, sigma=4.0, zeta=0.5, sigmas=(4.0, 64.0), part="main"),
    "mushrooms": dict(n=8_124, d=112, sigma=2.0, zeta=2 / 3, sigmas=(0.5, 2.0), part="main"),
    "mnist12": dict(n=12_700, d=780, sigma=4.0, zeta=2 / 3, sigmas=(0.5, 4.0), part="supp"),
    "a9a": dict(n=48_842, d=123, sigma=4.0, zeta=0.5, sigmas=(4.0, 32.0), part="supp"),
    "ijcnn1": dict(n=141_691, d=22, sigma=4.0, zeta=2 / 3, sigmas=(), part="supp"),
    "SUSY": dict(n=50_000, d=18, sigma=4.0, zeta=2 / 3, sigmas=(4.0, 32.0), part="supp"),
}

# Tables 2 and 4: (AMR %, std %, time s, time std s); every budget / D is 400.
PAPER_TABLE2 = {
    "magic04": {"FOGD": (16.88, 0.15, 0.74, 0.01), "NOGD": (17.31, 0.20, 1.57, 0.08),
                "SkeGD": (24.17, 0.95, 1.07, 0.06), "B(AO)2KS": (22.04, 0.43, 0.95, 0.05),
                "POMDR": (16.17, 0.21, 0.91, 0.07)},
    "w8a": {"FOGD": (2.25, 0.04, 8.29, 0.05), "NOGD": (2.89, 0.09, 23.65, 0.17),
            "SkeGD": (3.04, 0.01, 10.72, 0.15), "B(AO)2KS": (2.91, 0.02, 14.08, 0.70),
            "POMDR": (2.12, 0.06, 18.36, 0.11)},
    "mushrooms": {"FOGD": (0.31, 0.03, 0.70, 0.02), "NOGD": (1.71, 0.33, 1.87, 0.13),
                  "SkeGD": (0.26, 0.02, 0.51, 0.03), "B(AO)2KS": (1.67, 0.25, 0.76, 0.05),
                  "POMDR": (0.21, 0.03, 0.44, 0.03)},
    "mnist12": {"FOGD": (0.94, 0.08, 4.85, 0.04), "NOGD": (1.89, 0.22, 15.50, 0.09),
                "SkeGD": (0.60, 0.04, 19.26, 0.81), "B(AO)2KS": (1.41, 0.12, 8.34, 0.72),
                "POMDR": (0.53, 0.04, 9.85, 0.34)},
    "a9a": {"FOGD": (16.39, 0.07, 4.47, 0.03), "NOGD": (16.53, 0.10, 9.95, 0.18),
            "SkeGD": (17.31, 0.21, 4.88, 0.03), "B(AO)2KS": (20.65, 0.26, 6.16, 0.08),
            "POMDR": (16.25, 0.09, 9.53, 0.05)},
    "ijcnn1": {"FOGD": (8.51, 0.06, 6.14, 0.14), "NOGD": (8.53, 0.03, 12.63, 0.31),
               "SkeGD": (9.76, 0.05, 7.58, 0.26), "B(AO)2KS": (9.58, 0.00, 7.12, 0.35),
               "POMDR": (8.69, 0.07, 8.37, 0.08)},
    "SUSY": {"FOGD": (22.16, 0.12, 2.21, 0.09), "NOGD": (22.31, 0.13, 4.79, 0.28),
             "SkeGD": (27.47, 0.88, 2.46, 0.03), "B(AO)2KS": (30.71, 0.20, 3.29, 0.34),
             "POMDR": (21.81, 0.07, 3.17, 0.34)},
}

# Tables 3 and 5: sigma -> (AMR %, the row "A_T" = sum delta, t_bar)
PAPER_TABLE3 = {
    "magic04": {0.5: (16.17, 6385, 469), 4.0: (23.26, 10337, math.inf)},
    "w8a": {4.0: (2.12, 2594, 3582), 64.0: (3.12, 4256, math.inf)},
    "mushrooms": {0.5: (0.83, 8122, 135), 2.0: (0.21, 68, math.inf)},
    "mnist12": {0.5: (2.43, 12698, 142), 4.0: (0.53, 376, 3228)},
    "a9a": {4.0: (16.25, 15405, 529), 32.0: (21.17, 26801, math.inf)},
    "SUSY": {4.0: (21.81, 22378, 361), 32.0: (29.45, 39468, math.inf)},
}

TABLE2_LEARNERS = ("FOGD", "NOGD", "SkeGD", "B(AO)2KS", "POMDR")
NOT_IMPLEMENTED = ("SkeGD", "B(AO)2KS")
BUDGET = 400            # B of POMDR and NOGD, D of FOGD
FOGD_D = 400
NOGD_RANK = 80          # k = 0.2 B
POMDR_C = (0.05, 0.1)
STEP_EXPONENTS = (-3, -2, -1, 0, 1, 2, 3)
POMDR_FIXED = dict(U=25.0, M=15, ald_scale=10.0)

N_PERMUTATIONS = 10
QUICK_PERMUTATIONS = 2
QUICK_ROUNDS = 1500
QUICK_DATASETS = ("magic04", "mushrooms")
# A_T: theory.kernel_alignment on the T x T matrix up to this T, blocks of rows beyond
ALIGNMENT_EXACT_MAX = 6000
_ALIGNMENT_BLOCK = 2000

# ----------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------

# okl.datasets.fetch names whose concatenation is the paper's dataset
_FETCH_PARTS = {"magic04": ("magic04",), "w8a": ("w8a",), "mushrooms": ("mushrooms",),
                "a9a": ("a9a", "a9a.t"), "ijcnn1": ("ijcnn1", "ijcnn1.t"), "SUSY": ("SUSY",)}
_SUSY_ROWS = 50_000

STAND_IN_ROUNDS = {"magic04": 10_000, "mushrooms": 8_124, "w8a": 10_000, "a9a": 10_000,
                   "ijcnn1": 10_000, "SUSY": 10_000}
_STAND_IN_SEED = 2023
_MUSHROOM_LEVELS = [6, 4, 7, 2, 9, 4, 3, 2, 12, 2, 5, 4, 4, 9, 9, 1, 4, 3, 5, 9, 6, 2]  # 112


def stand_in(name: str, n: int | None = None):
    """A generated stand-in for dataset ``name``: ``(X, y, description)`` (not the data).

    magic04: 10 dense features (a smooth nonlinear rule, 65 % positive); mushrooms: the
    one-hot coding of 22 categorical attributes (112 columns), nearly separable, 52 %
    positive; w8a, a9a, ijcnn1, SUSY: the Ahpatron reproduction's stand-ins.  Fixed data
    (seeded by the dataset, not by the experiment's seed).
    """
    if name in ("w8a", "a9a", "ijcnn1", "SUSY"):
        return _ahp.stand_in(name, STAND_IN_ROUNDS[name] if n is None else n)
    if name not in ("magic04", "mushrooms"):
        raise ValueError(f"no stand-in for {name!r}")
    n = STAND_IN_ROUNDS[name] if n is None else int(n)
    rng = np.random.default_rng([_STAND_IN_SEED, list(PAPER_DATASETS).index(name)])
    if name == "magic04":
        X, y = _ahp._dense(n, 10, rng, pos_frac=0.65, noise=0.3,
                           rule=lambda z: np.tanh(z[:, 0]) + 0.6 * z[:, 1] * z[:, 2])
        text = "10 dense Gaussian features, smooth nonlinear rule, moderate noise; 65 % positive"
    else:
        X, y = _ahp._categorical(n, _MUSHROOM_LEVELS, rng, n_prototypes=60, resample=0.02,
                                 pos_frac=0.52, noise=0.01, n_interactions=2)
        text = ("112 binary features, one-hot of 22 categorical attributes drawn around 60 "
                "prototypes, nearly separable; 52 % positive")
    return X, y, f"generated stand-in ({n} x {X.shape[1]}): {text}"


def load(name: str, seed: int = 0):
    """``(X, y, info)`` of dataset ``name``: its file(s) if present (see the module
    docstring), else the stand-in, else ``None`` for ``X`` and ``y`` (mnist12)."""
    if name not in PAPER_DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {list(PAPER_DATASETS)}")
    paper = PAPER_DATASETS[name]
    rng = np.random.default_rng([seed, 11, list(PAPER_DATASETS).index(name)])
    X = y = None
    files = []
    parts = _FETCH_PARTS.get(name)
    if parts and all(fetch.available(p) for p in parts):
        files = [fetch.find(p)[0] for p in parts]
        if name == "SUSY":
            X, y = _ahp._load_libsvm_lines(_ahp._reservoir_lines(files, _SUSY_ROWS, rng))
        else:
            blocks = [fetch.load(p) for p in parts]
            X = _stack([b[0] for b in blocks], paper["d"])
            y = np.concatenate([b[1] for b in blocks])
    elif name in _ahp.DATA_FILES and _ahp.find_data(name) is not None:
        files = _ahp.find_data(name)
        X, y = _ahp.load_dataset(name, files, rng)
    if X is not None:
        X = _stack([X], paper["d"])
        info = dict(source="file", stand_in=False, files=[str(p) for p in files],
                    description=f"file(s) {', '.join(Path(p).name for p in files)} "
                                f"({X.shape[0]} x {X.shape[1]})")
    elif name in STAND_IN_ROUNDS:
        X, y, text = stand_in(name)
        info = dict(source="stand-in", stand_in=True, files=[], description=text)
    else:
        info = dict(source="none", stand_in=False, files=[],
                    description="no file and no stand-in (MNIST digits 1 and 2)")
    info.update(paper_n=paper["n"], paper_d=paper["d"], sigma=paper["sigma"],
                zeta=paper["zeta"], n_available=0 if X is None else int(X.shape[0]))
    return X, (None if y is None else np.asarray(y, dtype=float)), info


def _stack(blocks, d):
    """Row-stack, pad to at least ``d`` columns; dense when more than 30 % non-zero."""
    if all(isinstance(b, np.ndarray) for b in blocks) and len(blocks) == 1:
        X = blocks[0]
        return X if X.shape[1] >= d else np.hstack([X, np.zeros((X.shape[0], d - X.shape[1]))])
    width = max([d] + [b.shape[1] for b in blocks])
    mats = []
    for b in blocks:
        b = sp.csr_matrix(b)
        b.resize((b.shape[0], width))
        mats.append(b)
    X = sp.vstack(mats, format="csr")
    return X.toarray() if X.nnz > 0.3 * X.shape[0] * X.shape[1] else X


# ----------------------------------------------------------------------------
# Learners
# ----------------------------------------------------------------------------

def learner_grid(name: str, T: int) -> list[dict]:
    """The parameter grid of ``name`` on a stream of ``T`` rounds."""
    if name in ("FOGD", "NOGD"):
        return [dict(eta=10.0 ** k / math.sqrt(T)) for k in STEP_EXPONENTS]
    if name == "POMDR":
        return [dict(c=c) for c in POMDR_C]
    raise ValueError(f"no grid for {name!r}")


def make_learner(name: str, params: dict, *, sigma: float, zeta: float, seed=None):
    """A fresh ``name`` with the paper's fixed settings and ``params`` (the grid's)."""
    k = Gaussian(sigma)
    if name == "FOGD":
        return FOGD(k, D=FOGD_D, eta=params["eta"], seed=seed)
    if name == "NOGD":
        return NOGD(k, B=BUDGET, k=NOGD_RANK, eta=params["eta"], seed=seed)
    if name == "POMDR":
        return POMDR(k, B=BUDGET, zeta=zeta, c=params["c"], seed=seed, **POMDR_FIXED)
    raise ValueError(f"unknown or unimplemented learner {name!r}")


def _evaluate(name, params, streams, seeds, *, sigma, zeta):
    amr, seconds, budget, sum_delta, t_bar = [], [], [], [], []
    for (X, y), s in zip(streams, seeds):
        tr = make_learner(name, params, sigma=sigma, zeta=zeta, seed=s).run(X, y)
        amr.append(tr.mistake_rate)
        seconds.append(tr.seconds)
        budget.append(tr.max_budget)
        if name == "POMDR":
            sum_delta.append(float(tr.extras["sum_delta"]))
            t_bar.append(float(tr.extras["t_bar"]))
    out = dict(params=params, amr=amr, amr_mean=float(np.mean(amr)), amr_std=_ahp._std(amr),
               seconds=float(np.mean(seconds)), seconds_std=_ahp._std(seconds),
               budget=int(max(budget)))
    if sum_delta:
        out.update(sum_delta=sum_delta, sum_delta_mean=float(np.mean(sum_delta)),
                   t_bar=t_bar, t_bar_median=float(np.median(t_bar)))
    return out


def _tune(name, streams, seeds, *, sigma, zeta, T):
    grid = [_evaluate(name, p, streams, seeds, sigma=sigma, zeta=zeta)
            for p in learner_grid(name, T)]
    best = min(range(len(grid)), key=lambda i: grid[i]["amr_mean"])
    return best, grid


def kernel_alignment_of(kernel, X, y) -> float:
    """``A_T = sum_t k(x_t, x_t) - Y^T K Y / T`` of the stream (order-free).

    ``theory.kernel_alignment`` on the ``T x T`` Gram matrix when ``T <=
    ALIGNMENT_EXACT_MAX``; beyond, the same sum with ``Y^T K Y`` accumulated over blocks
    of rows (``K`` is never held whole).
    """
    y = np.asarray(y, dtype=float)
    T = y.shape[0]
    if T <= ALIGNMENT_EXACT_MAX:
        return float(theory.kernel_alignment(kernel(X), y))
    quad = 0.0
    for start in range(0, T, _ALIGNMENT_BLOCK):
        stop = min(T, start + _ALIGNMENT_BLOCK)
        quad += float(y[start:stop] @ (kernel(X[start:stop], X) @ y))
    diag = T * kernel.sup_diag      # k(x, x) = 1 for the Gaussian kernels used here
    return diag - quad / T


# ----------------------------------------------------------------------------
# Running and writing
# ----------------------------------------------------------------------------

_T2_FIELDS = ("dataset", "part", "source", "n_rounds", "n_features", "sigma", "zeta", "learner",
              "status", "params", "selection", "amr_mean", "amr_std", "seconds_mean",
              "seconds_std", "budget", "n_permutations", "paper_amr", "paper_amr_std",
              "paper_seconds", "paper_seconds_std", "paper_budget")
_T3_FIELDS = ("dataset", "source", "n_rounds", "sigma", "zeta", "status", "c", "amr_mean",
              "amr_std", "A_T", "sum_delta_mean", "t_bar_median", "t_bar_finite",
              "n_permutations", "paper_amr", "paper_sum_delta", "paper_t_bar")


def _setup(out_dir, quick, datasets, n_permutations, n_rounds):
    return table_setup(out_dir, quick, datasets, n_permutations, n_rounds,
                       known=PAPER_DATASETS, quick_datasets=QUICK_DATASETS,
                       permutations=N_PERMUTATIONS, quick_permutations=QUICK_PERMUTATIONS,
                       quick_rounds=QUICK_ROUNDS)


def _prepare(name, seed, n_permutations, n_rounds):
    X, y, info = load(name, seed)
    if X is None:
        info.update(n_rounds=0, n_features=PAPER_DATASETS[name]["d"])
        return None, None, info
    streams, seeds = _ahp._streams(X, y, seed=seed, index=list(PAPER_DATASETS).index(name),
                                   n_permutations=n_permutations, n_rounds=n_rounds)
    info.update(n_rounds=int(streams[0][0].shape[0]), n_features=int(X.shape[1]))
    return streams, seeds, info


def _write_csv(path, fields, rows):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in fields})


def _json_safe(obj):
    if isinstance(obj, float) and math.isinf(obj):
        return "inf"
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


def _pct(m, s):
    return "-" if m is None else f"{100 * m:6.2f} +- {100 * s:4.2f}"


def _tag(info):
    return {"file": "real data", "stand-in": "STAND-IN", "none": "NO DATA"}[info["source"]]


def _format_table2(rows, infos, datasets):
    lines = []
    for ds in datasets:
        info = infos[ds]
        lines.append(f"{ds}, sigma = {info['sigma']:g}, zeta = {info['zeta']:.3g} "
                     f"[{_tag(info)}: {info['description']}; {info['n_rounds']} rounds; "
                     f"paper: {info['paper_n']} x {info['paper_d']}]")
        lines.append(f"  {'algorithm':<9} {'B|D':>4} {'AMR (%)':>15} {'time (s)':>16}  "
                     f"{'paper AMR (%)':>15} {'paper time':>13}  selected")
        for r in (r for r in rows if r["dataset"] == ds):
            paper = _pct(r["paper_amr"], r["paper_amr_std"]) if r["paper_amr"] is not None \
                else "-"
            pt = "-" if r["paper_seconds"] is None else \
                f"{r['paper_seconds']:.2f} +- {r['paper_seconds_std']:.2f}"
            if r["status"] != "ok":
                lines.append(f"  {r['learner']:<9} {BUDGET:>4} {r['status']:>33}  {paper:>15} "
                             f"{pt:>13}")
                continue
            t = f"{r['seconds_mean']:.3f} +- {r['seconds_std']:.3f}"
            lines.append(f"  {r['learner']:<9} {r['budget']:>4} "
                         f"{_pct(r['amr_mean'], r['amr_std']):>15} {t:>16}  {paper:>15} "
                         f"{pt:>13}  {r['params']}")
        lines.append("")
    lines.append("AMR = mean +- std (ddof 1) over the permutations; B|D = max |S_t| (POMDR, "
                 "NOGD) or D (FOGD); time = mean seconds of one pass.  Paper: R, 2.8 GHz i7.")
    stand = [ds for ds in datasets if infos[ds]["stand_in"]]
    if stand:
        lines.append(f"STAND-INS (generated data, not the paper's; numbers not comparable): "
                     f"{', '.join(stand)}")
    return "\n".join(lines)


def _fmt_tbar(v):
    return "-" if v is None else ("inf" if math.isinf(v) else f"{v:g}")


def _format_table3(rows, infos):
    lines = [f"  {'dataset':<10} {'source':<9} {'T':>6} {'sigma':>6} {'c':>5} {'AMR (%)':>15} "
             f"{'A_T':>10} {'sum delta':>10} {'t_bar':>7} | {'paper AMR':>9} "
             f"{'paper sum delta':>15} {'paper t_bar':>11}"]
    for r in rows:
        if r["status"] != "ok":
            lines.append(f"  {r['dataset']:<10} {r['source']:<9} {'':>6} {r['sigma']:>6g} "
                         f"{r['status']:>52} | {r['paper_amr']!s:>9} "
                         f"{r['paper_sum_delta']!s:>15} {_fmt_tbar(r['paper_t_bar']):>11}")
            continue
        lines.append(f"  {r['dataset']:<10} {r['source']:<9} {r['n_rounds']:>6} "
                     f"{r['sigma']:>6g} {r['c']:>5g} {_pct(r['amr_mean'], r['amr_std']):>15} "
                     f"{r['A_T']:>10.1f} {r['sum_delta_mean']:>10.1f} "
                     f"{_fmt_tbar(r['t_bar_median']):>7} | "
                     f"{'-' if r['paper_amr'] is None else r['paper_amr']:>9} "
                     f"{'-' if r['paper_sum_delta'] is None else r['paper_sum_delta']:>15} "
                     f"{_fmt_tbar(r['paper_t_bar']):>11}")
    lines.append("A_T = sum k(x_t, x_t) - Y^T K Y / T (exact); sum delta and AMR: means over the "
                 "permutations; t_bar: their median (inf: POMD only).  The paper's row 'A_T' is "
                 "sum delta (its text).")
    stand = sorted({r["dataset"] for r in rows if infos[r["dataset"]]["stand_in"]})
    if stand:
        lines.append(f"STAND-INS (generated data, not the paper's): {', '.join(stand)}")
    return "\n".join(lines)


def _summary(table, rows, infos, datasets, detail, seed, quick, n_perm, text):
    stand = [ds for ds in datasets if infos[ds]["stand_in"]]
    return _json_safe({
        "table": table, "paper": "Li & Liao, Improved Kernel Alignment Regret Bound for "
        "Online Kernel Learning, AAAI 2023", "seed": seed, "quick": quick,
        "n_permutations": n_perm, "datasets": list(datasets), "stand_ins": stand,
        "no_data": [ds for ds in datasets if infos[ds]["source"] == "none"],
        "not_implemented": list(NOT_IMPLEMENTED) if table == "table2" else [],
        "protocol": {
            "kernel": "Gaussian, sigma of the table header",
            "POMDR": dict(B=BUDGET, B0="ceil(15 ln T)", c_grid=list(POMDR_C), **POMDR_FIXED),
            "FOGD": {"D": FOGD_D, "eta_grid": "10^k/sqrt(T), k = -3..3", "loss": "hinge"},
            "NOGD": {"B": BUDGET, "k": NOGD_RANK, "eta_grid": "10^k/sqrt(T), k = -3..3"},
            "selection": "smallest mean AMR over the same permutations (in hindsight)",
        },
        "rows": rows, "detail": detail, "text": text,
    })


@register("pomdr-table2")
def pomdr_table2(out_dir, quick: bool = False, seed: int = 0, *, datasets=None,
                 n_permutations=None, n_rounds=None, verbose: bool = True) -> dict:
    """Tables 2 and 4: AMR (mean +- std) and time of FOGD, NOGD and POMDR.

    ``quick``: magic04 and mushrooms (stand-ins unless their files are present), 2
    permutations of at most 1500 rounds.  Writes ``pomdr_table2.csv`` (one row per
    dataset and learner, the paper's numbers beside ours), ``pomdr_table2_grid.csv``
    (every grid point), ``pomdr_table2.json`` and ``pomdr_table2.txt``.
    """
    start = time.perf_counter()
    out_dir, datasets, n_perm, n_rounds = _setup(out_dir, quick, datasets, n_permutations,
                                                 n_rounds)
    rows, grid_rows, infos, detail = [], [], {}, {}
    for ds in datasets:
        streams, seeds, info = _prepare(ds, seed, n_perm, n_rounds)
        infos[ds] = info
        detail[ds] = {"info": info, "learners": {}}
        for name in TABLE2_LEARNERS:
            paper = PAPER_TABLE2[ds][name]
            row = dict(dataset=ds, part=PAPER_DATASETS[ds]["part"], source=info["source"],
                       n_rounds=info["n_rounds"], n_features=info["n_features"],
                       sigma=info["sigma"], zeta=info["zeta"], learner=name, status="ok",
                       params="", selection="", amr_mean=None, amr_std=None,
                       seconds_mean=None, seconds_std=None, budget=None,
                       n_permutations=n_perm, paper_amr=paper[0] / 100,
                       paper_amr_std=paper[1] / 100, paper_seconds=paper[2],
                       paper_seconds_std=paper[3], paper_budget=BUDGET)
            if name in NOT_IMPLEMENTED:
                row["status"] = "not implemented"
            elif streams is None:
                row["status"] = "no data"
            else:
                best, grid = _tune(name, streams, seeds, sigma=info["sigma"],
                                   zeta=info["zeta"], T=info["n_rounds"])
                sel = grid[best]
                row.update(params=_ahp._params_text(sel["params"]),
                           selection=f"best mean AMR of {len(grid)} grid points",
                           amr_mean=sel["amr_mean"], amr_std=sel["amr_std"],
                           seconds_mean=sel["seconds"], seconds_std=sel["seconds_std"],
                           budget=sel["budget"])
                for i, g in enumerate(grid):
                    grid_rows.append(dict(dataset=ds, learner=name,
                                          params=_ahp._params_text(g["params"]),
                                          selected=i == best, amr_mean=g["amr_mean"],
                                          amr_std=g["amr_std"], seconds_mean=g["seconds"],
                                          budget=g["budget"]))
                detail[ds]["learners"][name] = {"selected": sel["params"], "grid": grid}
            rows.append(row)
    text = _format_table2(rows, infos, datasets)
    stem = out_dir / "pomdr_table2"
    _write_csv(stem.with_suffix(".csv"), _T2_FIELDS, rows)
    grid_path = out_dir / "pomdr_table2_grid.csv"
    _write_csv(grid_path, ("dataset", "learner", "params", "selected", "amr_mean", "amr_std",
                           "seconds_mean", "budget"), grid_rows)
    stem.with_suffix(".txt").write_text(text + "\n")
    summary = _summary("table2", rows, infos, datasets, detail, seed, quick, n_perm, text)
    summary["files"] = [str(stem.with_suffix(s)) for s in (".csv", ".json", ".txt")] + \
        [str(grid_path)]
    summary["seconds"] = time.perf_counter() - start
    stem.with_suffix(".json").write_text(json.dumps(summary, indent=2))
    if verbose:
        print(text)
    return summary


@register("pomdr-table3")
def pomdr_table3(out_dir, quick: bool = False, seed: int = 0, *, datasets=None,
                 n_permutations=None, n_rounds=None, verbose: bool = True) -> dict:
    """Tables 3 and 5: POMDR's AMR, ``A_T``, ``sum delta`` and ``t_bar`` across ``sigma``.

    Same data, permutations and options as ``pomdr_table2``; datasets without widths in
    Tables 3/5 (ijcnn1) are skipped.  Writes ``pomdr_table3.csv``, ``.json``, ``.txt``.
    """
    start = time.perf_counter()
    out_dir, datasets, n_perm, n_rounds = _setup(out_dir, quick, datasets, n_permutations,
                                                 n_rounds)
    rows, infos, detail = [], {}, {}
    for ds in datasets:
        if not PAPER_DATASETS[ds]["sigmas"]:
            continue
        streams, seeds, info = _prepare(ds, seed, n_perm, n_rounds)
        infos[ds] = info
        detail[ds] = {"info": info, "sigmas": {}}
        X_full = None if streams is None else streams[0][0]
        y_full = None if streams is None else streams[0][1]
        for sigma in PAPER_DATASETS[ds]["sigmas"]:
            paper = PAPER_TABLE3[ds][sigma]
            row = dict(dataset=ds, source=info["source"], n_rounds=info["n_rounds"],
                       sigma=sigma, zeta=info["zeta"], status="ok", c=None, amr_mean=None,
                       amr_std=None, A_T=None, sum_delta_mean=None, t_bar_median=None,
                       t_bar_finite=None, n_permutations=n_perm, paper_amr=paper[0],
                       paper_sum_delta=paper[1], paper_t_bar=paper[2])
            if streams is None:
                row["status"] = "no data"
                rows.append(row)
                continue
            best, grid = _tune("POMDR", streams, seeds, sigma=sigma, zeta=info["zeta"],
                               T=info["n_rounds"])
            sel = grid[best]
            A_T = kernel_alignment_of(Gaussian(sigma), X_full, y_full)
            row.update(c=sel["params"]["c"], amr_mean=sel["amr_mean"], amr_std=sel["amr_std"],
                       A_T=A_T, sum_delta_mean=sel["sum_delta_mean"],
                       t_bar_median=sel["t_bar_median"],
                       t_bar_finite=int(np.sum(np.isfinite(sel["t_bar"]))))
            detail[ds]["sigmas"][str(sigma)] = {"selected": sel["params"], "grid": grid,
                                                "A_T": A_T}
            rows.append(row)
    used = [ds for ds in datasets if ds in infos]
    text = _format_table3(rows, infos)
    stem = out_dir / "pomdr_table3"
    _write_csv(stem.with_suffix(".csv"), _T3_FIELDS, rows)
    stem.with_suffix(".txt").write_text(text + "\n")
    summary = _summary("table3", rows, infos, used, detail, seed, quick, n_perm, text)
    summary["files"] = [str(stem.with_suffix(s)) for s in (".csv", ".json", ".txt")]
    summary["seconds"] = time.perf_counter() - start
    stem.with_suffix(".json").write_text(json.dumps(summary, indent=2))
    if verbose:
        print(text)
    return summary
