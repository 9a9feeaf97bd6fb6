r"""OKS, online kernel selection (Yang, Mahdavi, Jin, Yi & Hoi, *Online kernel selection:
algorithms and evaluations*, AAAI 2012), and BOKS, its budgeted variant in Li & Liao,
*Online kernel selection with computational constraints* (Sec. 5.2): the baselines of
that paper's Tables 4-7, as its authors ran them."""
from __future__ import annotations

import math

import numpy as np

from okl._learner import read_fields
from okl._validation import LOSS_CODES
from okl.kernels import Gaussian, Laplacian
from okl.learners._oks import OKSCore
from okl.learners.base import ExampleBudgeted, HorizonLearner, OnlineLearner
from okl.learners.budget_kinds import (MemoryBudget, TimeBudget, example_budget,
                                  example_budget_param, memory_budget_param,
                                  memory_per_example, memory_used, time_budget_param,
                                  time_per_example, time_used)
from okl.params import Choice, Flag, Int, KernelsParam, Real, Seed
from okl.registry import register_learner

__all__ = ["OKS", "BOKS"]

_LOSSES = {"hinge": LOSS_CODES["hinge"], "absolute": LOSS_CODES["absolute"]}
_UPDATES = {"mistake": 0, "hinge": 1}
_INITIAL_CAPACITY = 16


@register_learner(
    paper="selection", role="baseline", task="both",
    examples=[dict(kernels=[Gaussian(0.5), Gaussian(2.0), Laplacian(1.0)], T=600, delta=0.2,
                   seed=1)],
    bounds="okl.experiments.bounds.selection:oks")
