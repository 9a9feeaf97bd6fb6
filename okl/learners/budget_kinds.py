r"""Memory and time budgets of Li & Liao, *Online kernel selection with computational
constraints* (Definitions 1-2, Assumptions 2-4), translated to example budgets.

The paper restricts an online kernel selection algorithm by

* a **memory budget** of :math:`\mathcal{T}` quanta (Definition 1): the maximal memory the
  algorithm may use, or
* a **time budget** of :math:`\mathcal{T}` quanta (Definition 2): the maximal time between
  the predictions of :math:`x_t` and :math:`x_{t+1}`, i.e. the per-round time,

and reduces either to an **example budget** :math:`B` (Assumptions 2-3): the memory (time)
is linear in the space (time) complexity of the algorithm, and an algorithm whose
complexity is linear in the number of stored examples stores :math:`B = \alpha\mathcal{T}`
examples within a memory budget of :math:`\mathcal{T}` quanta, or evaluates
:math:`B = \beta\mathcal{T}` kernel values a round within a time budget.  Assumption 4 caps
the useful budget at :math:`B = T` (no algorithm stores more than :math:`T` examples).

Units used here (the paper leaves the quantum abstract):

* a memory quantum is one float64 number (8 bytes).  A stored example costs the ``d``
  floats of its vector plus its coefficients (:func:`memory_per_example`), so
  :math:`\alpha = 1 / (d + \text{coefficients})`; the algorithm's fixed state (``K``
  kernel weights, say) is the ``fixed`` cost.  This is the space-complexity accounting of
  the paper's Remark 1 and Sec. 5.2 (LKMBooks :math:`O(dB + K)`, BOMKR
  :math:`O(dB + KB + K)` or :math:`O(KBd)`, OMKC :math:`O(B(d + K))`, PFMBooks
  :math:`O(dB/2 + BKM/2)`).  Caches an implementation keeps beside the paper's state
  (squared norms of the support vectors) are not counted.
* a time quantum is one multiply operation (Assumption 2 with :math:`m = 1`).  Against one
  stored example a round costs ``d`` multiplications for the distance (or inner product)
  and one kernel value plus one coefficient product per kernel evaluated: ``d + K`` when the
  ``K`` kernels share the distance (Sec. 4.1: LKMBooks' time complexity is
  :math:`O(dB + KB + K)`, not :math:`O(KdB + K)`), ``K d`` when each kernel recomputes it
  (:func:`time_per_example`).  So :math:`\beta = 1/(d + K)` for LKMBooks and
  :math:`B = \mathcal{T}/(d + K)` against :math:`\mathcal{T}/d` for a single-kernel learner:
  the identity :math:`(d + K) B_2 = \mathcal{T}` of Sec. 4.1.

Table 3 of the paper (the available budget of every algorithm under one memory budget)
is this rule with each learner's own costs (``theory.selection_baselines.space_quanta`` /
``available_budget`` state them in one place): per stored entry ``d + 1`` and fixed ``K``
for LKMBooks, OMKC and BOKS (whose ``B`` counts entries over its ``K`` separate sets);
``d + 1`` and ``2K`` for BOMKR, whose ``K`` separate sets get ``floor(B/K)`` each (the
paper's ``B_0 / K``); ``d + K`` and ``K`` for BOMKR-V (one shared set, ``K`` coefficients a
vector: the paper's ``d B_0 / (d + K)``); ``d + 1`` and ``(4 + q) K`` for ISKA (one shared
set: ``B = B_0``).

Either ``alpha`` / ``beta`` is given explicitly (Assumption 3 with a measured constant:
:math:`B = \lfloor \alpha\mathcal{T} \rfloor`), or it is derived from the learner's
per-example cost once the dimension ``d`` is known:
:math:`B = \lfloor (\mathcal{T} - \text{fixed}) / \text{per\_example} \rfloor`.

Use in a learner (``B=`` or exactly one of ``memory_budget=`` / ``time_budget=``): the
three parameters are declared with :func:`example_budget_param`, :func:`memory_budget_param`
and :func:`time_budget_param` (``okl.params``; ``B`` has the role ``"budget"``), each value
checked alone when it is assigned, and the rule between them in ``_check_params``::

    B = example_budget_param()                      # declared in the class
    memory_budget = memory_budget_param()
    time_budget = time_budget_param()
    ...
    # in _check_params (okl.learners.base.ExampleBudgeted._check_budget):
    spec = check_budget_choice(self.B, self.memory_budget, self.time_budget)
    ...
    B_ = example_budget(spec, memory_per_example=memory_per_example(d),
                        memory_fixed=K, time_per_example=time_per_example(d, K))
    ...
    extras["max_memory"] = memory_used(max_support_size, memory_per_example(d), K)

``memory_budget`` / ``time_budget`` accept a number of quanta or a
:class:`MemoryBudget` / :class:`TimeBudget`.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from okl.params import Value

__all__ = [
    "MemoryBudget",
    "TimeBudget",
    "memory_per_example",
    "time_per_example",
    "memory_used",
    "time_used",
    "check_budget_choice",
    "check_example_budget",
    "check_memory_budget",
    "check_time_budget",
    "example_budget",
    "example_budget_param",
    "memory_budget_param",
    "time_budget_param",
]

_MAX_B = 2 ** 31 - 1


def _check_positive(value, name, noun, or_none=False):
    """``float(value)`` for a positive finite real ``value`` (``None`` as is when
    ``or_none``); otherwise ``ValueError``: "``name`` must be [None or] a positive [finite]
    ``noun``"."""
    if or_none and value is None:
        return None
    must = f"{name} must be {'None or ' if or_none else ''}a positive"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{must} {noun}, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{must} finite {noun}, got {value!r}")
    return value


