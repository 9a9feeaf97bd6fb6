"""One learner shared by threads: calls are serialized, each one whole, never interleaved.

The stress test (okl.testing's rule "threads", run over every learner by
tests/test_contract.py) runs every learner family with many threads issuing mixed calls
(``learn_one``, ``partial_fit``, ``run``, ``predict``, ``predict_one``,
``decision_function``) on one learner.  The learner's lock is replaced by a recording
lock that notes, while it holds the lock, which call it admitted (the outermost
acquisition of each call).  A fresh learner then makes the same calls, one after the
other, in that order: its final state (pickled) and every answer a read call gave
must be equal to the threaded run's.  Rounds vanish, or a call sees another half
done, and they differ; buffers corrupted by two round loops at once crash the
interpreter, which pytest reports as a failure too.
"""
import pickle
import sys
import threading

import numpy as np
import pytest

import okl
from conftest import xor_stream
from okl.testing import RecordingLock
from test_bad_input_matrix import _experts, _expert


@pytest.fixture(autouse=True)
def _switch_often():
    """Hand the GIL over every 10 us (CPython's default: 5 ms), so that threads making
    short calls do interleave."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(saved)


def _same_state(a, b, X, y):
    """Equal learners: the same rounds, support set, scores on the stream, and the same
    continuation (both learn ``X[:20]`` again and must score it identically).

    Not the pickled bytes: some learners export scratch buffers whose unused entries
    are uninitialized (POMDR's window-by-support cross Gram), so equal learners can
    pickle to different bytes."""
    assert a.n_rounds == b.n_rounds and a.n_features == b.n_features
    sa, sb = a.support_set, b.support_set
    if sa is not None or sb is not None:
        np.testing.assert_array_equal(sa.vectors, sb.vectors)
        np.testing.assert_array_equal(sa.coefficients, sb.coefficients)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    ya = y[:20] if a.is_classifier else X[:20, 0] - 0.3 * X[:20, 1]
    np.testing.assert_array_equal(a.run(X[:20], ya).scores, b.run(X[:20], ya).scores)
    return True


# Every learner's examples are shared by threads making mixed calls and compared with
# the calls replayed in their order of admission by okl's contract (rule "threads" of
# okl.testing.check_learner, tests/test_contract.py); these are the larger cases.

ISSUE_CASES = {
    "Projectron": lambda: okl.Projectron(kernel=okl.Gaussian(2.0), eta=0.5),
    "BOGD": lambda: okl.BOGD(kernel=okl.Gaussian(2.0), B=200, seed=0),
    "FOGD": lambda: okl.FOGD(kernel=okl.Gaussian(2.0), D=100, seed=0),
    "NORMA": lambda: okl.NORMA(kernel=okl.Gaussian(2.0), lam=0.01, tau=500),
    "POMDR": lambda: okl.POMDR(kernel=okl.Gaussian(2.0), B=200, B0=60, T=16_020),
}


def _chunked(make, lock):
    """4 threads feed 4,000 rows each to one learner in chunks of 1,000; returns the
    learner and the replay of the chunks in their order of admission."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((16_000, 10))
    y = np.where(np.sin(X[:, 0]) + X[:, 1] * X[:, 2] > 0, 1.0, -1.0)
    learner = make()
    learner._okl_lock = lock
    barrier = threading.Barrier(4)

    def work(k):
        barrier.wait()
        for c in range(4):
            start = k * 4000 + c * 1000
            lock.calling(start)
            learner.partial_fit(X[start:start + 1000], y[start:start + 1000])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    replay = make()
    for start in lock.log:
        replay.partial_fit(X[start:start + 1000], y[start:start + 1000])
    learner._okl_lock = threading.RLock()
    return learner, replay, X, y


@pytest.mark.parametrize("name", ISSUE_CASES)
def test_the_issue_cases_keep_every_round(name):
    """Issue 15's cases, 4 threads x 4,000 rows in chunks of 1,000 (the issue: 10,000 in
    chunks of 2,500 lost rounds; two Projectron threads aborted the interpreter)."""
    learner, replay, X, y = _chunked(ISSUE_CASES[name], RecordingLock())
    assert learner.n_rounds == 16_000
    assert _same_state(learner, replay, X, y)


class _NoLock(RecordingLock):
    """Admits every caller at once (what a learner without its lock did)."""

    def acquire(self, blocking=True, timeout=-1):
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            self.log.append(getattr(self._local, "call", None))
        self._local.depth = depth + 1
        return True

    def release(self):
        self._local.depth -= 1


def _without_lock():
    """Run by test_the_check_fails_without_the_lock in a child interpreter: prints
    whether FOGD fed by 4 threads without its lock equals its replay."""
    learner, replay, X, y = _chunked(ISSUE_CASES["FOGD"], _NoLock())
    try:
        _same_state(learner, replay, X, y)
        print("equal")
    except AssertionError:
        print("differ")


def test_the_check_fails_without_the_lock():
    """The negative control: FOGD without its lock loses rounds, differs from its
    replay, or crashes the interpreter (two first calls allocating at once), so the
    checks above can fail.  Run in a child process, three times at most."""
    import os
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    code = (f"import sys; sys.path.insert(0, {here!r}); sys.setswitchinterval(1e-5); "
            "import test_threads; test_threads._without_lock()")
    outcomes = []
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=300)
        outcomes.append(proc.stdout.strip() if proc.returncode == 0
                        else f"crashed ({proc.returncode})")
        if outcomes[-1] != "equal":
            break
    assert outcomes[-1] != "equal", outcomes


