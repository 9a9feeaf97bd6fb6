"""The budgeted multiclass set of LIBOKL's MATLAB toolbox: OGD, RBP, Forgetron, BPAs, BOGD,
FOGD and NOGD as the folder ``multiclass/`` of ``jingcoco/Online-Kernel-Learning`` (the
code of Lu, Hoi, Wang, Zhao & Liu, *Large scale online kernel learning*, JMLR 17(47), 2016,
commit ``fd3d406``) runs them (typed cores: ``okl/learners/_multiclass_budget.pyx`` and
``okl/learners/_multiclass_features.pyx``).

What every learner shares with the toolbox's files (``notes/libokl_multiclass.md``,
section 1): classes ``0 .. K-1`` in the order of ``classes_``; the prediction is the first
class of largest score (MATLAB's ``max``; round 1, all scores 0, predicts the first class);
``s_t`` is the first class of largest score among the classes other than the true one
(on a mistake, the predicted class), and every update is the Crammer-Singer max-score
step: ``+`` on the true class, ``-`` on ``s_t``; ``l_t = max(0, 1 - (f_y(x) - f_{s_t}(x)))``.

Where the toolbox keeps one support list per class (an example stored twice, ``K`` kernel
rows a round), okl keeps one support set with a coefficient per class
(:class:`~okl.learners.multiclass.MulticlassLearner`): the same hypothesis, one kernel row a
round.  Each learner follows the toolbox; its docstring names the binary paper, what the
toolbox does differently, and the option that gives the paper's rule where it is a
one-line difference.  The plain-numpy oracles (``tests/oracles/libokl_multiclass.py``)
reproduce the MATLAB code under Octave round for round; these learners reproduce the
oracles (``tests/test_multiclass_budget.py``).

``Experiment.m``'s parameters are the defaults (``Budget = 200``, ``eta = 0.5``,
``lambda = 1e-5``, ``gamma = inf``, ``C_BPAs = 1``, ``eta_fou = 0.005``,
``D = rou_f Budget = 800``, ``k = 0.2``) except the kernel: okl's default
``Gaussian(1.0)``; ``Experiment.m`` runs ``Gaussian(8.0)`` (``sigma = 8``) on dna and
satimage.
"""
from __future__ import annotations

import math

import numpy as np

from okl._learner import fields
from okl._validation import as_stream, check_decay
from okl.kernels import Gaussian
from okl.learners._multiclass_budget import (MulticlassBOGDCore, MulticlassBPAsCore,
                                             MulticlassForgetronCore, MulticlassOGDCore,
                                             MulticlassRBPCore)
from okl.learners._multiclass_features import MulticlassFOGDCore, MulticlassNOGDCore
from okl.learners.features import _NystromMapView
from okl.learners.multiclass import MulticlassLearner, _WeightVectorModel
from okl.params import INT_MAX, Choice, Int, KernelParam, Real, Seed
from okl.registry import register_learner

__all__ = ["MulticlassOGD", "MulticlassRBP", "MulticlassForgetron", "MulticlassBPAs",
           "MulticlassBOGD", "MulticlassFOGD", "MulticlassNOGD"]

_SHARED = r"""
    Shared with the toolbox: the prediction is the first class of largest score, ``s_t``
    the first class of largest score other than ``y`` (on a mistake, the prediction),
    ``l_t = max(0, 1 - (f_y(x) - f_{s_t}(x)))``; an update puts ``+`` on ``y`` and ``-``
    on ``s_t``.  The toolbox keeps a support list per class (an example stored twice,
    ``K`` kernel rows a round); okl one support set with a coefficient per class: the
    same hypothesis, one kernel row a round."""


def _mround(x: float) -> int:
    """MATLAB's ``round`` of a non-negative number (half away from zero)."""
    return int(math.floor(x + 0.5))


class _MulticlassKernel(MulticlassLearner):
    """Shared surface: the kernel, the rounds at which the support vectors entered."""

    kernel = KernelParam()

    @property
    def support_rounds(self) -> np.ndarray:
        """Round (1-based) at which each support vector entered (the order of
        ``support_vectors``)."""
        return np.empty(0, np.int64) if self.support_set is None else self.support_set.stamps


