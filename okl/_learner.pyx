# cython: language_level=3
"""The learner base class and the stream driver, with its one-BLAS-thread guard.

``Learner`` is the base of every okl core: a subclass overrides the typed ``score``,
``update`` and ``loss``; ``_drive`` runs them round after round over a ``Stream``
without the GIL, and ``_learn_one`` / ``_learn_one_fast`` / ``_predict_one*`` /
``_decide`` are the single-example and scoring paths of ``okl.learners.base``.

Part of the typed core (``okl._core`` re-exports every name; see its docstring).
"""

from cpython.exc cimport PyErr_CheckSignals
from cpython.object cimport PyTypeObject
from cpython.pycapsule cimport PyCapsule_GetPointer

import sys

import numpy as np
cimport numpy as cnp

from okl._kernels cimport _params_of
from okl._stream cimport Stream, _row_stream_c
from okl._support cimport SupportSet

cnp.import_array()


# ----------------------------------------------------------------------------
# Learners: base class and the stream driver
# ----------------------------------------------------------------------------

cdef class Learner:
    """Base of every okl learner.

    A subclass overrides the typed methods ``score`` (prediction for ``x``
    from the current hypothesis), ``update`` (learn from ``(x, y)`` given that
    score) and ``loss``; the driver ``_drive`` calls them round after round
    without the GIL.  During round ``t`` (1-based), ``self.t == t``.

    The Python surface (``run``, ``learn_one``, ``predict_one``,
    ``partial_fit``, ``decision_function``, ``predict``, pickling) lives in
    ``okl.learners.base.OnlineLearner`` so that it is written once.
    """

    #: the core's declared state (``fields(...)``): pickled, and restored, by
    #: okl.learners.base.OnlineLearner; a learner's ``Trace.extras`` come from
    #: ``_extras_fields`` (declared by the learner class, read the same way)
    _state_fields = ()
    _extras_fields = ()

    def __cinit__(self, *args, **kwargs):
        self.t = 0
        self.d = -1
        self.error = 0
        self.classification = True
        self.sv = None
        self._kernel = None
        self._rng = None
        self.bitgen = NULL

    cdef double score(self, const Row* x) noexcept nogil:
        return self.sv.score(x)

    cdef void update(self, const Row* x, double y, double f) noexcept nogil:
        pass

    cdef double loss(self, double y, double f) noexcept nogil:
        return 0.0

    cdef int size(self) noexcept nogil:
        return self.sv.n if self.sv is not None else 0

    cdef double uniform(self) noexcept nogil:
        """A uniform draw in [0, 1) from the learner's seeded generator."""
        return self.bitgen.next_double(self.bitgen.state)

    # -- configuration, used by okl.learners.base ------------------------------

    def _core_setup(self, kernel, seed, bint classification):
        self._kernel = kernel
        if kernel is not None:
            self.kp = _params_of(kernel)
        self.classification = classification
        self._core_set_rng(np.random.default_rng(seed))

    def _setup(self):
        """Set up what the core's typed fields ask for (allocations, derived constants),
        once the learner's declared parameters are in them (``okl.params``); a core
        that needs nothing beyond its fields keeps this no-op."""

    def _core_set_rng(self, rng):
        self._rng = rng
        self.bitgen = <bitgen_t*> PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")

    def _core_allocate(self, int d, int capacity, bint growable):
        """Called once, at the first example: fixes ``d`` and allocates the support set."""
        self.d = d
        if self._kernel is not None:
            self.sv = SupportSet(self._kernel, d, capacity, growable)

    def _core_state(self):
        return {"t": self.t, "d": self.d, "sv": self.sv, "rng": self._rng}

    def _core_restore(self, dict state):
        self.t = state["t"]
        self.d = state["d"]
        self.sv = state["sv"]
        self._core_set_rng(state["rng"])

    def _uniform_draws(self, int n):
        """``n`` draws of the typed ``uniform()`` (the stream the learners consume)."""
        out = np.empty(n)
        cdef double[::1] o = out
        cdef int i
        for i in range(n):
            o[i] = self.uniform()
        return out

    @property
    def n_rounds(self):
        """Rounds learned so far."""
        return self.t

    @property
    def n_features(self):
        """Input dimension, or ``None`` before the first example."""
        return None if self.d < 0 else self.d

    @property
    def support_set(self):
        """The learner's ``SupportSet`` (``None`` before the first example)."""
        return self.sv

    def _support_size(self):
        """``|S|`` of the learner's ``SupportSet`` (0 before the first example)."""
        return self.sv.n if self.sv is not None else 0

    @property
    def is_classifier(self):
        return self.classification


