"""Experts and bandits over a loss matrix: Hedge, MSMW and OSMD (the selection layer of
Li & Liao's kernel-selection learners).

Each timed call plays 10^4 rounds from scratch (``learner.run(losses)``, validation and
the trace included) on a fixed-seed loss matrix: ``K`` actions in {10, 100}, losses
``0.7 u + o_k`` (``u`` uniform in ``[0, 1)``, offsets ``o_k`` evenly spaced in ``[0, 0.3]``,
so action 1 is best) in ``[0, 1]``.  Hedge sees full
information; MSMW is run with all scales ``c_i = 1`` (its loss form); OSMD with bandit
feedback and with the "explore" feedback.  ``track_regret`` records the run's cumulative
expected loss (``ExpertsTrace.expected_losses``: the probabilities played against the
round's losses) minus that of the best action in hindsight (seeded; it changes only with
the algorithm).  One run takes 3-40 ms here.
"""
import numpy as np

import okl

from .common import SEED, WholeStreamTiming

N_ROUNDS = 10**4


def _losses(K):
    rng = np.random.default_rng(SEED)
    offset = np.linspace(0.0, 0.3, K)
    return np.clip(rng.random((N_ROUNDS, K)) * 0.7 + offset, 0.0, 1.0)


class _Grid(WholeStreamTiming):
    params = [[10, 100]]
    param_names = ["K"]

    def setup(self, K):
        self.L = _losses(K)

    def learner(self, K):
        raise NotImplementedError

    def time_run(self, K):
        self.learner(K).run(self.L)

    def track_regret(self, K):
        tr = self.learner(K).run(self.L)
        return float(tr.expected_losses.sum() - self.L.sum(axis=0).min())

    track_regret.unit = "loss"


class Hedge(_Grid):
    def learner(self, K):
        return okl.Hedge(K, horizon=N_ROUNDS, seed=SEED)


class MSMW(_Grid):
    def learner(self, K):
        return okl.MSMW(np.ones(K), horizon=N_ROUNDS, seed=SEED)


class OSMDBandit(_Grid):
    def learner(self, K):
        return okl.OSMD(K, horizon=N_ROUNDS, feedback="bandit", seed=SEED)


class OSMDExplore(_Grid):
    def learner(self, K):
        return okl.OSMD(K, horizon=N_ROUNDS, feedback="explore", seed=SEED)
