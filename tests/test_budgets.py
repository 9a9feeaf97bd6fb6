"""Memory / time budgets -> example budgets (okl/learners/budget_kinds.py)."""
import math
import pickle

import pytest

from okl.learners.budget_kinds import (MemoryBudget, TimeBudget, check_budget_choice,
                                  example_budget, memory_per_example, memory_used,
                                  time_per_example, time_used)


def test_per_example_costs():
    # LKMBooks: d features + one shared coefficient; K coefficient vectors: d + K
    assert memory_per_example(10) == 11
    assert memory_per_example(10, coefficients=9) == 19
    # Sec. 4.1: shared distance d + K, separate rows K d
    assert time_per_example(10, 9) == 19
    assert time_per_example(10, 9, shared=False) == 90
    assert time_per_example(7) == 8


def test_derived_example_budget_is_largest_that_fits():
    for quanta in [11.0, 100.0, 4409.0, 4410.0, 4411.0, 12345.0]:
        for per, fixed in [(11, 0), (11, 9), (19, 9), (3, 0)]:
            if quanta - fixed < per:
                with pytest.raises(ValueError, match="too small"):
                    MemoryBudget(quanta).example_budget(per, fixed)
                continue
            B = MemoryBudget(quanta).example_budget(per, fixed)
            assert memory_used(B, per, fixed) <= quanta < memory_used(B + 1, per, fixed)
            B = TimeBudget(quanta).example_budget(per, fixed)
            assert time_used(B, per, fixed) <= quanta < time_used(B + 1, per, fixed)


def test_exact_multiple_is_not_lost_to_rounding():
    # 0.1 * 3 style rounding must not cost an example
    assert MemoryBudget(0.3 * 11 * 100 / 0.3).example_budget(11) == 100
    assert TimeBudget(19 * 400).example_budget(19) == 400


def test_sec41_identity():
    # (d + K) B_2 = T and d B_1 = T (Sec. 4.1): B_2 / B_1 = d / (d + K)
    d, K, B1 = 10, 9, 400
    quanta = d * B1
    B2 = TimeBudget(quanta).example_budget(time_per_example(d, K))
    assert B2 == math.floor(d * B1 / (d + K)) == 210


def test_explicit_rate_assumption3():
    assert MemoryBudget(100, alpha=0.5).example_budget(11, fixed=50) == 50
    assert TimeBudget(10, beta=3).example_budget(1000) == 30
    with pytest.raises(ValueError, match="too small"):
        MemoryBudget(1, alpha=0.5).example_budget(1)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "10", True, None])
def test_bad_quanta(bad):
    with pytest.raises(ValueError, match="memory_budget"):
        MemoryBudget(bad)
    with pytest.raises(ValueError, match="time_budget"):
        TimeBudget(bad)


@pytest.mark.parametrize("bad", [0, -2.0, float("nan"), "x"])
def test_bad_rates(bad):
    with pytest.raises(ValueError, match="alpha"):
        MemoryBudget(10, alpha=bad)
    with pytest.raises(ValueError, match="beta"):
        TimeBudget(10, beta=bad)


def test_check_budget_choice():
    assert check_budget_choice(B=5) == 5
    assert check_budget_choice(memory_budget=50) == MemoryBudget(50.0)
    assert check_budget_choice(time_budget=TimeBudget(7, beta=1)) == TimeBudget(7, beta=1)
    assert check_budget_choice(memory_budget=MemoryBudget(9)) == MemoryBudget(9)
    with pytest.raises(ValueError, match="exactly one"):
        check_budget_choice()
    with pytest.raises(ValueError, match="exactly one"):
        check_budget_choice(B=3, time_budget=10)
    with pytest.raises(ValueError, match="exactly one"):
        check_budget_choice(memory_budget=10, time_budget=10)
    for bad in [0, 2.5, True, -3, 2 ** 31]:
        with pytest.raises(ValueError, match="B must be"):
            check_budget_choice(B=bad)
    with pytest.raises(ValueError, match="MemoryBudget"):
        check_budget_choice(memory_budget=TimeBudget(3))
    with pytest.raises(ValueError, match="TimeBudget"):
        check_budget_choice(time_budget=MemoryBudget(3))
    with pytest.raises(ValueError, match="memory_budget"):
        check_budget_choice(memory_budget=-4)


def test_example_budget_dispatch():
    kw = dict(memory_per_example=11, memory_fixed=9, time_per_example=19, time_fixed=9)
    assert example_budget(7, **kw) == 7
    assert example_budget(MemoryBudget(11 * 20 + 9), **kw) == 20
    assert example_budget(MemoryBudget(11 * 20 + 8), **kw) == 19
    assert example_budget(TimeBudget(19 * 20 + 9), **kw) == 20


def test_budgets_are_immutable_values():
    m = MemoryBudget(100, alpha=0.25)
    assert pickle.loads(pickle.dumps(m)) == m
    assert m != TimeBudget(100, beta=0.25)
    with pytest.raises(Exception):
        m.quanta = 3
