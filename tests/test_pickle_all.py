"""Pickling over every learner of ``okl.learners.__all__``.

(a) A learner pickled at any point of its stream and unpickled continues it exactly as if
    it had never been interrupted: the same scores, losses, mistakes and budget trace,
    bitwise, and the same state (pickled bytes, written without pickle's memo) as the
    learner that made the same calls without the round trip.  The cut points include the very start (before the first
    example), early rounds, mid-budget, just after the budget first fills, just after the
    memory first shrinks (a removal or a restart), late in the stream and the very end.
(b) Pickles are a function of the rounds: two learners fed the same calls pickle to the
    same bytes, even when the heap they allocate from was left full of different garbage
    (a buffer entry the learner never wrote, exported to the pickle, shows up as differing
    bytes), and a pickle, unpickled and pickled again, gives the same state.

Both checks fail on POMDR before b6ecf86 (its cross-Gram's unwritten columns were
pickled); ``test_the_checks_can_fail`` keeps a learner with such a buffer failing.

The learners are the configured instances of ``conftest.LEARNERS`` plus a default instance
of every exported class none of them builds (the cases of tests/test_bad_input_matrix.py).
"""
import io
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from conftest import xor_stream
from test_bad_input_matrix import CASES, _case_id

T = 240
D = 3


def _seeded(make):
    """``make`` with a fixed seed where it leaves ``seed=None`` (a generator seeded from
    the OS's entropy pickles to different bytes in each instance, by design)."""
    def build():
        learner = make()
        if learner.get_params().get("seed", 0) is None:
            learner.set_params(seed=1234)
        if getattr(learner, "task", None) == "multiclass" and learner.classes_ is None:
            learner.set_params(classes=[0, 1, 2])      # a cut may leave one class seen
        return learner
    return build


