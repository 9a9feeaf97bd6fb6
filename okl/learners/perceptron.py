"""The kernel Perceptron and kernel online gradient descent (no budget)."""
from __future__ import annotations

import numpy as np

from okl._validation import CLASSIFICATION_LOSSES, LOSS_CODES, check_decay
from okl.kernels import Gaussian, Laplacian
from okl.params import Choice, KernelParam, Real, Seed
from okl.learners._perceptron import KernelOGDCore, PerceptronCore
from okl.learners.base import KernelExpansion, OnlineLearner
from okl.registry import register_learner

__all__ = ["Perceptron", "KernelOGD"]


@register_learner(
    paper="ahpatron", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0))],
    bounds="okl.experiments.bounds.ahpatron:perceptron")
class Perceptron(KernelExpansion, OnlineLearner, PerceptronCore):
    """Kernel Perceptron (Rosenblatt 1958; Freund & Schapire 1999).

    On round ``t`` predict ``sign(f_t(x_t))`` with
    ``f_t = sum_{i in S_t} y_i k(x_i, .)``; on a mistake, ``y_t f_t(x_t) <= 0``,
    add ``x_t`` with coefficient ``y_t``.  It is NORMA of Kivinen, Smola &
    Williamson (2004) at ``rho = lambda = 0`` (Sec. III-A), and the Perceptron
    whose mistake bounds are Theorems 1 and 2 of Liao et al., *Ahpatron*
    (AAAI 2024).  Unbudgeted: the support set grows with every mistake.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    seed : int, Generator or None
        Unused by the algorithm (it is deterministic); kept for a uniform API.

    Notes
    -----
    ``Trace.losses`` holds the Perceptron loss ``max(0, -y_t f_t(x_t))``.
    """

    kernel = KernelParam()
    seed = Seed()


@register_learner(
    paper="norma", role="baseline", task="both",
    examples=[dict(kernel=Gaussian(1.0), loss="hinge", eta=0.3, lam=0.05, schedule="sqrt"),
              dict(kernel=Laplacian(2.0), loss="squared", eta=0.2)],
    bounds="okl.experiments.bounds.norma:kernelogd")
class KernelOGD(KernelExpansion, OnlineLearner, KernelOGDCore):
    """Kernel online gradient descent, eq. (9) of Kivinen, Smola & Williamson (2004).

    ``f_{t+1} = (1 - eta_t lam) f_t - eta_t l'(f_t(x_t), y_t) k(x_t, .)``, i.e.
    the new coefficient is ``alpha_t = -eta_t l'(f_t(x_t), y_t)`` (11) and the old
    ones shrink by ``1 - eta_t lam`` (12).  No truncation: this is the
    unbudgeted reference that NORMA truncates.  The shrinkage is applied to a
    single lazy scale factor (as in scikit-learn's ``WeightVector``), so a
    round costs one kernel row whatever ``lam`` is.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    loss : {"hinge", "logistic", "squared", "absolute"}, default "hinge"
        ``max(0, 1 - y f)``, ``log(1 + exp(-y f))`` (classification, labels in
        {-1, +1}); ``(f - y)^2 / 2`` (eq. (21)), ``|f - y|`` (regression).
        At a kink the subgradient 0 is used (no update).
    eta : float, default 0.5
        Learning rate, ``> 0``.
    schedule : {"constant", "sqrt"}, default "constant"
        ``eta_t = eta`` or ``eta_t = eta / sqrt(t)`` (Theorem 4's rate).
    lam : float, default 0.0
        Regularization ``lambda >= 0``; the paper requires ``eta_t < 1/lambda``,
        here ``eta * lam < 1``.
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.
    """

    kernel = KernelParam()
    loss = Choice("hinge", LOSS_CODES, core="loss_kind")
    eta = Real(0.5, low=0, low_open=True)
    schedule = Choice("constant", {"constant": False, "sqrt": True}, core="sqrt_schedule")
    lam = Real(0.0, low=0)
    seed = Seed()

    def _check_params(self):
        check_decay(self.eta, self.lam)

    def _classifies(self):
        return self.loss in CLASSIFICATION_LOSSES

    @property
    def coefficients(self) -> np.ndarray:
        """True coefficients ``alpha_i`` of ``f_t = sum alpha_i k(x_i, .)``."""
        return super().coefficients * self.coefficient_scale