class OKS(ExampleBudgeted, HorizonLearner, OnlineLearner, OKSCore):
    r"""OKS: online kernel selection by sampling one kernel a round (Yang, Mahdavi, Jin, Yi
    & Hoi, AAAI 2012), unbudgeted -- the baseline "OKS" of the kernel-selection paper of Li
    & Liao, Sec. 5.1.

    ``K`` kernel hypotheses ``f_{t,i} = sum_{tau in S_i} a_tau k_i(x_tau, .)``, each with
    its **own** support set ``S_i`` (an example is stored by the kernel that was drawn when
    it arrived).  Cumulative importance-weighted losses ``L_{1,i} = 0``, ``q_1`` uniform.
    Round ``t``:

    1. draw ``I_t ~ q_t`` (inverse CDF of one uniform of the seeded generator over the
       kernels in their given order; the draw is made at the end of round ``t - 1``, so
       ``decision_function`` is the next prediction and consumes no randomness);
    2. predict ``f_{t,I_t}(x_t)`` (one kernel row against ``S_{I_t}`` only): ``sign`` of it
       for classification, with ``sign(0) = +1``;
    3. the loss the weights see: classification ``e_t = 1[yhat_t != y_t]`` (the mistake
       indicator), regression ``e_t = |f_{t,I_t}(x_t) - y_t|``;
    4. update ``f_{t,I_t}`` only: classification, if ``yhat_t != y_t`` (``update=
       "mistake"``) or ``y_t f_{t,I_t}(x_t) < 1`` (``update="hinge"``), ``x_t`` joins
       ``S_{I_t}`` with coefficient ``lambda y_t / q_{t,I_t}``; regression, every round,
       ``x_t`` joins ``S_{I_t}`` with coefficient ``-lambda sign(f_{t,I_t}(x_t) - y_t) /
       q_{t,I_t}`` (stored even when the sign is 0, as the R code does).  BOKS: only while
       ``sum_i |S_i| < B``;
    5. ``L_{t+1,I_t} = L_{t,I_t} + e_t / q_{t,I_t}`` (the other kernels' ``L`` unchanged)
       and ``q_{t+1} = (1 - delta) softmax(-eta L_{t+1}) + delta / K``.

    The sources, and which one okl follows:

    * **Li & Liao's R code** (``table4/BOKS-r.R``, ``table5/BOKS-c.R``,
      ``table5/Adv-BOKS-c.R``, ``table6``/``table7`` copies, in JunfLi-TJU/
      ACML2021-Journal-Track) is the algorithm above with ``update="mistake"``,
      ``importance_weighted=True``, ``eta = sqrt(2 (1 - delta) ln K / (K T))``,
      ``lambda = 5 / sqrt(T)`` and ``delta`` in {0.2, 0.02, 0.002} (0.02 in the scripts,
      0.002 in the adversarial ones).  okl follows it by default and reproduces it round
      for round (``tests/test_oks.py`` against ``tests/fixtures/r_*oks_*.csv``, made by
      ``tests/fixtures/r/BOKS-*.R``).  Two adaptations of the fixture scripts only: R's
      ``sample(1:K, 1, prob = p)`` sorts ``p`` before inverting its CDF, okl inverts it in
      the kernels' order (the draw has the same law); and the permutation of the stream
      is left to the caller.
    * **Li & Liao's text** says "for online classification, we adopt the hinge loss"; the R
      code updates on mistakes (a Perceptron step scaled by ``lambda / q``) and weighs
      kernels by their importance-weighted mistakes.  ``update="hinge"`` makes the hinge
      loss's subgradient step instead (update when ``y f < 1``).  The text's "we set the
      stepsize of gradient descent to 5/sqrt(T)" and its ``delta`` grid agree with the code.
    * **An earlier R version by the same authors** (``OKS.R`` in JunfLi-TJU/KARegret-OKS,
      ECML-PKDD 2021) differs in three places: it updates on ``y f < 1``
      (``update="hinge"``), stores ``lambda y`` without dividing by ``q_{t,I_t}``
      (``importance_weighted=False``), and uses the learning rate ``delta / K`` for the
      weights (pass ``eta=delta/K``; it computes the ``eta`` above but does not use it).
      The ECML-PKDD 2022 version (``OKS.zip`` in JunfLi-TJU/OKS-Bandit) tunes ``delta =
      (K/T)^{1/3}``, ``lambda = 5 sqrt(delta) / sqrt(K T)`` (pass them).
    * **Yang et al. (2012)**: only the paper's introduction was reachable here, not its
      algorithm boxes, so okl cannot say where the AAAI text and the R code part; the
      structure above (sample a kernel, update only its classifier with an
      importance-weighted step, exponential weights on importance-weighted losses smoothed
      by ``delta``) is what both R versions and Li & Liao's description share.

    Parameters
    ----------
    kernels : list of okl kernels, default the paper's 9 Gaussians, ``sigma = 2^{-4..4}``
        Any okl kernels (each set is evaluated with its own kernel; nothing is shared).
    loss : {"hinge", "absolute"}, default "hinge"
        Classification (labels +-1) or regression (absolute loss).  ``Trace.losses`` holds
        the hinge or absolute loss of the drawn kernel's prediction.
    delta : float in [0, 1], default 0.02
        The smoothing ``q_t = (1 - delta) p_t + delta / K``.
    T : int >= 1 or None
        The horizon, on which the default ``eta`` and ``lambda`` depend.  ``None``: ``run``
        takes its stream's length; required for ``learn_one`` / ``partial_fit``.
    eta : float >= 0 or None
        Learning rate of the weights; ``None`` is the R code's ``sqrt(2 (1 - delta) ln K /
        (K T))``.
    lam : float > 0 or None
        The step ``lambda``; ``None`` is Li & Liao's ``5 / sqrt(T)``.
    update : {"mistake", "hinge"}, default "mistake"
        When a classifier is updated (see above); ignored for regression.
    importance_weighted : bool, default True
        Divide the new coefficient by ``q_{t,I_t}`` (Li & Liao's R code) or not (``OKS.R``).
    seed : int, Generator or None
        Seed of the draws ``I_t``.

    Notes
    -----
    Memory: an entry costs ``d + 1`` quanta (its vector and coefficient), the ``K``
    cumulative losses are the fixed state.  Time: a round evaluates one kernel against one
    set.  ``Trace.budget`` is ``sum_i |S_i|``.  ``Trace.mistakes`` counts ``y f <= 0`` (okl's
    convention: a zero score is a mistake); the R code's count (``sign(0) = +1``) is
    ``extras["n_errors"]``.  ``Trace.extras``: ``q`` (``q_{T+1}``), ``L``, ``best_kernel``
    (``argmax q``), ``n_selected`` and ``n_updates`` per kernel, ``sizes`` (``|S_i|``),
    ``n_errors``, ``err_sum`` (the losses ``e_t`` per kernel), ``n_blocked`` (updates
    refused by a full budget), ``max_size``, ``max_memory`` / ``max_time`` in quanta,
    ``B``, ``T``, ``eta``, ``lam``, ``delta``.
    """

    _horizon_depends = "eta and lambda"

    kernels = KernelsParam()
    loss = Choice("hinge", _LOSSES, core="loss_kind")
    delta = Real(0.02, low=0, high=1)
    T = Int(None, low=1, role="horizon", none="the length of the first run's stream")
    eta = Real(None, low=0, none="sqrt(2 (1 - delta) ln K / (K T))")
    lam = Real(None, low=0, low_open=True, none="5 / sqrt(T)")
    update = Choice("mistake", _UPDATES, core="rule")
    importance_weighted = Flag(True)
    seed = Seed()

    def _classifies(self):
        return self.loss == "hinge"

    # -- budget and horizon ----------------------------------------------------------

    @property
    def K(self) -> int:
        return len(self.kernels)

    def _example_budget(self, d):
        """``B`` for inputs of dimension ``d`` (``-1``: unbudgeted)."""
        if self._budget_spec is None:
            return -1
        return example_budget(self._budget_spec, memory_per_example=memory_per_example(d),
                              memory_fixed=self.K, time_per_example=time_per_example(d),
                              time_fixed=self.K)

    def _settings_for(self, T):
        """``(eta, lambda)`` for horizon ``T``."""
        eta = (math.sqrt(2.0 * (1.0 - self.delta) * math.log(self.K) / (self.K * T))
               if self.eta is None else self.eta)
        lam = 5.0 / math.sqrt(T) if self.lam is None else self.lam
        return eta, lam

    def _ensure_allocated(self, d):
        if self.n_features is None:
            B = self._example_budget(d)
            T = self._run_horizon()
            self._core_allocate(d, 1, False)
            cap = _INITIAL_CAPACITY if B < 0 else max(1, min(_INITIAL_CAPACITY, B))
            self._oks_allocate(self.kernels, B, cap)
            self._oks_set_horizon(T, *self._settings_for(T))

    # -- inspection ------------------------------------------------------------------

    @property
    def eta_(self):
        return self.rate if self.horizon_ else None

    @property
    def lam_(self):
        return self.step if self.horizon_ else None

    def kernel_support(self, i):
        """``(vectors, coefficients, rounds)`` of kernel ``i``'s own support set."""
        if self.n_features is None:
            return np.empty((0, 0)), np.empty(0), np.empty(0, dtype=np.int64)
        return self.sets.vectors(int(i)), self.sets.coefficients(int(i)), \
            self.sets.stamps(int(i))

    def kernel_decision_function(self, X):
        """``f_{t,i}(x)`` of every kernel for each row of ``X``: shape ``(len(X), K)``."""
        from okl._validation import check_matrix
        if self.n_features is None:
            Xc = check_matrix(X)
            return np.zeros((Xc.shape[0], self.K))
        Xc = check_matrix(X, self.n_features)
        return np.column_stack([self.sets.decision(i, Xc) for i in range(self.K)])

    def _extras(self):
        v = read_fields(self, self._values_fields)
        d = self.n_features
        q = self.q_
        B = v["B"]
        out = {
            "q": q, "L": v["L"], "best_kernel": int(np.argmax(q)),
            "n_selected": v["n_selected"], "n_updates": v["n_updates"], "sizes": v["sizes"],
            "n_errors": v["n_errors"], "err_sum": v["err_sum"], "n_blocked": v["n_blocked"],
            "max_size": v["max_size"],
            "max_memory": memory_used(v["max_size"], memory_per_example(d), self.K),
            "max_time": time_used(int(v["sizes"].max()) if len(v["sizes"]) else 0,
                                  time_per_example(d), self.K),
            "memory_budget": (self._budget_spec.quanta
                              if isinstance(self._budget_spec, MemoryBudget) else None),
            "time_budget": (self._budget_spec.quanta
                            if isinstance(self._budget_spec, TimeBudget) else None),
            "B": None if B < 0 else int(B), "T": v["T"], "eta": v["eta"], "lam": v["lam"],
            "delta": self.delta,
        }
        return out


