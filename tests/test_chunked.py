"""Streams larger than memory: okl.datasets.iter_chunks, okl.streaming and okl run.

Oracles: the whole-file readers (load_libsvm, load_csv) for the blocks and for every
error message; one ``learner.run`` over the whole stream for the chunked runs; numpy
cumulative sums for the summary trace; numpy's draw for select_rows.
"""
import bz2
import gzip
import io
import json
import lzma
import tarfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.datasets import iter_chunks, load, load_csv, load_libsvm, scan
from okl.datasets.chunks import select_rows
from okl.streaming import SummaryTrace, run_chunks, run_file

FIXTURES = Path(__file__).parent / "fixtures"
DATA = FIXTURES / "data"


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def stack(chunks):
    chunks = list(chunks)
    Xs = [c[0] for c in chunks]
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    return X, np.concatenate([c[1] for c in chunks]), [c[0].shape for c in chunks]


def a9a_file(tmp_path):
    return write(tmp_path, "a9a300.libsvm", (DATA / "a9a").read_bytes()
                 + (DATA / "a9a.t").read_bytes())


# -- blocks equal the whole-file readers -------------------------------------------------

@pytest.mark.parametrize("chunk_rows", [1, 2, 7, 64, 10_000])
def test_libsvm_chunks_concatenate_to_the_whole_file(tmp_path, chunk_rows):
    path = a9a_file(tmp_path)
    X0, y0 = load_libsvm(path)
    X, y, shapes = stack(iter_chunks(path, chunk_rows=chunk_rows))
    assert all(s[1] == X0.shape[1] for s in shapes)           # one width for every block
    assert max(s[0] for s in shapes) <= chunk_rows
    assert (X != X0).nnz == 0 and X.shape == X0.shape
    np.testing.assert_array_equal(y, y0)
    info = scan(path)
    assert (info.n_rows, info.n_features, info.zero_based) == (300, X0.shape[1], False)


def test_width_labels_and_zero_base_are_fixed_for_the_whole_file(tmp_path):
    # the first block has one label and a narrow row; index 0 appears only at the end
    text = "".join(f"0 {i % 3 + 1}:1\n" for i in range(5)) + "1 9:2\n1 0:1 4:1\n"
    path = write(tmp_path, "z.svm", text)
    X0, y0 = load_libsvm(path)
    X, y, shapes = stack(iter_chunks(path, chunk_rows=2))
    assert X0.shape == (7, 10) and all(s[1] == 10 for s in shapes)
    np.testing.assert_array_equal(X.toarray(), X0.toarray())
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(y, [-1] * 5 + [1, 1])
    # given width and labels: no first pass, the same blocks
    X2, y2, _ = stack(iter_chunks(path, chunk_rows=3, n_features=12, labels={0: -1, 1: 1},
                                  zero_based=True))
    np.testing.assert_array_equal(X2.toarray()[:, :10], X0.toarray())


def test_blank_lines_comments_and_compressed_files(tmp_path):
    text = "# c\n\n+1 qid:3 1:2 # t\n   \n-1\n+1 2:0.5\n" * 3
    plain = write(tmp_path, "c.svm", text)
    X0, y0 = load_libsvm(plain)
    for name, data in [("c.svm.gz", gzip.compress(text.encode())),
                       ("c.svm.bz2", bz2.compress(text.encode())),
                       ("c.svm.xz", lzma.compress(text.encode()))]:
        X, y, _ = stack(iter_chunks(write(tmp_path, name, data), chunk_rows=4))
        np.testing.assert_array_equal(X.toarray(), X0.toarray())
        np.testing.assert_array_equal(y, y0)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("d/c.svm")
        info.size = len(text)
        tar.addfile(info, io.BytesIO(text.encode()))
    X, y, _ = stack(iter_chunks(write(tmp_path, "c.tgz", buf.getvalue()), chunk_rows=5,
                                member="d/c.svm"))
    np.testing.assert_array_equal(X.toarray(), X0.toarray())
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as z:
        z.writestr("c.svm", text)
    X, y, _ = stack(iter_chunks(tmp_path / "c.zip", chunk_rows=5))
    np.testing.assert_array_equal(X.toarray(), X0.toarray())


def test_csv_chunks_concatenate_to_the_whole_file(tmp_path):
    for chunk_rows in (1, 3, 1000):
        X, y, _ = stack(iter_chunks(DATA / "magic04.data", chunk_rows=chunk_rows,
                                    labels={"g": 1, "h": -1}))
        X0, y0 = load_csv(DATA / "magic04.data", labels={"g": 1, "h": -1})
        np.testing.assert_array_equal(X, X0)
        np.testing.assert_array_equal(y, y0)
    path = write(tmp_path, "h.csv", "a,b,y\n1,2,0\n3,4,0\n5,6,1\n")
    X, y, shapes = stack(iter_chunks(path, chunk_rows=2))     # labels found by a first pass
    np.testing.assert_array_equal(y, [-1, -1, 1])
    assert shapes == [(2, 2), (1, 2)]


