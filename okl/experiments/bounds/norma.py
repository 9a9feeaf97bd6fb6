r"""``okl bounds`` handlers of Kivinen, Smola & Williamson (IEEE TSP 2004, "NORMA"): NORMA's
margin errors (Theorem 2) and mistakes (Theorem 3) through the untuned forms (45)-(48) of
:mod:`theory.norma`.
"""
from __future__ import annotations

import math

import numpy as np

from okl.experiments.bounds.report import KSW04, best, cum, curve, na, row

__all__ = ["norma", "NORMA_MU_FACTORS"]

#: Multiples of ``rho + eta' X^2 / 2`` tried as NORMA's comparator margin ``mu``.
NORMA_MU_FACTORS = (1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0)


def norma(s, learner, tr, radii, rows, curves, *, delta):
    """NORMA: Theorems 2 and 3 via (45)-(48), stationary comparator g = mu f_r."""
    from theory.norma import eta_prime, margin_error_bound_general, mistake_bound_general

    src2 = f"{KSW04}, Theorem 2 via (45)-(46)"
    src3 = f"{KSW04}, Theorem 3 via (46)-(48)"
    q2, q3 = "margin errors M_rho (y f <= rho)", "mistakes M (y f <= 0)"
    if learner.loss not in ("soft_margin",):
        rows.append(na(q3, tr.n_mistakes if tr.is_classification else 0, src3,
                        f"Theorems 2-3 are for the soft margin loss, loss = {learner.loss!r}"))
        return
    rho = float(learner.rho)
    margin_errors = int(np.sum(s.y * tr.scores <= rho))
    reasons = []
    if learner.schedule != "constant":
        reasons.append(f"Theorems 2-3 take a constant rate, schedule = {learner.schedule!r}")
    if learner.offset:
        reasons.append("the analysis of Sec. IV omits the offset b (offset=True)")
    if learner.tau is not None or learner.tau_power is not None:
        reasons.append("Theorems 2-3 are for the untruncated update (tau / tau_power given)")
    if reasons:
        rows.append(na(q2, margin_errors, src2, "; ".join(reasons)))
        rows.append(na(q3, tr.n_mistakes, src3, "; ".join(reasons)))
        return
    eta, lam = float(learner.eta), float(learner.lam)
    ep = eta_prime(eta, lam)
    X = math.sqrt(s.kappa_max)
    m = s.y.size
    mu0 = rho + ep * X * X / 2.0        # (45)-(46): M_rho <= RHS / (mu - rho - eta' X^2 / 2)

    def args(r, mu, L=None, n=m):
        # g = mu f_r: ||g|| <= B = mu r, L_cum,mu[g] = mu L_T(f_r) (soft_margin_comparator_loss)
        return (mu * (s.hinge(r).loss if L is None else L), mu * r, 0.0, 0.0, n, X, mu, rho,
                ep, lam)

    base = {"eta": eta, "lam": lam, "rho": rho, "eta_prime": ep, "X": X, "D1": 0.0, "D2": 0.0,
            "m": m}
    for fn, q, measured, src, factors in (
            (margin_error_bound_general, q2, margin_errors, src2,
             [f for f in NORMA_MU_FACTORS if f > 1.0]),
            (mistake_bound_general, q3, tr.n_mistakes, src3,
             [f for f in NORMA_MU_FACTORS if f > 1.0 or rho > 0.0])):
        bound, (r, mu) = best([(fn(*args(r, f * mu0)), (r, f * mu0))
                                for r in radii for f in factors])
        a = args(r, mu)
        rows.append(row(q, measured, bound, src,
                         note=f"stationary comparator g = mu f_r (D1 = D2 = 0); best over radii "
                              f"{list(radii)} and mu = ({', '.join(map(str, factors))}) x "
                              f"(rho + eta' X^2 / 2)",
                         inputs={**base, "radius": r, "mu": mu, "K": a[0], "B": a[1]}))
        cumL = np.cumsum(s.hinge_losses(r))
        cm = cum(s.y * tr.scores <= rho) if fn is margin_error_bound_general \
            else tr.cumulative_mistakes
        curves.append(curve(f"NORMA: {src}", "mistakes",
                             "cumulative margin errors" if fn is margin_error_bound_general
                             else "cumulative mistakes",
                             {q: cm},
                             {f"bound (g = {mu:.3g} f*, radius {r:g})":
                              [fn(*args(r, mu, L, t + 1)) for t, L in enumerate(cumL)]}))
