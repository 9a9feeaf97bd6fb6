"""What a call does besides its rounds: no copies, no temporaries, the per-call fast
paths, the BLAS guard, lazy imports.  Nothing here is timed (benchmarks/overhead.py
measures the times); these are the properties the times rest on, checked exactly:
which arrays a stream reads, how many bytes a run allocates, which path a call takes.
"""
import subprocess
import sys
import threading
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl import _core
from okl._validation import as_stream, check_labels, check_matrix, check_row
from conftest import sparse_stream, xor_stream


def _csr32(X):
    X = sp.csr_matrix(X)
    return sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                         shape=X.shape)


# ----------------------------------------------------------------------------
# no copies
# ----------------------------------------------------------------------------

def test_a_float64_c_contiguous_array_is_read_in_place():
    X, _ = xor_stream(100, 4)
    s = as_stream(X)
    assert s.arrays[0] is X and check_matrix(X) is X
    assert check_row(X[3]).arrays[0] is X[3].base or np.shares_memory(check_row(X[3]).arrays[0], X)


def test_a_canonical_csr_matrix_is_read_in_place_whatever_its_indptr_type():
    X, _ = sparse_stream(200, 30)
    X32 = _csr32(X)
    X64p = sp.csr_matrix((X32.data, X32.indices, X32.indptr.astype(np.int64)), shape=X.shape)
    for A in (X32, X64p, sp.csr_array(X32)):
        data, indices, indptr = as_stream(A).arrays
        assert data is A.data and indices is A.indices and indptr is A.indptr
    assert check_matrix(X32) is X32


def test_only_what_must_change_is_copied():
    X, _ = sparse_stream(200, 30)
    X32 = _csr32(X)
    wide = sp.csr_matrix(X32, copy=True)
    wide.indices = wide.indices.astype(np.int64)          # int64 indices: narrowed
    data, indices, _ = as_stream(wide).arrays
    assert data is wide.data and indices.dtype == np.int32 and indices is not wide.indices
    f32 = X32.astype(np.float32)                           # float32 values: converted
    data, indices, _ = as_stream(f32).arrays
    assert data.dtype == np.float64 and indices is f32.indices
    F = np.asfortranarray(xor_stream(50, 3)[0])            # Fortran order: one C copy
    assert as_stream(F).arrays[0].flags.c_contiguous


def test_unsorted_and_duplicate_indices_are_summed_and_sorted_in_a_copy():
    data = np.array([1.0, 2.0, 3.0, 4.0])
    indices = np.array([2, 0, 2, 1], dtype=np.int32)
    indptr = np.array([0, 3, 4], dtype=np.int32)
    X = sp.csr_matrix((2, 3))
    X.data, X.indices, X.indptr = data, indices, indptr     # bypass scipy's own checks
    s = as_stream(X)
    d2, i2, p2 = s.arrays
    np.testing.assert_array_equal(i2, [0, 2, 1])
    np.testing.assert_array_equal(d2, [2.0, 4.0, 4.0])
    np.testing.assert_array_equal(indices, [2, 0, 2, 1])    # the input is untouched
    np.testing.assert_allclose(okl.kernel_matrix(okl.Linear(), X, X),
                               X.toarray() @ X.toarray().T)


def test_malformed_csr_is_a_value_error_naming_the_row():
    X = sp.csr_matrix((3, 4))
    X.data = np.ones(3)
    X.indices = np.array([0, 5, 1], dtype=np.int32)         # 5 >= d = 4
    X.indptr = np.array([0, 1, 2, 3], dtype=np.int32)
    with pytest.raises(ValueError, match="row 1 has a column index outside"):
        as_stream(X)
    X.indices = np.array([0, 1, 1], dtype=np.int32)
    X.indptr = np.array([0, 2, 1, 3], dtype=np.int32)       # decreasing
    with pytest.raises(ValueError, match="indptr"):
        as_stream(X)
    X.indices = np.array([0, 1, 1], dtype=np.int64)
    X.indices[1] = 2**33 + 1                                # would wrap to 1 in int32
    X.indptr = np.array([0, 1, 2, 3], dtype=np.int64)
    with pytest.raises(ValueError, match="outside \\[0, 4\\)"):
        as_stream(X)


