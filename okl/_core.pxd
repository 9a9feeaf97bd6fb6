# Typed declarations shared by every extension module of okl.
#
# A learner module does ``from okl._core cimport Learner, Row, SupportSet, ...``
# and overrides ``score``/``update``; the stream driver (okl/_learner.pyx) calls them
# round after round without the GIL.  The declarations live beside their code, one
# module per concern (see okl/_core.pyx); this file hands them on.

from okl._stream cimport Row, Stream
from okl._kernels cimport (KERNEL_GAUSSIAN, KERNEL_POLYNOMIAL, KERNEL_LINEAR,
                           KERNEL_LAPLACIAN, KernelParams, kernel_self, sq_dist_row,
                           exp_scaled, kernel_row)
from okl._support cimport SupportSet
from okl._gram cimport GramDictionary, GramInverse, GramCholesky, regularized_projection_c
from okl._learner cimport Learner