@register_learner(
    paper="selection", role="baseline", task="both",
    examples=[dict(kernels=[Gaussian(0.5), Gaussian(2.0)], loss="absolute", B=30, T=600,
                   seed=2)],
    bounds="okl.experiments.bounds.selection:oks")
class BOKS(OKS):
    r"""BOKS: OKS with a budget -- "a heuristic variant, called BOKS, which stops updating
    hypothesis if the number of support vectors equals B" (the kernel-selection paper of Li &
    Liao, Sec. 5.2.1; Tables 4-7).

    The algorithm of :class:`OKS` (see there for the rounds, the sources and the defaults),
    with one more rule, as in the authors' R code (``sum(k) < B``): an update of
    ``f_{t,I_t}`` is made only while the **total** number of entries over the ``K`` separate
    sets is below ``B`` ("BOKS and BOMKR do not share the memory and maintain K different
    sets of support vectors"; "BOKS allocates the available budget B0 to K hypotheses").
    The weights keep learning after the budget is full.

    Parameters
    ----------
    kernels, loss, delta, T, eta, lam, update, importance_weighted, seed
        As for :class:`OKS`.
    B : int >= 1, optional
        The example budget: entries over all ``K`` sets.  Exactly one of ``B``,
        ``memory_budget``, ``time_budget``.
    memory_budget : float or okl.learners.budget_kinds.MemoryBudget, optional
        A memory budget in quanta (Li & Liao's Definition 1): an entry costs ``d + 1``
        (vector and coefficient) and the ``K`` cumulative losses are fixed, so ``B =
        floor((quanta - K) / (d + 1))``, Table 3's available budget ``B_0`` of BOKS (the
        single-kernel baseline's, minus the fixed state).
    time_budget : float or okl.learners.budget_kinds.TimeBudget, optional
        A per-round time budget in quanta: a round evaluates one kernel against one set,
        which may hold all ``B`` entries (``d + 1`` per entry, ``K`` fixed), so ``B =
        floor((quanta - K) / (d + 1))``.

    Notes
    -----
    ``Trace.extras`` as for :class:`OKS`, plus ``memory_budget`` / ``time_budget`` (quanta,
    when given); ``n_blocked`` counts the updates the full budget refused.
    """

    B = example_budget_param()
    memory_budget = memory_budget_param()
    time_budget = time_budget_param()
    _param_order = ("kernels", "loss", "B", "memory_budget", "time_budget", "delta", "T",
                    "eta", "lam", "update", "importance_weighted", "seed")

    def _check_params(self):
        self._check_budget()
