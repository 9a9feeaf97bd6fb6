"""okl.datasets.fetch: data directory, cached download, checksums, loading.

Every download goes to an HTTP server on the loopback interface (``http.server``
in a thread) serving the fixture files; nothing here touches the internet.  The
server counts requests, so a cache hit is seen not to download.
"""
import bz2
import gzip
import hashlib
import http.server
import lzma
import socket
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from okl.datasets.fetch import (DATA_ENV, DATASETS, MIRROR_ENV, ChecksumError,
                                DatasetNotFoundError, DownloadError, RemoteDataset, Source,
                                available, data_home, fetch_file, find, load)

FIXTURES = Path(__file__).parent / "fixtures"
TINY = (FIXTURES / "tiny.libsvm").read_bytes()
TINY_X = np.array([
    [0.5, 0, -1.25, 0, 2],
    [0, 1, 0, 0, 0],
    [-0.75, 0, 0, 0.125, 1e-3],
    [0, 0, 4.5, 0, 0],
    [1, 1, 1, 1, 1],
    [0, 0, 0, 0, -2.5],
])
TINY_Y = np.array([1, -1, -1, 1, 1, -1.0])


class Server:
    """Serves ``files`` (URL path -> bytes) on 127.0.0.1; records every request."""

    def __init__(self):
        self.files = {}
        self.truncated = {}   # path -> (bytes sent, Content-Length announced)
        self.status = {}      # path -> HTTP error status to answer
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append(self.path)
                if self.path in outer.status:
                    self.send_error(outer.status[self.path])
                elif self.path in outer.truncated:
                    body, length = outer.truncated[self.path]
                    self.send_response(200)
                    self.send_header("Content-Length", str(length))
                    self.end_headers()
                    self.wfile.write(body)
                    self.close_connection = True
                elif self.path in outer.files:
                    body = outer.files[self.path]
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    self.send_error(404)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    def count(self, path):
        return self.requests.count(path)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def no_env(monkeypatch, tmp_path):
    """Each test starts without OKL_DATA / OKL_DATA_MIRROR and with a private home."""
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def toy(server, path="/files/toy.libsvm", data=TINY, checksum="right", **kw):
    server.files[path] = data
    digest = {"right": sha(data), "wrong": sha(data + b"x"), None: None}[checksum]
    return RemoteDataset(name="toy", sources=(Source(server.base + path, sha256=digest, **kw),),
                         n_features=5, n_rows=6)


def files_in(directory: Path):
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


# -- the data directory -----------------------------------------------------------

def test_data_home_order(monkeypatch, tmp_path):
    assert data_home() == tmp_path / "home" / ".cache" / "okl"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert data_home() == tmp_path / "xdg" / "okl"
    monkeypatch.setenv("OKL_DATA", str(tmp_path / "env"))
    assert data_home() == tmp_path / "env"
    assert data_home(tmp_path / "given") == tmp_path / "given"


# -- downloads ----------------------------------------------------------------------

def test_download_checks_the_checksum_and_a_cache_hit_does_not_download(server, tmp_path):
    spec = toy(server)
    X, y = load(spec, download=True, data_home=tmp_path)
    assert sp.issparse(X) and X.format == "csr"
    np.testing.assert_array_equal(X.toarray(), TINY_X)
    np.testing.assert_array_equal(y, TINY_Y)
    assert server.count("/files/toy.libsvm") == 1
    assert files_in(tmp_path) == ["toy.libsvm", "toy.libsvm.sha256"]
    assert (tmp_path / "toy.libsvm").read_bytes() == TINY
    assert (tmp_path / "toy.libsvm.sha256").read_text() == f"{sha(TINY)}  toy.libsvm\n"
    for download in (True, False):                      # cache hits: no new request
        X2, _ = load(spec, download=download, data_home=tmp_path)
        np.testing.assert_array_equal(X2.toarray(), TINY_X)
    assert server.count("/files/toy.libsvm") == 1
    fetch_file(spec, data_home=tmp_path, force=True)       # force: downloads again
    assert server.count("/files/toy.libsvm") == 2


