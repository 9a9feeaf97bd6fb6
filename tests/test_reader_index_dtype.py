"""The LIBSVM readers hand learners canonical CSR with int32 ``indices`` and ``indptr``
(what scipy builds), so that ``.run`` reads the matrix in place: no narrowing copy of
scikit-learn's int64 index arrays on every call."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import okl
from conftest import sparse_stream
from okl._validation import check_matrix
from okl.datasets import iter_chunks, load_libsvm


@pytest.fixture
def libsvm_file(tmp_path):
    X, y = sparse_stream(300, 12, density=0.3, seed=5)
    path = tmp_path / "s.libsvm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


def _int32_canonical(X):
    assert isinstance(X, sp.csr_matrix)
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert X.has_canonical_format
    # what a learner's run reads in place: check_matrix returns the very object
    assert check_matrix(X) is X


def test_load_libsvm_gives_int32_canonical_csr(libsvm_file):
    path, X0, y0 = libsvm_file
    ref, ref_y = load_svmlight_file(str(path), zero_based=False)
    assert ref.indices.dtype == np.int64        # the reason for the cast (scikit-learn 1.x)
    for kwargs in ({}, {"n_rows": 120}, {"n_features": 20}):
        X, y = load_libsvm(path, **kwargs)
        _int32_canonical(X)
        n = X.shape[0]
        np.testing.assert_array_equal(X.indices, ref[:n].indices)
        np.testing.assert_array_equal(X.indptr, ref[:n].indptr)
        np.testing.assert_array_equal(X.data, ref[:n].data)
        np.testing.assert_array_equal(y, ref_y[:n])
    X, _ = load_libsvm(path)            # the stream written (to %.16g)
    np.testing.assert_allclose(X.toarray(), X0.toarray(), rtol=1e-15)


def test_iter_chunks_gives_int32_canonical_csr(libsvm_file):
    path, _, _ = libsvm_file
    X, y = load_libsvm(path)
    chunks = list(iter_chunks(path, chunk_rows=70))
    assert len(chunks) == 5
    for Xc, _ in chunks:
        _int32_canonical(Xc)
    joined = sp.vstack([c[0] for c in chunks], format="csr")
    assert (joined != X).nnz == 0
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), y)


def test_runs_on_int32_and_int64_indices_agree(libsvm_file):
    path, _, _ = libsvm_file
    X, y = load_libsvm(path)
    X64 = X.copy()
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    a = okl.BOGD(okl.Gaussian(1.0), B=20, seed=2).run(X, y)
    b = okl.BOGD(okl.Gaussian(1.0), B=20, seed=2).run(X64, y)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.budget, b.budget)
    chunked = okl.Perceptron(okl.Gaussian(1.0))
    for Xc, yc in iter_chunks(path, chunk_rows=70):
        chunked.partial_fit(Xc, yc)
    whole = okl.Perceptron(okl.Gaussian(1.0))
    whole.run(X64, y)
    np.testing.assert_array_equal(chunked.decision_function(X64), whole.decision_function(X))
