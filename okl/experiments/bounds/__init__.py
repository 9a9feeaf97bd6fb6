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
  anytime curves; the budget curves show the bounds as constant lines.  ``OMKC`` has no
  bound in ``theory``: it gets the empirical rows.
* ``OKS`` / ``BOKS`` / ``ISKA`` / ``BOMKR`` / ``BOMKRV`` (seed 004's baselines), through
  ``theory.selection_baselines`` (rows made by :mod:`okl.experiments.bounds.selection`): each
  one's budget (K separate sets or one shared set) and memory in Table 3's accounting,
  Theorem 1's factor for K separate sets, and the regret of the combination step against
  every kernel's own hypothesis sequence (BOMKR/BOMKR-V pathwise, OKS/BOKS in expectation).
* ``SkeGD`` / ``BAO2KS`` (seed 000's Table 2 baselines), through
  ``theory.pomdr_baselines`` (rows made by :mod:`okl.experiments.bounds.pomdr`): the memory
  rules of their authors' R code (checked), the run's kernel work per round against Table
  1's complexity rows at constant 1, and the regret against the best hinge function in a
  ball beside Table 1's regret orders (no bound: the seed prints orders only).
* ``SketchedKONS`` / ``ProsNKONS`` (Calandriello, Lazaric & Valko 2017, as compared in
  Jezequel, Gaillard & Rudi 2019), through ``theory.kons``: the pathwise online-Newton
  bound :math:`\frac\alpha2\|f\|^2 + \frac12\sum_t g_t^\top A_t^{-1}g_t` (per epoch for
  Pros-N-KONS, with its projections of ``f``), Sketched-KONS' bound in expectation
  (:math:`(1 + 1/\beta)/(\gamma\eta)` times the log-determinant; ``holds`` is one draw) and
  KONS' log-determinant bound (``gamma = 1``), against the kernel ridge comparator at
  :math:`\alpha/2` scaled into :math:`|f(x_t)| \le C`; the step condition
  :math:`\eta \le 1/(2(\hat y_t - y_t)^2)` is checked on the run; seed 003's eq. (8)
  form as an order (no constants: no ``holds``).
* every learner: the empirical rows (mistakes, cumulative loss, final and maximum
  budget) with ``source = "no bound implemented"``.

Layout: :mod:`okl.experiments.bounds.report` is the lower layer (the stream context, the
row and curve builders, :class:`BoundsReport`, formatting and plotting); one handler module
per paper (``norma``, ``ahpatron``, ``pomdr``, ``awv``, ``selection``) holds one public
function per learner, all with the signature
``handler(s, learner, trace, radii, rows, curves, *, delta)``; :data:`HANDLERS` maps a class
name to its handler as a ``"module:function"`` string, imported on first use.

Cost: the comparators and the eigendecomposition are :math:`O(T^3)`, so a stream longer
than ``max_rounds`` (default 3000) is refused; pass a prefix or raise the limit.
"""
from __future__ import annotations

import importlib
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
    Stream,
    check_radii,
    empirical,
    format_report,
    plot_report,
)

__all__ = ["BoundsReport", "bounds_report", "format_report", "plot_report", "command",
           "handler_for", "HANDLERS", "MAX_ROUNDS", "DEFAULT_RADII", "DEFAULT_DELTA",
           "NO_BOUND"]

_B = "okl.experiments.bounds"

#: Learner class name -> its handler, ``"module:function"`` (imported on first use).  A
#: learner is handled by the first class of its MRO named here (``BOKS`` by ``OKS``'s).
HANDLERS = {
    "Perceptron": f"{_B}.ahpatron:perceptron",
    "AVP": f"{_B}.ahpatron:avp",
    "Ahpatron": f"{_B}.ahpatron:ahpatron",
    "Forgetron": f"{_B}.ahpatron:forgetron",
    "RBP": f"{_B}.ahpatron:rbp",
    "BOGD": f"{_B}.ahpatron:bogd",
    "BOGDPP": f"{_B}.ahpatron:bogd",
    "Projectron": f"{_B}.ahpatron:projectron",
    "ProjectronPP": f"{_B}.ahpatron:projectron",
    "NORMA": f"{_B}.norma:norma",
    "KernelOGD": f"{_B}.norma:kernelogd",
    "ALMA": f"{_B}.norma:alma",
    "POMD": f"{_B}.pomdr:pomdr",
    "POMDR": f"{_B}.pomdr:pomdr",
    "SkeGD": f"{_B}.pomdr:skegd",
    "BAO2KS": f"{_B}.pomdr:bao2ks",
    "FOGD": f"{_B}.pomdr:fogd",
    "NOGD": f"{_B}.pomdr:nogd",
    "KernelAWV": f"{_B}.awv:awv",
    "PKAWV": f"{_B}.awv:awv",
    "SketchedKONS": f"{_B}.awv:kons",
    "ProsNKONS": f"{_B}.awv:kons",
    "LKMBooks": f"{_B}.selection:lkmbooks",
    "PFMBooks": f"{_B}.selection:pfmbooks",
    "BATBooks": f"{_B}.selection:batbooks",
    "OKS": f"{_B}.selection:oks",
    "BOMKR": f"{_B}.selection:bomkr",
    "BOMKRV": f"{_B}.selection:bomkr",
    "ISKA": f"{_B}.selection:iska",
    "OMKC": f"{_B}.selection:omkc",
}


def resolve(spec: str):
    """The function named by ``"package.module:function"``."""
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"a handler is 'module:function', got {spec!r}")
    return getattr(importlib.import_module(module), attr)


def handler_for(learner):
    """``(handler, class name)`` of the first class in ``type(learner).__mro__`` that
    :data:`HANDLERS` names, or ``(None, None)``."""
    for cls in type(learner).__mro__:
        spec = HANDLERS.get(cls.__name__)
        if spec is not None:
            return resolve(spec), cls.__name__
    return None, None


def bounds_report(learner, X, y=None, *, U=None, max_rounds: int = MAX_ROUNDS,
                  delta: float = DEFAULT_DELTA) -> BoundsReport:
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
        Longest stream accepted (the comparators and the spectrum are O(T^3)).
    delta : float in (0, 1), default :data:`DEFAULT_DELTA`
        Confidence of the high-probability budget bounds (LKMBooks' Theorem 2, PFMBooks'
        Theorem 4, BATBooks' Theorem 8): each holds with probability at least
        ``1 - delta``.

    Returns
    -------
    BoundsReport

    Raises
    ------
    ValueError
        If ``T > max_rounds``, the learner has already learned, ``U`` is not positive and
        finite, or the stream is invalid for the learner (its own message).
    """
    from okl._validation import check_int, check_real

    start = time.perf_counter()
    max_rounds = check_int(max_rounds, "max_rounds", low=1)
    delta = check_real(delta, "delta", low=0, high=1, low_open=True, high_open=True)
    radii = check_radii(U)
    T = X.shape[0] if hasattr(X, "shape") and len(X.shape) == 2 else len(X)
    if T > max_rounds:
        raise ValueError(f"the stream has T = {T} rounds, more than max_rounds = {max_rounds}: "
                         f"the comparators and the Gram spectrum cost O(T^3); pass a prefix "
                         f"(X[:{max_rounds}], y[:{max_rounds}]) or raise max_rounds")
    if getattr(learner, "n_rounds", 0):
        raise ValueError(f"pass a fresh learner: {type(learner).__name__} has already learned "
                         f"{learner.n_rounds} rounds, and the bounds are for a run from f_1 = 0")
    trace = learner.run(X, y)
    yv = None if y is None else np.asarray(y, dtype=float)
    rows, curves = [], []
    name = type(learner).__name__
    handler, matched = handler_for(learner)
    if matched is not None:
        name = matched
    stream = Stream(X, yv, getattr(learner, "kernel", None))
    if handler is not None:
        handler(stream, learner, trace, radii, rows, curves, delta=delta)
    empirical(learner, trace, rows, handler is not None)
    info = dict(stream.info)
    info["T"] = int(trace.n_rounds)
    if stream._hinge:
        info["comparators"] = {f"{r:g}": {"loss": c.loss, "lower_bound": c.lower_bound,
                                          "norm": c.norm} for r, c in stream._hinge.items()}
    return BoundsReport(learner=repr(learner), name=name, T=int(trace.n_rounds), rows=rows,
                        curves=curves, trace=trace, stream=info,
                        seconds=time.perf_counter() - start)


def command(args) -> int:
    """``okl bounds``: the CLI entry point (an argparse namespace, like ``okl run``'s).

    Uses ``args.learner``, ``args.param`` (``["k=v", ...]``), ``args.kernel``,
    ``args.sigma``, ``args.degree``, the data arguments (``data``, ``download``,
    ``rounds``, ``features``, ``seed``), ``args.plot`` (figure stem or None) and
    ``args.json`` (path or None); optionally ``args.U`` (comma-separated radii),
    ``args.max_rounds`` and ``args.prefix`` (keep the first ``prefix`` rounds).
    Prints :func:`format_report`; returns 0.
    """
    from okl.experiments.args import learner_from_args, stream

    learner = learner_from_args(args)
    X, y, source = stream(args)
    prefix = getattr(args, "prefix", None)
    if prefix is not None:
        prefix = int(prefix)
        if prefix < 1:
            raise ValueError(f"--prefix must be >= 1, got {prefix}")
        X, y = X[:prefix], (None if y is None else np.asarray(y)[:prefix])
        source += f" (first {X.shape[0]} rounds)"
    U = getattr(args, "U", None)
    if isinstance(U, str):
        try:
            U = [float(v) for v in U.split(",")]
        except ValueError:
            raise ValueError(f"--U takes comma-separated radii, got {U!r}") from None
    report = bounds_report(learner, X, y, U=U,
                           max_rounds=getattr(args, "max_rounds", None) or MAX_ROUNDS,
                           delta=getattr(args, "delta", None) or DEFAULT_DELTA)
    report.data = source
    print(format_report(report))
    if getattr(args, "json", None):
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump(report.to_dict(), fh, indent=2)
        print(f"wrote {args.json}")
    if getattr(args, "plot", None):
        for path in plot_report(report, args.plot):
            print(f"wrote {path}")
    return 0
