r"""``okl bounds`` handlers of the learners of Liao et al. (AAAI 2024, "Ahpatron"): the
Perceptron (Theorems 1 and 2 as quoted there), AVP (Theorem 3, Corollaries 1 and 2),
Ahpatron (Lemma 1, Theorems 4, 5 and 6), the Forgetron (eq. (1) as quoted), and the
paper's other baselines: RBP (eq. (2) as quoted, in expectation), BOGD / BOGD++ (the budget
and the quoted order) and the Projectron / Projectron++ (Orabona, Keshet & Caputo 2009:
mistakes and the dictionary's size).  Every bound is a function of :mod:`theory.ahpatron`.
"""
from __future__ import annotations

import numpy as np

from okl.experiments.bounds.report import (
    EXPECTATION,
    LIAO24,
    ORDER,
    ball_radii,
    best,
    cum,
    curve,
    na,
    row,
    unit_kernel_reason,
)

__all__ = ["perceptron", "avp", "ahpatron", "forgetron", "rbp", "bogd", "projectron",
           "THEOREM6_GAMMAS", "RBP_GAMMAS"]

OKC09 = "Orabona, Keshet & Caputo 2009"

#: Grid of Theorem 6's free parameter gamma in (0, 1) (the best valid one is reported).
THEOREM6_GAMMAS = tuple(float(g) for g in np.round(np.arange(1, 20) / 20.0, 2))


def _mistake_rows(s, tr, name, src, bound, radii, rows, curves, *, note, inputs):
    """The mistakes row against ``bound(L_T(f), ||f||)`` at the best hinge function ``f``
    of the radius (of ``radii``) with the smallest bound, and its anytime curve: the bound
    at the cumulative hinge loss of that ``f`` beside the cumulative mistakes."""
    value, r = best([(bound(s.hinge(r).loss, s.hinge(r).norm), r) for r in radii])
    c = s.hinge(r)
    rows.append(row("mistakes |M_T|", tr.n_mistakes, value, src, note=note,
                    inputs={"radius": r, "L": c.loss, "f_norm": c.norm, **inputs}))
    cumL = np.cumsum(s.hinge_losses(r))
    curves.append(curve(f"{name}: {src}", "mistakes", "cumulative mistakes",
                        {"mistakes": tr.cumulative_mistakes},
                        {f"bound (f* of radius {r:g})": [bound(L, c.norm) for L in cumL]}))


def perceptron(s, learner, tr, radii, rows, curves, *, delta):
    """Perceptron: Theorems 1 and 2 quoted by Liao et al. 2024 (mistakes)."""
    from theory.ahpatron import perceptron_theorem1_bound, perceptron_theorem2_bound

    X2 = s.kappa_max
    for fn, src in ((perceptron_theorem1_bound, f"{LIAO24}, Theorem 1 (Dekel et al. 2005)"),
                    (perceptron_theorem2_bound,
                     f"{LIAO24}, Theorem 2 (Shalev-Shwartz 2007)")):
        _mistake_rows(s, tr, "Perceptron", src, lambda L, norm, fn=fn: fn(L, norm, X2), radii,
                      rows, curves, note=f"best f over radii {list(radii)}",
                      inputs={"kappa_max": X2})