class _MulticlassBudgeted(_MulticlassKernel):
    """A budget ``B`` of support vectors (role ``budget``), allocated once."""

    B = Int(200, low=1, high=INT_MAX, role="budget")

    def _allocation(self):
        # every core removes before it adds: the support set never holds more than B
        return self.B, False


class _InArrivalOrder(_MulticlassBudgeted):
    """Support vectors kept in slots (a new one takes the slot of the one it replaces);
    the accessors list them oldest first."""

    def _arrival(self) -> np.ndarray:
        return self._order_state() if self.support_set is not None else np.empty(0, int)

    @property
    def support_vectors(self) -> np.ndarray:
        """The support vectors, oldest first."""
        return super().support_vectors[self._arrival()]

    @property
    def coefficients(self) -> np.ndarray:
        """The ``|S| x K`` coefficients, oldest support vector first."""
        A = super().coefficients
        return A[self._arrival()] if A.size else A

    @property
    def support_rounds(self) -> np.ndarray:
        return super().support_rounds[self._arrival()]


# ----------------------------------------------------------------------------------
# OGD
# ----------------------------------------------------------------------------------

@register_learner(
    paper="multiclass", task="multiclass", role="baseline",
    bounds="okl.experiments.bounds.multiclass:ogd",
    examples=[dict(kernel=Gaussian(1.0)), dict(kernel=Gaussian(1.0), eta=0.2, lam=0.01)])
class MulticlassOGD(_MulticlassKernel, MulticlassOGDCore):
    __doc__ = r"""Multiclass kernel online gradient descent, LIBOKL's ``ogd.m`` (the OGD of
    Lu et al., JMLR 17(47), 2016, Experiment.m; the binary algorithm is NORMA, Kivinen,
    Smola & Williamson, *Online learning with kernels*, IEEE TSP 2004).

    Round ``t``: if ``l_t > 0`` (a mistake or a margin error), ``x_t`` joins the support
    set with ``+eta`` on ``y_t`` and ``-eta`` on ``s_t``.  No budget: the support set
    grows with the updates.  Cost: the kernel row and ``O(|S|)`` additions a round.
""" + _SHARED + r"""

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)`` (Experiment.m: ``Gaussian(8.0)``)
    eta : float > 0, default 0.5
        The constant step (``options.eta``).
    lam : float >= 0, default 0.0
        Regularisation: every coefficient decays by ``1 - eta lam`` every round, before
        the step (NORMA's ``(1 - eta lambda) f_t``).  The toolbox has none (``lam = 0``).
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Followed: ``ogd.m``, a constant step and no regularisation, which makes it a
    multiclass Perceptron with margin 1 and step ``eta``; NORMA's decay is the option
    ``lam``.  ``Trace.losses`` holds ``l_t``; ``extras["n_updates"]`` the rounds with
    ``l_t > 0``.  Oracle: ``ogd`` of ``tests/oracles/libokl_multiclass.py``.
    """

    eta = Real(0.5, low=0, low_open=True)
    lam = Real(0.0, low=0)
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "eta", "lam", "classes", "seed")

    def _check_params(self):
        check_decay(self.eta, self.lam)
        super()._check_params()

    _state_fields = MulticlassLearner._state_fields + MulticlassOGDCore._state_fields
    _extras_fields = fields("n_updates")


# ----------------------------------------------------------------------------------
# RBP
# ----------------------------------------------------------------------------------

@register_learner(
    paper="multiclass", task="multiclass", role="baseline",
    bounds="okl.experiments.bounds.multiclass:rbp",
    examples=[dict(kernel=Gaussian(1.0), B=50, seed=3)])
