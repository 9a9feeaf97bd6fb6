r"""``okl bounds`` handlers of Li & Liao (AAAI 2023, "POMDR") and of the baselines of its
Table 2 (SkeGD, B(AO)2KS, FOGD, NOGD).

* ``FOGD`` / ``NOGD`` (Lu, Hoi, Wang, Zhao & Liu, JMLR 2016): Theorems 1 and 2 in the form
  of their proofs (OGD in the run's feature space, plus the approximation of the kernel
  comparator, measured on the run), and FOGD's Theorem 1 in probability;
  ``theory.pomdr_baselines``.

* ``POMD`` / ``POMDR``: Theorem 1 on the ALD budget with the exponential and polynomial
  envelopes fitted to the stream's Gram spectrum and the envelope-free interlacing form of
  its proof; Theorem 2 and Corollary 1 on the regret against
  :math:`\min_{\|f\| \le U} \sum_t \max(0, 1 - y_t f(x_t))` (its certified lower bound);
  Lemma 4 with the learner's ``sum_delta``.  Functions of :mod:`theory.pomdr`.
* ``SkeGD`` / ``BAO2KS``: functions of ``theory.pomdr_baselines`` (see its docstring for what
  Li & Liao state about these learners; its Table 1 prints orders only):

Every expression is a function of ``theory.pomdr_baselines`` (see its docstring for what
Li & Liao state about these learners; its Table 1 prints orders only):

* **Memory**, exact for the algorithms as their authors' R code runs them (okl's): SkeGD
  stores ``B`` support vectors plus one per sketch update
  (:func:`~theory.pomdr_baselines.skegd_support`); B(AO)2KS at most ``B + M + 1``
  (:func:`~theory.pomdr_baselines.bao2ks_max_support`, its restart rule).  Checked.
* **Computational complexity** (Table 1, at constant 1): the run's kernel evaluations times
  ``d`` per round (``Trace.extras["kernel_evaluations"]``) against ``d B ln T`` (SkeGD,
  ``poly(ln T) = ln T``) and ``d sqrt(A_T T ln T)`` (B(AO)2KS; applicable when ``B`` is
  at most :func:`~theory.pomdr_baselines.bao2ks_budget`, the regime of the row).  The
  constant 1 is a choice (the paper gives none): ``holds`` says the run's work is within
  the row at that constant.
* **Regret** (Table 1): the run's regret against the best hinge function of norm ``<= U``
  (its certified lower bound, :func:`theory.best_hinge_in_ball`, for each radius of the
  report) beside the orders ``sqrt(T B)`` and ``(A_T T ln T)^{1/4}`` at constant 1, as a
  row with no bound (the ratio is in the note): an order is not a bound.
"""
from __future__ import annotations

import math

import numpy as np

from okl.experiments.bounds.report import HIGH_PROBABILITY, LILIAO23, ORDER, best, curve, na, row

__all__ = ["pomdr", "skegd", "bao2ks", "fogd", "nogd"]

ZINK03 = "Zinkevich 2003"

