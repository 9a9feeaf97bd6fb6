"""Multiclass streams (issue 26) and BSGD (issue 27): whole ``run`` calls.

The stream is letter-shaped (``benchmarks/ratios_multiclass.letter_stream``'s rule: K
classes in d = 16, one Gaussian centre per class), K in {3, 26}; Gaussian kernel
sigma = 2.  ``MulticlassPerceptron`` (one kernel row a round for all classes) beside
``OneVsRest`` over binary Perceptrons (K kernel rows a round), the LIBOKL budgeted
``MulticlassBOGD`` (B = 200) and ``MulticlassBSGD`` with merging (B = 100, the
golden-section search of each merge); ``track_support_vectors`` records the sizes.
"""
import numpy as np

import okl

T = 5000


def letter_stream(T, K, d=16, seed=26):
    rng = np.random.default_rng(seed)
    centres = 0.5 * rng.normal(size=(K, d))     # overlapping classes: the sets grow
    y = rng.integers(0, K, T)
    return np.ascontiguousarray(centres[y] + rng.normal(size=(T, d))), y


class _Multiclass:
    params = [[3, 26]]
    param_names = ["n_classes"]
    timeout = 120.0
    number = 1
    repeat = (1, 5, 20.0)
    warmup_time = 0.0

    def setup(self, n_classes):
        self.X, self.y = letter_stream(T, n_classes)
        self.kernel = okl.Gaussian(2.0)
        self.classes = list(range(n_classes))

    def time_run(self, n_classes):
        self.learner().run(self.X, self.y)

    def track_support_vectors(self, n_classes):
        return self.learner().run(self.X, self.y).final_budget

    track_support_vectors.unit = "support vectors"


class MulticlassPerceptron(_Multiclass):
    def learner(self):
        return okl.MulticlassPerceptron(self.kernel, classes=self.classes)


class OneVsRestPerceptron(_Multiclass):
    def learner(self):
        return okl.OneVsRest(okl.Perceptron(self.kernel), classes=self.classes)


class MulticlassBOGD(_Multiclass):
    def learner(self):
        return okl.MulticlassBOGD(self.kernel, B=200, classes=self.classes)


class MulticlassBSGDMerging(_Multiclass):
    def learner(self):
        return okl.MulticlassBSGD(self.kernel, B=100, maintenance="merging", seed=0,
                                  classes=self.classes)
