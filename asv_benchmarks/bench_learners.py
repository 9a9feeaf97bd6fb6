"""Whole streams: ``Perceptron.run`` and ``KernelOGD.run`` (hinge loss).

Each timed call learns one stream from scratch with a fresh learner
(validation, the stream driver and the trace included), Gaussian kernel with
``sigma = 0.25 * rms row norm``.  The streams come from
``common.classification_stream`` (fixed seed, nonlinear rule), on which the
support set grows to a few hundred to a few thousand vectors; the
``track_support_vectors`` benchmarks record how many.

The grid is ``n_rounds`` in {10^4, 10^5} x ``n_features`` in {10, 300} x
dense/CSR, subsampled so that one run stays under ~5 s on a 2-core machine
(combinations left out show as n/a; see ``SKIPPED``):

* CSR only at d = 300 (10% of 10 features is a single non-zero);
* 10^5 rounds only at d = 10: an unbudgeted learner at d = 300 over 10^5
  rounds holds thousands of 300-d vectors and a run takes 30-90 s.
"""
import okl

from .common import classification_stream, gaussian_for

#: (n_rounds, n_features, storage) combinations left out, and why
SKIPPED = {
    (10**4, 10, "csr"): "10% of 10 features is one non-zero per row",
    (10**5, 10, "csr"): "10% of 10 features is one non-zero per row",
    (10**5, 300, "dense"): "one run takes over a minute",
    (10**5, 300, "csr"): "one run takes over 30 s",
}


class _StreamGrid:
    params = [[10**4, 10**5], [10, 300], ["dense", "csr"]]
    param_names = ["n_rounds", "n_features", "storage"]
    timeout = 120.0
    # one call is a whole stream (0.05-5 s): time single calls, a few samples each
    number = 1
    repeat = (1, 5, 20.0)
    warmup_time = 0.0

    def setup(self, n_rounds, n_features, storage):
        if (n_rounds, n_features, storage) in SKIPPED:
            raise NotImplementedError(SKIPPED[(n_rounds, n_features, storage)])
        self.X, self.y = classification_stream(n_rounds, n_features, storage == "csr")
        self.kernel = gaussian_for(self.X)

    def learner(self):
        raise NotImplementedError

    def track_support_vectors(self, n_rounds, n_features, storage):
        return self.learner().run(self.X, self.y).final_budget

    track_support_vectors.unit = "support vectors"


class Perceptron(_StreamGrid):
    def learner(self):
        return okl.Perceptron(kernel=self.kernel)

    def time_run(self, n_rounds, n_features, storage):
        self.learner().run(self.X, self.y)


class KernelOGDHinge(_StreamGrid):
    def learner(self):
        return okl.KernelOGD(kernel=self.kernel, loss="hinge", eta=1.0)

    def time_run(self, n_rounds, n_features, storage):
        self.learner().run(self.X, self.y)
