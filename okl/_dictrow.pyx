# cython: language_level=3
"""A feature dict as a dense float64 row, in C (the per-call work of ``okl.river``)."""

from cpython.dict cimport PyDict_Next, PyDict_GetItem
from cpython.float cimport PyFloat_CheckExact, PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_CheckExact, PyLong_AsDouble, PyLong_AsSsize_t
from cpython.object cimport PyObject

import numpy as np
cimport numpy as cnp

cnp.import_array()


def dict_row(dict x, dict index, Py_ssize_t d):
    """``row[index[k]] = x[k]`` for every key of ``x`` into ``zeros(d)``.

    Returns the row, or ``None`` when ``x`` has a key outside ``index`` or a value
    other than a ``float`` or an ``int`` (the caller then goes through the entries one
    by one, with its checks and warnings).  ``index`` maps names to ints in ``[0, d)``.
    """
    cdef Py_ssize_t pos = 0, j
    cdef PyObject* key
    cdef PyObject* value
    cdef PyObject* col
    cdef double v
    cdef cnp.ndarray row = np.zeros(d)
    cdef double* out = <double*> cnp.PyArray_DATA(row)
    while PyDict_Next(x, &pos, &key, &value):
        col = PyDict_GetItem(index, <object> key)
        if col == NULL:
            return None
        if PyFloat_CheckExact(<object> value):
            v = PyFloat_AS_DOUBLE(<object> value)
        elif PyLong_CheckExact(<object> value):
            try:
                v = PyLong_AsDouble(<object> value)
            except OverflowError:
                return None
        else:
            return None
        j = PyLong_AsSsize_t(<object> col)
        if j < 0 or j >= d:
            raise IndexError(f"column {j} outside [0, {d})")
        out[j] = v
    return row
