"""The BSGD / AMM online / Pegasos oracles (tests/oracles/bsgd.py) against BudgetedSVM's
own models and predictions (tests/fixtures/budgetedsvm/, made by
benchmarks/peers/budgetedsvm/make_fixtures.sh; README.md there), and against the
properties the papers state."""
import re
from pathlib import Path

import numpy as np
import pytest

from . import bsgd as O

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "budgetedsvm"
LAM = float(np.float32(0.01))            # budgetedsvm-train reads -L 0.01 into a float
GAUSS = O.Kernel("gaussian", gamma=O.gamma_from_g(0.5))

# fixture name -> (data, algorithm, oracle keyword arguments); the options of each run
# are in make_fixtures.sh and runs.txt
RUNS = {
    "bin_bsgd_merge_B10": ("bin", "bsgd", dict(budget=10, maintenance="merge", kernel=GAUSS)),
    "bin_bsgd_remove_B10": ("bin", "bsgd", dict(budget=10, maintenance="remove", kernel=GAUSS)),
    "bin_bsgd_merge_B10_e3": ("bin", "bsgd", dict(budget=10, maintenance="merge", kernel=GAUSS,
                                                  epochs=3)),
    "mc_bsgd_merge_B20": ("mc", "bsgd", dict(budget=20, maintenance="merge", kernel=GAUSS)),
    "mc_bsgd_remove_B20": ("mc", "bsgd", dict(budget=20, maintenance="remove", kernel=GAUSS)),
    "mc_bsgd_remove_poly_B15": ("mc", "bsgd", dict(
        budget=15, maintenance="remove",
        # -K 2 -d 2 -i 1: (<x, y> + 1)^2; the duplicate test still uses the Gaussian with
        # the default g = 1/D = 1/3, i.e. gamma = 1/6
        kernel=O.Kernel("polynomial", gamma=1 / 6, degree=2, coef0=1))),
    # each row twice in a row, every third copy relabelled: BudgetedSVM's duplicate rule
    "bindup_bsgd_merge_B10": ("bindup", "bsgd", dict(budget=10, maintenance="merge",
                                                     kernel=GAUSS)),
    "bindup_bsgd_remove_B10": ("bindup", "bsgd", dict(budget=10, maintenance="remove",
                                                      kernel=GAUSS)),
    "bin_pegasos": ("bin", "pegasos", dict()),
    "mc_pegasos_e2": ("mc", "pegasos", dict(epochs=2)),
    "bin_amm_online": ("bin", "amm", dict(max_weights=5, prune_every=50, prune_c=1.0)),
    "mc_amm_online": ("mc", "amm", dict(max_weights=5, prune_every=50, prune_c=1.0)),
    "mc_amm_online_e2": ("mc", "amm", dict(max_weights=5, prune_every=50, prune_c=1.0,
                                           epochs=2)),
}


def data(name, part):
    if name == "bindup" and part == "test":
        name = "bin"
    return O.read_libsvm(FIX / f"{name}_{part}.txt", 3)


def log_count(name, pattern):
    m = re.search(pattern + r":\s*(\d+)", (FIX / f"{name}.log").read_text())
    return int(m.group(1))


def oracle(name, **extra):
    dataset, algorithm, kw = RUNS[name]
    X, y = data(dataset, "train")
    kw = {**kw, **extra}
    if algorithm == "bsgd":
        return O.bsgd(X, y, lam=LAM, **kw)
    if algorithm == "pegasos":
        return O.pegasos_linear(X, y, lam=LAM, **kw)
    return O.amm_online(X, y, lam=LAM, **kw)


_cache = {}


def emulated(name):
    """The oracle run in BudgetedSVM's variant and arithmetic (cached: ~1 s each)."""
    if name not in _cache:
        _cache[name] = oracle(name, variant="budgetedsvm", numerics="budgetedsvm")
    return _cache[name]


# --------------------------------------------------------------------------- fixtures

