r"""``okl bounds`` handlers of okl's native multiclass learners (issue 26): the
ultraconservative multiclass Perceptron (Crammer & Singer 2003), the multiclass
passive-aggressive algorithms (Crammer et al. 2006) and the multiclass Projectron /
Projectron++ (Orabona, Keshet & Caputo 2009).  Every bound is a function of
:mod:`theory.multiclass` (its docstrings state each theorem and redo its proof; the
conventions are in ``notes/multiclass_algorithms.md``).

The comparator.  The binary handlers take the best hinge function in balls of the radii
``--U``; here a comparator is a tuple of class prototypes :math:`U = (u_r)_r` fitted on the
stream by :func:`theory.multiclass.multiclass_comparator` (a smooth multiclass SVM) for each
weight ``C`` of :data:`COMPARATOR_CS` (``Stream.mc_comparator``: on every row up to
``MC_FIT_ROWS`` rows, else on evenly spaced rows, its margins exact on all of them).  Every
bound holds for every comparator, so each row reports the smallest bound over the family
(a minimum of valid bounds is valid); ``inputs`` hold the comparator's ``C`` and the numbers
the theory function was called with.  ``radii`` is not used.

What is measured.  The mistake bounds of all three families bound the *error rounds*
:math:`m_t = f_{y_t}(x_t) - \max_{r \ne y_t} f_r(x_t) \le 0` on which the learner updates (a
superset of the mistakes: a tie won by the true class, lowest index first, is an error round
but no mistake), ``Trace.scores`` holding the margins :math:`m_t`:

* ``MulticlassPerceptron`` (``convention="paper"``, the family of [CS03] Fig. 2): its
  update rounds are the error rounds: [CS03] Theorem 1 (separable, at the best comparator
  that separates the stream), Theorem 2 (non-separable, at the best :math:`\gamma`), its
  hinge form (Theorem 2 at :math:`\gamma = 1/\|U\|`) and the family's hinge-loss bound
  (:func:`theory.multiclass.ultraconservative_hinge_bound`, derived, not a theorem of
  [CS03]).  ``convention="libol"`` updates on mistakes only: the same bounds count the
  mistakes, except that a uniform or proportional step on a mistake made by a tie leaves
  the family (the rows then say not applicable, checked on the run).
* ``MulticlassPA`` ([PA06], the multiclass section, :math:`R^2 = 2\max_t k(x_t, x_t)`): PA,
  Theorem 3 (Theorem 2 when a comparator makes no loss; for varying :math:`k(x, x)` the
  module's extension with :math:`\rho_+^2/\rho_-^2`) on :math:`\sum_t \ell_t^2`; PA-I,
  Theorem 4 on the error rounds; PA-II, Theorem 5 on :math:`\sum_t \ell_t^2`.  The sums run
  over the update rounds (max-loss: :math:`\ell_t > 0`; prediction-based: the mistakes; PA
  and PA-I skip a round with :math:`k(x_t, x_t) = 0`); an error round has
  :math:`\ell_t \ge 1`, so the bounds on :math:`\sum_t \ell_t^2` also bound the error rounds
  (one row each).
* ``MulticlassProjectron`` / ``MulticlassProjectronPP`` ([OKC09], multiclass): the mistake
  bound in its tight and printed forms (Projectron; :math:`L` over the error rounds), the
  potential-form bound of Projectron++ (:math:`L` over the rounds with :math:`m_t < 1`, a
  superset of its error and margin-update rounds), for comparators with
  :math:`\eta\|U\| < 1` (each fitted comparator and its scalings :math:`\alpha U`,
  :math:`\alpha \le 1`), and the support size against
  :func:`theory.multiclass.projectron_support_bound` (needs the ``T x T`` Gram matrix).
  ``convention="dogma"`` thresholds each class's *squared* residual with ``eta``: its
  projected steps have joint residual at most :math:`\eta' = \sqrt{2\eta}`, which the
  Projectron's rows use; DOGMA's margin-update rule does not keep the potential bound's
  per-update condition, so Projectron++ with it has no mistake bound.
* LIBOKL's budgeted set (``okl/learners/multiclass_budget.py``), through Kesler's
  construction (the handlers' docstrings give each argument): ``MulticlassOGD``, the OGD
  regret bound (:func:`theory.multiclass.multiclass_ogd_regret_bound`) on the whole run;
  ``MulticlassFOGD`` the same in its random-feature space; ``MulticlassNOGD`` on stage 1
  (kernel) and stage 2 (Nystrom features); ``MulticlassBOGD`` (OGD), ``MulticlassRBP`` and
  ``MulticlassForgetron`` (the family's hinge-loss bound) and ``MulticlassBPAs`` (PA-I,
  Theorem 4) on the rounds up to their first removal, plus the budget; rows say why the
  whole-run theorems of BOGD, RBP, the Forgetron and BPA-S are not evaluated.
"""
from __future__ import annotations

import math

import numpy as np

from okl.experiments.bounds.report import EXPECTATION, cum, curve, na, row

__all__ = ["perceptron", "passive_aggressive", "projectron", "ogd", "bogd", "rbp", "forgetron",
           "bpas", "fogd", "nogd", "COMPARATOR_CS", "CS03", "PA06", "OKC09", "comparators",
           "scaled"]

CS03 = "Crammer & Singer 2003"
PA06 = "Crammer et al. 2006"
OKC09 = "Orabona, Keshet & Caputo 2009"

#: Weights ``C`` of the fitted comparators (``theory.multiclass.multiclass_comparator``):
#: small ``C`` gives a short comparator with a large hinge loss, large ``C`` approaches
#: the hard-margin one.
COMPARATOR_CS = (0.1, 1.0, 10.0, 100.0)

#: The fraction ``eta ||alpha U||`` of the scaled comparators of the Projectron's rows.
_SCALES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)


def comparators(s, tr, Cs=COMPARATOR_CS):
    """The fitted comparators of the run's stream, one per ``C`` (cached on ``s``)."""
    return [s.mc_comparator(tr.classes, C) for C in Cs]