def test_checksum_mismatch_raises_and_keeps_no_file(server, tmp_path):
    spec = toy(server, checksum="wrong")
    with pytest.raises(ChecksumError, match=rf"SHA-256 of the download is {sha(TINY)}, not "
                                            rf"the recorded .*the file was deleted"):
        load(spec, download=True, data_home=tmp_path)
    assert files_in(tmp_path) == []                     # no file, no temporary file
    assert not available(spec, data_home=tmp_path)


def test_size_mismatch_raises_and_keeps_no_file(server, tmp_path):
    spec = toy(server, checksum=None, size=len(TINY) + 1)
    with pytest.raises(ChecksumError, match=rf"{len(TINY)} bytes, but the file is recorded "
                                            rf"as {len(TINY) + 1}"):
        load(spec, download=True, data_home=tmp_path)
    assert files_in(tmp_path) == []


def test_trust_on_first_use_records_and_then_checks_the_checksum(server, tmp_path):
    spec = toy(server, checksum=None)
    load(spec, download=True, data_home=tmp_path)
    assert (tmp_path / "toy.libsvm.sha256").read_text().split()[0] == sha(TINY)
    with open(tmp_path / "toy.libsvm", "ab") as fh:     # the cached file changes
        fh.write(b"+1 1:1\n")
    with pytest.raises(ChecksumError, match=r"toy.libsvm: SHA-256 .* stored in "
                                            r"toy.libsvm.sha256 at its first download"):
        load(spec, data_home=tmp_path)
    with pytest.warns(UserWarning, match="7 rows, but dataset 'toy' is published with 6"):
        X, _ = load(spec, data_home=tmp_path, verify=False)  # the user can opt out
    assert X.shape[0] == 7
    fetch_file(spec, data_home=tmp_path, force=True)
    np.testing.assert_array_equal(load(spec, data_home=tmp_path)[0].toarray(), TINY_X)


def test_a_recorded_checksum_is_checked_on_every_load(server, tmp_path):
    spec = toy(server)
    load(spec, download=True, data_home=tmp_path)
    (tmp_path / "toy.libsvm.sha256").unlink()           # the recorded one still applies
    (tmp_path / "toy.libsvm").write_bytes(TINY.replace(b"4.5", b"4.6"))
    with pytest.raises(ChecksumError, match="recorded in okl"):
        load(spec, data_home=tmp_path)


def test_recorded_checksum_applies_to_the_published_file_only(server, tmp_path):
    spec = toy(server, path="/f/toy.libsvm.bz2", data=bz2.compress(TINY))
    (tmp_path / "toy.libsvm").write_bytes(TINY)          # the user's decompressed copy
    np.testing.assert_array_equal(load(spec, data_home=tmp_path)[0].toarray(), TINY_X)
    (tmp_path / "toy.libsvm.bz2").write_bytes(bz2.compress(TINY + b"+1 1:1\n"))
    with pytest.raises(ChecksumError, match="recorded in okl"):   # published name: checked
        load(spec, data_home=tmp_path)
    assert server.requests == []


def test_env_variables_choose_the_directory_and_the_mirror(server, tmp_path, monkeypatch):
    server.files["/m/phishing"] = b"1 1:1 68:0.5\n0 2:1\n"
    monkeypatch.setenv("OKL_DATA", str(tmp_path / "env"))
    monkeypatch.setenv("OKL_DATA_MIRROR", server.base + "/m/")
    with pytest.warns(UserWarning, match=r"2 rows, but dataset 'phishing' is published with "
                                         r"11055"):
        X, y = load("phishing", download=True)
    assert files_in(tmp_path / "env") == ["phishing", "phishing.sha256"]
    assert X.shape == (2, 68)
    np.testing.assert_array_equal(y, [1, -1])
    assert server.requests == ["/m/phishing"]
    assert available("phishing") and not available("phishing", data_home=tmp_path)


@pytest.mark.parametrize("suffix, pack", [
    (".bz2", bz2.compress), (".gz", gzip.compress), (".xz", lzma.compress)])
