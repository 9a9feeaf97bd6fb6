import math

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from conftest import KERNELS, ref_gram


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("xs,ys", [(False, False), (True, False), (False, True), (True, True)])
def test_kernel_matrix_matches_sklearn(kernel, xs, ys):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(17, 6)) * (rng.random((17, 6)) < 0.5)
    B = rng.normal(size=(11, 6)) * (rng.random((11, 6)) < 0.5)
    A[3] = 0.0  # an empty sparse row
    Aa = sp.csr_matrix(A) if xs else A
    Bb = sp.csr_matrix(B) if ys else B
    np.testing.assert_allclose(okl.kernel_matrix(kernel, Aa, Bb), ref_gram(kernel, A, B),
                               rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(kernel(Aa, Bb), ref_gram(kernel, A, B), rtol=1e-11, atol=1e-12)


def test_gaussian_uses_the_papers_sigma():
    x, v = np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]])
    assert okl.Gaussian(sigma=2.0)(x, v)[0, 0] == pytest.approx(math.exp(-25.0 / 8.0), rel=1e-14)
    assert okl.Laplacian(sigma=2.0)(x, v)[0, 0] == pytest.approx(math.exp(-7.0 / 2.0), rel=1e-14)


def test_gram_of_identical_points_has_unit_diagonal():
    X = np.random.default_rng(1).normal(size=(30, 5)) * 100.0
    K = okl.Gaussian(0.5)(X)
    np.testing.assert_array_equal(np.diag(K), 1.0)


def test_sup_diag():
    assert okl.Gaussian(3.0).sup_diag == 1.0
    assert okl.Laplacian(3.0).sup_diag == 1.0
    assert okl.Linear().sup_diag == math.inf
    assert okl.Polynomial().sup_diag == math.inf


@pytest.mark.parametrize("make", [
    lambda: okl.Gaussian(sigma=0.0),
    lambda: okl.Gaussian(sigma=-1.0),
    lambda: okl.Gaussian(sigma=float("nan")),
    lambda: okl.Gaussian(sigma="2"),
    lambda: okl.Laplacian(sigma=float("inf")),
    lambda: okl.Polynomial(degree=0),
    lambda: okl.Polynomial(degree=2.5),
    lambda: okl.Polynomial(gamma=0.0),
    lambda: okl.Polynomial(coef0=-1.0),
])
def test_bad_kernel_parameters(make):
    with pytest.raises(ValueError, match="sigma|degree|gamma|coef0"):
        make()


# Issue 29: a parameter the typed kernel cannot compute with in double precision is a
# ValueError naming it, when the kernel is made (okl.Perceptron(kernel=okl.Gaussian(1e-300))
# .run(X, y) raised ZeroDivisionError; smaller widths gave gamma = inf, whose exp(-inf * 0)
# is NaN on the diagonal; larger ones raised OverflowError; a degree beyond a C int raised
# OverflowError in the first run).
@pytest.mark.parametrize("make,name", [
    (lambda: okl.Gaussian(sigma=1e-300), "sigma"),      # sigma^2 underflows: 1 / 0
    (lambda: okl.Gaussian(sigma=5e-324), "sigma"),
    (lambda: okl.Gaussian(sigma=1e-160), "sigma"),      # 1 / (2 sigma^2) = inf
    (lambda: okl.Gaussian(sigma=1e154), "sigma"),       # 1 / (2 sigma^2) = 0
    (lambda: okl.Gaussian(sigma=1e200), "sigma"),       # sigma^2 overflows
    (lambda: okl.Laplacian(sigma=5e-324), "sigma"),     # 1 / sigma = inf
    (lambda: okl.Laplacian(sigma=1e-309), "sigma"),
    (lambda: okl.Polynomial(degree=2**31), "degree"),   # the typed kernel's int
    (lambda: okl.Polynomial(degree=2**40, coef0=0.5), "degree"),
    (lambda: okl.Polynomial(coef0=1e300), "coef0"),     # k(0, 0) = coef0^2 = inf
    (lambda: okl.Polynomial(coef0=2.0, degree=1024), "coef0"),
    (lambda: okl.Polynomial(gamma=float("inf")), "gamma"),
    (lambda: okl.Polynomial(coef0=float("inf")), "coef0"),
    (lambda: okl.kernels.make_kernel("gaussian", sigma=1e-300), "sigma"),
])
def test_kernel_parameters_outside_double_precision(make, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        make()


def test_the_issue_29_run_is_refused_when_the_kernel_is_made():
    X, y = np.random.default_rng(0).normal(size=(20, 3)), np.ones(20)
    with pytest.raises(ValueError, match="sigma=1e-300"):
        okl.Perceptron(kernel=okl.Gaussian(1e-300)).run(X, y)


@pytest.mark.parametrize("kernel", [
    okl.Gaussian(1e-150), okl.Gaussian(1e150), okl.Laplacian(1e-300), okl.Laplacian(1e300),
    okl.Polynomial(degree=3, coef0=1e-300), okl.Polynomial(degree=2, coef0=1e150),
], ids=repr)
def test_kernel_parameters_at_the_edges_are_accepted_and_finite(kernel):
    """Just inside the range the typed kernel's values are finite, on distinct and on
    identical points (small data: the polynomial's values stay finite)."""
    X = np.random.default_rng(2).normal(size=(6, 3)) * 1e-3
    X[5] = X[0]
    K = kernel(X)
    assert np.isfinite(K).all()
    if not isinstance(kernel, okl.Polynomial):
        np.testing.assert_array_equal(np.diag(K), 1.0)
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    assert np.isfinite(okl.Perceptron(kernel=kernel).run(X, y).scores).all()


def test_the_largest_degree_is_accepted():
    assert okl.Polynomial(degree=2**31 - 1, coef0=0.5).kernel_params()[3] == 2**31 - 1


def test_kernel_specs_are_values():
    assert okl.Gaussian(2.0) == okl.Gaussian(2.0)
    assert hash(okl.Gaussian(2.0)) == hash(okl.Gaussian(2.0))
    assert okl.Gaussian(2.0) != okl.Laplacian(2.0)


def test_check_kernels_keeps_lists_as_given_and_names_problems():
    from okl.kernels import check_kernels, gaussian_family

    given = [okl.Gaussian(1.0), okl.Laplacian(2.0)]
    assert check_kernels(given) is given                        # scikit-learn's clone needs this
    assert check_kernels(tuple(given)) == tuple(given)
    assert check_kernels(k for k in given) == given             # a one-shot iterable is read
    assert [k.sigma for k in check_kernels(None)] == [2.0 ** i for i in range(-4, 5)]
    assert [k.sigma for k in gaussian_family(range(0, 2))] == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"kernels\[1\] must be an okl.Gaussian kernel \(why\)"):
        check_kernels(given, gaussian=True, why=" (why)")
    with pytest.raises(ValueError, match="must be bounded"):
        check_kernels([okl.Linear()], bounded=True)
    assert check_kernels([okl.Linear()])[0] == okl.Linear()
    for bad in ([], "gaussian", 3, [okl.Gaussian(1.0), 2.0]):
        with pytest.raises(ValueError, match="kernels"):
            check_kernels(bad)
