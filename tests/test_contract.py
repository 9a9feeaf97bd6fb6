"""okl's learner contract (okl.testing.check_learner) over every learner okl ships.

Each learner declares its examples in the learner registry; each example is held to
each rule of the contract.  The suite's own checks can fail: a learner that breaks a rule
on purpose gets an AssertionError naming the rule (and the round, where there is one).
"""

import pytest

import okl
from okl.testing import RULES, check_learner

from conftest import LEARNERS


def _params(make):
    entry = make.entry
    index = int(make.__name__.rsplit("[", 1)[1].rstrip("]"))
    return entry.cls, dict(entry.examples[index])


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("make", LEARNERS, ids=lambda m: m.__name__)
def test_every_learner_keeps_the_contract(make, rule):
    cls, params = _params(make)
    check_learner(cls, rules=[rule], **params)


def test_every_registered_learner_has_an_example():
    missing = [name for name, e in okl.learners.entries().items()
               if e.cls.__module__.startswith("okl.") and not e.examples]
    assert not missing, f"declare examples=[...] in register_learner for {missing}"