class MulticlassRBP(_InArrivalOrder, MulticlassRBPCore):
    __doc__ = r"""Multiclass Random Budget Perceptron, LIBOKL's ``RBP.m`` (binary algorithm:
    Cavallanti, Cesa-Bianchi & Gentile, *Tracking the best hyperplane with a simple budget
    Perceptron*, Machine Learning 69, 2007).

    On a mistake (``yhat != y_t``): if ``B`` support vectors are held, one of them drawn
    uniformly is removed; then ``x_t`` joins with ``+1`` on ``y_t`` and ``-1`` on ``s_t``.
    Cost: the kernel row and ``O(|S|)`` additions a round; a removal is O(d) (``x_t``
    takes the removed vector's slot).
""" + _SHARED + r"""

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)`` (Experiment.m: ``Gaussian(8.0)``)
    B : int >= 1, default 200
        Budget (``options.Budget``).
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Seeds the removals.

    Notes
    -----
    Followed: ``RBP.m``, which is the paper's rule on the multiclass Perceptron (no
    departure).  Randomness: one draw ``u = uniform()`` of the learner's generator per
    mistake made with ``B`` held (``randperm(B)(1)`` in the toolbox), removing position
    ``floor(u B)`` of the support vectors in order of arrival (the toolbox's
    ``SV_list``; ``support_vectors`` lists them in that order);
    ``np.random.default_rng(seed).random()`` reproduces the draws.  ``Trace.losses``
    holds ``max(0, -margin)``; ``extras["removals"]`` the removals so far.  Oracle:
    ``rbp`` of ``tests/oracles/libokl_multiclass.py``.
    """

    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "B", "classes", "seed")

    _state_fields = MulticlassLearner._state_fields + MulticlassRBPCore._state_fields
    _extras_fields = fields("removals")


# ----------------------------------------------------------------------------------
# Forgetron
# ----------------------------------------------------------------------------------

@register_learner(
    paper="multiclass", task="multiclass", role="baseline",
    bounds="okl.experiments.bounds.multiclass:forgetron",
    examples=[dict(kernel=Gaussian(1.0), B=20), dict(kernel=Gaussian(1.0), B=20, root="paper")])
class MulticlassForgetron(_InArrivalOrder, MulticlassForgetronCore):
    __doc__ = r"""Multiclass self-tuned Forgetron, LIBOKL's ``forgetron.m`` (binary algorithm:
    Dekel, Shalev-Shwartz & Singer, *The Forgetron: a kernel-based Perceptron on a budget*,
    SIAM J. Comput. 37(5), 2008).

    On a mistake, ``M += 1`` and ``x_t`` joins with ``+1`` on ``y_t`` and ``-1`` on
    ``s_t``.  If that makes ``B + 1`` support vectors, with ``r`` the oldest,
    ``mu = f'_{y_r}(x_r)`` (the score of ``r``'s true class by the model with ``x_t``
    added), ``delta = |A[r, y_r]|`` (``r``'s own coefficient) and
    ``a = delta^2 - 2 delta mu``, ``b = 2 delta``, ``c = Q - 15/32 M``: ``phi`` is a root
    of ``a phi^2 + b phi + c`` (1 if ``a + b + c <= 0``; ``root`` says which), every
    coefficient is multiplied by ``phi``, ``Q += (delta phi)^2 + 2 delta phi (1 - phi mu)``
    and ``r`` is removed.  Cost: the kernel row and ``O(|S|)`` additions a round; a
    removal adds the kernel row of ``x_r`` and ``O(|S|)`` (``x_t`` takes ``r``'s slot).
""" + _SHARED + r"""

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)`` (Experiment.m: ``Gaussian(8.0)``)
    B : int >= 1, default 200
        Budget (``options.Budget``).
    root : {"toolbox", "paper"}, default "toolbox"
        ``"toolbox"``: ``forgetron.m``'s quadratic formula, ``(-b + sqrt(b^2 - 4ac)) / 2a``
        for ``a > 0`` and ``(-b - sqrt(b^2 - 4ac)) / 2a`` for ``a < 0`` (with
        ``a == 0``: ``min(1, max(0, -c/b))``); for ``a < 0`` that is the larger root,
        above 1, so the whole model is *scaled up* (``phi`` 32.1 on dna, 57.8 on
        satimage with Experiment.m's settings), ``Q`` then falls far below ``15/32 M``
        and every later ``phi`` is 1 (a remove-the-oldest budget Perceptron).
        ``"paper"``: the paper's ``max{phi in (0, 1] : Q + Psi <= 15/32 M}``, the smallest
        positive root ``-2c / (b + sqrt(b^2 - 4ac))`` whatever the sign of ``a`` (okl's
        binary :class:`~okl.Forgetron`).
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Departures of ``forgetron.m`` from the paper, both followed: (a) ``mu`` is the score
    of ``r``'s true class alone, ``f'_{y_r}(x_r)``, where the binary paper's
    ``mu = y_r f'(x_r)`` would become a margin; (b) the root for ``a < 0`` (``root``).
    ``M`` counts this mistake.  Where ``forgetron.m`` would take the square root of a
    negative number (``a > 0`` and ``Q > 15/32 M``, met only after an up-scaling, and not
    on dna or satimage) MATLAB goes complex; okl takes the real part ``-b / 2a``.
    ``Trace.losses`` holds ``max(0, -margin)``; ``extras``: ``Q``, ``M``, ``removals`` and
    ``upscalings`` (removals with ``phi > 1``).  Oracle: ``forgetron`` of
    ``tests/oracles/libokl_multiclass.py``.
    """

    root = Choice("toolbox", {"toolbox": False, "paper": True}, core="paper_root")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "B", "root", "classes", "seed")

    _state_fields = MulticlassLearner._state_fields + MulticlassForgetronCore._state_fields
    _extras_fields = fields("Q", "M", "removals", "upscalings")


