"""The multiclass Projectron and Projectron++ (Orabona, Keshet & Caputo, JMLR 10, 2009):
multiclass kernel Perceptrons that project the update onto the span of the support set
instead of adding a vector (typed core: ``okl/learners/_multiclass_projectron.pyx``).

One support set, a coefficient per vector and class and one kernel row a round for all
``K`` classes, as every learner of :mod:`okl.learners.multiclass`.
"""
from __future__ import annotations

from okl._learner import fields
from okl.kernels import Gaussian
from okl.learners._multiclass_projectron import MulticlassProjectronCore
from okl.learners.multiclass import MulticlassLearner
from okl.params import Choice, KernelParam, Real, Seed
from okl.registry import register_learner

__all__ = ["MulticlassProjectron", "MulticlassProjectronPP"]


class _MulticlassProjectronBase(MulticlassLearner, MulticlassProjectronCore):
    """Shared surface: parameters, extras, the declared state (the learner's classes and
    coefficients, then the spans' factors)."""

    _blas_in_round_loop = True     # the L^T solve of a projected step (BLAS dtrsv)

    kernel = KernelParam()
    eta = Real(0.1, low=0)
    span = Choice("class", {"class": False, "shared": True}, core="shared")
    convention = Choice("okl", {"okl": False, "dogma": True}, core="dogma")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "eta", "span", "convention", "classes", "seed")

    def _check_params(self):
        if self.convention == "dogma" and self.span == "shared":
            raise ValueError("convention='dogma' is DOGMA's k_projectron2_multi_train, "
                             "whose spans are per class: span must be 'class' with it")
        super()._check_params()

    @property
    def projected_updates(self) -> int:
        """Error rounds that changed the coefficients of the support set without adding a
        vector."""
        return self.n_projected

    @property
    def added_vectors(self) -> int:
        """Instances added to the support set (its size: nothing is ever removed)."""
        return self.n_added

    _state_fields = MulticlassLearner._state_fields + MulticlassProjectronCore._state_fields
    _extras_fields = fields(("projected_updates", "n_projected"),
                            ("added_vectors", "n_added"))


_SPANS_AND_CONVENTIONS = r"""
    The projection.  With the multi-prototype feature map
    ``Phi(x, r) = e_r (x) phi(x)`` the update vector ``Phi(x, y) - Phi(x, s)`` projects
    class by class: ``f_y`` moves by the projection ``P_y k(x, .)`` of ``k(x, .)`` onto
    class ``y``'s span, ``f_s`` by ``-P_s k(x, .)``, and the joint residual is
    ``||delta|| = sqrt(res2_y + res2_s)``, ``res2_r = ||P_r k(x, .) - k(x, .)||^2``.

    * ``span="class"`` (the paper's joint-feature span; DOGMA's layout): class ``r``'s span
      is that of the support vectors whose row gave class ``r`` a full coefficient
      (``members``); one Cholesky factor per class;
    * ``span="shared"``: every class projects onto the span of the whole support set
      (one factor, one projection a round; a vector added serves every class).

    Both keep each ``f_r`` inside the span it is projected on, which is what the mistake
    bound needs; at ``K = 2`` they coincide (every update touches both classes) and
    ``f_1 - f_0`` is the binary :class:`~okl.Projectron` (:class:`~okl.ProjectronPP`)
    on the kernel ``2 k`` with the same ``eta``; for the Projectron, also the binary
    learner on ``k`` itself with ``eta / sqrt(2)``, at twice its score.

    Conventions.  ``convention="okl"`` thresholds the norm of the joint residual with
    ``eta`` (as okl's binary Projectron thresholds ``||delta||``); a class whose own
    ``res2_r <= 1e-10 k(x, x)`` is in its span up to round-off and takes its projected
    step when ``x`` is added (it does not join that class's span).
    ``convention="dogma"`` is Orabona's DOGMA ``k_projectron2_multi_train`` exactly (per
    class spans only): project both classes iff ``res2_y <= eta`` and ``res2_s <= eta``
    (``eta`` bounds each class's *squared* residual), otherwise add ``x``, a class with
    ``res2_r`` below machine epsilon taking its projected step; the margin-error test is
    ``l - (res2_y + res2_s) / (2 eta) > 0``.

    Cost of a round, beside the one kernel row and the scores: on an update round
    ``k(x, x)``, a forward triangular solve per projected class (``c_r = L_r^{-1}
    k_{S_r}(x)``, the columns gathered from the kernel row: no further kernel
    evaluation), a backward solve ``L_r^{-T} c_r`` and ``|S_r|`` coefficient additions per
    projected step, and appending ``[c_r, sqrt(res2_r)]`` to each factor a new vector
    joins.  With ``span="shared"`` one of each serves both classes.  Rows touched by
    projections fill up towards ``K`` classes, so the scores cost up to ``O(K |S|)``
    additions.
"""


