"""Fixed-budget baselines of Ahpatron (Liao et al., AAAI 2024): Forgetron, RBP, BOGD, BOGD++."""
from __future__ import annotations

import math

import numpy as np

from okl._learner import fields
from okl._validation import check_decay
from okl.kernels import Gaussian
from okl.params import INT_MAX, Choice, Int, KernelParam, Real, Seed
from okl.learners._fixed_budget import BOGDCore, ForgetronCore, NORMAReplaceCore, RBPCore
from okl.learners.base import KernelExpansion, OnlineLearner
from okl.registry import register_learner

__all__ = ["Forgetron", "RBP", "BOGD", "BOGDPP", "NORMAReplace"]


class _Budgeted(KernelExpansion):
    """Shared accessors of the budgeted learners."""

    kernel = KernelParam()
    B = Int(100, low=1, high=INT_MAX, role="budget")

    def _allocation(self):
        # every core removes before it adds: the support set never holds more than B
        return self.B, False

    @property
    def support_rounds(self) -> np.ndarray:
        """Round (1-based) at which each support vector entered (in storage order)."""
        return np.empty(0, np.int64) if self.support_set is None else self.support_set.stamps


@register_learner(
    paper="ahpatron", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), B=12)],
    bounds="okl.experiments.bounds.ahpatron:forgetron")
class Forgetron(_Budgeted, OnlineLearner, ForgetronCore):
    r"""The self-tuned Forgetron, Dekel, Shalev-Shwartz & Singer, *The Forgetron: a
    kernel-based Perceptron on a budget* (SIAM J. Comput. 37(5), 2008; NIPS 2005).

    A kernel Perceptron ``f_t = sum_{i in I_t} sigma_{i,t} y_i k(x_i, .)`` that stores
    at most ``B`` examples.  On a mistake, ``y_t f_t(x_t) <= 0``, set ``M_t = M_{t-1} + 1``
    and ``f'_t = f_t + y_t k(x_t, .)`` (step 1, Perceptron).  If ``|I_t| + 1 <= B``
    that is all.  Otherwise, with ``r_t = min I_t`` the oldest active example,
    ``sigma = sigma_{r_t,t}`` and ``mu_t = y_{r_t} f'_t(x_{r_t})``:

    * step 2, shrinking: ``f''_t = phi_t f'_t`` with the self-tuned coefficient

      ``phi_t = max{phi in (0, 1] : Psi(sigma phi, phi mu_t) + Q_t <= (15/32) M_t}``,

      ``Psi(lambda, mu) = lambda^2 + 2 lambda - 2 lambda mu`` the damage of forgetting
      an example of weight ``lambda`` on which the hypothesis scores ``mu``;
      ``Psi(sigma phi, phi mu_t) + Q_t - 15/32 M_t`` is the quadratic
      ``a phi^2 + b phi + c`` with ``a = sigma^2 - 2 sigma mu_t``, ``b = 2 sigma``,
      ``c = Q_t - 15/32 M_t < 0``, so ``phi_t = 1`` if ``a + b + c <= 0`` and otherwise
      its smallest positive root ``-2c / (b + sqrt(b^2 - 4ac))`` (in (0, 1), whatever
      the sign of ``a``);
    * step 3, removal: ``f_{t+1} = f''_t - sigma phi_t y_{r_t} k(x_{r_t}, .)``, and
      ``Q_{t+1} = Q_t + Psi(sigma phi_t, y_{r_t} f''_t(x_{r_t}))``.

    Every coefficient, the new one included (``sigma_{t,t+1} = phi_t``), is multiplied
    by ``phi_t``.  By construction ``Q_t <= 15/32 M_t`` at all times, the invariant the
    mistake bound ``M <= 4 L_T(g) + 2 ||g||^2`` rests on (for ``B >= 83`` and
    competitors with ``||g|| <= U = sqrt(B + 1) / (4 sqrt(ln(B + 1)))``, the ``U`` of
    eq. (1) of Ahpatron; exposed as ``U_``, not used by the algorithm).

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    B : int >= 1, default 100
        Budget: at most ``B`` support vectors after every round.
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    Followed: the self-tuned Forgetron of the SIAM paper, with the constraint on
    ``phi_t`` solved in closed form as above (the same closed form as the
    implementations in F. Orabona's DOGMA and Sandia's Cognitive Foundry; the
    LIBOL/KOL ``forgetron.m`` uses ``|f'_t(x_r)|`` for ``mu_t`` and the larger root when
    ``a < 0``, both departures from the paper, not followed).  ``M_t``
    counts the current mistake, as the paper's ``M_t = M_{t-1} + 1`` precedes the
    shrinking step.  The support set is always the last ``B`` mistakes, stored in a
    ring: the new example takes the slot of ``r_t``, so forgetting costs O(d); the
    accessors (``support_vectors``, ``coefficients``, ``support_rounds``) list them
    oldest first.
    ``Trace.losses`` holds the Perceptron loss ``max(0, -y_t f_t(x_t))``;
    ``Trace.extras``: ``removals``, ``Q`` and ``M`` (cumulative), and for the run's
    own removals their shrink factors ``phi`` and rounds ``removal_rounds``.
    """

    seed = Seed()

    @property
    def U_(self) -> float:
        """``sqrt(B + 1) / (4 sqrt(ln(B + 1)))``, the comparator radius of the bound."""
        return math.sqrt(self.B + 1) / (4.0 * math.sqrt(math.log(self.B + 1)))

    @property
    def Q_(self) -> float:
        """Accumulated forgetting damage ``Q_t``."""
        return self.Q

    @property
    def M_(self) -> int:
        """Mistakes so far ``M_t``."""
        return self.M

    def _begin_stream(self, n_rounds):
        self._forgetron_begin(n_rounds)

    _extras_fields = fields("Q", "M", "removals")

    def _extras(self):
        extras = super()._extras()
        extras["phi"], extras["removal_rounds"] = self._forgetron_record()
        return extras

    def _arrival_order(self):
        s = self.support_set
        return np.argsort(s.stamps, kind="stable") if s is not None else np.empty(0, int)

    @property
    def support_vectors(self) -> np.ndarray:
        """Support vectors, oldest first (stored in a ring)."""
        return super().support_vectors[self._arrival_order()]

    @property
    def coefficients(self) -> np.ndarray:
        return super().coefficients[self._arrival_order()]

    @property
    def support_rounds(self) -> np.ndarray:
        return super().support_rounds[self._arrival_order()]