def test_registry_names_are_read_with_the_registry_width_and_labels():
    X0, y0 = load("a9a.t", data_home=DATA)
    X, y, shapes = stack(iter_chunks("a9a.t", data_home=DATA, chunk_rows=30))
    assert shapes[0] == (30, 123)
    assert (X != X0).nnz == 0
    np.testing.assert_array_equal(y, y0)
    X, y, _ = stack(iter_chunks("magic04", data_home=DATA, chunk_rows=50))
    np.testing.assert_array_equal(y, load("magic04", data_home=DATA)[1])
    with pytest.raises(FileNotFoundError, match="neither a file nor a dataset"):
        next(iter_chunks("no-such-thing"))


# -- the readers' guarantees hold chunk by chunk ---------------------------------------

LIBSVM_BAD = [
    ("1 1:1\n-1 2:abc\n", 2, "feature value 'abc'"),
    ("1 1:1\n\n# c\nxyz 2:1\n", 4, "label 'xyz'"),
    ("1 1:1\n1 3:1 4\n", 2, "'4' is not index:value"),
    ("1 1:1\n1 3:1 2:1\n", 2, "feature index 2 in '2:1' is not above the previous 3"),
    ("1 1:1 1:2\n", 1, "feature index 1 in '1:2' is not above the previous 1"),
    ("1 1:1\n1 1.5:1\n", 2, "feature index '1.5'"),
    ("1 1:1\n-1 -2:1\n", 2, "feature index -2"),
    ("1 1:1\n-1 2:1\n1 4:nan\n", 3, "not finite"),
    ("1 1:1\n-1 2:1e999\n", 2, "not finite"),
    ("1 1:1\nnan 2:1\n", 2, "label 'nan' is not finite"),
    ("1 1:1\n-1 99999999999999999999:1\n", 2, "is too large"),
    ("1 1:1\n1 2:1\n1 3000000000:1\n", 3, "is too large"),
    ("1 1:1\n-1 2:1\ncat 1:1\n", 3, "label 'cat' is not a number"),
    ("1 1:1\n\x00\xff\xfe garbage\n", 2, "is not a number"),
]


@pytest.mark.parametrize("text, line, what", LIBSVM_BAD)
@pytest.mark.parametrize("chunk_rows", [1, 2, 100])
def test_malformed_libsvm_chunks_name_file_and_line(tmp_path, text, line, what, chunk_rows):
    path = write(tmp_path, "bad.svm", text.encode("latin-1"))
    with pytest.raises(ValueError) as whole:
        load_libsvm(path)
    for kwargs in ({}, {"n_features": 5, "labels": {1: 1, -1: -1}, "zero_based": False}):
        with pytest.raises(ValueError) as info:
            list(iter_chunks(path, chunk_rows=chunk_rows, **kwargs))
        message = str(info.value)
        assert str(path) in message and "not a valid LIBSVM file" in message
        assert f"line {line}:" in message and what in message
        if not kwargs:
            assert message == str(whole.value)


def test_an_index_beyond_the_stream_width_names_its_line(tmp_path):
    path = write(tmp_path, "w.svm", "1 1:1\n-1 2:1\n1 7:1\n")
    with pytest.raises(ValueError, match=r"line 3: feature index 7 is beyond the 5 features"):
        list(iter_chunks(path, n_features=5, labels={1: 1, -1: -1}, zero_based=False,
                         chunk_rows=2))


def test_labels_outside_the_mapping_and_non_binary_files(tmp_path):
    path = write(tmp_path, "m.svm", "# h\n1 1:1\n\n2 1:2\n3 1:3\n")
    with pytest.raises(ValueError, match=r"3 distinct labels"):
        list(iter_chunks(path, chunk_rows=1))
    with pytest.raises(ValueError, match=r"line 5: label 3.0 is not in the labels mapping"):
        list(iter_chunks(path, chunk_rows=2, labels={1: 1, 2: -1}))
    _, y, _ = stack(iter_chunks(path, chunk_rows=1, labels="keep"))
    np.testing.assert_array_equal(y, [1, 2, 3])
    with pytest.raises(ValueError, match="holds no examples"):
        list(iter_chunks(write(tmp_path, "e.svm", "# nothing\n\n"), chunk_rows=1))
    for name in ("x.svm.bz2", "x.svm.gz", "x.svm.xz"):
        with pytest.raises(ValueError, match="cannot decompress"):
            list(iter_chunks(write(tmp_path, name, b"not compressed\n"), labels="keep",
                             n_features=3, zero_based=False))


