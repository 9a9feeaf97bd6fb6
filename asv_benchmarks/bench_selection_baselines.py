"""The baselines of Tables 4-7 of the kernel-selection paper of Li & Liao: OKS / BOKS, ISKA,
BOMKR and BOMKR-V.

Each timed call learns one stream of 10^4 rounds from scratch with a fresh learner
(validation, the stream driver and the trace included).  Streams:
``common.classification_stream`` dense, d = 10 (fixed seed, nonlinear rule) for the
classifiers (BOKS, ISKA); for the regressors (BOKS with the absolute loss, BOMKR,
BOMKR-V) the same inputs with the real target ``sin(2 x_1) + x_2 x_3`` of their first
coordinates.  The candidate kernels are ``K`` Gaussians with ``sigma = c * rms row
norm``, ``c`` log-spaced in ``[1/8, 4]`` (as ``bench_selection``).  The randomized ones are
seeded.

* ``Baselines``: ``time_run`` and ``track_support_vectors`` (final entries over all sets)
  over the learner x ``K`` in {3, 9} x the example budget ``B`` in {50, 200} (BOMKR's ``B``
  is split into ``K`` per-kernel budgets ``ceil(B/K)``).
* ``MemoryBudgeted``: each learner under a memory budget of ``quanta`` float64s (Definition
  1; ``okl.learners.budget_kinds``) in {1000, 4000}: ``track_max_memory`` (peak quanta held, by
  Table 3's accounting) must stay at or below the budget; ``track_support_vectors`` shows
  how many entries each keeps -- the shared learners (BOMKR-V, ISKA) against the ones with
  ``K`` separate sets (BOKS, BOMKR).
* ``OKS``: the unbudgeted OKS (its sets grow with its updates), ``time_run`` for ``K`` in
  {3, 9}.
"""
import numpy as np

import okl

from .common import (SEED, WholeStreamTiming, _MemoryBudgetedRuns, classification_stream,
                     mean_sq_norm)

N_ROUNDS = 10**4
D = 10
LEARNERS = ["BOKS", "BOKS-r", "ISKA", "BOMKR", "BOMKR-V"]


def _kernels(X, K):
    rms = np.sqrt(mean_sq_norm(X))
    return [okl.Gaussian(float(c * rms)) for c in np.geomspace(0.125, 4.0, K)]


def _streams():
    X, y = classification_stream(N_ROUNDS, D, False)
    yr = np.sin(2.0 * X[:, 0]) + X[:, 1] * X[:, 2]
    return X, y, yr


def _make(name, kernels, T, **budget):
    if name == "BOKS":
        return okl.BOKS(kernels, T=T, seed=SEED, **budget)
    if name == "BOKS-r":
        return okl.BOKS(kernels, loss="absolute", T=T, seed=SEED, **budget)
    if name == "ISKA":
        return okl.ISKA(kernels, T=T, seed=SEED, **budget)
    if name == "BOMKR":
        return okl.BOMKR(kernels, T=T, **budget)
    if name == "BOMKR-V":
        return okl.BOMKRV(kernels, T=T, **budget)
    raise ValueError(name)


def _labels(name, y, yr):
    return y if name in ("BOKS", "ISKA") else yr


class Baselines(WholeStreamTiming):
    params = [LEARNERS, [3, 9], [50, 200]]
    param_names = ["learner", "K", "B"]

    def setup(self, learner, K, B):
        self.X, self.y, self.yr = _streams()
        self.kernels = _kernels(self.X, K)

    def run(self, learner, B):
        return _make(learner, self.kernels, N_ROUNDS, B=B).run(
            self.X, _labels(learner, self.y, self.yr))

    def time_run(self, learner, K, B):
        self.run(learner, B)

    def track_support_vectors(self, learner, K, B):
        return self.run(learner, B).final_budget

    track_support_vectors.unit = "support vectors"


class MemoryBudgeted(_MemoryBudgetedRuns):
    params = [LEARNERS, [1000, 4000]]
    param_names = ["learner", "memory_budget"]

    def setup(self, learner, memory_budget):
        self.X, self.y, self.yr = _streams()
        self.kernels = _kernels(self.X, 5)

    def run(self, learner, memory_budget):
        return _make(learner, self.kernels, N_ROUNDS,
                     memory_budget=okl.MemoryBudget(memory_budget)).run(
            self.X, _labels(learner, self.y, self.yr))


class OKS(WholeStreamTiming):
    params = [[3, 9]]
    param_names = ["K"]

    def setup(self, K):
        self.X, self.y, _ = _streams()
        self.kernels = _kernels(self.X, K)

    def time_run(self, K):
        okl.OKS(self.kernels, T=N_ROUNDS, seed=SEED).run(self.X, self.y)

    def track_support_vectors(self, K):
        return okl.OKS(self.kernels, T=N_ROUNDS, seed=SEED).run(self.X, self.y).final_budget

    track_support_vectors.unit = "support vectors"
