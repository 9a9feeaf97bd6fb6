r"""``okl bounds`` rows for the baselines of seed 000's Table 2: SkeGD and B(AO)2KS (handlers
of :func:`okl.experiments.bounds.bounds_report`).

Every expression is a function of ``theory.seed000_baselines`` (see its docstring for what
seed 000 states about these learners; its Table 1 prints orders only):

* **Memory**, exact for the algorithms as their authors' R code runs them (okl's): SkeGD
  stores ``B`` support vectors plus one per sketch update
  (:func:`~theory.seed000_baselines.skegd_support`); B(AO)2KS at most ``B + M + 1``
  (:func:`~theory.seed000_baselines.bao2ks_max_support`, its restart rule).  Checked.
* **Computational complexity** (Table 1, at constant 1): the run's kernel evaluations times
  ``d`` per round (``Trace.extras["kernel_evaluations"]``) against ``d B ln T`` (SkeGD,
  ``poly(ln T) = ln T``) and ``d sqrt(A_T T ln T)`` (B(AO)2KS; applicable when ``B`` is
  at most :func:`~theory.seed000_baselines.bao2ks_budget`, the regime of the row).  The
  constant 1 is a choice (the seed gives none): ``holds`` says the run's work is within
  the row at that constant.
* **Regret** (Table 1): the run's regret against the best hinge function of norm ``<= U``
  (its certified lower bound, :func:`theory.best_hinge_in_ball`, for each radius of the
  report) beside the orders ``sqrt(T B)`` and ``(A_T T ln T)^{1/4}`` at constant 1, as a
  row with no bound (the ratio is in the note): an order is not a bound.
"""
from __future__ import annotations

from okl.experiments.bounds import _curve, _row

__all__ = ["skegd_rows", "bao2ks_rows"]

_SRC = "Li & Liao 2023, Table 1"


def _regret_rows(s, tr, radii, order, what, rows):
    loss = float(tr.losses.sum())
    best = None
    for r in radii:
        comp = s.hinge(r)
        reg = loss - comp.lower_bound
        if best is None or reg < best[0]:
            best = (reg, r, comp)
    reg, r, comp = best
    rows.append(_row(f"regret vs min_(||f|| <= {r:g}) sum hinge", reg, None,
                     f"{_SRC} (order {what}, no constant)",
                     note=f"measured / {what} = {reg / order:.4g}; an order is not a bound "
                          f"(the smallest regret over the radii {list(radii)})",
                     inputs={"radius": r, "learner_loss": loss,
                             "comparator_lower_bound": comp.lower_bound, "order": order}))


def skegd_rows(s, learner, tr, radii, rows, curves):
    from theory.seed000_baselines import skegd_complexity, skegd_regret_bound, skegd_support

    e = tr.extras
    T = int(tr.n_rounds)
    B = int(learner.B)
    d = int(learner.n_features)
    updates = (1 + int(e["refreshes"])) if e["switched"] else 0
    rows.append(_row("support vectors |SV_T|", int(tr.final_budget),
                     skegd_support(B, updates), "SkeGD.R (memory rule)",
                     note=f"B = {B} plus one per sketch update ({updates})",
                     inputs={"B": B, "updates": updates}))
    if T >= 2:
        work = e["kernel_evaluations"] * d / T
        rows.append(_row("kernel work per round (evaluations x d / T)", work,
                         skegd_complexity(d, B, T), f"{_SRC}, O(dB poly(ln T))",
                         note="constant 1, poly(ln T) = ln T; after the switch a round "
                              f"costs s_m = {learner.sizes_[1]} evaluations",
                         inputs={"d": d, "B": B, "T": T,
                                 "kernel_evaluations": e["kernel_evaluations"]}))
        _regret_rows(s, tr, radii, skegd_regret_bound(T, B), "sqrt(T B)", rows)


def bao2ks_rows(s, learner, tr, radii, rows, curves):
    from theory.seed000_baselines import (bao2ks_budget, bao2ks_complexity,
                                          bao2ks_max_support, bao2ks_regret_bound)

    e = tr.extras
    T = int(tr.n_rounds)
    B, M = int(learner.B), int(e["M"])
    d = int(learner.n_features)
    rows.append(_row("max |S_t|", int(tr.max_budget), bao2ks_max_support(B, M),
                     "BA2OKS.R (restart when |S| > B, tested a round late)",
                     note=f"{e['restarts']} restart(s)", inputs={"B": B, "M": M}))
    if T < 2:
        return
    A = s.alignment
    work = e["kernel_evaluations"] * d / T
    budget = bao2ks_budget(A, T)
    if B > budget:
        rows.append(_row("kernel work per round (evaluations x d / T)", work, None,
                         f"{_SRC}, O(d sqrt(A_T T ln T))",
                         note=f"not applicable: B = {B} exceeds the row's budget "
                              f"sqrt(A_T T ln T) = {budget:.4g}"))
    else:
        rows.append(_row("kernel work per round (evaluations x d / T)", work,
                         bao2ks_complexity(d, A, T), f"{_SRC}, O(d sqrt(A_T T ln T))",
                         note="constant 1", inputs={"d": d, "A_T": A, "T": T,
                                                    "kernel_evaluations":
                                                        e["kernel_evaluations"]}))
    _regret_rows(s, tr, radii, bao2ks_regret_bound(A, T), "(A_T T ln T)^(1/4)", rows)
    curves.append(_curve("B(AO)2KS: |S_t| and B + M + 1", "budget", "support vectors |S_t|",
                         {"|S_t|": tr.budget},
                         {"B + M + 1": float(bao2ks_max_support(B, M)), "B": float(B)},
                         note="restart when |S| > B"))
