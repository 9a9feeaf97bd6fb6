"""What AddressSanitizer and UBSan found in okl's typed code (issue 29), each as the
smallest calls that reach it.

Under ``.ci/sanitize`` (the extensions built with ``-fsanitize=address,undefined``;
CI runs this file that way) each test below made a report before its fix; in the normal
build each also checks the behaviour the fix keeps, and, where it can be seen from
Python, the fix itself.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl._validation import check_labels, check_matrix, check_row


def test_projectron_first_support_vector():
    """The Projectron's first added vector copied ``n = 0`` doubles from its scratch
    buffer ``beta``, still NULL then: ``memcpy(U, NULL, 0)`` is undefined behaviour
    (UBSan: "null pointer passed as argument 2, which is declared to never be null",
    okl/learners/_projectron.pyx, ProjectronCore.step)."""
    for cls in (okl.Projectron, okl.ProjectronPP):
        learner = cls(kernel=okl.Gaussian(1.0), eta=0.5)
        learner.learn_one(np.array([0.3, -1.2, 0.5]), 1.0)     # score 0: a mistake, added
        assert learner.support_set.vectors.shape == (1, 3)
        np.testing.assert_array_equal(learner.support_set.coefficients, [1.0])


# -- inputs that are C-contiguous float64 but not aligned --------------------------------

def _unaligned(a):
    """A copy of ``a`` (C-contiguous) at an address that is not a multiple of its item
    size: numpy accepts it, and np.ascontiguousarray hands it back as it is."""
    a = np.ascontiguousarray(a)
    buf = bytearray(a.nbytes + 1)
    out = np.frombuffer(buf, dtype=a.dtype, offset=1, count=a.size).reshape(a.shape)
    out[...] = a
    assert not out.flags.aligned and out.flags.c_contiguous
    return out


def _stream():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 7))
    X[rng.random(X.shape) < 0.4] = 0.0
    y = np.where(X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=60) > 0, 1.0, -1.0)
    return X, y


def test_unaligned_inputs_are_copied_before_the_typed_code_reads_them():
    """okl's validation handed a float64 array made by ``np.frombuffer`` at an odd offset
    to the typed code as it was; reading a double from such an address is undefined
    behaviour (UBSan: "load of misaligned address ... for type 'const double'" in
    okl_row_norms (okl/_vcheck.h), okl_dense_dots (okl/_vexp.h), the kernel rows, the
    support set).  Now every validated array is aligned (a copy only when it was not)."""
    X, y = _stream()
    Xu, yu = _unaligned(X), _unaligned(y)
    assert check_matrix(Xu).flags.aligned
    assert check_labels(yu, len(yu), True).flags.aligned
    C = sp.csr_matrix(X)
    Cu = sp.csr_matrix((_unaligned(C.data), _unaligned(C.indices), _unaligned(C.indptr)),
                       shape=C.shape)
    assert not (Cu.data.flags.aligned or Cu.indices.flags.aligned)
    Cc = check_matrix(Cu)
    assert Cc.data.flags.aligned and Cc.indices.flags.aligned and Cc.indptr.flags.aligned
    Ci64 = sp.csr_matrix((_unaligned(C.data), _unaligned(C.indices.astype(np.int64)),
                          _unaligned(C.indptr.astype(np.int64))), shape=C.shape)
    Cc = check_matrix(Ci64)
    assert Cc.indices.dtype == np.int32 and Cc.indices.flags.aligned
    assert check_row(_unaligned(X[3])).T == 1


@pytest.mark.parametrize("make", [
    lambda: okl.Perceptron(kernel=okl.Gaussian(1.5)),
    lambda: okl.Perceptron(kernel=okl.Laplacian(2.0)),
    lambda: okl.Perceptron(kernel=okl.Polynomial(degree=2, gamma=0.5)),
    lambda: okl.Projectron(kernel=okl.Gaussian(1.5), eta=0.3),
    lambda: okl.FOGD(kernel=okl.Gaussian(1.5), D=16, seed=0),
    lambda: okl.BOGD(kernel=okl.Gaussian(1.5), B=10, seed=0),
], ids=["gaussian", "laplacian", "polynomial", "projectron", "fogd", "bogd"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_learners_on_unaligned_inputs_equal_aligned_ones(make, sparse):
    X, y = _stream()
    if sparse:
        C = sp.csr_matrix(X)
        Xa = C
        Xu = sp.csr_matrix((_unaligned(C.data), _unaligned(C.indices), _unaligned(C.indptr)),
                           shape=C.shape)
    else:
        Xa, Xu = X, _unaligned(X)
    ref = make().run(Xa, y)
    got = make().run(Xu, _unaligned(y))
    np.testing.assert_array_equal(got.scores, ref.scores)
    one, ref_one = make(), make()
    for t in range(20):
        ref_one.learn_one(X[t], y[t])
        one.learn_one(_unaligned(X[t]), y[t])
    np.testing.assert_array_equal(one.decision_function(Xu), ref_one.decision_function(Xa))
