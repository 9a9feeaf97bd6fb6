# K separate support sets, one per candidate kernel (okl/learners/_ksets.pyx).
#
# The multi-kernel learners that do NOT share memory across kernels (OKS/BOKS, BOMKR)
# hold one of these as a typed attribute and call it inside their nogil round loops:
#
#     from okl.learners._ksets cimport KernelSets
#
#     cdef KernelSets sets = KernelSets(kernels, d, capacities, growable)
#     f = sets.score(i, x)                      # f_i(x) = sum_j a_ij k_i(s_ij, x)
#     j = sets.add(i, x, a, stamp)              # -1 when set i is full (and not growable)
#     sets.replace(i, j, x, a, stamp)           # overwrite entry j of set i
#     sets.scale(i, c)                          # a_i *= c
#
# Set i stores its vectors feature-major in its own buffer (s_ij[k] = X[i][j + k*cap[i]]),
# with cached squared and l1 norms, so a kernel row is okl._core.kernel_row.

from okl._core cimport KernelParams, Row

# the KernelParams of each kernel spec in a malloc'ed array (the caller frees it)
cdef KernelParams* kernel_params_array(kernels) except NULL

# free K sets' buffers -- the five arrays of K pointers and the buffers they point to
# (X[i], sq[i], l1[i], alpha[i], stamp[i]) -- and set the five pointers to NULL; the
# buffers are not read when *X is NULL (nothing allocated yet)
cdef void free_sets(int K, double*** X, double*** sq, double*** l1, double*** alpha,
                    long long*** stamp) noexcept nogil

cdef class KernelSets:
    cdef int K
    cdef int d
    cdef bint growable
    cdef KernelParams* kps
    cdef double** X
    cdef double** sq
    cdef double** l1
    cdef double** alpha
    cdef long long** stamp
    cdef int* n
    cdef int* cap
    cdef double* krow           # max capacity doubles: the last kernel row computed
    cdef int krow_cap
    cdef object kernels         # the Python kernel specs (pickling, repr)

    cdef int reserve(self, int i, int capacity) noexcept nogil
    cdef void _write(self, int i, int j, const Row* x) noexcept nogil
    cdef int add(self, int i, const Row* x, double a, long long stamp) noexcept nogil
    cdef void replace(self, int i, int j, const Row* x, double a, long long stamp) noexcept nogil
    cdef void row(self, int i, const Row* x, double* out) noexcept nogil
    cdef double score(self, int i, const Row* x) noexcept nogil
    cdef void scale(self, int i, double c) noexcept nogil
    cdef int total(self) noexcept nogil