def scaled(c, alpha):
    r"""The comparator :math:`\alpha U` (margins, hinge losses and norm recomputed: exact)."""
    from theory.multiclass import MulticlassComparator

    m = alpha * c.margins
    return MulticlassComparator(coef=alpha * c.coef, scores=alpha * c.scores,
                                norm=alpha * c.norm, margins=m, hinge=np.maximum(0.0, 1.0 - m),
                                C=c.C)


def _best(cands):
    """``(value, comparator, extra)`` of the smallest finite value of ``cands`` (triples),
    or None."""
    cands = [c for c in cands if c[0] is not None and math.isfinite(c[0])]
    return min(cands, key=lambda c: c[0]) if cands else None


def _setup(s, tr):
    """``(K, kappa_max, kappa_min, margins)`` of the run (its labels checked against its
    classes)."""
    s.class_indices(tr.classes)
    return int(len(tr.classes)), s.kappa_max, s.kappa_min, np.asarray(tr.scores, float)


def _fit_note(s, Cs=COMPARATOR_CS):
    return f"best comparator over C in {list(Cs)} (theory.multiclass.multiclass_comparator)"


def _comp_inputs(c):
    return {"C": c.C, "U_norm": c.norm}


# -- Crammer & Singer (2003) -----------------------------------------------------------------

def perceptron(s, learner, tr, radii, rows, curves, *, delta):
    """MulticlassPerceptron: [CS03] Theorems 1 and 2, the hinge form of Theorem 2 and the
    family's hinge-loss bound, on the update rounds (error rounds; LIBOL's convention: the
    mistakes)."""
    from theory.multiclass import (
        crammer_singer_comparator_bound,
        crammer_singer_hinge_form,
        crammer_singer_mistake_bound,
        ultraconservative_hinge_bound,
    )

    _, kappa, _, m = _setup(s, tr)
    libol = learner.convention == "libol"
    if libol:
        upd = np.asarray(tr.mistakes, bool)
        q = "mistakes (updates, LIBOL's convention)"
    else:
        upd = m <= 0.0
        q = "error rounds m_t <= 0 (updates)"
    measured = int(upd.sum())
    comps = comparators(s, tr)          # first: the notes name how they were fitted
    why = None
    if libol and learner.update != "max":
        ties = int(np.sum(upd & (m == 0.0)))
        if ties:
            why = (f"convention='libol' with update={learner.update!r}: {ties} mistake(s) "
                   f"made by a tie had an empty strict E, a step outside [CS03]'s family")
    note = _fit_note(s)
    if not libol:
        note += f"; mistakes (pred != y) = {tr.n_mistakes} <= error rounds"
    src1 = f"{CS03}, Theorem 1 (separable)"
    src2 = f"{CS03}, Theorem 2 (non-separable, best gamma)"
    srch = f"{CS03}, Theorem 2 hinge form (gamma = 1/||U||)"
    srcu = f"{CS03}'s family: hinge-loss bound (theory.multiclass, derived)"
    if why:
        for src in (src1, src2, srch, srcu):
            rows.append(na(q, measured, src, why))
        return
    R = math.sqrt(kappa)
    # Theorem 1: the comparators that separate the stream
    b = _best([(crammer_singer_mistake_bound(R, c.gamma), c, None) for c in comps
               if c.gamma > 0.0])
    if b is None:
        rows.append(na(q, measured, src1, "no fitted comparator separates the stream "
                                          "(every one has a margin <= 0)"))
    else:
        v, c, _ = b
        rows.append(row(q, measured, v, src1, note=note, comparator=s.mc_fit,
                        inputs={"R": R, "gamma": c.gamma, "kappa_max": kappa,
                                **_comp_inputs(c)}))
    # Theorem 2, minimized over gamma
    v, c, _ = _best([(crammer_singer_comparator_bound(kappa, c.margins, c.norm), c, None)
                     for c in comps if c.norm > 0.0])
    rows.append(row(q, measured, v, src2, note=note, comparator=s.mc_fit,
                    inputs={"kappa_max": kappa, **_comp_inputs(c)}))
    # the hinge form
    v, c, _ = _best([(crammer_singer_hinge_form(kappa, c.norm, c.sq_loss), c, None)
                     for c in comps])
    rows.append(row(q, measured, v, srch, note=note, comparator=s.mc_fit,
                    inputs={"kappa_max": kappa, "sq_hinge_sum": c.sq_loss, **_comp_inputs(c)}))
    # the family's hinge-loss bound, L over the update rounds
    v, c, _ = _best([(ultraconservative_hinge_bound(kappa, c.norm, float(c.hinge[upd].sum())),
                      c, None) for c in comps])
    L = float(c.hinge[upd].sum())
    rows.append(row(q, measured, v, srcu, note=note + "; L over the update rounds",
                    comparator=s.mc_fit, inputs={"kappa_max": kappa, "L": L,
                                                 **_comp_inputs(c)}))
    cumL = np.cumsum(np.where(upd, c.hinge, 0.0))
    curves.append(curve(f"{type(learner).__name__}: {srcu}", "mistakes", "cumulative updates",
                        {"updates": cum(upd)},
                        {f"bound (comparator C = {c.C:g})":
                         [ultraconservative_hinge_bound(kappa, c.norm, float(x)) for x in cumL]}))


# -- Passive-aggressive (2006) ----------------------------------------------------------------