# ----------------------------------------------------------------------------------
# BPAs
# ----------------------------------------------------------------------------------

@register_learner(
    paper="multiclass", task="multiclass", role="baseline",
    bounds="okl.experiments.bounds.multiclass:bpas",
    examples=[dict(kernel=Gaussian(1.0), B=20), dict(kernel=Gaussian(1.0), B=10, C=0.1)],
    aliases=("MulticlassBPA-S",))
class MulticlassBPAs(_MulticlassBudgeted, MulticlassBPAsCore):
    __doc__ = r"""Multiclass budgeted passive-aggressive with simple removal, LIBOKL's
    ``BPAs.m`` (binary algorithm: BPA-S of Wang & Vucetic, *Online passive-aggressive
    algorithms on a budget*, AISTATS 2010).

    If ``l_t > 0``: ``tau = min(C, l_t / (2 k(x_t, x_t)))`` (the multiclass PA-I step:
    ``||phi(x)(e_y - e_s)||^2 = 2 k(x, x)``).  Below the budget ``x_t`` joins with
    ``+tau`` on ``y_t`` and ``-tau`` on ``s_t``.  With ``B`` held, every support vector
    ``r`` (coefficient row ``a_r``) is a candidate to be replaced by ``x_t`` with the row
    ``beta_r = a_r k(x_r, x_t) / k(x_t, x_t) + tau (e_y - e_s)`` (``r``'s contribution
    projected on ``x_t``, plus the PA step), at the cost

    ``Q_r = ||f - f_r||^2 / 2 + C l(f_r; x_t, y_t)``,
    ``||f - f_r||^2 = |a_r|^2 k(x_r, x_r) + |beta_r|^2 k(x_t, x_t) - 2 (a_r . beta_r) k(x_r, x_t)``,

    ``l(f_r)`` the hinge loss of the candidate's scores ``f(x_t) - a_r k(x_r, x_t) +
    beta_r`` (with their own best wrong class); the first ``r`` of least ``Q_r`` is
    replaced in place.  Cost: the kernel row and ``O(K |S|)`` additions a round (rows
    fill up towards ``K`` classes); a budget-full update ``O(K B)`` more, no kernel
    evaluation.
""" + _SHARED + r"""

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)`` (Experiment.m: ``Gaussian(8.0)``)
    B : int >= 1, default 200
        Budget (``options.Budget``).
    C : float > 0, default 1.0
        Aggressiveness (``options.C_BPAs``).
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Followed: ``BPAs.m``, with its constants written for a general kernel: the toolbox
    writes ``l_t / 2``, ``a_r k_rt`` and ``|a_r|^2 + |beta|^2`` (``k(x, x) = 1``); with the
    Gaussian and Laplacian kernels okl's values are the same to the bit.  Departures from
    the binary BPA-S: ``tau`` is fixed before the search (as in BPA-S), and each
    candidate's loss takes its own best wrong class.  Ties in ``Q_r`` go to the first
    support vector, in the order of the toolbox's (a replaced vector keeps its place).
    ``Trace.losses`` holds ``l_t``; ``extras``: ``n_updates`` (rounds with ``l_t > 0``) and
    ``replacements``.  Oracle: ``bpas`` of ``tests/oracles/libokl_multiclass.py``.
    """

    C = Real(1.0, low=0, low_open=True)
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "B", "C", "classes", "seed")

    _state_fields = MulticlassLearner._state_fields + MulticlassBPAsCore._state_fields
    _extras_fields = fields("n_updates", "replacements")


