"""BSGD: budgeted stochastic gradient descent for kernel SVMs (Wang, Crammer & Vucetic,
*Breaking the curse of kernelization: budgeted stochastic gradient descent for large-scale
SVM training*, JMLR 13, 2012), binary (:class:`BSGD`) and multiclass
(:class:`MulticlassBSGD`), with the three SGD rules the paper budgets (BPegasos, BNorma,
BMP) and its three budget maintenances (removal, projection, merging); typed cores in
``okl/learners/_bsgd.pyx``.

The paper and BudgetedSVM's code (``djurikom/BudgetedSVM``, ``src/bsgd.cpp``) are compared
in ``notes/bsgd.md``; the plain-numpy oracle both classes are held to round for round
is ``tests/oracles/bsgd.py`` (``bsgd``), which also reproduces BudgetedSVM's own model
files (``tests/fixtures/budgetedsvm/``).
"""
from __future__ import annotations

import math
import textwrap

from okl._learner import fields
from okl.kernels import Gaussian
from okl.learners._bsgd import BSGDCore, MulticlassBSGDCore
from okl.learners.base import KernelExpansion, OnlineLearner
from okl.learners.multiclass import MulticlassLearner
from okl.params import INT_MAX, Choice, Int, KernelParam, Real, Seed
from okl.registry import register_learner

__all__ = ["BSGD", "MulticlassBSGD"]


class _BSGDParams:
    """The parameters, checks and extras both BSGD classes share."""

    _blas_in_round_loop = True     # projection: the inverse's dgemv / dger

    kernel = KernelParam()
    B = Int(100, low=1, high=INT_MAX - 1, role="budget")
    lam = Real(None, low=0,
               none="the rule's: 1e-4 for 'pegasos' and 'norma' (BudgetedSVM's -L "
                    "default), 0 for 'mp' (Table 2)", core_none=-1.0)
    rule = Choice("pegasos", {"pegasos": 0, "norma": 1, "mp": 2})
    maintenance = Choice("merging", {"removal": 0, "projection": 1, "merging": 2},
                         aliases={"remove": "removal", "project": "projection",
                                  "merge": "merging"})
    eta = Real(None, low=0, low_open=True,
               none="1.0 for 'norma' and 'mp' ('pegasos' steps 1/(lam t))", core_none=1.0)
    U = Real(None, low=0, low_open=True, allow_inf=True,
             none="no ball: the margin Perceptron of Table 2 (rule 'mp' only)",
             core_none=math.inf)
    variant = Choice("paper", {"paper": False, "budgetedsvm": True}, core="bsvm")
    seed = Seed()

    def _check_params(self):
        super()._check_params()
        self._check_bsgd()

    def _check_bsgd(self):
        rule, maint = self.rule, self.maintenance
        if rule == "pegasos":
            if self.lam is not None and self.lam <= 0:
                raise ValueError(f"rule='pegasos' needs lam > 0 (its step is eta_t = "
                                 f"1/(lam t)), got lam={self.lam!r}")
            if self.eta is not None:
                raise ValueError("eta is the step of rule='norma' (eta/sqrt(t)) and "
                                 "rule='mp' (eta); rule='pegasos' steps 1/(lam t): leave "
                                 "eta unset")
        if rule == "mp" and self.lam not in (None, 0, 0.0):
            raise ValueError(f"rule='mp' (BMP) has lam = 0 (Table 2 of the paper): leave "
                             f"lam unset or 0, got lam={self.lam!r}")
        if rule == "norma":
            lam = 1e-4 if self.lam is None else self.lam
            eta = 1.0 if self.eta is None else self.eta
            if eta * lam >= 1.0:
                raise ValueError(f"rule='norma' needs eta * lam < 1 (the shrink "
                                 f"1 - lam eta/sqrt(t) must stay positive from t = 1), got "
                                 f"eta={eta}, lam={lam}")
        if self.U is not None and rule != "mp":
            raise ValueError("U is the radius of BMP's ball: give it with rule='mp' only")
        if maint == "merging" and not isinstance(self.kernel, Gaussian):
            raise ValueError(
                f"maintenance='merging' needs a Gaussian kernel, got "
                f"{type(self.kernel).__name__}: the merged point z = h x_m + (1 - h) x_n "
                f"and its coefficient (the paper's Section 6.3, Eqs. 6.5-6.8) rest on "
                f"k(x_m, z) = k(x_m, x_n)^((1-h)^2), true of the Gaussian only "
                f"(BudgetedSVM switches merging to its RBF kernel too); use 'removal' or "
                f"'projection' with this kernel")
        if self.variant == "budgetedsvm" and (rule != "pegasos" or maint == "projection"):
            raise ValueError("variant='budgetedsvm' is budgetedsvm-train -A 4, which has "
                             "rule='pegasos' with maintenance 'removal' or 'merging' only")

    def _allocation(self):
        return self.B + 1, False   # the new vector joins before the maintenance step

    def _begin_stream(self, n_rounds):
        self.mt.begin_log(n_rounds, self.n_rounds)   # the run's maintenance-step log

    _extras_fields = fields("maintenance_steps", "duplicate_steps")

    def _extras(self):
        extras = super()._extras()
        extras.update(self.mt.log_extras(self.n_rounds))
        return extras

    def _inverse_state(self):
        """The projection's ``K_S^{-1}`` (a ``GramInverse``; None for the other
        maintenance steps): the state's "inverse"."""
        return self.mt.ginv

    @property
    def lam_(self) -> float:
        """The lambda the rounds use (``lam`` or the rule's default; BudgetedSVM's binary
        problem: half of it, see ``variant``)."""
        return self.lam_eff

    @property
    def E_(self) -> float:
        """``E = (1/t) sum_{s <= t} ||E_s||`` over every round learned (Theorems 1-3)."""
        return self.gerr_sum / self.n_rounds if self.n_rounds else 0.0


