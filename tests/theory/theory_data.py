"""Test data for tests/theory: real data sets and a numpy Gaussian kernel (no okl)."""
import numpy as np
from sklearn import datasets


def gaussian_kernel(X, sigma):
    """exp(-||x - v||^2 / (2 sigma^2)) from explicit differences (exactly symmetric)."""
    X = np.asarray(X, dtype=float)
    diff = X[:, None, :] - X[None, :, :]
    return np.exp(-np.einsum("ijk,ijk->ij", diff, diff) / (2.0 * sigma ** 2))


def real_data(name, n=None, seed=0):
    """Standardized features and labels in {-1, +1} of a data set bundled with scikit-learn.

    ``iris``: versicolor against the rest (not linearly separable);
    ``cancer``: breast cancer, malignant against benign;
    ``wine``: class 0 against the rest.
    """
    loader, positive = {"iris": (datasets.load_iris, 1),
                        "cancer": (datasets.load_breast_cancer, 1),
                        "wine": (datasets.load_wine, 0)}[name]
    X, t = loader(return_X_y=True)
    if n is not None:
        idx = np.random.default_rng(seed).permutation(len(t))[:n]
        X, t = X[idx], t[idx]
    std = X.std(0)
    X = (X - X.mean(0)) / np.where(std > 0, std, 1.0)
    return X, np.where(t == positive, 1.0, -1.0)
