r"""``okl bounds`` handlers of Li & Liao, *Online kernel selection with computational
constraints* ("kernel selection"): LKMBooks, PFMBooks, BATBooks (through
:mod:`theory.selection`) and the baselines of its Tables 4-7, OKS / BOKS, ISKA, BOMKR and
BOMKR-V (through :mod:`theory.selection_baselines`).

LKMBooks / PFMBooks / BATBooks: the budget bounds of Theorems 2, 4 and 8 (high probability,
at the report's ``delta``) and the explicit regret bounds reconstructed from Theorems 3, 6
and 10, one row per candidate kernel (in expectation over the learner's draws).

The baselines' rows (every bound a function of ``theory.selection_baselines``; see its
docstring for what the paper states about these learners):

Every bound is a function of ``theory.selection_baselines`` (see its docstring for what
the paper states about these learners):

* **Budgets** (Table 3 and Secs. 3.2, 5.2 of the paper): the entries over BOKS's ``K``
  separate sets against its pooled ``B``; each of BOMKR's ``K`` separate sets against its
  per-kernel budget; BOMKR-V's one shared set against ``B``; ISKA's shared budget (each
  class's buffer against ``B // 2``).  The peak memory in quanta, counted from the run's
  set sizes by :func:`theory.selection_baselines.space_quanta`, against the memory budget
  (when one was given) or against the space of ``B`` entries; the costliest round's
  multiplications (:func:`~theory.selection_baselines.round_time_quanta`) against the
  time budget when one was given.  These hold on every run.
* **The cost of not sharing** (Sec. 3.2): for the learners with ``K`` separate sets, the
  factor by which Theorem 1's lower bound at the per-kernel budget exceeds the shared one
  (:func:`~theory.selection_baselines.sharing_factor`, ``sqrt(K)`` once ``T >= B``): a
  worst-case statement, reported without a check.
* **Combination regret**: BOMKR / BOMKR-V against each kernel's own hypothesis sequence,
  pathwise (:func:`~theory.selection_baselines.exponential_weights_regret_bound`); OKS /
  BOKS in expectation over the kernel draws
  (:func:`~theory.selection_baselines.importance_weighted_regret_bound`; ``holds`` is one
  draw).  Both need every kernel's prediction on every round: the report replays the run
  with a fresh copy of the learner one round at a time (OKS's ``decision_function`` draws
  nothing, so the replay is the same run; the report checks that it is).
* ISKA and BOMKR have no regret bound against a fixed ``f in H_i`` in the paper (BOMKR: "did
  not provide a regret bound"); ISKA's own (Zhang & Liao 2018, logarithmic, for the step
  ``1/(lam t)``) was not reachable: rows saying so.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from okl.experiments.bounds.report import (
    EXPECTATION,
    HIGH_PROBABILITY,
    LLSEL,
    Stream,
    ball_radii,
    best,
    curve,
    na,
    row,
)

__all__ = ["lkmbooks", "pfmbooks", "batbooks", "oks", "bomkr", "iska", "omkc", "normareplace"]

HJZY13 = "Hoi, Jin, Zhao & Yang 2013"

def _kernel_streams(s, kernels):
    """One :class:`Stream` (Gram matrix, comparators) per candidate kernel."""
    return [Stream(s.X, s.y, k) for k in kernels]


def _kernel_label(i, k):
    sigma = getattr(k, "sigma", None)
    return f"kernel {i}" + ("" if sigma is None else f" (sigma = {sigma:g})")


def _z_form(form_name, corrected_name):
    return "corrected" if form_name == corrected_name else "printed"


_EXPECTATION = ("the theorem bounds the regret in expectation over the learner's draws; "
                "holds is one draw")


def _selection_regret_rows(s, learner, measured_loss, bound_fn, radii_for, q, src, reasons,
                           rows, note):
    """Per kernel: the best hinge comparator of each radius in ``radii_for(i)`` against the
    explicit bound ``bound_fn(i, radius, comparator)``; the radius with the smallest bound
    on the learner's loss (comparator loss + bound) is reported.  With ``reasons`` (why the
    bound does not apply to the run), or a loss other than the hinge (no comparator for
    it), the rows say why instead."""
    if learner.loss != "hinge":
        reasons = ["theory has no absolute-loss comparator (best_hinge_in_ball is for the "
                   "hinge loss)", *reasons]
    kernels = list(getattr(learner, "kernels_", None) or learner.kernels)
    streams = None if reasons else _kernel_streams(s, kernels)
    for i, k in enumerate(kernels):
        qi = f"{q}, {_kernel_label(i, k)}"
        srci = f"{src}, {_kernel_label(i, k)}"
        if reasons:
            rows.append(na(qi, measured_loss, srci, "; ".join(reasons), kind=EXPECTATION))
            continue
        cands = []
        for r in radii_for(i):
            c = streams[i].hinge(r)
            b = bound_fn(i, r, c)
            cands.append((c.loss + b, (r, c, b)))
        _, (r, c, b) = best(cands)
        rows.append(row(qi, measured_loss - c.loss, b, srci,
                         note=f"{note}; f = the best hinge function of kernel {i} in the ball "
                              f"of radius {r:g} (of {[float(v) for v in radii_for(i)]}, the one "
                              f"with the smallest L_T(f) + bound); {_EXPECTATION}",
                         inputs={"radius": r, "f_norm": c.norm, "comparator_loss": c.loss,
                                 "learner_loss": measured_loss}, kind=EXPECTATION))


def _budget_rows(name, theorem, bound, tr, size, rows, curves, *, delta, inputs, mean,
                 limit, premise):
    """The row of a single-buffer learner's budget bound (LKMBooks' Theorem 2, PFMBooks'
    Theorem 4: the sampled rounds, with probability 1 - delta, against ``bound()``) and
    its curve, or, when the proof's premise ``mean <= limit`` (Bernstein's bound on the
    mean number of sampled rounds) fails on the run by more than a relative 1e-12, the
    row saying why (``premise``); ``size`` is the buffer with the hard guard."""
    q = "sampled rounds #(rho_t = 1) (|S| without the guard)"
    src = f"{LLSEL}, {theorem}"
    measured = int(tr.extras["n_sampled"])
    if mean > limit * (1.0 + 1e-12):
        rows.append(na(q, measured, src, premise))
        return
    rows.append(row(q, measured, bound(), src,
                    note=f"holds with probability >= 1 - delta = {1 - delta:g}; holds is one "
                         f"draw.  Buffer size with the guard: {size}",
                    inputs=inputs, kind=HIGH_PROBABILITY, delta=delta))
    curves.append(curve(f"{name}: |S_t| and {theorem}", "budget", "support vectors |S_t|",
                        {"|S_t|": tr.budget}, {theorem: bound(), "B": float(inputs["B"])},
                        note="horizon-T bound with probability 1 - delta: constant lines"))


def _guard_reason(n_refused):
    """Why a regret bound of an unbiased gradient estimate does not apply to the run."""
    return (f"the hard guard at B refused {n_refused} sampled updates: the gradient estimate "
            f"is no longer unbiased")


def lkmbooks(s, learner, tr, radii, rows, curves, *, delta):
    """LKMBooks: Theorem 2 (budget, probability 1 - delta), Theorem 3 (explicit form) per kernel."""
    from theory.selection import lkmbooks_regret_bound, lkmbooks_theorem2_bound, sampling_rate

    e = tr.extras
    T, B, C, u = int(e["T"]), int(e["B"]), float(e["C"]), float(e["upsilon"])
    form = _z_form(learner.z_form_, "theorem2")
    K = len(learner.kernels)

    # Theorem 2: Bernstein with mean <= B, i.e. sum_{n <= T} min{1, C / z_n} <= B
    mean = float(np.sum(np.minimum(1.0, C / sampling_rate(np.arange(1, T + 1), T, u, "2",
                                                          form))))
    _budget_rows("LKMBooks", "Theorem 2", functools.partial(lkmbooks_theorem2_bound, B, delta),
                 tr, int(e["max_size"]), rows, curves, delta=delta,
                 inputs={"B": B, "delta": delta, "mean_bound": mean, "C": C, "upsilon": u},
                 mean=mean, limit=B,
                 premise=f"the proof needs sum_n min(1, C/z_n) <= B; with z_form = "
                         f"{learner.z_form_!r}, C = {C:g}, upsilon = {u:.4g} it is {mean:.4g} > "
                         f"B = {B}")

    # Theorem 3 (explicit reconstructed form), per kernel
    q3 = "regret vs best hinge f"
    src3 = f"{LLSEL}, Theorem 3 (explicit form)"
    reasons = []
    if learner.l_m is None:
        reasons.append("l_m=None: the doubling trick restarts Hedge; the bound is for a fixed "
                       "l_m")
    elif float(e["l_m"]) > float(e["l_m_scale"]) * (1.0 + 1e-12):
        reasons.append(f"max{{l_m, 1}} = {e['l_m_scale']:g} does not bound the criteria's "
                       f"spread {e['l_m']:.4g} (criterion (6) outside [-1, 1])")
    if int(e["guard_blocked"]):
        reasons.append(_guard_reason(e["guard_blocked"]))
    if float(e["eta"]) <= 0.0:
        reasons.append("eta = 0: the bound's ln K / eta is infinite (p_t stays uniform)")
    if C != round(C):
        reasons.append(f"C = {C!r} is not an integer (the bound's probabilities "
                       f"min(1, C/z_n) take an integer C)")
    ell = float(e["l_m_scale"])

    def bound(i, r, c):
        return lkmbooks_regret_bound(T, K, int(round(C)), c.norm, float(e["lam"]),
                                     float(e["eta"]), L=1.0, D=float(learner.D_), upsilon=u,
                                     criterion_range=1.0, ell_m=ell, form=form)

    loss = float(tr.losses.sum())
    _selection_regret_rows(s, learner, loss, bound, lambda i: radii, q3, src3, reasons, rows,
                           f"OGD on the unbiased estimate with C = {C:g} in the role of B, "
                           f"every round counted as a gradient round (N = T)")


def pfmbooks(s, learner, tr, radii, rows, curves, *, delta):
    """PFMBooks: Theorem 4 (budget, probability 1 - delta), Theorem 6 (explicit form) per kernel."""
    from theory.selection import addition_probabilities, pfmbooks_regret_bound, \
        pfmbooks_theorem4_bound

    e = tr.extras
    T, B, C, u = int(e["T"]), int(e["B"]), float(e["C"]), float(e["upsilon"])
    P = np.asarray(e["sampling_probabilities"], dtype=float)

    # the budget itself: a sampled update that would exceed B is refused (the hard guard
    # of okl.PFMBooks), so the memory bound of Sec. 3.3 holds on every run, whatever
    # Theorem 4's premise
    rows.append(row("max budget |S_t|", int(tr.budget.max()), B,
                    f"{LLSEL}, Sec. 3.3: the memory budget B (the hard guard)",
                    note=f"{int(e['guard_triggers'])} sampled update(s) refused at B"))

    # Theorem 4: Bernstein with mean B/2, i.e. sum_t P_t <= B/2 (oblivious rule)
    mean = float(P.sum())
    _budget_rows("PFMBooks", "Theorem 4", functools.partial(pfmbooks_theorem4_bound, B, delta),
                 tr, int(e["max_support_size"]), rows, curves, delta=delta,
                 inputs={"B": B, "delta": delta, "sum_P": mean, "C": C, "upsilon": u},
                 mean=mean, limit=0.5 * B,
                 premise=f"the proof needs sum_t P_t <= B/2; the printed z_t with C = {C:g}, "
                         f"upsilon = {u:.4g} gives {mean:.4g} > B/2 = {B / 2:g}")

    # Theorem 6 (explicit reconstructed form), per kernel, each radius U_j of (7)
    q6 = "expected regret sum <p_t, c_t> vs best hinge f in a ball"
    src6 = f"{LLSEL}, Theorem 6 (explicit form)"
    reasons = []
    if getattr(learner, "variant", "okl") == "r":
        reasons.append("variant = 'r' (the authors' PFMBooks-*.R): p_t is renormalized only "
                       "to within [0.99, 1 + 1e-5] from the scripts' prior, and the steps "
                       "divide by the unclipped C/z_t with twice Theorem 6's lambda (hinge) "
                       "-- not the algorithm Theorem 6 is about")
    if getattr(learner, "g_", learner.g) != "assumption5":
        reasons.append(f"g = {getattr(learner, 'g_', learner.g)!r}: the scales do not bound "
                       f"the criteria (Assumption 5)")
    if float(e["eta"]) <= 0.0:
        reasons.append("eta = 0: the bound's divergence term / eta is infinite (p_t stays "
                       "the prior)")
    if int(e["guard_triggers"]):
        reasons.append(_guard_reason(e["guard_triggers"]))
    if not np.allclose(P, addition_probabilities(T, B, u, "4", "printed"), rtol=1e-12,
                       atol=0.0):
        reasons.append(f"C = {C:g} != B = {B}: the bound takes Theorem 4's P_t = min(1, B/z_t)")
    radii_j = np.asarray(e["radii"], dtype=float)
    M = radii_j.size
    lams = np.asarray(e["lambdas"], dtype=float).reshape(-1, M)
    scales = np.asarray(e["scales"], dtype=float)

    def bound(i, r, c):
        j = int(np.argmin(np.abs(radii_j - r)))
        return pfmbooks_regret_bound(T, B, min(c.norm, r), r, float(lams[i, j]),
                                     float(e["eta"]), scales, i * M + j, L=1.0,
                                     D=float(learner.kernels_[i].sup_diag),
                                     upsilon=u, form="printed")

    expected = float(np.sum(e["expected_criteria"]))
    _selection_regret_rows(s, learner, expected, bound, lambda i: tuple(radii_j), q6, src6,
                           reasons, rows,
                           "measured: sum_t <p_t, c_t>, the loss of f_{t,I_t} averaged over "
                           "I_t given the past (prediction='mean' suffers at most this)")


def batbooks(s, learner, tr, radii, rows, curves, *, delta):
    """BATBooks: Theorem 8 (budgets, probability 1 - delta), Theorem 10 (explicit form) per kernel."""
    from theory.selection import addition_probabilities, batbooks_regret_bound, \
        batbooks_theorem8_bound

    e = tr.extras
    T, B, u, K = int(e["T"]), int(e["B"]), float(e["upsilon"]), learner.K
    form = _z_form(getattr(learner, "z_form_", learner.z_form), "theorem8")
    rho, J = np.asarray(e["rho"]), np.asarray(e["explored"])
    counts = np.bincount(J[rho >= 1], minlength=K)

    # Theorem 8: per buffer, Bernstein with mean B/2 and a union bound over the K buffers
    q8 = "max_i #(rho_t = 1, J_t = i) (|S_i| without the guard)"
    src8 = f"{LLSEL}, Theorem 8"
    mean = float(np.sum(addition_probabilities(T, B, u, "8", form, K=K)))
    if mean > 0.5 * B * (1.0 + 1e-12):
        rows.append(na(q8, int(counts.max()), src8,
                        f"the proof needs sum_t (1/K) min(1, KB/z_t) <= B/2; with z_form = "
                        f"{getattr(learner, 'z_form_', learner.z_form)!r}, upsilon = {u:.4g} it is {mean:.4g} > B/2 = "
                        f"{B / 2:g}"))
    elif delta / K >= 1.0:
        rows.append(na(q8, int(counts.max()), src8, f"delta/K = {delta / K:g} >= 1"))
    else:
        rows.append(row(q8, int(counts.max()), batbooks_theorem8_bound(B, K, delta), src8,
                         note=f"every buffer at once, with probability >= 1 - delta = "
                              f"{1 - delta:g}; holds is one draw.  Buffer sizes with the guard:"
                              f" {[int(v) for v in e['sizes']]}",
                         inputs={"B": B, "K": K, "delta": delta, "mean_bound": mean,
                                 "upsilon": u, "counts": [int(c) for c in counts]},
                        kind=HIGH_PROBABILITY, delta=delta))
        curves.append(curve("BATBooks: sum_i |S_i| and K x Theorem 8", "budget",
                             "stored examples sum_i |S_i|", {"sum_i |S_i|": tr.budget},
                             {"K x Theorem 8": K * batbooks_theorem8_bound(B, K, delta),
                              "K floor(B/2)": float(K * (B // 2))},
                             note="every |S_i| <= the Theorem 8 bound (probability 1 - delta),"
                                  " so the sum is <= K times it: constant lines"))

    # Theorem 10 (explicit reconstructed form), per kernel, f in the ball of radius U
    q10 = "regret vs best hinge f in ||f|| <= U"
    src10 = f"{LLSEL}, Theorem 10 (explicit form)"
    U = float(e["U"])
    D = np.array([float(k.sup_diag) for k in learner.kernels_])
    etas = np.asarray(e["eta"], dtype=float)
    reasons = []
    if getattr(learner, "variant", "okl") == "r":
        reasons.append("variant = 'r' (the authors' BATBooks*.R): p_t restarts from uniform "
                       "whenever min_i C~_{t,i} passes m = 4, 16, ..., and the steps divide "
                       "by the unclipped (KB/z_t)/K -- not the algorithm Theorem 10 is about")
    if learner.ell_max == "doubling":
        reasons.append("ell_max='doubling': the bound is for a fixed ell_m")
    elif float(learner.ell_max) < 1.0 + U * math.sqrt(D.max()) - 1e-12:
        reasons.append(f"ell_max = {learner.ell_max!r} < 1 + U sqrt(D) = "
                       f"{1.0 + U * math.sqrt(D.max()):.4g}: c_t = l/ell_m may leave [0, 1]")
    if etas.size and not np.all(etas == etas[0]):
        reasons.append(f"eta = {getattr(learner, 'eta_rule_', learner.eta)!r} varies over the "
                       f"rounds (doubling); the bound is "
                       f"for a fixed eta")
    elif etas.size and etas[0] <= 0.0:
        reasons.append("eta = 0: the bound's ln K / eta is infinite (p_t stays uniform)")
    if int(e["n_full"]):
        reasons.append(f"the hard guard refused {e['n_full']} sampled updates (full buffers): "
                       f"the gradient estimate is no longer unbiased")
    lam = np.atleast_1d(np.asarray(e["lam"], dtype=float))
    ell = None if learner.ell_max == "doubling" else float(learner.ell_max)

    def bound(i, r, c):
        return batbooks_regret_bound(T, K, B, min(c.norm, U), U, float(lam[i]),
                                     float(etas[0]), T * ell, ell, L=1.0, D=float(D[i]),
                                     upsilon=u, form=form)

    _selection_regret_rows(s, learner, float(tr.losses.sum()), bound,
                           lambda i: ball_radii(radii, U), q10, src10, reasons, rows,
                           "bandit term with the worst case best_loss = T ell_m (the kernel's "
                           "own cumulative loss is not observed)")


_T3 = f"{LLSEL}, Table 3 / Sec. 5.2"
_T1 = f"{LLSEL}, Theorem 1 / Sec. 3.2"
_NO_REGRET = "seed 004 gives no regret bound for it against a fixed f in H_i"


def _clone(learner, T):
    params = learner.get_params()
    if "T" in params and params["T"] is None:
        params["T"] = T
    return type(learner)(**params)


def _replay(learner, s, T, K, kernel_scores):
    """``(scores, F)`` of a fresh copy of ``learner`` run again on the first ``T`` rounds of
    ``s``: its score of every round, and ``F[t] = kernel_scores(twin, x_t)`` (the ``K``
    kernels' own scores), taken right after the score and before the update."""
    X, y = s.X, s.y
    twin = _clone(learner, T)
    F = np.empty((T, K))
    scores = np.empty(T)
    for t in range(T):
        xt = X[t:t + 1]
        scores[t] = twin.decision_function(xt)[0]
        F[t] = kernel_scores(twin, xt)
        twin.learn_one(X[t], y[t])
    return scores, F


def _memory_rows(learner, tr, algorithm, B, K, rows, *, q=3, time_sizes=None,
                 time_update=False):
    from theory.selection_baselines import round_time_quanta, space_quanta

    d = learner.n_features
    e = tr.extras
    used = space_quanta(algorithm, int(tr.budget.max()), d, K, q)
    if e.get("memory_budget") is not None:
        rows.append(row("peak memory (quanta)", used, float(e["memory_budget"]), _T3,
                         note="the run's largest set sizes in Table 3's accounting "
                              "(theory.selection_baselines.space_quanta), against the "
                              "memory budget given",
                         inputs={"entries": int(tr.budget.max()), "d": d, "K": K}))
    else:
        rows.append(row("peak memory (quanta)", used, space_quanta(algorithm, B, d, K, q), _T3,
                         note=f"against the space of the example budget B = {B}",
                         inputs={"entries": int(tr.budget.max()), "d": d, "K": K, "B": B}))
    if e.get("time_budget") is not None and time_sizes is not None:
        worst = round_time_quanta(algorithm, time_sizes, d, K, update=time_update)
        rows.append(row("costliest round (multiplications)", worst, float(e["time_budget"]),
                         _T3, note="Sec. 4.1's accounting at the run's largest sets",
                         inputs={"sizes": float(np.sum(time_sizes)), "d": d, "K": K}))


def _sharing_row(tr, B, K, rows):
    from theory.selection_baselines import sharing_factor

    rows.append(row("Theorem 1 lower bound: K separate sets / one shared set",
                     sharing_factor(int(tr.n_rounds), B, K), None, _T1,
                     note=f"K = {K} separate sets of B/K: seed 004's 'allocate the memory "
                          f"budget to the K base kernels [...] will increase the regret by a "
                          f"factor of order O(sqrt(K))' (sqrt(K) = {np.sqrt(K):.4g} once "
                          f"T >= B); a worst-case statement, not a check of this run",
                     inputs={"T": int(tr.n_rounds), "B": B, "K": K}))


def oks(s, learner, tr, radii, rows, curves, *, delta):
    """OKS / BOKS: pooled budget over K separate sets, memory, the sharing factor and the
    importance-weighted regret of the kernel sampling against every kernel."""
    from theory.selection_baselines import importance_weighted_regret_bound

    e = tr.extras
    K = len(learner.kernels)
    T = int(tr.n_rounds)
    name = type(learner).__name__
    B = e["B"]
    if B is not None:
        rows.append(row("entries over the K separate sets", int(tr.budget.max()), B,
                         f"{LLSEL}, Sec. 5.2.1 (BOKS)",
                         note="BOKS 'stops updating hypothesis if the number of support "
                              "vectors equals B'; the K sets do not share memory",
                         inputs={"B": B, "K": K, "sizes": e["sizes"].tolist()}))
        _memory_rows(learner, tr, "BOKS", B, K, rows,
                     time_sizes=[int(np.max(e["sizes"]))])
        _sharing_row(tr, B, K, rows)
    # replay: every kernel's prediction on every round, without drawing anything
    # (decision_function consumes no randomness: the kernel of round t is drawn before it)
    y = s.y
    scores, F = _replay(learner, s, T, K, lambda twin, xt: twin.kernel_decision_function(xt)[0])
    src = f"{LLSEL}, OKS (Yang et al. 2012): exponential weights on importance-weighted " \
          f"losses (Exp3 analysis, theory.selection_baselines)"
    if not np.array_equal(scores, tr.scores):
        rows.append(na("kernel-sampling regret", float("nan"), src,
                        "the replay did not reproduce the run"))
        return
    if learner.is_classifier:
        losses = (np.where(F >= 0.0, 1.0, -1.0) != y[:, None]).astype(float)
        mine = float(e["n_errors"])
        what = "mistakes (sign(0) = +1)"
    else:
        losses = np.abs(F - y[:, None])
        mine = float(tr.losses.sum())
        what = "absolute loss"
    eta, delta = float(e["eta"]), float(e["delta"])
    for i in range(K):
        q = f"kernel-sampling regret vs kernel {i} ({what})"
        if eta <= 0.0 or delta >= 1.0:
            rows.append(na(q, mine - losses[:, i].sum(), src,
                            "eta = 0 or delta = 1: the weights never move"))
            continue
        rows.append(row(q, mine - float(losses[:, i].sum()),
                         importance_weighted_regret_bound(losses, eta, delta, i), src,
                         note=f"{name}'s loss minus the loss kernel {i}'s own hypothesis "
                              f"sequence had on the same rounds; a bound in expectation "
                              f"over the draws I_t: holds is one draw",
                         inputs={"eta": eta, "delta": delta, "learner_loss": mine,
                                 "kernel_loss": float(losses[:, i].sum())},
                         kind=EXPECTATION))


def bomkr(s, learner, tr, radii, rows, curves, *, delta):
    """BOMKR / BOMKR-V: separate or shared budget, memory, and the exponential-weights
    regret of the combination against every kernel's own regressor."""
    from theory.selection_baselines import exponential_weights_regret_bound

    e = tr.extras
    K = len(learner.kernels)
    T = int(tr.n_rounds)
    name = type(learner).__name__
    shared = name == "BOMKRV"
    alg = "BOMKR-V" if shared else "BOMKR"
    if shared:
        B = int(e["B"])
        rows.append(row("vectors in the shared set", int(tr.budget.max()), B,
                         f"{LLSEL}, Sec. 5.2.1 (BOMKR-V)",
                         note="BOMKR-V shares one set of B vectors (K coefficient vectors): "
                              "space O(dB + KB + K)", inputs={"B": B, "K": K}))
        _memory_rows(learner, tr, alg, B, K, rows, time_sizes=[int(tr.budget.max())])
    else:
        per = int(e["per_kernel"])
        B = K * per
        rows.append(row("largest of the K separate sets", int(np.max(e["sizes"])), per,
                         f"{LLSEL}, Sec. 5.2.1 (BOMKR)",
                         note="BOMKR does not share the support vectors: each kernel's "
                              "budget is B_0/K (the R code: ceiling(B/K))",
                         inputs={"per_kernel": per, "K": K, "sizes": e["sizes"].tolist()}))
        _memory_rows(learner, tr, alg, B, K, rows, time_sizes=e["sizes"])
        _sharing_row(tr, B, K, rows)
    rows.append(na("regret vs a fixed f in H_i", float(tr.losses.sum()),
                    f"{LLSEL}, Sec. 3.2", f"'BOKMR did not provide a regret bound': "
                                          f"{_NO_REGRET}"))
    twin = _clone(learner, T)
    F = np.empty((T, K))
    X, y = s.X, s.y
    for t in range(T):
        twin.learn_one(X[t], y[t])
        F[t] = twin.kernel_scores()
    losses = np.abs(F - y[:, None])
    eta = float(np.log(1.0 / float(e["beta"])))
    bound = exponential_weights_regret_bound(losses, eta)
    src = (f"{LLSEL}, {alg}: exponential weights beta^loss (Cesa-Bianchi & Lugosi 2006, "
           f"Thm. 2.2; theory.selection_baselines)")
    mine = float(tr.losses.sum())
    for i in range(K):
        rows.append(row(f"combination regret vs kernel {i}", mine - float(losses[:, i].sum()),
                         bound, src,
                         note=f"sum_t |f_t(x_t) - y_t| minus kernel {i}'s own regressor's "
                              f"absolute loss on the same rounds; pathwise",
                         inputs={"eta": eta, "learner_loss": mine,
                                 "kernel_loss": float(losses[:, i].sum())}))


def iska(s, learner, tr, radii, rows, curves, *, delta):
    """ISKA: the shared budget (each class's buffer within B // 2), memory; no regret row."""
    e = tr.extras
    K = len(learner.kernels)
    B = int(e["B"])
    rows.append(row("examples in the shared buffers", int(tr.budget.max()), B,
                     f"{LLSEL}, Sec. 5.2.2 (ISKA)",
                     note="ISKA shares one budget over all kernels: space O(Bd + K), B = B_0",
                     inputs={"B": B, "K": K}))
    rows.append(row("larger class buffer", int(max(e["sizes"])), B // 2,
                     f"{LLSEL}, Sec. 5.2.2 (ISKA)", note="B // 2 examples per class",
                     inputs={"B": B}))
    _memory_rows(learner, tr, "ISKA", B, K, rows, q=learner.q,
                 time_sizes=[int(tr.budget.max())], time_update=True)
    rows.append(na("regret vs a fixed f in H_i", float(tr.losses.sum()),
                    f"{LLSEL}, Sec. 5.2.2",
                    f"{_NO_REGRET} ('the regret bounds of ISKA does not reveal the "
                    f"superiority'); Zhang & Liao's logarithmic bound is for the step "
                    f"1/(lam t) and its text was not reachable"))


def omkc(s, learner, tr, radii, rows, curves, *, delta):
    """OMKC_{D,D}: the weighted-majority mistake bound against every kernel's own
    Perceptron (Hoi et al. 2013; theory.selection_baselines.omkc_mistake_bound), or for
    loss="absolute" the exponential-weights regret against every kernel's regressor."""
    from theory.selection_baselines import exponential_weights_regret_bound, omkc_mistake_bound

    K = len(learner.kernels)
    T = int(tr.n_rounds)
    beta = float(learner.beta)
    y = s.y
    # kernel_scores(): those of the example just scored
    scores, F = _replay(learner, s, T, K, lambda twin, xt: twin.kernel_scores())
    src = f"{HJZY13}, OMKC_(D,D): weighted majority (theory.selection_baselines)"
    if not np.allclose(scores, tr.scores, rtol=1e-12, atol=1e-12):
        rows.append(na("combination mistakes", tr.n_mistakes, src,
                       "the replay did not reproduce the run"))
        return
    if learner.is_classifier:
        if getattr(learner, "variant", "okl") != "okl":
            rows.append(na("rounds with y * score <= 0", int(np.sum(y * tr.scores <= 0.0)),
                           src, f"variant = {learner.variant!r}: the R code's predictions "
                                "(f >= 0 -> +1) are not the sgn the bound counts"))
            return
        Mi = np.sum(y[:, None] * F <= 0.0, axis=0).astype(int)
        M = int(np.sum(y * tr.scores <= 0.0))
        ins = {"beta": beta, "K": K, "kernel_mistakes": [int(m) for m in Mi]}
        for form in ("exact", "relaxed"):
            rows.append(row("rounds with y * score <= 0 (>= mistakes)", M,
                            omkc_mistake_bound(Mi, beta, form=form),
                            f"{src}, {form} form",
                            note=f"M_i = rounds on which kernel i's own Perceptron had "
                                 f"y f_i <= 0 on this run; best kernel: {int(np.argmin(Mi))} "
                                 f"(M_i = {int(Mi.min())})", inputs=ins))
        return
    losses = np.abs(F - y[:, None])
    eta = float(np.log(1.0 / beta))
    bound = exponential_weights_regret_bound(losses, eta)
    mine = float(tr.losses.sum())
    for i in range(K):
        rows.append(row(f"combination regret vs kernel {i}", mine - float(losses[:, i].sum()),
                        bound, f"{HJZY13}, OMKC (absolute loss): exponential weights "
                               f"beta^loss (Cesa-Bianchi & Lugosi 2006, Thm. 2.2)",
                        note="pathwise, against kernel i's own regressor on the same rounds",
                        inputs={"eta": eta, "learner_loss": mine,
                                "kernel_loss": float(losses[:, i].sum())}))


def normareplace(s, learner, tr, radii, rows, curves, *, delta):
    """NORMAReplace, the selection paper's single-kernel baseline: its budget, and both
    sides of the nu-trick's count of updates (Kivinen, Smola & Williamson 2004, update
    (22); theory.selection_baselines.nu_trick_update_bounds)."""
    from theory.selection_baselines import nu_trick_update_bounds

    T, B = int(tr.n_rounds), int(learner.B)
    rows.append(row("max budget |S_t|", int(tr.budget.max()), B,
                    f"{LLSEL}, Tables 4 and 6: NORMA's budget B (the authors' NORMA.R)",
                    note="an update appends while fewer than B are stored, else overwrites "
                         "the slot of the pointer"))
    Y = float(np.max(np.abs(s.y))) if T else 0.0
    D = float(getattr(learner.kernel, "sup_diag", float("inf")))
    updates = int(tr.extras["n_updates"])
    src = "Kivinen, Smola & Williamson 2004, Sec. III-C, the nu-trick (22)"
    if not math.isfinite(D):
        rows.append(na("rounds that updated", updates, src,
                       f"the kernel {learner.kernel!r} is unbounded (sup k = inf)"))
        return
    quiet, most = nu_trick_update_bounds(T, learner.nu, learner.eta, learner.epsilon, Y, B, D)
    ins = {"T": T, "nu": learner.nu, "eta": learner.eta, "epsilon": learner.epsilon,
           "Y": Y, "B": B, "D": D}
    rows.append(row("rounds without an update", T - updates, quiet,
                    f"{src}: the width never drops below -nu eta", inputs=ins,
                    note=f"an update on every round with |f - y| > epsilon_t; {updates} of "
                         f"{T} rounds updated (nu = {learner.nu:g})"))
    rows.append(row("rounds that updated", updates, most,
                    f"{src}: the width never exceeds max(epsilon_1, Y + B eta D) + "
                    f"(1 - nu) eta", inputs=ins))