def test_compressed_downloads_are_decompressed_when_read(server, tmp_path, suffix, pack):
    spec = toy(server, path="/f/toy.libsvm" + suffix, data=pack(TINY))
    X, y = load(spec, download=True, data_home=tmp_path)
    np.testing.assert_array_equal(X.toarray(), TINY_X)
    np.testing.assert_array_equal(y, TINY_Y)
    assert "toy.libsvm" + suffix in files_in(tmp_path)  # kept compressed, as published
    X3, y3 = load(spec, data_home=tmp_path, n_rows=3, seed=1)  # a uniform draw, not the head
    rows = np.sort(np.random.default_rng(1).choice(6, size=3, replace=False))
    np.testing.assert_array_equal(X3.toarray(), TINY_X[rows])
    np.testing.assert_array_equal(y3, TINY_Y[rows])


def test_zip_download_reads_the_named_member(server, tmp_path):
    blob = tmp_path / "blob.zip"
    with zipfile.ZipFile(blob, "w") as z:
        z.writestr("magic04.names", "description")
        z.writestr("magic04.data", (FIXTURES / "tiny_magic04.data").read_bytes())
    server.files["/static/magic.zip"] = blob.read_bytes()
    spec = RemoteDataset(name="m", format="csv", n_features=10, labels={"g": 1, "h": -1},
                         sources=(Source(server.base + "/static/magic.zip",
                                         sha256=sha(blob.read_bytes()),
                                         member="magic04.data"),))
    X, y = load(spec, download=True, data_home=tmp_path / "d")
    assert X.shape == (5, 10)
    np.testing.assert_array_equal(y, [1, 1, -1, 1, -1])


def test_magic04_from_the_registry_maps_g_and_h(server, tmp_path):
    server.files["/mirror/magic04.data"] = (FIXTURES / "tiny_magic04.data").read_bytes()
    with pytest.warns(UserWarning, match="published with 19020"):
        X, y = load("magic04", download=True, data_home=tmp_path,
                    mirror=server.base + "/mirror")
    assert isinstance(X, np.ndarray) and X.shape == (5, 10)
    np.testing.assert_array_equal(y, [1, 1, -1, 1, -1])


def test_a_missing_source_falls_back_to_the_next(server, tmp_path):
    rng = np.random.default_rng(0)
    lines = [f"{i % 2} " + " ".join(f"{j}:{rng.normal():.6f}" for j in range(1, 19))
             for i in range(10)]
    server.files["/m/SUSY.bz2"] = bz2.compress(("\n".join(lines) + "\n").encode())
    fetch_file("susy", data_home=tmp_path, mirror=server.base + "/m")
    assert server.requests == ["/m/SUSY.xz", "/m/SUSY.bz2"]  # SUSY.xz is 404: SUSY.bz2
    with pytest.warns(UserWarning, match="10 rows, but dataset 'SUSY' is published"):
        X, y = load("susy", data_home=tmp_path)
    assert X.shape == (10, 18)
    np.testing.assert_array_equal(y, [-1, 1] * 5)
    # a draw from a file above STREAM_ABOVE rows needs the published count
    with pytest.raises(ValueError, match="10 examples, but dataset 'SUSY' is published "
                                         "with 5000000"):
        load("susy", data_home=tmp_path, n_rows=4)
    assert files_in(tmp_path) == ["SUSY.bz2", "SUSY.bz2.sha256"]


def test_http_errors_and_no_network_raise_download_error(server, tmp_path):
    spec = toy(server)
    server.status["/files/toy.libsvm"] = 500
    with pytest.raises(DownloadError, match=r"could not download dataset 'toy': .*HTTP 500"):
        load(spec, download=True, data_home=tmp_path)
    assert files_in(tmp_path) == []
    with socket.socket() as s:                          # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    offline = RemoteDataset(name="toy", sources=(Source(dead + "/toy.libsvm"),))
    with pytest.raises(DownloadError, match=r"refused.*copy the file \(toy.libsvm\) into "
                                            r".*OKL_DATA"):
        load(offline, download=True, data_home=tmp_path, progress=False)
    assert files_in(tmp_path) == []


