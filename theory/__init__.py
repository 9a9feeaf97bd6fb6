"""Theory side of okl: data-dependent quantities and best comparators.

Depends only on numpy and scipy.  Sources (see each docstring for the exact
equation): Li & Liao, AAAI 2023 (kernel alignment, polarization, Theorem 1
spectrum decay) and Jezequel, Gaillard & Rudi, 2019 (effective dimension,
log-determinant term, kernel ridge comparator).
"""
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
]
