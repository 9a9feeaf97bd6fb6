"""Shared fixtures and independent oracles (scikit-learn / scipy, never okl)."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import settings
from sklearn.metrics import pairwise

import okl


# CI explores the same hypothesis examples on every run (no flaky draws);
# local runs keep hypothesis' random exploration.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def ref_gram(kernel, A, B):
    """Kernel matrix computed by scikit-learn's pairwise kernels."""
    A = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)
    B = B.toarray() if sp.issparse(B) else np.asarray(B, dtype=float)
    if isinstance(kernel, okl.Gaussian):
        return pairwise.rbf_kernel(A, B, gamma=1.0 / (2.0 * kernel.sigma ** 2))
    if isinstance(kernel, okl.Laplacian):
        return pairwise.laplacian_kernel(A, B, gamma=1.0 / kernel.sigma)
    if isinstance(kernel, okl.Polynomial):
        return pairwise.polynomial_kernel(A, B, degree=kernel.degree, gamma=kernel.gamma,
                                          coef0=kernel.coef0)
    if isinstance(kernel, okl.Linear):
        return pairwise.linear_kernel(A, B)
    raise TypeError(kernel)


KERNELS = [
    okl.Gaussian(sigma=0.7),
    okl.Gaussian(sigma=3.0),
    okl.Laplacian(sigma=2.0),
    okl.Polynomial(degree=3, gamma=0.5, coef0=1.0),
    okl.Linear(),
]


