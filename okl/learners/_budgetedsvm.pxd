# What the typed cores of BudgetedSVM's algorithms share (Djuric, Lan, Vucetic & Wang,
# JMLR 14, 2013; mm_algs.cpp): one definition, inlined into each core that cimports it
# (online AMM in okl/learners/_amm.pyx, linear and kernel Pegasos in
# okl/learners/_pegasos.pyx, BSGD in okl/learners/_bsgd.pyx).
#
#     from okl.learners._budgetedsvm cimport row_dot, row_add, first_example

from okl._core cimport Row
from okl.learners._multiclass cimport MulticlassCore


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


cdef inline int first_example(MulticlassCore core, const Row* x, int y) noexcept nogil:
    """BudgetedSVM's first example of a multiclass kernel run (bsgd.cpp:724-738): ``x``
    joins with ``+1`` at ``y`` and ``-1`` at ``(y + 1) mod K``, unscored and unshrunk.
    Its row, or -1 if it could not join (``core.error`` set)."""
    cdef int i = core.add_vector(x)
    if i < 0:
        return -1
    core.add_coef(i, y, 1.0)
    core.add_coef(i, (y + 1) % core.K, -1.0)
    return i