def test_the_nonfinite_row_is_found_in_any_position():
    rng = np.random.default_rng(0)
    for T, d in [(1, 1), (3, 7), (700, 3), (2000, 33)]:
        for flat in {0, T * d // 2, T * d - 1}:
            X = rng.standard_normal((T, d))
            X.flat[flat] = [np.nan, np.inf, -np.inf][flat % 3]
            with pytest.raises(ValueError, match=f"row {flat // d}\\)"):
                as_stream(X)
            with pytest.raises(ValueError, match=f"row {flat // d}\\)"):
                as_stream(_csr32(X))
    # a row of zeros stored as nothing, and empty rows around a bad one
    X = np.zeros((6, 4))
    X[4, 2] = np.nan
    with pytest.raises(ValueError, match="row 4\\)"):
        as_stream(_csr32(X))


# ----------------------------------------------------------------------------
# the bytes a call allocates
# ----------------------------------------------------------------------------

def _allocated(f):
    tracemalloc.start()
    tracemalloc.reset_peak()
    f()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_run_allocates_its_trace_and_nothing_proportional_to_the_stream_besides():
    X, y = xor_stream(100_000, 20, seed=3)                # 16 MB
    make = lambda: okl.BOGD(kernel=okl.Gaussian(1.0), B=50, seed=0)  # noqa: E731
    make().run(X[:10], y[:10])                             # imports, first-call caches
    trace_bytes = 100_000 * (8 + 8 + 1 + 4)
    peak = _allocated(lambda: make().run(X, y))
    assert trace_bytes <= peak < trace_bytes + 200_000
    Xs = _csr32(sp.random(100_000, 50, density=0.1, format="csr", random_state=1))
    peak = _allocated(lambda: make().run(Xs, y))
    assert peak < trace_bytes + 200_000
    # partial_fit keeps no per-round records at all
    peak = _allocated(lambda: make().partial_fit(X, y))
    assert peak < 200_000


def test_the_stream_computes_row_norms_as_the_rows_are_read():
    """The norms a kernel row uses are those of the row itself: a Gaussian kernel of a
    row with itself is exactly 1, dense and CSR, whatever the row's values."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((50, 9)) * 10.0 ** rng.integers(-3, 4, size=(50, 1))
    X[X < -1] = 0.0
    for A in (X, _csr32(X)):
        K = okl.kernel_matrix(okl.Gaussian(0.3), A, A)
        np.testing.assert_array_equal(np.diag(K), 1.0)
        L = okl.kernel_matrix(okl.Laplacian(0.3), A, A)
        np.testing.assert_array_equal(np.diag(L), 1.0)
    sq = np.einsum("ij,ij->i", X, X)
    S = okl.SupportSet(okl.Linear(), 9, 50)
    for row in X:
        S.push(row, 1.0)
    np.testing.assert_allclose(np.diag(okl.kernel_matrix(okl.Linear(), X, X)), sq,
                               rtol=1e-14)


# ----------------------------------------------------------------------------
# the per-call fast paths take every input the general path accepts, and no other
# ----------------------------------------------------------------------------

GOOD_ROWS = {
    "float64 vector": lambda x: x,
    "(1, d) array": lambda x: x.reshape(1, -1),
    "CSR row, int32": lambda x: _csr32(x.reshape(1, -1)),
    "CSR row, int64 indptr": lambda x: sp.csr_matrix(
        (x[x != 0], np.flatnonzero(x).astype(np.int32), np.array([0, np.count_nonzero(x)])),
        shape=(1, x.size)),
    "csr_array row": lambda x: sp.csr_array(_csr32(x.reshape(1, -1))),
    "all-zero CSR row": lambda x: sp.csr_matrix((1, x.size)),
}
SLOW_ROWS = {
    "list": lambda x: x.tolist(),
    "float32": lambda x: x.astype(np.float32),
    "ints": lambda x: np.round(x).astype(np.int64),
    "strided": lambda x: np.repeat(x, 2)[::2],
    "CSR int64 indices": lambda x: sp.csr_matrix(x.reshape(1, -1)).astype(np.float64),
    "COO row": lambda x: sp.coo_matrix(x.reshape(1, -1)),
}


@pytest.mark.parametrize("kind", list(GOOD_ROWS) + list(SLOW_ROWS))
def test_every_accepted_row_form_learns_the_same(kind):
    X, y = xor_stream(60, 5, seed=8)
    X[::3, 1] = 0.0
    form = {**GOOD_ROWS, **SLOW_ROWS}[kind]
    ref, learner = okl.BOGD(B=20, seed=1), okl.BOGD(B=20, seed=1)
    if kind == "all-zero CSR row":
        X[:] = 0.0
    if kind == "ints":
        X = np.round(X)
    if kind == "float32":
        X = X.astype(np.float32).astype(np.float64)
    # the reference reads the whole stream in the same layout (dense and CSR kernel rows
    # sum in different orders: equal to rounding, not bit for bit)
    sparse = sp.issparse(form(X[0]))
    Z = _csr32(X) if sparse else X
    ref.run(Z, y)
    for x, label in zip(X, y):
        learner.learn_one(form(x), label)
    for x in X:
        assert learner.predict_one(form(x)) == ref.predict_one(form(x))
    np.testing.assert_array_equal(learner.decision_function(Z), ref.decision_function(Z))
    if kind in GOOD_ROWS:
        assert _core._row_stream(form(X[0]), 5) is not None


def test_the_fast_path_skips_the_python_checks_once_the_learner_has_its_width(monkeypatch):
    import okl._validation as v
    import okl.learners.base as base

    X, y = xor_stream(30, 4)
    learner = okl.Perceptron()
    learner.learn_one(X[0], y[0])                          # fixes d: general path

    def refuse(*args, **kwargs):
        raise AssertionError("the general path was taken")

    monkeypatch.setattr(base, "check_row", refuse)
    monkeypatch.setattr(base, "check_label", refuse)
    monkeypatch.setattr(v, "as_stream", refuse)
    for t in range(1, 30):
        learner.learn_one(X[t], float(y[t]))
        learner.learn_one(_csr32(X[t:t + 1]), np.float64(y[t]))
        learner.learn_one(X[t].tolist(), y[t])             # a list of floats: one pass
        learner.predict_one(X[t])
    assert learner.n_rounds == 88
    with pytest.raises(AssertionError, match="general path"):
        learner.learn_one(X[0].astype(np.float32), 1.0)    # float32 needs converting
    with pytest.raises(AssertionError, match="general path"):
        learner.learn_one(X[0], 0.0)                       # a bad label: explained there


def test_batches_and_labels_in_typed_form_are_returned_as_they_are():
    X, y = xor_stream(40, 3)
    assert _core._stream_checked(X, 3).arrays[0] is X
    assert _core._stream_checked(X, 4) is None             # width: the general path says so
    assert _core._stream_checked(X[:, :0], -1) is None
    assert _core._labels_checked(y, 40, True) is y
    assert check_labels(y, 40, True) is y
    assert _core._labels_checked(np.where(y > 0, 1.0, 0.0), 40, True) is None
    assert _core._labels_checked(y * 0.5, 40, False) is not None


# ----------------------------------------------------------------------------
# the one-BLAS-thread guard
# ----------------------------------------------------------------------------

def _blas_threads():
    import threadpoolctl

    return [i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas"]


def test_the_blas_guard_is_process_wide_and_restores_only_at_the_last_exit():
    from okl.learners.base import one_blas_thread

    before = _blas_threads()
    if not before:
        pytest.skip("no BLAS library found by threadpoolctl")
    guard = one_blas_thread()
    with guard:
        assert all(n == 1 for n in _blas_threads())
        entered, leave = threading.Event(), threading.Event()

        def other():
            with one_blas_thread():
                entered.set()
                leave.wait(10)

        t = threading.Thread(target=other)
        t.start()
        entered.wait(10)
    # the first holder left; the other thread is still inside: still one thread
    assert all(n == 1 for n in _blas_threads())
    leave.set()
    t.join()
    assert _blas_threads() == before


def test_a_run_of_a_blas_learner_restores_the_blas_threads():
    before = _blas_threads()
    X, y = xor_stream(200, 3, seed=2)
    okl.POMDR(B=20, B0=8, T=400).run(X, y)
    learner = okl.Projectron(eta=0.3)
    for t in range(50):
        learner.learn_one(X[t], y[t])
    assert _blas_threads() == before


# ----------------------------------------------------------------------------
# imports
# ----------------------------------------------------------------------------

def test_import_okl_and_the_cli_load_no_numpy_scipy_or_typed_core():
    code = ("import sys, okl, okl.cli; "
            "print(sorted(m for m in ('numpy', 'scipy', 'okl._core', 'okl.learners', "
            "'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_every_exported_name_resolves_lazily():
    code = ("import okl; missing = [n for n in okl.__all__ if getattr(okl, n, None) is None]; "
            "print(missing, okl.Perceptron.__module__, okl.Gaussian.__module__, "
            "okl.datasets.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["[]", "okl.learners.perceptron", "okl.kernels", "okl.datasets"]
    assert set(okl.__all__) <= set(dir(okl))
    with pytest.raises(AttributeError):
        okl.NoSuchLearner
