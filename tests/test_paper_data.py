"""okl.datasets.paper_data: the papers' datasets, prepared as each paper prepares them.

Fixtures: ``tests/fixtures/data`` holds real rows in the published formats and under the
published names (see tests/fixtures/README.md): 300 rows of UCI's magic04.data (195 g
then 105 h, the class-sorted layout of the original), 200 rows of LIBSVM's a9a and 100
of a9a.t.  Oracles: the files parsed here with numpy / the standard library (not okl's
readers), the row draw written out with numpy, the scalings in plain numpy.
"""
import csv
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from okl.datasets import (PAPERS, DatasetNotFoundError, PaperData, paper_data,
                          paper_datasets)
from okl.datasets import fetch
from okl.datasets.registry import DATASETS, PAPER_DATASETS

DATA = Path(__file__).parent / "fixtures" / "data"


@pytest.fixture(autouse=True)
def quiet_row_counts():
    # the fixtures are shorter than the published files: fetch.load warns about it
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is published with")
        yield


def magic04_oracle():
    rows = list(csv.reader(open(DATA / "magic04.data")))
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([1.0 if r[-1] == "g" else -1.0 for r in rows])
    return X, y


def libsvm_oracle(path, d):
    X, y = [], []
    for line in open(path):
        tokens = line.split()
        row = np.zeros(d)
        for tok in tokens[1:]:
            j, v = tok.split(":")
            row[int(j) - 1] = float(v)
        X.append(row)
        y.append(float(tokens[0]))
    return np.array(X), np.array(y)


def minmax01(X):
    lo, hi = X.min(axis=0), X.max(axis=0)
    return np.where(hi > lo, (X - lo) / np.where(hi > lo, hi - lo, 1), 0.0)


def reference_draw(N, k, seed):
    return np.sort(np.random.default_rng(seed).choice(N, size=k, replace=False))


# -- Li & Liao (AAAI 2023): magic04 min-max [0, 1], a9a = a9a + a9a.t ------------------