_DOC = r"""
    Objective and rules ([P] Sections 3 and 5).  ``P(w) = lam/2 ||w||^2 + (1/N) sum_t
    l_t(w)`` with the hinge loss
    @loss@.  Round ``t`` is Algorithm 1:

    1. the scores of ``w_t`` on ``x_t`` and the loss ``l_t(w_t)``;
    2. ``w <- (1 - eta_t lam) w`` (every coefficient);
    3. if ``l_t(w_t) > 0``: ``x_t`` joins the support set with
       @beta@;
    4. if it now holds ``B + 1`` vectors: one budget maintenance step (below);
    5. BMP only: ``w <- min(1, U / ||w||) w`` (after line 8, Section 4).

    ``rule`` (Table 2): ``"pegasos"`` (BPegasos) ``eta_t = 1 / (lam t)``, so the shrink is
    ``1 - 1/t``; ``"norma"`` (BNorma) ``eta_t = eta / sqrt(t)``; ``"mp"`` (BMP, the margin
    Perceptron) ``eta_t = eta``, ``lam = 0``, and the ball of radius ``U`` (``||w||`` is
    kept up to date through each step: ``O(1)`` on an added vector and a projection, one
    kernel row on a removal, three on a merge).

    ``maintenance`` (Section 6, Algorithm 2).  "The smallest" vector is the ``p``
    minimising ``||alpha_p||^2 k(x_p, x_p)`` over the ``B + 1`` vectors, the new one
    included (merging: ``||alpha_p||^2``); ties, within ``1e-9`` relatively of the minimum,
    go to the lowest position in the support set (the oldest surviving slot).  They are
    the rule in BPegasos, where every vector never merged or projected onto has
    ``|alpha| = 1 / (lam t)`` exactly (Eq. 3.7); BudgetedSVM's strict comparison leaves
    them to the round-off of its running products.

    * ``"removal"`` (6.1): drop the smallest; ``||Delta_t||^2 = ||alpha_p||^2 k_pp``.
      Cost: ``O(B)`` to find it (``k(x, x)`` from the cached norms), ``O(B d)`` to close
      the gap in the support set; no kernel evaluation.
    * ``"projection"`` (6.2): project the smallest onto the other ``B`` vectors,
      ``Delta alpha^(i) = alpha_p^(i) K_p^{-1} k_p`` (Eq. 6.3) for every class,
      ``||Delta_t||^2 = ||alpha_p||^2 (k_pp - k_p' K_p^{-1} k_p)`` (6.4).  ``K_S^{-1}`` is
      kept incrementally (:class:`okl.GramInverse`): each added vector borders it (one
      ``dgemv`` and one ``dger``, ``O(B^2)``, its kernel column being the round's own row),
      and with ``M`` the inverse over the ``B + 1`` vectors ``K_p^{-1} k_p = -M[-p, p] /
      M[p, p]``, ``k_pp - k_p' K_p^{-1} k_p = 1 / M[p, p]``, the inverse without ``p`` one
      rank-one downdate (``O(B^2)``): no solve, no kernel row beyond the round's.  A new
      vector in the span of the support set (Schur complement ``<= 1e-12 max(k(x, x), 1)``)
      makes the bordered matrix singular; its inverse is then its pseudo-inverse (numpy's
      ``pinv``, ``O(B^3)``; the paper says nothing of the case, the oracle does this).
    * ``"merging"`` (6.3, Gaussian kernel only): the smallest ``m`` merged with the ``n``
      whose merge degrades ``w`` least: ``z = h x_m + (1 - h) x_n`` with ``h`` maximising
      ``sum_i m^(i) k_mn^((1-h)^2) + (1 - m^(i)) k_mn^(h^2)``, ``m^(i) = alpha_m^(i) /
      (alpha_m^(i) + alpha_n^(i))`` (Eq. 6.7), by BudgetedSVM's golden-section search
      (bracket ``[0, 1]`` when ``sum m^(i)`` and ``sum (1 - m^(i))`` have the same sign,
      else ``[1, 6]`` or ``[-5, 0]``; stop below ``2e-4``: 18 or 22 steps), then
      ``alpha_z^(i) = alpha_m^(i) k_mz + alpha_n^(i) k_nz`` and ``n`` leaves; ``z`` takes
      ``m``'s slot.  Classes whose ``alpha_m^(i) + alpha_n^(i)`` cancels (within
      ``1e-12`` of the pair's size) are left out of the weights; a pair that cancels in
      every class merges as a dipole (``a1 = 1``, ``a2 = -1``, ``h`` in ``[1, 6]``; the
      paper leaves both undefined).  The search is BudgetedSVM's operation for operation
      (``pow`` included): for a pair of equal coefficients, common in BPegasos, its
      objective is symmetric about ``h = 1/2``, so its first comparison is a tie that
      the coefficients' last bits decide (an exact tie goes to ``h < 1/2``), and for a
      distant pair (two maxima) it decides whether ``z`` lands near ``x_m`` or ``x_n``.  Cost: ``O(B)`` for ``m``, one kernel row of ``x_m``
      (``O(B d)``), then per candidate ``n`` one search of 20 or 24 evaluations of two
      ``pow`` each (at most ``48 B`` powers a step) and ``O(K)`` for the weights; ``z``
      and the true degradation ``O(d)``.

    ``||Delta_t||^2`` is the weight degradation of the step taken (from kernel values,
    Eq. 6.1) and ``||E_t|| = ||Delta_t|| / eta_t`` its gradient error; their running
    average ``E = (1/t) sum_s ||E_s||`` is the ``E`` of Theorems 1-3 (BPegasos: ``E``
    bounds the gap to the unbudgeted optimum).  By Section 6, projection's and
    merging's degradation never exceed removing the same smallest vector (recorded
    beside it).

    ``variant``.  ``"paper"`` is the above.  ``"budgetedsvm"`` is what
    ``budgetedsvm-train -A 4`` (BudgetedSVM v1.2, ``bsgd.cpp``) does where it departs from
    the paper, with ``rule="pegasos"`` and removal or merging only (all it has):

    * the first example joins with ``alpha = +-1`` (``+1`` at its class, ``-1`` at the
      next class), not ``+-1 / lam``, and the round neither scores nor shrinks (it is then
      the smallest vector, and the first to go);
    * a new vector whose Gaussian kernel with a support vector of nonzero coefficient
      rounds to 1 at ``1e-8`` (the last such vector, in BudgetedSVM's order) is, on an
      overflow, added to that vector's coefficients (merging) or discarded (removal);
      with another kernel the test uses BudgetedSVM's default width, ``exp(-||s - x||^2 /
      (2 d))``;
    * a merge whose ``h`` came out negative puts ``z`` at ``x_n`` (``h = 0``) but keeps
      the coefficients computed with the negative ``h``; a zero ``alpha_m + alpha_n`` is
      replaced by ``0.0001`` in the weights;
    * @binary_variant@

    Its arithmetic (float32 coordinates, long-double sums) is not copied, nor its ties:
    okl's float64 run follows BudgetedSVM's round for round (scores to its float32
    storage error, ~1e-7) up to the first maintenance step among tied smallest vectors,
    which BudgetedSVM's long-double round-off decides and okl gives to the lowest position
    (rounds 26 to 57 of the test fixtures); where nothing ties (the polynomial kernel's
    removal) okl's model is BudgetedSVM's file to its 10 decimals.

    Epochs: a pass is one ``run`` of the stream; BudgetedSVM's ``-e`` epochs (and the
    paper's Figure 3) are the same stream run again (``t`` continues, as theirs does).
    BudgetedSVM's bias (``-b``) is ignored for BSGD there too; its ``-g`` is okl's
    ``Gaussian(sigma=1/sqrt(g))``.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
        Gaussian for ``maintenance="merging"`` (another kernel is refused, saying why).
    B : int >= 1, default 100
        The budget: support vectors kept after every round.
    lam : float >= 0 or None
        lambda (``None``: 1e-4 for Pegasos and Norma, BudgetedSVM's ``-L`` default; 0 for
        BMP, which refuses another value).
    rule : {"pegasos", "norma", "mp"}, default "pegasos"
    maintenance : {"removal", "projection", "merging"}, default "merging"
    eta : float > 0 or None
        The step of Norma (``eta / sqrt(t)``) and BMP (``eta``); ``None``: 1.0.
    U : float > 0 or None
        BMP's radius (``None``: no ball).
    variant : {"paper", "budgetedsvm"}, default "paper"@classes_param@
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Every round computes one kernel row ``k(x_t, S)`` (@row@) and
    shrinks every coefficient (``O(B)``); the maintenance costs are above.
    ``Trace.losses`` holds the hinge loss of ``w_t``.  ``Trace.extras``: ``maintenance_steps`` and
    ``duplicate_steps`` (cumulative); for this run's steps ``maintenance_rounds``,
    ``maintenance_kinds`` (remove, project, merge, merge-duplicate, remove-duplicate),
    ``degradations`` (``||Delta_t||^2``), ``removal_degradations`` (what removing the
    smallest would have cost; NaN for a duplicate merge) and ``gradient_errors``
    (``||E_t||``); and ``E``, the running average per round of this run.  Oracle:
    ``tests/oracles/bsgd.py`` (``bsgd``, with ``tie_rtol=1e-9``)
    @oracle@.
"""