def passive_aggressive(s, learner, tr, radii, rows, curves, *, delta):
    """MulticlassPA: [PA06] Theorem 3 (PA; Theorem 2 when realizable), Theorem 4 (PA-I),
    Theorem 5 (PA-II), on the update rounds."""
    from theory.multiclass import pa_multiclass_bound

    _, kappa, kmin, m = _setup(s, tr)
    variant, C = learner.variant, float(learner.C)
    kdiag = s.diag
    loss = np.asarray(tr.losses, float)
    if learner.rule == "prediction-based":
        upd = np.asarray(tr.mistakes, bool).copy()
        rule = "the mistakes (prediction-based rule)"
    else:
        upd = loss > 0.0
        rule = "the rounds with loss > 0 (max-loss rule)"
    if variant != "pa2":
        upd &= kdiag > 0.0                    # k(x, x) = 0: PA and PA-I cannot move
    err = upd & (m <= 0.0)
    sq = float(np.sum(loss[upd] ** 2))
    n_err = int(err.sum())
    name = {"pa": "PA", "pa1": "PA-I", "pa2": "PA-II"}[variant]
    comps = comparators(s, tr)
    note = _fit_note(s) + f"; sums over {rule}"
    if variant == "pa1":
        src = f"{PA06}, Theorem 4 (multiclass PA-I)"
        v, c, _ = _best([(pa_multiclass_bound("pa1", kappa, c.norm, loss_sum=c.loss, C=C)[0], c,
                          None) for c in comps])
        rows.append(row("error rounds m_t <= 0 (updated)", n_err, v, src, note=note,
                        comparator=s.mc_fit,
                        inputs={"kappa_max": kappa, "loss_sum": c.loss, "C_pa": C,
                                **_comp_inputs(c)}))
        curves.append(curve(f"{name}: {src}", "mistakes", "cumulative error rounds",
                            {"error rounds": cum(err)},
                            {f"bound (comparator C = {c.C:g})":
                             [pa_multiclass_bound("pa1", kappa, c.norm, loss_sum=float(x),
                                                  C=C)[0] for x in np.cumsum(c.hinge)]}))
        return
    kw = {}
    if variant == "pa":
        if kmin <= 0.0:
            src = f"{PA06}, Theorem 3 (multiclass PA)"
            why = "min_t k(x_t, x_t) = 0: Theorem 3 needs ||Phi(x, y) - Phi(x, s)|| > 0"
            rows.append(na("sum of squared losses (updates)", sq, src, why))
            rows.append(na("error rounds m_t <= 0 (updated)", n_err,
                           src + ", on the error rounds (each has loss >= 1)", why))
            return
        kw["kappa_min"] = kmin
    cands = []
    for c in comps:
        v, _ = pa_multiclass_bound(variant, kappa, c.norm, sq_loss_sum=c.sq_loss,
                                   C=C if variant == "pa2" else None, **kw)
        cands.append((v, c, None))
    v, c, _ = _best(cands)
    if variant == "pa2":
        src = f"{PA06}, Theorem 5 (multiclass PA-II)"
    elif c.sq_loss == 0.0:
        src = f"{PA06}, Theorem 2 (multiclass PA, realizable)"
    elif kmin < kappa:
        src = f"{PA06}, Theorem 3 (multiclass PA; varying k(x, x): theory's extension)"
    else:
        src = f"{PA06}, Theorem 3 (multiclass PA)"
    inputs = {"kappa_max": kappa, "sq_loss_sum": c.sq_loss, **_comp_inputs(c)}
    if variant == "pa2":
        inputs["C_pa"] = C
    else:
        inputs["kappa_min"] = kmin
    rows.append(row("sum of squared losses (updates)", sq, v, src, note=note,
                    comparator=s.mc_fit, inputs=inputs))
    rows.append(row("error rounds m_t <= 0 (updated)", n_err, v,
                    src + ", on the error rounds (each has loss >= 1)", note=note,
                    comparator=s.mc_fit, inputs=inputs))
    cum_sq = np.cumsum(np.where(upd, loss ** 2, 0.0))
    curves.append(curve(f"{name}: {src}", "regret", "cumulative squared loss",
                        {"sum of l_t^2": cum_sq},
                        {f"bound (comparator C = {c.C:g})":
                         [pa_multiclass_bound(variant, kappa, c.norm, sq_loss_sum=float(x),
                                              C=C if variant == "pa2" else None, **kw)[0]
                          for x in np.cumsum(c.hinge ** 2)]}))


# -- Projectron, Projectron++ (2009) -----------------------------------------------------------

