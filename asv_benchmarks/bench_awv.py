"""Kernel-AWV (exact, O(t^2) a round) and PKAWV with the Gaussian Taylor basis
(Jézéquel, Gaillard & Rudi 2019).

Each timed call learns one stream from scratch with a fresh learner (validation,
the stream driver and the trace included).  Stream: ``common.classification_stream``
with d = 8 dense rows (fixed seed, nonlinear rule), rescaled so that
``max ||x_t|| = 1`` (the paper scales inputs to ``[-1, 1]^d``); Gaussian kernel
``sigma = 1``, ``lam = 1`` (the paper's experiments), ``task="classification"``
(the sign of the square-loss forecast).

* ``KernelAWV``: n in {1000, 3000} rounds; both forecasters ("awv" is (3),
  "krr" kernel ridge regression).  O(n^3) in all: ~0.05 s and ~1.8 s here.
* ``PKAWVTaylor``: 10^5 rounds, M in {2, 3} (r = 45 and 165 features); ~0.1 s
  and ~0.9 s here.  ``track_mistakes`` records the mistakes of the run.
"""
import numpy as np

import okl
from okl.learners.awv import KernelAWV, PKAWV

from .common import classification_stream

D = 8


def _stream(n_rounds):
    X, y = classification_stream(n_rounds, D)
    X = X / np.sqrt(np.einsum("ij,ij->i", X, X).max())
    return X, y


class _Grid:
    timeout = 120.0
    number = 1
    repeat = (1, 5, 20.0)
    warmup_time = 0.0


class KernelAWVRun(_Grid):
    params = [[1000, 3000], ["awv", "krr"]]
    param_names = ["n_rounds", "forecaster"]

    def setup(self, n_rounds, forecaster):
        self.X, self.y = _stream(n_rounds)

    def time_run(self, n_rounds, forecaster):
        KernelAWV(okl.Gaussian(1.0), lam=1.0, forecaster=forecaster,
                  task="classification").run(self.X, self.y)


class PKAWVTaylor(_Grid):
    params = [[2, 3]]
    param_names = ["M"]

    def setup(self, M):
        self.X, self.y = _stream(10**5)

    def learner(self, M):
        return PKAWV(basis="taylor", kernel=okl.Gaussian(1.0), lam=1.0, M=M,
                     task="classification")

    def time_run(self, M):
        self.learner(M).run(self.X, self.y)

    def track_mistakes(self, M):
        return int(self.learner(M).run(self.X, self.y).mistakes.sum())

    track_mistakes.unit = "mistakes"
