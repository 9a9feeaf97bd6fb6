# Copies of C buffers as new NumPy arrays (okl/learners/_arrays.pyx), for the typed
# cores' accessors and pickled states -- not for round loops: each call allocates.
#
#     from okl.learners._arrays cimport c_vector

cdef object c_vector(const double* p, Py_ssize_t n)
