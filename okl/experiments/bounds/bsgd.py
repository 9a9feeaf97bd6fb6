r"""``okl bounds`` handlers of Wang, Crammer & Vucetic (JMLR 13, 2012, "BSGD"): Theorems
1 (BPegasos), 2 (BNorma) and 3 (BMP) on the run of :class:`okl.BSGD` /
:class:`okl.MulticlassBSGD`, and of the paper's unbudgeted baseline, kernel Pegasos
(:class:`okl.KernelPegasos` / :class:`okl.MulticlassKernelPegasos`: Shalev-Shwartz,
Singer, Srebro & Cotter, Math. Prog. 2011, Theorem 1 without the projection step).  Every
bound is a function of :mod:`theory.bsgd`.

The left side of each theorem, :math:`\frac1N\sum_t P_t(w_t) - \frac1N\sum_t P_t(w^*)`,
is measured on the run: :math:`P_t(w_t) = \frac\lambda2\|w_t\|^2 + \ell_t(w_t)` with the
losses of the trace and :math:`\|w_t\|^2` from a replay of the same learner round by
round (its support set's Gram matrix kept up to date; the replay's losses must equal the
run's), and :math:`\frac1N\sum_t P_t(w^*) = \min P` of (3.1) / (5.1) on the stream by
:func:`theory.bsgd.svm_minimum` / :func:`theory.bsgd.multiclass_svm_minimum` (BMP: the
minimum in the ball, :func:`theory.best_hinge_in_ball` /
:func:`theory.bsgd.multiclass_ball_minimum`), taken at its certified *lower* bound, so the
measured gap is never below the true one.  ``E`` is the run's average gradient error
(``Trace.extras["E"]``).

Two rows per theorem: as printed (premises :math:`\|\Phi(x)\| \le 1`, or
:math:`\|\Phi(x)\|^2 \le 1/2` for the multiclass counterparts of Section 5, and
:math:`\|E_t\| \le 1`, checked on the run; not applicable otherwise, e.g. a multiclass
run with a Gaussian kernel), and with the run's constants (Lemma 1 with :math:`G =
\max\|\partial\ell_t\|` and :math:`\epsilon = \max_t\|E_t\|` measured,
:mod:`theory.bsgd`), which applies to every run of the paper's algorithm.  Beside them
Section 6's claims on the maintenance: :math:`\|E_t\| \le \sqrt{\max k(x, x)}`
(:math:`\sqrt{2\max k(x, x)}` multiclass: no step degrades more than removing the new
vector) and, for projection and merging, each step's degradation at most that of
removing the same smallest vector.  ``variant="budgetedsvm"`` (its first example joins
with :math:`\pm1`, not Algorithm 1's step) is not covered by the theorems.
"""
from __future__ import annotations

import math

import numpy as np

from okl.experiments.bounds.report import na, row

__all__ = ["bsgd", "kernel_pegasos", "linear_pegasos", "amm", "WCV12", "SSSC11",
           "iterate_sq_norms"]

WCV12 = "Wang, Crammer & Vucetic 2012"
SSSC11 = "Shalev-Shwartz, Singer, Srebro & Cotter 2011"
Q_GAP = "(1/N) sum P_t(w_t) - (1/N) sum P_t(w*)"
_RULES = {"pegasos": ("Theorem 1", "BPegasos"), "norma": ("Theorem 2", "BNorma"),
          "mp": ("Theorem 3", "BMP")}


def _replay_learner(learner):
    params = learner.get_params()
    if getattr(learner, "task", None) == "multiclass" and params.get("classes") is None:
        params["classes"] = list(learner.classes_)
    return type(learner)(**params)