# ----------------------------------------------------------------------------
# Declared state: what a core pickles and reports, written once as a table
# ----------------------------------------------------------------------------
# A core lists its state in the class attribute ``_state_fields`` (made by ``fields``);
# its scalars are ``cdef public`` fields (readable and writable from Python at no cost to
# the typed code, which reads them as plain C fields) and its per-kernel vectors
# ``cdef public`` typed memoryviews.  ``read_fields`` builds the pickled state (and a
# learner's ``Trace.extras``, from ``_extras_fields``) from such a table, ``write_fields``
# puts a state back: okl.learners.base.OnlineLearner does both for every learner.

cdef enum:
    _ONE = 0        # one attribute
    _PACK = 1       # a tuple of attributes
    _ARRAY = 2      # a typed vector (a memoryview attribute), copied out as an ndarray

cdef object _REQUIRED = object()


cdef class Field:
    """One key of a declared state and where its value lives.

    ``Field("epsilon", "eps")``: the key ``"epsilon"`` holds the attribute ``eps``
    (``"hedge.n_updates"``: an attribute of an attribute);
    ``Field("counters", ("a", "b"))``: a tuple of attributes; ``Field("p", dtype=float)``:
    a typed vector (a memoryview attribute) copied out as a new ndarray of ``dtype`` and
    copied back in place (its length kept; a scalar fills it).  State that needs code (a matrix kept with a
    leading dimension, a record that grows, an object whose restore has consequences)
    names methods: ``get="_gram"`` reads the value as ``self._gram()``,
    ``put="_put_gram"`` restores it as ``self._put_gram(value)``; a field with ``get`` and
    no ``put`` is derived (written for the reader, passed over on restore).  ``when``: the
    key is written only while that attribute is true (state that exists once allocated)
    and restored only where the state has it.  ``default``: the value a state written
    before the key existed stands for (otherwise the key is required).
    """
    cdef readonly str key
    cdef readonly tuple attrs
    cdef readonly object dtype
    cdef readonly str get, put, when
    cdef readonly object default
    cdef int kind

    def __init__(self, str key, attr=None, *, dtype=None, str get=None, str put=None,
                 str when=None, default=_REQUIRED):
        self.key = sys.intern(key)
        if attr is None:
            attr = key
        self.kind = _PACK if isinstance(attr, tuple) else _ONE
        self.attrs = (tuple([sys.intern(a) for a in attr]) if self.kind == _PACK
                      else (sys.intern(attr),))
        if dtype is not None:
            if self.kind == _PACK or get is not None or put is not None:
                raise ValueError(f"{key}: a typed vector is one attribute, without get/put")
            self.kind = _ARRAY
            self.dtype = np.dtype(dtype)
        self.get = get
        self.put = put
        self.when = when
        self.default = default

    def __repr__(self):
        attr = self.attrs if self.kind == _PACK else self.attrs[0]
        extra = "" if self.dtype is None else f", dtype={self.dtype.name!r}"
        extra += "" if self.get is None else f", get={self.get!r}"
        extra += "" if self.put is None else f", put={self.put!r}"
        extra += "" if self.when is None else f", when={self.when!r}"
        return f"Field({self.key!r}, {attr!r}{extra})"

    cdef object read(self, object obj):
        if self.get is not None:
            return getattr(obj, self.get)()
        if self.kind == _ONE:
            return _getattr(obj, self.attrs[0])
        if self.kind == _ARRAY:
            return np.array(getattr(obj, self.attrs[0]), dtype=self.dtype)
        return tuple([getattr(obj, a) for a in self.attrs])

    cdef void write(self, object obj, dict state) except *:
        cdef object value
        if self.get is not None and self.put is None:
            return                      # derived
        if self.when is not None and self.key not in state:
            return                      # not there yet when the state was written
        value = state.get(self.key, self.default)
        if value is _REQUIRED:
            raise KeyError(self.key)
        if self.put is not None:
            getattr(obj, self.put)(value)
        elif self.kind == _ONE:
            _setattr(obj, self.attrs[0], value)
        elif self.kind == _ARRAY:
            target = np.asarray(getattr(obj, self.attrs[0]))
            value = np.asarray(value)
            if value.ndim and value.shape != target.shape:
                raise ValueError(f"state[{self.key!r}] has shape {value.shape}, the "
                                 f"learner's {self.attrs[0]} {target.shape}")
            target[...] = value
        else:
            if len(value) != len(self.attrs):
                raise ValueError(f"state[{self.key!r}] holds {len(value)} values, "
                                 f"expected {len(self.attrs)}")
            for a, v in zip(self.attrs, value):
                setattr(obj, a, v)


