"""Random-feature and Nystrom online gradient descent (Lu et al., JMLR 2016): FOGD and NOGD.

Each timed call learns one stream of 10^4 rounds from scratch with a fresh learner
(validation, the stream driver and the trace included).  Stream:
``common.classification_stream`` dense, d = 10 (fixed seed, nonlinear rule), Gaussian
kernel with ``sigma = 0.25 * rms row norm`` (as in ``bench_learners``), hinge loss.

* ``FOGD``: ``D`` in {100, 400} random Fourier features (a round costs O(D d));
* ``NOGD``: budget ``B`` in {100, 400} (a kernel-OGD phase until ``|S| = B``, then the
  Nystrom features of the first ``B`` vectors, rank ``k = B`` by default).

``track_mistakes`` records the mistakes of the run (seeded, so it only changes when the
algorithm does).  One run takes 10-130 ms here.

* ``FOGDSparse``: D = 400 on 10^4 CSR rows, d = 123 (the a9a shape), both ``sincos``
  paths: ``"vector"`` (``okl/_vtrig.h``) and ``"libm"``;
* ``NOGDRank``: B in {100, 400} at ``k = B`` (the ``B x B`` map, kept as coefficients
  on S), hinge and logistic loss (the logistic loss updates every round, so the core
  keeps ``w`` instead);
* ``Sincos``: ``okl.learners._features._sincos`` on 10^6 arguments uniform in
  [-8, 8], both paths.
"""
import numpy as np

import okl
from okl.learners._features import _sincos

from .common import SEED, WholeStreamTiming, classification_stream, gaussian_for

N_ROUNDS = 10**4


class _FeatureGrid(WholeStreamTiming):
    def setup(self, size):
        self.X, self.y = classification_stream(N_ROUNDS, 10, False)
        self.kernel = gaussian_for(self.X)

    def learner(self, size):
        raise NotImplementedError

    def time_run(self, size):
        self.learner(size).run(self.X, self.y)

    def track_mistakes(self, size):
        return int(self.learner(size).run(self.X, self.y).mistakes.sum())

    track_mistakes.unit = "mistakes"


class FOGD(_FeatureGrid):
    params = [[100, 400]]
    param_names = ["D"]

    def learner(self, D):
        return okl.FOGD(kernel=self.kernel, D=D, eta=0.5, seed=SEED)


class NOGD(_FeatureGrid):
    params = [[100, 400]]
    param_names = ["B"]

    def learner(self, B):
        return okl.NOGD(kernel=self.kernel, B=B, eta=0.5, seed=SEED)


class FOGDSparse(_FeatureGrid):
    params = [["vector", "libm"]]
    param_names = ["sincos"]

    def setup(self, sincos):
        self.X, self.y = classification_stream(N_ROUNDS, 123, True)
        self.kernel = gaussian_for(self.X, 0.5)

    def learner(self, sincos):
        return okl.FOGD(kernel=self.kernel, D=400, eta=0.5, seed=SEED, sincos=sincos)


class NOGDRank(_FeatureGrid):
    params = [[100, 400], ["hinge", "logistic"]]
    param_names = ["B", "loss"]

    def setup(self, B, loss):
        super().setup(B)

    def learner(self, B, loss):
        return okl.NOGD(kernel=self.kernel, B=B, k=B, eta=0.5, loss=loss)

    def time_run(self, B, loss):
        self.learner(B, loss).run(self.X, self.y)

    def track_mistakes(self, B, loss):
        return int(self.learner(B, loss).run(self.X, self.y).mistakes.sum())

    track_mistakes.unit = "mistakes"


class Sincos:
    params = [["vector", "libm"]]
    param_names = ["path"]
    number = 1
    repeat = (3, 10, 10.0)

    def setup(self, path):
        self.x = np.random.default_rng(SEED).uniform(-8.0, 8.0, 10**6)

    def time_sincos(self, path):
        _sincos(self.x, 1.0, path == "libm")
