"""Online AMM, the adaptive multi-hyperplane machine (Wang, Djuric, Crammer & Vucetic,
*Trading representability for scalability: adaptive multi-hyperplane machine for
nonlinear classification*, KDD 2011), one of BudgetedSVM's online learners beside BSGD
(Djuric, Lan, Vucetic & Wang, JMLR 14, 2013: ``budgetedsvm-train -A 2``); typed core in
``okl/learners/_amm.pyx``.

The paper and BudgetedSVM's code are compared in ``notes/bsgd.md`` (section 5); the
plain-numpy oracle the learner is held to round for round is ``amm_online`` of
``tests/oracles/bsgd.py``, which also reproduces BudgetedSVM's model files
(``tests/fixtures/budgetedsvm/``).
"""
from __future__ import annotations

import numpy as np

from okl._learner import fields
from okl.learners._amm import AMMCore
from okl.learners.multiclass import MulticlassLearner, _WeightVectorModel
from okl.params import INT_MAX, Choice, Int, Real, Seed
from okl.registry import register_learner

__all__ = ["AMMOnline"]


@register_learner(
    paper="bsgd", role="baseline", task="multiclass",
    bounds="okl.experiments.bounds.bsgd:amm",
    examples=[dict(lam=0.01, B=5, k=50, c=1.0),
              dict(lam=0.01, B=5, k=50, c=1.0, variant="budgetedsvm"),
              dict(lam=0.05, B=None, k=30, c=3.0, bias=0.0)])
