"""The Projectron and Projectron++: Perceptrons that project instead of adding."""
from __future__ import annotations

from okl._learner import fields
from okl.kernels import Gaussian
from okl.params import Choice, KernelParam, Real, Seed
from okl.learners._projectron import ProjectronCore
from okl.learners.base import KernelExpansion, OnlineLearner
from okl.registry import register_learner

__all__ = ["Projectron", "ProjectronPP"]

# margin rules of the core (okl/learners/_projectron.pyx): the Projectron's is
# _MARGIN_NONE (the core's default), ProjectronPP's margin_update chooses the others
_MARGIN_NONE, _MARGIN_PAPER, _MARGIN_FULL = 0, 1, 2
_MARGIN_UPDATES = {"paper": _MARGIN_PAPER, "full": _MARGIN_FULL}


class _ProjectronBase(KernelExpansion, OnlineLearner, ProjectronCore):
    """Shared surface: unbudgeted (growable) support set, extras, pickling."""

    _blas_in_round_loop = True  # triangular solves against the dictionary's factor

    kernel = KernelParam()
    eta = Real(0.1, low=0)

    def _allocation(self):
        return 64, True     # no budget: S grows whenever ||delta_t|| > eta

    @property
    def projected_updates(self) -> int:
        """Updates that changed the coefficients of S without adding a vector."""
        return self.n_projected

    @property
    def added_vectors(self) -> int:
        """Instances added to S (equals the active-set size: nothing is ever removed)."""
        return self.n_added

    _extras_fields = fields(("projected_updates", "n_projected"), ("added_vectors", "n_added"))


@register_learner(
    paper="ahpatron", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), eta=0.1)],
    bounds="okl.experiments.bounds.ahpatron:projectron")
class Projectron(_ProjectronBase):
    r"""The Projectron of Orabona, Keshet & Caputo, *The Projectron: a bounded
    kernel-based Perceptron* (ICML 2008) and *Bounded Kernel-Based Online Learning*
    (JMLR 10, 2009); a baseline of Table 2 of Liao et al., *Ahpatron* (AAAI 2024),
    with ``eta`` in {0.1, 0.9}.

    With ``S_0 = {}`` and ``f_0 = 0``, on round ``t`` predict ``sign(f_{t-1}(x_t))``;
    on a mistake, ``y_t f_{t-1}(x_t) <= 0``, let ``P_{t-1}`` be the projection onto
    ``span{k(x_i, .): i in S_{t-1}}`` and ``delta_t = P_{t-1} k(x_t, .) - k(x_t, .)``;

    * if ``||delta_t|| <= eta``: ``f_t = f_{t-1} + y_t P_{t-1} k(x_t, .)``, ``S_t = S_{t-1}``;
    * else: ``f_t = f_{t-1} + y_t k(x_t, .)``, ``S_t = S_{t-1} + {t}`` (the Perceptron step).

    In coefficients, with ``k = k_S(x_t)``: ``d* = K_S^{-1} k``,
    ``||delta_t||^2 = k(x_t, x_t) - k^T d*``, and the projected step adds ``y_t d*``
    to the coefficients of S.  ``eta`` thresholds the norm ``||delta_t||``, not its
    square: the mistake bound needs ``y_t <g, delta_t> >= -eta ||g||``; so do JSAT,
    the Cognitive Foundry and the Ahpatron authors' ``Projectron.R`` (Orabona's
    MATLAB DOGMA compares the squared residual with ``eta``).  The paper's text was
    not at hand: the rule and the defaults follow those implementations, which agree.

    The paper keeps ``K_S^{-1}`` by the block-inverse update.  Here ``K_S = L L^T`` is
    kept by its Cholesky factor (``okl.GramCholesky``): ``c = L^{-1} k`` gives
    ``||delta_t||^2 = k(x_t, x_t) - ||c||^2``, ``d* = L^{-T} c``, and adding ``x_t``
    appends the row ``[c^T, ||delta_t||]`` -- the same quantities, also ``O(|S|^2)`` per
    update, without the drift of an explicit inverse.  On a 5000-round XOR stream
    (Gaussian, sigma = 1, d = 4) the inverse update reached
    ``max|K^{-1} K - I| = 7e-6`` at ``eta = 0.01`` and ``2e5`` at ``eta = 0`` (where it
    no longer reproduced the Perceptron), against ``||L L^T - K|| ~ 1e-15`` here.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    eta : float >= 0, default 0.1
        Sparsity: a mistaken instance is projected when its distance to the span of
        S is at most ``eta``.  ``eta = 0`` is the kernel Perceptron (up to exact
        linear dependence, below); larger ``eta`` gives a smaller S.  If
        ``k(x, x) <= eta^2`` for every x (e.g. a Gaussian kernel and ``eta >= 1``)
        nothing is ever added: the empty span projects every mistake to 0.
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    A residual ``||delta_t||^2 <= 1e-10 k(x_t, x_t)`` counts as 0 (``x_t`` is linearly
    dependent on S up to round-off; adding it would make ``K_S`` singular).  This
    only matters when ``eta^2 < 1e-10 k(x_t, x_t)``, e.g. ``eta = 0``: a repeated
    point is then projected (its coefficient grows) where the Perceptron adds a copy
    -- the same hypothesis with fewer vectors.  ``Trace.losses`` holds
    ``max(0, -y_t f_{t-1}(x_t))``; ``Trace.budget`` the size of S; ``extras`` the
    counts of projected updates and added vectors.
    """

    seed = Seed()


