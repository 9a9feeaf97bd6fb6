"""The registry of every dataset the papers name, its loaders and every paper declaration.

Fixtures (``tests/fixtures/data``): real rows of magic04, a9a and a9a.t, and made-up files
in the published formats of every other dataset (``tests/fixtures/make_data_fixtures.py``:
LIBSVM text, bz2, Luis Torgo's tar.gz archives, UCI zips, UCI's Buzz zip holding a tar.gz,
CSV headers and identifier columns).  Oracles: the archives opened here with tarfile /
zipfile and parsed with numpy; scalings, selections and draws written out with numpy.
"""
import bz2
import io
import math
import tarfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from okl.datasets import DatasetNotFoundError, load, paper_data, paper_datasets
from okl.datasets.registry import DATASETS, PAPER_DATASETS, PAPERS, SCALINGS, TASKS

DATA = Path(__file__).parent / "fixtures" / "data"
FIXTURE_ROWS = {"SUSY": 60, "Twitter": 50, "slice": 30}


@pytest.fixture(autouse=True)
def fixture_counts(monkeypatch):
    """Files whose draws stream need the published row count: give the fixtures' own."""
    for name, n in FIXTURE_ROWS.items():
        spec = DATASETS[name]
        monkeypatch.setitem(DATASETS, name, type(spec)(**{**spec.__dict__, "n_rows": n}))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is published with")
        yield


def numbers(text, sep=","):
    return np.array([[float(v) for v in line.split(sep)] for line in text.splitlines() if line])


def tar_member(archive, member):
    with tarfile.open(archive) as tar:
        return tar.extractfile(member).read().decode()


def buzz(member):
    with zipfile.ZipFile(DATA / "buzz+in+social+media.zip") as z:
        inner = z.read("regression.tar.gz")
    with tarfile.open(fileobj=io.BytesIO(inner)) as tar:
        return tar.extractfile(member).read().decode()


def libsvm(text, d):
    X, y = [], []
    for line in text.splitlines():
        tokens = line.split()
        row = np.zeros(d)
        for tok in tokens[1:]:
            j, v = tok.split(":")
            row[int(j) - 1] = float(v)
        X.append(row)
        y.append(float(tokens[0]))
    return np.array(X), np.array(y)


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


# -- the registry ---------------------------------------------------------------------------

def test_every_dataset_has_source_page_shape_and_labels():
    for name, spec in DATASETS.items():
        assert spec.name == name and spec.format in ("libsvm", "csv", "keel")
        assert spec.n_features and spec.page.startswith("https://")
        assert spec.sources and all(s.url.startswith("https://") for s in spec.sources)
        assert spec.labels is not None, f"{name}: say how labels map (or 'keep')"
    for name in ("mnist.scale", "cal_housing", "elevators", "elevators.test", "ailerons",
                 "ailerons.test", "TomsHardware", "Twitter", "slice", "casp", "phishing",
                 "usps", "usps.t", "cod-rna.t", "SUSY"):
        assert name in DATASETS
    assert DATASETS["Twitter"].how_to_get and "regression.tar.gz" in DATASETS["Twitter"].how_to_get