@dataclass(frozen=True)
class _Budget:
    quanta: float
    kind = ""         # "memory" / "time": the learner's argument is ``{kind}_budget``
    rate_name = ""    # the field of Assumption 3's constant: "alpha" / "beta"

    def __post_init__(self):
        object.__setattr__(self, "quanta", _check_positive(self.quanta, f"{self.kind}_budget",
                                                           "number of quanta"))
        object.__setattr__(self, self.rate_name, _check_positive(self.rate, self.rate_name,
                                                                 "real", or_none=True))

    @property
    def rate(self):
        return getattr(self, self.rate_name)

    def example_budget(self, per_example: float, fixed: float = 0.0) -> int:
        r"""The example budget :math:`B` this budget allows (Assumption 3).

        ``floor(rate * quanta)`` when ``alpha`` / ``beta`` was given, otherwise
        ``floor((quanta - fixed) / per_example)``.  Raises ``ValueError`` when that is
        less than one example.
        """
        per_example = float(per_example)
        if not per_example > 0:
            raise ValueError(f"per_example cost must be positive, got {per_example!r}")
        if self.rate is not None:
            B = math.floor(self.rate * self.quanta)
            how = f"{self.rate_name}={self.rate!r} x {self.quanta!r} quanta"
        else:
            B = math.floor((self.quanta - float(fixed)) / per_example + 1e-9)
            how = (f"({self.quanta!r} quanta - {float(fixed)!r} fixed) / "
                   f"{per_example!r} per example")
        if B < 1:
            raise ValueError(f"{self.kind}_budget of {self.quanta!r} quanta is too small to "
                             f"store one example: {how} < 1")
        return int(min(B, _MAX_B))


@dataclass(frozen=True)
class MemoryBudget(_Budget):
    r"""A memory budget of ``quanta`` quanta (Definition 1); a quantum is one float64.

    Parameters
    ----------
    quanta : float > 0
        The maximal memory :math:`\mathcal{T}` the learner may use.
    alpha : float > 0 or None
        Examples per quantum of Assumption 3 (:math:`B = \lfloor\alpha\mathcal{T}\rfloor`).
        ``None`` (default) derives it from the learner's per-example memory,
        :func:`memory_per_example`, and subtracts the learner's fixed state.
    """

    alpha: float | None = None
    kind = "memory"
    rate_name = "alpha"


@dataclass(frozen=True)
class TimeBudget(_Budget):
    r"""A per-round time budget of ``quanta`` quanta (Definition 2); a quantum is one
    multiply operation (Assumption 2 with ``m = 1``).

    Parameters
    ----------
    quanta : float > 0
        The maximal per-round time :math:`\mathcal{T}`.
    beta : float > 0 or None
        Kernel evaluations per quantum of Assumption 3 (:math:`B =
        \lfloor\beta\mathcal{T}\rfloor`).  ``None`` (default) derives it from the
        learner's per-example time, :func:`time_per_example`, and subtracts its fixed
        per-round work.
    """

    beta: float | None = None
    kind = "time"
    rate_name = "beta"


def memory_per_example(d: int, coefficients: int = 1) -> int:
    """Memory quanta (float64s) of one stored example: its ``d`` features plus its
    ``coefficients`` (1 when the kernels share one coefficient vector, as in LKMBooks;
    ``K`` for a learner with one coefficient vector per kernel; ``K M`` in PFMBooks)."""
    return int(d) + int(coefficients)


def time_per_example(d: int, K: int = 1, shared: bool = True) -> int:
    """Multiply operations a round spends on one stored example.

    ``d + K`` when the ``K`` kernels share the distance ``||x_t - x_tau||`` (one distance,
    then one kernel value and coefficient product per kernel; Sec. 4.1), ``K d`` when
    every kernel computes its own (the brief's "K d without sharing"; the ``K``
    coefficient products are lower order and not counted).  ``K = 1`` gives ``d + 1``
    for a single-kernel learner with ``shared=True``.
    """
    d, K = int(d), int(K)
    return d + K if shared else K * d