# ----------------------------------------------------------------------------------
# BOGD
# ----------------------------------------------------------------------------------

@register_learner(
    paper="multiclass", task="multiclass", role="baseline",
    bounds="okl.experiments.bounds.multiclass:bogd",
    examples=[dict(kernel=Gaussian(1.0), B=20, lam=0.01),
              dict(kernel=Gaussian(1.0), B=30, eta=0.3, lam=0.01, gamma=1.5,
                   removal="uniform", clip="symmetric", seed=5)])
class MulticlassBOGD(_InArrivalOrder, MulticlassBOGDCore):
    __doc__ = r"""Multiclass budgeted online gradient descent, LIBOKL's ``BOGD.m`` (binary
    algorithm: Zhao, Wang, Wu, Jin & Hoi, *Fast bounded online gradient descent algorithms
    for scalable kernel-based online learning*, ICML 2012).

    Every round every coefficient decays by ``1 - eta lam``.  If ``l_t > 0``: below the
    budget ``x_t`` joins with ``+eta`` on ``y_t`` and ``-eta`` on ``s_t``; with ``B``
    held, one support vector is removed first (``removal``), ``x_t`` joins, and every
    coefficient is clipped at ``eta gamma`` (``clip``).  Cost: the kernel row and
    ``O(|S|)`` a round (the decay included); a removal is O(d) (``x_t`` takes the
    removed vector's slot).
""" + _SHARED + r"""

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)`` (Experiment.m: ``Gaussian(8.0)``)
    B : int >= 1, default 200
        Budget (``options.Budget``).
    eta : float > 0, default 0.5
        Step (``options.eta``).
    lam : float >= 0, default 1e-5
        Regularisation (``options.lambda``), ``eta lam < 1``.
    gamma : float > 0 or None, default None
        Clipping level ``eta gamma`` (``options.gamma = inf``; ``None``: no clipping).
    removal : {"oldest", "uniform"}, default "oldest"
        ``"oldest"`` (the toolbox): the oldest support vector, nothing rescaled.
        ``"uniform"`` (the paper, and the toolbox's binary ``BOGD.m``): a uniformly drawn
        one, the survivors multiplied by ``B / (B - 1)`` (with the decay,
        ``(1 - eta lam) B / (B - 1)``: the unbiased estimate); needs ``B >= 2``.
    clip : {"upper", "symmetric"}, default "upper"
        ``"upper"`` (the toolbox): ``min(a, eta gamma)``, negative coefficients never
        clipped; ``"symmetric"``: to ``[-eta gamma, eta gamma]`` (the paper's
        ``|alpha| <= eta gamma``).  Applied, as in the toolbox, after a removal only.
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Seeds the removals of ``removal="uniform"``.

    Notes
    -----
    Departures of ``BOGD.m`` from the paper, all followed by default: the oldest support
    vector is removed (no draw, no ``B / (B - 1)``), so the multiclass BOGD is a
    deterministic FIFO-budget OGD; the clip is one-sided (``min(alpha, eta gamma)``; the
    binary code rescales all coefficients by ``min(1, eta gamma / max|alpha|)``) and off
    with Experiment.m's ``gamma = inf``.  Randomness (``removal="uniform"`` only): one draw
    ``u = uniform()`` per update with ``B`` held, removing position ``floor(u B)`` in
    order of arrival.  ``Trace.losses`` holds ``l_t``; ``extras``: ``n_updates`` and
    ``removals``.  Oracle: ``bogd`` of ``tests/oracles/libokl_multiclass.py``.
    """

    eta = Real(0.5, low=0, low_open=True)
    lam = Real(1e-5, low=0)
    gamma = Real(None, low=0, low_open=True, none="no clipping (Experiment.m's inf)",
                 core_none=math.inf)
    removal = Choice("oldest", {"oldest": False, "uniform": True}, core="uniform_removal")
    clip = Choice("upper", {"upper": False, "symmetric": True}, core="symmetric")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "B", "eta", "lam", "gamma", "removal", "clip", "classes",
                    "seed")

    def _check_params(self):
        check_decay(self.eta, self.lam)
        if self.removal == "uniform" and self.B < 2:
            raise ValueError(f"removal='uniform' rescales the survivors by B / (B - 1): "
                             f"B must be >= 2, got B={self.B}")
        super()._check_params()

    _state_fields = MulticlassLearner._state_fields + MulticlassBOGDCore._state_fields
    _extras_fields = fields("n_updates", "removals")