def pomdr(s, learner, tr, radii, rows, curves, *, delta):
    """POMD / POMDR: Theorem 1 (ALD budget), Lemma 4, Theorem 2 and Corollary 1 (regret)."""
    from okl.learners.pomdr import POMD
    from theory import fit_exponential_decay, fit_polynomial_decay
    from theory.pomdr import (
        ald_budget_spectral_bound,
        ald_threshold,
        corollary1_bound,
        delta_sequence,
        lemma4_bound,
        theorem1_constant,
        theorem1_exponential_bound,
        theorem1_polynomial_bound,
        theorem2_bound,
    )

    e = tr.extras
    Th = int(e["T"])
    zeta, U = float(learner.zeta), float(learner.U)
    Dl, scale = float(learner.D_), float(learner.ald_scale_)
    pomd_only = isinstance(learner, POMD) or math.isinf(e["t_bar"])
    size = int(tr.budget.max())
    q1 = "ALD budget |S_T|"

    # Theorem 1.  The ALD test (5) is sqrt(alpha_t) <= ald_scale T^-zeta, i.e. alpha_t <=
    # D' T^-2zeta with D' = ald_scale^2 (= D by default): Theorem 1's alpha with D'.
    Dthr = scale * scale
    A = s.kappa_min
    bounds1 = {}
    if not pomd_only:
        reason = (f"POMDR switched to OMDR at t_bar = {e['t_bar']} (|S| reached B0 = {e['B0']}); "
                  f"from then on the budget is B = {learner.B}, not the ALD dictionary")
        for fit in ("exponential", "polynomial"):
            rows.append(na(q1, size, f"{LILIAO23}, Theorem 1 ({fit} decay fit)", reason))
    elif A <= 0.0:
        rows.append(na(q1, size, f"{LILIAO23}, Theorem 1",
                        "Theorem 1 needs k(x_t, x_t) >= A > 0"))
    else:
        ev = s.eigenvalues
        alpha = ald_threshold(Th, zeta, Dthr)
        C = theorem1_constant(Th, zeta, Dthr, min(A, Dthr))
        common = {"T": Th, "zeta": zeta, "D": Dthr, "A": min(A, Dthr), "C": C}
        spec = ald_budget_spectral_bound(ev, alpha, A)
        rows.append(row(q1, size, spec, f"{LILIAO23}, proof of Theorem 1 (interlacing)",
                         note="largest k with A alpha^(k-1) <= lambda_1 ... lambda_k",
                         inputs={"alpha": alpha, "A": A}))
        bounds1["interlacing"] = spec
        for fit_name, fit, fn, rate in (
                ("exponential", fit_exponential_decay, theorem1_exponential_bound, "r"),
                ("polynomial", fit_polynomial_decay, theorem1_polynomial_bound, "p")):
            src = f"{LILIAO23}, Theorem 1 ({fit_name} decay fit)"
            try:
                env = fit(eigenvalues=ev)
            except ValueError as exc:
                rows.append(na(q1, size, src, str(exc)))
                continue
            b = fn(Th, zeta, Dthr, env.R0, getattr(env, rate), C)
            note = f"envelope fitted to the {env.n_fit} leading eigenvalues"
            if env.clipped:
                note += f"; the fitted {rate} was clipped into Theorem 1's range"
            if size > env.n_fit:
                note += (f"; |S_T| = {size} > {env.n_fit}: the envelope does not cover "
                         f"lambda_1..lambda_|S_T|, the premise is unchecked")
            rows.append(row(q1, size, b, src, note=note,
                             inputs={**common, "R0": env.R0, rate: getattr(env, rate)}))
            bounds1[f"Theorem 1 ({fit_name})"] = b
    budget_bounds = dict(bounds1)
    if not isinstance(learner, POMD):
        budget_bounds["B"] = float(learner.B)
    curves.append(curve(f"{type(learner).__name__}: budget |S_t| and its bounds", "budget",
                         "support vectors |S_t|", {"|S_t|": tr.budget}, budget_bounds,
                         note="Theorem 1 bounds |S_T| for the horizon T: constant lines"))

    # Lemma 4, with the learner's extras; delta_t recomputed on the Gram matrix
    active = tr.losses > 0
    deltas = delta_sequence(s.K, s.y, learner.M, active)
    sd = float(deltas.sum())
    D = s.kappa_max
    At = s.alignment
    note = "" if abs(e["sum_delta"] - sd) <= 1e-8 * max(1.0, sd) else \
        f"the learner's sum_delta differs from theory.pomdr.sum_delta ({sd!r})"
    rows.append(row("sum_t delta_t", float(e["sum_delta"]), lemma4_bound(At, D),
                     f"{LILIAO23}, Lemma 4", note=note,
                     inputs={"A_T": At, "D": D, "sum_delta_theory": sd}))

    # Theorem 2 and Corollary 1
    comp = s.hinge(U)
    loss = float(tr.losses.sum())
    regret = loss - comp.lower_bound
    q2 = "regret vs min_{||f|| <= U} sum hinge"
    reasons = []
    if zeta != 1.0:
        reasons.append(f"Theorem 2 is stated for zeta = 1, the run has zeta = {zeta!r}")
    if Dl != 1.0 or s.kappa_max > 1.0 + 1e-12:
        reasons.append(f"the proof of Theorem 2 takes D = 1 (sup k(x, x) <= 1 and the rate's "
                       f"3 D); the run has D = {Dl!r}, max k(x_t, x_t) = {s.kappa_max:.6g}")
    if abs(scale - math.sqrt(Dl)) > 1e-12 * max(1.0, scale):
        reasons.append(f"the ALD threshold is scaled (ald_scale = {scale!r}), not (5)")
    if not pomd_only and float(learner.c) != 1.0:
        reasons.append(f"OMDR's reset rate (10) is multiplied by c = {learner.c!r}")
    kw = {} if pomd_only else {"T": Th, "B": learner.B}
    ins = {"U": U, "sum_delta": sd, "A_T": At, "D": D, "learner_loss": loss,
           "comparator_lower_bound": comp.lower_bound, "comparator_loss": comp.loss, **kw}
    case = "POMD only" if pomd_only else f"budgeted, B = {learner.B}"
    for src, fn, arg in ((f"{LILIAO23}, Theorem 2", theorem2_bound, sd),
                         (f"{LILIAO23}, Corollary 1", corollary1_bound, None)):
        if reasons:
            rows.append(na(q2, regret, src, "; ".join(reasons)))
            continue
        b = fn(U, sd, **kw) if arg is not None else fn(U, At, D, **kw)
        rows.append(row(q2, regret, b, src,
                         note=f"{case}; regret measured against the comparator's certified "
                              f"lower bound (>= the true regret)", inputs=ins))
    if not reasons:
        cumd = np.cumsum(deltas)
        reg = np.cumsum(tr.losses) - np.cumsum(s.hinge_losses(U))
        bnd = [theorem2_bound(U, float(d), **({} if pomd_only else {"T": t + 1,
                                                                      "B": learner.B}))
               for t, d in enumerate(cumd)]
        curves.append(curve(f"POMDR: {LILIAO23}, Theorem 2", "regret", "regret",
                             {"regret vs f* (radius U)": reg}, {"Theorem 2 on prefixes": bnd},
                             anytime=False,
                             note="a prefix of a horizon-T run is not a horizon-t run: "
                                  "shape only; the theorem is checked at t = T"))


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
    rows.append(row(f"regret vs min_(||f|| <= {r:g}) sum hinge", reg, None,
                     f"{_SRC} (order {what}, no constant)",
                     note=f"measured / {what} = {reg / order:.4g}; an order is not a bound "
                          f"(the smallest regret over the radii {list(radii)})",
                     inputs={"radius": r, "learner_loss": loss,
                             "comparator_lower_bound": comp.lower_bound, "order": order},
                     kind=ORDER))


