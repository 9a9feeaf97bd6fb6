"""Shared fixtures and independent oracles (scikit-learn / scipy, never okl)."""
import importlib.util
import os
from pathlib import Path

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


def fixture_script(name):
    """The script ``tests/fixtures/<name>.py`` that wrote a fixture, imported as a module
    (the tests call its functions to make what they compare with the stored fixture)."""
    path = Path(__file__).parent / "fixtures" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
# (tests/test_learner_api.py), the contract suite (tests/test_contract.py) and the
# scikit-learn checks (tests/test_sklearn.py): the examples each learner declares in the
# learner registry (okl.registry), so a new learner is covered by declaring it.
def _factory(entry, index):
    def make():
        return entry.build(index)
    make.__name__ = f"{entry.name}[{index}]"
    make.entry = entry
    return make


LEARNERS = [_factory(entry, i) for entry in okl.learners.entries().values()
            if entry.cls.__module__.startswith("okl.")
            for i in range(len(entry.examples))]
