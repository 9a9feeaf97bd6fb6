"""Reading LIBSVM and CSV files in chunks: streams larger than memory.

``iter_chunks(path, chunk_rows=...)`` yields ``(X, y)`` blocks of at most
``chunk_rows`` examples, in file order, with the checks and messages of the whole-file
readers (``okl.datasets.load_libsvm`` / ``load_csv``: the file and the 1-based line,
counting every physical line).  Every block has the same width and the same label
mapping, fixed before the first block:

* from the arguments (``n_features``, ``labels`` / ``positive``, ``zero_based``);
* else by a first pass over the file (``scan``), which reads it once with the same
  checks (so a malformed line anywhere is reported before the first block) and finds
  the largest index, whether an index 0 occurs, and the label set.

This module reads paths only.  ``okl.datasets.iter_chunks`` (``okl.datasets.fetch``,
one layer up) also takes the name of a dataset of ``okl.datasets.DATASETS`` and fills in
the registry's width, label mapping and format (LIBSVM indices 1-based), then calls
``iter_chunks`` here.

Concatenating the blocks gives exactly what the whole-file reader returns (tested).
Memory: one block (its text and its matrix), never the file.

``select_rows(chunks, rows)`` keeps given example indices from a chunk stream (one
pass: the uniform row draws of ``okl.datasets.load`` on SUSY-sized files).
"""
from __future__ import annotations

import io
import itertools
import lzma
import numbers
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from okl.datasets.files import (LabelsError, _canonical_csr, _check_mapping, _check_path,
                                _check_skip, _csv_block, _csv_records, _libsvm_line_problem,
                                _map_labels, open_data_file)

__all__ = ["iter_chunks", "scan", "select_rows", "FileInfo", "DEFAULT_CHUNK_ROWS"]

DEFAULT_CHUNK_ROWS = 16_384
_CSV_SUFFIXES = (".csv", ".data", ".dat", ".tsv")
_LABEL_KEEP = "keep"


@dataclass(frozen=True)
class FileInfo:
    """What a first pass over a file finds (``scan``)."""

    path: str
    format: str
    n_rows: int
    n_features: int
    zero_based: bool
    labels: tuple          # the distinct labels, sorted (numbers as floats, else strings)


# ----------------------------------------------------------------------------
# LIBSVM
# ----------------------------------------------------------------------------

def _bad_libsvm(path, lines, first_line, zero_based, n_features, exc=None):
    """The ValueError of the first malformed example line among ``lines``."""
    low = 0 if zero_based else 1
    for i, line in enumerate(lines):
        if not line.split(b"#", 1)[0].strip():
            continue
        problem = _libsvm_line_problem(line, zero_based)
        if problem is None and n_features is not None:
            problem = _index_beyond(line, n_features, low)
        if problem is not None:
            return ValueError(f"{path}: not a valid LIBSVM file: line {first_line + i}: "
                              f"{problem}")
    return ValueError(f"{path}: not a valid LIBSVM file: {exc or 'a value is not finite'}")


def _index_beyond(line, n_features, low):
    tokens = line.split(b"#", 1)[0].split()[1:]
    if tokens and tokens[0].startswith(b"qid:"):
        tokens = tokens[1:]
    if tokens:
        last = int(tokens[-1].split(b":")[0])
        if last - low >= n_features:
            return (f"feature index {last} is beyond the {n_features} features of the "
                    f"stream (indices {low}..{n_features - 1 + low})")
    return None


def _example_lines_of(lines):
    """Positions (in ``lines``) of the lines that hold an example."""
    return [i for i, line in enumerate(lines) if line.split(b"#", 1)[0].strip()]


