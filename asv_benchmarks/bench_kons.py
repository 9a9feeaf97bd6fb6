"""Sketched-KONS and Pros-N-KONS (Calandriello, Lazaric & Valko 2017; the competitors of
PKAWV in Jezequel, Gaillard & Rudi 2019).

Each timed call learns one stream from scratch with a fresh learner (validation, the
stream driver and the trace included).  Stream: ``common.classification_stream`` with
d = 8 dense rows (fixed seed, nonlinear rule), rescaled so that ``max ||x_t|| = 1``;
Gaussian kernel ``sigma = 1``, ``alpha = 1``, ``C = 1``, ``eta = 1/16``,
``task="classification"`` (the sign of the square-loss forecast).

* ``SketchedKONSRun``: 5,000 rounds, ``gamma`` in {0.01, 0.1} (a kernel row over every
  past input plus O(m^2), m ~ gamma t).
* ``ProsNKONSRun``: 5,000 rounds, the paper's KORS settings ``mu = beta = 1``,
  ``eps = 0.5`` and a coarser ``mu = 10``; both variants ("paper" and "jgr2019").
  ``track_dictionary`` records the final dictionary size.
"""
import numpy as np

import okl
from okl.learners.kons import ProsNKONS, SketchedKONS

from .common import classification_stream

D = 8
T = 5000


def _stream():
    X, y = classification_stream(T, D)
    X = X / np.sqrt(np.einsum("ij,ij->i", X, X).max())
    return X, y


class _Grid:
    timeout = 120.0
    number = 1
    repeat = (1, 5, 20.0)
    warmup_time = 0.0


class SketchedKONSRun(_Grid):
    params = [[0.01, 0.1]]
    param_names = ["gamma"]

    def setup(self, gamma):
        self.X, self.y = _stream()

    def time_run(self, gamma):
        SketchedKONS(okl.Gaussian(1.0), gamma=gamma, task="classification",
                     seed=0).run(self.X, self.y)


class ProsNKONSRun(_Grid):
    params = [[1.0, 10.0], ["paper", "jgr2019"]]
    param_names = ["mu", "variant"]

    def setup(self, mu, variant):
        self.X, self.y = _stream()

    def learner(self, mu, variant):
        return ProsNKONS(okl.Gaussian(1.0), mu=mu, variant=variant, task="classification",
                         seed=0)

    def time_run(self, mu, variant):
        self.learner(mu, variant).run(self.X, self.y)

    def track_dictionary(self, mu, variant):
        return int(self.learner(mu, variant).run(self.X, self.y).final_budget)

    track_dictionary.unit = "points"
