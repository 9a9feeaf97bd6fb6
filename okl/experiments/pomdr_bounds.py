"""POMDR's budget and regret against Theorems 1 and 2 of Li & Liao (AAAI 2023), on
streams with a known Gram spectrum (``okl.datasets.spectral``).

* Budget over rounds: POMDR with ``zeta = 1`` and ``B0`` above Theorem 1's bound
  (so ``t_bar = inf``, POMD throughout), ``|S_t|`` against Theorem 1's bound
  ``2 ln(C1 R0 / alpha) / ln(1/r)`` with the stream's exact ``R0, r`` and
  ``C1 = 1`` (``k(x, x) = 1``), exponential decay.
* Regret over rounds: ``sum_{s <= t} l_s - min_{||f|| <= U} sum_{s <= t} l(f(x_s), y_s)``
  on prefixes ``t`` of the same run, against Theorem 2 on that prefix,
  ``3U sqrt(sum_{s <= t} delta_s) + 9U`` (a prefix of a run with horizon T is
  not a run with horizon t, so the prefix curve is shown for shape; the
  theorem is checked at ``t = T``).
* ``|S_T|`` against ``T`` (log axis): POMD on streams of growing length, with
  the fitted slope of ``|S_T|`` in ``ln T`` and Theorem 1's slope
  ``2 (1 + 2 zeta) / ln(1/r)``.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from okl.datasets.spectral import spectral_stream
from okl.experiments import register
from okl.learners.pomdr import POMD, POMDR
from okl.plotting import save_figure
from theory import best_hinge_in_ball, kernel_alignment
from theory.pomdr import (
    ald_budget_spectral_bound,
    ald_threshold,
    corollary1_bound,
    lemma4_bound,
    sum_delta,
    theorem1_exponential_bound,
    theorem2_bound,
)

__all__ = ["pomdr_bounds", "SETTINGS"]

#: stream and learner settings: (quick, full)
SETTINGS = {
    "T": (400, 2000),
    "prefixes": (4, 8),
    "Ts": ((200, 400, 800, 1600), (250, 500, 1000, 2000, 4000, 8000, 16000)),
    "r": 0.5, "d": 64, "flip": 0.2, "U": 4.0, "M": 15, "zeta": 1.0,
}


def budget_and_regret_run(T, seed):
    """One POMD-only POMDR run on an exponential-decay stream and its theory side.

    Returns a dict of arrays and numbers (used by the experiment and its test).
    """
    r, d, flip, U, M, zeta = (SETTINGS[k] for k in ("r", "d", "flip", "U", "M", "zeta"))
    s = spectral_stream(T, "exponential", r=r, d=d, flip=flip, seed=seed)
    b1 = theorem1_exponential_bound(T, zeta, 1.0, s.R0, r)
    B0 = math.ceil(b1)
    tr = POMDR(s.kernel, U=U, M=M, zeta=zeta, D=1.0, B0=B0, B=2 * B0 + 2).run(s.X, s.y)
    K = s.X @ s.X.T
    active = tr.losses > 0
    sd = sum_delta(K, s.y, M, active)
    A = kernel_alignment(K, s.y)
    comp = best_hinge_in_ball(K, s.y, U)
    return {"stream": s, "trace": tr, "K": K, "theorem1": b1, "B0": B0,
            "spectral_bound": ald_budget_spectral_bound(
                s.eigenvalues, ald_threshold(T, zeta, 1.0), 1.0),
            "sum_delta": sd, "A_T": A, "comparator": comp,
            "regret": float(tr.losses.sum() - comp.lower_bound)}


@register("pomdr-bounds")
def pomdr_bounds(out_dir, quick=False, seed=0) -> dict:
    """Budget and regret of POMDR against Theorems 1 and 2; ``|S_T|`` against ``T``.

    Parameters
    ----------
    out_dir : str or Path
        Where ``pomdr_bounds.png``/``.svg`` and ``pomdr_bounds.json`` go.
    quick : bool
        Small sizes (seconds).
    seed : int
        Seed of the streams.

    Returns
    -------
    dict
        JSON-ready summary (also written to ``pomdr_bounds.json``).
    """
    start = time.perf_counter()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    q = 0 if quick else 1
    T = SETTINGS["T"][q]
    U, M, r, zeta = SETTINGS["U"], SETTINGS["M"], SETTINGS["r"], SETTINGS["zeta"]

    # -- budget and regret over rounds ------------------------------------------------
    run = budget_and_regret_run(T, seed)
    s, tr, K = run["stream"], run["trace"], run["K"]
    rounds = np.arange(1, T + 1)
    bound1 = np.array([theorem1_exponential_bound(T, zeta, 1.0, s.R0, r)] * T)
    cum_delta = np.cumsum(tr.extras["deltas"])
    prefixes = np.unique(np.linspace(T / SETTINGS["prefixes"][q], T,
                                     SETTINGS["prefixes"][q]).astype(int))
    pre_regret, pre_bound = [], []
    for t in prefixes:
        comp = best_hinge_in_ball(K[:t, :t], s.y[:t], U)
        pre_regret.append(float(tr.losses[:t].sum() - comp.lower_bound))
        pre_bound.append(theorem2_bound(U, float(cum_delta[t - 1])))

    # -- |S_T| against T -----------------------------------------------------------------
    Ts = np.array(SETTINGS["Ts"][q])
    sizes, bounds = [], []
    for Tn in Ts:
        sn = spectral_stream(int(Tn), "exponential", r=r, d=SETTINGS["d"],
                             flip=SETTINGS["flip"], seed=seed)
        trn = POMD(sn.kernel, U=U, M=M, zeta=zeta, D=1.0).run(sn.X, sn.y)
        sizes.append(int(trn.budget[-1]))
        bounds.append(theorem1_exponential_bound(int(Tn), zeta, 1.0, sn.R0, r))
    slope, intercept = np.polyfit(np.log(Ts), sizes, 1)

    # -- figure --------------------------------------------------------------------------
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
    ax = axes[0]
    ax.plot(rounds, tr.budget, label="|S_t| (POMDR, t_bar = inf)")
    ax.plot(rounds, bound1, "k--", label="Theorem 1 bound")
    ax.axhline(run["spectral_bound"], color="0.5", ls=":", label="interlacing bound")
    ax.set_xlabel("round t")
    ax.set_title("Budget vs Theorem 1")
    ax = axes[1]
    ax.plot(prefixes, pre_regret, "o-", label="regret on prefix")
    ax.plot(prefixes, pre_bound, "k--", label="3U sqrt(sum delta) + 9U")
    ax.set_xlabel("round t")
    ax.set_title("Regret vs Theorem 2")
    ax = axes[2]
    ax.semilogx(Ts, sizes, "o-", label="|S_T| (POMD)")
    ax.semilogx(Ts, bounds, "k--", label="Theorem 1 bound")
    ax.semilogx(Ts, intercept + slope * np.log(Ts), color="0.5", ls=":",
                label=f"fit a + {slope:.2f} ln T")
    ax.set_xlabel("T")
    ax.set_title("|S_T| = O(ln T)")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.suptitle(f"POMDR on an exponential-decay stream (r={r}, zeta={zeta}, U={U}, "
                 f"M={M}, T={T}, flip={SETTINGS['flip']})")
    figures = [str(p) for p in save_figure(fig, out_dir / "pomdr_bounds")]

    summary = {
        "experiment": "pomdr-bounds",
        "quick": bool(quick), "seed": int(seed),
        "settings": {"T": T, "r": r, "d": SETTINGS["d"], "flip": SETTINGS["flip"],
                     "U": U, "M": M, "zeta": zeta, "B0": run["B0"]},
        "stream": {"R0": s.R0, "A_T": run["A_T"]},
        "budget": {"final": int(tr.budget[-1]), "theorem1": run["theorem1"],
                   "interlacing_bound": run["spectral_bound"],
                   "t_bar": None if math.isinf(tr.extras["t_bar"]) else tr.extras["t_bar"],
                   "within": bool(tr.budget[-1] <= run["theorem1"])},
        "regret": {"final": run["regret"], "comparator_loss": run["comparator"].loss,
                   "learner_loss": float(tr.losses.sum()),
                   "sum_delta": run["sum_delta"],
                   "sum_delta_learner": float(tr.extras["sum_delta"]),
                   "lemma4": lemma4_bound(run["A_T"], 1.0),
                   "theorem2": theorem2_bound(U, run["sum_delta"]),
                   "corollary1": corollary1_bound(U, run["A_T"], 1.0),
                   "within": bool(run["regret"] <= theorem2_bound(U, run["sum_delta"])),
                   "prefixes": prefixes.tolist(), "prefix_regret": pre_regret,
                   "prefix_theorem2": pre_bound},
        "budget_vs_T": {"T": Ts.tolist(), "size": sizes, "theorem1": bounds,
                        "slope_ln_T": float(slope), "intercept": float(intercept),
                        "theorem1_slope": 2 * (1 + 2 * zeta) / math.log(1 / r)},
        "figures": figures,
        "seconds": time.perf_counter() - start,
    }
    (out_dir / "pomdr_bounds.json").write_text(json.dumps(summary, indent=2))
    return summary
