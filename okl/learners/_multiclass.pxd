# The multiclass core (okl/learners/_multiclass.pyx): a kernel expansion per class over
# one support set, scored with one kernel row per round for all K classes.

from okl._core cimport Learner, Row


cdef class MulticlassCore(Learner):
    cdef public int K             # classes (fixed at the first stream: classes_)
    cdef int m                    # slots per row (grows up to K as rows need them)
    cdef int* cls                 # cls[i * m + j], j < nnz[i]: the classes of row i in use
    cdef double* val              # val[i * m + j]: the coefficient of vector i, class cls
    cdef int* nnz
    cdef int a_cap                # rows allocated in cls, val, nnz
    cdef double* s                # the K scores of the last scored example
    cdef int yhat                 # its predicted class (first of the largest scores)

    cdef int mc_reserve(self, int rows) noexcept nogil
    cdef int widen(self, int m) noexcept nogil
    cdef double coef(self, int i, int c) noexcept nogil
    cdef void class_scores(self, const Row* x) noexcept nogil
    cdef int best(self, int exclude) noexcept nogil
    cdef int add_vector(self, const Row* x) noexcept nogil
    cdef void clear_row(self, int i) noexcept nogil
    cdef void add_coef(self, int i, int c, double a) noexcept nogil
    cdef void remove_row(self, int i) noexcept nogil
    cdef void scale_coefs(self, double c) noexcept nogil
    cdef double row_sqnorm(self, int i) noexcept nogil
    cdef double mc_loss(self, int y) noexcept nogil
    cdef void mc_update(self, const Row* x, int y) noexcept nogil
