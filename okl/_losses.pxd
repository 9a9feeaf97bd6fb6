# Losses l(f, y) of a prediction f for a label y, and their derivatives d l / d f,
# shared by the learners' typed cores (inline: no call in the round loop).
# The Python side names them through okl._validation.LOSS_CODES.

from libc.math cimport exp, fabs, fmax, log1p

cdef enum:
    LOSS_HINGE = 0         # max(0, 1 - y f)
    LOSS_LOGISTIC = 1      # log(1 + exp(-y f))
    LOSS_SQUARED = 2       # (f - y)^2 / 2
    LOSS_ABSOLUTE = 3      # |f - y|


cdef inline double logistic_loss(double z) noexcept nogil:
    """``log(1 + exp(-z))`` without overflow."""
    if z > 0.0:
        return log1p(exp(-z))
    return -z + log1p(exp(z))


cdef inline double loss_value(int kind, double y, double f) noexcept nogil:
    if kind == LOSS_HINGE:
        return fmax(0.0, 1.0 - y * f)
    if kind == LOSS_LOGISTIC:
        return logistic_loss(y * f)
    if kind == LOSS_SQUARED:
        return 0.5 * (f - y) * (f - y)
    return fabs(f - y)


cdef inline double loss_derivative(int kind, double y, double f) noexcept nogil:
    """``d l(f, y) / d f``, the subgradient 0 at the kinks (no update there)."""
    cdef double e
    if kind == LOSS_HINGE:
        return -y if y * f < 1.0 else 0.0
    if kind == LOSS_LOGISTIC:
        if y * f >= 0.0:
            e = exp(-y * f)
            return -y * e / (1.0 + e)
        return -y / (1.0 + exp(y * f))
    if kind == LOSS_SQUARED:
        return f - y
    if f > y:
        return 1.0
    if f < y:
        return -1.0
    return 0.0
