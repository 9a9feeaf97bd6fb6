"""NORMA's bounds on a drifting stream: Kivinen, Smola & Williamson (IEEE TSP 2004),
Theorems 2, 3 (Sec. IV), 4 and 6 (Sec. V).

A unit linear target ``w_t`` turns at constant speed; the comparator sequence is
``g_t = <w_t, .>``, so its norm bound ``B``, path lengths ``D1``, ``D2`` and
soft margin loss ``K`` are known exactly on every prefix of the stream.  NORMA
is run with the parameters of Theorems 2 and 3 (tuned to the whole stream) and
with ``eta_t = eta / sqrt(t)`` (Theorem 4, and truncated as in Theorem 6); the
measured margin errors, mistakes and cumulative regularized risk are plotted
against the bounds evaluated on each prefix:

* Theorems 2/3: the untuned form (45)-(46) of the proof
  (``theory.norma.margin_error_bound_general`` / ``mistake_bound_general``) with
  the run's fixed ``(eta, lambda, rho)`` and the prefix's ``K_n, D1_n, D2_n, n``;
  at ``n = m`` it equals the theorem's bound.
* Theorems 4/6: ``n R_reg[g, S_n] + a sqrt(n) + b`` for one fixed ``g`` (a
  certified near-minimizer of the regularized risk on the whole stream); the
  theorems hold for every ``g``, hence on every prefix.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

import okl
from okl.experiments import register
from okl.plotting import save_figure
from theory.norma import (
    best_regularized_soft_margin,
    comparator_path,
    cumulative_instantaneous_risk,
    margin_error_bound_general,
    mistake_bound_general,
    risk_bound_constants,
    soft_margin_losses,
    theorem2_parameters,
    theorem3_parameters,
    theorem6_t0,
)

__all__ = ["drifting_stream", "norma_bounds"]


def drifting_stream(m, d, *, angle, gamma, flip, seed):
    """Unit target ``w_t`` turning by ``angle`` at constant speed in the (e1, e2) plane.

    Points have norm in [0.5, 1] and margin ``|<w_t, x_t>| >= gamma`` w.r.t. the
    round's target (rejection sampling); then a fraction ``flip`` of the labels
    is flipped.  Returns ``X (m, d)``, ``y (m,)``, ``W (m, d)``.
    """
    rng = np.random.default_rng(seed)
    theta = angle * np.arange(m) / max(m - 1, 1)
    W = np.zeros((m, d))
    W[:, 0], W[:, 1] = np.cos(theta), np.sin(theta)
    X = np.empty((m, d))
    t = 0
    while t < m:
        cand = rng.normal(size=(256, d))
        cand /= np.linalg.norm(cand, axis=1)[:, None]
        cand *= rng.uniform(0.5, 1.0, size=(256, 1))
        for x in cand:
            if abs(x @ W[t]) >= gamma:
                X[t] = x
                t += 1
                if t == m:
                    break
    y = np.where(np.einsum("ij,ij->i", W, X) >= 0, 1.0, -1.0)
    y[rng.random(m) < flip] *= -1
    return X, y, W


def _soft_margin_run(X, y, eta, lam, rho):
    return okl.NORMA(kernel=okl.Linear(), loss="soft_margin", eta=eta, lam=lam, rho=rho,
                     schedule="constant").run(X, y)


@register("norma-bounds")
def norma_bounds(out_dir, quick=False, seed=0) -> dict:
    """Measured mistakes / margin errors / cumulative risk of NORMA vs Theorems 2, 3, 4, 6.

    Parameters
    ----------
    out_dir : str or Path
        Where ``norma_bounds.png`` and ``norma_bounds.svg`` go.
    quick : bool
        600 rounds instead of 3000.
    seed : int
        Seed of the stream.

    Returns
    -------
    dict
        JSON-ready summary: the stream's comparator quantities, and for each run
        its parameters, the final measured value, the bound, and whether the
        measured curve stayed below the bound on every prefix.
    """
    start = time.perf_counter()
    out_dir = Path(out_dir)
    m, d = (600, 5) if quick else (3000, 5)
    mu, gamma, angle, flip = 0.25, 0.25, math.pi / 2, 0.02
    X, y, W = drifting_stream(m, d, angle=angle, gamma=gamma, flip=flip, seed=seed)
    Xb = float(np.linalg.norm(X, axis=1).max())
    n = np.arange(1, m + 1)

    # comparator g_t = <w_t, .>: exact prefix quantities
    path = comparator_path(W)
    B = path.B
    steps = np.concatenate([[0.0], path.steps])
    D1n, D2n = np.cumsum(steps), np.cumsum(steps ** 2)
    Kn = np.cumsum(soft_margin_losses(np.einsum("ij,ij->i", W, X), y, mu))
    K = float(Kn[-1])

    # -- Theorems 2 and 3 ----------------------------------------------------------
    tunings = {
        "thm2_rho_mu_half": theorem2_parameters(Xb, B, m, path.D1, path.D2, K, mu, mu / 2),
        "thm3_rho_mu_minus_r": theorem3_parameters(Xb, B, m, path.D1, path.D2, K, mu),
        "thm3_rho_zero": theorem3_parameters(Xb, B, m, path.D1, path.D2, K, mu, margin="zero"),
    }
    runs, curves = {}, {}
    for name, tu in tunings.items():
        tr = _soft_margin_run(X, y, tu.eta, tu.lam, tu.rho)
        me = np.cumsum(y * tr.scores <= tu.rho)
        mi = tr.cumulative_mistakes
        args = [(float(Kn[i]), B, float(D1n[i]), float(D2n[i]), i + 1, Xb, mu, tu.rho,
                 tu.eta_prime, tu.lam) for i in range(m)]
        me_bound = np.array([margin_error_bound_general(*a) for a in args])
        mi_bound = np.array([mistake_bound_general(*a) for a in args])
        curves[name] = (me, mi, me_bound, mi_bound)
        runs[name] = {
            "theorem": 2 if name.startswith("thm2") else 3,
            "eta": tu.eta, "lam": tu.lam, "rho": tu.rho, "eta_prime": tu.eta_prime,
            "margin_errors": int(me[-1]), "mistakes": int(mi[-1]),
            "bound": tu.bound,
            "bound_kind": "margin errors" if name.startswith("thm2") else "mistakes",
            "margin_errors_below_prefix_bound": bool(np.all(me <= me_bound)),
            "mistakes_below_prefix_bound": bool(np.all(mi <= mi_bound)),
        }

    # -- Theorems 4 and 6 ----------------------------------------------------------
    lam, eta, eps, rho = 0.5, 1.4, 0.3, 1.0
    g = best_regularized_soft_margin(None, y, lam, rho, features=X)
    g_losses = np.cumsum(soft_margin_losses(g.fitted, y, rho))
    risk = {}
    for name, window, truncated in (("thm4", {}, False),
                                    ("thm6", {"tau_power": eps,
                                              "tau_t0": theorem6_t0(eta, lam, eps)}, True)):
        tr = okl.NORMA(kernel=okl.Linear(), loss="soft_margin", rho=rho, eta=eta, lam=lam,
                       schedule="sqrt", track_norm=True, **window).run(X, y)
        lhs = cumulative_instantaneous_risk(tr.losses, tr.extras["norm_sq"], lam)
        _, a, b = risk_bound_constants(lam, eta, 1.0, Xb, truncated=truncated)
        bound = g_losses + n * 0.5 * lam * g.norm_sq + a * np.sqrt(n) + b
        curves[name] = (lhs, bound)
        risk[name] = {
            "theorem": 4 if name == "thm4" else 6,
            "eta": eta, "lam": lam, "rho": rho, "c": 1.0, "X": Xb,
            **({"eps": eps, "t0": window["tau_t0"]} if truncated else {}),
            "cumulative_risk": float(lhs[-1]), "bound": float(bound[-1]),
            "m_R_reg_g": float(m * g.risk), "a": a, "b": b,
            "final_expansion_size": int(tr.budget[-1]),
            "below_prefix_bound": bool(np.all(lhs <= bound)),
        }

    # -- figure --------------------------------------------------------------------
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
    ax = axes[0]
    for name, color in (("thm3_rho_mu_minus_r", "C0"), ("thm3_rho_zero", "C1")):
        mi = curves[name][1]
        ax.plot(n, mi, color=color, label=f"mistakes, rho={runs[name]['rho']:.3g}")
    # the same eta', lambda for both margins, and (46)/(48) give the same prefix bound
    ax.plot(n, curves["thm3_rho_zero"][3], color="k", ls="--",
            label="Thm 3 bound (both margins)")
    ax.set_title("Mistakes vs Theorem 3")
    ax = axes[1]
    for name, color in (("thm2_rho_mu_half", "C2"), ("thm3_rho_zero", "C1")):
        me, mi, me_bound, _ = curves[name]
        rho_run = runs[name]["rho"]
        ax.plot(n, me, color=color, label=f"margin errors, rho={rho_run:.3g}")
        ax.plot(n, me_bound, color=color, ls="--", label=f"Thm 2 bound, rho={rho_run:.3g}")
    ax.set_title("Margin errors vs Theorem 2")
    ax = axes[2]
    for name, color, label in (("thm4", "C3", "Thm 4"), ("thm6", "C4", "Thm 6 (truncated)")):
        lhs, bound = curves[name]
        ax.plot(n, lhs, color=color, label=f"sum R_inst[f_t], {label}")
        ax.plot(n, bound, color=color, ls="--", label=f"{label} bound")
    ax.plot(n, g_losses + n * 0.5 * lam * g.norm_sq, color="0.5", ls=":",
            label="n R_reg[g, S_n]")
    ax.set_title("Cumulative regularized risk vs Theorems 4, 6")
    for ax in axes:
        ax.set_xlabel("round n (prefix length)")
        ax.legend(fontsize=7)
    fig.suptitle(f"NORMA on a drifting linear target (m={m}, mu={mu}, B={B:.3g}, "
                 f"D1={path.D1:.3g}, D2={path.D2:.3g}, K={K:.3g})")
    paths = save_figure(fig, out_dir / "norma_bounds")

    return {
        "experiment": "norma-bounds",
        "paper": "Kivinen, Smola & Williamson, Online Learning with Kernels, IEEE TSP 2004",
        "quick": bool(quick),
        "seed": int(seed),
        "stream": {"m": m, "d": d, "X": Xb, "mu": mu, "margin_filter": gamma,
                   "turn_angle": angle, "label_flip": flip, "B": B, "D1": path.D1,
                   "D2": path.D2, "K": K},
        "margin_and_mistake_bounds": runs,
        "risk_bounds": {**risk, "R_reg_g": g.risk, "R_reg_gap": g.gap},
        "all_bounds_hold": bool(all(r["mistakes_below_prefix_bound"] for r in runs.values())
                                and all(r["margin_errors_below_prefix_bound"]
                                        for k, r in runs.items() if k.startswith("thm2"))
                                and all(r["below_prefix_bound"] for r in risk.values())),
        "figures": [str(p) for p in paths],
        "seconds": time.perf_counter() - start,
    }