@pytest.mark.parametrize("name", [n for n, r in RUNS.items() if r[1] == "bsgd"])
def test_bsgd_model_equals_budgetedsvm(name):
    run = emulated(name)
    model = O.load_model(FIX / f"{name}.model")
    assert run.model.classes == model.labels               # first-appearance class order
    assert run.model.alpha.shape == model.alpha.shape
    # coefficients are printed with 10 decimals; coordinates are the same float32 values
    np.testing.assert_allclose(run.model.alpha.astype(float), model.alpha, rtol=0, atol=2e-10)
    np.testing.assert_array_equal(run.model.sv, model.sv)
    assert len(run.steps) == log_count(name, "Number of budget maintenance steps")


@pytest.mark.parametrize("name", [n for n, r in RUNS.items() if r[1] != "bsgd"])
def test_hyperplanes_equal_budgetedsvm(name):
    run = emulated(name)
    model = O.load_model(FIX / f"{name}.model")
    assert run.classes == model.labels
    assert [len(ws) for ws in run.weights] == [len(ws) for ws in model.weights]
    for ws, fws in zip(run.weights, model.weights):
        for w, (deg, v) in zip(ws, fws):
            # w = degradation * v, the degradation printed with 10 decimals
            np.testing.assert_allclose(w, deg * v, rtol=0, atol=5e-8 * max(1.0, np.abs(w).max()))
    if RUNS[name][1] == "amm":
        assert sum(n for _, n in run.prunings) == log_count(name, "Number of weights deleted")


@pytest.mark.parametrize("name", list(RUNS))
def test_predictions_equal_budgetedsvm_predict(name):
    """budgetedsvm-predict's labels and margins (-o 1, printed with "%f") come out of the
    model as it reads it back, first character of the first model line skipped."""
    X, _ = data(RUNS[name][0], "test")
    printed = np.loadtxt(FIX / f"{name}.pred")
    labels, margins = O.predict_model(O.load_model(FIX / f"{name}.model",
                                                   as_predict_reads_it=True), X)
    np.testing.assert_array_equal(labels, printed[:, 0].astype(int))
    np.testing.assert_allclose(margins, printed[:, 1], rtol=1e-6, atol=2e-6)


@pytest.mark.parametrize("name", [n for n, r in RUNS.items() if r[1] == "bsgd"])
def test_oracle_model_predicts_as_the_model_training_wrote(name):
    X, _ = data(RUNS[name][0], "test")
    labels, _ = O.predict_model(O.load_model(FIX / f"{name}.model"), X)
    np.testing.assert_array_equal(emulated(name).model.predict(X), labels)


@pytest.mark.parametrize("kind", ["merge", "remove"])
def test_duplicate_rule_is_exercised(kind):
    """The duplicate fixtures do hit bsgd.cpp:855-859 / 898-905 (and still match above)."""
    steps = emulated(f"bindup_bsgd_{kind}_B10").steps
    assert sum(s.kind == f"{kind}-duplicate" for s in steps) >= 3


def test_predict_misreads_the_first_model_line():
    """The skipped character changes what budgetedsvm-predict computes (here on the
    multi-class AMM fixture: its first hyperplane's degradation is read as 1)."""
    X, y = data("mc", "test")
    path = FIX / "mc_amm_online.model"
    as_read, _ = O.predict_model(O.load_model(path, as_predict_reads_it=True), X)
    as_written, _ = O.predict_model(O.load_model(path), X)
    assert np.mean(as_read != y) > np.mean(as_written != y) + 0.1


@pytest.mark.parametrize("name", ["bin_bsgd_merge_B10", "mc_bsgd_merge_B20",
                                  "bin_bsgd_remove_B10", "mc_bsgd_remove_B20"])
def test_float64_oracle_tracks_budgetedsvm_arithmetic(name):
    """With ties between equal ||alpha|| broken by position (tie_rtol), the plain float64
    oracle follows the float32/long-double one round for round: same updates, scores
    within the float32 storage error."""
    a = oracle(name, variant="budgetedsvm", numerics="budgetedsvm", tie_rtol=1e-9)
    b = oracle(name, variant="budgetedsvm", numerics="float64")
    np.testing.assert_array_equal(a.updated, b.updated)
    scale = 1 + np.abs(b.scores).max()
    np.testing.assert_allclose(a.scores.astype(float), b.scores, rtol=0, atol=1e-6 * scale)