# ----------------------------------------------------------------------------------
# FOGD
# ----------------------------------------------------------------------------------

def _check_gaussian(value, name):
    from okl.kernels import check_kernel

    kernel = check_kernel(value, name)
    if kernel is not None and not isinstance(kernel, Gaussian):
        raise ValueError(f"{name} must be a Gaussian kernel (FouGD.m draws the frequencies "
                         f"of exp(-||x - v||^2 / (2 sigma^2))), got {kernel!r}")
    return kernel


class _GaussianKernel(KernelParam):
    def check(self, value):
        return _check_gaussian(value, self.name)

    def describe(self):
        return "an okl Gaussian kernel (None: Gaussian(1.0))"


@register_learner(
    paper="multiclass", task="multiclass", role="method",
    bounds="okl.experiments.bounds.multiclass:fogd",
    examples=[dict(kernel=Gaussian(1.0), D=30, eta=0.05, seed=1),
              dict(kernel=Gaussian(1.0), D=20, eta=0.5, scale="paper", seed=2)])
class MulticlassFOGD(_WeightVectorModel, MulticlassFOGDCore):
    __doc__ = r"""Multiclass Fourier online gradient descent, LIBOKL's ``FouGD.m`` (FOGD of Lu,
    Hoi, Wang, Zhao & Liu, *Large scale online kernel learning*, JMLR 17(47), 2016).

    ``D`` frequencies ``u_i ~ N(0, I / sigma^2)`` (the Gaussian kernel's) are drawn at the
    first example; ``z(x) = [cos(u_1^T x), ..., cos(u_D^T x), sin(u_1^T x), ...,
    sin(u_D^T x)]`` (``2 D`` features), one weight vector ``w_c`` per class from 0, the
    scores ``w_c^T z(x)``; if ``l_t > 0``: ``w_{y_t} += eta z(x_t)``,
    ``w_{s_t} -= eta z(x_t)``.  No support vectors.  Cost: ``d D`` multiply-adds for the
    projections, ``D`` sines and cosines, ``2 D K`` for the scores; an update ``4 D``.
""" + r"""
    Shared with the toolbox: the prediction, ``s_t`` and ``l_t`` of every LIBOKL learner
    (the first class of largest score; the best wrong class; the multiclass hinge loss).

    Parameters
    ----------
    kernel : Gaussian, default ``Gaussian(1.0)`` (Experiment.m: ``Gaussian(8.0)``)
    D : int >= 1, default 800
        Number of frequencies (``round(options.rou_f * options.Budget)`` = 4 x 200).
    eta : float > 0, default 0.005
        Step (``options.eta_fou``).
    scale : {"toolbox", "paper"}, default "toolbox"
        ``"toolbox"``: ``z`` as ``FouGD.m`` computes it, without the paper's
        ``1 / sqrt(D)`` (``z(x)^T z(v) ~ D k(x, v)``: the step is in effect ``eta D``);
        ``"paper"``: ``z / sqrt(D)`` (okl's binary :class:`~okl.FOGD`).
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Seeds the frequencies.

    Notes
    -----
    Randomness: at the first example (when ``d`` is known) ``G =
    rng.standard_normal((D, d)).T`` and ``u = (1 / sigma) G`` (``d x D``, column ``i`` the
    frequency ``u_i``: the toolbox's ``u = (1/options.sigma) * randn(d, D)``), ``rng``
    the learner's generator (``numpy.random.default_rng(seed)``); nothing else is random.
    Sines and cosines: okl's vectorized ``okl_sincos`` (within 1 ulp).  ``Trace.budget``
    is ``D`` (the toolbox records 0 support vectors); ``extras``: ``n_updates`` and ``D``.
    ``frequencies`` is ``u``, ``weights`` the ``K x 2D`` matrix.  Oracle: ``fogd`` of
    ``tests/oracles/libokl_multiclass.py``.
    """

    kernel = _GaussianKernel()
    D = Int(800, low=1, high=2 ** 30 - 1, role="budget")
    eta = Real(0.005, low=0, low_open=True)
    scale = Choice("toolbox", {"toolbox": False, "paper": True}, core="normalized")
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "D", "eta", "scale", "classes", "seed")

    def _core_allocate(self, d, capacity, growable):
        super()._core_allocate(d, capacity, growable)
        sigma = (self.kernel or Gaussian(1.0)).sigma
        G = self._core_state()["rng"].standard_normal((self.D, d)).T
        self._fogd_allocate((1.0 / sigma) * G)

    @property
    def frequencies(self) -> np.ndarray | None:
        """``u`` (``d x D``, column ``i`` the frequency ``u_i``); None before the first
        example."""
        return self._frequencies()

    @property
    def weights(self) -> np.ndarray | None:
        """``W`` (``K x 2D``: row ``c`` the weights of class ``c``, cosines then sines);
        None before the first example."""
        return self._weights_state()

    def transform(self, X) -> np.ndarray:
        """The features ``z(x)`` of each row of ``X`` (``T x 2D``)."""
        if self.n_features is None:
            raise ValueError("MulticlassFOGD draws its frequencies at the first example: "
                             "learn something before transform")
        return self._fogd_transform(as_stream(X, self.n_features))

    _state_fields = MulticlassLearner._state_fields + MulticlassFOGDCore._state_fields
    _extras_fields = fields("n_updates", "D")


