"""
A bound checked on a run
========================

``theory`` evaluates the papers' bounds on the quantities of the stream a learner
ran on; :func:`okl.experiments.bounds.bounds_report` (the ``okl bounds`` command)
runs a fresh learner and puts each applicable bound beside what it bounds.  Here
POMD, the unbudgeted half of POMDR (Li & Liao, AAAI 2023, Algorithm 1), runs
1,000 rounds of a 2-dimensional stream with a Gaussian kernel of width 2, so that
the ALD test of eq. (5) keeps few points and Theorem 1's budget bound has
something to bound; ``zeta = 1`` is Theorem 2's setting.  This is::

    okl bounds --learner POMD -p zeta=1 -p U=2 --sigma 2 --features 2 --rounds 1000 --plot fig
"""

# %%
# The report
# ----------
# One row per bound: the measured quantity, the bound, their ratio and whether it
# holds; rows without a bound report the run's quantities.
import matplotlib.pyplot as plt
import numpy as np

import okl
import theory
from okl.experiments.bounds import bounds_report, format_report
from okl.plotting import plot_against_bounds, plot_budget

X, y = okl.datasets.xor_stream(1000, 2, seed=0)
report = bounds_report(okl.POMD(kernel=okl.Gaussian(2.0), zeta=1.0, U=2.0, seed=0), X, y)
print(format_report(report))

# %%
# Lemma 4 on every prefix, from ``theory`` functions
# ---------------------------------------------------
# Lemma 4 bounds the optimistic gradients' errors,
# :math:`\sum_{\tau \le t}\delta_\tau \le 4\mathcal A_t + 7D`, with
# :math:`\mathcal A_t` the kernel alignment of the first ``t`` examples.  The
# :math:`\delta_\tau` depend only on the examples before :math:`\tau` and on which
# rounds updated, and the lemma holds for any such set of rounds, so it holds on
# every prefix of the run: :func:`theory.pomdr.delta_sequence` recomputes them from
# the Gram matrix, :func:`theory.kernel_alignment` gives :math:`\mathcal A_t`.
K = okl.Gaussian(2.0)(X)
deltas = theory.pomdr.delta_sequence(K, y, M=15, active=report.trace.losses > 0)
checkpoints = np.arange(50, 1001, 50)
lemma4 = [theory.pomdr.lemma4_bound(theory.kernel_alignment(K[:t, :t], y[:t]), 1.0)
          for t in checkpoints]
print(f"sum of delta_t: learner {report.trace.extras['sum_delta']:.6g}, "
      f"theory {deltas.sum():.6g}")

# %%
# Measured against bound over rounds
# ----------------------------------
# Left: the support set against Theorem 1's bounds for the horizon ``T`` (constant
# lines: the interlacing form of its proof and the exponential and polynomial
# envelopes fitted to the Gram spectrum).  Right: Lemma 4 on prefixes.
budget_curve = next(c for c in report.curves if c["kind"] == "budget")
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
plot_budget({"POMD": report.trace}, title="ALD budget |S_t| against Theorem 1", ax=left)
for (label, value), colour in zip(budget_curve["bounds"].items(), ("C1", "C2", "C3")):
    left.axhline(value, ls="--", color=colour, label=f"{label}: {value:.0f}")
left.legend()
plot_against_bounds({"sum of delta_tau": np.cumsum(deltas)}, {}, ylabel="",
                    title="Lemma 4 on every prefix", ax=right)
right.plot(checkpoints, lemma4, "k--", marker=".", label="4 A_t + 7 D")
right.legend()
fig.tight_layout()

# %%
# The bounds that hold at every round
# -----------------------------------
# The Perceptron's mistake bounds (Theorems 1 and 2 as quoted by Liao et al., AAAI
# 2024) hold for any fixed comparator :math:`f` and every prefix of the stream, so
# the report carries them as curves: the run's cumulative mistakes against each bound
# with :math:`L_t(f)` summed up to round ``t``, for the :math:`f` that gives the
# smallest bound at ``T`` (the best hinge function of the radius, among
# :math:`\|f\| \in \{1, 2, 4, 8\}`, whose final bound is smallest).
perceptron = bounds_report(okl.Perceptron(kernel=okl.Gaussian(2.0)), X, y)
fig, axes = plt.subplots(1, len(perceptron.curves), figsize=(12, 4.5))
for ax, curve in zip(np.atleast_1d(axes), perceptron.curves):
    plot_against_bounds(curve["measured"], curve["bounds"], ylabel=curve["ylabel"],
                        title=curve["title"].replace("Perceptron: ", ""), ax=ax)
    ax.title.set_fontsize(9)
fig.tight_layout()
