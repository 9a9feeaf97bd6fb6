"""
A first run and its trace
=========================

An online learner sees one example at a time: it predicts, suffers a loss and
updates.  ``learner.run(X, y)`` plays a whole stream in one typed Cython loop and
returns a :class:`okl.Trace`, whose per-round arrays say what happened on every
round: the score, the loss, whether the prediction was a mistake, and how many
support vectors the learner held.

Here a kernel Perceptron (unbudgeted: it keeps every mistake) and Ahpatron
(Liao et al., AAAI 2024, Algorithm 2: a budget of ``B`` support vectors) learn the
same nonlinear synthetic stream.
"""

# %%
# The stream and the run
# ----------------------
# ``okl.datasets.xor_stream`` draws ``x ~ N(0, I)`` in 10 dimensions and labels it by
# the sign of ``x_1 x_2`` (with 10 % label noise): no linear rule learns it, a
# Gaussian kernel does.
import matplotlib.pyplot as plt

import okl
from okl.plotting import plot_budget, plot_mistake_rate

X, y = okl.datasets.xor_stream(5000, 10, seed=0)
perceptron = okl.Perceptron(kernel=okl.Gaussian(sigma=2.0))
trace = perceptron.run(X, y)
print(trace)
print(f"mistake rate {trace.mistake_rate:.4f}, {trace.final_budget} support vectors, "
      f"{trace.seconds * 1e3:.1f} ms for {trace.n_rounds} rounds")

# %%
# The trace keeps one entry per round: ``trace.mistakes[t]`` is whether round ``t``
# erred, ``trace.budget[t]`` the support set's size after it.
print("first rounds' mistakes:", trace.mistakes[:10].astype(int))
print("first rounds' budget:  ", trace.budget[:10])

# %%
# A budgeted learner on the same stream
# -------------------------------------
# Ahpatron keeps at most ``B = 200`` support vectors: when the budget is full it
# removes half of them (the smallest ``|alpha|``) and projects them onto the kept
# half.  Its memory is flat; the Perceptron's grows with every mistake.
ahpatron = okl.Ahpatron(kernel=okl.Gaussian(2.0), B=200, U=50.0, seed=0)
budgeted = ahpatron.run(X, y)
traces = {"Perceptron": trace, "Ahpatron, B = 200": budgeted}

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
plot_mistake_rate(traces, title="cumulative mistake rate M_t / t", ax=left)
plot_budget(traces, bounds={"B = 200": 200}, title="support vectors", ax=right)
fig.tight_layout()

# %%
# The same from the command line: ``okl run`` prints the summary, ``--trace`` saves
# the per-round arrays and ``okl plot`` draws these two panels::
#
#     okl run --learner Perceptron --sigma 2 --trace run.npz && okl plot run.npz
