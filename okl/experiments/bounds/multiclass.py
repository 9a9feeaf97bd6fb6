r"""``okl bounds`` handlers of okl's native multiclass learners (issue 26): the
ultraconservative multiclass Perceptron (Crammer & Singer 2003), the multiclass
passive-aggressive algorithms (Crammer et al. 2006) and the multiclass Projectron /
Projectron++ (Orabona, Keshet & Caputo 2009).  Every bound is a function of
:mod:`theory.multiclass` (its docstrings state each theorem and redo its proof; the
conventions are in ``/work/notes/multiclass_algorithms.md``).

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
"""
from __future__ import annotations

import math

import numpy as np

from okl.experiments.bounds.report import cum, curve, na, row

__all__ = ["perceptron", "passive_aggressive", "projectron", "COMPARATOR_CS", "CS03", "PA06",
           "OKC09", "comparators", "scaled"]

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