def xor_stream(T, d, seed=0, noise=0.1):
    """Labels by a nonlinear rule so kernel learners keep adding support vectors."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    y = np.sign(X[:, 0] * X[:, 1] + noise * rng.normal(size=T))
    y[y == 0] = 1.0
    return X, y


def sparse_stream(T, d, density=0.2, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(T, d, density=density, format="csr", random_state=rng,
                  data_rvs=lambda n: rng.normal(size=n))
    w = rng.normal(size=d)
    y = np.sign(np.sin(X @ w) + 0.05 * rng.normal(size=T))
    y[y == 0] = 1.0
    return X, y


@pytest.fixture
def stream():
    return xor_stream(400, 4, seed=1)


# One small instance of every learner, for the API tests shared by all learners
# (tests/test_learner_api.py) and the scikit-learn checks (tests/test_sklearn.py).
LEARNERS = [
    lambda: okl.Perceptron(kernel=okl.Gaussian(1.0)),
    lambda: okl.KernelOGD(kernel=okl.Gaussian(1.0), loss="hinge", eta=0.3, lam=0.05,
                          schedule="sqrt"),
    lambda: okl.KernelOGD(kernel=okl.Laplacian(2.0), loss="squared", eta=0.2),
    lambda: okl.NORMA(kernel=okl.Gaussian(1.0), tau=40, lam=0.1, offset=True),
    lambda: okl.NORMA(kernel=okl.Gaussian(1.0), loss="nu_epsilon", nu=0.3, schedule="sqrt",
                      track_norm=True),
    lambda: okl.ALMA(kernel=okl.Gaussian(1.0), alpha=0.5),
    lambda: okl.AVP(kernel=okl.Gaussian(1.0), U=3.0, setting="corollary2"),
    lambda: okl.Ahpatron(kernel=okl.Gaussian(1.0), B=10),
    lambda: okl.Forgetron(kernel=okl.Gaussian(1.0), B=12),
    lambda: okl.RBP(kernel=okl.Gaussian(1.0), B=12, seed=3),
    lambda: okl.BOGD(kernel=okl.Gaussian(1.0), B=12, eta=0.5, lam=0.01, seed=4),
    lambda: okl.BOGDPP(kernel=okl.Gaussian(1.0), B=12, eta=0.5, lam=0.01, gamma=None, seed=5),
    lambda: okl.Projectron(kernel=okl.Gaussian(1.0), eta=0.1),
    lambda: okl.ProjectronPP(kernel=okl.Gaussian(1.0), eta=0.3),
    lambda: okl.KernelAWV(kernel=okl.Gaussian(1.0), lam=1.0),
    lambda: okl.KernelAWV(kernel=okl.Laplacian(2.0), lam=0.5, forecaster="krr",
                          task="classification"),
    lambda: okl.PKAWV(basis="taylor", kernel=okl.Gaussian(1.0), lam=1.0, M=2),
    lambda: okl.PKAWV(kernel=okl.Gaussian(2.0), lam=0.5, M=3, task="classification"),
    lambda: okl.PKAWV(basis="nystrom", kernel=okl.Gaussian(1.0), mu=1.0, beta=1.0, seed=3),
    lambda: okl.PKAWV(basis="nystrom", kernel=okl.Laplacian(2.0), lam=0.5, mu=2.0, beta=0.5,
                      forecaster="krr", task="classification", seed=4),
    lambda: okl.FOGD(kernel=okl.Gaussian(1.0), D=50, eta=0.3, seed=1),
    lambda: okl.FOGD(kernel=okl.Laplacian(2.0), D=30, eta=0.2, loss="squared", seed=2),
    lambda: okl.NOGD(kernel=okl.Gaussian(1.0), B=30, k=10, eta=0.3),
    lambda: okl.NOGD(kernel=okl.Gaussian(1.0), B=25, eta=0.2, loss="squared"),
    lambda: okl.POMDR(kernel=okl.Gaussian(1.0), B=12, B0=5, M=3, T=600, c=0.1),
    lambda: okl.POMD(kernel=okl.Gaussian(1.0), M=4, U=5.0, T=600),
    lambda: okl.SkeGD(kernel=okl.Gaussian(1.0), B=20, s_p=12, s_m=5, k=3, eta=0.3, cycle=25,
                      T=600, seed=3),
    lambda: okl.SkeGD(kernel=okl.Gaussian(2.0), B=16, s_p=10, s_m=4, k=3, hash="uniform",
                      truncate_initial=True, eta=0.5, T=600, seed=4),
    lambda: okl.BAO2KS(kernel=okl.Gaussian(1.0), B=15, lam=0.3, M=4, U=3.0, T=600, seed=5),
    lambda: okl.LKMBooks(kernels=[okl.Gaussian(0.5), okl.Gaussian(2.0)], B=20, T=600, seed=1),
    lambda: okl.LKMBooks(kernels=[okl.Gaussian(0.5), okl.Gaussian(1.0), okl.Gaussian(4.0)],
                         loss="absolute", B=15, T=600, lam=0.5, seed=2),
    lambda: okl.PFMBooks(kernels=[okl.Gaussian(0.5), okl.Gaussian(1.0), okl.Gaussian(2.0)],
                         B=40, T=600, seed=0),
    lambda: okl.PFMBooks(kernels=[okl.Gaussian(0.5), okl.Gaussian(2.0)], loss="absolute",
                         Y=10.0, B=40, prediction="mean", T=600, seed=1),
    lambda: okl.OMKC(kernels=[okl.Gaussian(1.0), okl.Gaussian(2.0)], B=50),
    lambda: okl.OMKC(kernels=[okl.Gaussian(1.0), okl.Gaussian(2.0)], loss="absolute", B=50),
    lambda: okl.BATBooks(kernels=[okl.Gaussian(0.5), okl.Gaussian(1.0), okl.Gaussian(2.0)],
                         B=40, T=600, seed=0),
    lambda: okl.BATBooks(kernels=[okl.Gaussian(1.0), okl.Laplacian(2.0)], loss="absolute",
                         B=30, T=600, eta="doubling", ell_max="doubling", seed=1),
    lambda: okl.OKS(kernels=[okl.Gaussian(0.5), okl.Gaussian(2.0), okl.Laplacian(1.0)],
                    T=600, delta=0.2, seed=1),
    lambda: okl.BOKS(kernels=[okl.Gaussian(0.5), okl.Gaussian(2.0)], loss="absolute", B=30,
                     T=600, seed=2),
    lambda: okl.ISKA(kernels=[okl.Gaussian(0.5), okl.Gaussian(1.0), okl.Gaussian(2.0)], B=20,
                     T=600, seed=3),
    lambda: okl.BOMKR(kernels=[okl.Gaussian(0.5), okl.Laplacian(2.0)], B=20, T=600),
    lambda: okl.BOMKRV(kernels=[okl.Gaussian(0.5), okl.Gaussian(1.0), okl.Gaussian(2.0)],
                       B=20, T=600),
    lambda: okl.SketchedKONS(kernel=okl.Gaussian(1.0), gamma=0.2, seed=5),
    lambda: okl.SketchedKONS(kernel=okl.Laplacian(2.0), gamma=0.5, task="classification",
                             seed=6),
    lambda: okl.ProsNKONS(kernel=okl.Gaussian(1.0), seed=7),
    lambda: okl.ProsNKONS(kernel=okl.Gaussian(3.0), mu=3.0, variant="jgr2019",
                          task="classification", seed=8),
]
