"""Theory side of okl: data-dependent quantities and best comparators.

Depends only on numpy and scipy.  Sources (see each docstring for the exact
equation): Li & Liao, AAAI 2023 (kernel alignment, polarization, Theorem 1
spectrum decay); Jezequel, Gaillard & Rudi, 2019 (effective dimension,
log-determinant term, kernel ridge comparator); Kivinen, Smola & Williamson,
IEEE TSP 2004 (NORMA: ``theory.norma``, including the tuning function ``h`` of (30)).
"""
from . import norma
from .alignment import kernel_alignment, kernel_polarization
from .comparators import (
    HingeComparator,
    RidgeComparator,
    best_hinge_in_ball,
    kernel_ridge_comparator,
)
from .decay import (
    ExponentialDecay,
    PolynomialDecay,
    fit_exponential_decay,
    fit_polynomial_decay,
)
from .norma import (
    ComparatorPath,
    NormaTuning,
    RegularizedComparator,
    SoftMarginComparator,
    best_regularized_soft_margin,
    comparator_path,
    cumulative_instantaneous_risk,
    cumulative_risk_bound,
    eta_prime,
    margin_error_bound,
    margin_error_bound_general,
    mistake_bound,
    mistake_bound_general,
    regularized_risk,
    relative_loss_bound,
    risk_bound_constants,
    soft_margin_comparator_loss,
    soft_margin_losses,
    theorem2_constant_C,
    theorem2_parameters,
    theorem3_parameters,
    theorem6_t0,
    theorem6_window,
    truncated_cumulative_risk_bound,
    truncation_error_bound,
)
from .spectrum import effective_dimension, kernel_eigenvalues, log_det_term

__all__ = [
    "ExponentialDecay",
    "HingeComparator",
    "PolynomialDecay",
    "RidgeComparator",
    "best_hinge_in_ball",
    "effective_dimension",
    "fit_exponential_decay",
    "fit_polynomial_decay",
    "kernel_alignment",
    "kernel_eigenvalues",
    "kernel_polarization",
    "kernel_ridge_comparator",
    "log_det_term",
    "norma",
    "ComparatorPath",
    "NormaTuning",
    "RegularizedComparator",
    "SoftMarginComparator",
    "best_regularized_soft_margin",
    "comparator_path",
    "cumulative_instantaneous_risk",
    "cumulative_risk_bound",
    "eta_prime",
    "margin_error_bound",
    "margin_error_bound_general",
    "mistake_bound",
    "mistake_bound_general",
    "regularized_risk",
    "relative_loss_bound",
    "risk_bound_constants",
    "soft_margin_comparator_loss",
    "soft_margin_losses",
    "theorem2_constant_C",
    "theorem2_parameters",
    "theorem3_parameters",
    "theorem6_t0",
    "theorem6_window",
    "truncated_cumulative_risk_bound",
    "truncation_error_bound",
]