def iterate_sq_norms(learner, X, y, losses=None):
    r""":math:`\|w_t\|^2` (Frobenius for a multiclass learner) of the model *before* each
    round ``t`` of ``learner``'s run on ``(X, y)``, by replaying a fresh copy of it round
    by round (its support set's Gram matrix updated by the rows that joined or changed).
    With ``losses`` (the run's) the replay's losses must equal them (``ValueError``)."""
    fresh = _replay_learner(learner)
    kernel = fresh.kernel
    T = X.shape[0]
    out = np.empty(T)
    keys, G = [], np.empty((0, 0))
    got = np.empty(T)
    for t in range(T):
        S = fresh.support_vectors
        n = 0 if S.size == 0 else S.shape[0]
        if n == 0:
            out[t] = 0.0
            keys, G = [], np.empty((0, 0))
        else:
            S = np.asarray(S.toarray() if hasattr(S, "toarray") else S, dtype=float)
            new_keys = [r.tobytes() for r in S]
            where = {k: i for i, k in enumerate(keys)}
            old = [(i, where[k]) for i, k in enumerate(new_keys) if k in where]
            fresh_rows = [i for i, k in enumerate(new_keys) if k not in where]
            Gn = np.empty((n, n))
            if old:
                a = np.array([i for i, _ in old])
                b = np.array([j for _, j in old])
                Gn[np.ix_(a, a)] = G[np.ix_(b, b)]
            if fresh_rows:
                Kn = np.asarray(kernel(S[fresh_rows], S), dtype=float)
                Gn[fresh_rows, :] = Kn
                Gn[:, fresh_rows] = Kn.T
            keys, G = new_keys, Gn
            A = np.asarray(fresh.coefficients, dtype=float)
            out[t] = float(np.sum(A * (G @ A)))
        tr = fresh.run(X[t:t + 1], y[t:t + 1])
        got[t] = tr.losses[0]
    if losses is not None and not np.allclose(got, losses, rtol=1e-9, atol=1e-9):
        bad = int(np.flatnonzero(~np.isclose(got, losses, rtol=1e-9, atol=1e-9))[0])
        raise ValueError(f"the replay of {type(learner).__name__} departs from its run at "
                         f"round {bad + 1} (loss {got[bad]!r} against {losses[bad]!r})")
    return out


def _minimum(s, learner, lam, multiclass):
    """``(lower bound on min P, the solve's record)`` of (3.1) / (5.1) at ``lam``."""
    from theory.bsgd import multiclass_svm_minimum, svm_minimum

    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        if multiclass:
            classes = learner.classes_
            res = multiclass_svm_minimum(s.K, s.class_indices(classes), len(classes), lam)
        else:
            res = svm_minimum(s.K, s.y, lam)
    return res.lower_bound, {"P_min_upper": res.value, "P_min_lower": res.lower_bound,
                             "solver_gap": res.gap, "w_star_norm": res.norm,
                             "solver_epochs": res.epochs}


def _ball_minimum(s, learner, U, multiclass):
    """``(lower bound on min_{||w|| <= U} (1/N) sum_t l_t(w), record)`` (BMP)."""
    from theory.bsgd import multiclass_ball_minimum

    N = s.y.size
    if multiclass:
        from threadpoolctl import threadpool_limits

        classes = learner.classes_
        with threadpool_limits(1):
            lb = multiclass_ball_minimum(s.K, s.class_indices(classes), len(classes), U)
        return lb, {"P_min_lower": lb}
    c = s.hinge(U)
    return c.lower_bound / N, {"P_min_upper": c.loss / N, "P_min_lower": c.lower_bound / N,
                               "solver_gap": c.gap / N, "w_star_norm": c.norm}


def _gap(s, learner, tr, lam, multiclass, ball=None):
    """The measured left side and its inputs."""
    from theory.bsgd import average_objective

    sq = iterate_sq_norms(learner, s.X, s.y, tr.losses)
    avg = average_objective(lam, sq, tr.losses)
    if ball is None:
        low, rec = _minimum(s, learner, lam, multiclass)
    else:
        low, rec = _ball_minimum(s, learner, ball, multiclass)
    return avg - low, {"avg_P_t_w_t": avg, "max_sq_norm": float(sq.max()), **rec}


