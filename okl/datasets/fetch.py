"""The benchmark datasets of the papers: where they live, cached download, loading.

``load(name)`` returns ``(X, y)`` of a dataset of ``DATASETS`` (labels in {-1, +1},
except the multiclass ``usps`` / ``usps.t``, whose labels 1..10 are kept), read from
the *data directory*:

* ``data_home=`` if given, else the environment variable ``OKL_DATA``, else
  ``$XDG_CACHE_HOME/okl``, else ``~/.cache/okl``.
* A file is found there under its published name (``a9a``, ``ijcnn1.bz2``,
  ``SUSY.xz``, ``magic04.data``, ...) or the plain name with any of the suffixes
  ``.gz``, ``.bz2``, ``.xz``, ``.zip`` (names matched case-insensitively), so a
  directory of LIBSVM files you already have works as it is: point ``OKL_DATA`` (or
  ``data_home``) at it.
* Nothing is downloaded unless asked (``download=True``, or ``fetch_file(name)``).  A
  missing file with ``download=False`` raises ``DatasetNotFoundError`` naming the
  directory, the environment variable and the URL.  ``available(name)`` says
  whether the file is there, so experiments can fall back to generated data.

Downloads use ``urllib`` with a ``tqdm`` progress bar, write to a temporary file
in the data directory, check the SHA-256 and only then rename the file into place
(a failed or corrupt download leaves nothing behind).  Compressed files are kept
compressed and decompressed while reading.

Checksums: where a file's SHA-256 is recorded in ``DATASETS`` it is checked on
download and on every load.  No public record of the LIBSVM / UCI files' checksums
could be found when this registry was written, so every entry is ``None`` and the
files are *trusted on first use*: the SHA-256 of the first download is stored
beside the file (``<file>.sha256``, ``sha256sum`` format) and checked on every
later load.  ``load`` also warns when a complete file does not have the published
number of rows, and rejects one with more than the published number of columns.
Files you put in the directory yourself (no ``.sha256`` beside them) are checked
only against a recorded checksum, and only under the published name (a file you
decompressed is read as it is).

``OKL_DATA_MIRROR`` (or ``mirror=``) replaces every download URL by
``<mirror>/<published file name>``: a flat directory of the files on any HTTP(S)
server (or a ``file://`` URL).
"""
from __future__ import annotations

import functools
import hashlib
import http.client
import os
import sys
import tempfile
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np

from okl.datasets import chunks as _chunks
from okl.datasets.chunks import DEFAULT_CHUNK_ROWS, select_rows
from okl.datasets.files import (ARCHIVE_SUFFIXES, COMPRESSION_SUFFIXES, _check_n_rows, load_csv,
                                load_libsvm)
from okl.datasets.registry import DATASETS, RemoteDataset, Source  # re-exported

__all__ = ["Source", "RemoteDataset", "DATASETS", "DATA_ENV", "MIRROR_ENV",
           "DatasetNotFoundError", "DownloadError", "ChecksumError",
           "data_home", "find", "available", "fetch_file", "load", "load_rows",
           "sha256_of", "STREAM_ABOVE", "streamed", "iter_chunks"]

DATA_ENV = "OKL_DATA"
MIRROR_ENV = "OKL_DATA_MIRROR"
_CHUNK = 1 << 20


