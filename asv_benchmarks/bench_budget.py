"""Budgeted learners over whole streams: Ahpatron, Projectron, Projectron++, BOGD,
BOGD++, Forgetron and RBP.

Each timed call learns one stream of 10^4 rounds from scratch with a fresh
learner (validation, the stream driver and the trace included).  Streams from
``common.classification_stream`` (fixed seed, nonlinear rule):

* ``dense-d10``: dense rows, d = 10, Gaussian kernel with
  ``sigma = 0.25 * rms row norm`` (as in ``bench_learners``);
* ``csr-d123``: CSR rows, d = 123 (the dimension of a9a), ~10% non-zeros
  (~13 a row), ``sigma = 0.5 * rms row norm``: at 0.25 the clusters of this
  stream are nearly orthogonal in feature space and no Projectron ``eta``
  below 1 keeps fewer than ~180 vectors.

On both streams an unbudgeted Perceptron ends with 500 (dense) and 1,200 (CSR)
support vectors, so a budget ``B`` in {100, 300} binds and the budget
maintenance (Ahpatron's halving, the random or oldest-first removals) runs.
The Projectron and Projectron++ have no budget: ``B`` selects the ``eta`` of
``PROJECTRON_ETA``, tuned on these streams so that the final support set is
about ``B`` (93-105 and 296-304 vectors).  ``track_support_vectors`` records
every learner's final ``|S|`` (Ahpatron's drops after each halving to
``B/2 + 1``).  BOGD, BOGD++ and RBP are seeded.  One run takes 5-150 ms here.
"""
import okl

from .common import SEED, classification_stream, gaussian_for

N_ROUNDS = 10**4

#: stream name -> (n_features, sparse, kernel width as a multiple of the rms row norm)
STREAMS = {
    "dense-d10": (10, False, 0.25),
    "csr-d123": (123, True, 0.5),
}

#: (stream, B) -> Projectron / Projectron++ eta giving about B support vectors
PROJECTRON_ETA = {
    ("dense-d10", 100): 0.95,
    ("dense-d10", 300): 0.25,
    ("csr-d123", 100): 0.98,
    ("csr-d123", 300): 0.6,
}


class _BudgetGrid:
    params = [[100, 300], list(STREAMS)]
    param_names = ["B", "stream"]
    timeout = 60.0
    # one call is a whole stream (5-150 ms): time single calls, a few samples each
    number = 1
    repeat = (1, 10, 10.0)
    warmup_time = 0.0

    def setup(self, B, stream):
        d, sparse, scale = STREAMS[stream]
        self.X, self.y = classification_stream(N_ROUNDS, d, sparse)
        self.kernel = gaussian_for(self.X, scale)
        self.B = B
        self.stream = stream

    def learner(self):
        raise NotImplementedError

    def time_run(self, B, stream):
        self.learner().run(self.X, self.y)

    def track_support_vectors(self, B, stream):
        return self.learner().run(self.X, self.y).final_budget

    track_support_vectors.unit = "support vectors"


class Ahpatron(_BudgetGrid):
    def learner(self):
        return okl.Ahpatron(kernel=self.kernel, B=self.B)


class Projectron(_BudgetGrid):
    def learner(self):
        return okl.Projectron(kernel=self.kernel, eta=PROJECTRON_ETA[self.stream, self.B])


class ProjectronPP(_BudgetGrid):
    def learner(self):
        return okl.ProjectronPP(kernel=self.kernel, eta=PROJECTRON_ETA[self.stream, self.B])


class BOGD(_BudgetGrid):
    def learner(self):
        return okl.BOGD(kernel=self.kernel, B=self.B, seed=SEED)


class BOGDPP(_BudgetGrid):
    def learner(self):
        return okl.BOGDPP(kernel=self.kernel, B=self.B, seed=SEED)


class Forgetron(_BudgetGrid):
    def learner(self):
        return okl.Forgetron(kernel=self.kernel, B=self.B)


class RBP(_BudgetGrid):
    def learner(self):
        return okl.RBP(kernel=self.kernel, B=self.B, seed=SEED)