def projectron(s, learner, tr, radii, rows, curves, *, delta):
    """MulticlassProjectron / MulticlassProjectronPP: the mistake bounds (error rounds) and
    the support size."""
    from theory.multiclass import (
        projectron_mistake_bound,
        projectron_support_bound,
        projectronpp_mistake_bound,
    )

    from okl.learners.multiclass_projectron import MulticlassProjectronPP

    K, kappa, _, m = _setup(s, tr)
    pp = isinstance(learner, MulticlassProjectronPP)
    name = type(learner).__name__
    eta = float(learner.eta)
    dogma = learner.convention == "dogma"
    eta_b = math.sqrt(2.0 * eta) if dogma else eta
    eta_note = (f"convention='dogma': eta' = sqrt(2 eta) = {eta_b:.4g} bounds the joint "
                f"residual of its projected steps" if dogma else "")
    err = m <= 0.0
    n_err = int(err.sum())
    q = "error rounds m_t <= 0 (updates)"
    comps = comparators(s, tr)
    note = _fit_note(s) + " and its scalings alpha U (alpha <= 1, eta ||alpha U|| < 1)"
    if eta_note:
        note += "; " + eta_note

    def family(c):
        out = [c]
        if eta_b > 0.0 and eta_b * c.norm > 0.0:
            out += [scaled(c, f / (eta_b * c.norm)) for f in _SCALES
                    if f / (eta_b * c.norm) < 1.0]
        return [g for g in out if eta_b * g.norm < 1.0]

    cands = [g for c in comps for g in family(c)]
    if not pp:
        forms = [("tight", f"{OKC09}, multiclass Projectron (tight form)"),
                 ("paper", f"{OKC09}, multiclass Projectron (printed form)")]
        for form, src in forms:
            if not cands:
                rows.append(na(q, n_err, src, f"no comparator has eta ||U|| < 1 (eta = "
                                              f"{eta_b:g})"))
                continue
            v, g, _ = _best([(projectron_mistake_bound(kappa, g.norm, eta_b,
                                                       float(g.hinge[err].sum()), form=form),
                              g, None) for g in cands])
            L = float(g.hinge[err].sum())
            rows.append(row(q, n_err, v, src, note=note + "; L over the error rounds",
                            comparator=s.mc_fit,
                            inputs={"kappa_max": kappa, "eta": eta_b, "L": L, "C": g.C,
                                    "U_norm": g.norm}))
            if form == "tight":
                cumL = np.cumsum(np.where(err, g.hinge, 0.0))
                curves.append(curve(f"{name}: {src}", "mistakes", "cumulative error rounds",
                                    {"error rounds": cum(err)},
                                    {f"bound (comparator C = {g.C:g}, scaled)":
                                     [projectron_mistake_bound(kappa, g.norm, eta_b, float(x))
                                      for x in cumL]}))
    else:
        src = f"{OKC09}, multiclass Projectron++ (potential form, theory.multiclass)"
        near = m < 1.0                  # error and margin-update rounds are among these
        if dogma:
            rows.append(na(q, n_err, src, "convention='dogma': DOGMA's margin-update step "
                                          "does not keep the bound's per-update condition"))
        elif not cands:
            rows.append(na(q, n_err, src, f"no comparator has eta ||U|| < 1 (eta = {eta_b:g})"))
        else:
            v, g, _ = _best([(projectronpp_mistake_bound(kappa, g.norm, eta_b,
                                                         float(g.hinge[near].sum())), g, None)
                             for g in cands])
            L = float(g.hinge[near].sum())
            rows.append(row(q, n_err, v, src,
                            note=note + "; L over the rounds with m_t < 1 (a superset of the "
                                        "error and margin-update rounds)",
                            comparator=s.mc_fit,
                            inputs={"kappa_max": kappa, "eta": eta_b, "L": L, "C": g.C,
                                    "U_norm": g.norm}))
            cumL = np.cumsum(np.where(near, g.hinge, 0.0))
            curves.append(curve(f"{name}: {src}", "mistakes", "cumulative error rounds",
                                {"error rounds": cum(err)},
                                {f"bound (comparator C = {g.C:g}, scaled)":
                                 [projectronpp_mistake_bound(kappa, g.norm, eta_b, float(x))
                                  for x in cumL]}))
    # the support size (last: it needs the T x T Gram matrix)
    qs = "support size |S_T|"
    srcs = f"{OKC09}, the support set (theory.multiclass.projectron_support_bound)"
    n_sv = int(tr.final_budget)
    if eta_b <= 0.0:
        rows.append(na(qs, n_sv, srcs, "eta = 0: the Perceptron, no bound"))
        return
    sb = projectron_support_bound(s.K, eta_b, span=learner.span, n_classes=K)
    rows.append(row(qs, n_sv, sb.value, srcs,
                    note=(f"min of the determinant bound ({sb.determinant}), the "
                          f"eta/(2 sqrt 2)-cover ({sb.cover})"
                          + (f" (times K = {K}: per-class spans)" if learner.span == "class"
                             else "") + " and T" + (f"; {eta_note}" if eta_note else "")),
                    inputs={"eta": eta_b, "span": learner.span, "n_classes": K,
                            "determinant": sb.determinant, "cover": sb.cover}))


# -- LIBOKL's budgeted multiclass set (Lu et al. 2016's toolbox, multiclass/) -------------------
#
# Kesler's construction.  A multiclass F = (f_r)_r and the vector v_t = phi(x_t) (x) (e_{y_t} -
# e_{s_t}) have <F, v_t> = f_{y_t}(x_t) - f_{s_t}(x_t) = m_t (s_t the best wrong class) and
# ||v_t||^2 = 2 k(x_t, x_t); a comparator U has <U, v_t> >= m_t(U), so its binary hinge loss
# on v_t is at most its Crammer-Singer hinge loss l_t(U).  Every update of these learners puts
# + on y_t and - on s_t: a binary step along v_t.  What each handler evaluates, and why the
# rest is not, is in its docstring.

LHWZL16 = "Lu, Hoi, Wang, Zhao & Liu 2016"
ZINK03 = "Zinkevich 2003"
Q_REGRET = "regret vs U (sum_t l_t(F_t) - l_t(U))"

#: Scalings alpha U of the fitted comparators tried by the OGD regret rows (the bound's
#: ||U||^2 / (2 eta) favours short comparators).
_OGD_ALPHAS = (0.1, 0.25, 0.5, 1.0)


def _first_full_update(tr, B, upd):
    """0-based index of the first round that updates with ``B`` support vectors held (the
    first budget maintenance), or None."""
    before = np.r_[0, np.asarray(tr.budget, dtype=np.int64)[:-1]]
    hit = np.flatnonzero(np.asarray(upd, bool) & (before >= B))
    return int(hit[0]) if hit.size else None


def _budget_row(learner, tr, rows, src):
    B = int(learner.B)
    rows.append(row("max budget |S_t|", int(tr.budget.max()), B, src,
                    note="a full support set removes (or replaces) one vector before it "
                         "takes a new one", inputs={"B": B}))


def _ogd_family(comps):
    return [(scaled(c, a) if a != 1.0 else c, a) for c in comps for a in _OGD_ALPHAS]


