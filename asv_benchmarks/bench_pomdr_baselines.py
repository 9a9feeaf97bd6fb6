"""The baselines of Table 2 of Li & Liao (AAAI 2023): SkeGD and B(AO)2KS.

Each timed call learns one stream from scratch with a fresh learner (validation, the
stream driver and the trace included), with the settings of the authors' R code (okl's
defaults: SkeGD ``s_p = 0.75 B``, ``s_m = 0.15 B``, ``k = 0.1 B``, ``eta = 0.1/sqrt(T)``,
``cycle = 0.3 T``; B(AO)2KS ``lambda = 10/sqrt(T)``, ``M = round(ln T)``, ``beta = 6``,
``U = 30``), seeded.  Stream: ``common.classification_stream`` dense, d = 10, 6,000 rounds
(``0.3 T = 1800``: SkeGD refreshes its sketches), Gaussian kernel with ``sigma = 0.5 * rms
row norm`` (as ``benchmarks/ratios_pomdr_baselines.py``, smaller).  ``B`` in {100, 400}: SkeGD's
kernel stage, switch (a ``B x B`` Gram matrix, the factorizations of its sketches) and
sketched rounds; B(AO)2KS's restarts.  ``track_kernel_evaluations`` records the kernel
values a run computes (``Trace.extras``), ``track_refreshes`` / ``track_restarts`` what
happened.
"""
import okl

from .common import SEED, WholeStreamTiming, classification_stream, gaussian_for

N_ROUNDS = 6000


class SeedBaselines(WholeStreamTiming):
    params = [["SkeGD", "B(AO)2KS"], [100, 400]]
    param_names = ["learner", "B"]

    def setup(self, learner, B):
        self.X, self.y = classification_stream(N_ROUNDS, 10, False)
        self.kernel = gaussian_for(self.X, 0.5)

    def learner(self, learner, B):
        if learner == "SkeGD":
            return okl.SkeGD(self.kernel, B=B, seed=SEED)
        return okl.BAO2KS(self.kernel, B=B, seed=SEED)

    def time_run(self, learner, B):
        self.learner(learner, B).run(self.X, self.y)

    def track_kernel_evaluations(self, learner, B):
        return self.learner(learner, B).run(self.X, self.y).extras["kernel_evaluations"]

    track_kernel_evaluations.unit = "kernel values"

    def track_mistake_rate(self, learner, B):
        return self.learner(learner, B).run(self.X, self.y).mistake_rate

    track_mistake_rate.unit = "mistakes / round"


class SkeGDSketchUpdates(WholeStreamTiming):
    """SkeGD's sketch updates alone: ``cycle`` small enough for a refresh every few hundred
    margin errors, and huge (none), on the same stream."""
    params = [[200.0, 1e9]]
    param_names = ["cycle"]

    def setup(self, cycle):
        self.X, self.y = classification_stream(N_ROUNDS, 10, False)
        self.kernel = gaussian_for(self.X, 0.5)

    def time_run(self, cycle):
        okl.SkeGD(self.kernel, B=400, cycle=cycle, seed=SEED).run(self.X, self.y)

    def track_refreshes(self, cycle):
        return okl.SkeGD(self.kernel, B=400, cycle=cycle, seed=SEED).run(
            self.X, self.y).extras["refreshes"]

    track_refreshes.unit = "refreshes"