def test_every_paper_names_its_datasets_with_sizes_and_rules():
    names = {p: set(paper_datasets(p)) for p in PAPERS}
    assert names["pomdr"] == {"w8a", "magic04", "mushrooms", "mnist12", "a9a", "ijcnn1", "SUSY"}
    assert names["norma"] == {"usps", "usps.t"}
    assert names["ahpatron"] == {"phishing", "a9a", "w8a", "SUSY", "ijcnn1", "cod-rna"}
    assert names["awv"] == {"cod-rna", "SUSY", "casp", "ijcnn1"}
    assert names["selection"] == {
        "housing", "elevators", "ailerons", "ailerons-v", "Hardware", "Hardware-v",
        "Twitter", "Twitter-v", "Slice", "mushrooms", "magic04", "Adv-magic04", "Adv-a9a",
        "Adv-SUSY", "Adv-SUSY-v", "cod-rna"}
    assert names["bsgd"] == {"Adult", "IJCNN", "Banana", "DNA", "Satimage", "USPS", "Pen",
                             "Letter"}
    for (paper, name), decl in PAPER_DATASETS.items():
        assert decl.task in TASKS and (decl.scale is None or decl.scale in SCALINGS)
        width = len(decl.features) if decl.features else DATASETS[decl.parts[0]].n_features
        assert decl.d == width, f"{paper}/{name}: d {decl.d} but {width} columns"
        if decl.draw is None and decl.classes is None and decl.n is not None:
            assert decl.n == sum(DATASETS[p].n_rows for p in decl.parts) or \
                decl.parts[0] in FIXTURE_ROWS, f"{paper}/{name}"
        for key in ("draw", "features", "adversarial", "target"):
            present = {"draw": decl.draw, "features": decl.features,
                       "adversarial": decl.adversarial, "target": decl.target_scale}[key]
            if present is not None:
                assert key in decl.why, f"{paper}/{name}: say where the {key} rule comes from"
    sizes = {k: v.n for k, v in paper_datasets("ahpatron").items()}
    assert sizes == {"phishing": 11_055, "a9a": 48_842, "w8a": 49_749, "SUSY": 50_000,
                     "ijcnn1": 141_691, "cod-rna": 271_617}          # the paper's Table 1


# -- every loader on its fixture --------------------------------------------------------------

@pytest.mark.parametrize("name, d", [("w8a", 300), ("mushrooms", 112), ("phishing", 68),
                                     ("cod-rna", 8), ("cod-rna.t", 8)])
def test_libsvm_sets(name, d):
    X, y = load(name, data_home=DATA)
    X0, y0 = libsvm((DATA / name).read_text(), d)
    assert sp.issparse(X) and X.shape == X0.shape
    np.testing.assert_array_equal(X.toarray(), X0)
    np.testing.assert_array_equal(y, np.where(y0 == y0.max(), 1.0, -1.0))


@pytest.mark.parametrize("name, file, d, keep", [
    ("ijcnn1", "ijcnn1.bz2", 22, False), ("SUSY", "SUSY.bz2", 18, False),
    ("usps", "usps.bz2", 256, True), ("mnist.scale", "mnist.scale.bz2", 780, True)])
def test_compressed_libsvm_sets(name, file, d, keep):
    X, y = load(name, data_home=DATA)
    X0, y0 = libsvm(bz2.decompress((DATA / file).read_bytes()).decode(), d)
    np.testing.assert_array_equal(X.toarray(), X0)
    np.testing.assert_array_equal(y, y0 if keep else np.where(y0 == y0.max(), 1.0, -1.0))


def test_torgo_archives_are_read_inside_their_tar_gz():
    for name, member in [("cal_housing", "CaliforniaHousing/cal_housing.data"),
                         ("elevators", "Elevators/elevators.data"),
                         ("elevators.test", "Elevators/elevators.test"),
                         ("ailerons", "Ailerons/ailerons.data"),
                         ("ailerons.test", "Ailerons/ailerons.test")]:
        archive = DATA / DATASETS[name].sources[0].filename
        ref = numbers(tar_member(archive, member))
        X, y = load(name, data_home=DATA)
        np.testing.assert_array_equal(X, ref[:, :-1])
        np.testing.assert_array_equal(y, ref[:, -1])        # the target, kept as it is


def test_uci_buzz_files_are_read_through_the_zip_and_its_tar_gz(tmp_path):
    for name, member in [("TomsHardware", "regression/TomsHardware/TomsHardware.data"),
                         ("Twitter", "regression/Twitter/Twitter.data")]:
        ref = numbers(buzz(member))
        X, y = load(name, data_home=DATA)
        assert X.shape[1] == DATASETS[name].n_features
        np.testing.assert_array_equal(X, ref[:, :-1])
        np.testing.assert_array_equal(y, ref[:, -1])
        # the file extracted by hand, under its own name, works as well
        (tmp_path / member.rsplit("/", 1)[-1]).write_text(buzz(member))
        X2, y2 = load(name, data_home=tmp_path)
        np.testing.assert_array_equal(X2, X)


