r"""``okl bounds`` handlers of Jezequel, Gaillard & Rudi (2019, "AWV"): ``KernelAWV`` /
``PKAWV`` (Propositions 1 and 2, Theorems 3 and 4 for the Taylor basis, Theorems 9 and 6 for
Nystrom / KORS; :mod:`theory.awv`) and the KONS family it compares with, ``SketchedKONS`` /
``ProsNKONS`` (Calandriello, Lazaric & Valko 2017; :mod:`theory.kons`).
"""
from __future__ import annotations

import numpy as np

from okl.experiments.bounds.report import EXPECTATION, JGR19, ORDER, RTOL, curve, na, row

__all__ = ["awv", "kons", "NYSTROM_MAX_WORK"]

#: Largest T^2 |I_n|^2 / 2 for which the Nystrom (KORS) Theorem 9 terms are computed.
NYSTROM_MAX_WORK = 5e9


def awv(s, learner, tr, radii, rows, curves, *, delta):
    """KernelAWV / PKAWV: regret against the kernel ridge comparator (one f* checks every f)."""
    from okl.learners.awv import KernelAWV
    from theory import log_det_term
    from theory.awv import (
        THEOREM4_PROOF_CONSTANT,
        online_leverage,
        proposition1_bound,
        proposition2_bound,
        taylor_mu,
        theorem3_bound,
        theorem4_bound,
        theorem4_condition,
        theorem4_M,
        theorem6_bound,
        theorem9_bound,
        theorem9_terms_nested,
    )
    from theory.spectrum import effective_dimension

    lam = float(learner.lam)
    y = s.y
    T = y.size
    B = float(np.max(np.abs(y)))
    comp = s.ridge(lam)
    regret = float(np.sum((y - tr.scores) ** 2) - comp.loss)
    q = "regret R_n(f*) vs kernel ridge f*"
    base = {"lam": lam, "f_norm2": comp.norm2, "B": B, "comparator_loss": comp.loss}
    if B == 0.0:
        rows.append(na(q, regret, JGR19, "every y_t is 0 (B = 0)"))
        return
    basis = getattr(learner, "basis", None)
    srcs = {None: ["Proposition 1", "Proposition 2"], "taylor": ["Theorem 3", "Theorem 4"],
            "nystrom": ["Theorem 9", "Theorem 6"]}[basis]
    if learner.forecaster != "awv":
        for name in srcs:
            rows.append(na(q, regret, f"{JGR19}, {name}",
                            "forecaster='krr' drops f(x_t)^2 from (3)/(4): the bounds are for "
                            "forecaster='awv'"))
        return
    ev = s.eigenvalues
    logdet = log_det_term(lam=lam, eigenvalues=ev)
    anytime = None
    if isinstance(learner, KernelAWV):
        p1 = proposition1_bound(lam, comp.norm2, B, eigenvalues=ev)
        rows.append(row(q, regret, p1, f"{JGR19}, Proposition 1",
                         inputs={**base, "log_det": logdet}))
        p2 = lam * comp.norm2 + B * B * proposition2_bound(lam=lam, kappa2=s.kappa_max,
                                                           eigenvalues=ev)
        rows.append(row(q, regret, p2, f"{JGR19}, Proposition 2 (in Proposition 1)",
                         note="lam ||f||^2 + B^2 log(e + e n kappa^2 / lam) d_eff(lam)",
                         inputs={**base, "kappa2": s.kappa_max}))
        anytime = ("Proposition 1", 1.0)
    elif basis == "taylor":
        Xd = s.X.toarray() if hasattr(s.X, "toarray") else np.asarray(s.X, dtype=float)
        sigma, M = learner.kernel.sigma, learner.degree
        mu = taylor_mu(Xd, sigma=sigma, M=M, K=s.K)
        rows.append(row(q, regret, theorem3_bound(lam, comp.norm2, B, logdet, mu, T),
                         f"{JGR19}, Theorem 3", note="mu = ||(I - P) C_n^(1/2)||^2 measured",
                         inputs={**base, "log_det": logdet, "mu": mu, "n": T}))
        R = float(np.max(np.linalg.norm(Xd, axis=1)))
        src4 = f"{JGR19}, Theorem 4"
        if R == 0.0 or not theorem4_condition(M, T, lam, R, sigma):
            need = theorem4_M(T, lam, R, sigma) if R > 0 else 0
            rows.append(na(q, regret, src4,
                            f"Theorem 4 needs M >= 8 R^2/sigma^2 and M >= 2 log(n/(lam ^ 1)), "
                            f"i.e. M >= {need} for n = {T}, R = {R:.4g}; the run has M = {M}"))
        else:
            rows.append(row(q, regret, theorem4_bound(lam, comp.norm2, B, logdet), src4,
                             note=f"the 3/2 of the statement (the proof gives "
                                  f"{THEOREM4_PROOF_CONSTANT:.4g})",
                             inputs={**base, "log_det": logdet, "M": M, "R": R}))
            anytime = ("Theorem 4", 1.5)
    else:   # Nystrom / KORS: the dictionaries of the run (a point joins before its forecast)
        rounds = np.asarray(learner.dictionary_rounds, dtype=int)
        dicts = [np.sort(rounds[rounds <= t + 1] - 1) for t in range(T)]
        work = float(T) ** 2 * float(len(dicts[-1])) ** 2 / 2.0
        if work > NYSTROM_MAX_WORK:
            why = (f"the nested Theorem 9 terms cost O(T^2 |I_n|^2) = {work:.2g} flops here "
                   f"(limit {NYSTROM_MAX_WORK:.0e}); pass a shorter prefix")
            for name in srcs:
                rows.append(na(q, regret, f"{JGR19}, {name}", why))
            return
        terms = theorem9_terms_nested(s.K, y, lam, dicts)
        rows.append(row(q, regret, theorem9_bound(terms, lam, comp.norm2, B),
                         f"{JGR19}, Theorem 9",
                         note="terms of the run's nested dictionaries (the proof's form)",
                         inputs={**base, "estimation": terms.estimation,
                                 "changes": terms.n_changes}))
        mu_hat = terms.mu_residual_max
        src6 = f"{JGR19}, Theorem 6"
        if mu_hat > lam:
            rows.append(na(q, regret, src6, f"Theorem 6 needs mu <= lam; the run's "
                                             f"max_t ||(I - P_t) C_t^(1/2)||^2 = {mu_hat:.4g}"))
        else:
            deff = effective_dimension(lam=lam, eigenvalues=ev)
            rows.append(row(q, regret,
                             theorem6_bound(lam, comp.norm2, B, deff, T, s.kappa_max,
                                            len(dicts[-1]), mu_hat), src6,
                             note="mu = the run's max_t ||(I - P_t) C_t^(1/2)||^2 (the event of "
                                  "Proposition 5 then holds)",
                             inputs={**base, "d_eff": deff, "kappa2": s.kappa_max,
                                     "dict_size": len(dicts[-1]), "mu": mu_hat}))
    if anytime is not None:
        # log det(I + K_t / lam) = sum_{s <= t} log(1 + u_s) (Lemma 10), so the bound on the
        # prefix t, for the fixed f*, is lam ||f*||^2 + c B^2 sum_{s <= t} log(1 + u_s)
        name, const = anytime
        u = online_leverage(s.K, lam).u
        reg = np.cumsum((y - tr.scores) ** 2) - np.cumsum((y - comp.fitted) ** 2)
        curves.append(curve(f"{JGR19}, {name}", "regret", "regret",
                             {"regret vs f* (all rounds)": reg},
                             {f"{name} on prefixes": lam * comp.norm2
                              + const * B * B * np.cumsum(np.log1p(u))}))