def skegd(s, learner, tr, radii, rows, curves, *, delta):
    """SkeGD: its memory rule, Table 1's complexity row at constant 1, the regret order."""
    from theory.pomdr_baselines import skegd_complexity, skegd_regret_bound, skegd_support

    e = tr.extras
    T = int(tr.n_rounds)
    B = int(learner.B)
    d = int(learner.n_features)
    updates = (1 + int(e["refreshes"])) if e["switched"] else 0
    rows.append(row("support vectors |SV_T|", int(tr.final_budget),
                     skegd_support(B, updates), "SkeGD.R (memory rule)",
                     note=f"B = {B} plus one per sketch update ({updates})",
                     inputs={"B": B, "updates": updates}))
    if T >= 2:
        work = e["kernel_evaluations"] * d / T
        rows.append(row("kernel work per round (evaluations x d / T)", work,
                         skegd_complexity(d, B, T), f"{_SRC}, O(dB poly(ln T))",
                         note="constant 1, poly(ln T) = ln T; after the switch a round "
                              f"costs s_m = {learner.sizes_[1]} evaluations",
                         inputs={"d": d, "B": B, "T": T,
                                 "kernel_evaluations": e["kernel_evaluations"]}))
        _regret_rows(s, tr, radii, skegd_regret_bound(T, B), "sqrt(T B)", rows)


