"""BSGD (Wang, Crammer & Vucetic, JMLR 13, 2012; issue 27), binary and multiclass.

Held round for round to the plain-numpy oracle ``bsgd`` of ``tests/oracles/bsgd.py``
(float64, ties in "the smallest" to the lowest position, ``tie_rtol=1e-9``) for every
rule (pegasos, norma, mp) x maintenance (removal, projection, merging), both variants
where they exist, on small Gaussian streams: predictions exactly, scores to 1e-9, losses,
the final support vectors and coefficients, every maintenance step (round, kind,
||Delta_t||^2, the removal degradation beside it, ||E_t||) and the running E; against
BudgetedSVM's own models (``tests/fixtures/budgetedsvm/``, variant="budgetedsvm"); the
paper's statements on the degradations; the contract.
"""
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import okl
from okl.kernels import Gaussian, Laplacian, Polynomial
from okl.learners.bsgd import BSGD, MulticlassBSGD
from oracles import bsgd as O

SIGMA = 1.0
GAUSS = O.Kernel("gaussian", gamma=O.gamma_from_sigma(SIGMA))
MAINT = {"removal": "remove", "projection": "project", "merging": "merge"}
TOL = 1e-9
FIX = Path(__file__).resolve().parent / "fixtures" / "budgetedsvm"


gauss_data = O.gauss_data


def rule_params(rule):
    """(okl parameters, oracle keywords) of a rule."""
    if rule == "pegasos":
        return dict(lam=0.01), dict(lam=0.01)
    if rule == "norma":
        return dict(lam=0.01, eta=0.5), dict(lam=0.01, eta=0.5)
    return dict(eta=0.5, U=3.0), dict(eta=0.5, radius=3.0)


CASES = [(rule, maint, variant) for rule in ("pegasos", "norma", "mp")
         for maint in ("removal", "projection", "merging")
         for variant in ("paper", "budgetedsvm")
         if variant == "paper" or (rule == "pegasos" and maint != "projection")]


def _same_steps(tr, o, factor=1.0, gfactor=1.0, rtol=1e-9):
    """Every maintenance step of the run equals the oracle's (degradations times
    ``factor``, gradient errors times ``gfactor``; ``rtol``: 1e-6 for projections, whose
    degradation ``||alpha_p||^2 / M[p, p]`` carries the inverse's round-off)."""
    ex = tr.extras
    assert ex["maintenance_steps"] == len(o.steps)
    np.testing.assert_array_equal(ex["maintenance_rounds"], [s.t for s in o.steps])
    assert ex["maintenance_kinds"] == [s.kind for s in o.steps]
    assert ex["duplicate_steps"] == sum(s.kind.endswith("duplicate") for s in o.steps)
    deg = np.array([s.sq_degradation for s in o.steps]) * factor
    rem = np.array([np.nan if s.sq_degradation_removal is None else s.sq_degradation_removal
                    for s in o.steps]) * factor
    ge = np.array([s.grad_error for s in o.steps]) * gfactor
    scale = max(1.0, float(np.abs(rem[np.isfinite(rem)]).max(initial=0.0)))
    np.testing.assert_allclose(ex["degradations"], deg, rtol=rtol, atol=1e-12 * scale)
    np.testing.assert_allclose(ex["removal_degradations"], rem, rtol=rtol, atol=1e-12 * scale)
    np.testing.assert_allclose(ex["gradient_errors"], ge, rtol=max(rtol, 1e-7), atol=1e-9)
    E = np.cumsum(o.grad_errors * gfactor) / np.arange(1, len(o.losses) + 1)
    np.testing.assert_allclose(ex["E"], E, rtol=max(rtol, 1e-7), atol=1e-9)