def _kernel_ogd_row(s, tr, rows, comps, *, eta, lam, stop, src, what):
    """The OGD regret row (theory.multiclass.multiclass_ogd_regret_bound) on rounds
    ``0 .. stop - 1`` of a kernel OGD run from F_1 = 0 (every round decays by 1 - eta lam;
    ``l_t > 0``: +eta on y_t, -eta on s_t), against the fitted comparators and their
    scalings.  ``lam > 0``: the regularised losses l_t + lam/2 ||F||^2 (NORMA's)."""
    from theory.multiclass import multiclass_ogd_path, multiclass_ogd_regret_bound

    m = np.asarray(tr.scores, float)[:stop]
    loss = np.asarray(tr.losses, float)[:stop]
    upd = loss > 0.0
    N, g2 = multiclass_ogd_path(2.0 * s.diag[:stop], m, upd, eta, lam)
    sum_g2 = float(g2.sum())
    learner_side = float(loss.sum() + 0.5 * lam * N.sum())
    cands = []
    for g, a in _ogd_family(comps):
        comp_side = float(g.hinge[:stop].sum()) + 0.5 * lam * stop * g.norm ** 2
        b = multiclass_ogd_regret_bound(g.norm ** 2, eta, sum_g2)
        cands.append((comp_side + b, g, (a, comp_side, b)))
    _, g, (a, comp_side, b) = _best(cands)
    q = Q_REGRET if lam == 0.0 else \
        "regret vs U of l_t + lam/2 ||F||^2 (sum_t c_t(F_t) - c_t(U))"
    rows.append(row(q, learner_side - comp_side, b, src,
                    note=(f"{what}; U = alpha x a fitted comparator ({_fit_note(s)}, alpha in "
                          f"{list(_OGD_ALPHAS)}; the one with the least comparator loss + "
                          f"bound); sum ||g_t||^2 = 2 sum k(x_t, x_t) over the updates"
                          + ("" if lam == 0.0 else
                             " plus the decay's terms (theory.multiclass.multiclass_ogd_path)")),
                    comparator=s.mc_fit,
                    inputs={"eta": eta, "lam": lam, "rounds": stop, "sum_grad2": sum_g2,
                            "learner_loss": learner_side, "comparator_loss": comp_side,
                            "alpha": a, **_comp_inputs(g)}))


def ogd(s, learner, tr, radii, rows, curves, *, delta):
    r"""MulticlassOGD (LIBOKL's ``ogd.m``): the regret of online gradient descent,
    [Z03] Theorem 1 at a constant step (NORMA's analysis, Kivinen et al. 2004, with
    ``lam > 0``), through Kesler's construction.

    okl's core (``MulticlassOGDCore``): every round the coefficients decay by
    ``1 - eta lam``; if ``l_t > 0``, ``+eta`` on ``y_t`` and ``-eta`` on ``s_t`` (the best
    wrong class).  In Kesler's space that is ``F_{t+1} = F_t - eta g_t`` with
    ``g_t = lam F_t - v_t`` a subgradient of ``l_t + lam/2 ||F||^2`` (``-v_t`` is one of the
    Crammer-Singer hinge at ``F_t`` when ``l_t > 0``), so for every comparator ``U``
    ``sum_t c_t(F_t) - c_t(U) <= ||U||^2 / (2 eta) + (eta/2) sum_t ||g_t||^2``, with
    ``||g_t||^2 = 2 k(x_t, x_t)`` on the updates at ``lam = 0``
    (:func:`theory.multiclass.multiclass_ogd_regret_bound`; the decay's terms by
    :func:`theory.multiclass.multiclass_ogd_path` from the run's margins)."""
    s.class_indices(tr.classes)
    comps = comparators(s, tr)
    eta, lam = float(learner.eta), float(learner.lam)
    src = (f"{ZINK03}, Theorem 1 (constant step; Kesler's construction, "
           f"theory.multiclass.multiclass_ogd_regret_bound)" if lam == 0.0 else
           f"{KSW04_NAME} / {ZINK03}, OGD on l_t + lam/2 ||F||^2 (Kesler's construction, "
           f"theory.multiclass.multiclass_ogd_regret_bound)")
    _kernel_ogd_row(s, tr, rows, comps, eta=eta, lam=lam, stop=int(tr.n_rounds), src=src,
                    what="all rounds")


KSW04_NAME = "Kivinen, Smola & Williamson 2004"


def bogd(s, learner, tr, radii, rows, curves, *, delta):
    r"""MulticlassBOGD (LIBOKL's ``BOGD.m``): the budget, and the OGD regret bound of
    :func:`ogd` on the rounds up to the first removal; no bound on the whole run.

    Up to (and including) the first round that updates with ``B`` held, okl's core is
    ``MulticlassOGDCore``'s update (decay ``1 - eta lam`` every round, ``+eta`` / ``-eta``
    on ``y_t`` / ``s_t`` when ``l_t > 0``), so every ``F_t`` of those rounds is an OGD
    iterate and the regret bound holds on that prefix (it holds on every prefix).  Zhao
    et al. (ICML 2012)'s BOGD bound is on the expected loss over a *uniform* removal with
    the ``B / (B - 1)`` rescaling: ``removal="oldest"`` (the toolbox) is not that
    algorithm, and ``removal="uniform"`` gives one draw of an expectation; neither is
    evaluated (a row says why)."""
    s.class_indices(tr.classes)
    B = int(learner.B)
    _budget_row(learner, tr, rows, f"{LHWZL16} (MulticlassBOGD): the budget maintenance")
    loss = np.asarray(tr.losses, float)
    t0 = _first_full_update(tr, B, loss > 0.0)
    stop = int(tr.n_rounds) if t0 is None else t0 + 1
    comps = comparators(s, tr)
    eta, lam = float(learner.eta), float(learner.lam)
    src = (f"{ZINK03}, Theorem 1 / {KSW04_NAME} (BOGD before its first removal = multiclass "
           f"kernel OGD; Kesler's construction)")
    _kernel_ogd_row(s, tr, rows, comps, eta=eta, lam=lam, stop=stop, src=src,
                    what=("all rounds (no removal)" if t0 is None else
                          f"rounds 1..{stop} (up to the first removal, round {stop})"))
    srcz = "Zhao, Wang, Wu, Jin & Hoi 2012, BOGD's bound (whole run)"
    if learner.removal == "oldest":
        rows.append(na("mistakes (whole run)", tr.n_mistakes, srcz,
                       "removal='oldest' (LIBOKL's BOGD.m) drops the oldest vector without the "
                       "B/(B-1) rescaling: a heuristic; Zhao et al.'s bound is for a uniformly "
                       "drawn removal with the rescaling, in expectation"))
    else:
        rows.append(na("mistakes (whole run)", tr.n_mistakes, srcz,
                       "a bound on the expectation over the removal draws, which one run "
                       "does not check; its statement is for a fixed binary sequence, and the "
                       "Kesler vectors phi(x_t)(e_y - e_{s_t}) depend on the draws through "
                       "s_t: not carried over here", kind=EXPECTATION))


