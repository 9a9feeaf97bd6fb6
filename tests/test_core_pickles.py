"""The typed core split by concern (okl/_stream, _kernels, _support, _gram, _learner;
issue 20, step 3) behind okl._core, its public face.

* Pickles written before the split load, and the learners continue as the code of that
  time continued them (tests/fixtures/core_pickles.pkl, written at commit 43b55d0 by
  tests/fixtures/make_core_pickles.py).  Where numpy is the fixture's and the arithmetic
  is the same as where it was written (the unpickled learners decide bit for bit as
  stored), the same rounds pickle to the same bytes and continue bit for bit; elsewhere
  the values agree to 1e-9.
* Whatever numpy is installed, the pickles name the same okl globals as before: the
  reducers and classes of the core are recorded as okl._core's, whichever of its
  modules is imported first.
* ``from okl._core cimport Learner, Row, ...`` (every learner module, and new ones)
  still compiles, and the classes cimported through it are those of the new modules.
"""
import importlib
import io
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import okl
import okl._core
from conftest import fixture_script, xor_stream

HERE = Path(__file__).parent
ROOT = HERE.parent
FIXTURE = pickle.loads((HERE / "fixtures" / "core_pickles.pkl").read_bytes())


GEN = fixture_script("make_core_pickles")
ROUNDS = FIXTURE["rounds"]
LEARNERS = FIXTURE["learners"]
NUMPY2 = int(np.__version__.split(".")[0]) >= 2
needs_numpy2 = pytest.mark.skipif(
    not NUMPY2, reason="the fixture's arrays were pickled by numpy 2 (numpy._core paths)")


def _stream():
    return xor_stream(400, 4, seed=1)


def _floats(raw):
    return np.frombuffer(raw, dtype=np.float64)


class _Stub:
    """Stands for every global of a pickle, so that its globals can be listed whatever
    numpy (or okl) is installed."""

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass

    def __call__(self, *args, **kwargs):
        return _Stub()


def okl_globals(blob):
    """The okl globals a pickle loads, in order: ``[(module, name), ...]``."""
    seen = []

    class Lister(pickle.Unpickler):
        def find_class(self, module, name):
            seen.append((module, name))
            return _Stub

    Lister(io.BytesIO(blob)).load()
    return [g for g in seen if g[0] == "okl" or g[0].startswith("okl.")]


def _same_platform():
    """numpy is the fixture's and unpickled learners decide bit for bit as stored."""
    if np.__version__ != FIXTURE["numpy"]:
        return False
    X, _ = _stream()
    return all(np.array_equal(pickle.loads(e["blob"]).decision_function(X[:50]),
                              _floats(e["decision"])) for e in LEARNERS)


SAME_PLATFORM = NUMPY2 and _same_platform()


def _fresh(entry):
    X, y = _stream()
    learner = GEN.build(entry["expr"])
    learner.run(X[:ROUNDS], y[:ROUNDS])
    return learner


def _close(actual, expected, what):
    if SAME_PLATFORM:
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12, err_msg=what)


# -- pickles written before the split ---------------------------------------------------

@needs_numpy2
@pytest.mark.parametrize("entry", LEARNERS, ids=[e["repr"][:40] for e in LEARNERS])
def test_old_learner_pickles_load_and_continue(entry):
    X, y = _stream()
    clone = pickle.loads(entry["blob"])
    assert repr(clone) == entry["repr"]
    assert clone.n_rounds == ROUNDS
    _close(clone.decision_function(X[:50]), _floats(entry["decision"]), "decision")
    rest = clone.run(X[ROUNDS:], y[ROUNDS:]).scores
    _close(rest, _floats(entry["rest"]), "continuation (stored)")
    # and as a learner fed the same rounds here continues
    _close(rest, _fresh(entry).run(X[ROUNDS:], y[ROUNDS:]).scores, "continuation (fresh)")


@needs_numpy2
@pytest.mark.parametrize("name", sorted(FIXTURE["objects"]))
def test_old_core_object_pickles_load(name):
    entry = FIXTURE["objects"][name]
    obj = pickle.loads(entry["blob"])
    first = obj[0] if isinstance(obj, list) else obj
    assert type(first).__name__ == entry["type"] and first.size == entry["size"]
    fresh = GEN.core_objects(_stream()[0])[name][0]
    if isinstance(obj, list):
        assert obj[0] is obj[2] and type(obj[1]) is okl.SupportSet
        obj, fresh = obj[0], fresh[0]
    assert type(obj) is type(fresh)
    if isinstance(obj, okl.SupportSet):
        pairs = [(obj.vectors, fresh.vectors), (obj.coefficients, fresh.coefficients),
                 (obj.stamps, fresh.stamps), (obj.decision(fresh.vectors),
                                              fresh.decision(fresh.vectors))]
    else:
        k = okl.kernel_matrix(okl.Gaussian(1.0), _stream()[0][30:31], _stream()[0][:12])
        keep = [i for i in range(9) if i != 3]
        pairs = [(obj.gram, fresh.gram), (obj.ald(k[0, keep], 1.0)[1],
                                          fresh.ald(k[0, keep], 1.0)[1])]
    for a, b in pairs:
        _close(a, b, name)


@pytest.mark.skipif(not SAME_PLATFORM, reason="bytes are compared where numpy and the "
                    "arithmetic are those of the machine that wrote the fixture")
@pytest.mark.parametrize("entry", LEARNERS, ids=[e["repr"][:40] for e in LEARNERS])
def test_the_same_rounds_pickle_to_the_same_bytes(entry):
    assert pickle.dumps(_fresh(entry), protocol=4) == entry["blob"]


