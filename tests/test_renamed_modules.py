"""Pickles written by the released code load, and continue as that code continued them,
after the renames of issue 25 (``okl.learners.budget`` -> ``fixed_budget``,
``okl.learners.budgets`` -> ``budget_kinds``; ``okl.learners.MOVED``) and the declared
parameters.  tests/fixtures/renamed_modules.pkl was written at commit 4c10c67 by
tests/fixtures/make_renamed_pickles.py; its pickles name the old modules."""
import pickle
import pickletools
from pathlib import Path

import numpy as np
import pytest

import okl

FIXTURE = pickle.loads((Path(__file__).parent / "fixtures" / "renamed_modules.pkl")
                       .read_bytes())
ROUNDS = FIXTURE["rounds"]


def _modules(blob):
    return {a for op, a, _ in pickletools.genops(blob)
            if op.name in ("SHORT_BINUNICODE", "BINUNICODE") and isinstance(a, str)
            and a.startswith("okl.learners.")}


def test_the_fixture_names_the_old_modules():
    named = set().union(*(_modules(e["pickle"]) for e in FIXTURE["learners"]))
    assert {"okl.learners.budget", "okl.learners.budgets"} <= named
    assert set(okl.learners.MOVED) == {"okl.learners.budget", "okl.learners.budgets"}


@pytest.mark.parametrize("entry", FIXTURE["learners"], ids=lambda e: e["expr"])
def test_a_released_pickle_loads_and_continues(entry):
    learner = pickle.loads(entry["pickle"])
    assert learner.n_rounds == ROUNDS
    assert type(learner).__module__ not in okl.learners.MOVED     # the class of today
    X, y = okl.datasets.xor_stream(300, 4, seed=2)
    labels = y if learner.is_classifier else X[:, 0] - 0.3 * X[:, 1]
    scores = learner.run(X[ROUNDS:], labels[ROUNDS:]).scores
    np.testing.assert_allclose(scores, np.frombuffer(entry["continuation"]), rtol=0,
                               atol=1e-12)
    assert pickle.loads(pickle.dumps(learner)).get_params() == learner.get_params()
