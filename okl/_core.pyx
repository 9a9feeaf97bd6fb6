# cython: language_level=3
"""Typed hot paths of okl: the public face of the typed core.

Every learner's round is a kernel row ``k(x, S)`` against its support set, a little
linear algebra on that row, and a coefficient update.  The pieces live in one module
each, bottom to top (each imports only the ones before it):

* ``okl._stream``: ``Row`` and ``Stream``, the rows of a dense or CSR matrix behind one
  accessor, and the one-pass checks that let an input through unconverted;
* ``okl._kernels``: ``kernel_row`` / ``kernel_self``: Gaussian, polynomial, linear and
  Laplacian kernels on dense rows (cached squared norms) and on CSR rows (gathering the
  row's non-zeros);
* ``okl._support``: ``SupportSet``: support vectors, their norms and coefficients in
  preallocated buffers (and ``kernel_matrix``, ``stream_kernel_rows`` through it);
* ``okl._gram``: ``GramInverse`` and ``GramCholesky``: the Gram matrix of a dictionary
  kept incrementally, with the approximate-linear-dependence (ALD) residual
  ``alpha_t = k(x,x) - k_S(x)^T K_S^{-1} k_S(x)``; ``regularized_projection``:
  ``(K_2 + eta I)^{-1} K_21 a`` through LAPACK;
* ``okl._learner``: ``Learner``, the base class with ``score``/``update``, the single
  driver that runs a whole stream without the GIL, and its one-BLAS-thread guard.

This module re-exports their names and is their public home: import them from here
(``from okl._core import SupportSet``; in Cython ``from okl._core cimport Learner, Row,
SupportSet, ...``, declared in ``okl/_core.pxd``).  The names were defined here before
the split, and they keep this module's name: each module, at its end, names its classes
``okl._core.X`` (their ``tp_name``: ``__module__``, ``repr`` and Cython's argument errors
read it) and gives its functions ``__module__ = "okl._core"``, so pickles record
``okl._core._rebuild_support_set``, ``okl._core.GramInverse``, ... as they always did
(pickles written before the split load; the same rounds pickle to the same bytes), and
whichever module is imported first.
"""

from okl._stream import (CSR_BAD_INDEX, CSR_BAD_INDPTR, CSR_NONFINITE, CSR_OK,
                         CSR_UNSORTED, _CSR32Stream, _csr_scan, _first_bad_label, _first_nonfinite,
                         _labels_checked, _narrow_indices, _row_stream, _stream_checked,
                         _stream_of)
from okl._support import _rebuild_support_set, _stream, kernel_matrix, stream_kernel_rows
from okl._gram import _rebuild_gram, _refusal, regularized_projection
from okl._learner import (_blas_bind, _blas_enter, _blas_exit, _decide, _drive, _learn_one,
                          _learn_one_fast, _predict_one, _predict_one_fast)

# The classes are cimported (okl/_core.pxd), which binds their names at the C level
# only: bind them as module attributes too.
for _cls in (Stream, SupportSet, GramDictionary, GramInverse, GramCholesky, Learner):
    globals()[_cls.__name__] = _cls
del _cls
