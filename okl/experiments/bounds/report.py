r"""The lower layer of ``okl bounds``: the stream context, the row and curve builders, the
report type, and its formatting and plotting.

A handler (one module per paper: :mod:`~okl.experiments.bounds.norma`,
:mod:`~okl.experiments.bounds.ahpatron`, :mod:`~okl.experiments.bounds.pomdr`,
:mod:`~okl.experiments.bounds.awv`, :mod:`~okl.experiments.bounds.selection`,
:mod:`~okl.experiments.bounds.multiclass`) appends rows made by :func:`row` / :func:`na` and
curves made by :func:`curve`, reading the stream's Gram matrix, spectrum and comparators
(binary, or multiclass: :meth:`Stream.mc_comparator`) from a :class:`Stream` (computed once,
cached).  Nothing here imports a handler module or :mod:`okl.experiments.bounds` itself.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from okl.experiments.runner import _json_safe

__all__ = ["BoundsReport", "Stream", "SubsetComparator", "GramUnavailable",
           "TooManyRoundsError", "EXACT_COMPARATOR", "row", "na", "curve", "empirical", "check_radii",
           "ball_radii", "best", "cum", "unit_kernel_reason", "format_report", "plot_report",
           "MAX_ROUNDS", "DEFAULT_RADII", "MC_FIT_ROWS", "KINDS", "DETERMINISTIC",
           "HIGH_PROBABILITY", "EXPECTATION", "ORDER", "DEFAULT_DELTA", "NO_BOUND", "RTOL",
           "LIAO24", "LILIAO23", "KSW04", "JGR19", "LLSEL"]

#: Longest stream :func:`bounds_report` accepts by default (the comparators are O(T^3)).
MAX_ROUNDS = 3000
#: Comparator radii tried for the bounds that hold for every f (or every f in a ball).
DEFAULT_RADII = (1.0, 2.0, 4.0, 8.0)
#: Source of the rows that only report a measured quantity.
NO_BOUND = "no bound implemented"
#: Rows a multiclass comparator is fitted on at most (``Stream.mc_comparator``: its
#: L-BFGS fit costs about 1 s at 200 rows and 10 s at 1000 on one core).
MC_FIT_ROWS = 600
#: Confidence level of the high-probability budget bounds (Theorems 2, 4, 8 of the
#: kernel-selection paper of Li & Liao).
DEFAULT_DELTA = 0.05
#: Relative slack of ``holds`` (round-off; the counts are integers).
RTOL = 1e-9
#: The kinds of a row's bound (see :func:`row`).
DETERMINISTIC, HIGH_PROBABILITY, EXPECTATION, ORDER = ("deterministic", "high-probability",
                                                       "expectation", "order")
KINDS = (DETERMINISTIC, HIGH_PROBABILITY, EXPECTATION, ORDER)

# the papers, as the rows' sources name them
LIAO24 = "Liao et al. 2024"
LILIAO23 = "Li & Liao 2023"
KSW04 = "Kivinen, Smola & Williamson 2004"
JGR19 = "Jezequel, Gaillard & Rudi 2019"
LLSEL = "Li & Liao, kernel selection"


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
        return _json_safe(out)


def row(quantity, measured, bound=None, source=NO_BOUND, *, note="", inputs=None,
        kind=DETERMINISTIC, delta=None, comparator=None):
    """A report row: ``measured`` beside ``bound`` (``None``: no bound); ``holds`` is
    ``measured <= bound`` up to :data:`RTOL` relative, ``ratio`` is ``measured / bound``
    (``None`` unless ``bound > 0``); ``inputs`` are the theory function's arguments.

    ``kind`` is one of :data:`KINDS`: a bound that holds on every run
    (``"deterministic"``), with probability at least ``1 - delta`` over the learner's
    draws (``"high-probability"``, ``delta`` required), on the expectation over them
    (``"expectation"``), or a rate stated as an order (``"order"``: no ``holds``).
    ``comparator`` names the comparator the row used, when it used one."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if kind == HIGH_PROBABILITY and delta is None:
        raise ValueError("a high-probability row needs its delta")
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
            "source": source, "holds": holds, "note": note, "kind": kind,
            "delta": None if delta is None else float(delta), "comparator": comparator,
            "inputs": {k: _number(v) for k, v in (inputs or {}).items()}}




