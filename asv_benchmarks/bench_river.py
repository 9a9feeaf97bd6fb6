"""okl.river: the per-call cost River users pay, against okl's own ``learn_one``.

Each timed call learns 2,000 examples one at a time with a fresh learner: BOGD
(B = 100) on rows of ``common.classification_stream`` (d = 20, dense), given as
numpy rows to ``learner.learn_one`` or as feature dicts to
``okl.river.Classifier.learn_one`` (after ``predict_one``, River's protocol, in
``time_river_predict_learn``).  Skipped when River is not installed.
"""
import okl

from .common import SEED, classification_stream, gaussian_for

N = 2000


class RiverWrapper:
    params = [["okl learn_one", "okl.river learn_one", "okl.river predict+learn"]]
    param_names = ["path"]
    number = 1
    repeat = (3, 10, 10.0)

    def setup(self, path):
        if path.startswith("okl.river"):
            try:
                import river  # noqa: F401
            except ImportError:
                raise NotImplementedError("river is not installed")
        self.X, self.y = classification_stream(N, 20, False)
        self.kernel = gaussian_for(self.X)
        self.dicts = [{f"x{j}": float(v) for j, v in enumerate(row)} for row in self.X]
        self.labels = [bool(v > 0) for v in self.y]

    def _learner(self):
        return okl.BOGD(kernel=self.kernel, B=100, seed=SEED)

    def time_per_example(self, path):
        if path == "okl learn_one":
            learner = self._learner()
            for x, label in zip(self.X, self.y):
                learner.learn_one(x, label)
            return
        from okl.river import Classifier

        model = Classifier(self._learner())
        predict = path.endswith("predict+learn")
        for x, label in zip(self.dicts, self.labels):
            if predict:
                model.predict_one(x)
            model.learn_one(x, label)
