"""Seeded data for the asv benchmarks (okl, numpy and scipy only).

``classification_stream`` draws a stream whose labels follow a nonlinear
rule of a 3-dimensional latent variable, so a Gaussian-kernel Perceptron
keeps making (fewer and fewer) mistakes and its support set grows to a few
hundred or thousand vectors, as on real data, instead of either stopping at
a handful or growing by one every round.

Dense rows are ``u A + noise``.  Sparse rows (CSR) belong to one of
``n_clusters`` clusters, each keeping its own random ~``density`` fraction
of the coordinates of ``u A + noise``; the cluster flips the label for half
the clusters, so the learner has to separate the clusters too.
"""
import numpy as np
import scipy.sparse as sp

import okl

SEED = 20240601
DENSITY = 0.1


def classification_stream(n_rounds, n_features, sparse=False, *, seed=SEED,
                          density=DENSITY, latent=3, noise=0.03, n_clusters=8):
    """``(X, y)``: ``X`` is ``(n_rounds, n_features)`` dense or CSR, ``y`` in {-1, +1}."""
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((n_rounds, latent))
    A = rng.standard_normal((latent, n_features)) / np.sqrt(latent)
    X = U @ A + noise * rng.standard_normal((n_rounds, n_features))
    g = np.sin(2.0 * U[:, 0]) + U[:, 1] + 0.25 * U[:, 2]
    if sparse:
        masks = rng.random((n_clusters, n_features)) < density
        masks[np.arange(n_clusters), rng.integers(n_features, size=n_clusters)] = True
        cluster = rng.integers(n_clusters, size=n_rounds)
        X = sp.csr_matrix(X * masks[cluster])
        g = g * np.where(cluster % 2 == 0, 1.0, -1.0)
    y = np.where(g > 0.0, 1.0, -1.0)
    return X, y


def mean_sq_norm(X):
    """Average squared row norm (dense or CSR)."""
    if sp.issparse(X):
        return float(X.multiply(X).sum() / X.shape[0])
    return float(np.einsum("ij,ij->", X, X) / X.shape[0])


def gaussian_for(X, scale=0.25):
    """A Gaussian kernel with ``sigma = scale * rms row norm`` of ``X``."""
    return okl.Gaussian(sigma=scale * np.sqrt(mean_sq_norm(X)))


def random_rows(n, d, sparse, *, seed=SEED, density=DENSITY):
    """``n`` rows of i.i.d. N(0, 1/nnz) entries, so ``||x||^2 ~ 1``.

    With ``sparse``, a CSR matrix whose every row has ``max(1, round(density * d))``
    non-zeros at random columns (never an empty row).
    """
    rng = np.random.default_rng(seed)
    if not sparse:
        return rng.standard_normal((n, d)) / np.sqrt(d)
    k = max(1, int(round(density * d)))
    cols = np.sort(np.argsort(rng.random((n, d)), axis=1)[:, :k], axis=1)
    data = rng.standard_normal(n * k) / np.sqrt(k)
    indptr = np.arange(0, n * k + 1, k)
    return sp.csr_matrix((data, cols.ravel(), indptr), shape=(n, d))


def make_kernel(name, d):
    """The four okl kernels, parametrized so values stay O(1) for ``random_rows`` data."""
    if name == "gaussian":
        return okl.Gaussian(sigma=1.0)
    if name == "polynomial":
        return okl.Polynomial(degree=2)
    if name == "linear":
        return okl.Linear()
    if name == "laplacian":
        return okl.Laplacian(sigma=float(np.sqrt(d)))
    raise ValueError(name)


class WholeStreamTiming:
    """asv settings for benchmarks whose one call learns a whole stream (a few ms to
    ~0.2 s): time single calls, a few samples each, no warm-up."""
    timeout = 60.0
    number = 1
    repeat = (1, 10, 10.0)
    warmup_time = 0.0


class _MemoryBudgetedRuns(WholeStreamTiming):
    """A learner under a memory budget (parameters ``learner``, ``memory_budget``): the
    time of ``self.run(learner, memory_budget)`` (the subclass's run of the whole stream),
    the most memory it held and its final support size.  asv finds the methods on the
    subclasses; the leading underscore keeps this class itself out of asv's discovery."""

    def run(self, learner, memory_budget):
        raise NotImplementedError

    def time_run(self, learner, memory_budget):
        self.run(learner, memory_budget)

    def track_max_memory(self, learner, memory_budget):
        return float(self.run(learner, memory_budget).extras["max_memory"])

    track_max_memory.unit = "quanta (float64)"

    def track_support_vectors(self, learner, memory_budget):
        return self.run(learner, memory_budget).final_budget

    track_support_vectors.unit = "support vectors"