def _libsvm_blocks(path, member, chunk_rows, n_features, zero_based):
    """``(X, raw y, lines, first line number)`` blocks: ``chunk_rows`` physical lines each."""
    from sklearn.datasets import load_svmlight_file  # scikit-learn's C parser

    try:
        fh = open_data_file(path, member)
    except (EOFError, OSError, lzma.LZMAError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a valid LIBSVM file: cannot decompress it "
                         f"({exc})") from None
    first_line = 1
    with fh:
        while True:
            try:
                lines = list(itertools.islice(fh, chunk_rows))
            except (EOFError, OSError, lzma.LZMAError, zipfile.BadZipFile) as exc:
                raise ValueError(f"{path}: not a valid LIBSVM file: cannot decompress it "
                                 f"({exc})") from None
            if not lines:
                return
            text = b"".join(lines)
            if not text.endswith(b"\n"):
                text += b"\n"
            try:
                X, y = load_svmlight_file(io.BytesIO(text), n_features=n_features,
                                          dtype=np.float64, zero_based=zero_based)
            except (ValueError, OverflowError) as exc:
                raise _bad_libsvm(path, lines, first_line, zero_based, n_features,
                                  exc) from None
            if X.shape[0]:
                if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
                    raise _bad_libsvm(path, lines, first_line, zero_based, n_features)
                yield X, y, lines, first_line
            first_line += len(lines)


def _libsvm_line_of(lines, first_line):
    positions = None

    def line_of(i):
        nonlocal positions
        if positions is None:
            positions = _example_lines_of(lines)
        return first_line + positions[i]
    return line_of


def _auto_mapping(distinct, path):
    """The binary label rule of the whole-file readers, as an explicit mapping."""
    values = sorted(distinct)
    if any(isinstance(v, str) for v in values):
        raise LabelsError(path, values[:10], n_labels=len(values), numeric=False)
    if len(values) > 2:
        raise LabelsError(path, values[:10], n_labels=len(values))
    if set(values) <= {-1.0, 1.0}:
        return {v: v for v in values}
    if len(values) == 2:
        return {values[0]: -1.0, values[1]: 1.0}
    raise LabelsError(path, values)


# ----------------------------------------------------------------------------
# First pass
# ----------------------------------------------------------------------------

def _format_of(path, format):
    if format is not None:
        if format not in ("libsvm", "csv"):
            raise ValueError(f"format must be 'libsvm' or 'csv', got {format!r}")
        return format
    name = Path(path).name.lower()
    for suffix in (".gz", ".bz2", ".xz", ".lzma", ".zip"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return "csv" if name.endswith(_CSV_SUFFIXES) else "libsvm"


def _check_finite_labels(raw, path, lines):
    if raw.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(raw))
        if bad.size:
            raise ValueError(f"{path}, line {lines[bad[0]]}: label {raw[bad[0]]} is not finite")


def scan(path, *, format=None, chunk_rows: int = DEFAULT_CHUNK_ROWS, zero_based="auto",
         label_column: int = -1, header=None, delimiter: str = ",", member=None,
         encoding: str = "utf-8", skip_columns=(), need_mapping: bool = False) -> FileInfo:
    """One pass over a LIBSVM or CSV file, with the readers' checks: its number of
    examples and features, whether its LIBSVM indices start at 0, its labels.

    ``need_mapping``: CSV labels must be numbers (no mapping will be given), else the
    whole-file reader's error, with the line of the first one that is not.
    """
    path = _check_path(path)
    format = _format_of(path, format)
    labels = set()
    n = 0
    if format == "libsvm":
        lowest, highest = None, -1
        for X, y, _lines, _first in _libsvm_blocks(path, member, chunk_rows, None, True):
            n += X.shape[0]
            labels.update(np.unique(y).tolist())
            if X.nnz:
                lo, hi = int(X.indices.min()), int(X.indices.max())
                lowest = lo if lowest is None else min(lowest, lo)
                highest = max(highest, hi)
        if n == 0:
            raise ValueError(f"{path}: not a valid LIBSVM file: it holds no examples")
        if zero_based == "auto":
            zero_based = lowest == 0
        elif zero_based is False and lowest == 0:
            raise ValueError(f"{path}: feature index 0 with zero_based=False")
        n_features = highest + 1 if zero_based else max(highest, 0)
        return FileInfo(str(path), format, n, n_features, bool(zero_based),
                        tuple(sorted(labels)))
    n_features = None
    skip = _check_skip(skip_columns)
    for rows, lines, n_fields in _csv_blocks(path, chunk_rows, member=member,
                                             encoding=encoding, delimiter=delimiter,
                                             header=header, label_column=label_column,
                                             skip=skip):
        _, raw = _csv_block(rows, lines, path, label_column=label_column % n_fields,
                            n_fields=n_fields, need_mapping=need_mapping, keep=False,
                            skip=skip)
        _check_finite_labels(raw, path, lines)
        labels.update(raw.tolist())
        n += len(rows)
        n_features = n_fields - 1 - len(set(skip))
    if n == 0:
        raise ValueError(f"{path}: the CSV file holds no examples")
    kinds = {isinstance(v, str) for v in labels}
    ordered = tuple(sorted(labels, key=str)) if True in kinds else tuple(sorted(labels))
    return FileInfo(str(path), format, n, n_features, False, ordered)


