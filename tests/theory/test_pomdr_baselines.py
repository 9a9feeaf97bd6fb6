"""theory.pomdr_baselines: the Table 1 rows of Li & Liao (AAAI 2023) for SkeGD and B(AO)2KS,
its comparisons with POMDR, and runs of okl.SkeGD / okl.BAO2KS held to them."""
import math

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import okl
import theory
from theory import pomdr_baselines as sb


# -- the rows and the paper's comparisons -------------------------------------------------

def test_rows_are_the_printed_orders():
    assert sb.skegd_regret_bound(1000, 40) == pytest.approx(200.0)
    assert sb.skegd_regret_bound(1000, 40, constant=3.0) == pytest.approx(600.0)
    assert sb.skegd_complexity(10, 400, 1000) == pytest.approx(4000 * math.log(1000))
    assert sb.skegd_complexity(10, 400, 1000, log_power=2) == pytest.approx(
        4000 * math.log(1000) ** 2)
    assert sb.skegd_complexity(10, 400, 1000, log_power=0) == 4000
    A, T = 300.0, 5000
    assert sb.bao2ks_regret_bound(A, T) == pytest.approx((A * T * math.log(T)) ** 0.25)
    assert sb.bao2ks_budget(A, T) == pytest.approx(math.sqrt(A * T * math.log(T)))
    assert sb.bao2ks_complexity(7, A, T) == pytest.approx(7 * sb.bao2ks_budget(A, T))
    assert sb.bao2ks_regret_bound(0.0, T) == 0.0
    assert sb.pomdr_table1_regret(A, T, 100.0) == pytest.approx(
        math.sqrt(A) + math.sqrt(T * A / 100.0))


@pytest.mark.parametrize("A_T, T", [(10.0, 100), (2594.0, 49_749), (6385.0, 19_020)])
def test_pomdr_improves_bao2ks_by_the_stated_factors(A_T, T):
    """"Case 2 ... Let B = sqrt(T A_T) ... POMDR improves the regret bound of B(AO)2KS by a
    O(ln^{1/4} T) factor, and reduces the computational complexity by a O(sqrt(ln T))"."""
    c = sb.pomdr_improvement_over_bao2ks(A_T, T)
    assert c["B"] == pytest.approx(math.sqrt(T * A_T))
    assert c["regret_factor"] == pytest.approx(math.log(T) ** 0.25)
    assert c["complexity_factor"] == pytest.approx(math.sqrt(math.log(T)))
    # POMDR's row at that B is of the order (A_T T)^{1/4}: between 1x and 2x of it (A_T <= T)
    assert c["pomdr_order"] <= c["pomdr_regret"] <= 2 * c["pomdr_order"]
    assert c["pomdr_regret"] == pytest.approx(math.sqrt(A_T) + (A_T * T) ** 0.25)


def test_skegd_is_worse_than_ogd_when_B_grows_with_T():
    for mu in (0.25, 0.5, 0.9):
        ratios = [sb.skegd_over_ogd(T, mu) for T in (100, 10_000, 1_000_000)]
        assert ratios == pytest.approx([T ** (mu / 2) for T in (100, 10_000, 1_000_000)])
        assert 1 < ratios[0] < ratios[1] < ratios[2]
        T = 10_000
        assert sb.skegd_regret_bound(T, round(T ** mu)) / math.sqrt(T) == pytest.approx(
            ratios[1], rel=1e-3)


@pytest.mark.parametrize("call, match", [
    (lambda: sb.skegd_regret_bound(1, 5), "T"), (lambda: sb.skegd_regret_bound(10, 0), "B"),
    (lambda: sb.skegd_regret_bound(10, 5, constant=0), "constant"),
    (lambda: sb.skegd_complexity(0, 5, 10), "d"),
    (lambda: sb.skegd_complexity(3, 5, 10, log_power=-1), "log_power"),
    (lambda: sb.bao2ks_regret_bound(-1.0, 10), "A_T"),
    (lambda: sb.bao2ks_budget(float("nan"), 10), "A_T"),
    (lambda: sb.pomdr_improvement_over_bao2ks(0.0, 10), "A_T"),
    (lambda: sb.pomdr_table1_regret(1.0, 10, 0.0), "B"),
    (lambda: sb.skegd_over_ogd(10, 1.0), "mu"), (lambda: sb.bao2ks_max_support(0, 3), "B"),
    (lambda: sb.bao2ks_max_support(4, 0), "M"), (lambda: sb.skegd_support(4, -1), "updates"),
    (lambda: sb.skegd_regret_bound(10.5, 2), "T")])