def _perceptron_prefix_row(s, tr, rows, B, name):
    """[CS03]'s family bound (theory.multiclass.ultraconservative_hinge_bound) on the
    mistakes up to the first removal: there the learner is the max-score multiclass
    Perceptron updating on its mistakes (LIBOL's convention)."""
    from theory.multiclass import ultraconservative_hinge_bound

    _, kappa, _, m = _setup(s, tr)
    mis = np.asarray(tr.mistakes, bool)
    t0 = _first_full_update(tr, B, mis)
    stop = int(tr.n_rounds) if t0 is None else t0 + 1
    upd = np.zeros(mis.size, bool)
    upd[:stop] = mis[:stop]
    comps = comparators(s, tr)
    v, c, _ = _best([(ultraconservative_hinge_bound(kappa, c.norm, float(c.hinge[upd].sum())),
                      c, None) for c in comps])
    L = float(c.hinge[upd].sum())
    what = ("all rounds (no removal)" if t0 is None else
            f"rounds 1..{stop} (up to the first removal, round {stop})")
    rows.append(row(f"mistakes on {what}", int(upd.sum()), v,
                    f"{CS03}'s family: hinge-loss bound ({name} before its first removal = "
                    f"the max-score multiclass Perceptron)",
                    note=f"{_fit_note(s)}; L over those mistakes (the updates)",
                    comparator=s.mc_fit,
                    inputs={"kappa_max": kappa, "L": L, "rounds": stop, **_comp_inputs(c)}))


def rbp(s, learner, tr, radii, rows, curves, *, delta):
    r"""MulticlassRBP (LIBOKL's ``RBP.m``): the budget and [CS03]'s family bound on the
    mistakes up to the first removal; Cavallanti, Cesa-Bianchi & Gentile (2007)'s bound is
    not evaluated.

    okl's core: on a mistake ``+1`` on ``y_t``, ``-1`` on ``s_t`` (= the prediction), a
    uniformly drawn vector removed first when ``B`` are held.  Before the first removal it
    is the multiclass Perceptron (LIBOL's convention, max-score step), whose update rounds
    obey :func:`theory.multiclass.ultraconservative_hinge_bound` (on every prefix).  The
    RBP theorem bounds the *expected* mistakes over the removal draws for a fixed binary
    sequence with ``||x|| <= 1`` (as quoted by ``theory.ahpatron``): one run does not check
    an expectation, and the Kesler vectors (squared norm ``2 k(x, x)``) depend on the
    draws through ``s_t``."""
    B = int(learner.B)
    _budget_row(learner, tr, rows, f"Cavallanti, Cesa-Bianchi & Gentile 2007 "
                                   f"(MulticlassRBP): the budget maintenance")
    _perceptron_prefix_row(s, tr, rows, B, "RBP")
    rows.append(na("mistakes (whole run)", tr.n_mistakes,
                   "Cavallanti, Cesa-Bianchi & Gentile 2007, RBP's expected mistake bound",
                   "a bound on the expectation over the removal draws (one run does not "
                   "check it), stated for a fixed binary sequence with ||x|| <= 1; the Kesler "
                   "vectors have squared norm 2 k(x, x) and depend on the draws through s_t: "
                   "not carried over here", kind=EXPECTATION))


#: The Forgetron's budget condition (Dekel, Shalev-Shwartz & Singer 2008, Theorem 1).
FORGETRON_MIN_B = 83


def forgetron(s, learner, tr, radii, rows, curves, *, delta):
    r"""MulticlassForgetron (LIBOKL's ``forgetron.m``): the budget and [CS03]'s family
    bound on the mistakes up to the first removal; the Forgetron's theorem is not
    evaluated.

    Before its first removal the core is the multiclass Perceptron (``+1`` / ``-1`` on
    ``y_t`` / ``s_t`` on a mistake).  Dekel, Shalev-Shwartz & Singer (2008)'s bound
    (``B >= 83``, ``||u|| <= U = (1/4) sqrt((B + 1) / log(B + 1))``, ``||x|| <= 1``) rests
    on the shrinking keeping ``Q <= 15/32 M`` with ``Psi`` the damage of removing the
    oldest vector, ``mu`` its margin: in Kesler's space the removed vector is
    ``delta phi(x_r) (e_{y_r} - e_{s_r})``, of margin ``f'_{y_r}(x_r) - f'_{s_r}(x_r)``
    and squared norm ``2 delta^2 k(x_r, x_r)``, while ``forgetron.m`` (and okl) take
    ``mu = f'_{y_r}(x_r)`` and ``delta^2``; ``root="toolbox"`` also scales the model up.
    The accounting does not track the removal's damage, so the theorem does not carry
    over."""
    B = int(learner.B)
    _budget_row(learner, tr, rows, f"Dekel, Shalev-Shwartz & Singer 2008 "
                                   f"(MulticlassForgetron): the budget maintenance")
    _perceptron_prefix_row(s, tr, rows, B, "the Forgetron")
    why = ("LIBOKL's multiclass shrinking takes mu = f'_{y_r}(x_r) (the true class's score) "
           "and ||removed||^2 = delta^2, where the Kesler vector of the removed example has "
           "margin f'_{y_r}(x_r) - f'_{s_r}(x_r) and squared norm 2 delta^2 k(x_r, x_r): "
           "Q <= 15/32 M does not bound the removals' damage")
    if learner.root == "toolbox":
        why += "; root='toolbox' takes the larger root for a < 0 (phi > 1 scales up)"
    if B < FORGETRON_MIN_B:
        why += f"; the theorem also needs B >= {FORGETRON_MIN_B}, B = {B}"
    rows.append(na("mistakes (whole run)", tr.n_mistakes,
                   "Dekel, Shalev-Shwartz & Singer 2008, Theorem 1 (self-tuned Forgetron)", why))


