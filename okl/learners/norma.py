"""NORMA: the family of Kivinen, Smola & Williamson (2004)."""
from __future__ import annotations


import numpy as np

from okl._learner import fields
from okl._validation import check_decay
from okl.kernels import Gaussian
from okl.learners._norma import NORMACore
from okl.learners.base import KernelExpansion, OnlineLearner
from okl.params import Choice, Flag, Int, KernelParam, Real, Seed
from okl.registry import register_learner

__all__ = ["NORMA"]

_LOSSES = {"soft_margin": 0, "nu_classification": 1, "novelty": 2, "squared": 3,
           "nu_epsilon": 4, "huber": 5, "huber_adaptive": 6}
_CLASSIFICATION = {"soft_margin", "nu_classification"}
_NU_LOSSES = {"nu_classification", "novelty", "nu_epsilon", "huber_adaptive"}


@register_learner(
    paper="norma", task="both",
    examples=[dict(kernel=Gaussian(1.0), tau=40, lam=0.1, offset=True),
              dict(kernel=Gaussian(1.0), loss="nu_epsilon", nu=0.3, schedule="sqrt",
                   track_norm=True)],
    bounds="okl.experiments.bounds.norma:norma")
class NORMA(KernelExpansion, OnlineLearner, NORMACore):
    r"""NORMA, Kivinen, Smola & Williamson, *Online Learning with Kernels* (IEEE TSP 2004).

    Stochastic gradient descent on the regularized instantaneous risk,
    eq. (9): ``f_{t+1} = (1 - eta_t lam) f_t - eta_t l'(f_t(x_t), y_t) k(x_t, .)``,
    i.e. the new coefficient ``alpha_t = -eta_t l'`` (11) and the decay of the
    old ones (12), with the loss-specific extra variables of Sec. III:

    ========================  =====================================================
    ``loss``                  update (Sec. III)
    ========================  =====================================================
    ``"soft_margin"``         ``max(0, rho - y g(x))``, (13)-(18); margin error iff
                              ``y g(x) <= rho``; offset ``b`` with ``offset=True`` (16).
                              ``rho = lam = 0`` is the kernel Perceptron.
    ``"nu_classification"``   (19): ``max(0, rho - y g) - nu rho`` with adaptive
                              ``rho <- rho + eta (nu - sigma_t)``.
    ``"novelty"``             (20): ``max(0, rho - f(x)) - nu rho``, no labels; alert
                              iff ``f(x) < rho``; the score is ``f(x) - rho`` (see Notes
                              on the sign of the ``rho`` step).
    ``"squared"``             (21): ``(y - f)^2 / 2``.
    ``"nu_epsilon"``          (22): ``max(0, |y - f| - eps) + nu eps``, adaptive eps.
    ``"huber"``               (23)-(24) with fixed ``sigma``.
    ``"huber_adaptive"``      the adaptive-``sigma`` update after (24).
    ========================  =====================================================

    Truncation keeps the terms of the last ``tau`` rounds (Fig. 1, Prop. 1); with a
    constant rate the coefficients use the cached power series
    ``beta_j = (1 - lam eta)^j`` of Fig. 1, otherwise the rescaling trick of
    Sec. II-D (a running scale folded into the coefficients before it
    underflows), so long streams neither overflow nor underflow.
    ``tau_power=eps`` gives the growing window of Theorem 6: ``s_t = t`` for
    ``t <= tau_t0`` and ``ceil(t^(1/2 + eps))`` after.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    loss : str, default "soft_margin"
    eta : float, default 0.5
        Learning rate ``> 0``; the paper needs ``eta_t < 1/lam`` (here ``eta lam < 1``).
    schedule : {"constant", "sqrt"}, default "constant"
        ``eta_t = eta`` or ``eta / sqrt(t)`` (Theorems 4 and 6; Fig. 3).
    lam : float, default 0.01
        Regularization ``lambda >= 0`` (the paper sets 1 for the nu-losses, novelty
        and Huber; pass ``lam=1.0`` to reproduce that).
    rho : float, default 1.0
        Margin ``rho >= 0`` of the soft margin loss; the initial ``rho`` of the
        nu-classification and novelty losses.
    nu : float, default 0.5
        ``nu`` in (0, 1] of the nu-losses (fraction of margin errors / outliers).
    epsilon : float, default 0.0
        Initial insensitivity of ``"nu_epsilon"`` (adapted as in (22), unclamped
        like the paper's rule).
    sigma : float, default 1.0
        Huber threshold ``> 0`` (initial value for ``"huber_adaptive"``).
    offset : bool, default False
        Learn the offset ``b`` of ``g = f + b`` (classification losses), (16);
        the analysis of Secs. IV-V omits it.
    tau : int or None, default None
        Keep only the last ``tau`` rounds' terms (``None``: no truncation).
    tau_power, tau_t0 : float in (0, 1/2) and int, optional
        Theorem 6's growing window (exclusive with ``tau``).
    track_norm : bool, default False
        Record ``||f_t||_H^2`` of the hypothesis used at each round in
        ``extras["norm_sq"]`` (the regularized risk of Theorems 4 and 6), by the
        exact recursion ``||c f + a k_x||^2 = c^2 ||f||^2 + 2 c a f(x) + a^2 k(x, x)``;
        each truncated term costs one extra kernel row.
    seed : int, Generator or None
        Unused (deterministic).

    Notes
    -----
    Eq. (20) prints ``rho + eta (1 - nu)`` after an alert and ``rho - eta nu``
    otherwise.  Gradient descent on the loss it states, ``max(0, rho - f(x)) - nu rho``
    (whose ``rho``-derivative is ``1 - nu`` after an alert and ``-nu`` otherwise), and
    the paper's own remark that "only a fraction nu of the observations will be
    considered for updates" both need the opposite signs: with the printed ones
    the fraction-``nu`` fixed point is unstable and ``rho`` grows without bound
    once ``f(x) < rho`` everywhere.  The gradient step is implemented, as in
    (19) for nu-classification, whose printed signs are the gradient's.
    Eq. (24) prints ``sigma^{-1} delta_t`` as the new coefficient inside the
    Huber zone; the general rule (11) ``alpha_t = -eta_t l'`` gives
    ``eta_t delta_t / sigma``, which is what is implemented (the two agree at the
    zone's edge, where (24)'s other branch gives ``eta sgn delta``).
    ``extras`` holds the final ``b``, ``rho``, ``epsilon``, ``sigma`` and
    ``n_updates`` (rounds with a non-zero loss gradient, the margin errors
    ``M_rho`` of (26) for the classification losses).
    """

    kernel = KernelParam()
    loss = Choice("soft_margin", _LOSSES, core="loss_kind")
    eta = Real(0.5, low=0, low_open=True)
    schedule = Choice("constant", {"constant": False, "sqrt": True}, core="sqrt_schedule")
    lam = Real(0.01, low=0)
    rho = Real(1.0, low=0)
    nu = Real(0.5, low=0, high=1, low_open=True)
    epsilon = Real(0.0, low=0)
    sigma = Real(1.0, low=0, low_open=True)         # the Huber threshold, not a kernel width
    offset = Flag(False)
    tau = Int(None, low=1, none="no fixed window (no truncation, unless tau_power)", core=False)
    tau_power = Real(None, low=0, high=0.5, low_open=True, high_open=True,
                     none="no growing window")
    tau_t0 = Int(0, low=0, core="t0")
    track_norm = Flag(False)
    seed = Seed()

    def _check_params(self):
        check_decay(self.eta, self.lam)
        if self.offset and self.loss not in _CLASSIFICATION:
            raise ValueError(f"offset applies to the classification losses "
                             f"{sorted(_CLASSIFICATION)}, not to loss={self.loss!r}")
        if self.tau is not None and self.tau_power is not None:
            raise ValueError("tau and tau_power are exclusive: a fixed window or Theorem 6's "
                             "growing one")

    def _classifies(self):
        return self.loss in _CLASSIFICATION

    @property
    def needs_labels(self) -> bool:
        return self.loss != "novelty"

    def _allocation(self):
        if self.tau is not None:
            return self.tau, False  # the window is the budget: never exceeded
        return 64, True

    @property
    def coefficients(self) -> np.ndarray:
        """Coefficients of the current hypothesis on ``support_vectors`` (decay applied)."""
        return self._true_coefficients()

    @property
    def support_rounds(self) -> np.ndarray:
        """Round (1-based) at which each support vector entered."""
        return np.empty(0, np.int64) if self.support_set is None else self.support_set.stamps

    @property
    def offset_(self) -> float:
        return self.b

    @property
    def epsilon_(self) -> float:
        return self.eps

    def _begin_stream(self, n_rounds):
        self._norma_begin(n_rounds)

    _extras_fields = fields("b", ("rho", "rho_"), ("epsilon", "eps"), ("sigma", "sigma_"),
                            "n_updates")

    def _extras(self):
        extras = super()._extras()
        if self.track_norm:
            extras["norm_sq"] = self._norma_norms().copy()
        return extras