@pytest.mark.parametrize("text, message", [
    ("1,2,1\n3,4\n", r"line 2: 2 fields where the file's first line has 3"),
    ("1,2,1\n3,?,1\n", r"line 2, column 2: feature '\?' is not a number"),
    ("1,2,1\n\n3,,1\n", r"line 3, column 2: feature '' is not a number"),
    ("1,2,1\n3,inf,1\n", r"line 2, column 2: feature 'inf' is not finite"),
    ("a,b,y\n1,2,1\n3,x,-1\n", r"line 3, column 2: feature 'x' is not a number"),
    ("1,2,1\n3,4,nan\n", r"line 2: label nan is not finite"),
    ("1,2,1\n3,4,dog\n", r"the labels are not numbers \(line 2: 'dog'"),
    ("a,b,y\n", r"holds no examples"),
])
@pytest.mark.parametrize("chunk_rows", [1, 2, 100])
def test_malformed_csv_chunks_name_file_and_line(tmp_path, text, message, chunk_rows):
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(ValueError, match=message):
        load_csv(path)
    with pytest.raises(ValueError, match=message) as info:
        list(iter_chunks(path, chunk_rows=chunk_rows))
    assert str(path) in str(info.value)
    if "label" not in message and "labels" not in message:
        with pytest.raises(ValueError, match=message):
            list(iter_chunks(path, chunk_rows=chunk_rows, labels={1: 1, -1: -1}))


def test_select_rows_equals_a_numpy_draw(tmp_path):
    path = a9a_file(tmp_path)
    X0, y0 = load_libsvm(path)
    rows = np.sort(np.random.default_rng(3).choice(300, size=40, replace=False))
    X, y, n = select_rows(iter_chunks(path, chunk_rows=17), rows)
    assert n == 300
    np.testing.assert_array_equal(X.toarray(), X0[rows].toarray())
    np.testing.assert_array_equal(y, y0[rows])
    with pytest.raises(ValueError, match="row 300 asked for"):
        select_rows(iter_chunks(path, chunk_rows=50), [1, 300])


def test_a_streamed_libsvm_draw_equals_the_whole_file_draw(monkeypatch):
    """SUSY's draws stream (5,000,000 rows): on the fixture with its own row count, the
    streamed draw equals numpy's draw from the whole file."""
    from okl.datasets import fetch
    from okl.datasets.registry import DATASETS

    spec = DATASETS["SUSY"]
    monkeypatch.setitem(DATASETS, "SUSY", type(spec)(**{**spec.__dict__, "n_rows": 60}))
    monkeypatch.setattr(fetch, "STREAM_ABOVE", 10)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is published with")
        X0, y0 = load("SUSY", data_home=DATA)
    X, y = load("SUSY", data_home=DATA, n_rows=25, seed=11)
    rows = np.sort(np.random.default_rng(11).choice(60, size=25, replace=False))
    np.testing.assert_array_equal(X.toarray(), X0[rows].toarray())
    np.testing.assert_array_equal(y, y0[rows])


# -- learning chunk by chunk equals one run ------------------------------------------------

LEARNERS = [
    lambda: okl.BOGD(okl.Gaussian(2.0), B=20, seed=1),
    lambda: okl.POMDR(okl.Gaussian(2.0), B=40, B0=20, T=360, seed=1),
    lambda: okl.FOGD(okl.Gaussian(2.0), D=40, seed=1),
    lambda: okl.NOGD(okl.Gaussian(2.0), B=25, k=10) if hasattr(okl, "NOGD") else None,
    lambda: okl.Projectron(okl.Gaussian(2.0), eta=0.5),
    lambda: okl.Perceptron(okl.Gaussian(2.0)),
    lambda: okl.Ahpatron(okl.Gaussian(2.0), B=24, seed=1),
]


@pytest.mark.parametrize("make", LEARNERS)
def test_chunked_run_equals_one_run(tmp_path, make):
    path = a9a_file(tmp_path)
    X, y = load_libsvm(path)
    one, chunked = make(), make()
    whole = one.run(X, y)
    trace = run_chunks(chunked, iter_chunks(path, chunk_rows=13), keep_rounds=True,
                       progress=False)
    np.testing.assert_array_equal(trace.scores, whole.scores)
    np.testing.assert_array_equal(trace.losses, whole.losses)
    np.testing.assert_array_equal(trace.mistakes, whole.mistakes)
    np.testing.assert_array_equal(trace.budget, whole.budget)
    np.testing.assert_array_equal(chunked.decision_function(X), one.decision_function(X))
    # the same final state: both continue alike on more rounds (pickles are no oracle:
    # POMDR's state holds buffer entries it never reads, which differ between two
    # identical runs)
    more = np.arange(X.shape[0])[::-1][:60]
    np.testing.assert_array_equal(chunked.run(X[more], y[more]).scores,
                                  one.run(X[more], y[more]).scores)
    summary = run_chunks(make(), iter_chunks(path, chunk_rows=13), every=50, progress=False)
    assert summary.n_mistakes == whole.n_mistakes
    assert summary.average_loss == pytest.approx(whole.average_loss, rel=1e-12)


