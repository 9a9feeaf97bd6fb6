"""The kernel Passive-Aggressive algorithm as a learner of your own, in numpy.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
Algorithms*, JMLR 7 (2006), Fig. 1 with kernels (Sec. 3): on round ``t`` predict
``f_t(x_t) = sum_i alpha_i k(x_i, x_t)``, suffer the hinge loss
``l_t = max(0, 1 - y_t f_t(x_t))`` and, when ``l_t > 0``, add ``x_t`` with
``alpha_t = tau_t y_t``:

* PA:    ``tau_t = l_t / k(x_t, x_t)``                  (eq. 3)
* PA-I:  ``tau_t = min(C, l_t / k(x_t, x_t))``          (eq. 6)
* PA-II: ``tau_t = l_t / (k(x_t, x_t) + 1 / (2 C))``    (eq. 7)

A Gaussian kernel, ``k(x, v) = exp(-||x - v||^2 / (2 sigma^2))``, computed from cached
squared norms as ``||s||^2 + ||x||^2 - 2 <s, x>`` (one matrix-vector product a round).
This file is the whole learner: ``okl run --learner kernel_pa:KernelPA``,
``okl sweep``, ``okl bounds`` and ``okl reproduce pomdr-table2 --learners POMDR
kernel_pa:KernelPA -p C=0.1,1`` take it as it is (docs/own_learner.rst).
"""
import numpy as np

import okl
from okl.params import Choice, Real, Value
from okl.registry import register_learner


def pa1_mistake_bound(s, learner, trace, radii, rows, curves, *, delta):
    """Theorem 4 of Crammer et al. (2006) for PA-I: for every f with hinge losses
    l*_t, mistakes <= max(R^2, 1/C) (||f||^2 + 2 C sum_t l*_t), R^2 = max_t k(x_t, x_t);
    at the best f of each ball ||f|| <= U in hindsight, the smallest over the radii."""
    from okl.experiments.bounds import na, row

    source = "Crammer et al. 2006, Theorem 4 (PA-I)"
    if learner.variant != "PA-I":
        rows.append(na("mistakes", trace.n_mistakes, source, f"variant {learner.variant}"))
        return
    factor = max(s.kappa_max, 1.0 / learner.C)
    bound = min(factor * (s.hinge(U).norm ** 2 + 2 * learner.C * s.hinge(U).loss)
                for U in radii)
    rows.append(row("mistakes", trace.n_mistakes, bound, source))


def gaussian(kernel, name):
    """The kernel parameter's check: a Gaussian kernel (None: Gaussian(1.0))."""
    if kernel is None:
        return okl.Gaussian(1.0)
    if not isinstance(kernel, okl.Gaussian):
        raise ValueError(f"KernelPA computes a Gaussian kernel, got {kernel!r}")
    return kernel


@register_learner(register=False, bounds=pa1_mistake_bound)
class KernelPA(okl.PythonLearner):
    """Kernel Passive-Aggressive (Crammer et al., JMLR 2006), PA, PA-I or PA-II."""

    # each parameter declared once (okl.params): its check, its default, its role
    kernel = Value(None, check=gaussian, role="kernel", none="Gaussian(1.0)")
    C = Real(1.0, low=0, low_open=True)
    variant = Choice("PA-I", ("PA", "PA-I", "PA-II"))

    def __init__(self, kernel=None, C=1.0, variant="PA-I"):
        self.kernel = kernel           # each assignment is checked by its declaration
        self.C = C
        self.variant = variant
        self.S = np.empty((0, 0))      # support vectors, rows 0 .. n - 1 in use
        self.sq = np.empty(0)          # their squared norms
        self.alpha = np.empty(0)       # their coefficients
        self.n = 0

    def score(self, x):
        if self.n == 0:
            return 0.0
        d2 = self.sq[:self.n] + x @ x - 2.0 * (self.S[:self.n] @ x)
        gamma = 1.0 / (2.0 * self.kernel.sigma ** 2)
        return float(np.exp(-gamma * np.maximum(d2, 0.0)) @ self.alpha[:self.n])

    def update(self, x, y, score):
        loss = max(0.0, 1.0 - y * score)
        if loss > 0.0:
            kxx = 1.0                          # k(x, x) of the Gaussian kernel
            if self.variant == "PA":
                tau = loss / kxx
            elif self.variant == "PA-I":
                tau = min(self.C, loss / kxx)
            else:
                tau = loss / (kxx + 1.0 / (2.0 * self.C))
            self._append(x, tau * y)
        return loss

    def support_size(self):
        return self.n

    def _append(self, x, a):
        if self.n == len(self.alpha):          # grow the buffers by doubling
            size = max(64, 2 * self.n)
            S = np.empty((size, x.size))
            if self.n:
                S[:self.n] = self.S[:self.n]
            self.S = S
            self.sq = np.resize(self.sq, size)
            self.alpha = np.resize(self.alpha, size)
        self.S[self.n] = x
        self.sq[self.n] = x @ x
        self.alpha[self.n] = a
        self.n += 1