@pytest.mark.skipif(not SAME_PLATFORM, reason="as above")
def test_core_objects_pickle_to_the_same_bytes():
    for name, (obj, blob) in GEN.core_objects(_stream()[0]).items():
        assert blob == FIXTURE["objects"][name]["blob"], name


# -- what pickles record, whatever numpy is installed -----------------------------------

@pytest.mark.parametrize("entry", LEARNERS, ids=[e["repr"][:40] for e in LEARNERS])
def test_pickles_name_the_same_okl_globals(entry):
    # a module renamed since the fixture was written (okl.learners.MOVED: budget ->
    # fixed_budget) is named by its new name; the old name still loads
    # (tests/test_renamed_modules.py)
    renamed = [(okl.learners.MOVED.get(module, module), name)
               for module, name in okl_globals(entry["blob"])]
    assert okl_globals(pickle.dumps(_fresh(entry), protocol=4)) == renamed


def test_core_objects_name_okl_core():
    fresh = GEN.core_objects(_stream()[0])
    for name, entry in FIXTURE["objects"].items():
        old = okl_globals(entry["blob"])
        assert okl_globals(fresh[name][1]) == old, name
        assert {m for m, _ in old} <= {"okl._core", "okl.kernels"}, old
    assert ("okl._core", "_rebuild_gram") in okl_globals(FIXTURE["objects"]["GramInverse"]["blob"])
    assert ("okl._core", "GramCholesky") in okl_globals(
        FIXTURE["objects"]["GramCholesky"]["blob"])
    assert ("okl._core", "_rebuild_support_set") in okl_globals(
        FIXTURE["objects"]["SupportSet"]["blob"])


def test_the_lister_sees_a_changed_path():
    """``okl_globals`` tells a reducer that moved (the check above can fail)."""
    blob = FIXTURE["objects"]["SupportSet"]["blob"]
    moved = blob.replace(b"\x8c\tokl._core", b"\x8c\tokl._supp")
    assert moved != blob
    assert okl_globals(moved) != okl_globals(blob)


PUBLIC = {"okl._stream": ["Stream", "_CSR32Stream"],
          "okl._support": ["SupportSet"],
          "okl._gram": ["GramDictionary", "GramInverse", "GramCholesky"],
          "okl._learner": ["Learner"]}


def test_core_is_the_home_of_every_name():
    for module, classes in PUBLIC.items():
        mod = importlib.import_module(module)
        for name in classes:
            cls = getattr(mod, name)
            assert getattr(okl._core, name) is cls
            assert cls.__module__ == "okl._core" and repr(cls) == f"<class 'okl._core.{name}'>"
    for name in ("_rebuild_support_set", "_rebuild_gram", "kernel_matrix", "_drive",
                 "_stream", "_csr_scan", "regularized_projection", "stream_kernel_rows"):
        assert getattr(okl._core, name).__module__ == "okl._core", name


@pytest.mark.parametrize("first", ["okl._gram", "okl._support"])
def test_pickles_name_okl_core_whichever_module_is_imported_first(first):
    """The home is set by each module itself, not by okl._core's import."""
    code = textwrap.dedent(f"""
        import pickle, sys
        import {first} as m
        from okl.kernels import Linear
        assert "okl._core" not in sys.modules
        obj = m.GramInverse(2) if hasattr(m, "GramInverse") else m.SupportSet(Linear(), 2, 2)
        sys.stdout.write(repr(pickle.dumps(obj)))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert "okl._core" in out.stdout
    assert "okl._gram" not in out.stdout and "okl._support" not in out.stdout


# -- cimport through okl._core ---------------------------------------------------------

CIMPORTS = {
    # the form of okl/learners/_python.pyx and _perceptron.pyx
    "learner_row": "from okl._core cimport Learner, Row\n",
    # every name the learner modules cimport from okl._core
    "everything": ("from okl._core cimport (Learner, Row, Stream, SupportSet, GramDictionary,\n"
                   "    GramInverse, GramCholesky, KernelParams, KERNEL_GAUSSIAN,\n"
                   "    KERNEL_POLYNOMIAL, KERNEL_LINEAR, KERNEL_LAPLACIAN, kernel_self,\n"
                   "    kernel_row, sq_dist_row, exp_scaled, regularized_projection_c)\n"),
}
BODY = """
cdef class Echo(Learner):
    cdef double score(self, const Row* x) noexcept nogil:
        return x.data[0]
"""


def _cythonize(tmp_path, source):
    pyx = tmp_path / "probe.pyx"
    pyx.write_text(source)
    out = subprocess.run([sys.executable, "-m", "cython", "-3", "-I", str(ROOT), str(pyx),
                          "-o", str(tmp_path / "probe.c")], capture_output=True, text=True)
    return out, (tmp_path / "probe.c")


@pytest.mark.parametrize("form", sorted(CIMPORTS))
def test_cimport_from_okl_core_still_compiles(tmp_path, form):
    out, c_file = _cythonize(tmp_path, CIMPORTS[form] + BODY)
    assert out.returncode == 0, out.stderr
    text = c_file.read_text()
    # the base class is imported from the module that defines it
    assert '"okl._learner", "Learner"' in text


def test_a_name_okl_core_does_not_declare_fails_to_compile(tmp_path):
    out, _ = _cythonize(tmp_path, "from okl._core cimport Learner, NoSuchName\n" + BODY)
    assert out.returncode != 0
