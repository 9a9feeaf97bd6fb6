"""The kernel Passive-Aggressive algorithm with its typed core (``_kernel_pa.pyx``):
the same learner as ``kernel_pa.KernelPA``, which is its oracle in the tests."""
from okl.kernels import check_kernel
from okl.learners.base import OnlineLearner

from _kernel_pa import KernelPACore

VARIANTS = {"PA": 0, "PA-I": 1, "PA-II": 2}


class KernelPAFast(OnlineLearner, KernelPACore):
    """Kernel Passive-Aggressive (Crammer et al., JMLR 2006), PA, PA-I or PA-II."""

    def __init__(self, kernel=None, C=1.0, variant="PA-I", seed=None):
        if variant not in VARIANTS:
            raise ValueError(f"variant must be 'PA', 'PA-I' or 'PA-II', got {variant!r}")
        if not C > 0:
            raise ValueError(f"C must be > 0, got {C!r}")
        self.kernel = check_kernel(kernel)
        self.C = C
        self.variant = variant
        self.seed = seed
        self._core_setup(self.kernel, seed, True)    # kernel, seed, classification
        self._pa_setup(float(C), VARIANTS[variant])
