"""
Your learner against okl's: the paper's table and a critical-difference diagram
================================================================================

A researcher who brings a learner to okl sweeps it against the field's learners over
several datasets and permutations, then writes the table a paper prints:
:func:`okl.experiments.compare.compare` decides which differences are real.

Here the kernel Passive-Aggressive learner of the tutorial (docs/own_learner.rst, PA-I
of Crammer et al. 2006) meets three of okl's learners on five generated streams, five
random orders each.  Per dataset, the best mean mistake rate is set in bold and the
learners not significantly worse than it (one-sided paired t-test over the shared
orders, p > 0.05) in bold italic, as Wang, Crammer & Vucetic (JMLR 2012, Table 3) mark
theirs; across datasets, the average ranks, the Friedman test with the Iman-Davenport
correction and the Nemenyi and Holm post-hoc tests of Demsar (JMLR 2006).  From the
shell the same is::

    okl sweep --learner docs/own_learner/kernel_pa.py:KernelPA --learner Perceptron \\
        --learner BOGD --learner NORMA -p C=0.2 -p B=100 -p tau=300 -p lam=0.01 \\
        --data a9a --data magic04 --data my.libsvm --permutations 10 --out sweep
    okl compare sweep.csv --control KernelPA --out table

which prints the table and writes ``table.csv``, ``table.tex``, ``table.md``,
``table.json`` and the diagram ``table-cd.png``/``.svg``.
"""

# %%
# The runs: one sweep per dataset, every row naming its dataset
# --------------------------------------------------------------
# Permutation ``p`` of a dataset is the same order for every learner (it comes from
# the seed, ``p`` and the stream's length), so the runs of two learners pair.
from pathlib import Path

import okl
from okl.experiments.compare import compare
from okl.experiments.sweep import sweep

# the tutorial's learner, by the path of its file (from the repository's root, or from
# examples/, where the gallery runs)
FILE = next(root / "docs" / "own_learner" / "kernel_pa.py"
            for root in (Path.cwd(), Path.cwd().parent)
            if (root / "docs" / "own_learner" / "kernel_pa.py").is_file())
KERNEL_PA = f"{FILE}:KernelPA"

T = 600
datasets = {
    "xor-4": okl.datasets.xor_stream(T, 4, seed=1),
    "xor-8": okl.datasets.xor_stream(T, 8, seed=2),
    "drifting": okl.datasets.drifting_mixture(T, "drift", seed=3),
    "switching": okl.datasets.drifting_mixture(T, "switch", seed=4),
}
spectral = okl.datasets.spectral_stream(T, d=8, flip=0.05, seed=5)
datasets["spectral"] = (spectral.X, spectral.y)
grid = [{"learner": [KERNEL_PA], "C": [0.2], "sigma": [2.0]},
        {"learner": ["Perceptron", "BOGD", "NORMA"], "B": [100], "tau": [300],
         "lam": [0.01], "sigma": [2.0]}]
rows = []
for name, (X, y) in datasets.items():
    rows += sweep(grid, X, y, permutations=5, seed=0, dataset=name)
for row in rows:                        # the import path is long: name the class only
    row["learner"] = row["learner"].rsplit(":", 1)[-1]
print(f"{len(rows)} runs; the first: {rows[0]}")

# %%
# The comparison
# --------------
# ``*`` marks the best mean of a dataset, ``~`` those not significantly worse than it;
# the lines under the table are the tests across datasets.
result = compare(rows, control="KernelPA")
print(result.format_text())

# %%
# The LaTeX table, ready to paste (``\usepackage{booktabs}``); ``result.to_markdown()``
# is the same in Markdown, ``result.rows`` (or ``result.to_frame()``) the tidy table,
# and ``result.write("table")`` writes every file ``okl compare`` writes.
print(result.to_latex())

# %%
# The critical-difference diagram: the average ranks (1, the best, on the left), the
# learners the Nemenyi test cannot tell apart joined by a bar, and the critical
# difference above the axis.
fig = result.figure()
