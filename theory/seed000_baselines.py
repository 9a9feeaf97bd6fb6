"""Deprecated alias of :mod:`theory.pomdr_baselines` (this module's former name).

Seed 000 is Li & Liao's POMDR paper (AAAI 2023); its Table 2 baselines (SkeGD, B(AO)2KS)
now live in :mod:`theory.pomdr_baselines`, beside :mod:`theory.pomdr`, named by the
paper word used across okl.  This alias stays for references to the old name (the docs'
theory page, the SkeGD and BAO2KS docstrings) and warns on import.
"""
import warnings

from .pomdr_baselines import *  # noqa: F401,F403
from .pomdr_baselines import __all__  # noqa: F401

warnings.warn("theory.seed000_baselines is deprecated: use theory.pomdr_baselines",
              DeprecationWarning, stacklevel=2)