cdef object _getattr(object obj, str name):
    if "." not in name:
        return getattr(obj, name)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


cdef void _setattr(object obj, str name, object value) except *:
    if "." in name:
        head, name = name.rsplit(".", 1)
        obj = _getattr(obj, head)
    setattr(obj, name, value)


def fields(*entries):
    """A declared state: a tuple of :class:`Field` from ``Field``s, attribute names
    (key and attribute alike) and ``(key, attribute or tuple of attributes)`` pairs."""
    out = []
    for e in entries:
        if isinstance(e, Field):
            out.append(e)
        elif isinstance(e, str):
            out.append(Field(e))
        else:
            out.append(Field(*e))
    return tuple(out)


def read_fields(obj, tuple table):
    """``{key: value}`` of ``obj`` for every field of ``table``, in order."""
    cdef dict out = {}
    cdef Field f
    for f in table:
        if f.when is None or getattr(obj, f.when):
            out[f.key] = f.read(obj)
    return out


def write_fields(obj, tuple table, dict state):
    """Put the values of ``state`` (made by ``read_fields`` with ``table``) back: the
    attributes first, then the fields restored by a method (``put``), in the table's
    order, so that such code sees the plain state (a capacity, a flag) in place."""
    cdef Field f
    for f in table:
        if f.put is None:
            f.write(obj, state)
    for f in table:
        if f.put is not None:
            f.write(obj, state)


# ----------------------------------------------------------------------------
# One BLAS thread around a learner's round loop, cheaply
# ----------------------------------------------------------------------------
# threadpoolctl's ``limit`` costs ~12 us a call (it re-reads every library's state
# through ctypes), as much as dozens of rounds.  okl.learners.base binds here, once,
# the ``openblas_get/set_num_threads`` of each OpenBLAS (pthreads) library that
# threadpoolctl finds; entering and leaving then costs two C calls.  The count of
# calls inside the guard is process-wide and changed with the GIL held: the first
# call in limits, the last one out restores, so threads running learners in
# parallel never restore each other's limit halfway.

ctypedef int (*_get_threads_t)() noexcept nogil
ctypedef void (*_set_threads_t)(int) noexcept nogil

cdef int _N_BLAS = 0
cdef _get_threads_t _BLAS_GET[8]
cdef _set_threads_t _BLAS_SET[8]
cdef int _BLAS_SAVED[8]
cdef long _BLAS_USERS = 0


def _blas_bind(pairs):
    """Bind ``[(get_address, set_address), ...]`` (at most 8); returns how many."""
    global _N_BLAS
    if _BLAS_USERS:
        raise RuntimeError("cannot rebind BLAS thread controls while a guard is active")
    cdef int n = 0
    cdef size_t g, s
    for g, s in pairs[:8]:
        _BLAS_GET[n] = <_get_threads_t> <void*> g
        _BLAS_SET[n] = <_set_threads_t> <void*> s
        n += 1
    _N_BLAS = n
    return n