class AMMOnline(_WeightVectorModel, AMMCore):
    r"""Online AMM, the adaptive multi-hyperplane machine of Wang, Djuric, Crammer &
    Vucetic, *Trading representability for scalability: adaptive multi-hyperplane
    machine for nonlinear classification* (KDD 2011), Algorithm 2 with its pruning
    (Section 3.4); BudgetedSVM's ``budgetedsvm-train -A 2`` with
    ``variant="budgetedsvm"``.

    Class ``c`` owns hyperplanes ``w_{c,1}, ..., w_{c,b_c}`` over ``[x, bias]`` (the bias a
    regularised coordinate of value ``bias``, BudgetedSVM's ``-b``); ``g(c, x) = max_j
    w_{c,j}' [x, bias]`` (Eq. 5); predict the first class of largest ``g``.  Objective
    (Eqs. 3, 7-8): ``lam/2 ||W||_F^2 + (1/N) sum_t max(0, 1 + max_{c != y} g(c, x_t) -
    w_{y,z_t}' x_t)``.  Round ``t``:

    1. ``z_t = argmax_j w_{y,j}' x_t`` (Eq. 10), score ``f_+``; ``(i_t, j_t)`` the best
       hyperplane of the other classes, score ``f_-`` (first of the largest, classes in
       the order of ``classes_``, hyperplanes in their order);
    2. every hyperplane ``*= 1 - eta_t lam`` (Eq. 11);
    3. if ``1 + f_- - f_+ > 0``: ``w_{i_t,j_t} -= eta_t x_t``, then ``w_{y,z_t} += eta_t
       x_t`` (Eqs. 12-13);
    4. every ``k`` rounds, pruning (Section 3.4, Eq. 14).

    ``variant="paper"`` ([A]):

    * ``eta_t = 1 / (lam t)`` (Eq. 11);
    * each class has a reserved zero hyperplane (Section 3.2), implicit, scoring 0 in both
      argmaxes and listed first (a tie at 0 goes to it): when it is ``z_t`` (no hyperplane
      of ``y`` scores above 0) step 3 creates the new hyperplane ``eta_t x_t`` in ``y``,
      and when it is ``(i_t, j_t)`` the new hyperplane ``-eta_t x_t`` in ``i_t``; so
      ``g(c, x) >= 0``;
    * pruning removes the hyperplanes of smallest norm, in increasing order (ties by
      class, then position), while the Frobenius norm of the removed ones stays ``<= c /
      ((t - 1) lam)`` (Theorem 3); a class may lose all its hyperplanes (its zero one
      remains);
    * ``B`` caps each class's nonzero hyperplanes (``None``: no cap, the paper's
      "infinitely many"); a class at its cap creates none (that side of step 3 is
      skipped).

    ``variant="budgetedsvm"`` (``trainAMMonline``, ``mm_algs.cpp:651-955``):

    * ``eta_t = 1 / ((t + 1) lam)`` and the shrink ``1 - 1/(t + 1)`` (``mm_algs.h:70-73``,
      ``mm_algs.cpp:284, 313``): the paper's step one round later;
    * each class starts with one explicit zero hyperplane, an ordinary hyperplane (it can
      be ``(i_t, j_t)`` and be pushed away; no new one is ever created for a wrong
      class); the true class's step goes to ``z_t`` if ``f_+ > 0``, else a new
      hyperplane ``eta_t x_t`` is appended (``updateDegradation``,
      ``mm_algs.cpp:804-848``), unless the class already holds ``B`` (its first one
      included; the wrong class was still pushed);
    * pruning when ``t % k == 0``: the squared norms sorted increasingly, ``q`` the
      number of the smallest whose sum stays ``<= c^2 / (t^2 lam^2)`` (``t``, not ``t -
      1``, and squared norms summed); then **every** hyperplane whose squared norm equals
      one of the ``q`` smallest is deleted (ties delete more than ``q``, e.g. all the
      still-zero initial hyperplanes at once), never a class's last one
      (``mm_algs.cpp:858-943``);
    * BudgetedSVM orders the classes by first appearance in the training file, okl by
      sorted label (``classes_``), which decides ties (every score is 0 at first): the
      runs are the same when the labels' sorted order is their order of appearance
      (relabel to compare).  GAMM's cloning (``-C``, v1.2) is not modelled (its default
      probability is 0).

    Epochs are the user's: a pass is one ``run`` of the stream, and running it again
    continues ``t`` (BudgetedSVM's ``-e``, the paper's Figure 2 with 5 passes).

    Parameters
    ----------
    lam : float > 0, default 1e-4
        lambda (BudgetedSVM's ``-L`` default; the paper cross-validates 1e-2 ... 1e-7).
    B : int >= 1 or None, default 50
        Hyperplanes per class at most (BudgetedSVM's ``-B`` default; see ``variant`` for
        what counts).  ``None``: no cap.
    k : int >= 1 or None, default 10000
        Prune every ``k`` rounds (``-k``; the paper's ``k = 10,000``).  ``None``: never.
    c : float >= 0, default 10.0
        The pruning threshold (``-c``; the paper's ``c = 10``).
    bias : float, default 1.0
        The constant coordinate appended to every example (``-b`` default); 0: none.
    variant : {"paper", "budgetedsvm"}, default "paper"
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Each hyperplane is kept as ``deg v`` (BudgetedSVM's "degradation") with ``||v||^2``
    kept up to date: the shrink is one multiplication per hyperplane, an update
    ``v += [x, bias] / (+-deg / eta_t)`` touches the row's non-zeros only.  Cost per
    round, ``H = sum_c b_c <= K B`` hyperplanes: ``H (nnz(x) + 1)`` multiply-adds for the
    scores, ``H`` for the shrink, ``2 (nnz(x) + 1)`` for the update (``D = d + 1``
    doubles to create a hyperplane); a pruning pass ``O(H log H)``.  Memory ``H D``.

    ``weights`` lists per class its hyperplanes (``b_c x D``, the bias coordinate last);
    ``hyperplanes_`` counts them.  ``Trace.budget`` is ``H`` (BudgetedSVM's explicit
    zero hyperplanes counted, the paper's implicit ones not); ``Trace.extras``:
    ``hyperplanes`` (per class), ``n_updates`` (rounds with a positive loss),
    ``created`` (hyperplanes created), ``pruned`` (deleted by pruning) and ``prunings``
    (passes), all cumulative, and ``pruning_deleted``, the number deleted by each pass
    of this run.  Oracle: ``amm_online`` of ``tests/oracles/bsgd.py`` (with ``classes``
    sorted), which reproduces BudgetedSVM's model files.

    Ties.  On binary features (a9a) a hyperplane's score can be 0 in exact arithmetic
    (its near-integer coordinates cancel on ``x``); whether ``f_+ > 0`` then, and which
    hyperplane is first of the largest, is decided by round-off, here as in
    BudgetedSVM (float32 coordinates, long-double sums) and in the oracle (numpy's
    ``dot``), so the three runs part there (a9a, one pass: okl and the float64 oracle
    from round 193, with 5 + 10 hyperplanes at the end; BudgetedSVM 7 + 10, which the
    oracle reproduces in BudgetedSVM's arithmetic).
    """

    lam = Real(1e-4, low=0, low_open=True)
    B = Int(50, low=1, high=INT_MAX, role="budget",
            none="no cap on the hyperplanes per class (the paper's)", core_none=0)
    k = Int(10000, low=1, high=2 ** 62, none="never prune", core_none=0)
    c = Real(10.0, low=0)
    bias = Real(1.0)
    variant = Choice("paper", {"paper": False, "budgetedsvm": True}, core="bsvm")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("lam", "B", "k", "c", "bias", "variant", "classes", "seed")

    def _core_allocate(self, d, capacity, growable):
        super()._core_allocate(d, capacity, growable)
        self._amm_allocate()

    def _begin_stream(self, n_rounds):
        self.__dict__["_passes_before"] = self.prunings

    @property
    def weights(self) -> list | None:
        """Per class (in the order of ``classes_``), its hyperplanes ``w_{c,j}`` as the
        rows of a ``b_c x D`` array (the bias coordinate last); None before the first
        example."""
        return self._amm_weights()

    @property
    def hyperplanes_(self) -> np.ndarray:
        """Hyperplanes per class (BudgetedSVM's explicit zero ones included)."""
        return self._hyperplane_counts()

    def _extras(self):
        extras = super()._extras()
        extras["hyperplanes"] = (self._hyperplane_counts().tolist()
                                 if self.classes_ is not None else [])
        start = self.__dict__.get("_passes_before", 0)
        extras["pruning_deleted"] = self._pruning_log()[start:]
        return extras

    _state_fields = MulticlassLearner._state_fields + AMMCore._state_fields
    _extras_fields = fields("n_updates", "created", "pruned", "prunings")