@register_learner(
    paper="ahpatron", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), B=12, seed=3)],
    bounds="okl.experiments.bounds.ahpatron:rbp")
class RBP(_Budgeted, OnlineLearner, RBPCore):
    r"""Random Budget Perceptron, Cavallanti, Cesa-Bianchi & Gentile, *Tracking the best
    hyperplane with a simple budget Perceptron* (Machine Learning 69, 2007; COLT 2006).

    The kernel Perceptron with coefficients ``y_i``: on a mistake, ``y_t f_t(x_t) <= 0``,
    if the support set already holds ``B`` vectors one of them, drawn uniformly at
    random, is discarded; then ``(x_t, y_t)`` is added.  Its expected mistake bound is
    eq. (2) of Ahpatron.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    B : int >= 1, default 100
        Budget.
    seed : int, Generator or None
        Seeds the removals.

    Notes
    -----
    Randomness: exactly one draw ``u = uniform()`` from the learner's generator per
    mistake made with a full support set (``|S_t| = B``), taken before the removal;
    no draw otherwise.  The removed vector is the one in slot ``floor(u B)`` of the
    support set (storage order, see ``support_rounds``), and the new example takes
    its slot (O(d), no shifting).  ``np.random.default_rng(seed).random()``
    reproduces the draws.  ``Trace.losses`` holds ``max(0, -y_t f_t(x_t))``;
    ``Trace.extras["removals"]`` the removals so far.
    """

    seed = Seed()

    _extras_fields = RBPCore._state_fields


