"""Kernel rows: ``SupportSet.kernel_rows`` and ``kernel_matrix``.

One call computes ``k(x, S)`` for ``N_QUERIES`` query rows against a support
set of ``|S|`` vectors: the per-round work of every okl learner, batched.
Grid: the four kernels x |S| in {100, 400} x d in {10, 100, 300} x dense/CSR
(CSR inputs have ~10% non-zeros).
"""
import okl

from .common import make_kernel, random_rows

N_QUERIES = 1000

KERNELS = ["gaussian", "polynomial", "linear", "laplacian"]
SIZES = [100, 400]
DIMS = [10, 100, 300]
STORAGES = ["dense", "csr"]


class _KernelGrid:
    params = [KERNELS, SIZES, DIMS, STORAGES]
    param_names = ["kernel", "n_support", "n_features", "storage"]
    timeout = 60.0

    def _data(self, kernel, n_support, n_features, storage):
        sparse = storage == "csr"
        self.k = make_kernel(kernel, n_features)
        self.S = random_rows(n_support, n_features, sparse, seed=1)
        self.Q = random_rows(N_QUERIES, n_features, sparse, seed=2)


class TimeSupportSetKernelRows(_KernelGrid):
    """``SupportSet.kernel_rows(Q)``: (1000, |S|) kernel values, validation included."""

    def setup(self, kernel, n_support, n_features, storage):
        self._data(kernel, n_support, n_features, storage)
        self.ss = okl.SupportSet(self.k, n_features, n_support)
        for i in range(n_support):
            self.ss.push(self.S[i], 1.0)

    def time_kernel_rows(self, kernel, n_support, n_features, storage):
        self.ss.kernel_rows(self.Q)


class TimeKernelMatrix(_KernelGrid):
    """``okl.kernel_matrix(k, Q, S)``: the same values, support set built from ``S``."""

    def setup(self, kernel, n_support, n_features, storage):
        self._data(kernel, n_support, n_features, storage)

    def time_kernel_matrix(self, kernel, n_support, n_features, storage):
        okl.kernel_matrix(self.k, self.Q, self.S)