def avp(s, learner, tr, radii, rows, curves, *, delta):
    """AVP: Theorem 3 (constant rate), Corollary 1 or Corollary 2 (mistakes |M'_T|)."""
    from theory.ahpatron import (
        avp_constant_rate_bound,
        avp_corollary1_bound,
        avp_corollary2_bound,
        avp_corollary2_delta,
        avp_corollary2_parameters,
    )

    e = tr.extras
    Mp, N = int(e["M_prime"]), int(e["n_margin"])
    q = "mistakes |M'_T| (y f <= 0)"
    U, eps = float(learner.U), float(learner.eps)
    margins = s.y * tr.scores
    in_N = (margins > 0.0) & (margins < 1.0 - eps)
    cumN = cum(in_N)
    setting = learner.setting
    src = {None: f"{LIAO24}, Theorem 3 (constant rate)", "corollary1": f"{LIAO24}, Corollary 1",
           "corollary2": f"{LIAO24}, Corollary 2"}[setting]
    reason = unit_kernel_reason(s, "the AVP bounds")
    lam = 1.0 if learner.lam is None else float(learner.lam)
    if reason is None and setting is None and not (0.0 < lam < 2.0 and lam / 2.0 < eps < 1.0):
        reason = (f"Theorem 3 needs (5): 0 < lam < 2 and lam/2 < eps < 1; the run has "
                  f"lam = {lam!r}, eps = {eps!r}")
    if reason:
        rows.append(na(q, Mp, src, reason))
        return
    rs = ball_radii(radii, U)
    if setting == "corollary2":
        in_M = margins <= 0.0
        lam_t = np.array([avp_corollary2_parameters(U, int(m)).lam for m in cum(in_M)])
        delta = avp_corollary2_delta(lam_t[in_N], np.full(int(in_N.sum()), eps))
        bound, r = best([(avp_corollary2_bound(s.hinge(r).loss, U, delta), r) for r in rs])
        c = s.hinge(r)
        rows.append(row(q, Mp, bound, src, note=f"best f over radii {list(rs)}",
                         inputs={"radius": r, "L": c.loss, "U": U, "delta": delta,
                                 "n_margin": N}))
        # Delta_t on the prefix t: the sum over N_T cap [t] (one term per round)
        terms = np.array([avp_corollary2_delta(lam_t[t:t + 1], [eps]) if in_N[t] else 0.0
                          for t in range(s.y.size)])
        cum_delta = np.cumsum(terms)

        def prefix_bound(L, t):
            return avp_corollary2_bound(L, U, min(float(cum_delta[t]), 0.0))
    else:
        def solved(L, norm, n):
            if setting == "corollary1":
                return avp_corollary1_bound(L, norm, eps, n)
            return avp_constant_rate_bound(L, norm, lam, eps, n)

        bound, r = best([(solved(s.hinge(r).loss, s.hinge(r).norm, N), r) for r in rs])
        c = s.hinge(r)
        rows.append(row(q, Mp, bound, src, note=f"best f over radii {list(rs)}",
                         inputs={"radius": r, "L": c.loss, "f_norm": c.norm, "lam": lam,
                                 "eps": eps, "n_margin": N}))

        def prefix_bound(L, t):
            return solved(L, c.norm, int(cumN[t]))
    cumL = np.cumsum(s.hinge_losses(r))
    curves.append(curve(f"AVP: {src}", "mistakes", "cumulative mistakes",
                         {"|M'_t|": tr.cumulative_mistakes},
                         {f"bound (f* of radius {r:g})":
                          [prefix_bound(L, t) for t, L in enumerate(cumL)]}))