def test_pomdr_magic04_is_min_max_scaled_like_the_authors_magic04_N():
    d = paper_data("magic04", "pomdr", data_home=DATA)
    X0, y0 = magic04_oracle()
    assert isinstance(d, PaperData) and d.task == "classification"
    assert d.X.shape == (300, 10) and isinstance(d.X, np.ndarray)
    np.testing.assert_allclose(d.X, minmax01(X0), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(d.y, y0)
    assert d.X.min() == 0.0 and d.X.max() == 1.0
    np.testing.assert_array_equal(d.X.min(axis=0), 0.0)
    np.testing.assert_array_equal(d.X.max(axis=0), 1.0)
    assert any("magic04-N" in s and "[0, 1]" in s for s in d.steps)
    assert d.files == (str(DATA / "magic04.data"),)
    assert d.adversarial is None and d.n_paper == 19_020


def test_a_smaller_stream_is_a_uniform_seeded_draw_never_the_head():
    X0, y0 = magic04_oracle()
    assert (y0[:195] == 1).all() and (y0[195:] == -1).all()    # sorted like UCI's file
    for seed in (0, 1, [5, 7]):
        d = paper_data("magic04", "pomdr", n_rows=100, seed=seed, data_home=DATA)
        rows = reference_draw(300, 100, seed)
        np.testing.assert_array_equal(d.y, y0[rows])
        # scaling statistics are those of the drawn set
        np.testing.assert_allclose(d.X, minmax01(X0[rows]), rtol=0, atol=1e-15)
        assert 0.45 < (d.y == 1).mean() < 0.85                # both classes, not the head
        assert any("100 of the 300 rows drawn uniformly" in s and "n_rows=100" in s
                   for s in d.steps)
    again = paper_data("magic04", "pomdr", n_rows=100, seed=1, data_home=DATA)
    np.testing.assert_array_equal(again.X, paper_data("magic04", "pomdr", n_rows=100, seed=1,
                                                      data_home=DATA).X)
    other = paper_data("magic04", "pomdr", n_rows=100, seed=2, data_home=DATA)
    assert not np.array_equal(other.y, again.y) or not np.array_equal(other.X, again.X)
    full = paper_data("magic04", "pomdr", n_rows=10_000, data_home=DATA)   # more than there is
    assert full.X.shape == (300, 10) and not any("drawn" in s for s in full.steps)


def test_pomdr_a9a_concatenates_a9a_and_a9a_t_unscaled():
    d = paper_data("a9a", "pomdr", data_home=DATA)
    Xa, ya = libsvm_oracle(DATA / "a9a", 123)
    Xt, yt = libsvm_oracle(DATA / "a9a.t", 123)
    assert sp.issparse(d.X) and d.X.format == "csr" and d.X.shape == (300, 123)
    np.testing.assert_array_equal(d.X.toarray(), np.vstack([Xa, Xt]))
    np.testing.assert_array_equal(d.y, np.concatenate([ya, yt]))
    assert set(np.unique(d.X.data)) == {1.0}
    assert d.files == (str(DATA / "a9a"), str(DATA / "a9a.t"))
    assert "a9a + a9a.t" in d.steps[0] and "a9a_all" in d.steps[0]
    assert any("not scaled" in s for s in d.steps)
    small = paper_data("a9a", "pomdr", n_rows=50, seed=4, data_home=DATA)
    rows = reference_draw(300, 50, 4)
    np.testing.assert_array_equal(small.X.toarray(), np.vstack([Xa, Xt])[rows])


def test_the_streaming_draw_equals_the_in_memory_draw(monkeypatch):
    """Parts above fetch.STREAM_ABOVE rows are drawn from in one streaming pass (the
    published row count is N); the rows equal those of the in-memory draw."""
    whole = paper_data("magic04", "pomdr", n_rows=77, seed=9, data_home=DATA)
    spec = DATASETS["magic04"]
    monkeypatch.setitem(DATASETS, "magic04", type(spec)(**{**spec.__dict__, "n_rows": 300}))
    monkeypatch.setattr(fetch, "STREAM_ABOVE", 10)
    streamed = paper_data("magic04", "pomdr", n_rows=77, seed=9, data_home=DATA)
    np.testing.assert_array_equal(streamed.X, whole.X)
    np.testing.assert_array_equal(streamed.y, whole.y)
    monkeypatch.setitem(DATASETS, "magic04", type(spec)(**{**spec.__dict__, "n_rows": 301}))
    with pytest.raises(ValueError, match="300 examples, but dataset 'magic04' is published "
                                         "with 301"):
        paper_data("magic04", "pomdr", n_rows=77, seed=9, data_home=DATA)


# -- errors ---------------------------------------------------------------------------------

def test_missing_files_name_the_files_and_the_variable(tmp_path):
    (tmp_path / "a9a").write_bytes((DATA / "a9a").read_bytes())
    with pytest.raises(DatasetNotFoundError) as info:
        paper_data("a9a", "pomdr", data_home=tmp_path)
    message = str(info.value)
    assert "a9a.t" in message and "OKL_DATA" in message and str(tmp_path) in message
    assert isinstance(info.value, FileNotFoundError)


def test_missing_files_error_carries_its_fields(tmp_path):
    import pickle

    from okl.datasets.papers import PaperDataNotFoundError

    (tmp_path / "a9a").write_bytes((DATA / "a9a").read_bytes())
    with pytest.raises(PaperDataNotFoundError) as info:
        paper_data("a9a", "pomdr", data_home=tmp_path)
    exc = info.value
    assert (exc.name, exc.paper, exc.parts, exc.missing, exc.directory, exc.filenames) == (
        "a9a", "pomdr", ("a9a", "a9a.t"), ("a9a.t",), tmp_path, (("a9a.t",),))
    text = (f"a9a (pomdr) needs a9a + a9a.t; missing from {tmp_path}: a9a.t (plain or "
            f".gz/.bz2/.xz/.zip).  Set the environment variable OKL_DATA to a directory "
            f"that has them, or download them with {{}}")
    assert str(exc) == text.format("okl.datasets.fetch_file(name)")
    assert exc.message(download="HOW") == text.format("HOW")
    again = pickle.loads(pickle.dumps(exc))
    assert type(again) is PaperDataNotFoundError and str(again) == str(exc)
    assert isinstance(again, DatasetNotFoundError)


def test_unknown_paper_or_dataset():
    with pytest.raises(ValueError, match="unknown paper 'pomd'"):
        paper_data("a9a", "pomd")
    with pytest.raises(ValueError, match="names no dataset 'a10a'"):
        paper_data("a10a", "pomdr")
    with pytest.raises(ValueError, match="n_rows"):
        paper_data("a9a", "pomdr", n_rows=0, data_home=DATA)
    assert paper_data("MAGIC04", "pomdr", data_home=DATA).name == "magic04"


def test_declarations_are_data_for_every_paper():
    from okl import registry

    assert PAPERS == tuple(registry.PAPERS)            # one list of papers
    assert {"pomdr", "norma", "ahpatron", "awv", "selection"} <= set(PAPERS)
    pomdr = paper_datasets("pomdr")
    assert {"magic04", "a9a"} <= set(pomdr)
    assert pomdr["magic04"].scale == "minmax01" and pomdr["a9a"].scale is None
    assert pomdr["a9a"].parts == ("a9a", "a9a.t") and pomdr["a9a"].n == 48_842
    for (paper, name), decl in PAPER_DATASETS.items():
        assert decl.paper == paper and decl.name == name
        assert "scale" in decl.why, f"{paper}/{name}: say why it is (not) scaled"
        for part in decl.parts:
            assert part in DATASETS
    with pytest.raises(ValueError, match="unknown paper"):
        paper_datasets("nope")
