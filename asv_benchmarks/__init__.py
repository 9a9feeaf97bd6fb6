"""asv benchmarks of okl (run from the repository root: ``asv run --quick``).

Modules: ``bench_kernels`` (kernel rows and Gram matrices) and
``bench_learners`` (whole-stream ``Perceptron.run`` / ``KernelOGD.run``);
``common`` holds the seeded data generators.  Only okl, numpy and scipy are
imported.  See ``benchmarks/README.md``.
"""