def test_summary_trace_checkpoints_are_the_cumulative_sums(tmp_path):
    path = a9a_file(tmp_path)
    X, y = load_libsvm(path)
    whole = okl.BOGD(okl.Gaussian(2.0), B=20, seed=1).run(X, y)
    s = run_chunks(okl.BOGD(okl.Gaussian(2.0), B=20, seed=1), iter_chunks(path, chunk_rows=7),
                   every=40, progress=False)
    assert isinstance(s, SummaryTrace) and s.n_rounds == 300
    np.testing.assert_array_equal(s.rounds, [40, 80, 120, 160, 200, 240, 280, 300])
    idx = s.rounds - 1
    np.testing.assert_array_equal(s.cumulative_mistakes, np.cumsum(whole.mistakes)[idx])
    np.testing.assert_allclose(s.cumulative_loss, np.cumsum(whole.losses)[idx], rtol=1e-12)
    np.testing.assert_array_equal(s.budget, whole.budget[idx])
    assert (s.final_budget, s.max_budget) == (whole.final_budget, whole.max_budget)
    d = s.to_dict()
    assert set(whole.to_dict()) <= set(d) and d["mistakes"] == whole.n_mistakes
    s.save(tmp_path / "s.npz")
    with np.load(tmp_path / "s.npz") as saved:
        np.testing.assert_array_equal(saved["cumulative_mistakes"], s.cumulative_mistakes)
    # regression: no mistakes
    r = run_chunks(okl.NORMA(okl.Gaussian(1.0), loss="squared", lam=0.01, eta=0.1),
                   iter_chunks(DATA / "CASP.csv", header=True, label_column=0,
                               labels="keep", chunk_rows=9), every=10, progress=False)
    assert not r.is_classification and r.cumulative_mistakes is None
    with pytest.raises(ValueError, match="regression"):
        r.mistake_rate
    with pytest.raises(ValueError, match="every"):
        SummaryTrace(every=0)


def test_run_file_sets_the_horizon_of_a_learner_that_needs_it(tmp_path):
    path = a9a_file(tmp_path)
    X, y = load_libsvm(path)
    whole = okl.POMDR(okl.Gaussian(2.0), B=40, B0=20, seed=1).run(X, y)     # T = the stream
    learner = okl.POMDR(okl.Gaussian(2.0), B=40, B0=20, seed=1)
    trace, n = run_file(learner, path, chunk_rows=11, keep_rounds=True, progress=False)
    assert n == 300 and learner.T == 300
    np.testing.assert_array_equal(trace.scores, whole.scores)
    trace, _ = run_file(okl.POMDR(okl.Gaussian(2.0), B=40, B0=20, seed=1), "a9a", data_home=DATA,
                        chunk_rows=11, progress=False)
    assert trace.n_rounds == 200


def test_okl_run_streams_a_file_with_the_in_memory_result(tmp_path, capsys):
    from okl.cli import main

    path = a9a_file(tmp_path)
    X, y = load_libsvm(path)
    whole = okl.BOGD(okl.Gaussian(1.0), B=30, seed=0).run(X, y)
    out = tmp_path / "run.json"
    assert main(["run", "--data", str(path), "--learner", "BOGD", "-p", "B=30",
                 "--chunk-rows", "17", "--summary-every", "100", "--no-progress",
                 "--json", str(out), "--trace", str(tmp_path / "t.npz")]) == 0
    summary = json.loads(out.read_text())
    assert summary["n_rounds"] == 300 and summary["mistakes"] == whole.n_mistakes
    saved = okl.trace.Trace.load(tmp_path / "t.npz")
    np.testing.assert_array_equal(saved.scores, whole.scores)
    assert main(["run", "--data", str(path), "--learner", "BOGD", "-p", "B=30",
                 "--chunk-rows", "17", "--no-progress", "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["checkpoints"]["rounds"][-1] == 300
    assert summary["mistakes"] == whole.n_mistakes
    assert f"{whole.mistake_rate:.4f}" in capsys.readouterr().out
