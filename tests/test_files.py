"""okl.datasets.files: LIBSVM and CSV readers.

Oracles: matrices written out by hand for the fixture files, and random sparse
matrices written to LIBSVM text by a writer in this file (not scikit-learn's).
"""
import bz2
import gzip
import lzma
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from okl.datasets.files import load_csv, load_libsvm

FIXTURES = Path(__file__).parent / "fixtures"

TINY_X = np.array([
    [0.5, 0, -1.25, 0, 2],
    [0, 1, 0, 0, 0],
    [-0.75, 0, 0, 0.125, 1e-3],
    [0, 0, 4.5, 0, 0],
    [1, 1, 1, 1, 1],
    [0, 0, 0, 0, -2.5],
])
TINY_Y = np.array([1, -1, -1, 1, 1, -1.0])


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def to_libsvm_text(X, y):
    """A plain writer: one-based sorted indices, values by repr (round-trips exactly)."""
    lines = []
    for i in range(X.shape[0]):
        row = X[i]
        pairs = [f"{j + 1}:{float(row[j])!r}" for j in np.flatnonzero(row)]
        lines.append(" ".join([f"{y[i]:g}"] + pairs))
    return "\n".join(lines) + "\n"


# -- LIBSVM -------------------------------------------------------------------

def test_fixture_is_read_sparse_with_the_hand_written_matrix():
    X, y = load_libsvm(FIXTURES / "tiny.libsvm")
    assert sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
    assert X.nnz == 14  # the pairs in the file: nothing densified, no zeros stored
    np.testing.assert_array_equal(X.toarray(), TINY_X)
    np.testing.assert_array_equal(y, TINY_Y)
    X7, _ = load_libsvm(FIXTURES / "tiny.libsvm", n_features=7)
    assert X7.shape == (6, 7)
    np.testing.assert_array_equal(X7.toarray()[:, :5], TINY_X)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_sparse_matrices_round_trip(tmp_path, seed):
    rng = np.random.default_rng(seed)
    X = sp.random(40, 25, density=0.15, random_state=rng, format="csr").toarray()
    X[X != 0] = rng.normal(size=np.count_nonzero(X)) * 10.0 ** rng.integers(-3, 4)
    y = rng.choice([-1.0, 1.0], size=40)
    path = write(tmp_path, "r.svm", to_libsvm_text(X, y))
    got, labels = load_libsvm(path, n_features=25)
    assert sp.issparse(got) and got.nnz == np.count_nonzero(X)
    np.testing.assert_array_equal(got.toarray(), X)
    np.testing.assert_array_equal(labels, y)


def test_blank_lines_comments_qid_and_label_only_lines(tmp_path):
    path = write(tmp_path, "c.svm",
                 "# a comment line\n\n+1 qid:3 1:2 # trailing comment\n   \n-1\n+1 2:0.5\n")
    X, y = load_libsvm(path)
    np.testing.assert_array_equal(X.toarray(), [[2, 0], [0, 0], [0, 0.5]])
    np.testing.assert_array_equal(y, [1, -1, 1])


@pytest.mark.parametrize("text, line, what", [
    ("1 1:1\n-1 2:abc\n", 2, "feature value 'abc'"),
    ("1 1:1\n\n# c\nxyz 2:1\n", 4, "label 'xyz'"),
    ("1 1:1\n1 3:1 4\n", 2, "'4' is not index:value"),
    ("1 1:1\n1 3:1:2\n", 2, "'3:1:2' is not index:value"),
    ("1 1:1\n1 3:1 2:1\n", 2, "feature index 2 in '2:1' is not above the previous 3"),
    ("1 1:1 1:2\n", 1, "feature index 1 in '1:2' is not above the previous 1"),
    ("1 1:1\n1 1.5:1\n", 2, "feature index '1.5'"),
    ("1 1:1\n-1 -2:1\n", 2, "feature index -2"),
    ("1 1:1\n-1 2:\n", 2, "feature value ''"),
    ("1 1:1\n-1 2:1\n1 4:nan\n", 3, "not finite"),
    ("1 1:1\n-1 2:1e999\n", 2, "not finite"),
    ("1 1:1\nnan 2:1\n", 2, "label 'nan' is not finite"),
])
def test_malformed_libsvm_names_file_and_line(tmp_path, text, line, what):
    path = write(tmp_path, "bad.svm", text)
    with pytest.raises(ValueError) as info:
        load_libsvm(path)
    message = str(info.value)
    assert str(path) in message and "not a valid LIBSVM file" in message
    assert f"line {line}:" in message and what in message


