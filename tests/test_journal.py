"""The journal of finished runs: exact round trip, refusals, torn lines, several writers."""
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from okl.experiments.journal import Journal, fingerprint, run_key

CONFIG = {"grid": {"learner": ["NORMA"], "lam": [0.1, 1.0]}, "seed": 0, "data": "abc"}


def _rows(n):
    return [(run_key(config=i % 3, permutation=i),
             {"learner": "NORMA", "lam": 0.1 * i, "permutation": i, "note": f"r{i}"})
            for i in range(n)]


def test_rows_round_trip_exactly_with_their_key_order(tmp_path):
    path = tmp_path / "j.jsonl"
    row = {"z": 1, "a": 0.1 + 0.2, "nan": float("nan"), "inf": -math.inf, "none": None,
           "flag": True, "text": "a,b\n\"c\"", "tuple": (1, 2.5, "x"), "list": [1, [2]],
           "complex": 1 + 2j, "np_int": np.int64(7), "np_float": np.float64(0.3),
           "big": 2**70}
    with Journal(path, CONFIG) as journal:
        journal.record("k", row)
        live = journal.done()["k"]
    with Journal(path, CONFIG, resume=True) as journal:
        back = journal.done()["k"]
    for got in (live, back):
        assert list(got) == list(row)
        for name, value in row.items():
            if name == "nan":
                assert math.isnan(got[name])
                continue
            assert got[name] == value and type(got[name]) is type(value) or (
                name == "np_float" and type(got[name]) is float and got[name] == value), name
    assert len(path.read_text().splitlines()) == 2          # header + one record


def test_existing_journal_needs_resume_and_missing_one_starts_fresh(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path, CONFIG, resume=True) as journal:     # nothing there: a fresh one
        assert len(journal) == 0
        journal.record("a", {"x": 1})
    with pytest.raises(ValueError, match="already exists.*--resume.*remove"):
        Journal(path, CONFIG)
    assert json.loads(path.read_text().splitlines()[1])["key"] == "a"   # left untouched
    with Journal(path, CONFIG, resume=True) as journal:
        assert journal.done() == {"a": {"x": 1}} and "a" in journal and "b" not in journal
        with pytest.raises(ValueError, match="already in journal"):
            journal.record("a", {"x": 2})
        with pytest.raises(ValueError, match="a string"):
            journal.record(3, {"x": 2})


def test_another_configuration_is_refused_naming_what_differs(tmp_path):
    path = tmp_path / "j.jsonl"
    Journal(path, CONFIG).close()
    other = dict(CONFIG, seed=1, extra="new")
    with pytest.raises(ValueError) as info:
        Journal(path, other, resume=True)
    message = str(info.value)
    assert "seed: 0 in the journal, 1 now" in message
    assert 'extra: absent in the journal, "new" now' in message
    assert "grid" not in message and "data" not in message
    assert fingerprint(CONFIG) != fingerprint(other)
    assert fingerprint(CONFIG) == fingerprint(json.loads(json.dumps(CONFIG)))
    for text in (b"hello\n", b"hello"):         # a file that is not ours is never cut
        (tmp_path / "other.txt").write_bytes(text)
        with pytest.raises(ValueError, match="not an okl journal"):
            Journal(tmp_path / "other.txt", CONFIG, resume=True)
        assert (tmp_path / "other.txt").read_bytes() == text


def test_run_keys_are_canonical():
    assert run_key(b=1, a={"y": 2, "x": 1}) == run_key(a={"x": 1, "y": 2}, b=1) \
        == '{"a":{"x":1,"y":2},"b":1}'
    assert run_key(a=0.1) != run_key(a=0.1000001)


def _write(path, rows):
    with Journal(path, CONFIG) as journal:
        for key, row in rows:
            journal.record(key, row)
    return path.read_bytes()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(0, 6), cut=st.floats(0, 1))
def test_a_file_cut_anywhere_reads_as_its_complete_records(tmp_path_factory, n, cut):
    """A writer killed mid-write leaves the file cut at any byte: the reader keeps
    exactly the records whose line is complete, cuts the torn tail away, and appends
    cleanly after it."""
    path = tmp_path_factory.mktemp("cut") / "j.jsonl"
    rows = _rows(n)
    data = _write(path, rows)
    at = int(cut * len(data))
    path.write_bytes(data[:at])
    complete = data[:at].count(b"\n") - 1               # lines after the header
    with Journal(path, CONFIG, resume=True) as journal:
        assert journal.done() == dict(rows[:max(complete, 0)])
        assert path.read_bytes() == (data[:data[:at].rfind(b"\n") + 1] if complete >= 0
                                     else data[:data.find(b"\n") + 1])
        journal.record("after", {"x": 1})
    with Journal(path, CONFIG, resume=True) as journal:
        assert journal.done() == dict(rows[:max(complete, 0)] + [("after", {"x": 1})])


def test_a_complete_bad_line_is_corruption_not_a_torn_write(tmp_path):
    path = tmp_path / "j.jsonl"
    lines = _write(path, _rows(3)).split(b"\n")
    lines[2] = b'{"key": "x", "row": '
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(ValueError, match="corrupt at line 3"):
        Journal(path, CONFIG, resume=True)
    lines[2] = b'{"key": 1, "row": {}}'
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(ValueError, match="line 3: not a run record"):
        Journal(path, CONFIG, resume=True)


def test_a_writer_cuts_a_torn_tail_left_by_another_before_appending(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path, CONFIG)
    journal.record("a", {"x": 1})
    with open(path, "ab") as other:              # a second writer dies mid-record
        other.write(b'{"key":"b","row":{"x":')
    journal.record("c", {"x": 3})
    journal.close()
    assert path.read_bytes().count(b'"key":"b"') == 0
    with Journal(path, CONFIG, resume=True) as again:
        assert again.done() == {"a": {"x": 1}, "c": {"x": 3}}


WRITER = textwrap.dedent("""
    import sys, time
    from okl.experiments.journal import Journal
    path, name, n, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    config = {"grid": {"learner": ["NORMA"], "lam": [0.1, 1.0]}, "seed": 0, "data": "abc"}
    journal = Journal(path, config, resume=True)
    for i in range(n):
        journal.record(f"{name}-{i}", {"writer": name, "i": i, "pad": "x" * (i % 97)})
        time.sleep(pause)
""")


def test_several_processes_append_whole_records(tmp_path):
    path = tmp_path / "j.jsonl"
    Journal(path, CONFIG).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{w}", "150", "0"])
             for w in range(3)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    with Journal(path, CONFIG, resume=True) as journal:
        done = journal.done()
    assert len(done) == 450
    for w in range(3):
        assert [done[f"w{w}-{i}"]["i"] for i in range(150)] == list(range(150))


def test_sigkill_mid_stream_keeps_a_prefix_of_whole_records(tmp_path):
    path = tmp_path / "j.jsonl"
    rng = np.random.default_rng(15)
    for k in rng.integers(1, 40, size=2):
        path.unlink(missing_ok=True)
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "w", "100000",
                                 "0.0005"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if path.exists() and path.read_bytes().count(b"\n") > k:
                break
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with Journal(path, CONFIG, resume=True) as journal:
            done = journal.done()
        assert len(done) >= k
        assert list(done) == [f"w-{i}" for i in range(len(done))]
        assert all(done[f"w-{i}"]["pad"] == "x" * (i % 97) for i in range(len(done)))
