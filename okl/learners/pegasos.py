"""Pegasos without a budget, the baselines of BSGD (Wang, Crammer & Vucetic, *Breaking the
curse of kernelization: budgeted stochastic gradient descent for large-scale SVM
training*, JMLR 13, 2012) and of BudgetedSVM (Djuric, Lan, Vucetic & Wang, JMLR 14, 2013);
typed cores in ``okl/learners/_pegasos.pyx``.

* :class:`KernelPegasos` and :class:`MulticlassKernelPegasos`: the "Pegasos" column of the
  BSGD paper's Tables 3, "non-budgeted kernelized Pegasos (Shalev-Shwartz et al., 2011)"
  (its Section 7.1): BSGD's Algorithm 1 with the Pegasos step and no budget, every
  violating example kept;
* :class:`LinearPegasos`: BudgetedSVM's ``budgetedsvm-train -A 0``, linear multiclass
  Pegasos (AMM with one hyperplane per class, the "Linear (Pegasos)" column of the AMM
  paper's Table 3), with BudgetedSVM's bias coordinate.

The paper and BudgetedSVM's code are compared in ``notes/bsgd.md`` (sections 1, 2
and 6); the plain-numpy oracles the learners are held to round for round are
``kernel_pegasos`` and ``pegasos_linear`` of ``tests/oracles/bsgd.py``, which also
reproduce BudgetedSVM's model files (``tests/fixtures/budgetedsvm/``).
"""
from __future__ import annotations

import numpy as np

from okl._learner import fields
from okl.kernels import Gaussian
from okl.learners._pegasos import (KernelPegasosCore, LinearPegasosCore,
                                   MulticlassKernelPegasosCore)
from okl.learners.base import KernelExpansion, OnlineLearner
from okl.learners.multiclass import MulticlassLearner, _WeightVectorModel
from okl.params import Choice, KernelParam, Real, Seed
from okl.registry import register_learner

__all__ = ["KernelPegasos", "MulticlassKernelPegasos", "LinearPegasos"]


_KERNEL_DOC = r"""
    Round ``t`` (Algorithm 1 of the BSGD paper with the Pegasos rule of its Table 2, no
    budget; Shalev-Shwartz, Singer, Srebro & Cotter, *Pegasos*, Math. Program. 127, 2011,
    without its optional projection step, as the BSGD paper's footnote 4):

    1. the scores of ``w_t`` on ``x_t`` and the hinge loss@loss@;
    2. ``eta_t = 1 / (lam t)``; every coefficient times ``1 - eta_t lam = 1 - 1/t``;
    3. if the loss is positive, ``x_t`` joins the support set with @beta@.

    Every coefficient is then ``+-1 / (lam t)`` (Eq. 3.7 of the paper).  Epochs are the
    user's: a pass is one ``run`` of the stream, and running it again continues ``t``
    (BudgetedSVM's ``-e``, the paper's Figure 3).

    ``variant="budgetedsvm"``: what BudgetedSVM's BSGD (``budgetedsvm-train -A 4``, the
    only kernel Pegasos it has) does with a budget never reached: the first example joins
    with ``alpha = +1`` at its class and ``-1`` at the next (``(y + 1) mod K``), not
    ``+-1 / lam``, and that round neither scores nor shrinks (``bsgd.cpp:724-738``).@binary@
    BudgetedSVM's other departures act on budget maintenance, which this learner has
    none of.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
        BudgetedSVM's ``-g`` is ``Gaussian(sigma=1/sqrt(g))``.
    lam : float > 0, default 1e-4
        lambda (BudgetedSVM's ``-L`` default).
    variant : {"paper", "budgetedsvm"}, default "paper"@classes@
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Cost per round: one kernel row ``k(x_t, S)`` over the support set (``O(|S| d)``;
    ``|S|`` grows by one per violating round, so a pass is quadratic in the number of
    violations: the reason the paper early-stops it on its large sets) and the shrink of
    every coefficient (``O(|S|)``@shrink@).  ``Trace.losses`` holds the hinge loss of
    ``w_t``; ``Trace.extras``: ``n_updates`` (rounds that added a support vector,
    cumulative).  Oracle: ``kernel_pegasos`` of ``tests/oracles/bsgd.py``@oracle@.
"""


def _fill(doc, **parts):
    for key, text in parts.items():
        doc = doc.replace(f"@{key}@", text)
    return doc


class _KernelPegasosParams:
    kernel = KernelParam()
    lam = Real(1e-4, low=0, low_open=True)
    variant = Choice("paper", {"paper": False, "budgetedsvm": True}, core="bsvm")
    seed = Seed()

    _extras_fields = fields("n_updates")