def _blas_enter():
    """Enter the one-BLAS-thread section (limit on the first entry)."""
    global _BLAS_USERS
    cdef int i
    if _BLAS_USERS == 0:
        for i in range(_N_BLAS):
            _BLAS_SAVED[i] = _BLAS_GET[i]()
            if _BLAS_SAVED[i] != 1:
                _BLAS_SET[i](1)
    _BLAS_USERS += 1


def _blas_exit():
    """Leave it (restore the saved thread counts on the last exit)."""
    global _BLAS_USERS
    cdef int i
    if _BLAS_USERS <= 0:
        return
    _BLAS_USERS -= 1
    if _BLAS_USERS == 0:
        for i in range(_N_BLAS):
            if _BLAS_SAVED[i] != 1:
                _BLAS_SET[i](_BLAS_SAVED[i])


# rounds between two checks for Ctrl-C during a run
cdef Py_ssize_t SIGNAL_CHECK_EVERY = 4096


cdef Py_ssize_t _rounds(Learner L, Stream s, const double* y, double* scores,
                        double* losses, unsigned char* mistakes, int* budget,
                        Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    """Rounds ``start .. stop - 1`` of ``s``; returns the end of the completed ones
    (``stop``, or the round whose ``update`` set ``L.error``).  The per-round records
    are written where their array is given (``NULL``: ``partial_fit`` keeps none);
    ``loss`` is called either way, so a learner sees the same calls."""
    cdef Py_ssize_t t
    cdef Row row
    cdef double f, yt, lt
    for t in range(start, stop):
        s.row(t, &row)
        L.t += 1
        f = L.score(&row)
        yt = y[t]
        lt = L.loss(yt, f)
        if scores != NULL:
            scores[t] = f
            losses[t] = lt
            mistakes[t] = L.classification and yt * f <= 0.0
        L.update(&row, yt, f)
        if L.error:
            return t
        if budget != NULL:
            budget[t] = L.size()
    return stop


cdef inline void* _data_or_null(object a, int typenum, Py_ssize_t n,
                                bint write=True) except? NULL:
    if a is None:
        return NULL
    if not (isinstance(a, np.ndarray) and cnp.PyArray_NDIM(<cnp.ndarray> a) == 1
            and cnp.PyArray_TYPE(<cnp.ndarray> a) == typenum
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray> a)
            and (cnp.PyArray_ISWRITEABLE(<cnp.ndarray> a) or not write)
            and cnp.PyArray_DIM(<cnp.ndarray> a, 0) >= n):
        raise TypeError("labels and per-round arrays must be C-contiguous vectors of T "
                        "entries of the driver's types (the latter writeable)")
    return cnp.PyArray_DATA(<cnp.ndarray> a)


def _drive(Learner L, Stream s, y, scores=None, losses=None, mistakes=None, budget=None):
    """Run ``L`` over every row of ``s``; returns the number of completed rounds.

    ``y`` is a float64 C-contiguous vector of ``s.T`` labels; ``scores``,
    ``losses`` (float64), ``mistakes`` (uint8) and ``budget`` (intc) receive the
    per-round records, or are all ``None`` (nothing recorded).  The rounds run
    without the GIL, in blocks of ``SIGNAL_CHECK_EVERY``; between two blocks the
    GIL is taken briefly so that Ctrl-C (or any signal handler's exception) gets
    through: it is re-raised there, so the learner holds exactly the completed
    rounds.  Stops early if ``update`` sets ``L.error``.
    """
    cdef Py_ssize_t T = s.T, done = 0, stop
    cdef const double* yp = <const double*> _data_or_null(y, cnp.NPY_FLOAT64, T, False)
    if yp == NULL:
        raise TypeError("y is required")
    cdef double* sc = <double*> _data_or_null(scores, cnp.NPY_FLOAT64, T)
    cdef double* ls = <double*> _data_or_null(losses, cnp.NPY_FLOAT64, T)
    cdef unsigned char* mk = <unsigned char*> _data_or_null(mistakes, cnp.NPY_UINT8, T)
    cdef int* bd = <int*> _data_or_null(budget, cnp.NPY_INT, T)
    if (sc == NULL) != (ls == NULL) or (sc == NULL) != (mk == NULL) \
            or (sc == NULL) != (bd == NULL):
        raise TypeError("give all four per-round arrays or none")
    while done < T:
        stop = min(T, done + SIGNAL_CHECK_EVERY)
        with nogil:
            done = _rounds(L, s, yp, sc, ls, mk, bd, done, stop)
        if done < stop or done == T:
            break
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            if hasattr(exc, "add_note"):
                exc.add_note(f"okl: run stopped after {done} of {T} rounds; the learner "
                             "holds exactly the completed rounds")
            raise
    return done