@pytest.mark.parametrize("cls", _experts(), ids=lambda c: c.__name__)
def test_experts_shared_by_threads(cls):
    rng = np.random.default_rng(1)
    losses = rng.random((8, 200, 4))
    learner = _expert(cls) if cls.__name__ != "Hedge" else cls(n_actions=4, eta=0.1, seed=0)
    lock = RecordingLock()
    learner._okl_lock = lock

    def work(k):
        for c in range(4):
            lock.calling((k, c))
            learner.run(losses[k, c * 50:(c + 1) * 50])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    learner._okl_lock = threading.RLock()
    assert learner.n_rounds == 1600 and len(lock.log) == 32
    replay = _expert(cls) if cls.__name__ != "Hedge" else cls(n_actions=4, eta=0.1, seed=0)
    for k, c in lock.log:
        replay.run(losses[k, c * 50:(c + 1) * 50])
    assert pickle.dumps(learner) == pickle.dumps(replay)
    assert learner.sample() == replay.sample()


def test_separate_learners_do_not_wait_for_each_other():
    """The lock is per learner: a thread holding one learner's lock does not stop a
    second thread from running another learner (no global lock)."""
    X, y = xor_stream(2000, 3, seed=2)
    a, b = okl.Perceptron(), okl.Perceptron()
    done = threading.Event()
    with a.lock:
        t = threading.Thread(target=lambda: (b.run(X, y), done.set()))
        t.start()
        assert done.wait(30), "b waited for a's lock"
    t.join()
    assert b.n_rounds == 2000 and a.n_rounds == 0


def test_a_second_thread_waits_for_the_first_call_to_finish():
    X, y = xor_stream(300, 3, seed=3)
    learner = okl.Perceptron()
    started = threading.Event()
    with learner.lock:
        t = threading.Thread(target=lambda: (started.set(), learner.run(X, y)))
        t.start()
        started.wait(5)
        t.join(0.2)
        assert t.is_alive() and learner.n_rounds == 0   # blocked on the lock
    t.join()
    assert learner.n_rounds == 300


def test_locks_do_not_survive_pickling_or_copying():
    import copy

    learner = okl.BOGD(B=10, seed=0)
    learner.partial_fit(*xor_stream(50, 3, seed=1))
    clone = pickle.loads(pickle.dumps(learner))
    assert clone.lock is not learner.lock and copy.deepcopy(learner).lock is not learner.lock
    with learner.lock:        # a held lock does not block copying another learner
        assert pickle.loads(pickle.dumps(clone)).n_rounds == 50


def test_typed_state_read_from_another_thread_waits_for_the_round_loop():
    """Reading a typed core's buffers (KernelAWV's dual coefficients, a Hedge's
    probabilities) holds the learner's lock, so it never reads a buffer that a round
    loop in another thread is growing: the read sees the state before or after a call."""
    X, y = xor_stream(1200, 3, seed=4)
    learner = okl.KernelAWV(kernel=okl.Gaussian(1.0), lam=1.0)
    seen, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            seen.append(len(learner.dual_coef))

    t = threading.Thread(target=reader)
    t.start()
    for chunk in np.array_split(np.arange(1200), 12):
        learner.partial_fit(X[chunk], X[chunk, 0])
    stop.set()
    t.join()
    assert set(seen) <= {0} | {100 * k for k in range(1, 13)}, sorted(set(seen))
    assert isinstance(type(learner).__dict__["dual_coef"], property)
