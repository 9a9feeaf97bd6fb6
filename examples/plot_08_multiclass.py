"""
Multiclass learners on handwritten digits
=========================================

The field's benchmarks are multiclass (USPS, MNIST, letter, satimage, dna ...).  okl's
native multiclass learners keep one support set with a coefficient per class and
compute one kernel row per round for all ``K`` classes:

* ``MulticlassPerceptron`` (Crammer & Singer 2003), with the max-score, uniform and
  proportional updates of its ultraconservative family;
* ``MulticlassPA`` (Crammer et al. 2006), the passive-aggressive PA-I step against the
  highest-scoring wrong class;
* ``MulticlassProjectronPP`` (Orabona, Keshet & Caputo 2009), which projects an update
  onto the span of the classes' support vectors when it is close enough to it, and so
  keeps far fewer vectors.

Any binary learner runs on ``K`` classes as ``okl.OneVsRest`` (``K`` copies, ``K``
kernel rows a round) or ``okl.OneVsOne`` (a copy per pair of classes).  The stream
here is scikit-learn's bundled digits (1,797 images of 8 x 8 pixels, 10 classes,
scaled to [0, 1]), in five random orders, Gaussian kernel sigma = 1.5 (2.5 for the
Projectron++, whose projections need a wider kernel: at sigma = 1.5 the 64-dimensional
digits are too far apart in the kernel's space for any update to be projected, and it is
the Perceptron).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

import okl

digits = load_digits()
X = digits.data / 16.0
y = digits.target
kernel = okl.Gaussian(sigma=1.5)
classes = list(range(10))
makers = {
    "Perceptron, max-score": lambda: okl.MulticlassPerceptron(kernel, classes=classes),
    "Perceptron, uniform": lambda: okl.MulticlassPerceptron(kernel, update="uniform",
                                                            classes=classes),
    "PA-I (C = 1)": lambda: okl.MulticlassPA(kernel, variant="pa1", classes=classes),
    # the projection needs a wider kernel to find updates close to the span
    "Projectron++ (sigma 2.5, eta 0.9)": lambda: okl.MulticlassProjectronPP(
        okl.Gaussian(2.5), eta=0.9, classes=classes),
    "OneVsRest(Perceptron)": lambda: okl.OneVsRest(okl.Perceptron(kernel), classes=classes),
    "OneVsOne(Perceptron)": lambda: okl.OneVsOne(okl.Perceptron(kernel), classes=classes),
}
orders = [np.random.default_rng(p).permutation(len(y)) for p in range(5)]
results = {name: [make().run(X[o], y[o]) for o in orders] for name, make in makers.items()}

print(f"{'learner':<36}{'mistake rate':>16}{'support vectors':>18}{'ms':>8}")
for name, traces in results.items():
    rates = [t.mistake_rate for t in traces]
    print(f"{name:<36}{np.mean(rates):>10.4f} +- {np.std(rates, ddof=1):.4f}"
          f"{np.mean([t.final_budget for t in traces]):>18.0f}"
          f"{1e3 * np.mean([t.seconds for t in traces]):>8.1f}")

# %%
# Mistakes over the stream, and which digits are confused
# -------------------------------------------------------
# The left panel shows the cumulative mistake rate of the first order; the right one
# the online confusion matrix of the max-score Perceptron (the predicted class of each
# round against the true one, over the five orders).
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
for name, traces in results.items():
    t = traces[0]
    left.plot(np.cumsum(t.mistakes) / np.arange(1, t.n_rounds + 1), label=name)
left.set_xlabel("round")
left.set_ylabel("cumulative mistake rate")
left.set_ylim(0, 0.5)
left.legend(fontsize=7)
confusion = np.zeros((10, 10), dtype=int)
for o, t in zip(orders, results["Perceptron, max-score"]):
    np.add.at(confusion, (y[o], t.predictions), 1)
right.imshow(confusion - np.diag(np.diag(confusion)), cmap="Greys")
right.set_xlabel("predicted digit")
right.set_ylabel("true digit")
right.set_title("online mistakes (the diagonal left out)")
right.set_xticks(range(10))
right.set_yticks(range(10))
fig.tight_layout()