def _canonical(obj):
    """Pickled bytes without the memo: equal for equal states whatever objects they
    share (an unpickled state's dict keys and dtypes are distinct objects where the
    original's were one shared, interned object, which plain ``pickle.dumps`` writes as
    back-references)."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(obj)
    return buf.getvalue()


def _labels(learner, X, y):
    from okl.testing import labels

    return labels(learner, X, y)        # three classes for a multiclass learner


def _stream():
    return xor_stream(T, D, seed=21)


def _dirty_heap(byte):
    """Allocate and free blocks of many sizes filled with ``byte``: buffers a learner
    allocates next (malloc, PyMem, NumPy's ``empty``) start with this garbage."""
    keep = []
    for size in (8, 16, 24, 40, 64, 96, 128, 200, 256, 400, 512, 1024, 2048, 4096, 8192,
                 20000, 65536, 300000):
        for _ in range(4):
            a = np.empty(size, dtype=np.uint8)
            a.fill(byte)
            keep.append(a)
            keep.append(bytearray([byte]) * size)
    del keep


def _cuts(budget):
    """Cut points: start, early, mid-budget, just after the budget first fills, just
    after the memory first shrinks, late, end."""
    cuts = {0, 1, 3, T // 2, T - 1, T}
    top = int(budget.max())
    full = int(np.argmax(budget >= top))        # first round at the largest memory
    cuts.add(max(1, full // 2))
    cuts.add(full + 1)
    drops = np.flatnonzero(np.diff(budget) < 0)
    if drops.size:
        cuts.add(int(drops[0]) + 2)             # the round after the first shrink
    return sorted(c for c in cuts if 0 <= c <= T)


def _equal_traces(a, b, what):
    np.testing.assert_array_equal(a.scores, b.scores, err_msg=f"{what}: scores")
    np.testing.assert_array_equal(a.losses, b.losses, err_msg=f"{what}: losses")
    if a.mistakes is None:
        assert b.mistakes is None, what
    else:
        np.testing.assert_array_equal(a.mistakes, b.mistakes, err_msg=f"{what}: mistakes")
    np.testing.assert_array_equal(a.budget, b.budget, err_msg=f"{what}: budget")


def _equal_extras(a, b, what):
    assert a.extras.keys() == b.extras.keys(), what
    for key in a.extras:
        x, y = a.extras[key], b.extras[key]
        assert pickle.dumps(x) == pickle.dumps(y), f"{what}: extras[{key!r}] {x!r} != {y!r}"


def _concat(first, rest):
    cat = (lambda u, v: np.r_[u, v])
    return dict(scores=cat(first.scores, rest.scores), losses=cat(first.losses, rest.losses),
                mistakes=None if first.mistakes is None else cat(first.mistakes, rest.mistakes),
                budget=cat(first.budget, rest.budget))


class _Joined:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def _run(learner, X, y):
    """``run`` over a possibly empty slice (an empty trace of the right kind for 0 rows)."""
    if len(y) == 0:
        return None
    return learner.run(X, y)


@pytest.mark.parametrize("make", CASES, ids=_case_id)
def test_pickle_resumes_bitwise_at_every_cut(make):
    make = _seeded(make)
    X, y = _stream()
    probe = make()
    y = _labels(probe, X, y)
    whole = make().run(X, y)
    problems = []
    for c in _cuts(whole.budget):
        # the learner that makes the same calls without a round trip
        plain = make()
        first = _run(plain, X[:c], y[:c])
        plain_rest = _run(plain, X[c:], y[c:])
        # the interrupted learner
        cut = make()
        _run(cut, X[:c], y[:c])
        blob = pickle.dumps(cut)
        clone = pickle.loads(blob)
        assert type(clone) is type(cut) and repr(clone) == repr(cut)
        assert _canonical(clone) == _canonical(cut), f"cut {c}: re-pickling changes the state"
        rest = _run(clone, X[c:], y[c:])
        what = f"cut {c}"
        if first is None:
            _equal_traces(rest, whole, what)
        elif rest is None:
            _equal_traces(first, whole, what)
        else:
            _equal_traces(_Joined(**_concat(first, rest)), whole, what)
            _equal_extras(rest, plain_rest, what)
        if _canonical(clone) != _canonical(plain):
            problems.append(f"cut {c}: the resumed learner's state differs from the "
                            f"uninterrupted one's")
        # the original is untouched by its clone's learning
        assert cut.n_rounds == c
        np.testing.assert_array_equal(clone.decision_function(X), plain.decision_function(X),
                                      err_msg=what)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("make", CASES, ids=_case_id)
def test_pickles_are_a_function_of_the_rounds(make):
    make = _seeded(make)
    X, y = _stream()
    blobs = []
    for byte in (0x00, 0xA5, 0xFF):
        _dirty_heap(byte)
        learner = make()
        yy = _labels(learner, X, y)
        _dirty_heap(byte ^ 0x5A)
        states = [pickle.dumps(learner)]
        # the same calls each time: a run, a partial_fit, learn_one rounds
        learner.run(X[:90], yy[:90])
        _dirty_heap(byte)
        states.append(pickle.dumps(learner))
        learner.partial_fit(sp.csr_matrix(X[90:200]), yy[90:200])     # CSR rows too
        states.append(pickle.dumps(learner))
        for t in range(200, 210):
            learner.learn_one(X[t], yy[t])
        states.append(pickle.dumps(learner))
        blobs.append(states)
    for where, group in zip(("fresh", "after run", "after partial_fit", "after learn_one"),
                            zip(*blobs)):
        assert group[0] == group[1] == group[2], (
            f"{where}: learners fed the same rounds pickle to different bytes "
            f"(uninitialized memory in the state?)")


class _Leaky(okl.Perceptron):
    """A Perceptron whose pickle carries a buffer it never wrote."""

    def _state(self):
        return {"base": super()._state(), "scratch": np.empty(64)}

    def _restore(self, extra):
        super()._restore(extra["base"])


def test_the_checks_can_fail():
    """A learner whose pickle carries a buffer entry it never wrote fails (b); a learner
    whose clone forgets a round fails (a)."""
    X, y = _stream()

    blobs = set()
    for byte in (0x00, 0xA5, 0xFF, 0x3C):
        _dirty_heap(byte)
        blobs.add(pickle.dumps(_Leaky(seed=0)))
    assert len(blobs) > 1

    a = okl.Perceptron()
    a.run(X[:50], y[:50])
    clone = pickle.loads(pickle.dumps(a))
    b = okl.Perceptron()
    b.run(X[:49], y[:49])
    assert pickle.dumps(clone) != pickle.dumps(b)
