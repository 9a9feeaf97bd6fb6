# cython: language_level=3
"""The typed core of ``okl.PythonLearner``: the stream driver's ``score``/``update``
calls forwarded to a Python subclass's ``score(x)`` and ``update(x, y, score)``.

The driver (``okl._core._drive``) runs its rounds without the GIL and calls the
core's typed ``score``, ``loss`` and ``update`` in that order.  Here ``score`` takes
the GIL, hands the round's row over as a fresh 1-D float64 array (dense rows copied,
CSR rows scattered into zeros: the learner may keep it) and calls the subclass's
``score``; ``loss`` calls the subclass's ``update`` with the same array, because the
driver records the round's loss between the two calls and ``update`` is what returns
it; the typed ``update`` has nothing left to do.  An exception raised by the
subclass's code, or a score or loss that is not a finite float, stops the stream at
that round: the round is not counted, and the exception is re-raised by the Python
call that drove the stream, after the completed rounds (``OnlineLearner._failed``).
"""

cimport numpy as cnp
from libc.math cimport isfinite
from libc.string cimport memcpy, memset

from okl._core cimport Learner, Row

cnp.import_array()

# learner.error codes: 1 is a typed core's "out of memory"; 2: the Python code raised
DEF PY_ERROR = 2


cdef class PythonCore(Learner):
    """Calls a Python subclass's ``score`` / ``update`` / ``support_size`` from the driver."""
    cdef object _score
    cdef object _update
    cdef object _size
    cdef object _row                # the array handed to ``score`` this round
    cdef object _exc                # the exception that stopped the stream
    cdef long long _failed_round

    def _py_bind(self, score, update, size):
        """Bind the subclass's methods (bound methods; ``size`` may be ``None``)."""
        self._score = score
        self._update = update
        self._size = size
        self._exc = None

    cdef object _array_of(self, const Row* x):
        cdef cnp.npy_intp n = self.d
        cdef cnp.ndarray a = cnp.PyArray_EMPTY(1, &n, cnp.NPY_FLOAT64, 0)
        cdef double* out = <double*> cnp.PyArray_DATA(a)
        cdef int k
        if x.indices == NULL:
            memcpy(out, x.data, n * sizeof(double))
        else:
            memset(out, 0, n * sizeof(double))
            for k in range(x.nnz):
                out[x.indices[k]] = x.data[k]
        return a

    cdef void _fail(self, exc, long long failed_round) noexcept:
        # ``failed_round``: the round to leave uncounted (the current one when score or
        # update raised; the next one, which the driver starts before it sees the error,
        # when support_size raised after a completed round)
        if self.error == 0:
            self._exc = exc
            self._failed_round = failed_round
            self.error = PY_ERROR

    cdef double score(self, const Row* x) noexcept nogil:
        if self.error:
            return 0.0
        with gil:
            return self._call_score(x)

    cdef double _call_score(self, const Row* x) noexcept:
        cdef double f
        try:
            row = self._array_of(x)
            value = self._score(row)
            f = value
            if not isfinite(f):
                raise ValueError(f"{type(self).__name__}.score returned {value!r}: a "
                                 f"score must be a finite float")
            self._row = row
            return f
        except BaseException as exc:
            self._fail(exc, self.t)
            return 0.0

    cdef double loss(self, double y, double f) noexcept nogil:
        if self.error:
            return 0.0
        with gil:
            return self._call_update(y, f)

    cdef double _call_update(self, double y, double f) noexcept:
        cdef double lt
        try:
            value = self._update(self._row, y, f)
            self._row = None
            lt = 0.0 if value is None else value
            if not isfinite(lt):
                raise ValueError(f"{type(self).__name__}.update returned {value!r}: the "
                                 f"round's loss must be a finite float (or None for 0)")
            return lt
        except BaseException as exc:
            self._row = None
            self._fail(exc, self.t)
            return 0.0

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        pass

    cdef int size(self) noexcept nogil:
        if self._size is None or self.error:
            return 0
        with gil:
            return self._call_size()

    cdef int _call_size(self) noexcept:
        try:
            return self._size()
        except BaseException as exc:
            self._fail(exc, self.t + 1)
            return 0

    def _py_failure(self, bint in_round):
        """The exception that stopped the stream, or ``None``; ``in_round``: it was
        raised while learning, and the failed round is uncounted."""
        if self.error != PY_ERROR:
            return None
        exc = self._exc
        if in_round and self.t == self._failed_round:
            self.t -= 1
        self._exc = None
        self._row = None
        self.error = 0
        return exc