def bsgd(s, learner, tr, radii, rows, curves, *, delta):
    """BSGD / MulticlassBSGD: Theorem 1, 2 or 3 of its rule (as printed and with the
    run's constants) and Section 6's claims on the maintenance steps."""
    from theory.bsgd import (bsgd_theorem1_bound, bsgd_theorem2_bound, bsgd_theorem3_bound,
                             iterate_radius)

    multiclass = getattr(learner, "task", None) == "multiclass"
    rule = learner.rule
    thm, name = _RULES[rule]
    src = f"{WCV12}, {thm} ({name})"
    src_run = f"{WCV12}, {thm} ({name}) with the run's constants (Lemma 1, theory.bsgd)"
    e = tr.extras
    N = int(tr.n_rounds)
    E = float(e["E"][-1]) if len(e["E"]) else 0.0
    gerr = np.asarray(e["gradient_errors"], dtype=float)
    eps = float(gerr.max()) if gerr.size else 0.0
    kappa = s.kappa_max
    G = math.sqrt((2.0 if multiclass else 1.0) * kappa)
    if learner.variant == "budgetedsvm":
        why = ("variant='budgetedsvm': its first example joins with +-1 (not Algorithm 1's "
               "step eta_1 y_1) and duplicates are merged or dropped, outside the theorems' "
               "setting")
        rows.append(na(Q_GAP, float("nan"), src, why))
        rows.append(na(Q_GAP, float("nan"), src_run, why))
        return
    lam = 0.0 if rule == "mp" else float(learner.lam_)
    eta = None if rule == "pegasos" else float(learner.eta if learner.eta is not None else 1.0)
    U_ball = None if rule != "mp" else (None if learner.U is None else float(learner.U))

    # Section 6: no step degrades more than removing the new vector; projection and
    # merging no more than removing the same smallest vector
    cap = G
    rows.append(row("max_t ||E_t|| (gradient error)", eps, cap,
                    f"{WCV12}, Section 6 (the smallest vector's removal)",
                    note="the new vector's own removal costs ||E_t|| = ||beta_t|| sqrt(k(x_t, "
                         "x_t)) / eta_t; the smallest costs no more, and projection and "
                         "merging no more than its removal",
                    inputs={"kappa_max": kappa, "n_steps": int(gerr.size)}))
    if learner.maintenance != "removal":
        d = np.asarray(e["degradations"], dtype=float)
        rd = np.asarray(e["removal_degradations"], dtype=float)
        ok = np.isfinite(rd) & (rd > 0)
        worst = float(np.max(d[ok] / rd[ok])) if ok.any() else 0.0
        rows.append(row(f"max_t ||Delta_t||^2 / removal's ({learner.maintenance})", worst, 1.0,
                        f"{WCV12}, Section 6 (projection and merging never worse than "
                        f"removal)", inputs={"n_steps": int(ok.sum())}))

    if rule == "mp" and U_ball is None:
        why = "Theorem 3 is for BMP with the ball of radius U after each round (U=None here)"
        rows.append(na(Q_GAP, float("nan"), src, why))
        rows.append(na(Q_GAP, float("nan"), src_run, why))
        return
    measured, ins = _gap(s, learner, tr, lam, multiclass, ball=U_ball)
    base = {"N": N, "E": E, "max_E_t": eps, "kappa_max": kappa, "lam": lam, **ins}
    if eta is not None:
        base["eta"] = eta

    def bound(Gc, ec, printed):
        if rule == "pegasos":
            U = None if printed else iterate_radius(lam, Gc, ec)
            return bsgd_theorem1_bound(lam, N, E, U=U, G=Gc, eps=ec), U
        if rule == "norma":
            U = None if printed else iterate_radius(lam, Gc, ec)
            return bsgd_theorem2_bound(lam, eta, N, E, U=U, G=Gc, eps=ec), U
        return bsgd_theorem3_bound(U_ball, eta, N, E, G=Gc, eps=ec), U_ball

    # as printed
    why = []
    limit = 0.5 if multiclass else 1.0
    if kappa > limit * (1 + 1e-12):
        why.append(f"the theorem assumes ||Phi(x)||^2 <= {limit:g}"
                   + (" (Section 5's multiclass premise)" if multiclass else "")
                   + f", and max k(x, x) = {kappa:.6g} on this stream")
    if eps > 1.0 + 1e-9:
        why.append(f"the theorem assumes ||E_t|| <= 1, and max_t ||E_t|| = {eps:.6g}")
    if why:
        rows.append(na(Q_GAP, measured, src, "; ".join(why), inputs=base))
    else:
        b, U = bound(1.0, 1.0, True)
        from theory.bsgd import bsgd_paper_radius

        U = U_ball if rule == "mp" else bsgd_paper_radius(lam)
        rows.append(row(Q_GAP, measured, b, src,
                        note="w* = the minimiser of (3.1)"
                             + (" in the ball ||w|| <= U" if rule == "mp" else "")
                             + " on the stream, at its certified lower bound; U as (4.1)"
                             + ("" if rule == "mp" else f" = {U:.6g}"),
                        inputs={**base, "U": U}))
    # with the run's constants
    b, U = bound(G, eps, False)
    rows.append(row(Q_GAP, measured, b, src_run,
                    note=f"G = {'sqrt(2 max k(x, x))' if multiclass else 'sqrt(max k(x, x))'}"
                         f" = {G:.6g} (the loss's subgradients), eps = max_t ||E_t|| = "
                         f"{eps:.6g}" + ("" if rule == "mp" else
                                         f", U = max((G + eps)/lam, sqrt(2/lam)) = {U:.6g}"),
                    inputs={**base, "G": G, "eps": eps, "U": U}))


