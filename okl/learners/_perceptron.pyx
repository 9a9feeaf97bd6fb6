# cython: language_level=3
"""Typed cores of the kernel Perceptron and of kernel online gradient descent."""

from libc.math cimport exp, fabs, log1p, sqrt, fmax

from okl._core cimport Learner, Row
from okl._learner import fields
from okl._losses cimport loss_derivative, loss_value

# below this the lazy scale of KernelOGD is folded into the coefficients
cdef double SCALE_FLOOR = 1e-100


cdef class PerceptronCore(Learner):
    """Kernel Perceptron: add ``(x_t, y_t)`` with coefficient ``y_t`` when ``y_t f_t(x_t) <= 0``."""

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        if y * f <= 0.0:
            if self.sv.add(x, y, self.t) < 0:
                self.error = 1

    cdef double loss(self, double y, double f) noexcept nogil:
        return fmax(0.0, -y * f)


cdef class KernelOGDCore(Learner):
    """Kernel online gradient descent, eq. (9) of Kivinen, Smola & Williamson (2004).

    ``f_{t+1} = (1 - eta_t lam) f_t - eta_t l'(f_t(x_t), y_t) k(x_t, .)`` with
    the shrinkage applied lazily: the true coefficients are ``scale * alpha``.
    """
    cdef public int loss_kind
    cdef public double eta
    cdef public double lam
    cdef public bint sqrt_schedule
    cdef public double scale    # the lazy factor: coefficients are scale * alpha

    _state_fields = fields("scale")

    def _setup(self):
        self.scale = 1.0

    cdef double score(self, const Row* x) noexcept nogil:
        return self.scale * self.sv.score(x)

    cdef double loss(self, double y, double f) noexcept nogil:
        return loss_value(self.loss_kind, y, f)

    cdef double dloss(self, double y, double f) noexcept nogil:
        """``d l(f, y) / d f`` (the subgradient 0 at the kinks)."""
        return loss_derivative(self.loss_kind, y, f)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        cdef double eta_t = self.eta / sqrt(<double> self.t) if self.sqrt_schedule else self.eta
        cdef double g = self.dloss(y, f)
        if self.lam > 0.0:
            self.scale *= 1.0 - eta_t * self.lam
            if self.scale < SCALE_FLOOR:
                self.sv.scale(self.scale)
                self.scale = 1.0
        if g != 0.0:
            if self.sv.add(x, -eta_t * g / self.scale, self.t) < 0:
                self.error = 1

    @property
    def coefficient_scale(self):
        return self.scale
