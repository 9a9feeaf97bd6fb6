# cython: language_level=3
"""The typed core of the kernel Passive-Aggressive algorithm (Crammer et al., JMLR 2006),
written against okl's .pxd files: the stream runs in okl's driver without the GIL."""
from libc.math cimport fmax, fmin

from okl._core cimport Learner, Row, kernel_self


cdef class KernelPACore(Learner):
    cdef double C
    cdef int variant            # 0: PA, 1: PA-I, 2: PA-II

    def _pa_setup(self, double C, int variant):
        self.C = C
        self.variant = variant

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)                 # sum_i alpha_i k(x_i, x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return fmax(0.0, 1.0 - y * f)           # the hinge loss l_t

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double l = 1.0 - y * f, kxx, tau
        if l <= 0.0:
            return
        kxx = kernel_self(&self.kp, x)
        if self.variant == 0:
            tau = l / kxx                       # PA, eq. (3)
        elif self.variant == 1:
            tau = fmin(self.C, l / kxx)         # PA-I, eq. (6)
        else:
            tau = l / (kxx + 0.5 / self.C)      # PA-II, eq. (7)
        if self.sv.add(x, tau * y, self.t) < 0:
            self.error = 1                      # out of memory: the driver stops
