"""What families of learners share beside the learner surface: the accessors of a kernel
expansion or a KORS dictionary, the horizon of learners whose parameters depend on ``T``,
and the budgets that turn a memory or time budget into an example budget."""
from __future__ import annotations

import numpy as np

from okl.learners.budget_kinds import check_budget_choice
from okl.learners.locking import _unlocked

__all__ = ["KernelExpansion", "KORSDictionaryView", "HorizonLearner", "ExampleBudgeted"]


class KernelExpansion:
    """Accessors of a learner whose hypothesis is ``f = sum_i coefficients[i]
    k(support_vectors[i], .)`` held in the core's :class:`~okl.SupportSet`."""

    @property
    def support_vectors(self) -> np.ndarray:
        return np.empty((0, 0)) if self.support_set is None else self.support_set.vectors

    @property
    def coefficients(self) -> np.ndarray:
        return np.empty(0) if self.support_set is None else self.support_set.coefficients


class KORSDictionaryView:
    """Accessors of a learner whose KORS dictionary (``okl.learners.kors``: points kept
    with weights from their sampling probabilities ``p_j``) is the core's
    :class:`~okl.SupportSet` (ProsNKONS, PKAWV with ``method="nystrom"``)."""

    @property
    def dictionary(self) -> np.ndarray:
        """The dictionary points ``x~_j``, ``j in I_t``, shape ``(|I_t|, d)``."""
        return np.empty((0, 0)) if self.support_set is None else self.support_set.vectors

    @property
    def dictionary_rounds(self) -> np.ndarray:
        """The (1-based) round at which each dictionary point was received (joined)."""
        s = self.support_set
        return np.empty(0, np.int64) if s is None else s.stamps

    @property
    def dictionary_weights(self) -> np.ndarray:
        """The KORS weights of the dictionary points: ``p_j^{-1/2}`` (ProsNKONS with
        ``variant="jgr2019"``: ``1/p_j``)."""
        return np.empty(0) if self.support_set is None else self.support_set.coefficients


class HorizonLearner:
    """Mixin for learners whose parameters depend on the horizon ``T`` (POMDR's ALD
    threshold and B0, the selection learners' sampling rates and step sizes).

    ``T`` is a constructor parameter; when it is ``None`` the first ``run`` takes the
    stream's length as the horizon.  Streaming use (``learn_one``, ``partial_fit``)
    needs ``T``, and no call may learn past it: both raise ``ValueError`` before any
    state changes.  Refusing up front is deliberate: a stream fed in pieces has no
    length to take, and the alternatives change the algorithm -- the doubling trick
    restarts the learner at ``T = 2^k`` (forgetting its whole model at each restart;
    the bounds hold within a constant factor, about 3.4 for ``sqrt(T)`` bounds), and
    re-deriving the parameters from a growing ``t`` is an algorithm none of the papers
    analyses.  Pass an upper bound of the stream's length as ``T``
    (docs/bad_input.rst).  A subclass sets ``_horizon_depends`` (what depends on ``T``, for
    the message), has a core method ``_horizon()`` (or overrides ``_core_horizon``) and
    may check a first example's width in ``_check_first``; ``_checked`` fixes the
    horizon of each learning call before any state changes (``_run_horizon()`` reads
    it when the core is set up).  It is listed before ``OnlineLearner`` in the bases.
    """

    _horizon_depends = "its parameters"

    #: the horizon the current learning call runs under (set by ``_checked``)
    _pending_T = None

    def _core_horizon(self) -> int:
        """The horizon the typed core was set up with (``<= 0``: not yet)."""
        return self._horizon()

    @property
    def horizon_(self):
        """The horizon ``T`` in use (``None`` until known)."""
        T = self._core_horizon()
        return None if T <= 0 else T

    def _known_horizon(self):
        """The horizon fixed so far: the parameter ``T``, else the core's, else ``None``."""
        T = self.T if self.T is not None else self._core_horizon()
        return None if T <= 0 else T

    def _check_first(self, d: int) -> None:
        """Raise the ``ValueError`` a first example of width ``d`` would meet (a budget
        that buys too little for that width), before any state changes."""

    def _checked(self, X, y):
        stream, labels = super()._checked(X, y)
        T = self._horizon_for(stream.T)
        if self.n_features is None:
            self._check_first(stream.d)
        self._pending_T = T
        return stream, labels

    def _run_horizon(self) -> int:
        """The horizon of the stream being set up: ``T``, else the call's (``_checked``)."""
        return self.T if self.T is not None else self._pending_T

    def _horizon_for(self, n_rounds):
        """The horizon a learning call of ``n_rounds`` runs under (checked, no state change)."""
        done = self.n_rounds
        T = self._known_horizon()
        if T is None:          # first run without T: the stream is the horizon
            T = done + n_rounds
        if done + n_rounds > T:
            raise ValueError(
                f"T = {T} is the horizon of this {type(self).__name__} (rounds learned: "
                f"{done}); {n_rounds} more would exceed it.  {self._horizon_depends} depend "
                f"on T: pass a larger T to the constructor")
        return T

    def _require_T(self, what):
        if self.T is None:
            raise ValueError(f"T (the horizon) is required {what}: construct "
                             f"{type(self).__name__}(..., T=...) for streaming use")

    def learn_one(self, x, y=None) -> None:
        self._require_T("to learn one example at a time")
        self._horizon_for(1)
        super().learn_one(x, y)

    @_unlocked      # reads only T (a parameter); OnlineLearner.partial_fit takes the lock
    def partial_fit(self, X, y=None):
        self._require_T("for partial_fit")
        return super().partial_fit(X, y)


class ExampleBudgeted:
    """Mixin for learners given one of ``B``, ``memory_budget`` and ``time_budget``
    (declared with ``okl.learners.budget_kinds.example_budget_param`` and its two siblings;
    the rule between them is ``check_budget_choice``, kept as ``_budget_spec``) that turn
    a memory or time budget into an example budget with ``_example_budget(d)`` once the
    width ``d`` is known."""

    #: the int ``B`` or the budget object (``None``: no budget, e.g. OKS)
    _budget_spec = None

    def _check_budget(self) -> None:
        """The rule between the three declared budget parameters, called from the
        learner's ``_check_params``: exactly one given (``ValueError`` naming them
        otherwise), kept as the checked ``_budget_spec``."""
        self._budget_spec = check_budget_choice(self.B, self.memory_budget, self.time_budget)

    def _check_first(self, d: int) -> None:
        """A first example of width ``d``: ``ValueError`` if the budget buys too little."""
        self._example_budget(d)

    @property
    def B_(self):
        """The example budget in use (``None`` without a budget, or until ``d`` is known
        for a memory or time budget)."""
        if self._budget_spec is None:
            return None
        if isinstance(self._budget_spec, int):
            return self._budget_spec
        return None if self.n_features is None else self._example_budget(self.n_features)
