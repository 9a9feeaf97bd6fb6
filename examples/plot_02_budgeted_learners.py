"""
Budgeted learners on one stream
===============================

A kernel learner that keeps every mistake grows without bound.  The budgeted
learners of the field keep at most ``B`` support vectors (or ``B`` features) and
differ in what they do when the budget is full:

* ``Forgetron`` (Dekel, Shalev-Shwartz & Singer 2008) shrinks, then forgets the oldest;
* ``RBP`` (Cavallanti, Cesa-Bianchi & Gentile 2007) removes a random support vector;
* ``BOGD`` (Zhao et al., ICML 2012) removes one sampled uniformly and rescales the rest;
* ``Ahpatron`` (Liao et al., AAAI 2024) removes half and projects it onto the other half;
* ``POMDR`` (Li & Liao, AAAI 2023) halves with a merge and resets its step size;
* ``NOGD`` and ``FOGD`` (Lu et al., JMLR 2016) learn linearly on ``B`` Nystrom or
  random Fourier features.

The seven, and an unbudgeted kernel Perceptron for reference, run the same stream
in the same order at the same budget ``B = 200``, with their default parameters
(POMDR with ``c = 0.1``, from the grid of its paper's experiments); nothing is tuned
to this stream.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import okl
from okl.plotting import plot_budget, plot_mistake_rate

X, y = okl.datasets.xor_stream(6000, 8, seed=1)
kernel = okl.Gaussian(sigma=2.0)
B = 200
learners = {
    "Perceptron (no budget)": okl.Perceptron(kernel=kernel),
    "Forgetron": okl.Forgetron(kernel=kernel, B=B, seed=0),
    "RBP": okl.RBP(kernel=kernel, B=B, seed=0),
    "BOGD": okl.BOGD(kernel=kernel, B=B, seed=0),
    "Ahpatron": okl.Ahpatron(kernel=kernel, B=B, seed=0),
    "POMDR": okl.POMDR(kernel=kernel, B=B, B0=B // 2, c=0.1, seed=0),
    "NOGD": okl.NOGD(kernel=kernel, B=B, seed=0),
    "FOGD": okl.FOGD(kernel=kernel, D=B, seed=0),
}
traces = {name: learner.run(X, y) for name, learner in learners.items()}

print(f"{'learner':<24}{'mistake rate':>14}{'max |S_t|':>11}{'rounds/s':>12}")
for name, trace in traces.items():
    print(f"{name:<24}{trace.mistake_rate:>14.4f}{trace.max_budget:>11d}"
          f"{trace.n_rounds / trace.seconds:>12,.0f}")

# %%
# Mistake rate and memory over rounds
# -----------------------------------
# Forgetron, RBP and BOGD stay at ``B`` once full, removing one vector per update;
# Ahpatron and POMDR halve their set (the saw teeth) and refill it.  FOGD's ``B`` is
# its ``D`` random features, all there from the first round; NOGD collects ``B``
# support vectors, then learns on their Nystrom features.  The unbudgeted Perceptron's
# set grows out of the right panel.
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
plot_mistake_rate(traces, title="cumulative mistake rate", ax=left)
left.set_ylim(0.1, 0.5)
left.legend(fontsize=7)
plot_budget(traces, bounds={f"B = {B}": B}, title="support vectors (first 2,000 rounds)",
            ax=right)
right.set_xlim(0, 2000)
right.set_ylim(0, 1.15 * B)      # the Perceptron's set grows out of the panel
right.legend(fontsize=7)
fig.tight_layout()

# %%
# Several random orders
# ---------------------
# One order of one stream is one draw; the papers report the mean and standard
# deviation over random permutations.  :func:`okl.experiments.sweep.sweep` runs a grid
# over permutations (here 4) and :func:`~okl.experiments.sweep.summarize` averages them.
from okl.experiments.sweep import format_table, summarize, sweep

rows = sweep({"learner": ["Forgetron", "RBP", "BOGD", "Ahpatron"], "B": [B],
              "sigma": [2.0]}, X, y, permutations=4, seed=0)
print(format_table(summarize(rows, "mistake_rate")))
