"""An append-only journal of finished runs, so that interrupted work can resume.

A long computation made of independent runs (a sweep's configurations and
permutations, a paper table's cells) records each run the moment it finishes;
after a Ctrl-C, a ``SIGKILL``, a lost Dask worker or a job's time limit, the
same computation opened with ``resume=True`` skips what the journal holds and
runs only the rest, so that the resumed result has exactly the rows of an
uninterrupted one: none twice, none missing.  For example::

    with Journal("runs.jsonl", {"grid": grid, "seed": 0}, resume=True) as journal:
        for key, task in tasks.items():          # key: run_key(...) of the task
            if key not in journal:
                journal.record(key, run(task))
        done = journal.done()
    rows = [done[key] for key in tasks]

**Format.**  One file of JSON lines.  The first line is a header holding the computation's
*configuration* (whatever decides the rows: data fingerprint, grid, seed,
package version) and its fingerprint; every further line is one finished run,
``{"key": ..., "row": ...}``.  A run's key is a deterministic string
(:func:`run_key`: the canonical JSON of what identifies the run), so a resumed
computation recognises its runs whatever order or process produced them.

A record is appended as **one** ``os.write`` of the whole line on an
``O_APPEND`` descriptor, under an exclusive ``flock``, followed by
``os.fsync``.  So a reader (who takes the same lock) sees whole lines only, the
record survives the process (and, after the ``fsync``, the machine), and
several processes may append to one journal without interleaving.  The only way
to get half a line is a writer killed inside its ``write`` (or a machine
crashing before the ``fsync``): such a torn line is the file's last one, has no
final newline, and is cut away (``ftruncate`` to the last newline) before the
journal is read or appended to; that run simply did not finish.  A complete
line that is not a record is corruption, not a torn write, and raises
``ValueError`` naming the line.

**Why one appended file.**  It was preferred over one file per run renamed
into place: that is as safe, but a sweep of 10,000 runs would leave 10,000
files and a directory listing to read on resume, and a rename's durability
needs a directory ``fsync`` per run as well; one appended file costs one
``write`` and one ``fsync`` per run (about 3.5 ms on this project's test
machine: negligible beside runs of a second, a real cost for runs of a few
milliseconds).

**Trust.**  Values that are neither JSON nor Python literals are pickled, so a
journal is trusted as a pickle file is: resume only journals you wrote.

**Who writes.**  okl's sweep writes from the *parent* process as results arrive
(joblib's ``return_as="generator_unordered"``, Dask's ``as_completed``), not
from the workers.  A killed worker then loses only the run it was computing
(Dask reschedules it; joblib stops, and ``--resume`` reruns it), every run that
reached the parent is on disk, and Dask workers need no filesystem shared with
the client.  Appends from workers are nevertheless safe (above), for callers
that want them.

**Exact values.**  Values of a row round-trip exactly: ``str``, ``int``, ``float`` (including
``nan`` and ``inf``), ``bool`` and ``None`` as JSON; other Python literals
(tuples, lists, dicts, complex) as their ``repr``, read back with
:func:`ast.literal_eval`; anything else pickled.  Key order is kept.  So a
table written from resumed rows is byte for byte the table written from the
rows in memory.
"""
from __future__ import annotations

import ast
import base64
import hashlib
import json
import os
import pickle
from pathlib import Path

try:  # POSIX; elsewhere a journal has a single writer
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

__all__ = ["Journal", "run_key", "fingerprint"]

FORMAT = "okl-journal/1"


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr,
                      allow_nan=True)


def run_key(**parts) -> str:
    """A run's deterministic key: the canonical JSON of ``parts`` (sorted keys, no
    spaces; values that are not JSON by their ``repr``).

    >>> run_key(learner="NORMA", params={"lam": 0.1}, permutation=3)
    '{"learner":"NORMA","params":{"lam":0.1},"permutation":3}'
    """
    return _canonical(parts)


