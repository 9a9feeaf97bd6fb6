r"""``okl bounds`` handlers of Kivinen, Smola & Williamson (IEEE TSP 2004, "NORMA"): NORMA's
margin errors (Theorem 2) and mistakes (Theorem 3) through the untuned forms (45)-(48) of
:mod:`theory.norma`; and of the paper's baselines (:mod:`theory.norma_baselines`):
KernelOGD (Zinkevich 2003, Theorem 1, for its two rates; NORMA's Theorems 2-3 at
``rho = 1``) and ALMA_2 (Gentile 2001: its corrections, a reconstructed bound).
"""
from __future__ import annotations

import math

import numpy as np

from okl.experiments.bounds.report import KSW04, best, cum, curve, na, row

__all__ = ["norma", "kernelogd", "alma", "NORMA_MU_FACTORS"]

ZINK03 = "Zinkevich 2003"
GENTILE01 = "Gentile 2001"

#: Multiples of ``rho + eta' X^2 / 2`` tried as NORMA's comparator margin ``mu``.
NORMA_MU_FACTORS = (1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0)


def norma(s, learner, tr, radii, rows, curves, *, delta):
    """NORMA: Theorems 2 and 3 via (45)-(48), stationary comparator g = mu f_r."""
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
    _theorems23(s, tr, radii, rows, curves, float(learner.eta), float(learner.lam), rho,
                "NORMA", src2, src3)


def _theorems23(s, tr, radii, rows, curves, eta, lam, rho, name, src2, src3):
    """Theorems 2 and 3 of Kivinen et al. via (45)-(48) for a soft-margin run at constant
    ``eta``, ``lam`` and margin ``rho`` (NORMA's, or KernelOGD's hinge at rho = 1)."""
    from theory.norma import eta_prime, margin_error_bound_general, mistake_bound_general

    q2, q3 = "margin errors M_rho (y f <= rho)", "mistakes M (y f <= 0)"
    margin_errors = int(np.sum(s.y * tr.scores <= rho))
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
        curves.append(curve(f"{name}: {src}", "mistakes",
                             "cumulative margin errors" if fn is margin_error_bound_general
                             else "cumulative mistakes",
                             {q: cm},
                             {f"bound (g = {mu:.3g} f*, radius {r:g})":
                              [fn(*args(r, mu, L, t + 1)) for t, L in enumerate(cumL)]}))


