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
  ``theory.selection_baselines`` (rows made by ``okl.experiments.bounds_baselines``): each
  one's budget (K separate sets or one shared set) and memory in Table 3's accounting,
  Theorem 1's factor for K separate sets, and the regret of the combination step against
  every kernel's own hypothesis sequence (BOMKR/BOMKR-V pathwise, OKS/BOKS in expectation).
* ``SkeGD`` / ``BAO2KS`` (seed 000's Table 2 baselines), through
  ``theory.seed000_baselines`` (rows made by ``okl.experiments.bounds_seed000``): the memory
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

Cost: the comparators and the eigendecomposition are :math:`O(T^3)`, so a stream longer
than ``max_rounds`` (default 3000) is refused; pass a prefix or raise the limit.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["BoundsReport", "bounds_report", "format_report", "plot_report", "command",
           "MAX_ROUNDS", "DEFAULT_RADII", "DEFAULT_DELTA", "NO_BOUND"]

#: Longest stream :func:`bounds_report` accepts by default (the comparators are O(T^3)).
MAX_ROUNDS = 3000
#: Comparator radii tried for the bounds that hold for every f (or every f in a ball).
DEFAULT_RADII = (1.0, 2.0, 4.0, 8.0)
#: Source of the rows that only report a measured quantity.
NO_BOUND = "no bound implemented"
#: Confidence level of the high-probability budget bounds (Theorems 2, 4, 8 of seed 004).
DEFAULT_DELTA = 0.05
#: Relative slack of ``holds`` (round-off; the counts are integers).
RTOL = 1e-9
#: Multiples of ``rho + eta' X^2 / 2`` tried as NORMA's comparator margin ``mu``.
NORMA_MU_FACTORS = (1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0)
#: Largest T^2 |I_n|^2 / 2 for which the Nystrom (KORS) Theorem 9 terms are computed.
NYSTROM_MAX_WORK = 5e9
#: Grid of Theorem 6's free parameter gamma in (0, 1) (the best valid one is reported).
THEOREM6_GAMMAS = tuple(float(g) for g in np.round(np.arange(1, 20) / 20.0, 2))

_LIAO24 = "Liao et al. 2024"
_LILIAO23 = "Li & Liao 2023"
_KSW04 = "Kivinen, Smola & Williamson 2004"
_JGR19 = "Jezequel, Gaillard & Rudi 2019"
_LLSEL = "Li & Liao, kernel selection"


# -- the report --------------------------------------------------------------------------

@dataclass
class BoundsReport:
    """What :func:`bounds_report` returns.

    Attributes
    ----------
    learner : str
        ``repr`` of the learner that ran.
    name : str
        Its class name (``"PKAWV"`` for both bases).
    T : int
        Rounds.
    rows : list of dict
        ``{"quantity", "measured", "bound", "ratio", "source", "holds", "note", "inputs"}``
        (see the module docstring).
    curves : list of dict
        Per-round curves: ``{"title", "kind", "ylabel", "measured": {label: array},
        "bounds": {label: array or float}, "anytime": bool, "note"}``; ``kind`` is
        ``"budget"``, ``"mistakes"`` or ``"regret"``.  ``anytime`` is False when the
        bound is only proved at the horizon (the curve then shows shape only).
    trace : okl.trace.Trace
        The run.
    stream : dict
        Stream quantities used by the bounds (``kappa_max``, ``kappa_min``, ``A_T``, ...).
    data : str
        Description of the stream (set by :func:`command`).
    seconds : float
        Wall time of the whole report.
    """

    learner: str
    name: str
    T: int
    rows: list
    curves: list
    trace: object
    stream: dict = field(default_factory=dict)
    data: str = ""
    seconds: float = 0.0

    @property
    def checked(self) -> list:
        """The rows with a bound."""
        return [r for r in self.rows if r["holds"] is not None]

    @property
    def all_hold(self):
        """True if every bound holds, False if one fails, None if no row has a bound."""
        rows = self.checked
        return None if not rows else all(r["holds"] for r in rows)

    def row(self, source: str) -> dict:
        """The row whose ``source`` is ``source`` (KeyError if there is none or several)."""
        found = [r for r in self.rows if r["source"] == source]
        if len(found) != 1:
            raise KeyError(f"{len(found)} rows with source {source!r}")
        return found[0]

    def to_dict(self, curves: bool = True) -> dict:
        """A JSON-ready dict (arrays as lists, non-finite numbers as strings)."""
        out = {"learner": self.learner, "name": self.name, "T": self.T, "data": self.data,
               "all_hold": self.all_hold, "seconds": self.seconds,
               "stream": self.stream, "rows": self.rows,
               "run": self.trace.to_dict()}
        if curves:
            out["curves"] = self.curves
        return _jsonable(out)


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    return value


def _row(quantity, measured, bound=None, source=NO_BOUND, *, note="", inputs=None):
    measured = _number(measured)
    if bound is None:
        ratio = holds = None
    else:
        bound = float(bound)
        holds = bool(measured <= bound + RTOL * max(1.0, abs(bound)))
        ratio = measured / bound if bound > 0 else None
        if math.isinf(bound):
            note = (note + "; " if note else "") + "vacuous: the bound is infinite"
    return {"quantity": quantity, "measured": measured, "bound": bound, "ratio": ratio,
            "source": source, "holds": holds, "note": note,
            "inputs": {k: _number(v) for k, v in (inputs or {}).items()}}


def _na(quantity, measured, source, reason):
    """A row whose bound does not apply to this run (``reason`` says why)."""
    return _row(quantity, measured, None, source, note=f"not applicable: {reason}")


def _number(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    return v


# -- the stream side (Gram matrix, spectrum, comparators), computed once and cached ---------

class _Stream:
    def __init__(self, X, y, kernel):
        self.X, self.y, self.kernel = X, y, kernel
        self._K = self._ev = self._A = None
        self._hinge = {}
        self._ridge = {}
        self.info = {}

    @property
    def K(self):
        if self._K is None:
            K = np.asarray(self.kernel(self.X), dtype=float)
            self._K = 0.5 * (K + K.T)
            d = np.diag(self._K)
            self.info.update(kappa_max=float(d.max()), kappa_min=float(d.min()))
        return self._K

    @property
    def kappa_max(self) -> float:
        """:math:`\\max_t k(x_t, x_t)` (the :math:`X^2` / :math:`D` of the bounds)."""
        self.K
        return self.info["kappa_max"]

    @property
    def kappa_min(self) -> float:
        self.K
        return self.info["kappa_min"]

    @property
    def eigenvalues(self):
        if self._ev is None:
            from theory import kernel_eigenvalues

            self._ev = kernel_eigenvalues(self.K)
            self.info.update(lambda_max=float(self._ev[0]))
        return self._ev

    @property
    def alignment(self) -> float:
        if self._A is None:
            from theory import kernel_alignment

            self._A = kernel_alignment(self.K, self.y)
            self.info["A_T"] = self._A
        return self._A

    def hinge(self, r):
        """``theory.best_hinge_in_ball(K, y, r)`` (one solve per radius)."""
        r = float(r)
        if r not in self._hinge:
            from threadpoolctl import threadpool_limits

            from theory import best_hinge_in_ball

            with threadpool_limits(1):     # far faster than threaded BLAS at these sizes
                self._hinge[r] = best_hinge_in_ball(self.K, self.y, r)
        return self._hinge[r]

    def hinge_losses(self, r):
        """Per-round hinge losses of the comparator of radius ``r``."""
        return np.maximum(0.0, 1.0 - self.y * self.hinge(r).fitted)

    def ridge(self, lam):
        lam = float(lam)
        if lam not in self._ridge:
            from theory import kernel_ridge_comparator

            self._ridge[lam] = kernel_ridge_comparator(self.K, self.y, lam)
        return self._ridge[lam]


def _radii(U):
    if U is None:
        return DEFAULT_RADII
    values = np.atleast_1d(np.asarray(U, dtype=float)).ravel()
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"U must be a positive finite radius or a sequence of them, got {U!r}")
    return tuple(sorted({float(v) for v in values}))


def _ball_radii(radii, U):
    """The radii below the ball's radius ``U``, and ``U`` itself (finite ``U``)."""
    if not math.isfinite(U):
        return tuple(radii)
    return tuple(r for r in radii if r < U) + (float(U),)


def _best(candidates):
    """The candidate ``(bound, inputs)`` with the smallest bound."""
    return min(candidates, key=lambda c: c[0])


def _cum(mask):
    return np.cumsum(np.asarray(mask, dtype=np.int64))


def _curve(title, kind, ylabel, measured, bounds, *, anytime=True, note=""):
    return {"title": title, "kind": kind, "ylabel": ylabel,
            "measured": {k: np.asarray(v, dtype=float) for k, v in measured.items()},
            "bounds": {k: (float(v) if np.ndim(v) == 0 else np.asarray(v, dtype=float))
                       for k, v in bounds.items()},
            "anytime": bool(anytime), "note": note}


# -- per-learner bounds --------------------------------------------------------------------

def _perceptron(s, learner, tr, radii, rows, curves):
    from theory.ahpatron import perceptron_theorem1_bound, perceptron_theorem2_bound

    M = tr.n_mistakes
    X2 = s.kappa_max
    q = "mistakes |M_T|"
    for fn, src in ((perceptron_theorem1_bound, f"{_LIAO24}, Theorem 1 (Dekel et al. 2005)"),
                    (perceptron_theorem2_bound,
                     f"{_LIAO24}, Theorem 2 (Shalev-Shwartz 2007)")):
        bound, r = _best([(fn(s.hinge(r).loss, s.hinge(r).norm, X2), r) for r in radii])
        c = s.hinge(r)
        rows.append(_row(q, M, bound, src, note=f"best f over radii {list(radii)}",
                         inputs={"radius": r, "L": c.loss, "f_norm": c.norm, "kappa_max": X2}))
        cumL = np.cumsum(s.hinge_losses(r))
        curves.append(_curve(f"Perceptron: {src}", "mistakes", "cumulative mistakes",
                             {"mistakes": tr.cumulative_mistakes},
                             {f"bound (f* of radius {r:g})":
                              [fn(L, c.norm, X2) for L in cumL]}))


def _unit_kernel_reason(s, what):
    if s.kappa_max > 1.0 + 1e-12:
        return (f"{what} assume k(x, x) <= 1, and max_t k(x_t, x_t) = {s.kappa_max:.6g} "
                f"on this stream")
    return None


def _avp(s, learner, tr, radii, rows, curves):
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
    cumN = _cum(in_N)
    setting = learner.setting
    src = {None: f"{_LIAO24}, Theorem 3 (constant rate)", "corollary1": f"{_LIAO24}, Corollary 1",
           "corollary2": f"{_LIAO24}, Corollary 2"}[setting]
    reason = _unit_kernel_reason(s, "the AVP bounds")
    lam = 1.0 if learner.lam is None else float(learner.lam)
    if reason is None and setting is None and not (0.0 < lam < 2.0 and lam / 2.0 < eps < 1.0):
        reason = (f"Theorem 3 needs (5): 0 < lam < 2 and lam/2 < eps < 1; the run has "
                  f"lam = {lam!r}, eps = {eps!r}")
    if reason:
        rows.append(_na(q, Mp, src, reason))
        return
    rs = _ball_radii(radii, U)
    if setting == "corollary2":
        in_M = margins <= 0.0
        lam_t = np.array([avp_corollary2_parameters(U, int(m)).lam for m in _cum(in_M)])
        delta = avp_corollary2_delta(lam_t[in_N], np.full(int(in_N.sum()), eps))
        bound, r = _best([(avp_corollary2_bound(s.hinge(r).loss, U, delta), r) for r in rs])
        c = s.hinge(r)
        rows.append(_row(q, Mp, bound, src, note=f"best f over radii {list(rs)}",
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

        bound, r = _best([(solved(s.hinge(r).loss, s.hinge(r).norm, N), r) for r in rs])
        c = s.hinge(r)
        rows.append(_row(q, Mp, bound, src, note=f"best f over radii {list(rs)}",
                         inputs={"radius": r, "L": c.loss, "f_norm": c.norm, "lam": lam,
                                 "eps": eps, "n_margin": N}))

        def prefix_bound(L, t):
            return solved(L, c.norm, int(cumN[t]))
    cumL = np.cumsum(s.hinge_losses(r))
    curves.append(_curve(f"AVP: {src}", "mistakes", "cumulative mistakes",
                         {"|M'_t|": tr.cumulative_mistakes},
                         {f"bound (f* of radius {r:g})":
                          [prefix_bound(L, t) for t, L in enumerate(cumL)]}))


def _ahpatron(s, learner, tr, radii, rows, curves):
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
    rows.append(_row("removals |J| (halvings)", int(e["removals"]),
                     ahpatron_lemma1_bound(n_upd, B), f"{_LIAO24}, Lemma 1",
                     inputs={"n_updates": n_upd, "B": B}))
    q = "mistakes |M'_T| (y f <= 0)"
    reason = _unit_kernel_reason(s, "the Ahpatron bounds")
    rs = _ball_radii(radii, U)
    margins = s.y * tr.scores
    cumN = _cum((margins > 0.0) & (margins < 1.0 - eps))

    # Theorem 4
    src4 = f"{_LIAO24}, Theorem 4"
    why = reason
    if why is None and c is None:
        why = "c=None (c_t = ||f_t||/U) is Theorem 6's setting; Theorem 4 needs c = 0.6"
    if why is None:
        fails = ahpatron_theorem4_conditions(B, U, lam, eps, c)
        why = "; ".join(fails) if fails else None
    if why:
        rows.append(_na(q, Mp, src4, why))
    else:
        bound, r = _best([(ahpatron_theorem4_bound(s.hinge(r).loss, s.hinge(r).norm, N, B, U,
                                                   eps).bound, r) for r in rs])
        cm = s.hinge(r)
        rows.append(_row(q, Mp, bound, src4, note=f"best f over radii {list(rs)}",
                         inputs={"radius": r, "L": cm.loss, "f_norm": cm.norm, "n_margin": N,
                                 "B": B, "U": U, "eps": eps}))
        cumL = np.cumsum(s.hinge_losses(r))
        curves.append(_curve(f"Ahpatron: {src4}", "mistakes", "cumulative mistakes",
                             {"|M'_t|": tr.cumulative_mistakes},
                             {f"bound (f* of radius {r:g})":
                              [ahpatron_theorem4_bound(L, cm.norm, int(cumN[t]), B, U, eps).bound
                               for t, L in enumerate(cumL)]}))

    # Theorem 6: zeta measured on the run; the best gamma of a grid that fits the conditions
    zeta_hat = float(e["zeta_hat"])
    zeta = max(zeta_hat, 1e-12)          # no removal: (11) holds for every zeta > 0
    paper_ok = zeta <= 0.5 and n_upd >= B / 2
    for form in ("safe", "paper"):
        src6 = (f"{_LIAO24}, Theorem 6 "
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
            rows.append(_na(q, Mp, src6, why))
            continue
        bound, (r, g) = _best([(ahpatron_theorem6_bound(s.hinge(r).loss, s.hinge(r).norm, N, B,
                                                        U, zeta, g, eps, form=form).bound, (r, g))
                               for r in rs for g in gammas])
        cm = s.hinge(r)
        rows.append(_row(q, Mp, bound, src6,
                         note=f"zeta measured on the run; best f over radii {list(rs)} and "
                              f"gamma over {gammas[0]}..{gammas[-1]}",
                         inputs={"radius": r, "L": cm.loss, "f_norm": cm.norm, "n_margin": N,
                                 "B": B, "U": U, "zeta": zeta, "gamma": g, "eps": eps}))

    # Theorem 5: the kernel alignment dominates the best hinge loss in the ball
    src5 = f"{_LIAO24}, Theorem 5"
    q5 = "min_{||f|| <= U} L_T(f)"
    if abs(s.kappa_max - 1.0) > 1e-10 or abs(s.kappa_min - 1.0) > 1e-10:
        rows.append(_na(q5, s.hinge(U).loss, src5, "Theorem 5 assumes k(x, x) = 1"))
    elif U < 1.0:
        rows.append(_na(q5, s.hinge(U).loss, src5, f"Theorem 5 needs U >= 1, U = {U!r}"))
    else:
        A = kernel_alignment(s.K, s.y)
        rows.append(_row(q5, s.hinge(U).loss, A, src5, note="bound = kernel alignment A_T",
                         inputs={"U": U}))


def _forgetron(s, learner, tr, radii, rows, curves):
    from theory.ahpatron import forgetron_mistake_bound, forgetron_radius

    q, src = "mistakes |M_T|", f"{_LIAO24}, eq. (1) (Forgetron, as quoted)"
    M, B = tr.n_mistakes, learner.B
    reason = _unit_kernel_reason(s, "the Forgetron bound")
    if reason:
        rows.append(_na(q, M, src, reason))
        return
    R = forgetron_radius(B)
    rs = _ball_radii(radii, R)
    bound, r = _best([(forgetron_mistake_bound(s.hinge(r).loss, s.hinge(r).norm, B), r)
                      for r in rs])
    c = s.hinge(r)
    rows.append(_row(q, M, bound, src,
                     note=f"f in the ball of radius forgetron_radius(B) = {R:.4g}; the original "
                          f"theorem's restriction on B is not checked",
                     inputs={"radius": r, "L": c.loss, "f_norm": c.norm, "B": B}))
    cumL = np.cumsum(s.hinge_losses(r))
    curves.append(_curve(f"Forgetron: {src}", "mistakes", "cumulative mistakes",
                         {"mistakes": tr.cumulative_mistakes},
                         {f"bound (f* of radius {r:g})":
                          [forgetron_mistake_bound(L, c.norm, B) for L in cumL]}))


def _norma(s, learner, tr, radii, rows, curves):
    from theory.norma import eta_prime, margin_error_bound_general, mistake_bound_general

    src2 = f"{_KSW04}, Theorem 2 via (45)-(46)"
    src3 = f"{_KSW04}, Theorem 3 via (46)-(48)"
    q2, q3 = "margin errors M_rho (y f <= rho)", "mistakes M (y f <= 0)"
    if learner.loss not in ("soft_margin",):
        rows.append(_na(q3, tr.n_mistakes if tr.is_classification else 0, src3,
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
        rows.append(_na(q2, margin_errors, src2, "; ".join(reasons)))
        rows.append(_na(q3, tr.n_mistakes, src3, "; ".join(reasons)))
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
        bound, (r, mu) = _best([(fn(*args(r, f * mu0)), (r, f * mu0))
                                for r in radii for f in factors])
        a = args(r, mu)
        rows.append(_row(q, measured, bound, src,
                         note=f"stationary comparator g = mu f_r (D1 = D2 = 0); best over radii "
                              f"{list(radii)} and mu = ({', '.join(map(str, factors))}) x "
                              f"(rho + eta' X^2 / 2)",
                         inputs={**base, "radius": r, "mu": mu, "K": a[0], "B": a[1]}))
        cumL = np.cumsum(s.hinge_losses(r))
        cm = _cum(s.y * tr.scores <= rho) if fn is margin_error_bound_general \
            else tr.cumulative_mistakes
        curves.append(_curve(f"NORMA: {src}", "mistakes",
                             "cumulative margin errors" if fn is margin_error_bound_general
                             else "cumulative mistakes",
                             {q: cm},
                             {f"bound (g = {mu:.3g} f*, radius {r:g})":
                              [fn(*args(r, mu, L, t + 1)) for t, L in enumerate(cumL)]}))


def _pomdr(s, learner, tr, radii, rows, curves):
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
            rows.append(_na(q1, size, f"{_LILIAO23}, Theorem 1 ({fit} decay fit)", reason))
    elif A <= 0.0:
        rows.append(_na(q1, size, f"{_LILIAO23}, Theorem 1",
                        "Theorem 1 needs k(x_t, x_t) >= A > 0"))
    else:
        ev = s.eigenvalues
        alpha = ald_threshold(Th, zeta, Dthr)
        C = theorem1_constant(Th, zeta, Dthr, min(A, Dthr))
        common = {"T": Th, "zeta": zeta, "D": Dthr, "A": min(A, Dthr), "C": C}
        spec = ald_budget_spectral_bound(ev, alpha, A)
        rows.append(_row(q1, size, spec, f"{_LILIAO23}, proof of Theorem 1 (interlacing)",
                         note="largest k with A alpha^(k-1) <= lambda_1 ... lambda_k",
                         inputs={"alpha": alpha, "A": A}))
        bounds1["interlacing"] = spec
        for fit_name, fit, fn, rate in (
                ("exponential", fit_exponential_decay, theorem1_exponential_bound, "r"),
                ("polynomial", fit_polynomial_decay, theorem1_polynomial_bound, "p")):
            src = f"{_LILIAO23}, Theorem 1 ({fit_name} decay fit)"
            try:
                env = fit(eigenvalues=ev)
            except ValueError as exc:
                rows.append(_na(q1, size, src, str(exc)))
                continue
            b = fn(Th, zeta, Dthr, env.R0, getattr(env, rate), C)
            note = f"envelope fitted to the {env.n_fit} leading eigenvalues"
            if env.clipped:
                note += f"; the fitted {rate} was clipped into Theorem 1's range"
            if size > env.n_fit:
                note += (f"; |S_T| = {size} > {env.n_fit}: the envelope does not cover "
                         f"lambda_1..lambda_|S_T|, the premise is unchecked")
            rows.append(_row(q1, size, b, src, note=note,
                             inputs={**common, "R0": env.R0, rate: getattr(env, rate)}))
            bounds1[f"Theorem 1 ({fit_name})"] = b
    budget_bounds = dict(bounds1)
    if not isinstance(learner, POMD):
        budget_bounds["B"] = float(learner.B)
    curves.append(_curve(f"{type(learner).__name__}: budget |S_t| and its bounds", "budget",
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
    rows.append(_row("sum_t delta_t", float(e["sum_delta"]), lemma4_bound(At, D),
                     f"{_LILIAO23}, Lemma 4", note=note,
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
    for src, fn, arg in ((f"{_LILIAO23}, Theorem 2", theorem2_bound, sd),
                         (f"{_LILIAO23}, Corollary 1", corollary1_bound, None)):
        if reasons:
            rows.append(_na(q2, regret, src, "; ".join(reasons)))
            continue
        b = fn(U, sd, **kw) if arg is not None else fn(U, At, D, **kw)
        rows.append(_row(q2, regret, b, src,
                         note=f"{case}; regret measured against the comparator's certified "
                              f"lower bound (>= the true regret)", inputs=ins))
    if not reasons:
        cumd = np.cumsum(deltas)
        reg = np.cumsum(tr.losses) - np.cumsum(s.hinge_losses(U))
        bnd = [theorem2_bound(U, float(d), **({} if pomd_only else {"T": t + 1,
                                                                      "B": learner.B}))
               for t, d in enumerate(cumd)]
        curves.append(_curve(f"POMDR: {_LILIAO23}, Theorem 2", "regret", "regret",
                             {"regret vs f* (radius U)": reg}, {"Theorem 2 on prefixes": bnd},
                             anytime=False,
                             note="a prefix of a horizon-T run is not a horizon-t run: "
                                  "shape only; the theorem is checked at t = T"))


def _awv(s, learner, tr, radii, rows, curves):
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
        rows.append(_na(q, regret, _JGR19, "every y_t is 0 (B = 0)"))
        return
    basis = getattr(learner, "basis", None)
    srcs = {None: ["Proposition 1", "Proposition 2"], "taylor": ["Theorem 3", "Theorem 4"],
            "nystrom": ["Theorem 9", "Theorem 6"]}[basis]
    if learner.forecaster != "awv":
        for name in srcs:
            rows.append(_na(q, regret, f"{_JGR19}, {name}",
                            "forecaster='krr' drops f(x_t)^2 from (3)/(4): the bounds are for "
                            "forecaster='awv'"))
        return
    ev = s.eigenvalues
    logdet = log_det_term(lam=lam, eigenvalues=ev)
    anytime = None
    if isinstance(learner, KernelAWV):
        p1 = proposition1_bound(lam, comp.norm2, B, eigenvalues=ev)
        rows.append(_row(q, regret, p1, f"{_JGR19}, Proposition 1",
                         inputs={**base, "log_det": logdet}))
        p2 = lam * comp.norm2 + B * B * proposition2_bound(lam=lam, kappa2=s.kappa_max,
                                                           eigenvalues=ev)
        rows.append(_row(q, regret, p2, f"{_JGR19}, Proposition 2 (in Proposition 1)",
                         note="lam ||f||^2 + B^2 log(e + e n kappa^2 / lam) d_eff(lam)",
                         inputs={**base, "kappa2": s.kappa_max}))
        anytime = ("Proposition 1", 1.0)
    elif basis == "taylor":
        Xd = s.X.toarray() if hasattr(s.X, "toarray") else np.asarray(s.X, dtype=float)
        sigma, M = learner.kernel.sigma, learner.degree
        mu = taylor_mu(Xd, sigma=sigma, M=M, K=s.K)
        rows.append(_row(q, regret, theorem3_bound(lam, comp.norm2, B, logdet, mu, T),
                         f"{_JGR19}, Theorem 3", note="mu = ||(I - P) C_n^(1/2)||^2 measured",
                         inputs={**base, "log_det": logdet, "mu": mu, "n": T}))
        R = float(np.max(np.linalg.norm(Xd, axis=1)))
        src4 = f"{_JGR19}, Theorem 4"
        if R == 0.0 or not theorem4_condition(M, T, lam, R, sigma):
            need = theorem4_M(T, lam, R, sigma) if R > 0 else 0
            rows.append(_na(q, regret, src4,
                            f"Theorem 4 needs M >= 8 R^2/sigma^2 and M >= 2 log(n/(lam ^ 1)), "
                            f"i.e. M >= {need} for n = {T}, R = {R:.4g}; the run has M = {M}"))
        else:
            rows.append(_row(q, regret, theorem4_bound(lam, comp.norm2, B, logdet), src4,
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
                rows.append(_na(q, regret, f"{_JGR19}, {name}", why))
            return
        terms = theorem9_terms_nested(s.K, y, lam, dicts)
        rows.append(_row(q, regret, theorem9_bound(terms, lam, comp.norm2, B),
                         f"{_JGR19}, Theorem 9",
                         note="terms of the run's nested dictionaries (the proof's form)",
                         inputs={**base, "estimation": terms.estimation,
                                 "changes": terms.n_changes}))
        mu_hat = terms.mu_residual_max
        src6 = f"{_JGR19}, Theorem 6"
        if mu_hat > lam:
            rows.append(_na(q, regret, src6, f"Theorem 6 needs mu <= lam; the run's "
                                             f"max_t ||(I - P_t) C_t^(1/2)||^2 = {mu_hat:.4g}"))
        else:
            deff = effective_dimension(lam=lam, eigenvalues=ev)
            rows.append(_row(q, regret,
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
        curves.append(_curve(f"{_JGR19}, {name}", "regret", "regret",
                             {"regret vs f* (all rounds)": reg},
                             {f"{name} on prefixes": lam * comp.norm2
                              + const * B * B * np.cumsum(np.log1p(u))}))


def _kons(s, learner, tr, radii, rows, curves):
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
        rows.append(_na(q, regret, src, why))
    elif pros and learner.variant != "paper":
        rows.append(_na(q, regret, src, "variant='jgr2019' records forecasts other than the "
                                        "ones it learns from: the bound is for 'paper'"))
    elif pros:
        comp = pros_n_kons_comparator_terms(s.K, y, a, restarts)
        rows.append(_row(q, regret, pros_n_kons_regret_bound(alpha, comp, sum_lev),
                         f"{src}, Pros-N-KONS by epochs",
                         note="sum_j alpha/2 ||P_j f||^2 + 1/2 sum_t g^T A_t^-1 g + "
                              "approximation sum_t l(P_j f) - l(f)",
                         inputs={**base, "epochs": int(restarts.size) + 1,
                                 "approximation": comp.approximation}))
    else:
        rows.append(_row(q, regret, kons_regret_bound(alpha, norm2, sum_lev),
                         f"{src}, online Newton step (pathwise)",
                         note="alpha/2 ||f||^2 + 1/2 sum_t g^T A~_t^-1 g", inputs=base))
        L = 2.0 * (C + float(np.max(np.abs(y))))
        ev = s.eigenvalues
        gamma, beta = float(learner.gamma), float(learner.beta)
        if gamma == 1.0:
            rows.append(_row(q, regret, kons_logdet_bound(alpha, norm2, eta, L, eigenvalues=ev),
                             f"{src}, KONS log-determinant",
                             note="gamma = 1: every gradient kept",
                             inputs={**base, "L": L}))
        else:
            rows.append(_row(q, regret,
                             sketched_kons_expected_bound(alpha, norm2, eta, L, beta, gamma,
                                                          eigenvalues=ev),
                             f"{src}, Sketched-KONS in expectation",
                             note="a bound on the expected regret: holds is one draw",
                             inputs={**base, "L": L, "beta": beta, "gamma": gamma}))
    m = max(int(tr.final_budget), 1)
    deff = effective_dimension(lam=alpha, eigenvalues=s.eigenvalues)
    if pros:
        form = eq8_regret("pros-n-kons", T, alpha, deff, m, mu=float(learner.mu))
        what = "m (lam + d_eff(lam)) + n mu / lam"
    else:
        form = eq8_regret("sketched-kons", T, alpha, deff, m)
        what = "lam + (n/m) d_eff(lam)"
    rows.append(_row(f"eq. (8) form {what} (order, no constants)", form,
                     source=f"{_JGR19}, eq. (8)",
                     note=f"lam = alpha = {alpha:g}, m = {m}, d_eff(lam) = {deff:.4g}: an "
                          "order, not a bound"))


# -- online kernel selection (LKMBooks, PFMBooks, BATBooks) ---------------------------------

def _kernel_streams(s, kernels):
    """One :class:`_Stream` (Gram matrix, comparators) per candidate kernel."""
    return [_Stream(s.X, s.y, k) for k in kernels]


def _kernel_label(i, k):
    sigma = getattr(k, "sigma", None)
    return f"kernel {i}" + ("" if sigma is None else f" (sigma = {sigma:g})")


def _z_form(form_name, corrected_name):
    return "corrected" if form_name == corrected_name else "printed"


_EXPECTATION = ("the theorem bounds the regret in expectation over the learner's draws; "
                "holds is one draw")


def _selection_regret_rows(s, learner, measured_loss, bound_fn, radii_for, q, src, reasons,
                           rows, note):
    """Per kernel: the best hinge comparator of each radius in ``radii_for(i)`` against the
    explicit bound ``bound_fn(i, radius, comparator)``; the radius with the smallest bound
    on the learner's loss (comparator loss + bound) is reported."""
    kernels = list(getattr(learner, "kernels_", None) or learner.kernels)
    streams = None if reasons else _kernel_streams(s, kernels)
    for i, k in enumerate(kernels):
        qi = f"{q}, {_kernel_label(i, k)}"
        srci = f"{src}, {_kernel_label(i, k)}"
        if reasons:
            rows.append(_na(qi, measured_loss, srci, "; ".join(reasons)))
            continue
        cands = []
        for r in radii_for(i):
            c = streams[i].hinge(r)
            b = bound_fn(i, r, c)
            cands.append((c.loss + b, (r, c, b)))
        _, (r, c, b) = _best(cands)
        rows.append(_row(qi, measured_loss - c.loss, b, srci,
                         note=f"{note}; f = the best hinge function of kernel {i} in the ball "
                              f"of radius {r:g} (of {[float(v) for v in radii_for(i)]}, the one "
                              f"with the smallest L_T(f) + bound); {_EXPECTATION}",
                         inputs={"radius": r, "f_norm": c.norm, "comparator_loss": c.loss,
                                 "learner_loss": measured_loss}))


def _lkmbooks(s, learner, tr, radii, rows, curves, delta):
    from theory.selection import lkmbooks_regret_bound, lkmbooks_theorem2_bound, sampling_rate

    e = tr.extras
    T, B, C, u = int(e["T"]), int(e["B"]), float(e["C"]), float(e["upsilon"])
    form = _z_form(learner.z_form_, "theorem2")
    K = len(learner.kernels)

    # Theorem 2: Bernstein with mean <= B, i.e. sum_{n <= T} min{1, C / z_n} <= B
    q2, src2 = "sampled rounds #(rho_t = 1) (|S| without the guard)", f"{_LLSEL}, Theorem 2"
    mean = float(np.sum(np.minimum(1.0, C / sampling_rate(np.arange(1, T + 1), T, u, "2",
                                                          form))))
    if mean > B * (1.0 + 1e-12):
        rows.append(_na(q2, int(e["n_sampled"]), src2,
                        f"the proof needs sum_n min(1, C/z_n) <= B; with z_form = "
                        f"{learner.z_form_!r}, C = {C:g}, upsilon = {u:.4g} it is {mean:.4g} > "
                        f"B = {B}"))
    else:
        rows.append(_row(q2, int(e["n_sampled"]), lkmbooks_theorem2_bound(B, delta), src2,
                         note=f"holds with probability >= 1 - delta = {1 - delta:g}; holds is "
                              f"one draw.  Buffer size with the guard: {int(e['max_size'])}",
                         inputs={"B": B, "delta": delta, "mean_bound": mean, "C": C,
                                 "upsilon": u}))
        curves.append(_curve("LKMBooks: |S_t| and Theorem 2", "budget",
                             "support vectors |S_t|", {"|S_t|": tr.budget},
                             {"Theorem 2": lkmbooks_theorem2_bound(B, delta), "B": float(B)},
                             note="horizon-T bound with probability 1 - delta: constant lines"))

    # Theorem 3 (explicit reconstructed form), per kernel
    q3 = "regret vs best hinge f"
    src3 = f"{_LLSEL}, Theorem 3 (explicit form)"
    reasons = []
    if learner.loss != "hinge":
        reasons.append("theory has no absolute-loss comparator (best_hinge_in_ball is for the "
                       "hinge loss)")
    if learner.l_m is None:
        reasons.append("l_m=None: the doubling trick restarts Hedge; the bound is for a fixed "
                       "l_m")
    elif float(e["l_m"]) > float(e["l_m_scale"]) * (1.0 + 1e-12):
        reasons.append(f"max{{l_m, 1}} = {e['l_m_scale']:g} does not bound the criteria's "
                       f"spread {e['l_m']:.4g} (criterion (6) outside [-1, 1])")
    if int(e["guard_blocked"]):
        reasons.append(f"the hard guard at B refused {e['guard_blocked']} sampled updates: the "
                       f"gradient estimate is no longer unbiased")
    if float(e["eta"]) <= 0.0:
        reasons.append("eta = 0: the bound's ln K / eta is infinite (p_t stays uniform)")
    if C != round(C):
        reasons.append(f"C = {C!r} is not an integer (the bound's probabilities "
                       f"min(1, C/z_n) take an integer C)")
    ell = float(e["l_m_scale"])

    def bound(i, r, c):
        return lkmbooks_regret_bound(T, K, int(round(C)), c.norm, float(e["lam"]),
                                     float(e["eta"]), L=1.0, D=float(learner.D_), upsilon=u,
                                     criterion_range=1.0, ell_m=ell, form=form)

    loss = float(tr.losses.sum())
    _selection_regret_rows(s, learner, loss, bound, lambda i: radii, q3, src3, reasons, rows,
                           f"OGD on the unbiased estimate with C = {C:g} in the role of B, "
                           f"every round counted as a gradient round (N = T)")


def _pfmbooks(s, learner, tr, radii, rows, curves, delta):
    from theory.selection import addition_probabilities, pfmbooks_regret_bound, \
        pfmbooks_theorem4_bound

    e = tr.extras
    T, B, C, u = int(e["T"]), int(e["B"]), float(e["C"]), float(e["upsilon"])
    P = np.asarray(e["sampling_probabilities"], dtype=float)

    # Theorem 4: Bernstein with mean B/2, i.e. sum_t P_t <= B/2 (oblivious rule)
    q4, src4 = "sampled rounds #(rho_t = 1) (|S| without the guard)", f"{_LLSEL}, Theorem 4"
    mean = float(P.sum())
    if mean > 0.5 * B * (1.0 + 1e-12):
        rows.append(_na(q4, int(e["n_sampled"]), src4,
                        f"the proof needs sum_t P_t <= B/2; the printed z_t with C = {C:g}, "
                        f"upsilon = {u:.4g} gives {mean:.4g} > B/2 = {B / 2:g}"))
    else:
        rows.append(_row(q4, int(e["n_sampled"]), pfmbooks_theorem4_bound(B, delta), src4,
                         note=f"holds with probability >= 1 - delta = {1 - delta:g}; holds is "
                              f"one draw.  Buffer size with the guard: "
                              f"{int(e['max_support_size'])}",
                         inputs={"B": B, "delta": delta, "sum_P": mean, "C": C,
                                 "upsilon": u}))
        curves.append(_curve("PFMBooks: |S_t| and Theorem 4", "budget",
                             "support vectors |S_t|", {"|S_t|": tr.budget},
                             {"Theorem 4": pfmbooks_theorem4_bound(B, delta), "B": float(B)},
                             note="horizon-T bound with probability 1 - delta: constant lines"))

    # Theorem 6 (explicit reconstructed form), per kernel, each radius U_j of (7)
    q6 = "expected regret sum <p_t, c_t> vs best hinge f in a ball"
    src6 = f"{_LLSEL}, Theorem 6 (explicit form)"
    reasons = []
    if learner.loss != "hinge":
        reasons.append("theory has no absolute-loss comparator (best_hinge_in_ball is for the "
                       "hinge loss)")
    if getattr(learner, "variant", "okl") == "r":
        reasons.append("variant = 'r' (the authors' PFMBooks-*.R): p_t is renormalized only "
                       "to within [0.99, 1 + 1e-5] from the scripts' prior, and the steps "
                       "divide by the unclipped C/z_t with twice Theorem 6's lambda (hinge) "
                       "-- not the algorithm Theorem 6 is about")
    if getattr(learner, "g_", learner.g) != "assumption5":
        reasons.append(f"g = {getattr(learner, 'g_', learner.g)!r}: the scales do not bound "
                       f"the criteria (Assumption 5)")
    if float(e["eta"]) <= 0.0:
        reasons.append("eta = 0: the bound's divergence term / eta is infinite (p_t stays "
                       "the prior)")
    if int(e["guard_triggers"]):
        reasons.append(f"the hard guard at B refused {e['guard_triggers']} sampled updates: "
                       f"the gradient estimate is no longer unbiased")
    if not np.allclose(P, addition_probabilities(T, B, u, "4", "printed"), rtol=1e-12,
                       atol=0.0):
        reasons.append(f"C = {C:g} != B = {B}: the bound takes Theorem 4's P_t = min(1, B/z_t)")
    radii_j = np.asarray(e["radii"], dtype=float)
    M = radii_j.size
    lams = np.asarray(e["lambdas"], dtype=float).reshape(-1, M)
    scales = np.asarray(e["scales"], dtype=float)

    def bound(i, r, c):
        j = int(np.argmin(np.abs(radii_j - r)))
        return pfmbooks_regret_bound(T, B, min(c.norm, r), r, float(lams[i, j]),
                                     float(e["eta"]), scales, i * M + j, L=1.0,
                                     D=float(learner.kernels_[i].sup_diag),
                                     upsilon=u, form="printed")

    expected = float(np.sum(e["expected_criteria"]))
    _selection_regret_rows(s, learner, expected, bound, lambda i: tuple(radii_j), q6, src6,
                           reasons, rows,
                           "measured: sum_t <p_t, c_t>, the loss of f_{t,I_t} averaged over "
                           "I_t given the past (prediction='mean' suffers at most this)")


def _batbooks(s, learner, tr, radii, rows, curves, delta):
    from theory.selection import addition_probabilities, batbooks_regret_bound, \
        batbooks_theorem8_bound

    e = tr.extras
    T, B, u, K = int(e["T"]), int(e["B"]), float(e["upsilon"]), learner.K
    form = _z_form(getattr(learner, "z_form_", learner.z_form), "theorem8")
    rho, J = np.asarray(e["rho"]), np.asarray(e["explored"])
    counts = np.bincount(J[rho >= 1], minlength=K)

    # Theorem 8: per buffer, Bernstein with mean B/2 and a union bound over the K buffers
    q8 = "max_i #(rho_t = 1, J_t = i) (|S_i| without the guard)"
    src8 = f"{_LLSEL}, Theorem 8"
    mean = float(np.sum(addition_probabilities(T, B, u, "8", form, K=K)))
    if mean > 0.5 * B * (1.0 + 1e-12):
        rows.append(_na(q8, int(counts.max()), src8,
                        f"the proof needs sum_t (1/K) min(1, KB/z_t) <= B/2; with z_form = "
                        f"{getattr(learner, 'z_form_', learner.z_form)!r}, upsilon = {u:.4g} it is {mean:.4g} > B/2 = "
                        f"{B / 2:g}"))
    elif delta / K >= 1.0:
        rows.append(_na(q8, int(counts.max()), src8, f"delta/K = {delta / K:g} >= 1"))
    else:
        rows.append(_row(q8, int(counts.max()), batbooks_theorem8_bound(B, K, delta), src8,
                         note=f"every buffer at once, with probability >= 1 - delta = "
                              f"{1 - delta:g}; holds is one draw.  Buffer sizes with the guard:"
                              f" {[int(v) for v in e['sizes']]}",
                         inputs={"B": B, "K": K, "delta": delta, "mean_bound": mean,
                                 "upsilon": u, "counts": [int(c) for c in counts]}))
        curves.append(_curve("BATBooks: sum_i |S_i| and K x Theorem 8", "budget",
                             "stored examples sum_i |S_i|", {"sum_i |S_i|": tr.budget},
                             {"K x Theorem 8": K * batbooks_theorem8_bound(B, K, delta),
                              "K floor(B/2)": float(K * (B // 2))},
                             note="every |S_i| <= the Theorem 8 bound (probability 1 - delta),"
                                  " so the sum is <= K times it: constant lines"))

    # Theorem 10 (explicit reconstructed form), per kernel, f in the ball of radius U
    q10 = "regret vs best hinge f in ||f|| <= U"
    src10 = f"{_LLSEL}, Theorem 10 (explicit form)"
    U = float(e["U"])
    D = np.array([float(k.sup_diag) for k in learner.kernels_])
    etas = np.asarray(e["eta"], dtype=float)
    reasons = []
    if learner.loss != "hinge":
        reasons.append("theory has no absolute-loss comparator (best_hinge_in_ball is for the "
                       "hinge loss)")
    if getattr(learner, "variant", "okl") == "r":
        reasons.append("variant = 'r' (the authors' BATBooks*.R): p_t restarts from uniform "
                       "whenever min_i C~_{t,i} passes m = 4, 16, ..., and the steps divide "
                       "by the unclipped (KB/z_t)/K -- not the algorithm Theorem 10 is about")
    if learner.ell_max == "doubling":
        reasons.append("ell_max='doubling': the bound is for a fixed ell_m")
    elif float(learner.ell_max) < 1.0 + U * math.sqrt(D.max()) - 1e-12:
        reasons.append(f"ell_max = {learner.ell_max!r} < 1 + U sqrt(D) = "
                       f"{1.0 + U * math.sqrt(D.max()):.4g}: c_t = l/ell_m may leave [0, 1]")
    if etas.size and not np.all(etas == etas[0]):
        reasons.append(f"eta = {getattr(learner, 'eta_rule_', learner.eta)!r} varies over the "
                       f"rounds (doubling); the bound is "
                       f"for a fixed eta")
    elif etas.size and etas[0] <= 0.0:
        reasons.append("eta = 0: the bound's ln K / eta is infinite (p_t stays uniform)")
    if int(e["n_full"]):
        reasons.append(f"the hard guard refused {e['n_full']} sampled updates (full buffers): "
                       f"the gradient estimate is no longer unbiased")
    lam = np.atleast_1d(np.asarray(e["lam"], dtype=float))
    ell = None if learner.ell_max == "doubling" else float(learner.ell_max)

    def bound(i, r, c):
        return batbooks_regret_bound(T, K, B, min(c.norm, U), U, float(lam[i]),
                                     float(etas[0]), T * ell, ell, L=1.0, D=float(D[i]),
                                     upsilon=u, form=form)

    _selection_regret_rows(s, learner, float(tr.losses.sum()), bound,
                           lambda i: _ball_radii(radii, U), q10, src10, reasons, rows,
                           "bandit term with the worst case best_loss = T ell_m (the kernel's "
                           "own cumulative loss is not observed)")


def _empirical(learner, tr, rows, covered):
    note = "" if covered else f"okl bounds has no theory for {type(learner).__name__}"
    if tr.is_classification:
        rows.append(_row("mistakes", tr.n_mistakes))
    rows.append(_row("cumulative loss", float(tr.losses.sum())))
    rows.append(_row("final budget", tr.final_budget))
    rows.append(_row("max budget", int(tr.budget.max())))
    rows[-1]["note"] = note


def _handlers():
    from okl.learners.ahpatron import AVP, Ahpatron
    from okl.learners.awv import PKAWV, KernelAWV
    from okl.learners.kons import ProsNKONS, SketchedKONS
    from okl.learners.budget import Forgetron
    from okl.learners.norma import NORMA
    from okl.learners.perceptron import Perceptron
    from okl.learners.batbooks import BATBooks
    from okl.learners.lkmbooks import LKMBooks
    from okl.learners.pfmbooks import PFMBooks
    from okl.learners.pomdr import POMD, POMDR
    from okl.learners.bomkr import BOMKR, BOMKRV
    from okl.learners.iska import ISKA
    from okl.learners.oks import OKS
    from okl.experiments.bounds_baselines import bomkr_rows, iska_rows, oks_rows
    from okl.experiments.bounds_seed000 import bao2ks_rows, skegd_rows
    from okl.learners.bao2ks import BAO2KS
    from okl.learners.skegd import SkeGD

    return ((Perceptron, _perceptron), (AVP, _avp), (Ahpatron, _ahpatron),
            (Forgetron, _forgetron), (NORMA, _norma), (POMD, _pomdr), (POMDR, _pomdr),
            (KernelAWV, _awv), (PKAWV, _awv), (LKMBooks, _lkmbooks), (PFMBooks, _pfmbooks),
            (BATBooks, _batbooks), (SketchedKONS, _kons), (ProsNKONS, _kons),
            (OKS, oks_rows), (BOMKR, bomkr_rows), (BOMKRV, bomkr_rows), (ISKA, iska_rows),
            (SkeGD, skegd_rows), (BAO2KS, bao2ks_rows))


#: Handlers whose high-probability bounds take the report's ``delta``.
_WITH_DELTA = ("_lkmbooks", "_pfmbooks", "_batbooks")


# -- the entry points ------------------------------------------------------------------------

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
    radii = _radii(U)
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
    handler = None
    for cls, fn in _handlers():
        if isinstance(learner, cls):
            handler, name = fn, cls.__name__
            break
    stream = _Stream(X, yv, getattr(learner, "kernel", None))
    if handler is not None:
        extra = {"delta": delta} if handler.__name__ in _WITH_DELTA else {}
        handler(stream, learner, trace, radii, rows, curves, **extra)
    _empirical(learner, trace, rows, handler is not None)
    info = dict(stream.info)
    info["T"] = int(trace.n_rounds)
    if stream._hinge:
        info["comparators"] = {f"{r:g}": {"loss": c.loss, "lower_bound": c.lower_bound,
                                          "norm": c.norm} for r, c in stream._hinge.items()}
    return BoundsReport(learner=repr(learner), name=name, T=int(trace.n_rounds), rows=rows,
                        curves=curves, trace=trace, stream=info,
                        seconds=time.perf_counter() - start)


def _fmt(v, digits=5):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.{digits}g}"
    return str(v)


def format_report(report: BoundsReport) -> str:
    """A readable terminal table of ``report`` (one line per row, notes below)."""
    head = ["quantity", "measured", "bound", "ratio", "holds", "source"]
    cells = [[r["quantity"], _fmt(r["measured"]), _fmt(r["bound"]), _fmt(r["ratio"], 3),
              _fmt(r["holds"]), r["source"]] for r in report.rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    lines = [f"{report.learner}",
             f"{report.T} rounds" + (f" of {report.data}" if report.data else "")
             + "".join(f", {k} = {_fmt(v)}" for k, v in report.stream.items()
                       if k in ("kappa_max", "A_T")),
             "",
             "  ".join(h.ljust(w) for h, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    notes = []
    for i, (r, c) in enumerate(zip(report.rows, cells)):
        mark = ""
        if r["note"]:
            notes.append(f"[{len(notes) + 1}] {r['note']}")
            mark = f" [{len(notes)}]"
        lines.append("  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() + mark)
    verdict = {True: "every bound holds", False: "SOME BOUND FAILS",
               None: "no bound applies"}[report.all_hold]
    lines += ["", f"{len(report.checked)} bound(s) checked: {verdict} "
                  f"({report.seconds:.2f} s)"]
    if notes:
        lines += [""] + notes
    return "\n".join(lines)


def plot_report(report: BoundsReport, out_stem) -> list:
    """Save the measured-against-bound curves of ``report`` as ``out_stem.png`` / ``.svg``.

    One panel per curve of ``report.curves`` (budget against the ALD bound, mistakes or
    regret against their bounds; dashed lines are bounds); a report without curves gets
    its budget and, for classifiers, its cumulative mistakes.  Returns the two paths.
    """
    from okl import plotting

    plt = plotting._pyplot()
    panels = list(report.curves)
    if not panels:
        panels.append(_curve("budget", "budget", "support vectors |S_t|",
                             {"|S_t|": report.trace.budget}, {}))
        if report.trace.is_classification:
            panels.append(_curve("mistakes (no bound implemented)", "mistakes",
                                 "cumulative mistakes",
                                 {"mistakes": report.trace.cumulative_mistakes}, {}))
    n = len(panels)
    cols = min(n, 3)
    rows_n = -(-n // cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(5.5 * cols, 4.2 * rows_n), squeeze=False)
    for ax, c in zip(axes.ravel(), panels):
        title = c["title"] + ("" if c["anytime"] else " (shape only)")
        if c["kind"] == "budget":
            plotting.plot_budget({report.name: report.trace}, bounds=c["bounds"], title=title,
                                 ax=ax)
        else:
            plotting.plot_against_bounds(c["measured"], c["bounds"], ylabel=c["ylabel"],
                                         title=title, ax=ax)
        ax.title.set_fontsize(8)
        if ax.get_legend() is not None:
            ax.legend(fontsize=7)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    fig.suptitle(f"{report.learner} ({report.T} rounds)", fontsize=9)
    return plotting.save_figure(fig, out_stem)


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