class DatasetNotFoundError(FileNotFoundError):
    """A dataset's file is not in the data directory and downloading was not asked for.

    The message names the directory, the files looked for, ``$OKL_DATA`` and how to
    download the file: the Python call ``okl.datasets.load(NAME, download=True)``, or
    what ``message(download)`` is given instead (the ``okl`` command names its
    ``--download``).

    Attributes
    ----------
    name : str
        The dataset (a key of ``DATASETS``).
    directory : Path
        The data directory searched.
    filenames : tuple of str
        The file names accepted (plain or compressed).
    url : str
        Where the file can be downloaded by hand.
    page : str or None
        The dataset's web page.
    """

    def __init__(self, name, directory, filenames, url, page=None):
        self.name, self.directory, self.filenames = name, directory, tuple(filenames)
        self.url, self.page = url, page
        super().__init__(self.message())

    def __reduce__(self):           # pickled by its fields (joblib and Dask workers)
        return functools.partial(type(self), self.name, self.directory, self.filenames,
                                 self.url, self.page), ()

    def message(self, download: str | None = None) -> str:
        """The message, with ``download`` (how to download the file) in place of the
        Python call ``okl.datasets.load(NAME, download=True)``."""
        download = download or f"okl.datasets.load({self.name!r}, download=True)"
        return (f"dataset {self.name!r} is not in {self.directory} (looked for "
                f"{' or '.join(self.filenames)}, plain or .gz/.bz2/.xz/.zip); set the "
                f"environment variable {DATA_ENV} to a directory that has it, or download "
                f"it with {download} or by hand from {self.url}"
                + (f" ({self.page})" if self.page else ""))


class DownloadError(ConnectionError):
    """A download failed: no network, an HTTP error, or an incomplete transfer."""


class ChecksumError(ValueError):
    """A file's SHA-256 is not the recorded one."""


# ----------------------------------------------------------------------------
# Where files live
# ----------------------------------------------------------------------------

def data_home(data_home=None) -> Path:
    """The data directory: ``data_home``, else ``$OKL_DATA``, else the user cache.

    The user cache is ``$XDG_CACHE_HOME/okl`` when ``XDG_CACHE_HOME`` is set, else
    ``~/.cache/okl``.  The directory is not created here.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache).expanduser() if cache else Path.home() / ".cache"
    return base / "okl"


_home = data_home  # for functions whose data_home parameter shadows the function


def _spec(name) -> RemoteDataset:
    if isinstance(name, RemoteDataset):
        return name
    if isinstance(name, str):
        if name in DATASETS:
            return DATASETS[name]
        folded = {k.lower(): v for k, v in DATASETS.items()}
        if name.lower() in folded:
            return folded[name.lower()]
    raise ValueError(f"unknown dataset {name!r}; known: {sorted(DATASETS)}")


def _candidates(source: Source) -> list[str]:
    """File names (lower case) under which ``source``'s file is accepted, best first:
    the published name, the name without its compression suffix (plain or compressed
    otherwise), and for an archive member the member's base name (the file extracted)."""
    published = source.filename
    stem = published
    for suffix in COMPRESSION_SUFFIXES:
        if published.lower().endswith(suffix):
            stem = published[: -len(suffix)]
    names = [published]
    if not published.lower().endswith(ARCHIVE_SUFFIXES):
        names += [stem] + [stem + s for s in COMPRESSION_SUFFIXES]
    if source.member:
        base = source.member.rstrip("/").rsplit("/", 1)[-1]
        names += [base] + [base + s for s in COMPRESSION_SUFFIXES]
    out = []
    for n in names:
        if n.lower() not in out:
            out.append(n.lower())
    return out


def find(name, data_home=None):
    """``(path, source)`` of dataset ``name``'s file in the data directory, or None."""
    spec = _spec(name)
    directory = _home(data_home)
    if not directory.is_dir():
        return None
    present = {}
    for p in directory.iterdir():
        if p.is_file() and not p.name.endswith((".sha256", ".part")):
            present.setdefault(p.name.lower(), p)
    for source in spec.sources:
        for candidate in _candidates(source):
            if candidate in present:
                path = present[candidate]
                # A file named like an archive member is read directly, not as an
                # archive; the recorded checksum and size are those of the published
                # file only (a file decompressed by the user has neither).
                member = source.member if candidate == source.filename.lower() else None
                published = candidate == source.filename.lower()
                return path, Source(source.url, source.sha256 if published else None,
                                    source.size if published else None, member)
    return None


