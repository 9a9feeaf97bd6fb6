# What the typed cores of BudgetedSVM's algorithms share (Djuric, Lan, Vucetic & Wang,
# JMLR 14, 2013; mm_algs.cpp): one definition, inlined into each core that cimports it
# (online AMM in okl/learners/_amm.pyx, linear Pegasos in okl/learners/_pegasos.pyx).
#
#     from okl.learners._budgetedsvm cimport row_dot, row_add

from okl._core cimport Row


cdef inline double row_dot(const double* v, const Row* x, int d, double bias) noexcept nogil:
    """``<v, [x, bias]>`` (``v`` of length ``d + 1`` when ``bias != 0``): over the
    non-zeros of a CSR row (a dense row: its ``nnz = d`` entries)."""
    cdef int j
    cdef double out = 0.0
    if x.indices == NULL:
        for j in range(x.nnz):
            out += v[j] * x.data[j]
    else:
        for j in range(x.nnz):
            out += v[x.indices[j]] * x.data[j]
    if bias != 0.0:
        out += v[d] * bias
    return out


cdef inline void row_add(double* v, const Row* x, int d, double bias,
                         double divisor) noexcept nogil:
    """``v += [x, bias] / divisor``: BudgetedSVM's ``updateUsingVector``
    (mm_algs.cpp:308-345), a division, not a multiplication by ``1 / divisor``."""
    cdef int j
    if x.indices == NULL:
        for j in range(x.nnz):
            v[j] += x.data[j] / divisor
    else:
        for j in range(x.nnz):
            v[x.indices[j]] += x.data[j] / divisor
    if bias != 0.0:
        v[d] += bias / divisor