# --------------------------------------------------------------------------- paper

gauss_data = O.gauss_data


def test_pegasos_removal_gradient_error():
    """[P] Section 6.1: in binary BPegasos with a Gaussian kernel every removal has
    ||E_t|| = ||alpha_p|| / eta_t = 1; run as classes (a coefficient +-eta per class,
    Section 5) it is sqrt(2), which is why the multi-class theorems assume
    ||Phi(x)||^2 <= 1/2."""
    X, y = gauss_data()
    run = O.bsgd(X, y, budget=10, lam=0.01, maintenance="remove", kernel=GAUSS,
                 variant="paper", binary=True)
    assert len(run.steps) > 50
    np.testing.assert_allclose([s.grad_error for s in run.steps], 1.0, rtol=1e-9)
    run = O.bsgd(X, y, budget=10, lam=0.01, maintenance="remove", kernel=GAUSS,
                 variant="paper")
    np.testing.assert_allclose([s.grad_error for s in run.steps], np.sqrt(2), rtol=1e-9)
    # BudgetedSVM's first vector (alpha = +-1, not +-1/lambda) is the smallest and goes
    # first, with ||E|| = sqrt(2) lambda
    run = O.bsgd(X, y, budget=10, lam=0.01, maintenance="remove", kernel=GAUSS,
                 variant="budgetedsvm")
    assert run.steps[0].removed == 0
    assert run.steps[0].grad_error == pytest.approx(0.01 * np.sqrt(2), rel=1e-9)


@pytest.mark.parametrize("maintenance", ["project", "merge"])
@pytest.mark.parametrize("classes", [2, 4])
def test_projection_and_merging_degrade_less_than_removal(maintenance, classes):
    """[P] Sections 6.2-6.3: with the smallest vector chosen, ||Delta_t|| of projection
    and of merging is at most that of removing it, so E is smaller than removal's."""
    X, y = gauss_data(classes=classes)
    run = O.bsgd(X, y, budget=10, lam=0.01, maintenance=maintenance, kernel=GAUSS,
                 variant="paper")
    assert len(run.steps) > 50
    for s in run.steps:
        assert s.sq_degradation <= s.sq_degradation_removal * (1 + 1e-9) + 1e-12
    removal = O.bsgd(X, y, budget=10, lam=0.01, maintenance="remove", kernel=GAUSS,
                     variant="paper")
    assert run.average_gradient_error < removal.average_gradient_error