_BOGD_DOC_COMMON = r"""
    Kernel online gradient descent on the regularized hinge loss
    ``lam/2 ||f||^2 + max(0, 1 - y f(x))`` with a constant step ``eta``
    (Zhao, Wang, Wu, Jin & Hoi, *Fast bounded online gradient descent algorithms for
    scalable kernel-based online learning*, ICML 2012).  Round ``t``:

    * ``y_t f_t(x_t) >= 1`` (no loss): ``f_{t+1} = (1 - eta lam) f_t``;
    * otherwise, if ``|S_t| < B``: ``f_{t+1} = (1 - eta lam) f_t + eta y_t k(x_t, .)``;
    * otherwise (budget maintenance) one support vector ``k`` is removed at random
      with probability ``p_k`` and every survivor ``j`` is divided by ``1 - p_j``, so
      that the truncated hypothesis is an unbiased estimate of ``f_t``
      (``E[f_hat] = sum_k p_k sum_{j != k} alpha_j / (1 - p_j) k_j = f_t``):
      ``f_{t+1} = (1 - eta lam) f_hat_t + eta y_t k(x_t, .)``.

    Every coefficient the round writes is clipped to ``|alpha| <= eta gamma``, the
    bound on the coefficients of the paper (its ``gamma``, grid ``2^{0..4}``);
    ``gamma=None`` disables the clip (the pure unbiased estimator).  With the
    defaults ``lam = 0, gamma = 1`` (the Ahpatron runs' setting) every reweighted
    survivor exceeds ``eta`` and is clipped back to it: all coefficients stay
    ``+-eta`` and BOGD and BOGD++ both reduce to uniform random removal.

    Sources: the ICML text itself was not available; the update, the unbiased
    reweighting, the ``eta gamma`` clip and the BOGD++ probabilities below are those
    shared by three public implementations (JSAT's ``BOGD``, ai-on-browser's
    ``bogd.js`` and the Ahpatron authors' ``BOGD++.R``), and agree with the
    unbiasedness argument.  The LIBOL/KOL toolbox instead rescales *all*
    coefficients by ``min(1, eta gamma / max|alpha|)``; the element-wise clip is used.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    B : int >= 1, default 100
        Budget.
    eta : float > 0, default 1.0
        Step size (the paper's grid is ``2^{-3..3}``; Ahpatron tunes
        ``10^{-3..3} / sqrt(T)``).
    lam : float >= 0, default 0.0
        Regularization, with ``eta lam < 1``.  The paper's grid ``2^{-3..3} / T^2``
        (``8 / T^2`` in the Ahpatron authors' runs) is below ``1e-6`` for ``T >= 3000``;
        0 is its limit.
    gamma : float > 0 or None, default 1.0
        Coefficient bound ``eta gamma`` (``2^0``, the value of the Ahpatron runs).
    clip : {"element", "rescale"}, default "element"
        How the bound is kept (BOGD only; BOGD++ clips element-wise): ``"element"``
        clips every coefficient written to ``[-eta gamma, eta gamma]``; ``"rescale"`` is
        the LIBOL rule that ``table5/BOGD.R`` and ``table7/BOGD.R`` of the kernel-selection
        paper of Li & Liao run: after a removal every coefficient is multiplied by
        ``min(1, eta gamma / max_j |alpha_j|)``, nothing is clipped otherwise (reproduced
        round for round by ``tests/test_selection_experiments.py`` on
        ``tests/fixtures/r/selection/r_bogd.csv``).
    seed : int, Generator or None
        Seeds the removals.
"""


@register_learner(
    paper="ahpatron", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), B=12, eta=0.5, lam=0.01, seed=4)],
    bounds="okl.experiments.bounds.ahpatron:bogd")
class BOGD(_Budgeted, OnlineLearner, BOGDCore):
    __doc__ = (r"""BOGD: bounded online gradient descent with uniform removal.
""" + _BOGD_DOC_COMMON + r"""
    Notes
    -----
    BOGD removes a support vector drawn uniformly, ``p_k = 1/B``, and multiplies the
    survivors by ``B / (B - 1)`` (with the decay, ``(1 - eta lam) B / (B - 1)``).
    Randomness: exactly one draw ``u = uniform()`` per round with positive hinge loss
    and a full support set, taken before the removal; the removed index is
    ``floor(u B)`` in storage order, and the new example takes that slot.
    ``Trace.losses`` holds the
    hinge loss ``max(0, 1 - y_t f_t(x_t))``; ``Trace.extras``: ``removals`` and
    ``n_updates`` (rounds with positive hinge loss), cumulative.
    """)

    _nonuniform = False

    eta = Real(1.0, low=0, low_open=True)
    lam = Real(0.0, low=0)
    gamma = Real(1.0, low=0, low_open=True, none="no clip", core_none=math.inf)
    clip = Choice("element", {"element": False, "rescale": True}, core="rescale")
    seed = Seed()

    def _check_params(self):
        check_decay(self.eta, self.lam)
        if self.clip == "rescale" and self._nonuniform:
            raise ValueError("clip='rescale' is BOGD's (the R code's); BOGD++ clips "
                             "element-wise")

    _extras_fields = BOGDCore._state_fields

    def removal_probabilities(self) -> np.ndarray:
        """Probabilities ``p_j`` with which the next budget maintenance would remove
        each current support vector (in the order of ``support_vectors``)."""
        return self._removal_probabilities()


@register_learner(
    paper="ahpatron", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), B=12, eta=0.5, lam=0.01, gamma=None, seed=5)],
    bounds="okl.experiments.bounds.ahpatron:bogd", aliases=("BOGD++",))