def kons(s, learner, tr, radii, rows, curves, *, delta):
    """SketchedKONS / ProsNKONS: the online-Newton bounds of theory.kons, eq. (8) as an order."""
    from okl.learners.kons import ProsNKONS
    from theory.kons import (
        eq8_regret,
        kons_logdet_bound,
        kons_regret_bound,
        max_eta,
        pros_n_kons_comparator_terms,
        pros_n_kons_regret_bound,
        sketched_kons_expected_bound,
    )
    from theory.spectrum import effective_dimension

    alpha, C, eta = float(learner.alpha), float(learner.C), float(learner.eta)
    y = s.y
    T = y.size
    pros = isinstance(learner, ProsNKONS)
    src = "Calandriello, Lazaric & Valko 2017 (theory.kons)"
    q = "regret R_n(f) vs ridge f* (alpha/2), scaled into |f(x_t)| <= C"
    ridge = s.ridge(alpha / 2.0)
    a = ridge.coef
    if pros:
        restarts = np.asarray(learner.dictionary_rounds, dtype=int) - 1
        comp = pros_n_kons_comparator_terms(s.K, y, a, restarts)
        top = float(np.max(np.abs(comp.projected_values))) if T else 0.0
    else:
        top = float(np.max(np.abs(ridge.fitted))) if T else 0.0
    scale = min(1.0, C / top) if top > 0 else 1.0
    a = a * scale
    f = s.K @ a
    norm2 = float(a @ f)
    regret = float(np.sum((y - tr.scores) ** 2) - np.sum((y - f) ** 2))
    sum_lev = float(tr.extras["sum_leverage"])
    base = {"alpha": alpha, "eta": eta, "C": C, "f_norm2": norm2, "scale": scale,
            "sum_leverage": sum_lev}
    eta_max = max_eta(tr.scores, y)
    if eta > eta_max * (1.0 + RTOL):
        why = (f"the bounds need eta <= 1/(2 (yhat_t - y_t)^2) every round: "
               f"{eta:.4g} > {eta_max:.4g} on this run (labels beyond C?)")
        rows.append(na(q, regret, src, why))
    elif pros and learner.variant != "paper":
        rows.append(na(q, regret, src, "variant='jgr2019' records forecasts other than the "
                                        "ones it learns from: the bound is for 'paper'"))
    elif pros:
        comp = pros_n_kons_comparator_terms(s.K, y, a, restarts)
        rows.append(row(q, regret, pros_n_kons_regret_bound(alpha, comp, sum_lev),
                         f"{src}, Pros-N-KONS by epochs",
                         note="sum_j alpha/2 ||P_j f||^2 + 1/2 sum_t g^T A_t^-1 g + "
                              "approximation sum_t l(P_j f) - l(f)",
                         inputs={**base, "epochs": int(restarts.size) + 1,
                                 "approximation": comp.approximation}))
    else:
        rows.append(row(q, regret, kons_regret_bound(alpha, norm2, sum_lev),
                         f"{src}, online Newton step (pathwise)",
                         note="alpha/2 ||f||^2 + 1/2 sum_t g^T A~_t^-1 g", inputs=base))
        L = 2.0 * (C + float(np.max(np.abs(y))))
        ev = s.eigenvalues
        gamma, beta = float(learner.gamma), float(learner.beta)
        if gamma == 1.0:
            rows.append(row(q, regret, kons_logdet_bound(alpha, norm2, eta, L, eigenvalues=ev),
                             f"{src}, KONS log-determinant",
                             note="gamma = 1: every gradient kept",
                             inputs={**base, "L": L}))
        else:
            rows.append(row(q, regret,
                             sketched_kons_expected_bound(alpha, norm2, eta, L, beta, gamma,
                                                          eigenvalues=ev),
                             f"{src}, Sketched-KONS in expectation",
                             note="a bound on the expected regret: holds is one draw",
                             inputs={**base, "L": L, "beta": beta, "gamma": gamma},
                             kind=EXPECTATION))
    m = max(int(tr.final_budget), 1)
    deff = effective_dimension(lam=alpha, eigenvalues=s.eigenvalues)
    if pros:
        form = eq8_regret("pros-n-kons", T, alpha, deff, m, mu=float(learner.mu))
        what = "m (lam + d_eff(lam)) + n mu / lam"
    else:
        form = eq8_regret("sketched-kons", T, alpha, deff, m)
        what = "lam + (n/m) d_eff(lam)"
    rows.append(row(f"eq. (8) form {what} (order, no constants)", form,
                     source=f"{JGR19}, eq. (8)",
                     note=f"lam = alpha = {alpha:g}, m = {m}, d_eff(lam) = {deff:.4g}: an "
                          "order, not a bound", kind=ORDER))