def test_arguments_are_validated(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- runs ------------------------------------------------------------------------------------

def _stream(T=1200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((T, 2))
    y = np.where(X[:, 0] + 0.3 * np.sin(6 * X[:, 1]) > 0.6, 1.0, -1.0)
    return X, y


KERNEL = okl.Gaussian(0.5)


@pytest.fixture(scope="module")
def comparators():
    """The best hinge function of norm <= 5 on each prefix (its certified lower bound)."""
    X, y = _stream()
    out = {}
    with threadpool_limits(1):
        for T in (300, 600, 1200):
            K = KERNEL(X[:T])
            out[T] = (theory.best_hinge_in_ball(K, y[:T], 5.0).lower_bound,
                      theory.kernel_alignment(K, y[:T]))
    return out


def test_skegd_runs_within_the_regret_row(comparators):
    """SkeGD at the step 10/sqrt(T) (a point of the grid of Li & Liao), B = 50: its regret
    against the best hinge function of norm <= 5 stays below sqrt(T B) (the row at constant
    1) and its ratio to the row does not grow with T (0.456, 0.458, 0.457)."""
    X, y = _stream()
    ratios = []
    for T, (lower, _) in comparators.items():
        tr = okl.SkeGD(KERNEL, B=50, eta=10 / math.sqrt(T), seed=1).run(X[:T], y[:T])
        assert tr.extras["switched"]
        ratios.append((tr.losses.sum() - lower) / sb.skegd_regret_bound(T, 50))
    assert max(ratios) <= 1.0
    # regret growing linearly would double the ratio from T = 300 to 1200; it is flat here
    assert ratios[-1] <= 1.1 * ratios[0]


def test_bao2ks_runs_follow_the_regret_row(comparators):
    """B(AO)2KS with the budget of its complexity row, B = sqrt(A_T T ln T): its regret
    grows no faster than (A_T T ln T)^{1/4} (the ratio falls with T)."""
    X, y = _stream()
    ratios = []
    for T, (lower, A) in comparators.items():
        B = int(sb.bao2ks_budget(A, T))
        tr = okl.BAO2KS(KERNEL, B=B, seed=1).run(X[:T], y[:T])
        ratios.append((tr.losses.sum() - lower) / sb.bao2ks_regret_bound(A, T))
        # the complexity row at constant 1: the amortized kernel work of the run
        d = X.shape[1]
        assert tr.extras["kernel_evaluations"] * d / T <= sb.bao2ks_complexity(d, A, T)
        assert tr.max_budget <= sb.bao2ks_max_support(B, tr.extras["M"])
    assert ratios[-1] < ratios[0]


@pytest.mark.parametrize("B, T", [(20, 400), (50, 1200), (100, 3000)])
def test_skegd_runs_within_the_complexity_row(B, T):
    """Kernel evaluations of a whole run, times d, per round: below d B ln T (Table 1's
    O(dB poly(ln T)) at constant 1, poly = ln); after the switch a round costs s_m."""
    X, y = _stream(T, seed=2)
    learner = okl.SkeGD(KERNEL, B=B, seed=0)
    tr = learner.run(X, y)
    d = X.shape[1]
    assert tr.extras["switched"]
    assert tr.extras["kernel_evaluations"] * d / T <= sb.skegd_complexity(d, B, T)
    assert tr.extras["kernel_evaluations"] >= (T - tr.extras["switch_round"]) * learner.sizes_[1]
    assert tr.final_budget == sb.skegd_support(B, 1 + tr.extras["refreshes"])


def test_bao2ks_memory_rule_is_exact():
    """|S| never exceeds B + M + 1, reaches it, and a round after |S| > B starts empty."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((3000, 3))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    tr = okl.BAO2KS(okl.Gaussian(1.0), B=10, M=4, lam=2.0, U=50.0, seed=3).run(X, y)
    cap = sb.bao2ks_max_support(10, 4)
    assert tr.max_budget <= cap
    assert np.any(tr.budget > 10)
    restarts = np.asarray(tr.extras["restart_rounds"])
    np.testing.assert_array_equal(restarts, np.flatnonzero(tr.budget[:-1] > 10) + 2)


# -- okl bounds --------------------------------------------------------------------------------

def test_okl_bounds_reports_the_rows():
    from okl.experiments.bounds import bounds_report

    X, y = _stream(500, seed=5)
    rep = bounds_report(okl.SkeGD(KERNEL, B=40, eta=0.5, seed=1), X, y, U=[2.0, 5.0])
    rows = {r["quantity"]: r for r in rep.rows}
    e = rep.trace.extras
    sv = rows["support vectors |SV_T|"]
    assert sv["holds"] and sv["measured"] == sv["bound"] == 40 + 1 + e["refreshes"]
    work = rows["kernel work per round (evaluations x d / T)"]
    assert work["bound"] == pytest.approx(sb.skegd_complexity(2, 40, 500))
    assert work["measured"] == pytest.approx(e["kernel_evaluations"] * 2 / 500) and work["holds"]
    reg = [r for q, r in rows.items() if q.startswith("regret vs")][0]
    assert reg["bound"] is None and reg["inputs"]["order"] == pytest.approx(
        sb.skegd_regret_bound(500, 40))
    assert reg["measured"] == pytest.approx(rep.trace.losses.sum()
                                            - reg["inputs"]["comparator_lower_bound"])

    rep = bounds_report(okl.BAO2KS(KERNEL, B=30, seed=1), X, y)
    rows = {r["quantity"]: r for r in rep.rows}
    top = rows["max |S_t|"]
    assert top["holds"] and top["bound"] == 30 + rep.trace.extras["M"] + 1
    A = theory.kernel_alignment(KERNEL(X), y)
    work = rows["kernel work per round (evaluations x d / T)"]
    assert work["bound"] == pytest.approx(sb.bao2ks_complexity(2, A, 500)) and work["holds"]
    assert rep.all_hold