def test_uci_csv_sets_with_headers_target_columns_and_ids():
    casp = numbers((DATA / "CASP.csv").read_text().split("\n", 1)[1])
    X, y = load("casp", data_home=DATA)
    np.testing.assert_array_equal(X, casp[:, 1:])
    np.testing.assert_array_equal(y, casp[:, 0])             # RMSD, the first column
    with zipfile.ZipFile(DATA / DATASETS["slice"].sources[0].filename) as z:
        text = z.read("slice_localization_data.csv").decode()
    ref = numbers(text.split("\n", 1)[1])
    X, y = load("slice", data_home=DATA)
    assert X.shape == (30, 384)
    np.testing.assert_array_equal(X, ref[:, 1:-1])           # patientId left out
    np.testing.assert_array_equal(y, ref[:, -1])


def test_a_set_without_its_file_says_how_to_get_it(tmp_path):
    with pytest.raises(DatasetNotFoundError) as info:
        paper_data("Twitter", "selection", data_home=tmp_path)
    message = str(info.value)
    assert "buzz+in+social+media.zip" in message and "regression.tar.gz" in message
    assert "OKL_DATA" in message and str(tmp_path) in message


# -- every declaration on the fixtures ---------------------------------------------------------

def reference(paper, name, n_rows, seed):
    """The declaration applied with numpy, independently of okl.datasets.paper_data."""
    decl = PAPER_DATASETS[(paper, name)]
    blocks = [load(p, data_home=DATA) for p in decl.parts]
    X = np.vstack([dense(b[0]) for b in blocks])
    y = np.concatenate([b[1] for b in blocks])
    if decl.classes:
        keep = np.isin(y, list(decl.classes))
        X, y = X[keep], np.array([decl.classes[v] for v in y[keep]], dtype=float)
    N = len(y)
    k = min([N] + [v for v in (decl.draw, n_rows) if v])
    rows = np.sort(np.random.default_rng(seed).choice(N, size=k, replace=False))

    def scale(M, how):
        if how is None:
            return M
        if how == "std":
            sd = M.std(axis=0, ddof=1)
            return M / np.where(sd > 0, sd, 1.0)
        if how == "zscore":
            sd = M.std(axis=0, ddof=1)
            return np.where(sd > 0, (M - M.mean(axis=0)) / np.where(sd > 0, sd, 1.0), 0.0)
        lo, hi = M.min(axis=0), M.max(axis=0)
        unit = np.where(hi > lo, (M - lo) / np.where(hi > lo, hi - lo, 1.0), np.nan)
        out = unit if how == "minmax01" else 2 * unit - 1
        return np.where(np.isnan(out), 0.0, out)

    if decl.scale_stats == "file":
        X, y = scale(X[:, list(decl.features or range(X.shape[1]))], decl.scale), \
            scale(y[:, None], decl.target_scale)[:, 0]
        return X[rows], y[rows]
    X, y = X[rows], y[rows]
    X = X[:, list(decl.features or range(X.shape[1]))]
    return scale(X, decl.scale), scale(y[:, None], decl.target_scale)[:, 0]