def na(quantity, measured, source, reason, **kw):
    """A row whose bound does not apply to this run (``reason`` says why)."""
    return row(quantity, measured, None, source, note=f"not applicable: {reason}", **kw)


def _number(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    return v


# -- the stream side (Gram matrix, spectrum, comparators), computed once and cached ---------

class GramUnavailable(ValueError):
    """A bound needs the stream's T x T Gram matrix, which a long stream does not build."""


class TooManyRoundsError(ValueError):
    """A stream longer than ``max_rounds`` for the exact comparator (its cost is O(T^3)).

    The message advises the Python remedies (a prefix ``X[:max_rounds]``, a larger
    ``max_rounds``); a caller with other means (the ``okl bounds`` options) words its own
    with ``message(advice)`` from the fields.

    Attributes
    ----------
    T : int
        The stream's rounds.
    max_rounds : int
        The limit it exceeds.
    """

    def __init__(self, T: int, max_rounds: int):
        self.T, self.max_rounds = T, max_rounds
        super().__init__(self.message())

    def __reduce__(self):           # pickled by its fields
        return type(self), (self.T, self.max_rounds)

    def message(self, advice: str | None = None) -> str:
        """The message, with ``advice`` in place of ``pass a prefix (X[:N], y[:N]) or
        raise max_rounds``."""
        m = self.max_rounds
        return (f"the stream has T = {self.T} rounds, more than max_rounds = {m}: the "
                f"comparators and the Gram spectrum cost O(T^3); "
                + (advice or f"pass a prefix (X[:{m}], y[:{m}]) or raise max_rounds"))


#: Label of the rows' comparator on a stream whose Gram matrix is built.
EXACT_COMPARATOR = "exact: the best f in the ball over the whole stream (certified)"


class SubsetComparator:
    """The best hinge function over a subset of the rows, evaluated on every row.

    Any ``f`` with ``||f|| <= r`` is a valid comparator of a bound that holds for every
    ``f`` in the ball: this one is ``f = sum_{j in S} a_j k(x_j, .)`` with ``a`` the
    :func:`theory.best_hinge_in_ball` solution on the subset's Gram matrix, so
    ``||f|| <= r``; ``loss`` and ``fitted`` are exact on all ``T`` rows (and
    ``lower_bound = loss``: the regret against this ``f`` is measured exactly, it is the
    best-in-hindsight value that is not).  ``coef`` has length ``T`` (zero off ``S``).
    """

    def __init__(self, inner, rows, fitted, y):
        self.inner = inner
        self.rows = rows
        self.fitted = fitted
        self.loss = float(np.sum(np.maximum(0.0, 1.0 - y * fitted)))
        self.lower_bound = self.loss
        self.norm = float(inner.norm)
        self.coef = np.zeros(y.size)
        self.coef[rows] = inner.coef


class Stream:
    """The stream side of a report: ``K``, its spectrum, the alignment and the comparators
    of a stream ``(X, y)`` under ``kernel``, each computed on first use and cached.

    With ``subset=m`` (a long stream) no ``T x T`` matrix is built: the comparators are
    :class:`SubsetComparator` over ``m`` evenly spaced rows, ``kappa_max`` comes from the
    diagonal, and ``K`` / ``eigenvalues`` / ``alignment`` / ``ridge`` raise
    :class:`GramUnavailable`."""

    def __init__(self, X, y, kernel, *, subset=None):
        self.X, self.y, self.kernel = X, y, kernel
        self._K = self._ev = self._A = None
        self._diag = None
        self._hinge = {}
        self._ridge = {}
        self._mc = {}
        self._mc_idx = None
        self.mc_fit = None
        self.info = {}
        self.subset = None
        self.comparator = EXACT_COMPARATOR
        if subset is not None:
            T = y.size
            m = int(subset)
            if m < 1:
                raise ValueError(f"subset must be >= 1, got {subset!r}")
            self.subset = np.unique(np.linspace(0, T - 1, min(m, T)).round().astype(int))
            self.comparator = (f"subset: the best f in the ball over {self.subset.size} "
                               f"evenly spaced rows of {T}, its loss exact on all rows "
                               f"(a valid f, not the best in hindsight)")

    @classmethod
    def from_gram(cls, K, y, X=None):
        """A stream whose Gram matrix is given (a normalized kernel's, random features')."""
        s = cls(X, y, None)
        K = np.asarray(K, dtype=float)
        s._K = 0.5 * (K + K.T)
        d = np.diag(s._K)
        s.info.update(kappa_max=float(d.max()), kappa_min=float(d.min()))
        return s

    def _need_gram(self, what):
        if self.subset is not None:
            raise GramUnavailable(
                f"{what} needs the stream's T x T Gram matrix, which a long stream "
                f"(T = {self.y.size}, subset comparator) does not build: pass --prefix N "
                f"with N <= --max-rounds")

    @property
    def K(self):
        if self._K is None:
            self._need_gram("this bound")
            K = np.asarray(self.kernel(self.X), dtype=float)
            self._K = 0.5 * (K + K.T)
            d = np.diag(self._K)
            self.info.update(kappa_max=float(d.max()), kappa_min=float(d.min()))
        return self._K

    @property
    def diag(self):
        """:math:`k(x_t, x_t)` of every row (no Gram matrix on a long stream)."""
        if self._K is not None or self.subset is None:
            return np.diag(self.K)
        if self._diag is None:
            T = self.y.size
            out = np.empty(T)
            for a in range(0, T, 256):
                Xc = self.X[a:a + 256]
                out[a:a + 256] = np.diag(np.asarray(self.kernel(Xc), dtype=float))
            self._diag = out
            self.info.update(kappa_max=float(out.max()), kappa_min=float(out.min()))
        return self._diag

    @property
    def kappa_max(self) -> float:
        """:math:`\\max_t k(x_t, x_t)` (the :math:`X^2` / :math:`D` of the bounds)."""
        self.diag
        return self.info["kappa_max"]

    @property
    def kappa_min(self) -> float:
        self.diag
        return self.info["kappa_min"]

    @property
    def eigenvalues(self):
        if self._ev is None:
            from theory import kernel_eigenvalues

            self._need_gram("the Gram spectrum")
            self._ev = kernel_eigenvalues(self.K)
            self.info.update(lambda_max=float(self._ev[0]))
        return self._ev

    @property
    def alignment(self) -> float:
        if self._A is None:
            from theory import kernel_alignment

            self._need_gram("the kernel alignment A_T")
            self._A = kernel_alignment(self.K, self.y)
            self.info["A_T"] = self._A
        return self._A

    def hinge(self, r):
        """``theory.best_hinge_in_ball(K, y, r)`` (one solve per radius); on a long stream
        the :class:`SubsetComparator` of radius ``r``."""
        r = float(r)
        if r not in self._hinge:
            from threadpoolctl import threadpool_limits

            from theory import best_hinge_in_ball

            with threadpool_limits(1):     # far faster than threaded BLAS at these sizes
                if self.subset is None:
                    self._hinge[r] = best_hinge_in_ball(self.K, self.y, r)
                else:
                    S = self.subset
                    XS = self.X[S]
                    KS = np.asarray(self.kernel(XS), dtype=float)
                    inner = best_hinge_in_ball(0.5 * (KS + KS.T), self.y[S], r)
                    fitted = np.empty(self.y.size)
                    for a in range(0, self.y.size, 2048):
                        fitted[a:a + 2048] = np.asarray(
                            self.kernel(self.X[a:a + 2048], XS), dtype=float) @ inner.coef
                    self._hinge[r] = SubsetComparator(inner, S, fitted, self.y)
        return self._hinge[r]

    def hinge_losses(self, r):
        """Per-round hinge losses of the comparator of radius ``r``."""
        return np.maximum(0.0, 1.0 - self.y * self.hinge(r).fitted)

    # -- multiclass labels (theory.multiclass) ----------------------------------------

    def class_indices(self, classes):
        """The labels as indices into ``classes`` (a multiclass learner's sorted
        ``classes_``), int64; ``ValueError`` for a label outside them."""
        classes = np.asarray(classes)
        key = tuple(classes.tolist())
        if self._mc_idx is None or self._mc_idx[0] != key:
            y = np.asarray(self.y)
            try:
                idx = np.minimum(np.searchsorted(classes, y), classes.size - 1)
            except TypeError:
                raise ValueError(f"the stream's labels are not of the kind of the "
                                 f"classes {key}") from None
            if not np.array_equal(classes[idx], y):
                raise ValueError(f"the stream holds labels outside the classes {key}")
            self._mc_idx = (key, idx.astype(np.int64))
        return self._mc_idx[1]

    def mc_comparator(self, classes, C, *, fit_rows=None):
        """A multiclass comparator :math:`U` (``theory.multiclass.MulticlassComparator``)
        fitted by :func:`theory.multiclass.multiclass_comparator` with the weight ``C``,
        cached per ``C``.

        On a stream of at most ``fit_rows`` rows (default :data:`MC_FIT_ROWS`) and with the
        Gram matrix built, it is fitted on every row; otherwise on ``fit_rows`` evenly
        spaced rows (the subset comparator's rows when there is one and they are few
        enough), and its scores, margins and hinge losses are evaluated exactly on every
        row (a valid comparator: each bound holds for every ``U``; only its tightness
        depends on the fit).  The fit costs ``O(m^3)`` for ``m`` fitted rows.
        """
        from threadpoolctl import threadpool_limits

        from theory.multiclass import (MulticlassComparator, multiclass_comparator,
                                       multiclass_margins)

        fit_rows = MC_FIT_ROWS if fit_rows is None else int(fit_rows)
        classes = np.asarray(classes)
        idx = self.class_indices(classes)
        n = int(classes.size)
        key = (tuple(classes.tolist()), float(C), fit_rows)
        if key in self._mc:
            return self._mc[key]
        T = idx.size
        with threadpool_limits(1):        # far faster than threaded BLAS at these sizes
            if self.subset is None and (T <= fit_rows or self.kernel is None):
                comp = multiclass_comparator(self.K, idx, n, C=float(C))
                self.mc_fit = f"fitted on all {T} rows"
            else:
                S = (self.subset if self.subset is not None and self.subset.size <= fit_rows
                     else np.unique(np.linspace(0, T - 1, min(fit_rows, T)).round()
                                    .astype(int)))
                KS = np.asarray(self.kernel(self.X[S]), dtype=float)
                inner = multiclass_comparator(0.5 * (KS + KS.T), idx[S], n, C=float(C))
                F = np.empty((T, n))
                for a in range(0, T, 2048):
                    F[a:a + 2048] = np.asarray(self.kernel(self.X[a:a + 2048], self.X[S]),
                                               dtype=float) @ inner.coef
                m = multiclass_margins(F, idx)
                coef = np.zeros((T, n))
                coef[S] = inner.coef
                comp = MulticlassComparator(coef=coef, scores=F, norm=inner.norm, margins=m,
                                            hinge=np.maximum(0.0, 1.0 - m), C=float(C))
                self.mc_fit = (f"fitted on {S.size} evenly spaced rows of {T}, its margins "
                               f"exact on all rows")
        self._mc[key] = comp
        return comp

    def ridge(self, lam):
        lam = float(lam)
        if lam not in self._ridge:
            from theory import kernel_ridge_comparator

            self._need_gram("the kernel ridge comparator")
            self._ridge[lam] = kernel_ridge_comparator(self.K, self.y, lam)
        return self._ridge[lam]


def check_radii(U):
    """The comparator radii of ``U`` (a radius or a sequence; default :data:`DEFAULT_RADII`),
    sorted and deduplicated; ValueError unless each is positive and finite."""
    if U is None:
        return DEFAULT_RADII
    values = np.atleast_1d(np.asarray(U, dtype=float)).ravel()
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"U must be a positive finite radius or a sequence of them, got {U!r}")
    return tuple(sorted({float(v) for v in values}))