def bao2ks(s, learner, tr, radii, rows, curves, *, delta):
    """B(AO)2KS: its restart rule, Table 1's complexity row at constant 1, the regret order."""
    from theory.pomdr_baselines import (bao2ks_budget, bao2ks_complexity,
                                          bao2ks_max_support, bao2ks_regret_bound)

    e = tr.extras
    T = int(tr.n_rounds)
    B, M = int(learner.B), int(e["M"])
    d = int(learner.n_features)
    rows.append(row("max |S_t|", int(tr.max_budget), bao2ks_max_support(B, M),
                     "BA2OKS.R (restart when |S| > B, tested a round late)",
                     note=f"{e['restarts']} restart(s)", inputs={"B": B, "M": M}))
    if T < 2:
        return
    A = s.alignment
    work = e["kernel_evaluations"] * d / T
    budget = bao2ks_budget(A, T)
    if B > budget:
        rows.append(row("kernel work per round (evaluations x d / T)", work, None,
                         f"{_SRC}, O(d sqrt(A_T T ln T))",
                         note=f"not applicable: B = {B} exceeds the row's budget "
                              f"sqrt(A_T T ln T) = {budget:.4g}"))
    else:
        rows.append(row("kernel work per round (evaluations x d / T)", work,
                         bao2ks_complexity(d, A, T), f"{_SRC}, O(d sqrt(A_T T ln T))",
                         note="constant 1", inputs={"d": d, "A_T": A, "T": T,
                                                    "kernel_evaluations":
                                                        e["kernel_evaluations"]}))
    _regret_rows(s, tr, radii, bao2ks_regret_bound(A, T), "(A_T T ln T)^(1/4)", rows)
    curves.append(curve("B(AO)2KS: |S_t| and B + M + 1", "budget", "support vectors |S_t|",
                         {"|S_t|": tr.budget},
                         {"B + M + 1": float(bao2ks_max_support(B, M)), "B": float(B)},
                         note="restart when |S| > B"))


LHWZL16 = "Lu, Hoi, Wang, Zhao & Liu 2016"


def _hinge_grad2(Z, y, scores):
    """sum_t ||l'_t z(x_t)||^2 of the hinge loss (l' = -y when y f < 1, 0 at the kink)."""
    active = y * scores < 1.0
    return float(np.sum(np.einsum("ij,ij->i", Z[active], Z[active])))


def _feature_rows(s, tr, radii, rows, Z, y, scores, eta, w1, name, src, rounds_note):
    """The pathwise form of Lu et al.'s Theorems 1-2 on the rounds of ``Z``: OGD in the
    feature space against the best hinge w in a ball, and against the kernel's best f
    (w = sum_i alpha_i z(x_i), plus the measured approximation term)."""
    from okl.experiments.bounds.report import Stream
    from theory.pomdr_baselines import feature_ogd_regret_bound

    from theory import best_hinge_in_ball

    loss = float(np.sum(np.maximum(0.0, 1.0 - y * scores)))
    g2 = _hinge_grad2(Z, y, scores)
    if s.subset is None:
        sz = Stream.from_gram(Z @ Z.T, y)
    else:                   # a long stream: the best w over the subset's rows, exact loss
        rows_s = np.unique(np.linspace(0, y.size - 1, min(s.subset.size, y.size))
                           .round().astype(int))
        Zs = Z[rows_s]
    cands = []
    for r in radii:
        if s.subset is None:
            c = sz.hinge(r)
            w = Z.T @ c.coef
            closs, cnorm = c.loss, c.norm
        else:
            inner = best_hinge_in_ball(Zs @ Zs.T, y[rows_s], r)
            w = Zs.T @ inner.coef
            closs = float(np.sum(np.maximum(0.0, 1.0 - y * (Z @ w))))
            cnorm = float(np.sqrt(w @ w))
        b = feature_ogd_regret_bound(float(np.sum((w1 - w) ** 2)), eta, g2)
        cands.append((closs + b, (r, closs, cnorm, b)))
    _, (r, closs, cnorm, b) = best(cands)
    rows.append(row("regret vs w (best hinge w in a ball of the feature space)", loss - closs,
                    b, f"{src} (OGD in the feature space, pathwise)",
                    note=f"{rounds_note}; w = the best hinge weight of norm <= {r:g} on these "
                         f"rounds' features (of {list(radii)}); the features of this run",
                    inputs={"radius": r, "f_norm": cnorm, "comparator_loss": closs,
                            "learner_loss": loss, "eta": eta, "sum_grad2": g2}))
    return loss, g2


