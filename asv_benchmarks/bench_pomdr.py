"""POMDR (Li & Liao, AAAI 2023, Algorithm 1) over a whole stream.

Each timed call learns one stream from scratch with a fresh learner (validation, the
stream driver and the trace included), with the experiments' settings ``U = 25``,
``M = 15``, ``c = 0.1`` and the ALD threshold ``10 T^-zeta``, ``zeta = 0.5``.  Stream:
``common.classification_stream`` dense, d = 10, 4,000 rounds, Gaussian kernel with
``sigma = 0.5 * rms row norm`` (the setting of ``benchmarks/ratios_pomdr.py``, smaller).
``B0 = 40`` and ``B`` in {100, 200}: POMD runs the ALD test until ``|S| = 40``, then OMDR
grows ``S`` to ``B`` and halves it (``track_halvings`` records how often), so both phases
are timed.  One run takes a few ms here.
"""
from okl.learners.pomdr import POMDR

from .common import WholeStreamTiming, classification_stream, gaussian_for

N_ROUNDS = 4000
SETTINGS = dict(U=25.0, M=15, zeta=0.5, c=0.1, ald_scale=10.0, B0=40)


class POMDRRun(WholeStreamTiming):
    params = [[100, 200]]
    param_names = ["B"]

    def setup(self, B):
        self.X, self.y = classification_stream(N_ROUNDS, 10, False)
        self.kernel = gaussian_for(self.X, 0.5)

    def learner(self, B):
        return POMDR(kernel=self.kernel, B=B, **SETTINGS)

    def time_run(self, B):
        self.learner(B).run(self.X, self.y)

    def track_halvings(self, B):
        return self.learner(B).run(self.X, self.y).extras["halvings"]

    track_halvings.unit = "halvings"

    def track_t_bar(self, B):
        return self.learner(B).run(self.X, self.y).extras["t_bar"]

    track_t_bar.unit = "round"