@register_learner(
    paper="multiclass", task="multiclass", role="method",
    examples=[dict(kernel=Gaussian(1.0)),
              dict(kernel=Gaussian(1.0), eta=0.3, span="shared"),
              dict(kernel=Gaussian(1.0), eta=0.05, convention="dogma")],
    bounds="okl.experiments.bounds.multiclass:projectron")
class MulticlassProjectron(_MulticlassProjectronBase):
    __doc__ = r"""Multiclass Projectron, Orabona, Keshet & Caputo, *Bounded Kernel-Based
    Online Learning* (JMLR 10, 2009; ICML 2008 *The Projectron*), the multiclass
    extension.

    ``f_c(x) = sum_i A[i, c] k(s_i, x)``; predict the first class of largest score.  On an
    error round, margin ``m = f_y(x) - f_s(x) <= 0`` with ``s`` the best wrong class
    (lowest index on ties):

    * ``||delta|| <= eta``: ``f_y += P_y k(x, .)``, ``f_s -= P_s k(x, .)`` (the
      coefficients of the spans' vectors change; the support set does not);
    * else: ``x`` joins the support set with ``+1`` at ``y`` and ``-1`` at ``s`` (the
      Crammer-Singer max-score step).

    ``eta = 0`` is :class:`~okl.MulticlassPerceptron` (max-score, paper convention) up to
    exact linear dependence.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    eta : float >= 0, default 0.1
        Sparsity: the largest joint residual ``||delta||`` projected (``convention="dogma"``:
        the largest squared residual of each class).
    span : {"class", "shared"}, default "class"
    convention : {"okl", "dogma"}, default "okl"
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----""" + _SPANS_AND_CONVENTIONS + r"""
    ``Trace.losses`` holds ``max(0, -m)``; ``extras`` the counts of projected updates and
    added vectors.  DOGMA has no plain multiclass Projectron; its convention here is its
    Projectron++ without the margin updates.  Oracle:
    ``tests/oracles/multiclass_reference.py`` (``projectron``); the equations and their
    sources: ``notes/multiclass_algorithms.md``, section 4.
    """


@register_learner(
    paper="multiclass", task="multiclass", role="method",
    examples=[dict(kernel=Gaussian(1.0)),
              dict(kernel=Gaussian(1.0), eta=0.3, span="shared"),
              dict(kernel=Gaussian(1.0), eta=0.05, convention="dogma")],
    aliases=("MulticlassProjectron++",),
    bounds="okl.experiments.bounds.multiclass:projectron")
class MulticlassProjectronPP(_MulticlassProjectronBase):
    __doc__ = r"""Multiclass Projectron++, Orabona, Keshet & Caputo (JMLR 10, 2009), the
    multiclass extension: the :class:`MulticlassProjectron` on error rounds, and a
    projected step on margin errors.

    On a margin error, ``0 < m = f_y(x) - f_s(x) < 1``, with ``l = 1 - m`` and
    ``||P u||^2 = ||P_y k(x, .)||^2 + ||P_s k(x, .)||^2``: if ``eta l > ||delta||`` (never
    with ``eta = 0``) and ``||P u||^2 > 0``,
    ``tau = min(l / ||P u||^2, 2 (l - ||delta|| / eta) / ||P u||^2, 1)`` and
    ``f_y += tau P_y k(x, .)``, ``f_s -= tau P_s k(x, .)``; a margin error never adds a
    vector.  The cap ``2 (l - ||delta|| / eta) / ||P u||^2`` keeps
    ``tau (2 l - tau ||P u||^2 - 2 ||delta|| / eta) >= 0``, the per-update condition of
    the mistake bound.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    eta : float >= 0, default 0.1
    span : {"class", "shared"}, default "class"
    convention : {"okl", "dogma"}, default "okl"
    classes : list or None
    seed : int, Generator or None
        Unused (deterministic).

    Notes
    -----""" + _SPANS_AND_CONVENTIONS + r"""
    ``Trace.losses`` holds the multiclass hinge loss ``max(0, 1 - m)``; ``extras`` the
    counts of projected updates, added vectors and margin-error updates.  Oracle:
    ``tests/oracles/multiclass_reference.py`` (``projectron_pp``); with
    ``convention="dogma"`` it matched DOGMA's ``k_projectron2_multi_train`` under Octave.
    """

    def _setup(self):
        self.plus_plus = True
        super()._setup()

    @property
    def margin_updates(self) -> int:
        """Margin-error rounds (``0 < m < 1``) that changed the hypothesis."""
        return self.n_margin

    _extras_fields = _MulticlassProjectronBase._extras_fields + fields(
        ("margin_updates", "n_margin"))