@pytest.mark.parametrize("B", [12, 20])
@pytest.mark.parametrize("rule, maint, variant", CASES)
def test_binary_matches_its_oracle(rule, maint, variant, B):
    X, y = gauss_data()
    p, op = rule_params(rule)
    learner = BSGD(Gaussian(SIGMA), B=B, rule=rule, maintenance=maint, variant=variant, **p)
    tr = learner.run(X, y)
    if variant == "paper":
        o = O.bsgd(X, y, budget=B, rule=rule, maintenance=MAINT[maint], kernel=GAUSS,
                   binary=True, variant="paper", **op)
        f = o.scores[:, 0]
        coef = o.model.alpha[:, 0]
        factor = gfactor = 1.0
    else:
        # BudgetedSVM's two classes at lam: alpha = alpha^(+1) - alpha^(-1), which is the
        # binary algorithm at lam / 2; its degradations are half of this alpha's
        o = O.bsgd(X, y, budget=B, rule=rule, maintenance=MAINT[maint], kernel=GAUSS,
                   classes=[-1, 1], variant="budgetedsvm", **op)
        f = o.scores[:, 1] - o.scores[:, 0]
        coef = o.model.alpha[:, 1] - o.model.alpha[:, 0]
        factor, gfactor = 2.0, 1 / np.sqrt(2.0)
        assert learner.lam_ == op["lam"] / 2
    np.testing.assert_allclose(tr.scores, f, rtol=0, atol=TOL)
    np.testing.assert_array_equal(np.where(tr.scores >= 0, 1, -1), np.where(f >= 0, 1, -1))
    if variant == "paper":
        np.testing.assert_array_equal(np.where(tr.scores >= 0, 1, -1),
                                      o.predictions.astype(int))
    np.testing.assert_allclose(tr.losses, o.losses, rtol=0, atol=TOL)
    np.testing.assert_array_equal(learner.support_vectors, o.model.sv)
    coef_tol = TOL if maint != "projection" else 1e-6
    np.testing.assert_allclose(learner.coefficients, coef, rtol=0,
                               atol=coef_tol * max(1.0, np.abs(coef).max()))
    Xnew, _ = gauss_data(n=50, seed=99)
    fnew = o.model.decision(Xnew).astype(float)
    fnew = fnew[:, 0] if variant == "paper" else fnew[:, 1] - fnew[:, 0]
    np.testing.assert_allclose(learner.decision_function(Xnew), fnew, rtol=0, atol=TOL)
    assert tr.budget.max() <= B and learner.support_set.size == len(coef)
    assert len(o.steps) > 50
    _same_steps(tr, o, factor, gfactor, 1e-6 if maint == "projection" else 1e-9)


@pytest.mark.parametrize("K, B", [(3, 15), (4, 12), (5, 20)])
@pytest.mark.parametrize("rule, maint, variant", CASES)
def test_multiclass_matches_its_oracle(rule, maint, variant, K, B):
    X, y = gauss_data(classes=K, seed=K)
    p, op = rule_params(rule)
    learner = MulticlassBSGD(Gaussian(SIGMA), B=B, rule=rule, maintenance=maint,
                             variant=variant, **p)
    tr = learner.run(X, y)
    o = O.bsgd(X, y, budget=B, rule=rule, maintenance=MAINT[maint], kernel=GAUSS,
               classes=sorted(set(y.tolist())), variant=variant, **op)
    np.testing.assert_array_equal(tr.predictions, o.predictions.astype(int))
    np.testing.assert_allclose(tr.class_scores, o.scores, rtol=0, atol=TOL)
    np.testing.assert_allclose(tr.losses, o.losses, rtol=0, atol=TOL)
    np.testing.assert_array_equal(learner.support_vectors, o.model.sv)
    A = o.model.alpha
    # projection: the incremental inverse's round-off (cond(K_S) ~1e5, over hundreds of
    # steps) moves the coefficients more than the function, held to 1e-9
    coef_tol = TOL if maint != "projection" else 1e-6
    np.testing.assert_allclose(learner.coefficients, A, rtol=0,
                               atol=coef_tol * max(1.0, np.abs(A).max()))
    Xnew, _ = gauss_data(n=50, classes=K, seed=99)
    np.testing.assert_allclose(learner.decision_function(Xnew),
                               o.model.decision(Xnew).astype(float), rtol=0, atol=TOL)
    assert len(o.steps) > 50
    _same_steps(tr, o, rtol=1e-6 if maint == "projection" else 1e-9)