def _learn_one(Learner L, Stream s, double y):
    """One round on the first row of ``s`` (the GIL released); False if ``update``
    failed (``L.error``)."""
    cdef Row row
    s.row(0, &row)
    with nogil:
        _round(L, &row, y)
    return not L.error


cdef inline void _round(Learner L, Row* row, double y) noexcept nogil:
    """One round of ``L`` on ``row``: predict, suffer the loss, update (as the stream
    driver's loop does)."""
    cdef double f
    L.t += 1
    f = L.score(row)
    L.loss(y, f)
    L.update(row, y, f)


cdef inline int _label_of(object y, bint classification, double* out):
    """A float (Python or NumPy) label that passes the checks of ``check_label``."""
    cdef double v
    if not isinstance(y, float):        # np.float64 is a float too
        return 0
    v = y
    if classification:
        if v != 1.0 and v != -1.0:
            return 0
    elif v - v != 0.0:
        return 0
    out[0] = v
    return 1


def _learn_one_fast(Learner L, lock, x, y):
    """``learn_one`` in one call when nothing needs Python: ``L`` has seen its first
    example, ``x`` is a float64 vector / 1-row array / 1-row CSR (float64, int32)
    that passes the checks, and ``y`` a float label that does.  Returns ``None``
    (nothing done, nothing changed) when the general path must handle the call;
    otherwise ``True``, or ``False`` if ``update`` failed.  Holds ``lock`` (the
    learner's) from the checks to the end of the round."""
    cdef Stream s
    cdef Row row
    cdef double v
    lock.acquire()
    try:
        if L.d < 0:
            return None
        s = _row_stream_c(x, L.d)
        if s is None or not _label_of(y, L.classification, &v):
            return None
        s.row(0, &row)
        with nogil:
            _round(L, &row, v)
        return not L.error
    finally:
        lock.release()


def _predict_one_fast(Learner L, lock, x):
    """``f(x)`` for ``predict_one`` in one call (see ``_learn_one_fast``), or ``None``."""
    cdef Stream s
    cdef Row row
    cdef double f
    lock.acquire()
    try:
        if L.d < 0:
            return None
        s = _row_stream_c(x, L.d)
        if s is None:
            return None
        s.row(0, &row)
        with nogil:
            f = L.score(&row)
        return f
    finally:
        lock.release()


def _predict_one(Learner L, Stream s):
    """``f(x)`` of the current hypothesis on the first row of ``s``."""
    cdef Row row
    cdef double f
    s.row(0, &row)
    with nogil:
        f = L.score(&row)
    return f


def _decide(Learner L, Stream s):
    """Scores of the current hypothesis on every row of ``s`` (no learning)."""
    out = np.empty(s.T)
    cdef double[::1] o = out
    cdef Py_ssize_t t
    cdef Row row
    with nogil:
        for t in range(s.T):
            s.row(t, &row)
            o[t] = L.score(&row)
    return out

# okl._core is the public home of these names (see its docstring): the classes carry its
# name, and pickles, reprs and argument errors name it as before the split.

(<PyTypeObject*> Learner).tp_name = b"okl._core.Learner"
for _f in (_blas_bind, _blas_enter, _blas_exit, _drive, _learn_one, _learn_one_fast,
           _predict_one_fast, _predict_one, _decide):
    _f.__module__ = sys.intern("okl._core")
del _f