def available(name, data_home=None) -> bool:
    """Whether dataset ``name``'s file is in the data directory (nothing is downloaded)."""
    return find(name, data_home) is not None


# ----------------------------------------------------------------------------
# Checksums
# ----------------------------------------------------------------------------

def sha256_of(path) -> str:
    """The SHA-256 of a file, as 64 hex digits."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _read_sidecar(path: Path) -> str | None:
    side = _sidecar(path)
    if not side.is_file():
        return None
    text = side.read_text().split()
    if not text or len(text[0]) != 64:
        raise ChecksumError(f"{side} is not a sha256sum line; delete it (and {path.name} "
                            f"if in doubt) and download again")
    return text[0].lower()


def _write_atomic(path: Path, text: str):
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _verify(path: Path, source: Source):
    """Check ``path`` against the recorded SHA-256, or the one stored at first download."""
    expected = source.sha256.lower() if source.sha256 else _read_sidecar(path)
    if expected is None:
        return  # a file the user put there: nothing to check it against
    actual = sha256_of(path)
    if actual != expected:
        origin = "recorded in okl" if source.sha256 else f"stored in {_sidecar(path).name} " \
                                                          f"at its first download"
        raise ChecksumError(f"{path}: SHA-256 {actual} is not the {expected} {origin}; the "
                            f"file is corrupt or was replaced: delete it and download it "
                            f"again (fetch_file(..., force=True))")


# ----------------------------------------------------------------------------
# Downloading
# ----------------------------------------------------------------------------

def _url(source: Source, mirror) -> str:
    mirror = mirror if mirror is not None else os.environ.get(MIRROR_ENV) or None
    if mirror:
        return mirror.rstrip("/") + "/" + source.filename
    return source.url


def _download(url: str, target: Path, source: Source, *, progress, timeout):
    """Download ``url`` to ``target`` atomically; returns the SHA-256 of the file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    tmp = Path(tmp)
    try:
        request = urllib.request.Request(url, headers={"User-Agent": "okl-datasets"})
        digest = hashlib.sha256()
        received = 0
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request, timeout=timeout) as r:
            length = r.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else source.size
            from tqdm.auto import tqdm

            with tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024,
                      desc=target.name, disable=not progress, leave=False) as bar:
                for block in iter(lambda: r.read(_CHUNK), b""):
                    out.write(block)
                    digest.update(block)
                    received += len(block)
                    bar.update(len(block))
            if length and length.isdigit() and received != int(length):
                raise DownloadError(f"{url}: incomplete download ({received} of {length} "
                                    f"bytes)")
        if source.size is not None and received != source.size:
            raise ChecksumError(f"{url}: {received} bytes, but the file is recorded as "
                                f"{source.size} bytes; nothing was kept")
        actual = digest.hexdigest()
        if source.sha256 is not None and actual != source.sha256.lower():
            raise ChecksumError(f"{url}: SHA-256 of the download is {actual}, not the "
                                f"recorded {source.sha256.lower()}; the file was deleted "
                                f"(a corrupt transfer or a changed file on the server)")
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:
        _write_atomic(_sidecar(target), f"{actual}  {target.name}\n")
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return actual


