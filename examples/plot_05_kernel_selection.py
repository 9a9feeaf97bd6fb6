"""
Kernel selection under a memory or time budget
==============================================

Which Gaussian width suits a stream is not known in advance.  The learners of Li &
Liao, *Online kernel selection with computational constraints*, learn over ``K``
candidate kernels at once within a **memory budget** (Definition 1: at most
:math:`\\mathcal T` quanta of memory, a quantum being one float64 here) or a
**time budget** (Definition 2: at most :math:`\\mathcal T` quanta of time per
round, a quantum being one multiplication), translated into an example budget ``B``
by each learner's own space or time complexity (Assumptions 2-3,
:mod:`okl.learners.budget_kinds`):

* ``LKMBooks`` (Sec. 3.2): one support set shared by the ``K`` kernels, exponential
  weights over the kernels, examples sampled into the set with probability
  :math:`\\min\\{1, C/z_t\\}`;
* ``PFMBooks`` (Sec. 3.3): nested balls of radii :math:`U_j` for every kernel,
  selected by MSMW;
* ``BATBooks`` (Sec. 4.2): under a time budget, one kernel exploited and one
  explored a round, with OSMD weights over the kernels;
* ``OMKC`` (Hoi et al. 2013, budgeted): the multi-kernel baseline, one support set
  per kernel.

The candidate kernels are the default nine Gaussians of widths
:math:`2^{-4}, \\dots, 2^4`.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import okl
from okl import MemoryBudget, TimeBudget
from okl.plotting import plot_mistake_rate

T = 5000
X, y = okl.datasets.xor_stream(T, 4, seed=0)
memory, time = MemoryBudget(1000), TimeBudget(1000)
learners = {
    "LKMBooks, memory": okl.LKMBooks(memory_budget=memory, lam=5 / np.sqrt(T), seed=0),
    "PFMBooks, memory": okl.PFMBooks(memory_budget=memory, seed=0),
    "OMKC, memory": okl.OMKC(memory_budget=memory, seed=0),
    "LKMBooks, time": okl.LKMBooks(time_budget=time, lam=5 / np.sqrt(T), seed=0),
    "BATBooks, time": okl.BATBooks(time_budget=time, seed=0),
}
traces = {name: learner.run(X, y) for name, learner in learners.items()}

# %%
# What each budget buys
# ---------------------
# The same 1,000 quanta give each learner a different example budget ``B``: LKMBooks
# stores an example as its ``d = 4`` features and one shared coefficient; PFMBooks
# keeps ``K M`` coefficients per stored example (its space is
# :math:`O(dB/2 + BKM/2)`, Sec. 5.2), so it stores far fewer.  BATBooks' ``B``
# counts kernel evaluations a round: it evaluates two of its ``K`` buffers a round,
# each holding at most ``B/2``, so all nine together keep more examples than ``B``; a
# time budget bounds the work of a round, not the memory.  ``max_memory`` /
# ``max_time`` are the quanta the run actually used, within the budget it was given.
print(f"{'learner':<20}{'B':>5}{'kept':>6}{'max memory':>12}{'max time':>10}"
      f"{'mistake rate':>14}")
for name, tr in traces.items():
    e = tr.extras
    print(f"{name:<20}{e['B']:>5}{tr.max_budget:>6}{e.get('max_memory') or '-':>12}"
          f"{e.get('max_time') or '-':>10}{tr.mistake_rate:>14.4f}")

# %%
# Which kernel was selected
# -------------------------
# ``extras["p"]`` holds the final weights over the ``K`` kernels.  For reference, a
# single-kernel budgeted learner (RBP with ``B = 200``, the example budget of 1,000
# quanta at ``d + 1 = 5`` quanta per example) run with each width alone: the
# selection learners put their weight where a single kernel errs least.  They pay
# for the search (sampled updates, weights spread over the kernels early on): on
# this short stream their mistake rates stay above that of the best width alone.
sigmas = np.array([k.sigma for k in learners["LKMBooks, memory"].kernels])
single = [okl.RBP(kernel=okl.Gaussian(s), B=200, seed=0).run(X, y).mistake_rate
          for s in sigmas]

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
plot_mistake_rate(traces, title="cumulative mistake rate", ax=left)
left.set_ylim(0.2, 0.6)
left.legend(fontsize=8)
width = 0.27
positions = np.arange(len(sigmas))
for i, name in enumerate(["LKMBooks, memory", "BATBooks, time", "OMKC, memory"]):
    right.bar(positions + (i - 1) * width, traces[name].extras["p"], width, label=name)
right.set_xticks(positions, [f"{s:g}" for s in sigmas])
right.set_xlabel("Gaussian width sigma")
right.set_ylabel("final weight p")
right.legend(fontsize=8, loc="upper left")
twin = right.twinx()
twin.plot(positions, single, "k.--", label="RBP, one kernel")
twin.set_ylabel("mistake rate of RBP with that kernel alone")
twin.legend(fontsize=8, loc="upper right")
right.set_title("weights over the kernels")
fig.tight_layout()