def fogd(s, learner, tr, radii, rows, curves, *, delta):
    """FOGD: Lu et al. 2016's Theorem 1 -- pathwise in the run's random-feature space, in
    its kernel form with the measured approximation, and in probability (Rahimi & Recht's
    event at the report's delta)."""
    from okl.kernels import Gaussian
    from theory.pomdr_baselines import feature_ogd_regret_bound, fogd_theorem1_bound, rff_epsilon

    src = f"{LHWZL16}, Theorem 1 (FOGD)"
    q = "regret vs f (the best hinge f in a ball of the kernel's RKHS)"
    loss_all = float(tr.losses.sum())
    if learner.loss != "hinge":
        rows.append(na(q, loss_all, src, f"the comparator is the hinge loss's; loss = "
                                         f"{learner.loss!r}"))
        return
    Xd = s.X.toarray() if hasattr(s.X, "toarray") else np.asarray(s.X, dtype=float)
    Z = learner.transform(s.X)
    eta, T = float(learner.eta), s.y.size
    w1 = np.zeros(Z.shape[1])
    loss, g2 = _feature_rows(s, tr, radii, rows, Z, s.y, tr.scores, eta, w1, "FOGD", src,
                             "all rounds")
    cands = []
    for r in radii:
        c = s.hinge(r)
        w = Z.T @ c.coef
        approx = float(np.sum(np.abs(c.fitted - Z @ w)))
        cands.append((c.loss + feature_ogd_regret_bound(float(w @ w), eta, g2, approx=approx),
                      (r, c, approx, float(w @ w))))
    _, (r, c, approx, w2) = best(cands)
    b = feature_ogd_regret_bound(w2, eta, g2, approx=approx)
    rows.append(row(q, loss - c.loss, b, f"{src} (kernel form, approximation measured)",
                    note=f"w = sum_i alpha_i z(x_i) for f = sum_i alpha_i k(x_i, .), the best "
                         f"hinge f of norm <= {r:g}; approx = sum_t |f(x_t) - w.z(x_t)| of "
                         f"this run's features (the term the theorem bounds in probability)",
                    inputs={"radius": r, "f_norm": c.norm, "comparator_loss": c.loss,
                            "learner_loss": loss, "eta": eta, "sum_grad2": g2,
                            "approx": approx, "w_norm2": w2}))
    order = math.sqrt(T) + T / math.sqrt(int(learner.D))
    rows.append(row(q, loss - c.loss, None,
                    "Li & Liao 2023 / Liao et al. 2024 as quoted: O(sqrt(T) + T/sqrt(D)) (an "
                    "order)",
                    note=f"sqrt(T) + T/sqrt(D) at constant 1 = {order:.5g}: an order, not a "
                         f"bound; its rates in T and D are checked by okl bounds --rate "
                         f"(--rate-budgets sweeps D)",
                    inputs={"radius": r, "order": order, "T": T, "D": int(learner.D)},
                    kind=ORDER))
    srcp = f"{src} (in probability, Rahimi & Recht's event)"
    if not isinstance(learner.kernel, Gaussian):
        rows.append(na(q, loss - c.loss, srcp, "sigma_p is written for the Gaussian kernel",
                       kind=HIGH_PROBABILITY, delta=delta))
        return
    d = Xd.shape[1]
    sigma_p = math.sqrt(d) / float(learner.kernel.sigma)
    diam = 2.0 * float(np.max(np.linalg.norm(Xd - Xd.mean(axis=0), axis=1)))
    eps = rff_epsilon(delta, int(learner.D), d, sigma_p, diam)
    a1 = float(np.sum(np.abs(c.coef)))
    bound = fogd_theorem1_bound(a1, eta, T, eps)
    note = (f"epsilon = {eps:.4g} at delta = {delta:g} (D = {learner.D}, d = {d}, sigma_p = "
            f"{sigma_p:.4g}, diameter <= {diam:.4g}); ||alpha||_1 = {a1:.4g}")
    if eps >= 2.0:
        note += ("; epsilon >= 2 >= sup|k - z.z|: the theorem's event says nothing at this D "
                 "(the bound holds trivially)")
    rows.append(row(q, loss - c.loss, bound, srcp, note=note,
                    inputs={"radius": r, "alpha_norm1": a1, "eps": eps, "D": int(learner.D),
                            "eta": eta, "T": T},
                    kind=HIGH_PROBABILITY, delta=delta))