def test_malformed_line_inside_a_compressed_file(tmp_path):
    path = write(tmp_path, "bad.svm.bz2", bz2.compress(b"1 1:1\n1 2:1\n-1 3:x\n"))
    with pytest.raises(ValueError, match=r"bad\.svm\.bz2: not a valid LIBSVM file: line 3"):
        load_libsvm(path)


def test_empty_and_undecompressable_files(tmp_path):
    with pytest.raises(ValueError, match="holds no examples"):
        load_libsvm(write(tmp_path, "e.svm", "# only a comment\n\n"))
    for name in ("x.svm.bz2", "x.svm.gz", "x.svm.xz", "x.svm.zip"):
        with pytest.raises(ValueError, match=rf"{name}: not a valid LIBSVM file: cannot "
                                             rf"decompress"):
            load_libsvm(write(tmp_path, name, b"this is not compressed data\n"))
    with pytest.raises(FileNotFoundError):
        load_libsvm(tmp_path / "absent.svm")


@pytest.mark.parametrize("raw, expected", [
    ([1, -1, -1, 1], [1, -1, -1, 1]),
    ([1, 0, 0, 1], [1, -1, -1, 1]),        # LIBSVM's {0, 1}
    ([2, 1, 1, 2], [1, -1, -1, 1]),        # LIBSVM's {1, 2} (mushrooms)
    ([-1, -1, -1, -1], [-1, -1, -1, -1]),
])
def test_binary_labels_map_to_plus_minus_one(tmp_path, raw, expected):
    text = "".join(f"{r} 1:{i + 1}\n" for i, r in enumerate(raw))
    _, y = load_libsvm(write(tmp_path, "b.svm", text))
    np.testing.assert_array_equal(y, expected)


def test_non_binary_labels_need_a_mapping(tmp_path):
    path = write(tmp_path, "m.svm", "1 1:1\n2 1:2\n3 1:3\n2 1:4\n")
    with pytest.raises(ValueError, match=r"3 distinct labels \[1.0, 2.0, 3.0\].*labels="):
        load_libsvm(path)
    single = write(tmp_path, "s.svm", "3 1:1\n3 1:2\n")
    with pytest.raises(ValueError, match="single label"):
        load_libsvm(single)
    _, y = load_libsvm(path, labels={1: 1, 2: -1, 3: 1})
    np.testing.assert_array_equal(y, [1, -1, 1, -1])
    _, y = load_libsvm(path, positive=2)
    np.testing.assert_array_equal(y, [-1, 1, -1, 1])
    _, y = load_libsvm(path, labels="keep")
    np.testing.assert_array_equal(y, [1, 2, 3, 2])
    with pytest.raises(ValueError, match=r"line 3: label 3.0 is not in the labels mapping"):
        load_libsvm(path, labels={1: 1, 2: -1})
    with pytest.raises(ValueError, match="must be -1 or \\+1"):
        load_libsvm(path, labels={1: 1, 2: 0, 3: 1})
    with pytest.raises(ValueError, match="positive=7 is not among"):
        load_libsvm(path, positive=7)
    with pytest.raises(ValueError, match="not both"):
        load_libsvm(path, labels={1: 1}, positive=1)


def test_label_mapping_reports_the_line_past_comments(tmp_path):
    path = write(tmp_path, "m.svm", "# header comment\n1 1:1\n\n5 1:2\n")
    with pytest.raises(ValueError, match=r"line 4: label 5.0 is not in the labels mapping"):
        load_libsvm(path, labels={1: 1})


