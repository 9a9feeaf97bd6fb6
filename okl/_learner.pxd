# The learner base class (okl/_learner.pyx): a core overrides score, update and loss;
# the stream driver calls them round after round without the GIL.

from numpy.random cimport bitgen_t

from okl._kernels cimport KernelParams
from okl._stream cimport Row
from okl._support cimport SupportSet


cdef class Learner:
    cdef KernelParams kp
    cdef SupportSet sv
    cdef long long t            # rounds learned so far
    cdef int d                  # input dimension (-1 until the first example)
    cdef bint classification    # labels in {-1, +1}; mistakes are counted
    cdef int error              # set by update() on failure (e.g. out of memory)
    cdef object _kernel
    cdef object _rng
    cdef bitgen_t* bitgen

    cdef double score(self, const Row* x) noexcept nogil
    cdef void update(self, const Row* x, double y, double f) noexcept nogil
    cdef double loss(self, double y, double f) noexcept nogil
    cdef int size(self) noexcept nogil
    cdef double uniform(self) noexcept nogil
