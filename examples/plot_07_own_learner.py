"""
Writing your own learner
========================

A new algorithm enters okl in plain Python: subclass :class:`okl.PythonLearner`,
define ``score(x)`` and ``update(x, y, score)``, and it has everything a built-in
learner has -- ``run`` and its :class:`okl.Trace`, ``partial_fit``, ``learn_one``,
pickling, input validation, the scikit-learn and River wrappers, and every ``okl``
command by import path (``okl run --learner mymodule:MyLearner``).
:func:`okl.check_learner` holds it to okl's contract.

Here: the kernel Passive-Aggressive algorithm of Crammer et al. (JMLR 2006, PA-I),
compared with two of okl's learners on one stream.  The tutorial
(docs/own_learner.rst) takes the same learner on through a sweep, a starred row in a
paper's table and a Cython core.
"""

# %%
# The learner: two methods and a constructor
# -------------------------------------------
# ``score`` returns ``f_t(x) = sum_i alpha_i k(x_i, x)``; ``update`` suffers the hinge
# loss and, when it is positive, adds ``x`` with ``alpha = tau y``, ``tau = min(C,
# loss / k(x, x))``.  The constructor stores each parameter under its own name, so
# ``get_params``, ``repr`` and pickling read them back.
import matplotlib.pyplot as plt
import numpy as np

import okl


class KernelPA(okl.PythonLearner):
    """Kernel Passive-Aggressive, PA-I (Crammer et al., JMLR 2006, eq. 6)."""

    def __init__(self, kernel=None, C=1.0):
        self.kernel = okl.Gaussian(1.0) if kernel is None else kernel
        self.C = C
        self.S, self.alpha = [], []

    def score(self, x):
        if not self.S:
            return 0.0
        S = np.asarray(self.S)
        k = np.exp(-((S - x) ** 2).sum(axis=1) / (2 * self.kernel.sigma ** 2))
        return float(k @ self.alpha)

    def update(self, x, y, score):
        loss = max(0.0, 1.0 - y * score)
        if loss > 0.0:
            self.S.append(x)
            self.alpha.append(min(self.C, loss / 1.0) * y)     # k(x, x) = 1
        return loss

    def support_size(self):
        return len(self.S)


# %%
# okl's contract
# --------------
# ``check_learner`` runs the rules every learner okl ships keeps: bad input refused
# with the state unchanged, ``run`` = chunked ``partial_fit`` = ``learn_one``,
# pickling mid-stream, seeds, threads.  A broken rule raises an ``AssertionError``
# naming the rule and the round.
okl.check_learner(KernelPA, kernel=okl.Gaussian(2.0), C=0.5)
print("KernelPA keeps okl's contract")

# %%
# Beside okl's learners on one stream
# -----------------------------------
X, y = okl.datasets.xor_stream(1500, 5, seed=0)
kernel = okl.Gaussian(2.0)
traces = {
    "KernelPA (yours, Python)": KernelPA(kernel, C=0.5).run(X, y),
    "Perceptron": okl.Perceptron(kernel).run(X, y),
    "NORMA, window 300": okl.NORMA(kernel, lam=0.01, tau=300).run(X, y),
}
for name, tr in traces.items():
    print(f"{name:26s} mistakes {tr.mistake_rate:.3f}  support {tr.final_budget:5d}  "
          f"{tr.n_rounds / tr.seconds:9,.0f} rounds/s")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
for name, tr in traces.items():
    rounds = np.arange(1, tr.n_rounds + 1)
    ax1.plot(rounds, tr.cumulative_mistakes / rounds, label=name)
    ax2.plot(rounds, tr.budget, label=name)
ax1.set(xlabel="round", ylabel="mistake rate so far", ylim=(0, 0.6))
ax2.set(xlabel="round", ylabel="support vectors")
ax1.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# The same learner from the command line
# --------------------------------------
# Saved as ``kernel_pa.py``, it runs through every command by import path::
#
#     okl run --learner kernel_pa:KernelPA -p C=0.5 --data a9a
#     okl sweep --learner kernel_pa:KernelPA --learner BOGD -p C=0.1,1 --jobs 2
#     okl bounds --learner kernel_pa:KernelPA
#     okl reproduce pomdr-table2 --datasets a9a --learners POMDR kernel_pa:KernelPA -p C=0.1,1
#
# The last one runs it under the paper's protocol (the paper's data preparation,
# kernel, permutations and selection rule) and prints it as a starred row of
# Table 2.