@register_learner(
    paper="ahpatron", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), eta=0.3)],
    bounds="okl.experiments.bounds.ahpatron:projectron", aliases=("Projectron++",))
class ProjectronPP(_ProjectronBase):
    r"""Projectron++ of Orabona, Keshet & Caputo (ICML 2008; JMLR 10, 2009,
    "Projectron++"); a baseline of Table 2 of Liao et al., *Ahpatron* (AAAI 2024).

    On a mistake, ``y_t f_{t-1}(x_t) <= 0``, the Projectron step (see
    :class:`Projectron`).  On a margin error, ``0 < y_t f_{t-1}(x_t) < 1``, with the
    hinge loss ``l_t = 1 - y_t f_{t-1}(x_t)``, ``delta_t`` as in the Projectron and
    ``P = P_{t-1} k(x_t, .)`` (``||P||^2 = k_S(x_t)^T d*``):

    * if ``l_t > ||delta_t|| / eta``:
      ``tau_t = min(l_t / ||P||^2, 2 (l_t - ||delta_t|| / eta) / ||P||^2, 1)`` and
      ``f_t = f_{t-1} + y_t tau_t P``, i.e. the coefficients of S grow by
      ``y_t tau_t d*``; S is unchanged;
    * else nothing.

    A margin error never adds a vector.  The cap
    ``tau_t <= 2 (l_t - ||delta_t||/eta)/||P||^2`` keeps
    ``tau_t (2 l_t - tau_t ||P||^2 - 2 ||delta_t|| / eta) >= 0``, the per-update gain
    in the Projectron++ mistake bound.  The condition is tested as
    ``eta l_t > ||delta_t||`` (the same for ``eta > 0``; with ``eta = 0`` margin errors
    never update); at equality ``tau_t`` would be 0, so nothing is lost.  The paper's
    text was not at hand: the rule and ``tau_t`` are those of Orabona's DOGMA
    (``k_projectron2_train.m``) and of the Cognitive Foundry, which agree (JSAT's
    ``max`` in place of ``min`` is a bug there), with the norm ``||delta_t||`` as in
    :class:`Projectron`.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    eta : float >= 0, default 0.1
        Sparsity threshold on ``||delta_t||``, as in :class:`Projectron`.
    margin_update : {"paper", "full"}, default "paper"
        ``"paper"``: the projected margin-error step above.  ``"full"``: every round
        with ``y_t f_{t-1}(x_t) < 1`` takes the Projectron step (project with unit
        step if ``||delta_t|| <= eta``, else add ``x_t``) -- what the Ahpatron
        authors' released ``Projectron++.R`` does, and why their Projectron++
        supports are so large in Table 2.  Not the published algorithm.
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    ``Trace.losses`` holds the hinge loss ``max(0, 1 - y_t f_{t-1}(x_t))``;
    ``extras`` the counts of projected updates (on mistakes; with ``"full"`` on any
    round that projects), added vectors and margin-error updates.  The residual
    threshold of :class:`Projectron` applies.
    """

    margin_update = Choice("paper", _MARGIN_UPDATES, core="margin")
    seed = Seed()

    @property
    def margin_updates(self) -> int:
        """Margin-error rounds (``0 < y f < 1``) that changed the hypothesis."""
        return self.n_margin

    _extras_fields = _ProjectronBase._extras_fields + fields(("margin_updates", "n_margin"))
