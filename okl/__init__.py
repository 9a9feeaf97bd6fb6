"""okl: Cython-accelerated online kernel learning.

>>> import okl
>>> learner = okl.Perceptron(kernel=okl.Gaussian(sigma=2.0))
>>> trace = learner.run(X, y)            # doctest: +SKIP
>>> trace.mistake_rate, trace.budget[-1]  # doctest: +SKIP

Names are imported on first use (PEP 562): ``import okl`` loads nothing else, so
that ``okl --help`` and subcommands that need no learner start without NumPy, SciPy
and the typed cores; ``okl.Perceptron`` then imports ``okl.learners``.  A learner
exported by ``okl.learners`` is exported here by adding its name to ``__all__``
below (it is looked up in ``okl.learners``); anything else needs an entry in
``_LAZY``.
"""
from importlib import import_module

__version__ = "0.1.0"

__all__ = [
    "Kernel", "Gaussian", "Polynomial", "Linear", "Laplacian",
    "SupportSet", "GramInverse", "GramCholesky", "kernel_matrix", "regularized_projection",
    "datasets",
    "OnlineLearner", "Perceptron", "KernelOGD", "NORMA", "ALMA", "AVP", "Ahpatron", "Forgetron", "RBP", "BOGD", "BOGDPP", "Projectron", "ProjectronPP", "KernelAWV", "PKAWV", "FOGD", "NOGD", "Hedge", "MSMW", "OSMD", "ExpertsTrace", "POMD", "POMDR", "OnlineToBatch", "LKMBooks", "PFMBooks", "BATBooks", "OMKC", "MemoryBudget", "TimeBudget", "Trace",
]
__all__ += ["OKS", "BOKS", "ISKA", "BOMKR", "BOMKRV"]
__all__ += ["SketchedKONS", "ProsNKONS"]
__all__ += ["SkeGD", "BAO2KS"]

#: exported names that do not come from okl.learners: name -> module
_LAZY = {
    "GramCholesky": "okl._core", "GramInverse": "okl._core", "SupportSet": "okl._core",
    "kernel_matrix": "okl._core", "regularized_projection": "okl._core",
    "Kernel": "okl.kernels", "Gaussian": "okl.kernels", "Laplacian": "okl.kernels",
    "Linear": "okl.kernels", "Polynomial": "okl.kernels",
    "Trace": "okl.trace",
}
_SUBMODULES = frozenset({"datasets", "learners", "experiments", "sklearn", "plotting",
                         "kernels", "trace", "cli", "streaming"})


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = import_module(f"okl.{name}")
    elif name in __all__:
        value = getattr(import_module("okl.learners"), name)
    else:
        raise AttributeError(f"module 'okl' has no attribute {name!r}")
    globals()[name] = value          # later lookups are plain module attributes
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