@pytest.mark.parametrize("maint", ["removal", "merging"])
def test_epochs_are_the_stream_run_again(maint):
    X, y = gauss_data(n=150)
    learner = BSGD(Gaussian(SIGMA), B=10, lam=0.01, maintenance=maint)
    first, second = learner.run(X, y), learner.run(X, y)
    o = O.bsgd(X, y, budget=10, lam=0.01, maintenance=MAINT[maint], kernel=GAUSS,
               binary=True, variant="paper", epochs=2)
    np.testing.assert_allclose(np.r_[first.scores, second.scores], o.scores[:, 0],
                               rtol=0, atol=TOL)
    assert second.extras["maintenance_steps"] == len(o.steps)
    np.testing.assert_allclose(second.extras["E"], (np.cumsum(o.grad_errors)
                                                    / np.arange(1, 301))[150:], rtol=1e-7)
    assert learner.E_ == pytest.approx(o.average_gradient_error, rel=1e-7)


@pytest.mark.parametrize("maint", ["removal", "projection", "merging"])
def test_two_classes_are_binary_bsgd_at_half_lambda(maint):
    """[P] Section 5 on K = 2: f_(+1) - f_(-1) of MulticlassBSGD at lam is BSGD at lam/2."""
    X, y = gauss_data()
    two = MulticlassBSGD(Gaussian(SIGMA), B=12, lam=0.02, maintenance=maint).run(X, y)
    one = BSGD(Gaussian(SIGMA), B=12, lam=0.01, maintenance=maint).run(X, y)
    np.testing.assert_allclose(two.class_scores[:, 1] - two.class_scores[:, 0], one.scores,
                               rtol=0, atol=TOL)
    assert two.extras["maintenance_rounds"].tolist() == one.extras["maintenance_rounds"].tolist()