class BOGDPP(BOGD):
    __doc__ = (r"""BOGD++: bounded online gradient descent with non-uniform removal.
""" + _BOGD_DOC_COMMON + r"""
    Notes
    -----
    BOGD++ removes support vectors of small weight preferentially: with
    ``w_j = |alpha_j| sqrt(k(x_j, x_j))`` (``|alpha_j| ||k(x_j, .)||_H``) and
    ``W = sum_i w_i``,

    ``p_j = 1 - (B - 1) w_j / W``,   survivors ``alpha_j <- (1 - eta lam) alpha_j / (1 - p_j)``,

    i.e. survival probabilities ``1 - p_j`` proportional to ``w_j``, the choice that
    minimizes the variance proxy ``sum_j w_j^2 / (1 - p_j)`` of the unbiased estimate
    under ``sum_j p_j = 1`` (the formula of the reference implementations: JSAT's
    ``BOGD``, and the Ahpatron authors' ``BOGD++.R``).  The paper leaves open the
    case ``(B - 1) w_j > W``, where that ``p_j`` is negative; there the same variance
    minimization with ``p_j >= 0`` is solved: ``1 - p_j = min(1, c w_j)`` with ``c``
    such that ``sum_j (1 - p_j) = B - 1`` (water filling; it reduces to the formula
    above whenever that is a distribution).  A support vector with ``w_j = 0`` is
    removed with certainty (the first one if several; ``f`` is unchanged, survivors
    only decay).  All ``p_j < 1`` otherwise, so the estimate stays unbiased.

    Randomness: exactly one draw ``u = uniform()`` per round with positive hinge loss
    and a full support set, taken before the removal; the removed index is the
    smallest ``k`` with ``u sum_j p_j < p_0 + ... + p_k`` (inverse CDF over the
    support vectors in storage order), and the new example takes slot ``k``.  The Ahpatron authors' R code divides every
    survivor by ``1 - p_k`` of the *removed* vector, which is not unbiased; the
    per-survivor ``1 - p_j`` (JSAT, and the unbiasedness argument) is implemented.
    ``Trace.losses`` holds the hinge loss; ``Trace.extras``: ``removals`` and
    ``n_updates``, cumulative.
    """)

    _nonuniform = True


@register_learner(
    paper="selection", role="baseline", task="regression",
    examples=[dict(kernel=Gaussian(1.0), B=12, eta=0.2, lam=0.1)],
    bounds="okl.experiments.bounds.selection:normareplace")
class NORMAReplace(_Budgeted, OnlineLearner, NORMAReplaceCore):
    r"""NORMA with the nu-epsilon-insensitive loss on a budget of ``B`` support vectors
    with a cyclic replacement pointer: the single-kernel regression baseline of Li & Liao,
    *Online kernel selection with computational constraints* (Tables 4 and 6),
    as the authors' ``table4/NORMA.R`` and ``table6/NORMA.R`` run it (Kivinen, Smola &
    Williamson 2004, Sec. IV: the nu-trick for the epsilon-insensitive loss).

    With ``f_1 = 0`` and ``epsilon_1 = epsilon``, round ``t``: every coefficient decays,
    ``alpha <- (1 - eta lam) alpha``; if ``|f_t(x_t) - y_t| > epsilon_t``, ``x_t`` is
    stored with ``alpha_t = -eta sgn(f_t(x_t) - y_t)`` -- appended while fewer than ``B``
    are stored, otherwise written over the slot of the pointer, which then advances --
    and ``epsilon_{t+1} = epsilon_t + (1 - nu) eta``; otherwise ``epsilon_{t+1} =
    epsilon_t - nu eta``.

    The budget counts *updates*; ``okl.learners.NORMA(tau=B)`` truncates to the terms
    of the last ``B`` *rounds* (Kivinen et al.'s truncation), which keeps fewer.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    B : int >= 2, default 200
    eta : float > 0, default 0.05
        Step (the R code: ``5 / sqrt(T)``).
    lam : float >= 0, default 0.1
        Regularization (the R code's 0.1), ``eta lam < 1``.
    nu : float in [0, 1], default 0.5
    epsilon : float >= 0, default 0.001
        ``epsilon_1``.
    cycle : {"r", "all"}, default "r"
        ``"r"``: the pointer cycles over the slots ``1 .. B - 1`` (the R code resets it
        when it reaches ``B``, so the ``B``-th stored example is never replaced and only
        decays); ``"all"``: over all ``B`` slots (the oldest update is replaced, a FIFO).

    Notes
    -----
    Deterministic.  ``Trace.losses`` holds ``|f_t(x_t) - y_t|``; ``Trace.extras``:
    ``epsilon`` (``epsilon_{T+1}``), ``pointer``, ``n_updates``, ``replacements``.
    Reproduced round for round by ``tests/test_selection_experiments.py`` on
    ``tests/fixtures/r/selection/r_norma.csv``.
    """

    B = Int(200, low=2, high=INT_MAX, role="budget")
    eta = Real(0.05, low=0, low_open=True)
    lam = Real(0.1, low=0)
    nu = Real(0.5, low=0, high=1)
    epsilon = Real(0.001, low=0)
    cycle = Choice("r", {"r": False, "all": True}, core="cycle_all")
    seed = Seed()

    def _check_params(self):
        check_decay(self.eta, self.lam)

    def _classifies(self):
        return False

    _extras_fields = NORMAReplaceCore._state_fields
