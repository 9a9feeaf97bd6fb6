"""Online kernel selection under memory and time budgets (Li & Liao, *Online kernel
selection with computational constraints*).

``LKMBooks`` (Sec. 3.2) and ``PFMBooks`` (Sec. 3.3) share one support set across
``K`` kernels under a memory budget; ``BATBooks`` (Sec. 4.2) keeps one buffer per
kernel and evaluates two kernels a round under a time budget.  ``OMKC`` is the
multi-kernel baseline that does not share memory; the budgets in quanta are
``MemoryBudget`` and ``TimeBudget`` (Definitions 1-2, Assumption 3).

The other baselines of Sec. 5 (Tables 3-7), as the authors' R code ran them: ``OKS`` and
its budgeted variant ``BOKS`` (Yang et al. 2012; K separate sets, one sampled kernel a
round), ``ISKA`` (Zhang & Liao 2018; one shared budget, kernel alignment), ``BOMKR``
(Sahoo, Hoi & Li 2014; NORMA on K separate sets) and ``BOMKRV`` (BOMKR-V: one shared
set, K coefficient vectors).
"""
from okl.learners.batbooks import BATBooks
from okl.learners.budget_kinds import MemoryBudget, TimeBudget
from okl.learners.lkmbooks import LKMBooks
from okl.learners.multikernel import OMKC
from okl.learners.pfmbooks import PFMBooks
from okl.learners.oks import BOKS, OKS
from okl.learners.iska import ISKA
from okl.learners.bomkr import BOMKR, BOMKRV

__all__ = ["LKMBooks", "PFMBooks", "BATBooks", "OMKC", "MemoryBudget", "TimeBudget",
           "OKS", "BOKS", "ISKA", "BOMKR", "BOMKRV"]