def test_budgetedsvm_binary_is_its_two_class_run():
    X, y = gauss_data()
    for maint in ("removal", "merging"):
        mc = MulticlassBSGD(Gaussian(SIGMA), B=12, lam=0.01, maintenance=maint,
                            variant="budgetedsvm")
        two = mc.run(X, y)
        one = BSGD(Gaussian(SIGMA), B=12, lam=0.01, maintenance=maint,
                   variant="budgetedsvm").run(X, y)
        np.testing.assert_allclose(two.class_scores[:, 1] - two.class_scores[:, 0],
                                   one.scores, rtol=0, atol=TOL)
        np.testing.assert_allclose(two.extras["degradations"] * 2, one.extras["degradations"],
                                   rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- the paper

def test_pegasos_removal_gradient_error_is_one():
    """[P] Section 6.1: binary BPegasos with removal has ||E_t|| = 1 at every step (any
    removal); with classes, sqrt(2)."""
    X, y = gauss_data()
    tr = BSGD(Gaussian(SIGMA), B=10, lam=0.01, maintenance="removal").run(X, y)
    np.testing.assert_allclose(tr.extras["gradient_errors"], 1.0, rtol=1e-9)
    np.testing.assert_allclose(tr.extras["E"][-1], len(tr.extras["gradient_errors"]) / 300,
                               rtol=1e-9)
    tr = MulticlassBSGD(Gaussian(SIGMA), B=10, lam=0.01, maintenance="removal").run(X, y)
    np.testing.assert_allclose(tr.extras["gradient_errors"], np.sqrt(2), rtol=1e-9)


@pytest.mark.parametrize("cls, classes", [(BSGD, 2), (MulticlassBSGD, 4)])
@pytest.mark.parametrize("maint", ["projection", "merging"])
def test_projection_and_merging_degrade_less_than_removal(cls, classes, maint):
    """[P] Sections 6.2-6.3: with the smallest vector chosen, projecting or merging it
    costs at most removing it, step by step, so E is smaller."""
    X, y = gauss_data(classes=classes)
    tr = cls(Gaussian(SIGMA), B=10, lam=0.01, maintenance=maint).run(X, y)
    ex = tr.extras
    assert np.all(ex["degradations"] <= ex["removal_degradations"] * (1 + 1e-9) + 1e-12)
    removal = cls(Gaussian(SIGMA), B=10, lam=0.01, maintenance="removal").run(X, y)
    assert ex["E"][-1] < removal.extras["E"][-1]


def test_projection_inverse_is_the_gram_inverse():
    X, y = gauss_data(classes=3)
    learner = MulticlassBSGD(Gaussian(SIGMA), B=12, lam=0.01, maintenance="projection")
    learner.run(X, y)
    S = learner.support_vectors
    G = np.exp(-((S[:, None] - S[None]) ** 2).sum(-1) / (2 * SIGMA ** 2))
    state = learner._inverse_state()
    np.testing.assert_allclose(state.inverse @ G, np.eye(len(S)), atol=1e-8)


def test_margin_perceptron_stays_in_its_ball():
    X, y = gauss_data(classes=3)
    for maint in ("removal", "projection", "merging"):
        learner = MulticlassBSGD(Gaussian(SIGMA), B=10, rule="mp", eta=0.5, U=3.0,
                                 maintenance=maint)
        learner.run(X, y)
        S, A = learner.support_vectors, learner.coefficients
        G = np.exp(-((S[:, None] - S[None]) ** 2).sum(-1) / 2)
        norm2 = np.einsum("ic,ij,jc->", A, G, A)
        assert norm2 <= 9 * (1 + 1e-9)
        assert learner.wsq == pytest.approx(norm2, rel=1e-9)


# --------------------------------------------------------------------------- BudgetedSVM

LAM = float(np.float32(0.01))          # budgetedsvm-train reads -L 0.01 into a float
FIXTURES = {                           # name -> (data, B, maintenance, epochs)
    "bin_bsgd_merge_B10": ("bin", 10, "merging", 1),
    "bin_bsgd_remove_B10": ("bin", 10, "removal", 1),
    "bin_bsgd_merge_B10_e3": ("bin", 10, "merging", 3),
    "mc_bsgd_merge_B20": ("mc", 20, "merging", 1),
    "mc_bsgd_remove_B20": ("mc", 20, "removal", 1),
    "bindup_bsgd_merge_B10": ("bindup", 10, "merging", 1),
    "bindup_bsgd_remove_B10": ("bindup", 10, "removal", 1),
}


def _fixture_data(data):
    return O.read_libsvm(FIX / f"{data}_train.txt", 3)


def _okl_on_fixture(data, B, maint, epochs, kernel=Gaussian(np.sqrt(2.0))):
    """okl's variant="budgetedsvm" on a fixture's file (-g 0.5: sigma = sqrt(2)); the
    multiclass labels relabelled so that sorted order is BudgetedSVM's order of first
    appearance.  Returns (learner, traces, the labels in class order)."""
    X, y = _fixture_data(data)
    if data == "mc":
        order = list(dict.fromkeys(y.tolist()))
        yr = np.array([order.index(v) for v in y])
        learner = MulticlassBSGD(kernel, B=B, lam=LAM, maintenance=maint,
                                 variant="budgetedsvm")
    else:
        order, yr = None, y
        learner = BSGD(kernel, B=B, lam=LAM, maintenance=maint, variant="budgetedsvm")
    traces = [learner.run(X, yr) for _ in range(epochs)]
    return learner, traces, order


def test_budgetedsvm_polynomial_removal_model_to_the_files_decimals():
    """4-class removal with -K 2 -d 2 -i 1 (B = 15): no two support vectors tie in
    ||alpha||^2 k(x, x), and okl's model is BudgetedSVM's to the file's 10 decimals
    (the duplicate test uses BudgetedSVM's default width g = 1/d)."""
    learner, (tr,), order = _okl_on_fixture("mc", 15, "removal", 1,
                                            Polynomial(degree=2, gamma=1.0, coef0=1.0))
    model = O.load_model(FIX / "mc_bsgd_remove_poly_B15.model")
    A = model.alpha[:, [model.labels.index(v) for v in order]]
    np.testing.assert_array_equal(learner.support_vectors, model.sv)
    np.testing.assert_allclose(learner.coefficients, A, rtol=0, atol=2e-10)
    log = (FIX / "mc_bsgd_remove_poly_B15.log").read_text()
    steps = int(re.search(r"Number of budget maintenance steps:\s*(\d+)", log).group(1))
    assert tr.extras["maintenance_steps"] == steps


_emulated = {}


def _emulated_runs(name):
    """BudgetedSVM's run as the oracle reproduces its model file (its float32 coordinates
    and long-double arithmetic, ties left to that arithmetic's round-off), and the same
    arithmetic with okl's tie rule (the lowest position within 1e-9)."""
    if name not in _emulated:
        data, B, maint, epochs = FIXTURES[name]
        X, y = _fixture_data(data)
        kw = dict(budget=B, lam=LAM, maintenance=MAINT[maint], kernel=O.Kernel(
            "gaussian", gamma=0.25), epochs=epochs, variant="budgetedsvm",
            numerics="budgetedsvm")
        _emulated[name] = (O.bsgd(X, y, **kw), O.bsgd(X, y, tie_rtol=1e-9, **kw))
    return _emulated[name]


@pytest.mark.parametrize("name", list(FIXTURES))
def test_budgetedsvm_models_up_to_their_first_tie(name):
    """The other fixtures' runs are BudgetedSVM's round for round until its first
    maintenance step among tied "smallest" vectors, which its long-double round-off
    decides and okl gives to the lowest position; at that step the two choices are tied
    to 1e-9.  With the position rule in BudgetedSVM's own arithmetic, okl's whole run
    is the same (same updates, steps, kinds and positions, scores to the float32 storage
    error)."""
    data, B, maint, epochs = FIXTURES[name]
    learner, traces, order = _okl_on_fixture(data, B, maint, epochs)
    exact, by_position = _emulated_runs(name)
    model = O.load_model(FIX / f"{name}.model")
    # the emulation is the file (tests/oracles/test_bsgd_oracles.py checks all of it)
    np.testing.assert_array_equal(exact.model.sv, model.sv)
    if data == "mc":
        scores = np.vstack([tr.class_scores for tr in traces])
        ref = by_position.scores.astype(float)[:, [by_position.model.classes.index(v)
                                                   for v in order]]
        ref_exact = exact.scores.astype(float)[:, [exact.model.classes.index(v)
                                                   for v in order]]
    else:
        scores = np.concatenate([tr.scores for tr in traces])
        ref = (by_position.scores[:, 1] - by_position.scores[:, 0]).astype(float)
        ref_exact = (exact.scores[:, 1] - exact.scores[:, 0]).astype(float)
    ex = traces[-1].extras
    # the whole run against BudgetedSVM's arithmetic with the position rule
    assert learner.maintenance_steps == len(by_position.steps)
    assert learner.duplicate_steps == sum(s.kind.endswith("duplicate")
                                          for s in by_position.steps)
    if epochs == 1:
        np.testing.assert_array_equal(ex["maintenance_rounds"],
                                      [s.t for s in by_position.steps])
        assert ex["maintenance_kinds"] == [s.kind for s in by_position.steps]
    np.testing.assert_allclose(scores, ref, rtol=0, atol=2e-6 * (1 + np.abs(ref).max()))
    # up to the first tie, BudgetedSVM's own run
    first = next(i for i, (a, b) in enumerate(zip(exact.steps, by_position.steps))
                 if (a.removed, a.kept) != (b.removed, b.kept))
    a, b = exact.steps[first], by_position.steps[first]
    assert a.t == b.t and a.kind == b.kind
    assert a.sq_degradation_removal == pytest.approx(b.sq_degradation_removal, rel=1e-9)
    upto = a.t
    np.testing.assert_allclose(scores[:upto], ref_exact[:upto], rtol=0,
                               atol=2e-6 * (1 + np.abs(ref_exact[:upto]).max()))


def test_budgetedsvm_duplicates_are_exercised():
    for maint in ("merging", "removal"):
        learner, (tr,), _ = _okl_on_fixture("bindup", 10, maint, 1)
        kind = "merge-duplicate" if maint == "merging" else "remove-duplicate"
        assert tr.extras["maintenance_kinds"].count(kind) == tr.extras["duplicate_steps"] >= 3


# --------------------------------------------------------------------------- the API

@pytest.mark.parametrize("cls, classes", [(BSGD, 2), (MulticlassBSGD, 3)])
@pytest.mark.parametrize("kw", [dict(maintenance="merging"),
                                dict(maintenance="projection", rule="norma", eta=0.5),
                                dict(maintenance="merging", rule="mp", eta=0.5, U=2.0),
                                dict(maintenance="merging", variant="budgetedsvm")])
def test_pickle_mid_stream(cls, classes, kw):
    X, y = gauss_data(classes=classes)
    kw = {"lam": 0.01, **kw} if kw.get("rule") != "mp" else kw
    whole = cls(Gaussian(SIGMA), B=10, **kw).run(X, y)
    learner = cls(Gaussian(SIGMA), B=10, **kw)
    learner.run(X[:140], y[:140])
    clone = pickle.loads(pickle.dumps(learner))
    rest = clone.run(X[140:], y[140:])
    np.testing.assert_allclose(rest.scores, whole.scores[140:], rtol=0, atol=1e-12)
    assert clone.maintenance_steps == whole.extras["maintenance_steps"]
    assert clone.E_ == pytest.approx(whole.extras["E"][-1], rel=1e-12)


@pytest.mark.parametrize("kw, words", [
    (dict(maintenance="merging", kernel=Polynomial()), "needs a Gaussian kernel"),
    (dict(maintenance="merging", kernel=Laplacian()), "k(x_m, z) = k(x_m, x_n)^((1-h)^2)"),
    (dict(variant="budgetedsvm", rule="norma"), "budgetedsvm-train -A 4"),
    (dict(variant="budgetedsvm", maintenance="projection"), "budgetedsvm-train -A 4"),
    (dict(rule="pegasos", eta=0.5), "rule='pegasos' steps 1/(lam t)"),
    (dict(rule="pegasos", lam=0.0), "needs lam > 0"),
    (dict(rule="mp", lam=0.01), "lam = 0"),
    (dict(rule="norma", U=2.0), "U is the radius"),
    (dict(rule="norma", lam=2.0, eta=1.0), "eta * lam < 1"),
    (dict(maintenance="merge"), "maintenance must be one of"),
    (dict(B=0), "B must be"),
])
def test_refusals_name_the_reason(kw, words):
    for cls in (BSGD, MulticlassBSGD):
        with pytest.raises(ValueError, match=re.escape(words)):
            cls(**kw)


def test_defaults_and_other_kernels():
    learner = BSGD()
    assert learner.lam_ == 1e-4 and learner.maintenance == "merging"
    assert BSGD(rule="mp").lam_ == 0.0
    X, y = gauss_data()
    for maint in ("removal", "projection"):
        tr = BSGD(Polynomial(degree=2, gamma=0.5), B=10, lam=0.01, maintenance=maint).run(X, y)
        o = O.bsgd(X, y, budget=10, lam=0.01, maintenance=MAINT[maint], binary=True,
                   kernel=O.Kernel("polynomial", degree=2, coef0=1.0), variant="paper")
        # okl's Polynomial(gamma=0.5) is (0.5 <x, v> + 1)^2; the oracle's has no scale
        assert tr.extras["maintenance_steps"] > 0 and len(o.steps) > 0


@pytest.mark.parametrize("cls", [BSGD, MulticlassBSGD])
def test_contract(cls):
    for example in cls.okl_entry.examples:
        okl.check_learner(cls, **example)