def ball_radii(radii, U):
    """The radii below the ball's radius ``U``, and ``U`` itself (finite ``U``)."""
    if not math.isfinite(U):
        return tuple(radii)
    return tuple(r for r in radii if r < U) + (float(U),)


def best(candidates):
    """The candidate ``(bound, inputs)`` with the smallest bound."""
    return min(candidates, key=lambda c: c[0])


def cum(mask):
    """Cumulative counts of a boolean per-round mask (int64)."""
    return np.cumsum(np.asarray(mask, dtype=np.int64))


def curve(title, kind, ylabel, measured, bounds, *, anytime=True, note=""):
    """A per-round curve of a report (see :class:`BoundsReport`'s ``curves``)."""
    return {"title": title, "kind": kind, "ylabel": ylabel,
            "measured": {k: np.asarray(v, dtype=float) for k, v in measured.items()},
            "bounds": {k: (float(v) if np.ndim(v) == 0 else np.asarray(v, dtype=float))
                       for k, v in bounds.items()},
            "anytime": bool(anytime), "note": note}


def unit_kernel_reason(s, what):
    """Why bounds that assume ``k(x, x) <= 1`` do not apply to stream ``s`` (or None)."""
    if s.kappa_max > 1.0 + 1e-12:
        return (f"{what} assume k(x, x) <= 1, and max_t k(x_t, x_t) = {s.kappa_max:.6g} "
                f"on this stream")
    return None


