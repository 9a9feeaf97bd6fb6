"""Every public function of theory rejects bad arguments with a ValueError naming them."""
import numpy as np
import pytest

import theory
from theory import (best_hinge_in_ball, effective_dimension, fit_exponential_decay,
                    fit_polynomial_decay, kernel_alignment, kernel_eigenvalues,
                    kernel_polarization, kernel_ridge_comparator, log_det_term)

GOOD_K = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])
GOOD_Y = np.array([1.0, -1.0, 1.0])

# name -> call(K, y)
CALLS = {
    "polarization": lambda K, y: kernel_polarization(K, y),
    "alignment": lambda K, y: kernel_alignment(K, y),
    "hinge": lambda K, y: best_hinge_in_ball(K, y, 1.0),
    "ridge": lambda K, y: kernel_ridge_comparator(K, y, 1.0),
}
K_ONLY = {
    "eigenvalues": kernel_eigenvalues,
    "deff": lambda K: effective_dimension(K, 1.0),
    "logdet": lambda K: log_det_term(K, 1.0),
    "exp_fit": fit_exponential_decay,
    "poly_fit": fit_polynomial_decay,
}
BAD_K = [
    (np.ones((2, 3)), "K must be a square 2-D matrix"),
    (np.ones(3), "K must be a square 2-D matrix"),
    (np.array([[1.0, 0.0, 0.0], [0.3, 1.0, 0.0], [0.0, 0.0, 1.0]]), "K is not symmetric"),
    (np.array([[1.0, np.nan, 0.0], [np.nan, 1.0, 0.0], [0.0, 0.0, 1.0]]), "K contains NaN or inf"),
    (np.array([[np.inf, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), "K contains NaN or inf"),
    (np.zeros((0, 0)), "K must not be empty"),
]


def test_good_inputs_pass():
    for call in CALLS.values():
        call(GOOD_K, GOOD_Y)
    for call in K_ONLY.values():
        call(GOOD_K)
    # Symmetric up to round-off is accepted.
    call(GOOD_K + 1e-14 * np.triu(np.ones((3, 3)), 1))


@pytest.mark.parametrize("K,message", BAD_K)
@pytest.mark.parametrize("name", sorted(CALLS) + sorted(K_ONLY))
def test_bad_kernel_matrix(name, K, message):
    with pytest.raises(ValueError, match=message):
        if name in CALLS:
            CALLS[name](K, np.ones(len(K)) if K.ndim else np.ones(1))
        else:
            K_ONLY[name](K)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_labels(name):
    with pytest.raises(ValueError, match="y must be a vector of length 3"):
        CALLS[name](GOOD_K, np.ones(2))
    with pytest.raises(ValueError, match="y must be a vector of length 3"):
        CALLS[name](GOOD_K, np.ones((3, 1)))
    with pytest.raises(ValueError, match="y contains NaN or inf"):
        CALLS[name](GOOD_K, np.array([1.0, np.inf, 1.0]))
    if name != "ridge":  # classification labels
        with pytest.raises(ValueError, match="y must contain only the labels -1 and \\+1"):
            CALLS[name](GOOD_K, np.array([1.0, 0.5, -1.0]))
    else:
        CALLS[name](GOOD_K, np.array([1.0, 0.5, -1.0]))  # regression targets are real


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf, "1", True, None])
def test_bad_positive_scalars(bad):
    for name, call in [("lam", lambda v: effective_dimension(GOOD_K, v)),
                       ("lam", lambda v: log_det_term(GOOD_K, v)),
                       ("lam", lambda v: kernel_ridge_comparator(GOOD_K, GOOD_Y, v)),
                       ("U", lambda v: best_hinge_in_ball(GOOD_K, GOOD_Y, v))]:
        with pytest.raises(ValueError, match=name):
            call(bad)


def test_kernel_or_eigenvalues_exactly_one():
    ev = np.linalg.eigvalsh(GOOD_K)
    for f in (effective_dimension, log_det_term):
        with pytest.raises(ValueError, match="exactly one of K and eigenvalues"):
            f(GOOD_K, 1.0, eigenvalues=ev)
        with pytest.raises(ValueError, match="exactly one of K and eigenvalues"):
            f(lam=1.0)
        with pytest.raises(ValueError, match="eigenvalues must be a non-empty 1-D array"):
            f(lam=1.0, eigenvalues=np.ones((2, 2)))


def test_public_api():
    assert set(theory.__all__) >= {
        "kernel_polarization", "kernel_alignment", "effective_dimension", "log_det_term",
        "fit_exponential_decay", "fit_polynomial_decay", "ExponentialDecay", "PolynomialDecay",
        "best_hinge_in_ball", "HingeComparator", "kernel_ridge_comparator", "RidgeComparator",
        "kernel_eigenvalues"}