def kernelogd(s, learner, tr, radii, rows, curves, *, delta):
    """KernelOGD: Zinkevich's Theorem 1 (lam = 0, both rates; hinge loss) and NORMA's
    Theorems 2 and 3 (KernelOGD is NORMA untruncated: hinge = soft margin at rho = 1;
    constant rate)."""
    from theory.norma_baselines import kernel_ogd_path_distances, ogd_regret_bound

    eta, lam, sched = float(learner.eta), float(learner.lam), learner.schedule
    loss = float(tr.losses.sum())
    q = "regret vs f (every f; the best hinge f in a ball)"
    src = f"{ZINK03}, Theorem 1 ({'eta_t = eta' if sched == 'constant' else 'eta_t = eta/sqrt(t)'})"
    T = s.y.size
    if learner.loss != "hinge":
        rows.append(na(q, loss, src, f"the comparator of okl bounds is the hinge loss's; "
                                     f"loss = {learner.loss!r}"))
    elif lam != 0.0:
        rows.append(na(q, loss, src, f"lam = {lam!r}: the step also shrinks f (NORMA's "
                                     f"theorems below cover it)"))
    else:
        X2 = s.kappa_max
        kd = s.diag
        steps = eta / np.sqrt(np.arange(1, T + 1)) if sched == "sqrt" else np.full(T, eta)
        coef = np.where(s.y * tr.scores < 1.0, steps * s.y, 0.0)   # -eta_t l'_t, 0 at the kink
        cands = []
        for r in radii:
            c = s.hinge(r)
            if sched == "sqrt":
                D2 = float(np.max(kernel_ogd_path_distances(coef, tr.scores, kd, c.fitted,
                                                            c.norm ** 2)))
                b = ogd_regret_bound(c.norm ** 2, eta, T, X2, schedule="sqrt",
                                     max_distance2=D2)
            else:
                D2 = None
                b = ogd_regret_bound(c.norm ** 2, eta, T, X2)
            cands.append((c.loss + b, (r, c, b, D2)))
        _, (r, c, b, D2) = best(cands)
        rows.append(row(q, loss - c.loss, b, src,
                        note=f"f = the best hinge function in the ball of radius {r:g} (of "
                             f"{list(radii)}, the one with the smallest L_T(f) + bound); G^2 = "
                             f"max k(x_t, x_t)" + ("; D^2 = max_t ||f_t - f||^2 measured on "
                                                    "the run (no projection)" if D2 is not None
                                                    else ""),
                        inputs={"radius": r, "f_norm": c.norm, "comparator_loss": c.loss,
                                "learner_loss": loss, "eta": eta, "G2": X2, "T": T,
                                **({} if D2 is None else {"D2": D2})}))
    src2 = f"{KSW04}, Theorem 2 via (45)-(46) (KernelOGD = NORMA untruncated, rho = 1)"
    src3 = f"{KSW04}, Theorem 3 via (46)-(48) (KernelOGD = NORMA untruncated, rho = 1)"
    q3 = "mistakes M (y f <= 0)"
    if learner.loss != "hinge":
        rows.append(na(q3, tr.n_mistakes if tr.is_classification else 0, src3,
                       f"Theorems 2-3 are for the soft margin loss, loss = {learner.loss!r}"))
    elif sched != "constant":
        rows.append(na(q3, tr.n_mistakes, src3,
                       f"Theorems 2-3 take a constant rate, schedule = {sched!r}"))
    else:
        _theorems23(s, tr, radii, rows, curves, eta, lam, 1.0, "KernelOGD", src2, src3)


def alma(s, learner, tr, radii, rows, curves, *, delta):
    """ALMA_2: corrections (and so mistakes) against every f of the normalized kernel
    (theory.norma_baselines.alma2_correction_bound, reconstructed)."""
    from okl.experiments.bounds.report import Stream
    from theory.norma_baselines import alma2_constant, alma2_correction_bound

    e = tr.extras
    m = int(e["n_corrections"])
    alpha, B, C = float(learner.alpha), float(learner.B_), float(learner.C)
    d = np.sqrt(np.maximum(np.diag(s.K), 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        Kn = np.where(np.outer(d, d) > 0, s.K / np.outer(d, d), 0.0)
    sn = Stream.from_gram(Kn, s.y, s.X)
    src = f"{GENTILE01}, ALMA_2 corrections (reconstructed, theory.norma_baselines)"
    cands = [(alma2_correction_bound(sn.hinge(r).loss, sn.hinge(r).norm, alpha, B, C), r)
             for r in radii if sn.hinge(r).norm > 0.0]
    if not cands:
        rows.append(na("corrections m", m, src, "every comparator is f = 0"))
        return
    bound, r = best(cands)
    c = sn.hinge(r)
    ins = {"radius": r, "L": c.loss, "f_norm": c.norm, "alpha": alpha, "B": B, "C": C,
           "a": alma2_constant(alpha, B, C)}
    note = (f"f = the best hinge function of the normalized kernel k(x,v)/sqrt(k(x,x)k(v,v)) "
            f"in the ball of radius r, best over {list(radii)}")
    rows.append(row("corrections m", m, bound, src, note=note, inputs=ins))
    rows.append(row("mistakes (each one is a correction)", tr.n_mistakes, bound, src,
                    note=note, inputs=ins))
    cumL = np.cumsum(sn.hinge_losses(r))
    curves.append(curve(f"ALMA: {src}", "mistakes", "cumulative mistakes",
                        {"mistakes": tr.cumulative_mistakes},
                        {f"bound (f* of radius {r:g})":
                         [alma2_correction_bound(L, c.norm, alpha, B, C) for L in cumL]}))