def ahpatron(s, learner, tr, radii, rows, curves, *, delta):
    """Ahpatron: Lemma 1 (removals), Theorems 4 and 6 (mistakes), Theorem 5."""
    from theory import kernel_alignment
    from theory.ahpatron import (
        ahpatron_lemma1_bound,
        ahpatron_theorem4_bound,
        ahpatron_theorem4_conditions,
        ahpatron_theorem6_bound,
        ahpatron_theorem6_conditions,
    )

    e = tr.extras
    Mp, N, n_upd = int(e["M_prime"]), int(e["n_margin"]), int(e["n_updates"])
    B, U, lam, eps, c = learner.B, float(learner.U_), float(learner.lam_), float(learner.eps), \
        learner.c
    rows.append(row("removals |J| (halvings)", int(e["removals"]),
                     ahpatron_lemma1_bound(n_upd, B), f"{LIAO24}, Lemma 1",
                     inputs={"n_updates": n_upd, "B": B}))
    q = "mistakes |M'_T| (y f <= 0)"
    reason = unit_kernel_reason(s, "the Ahpatron bounds")
    rs = ball_radii(radii, U)
    margins = s.y * tr.scores
    cumN = cum((margins > 0.0) & (margins < 1.0 - eps))

    # Theorem 4
    src4 = f"{LIAO24}, Theorem 4"
    why = reason
    if why is None and c is None:
        why = "c=None (c_t = ||f_t||/U) is Theorem 6's setting; Theorem 4 needs c = 0.6"
    if why is None:
        fails = ahpatron_theorem4_conditions(B, U, lam, eps, c)
        why = "; ".join(fails) if fails else None
    if why:
        rows.append(na(q, Mp, src4, why))
    else:
        bound, r = best([(ahpatron_theorem4_bound(s.hinge(r).loss, s.hinge(r).norm, N, B, U,
                                                   eps).bound, r) for r in rs])
        cm = s.hinge(r)
        rows.append(row(q, Mp, bound, src4, note=f"best f over radii {list(rs)}",
                         inputs={"radius": r, "L": cm.loss, "f_norm": cm.norm, "n_margin": N,
                                 "B": B, "U": U, "eps": eps}))
        cumL = np.cumsum(s.hinge_losses(r))
        curves.append(curve(f"Ahpatron: {src4}", "mistakes", "cumulative mistakes",
                             {"|M'_t|": tr.cumulative_mistakes},
                             {f"bound (f* of radius {r:g})":
                              [ahpatron_theorem4_bound(L, cm.norm, int(cumN[t]), B, U, eps).bound
                               for t, L in enumerate(cumL)]}))

    # Theorem 6: zeta measured on the run; the best gamma of a grid that fits the conditions
    zeta_hat = float(e["zeta_hat"])
    zeta = max(zeta_hat, 1e-12)          # no removal: (11) holds for every zeta > 0
    paper_ok = zeta <= 0.5 and n_upd >= B / 2
    for form in ("safe", "paper"):
        src6 = (f"{LIAO24}, Theorem 6 "
                f"({'reconstructed safe' if form == 'safe' else 'printed'} form)")
        why = reason
        if why is None and c is not None:
            why = f"Theorem 6 needs c_t = ||f_t||/U (c=None), the run has c = {c!r}"
        if why is None and zeta > 2.0:
            why = f"the run's zeta of (11) is {zeta_hat!r} > 2"
        if why is None and form == "paper" and not paper_ok:
            why = (f"the printed form follows only for zeta <= 1/2 and |M'_T| + |N_T| >= B/2 "
                   f"(zeta = {zeta_hat:.4g}, updates = {n_upd}, B = {B})")
        gammas = []
        if why is None:
            gammas = [g for g in THEOREM6_GAMMAS
                      if not ahpatron_theorem6_conditions(B, U, lam, eps, zeta, g)]
            if not gammas:
                why = "; ".join(ahpatron_theorem6_conditions(B, U, lam, eps, zeta,
                                                             THEOREM6_GAMMAS[0])) \
                    + " (at the smallest gamma of the grid)"
        if why:
            rows.append(na(q, Mp, src6, why))
            continue
        bound, (r, g) = best([(ahpatron_theorem6_bound(s.hinge(r).loss, s.hinge(r).norm, N, B,
                                                        U, zeta, g, eps, form=form).bound, (r, g))
                               for r in rs for g in gammas])
        cm = s.hinge(r)
        rows.append(row(q, Mp, bound, src6,
                         note=f"zeta measured on the run; best f over radii {list(rs)} and "
                              f"gamma over {gammas[0]}..{gammas[-1]}",
                         inputs={"radius": r, "L": cm.loss, "f_norm": cm.norm, "n_margin": N,
                                 "B": B, "U": U, "zeta": zeta, "gamma": g, "eps": eps}))

    # Theorem 5: the kernel alignment dominates the best hinge loss in the ball
    src5 = f"{LIAO24}, Theorem 5"
    q5 = "min_{||f|| <= U} L_T(f)"
    if abs(s.kappa_max - 1.0) > 1e-10 or abs(s.kappa_min - 1.0) > 1e-10:
        rows.append(na(q5, s.hinge(U).loss, src5, "Theorem 5 assumes k(x, x) = 1"))
    elif U < 1.0:
        rows.append(na(q5, s.hinge(U).loss, src5, f"Theorem 5 needs U >= 1, U = {U!r}"))
    else:
        A = kernel_alignment(s.K, s.y)
        rows.append(row(q5, s.hinge(U).loss, A, src5, note="bound = kernel alignment A_T",
                         inputs={"U": U}))