def nogd(s, learner, tr, radii, rows, curves, *, delta):
    """NOGD: stage 1 is kernel OGD (Zinkevich's constant-rate bound); stage 2 is OGD on the
    Nystrom features (Lu et al. 2016, Theorem 2's two terms, pathwise)."""
    from theory.norma_baselines import ogd_regret_bound
    from theory.pomdr_baselines import feature_ogd_regret_bound

    src = f"{LHWZL16}, Theorem 2 (NOGD)"
    q = "regret vs f (the best hinge f in a ball of the kernel's RKHS)"
    if learner.loss != "hinge" or getattr(learner, "stage1", "loss") != "loss":
        rows.append(na(q, float(tr.losses.sum()), src,
                       f"the bounds are for the hinge loss and stage1='loss' (loss = "
                       f"{learner.loss!r}, stage1 = {getattr(learner, 'stage1', None)!r})"))
        return
    e = tr.extras
    eta, T = float(learner.eta), s.y.size
    sw = int(e["switch_round"]) if e.get("switched") else T
    # stage 1: kernel OGD from f_1 = 0 at a constant rate, against every f
    X2 = s.kappa_max
    cands = []
    for r in radii:
        c = s.hinge(r)
        l1 = float(tr.losses[:sw].sum()) - float(np.sum(s.hinge_losses(r)[:sw]))
        cands.append((ogd_regret_bound(c.norm ** 2, eta, max(sw, 1), X2) - l1, (r, c, l1)))
    _, (r, c, l1) = best(cands)
    rows.append(row("stage-1 regret vs f (rounds before the switch)", l1,
                    ogd_regret_bound(c.norm ** 2, eta, max(sw, 1), X2),
                    f"{ZINK03}, Theorem 1 (NOGD's stage 1 = kernel OGD, eta_t = eta)",
                    note=f"{sw} round(s) of kernel OGD; f = the best hinge f of norm <= {r:g} "
                         f"on the whole stream (any f is a valid comparator)",
                    inputs={"radius": r, "f_norm": c.norm, "eta": eta, "T": sw, "G2": X2}))
    if not e.get("switched") or sw >= T:
        rows.append(na(q, float(tr.losses.sum()), src, "the budget never filled: no stage 2"))
        return
    twin = type(learner)(**learner.get_params())
    twin.run(s.X[:sw], s.y[:sw])
    if not (twin.is_switched and np.allclose(twin.decision_function(s.X[sw:sw + 1]),
                                             tr.scores[sw:sw + 1], rtol=1e-12, atol=1e-12)):
        rows.append(na(q, float(tr.losses[sw:].sum()), src,
                       "the replay of stage 1 did not reproduce the run"))
        return
    w1 = np.asarray(twin.weights, dtype=float)
    Z = twin.transform(s.X[sw:])
    y2, sc2 = s.y[sw:], tr.scores[sw:]
    loss, g2 = _feature_rows(s, tr, radii, rows, Z, y2, sc2, eta, w1, "NOGD", src,
                             f"stage 2 (rounds {sw + 1}..{T}) from the weight the switch built")
    from okl.experiments.bounds.report import Stream

    s2 = Stream(s.X[sw:], y2, learner.kernel,
                subset=None if s.subset is None else s.subset.size)
    cands = []
    for r in radii:
        c = s2.hinge(r)
        w = Z.T @ c.coef
        approx = float(np.sum(np.abs(c.fitted - Z @ w)))
        b = feature_ogd_regret_bound(float(np.sum((w1 - w) ** 2)), eta, g2, approx=approx)
        cands.append((c.loss + b, (r, c, b, approx)))
    _, (r, c, b, approx) = best(cands)
    n2 = T - sw
    order = math.sqrt(n2) + n2 / int(learner.B)
    rows.append(row("stage-2 regret vs f (best hinge f of the kernel on those rounds)",
                    loss - c.loss, None,
                    "Li & Liao 2023, Table 1, as quoted: O(sqrt(T) + T/B) (an order; Liao et "
                    "al. 2024 quote T/sqrt(B))",
                    note=f"sqrt(T) + T/B at constant 1 on the stage-2 rounds = {order:.5g}: an "
                         f"order, not a bound (okl bounds --rate)",
                    inputs={"radius": r, "order": order, "T": n2, "B": int(learner.B)},
                    kind=ORDER))
    rows.append(row("stage-2 regret vs f (best hinge f of the kernel on those rounds)",
                    loss - c.loss, b, f"{src} (kernel form, approximation measured)",
                    note=f"w = sum_i alpha_i z(x_i), f of norm <= {r:g}; approx = sum_t "
                         f"|f(x_t) - w.z(x_t)| with this run's Nystrom map (the term the "
                         f"theorem bounds in probability over the B sampled columns)",
                    inputs={"radius": r, "f_norm": c.norm, "comparator_loss": c.loss,
                            "learner_loss": loss, "eta": eta, "sum_grad2": g2,
                            "approx": approx}))
