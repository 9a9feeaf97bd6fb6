# The sign of a double, inlined into the typed cores that cimport it (OKS/BOKS, BOMKR,
# OMKC, NORMA): one definition instead of a copy in each module.
#
#     from okl.learners._sign cimport sgn


cdef inline double sgn(double v) noexcept nogil:
    """``sign(v)``: 1.0, -1.0, or 0.0 for ``v == 0`` (and for NaN)."""
    if v > 0.0:
        return 1.0
    if v < 0.0:
        return -1.0
    return 0.0