def _fill(doc, **parts):
    for key, text in parts.items():
        if key == "binary_variant":       # a bullet of the list: wrapped, indented
            text = textwrap.fill(text, width=88, initial_indent="      ",
                                 subsequent_indent="      ").lstrip()
        doc = doc.replace(f"@{key}@", text)
    return doc


# both classes' small instances (the contract suite, the tests, the docs): each rule, each
# maintenance step and BudgetedSVM's variant
_EXAMPLES = [dict(kernel=Gaussian(1.0), B=12, lam=0.01),
             dict(kernel=Gaussian(1.0), B=12, lam=0.01, rule="norma", eta=0.5,
                  maintenance="projection"),
             dict(kernel=Gaussian(1.0), B=12, rule="mp", eta=0.5, U=3.0,
                  maintenance="removal"),
             dict(kernel=Gaussian(1.0), B=12, lam=0.01, variant="budgetedsvm")]


@register_learner(
    paper="bsgd", role="method", task="classification",
    bounds="okl.experiments.bounds.bsgd:bsgd",
    examples=_EXAMPLES)
class BSGD(_BSGDParams, KernelExpansion, OnlineLearner, BSGDCore):
    __doc__ = r"""Budgeted SGD for the binary kernel SVM (BPegasos, BNorma, BMP with
    removal, projection or merging), Wang, Crammer & Vucetic, *Breaking the curse of
    kernelization: budgeted stochastic gradient descent for large-scale SVM training*
    (JMLR 13, 2012).

    ``f = sum_{j in S} alpha_j k(x_j, .)`` with at most ``B`` support vectors; labels in
    {-1, +1}.
""" + _fill(_DOC, 
        loss="``l_t = max(0, 1 - y_t f(x_t))``",
        beta="``beta_t = y_t eta_t``",
        binary_variant="BudgetedSVM runs a binary file as two Crammer-Singer classes; "
        "their model is ``alpha = alpha^(+1) - alpha^(-1)`` here, which evolves as this "
        "binary algorithm at ``lam / 2`` (so ``lam`` is BudgetedSVM's ``-L`` and the rounds "
        "use ``lam / 2``, ``lam_``); the first example's coefficient is ``2 y``, the "
        "degradations are those of this ``alpha`` (twice the two classes'; ``||E_t||`` "
        "``1/sqrt(2)`` of theirs).",
        classes_param="",
        row="``|S| <= B``",
        oracle="with ``binary=True``; the ``\"budgetedsvm\"`` variant against its "
        "two-class\n    run")

    _param_order = ("kernel", "B", "lam", "rule", "maintenance", "eta", "U", "variant",
                    "seed")