@register_learner(
    paper="bsgd", role="baseline", task="classification",
    bounds="okl.experiments.bounds.bsgd:kernel_pegasos",
    examples=[dict(kernel=Gaussian(1.0), lam=0.01),
              dict(kernel=Gaussian(1.0), lam=0.01, variant="budgetedsvm")])
class KernelPegasos(_KernelPegasosParams, KernelExpansion, OnlineLearner, KernelPegasosCore):
    __doc__ = r"""Kernel Pegasos without a budget, binary: the non-budgeted baseline of Wang,
    Crammer & Vucetic, *Breaking the curse of kernelization: budgeted stochastic gradient
    descent for large-scale SVM training* (JMLR 13, 2012), Tables 3 ("Pegasos").

    ``f = sum_{j in S} alpha_j k(x_j, .)``; labels in {-1, +1}; the objective ``lam/2
    ||w||^2 + (1/N) sum_t max(0, 1 - y_t f(x_t))`` (Eq. 3.1, no bias: footnote 3).
""" + _fill(
        _KERNEL_DOC,
        loss=" ``max(0, 1 - y_t f(x_t))``",
        beta="``y_t eta_t``",
        binary=" BudgetedSVM runs a binary file as two Crammer-Singer classes; "
        "their model is ``alpha = alpha^(+1) - alpha^(-1)`` here, which evolves as this "
        "binary algorithm at ``lam / 2`` (so ``lam`` is BudgetedSVM's ``-L``, the rounds "
        "use ``lam / 2``: ``lam_``), the first coefficient being ``2 y`` (as "
        ":class:`~okl.BSGD` does).",
        classes="",
        shrink="; one ``dscal``",
        oracle=" with ``binary=True``; the ``\"budgetedsvm\"`` variant against the "
        "oracle's two-class run (``f = f^(+1) - f^(-1)``)")

    _param_order = ("kernel", "lam", "variant", "seed")

    def _allocation(self):
        return 64, True            # no budget: the support set grows

    @property
    def lam_(self) -> float:
        """The lambda the rounds use (``lam``; ``lam / 2`` for ``variant="budgetedsvm"``)."""
        return self.lam_eff

    _state_fields = KernelPegasosCore._state_fields


@register_learner(
    paper="bsgd", role="baseline", task="multiclass",
    bounds="okl.experiments.bounds.bsgd:kernel_pegasos",
    examples=[dict(kernel=Gaussian(1.0), lam=0.01),
              dict(kernel=Gaussian(1.0), lam=0.01, variant="budgetedsvm")])
class MulticlassKernelPegasos(_KernelPegasosParams, MulticlassLearner,
                              MulticlassKernelPegasosCore):
    __doc__ = r"""Kernel Pegasos without a budget, multiclass (Crammer-Singer): the
    non-budgeted baseline of Wang, Crammer & Vucetic, *Breaking the curse of
    kernelization* (JMLR 13, 2012), Section 5 and Tables 3 ("Pegasos").

    ``f_c = sum_{j in S} A[j, c] k(x_j, .)`` over one support set, one kernel row a round
    for all ``K`` classes; predict the first class of largest score.  Objective ``lam/2
    ||W||_F^2 + (1/N) sum_t l_t`` (Eq. 5.1).
""" + _fill(
        _KERNEL_DOC,
        loss=" ``l_t = max(0, 1 + f_r(x_t) - f_{y_t}(x_t))``, ``r`` the best-scoring "
        "wrong class (lowest index on ties)",
        beta="the row ``+eta_t`` at ``y_t``, ``-eta_t`` at ``r`` (Section 5)",
        binary=" BudgetedSVM orders the classes by first appearance in the training "
        "file, okl by sorted label (``classes_``), which decides ties and the first "
        "example's second class: the runs are the same when the labels' sorted order "
        "is their order of appearance (relabel to compare).",
        classes="\n    classes : list or None\n        The labels (``None``: those of the "
        "first stream learned).",
        shrink=": two coefficients a support vector",
        oracle=" with ``classes`` sorted")

    classes = MulticlassLearner.classes
    _param_order = ("kernel", "lam", "variant", "classes", "seed")

    def _allocation(self):
        return 64, True

    _state_fields = MulticlassLearner._state_fields + MulticlassKernelPegasosCore._state_fields


