"""ALMA_2: Gentile's approximate maximal margin algorithm, kernelized."""
from __future__ import annotations

import math

from okl._learner import fields
from okl.kernels import Gaussian
from okl.params import KernelParam, Real, Seed
from okl.learners._alma import ALMACore
from okl.learners.base import KernelExpansion, OnlineLearner
from okl.registry import register_learner

__all__ = ["ALMA"]


@register_learner(
    paper="norma", role="baseline", task="classification",
    examples=[dict(kernel=Gaussian(1.0), alpha=0.5)],
    bounds="okl.experiments.bounds.norma:alma")
class ALMA(KernelExpansion, OnlineLearner, ALMACore):
    r"""ALMA_2(alpha; B, C), Gentile, *A New Approximate Maximal Margin Classification
    Algorithm* (JMLR 2, 2001), in the RKHS of a kernel.

    The baseline of Kivinen, Smola & Williamson (2004), Sec. VI-A, Fig. 2.  With
    ``w_1 = 0`` and ``k = 1`` (the index of the next correction), on round ``t``:

    1. normalize the instance, ``x_hat_t = phi(x_t) / sqrt(k(x_t, x_t))`` (so the
       algorithm sees the normalized kernel ``k(x, v) / sqrt(k(x, x) k(v, v))``);
    2. predict ``sign(w_k . x_hat_t)``;
    3. if ``y_t w_k . x_hat_t <= (1 - alpha) gamma_k`` with
       ``gamma_k = B sqrt(p - 1) / sqrt(k)``: ``eta_k = C / (sqrt(p - 1) sqrt(k))``,
       ``w' = w_k + eta_k y_t x_hat_t``, ``w_{k+1} = w' / max(1, ||w'||)``, ``k <- k + 1``.

    ``p = 2`` throughout (``sqrt(p - 1) = 1``; the link function is the identity, so
    the algorithm kernelizes).  ``alpha = 1`` fixes the margin at zero: the updates
    are then exactly the mistakes, and ``B`` plays no role (the ``ALMA_0`` of Fig. 2).
    The projection only rescales ``w``; it is kept in a lazy factor and ``||w||^2``
    by the recursion ``||w + eta y x_hat||^2 = ||w||^2 + 2 eta y (w . x_hat) + eta^2``,
    so a round costs one kernel row.

    Parameters
    ----------
    kernel : okl kernel, default ``Gaussian(1.0)``
    alpha : float in (0, 1], default 1.0
        Approximation parameter: ALMA aims at a margin ``(1 - alpha)`` times the
        largest one.
    B : float > 0 or None, default None
        Margin scale of ``gamma_k``; ``None`` is Gentile's default ``1 / alpha``.
    C : float > 0, default ``sqrt(2)``
        Learning-rate scale of ``eta_k`` (Gentile's default).
    seed : int, Generator or None
        Unused (deterministic); kept for a uniform API.

    Notes
    -----
    ``decision_function`` (and ``Trace.scores``) give ``w . x_hat``, the margin on the
    normalized instance; ``coefficients`` are the true coefficients of
    ``w = sum_i c_i phi(x_i)`` on the unnormalized support vectors (so
    ``c_i = eta y_i / sqrt(k(x_i, x_i))`` times the projections since).  An instance
    with ``k(x, x) = 0`` normalizes to ``x_hat = 0``: its score is 0, and a correction
    on it leaves ``w`` unchanged but still advances ``k``, as the algorithm prescribes.
    ``Trace.losses`` holds ``max(0, (1 - alpha) gamma_k - y_t w_k . x_hat_t)``, the
    shortfall from the margin ALMA tests; ``extras`` the number of corrections, the
    final ``||w||^2`` and the final margin ``(1 - alpha) gamma_k``.  Gentile's
    averaged/voted prediction and multi-epoch training are not included.
    """

    kernel = KernelParam()
    alpha = Real(1.0, low=0, high=1, low_open=True)
    B = Real(None, low=0, low_open=True, none="1 / alpha, Gentile's default (B_)", core=False)
    C = Real(math.sqrt(2.0), low=0, low_open=True)
    seed = Seed()

    @property
    def B_(self) -> float:
        """The margin scale in use (``1 / alpha`` when ``B`` is None)."""
        return 1.0 / self.alpha if self.B is None else self.B

    @property
    def coefficients(self):
        """True coefficients of ``w = sum_i c_i phi(x_i)`` on ``support_vectors``."""
        return super().coefficients * self.coefficient_scale

    @property
    def n_corrections(self) -> int:
        """Updates made so far (``k - 1`` in the paper's notation)."""
        return self.k - 1

    @property
    def norm_sq_(self) -> float:
        """``||w_k||^2`` of the current hypothesis (at most 1)."""
        return self.norm_sq

    _extras_fields = fields("n_corrections", "norm_sq", ("margin", "margin_"))