def test_an_interrupted_transfer_keeps_no_file(server, tmp_path):
    spec = toy(server, checksum=None)
    server.truncated["/files/toy.libsvm"] = (TINY[:20], len(TINY))
    with pytest.raises(DownloadError, match="could not download dataset 'toy'"):
        load(spec, download=True, data_home=tmp_path)
    assert files_in(tmp_path) == []


def test_progress_bar_and_file_urls(tmp_path, capsys):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "a9a").write_bytes(b"+1 3:1 123:1\n-1 5:1\n")
    with pytest.warns(UserWarning, match="published with 32561"):
        X, y = load("a9a", download=True, data_home=tmp_path / "cache",
                    mirror=mirror.as_uri(), progress=True)
    assert X.shape == (2, 123)
    assert "a9a" in capsys.readouterr().err            # tqdm's bar names the file


# -- files already there; absent files ---------------------------------------------------

def test_absent_dataset_raises_naming_the_variable_directory_and_url(tmp_path):
    assert not available("a9a")
    with pytest.raises(DatasetNotFoundError) as info:
        load("a9a", data_home=tmp_path / "nothing")
    message = str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    assert "OKL_DATA" in message and str(tmp_path / "nothing") in message
    assert "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/a9a" in message
    assert "download=True" in message


def test_absent_dataset_error_carries_its_fields(tmp_path):
    """The message is made of the fields (written out here as before they existed);
    ``message(download)`` names another way to download; the error pickles."""
    import pickle

    with pytest.raises(DatasetNotFoundError) as info:
        load("a9a", data_home=tmp_path)
    exc = info.value
    url = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/a9a"
    page = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#a9a"
    assert (exc.name, exc.directory, exc.filenames, exc.url, exc.page) == (
        "a9a", tmp_path, ("a9a",), url, page)
    text = (f"dataset 'a9a' is not in {tmp_path} (looked for a9a, plain or "
            f".gz/.bz2/.xz/.zip); set the environment variable OKL_DATA to a directory that "
            f"has it, or download it with {{}} or by hand from {url} ({page})")
    assert str(exc) == text.format("okl.datasets.load('a9a', download=True)")
    assert exc.message(download="HOW") == text.format("HOW")
    again = pickle.loads(pickle.dumps(exc))
    assert type(again) is DatasetNotFoundError and str(again) == str(exc)
    assert isinstance(again, FileNotFoundError) and again.name == "a9a"


def test_a_directory_of_files_the_user_has(tmp_path):
    (tmp_path / "IJCNN1.bz2").write_bytes(bz2.compress(TINY))   # case does not matter
    (tmp_path / "cod-rna.t.gz").write_bytes(gzip.compress(TINY))
    (tmp_path / "magic04.data").write_bytes((FIXTURES / "tiny_magic04.data").read_bytes())
    assert available("ijcnn1", data_home=tmp_path) and not available("ijcnn1.t", tmp_path)
    assert find("cod-rna.t", tmp_path)[0].name == "cod-rna.t.gz"
    assert not available("cod-rna", data_home=tmp_path)
    with pytest.warns(UserWarning, match="published with 49990"):
        X, y = load("ijcnn1", data_home=tmp_path)            # no server, no checksum file
    assert X.shape == (6, 22)
    np.testing.assert_array_equal(X.toarray()[:, :5], TINY_X)
    with pytest.warns(UserWarning):
        _, y = load("magic04", data_home=tmp_path)
    np.testing.assert_array_equal(y, [1, 1, -1, 1, -1])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "IJCNN1.bz2", "cod-rna.t.gz", "magic04.data"]       # nothing written beside them


def test_wrong_width_file_is_rejected(tmp_path):
    (tmp_path / "w8a").write_bytes(b"+1 301:1\n")
    with pytest.raises(ValueError, match="301"):
        load("w8a", data_home=tmp_path)


def test_unknown_names():
    with pytest.raises(ValueError, match="unknown dataset 'a10a'"):
        load("a10a")
    with pytest.raises(ValueError, match="unknown dataset"):
        available(42)