@register_learner(
    paper="bsgd", role="baseline", task="multiclass",
    bounds="okl.experiments.bounds.bsgd:linear_pegasos",
    examples=[dict(lam=0.01), dict(lam=0.01, variant="budgetedsvm"),
              dict(lam=0.05, bias=0.0)])
class LinearPegasos(_WeightVectorModel, LinearPegasosCore):
    r"""Linear multiclass Pegasos, as BudgetedSVM's ``budgetedsvm-train -A 0`` runs it
    (Djuric, Lan, Vucetic & Wang, *BudgetedSVM: a toolbox for scalable SVM
    approximations*, JMLR 14, 2013, Section 2.1: AMM with one hyperplane per class;
    ``trainPegasos`` of ``mm_algs.cpp``), the Pegasos rule of Shalev-Shwartz, Singer,
    Srebro & Cotter (Math. Program. 127, 2011) on the Crammer-Singer loss.  Not the
    kernel Pegasos of the BSGD paper's tables (:class:`KernelPegasos`).

    One weight vector ``w_c`` per class over ``[x, bias]`` (the bias a regularised
    coordinate of value ``bias``, BudgetedSVM's ``-b``); scores ``w_c' [x, bias]``;
    predict the first class of largest score.  Round ``t``: ``y`` the true class, ``r``
    the best-scoring other class (lowest index on ties);

    1. every ``w_c *= 1 - eta_t lam``;
    2. if ``1 + f_r - f_y > 0`` (the scores before step 1): ``w_r -= eta_t [x, bias]``,
       then ``w_y += eta_t [x, bias]``.

    No projection step, no averaging.  ``variant``: ``"paper"`` (Pegasos) steps
    ``eta_t = 1 / (lam t)`` (the shrink at ``t = 1`` is 0); ``"budgetedsvm"`` steps
    ``eta_t = 1 / ((t + 1) lam)`` (``mm_algs.h:70-73``, ``mm_algs.cpp:313``), the
    paper's step one round later.  BudgetedSVM orders the classes by first appearance in
    the training file, okl by sorted label (``classes_``), which decides ties (every
    score is 0 at first): the runs are the same when the labels' sorted order is their
    order of appearance (relabel to compare).  Epochs are the user's: a pass is one
    ``run`` of the stream, and running it again continues ``t`` (BudgetedSVM's ``-e``).

    Parameters
    ----------
    lam : float > 0, default 1e-4
        lambda (BudgetedSVM's ``-L`` default).
    bias : float, default 1.0
        The value of the constant coordinate appended to every example (BudgetedSVM's
        ``-b`` default); 0: no bias coordinate.
    variant : {"paper", "budgetedsvm"}, default "paper"
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Each ``w_c`` is kept as ``deg_c v_c`` (BudgetedSVM's "degradation"): the shrink is
    ``K`` multiplications, an update ``v += [x, bias] / (+-deg_c / eta_t)`` touches the
    row's non-zeros only.  Cost per round: ``K (nnz(x) + 1)`` multiply-adds for the
    scores, ``K`` for the shrink and ``2 (nnz(x) + 1)`` for an update; memory ``K (d +
    1)``.  ``weights`` is the ``K x (d + 1)`` matrix (bias coordinate last; ``K x d``
    when ``bias=0``).  ``Trace.budget`` is ``K`` (the hyperplanes); ``Trace.extras``:
    ``n_updates`` (cumulative).  Oracle: ``pegasos_linear`` of ``tests/oracles/bsgd.py``
    (with ``classes`` sorted), which reproduces BudgetedSVM's model files.  On binary
    features each ``w_c`` is an integer combination of examples over ``lam t``
    (``lam (t + 1)``), so many scores tie in exact arithmetic and round-off picks the
    class (on a9a.t, after one pass on a9a: 298 of 16,281 test rows, where okl and
    BudgetedSVM may disagree).
    """

    lam = Real(1e-4, low=0, low_open=True)
    bias = Real(1.0)
    variant = Choice("paper", {"paper": False, "budgetedsvm": True}, core="bsvm")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("lam", "bias", "variant", "classes", "seed")

    def _core_allocate(self, d, capacity, growable):
        super()._core_allocate(d, capacity, growable)
        self._linear_allocate()

    @property
    def weights(self) -> np.ndarray | None:
        """``W`` (``K x D``): row ``c`` the weight vector of class ``c`` (in the order of
        ``classes_``), the bias coordinate last; None before the first example."""
        return self._linear_weights()

    _state_fields = MulticlassLearner._state_fields + LinearPegasosCore._state_fields
    _extras_fields = fields("n_updates")
