"""What a call costs besides its rounds (``benchmarks/overhead.py`` prints the ratios).

* ``PerCall``: 2,000 rows learned one call at a time -- ``learn_one`` with each row a
  1-row CSR matrix, a float64 vector or a list, and ``partial_fit`` on 1-row CSR
  slices -- against ``time_run``, one ``.run`` over the same rows (the per-round
  cost); CSR rows of a9a's shape (d = 123, ~13 non-zeros) from
  ``common.classification_stream``, BOGD (B = 300) and Perceptron.  The rows are
  built in ``setup``; each timed call starts from a fresh learner.
* ``OutsideLoop``: ``.run`` over 30,000 x 123 (CSR int32 / int64 indices, dense) with
  a budget of 10: the round loop is short, so the time is mostly validation, trace
  set-up and the call itself (``track_outside_loop_ms`` records ``.run`` minus
  ``Trace.seconds``).
* ``Memory``: ``peakmem_run``, the process's peak while a BOGD run learns a dense
  200,000 x 18 stream (28.8 MB; the stream itself is part of the peak).
"""
import numpy as np
import scipy.sparse as sp

import okl

from .common import classification_stream, gaussian_for

N_ROWS = 2000


def _learners(kernel):
    return {
        "BOGD": lambda: okl.BOGD(kernel=kernel, B=300, seed=0),
        "Perceptron": lambda: okl.Perceptron(kernel=kernel),
    }


class _Rows:
    params = [["BOGD", "Perceptron"]]
    param_names = ["learner"]
    number = 1
    repeat = (3, 10, 20.0)
    warmup_time = 0.0

    def setup(self, learner):
        X, y = classification_stream(N_ROWS, 123, sparse=True)
        self.X = sp.csr_matrix(X)
        self.y = y
        self.labels = [float(v) for v in y]
        self.make = _learners(gaussian_for(self.X, 0.5))[learner]
        self.csr_rows = [self.X[i] for i in range(N_ROWS)]
        self.dense = self.X.toarray()
        self.dense_rows = list(self.dense)
        self.list_rows = [r.tolist() for r in self.dense]
        self.slices = [self.X[i:i + 1] for i in range(N_ROWS)]


class PerCall(_Rows):
    def time_run(self, learner):
        self.make().run(self.X, self.y)

    def time_learn_one_csr_rows(self, learner):
        L = self.make()
        for x, v in zip(self.csr_rows, self.labels):
            L.learn_one(x, v)

    def time_learn_one_dense_rows(self, learner):
        L = self.make()
        for x, v in zip(self.dense_rows, self.labels):
            L.learn_one(x, v)

    def time_learn_one_lists(self, learner):
        L = self.make()
        for x, v in zip(self.list_rows, self.labels):
            L.learn_one(x, v)

    def time_partial_fit_one_row_slices(self, learner):
        L = self.make()
        for x, v in zip(self.slices, self.y[:, None]):
            L.partial_fit(x, v)

class PredictOne(_Rows):
    """``predict_one`` on the 2,000 CSR rows, by a learner that has learned them."""

    def setup(self, learner):
        super().setup(learner)
        self.learned = self.make()
        self.learned.run(self.X, self.y)

    def time_predict_one_csr_rows(self, learner):
        L = self.learned
        for x in self.csr_rows:
            L.predict_one(x)


class OutsideLoop:
    params = [["csr-int32", "csr-int64", "dense"]]
    param_names = ["storage"]
    number = 1
    repeat = (5, 20, 10.0)
    warmup_time = 0.0

    def setup(self, storage):
        X, y = classification_stream(30_000, 123, sparse=True)
        X = sp.csr_matrix(X)
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
        if storage == "csr-int64":
            X.indices = X.indices.astype(np.int64)
            X.indptr = X.indptr.astype(np.int64)
        elif storage == "dense":
            X = X.toarray()
        self.X, self.y = X, y
        self.kernel = gaussian_for(X, 0.5)

    def time_run(self, storage):
        okl.BOGD(kernel=self.kernel, B=10, seed=0).run(self.X, self.y)

    def track_outside_loop_ms(self, storage):
        best = float("inf")
        import time

        for _ in range(5):
            learner = okl.BOGD(kernel=self.kernel, B=10, seed=0)
            start = time.perf_counter()
            tr = learner.run(self.X, self.y)
            best = min(best, time.perf_counter() - start - tr.seconds)
        return best * 1e3

    track_outside_loop_ms.unit = "ms"


class Memory:
    timeout = 120.0

    def setup(self):
        rng = np.random.default_rng(0)
        self.X = rng.standard_normal((200_000, 18))
        self.y = np.where(self.X[:, 0] * self.X[:, 1] > 0, 1.0, -1.0)

    def peakmem_run(self):
        okl.BOGD(kernel=okl.Gaussian(2.0), B=100, seed=0).run(self.X, self.y)