def bpas(s, learner, tr, radii, rows, curves, *, delta):
    r"""MulticlassBPAs (LIBOKL's ``BPAs.m``): the budget and [PA06] Theorem 4 (PA-I) on the
    rounds up to the first replacement; no bound on the whole run.

    Below the budget okl's core is multiclass PA-I with the max-loss rule: if ``l_t > 0``,
    ``tau = min(C, l_t / (2 k(x_t, x_t)))`` on ``+y_t`` / ``-s_t``, ``2 k(x, x)`` the
    squared norm of the Kesler vector; Theorem 4's chain (Lemma 1, on every prefix) bounds
    its error rounds by :func:`theory.multiclass.pa1_mistake_bound` with the comparator's
    hinge loss over those rounds.  A budget-full update replaces a support vector by
    ``x_t`` with a projected row: an extra change of ``F`` that Lemma 1 does not cover,
    and Wang & Vucetic (2010) state no mistake bound that okl's theory evaluates for it."""
    from theory.multiclass import pa1_mistake_bound

    _, kappa, kmin, m = _setup(s, tr)
    B, C = int(learner.B), float(learner.C)
    _budget_row(learner, tr, rows, "Wang & Vucetic 2010 (MulticlassBPAs): the budget "
                                   "maintenance")
    src = f"{PA06}, Theorem 4 (BPA-S before its first replacement = multiclass PA-I)"
    loss = np.asarray(tr.losses, float)
    t0 = _first_full_update(tr, B, loss > 0.0)
    stop = int(tr.n_rounds) if t0 is None else t0 + 1
    err = (loss > 0.0) & (m <= 0.0)
    err[stop:] = False
    what = ("all rounds (no replacement)" if t0 is None else
            f"rounds 1..{stop} (up to the first replacement, round {stop})")
    q = f"error rounds m_t <= 0 on {what}"
    if kmin <= 0.0:
        rows.append(na(q, int(err.sum()), src, "min_t k(x_t, x_t) = 0: the step divides by "
                                                "2 k(x_t, x_t)"))
    else:
        comps = comparators(s, tr)
        v, c, _ = _best([(pa1_mistake_bound(kappa, c.norm, float(c.hinge[:stop].sum()), C),
                          c, None) for c in comps])
        rows.append(row(q, int(err.sum()), v, src,
                        note=f"{_fit_note(s)}; the comparator's loss over those rounds",
                        comparator=s.mc_fit,
                        inputs={"kappa_max": kappa, "loss_sum": float(c.hinge[:stop].sum()),
                                "C_pa": C, "rounds": stop, **_comp_inputs(c)}))
    rows.append(na("error rounds (whole run)", int(((loss > 0.0) & (m <= 0.0)).sum()),
                   "Wang & Vucetic 2010, BPA-S (whole run)",
                   "a budget-full update replaces a support vector in place (r's row projected "
                   "on x_t): a change of F outside PA-I's step, which Lemma 1 does not cover; "
                   "theory/ has no bound for it"))


# -- feature-space OGD (FOGD, NOGD's stage 2) ------------------------------------------------------

def _feature_comparators(s, Z, idx, K, Cs=COMPARATOR_CS):
    """Comparators ``W`` (``K x p``) in the run's feature space: the multiclass comparator
    of the Gram matrix ``Z Z^T`` (on at most ``MC_FIT_ROWS`` evenly spaced rows), ``W =
    coef^T Z``, its hinge losses exact on every row.  Returns ``[(C, W, hinge)]``."""
    from threadpoolctl import threadpool_limits

    from okl.experiments.bounds import report as rp
    from theory.multiclass import multiclass_comparator, multiclass_hinge

    T = Z.shape[0]
    S = np.unique(np.linspace(0, T - 1, min(rp.MC_FIT_ROWS, T)).round().astype(int))
    G = Z[S] @ Z[S].T
    out = []
    with threadpool_limits(1):
        for C in Cs:
            c = multiclass_comparator(0.5 * (G + G.T), idx[S], K, C=float(C))
            W = c.coef.T @ Z[S]
            out.append((float(C), W, multiclass_hinge(Z @ W.T, idx)))
    return out, (f"fitted on all {T} rows" if S.size == T else
                 f"fitted on {S.size} evenly spaced rows of {T}, its losses exact on all")


def _feature_ogd_row(s, rows, Z, idx, K, loss, W1, eta, src, what):
    """The OGD regret row in a feature space (FOGD; NOGD's stage 2) from ``W1``."""
    from theory.multiclass import multiclass_hinge, multiclass_ogd_regret_bound

    upd = loss > 0.0
    sum_g2 = float(2.0 * np.einsum("ij,ij->i", Z[upd], Z[upd]).sum())
    comps, fit = _feature_comparators(s, Z, idx, K)
    best_v = None
    for C, W, _ in comps:
        for a in _OGD_ALPHAS:
            d2 = float(np.sum((W1 - a * W) ** 2))
            Lc = float(multiclass_hinge(Z @ (a * W).T, idx).sum())
            b = multiclass_ogd_regret_bound(d2, eta, sum_g2)
            if best_v is None or Lc + b < best_v[0]:
                best_v = (Lc + b, C, a, Lc, b, d2)
    _, C, a, Lc, b, d2 = best_v
    lsum = float(loss.sum())
    rows.append(row(Q_REGRET, lsum - Lc, b, src,
                    note=f"{what}; W = alpha x a fitted comparator in this run's feature space "
                         f"(theory.multiclass.multiclass_comparator on Z Z^T, {fit}; C in "
                         f"{list(COMPARATOR_CS)}, alpha in {list(_OGD_ALPHAS)}); sum ||g_t||^2 "
                         f"= 2 sum ||z(x_t)||^2 over the updates; conditional on this run's "
                         f"features",
                    comparator=fit,
                    inputs={"eta": eta, "C": C, "alpha": a, "dist2": d2, "sum_grad2": sum_g2,
                            "learner_loss": lsum, "comparator_loss": Lc, "rounds": Z.shape[0]}))