def test_registry_has_the_papers_sets():
    names = {"a9a", "a9a.t", "w8a", "w8a.t", "ijcnn1", "ijcnn1.t", "cod-rna", "cod-rna.t",
             "phishing", "mushrooms", "SUSY", "magic04", "usps", "usps.t"}
    assert names <= set(DATASETS)
    libsvm = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
    assert DATASETS["ijcnn1"].sources[0].url == libsvm + "ijcnn1.bz2"
    assert DATASETS["a9a"].sources[0].url == libsvm + "a9a"
    assert [s.filename for s in DATASETS["SUSY"].sources] == ["SUSY.xz", "SUSY.bz2"]
    for spec in DATASETS.values():
        assert spec.n_features and spec.n_rows and spec.format in ("libsvm", "csv", "keel")
        for source in spec.sources:
            assert source.url.startswith("https://")
            assert source.sha256 is None or len(source.sha256) == 64


# -- USPS (multiclass: the labels are kept) -------------------------------------------

def usps_bytes(X, labels):
    """A USPS-format LIBSVM file (labels 1..10, 256 features, zeros left out), bz2-packed."""
    lines = [f"{lab} " + " ".join(f"{j + 1}:{float(x[j])!r}" for j in np.flatnonzero(x))
             for x, lab in zip(X, labels)]
    return bz2.compress(("\n".join(lines) + "\n").encode())


def test_usps_is_downloaded_with_its_multiclass_labels_kept(server, tmp_path):
    spec = DATASETS["usps"]
    mc = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/"
    assert [s.url for s in spec.sources] == [mc + "usps.bz2"]
    assert [s.url for s in DATASETS["usps.t"].sources] == [mc + "usps.t.bz2"]
    assert spec.sources[0].sha256 is None                # trust on first use
    assert (spec.n_features, spec.n_rows, DATASETS["usps.t"].n_rows) == (256, 7291, 2007)
    rng = np.random.default_rng(5)
    X = np.round(rng.uniform(-1, 1, (4, 256)), 4)
    X[:, ::3] = 0.0
    X[2, 255] = -1.0                                     # the last pixel is there
    labels = [10, 1, 7, 3]
    data = usps_bytes(X, labels)
    server.files["/mc/usps.bz2"] = data
    assert not available("usps", data_home=tmp_path)
    with pytest.warns(UserWarning, match="4 rows, but dataset 'usps' is published with 7291"):
        Xs, y = load("usps", download=True, data_home=tmp_path, mirror=server.base + "/mc")
    assert server.requests == ["/mc/usps.bz2"]
    assert Xs.shape == (4, 256)
    np.testing.assert_array_equal(Xs.toarray(), X)
    np.testing.assert_array_equal(y, [10, 1, 7, 3])      # not mapped to -1 / +1
    assert files_in(tmp_path) == ["usps.bz2", "usps.bz2.sha256"]
    assert (tmp_path / "usps.bz2.sha256").read_text() == f"{sha(data)}  usps.bz2\n"
    assert available("usps", data_home=tmp_path) and not available("usps.t", tmp_path)
    # the test part is a different file; neither name shadows the other
    server.files["/mc/usps.t.bz2"] = usps_bytes(X[:2], labels[:2])
    with pytest.warns(UserWarning, match="2 rows, but dataset 'usps.t' is published with 2007"):
        Xt, yt = load("usps.t", download=True, data_home=tmp_path,
                      mirror=server.base + "/mc")
    np.testing.assert_array_equal(Xt.toarray(), X[:2])
    np.testing.assert_array_equal(yt, [10, 1])
    assert find("usps", tmp_path)[0].name == "usps.bz2"
    assert find("usps.t", tmp_path)[0].name == "usps.t.bz2"
    # a cache hit; the recorded checksum is then checked
    with pytest.warns(UserWarning):
        load("usps", data_home=tmp_path)
    assert server.count("/mc/usps.bz2") == 1
    (tmp_path / "usps.bz2").write_bytes(usps_bytes(X[:3], labels[:3]))
    with pytest.raises(ChecksumError, match="usps.bz2.sha256 at its first download"):
        load("usps", data_home=tmp_path)


def test_usps_a_wider_file_is_rejected(tmp_path):
    (tmp_path / "usps").write_bytes(b"3 1:0.5 257:-1\n")
    with pytest.raises(ValueError, match="257"):
        load("usps", data_home=tmp_path)