def kernel_pegasos(s, learner, tr, radii, rows, curves, *, delta):
    """KernelPegasos / MulticlassKernelPegasos: Theorem 1 of Shalev-Shwartz et al. (2011)
    without the projection step, c = 4 R^2 (the Crammer-Singer loss: R^2 = 2 max k(x, x))."""
    from theory.bsgd import pegasos_regret_bound

    multiclass = getattr(learner, "task", None) == "multiclass"
    src = f"{SSSC11}, Theorem 1 (no projection, c = 4 R^2)"
    if learner.variant == "budgetedsvm":
        rows.append(na(Q_GAP, float("nan"), src,
                       "variant='budgetedsvm': its first example joins with +-1, not "
                       "Pegasos' step"))
        return
    lam = float(getattr(learner, "lam_", learner.lam))
    N = int(tr.n_rounds)
    R2 = (2.0 if multiclass else 1.0) * s.kappa_max
    measured, ins = _gap(s, learner, tr, lam, multiclass)
    rows.append(row(Q_GAP, measured, pegasos_regret_bound(lam, N, R2), src,
                    note="w* = the minimiser of lam/2 ||w||^2 + (1/N) sum_t l_t(w) on the "
                         "stream, at its certified lower bound; R^2 = "
                         + ("2 max k(x, x) (the Crammer-Singer loss's subgradient)"
                            if multiclass else "max k(x, x)"),
                    inputs={"N": N, "lam": lam, "R2": R2, "kappa_max": s.kappa_max, **ins}))


def linear_pegasos(s, learner, tr, radii, rows, curves, *, delta):
    """LinearPegasos (BudgetedSVM's -A 0): no stated bound for its step (a row saying so)."""
    rows.append(na(Q_GAP, float("nan"), f"{SSSC11}, Theorem 1",
                   "BudgetedSVM's linear Pegasos steps eta_t = 1/((t + 1) lam) and learns a "
                   "regularised bias coordinate: Theorem 1 is stated for eta_t = 1/(lam t)"))


def amm(s, learner, tr, radii, rows, curves, *, delta):
    """AMMOnline: Theorem 3 of Wang et al. (KDD 2011) is against the comparator with the
    run's own assignments z (not solved in theory/): a row saying so."""
    rows.append(na("(1/T) sum P_t(W_t|z) - (1/T) sum P_t(W*|z)", float("nan"),
                   "Wang, Djuric, Crammer & Vucetic 2011, Theorem 3",
                   "its comparator W*|z minimises the multi-hyperplane problem with the run's "
                   "assignments z fixed, which theory/ does not solve"))