def memory_used(n_examples: int, per_example: float, fixed: float = 0.0) -> float:
    """Memory in quanta of ``n_examples`` stored examples plus the fixed state."""
    return float(n_examples) * float(per_example) + float(fixed)


def time_used(n_examples: int, per_example: float, fixed: float = 0.0) -> float:
    """Per-round time in quanta against ``n_examples`` stored examples plus fixed work."""
    return float(n_examples) * float(per_example) + float(fixed)


def check_example_budget(B, name: str = "B"):
    """``B`` as given, once checked: ``None`` (not given) or an integer in
    ``[1, 2^31 - 1]`` (``ValueError`` naming it otherwise)."""
    if B is None:
        return None
    if isinstance(B, bool) or not isinstance(B, numbers.Integral) or not 1 <= B <= _MAX_B:
        raise ValueError(f"{name} must be an integer in [1, {_MAX_B}], got {B!r}")
    return B


def _as_memory_budget(memory_budget) -> MemoryBudget:
    if isinstance(memory_budget, TimeBudget):
        raise ValueError("memory_budget must be a number of quanta or a MemoryBudget, "
                         "got a TimeBudget")
    return memory_budget if isinstance(memory_budget, MemoryBudget) \
        else MemoryBudget(memory_budget)


def _as_time_budget(time_budget) -> TimeBudget:
    if isinstance(time_budget, MemoryBudget):
        raise ValueError("time_budget must be a number of quanta or a TimeBudget, "
                         "got a MemoryBudget")
    return time_budget if isinstance(time_budget, TimeBudget) else TimeBudget(time_budget)


def check_memory_budget(memory_budget, name: str = "memory_budget"):
    """``memory_budget`` as given, once checked: ``None`` (not given), a positive number of
    quanta or a :class:`MemoryBudget` (``ValueError`` naming it otherwise)."""
    if memory_budget is not None:
        _as_memory_budget(memory_budget)
    return memory_budget


def check_time_budget(time_budget, name: str = "time_budget"):
    """``time_budget`` as given, once checked: ``None`` (not given), a positive number of
    quanta or a :class:`TimeBudget` (``ValueError`` naming it otherwise)."""
    if time_budget is not None:
        _as_time_budget(time_budget)
    return time_budget


def check_budget_choice(B=None, memory_budget=None, time_budget=None):
    """Validate the budget arguments of a learner's constructor.

    Exactly one of ``B`` (an example budget, integer >= 1), ``memory_budget`` and
    ``time_budget`` (a positive number of quanta, or a :class:`MemoryBudget` /
    :class:`TimeBudget`) must be given.  Returns the int ``B`` or the budget object;
    raises ``ValueError`` naming the parameter otherwise.
    """
    given = [name for name, v in (("B", B), ("memory_budget", memory_budget),
                                  ("time_budget", time_budget)) if v is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of B, memory_budget and time_budget, got "
                         + (", ".join(given) if given else "none"))
    if B is not None:
        return int(check_example_budget(B))
    if memory_budget is not None:
        return _as_memory_budget(memory_budget)
    return _as_time_budget(time_budget)


# -- the three declarations (okl.params) ----------------------------------------------

def example_budget_param(none="not given: the budget is memory_budget or time_budget"):
    """The declaration of ``B``, the example budget (role ``"budget"``), kept as given."""
    return Value(None, check=check_example_budget, role="budget", none=none,
                 text=f"an integer in [1, {_MAX_B}]")


def memory_budget_param(none="not given: the budget is B or time_budget"):
    """The declaration of ``memory_budget`` (quanta or a :class:`MemoryBudget`)."""
    return Value(None, check=check_memory_budget, none=none,
                 text="a positive number of quanta or a MemoryBudget")


def time_budget_param(none="not given: the budget is B or memory_budget"):
    """The declaration of ``time_budget`` (quanta or a :class:`TimeBudget`)."""
    return Value(None, check=check_time_budget, none=none,
                 text="a positive number of quanta or a TimeBudget")


def example_budget(spec, *, memory_per_example: float = 1.0, memory_fixed: float = 0.0,
                   time_per_example: float = 1.0, time_fixed: float = 0.0) -> int:
    """The example budget ``B`` of a spec returned by :func:`check_budget_choice`.

    An int is returned as is; a :class:`MemoryBudget` uses ``memory_per_example`` /
    ``memory_fixed``, a :class:`TimeBudget` ``time_per_example`` / ``time_fixed``
    (see :meth:`MemoryBudget.example_budget`).
    """
    if isinstance(spec, MemoryBudget):
        return spec.example_budget(memory_per_example, memory_fixed)
    if isinstance(spec, TimeBudget):
        return spec.example_budget(time_per_example, time_fixed)
    return int(spec)