def fetch_file(name, *, data_home=None, download: bool = True, force: bool = False,
          mirror: str | None = None, progress: bool | None = None, timeout: float = 60.0,
          verify: bool = True):
    """The local path of dataset ``name``'s file, downloading it when missing.

    Parameters
    ----------
    name : str or RemoteDataset
        A key of ``DATASETS`` (case-insensitive), or a ``RemoteDataset``.
    data_home : str or Path, optional
        The data directory (default: ``data_home()``: ``$OKL_DATA`` or the cache).
    download : bool
        Download a missing file (else raise ``DatasetNotFoundError``).
    force : bool
        Download again even when the file is there (replacing it).
    mirror : str, optional
        Download from ``<mirror>/<published file name>`` (default ``$OKL_DATA_MIRROR``).
    progress : bool, optional
        Show a progress bar (default: when standard error is a terminal).
    timeout : float
        Seconds to wait for the server.
    verify : bool
        Check the SHA-256 of a file already there (see the module docstring).

    Returns
    -------
    (path, source) : the file and the ``Source`` it came from.

    Raises
    ------
    DatasetNotFoundError, DownloadError, ChecksumError
    """
    spec = _spec(name)
    directory = _home(data_home)
    found = None if force else find(spec, directory)
    if found is not None:
        if verify:
            _verify(*found)
        return found
    urls = [_url(s, mirror) for s in spec.sources]
    if not download:
        raise DatasetNotFoundError(spec.name, directory, spec.filenames, urls[0], spec.page)
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    errors = []
    for source, url in zip(spec.sources, urls):
        target = directory / source.filename
        try:
            _download(url, target, source, progress=progress, timeout=timeout)
        except urllib.error.HTTPError as exc:
            errors.append(f"{url}: HTTP {exc.code} {exc.reason}")
            if exc.code == 404:
                continue  # try the next source
            break
        except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets
            if isinstance(exc, DownloadError):
                errors.append(str(exc))
            else:
                reason = getattr(exc, "reason", exc)
                errors.append(f"{url}: {reason}")
            break
        return target, source
    raise DownloadError(
        f"could not download dataset {spec.name!r}: {'; '.join(errors)}. Without network "
        f"access, copy the file ({' or '.join(spec.filenames)}) into {directory} (or a "
        f"directory named by the environment variable {DATA_ENV})")


# ----------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------

def _read_whole(spec, path, source):
    if spec.format == "libsvm":
        return load_libsvm(path, n_features=spec.n_features, labels=spec.labels,
                           member=source.member)
    if spec.format == "csv":
        return load_csv(path, labels=spec.labels, label_column=spec.label_column,
                        header=spec.header, member=source.member,
                        skip_columns=spec.skip_columns)
    if spec.format == "keel":
        from okl.datasets.files import load_keel

        return load_keel(path, labels=spec.labels, member=source.member)
    raise ValueError(f"dataset {spec.name!r}: unknown format {spec.format!r}")


def _check_shape(spec, path, X, complete: bool):
    if spec.n_features is not None and X.shape[1] != spec.n_features:
        raise ValueError(f"{path}: {X.shape[1]} features, but dataset {spec.name!r} has "
                         f"{spec.n_features}")
    if complete and spec.n_rows is not None and X.shape[0] != spec.n_rows:
        warnings.warn(f"{path}: {X.shape[0]} rows, but dataset {spec.name!r} is published "
                      f"with {spec.n_rows}; is it the right file?", stacklevel=3)


