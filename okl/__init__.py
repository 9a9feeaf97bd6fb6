"""okl: Cython-accelerated online kernel learning.

>>> import okl
>>> learner = okl.Perceptron(kernel=okl.Gaussian(sigma=2.0))
>>> trace = learner.run(X, y)            # doctest: +SKIP
>>> trace.mistake_rate, trace.budget[-1]  # doctest: +SKIP
"""
from okl._core import (
    GramCholesky,
    GramInverse,
    SupportSet,
    kernel_matrix,
    regularized_projection,
)
from okl import datasets
from okl.kernels import Gaussian, Kernel, Laplacian, Linear, Polynomial
from okl.learners import POMD, POMDR, LKMBooks, PFMBooks, BATBooks, OMKC, MemoryBudget, TimeBudget, OnlineToBatch, ALMA, AVP, FOGD, NOGD, MSMW, OSMD, ExpertsTrace, Hedge, KernelAWV, PKAWV, BOGD, BOGDPP, NORMA, RBP, Ahpatron, Forgetron, Projectron, ProjectronPP, KernelOGD, OnlineLearner, Perceptron
from okl.learners import BOKS, BOMKR, BOMKRV, ISKA, OKS
from okl.learners import ProsNKONS, SketchedKONS
from okl.learners import BAO2KS, SkeGD
from okl.trace import Trace

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