# ----------------------------------------------------------------------------------
# NOGD
# ----------------------------------------------------------------------------------

@register_learner(
    paper="multiclass", task="multiclass", role="method",
    bounds="okl.experiments.bounds.multiclass:nogd",
    examples=[dict(kernel=Gaussian(1.0), B=20, eta=0.3),
              dict(kernel=Gaussian(1.0), B=15, k=15, eta=0.2)])
class MulticlassNOGD(_NystromMapView, _MulticlassBudgeted, MulticlassNOGDCore):
    __doc__ = r"""Multiclass Nystrom online gradient descent, LIBOKL's ``NyGD.m`` (NOGD of Lu,
    Hoi, Wang, Zhao & Liu, *Large scale online kernel learning*, JMLR 17(47), 2016).

    Stage 1, kernel OGD: if ``l_t > 0`` and fewer than ``B`` support vectors are held,
    ``x_t`` joins with ``+eta`` on ``y_t`` and ``-eta`` on ``s_t`` (coefficient rows
    ``A``).  The first round with ``l_t > 0`` and ``B`` held (predicted by the kernel
    expansion) builds the map from the Gram matrix ``K_B = V D V^T`` of the ``B`` support
    vectors: its ``k`` largest eigenpairs, ``z(x) = D_k^{-1/2} V_k^T k_S(x)``,
    ``W = A^T pinv(D_k^{-1/2} V_k^T) = A^T V_k D_k^{1/2}`` (the expansion projected on the
    basis); that round's update, and every later one, is stage 2, OGD on ``z``:
    ``l_t > 0``: ``w_{y_t} += eta z(x_t)``, ``w_{s_t} -= eta z(x_t)``.  Cost: stage 1 as
    :class:`MulticlassOGD`; stage 2 the kernel row, one ``k x B`` product and ``K k``
    multiply-adds a round; the switch one ``B x B`` Gram matrix and its top ``k``
    eigenpairs (LAPACK ``dsyevr``).
""" + _SHARED + r"""

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)`` (Experiment.m: ``Gaussian(8.0)``)
    B : int >= 1, default 200
        Budget: the support vectors of stage 1, the landmarks (``options.Budget``).
    k : int or None, default None
        Rank, in ``[1, B]``; ``None`` is ``max(1, round(0.2 B))``, the toolbox's
        ``round(options.k * B)`` with ``options.k = 0.2`` (40 for ``B = 200``).
    eta : float > 0, default 0.5
        Step of both stages (``options.eta``).
    classes : list or None
        The labels (``None``: those of the first stream learned).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Followed: ``NyGD.m``: the landmarks are the first ``B`` examples with a positive loss
    (no sampling), one ``eta`` for both stages, and the map is built lazily at the first
    update with ``B`` held (okl's binary :class:`~okl.NOGD` builds it at the ``B``-th
    addition).  Eigenpairs with ``lambda <= B eps lambda_max`` (numerically zero:
    duplicated landmarks) are dropped, ``r <= k`` kept (``extras["rank"]``), where
    ``eigs`` would divide by them.  ``Trace.budget`` is ``|S|``; ``extras``:
    ``n_updates`` (rounds with ``l_t > 0``, both stages), ``switched``, ``switch_round``
    and ``rank``.  ``coefficients`` are those of the current hypothesis on
    ``support_vectors`` (``A``, then ``M^T W^T``).  Oracle: ``nogd`` of
    ``tests/oracles/libokl_multiclass.py``.
    """

    B = Int(200, low=1, high=2 ** 15, role="budget")
    k = Int(None, low=1, high=INT_MAX, none="max(1, round(0.2 B)), the toolbox's rank",
            core=False)
    eta = Real(0.5, low=0, low_open=True)
    classes = MulticlassLearner.classes
    seed = Seed()
    _param_order = ("kernel", "B", "k", "eta", "classes", "seed")

    _blas_in_round_loop = True    # dgemv with a k x B map every round after the switch

    def _check_params(self):
        if self.k is not None and self.k > self.B:
            raise ValueError(f"k must be in [1, B] = [1, {self.B}], got {self.k}")
        super()._check_params()

    @property
    def k_(self) -> int:
        """The rank in use (``max(1, round(0.2 B))`` when ``k`` is None)."""
        return self.k if self.k is not None else max(1, _mround(0.2 * self.B))

    @property
    def rank_(self) -> int:
        """The rank of the map (``r <= k``; 0 before the switch)."""
        return self.r

    @property
    def coefficients(self) -> np.ndarray:
        """The ``|S| x K`` coefficients of the current hypothesis on ``support_vectors``:
        ``A`` in stage 1, ``M^T W^T`` after the switch."""
        nmap = self._nogd_map()
        if nmap is None:
            return super().coefficients
        M, W, _ = nmap
        return M.T @ W.T

    @property
    def weights(self) -> np.ndarray | None:
        """``W`` (``K x r``) after the switch, else None."""
        nmap = self._nogd_map()
        return None if nmap is None else nmap[1]

    def transform(self, X) -> np.ndarray:
        """The Nystrom features ``z(x)`` of each row of ``X`` (``T x r``), after the
        switch."""
        if self.n_features is None:
            raise ValueError("MulticlassNOGD has no features before its first example")
        with self._okl_lock:
            return self._nogd_transform(as_stream(X, self.n_features))

    _state_fields = MulticlassLearner._state_fields + MulticlassNOGDCore._state_fields
    _extras_fields = fields("n_updates", "switched", "switch_round", ("rank", "r"))
