"""Online kernel selection under budgets (Li & Liao): LKMBooks, PFMBooks, BATBooks and the
budgeted OMKC baseline.

Each timed call learns one stream of 10^4 rounds from scratch with a fresh learner
(validation, the stream driver and the trace included).  Stream:
``common.classification_stream`` dense, d = 10 (fixed seed, nonlinear rule), hinge loss;
the candidate kernels are ``K`` Gaussians with ``sigma = c * rms row norm``, ``c``
log-spaced in ``[1/8, 4]``.  All four learners are seeded.

* ``Selection``: ``time_run`` and ``track_support_vectors`` (final ``|S|``) over the
  learner x ``K`` in {3, 9} x example budget ``B`` in {50, 200}.  (BATBooks' ``B`` is a
  per-round kernel-evaluation budget, so its support set may outgrow ``B``.)  One run
  takes 5-135 ms here.
* ``MemoryBudgeted``: the point of LKMBooks, PFMBooks and OMKC is to stay inside a memory
  budget of ``quanta`` float64 numbers (Definition 1; ``okl.learners.budget_kinds``).  For
  ``memory_budget`` in {1000, 4000} quanta, ``track_max_memory`` records the quanta the
  run actually held at its peak (``Trace.extras["max_memory"]``: stored vectors, their
  coefficients and the learner's fixed state, by the paper's accounting) and
  ``track_support_vectors`` the final ``|S|``; both must stay at or below what the budget
  allows.  A ``peakmem_`` benchmark would measure the process (numpy, the stream: ~100 MB)
  rather than the learner's few tens of KB, so none is kept.
* ``BATBooksTimeBudget``: BATBooks under a per-round time budget of ``quanta``
  multiplications (Definition 2) in {500, 2000}: ``time_run``, and ``track_max_time``
  (the quanta of the costliest round, ``Trace.extras["max_time"]``).
"""
import numpy as np

import okl

from .common import (SEED, WholeStreamTiming, _MemoryBudgetedRuns, classification_stream,
                     mean_sq_norm)

N_ROUNDS = 10**4
D = 10


def _kernels(X, K):
    rms = np.sqrt(mean_sq_norm(X))
    return [okl.Gaussian(float(c * rms)) for c in np.geomspace(0.125, 4.0, K)]


def _make(name, kernels, T, **budget):
    if name == "LKMBooks":
        return okl.LKMBooks(kernels, T=T, seed=SEED, **budget)
    if name == "PFMBooks":
        return okl.PFMBooks(kernels, T=T, seed=SEED, **budget)
    if name == "BATBooks":
        return okl.BATBooks(kernels, T=T, seed=SEED, **budget)
    if name == "OMKC":
        return okl.OMKC(kernels, seed=SEED, **budget)
    raise ValueError(name)


class Selection(WholeStreamTiming):
    params = [["LKMBooks", "PFMBooks", "BATBooks", "OMKC"], [3, 9], [50, 200]]
    param_names = ["learner", "K", "B"]

    def setup(self, learner, K, B):
        self.X, self.y = classification_stream(N_ROUNDS, D, False)
        self.kernels = _kernels(self.X, K)

    def learner(self, learner, B):
        return _make(learner, self.kernels, len(self.y), B=B)

    def time_run(self, learner, K, B):
        self.learner(learner, B).run(self.X, self.y)

    def track_support_vectors(self, learner, K, B):
        return self.learner(learner, B).run(self.X, self.y).final_budget

    track_support_vectors.unit = "support vectors"


class MemoryBudgeted(_MemoryBudgetedRuns):
    params = [["LKMBooks", "PFMBooks", "OMKC"], [1000, 4000]]
    param_names = ["learner", "memory_budget"]

    def setup(self, learner, memory_budget):
        self.X, self.y = classification_stream(N_ROUNDS, D, False)
        self.kernels = _kernels(self.X, 5)

    def run(self, learner, memory_budget):
        return _make(learner, self.kernels, len(self.y),
                     memory_budget=okl.MemoryBudget(memory_budget)).run(self.X, self.y)


class BATBooksTimeBudget(WholeStreamTiming):
    params = [[500, 2000]]
    param_names = ["time_budget"]

    def setup(self, time_budget):
        self.X, self.y = classification_stream(N_ROUNDS, D, False)
        self.kernels = _kernels(self.X, 5)

    def run(self, time_budget):
        return _make("BATBooks", self.kernels, len(self.y),
                     time_budget=okl.TimeBudget(time_budget)).run(self.X, self.y)

    def time_run(self, time_budget):
        self.run(time_budget)

    def track_max_time(self, time_budget):
        return float(self.run(time_budget).extras["max_time"])

    track_max_time.unit = "quanta (multiplications)"