# ----------------------------------------------------------------------------
# Chunks
# ----------------------------------------------------------------------------

def _check_chunking(chunk_rows, zero_based) -> int:
    """``chunk_rows`` as an int; ValueError for a bad ``chunk_rows`` or ``zero_based``."""
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, numbers.Integral) \
            or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    return int(chunk_rows)


def iter_chunks(path, *, chunk_rows: int = DEFAULT_CHUNK_ROWS, format=None,
                n_features: int | None = None, labels=None, positive=None,
                zero_based="auto", label_column: int = -1, header=None,
                delimiter: str = ",", member: str | None = None,
                encoding: str = "utf-8", info: FileInfo | None = None, skip_columns=()):
    """``(X, y)`` blocks of a LIBSVM or CSV file, in file order.

    Parameters
    ----------
    path : str or Path
        A file (``.gz``, ``.bz2``, ``.xz``, ``.zip`` decompressed on the fly; the format
        from ``format`` or the name: ``.csv``, ``.data``, ``.dat``, ``.tsv`` are CSV,
        anything else LIBSVM).  A dataset name: ``okl.datasets.iter_chunks``.
    chunk_rows : int
        Lines per block: a LIBSVM block holds the examples of ``chunk_rows`` physical
        lines (fewer when some are blank or comments), a CSV block ``chunk_rows``
        examples; the last block may be shorter.  Memory is proportional to it.
    n_features : int, optional
        The width of every block (LIBSVM; CSV files have theirs).  Default: a first
        pass over the file (``scan``).
    labels, positive
        As in ``load_libsvm``; with neither the first pass finds the label set and
        applies the whole-file rule (-1/+1 kept, two other numbers ``a < b`` to -1/+1).
    zero_based : bool or "auto"
        As in ``load_libsvm``; "auto" is decided for the whole file by the first pass.
    label_column, header, delimiter, encoding, skip_columns
        As in ``load_csv``.
    member : str, optional
        The file inside a zip archive.
    info : FileInfo, optional
        The result of an earlier ``scan`` of the same file (saves the first pass).

    Yields
    ------
    X : CSR matrix (LIBSVM) or ndarray (CSV), float64, ``n_features`` columns
    y : ndarray, float64

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        As the whole-file readers: a malformed line (file and line number), a
        non-finite value or label, an empty file, labels that are not binary while
        no mapping is given.
    """
    chunk_rows = _check_chunking(chunk_rows, zero_based)
    path = _check_path(path)
    format = _format_of(path, format)
    _check_mapping(labels, positive, path)
    skip = _check_skip(skip_columns)
    return _chunks(path, format, chunk_rows, n_features, labels, positive, zero_based,
                   label_column, header, delimiter, member, encoding, info, skip)


