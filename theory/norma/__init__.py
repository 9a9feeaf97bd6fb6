r"""Bounds of NORMA: Kivinen, Smola & Williamson, *Online Learning with Kernels*
(IEEE Trans. Signal Processing 52(8), 2004).

Every expression names the equation or theorem it evaluates.  Notation of the
paper: ``m`` is the length of the stream, ``X`` bounds
:math:`k(x_t, x_t) \le X^2`, ``lam`` is :math:`\lambda`, ``eta`` the learning
rate :math:`\eta`, ``C`` either the derivative bound of Prop. 1 or the constant
(31) of Theorems 2-3 (each function says which).

Conventions (checked against the paper, Sec. II-A):

* regularized risk (4): :math:`R_{\mathrm{reg},\lambda}[f, S] = \frac1m\sum_t
  l(f(x_t), y_t) + \frac{\lambda}{2}\|f\|_{\mathcal H}^2` -- with
  :math:`\lambda/2`, the convention under which the gradient step (9) decays by
  :math:`1 - \eta\lambda`;
* instantaneous risk (5): :math:`R_{\mathrm{inst},\lambda}[f, x, y] =
  l(f(x), y) + \frac{\lambda}{2}\|f\|_{\mathcal H}^2`.

The bounds, one module each (every name is importable from here, ``theory.norma.X``):

* :mod:`theory.norma.truncation`, Prop. 1 (truncation error): :func:`truncation_error_bound`.
* :mod:`theory.norma.classification`, Sec. IV, Theorems 2 and 3 (margin errors and
  mistakes of the soft margin update (29) against a drifting comparator sequence in
  :math:`\mathcal G(B, D_1, D_2)`): :func:`h` (30),
  :func:`theorem2_constant_C` (31), :func:`theorem2_parameters` (32),
  :func:`theorem3_parameters`, :func:`margin_error_bound`,
  :func:`mistake_bound`; the untuned form (45)-(46) for arbitrary
  :math:`(\eta, \lambda, \rho)` and any prefix of a stream:
  :func:`eta_prime`, :func:`relative_loss_bound`,
  :func:`margin_error_bound_general`, :func:`mistake_bound_general`.
* :mod:`theory.norma.risk`, Sec. V, Theorems 4 and 6 (cumulative regularized risk with
  :math:`\eta_t = \eta t^{-1/2}`): :func:`risk_bound_constants`,
  :func:`cumulative_risk_bound`, :func:`truncated_cumulative_risk_bound`,
  :func:`theorem6_t0`, :func:`theorem6_window`.
* :mod:`theory.norma.comparators`, quantities measured on a stream:
  :func:`soft_margin_losses`, :func:`soft_margin_comparator_loss`,
  :func:`comparator_path`, :func:`regularized_risk`,
  :func:`cumulative_instantaneous_risk`, :func:`best_regularized_soft_margin`.

The bounds of its baselines (kernel OGD, ALMA_2) are :mod:`theory.norma_baselines`.

Depends only on numpy and scipy.
"""
from . import classification, comparators, risk, truncation
from .classification import *  # noqa: F401,F403
from .comparators import *  # noqa: F401,F403
from .risk import *  # noqa: F401,F403
from .truncation import *  # noqa: F401,F403

#: The parts, in the paper's order; ``__all__`` is theirs.
PARTS = (truncation, classification, risk, comparators)
__all__ = [name for part in PARTS for name in part.__all__]