def empirical(learner, tr, rows, covered):
    """The rows every learner gets (mistakes, cumulative loss, final and maximum budget)."""
    note = "" if covered else f"okl bounds has no theory for {type(learner).__name__}"
    if tr.is_classification:
        rows.append(row("mistakes", tr.n_mistakes))
    rows.append(row("cumulative loss", float(tr.losses.sum())))
    rows.append(row("final budget", tr.final_budget))
    rows.append(row("max budget", int(tr.budget.max())))
    rows[-1]["note"] = note


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


_KIND_SHORT = {DETERMINISTIC: "always", HIGH_PROBABILITY: "w.p. 1-d", EXPECTATION: "in exp.",
               ORDER: "order"}


def _holds_cell(r):
    if r["holds"] is None:
        return "-"
    if r.get("kind", DETERMINISTIC) in (HIGH_PROBABILITY, EXPECTATION):
        return "yes (1 draw)" if r["holds"] else "no (1 draw)"
    return _fmt(r["holds"])


def format_report(report: BoundsReport) -> str:
    """A readable terminal table of ``report`` (one line per row, notes below).

    A bound that may fail on a draw (high probability, expectation) is judged on this one
    draw only: its cell says so, and it never makes the verdict a bare failure (run
    ``okl bounds --seeds N``).
    """
    head = ["quantity", "measured", "bound", "ratio", "holds", "kind", "source"]
    cells = [[r["quantity"], _fmt(r["measured"]), _fmt(r["bound"]), _fmt(r["ratio"], 3),
              _holds_cell(r), _KIND_SHORT.get(r.get("kind", DETERMINISTIC), "?")
              + (f" (d={r['delta']:g})" if r.get("delta") is not None else ""),
              r["source"]] for r in report.rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    lines = [f"{report.learner}",
             f"{report.T} rounds" + (f" of {report.data}" if report.data else "")
             + "".join(f", {k} = {_fmt(v)}" for k, v in report.stream.items()
                       if k in ("kappa_max", "A_T")),
             "",
             "  ".join(h.ljust(w) for h, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    notes = []
    comparators = sorted({r["comparator"] for r in report.rows if r.get("comparator")})
    for i, (r, c) in enumerate(zip(report.rows, cells)):
        mark = ""
        if r["note"]:
            notes.append(f"[{len(notes) + 1}] {r['note']}")
            mark = f" [{len(notes)}]"
        lines.append("  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() + mark)
    checked = report.checked
    sure = [r for r in checked if r.get("kind", DETERMINISTIC) == DETERMINISTIC]
    draws = [r for r in checked if r.get("kind", DETERMINISTIC) != DETERMINISTIC]
    if not checked:
        verdict = "no bound applies"
    elif all(r["holds"] for r in sure):
        verdict = "every bound holds" if all(r["holds"] for r in draws) else (
            f"every deterministic bound holds; {sum(not r['holds'] for r in draws)} bound(s) "
            f"that may fail on a draw (probability delta, or in expectation) exceeded on this "
            f"one draw: run --seeds N to test them")
    else:
        verdict = "SOME BOUND FAILS"
    lines += ["", f"{len(checked)} bound(s) checked: {verdict} ({report.seconds:.2f} s)"]
    if draws:
        lines.append(f"{len(draws)} of them hold with probability 1 - delta or in expectation: "
                     f"judged here on one draw")
    if comparators:
        lines.append("comparator: " + "; ".join(comparators))
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
        panels.append(curve("budget", "budget", "support vectors |S_t|",
                             {"|S_t|": report.trace.budget}, {}))
        if report.trace.is_classification:
            panels.append(curve("mistakes (no bound implemented)", "mistakes",
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
