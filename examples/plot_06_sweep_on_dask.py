"""
A sweep on a Dask cluster
=========================

:func:`okl.experiments.sweep.sweep` runs every configuration of a grid (learners x
parameters x kernels) on several random orders of a stream and returns one tidy row
per run.  With ``n_jobs`` it runs on local processes (joblib); with ``scheduler=``
the address of a Dask scheduler it submits the runs to that cluster, scattering the
stream to the workers once.  The rows are the same either way: each run's order and
seed come from the sweep's seed, the configuration and the permutation only.

Here the cluster is a :class:`distributed.LocalCluster` of two single-threaded
workers in this process (``processes=False``); on a real cluster, pass its
scheduler's address (``tcp://scheduler:8786``), or from the shell::

    okl sweep --learner NORMA --learner Forgetron -p B=50,200 -p sigma=1,2,4 \\
        --data xor --rounds 3000 --dask tcp://scheduler:8786
"""

# %%
import matplotlib.pyplot as plt
from distributed import Client, LocalCluster

import okl
from okl.experiments.sweep import summarize, sweep

X, y = okl.datasets.xor_stream(3000, 6, seed=0)
grid = [{"learner": ["Forgetron", "RBP"], "B": [50, 100, 200], "sigma": [1.0, 2.0, 4.0]},
        {"learner": ["NORMA"], "tau": [50, 100, 200], "lam": [0.01], "sigma": [1.0, 2.0, 4.0]}]

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                  dashboard_address=None) as cluster, Client(cluster) as client:
    rows = sweep(grid, X, y, permutations=3, seed=0, scheduler=client.scheduler.address)
print(f"{len(rows)} runs; the first:")
print(rows[0])

# %%
# The same rows, whatever ran them: a local joblib run of the same grid gives
# identical mistake rates (only the wall-clock ``seconds`` differ).
local = sweep(grid, X, y, permutations=3, seed=0, n_jobs=1)
print("identical to the local run:",
      [r["mistake_rate"] for r in rows] == [r["mistake_rate"] for r in local])

# %%
# Mean mistake rate over the 3 orders against the memory each configuration kept,
# one line per learner and kernel width (NORMA's window ``tau`` plays the role of the
# budget ``B``):
summary = summarize(rows, "mistake_rate")
fig, ax = plt.subplots(figsize=(7, 4.5))
for learner in ("Forgetron", "RBP", "NORMA"):
    for sigma, style in zip((1.0, 2.0, 4.0), ("o-", "s--", "^:")):
        mine = [r for r in summary if r["learner"] == learner and r["sigma"] == sigma]
        ax.errorbar([r["final_budget_mean"] for r in mine],
                    [r["mistake_rate_mean"] for r in mine],
                    yerr=[r["mistake_rate_std"] for r in mine], fmt=style, capsize=3,
                    label=f"{learner}, sigma = {sigma:g}",
                    color={"Forgetron": "C0", "RBP": "C1", "NORMA": "C2"}[learner])
ax.set_xlabel("support vectors kept (mean over orders)")
ax.set_ylabel("mistake rate (mean +- std over 3 orders)")
ax.set_title(f"{len(summary)} configurations x 3 orders on a Dask LocalCluster")
ax.legend(fontsize=7, ncol=3)
fig.tight_layout()
