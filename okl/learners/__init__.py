"""Online kernel learners: one module per family (see DESIGN.md)."""
from okl.learners.base import OnlineLearner
from okl.learners.ahpatron import AVP, Ahpatron
from okl.learners.alma import ALMA
from okl.learners.awv import KernelAWV, PKAWV
import okl.learners.awv_nystrom  # noqa: F401  (PKAWV(basis="nystrom") and its docs)
from okl.learners.kons import ProsNKONS, SketchedKONS
from okl.learners.features import FOGD, NOGD
from okl.learners.experts import MSMW, OSMD, ExpertsTrace, Hedge
from okl.learners.budget import BOGD, BOGDPP, RBP, Forgetron
from okl.learners.norma import NORMA
from okl.learners.pomdr import POMD, POMDR
from okl.learners.skegd import SkeGD
from okl.learners.bao2ks import BAO2KS
from okl.learners.selection import BATBooks, LKMBooks, OMKC, PFMBooks, MemoryBudget, TimeBudget
from okl.learners.selection import BOKS, BOMKR, BOMKRV, ISKA, OKS
from okl.learners.online_to_batch import OnlineToBatch, hypothesis_risks
from okl.learners.projectron import Projectron, ProjectronPP
from okl.learners.perceptron import KernelOGD, Perceptron

__all__ = ["OnlineLearner", "Perceptron", "KernelOGD", "NORMA", "ALMA", "AVP", "Ahpatron", "Forgetron", "RBP", "BOGD", "BOGDPP", "Projectron", "ProjectronPP", "KernelAWV", "PKAWV", "FOGD", "NOGD", "Hedge", "MSMW", "OSMD", "ExpertsTrace", "POMD", "POMDR",
           "OnlineToBatch", "hypothesis_risks", "LKMBooks", "PFMBooks", "BATBooks", "OMKC", "MemoryBudget", "TimeBudget"]
__all__ += ["OKS", "BOKS", "ISKA", "BOMKR", "BOMKRV"]
__all__ += ["SketchedKONS", "ProsNKONS"]
__all__ += ["SkeGD", "BAO2KS"]