def draw_indices(N: int, k: int, seed) -> np.ndarray:
    """The row draw of ``paper_data`` and ``load``: ``k`` of ``N`` indices, uniform
    without replacement, sorted: ``sort(default_rng(seed).choice(N, k, replace=False))``."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(N, size=k, replace=False))


def load(name, *, download: bool = False, data_home=None, n_rows: int | None = None,
         seed=0, mirror: str | None = None, progress: bool | None = None,
         verify: bool = True):
    """``(X, y)`` of a benchmark dataset, labels in {-1, +1} (``usps``: 1..10).

    Parameters
    ----------
    name : str or RemoteDataset
        A key of ``DATASETS`` (case-insensitive; ``a9a``, ``a9a.t``, ``w8a``,
        ``ijcnn1``, ``cod-rna``, ``phishing``, ``mushrooms``, ``SUSY``, ``magic04``,
        ``usps``, ...), or a ``RemoteDataset``.
    download : bool
        Download the file when it is not in the data directory (default: no, raise
        ``DatasetNotFoundError`` naming the directory, ``OKL_DATA`` and the URL).
    data_home : str or Path, optional
        The data directory (default ``$OKL_DATA``, else ``~/.cache/okl``).
    n_rows : int, optional
        ``n_rows`` examples drawn uniformly at random without replacement, in file
        order: the rows ``numpy.sort(numpy.random.default_rng(seed).choice(N, n_rows,
        replace=False))`` of the file's ``N`` rows (never the head: UCI's magic04 is
        sorted by class).  A file larger than ``STREAM_ABOVE`` rows (SUSY) is read in
        one streaming pass that keeps only the drawn rows, with ``N`` the published
        row count (a file with another count raises ``ValueError``).
    seed : int or sequence of int
        Seed of the row draw.
    mirror, progress, verify
        As in ``fetch_file``.

    Returns
    -------
    X : CSR matrix (LIBSVM files; ``n_features`` columns) or ndarray (CSV files)
    y : ndarray of -1.0 / +1.0; for a dataset whose ``labels`` is ``"keep"``
        (``usps``, ``usps.t``: 1.0 .. 10.0, the digit plus one) the file's labels
    """
    spec = _spec(name)
    n_rows = _check_n_rows(n_rows)
    path, source = fetch_file(spec, data_home=data_home, download=download, mirror=mirror,
                              progress=progress, verify=verify)
    if n_rows is not None and streamed(spec):
        rows = draw_indices(spec.n_rows, min(n_rows, spec.n_rows), seed)
        return _load_rows_streaming(spec, path, source, rows)
    X, y = _read_whole(spec, path, source)
    _check_shape(spec, path, X, complete=True)
    y = np.asarray(y)
    if y.dtype.kind in "biuf" or spec.format != "keel":
        y = y.astype(np.float64)        # KEEL's class names (letter's A..Z) stay strings
    if n_rows is not None and n_rows < X.shape[0]:
        rows = draw_indices(X.shape[0], n_rows, seed)
        X, y = X[rows], y[rows]
    return X, y


#: row draws from files with more published rows than this (or CSV files with more than
#: ``STREAM_CSV_VALUES`` values) read the file in one streaming pass, never whole
STREAM_ABOVE = 1_000_000
STREAM_CSV_VALUES = 20_000_000


def streamed(spec) -> bool:
    """Whether row draws from dataset ``spec`` stream its file (see ``STREAM_ABOVE``)."""
    spec = _spec(spec)
    if spec.n_rows is None:
        return False
    if spec.n_rows > STREAM_ABOVE:
        return True
    return spec.format == "csv" and spec.n_rows * (spec.n_features or 1) > STREAM_CSV_VALUES


def load_rows(name, rows, *, data_home=None, download: bool = False, mirror=None,
              progress=None, verify: bool = True):
    """``(X, y)`` of the rows ``rows`` (sorted 0-based example indices) of a dataset.

    Large files (``streamed``) are read in one streaming pass keeping only those rows
    (memory: the rows kept and one chunk); others are read whole and indexed.  Both
    give the same result.
    """
    spec = _spec(name)
    rows = np.asarray(rows, dtype=np.int64)
    if rows.ndim != 1 or (rows.size and (np.any(np.diff(rows) <= 0) or rows[0] < 0)):
        raise ValueError("rows must be strictly increasing non-negative example indices")
    path, source = fetch_file(spec, data_home=data_home, download=download, mirror=mirror,
                              progress=progress, verify=verify)
    if streamed(spec):
        return _load_rows_streaming(spec, path, source, rows)
    X, y = _read_whole(spec, path, source)
    _check_shape(spec, path, X, complete=True)
    if rows.size and rows[-1] >= X.shape[0]:
        raise ValueError(f"{path}: row {rows[-1]} asked for, but the file has "
                         f"{X.shape[0]} examples")
    return X[rows], np.asarray(y, dtype=np.float64)[rows]


def _load_rows_streaming(spec, path, source, rows):
    chunks = _chunks.iter_chunks(path, format=spec.format, n_features=spec.n_features,
                         labels=spec.labels, label_column=spec.label_column,
                         header=spec.header, member=source.member,
                         skip_columns=spec.skip_columns,
                         zero_based=False if spec.format == "libsvm" else "auto")
    X, y, total = select_rows(chunks, rows, check=False)
    if spec.n_rows is not None and total != spec.n_rows:
        raise ValueError(f"{path}: {total} examples, but dataset {spec.name!r} is published "
                         f"with {spec.n_rows}; the uniform draw needs the published count "
                         f"(is it the right file?)")
    _check_shape(spec, path, X, complete=False)
    return X, y


# ----------------------------------------------------------------------------
# Chunks of a file or of a dataset by name
# ----------------------------------------------------------------------------

def _resolve(source, data_home):
    """``(path, registry spec or None, member)`` of a file path or a dataset name."""
    path = Path(source)
    if path.exists():
        return path, None, None
    if isinstance(source, str):
        try:
            spec = _spec(source)
        except ValueError:
            raise FileNotFoundError(f"{source!r} is neither a file nor a dataset of "
                                    f"okl.datasets.DATASETS") from None
        found, src = fetch_file(spec, data_home=data_home, download=False)
        return found, spec, src.member
    raise FileNotFoundError(f"no such file: {source}")


def iter_chunks(source, *, chunk_rows: int = DEFAULT_CHUNK_ROWS, format=None,
                n_features: int | None = None, labels=None, positive=None,
                zero_based="auto", label_column: int = -1, header=None,
                delimiter: str = ",", member: str | None = None, data_home=None,
                encoding: str = "utf-8", info=None, skip_columns=()):
    """``(X, y)`` blocks of a LIBSVM or CSV file, or of a dataset by name, in file order.

    A file is read by ``okl.datasets.chunks.iter_chunks``; a dataset name is found in the
    data directory (never downloaded) and read the same way with the registry's format,
    width and labels.  See the module docstring of ``okl.datasets.chunks``.

    Parameters
    ----------
    source : str or Path
        A file, or the name of a dataset of ``okl.datasets.DATASETS`` (found in the data
        directory, never downloaded).
    data_home
        The data directory for a dataset name.
    chunk_rows, format, n_features, labels, positive, zero_based, member, info
        As in ``okl.datasets.chunks.iter_chunks``.  For a dataset name the registry gives
        the format, the width (unless ``n_features`` is given), the labels (unless
        ``labels`` or ``positive`` is), the CSV layout and the archive member, and its
        LIBSVM files are 1-based.
    label_column, header, delimiter, encoding, skip_columns
        As in ``load_csv``.

    Yields
    ------
    X, y
        As ``okl.datasets.chunks.iter_chunks``.

    Raises
    ------
    FileNotFoundError
        ``source`` is neither a file nor a dataset of ``DATASETS``.
    DatasetNotFoundError
        A dataset whose file is not in the data directory.
    ValueError
        As ``okl.datasets.chunks.iter_chunks`` (the file and line of a malformed line).
    """
    _chunks._check_chunking(chunk_rows, zero_based)
    path, spec, spec_member = _resolve(source, data_home)
    if spec is not None:
        format = spec.format
        n_features = spec.n_features if n_features is None else n_features
        if labels is None and positive is None:
            labels = spec.labels
        label_column, header = spec.label_column, spec.header
        skip_columns = spec.skip_columns
        member = spec_member if member is None else member
        if format == "libsvm" and zero_based == "auto":
            zero_based = False
    return _chunks.iter_chunks(path, chunk_rows=chunk_rows, format=format,
                               n_features=n_features, labels=labels, positive=positive,
                               zero_based=zero_based, label_column=label_column,
                               header=header, delimiter=delimiter, member=member,
                               encoding=encoding, info=info, skip_columns=skip_columns)
