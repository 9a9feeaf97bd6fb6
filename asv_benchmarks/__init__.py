"""asv benchmarks of okl (run from the repository root: ``asv run --quick``).

Modules: ``bench_kernels`` (kernel rows and Gram matrices), ``bench_learners``
(whole-stream ``Perceptron.run`` / ``KernelOGD.run``), ``bench_budget`` (the seven
budgeted learners), ``bench_pomdr``, ``bench_awv`` (KernelAWV, PKAWV), ``bench_features``
(FOGD, NOGD), ``bench_selection`` (LKMBooks, PFMBooks, BATBooks, OMKC; memory and time
budgets tracked) and ``bench_experts`` (Hedge, MSMW, OSMD); ``common`` holds the seeded
data generators.  Only okl, numpy and scipy are imported.  See ``benchmarks/README.md``.
"""