def forgetron(s, learner, tr, radii, rows, curves, *, delta):
    """Forgetron: eq. (1) of Liao et al. 2024 as quoted (mistakes)."""
    from theory.ahpatron import forgetron_mistake_bound, forgetron_radius

    q, src = "mistakes |M_T|", f"{LIAO24}, eq. (1) (Forgetron, as quoted)"
    M, B = tr.n_mistakes, learner.B
    reason = unit_kernel_reason(s, "the Forgetron bound")
    if reason:
        rows.append(na(q, M, src, reason))
        return
    R = forgetron_radius(B)
    _mistake_rows(s, tr, "Forgetron", src, lambda L, norm: forgetron_mistake_bound(L, norm, B),
                  ball_radii(radii, R), rows, curves,
                  note=f"f in the ball of radius forgetron_radius(B) = {R:.4g}; the original "
                       f"theorem's restriction on B is not checked", inputs={"B": B})


#: Grid of the free gamma > 1 of RBP's eq. (2) (the best valid one is reported).
RBP_GAMMAS = (1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)


def rbp(s, learner, tr, radii, rows, curves, *, delta):
    """RBP: eq. (2) of Liao et al. 2024 (Cavallanti, Cesa-Bianchi & Gentile), a bound on
    the expected mistakes over the removals' draws."""
    from theory.ahpatron import rbp_expected_mistake_bound, rbp_max_radius

    q, src = "mistakes |M_T|", f"{LIAO24}, eq. (2) (RBP, as quoted)"
    M, B = tr.n_mistakes, int(learner.B)
    reason = unit_kernel_reason(s, "the RBP bound")
    if reason:
        rows.append(na(q, M, src, reason, kind=EXPECTATION))
        return
    cands = []
    for g in RBP_GAMMAS:
        for r in ball_radii(radii, rbp_max_radius(B, g)):
            c = s.hinge(r)
            if c.norm > 0.0:
                cands.append((rbp_expected_mistake_bound(c.loss, c.norm, B, g), (r, g)))
    if not cands:
        rows.append(na(q, M, src, "every comparator is f = 0", kind=EXPECTATION))
        return
    bound, (r, g) = best(cands)
    c = s.hinge(r)
    rows.append(row(q, M, bound, src,
                    note=f"f in the ball of radius (gamma - 1)/(gamma + 1) sqrt(B); best over "
                         f"gamma in {list(RBP_GAMMAS)} and the radii; a bound on the "
                         f"expected mistakes (one draw unless --seeds)",
                    inputs={"radius": r, "L": c.loss, "f_norm": c.norm, "B": B, "gamma": g},
                    kind=EXPECTATION))


