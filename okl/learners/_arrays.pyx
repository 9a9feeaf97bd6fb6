"""Copies of C buffers as new NumPy arrays, shared by the typed cores' accessors and
pickled states (``cimport`` from ``okl/learners/_arrays.pxd``)."""

cimport numpy as cnp
from libc.string cimport memcpy

cnp.import_array()


cdef object c_vector(const double* p, Py_ssize_t n):
    """A new float64 ndarray holding a copy of ``p[0], ..., p[n-1]`` (empty if ``n == 0``;
    ``p`` is not read then, so it may be NULL)."""
    cdef cnp.npy_intp dims = n
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(1, &dims, cnp.NPY_DOUBLE, 0)
    if n > 0:
        memcpy(cnp.PyArray_DATA(out), p, n * sizeof(double))
    return out