def test_incremental_projection_equals_fresh_solve():
    X, y = gauss_data(classes=3)
    a = O.bsgd(X, y, budget=12, lam=0.01, maintenance="project", kernel=GAUSS,
               variant="paper", projection_solve="incremental")
    b = O.bsgd(X, y, budget=12, lam=0.01, maintenance="project", kernel=GAUSS,
               variant="paper", projection_solve="fresh")
    assert [s.removed for s in a.steps] == [s.removed for s in b.steps]
    np.testing.assert_allclose([s.sq_degradation for s in a.steps],
                               [s.sq_degradation for s in b.steps], rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(a.model.alpha, b.model.alpha, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("maintenance", ["remove", "project", "merge"])
def test_two_classes_are_binary_bsgd_at_half_lambda(maintenance):
    """A binary problem run as two Crammer-Singer classes (what BudgetedSVM always does)
    is the binary formulation of [P] Section 3 with lambda / 2: f^(+1) - f^(-1) = f."""
    X, y = gauss_data()
    two = O.bsgd(X, y, budget=10, lam=0.02, maintenance=maintenance, kernel=GAUSS,
                 variant="paper", classes=[-1, 1])
    one = O.bsgd(X, y, budget=10, lam=0.01, maintenance=maintenance, kernel=GAUSS,
                 variant="paper", binary=True)
    np.testing.assert_array_equal(two.updated, one.updated)
    np.testing.assert_allclose(two.scores[:, 1] - two.scores[:, 0], one.scores[:, 0],
                               rtol=1e-9, atol=1e-9)
    assert [s.removed for s in two.steps] == [s.removed for s in one.steps]


def test_unbudgeted_pegasos_coefficients_follow_eq_3_7():
    """alpha_j = beta_j prod_{k > j} (1 - eta_k lambda) = +-1 / (lambda T) for Pegasos."""
    X, y = gauss_data(n=120)
    run = O.kernel_pegasos(X, y, lam=0.05, kernel=GAUSS, variant="paper", binary=True)
    assert run.model.alpha.shape[0] == run.updated.sum()
    np.testing.assert_allclose(np.abs(run.model.alpha[:, 0]), 1 / (0.05 * 120), rtol=1e-12)


def test_norma_and_margin_perceptron_rules():
    X, y = gauss_data(classes=3)
    norma = O.bsgd(X, y, budget=None, lam=0.01, rule="norma", eta=0.5, kernel=GAUSS,
                   variant="paper")
    np.testing.assert_allclose(norma.eta, 0.5 / np.sqrt(np.arange(1, len(X) + 1)))
    # coefficient of the first vector: eta_1 prod_{k >= 2} (1 - lambda eta_k)
    first = np.nonzero(norma.updated)[0][0]
    t0 = first + 1
    expect = 0.5 / np.sqrt(t0) * np.prod(1 - 0.01 * 0.5 / np.sqrt(np.arange(t0 + 1, len(X) + 1)))
    assert np.abs(norma.model.alpha[0]).max() == pytest.approx(expect, rel=1e-10)
    mp = O.bsgd(X, y, budget=10, rule="mp", eta=0.5, radius=3.0, maintenance="merge",
                kernel=GAUSS, variant="paper", track_objective=True)
    G = np.exp(-GAUSS.gamma * ((mp.model.sv[:, None] - mp.model.sv[None]) ** 2).sum(-1))
    norm2 = np.einsum("ic,ij,jc->", mp.model.alpha, G, mp.model.alpha)
    assert norm2 <= 9 * (1 + 1e-9)
    assert np.all(mp.objective >= 0)


def test_golden_section_matches_a_fine_grid():
    for k12, m in [(0.3, 0.2), (0.8, 0.5), (0.05, 0.9)]:
        h = O.golden_section(k12, m, 1 - m, 0.0, 1.0)
        grid = np.linspace(0, 1, 200001)
        best = grid[np.argmax(m * k12 ** ((1 - grid) ** 2) + (1 - m) * k12 ** (grid ** 2))]
        assert abs(h - best) < 2e-4


def test_merge_clipping_is_the_only_difference_in_degradation():
    """[C] clips a negative h to 0 for the position only: the degradation it minimised
    (sq_degradation_code) and the one it caused differ exactly on those steps (float64,
    where z is exact)."""
    run = oracle("bin_bsgd_merge_B10", variant="budgetedsvm", numerics="float64")
    clipped = [s for s in run.steps if s.kind == "merge" and s.h_search < 0]
    assert clipped
    for s in run.steps:
        if s.kind != "merge":
            continue
        if s.h_search < 0:
            assert s.h == 0.0
        else:
            assert s.sq_degradation == pytest.approx(s.sq_degradation_code, rel=1e-9, abs=1e-12)
    assert any(abs(s.sq_degradation - s.sq_degradation_code) > 1e-6 for s in clipped)


def test_amm_paper_variant_runs_and_prunes():
    X, y = gauss_data(classes=4)
    run = O.amm_online(X, y, lam=0.01, max_weights=None, prune_every=50, prune_c=3.0,
                       variant="paper")
    assert all(len(ws) >= 1 for ws in run.weights)
    assert sum(n for _, n in run.prunings) > 0
    assert np.mean(run.predict(X) == y) > 0.5