def bogd(s, learner, tr, radii, rows, curves, *, delta):
    """BOGD / BOGD++: the budget (every run) and the quoted order
    E|M_T| = L_T(f) + O(UT/sqrt(B) + U sqrt(T)) at constant 1 (an order: checked by
    okl bounds --rate)."""
    from theory.ahpatron import bogd_expected_mistake_bound

    name = type(learner).__name__
    B, T = int(learner.B), int(tr.n_rounds)
    rows.append(row("max budget |S_t|", int(tr.budget.max()), B,
                    f"Zhao et al. 2012 ({name}): the budget maintenance",
                    note="one support vector is removed whenever a full set takes a new one"))
    gamma = learner.gamma
    if gamma is not None:
        top = float(np.max(np.abs(learner.coefficients))) if tr.final_budget else 0.0
        rows.append(row("max |alpha_i| (final)", top, float(learner.eta) * float(gamma),
                        f"Zhao et al. 2012 ({name}): the coefficient clip eta gamma"))
    r = max(radii)
    c = s.hinge(r)
    order = bogd_expected_mistake_bound(c.loss, r, T, B)
    rows.append(row("mistakes |M_T|", tr.n_mistakes, None,
                    f"{LIAO24}, 'Comparison with Previous Results' ({name}: Zhao et al. "
                    f"2012, an order)",
                    note=f"L_T(f) + U T/sqrt(B) + U sqrt(T) at constant 1 = {order:.5g} (U = "
                         f"{r:g}, the best hinge f of that ball): an order, not a bound; its "
                         f"rates in T and B are checked by okl bounds --rate",
                    inputs={"radius": r, "L": c.loss, "order": order, "T": T, "B": B},
                    kind=ORDER))


def projectron(s, learner, tr, radii, rows, curves, *, delta):
    """Projectron / Projectron++: the mistake bounds of Orabona, Keshet & Caputo 2009
    (reconstructed, theory.ahpatron) and the dictionary's size against a cover."""
    from theory.ahpatron import (
        projectron_dictionary_bound,
        projectron_mistake_bound,
        projectronpp_mistake_bound,
    )

    name = type(learner).__name__
    pp = name == "ProjectronPP"
    eta = float(learner.eta)
    X2 = s.kappa_max
    M = tr.n_mistakes
    q = "mistakes |M_T|"
    forms = [] if pp else [(projectron_mistake_bound, f"{OKC09}, Projectron (Perceptron form)",
                            lambda R: eta * R < 1.0)]
    forms.append((projectronpp_mistake_bound,
                  f"{OKC09}, {name} (potential form)",
                  lambda R: eta * R <= 1.0 and 2.0 - 2.0 * eta * R - X2 > 0.0))
    why = None
    if pp and getattr(learner, "margin_update", "paper") != "paper":
        why = f"margin_update = {learner.margin_update!r}: the bound is for the paper's rule"
    for fn, src, ok in forms:
        if why:
            rows.append(na(q, M, src, why))
            continue
        cands = [(fn(s.hinge(r).loss, s.hinge(r).norm, eta, X2), r) for r in radii
                 if ok(s.hinge(r).norm)]
        if not cands:
            rows.append(na(q, M, src, f"no comparator radius of {list(radii)} satisfies the "
                                      f"bound's condition on eta ||g|| (eta = {eta:g}, "
                                      f"X^2 = {X2:.4g})"))
            continue
        bound, r = best(cands)
        c = s.hinge(r)
        rows.append(row(q, M, bound, src, note=f"best g over radii {list(radii)}",
                        inputs={"radius": r, "L": c.loss, "f_norm": c.norm, "eta": eta,
                                "kappa_max": X2}))
        cumL = np.cumsum(s.hinge_losses(r))
        curves.append(curve(f"{name}: {src}", "mistakes", "cumulative mistakes",
                            {"mistakes": tr.cumulative_mistakes},
                            {f"bound (g* of radius {r:g})": [fn(L, c.norm, eta, X2)
                                                             for L in cumL]}))
    qd, srcd = "dictionary size |S_T|", f"{OKC09}, the dictionary's size (eta/2-cover)"
    if eta <= 0.0:
        rows.append(na(qd, int(tr.final_budget), srcd, "eta = 0: the Perceptron, no bound"))
    else:
        cover = projectron_dictionary_bound(s.K, eta)
        rows.append(row(qd, int(tr.final_budget), cover, srcd,
                        note="dictionary points are > eta apart in feature space: at most "
                             "one per ball of a greedy eta/2-cover of the stream",
                        inputs={"eta": eta}))
