"""okl: Cython-accelerated online kernel learning.

>>> import okl
>>> learner = okl.Perceptron(kernel=okl.Gaussian(sigma=2.0))
>>> trace = learner.run(X, y)            # doctest: +SKIP
>>> trace.mistake_rate, trace.budget[-1]  # doctest: +SKIP

Names are imported on first use (PEP 562): ``import okl`` loads nothing else, so
that ``okl --help`` and subcommands that need no learner start without NumPy, SciPy
and the typed cores.  The learners are those of the learner registry
(:mod:`okl.registry`): ``okl.Perceptron`` (or ``okl.__all__``) imports
``okl.learners``, whose modules declare them.  The other names are listed in
``_LAZY`` below.
"""
from importlib import import_module

__version__ = "0.1.0"

#: exported names that do not come from okl.learners: name -> module
_LAZY = {
    "GramCholesky": "okl._core", "GramInverse": "okl._core", "SupportSet": "okl._core",
    "kernel_matrix": "okl._core", "regularized_projection": "okl._core",
    "Kernel": "okl.kernels", "Gaussian": "okl.kernels", "Laplacian": "okl.kernels",
    "Linear": "okl.kernels", "Polynomial": "okl.kernels",
    "Trace": "okl.trace",
    "check_learner": "okl.testing",
}
_SUBMODULES = frozenset({"datasets", "learners", "experiments", "sklearn", "plotting",
                         "kernels", "trace", "cli", "streaming", "registry", "testing"})
_FIRST = ["Kernel", "Gaussian", "Polynomial", "Linear", "Laplacian",
          "SupportSet", "GramInverse", "GramCholesky", "kernel_matrix", "regularized_projection",
          "datasets", "Trace", "check_learner"]


def get_include() -> str:
    """The folder to put on Cython's include path to ``cimport`` okl's typed
    declarations (``from okl._core cimport Learner, Row``) in a learner of your own
    (docs/own_learner.rst)."""
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _all():
    learners = import_module("okl.learners")
    return _FIRST + list(learners.__all__)


def __getattr__(name):
    if name == "__all__":
        value = _all()
    elif name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = import_module(f"okl.{name}")
    elif name.startswith("_"):
        raise AttributeError(f"module 'okl' has no attribute {name!r}")
    else:
        learners = import_module("okl.learners")
        if name not in learners.__all__:
            raise AttributeError(f"module 'okl' has no attribute {name!r}")
        value = getattr(learners, name)
    globals()[name] = value          # later lookups are plain module attributes
    return value


def __dir__():
    return sorted(set(globals()) | set(_all()))
