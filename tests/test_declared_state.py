"""Declared state (issue 20, step 4): a core lists its state once (``_state_fields``, made
by ``okl._learner.fields``), a learner class its ``Trace.extras`` (``_extras_fields``), and
one mechanism (``okl._learner.read_fields`` / ``write_fields``, called by
``okl.learners.base.OnlineLearner``) pickles, restores and reports them.

* ``Field`` read and written on a plain Python object, against the dict written by hand;
* every registered learner: its declared fields read after a run, a fresh learner given
  that state reads it back the same, and no declared attribute is a constructor parameter
  (a ``cdef public`` field named like a parameter would take the parameter's place);
* the learners' pickled states keep the keys, order, types and dtypes they had when each
  learner wrote its state by hand (``tests/fixtures/state_layout.json``, written by
  ``tests/fixtures/make_state_layout.py`` at the commit before the change).
"""
import json
import pickle
import types
from pathlib import Path

import numpy as np
import pytest

from conftest import LEARNERS, fixture_script
from okl._learner import Field, fields, read_fields, write_fields

HERE = Path(__file__).parent


GEN = fixture_script("make_state_layout")


class Plain:
    """A stand-in for a core: attributes, a typed vector, a method pair."""

    def __init__(self):
        self.scale = 0.5
        self.eps = 0.25
        self.n = 3
        self.m = 4
        self.vec = np.array([1.0, 2.0, 3.0])
        self.counts = np.array([1, 2], dtype=np.intc)
        self.record = [7, 8]

    def _record(self):
        return np.array(self.record, dtype=np.int64)

    def _put_record(self, value):
        self.record = [int(v) for v in value]


TABLE = fields("scale", ("epsilon", "eps"), ("counters", ("n", "m")),
               Field("vec", dtype=np.float64), Field("counts", dtype=np.int64),
               Field("record", get="_record", put="_put_record"))


def test_fields_read_as_the_dict_written_by_hand():
    obj = Plain()
    state = read_fields(obj, TABLE)
    by_hand = {"scale": 0.5, "epsilon": 0.25, "counters": (3, 4),
               "vec": np.array([1.0, 2.0, 3.0]), "counts": np.array([1, 2], dtype=np.int64),
               "record": np.array([7, 8], dtype=np.int64)}
    assert list(state) == list(by_hand)
    for key, value in by_hand.items():
        assert type(state[key]) is type(value)
        if isinstance(value, np.ndarray):
            assert state[key].dtype == value.dtype
            np.testing.assert_array_equal(state[key], value)
        else:
            assert state[key] == value
    # the same bytes as the hand-written dict (keys, order, types, dtypes)
    assert pickle.dumps(state, protocol=5) == pickle.dumps(by_hand, protocol=5)
    # vectors are copies
    state["vec"][0] = 99.0
    assert obj.vec[0] == 1.0


def test_fields_write_back_in_place():
    src, dst = Plain(), Plain()
    src.scale, src.eps, src.n, src.m = 2.0, 3.0, 10, 11
    src.vec[:] = [4.0, 5.0, 6.0]
    src.counts[:] = [5, 6]
    src.record = [1, 2, 3]
    vec_before = dst.vec
    write_fields(dst, TABLE, read_fields(src, TABLE))
    assert (dst.scale, dst.eps, dst.n, dst.m, dst.record) == (2.0, 3.0, 10, 11, [1, 2, 3])
    assert dst.vec is vec_before                         # copied into, not rebound
    np.testing.assert_array_equal(dst.vec, [4.0, 5.0, 6.0])
    assert dst.counts.dtype == np.intc
    np.testing.assert_array_equal(dst.counts, [5, 6])


def test_field_errors_and_defaults():
    obj = Plain()
    state = read_fields(obj, TABLE)
    with pytest.raises(KeyError, match="scale"):
        write_fields(obj, TABLE, {k: v for k, v in state.items() if k != "scale"})
    with pytest.raises(ValueError, match="vec"):
        write_fields(obj, TABLE, {**state, "vec": np.zeros(4)})
    with pytest.raises(ValueError, match="counters"):
        write_fields(obj, TABLE, {**state, "counters": (1, 2, 3)})
    old = fields(Field("scale", default=1.5))
    write_fields(obj, old, {})                           # a state written before the key
    assert obj.scale == 1.5
    obj.record = [5]
    write_fields(obj, fields(Field("record", get="_record")), state)   # derived: passed over
    assert obj.record == [5]
    with pytest.raises(ValueError):
        Field("x", ("a", "b"), dtype=float)
    assert repr(Field("epsilon", "eps")) == "Field('epsilon', 'eps')"


def _assert_same(a, b, path="state"):
    """Equal keys (in order), types, dtypes and values, recursively (objects other than
    containers and arrays: by their pickles)."""
    assert type(a) is type(b), path
    if isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            _assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype, path
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, (int, float, str, bytes, bool, type(None), np.generic, np.dtype)):
        assert a == b or (a != a and b != b), path
    elif isinstance(a, (type, types.FunctionType, types.BuiltinFunctionType)):
        assert a is b, path
    else:
        _assert_same(a.__reduce_ex__(5)[1:], b.__reduce_ex__(5)[1:], f"{path} ({type(a)})")


@pytest.mark.parametrize("make", LEARNERS, ids=[m.__name__ for m in LEARNERS])
def test_declared_fields_round_trip(make):
    learner = GEN.ran(make)
    for table in (learner._state_fields, learner._extras_fields):
        read_fields(learner, table)                      # every declared field is readable
    state = learner._state()
    clone = pickle.loads(pickle.dumps(learner))
    _assert_same(clone._state(), state)
    params = set(learner._param_names)
    for f in learner._state_fields:
        if f.get is None and f.put is None:
            names = f.attrs
            assert not params & set(names), (f, "a declared attribute named as a parameter")


@pytest.mark.parametrize("make", LEARNERS, ids=[m.__name__ for m in LEARNERS])
def test_state_layout_is_unchanged(make):
    layout = json.loads((HERE / "fixtures" / "state_layout.json").read_text())
    if make.__name__ not in layout:
        pytest.skip("a learner added after the layout was written")
    assert GEN.layout(GEN.ran(make)._state()) == layout[make.__name__]
