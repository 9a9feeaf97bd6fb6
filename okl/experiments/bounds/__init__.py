r"""Measured quantities of one run beside the bounds the papers prove for its learner.

:func:`bounds_report` runs a fresh learner on a stream ``(X, y)`` and evaluates, on the
*same* stream, every bound of ``theory/`` that applies to that learner with the
parameters it was given.  Each row of the report is a dict

``{"quantity", "measured", "bound", "ratio", "source", "holds", "note", "inputs"}``

(``ratio = measured / bound``; ``holds`` is ``measured <= bound`` up to a relative
``1e-9``; ``bound``, ``ratio`` and ``holds`` are ``None`` when no bound applies, and
``note`` says why; ``inputs`` are the arguments the theory function was called with).
Where a bound holds on every prefix of the run (an *anytime* bound) the report also holds
per-round curves, measured against bound, for :func:`plot_report`.

What is covered (every bound is a function of ``theory/``; nothing is re-derived here):

* ``Perceptron``: Theorems 1 and 2 quoted by Liao et al. (AAAI 2024)
  (:func:`theory.ahpatron.perceptron_theorem1_bound`, ``..._theorem2_bound``) with
  :math:`X^2 = \max_t k(x_t, x_t)`.
* ``AVP``: Theorem 3 in its solved constant-rate form (``setting=None``, when (5)
  holds), Corollary 1 or Corollary 2 (``setting``), for :math:`f` in the learner's ball.
* ``Ahpatron``: Lemma 1 (removals), Theorem 4 (``c = 0.6`` and its parameters),
  Theorem 6 (``c=None``; :math:`\zeta` measured on the run, the best
  :math:`\gamma` of a grid; the "safe" form, and the printed form where it follows),
  Theorem 5 (:math:`\min_{\|f\| \le U} L_T(f) \le \mathcal A_T`, unit diagonal).
* ``Forgetron``: eq. (1) of Liao et al. as quoted, in the ball of
  :func:`theory.ahpatron.forgetron_radius`.
* ``NORMA`` (Kivinen, Smola & Williamson 2004): margin errors (Theorem 2) and mistakes
  (Theorem 3) through the untuned forms (45)-(48)
  (:func:`theory.norma.margin_error_bound_general`,
  :func:`theory.norma.mistake_bound_general`), valid for the run's own
  :math:`(\eta, \lambda, \rho)`, against a stationary comparator :math:`g = \mu f_r`
  (:math:`f_r` the best hinge function in the ball of radius ``r``, so
  :math:`L_{\mathrm{cum},\mu}[g] = \mu L_T(f_r)` is
  :func:`theory.norma.soft_margin_comparator_loss` with ``B = mu r``); applicable to the
  soft margin loss with a constant rate, no offset and no truncation.
* ``POMD`` / ``POMDR`` (Li & Liao, AAAI 2023): Theorem 1 on the ALD budget with the
  exponential and polynomial envelopes fitted to the stream's Gram spectrum
  (:func:`theory.fit_exponential_decay`, :func:`theory.fit_polynomial_decay`) and the
  envelope-free interlacing form of its proof; Theorem 2 and Corollary 1 on the regret
  against :math:`\min_{\|f\| \le U} \sum_t \max(0, 1 - y_t f(x_t))` (its certified lower
  bound, so the measured regret is at least the true one); Lemma 4
  (:math:`\sum_t \delta_t \le 4\mathcal A_T + 7D`) with the learner's ``sum_delta``.
* ``KernelAWV`` / ``PKAWV`` (Jezequel, Gaillard & Rudi 2019): regret against the kernel
  ridge comparator (:func:`theory.kernel_ridge_comparator`, which maximizes
  :math:`R_n(f) - \lambda\|f\|^2`, so one comparator checks every :math:`f`):
  Propositions 1 and 2 (Kernel-AWV), Theorems 3 and 4 (Taylor basis), Theorems 9 and 6
  (Nystrom / KORS, with the dictionaries of the run).
* ``LKMBooks`` / ``PFMBooks`` / ``BATBooks`` (Li & Liao, *Online kernel selection with
  computational constraints*, "kernel selection" in the sources), through
  ``theory.selection``: the budget bounds of Theorems 2, 4 and 8 (the number of rounds with
  ``rho_t = 1``, i.e. the buffer size without the hard guard, against the Bernstein bound
  at the report's ``delta``; applicable when the sampling probabilities of the run's
  ``z_t`` / ``C`` sum to at most ``B`` (Theorem 2) or ``B/2`` (Theorems 4, 8), the premise
  of the proof), and the explicit regret bounds reconstructed from Theorems 3, 6 and 10
  (:func:`theory.selection.lkmbooks_regret_bound`, ``pfmbooks_regret_bound``,
  ``batbooks_regret_bound``), one row per candidate kernel, against that kernel's best
  hinge function in a ball (:func:`theory.best_hinge_in_ball` on its own Gram matrix; the
  radius with the smallest comparator loss + bound is reported).  These bound the
  *expected* regret over the learner's draws: ``holds`` is one draw.  Not applicable (with
  the reason) when the hard guard refused a sampled update (the gradient estimate is then
  biased), for the absolute loss (no absolute-loss comparator in ``theory``), or outside
  the setting of the explicit bound (LKMBooks' doubling ``l_m`` or a non-integer ``C``;
  PFMBooks' ``g="experiments"`` or ``C != B``; BATBooks' ``ell_max`` below
  ``1 + U sqrt(D)`` or a varying ``eta_t``).  The premises that depend on the draws (no
  refusal by the guard, LKMBooks' criteria within ``max{l_m, 1}``) are checked on this
  run only.  The bounds are for the horizon ``T`` (``z_t`` and the steps depend on it): no
  anytime curves; the budget curves show the bounds as constant lines.
* ``OKS`` / ``BOKS`` / ``ISKA`` / ``BOMKR`` / ``BOMKRV`` (the baselines of the
  kernel-selection paper of Li & Liao), through ``theory.selection_baselines`` (rows made
  by :mod:`okl.experiments.bounds.selection`): each one's budget (K separate sets or one
  shared set) and memory in Table 3's accounting, Theorem 1's factor for K separate sets,
  and the regret of the combination step against every kernel's own hypothesis sequence
  (BOMKR/BOMKR-V pathwise, OKS/BOKS in expectation).
* ``SkeGD`` / ``BAO2KS`` (the baselines of Table 2 of Li & Liao, AAAI 2023), through
  ``theory.pomdr_baselines`` (rows made by :mod:`okl.experiments.bounds.pomdr`): the memory
  rules of their authors' R code (checked), the run's kernel work per round against Table
  1's complexity rows at constant 1, and the regret against the best hinge function in a
  ball beside Table 1's regret orders (no bound: the paper prints orders only).
* ``SketchedKONS`` / ``ProsNKONS`` (Calandriello, Lazaric & Valko 2017, as compared in
  Jezequel, Gaillard & Rudi 2019), through ``theory.kons``: the pathwise online-Newton
  bound :math:`\frac\alpha2\|f\|^2 + \frac12\sum_t g_t^\top A_t^{-1}g_t` (per epoch for
  Pros-N-KONS, with its projections of ``f``), Sketched-KONS' bound in expectation
  (:math:`(1 + 1/\beta)/(\gamma\eta)` times the log-determinant; ``holds`` is one draw) and
  KONS' log-determinant bound (``gamma = 1``), against the kernel ridge comparator at
  :math:`\alpha/2` scaled into :math:`|f(x_t)| \le C`; the step condition
  :math:`\eta \le 1/(2(\hat y_t - y_t)^2)` is checked on the run; Jezequel et al.'s
  eq. (8) form as an order (no constants: no ``holds``).
* ``KernelOGD`` (:mod:`theory.norma_baselines`): Zinkevich (2003), Theorem 1, for the
  constant rate and for ``eta/sqrt(t)`` (the diameter measured on the run: no projection),
  hinge loss, ``lam = 0``; NORMA's Theorems 2-3 at ``rho = 1`` (constant rate, any
  ``lam``).  ``ALMA``: ALMA_2's corrections (Gentile 2001; a reconstructed bound,
  :func:`theory.norma_baselines.alma2_correction_bound`) against every ``f`` of the
  normalized kernel.
* ``RBP``: eq. (2) of Liao et al. 2024 (in expectation; the best ``gamma`` of a grid).
  ``BOGD`` / ``BOGDPP``: the budget and the coefficient clip (every run) and the quoted
  order ``L_T(f) + O(UT/sqrt(B) + U sqrt(T))`` (an order: ``okl bounds --rate``).
  ``Projectron`` / ``ProjectronPP`` (Orabona, Keshet & Caputo 2009, reconstructed with
  explicit constants, :mod:`theory.ahpatron`): the mistake bounds and the dictionary's
  size against a greedy ``eta/2``-cover of the stream.
* ``FOGD`` / ``NOGD`` (Lu et al. 2016, :mod:`theory.pomdr_baselines`): Theorems 1 and 2 in
  the form of their proofs -- OGD in the run's feature space, pathwise, and against the
  kernel's best ``f`` with the approximation term measured -- and FOGD's Theorem 1 in
  probability (Rahimi & Recht's event at ``delta``); NOGD's stage 1 against Zinkevich.
* ``OMKC`` (Hoi et al. 2013, :func:`theory.selection_baselines.omkc_mistake_bound`): the
  weighted-majority mistake bound against every kernel's own Perceptron (replayed), or
  for the absolute loss the exponential-weights regret.
* ``MulticlassPerceptron`` / ``MulticlassPA`` / ``MulticlassProjectron`` /
  ``MulticlassProjectronPP`` (issue 26, :mod:`theory.multiclass`; rows made by
  :mod:`okl.experiments.bounds.multiclass`): Crammer & Singer's (2003) Theorems 1 and 2,
  the hinge form of Theorem 2 and the family's hinge-loss bound on the update rounds; the
  multiclass PA bounds of Crammer et al. (2006) by variant (Theorems 2-5); the multiclass
  Projectron's mistake bounds, Projectron++'s and the support size (Orabona, Keshet &
  Caputo 2009).  The comparators are class prototypes fitted on the stream
  (``theory.multiclass.multiclass_comparator``, one per weight ``C``; on a long stream on
  evenly spaced rows, their margins exact on all), not the radii ``U``.
* every learner: the empirical rows (mistakes, cumulative loss, final and maximum
  budget) with ``source = "no bound implemented"``.

Every row has a ``kind``: ``"deterministic"`` (holds on every run), ``"high-probability"``
(with its ``delta``), ``"expectation"`` or ``"order"``; one run is one draw, and
:func:`format_report` says so for the last two kinds.  :func:`seeds_report` judges them
over many draws, :func:`rate_report` fits growth exponents, and :func:`coverage` lists
which theorem each learner is checked against.

Layout: :mod:`okl.experiments.bounds.report` is the lower layer (the stream context, the
row and curve builders, :class:`BoundsReport`, formatting and plotting); one handler module
per paper (``norma``, ``ahpatron``, ``pomdr``, ``awv``, ``selection``, ``multiclass``)
holds one public function per learner, all with the signature
``handler(s, learner, trace, radii, rows, curves, *, delta)``; each learner names its
handler in its declaration (:func:`okl.registry.register_learner`, ``bounds=
"okl.experiments.bounds.<paper>:<function>"``, imported on first use), so a learner and
its bounds are declared together; a learner of your own may declare a handler of its own.

Cost: the comparators and the eigendecomposition are :math:`O(T^3)`, so with
``comparator="exact"`` a stream longer than ``max_rounds`` (default 3000) is refused; pass
a prefix, raise the limit, or use ``comparator="subset"`` (any length: the comparator is
the best ``f`` over a subset of the rows, valid for every bound that holds for every
``f`` of a ball; the bounds on the spectrum, the alignment or the ridge comparator are
then not applicable).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from okl.experiments.bounds.report import (
    DEFAULT_DELTA,
    DEFAULT_RADII,
    MAX_ROUNDS,
    NO_BOUND,
    BoundsReport,
    GramUnavailable,
    Stream,
    TooManyRoundsError,
    check_radii,
    empirical,
    format_report,
    curve,
    na,
    plot_report,
    row,
)

__all__ = ["BoundsReport", "bounds_report", "format_report", "plot_report", "command",
           "seeds_report", "format_seeds", "rate_report", "format_rates", "is_deterministic",
           "coverage", "default_learner", "learner_names",
           "handler_for", "row", "na", "curve", "MAX_ROUNDS", "DEFAULT_RADII",
           "DEFAULT_DELTA", "NO_BOUND", "TooManyRoundsError"]


#: Learner class name -> its handler, ``"module:function"`` (imported on first use).  A
#: learner is handled by the first class of its MRO named here (``BOKS`` by ``OKS``'s).
def handler_for(learner):
    """``(handler, name)`` of the learner's declaration (``okl.registry``): the first class
    of ``type(learner).__mro__`` that declares a bounds handler, or ``(None, None)``."""
    for cls in type(learner).__mro__:
        entry = cls.__dict__.get("okl_entry")
        if entry is not None and entry.bounds is not None:
            return entry.bounds_handler(), entry.name
    return None, None


#: Rows of the subset comparator on a long stream (``comparator="subset"``).
DEFAULT_SUBSET = 2000


def bounds_report(learner, X, y=None, *, U=None, max_rounds: int = MAX_ROUNDS,
                  delta: float = DEFAULT_DELTA, comparator: str = "exact",
                  subset: int = DEFAULT_SUBSET, stream=None) -> BoundsReport:
    """Run ``learner`` on ``(X, y)`` and put each applicable bound beside its measured quantity.

    Parameters
    ----------
    learner : okl learner
        A fresh learner (no round learned yet): the bounds are for a run from ``f_1 = 0``.
    X : array_like or CSR, shape (T, d)
    y : array_like, shape (T,)
        Labels in {-1, +1} for classifiers, real outputs for regressors.
    U : float or sequence of floats, optional
        Comparator radii for the bounds that hold for every ``f`` (Perceptron, NORMA) or
        every ``f`` in the learner's ball (AVP, Ahpatron, Forgetron: radii above the ball's
        radius are dropped and the radius itself is added); each row reports the smallest
        bound over them.  Default :data:`DEFAULT_RADII`.  Each radius costs one
        :func:`theory.best_hinge_in_ball`.  POMD/POMDR's regret is always against the
        learner's ball ``||f|| <= U``, the comparator of Theorem 2.  LKMBooks' regret rows
        use these radii in each kernel's space, BATBooks' those below its ``U`` and ``U``,
        PFMBooks' the radii ``U_j`` of its discretization (7).
    max_rounds : int, default 3000
        Longest stream accepted with ``comparator="exact"`` (the comparators and the
        spectrum are O(T^3)).
    delta : float in (0, 1), default :data:`DEFAULT_DELTA`
        Confidence of the high-probability bounds (LKMBooks' Theorem 2, PFMBooks'
        Theorem 4, BATBooks' Theorem 8, FOGD's Theorem 1): each holds with probability at
        least ``1 - delta``.
    comparator : {"exact", "subset"}, default "exact"
        ``"subset"``: any length; the comparators are the best hinge functions over
        ``subset`` evenly spaced rows, evaluated exactly on every row
        (:class:`~okl.experiments.bounds.report.SubsetComparator`: valid for every bound
        that holds for every ``f`` in a ball), and the bounds that need the ``T x T``
        Gram matrix (spectrum, alignment, ridge) are reported as not applicable.  Each
        row's ``comparator`` says which one it used.
    subset : int, default :data:`DEFAULT_SUBSET`
        Rows of the subset comparator.
    stream : report.Stream, optional
        A stream context to reuse (its cached comparators; same ``X``, ``y``, kernel).

    Returns
    -------
    BoundsReport

    Raises
    ------
    TooManyRoundsError
        If ``T > max_rounds`` with ``comparator="exact"`` (a ``ValueError``).
    ValueError
        If the learner has already learned, ``U`` is not positive and finite, or the
        stream is invalid for the learner (its own message).
    """
    from okl._validation import check_int, check_real

    start = time.perf_counter()
    max_rounds = check_int(max_rounds, "max_rounds", low=1)
    delta = check_real(delta, "delta", low=0, high=1, low_open=True, high_open=True)
    if comparator not in ("exact", "subset"):
        raise ValueError(f"comparator must be 'exact' or 'subset', got {comparator!r}")
    subset = check_int(subset, "subset", low=1)
    radii = check_radii(U)
    T = X.shape[0] if hasattr(X, "shape") and len(X.shape) == 2 else len(X)
    if T > max_rounds and comparator == "exact":
        raise TooManyRoundsError(T, max_rounds)
    if getattr(learner, "n_rounds", 0):
        raise ValueError(f"pass a fresh learner: {type(learner).__name__} has already learned "
                         f"{learner.n_rounds} rounds, and the bounds are for a run from f_1 = 0")
    trace = learner.run(X, y)
    multiclass = getattr(learner, "task", None) == "multiclass"
    # a multiclass learner's labels stay as they are (the handler maps them to indices)
    yv = None if y is None else (np.asarray(y) if multiclass else np.asarray(y, dtype=float))
    rows, curves = [], []
    name = type(learner).__name__
    handler, matched = handler_for(learner)
    if matched is not None:
        name = matched
    if stream is None:
        stream = Stream(X, yv, getattr(learner, "kernel", None),
                        subset=subset if comparator == "subset" else None)
    if handler is not None:
        try:
            handler(stream, learner, trace, radii, rows, curves, delta=delta)
        except GramUnavailable as exc:
            rows.append(na("(the remaining bounds)", float(trace.losses.sum()),
                           f"{name}: bounds on the Gram matrix", str(exc)))
    for r in rows:
        if r["comparator"] is None and any(k in r["inputs"] for k in
                                           ("radius", "comparator_loss", "f_norm")):
            r["comparator"] = stream.comparator
    empirical(learner, trace, rows, handler is not None)
    info = dict(stream.info)
    info["T"] = int(trace.n_rounds)
    if stream._hinge:
        info["comparators"] = {f"{r:g}": {"loss": c.loss, "lower_bound": c.lower_bound,
                                          "norm": c.norm} for r, c in stream._hinge.items()}
    if stream.subset is not None:
        info["comparator"] = stream.comparator
    return BoundsReport(learner=repr(learner), name=name, T=int(trace.n_rounds), rows=rows,
                        curves=curves, trace=trace, stream=info,
                        seconds=time.perf_counter() - start)


# -- many draws: probabilistic bounds as probabilities -----------------------------------------

def _key(r):
    return (r["quantity"], r["source"])


def is_deterministic(make_learner, X, y, *, rounds: int = 300) -> bool:
    """True if the learner's run does not depend on its seed (two seeds, same trace on the
    first ``rounds`` rows), or it takes no seed."""
    a, b = make_learner(1), make_learner(2)
    if "seed" not in a.get_params():
        return True
    n = min(rounds, X.shape[0])
    ta, tb = a.run(X[:n], y[:n]), b.run(X[:n], y[:n])
    return bool(np.array_equal(ta.scores, tb.scores) and np.array_equal(ta.budget, tb.budget))


def seeds_report(make_learner, X, y, n_seeds: int, *, level: float = 0.05, **kw) -> dict:
    r"""Run :func:`bounds_report` on ``n_seeds`` draws and judge each bound by its kind.

    A randomized learner is rebuilt with ``seed = 1..n_seeds`` on the same stream (its
    comparators computed once); a deterministic one (:func:`is_deterministic`) keeps its
    seed and runs on ``n_seeds`` random orders of the stream (``numpy.random.default_rng
    (i).permutation``, ``i = 1..n_seeds``).  Per row:

    * ``"deterministic"``: consistent iff it held on every draw;
    * ``"high-probability"`` (its ``delta``): ``k`` violations in ``n`` draws against a
      one-sided binomial test of ``P(violation) <= delta``
      (``scipy.stats.binomtest(k, n, delta, alternative="greater")``); consistent iff its
      p-value is at least ``level``;
    * ``"expectation"``: the mean over draws of ``measured - bound`` with its
      one-sided ``1 - level`` t confidence bound; consistent iff
      ``mean - t sem <= 0`` (:math:`E[\mathrm{measured}] \le` bound not rejected); the
      mean measured and mean bound and the two-sided ``1 - level`` t interval of the
      measured mean are reported too;
    * ``"order"``: no verdict.

    Parameters
    ----------
    make_learner : callable
        ``make_learner(seed)`` returns a fresh learner.
    X, y : the stream
    n_seeds : int >= 2
    level : float, default 0.05
        Significance level of the tests.
    **kw
        Passed to :func:`bounds_report` (``U``, ``delta``, ``max_rounds``, ``comparator``).

    Returns
    -------
    dict
        ``{"learner", "name", "T", "draws": "learner seeds 1..N" or "stream orders
        1..N", "n": N, "rows": [...], "seconds"}``; each row has ``quantity``, ``source``,
        ``kind``, ``delta``, ``n`` (draws with a bound), ``violations``, ``p_value`` /
        ``mean_measured``, ``mean_bound``, ``mean_excess``, ``ci``, ``upper``, and
        ``consistent`` (True/False/None).
    """
    from scipy import stats

    start = time.perf_counter()
    if int(n_seeds) < 2:
        raise ValueError(f"n_seeds must be >= 2, got {n_seeds!r}")
    n_seeds = int(n_seeds)
    y = np.asarray(y)
    deterministic = is_deterministic(make_learner, X, y)
    reports = []
    shared = None
    for i in range(1, n_seeds + 1):
        if deterministic:
            perm = np.random.default_rng(i).permutation(X.shape[0])
            rep = bounds_report(make_learner(None), X[perm], y[perm], **kw)
        else:
            learner = make_learner(i)
            if shared is None:          # the comparators are the stream's: computed once
                sub = kw.get("subset", DEFAULT_SUBSET) if kw.get("comparator") == "subset" \
                    else None
                shared = Stream(X, np.asarray(y, dtype=float), getattr(learner, "kernel", None),
                                subset=sub)
            rep = bounds_report(learner, X, y, stream=shared, **kw)
        reports.append(rep)
    order, by = [], {}
    for rep in reports:
        for r in rep.rows:
            k = _key(r)
            if k not in by:
                order.append(k)
                by[k] = []
            by[k].append(r)
    out = []
    for k in order:
        rs = [r for r in by[k] if r["bound"] is not None]
        first = by[k][0]
        kind = first.get("kind", "deterministic")
        d = {"quantity": k[0], "source": k[1], "kind": kind, "delta": first.get("delta"),
             "n": len(rs), "violations": sum(1 for r in rs if not r["holds"]),
             "consistent": None, "p_value": None, "mean_measured": None, "mean_bound": None,
             "mean_excess": None, "ci": None, "upper": None}
        if rs:
            m = np.array([float(r["measured"]) for r in rs])
            b = np.array([float(r["bound"]) for r in rs])
            d["mean_measured"], d["mean_bound"] = float(m.mean()), float(b.mean())
            if kind == "high-probability":
                test = stats.binomtest(d["violations"], len(rs), float(d["delta"]),
                                       alternative="greater")
                d["p_value"] = float(test.pvalue)
                d["consistent"] = bool(test.pvalue >= level)
            elif kind == "expectation":
                excess = m - b
                d["mean_excess"] = float(excess.mean())
                if len(rs) >= 2:
                    sem = float(stats.sem(excess))
                    tq = float(stats.t.ppf(1.0 - level, len(rs) - 1))
                    d["upper"] = d["mean_excess"] - tq * sem
                    d["consistent"] = bool(d["upper"] <= 1e-9 * max(1.0, abs(d["mean_bound"])))
                    sm = float(stats.sem(m))
                    if sm > 0.0:
                        lo, hi = stats.t.interval(1.0 - level, len(rs) - 1,
                                                  loc=float(m.mean()), scale=sm)
                    else:                       # every draw measured the same
                        lo = hi = float(m.mean())
                    d["ci"] = [float(lo), float(hi)]
            elif kind == "deterministic":
                d["consistent"] = d["violations"] == 0
        out.append(d)
    first = reports[0]
    return {"learner": first.learner, "name": first.name, "T": first.T, "n": n_seeds,
            "draws": ("stream orders 1..{} (the learner is deterministic: its seed does not "
                      "change the run)".format(n_seeds) if deterministic
                      else "learner seeds 1..{} on the same stream".format(n_seeds)),
            "level": level, "rows": out, "seconds": time.perf_counter() - start}


def format_seeds(res: dict) -> str:
    """A terminal table of :func:`seeds_report`."""
    head = ["quantity", "kind", "draws", "violations", "test", "verdict", "source"]
    cells = []
    for d in res["rows"]:
        if d["n"] == 0:
            continue
        if d["kind"] == "high-probability":
            test = f"delta = {d['delta']:g}, binomial p = {d['p_value']:.3g}"
        elif d["kind"] == "expectation" and d["ci"] is not None:
            test = (f"mean {d['mean_measured']:.5g} (95% CI {d['ci'][0]:.5g}..{d['ci'][1]:.5g})"
                    f" vs mean bound {d['mean_bound']:.5g}")
        elif d["kind"] == "order":
            test = "-"
        else:
            test = "every draw"
        verdict = {True: "consistent", False: "NOT CONSISTENT", None: "-"}[d["consistent"]]
        cells.append([d["quantity"], d["kind"], str(d["n"]), f"{d['violations']}/{d['n']}",
                      test, verdict, d["source"]])
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(head)]
    lines = [res["learner"], f"{res['T']} rounds" + (f" of {res['data']}" if res.get("data")
                                                     else "") + f"; {res['draws']}", "",
             "  ".join(h.ljust(w) for h, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() for c in cells]
    bad = [d for d in res["rows"] if d["consistent"] is False]
    lines += ["", f"{len(cells)} bound(s) over {res['n']} draws: "
                  + ("every bound consistent" if not bad else f"{len(bad)} NOT CONSISTENT")
                  + f" (level {res['level']:g}; {res['seconds']:.1f} s)"]
    return "\n".join(lines)


# -- rates: the growth exponent of the measured quantity against the theorem's -------------------

def rate_report(make_learner, X, y, *, T0=None, budgets=None, level=0.05, **kw) -> dict:
    """Fit the growth exponents of each row's measured quantity and bound.

    In ``T``: :func:`bounds_report` on the prefixes ``T0, 2 T0, 4 T0, ... <= T`` (a fresh
    learner each; ``T0`` default ``max(32, T // 16)``); in ``B`` (``budgets`` given): on
    the whole stream with ``make_learner(budget=b)`` (the learner's budget parameter,
    whatever its name) for each ``b``.  For each row, a
    least-squares line through ``(log n, log measured)`` (``scipy.stats.linregress``) with
    its two-sided ``1 - level`` t interval, and the same fit of the bound (of an order
    row, its ``inputs["order"]``: the stated rate at constant 1).  The bound's exponent is
    the theorem's rate on this stream; the measured exponent is *consistent* with it when
    the interval's lower end does not exceed it (the measured quantity does not grow
    provably faster than the bound).  Rows with fewer than three positive points get no
    fit.

    Returns
    -------
    dict
        ``{"learner", "axis": "T" or "B", "points": [...], "rows": [{quantity, source,
        kind, slope, ci, bound_slope, consistent, measured, bound}], "seconds"}``; with
        ``budgets`` a list of two such dicts (``T`` then ``B``).
    """
    start = time.perf_counter()
    T = X.shape[0]
    y = np.asarray(y)
    out = []
    T0 = max(32, T // 16) if T0 is None else int(T0)
    if T0 < 2 or T0 > T:
        raise ValueError(f"T0 must be in [2, T = {T}], got {T0}")
    points = []
    n = T0
    while n <= T:
        points.append(n)
        n *= 2
    reps = [bounds_report(make_learner(), X[:n], y[:n], **kw) for n in points]
    out.append(_fit_rates(reps, points, "T", level, start))
    if budgets:
        bs = sorted({int(b) for b in budgets})
        reps = [bounds_report(make_learner(budget=b), X, y, **kw) for b in bs]
        out.append(_fit_rates(reps, bs, "B", level, start))
    return out[0] if not budgets else out


def _fit_rates(reps, points, axis, level, start):
    from scipy import stats

    series = {}
    order = []
    for j, rep in enumerate(reps):
        for r in rep.rows:
            k = _key(r)
            if k not in series:
                order.append(k)
                series[k] = {"kind": r.get("kind", "deterministic"), "m": {}, "b": {}}
            bound = r["bound"] if r["bound"] is not None else r["inputs"].get("order")
            if isinstance(r["measured"], (int, float)) and not isinstance(r["measured"], bool):
                series[k]["m"][j] = float(r["measured"])
            if isinstance(bound, (int, float)) and not isinstance(bound, bool):
                series[k]["b"][j] = float(bound)

    def fit(values):
        js = [j for j in sorted(values) if values[j] > 0 and np.isfinite(values[j])]
        if len(js) < 3:
            return None
        xs = np.log([points[j] for j in js])
        ys = np.log([values[j] for j in js])
        if np.ptp(ys) == 0.0:           # a constant: exponent 0 exactly
            return {"slope": 0.0, "ci": [0.0, 0.0]}
        lr = stats.linregress(xs, ys)
        tq = float(stats.t.ppf(1.0 - level / 2.0, len(js) - 2))
        err = float(lr.stderr) if np.isfinite(lr.stderr) else 0.0
        return {"slope": float(lr.slope), "ci": [float(lr.slope - tq * err),
                                                   float(lr.slope + tq * err)]}
    rows = []
    for k in order:
        sr = series[k]
        if not sr["b"]:
            continue
        fm, fb = fit(sr["m"]), fit(sr["b"])
        rows.append({"quantity": k[0], "source": k[1], "kind": sr["kind"],
                     "slope": None if fm is None else fm["slope"],
                     "ci": None if fm is None else fm["ci"],
                     "bound_slope": None if fb is None else fb["slope"],
                     "consistent": (None if fm is None or fb is None
                                    else bool(fm["ci"][0] <= fb["slope"] + 1e-9)),
                     "measured": [sr["m"].get(j) for j in range(len(points))],
                     "bound": [sr["b"].get(j) for j in range(len(points))]})
    return {"learner": reps[-1].learner, "axis": axis, "points": list(points), "level": level,
            "rows": rows, "seconds": time.perf_counter() - start}


def format_rates(res) -> str:
    """A terminal table of :func:`rate_report` (one table per axis)."""
    parts = []
    for r in (res if isinstance(res, list) else [res]):
        head = ["quantity", "kind", f"exponent in {r['axis']} (95% CI)", "theorem's exponent",
                "verdict", "source"]
        cells = []
        for d in r["rows"]:
            e = "-" if d["slope"] is None else f"{d['slope']:.3f} ({d['ci'][0]:.3f}..{d['ci'][1]:.3f})"
            b = "-" if d["bound_slope"] is None else f"{d['bound_slope']:.3f}"
            v = {True: "consistent", False: "NOT CONSISTENT", None: "-"}[d["consistent"]]
            cells.append([d["quantity"], d["kind"], e, b, v, d["source"]])
        widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(head)]
        lines = [f"{r['learner']}: {r['axis']} = {', '.join(map(str, r['points']))}", "",
                 "  ".join(h.ljust(w) for h, w in zip(head, widths)),
                 "  ".join("-" * w for w in widths)]
        lines += ["  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() for c in cells]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


# -- which theorem of which paper each learner is checked against --------------------------------

#: What is tried, in order, to build a learner with its defaults: nothing more, a budget
#: of 50 (the parameter with the role "budget", for a learner that needs one), ``M = 4``.
_DEFAULT_TRIES = ({}, {"budget": 50}, {"params": {"M": 4}})


def default_learner(name, *, seed=0, **params):
    """``okl.<name>`` with its defaults, a Gaussian(1) kernel where it takes one, and the
    first of the :data:`_DEFAULT_TRIES` that it accepts (``params`` override)."""
    from okl.kernels import Gaussian
    from okl.learners import build, learner_class, roles

    given_budget = roles(learner_class(name), params).get("budget") in params
    last = None
    for extra in _DEFAULT_TRIES:
        try:
            return build(name, {**extra.get("params", {}), **params}, kernel=Gaussian(1.0),
                         seed=seed, budget=None if given_budget else extra.get("budget"))
        except (TypeError, ValueError) as exc:
            last = exc
    raise ValueError(f"cannot build {name} with its defaults: {last}")


def learner_names():
    """The learners okl ships (the learner registry)."""
    from okl import learners

    return [n for n, e in learners.entries().items() if e.cls.__module__.startswith("okl.")]


def coverage(rounds: int = 120, seed: int = 0) -> list:
    """Which theorem of which paper each learner is checked against, from the code.

    Runs :func:`bounds_report` for every learner of :func:`learner_names` (built by
    :func:`default_learner`) on a small XOR stream and returns one row per bound row of
    the report: ``{"learner", "handler", "quantity", "source", "kind", "delta",
    "applies"}`` (``applies`` False when the row said "not applicable" on that stream; the
    bound is still wired).  A learner without a bound would show one row with
    ``source = NO_BOUND`` (none does).
    """
    import warnings

    from okl import learners
    from okl.datasets import xor_stream

    X, y = xor_stream(rounds, 4, seed=seed)
    out = []
    for name in learner_names():
        learner = default_learner(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rep = bounds_report(learner, X, y)
        spec = learners.get(name).bounds
        rows = [r for r in rep.rows if r["source"] != NO_BOUND]
        if not rows:
            out.append({"learner": name, "handler": spec, "quantity": None, "source": NO_BOUND,
                        "kind": None, "delta": None, "applies": False})
        seen = set()
        for r in rows:
            key = (r["quantity"], r["source"])
            if key in seen:
                continue
            seen.add(key)
            out.append({"learner": name, "handler": spec, "quantity": r["quantity"],
                        "source": r["source"], "kind": r.get("kind"), "delta": r.get("delta"),
                        "applies": r["bound"] is not None or r.get("kind") == "order"})
    return out


def command(make, X, y, source: str, *, prefix=None, U=None, max_rounds=None,
            comparator="auto", subset=None, delta=None, seeds=None, rate=False, rate_t0=None,
            rate_budgets=None, plot=None, json_path=None) -> int:
    """``okl bounds``: the report of the learner ``make()`` builds on ``(X, y)``, printed.

    ``make(seed=None, budget=None)`` builds the learner (another seed for ``seeds``,
    another budget -- the parameter with the role ``budget``, okl.params -- for
    ``rate_budgets``); ``source`` names the data.  ``prefix``: keep the first rounds;
    ``U``: comparator radii; ``max_rounds``, ``comparator`` (``"auto"``: the subset
    comparator for a stream longer than :data:`MAX_ROUNDS` unless ``max_rounds`` was
    given), ``subset`` and ``delta`` as in :func:`bounds_report`; ``seeds``
    (:func:`seeds_report`); ``rate`` / ``rate_t0`` / ``rate_budgets`` (:func:`rate_report`);
    ``plot`` (a figure stem) and ``json_path``.  Prints :func:`format_report` (or the
    seeds' / rates' table); returns 0.
    """
    learner = make()
    if prefix is not None:
        if prefix < 1:
            raise ValueError(f"--prefix must be >= 1, got {prefix}")
        X, y = X[:prefix], (None if y is None else np.asarray(y)[:prefix])
        source += f" (first {X.shape[0]} rounds)"
    if comparator == "auto":
        # an explicit max_rounds keeps the refusal; otherwise a long stream gets the
        # subset comparator (its rows say so)
        T = X.shape[0]
        comparator = "subset" if (max_rounds is None and T > MAX_ROUNDS) else "exact"
    kw = dict(U=U, max_rounds=max_rounds or MAX_ROUNDS, delta=delta or DEFAULT_DELTA,
              comparator=comparator, subset=subset or DEFAULT_SUBSET)
    if seeds is not None and seeds < 2:
        raise ValueError(f"--seeds must be >= 2 (one draw is the default), got {seeds}")
    if rate or rate_budgets:
        if rate_budgets:
            from okl.learners import roles

            if "budget" not in roles(type(learner), learner.get_params()):
                raise ValueError(f"--rate-budgets: {type(learner).__name__} has no budget "
                                 f"(no parameter with the role 'budget')")
        res = rate_report(make, X, y, T0=rate_t0, budgets=rate_budgets, **kw)
        print(f"data: {source}")
        print(format_rates(res))
        _dump(json_path, res)
        return 0
    if seeds is not None:
        res = seeds_report(make, X, y, seeds, **kw)
        res["data"] = source
        print(format_seeds(res))
        _dump(json_path, res)
        return 0
    report = bounds_report(learner, X, y, **kw)
    report.data = source
    print(format_report(report))
    _dump(json_path, report.to_dict())
    if plot:
        for path in plot_report(report, plot):
            print(f"wrote {path}")
    return 0


def _dump(path, obj):
    if path:
        from okl.experiments.runner import _json_safe

        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as fh:
            json.dump(_json_safe(obj), fh, indent=2)
        print(f"wrote {path}")