@pytest.mark.parametrize("suffix, compress", [
    (".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)])
def test_compressed_libsvm_files(tmp_path, suffix, compress):
    data = (FIXTURES / "tiny.libsvm").read_bytes()
    X, y = load_libsvm(write(tmp_path, "t" + suffix, compress(data)))
    np.testing.assert_array_equal(X.toarray(), TINY_X)
    np.testing.assert_array_equal(y, TINY_Y)


def test_zip_archives(tmp_path):
    data = (FIXTURES / "tiny.libsvm").read_bytes()
    one = tmp_path / "one.zip"
    with zipfile.ZipFile(one, "w") as z:
        z.writestr("tiny.libsvm", data)
    np.testing.assert_array_equal(load_libsvm(one)[0].toarray(), TINY_X)
    two = tmp_path / "two.zip"
    with zipfile.ZipFile(two, "w") as z:
        z.writestr("README", "not data")
        z.writestr("data/tiny.libsvm", data)
    with pytest.raises(ValueError, match="holds 2 files"):
        load_libsvm(two)
    np.testing.assert_array_equal(load_libsvm(two, member="data/tiny.libsvm")[0].toarray(),
                                  TINY_X)
    with pytest.raises(ValueError, match="no member 'x'"):
        load_libsvm(two, member="x")


def test_first_n_rows(tmp_path):
    X, y = load_libsvm(FIXTURES / "tiny.libsvm", n_rows=4, n_features=5)
    np.testing.assert_array_equal(X.toarray(), TINY_X[:4])
    np.testing.assert_array_equal(y, TINY_Y[:4])
    path = write(tmp_path, "c.svm.gz", gzip.compress(b"# c\n1 1:1\n\n-1 2:2\n1 3:3 x\n"))
    X, y = load_libsvm(path, n_rows=2)    # the bad third example is never read
    np.testing.assert_array_equal(X.toarray(), [[1, 0], [0, 2]])
    with pytest.raises(ValueError, match="n_rows"):
        load_libsvm(path, n_rows=0)


# -- CSV ----------------------------------------------------------------------

def test_csv_with_string_labels_needs_a_mapping():
    path = FIXTURES / "tiny_magic04.data"
    with pytest.raises(ValueError, match=r"labels are not numbers \(line 1: 'g'"):
        load_csv(path)
    X, y = load_csv(path, labels={"g": 1, "h": -1})
    assert X.shape == (5, 10) and isinstance(X, np.ndarray) and X.dtype == np.float64
    np.testing.assert_array_equal(X[2, :3], [140.25, 120.0, 3.875])
    np.testing.assert_array_equal(y, [1, 1, -1, 1, -1])
    _, y = load_csv(path, positive="h")
    np.testing.assert_array_equal(y, [-1, -1, 1, -1, 1])
    with pytest.raises(ValueError, match=r"line 3: label 'h' is not in the labels mapping"):
        load_csv(path, labels={"g": 1})


def test_csv_header_inferred_given_or_absent(tmp_path):
    expected = np.array([[0.5, 0, -1.25], [0, 1, 0], [-0.75, 0.125, 0.001]])
    X, y = load_csv(FIXTURES / "tiny_header.csv")               # inferred
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(y, [1, -1, -1])
    X, _ = load_csv(FIXTURES / "tiny_header.csv", header=True)
    np.testing.assert_array_equal(X, expected)
    with pytest.raises(ValueError, match=r"tiny_header.csv, line 1, column 1: feature 'x1'"):
        load_csv(FIXTURES / "tiny_header.csv", header=False)
    plain = write(tmp_path, "p.csv", "1,0.5,0,-1.25\n0,0,1,0\n\n0,-0.75,0.125,0.001\n")
    X, y = load_csv(plain, label_column=0)                      # no header, label first
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(y, [1, -1, -1])
    X, y = load_csv(plain, label_column=0, header=True, labels={0: -1, 1: 1})  # line 1: names
    np.testing.assert_array_equal(X, expected[1:])
    np.testing.assert_array_equal(y, [-1, -1])
    semi = write(tmp_path, "s.csv", "a;b;y\n1;2;1\n3;4;-1\n")
    X, y = load_csv(semi, delimiter=";")
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])


@pytest.mark.parametrize("text, message", [
    ("1,2,1\n3,4\n", r"line 2: 2 fields where the file's first line has 3"),
    ("1,2,1\n3,4,5,1\n", r"line 2: 4 fields"),
    ("1,2,1\n3,?,1\n", r"line 2, column 2: feature '\?' is not a number"),
    ("1,2,1\n\n3,,1\n", r"line 3, column 2: feature '' is not a number"),
    ("1,2,1\n3,inf,1\n", r"line 2, column 2: feature 'inf' is not finite"),
    ("a,b,y\n1,2,1\n3,x,-1\n", r"line 3, column 2: feature 'x' is not a number"),
    ("1,2,1\n3,4,nan\n", r"line 2: label nan is not finite"),
    ("1\n2\n", r"line 1: one field per line"),
    ("a,b,y\n", r"holds no examples"),
    ("", r"holds no examples"),
])
def test_malformed_csv_names_file_and_line(tmp_path, text, message):
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(ValueError, match=message) as info:
        load_csv(path)
    assert str(path) in str(info.value)


def test_csv_labels_and_options(tmp_path):
    path = write(tmp_path, "l.csv", "1,2,3\n3,4,1\n5,6,2\n")
    with pytest.raises(ValueError, match="3 distinct labels"):
        load_csv(path)
    _, y = load_csv(path, labels={1: -1, 2: -1, 3: 1})
    np.testing.assert_array_equal(y, [1, -1, -1])
    _, y = load_csv(path, labels="keep")
    np.testing.assert_array_equal(y, [3, 1, 2])
    X, y = load_csv(path, n_rows=2, labels="keep")
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    for bad, name in [({"label_column": 3}, "label_column"), ({"header": "yes"}, "header"),
                      ({"delimiter": ",,"}, "delimiter"), ({"labels": "auto"}, "labels")]:
        with pytest.raises(ValueError, match=name):
            load_csv(path, **bad)


def test_undecompressable_csv(tmp_path):
    for name in ("x.csv.zip", "x.csv.gz", "x.csv.xz"):
        with pytest.raises(ValueError, match=rf"{name}: cannot decompress it"):
            load_csv(write(tmp_path, name, b"1,2,1\n"))


def test_compressed_csv(tmp_path):
    data = (FIXTURES / "tiny_magic04.data").read_bytes()
    X0, y0 = load_csv(FIXTURES / "tiny_magic04.data", labels={"g": 1, "h": -1})
    for name, blob in [("m.data.gz", gzip.compress(data)), ("m.data.bz2", bz2.compress(data))]:
        X, y = load_csv(write(tmp_path, name, blob), labels={"g": 1, "h": -1})
        np.testing.assert_array_equal(X, X0)
        np.testing.assert_array_equal(y, y0)


# -- the labels error carries its fields -----------------------------------------------------

def _chunked(path):
    from okl.datasets.chunks import iter_chunks
    return list(iter_chunks(path, chunk_rows=2))


@pytest.mark.parametrize("read", [load_libsvm, _chunked])
@pytest.mark.parametrize("text, fields, message", [
    ("1 1:1\n2 1:2\n3 1:3\n2 1:4\n", dict(labels=[1.0, 2.0, 3.0], n_labels=3, numeric=True),
     "{path}: 3 distinct labels [1.0, 2.0, 3.0]; a binary file is needed, or give "
     "labels={{label: +1 or -1}} or positive=label (one-vs-rest), or labels='keep'"),
    ("".join(f"{k} 1:1\n" for k in range(12)),
     dict(labels=[float(k) for k in range(10)], n_labels=12, numeric=True),
     "{path}: 12 distinct labels [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]; a binary "
     "file is needed, or give labels={{label: +1 or -1}} or positive=label (one-vs-rest), "
     "or labels='keep'"),
    ("3 1:1\n3 1:2\n", dict(labels=[3.0], n_labels=1, numeric=True),
     "{path}: a single label [3.0] that is not -1 or +1; give labels={{3: +1 or -1}}"),
])
def test_labels_error_fields_message_and_pickle(tmp_path, read, text, fields, message):
    """The message a Python user reads is the readers' (written out here as it was before
    the error carried fields); ``message(advice)`` puts other advice in place of the
    ``labels=`` keyword, and the error pickles with its fields."""
    import pickle

    from okl.datasets.files import LabelsError

    path = write(tmp_path, "m.svm", text)
    with pytest.raises(LabelsError) as info:
        read(path)
    exc = info.value
    assert isinstance(exc, ValueError)
    assert str(exc) == message.format(path=path)
    assert {k: getattr(exc, k) for k in fields} == fields and str(exc.path) == str(path)
    advised = exc.message(advice="ADVICE")
    assert "ADVICE" in advised and "labels={" not in advised
    assert advised.startswith(str(path) + ": ")
    again = pickle.loads(pickle.dumps(exc))
    assert type(again) is LabelsError and str(again) == str(exc)
    assert (again.labels, again.n_labels, again.numeric) == (exc.labels, exc.n_labels,
                                                             exc.numeric)


@pytest.mark.parametrize("chunked", [False, True])
def test_labels_error_of_string_labels_names_the_line(tmp_path, chunked):
    from okl.datasets.files import LabelsError

    path = write(tmp_path, "m.data", "1,2,g\n3,4,h\n5,6,g\n")
    with pytest.raises(LabelsError) as info:
        _chunked(path) if chunked else load_csv(path)
    exc = info.value
    assert str(exc) == (f"{path}: the labels are not numbers (line 1: 'g'; labels ['g', "
                        f"'h']); give labels={{...: +1, ...: -1}} to map them to -1/+1")
    assert (exc.labels, exc.n_labels, exc.numeric, exc.line, exc.value) == (
        ["g", "h"], 2, False, 1, "g")
    assert exc.message(advice="ADVICE") == (f"{path}: the labels are not numbers (line 1: "
                                            f"'g'; labels ['g', 'h']); ADVICE")