def _replay_features(Z, idx, K, eta, W1, class_scores):
    """Replays OGD on the features from ``W1`` (max-score step when ``l_t > 0``): True when
    it reproduces the run's class scores (to rounding)."""
    W = np.array(W1, dtype=float, copy=True)
    F = np.asarray(class_scores, float)
    for t in range(Z.shape[0]):
        f = W @ Z[t]
        if not np.allclose(f, F[t], rtol=1e-9, atol=1e-9 * (1.0 + np.abs(F[t]).max())):
            return False
        g = f.copy()
        g[idx[t]] = -np.inf
        r = int(np.argmax(g))
        if 1.0 - (f[idx[t]] - f[r]) > 0.0:
            W[idx[t]] += eta * Z[t]
            W[r] -= eta * Z[t]
    return True


def fogd(s, learner, tr, radii, rows, curves, *, delta):
    r"""MulticlassFOGD (LIBOKL's ``FouGD.m``): Lu et al. (2016)'s Theorem 1 in the form of
    its proof, pathwise in the run's random-feature space.

    okl's core: ``W`` from 0; if ``l_t > 0``, ``w_{y_t} += eta z(x_t)``,
    ``w_{s_t} -= eta z(x_t)`` -- OGD on the Crammer-Singer hinge of the linear scores
    ``W z``, the Kesler vector ``z(x_t) (x) (e_y - e_{s_t})`` of squared norm
    ``2 ||z(x_t)||^2`` (``2 D`` with ``scale="toolbox"``, 2 with ``"paper"``).  So, given
    the drawn frequencies, for every ``W``: regret ``<= ||W||^2 / (2 eta) + eta
    sum_{updates} ||z(x_t)||^2`` (:func:`theory.multiclass.multiclass_ogd_regret_bound`);
    the handler replays the run on ``learner.transform`` and checks it reproduces the class
    scores.  The kernel form (the approximation ``k - z.z`` in probability) is not
    evaluated."""
    idx = s.class_indices(tr.classes)
    K = int(len(tr.classes))
    src = (f"{LHWZL16}, Theorem 1 (FOGD; OGD in the feature space, pathwise; Kesler's "
           f"construction, theory.multiclass.multiclass_ogd_regret_bound)")
    Z = np.asarray(learner.transform(s.X), dtype=float)
    eta = float(learner.eta)
    loss = np.asarray(tr.losses, float)
    W1 = np.zeros((K, Z.shape[1]))
    if not _replay_features(Z, idx, K, eta, W1, tr.class_scores):
        rows.append(na(Q_REGRET, float(loss.sum()), src,
                       "the replay on learner.transform did not reproduce the run"))
        return
    _feature_ogd_row(s, rows, Z, idx, K, loss, W1, eta, src, "all rounds, from W_1 = 0")


def nogd(s, learner, tr, radii, rows, curves, *, delta):
    r"""MulticlassNOGD (LIBOKL's ``NyGD.m``): stage 1 is multiclass kernel OGD (the regret
    bound of :func:`ogd` on the rounds up to the switch), stage 2 is OGD on the Nystrom
    features (Lu et al. 2016's Theorem 2 in the form of its proof, pathwise, from the
    weights the switch built).

    Stage 1 (okl's core, as ``MulticlassOGDCore`` with ``lam = 0``): ``+eta`` / ``-eta`` on
    ``y_t`` / ``s_t`` when ``l_t > 0``; the switch round is still predicted by that kernel
    expansion, so rounds ``1 .. switch_round`` are OGD rounds.  Stage 2: ``W`` (``K x r``)
    with the same max-score step on ``z(x_t)``; the handler replays stage 1 on a twin to
    get ``W`` after the switch round, checks the replay reproduces the run's class scores,
    and bounds the regret of the later rounds against every ``W``:
    ``||W_1 - W||^2 / (2 eta) + eta sum_{updates} ||z(x_t)||^2``."""
    idx = s.class_indices(tr.classes)
    K = int(len(tr.classes))
    e = tr.extras
    T = int(tr.n_rounds)
    eta = float(learner.eta)
    sw = int(e["switch_round"]) if e.get("switched") else T
    comps = comparators(s, tr)
    src1 = (f"{ZINK03}, Theorem 1 (NOGD's stage 1 = multiclass kernel OGD, constant step; "
            f"Kesler's construction)")
    _kernel_ogd_row(s, tr, rows, comps, eta=eta, lam=0.0, stop=sw, src=src1,
                    what=f"rounds 1..{sw} (stage 1" + (" and the switch round)"
                                                      if e.get("switched") else ")"))
    src = (f"{LHWZL16}, Theorem 2 (NOGD's stage 2; OGD on the Nystrom features, pathwise; "
           f"Kesler's construction)")
    loss = np.asarray(tr.losses, float)
    if not e.get("switched") or sw >= T:
        rows.append(na(Q_REGRET, float(loss.sum()), src, "the budget never filled before the "
                                                         "last round: no stage-2 round"))
        return
    params = learner.get_params()
    params["classes"] = list(tr.classes)
    twin = type(learner)(**params)
    twin.run(s.X[:sw], np.asarray(s.y)[:sw])
    W1 = twin.weights
    if W1 is None:
        rows.append(na(Q_REGRET, float(loss[sw:].sum()), src,
                       "the replay of stage 1 did not switch"))
        return
    Z = np.asarray(twin.transform(s.X[sw:]), dtype=float)
    W1 = np.asarray(W1, dtype=float)
    if not _replay_features(Z, idx[sw:], K, eta, W1, np.asarray(tr.class_scores)[sw:]):
        rows.append(na(Q_REGRET, float(loss[sw:].sum()), src,
                       "the replay of stage 2 did not reproduce the run"))
        return
    _feature_ogd_row(s, rows, Z, idx[sw:], K, loss[sw:], W1, eta, src,
                     f"stage 2, rounds {sw + 1}..{T}, from the weights the switch built")
