# cython: language_level=3
"""Typed core of ALMA_2 (Gentile, *A New Approximate Maximal Margin Classification
Algorithm*, JMLR 2, 2001), kernelized."""

from libc.math cimport sqrt, fmax

from okl._core cimport Learner, Row, kernel_self
from okl._learner import fields

# below this the lazy normalization factor is folded into the coefficients
cdef double SCALE_FLOOR = 1e-100


cdef class ALMACore(Learner):
    """ALMA_p at ``p = 2`` in the RKHS of the kernel, on normalized instances.

    Instances are normalized in feature space, ``x_hat = phi(x) / sqrt(k(x, x))``, so
    the hypothesis ``w = scale * sum_i alpha_i phi(x_i)`` is scored as
    ``w . x_hat = scale * sum_i alpha_i k(x_i, x) / sqrt(k(x, x))``.  The projection
    ``w <- w' / max(1, ||w'||)`` only rescales ``w``: it is kept in the lazy factor
    ``scale`` and ``||w||^2`` is kept by the exact recursion
    ``||w + eta y x_hat||^2 = ||w||^2 + 2 eta y (w . x_hat) + eta^2``, so a round
    costs one kernel row.
    """
    cdef public double alpha, C     # the learner's parameters (okl.params)
    cdef double B                   # the margin scale in use (the learner's B_)
    cdef public double scale
    cdef public double norm_sq
    cdef public long long k     # index of the next correction (1-based, as in the paper)

    _state_fields = fields("scale", "norm_sq", "k")

    def __cinit__(self, *args, **kwargs):
        self.scale = 1.0
        self.k = 1

    def _setup(self):
        """``B`` is the learner's ``B_`` (``1 / alpha`` when its ``B`` is None)."""
        self.B = self.B_
        self.scale = 1.0
        self.norm_sq = 0.0
        self.k = 1

    cdef inline double margin(self) noexcept nogil:
        """``(1 - alpha) gamma_k`` with ``gamma_k = B sqrt(p - 1) / sqrt(k)``, ``p = 2``."""
        return (1.0 - self.alpha) * self.B / sqrt(<double> self.k)

    cdef double score(self, const Row* x) noexcept nogil:
        cdef double kxx = kernel_self(&self.kp, x)
        if kxx <= 0.0 or self.sv.n == 0:
            return 0.0          # x_hat = 0 (a zero feature vector) or w = 0
        return self.scale * self.sv.score(x) / sqrt(kxx)

    cdef double loss(self, double y, double f) noexcept nogil:
        """Shortfall from the current ALMA margin: ``max(0, (1 - alpha) gamma_k - y f)``."""
        return fmax(0.0, self.margin() - y * f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double kxx, eta, nsq, nrm
        if y * f > self.margin():
            return
        # a correction: w' = w + eta_k y x_hat,  eta_k = C / (sqrt(p - 1) sqrt(k))
        eta = self.C / sqrt(<double> self.k)
        self.k += 1
        kxx = kernel_self(&self.kp, x)
        if kxx <= 0.0:
            return              # x_hat = 0: w' = w, already in the unit ball
        nsq = fmax(self.norm_sq + 2.0 * eta * y * f + eta * eta, 0.0)
        if self.sv.add(x, eta * y / (sqrt(kxx) * self.scale), self.t) < 0:
            self.error = 1
            return
        # w_{k+1} = w' / max(1, ||w'||)
        if nsq > 1.0:
            nrm = sqrt(nsq)
            self.scale /= nrm
            self.norm_sq = 1.0
            if self.scale < SCALE_FLOOR:
                self.sv.scale(self.scale)
                self.scale = 1.0
        else:
            self.norm_sq = nsq

    # -- inspection and pickling --------------------------------------------------

    @property
    def margin_(self):
        """The current margin threshold ``(1 - alpha) gamma_k``."""
        return self.margin()

    @property
    def coefficient_scale(self):
        return self.scale