def _chunks(path, format, chunk_rows, n_features, labels, positive, zero_based,
            label_column, header, delimiter, member, encoding, info, skip):
    need_labels = labels is None and positive is None
    if format == "libsvm":
        if need_labels or n_features is None or zero_based == "auto":
            if info is None:
                info = scan(path, format="libsvm", zero_based=zero_based, member=member,
                            chunk_rows=chunk_rows)
            if zero_based == "auto":
                zero_based = info.zero_based
            if n_features is None:
                n_features = info.n_features
            if need_labels:
                labels = _auto_mapping(info.labels, path)
        n = 0
        for X, y, lines, first in _libsvm_blocks(path, member, chunk_rows, n_features,
                                                 zero_based):
            y = _map_labels(y, path, labels=labels, positive=positive,
                            line_of=_libsvm_line_of(lines, first))
            X = _canonical_csr(X)         # int32 indices: learners read it in place
            n += X.shape[0]
            yield X, np.ascontiguousarray(y, dtype=np.float64)
        if n == 0:
            raise ValueError(f"{path}: not a valid LIBSVM file: it holds no examples")
        return
    # CSV
    if need_labels:
        if info is None:
            info = scan(path, format="csv", label_column=label_column, header=header,
                        delimiter=delimiter, member=member, encoding=encoding,
                        skip_columns=skip, need_mapping=True)
        labels = _auto_mapping(info.labels, path)
    n = 0
    for rows, lines, n_fields in _csv_blocks(path, chunk_rows, member=member,
                                             encoding=encoding, delimiter=delimiter,
                                             header=header, label_column=label_column,
                                             skip=skip, n_features=n_features):
        n += len(rows)
        yield _csv_chunk(rows, lines, path, label_column % n_fields, n_fields, labels,
                         positive, skip)
    if n == 0:
        raise ValueError(f"{path}: the CSV file holds no examples")


def _csv_blocks(path, chunk_rows, *, member, encoding, delimiter, header, label_column,
                skip, n_features=None):
    """``(rows, lines, n_fields)``: the CSV records of ``path`` (``_csv_records``) in
    blocks of ``chunk_rows`` (the last may be shorter).  With ``n_features``, a record of
    another width is a ``ValueError`` naming its line."""
    rows, lines = [], []
    for fields, line, n_fields in _csv_records(path, member=member, encoding=encoding,
                                               delimiter=delimiter, header=header,
                                               label_column=label_column, skip=skip):
        width = n_fields - 1 - len(set(skip))
        if n_features is not None and width != n_features:
            raise ValueError(f"{path}, line {line}: {width} features, but the stream has "
                             f"{n_features}")
        rows.append(fields)
        lines.append(line)
        if len(rows) >= chunk_rows:
            yield rows, lines, n_fields
            rows, lines = [], []
    if rows:
        yield rows, lines, n_fields


def _csv_chunk(rows, lines, path, label_column, n_fields, labels, positive, skip):
    X, raw = _csv_block(rows, lines, path, label_column=label_column, n_fields=n_fields,
                        need_mapping=labels is None and positive is None,
                        keep=labels == _LABEL_KEEP, skip=skip)
    y = _map_labels(raw, path, labels=labels, positive=positive,
                    line_of=lambda i: lines[i])
    return np.ascontiguousarray(X), np.ascontiguousarray(y, dtype=np.float64)


def select_rows(chunks, rows, *, check: bool = True):
    """``(X, y, n)``: the examples ``rows`` (sorted 0-based indices) of a chunk stream,
    and the stream's total number of examples ``n``; one pass, memory one chunk plus
    the rows kept.  A row beyond the stream raises ``ValueError`` (with ``check``;
    else it is left out and the caller checks ``n``)."""
    rows = np.asarray(rows, dtype=np.int64)
    kept_X, kept_y = [], []
    offset = 0
    for X, y in chunks:
        m = X.shape[0]
        lo, hi = np.searchsorted(rows, [offset, offset + m])
        if hi > lo:
            local = rows[lo:hi] - offset
            kept_X.append(X[local])
            kept_y.append(y[local])
        offset += m
    if check and rows.size and rows[-1] >= offset:
        raise ValueError(f"row {rows[-1]} asked for, but the stream has {offset} examples")
    if not kept_X:
        return None, np.empty(0), offset
    if sp.issparse(kept_X[0]):
        X = sp.vstack(kept_X, format="csr")
    else:
        X = np.vstack(kept_X)
    return X, np.concatenate(kept_y), offset