@pytest.mark.parametrize("paper, name", sorted(PAPER_DATASETS))
def test_every_declaration_prepares_its_fixture(paper, name):
    decl = PAPER_DATASETS[(paper, name)]
    d = paper_data(name, paper, n_rows=12, seed=3, data_home=DATA)
    X0, y0 = reference(paper, name, 12, 3)
    assert d.task == decl.task and d.X.shape == X0.shape
    np.testing.assert_allclose(dense(d.X), X0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(d.y, y0, rtol=1e-12, atol=1e-15)
    if d.task == "classification":
        assert set(np.unique(d.y)) <= {-1.0, 1.0}
    assert len(d.steps) >= 2 and all(isinstance(s, str) and s for s in d.steps)
    assert d.files and all(Path(f).exists() for f in d.files)
    # the stream: a permutation, then the adversarial rescaling of the later rounds
    order = np.random.default_rng(0).permutation(d.n_rows)
    Xs, ys = d.stream(order)
    expected = dense(d.X)[order]
    if decl.adversarial is not None:
        start = math.ceil(d.n_rows / 20)
        expected[start:] *= decl.adversarial
        assert any("adversarial" in s for s in d.steps)
    np.testing.assert_array_equal(dense(Xs), expected)
    np.testing.assert_array_equal(ys, d.y[order])


def test_scalings_reach_their_ranges_on_the_prepared_rows():
    elev = paper_data("elevators", "selection", data_home=DATA)
    np.testing.assert_array_equal(elev.X.min(axis=0), -1.0)
    np.testing.assert_array_equal(elev.X.max(axis=0), 1.0)
    assert elev.y.min() == 0.0 and elev.y.max() == 1.0 and elev.n_rows == 35
    hw = paper_data("Hardware", "selection", data_home=DATA)
    np.testing.assert_allclose(hw.X.std(axis=0, ddof=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(hw.y.std(ddof=1), 1.0, rtol=1e-12)
    assert hw.X.min() >= 0.0                               # divided, not centred
    v = paper_data("ailerons-v", "selection", data_home=DATA)
    full = paper_data("ailerons", "selection", data_home=DATA)
    np.testing.assert_allclose(v.X, full.X[:, :6], rtol=0, atol=1e-15)
    casp = paper_data("casp", "awv", data_home=DATA)
    assert casp.y.min() == -1.0 and casp.y.max() == 1.0


def test_housing_is_scaled_with_all_rows_then_drawn():
    """The authors' housing.train was scaled with the 20,640 rows' statistics, then
    14,000 rows were kept: a drawn subset need not reach -1 and 1."""
    full = paper_data("housing", "selection", n_rows=40, data_home=DATA)
    part = paper_data("housing", "selection", n_rows=10, seed=5, data_home=DATA)
    rows = np.sort(np.random.default_rng(5).choice(40, size=10, replace=False))
    np.testing.assert_array_equal(part.X, full.X[rows])
    np.testing.assert_array_equal(part.y, full.y[rows])
    assert any("before any draw" in s for s in part.steps)


def test_mnist12_keeps_digits_one_and_two():
    d = paper_data("mnist12", "pomdr", data_home=DATA)
    X, digits = load("mnist.scale", data_home=DATA)
    keep = np.isin(digits, [1, 2])
    assert d.n_rows == keep.sum() and d.n_features == 780
    np.testing.assert_array_equal(d.X.toarray(), X[np.flatnonzero(keep)].toarray())
    np.testing.assert_array_equal(d.y, np.where(digits[keep] == 1, 1.0, -1.0))
    assert "12,700" in d.steps[0] or "minist" in d.steps[0]


def test_usps_for_novelty_keeps_the_digit():
    d = paper_data("usps", "norma", data_home=DATA)
    _, labels = load("usps", data_home=DATA)
    assert d.task == "novelty"
    np.testing.assert_array_equal(d.y, labels - 1)


def test_streamed_draw_from_a_nested_archive_equals_the_whole_file_draw(monkeypatch):
    """Twitter is drawn from in one streaming pass through zip > tar.gz (fetch.streamed);
    the rows equal the draw from the whole file."""
    from okl.datasets import fetch

    monkeypatch.setattr(fetch, "STREAM_CSV_VALUES", 100)     # the fixture is 50 x 77
    assert fetch.streamed("Twitter")
    streamed = paper_data("Twitter-v", "selection", n_rows=20, seed=8, data_home=DATA)
    monkeypatch.setattr(fetch, "STREAM_CSV_VALUES", 10 ** 12)
    monkeypatch.setattr(fetch, "STREAM_ABOVE", 10 ** 12)
    assert not fetch.streamed("Twitter")
    whole = paper_data("Twitter-v", "selection", n_rows=20, seed=8, data_home=DATA)
    np.testing.assert_array_equal(streamed.X, whole.X)
    np.testing.assert_array_equal(streamed.y, whole.y)


def test_the_documentation_lists_every_declaration_and_file():
    from okl.datasets.papers import declaration_summary

    page = (Path(__file__).parents[1] / "docs" / "datasets.rst").read_text()
    for row in declaration_summary():
        assert f"   * - {row['name']}\n     - {row['files']}\n" in page, row
        assert row["preparation"] in page, row
    for name, spec in DATASETS.items():
        assert f"   * - {name}\n     - {spec.sources[0].url}" in page, name