@register_learner(
    paper="bsgd", role="method", task="multiclass",
    bounds="okl.experiments.bounds.bsgd:bsgd",
    examples=_EXAMPLES)
class MulticlassBSGD(_BSGDParams, MulticlassLearner, MulticlassBSGDCore):
    __doc__ = r"""Budgeted SGD for the multiclass (Crammer-Singer) kernel SVM, BPegasos,
    BNorma, BMP with removal, projection or merging, Wang, Crammer & Vucetic, *Breaking
    the curse of kernelization* (JMLR 13, 2012), Section 5; BudgetedSVM's
    ``budgetedsvm-train -A 4`` with ``variant="budgetedsvm"``.

    ``f_c = sum_{j in S} A[j, c] k(x_j, .)``, one kernel row a round for all ``K``
    classes; predict the first class of largest score.  Each support vector carries a
    row of coefficients (two nonzero when it joins; projection and merging fill rows
    towards ``K``), and maintenance acts on whole rows.
""" + _fill(_DOC, 
        loss="``l_t = max(0, 1 + f_r(x_t) - f_{y_t}(x_t))``, ``r`` the best-scoring\n"
        "    wrong class (lowest index on ties)",
        beta="the row ``beta_t``: ``+eta_t`` at ``y_t``, ``-eta_t`` at ``r``",
        binary_variant="BudgetedSVM orders the classes by first appearance in the "
        "training file, okl by sorted label (``classes_``), which decides ties and the "
        "first example's second class: the two runs are the same when the labels' "
        "sorted order is their order of appearance (relabel to compare).",
        classes_param="\n    classes : list or None\n        The labels (``None``: those "
        "of the first stream learned).",
        row="``|S| <= B``, whatever ``K``",
        oracle="with ``classes`` sorted")

    classes = MulticlassLearner.classes
    _param_order = ("kernel", "B", "lam", "rule", "maintenance", "eta", "U", "variant",
                    "classes", "seed")

    _state_fields = MulticlassLearner._state_fields + MulticlassBSGDCore._state_fields