def fingerprint(config: dict) -> str:
    """SHA-256 of the canonical JSON of ``config``."""
    return hashlib.sha256(_canonical(config).encode()).hexdigest()


def _plain(value):
    """``value`` as the header stores it (JSON round trip of its canonical form)."""
    return json.loads(_canonical(value))


# ---------------------------------------------------------------- row values
def _encode(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value) is int:
        return value
    if isinstance(value, float):
        return float(value)
    try:
        text = repr(value)
        if type(ast.literal_eval(text)) is type(value) and ast.literal_eval(text) == value:
            return {"__literal__": text}
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    return {"__pickle__": base64.b64encode(pickle.dumps(value)).decode("ascii")}


def _decode(value):
    if isinstance(value, dict):
        if "__literal__" in value:
            return ast.literal_eval(value["__literal__"])
        if "__pickle__" in value:
            return pickle.loads(base64.b64decode(value["__pickle__"]))
        raise ValueError(f"not an encoded value: {value!r}")
    return value


def _line(obj) -> bytes:
    return (json.dumps(obj, separators=(",", ":"), allow_nan=True) + "\n").encode()


class Journal:
    """Finished runs of one computation, appended to ``path`` as they finish.

    Parameters
    ----------
    path : str or Path
        The journal file (JSON lines; module docstring).
    config : dict
        Everything that decides the runs' rows (data fingerprint, grid, seed,
        version, ...); JSON-able values, others by their ``repr``.  A journal
        written for another configuration is refused.
    resume : bool
        ``False``: ``path`` must not exist (an existing journal is an
        interrupted computation: refusing to overwrite it is a ``ValueError``
        saying to resume or remove it).  ``True``: continue the journal at
        ``path`` if there is one (its configuration must equal ``config``,
        else ``ValueError`` naming the fields that differ), start a new one if
        not.

    Notes
    -----
    ``done()`` and ``key in journal`` answer for the runs on disk when the
    journal was opened plus those recorded through this object.
    """

    def __init__(self, path, config: dict, *, resume: bool = False):
        self.path = Path(path)
        self.config = _plain(config)
        self.fingerprint = fingerprint(self.config)
        self._records: dict = {}
        self._fd = None
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT
        if not resume:
            flags |= os.O_EXCL
        try:
            self._fd = os.open(self.path, flags, 0o644)
        except FileExistsError:
            raise ValueError(
                f"journal {self.path} already exists (the runs of an interrupted "
                f"computation): continue it with --resume (resume=True) or remove the "
                f"file") from None
        try:
            with self._locked():
                self._load()
        except BaseException:
            self.close()
            raise

    # ---------------------------------------------------------------- locking
    class _Lock:
        def __init__(self, fd):
            self.fd = fd

        def __enter__(self):
            if fcntl is not None:
                fcntl.flock(self.fd, fcntl.LOCK_EX)

        def __exit__(self, *exc):
            if fcntl is not None:
                fcntl.flock(self.fd, fcntl.LOCK_UN)

    def _locked(self):
        if self._fd is None:
            raise ValueError(f"journal {self.path} is closed")
        return self._Lock(self._fd)

    # ---------------------------------------------------------------- reading
    def _read_all(self) -> bytes:
        size = os.fstat(self._fd).st_size
        return os.pread(self._fd, size, 0) if size else b""

    def _cut_torn_tail(self, data: bytes) -> bytes:
        """Drop (on disk too) the unterminated last line a killed writer left."""
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            os.ftruncate(self._fd, keep)
            os.fsync(self._fd)
            data = data[:keep]
        return data

    def _load(self) -> None:
        data = self._read_all()
        magic = _line({"format": FORMAT})[:-2]
        if not (data.startswith(magic) or magic.startswith(data)):
            # checked before cutting anything: never truncate a file that is not ours
            raise ValueError(f"{self.path} is not an okl journal (it starts with "
                             f"{data[:40]!r})")
        data = self._cut_torn_tail(data)
        if not data:                      # new journal (or only a torn header)
            self._append(_line({"format": FORMAT, "fingerprint": self.fingerprint,
                                "config": self.config}))
            self._fsync_directory()
            return
        lines = data.split(b"\n")[:-1]
        header = self._parse(lines[0], 1)
        if header.get("fingerprint") != self.fingerprint:
            raise ValueError(f"journal {self.path} was written for another configuration: "
                             f"{_differences(header.get('config'), self.config)}; resume "
                             f"with the same settings, or remove the file to start afresh")
        for number, raw in enumerate(lines[1:], start=2):
            self._take(self._parse(raw, number), number)

    def _parse(self, raw: bytes, number: int):
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ValueError(f"journal {self.path} is corrupt at line {number}: "
                             f"{raw[:80]!r}") from None

    def _take(self, record, number: int) -> None:
        if not (isinstance(record, dict) and isinstance(record.get("key"), str)
                and isinstance(record.get("row"), dict)):
            raise ValueError(f"journal {self.path}, line {number}: not a run record")
        # a key written twice (two writers racing) keeps its first row
        self._records.setdefault(record["key"],
                                 {k: _decode(v) for k, v in record["row"].items()})

    # ---------------------------------------------------------------- writing
    def _append(self, line: bytes) -> None:
        view = memoryview(line)
        while view:                        # one write, unless the kernel writes short
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def _fsync_directory(self) -> None:
        try:
            fd = os.open(self.path.parent, os.O_RDONLY)
        except OSError:  # pragma: no cover - platforms without directory descriptors
            return
        try:
            os.fsync(fd)
        except OSError:  # pragma: no cover
            pass
        finally:
            os.close(fd)

    def record(self, key: str, row: dict) -> None:
        """Append run ``key`` with its ``row`` (a dict; key order kept), durably.

        A key recorded before (in this journal) is a ``ValueError``: a run is
        recorded once.
        """
        if not isinstance(key, str):
            raise ValueError(f"a run key is a string, got {type(key).__name__}")
        if not isinstance(row, dict):
            raise ValueError(f"a run's row is a dict, got {type(row).__name__}")
        if key in self._records:
            raise ValueError(f"run {key} is already in journal {self.path}")
        line = _line({"key": key, "row": {str(k): _encode(v) for k, v in row.items()}})
        with self._locked():
            # another writer killed mid-write may have left a torn tail: cut it first
            size = os.fstat(self._fd).st_size
            if size and os.pread(self._fd, 1, size - 1) != b"\n":
                self._cut_torn_tail(self._read_all())
            self._append(line)
        self._records[key] = {str(k): _decode(_encode(v)) for k, v in row.items()}

    # ---------------------------------------------------------------- queries
    def done(self) -> dict:
        """``{key: row}`` of the finished runs (a copy)."""
        return {k: dict(v) for k, v in self._records.items()}

    def __contains__(self, key) -> bool:
        return key in self._records

    def __len__(self) -> int:
        return len(self._records)

    # ---------------------------------------------------------------- lifetime
    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def remove(self) -> None:
        """Close and delete the journal (once its results are safely elsewhere)."""
        self.close()
        self.path.unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r}, {len(self)} runs)"


def _differences(old, new, limit: int = 160) -> str:
    """``"seed: 0 in the journal, 1 now; grid: ..."`` for the fields that differ."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return f"configuration {_short(old, limit)} in the journal, {_short(new, limit)} now"
    parts = []
    for name in sorted(set(old) | set(new)):
        if name not in new:
            parts.append(f"{name}: {_short(old[name], limit)} in the journal, absent now")
        elif name not in old:
            parts.append(f"{name}: absent in the journal, {_short(new[name], limit)} now")
        elif old[name] != new[name]:
            parts.append(f"{name}: {_short(old[name], limit)} in the journal, "
                         f"{_short(new[name], limit)} now")
    return "; ".join(parts) or "same fields, different fingerprint"


def _short(value, limit: int) -> str:
    text = _canonical(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
