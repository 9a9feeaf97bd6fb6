"""okl bounds for BSGD (Wang, Crammer & Vucetic, JMLR 2012, Theorems 1-3) and kernel Pegasos
(okl/experiments/bounds/bsgd.py).

On runs of every rule and maintenance: every checked bound holds; the theorem rows' bounds
equal theory.bsgd called directly with the rows' inputs; the measured side equals the
plain-numpy oracle's (tests/oracles/bsgd.py: its P_t(w_t) with ``track_objective`` and its
average gradient error) minus theory.bsgd's certified lower bound on min P; the rows that
do not apply say why.
"""
import math

import numpy as np
import pytest

import okl
from okl.experiments.bounds import bounds_report, handler_for
from okl.experiments.bounds import bsgd as hb
from okl.kernels import Gaussian
from oracles import bsgd as O
from theory import best_hinge_in_ball
from theory import bsgd as tb

SIGMA = 1.0
GAUSS = O.Kernel("gaussian", gamma=O.gamma_from_sigma(SIGMA))
MAINT = {"removal": "remove", "projection": "project", "merging": "merge"}
T = 160
B = 12


def _data(classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, 2))
    if classes == 2:
        y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4, 1.0, -1.0)
    else:
        y = np.floor((np.arctan2(X[:, 1], X[:, 0]) + np.pi) / (2 * np.pi / classes)) \
            .astype(int) % classes
    return X, y


RULES = {"pegasos": (dict(lam=0.05), dict(lam=0.05)),
         "norma": (dict(lam=0.05, eta=0.5), dict(lam=0.05, eta=0.5)),
         "mp": (dict(eta=0.3, U=3.0), dict(eta=0.3, radius=3.0))}
THEOREM = {"pegasos": "Theorem 1", "norma": "Theorem 2", "mp": "Theorem 3"}


def _theorem_rows(rep):
    return [r for r in rep.rows if r["quantity"] == hb.Q_GAP]


def _expected(rule, inputs, printed):
    N, E, lam = inputs["N"], inputs["E"], inputs["lam"]
    if printed:
        if rule == "pegasos":
            return tb.bsgd_theorem1_bound(lam, N, E)
        if rule == "norma":
            return tb.bsgd_theorem2_bound(lam, inputs["eta"], N, E)
        return tb.bsgd_theorem3_bound(inputs["U"], inputs["eta"], N, E)
    G, eps, U = inputs["G"], inputs["eps"], inputs["U"]
    if rule == "pegasos":
        return tb.bsgd_theorem1_bound(lam, N, E, U=U, G=G, eps=eps)
    if rule == "norma":
        return tb.bsgd_theorem2_bound(lam, inputs["eta"], N, E, U=U, G=G, eps=eps)
    return tb.bsgd_theorem3_bound(U, inputs["eta"], N, E, G=G, eps=eps)


@pytest.mark.parametrize("maint", ["removal", "projection", "merging"])
@pytest.mark.parametrize("rule", ["pegasos", "norma", "mp"])
def test_binary_theorems_hold_and_equal_theory(rule, maint):
    X, y = _data()
    p, op = RULES[rule]
    learner = okl.BSGD(Gaussian(SIGMA), B=B, rule=rule, maintenance=maint, **p)
    rep = bounds_report(learner, X, y)
    assert rep.all_hold
    rows = _theorem_rows(rep)
    assert [THEOREM[rule] in r["source"] for r in rows] == [True, True]
    printed, run = rows
    assert printed["holds"] and run["holds"]
    assert printed["bound"] == pytest.approx(_expected(rule, printed["inputs"], True),
                                             rel=1e-12)
    assert run["bound"] == pytest.approx(_expected(rule, run["inputs"], False), rel=1e-12)
    # the measured side: the oracle's average objective minus the lower bound on min P
    o = O.bsgd(X, y, budget=B, rule=rule, maintenance=MAINT[maint], kernel=GAUSS,
               binary=True, variant="paper", tie_rtol=1e-9, track_objective=True, **op)
    ins = run["inputs"]
    assert ins["avg_P_t_w_t"] == pytest.approx(o.objective.mean(), rel=1e-7)
    assert ins["E"] == pytest.approx(o.average_gradient_error, rel=1e-7, abs=1e-12)
    assert ins["max_E_t"] == pytest.approx(o.grad_errors.max(), rel=1e-7)
    K = Gaussian(SIGMA)(X)
    if rule == "mp":
        low = best_hinge_in_ball(K, y, 3.0).lower_bound / T
    else:
        low = tb.svm_minimum(K, y, 0.05).lower_bound
    assert ins["P_min_lower"] == pytest.approx(low, rel=1e-6)
    assert run["measured"] == pytest.approx(o.objective.mean() - low, rel=1e-6, abs=1e-9)
    assert run["measured"] > 0
    # Section 6's rows
    e_row = next(r for r in rep.rows if r["quantity"].startswith("max_t ||E_t||"))
    assert e_row["holds"] and e_row["bound"] == pytest.approx(1.0)
    ratio = [r for r in rep.rows if r["quantity"].startswith("max_t ||Delta_t||^2")]
    assert len(ratio) == (maint != "removal")
    assert all(r["holds"] for r in ratio)


@pytest.mark.parametrize("rule", ["pegasos", "norma", "mp"])
def test_multiclass_run_constants(rule):
    X, y = _data(classes=3, seed=1)
    p, op = RULES[rule]
    learner = okl.MulticlassBSGD(Gaussian(SIGMA), B=B, rule=rule, maintenance="merging", **p)
    rep = bounds_report(learner, X, y)
    assert rep.all_hold
    printed, run = _theorem_rows(rep)
    # Section 5's premise ||Phi(x)||^2 <= 1/2 fails for a Gaussian kernel
    assert printed["holds"] is None and "||Phi(x)||^2 <= 0.5" in printed["note"]
    assert run["inputs"]["G"] == pytest.approx(math.sqrt(2.0))
    assert run["bound"] == pytest.approx(_expected(rule, run["inputs"], False), rel=1e-12)
    o = O.bsgd(X, y, budget=B, rule=rule, maintenance="merge", kernel=GAUSS,
               classes=[0, 1, 2], variant="paper", tie_rtol=1e-9, track_objective=True, **op)
    assert run["inputs"]["avg_P_t_w_t"] == pytest.approx(o.objective.mean(), rel=1e-7)
    if rule != "mp":
        K = Gaussian(SIGMA)(X)
        low = tb.multiclass_svm_minimum(K, y, 3, 0.05).lower_bound
        assert run["inputs"]["P_min_lower"] == pytest.approx(low, rel=1e-6)
    e_row = next(r for r in rep.rows if r["quantity"].startswith("max_t ||E_t||"))
    assert e_row["bound"] == pytest.approx(math.sqrt(2.0)) and e_row["holds"]


def test_scaled_kernel_meets_the_printed_multiclass_premise():
    """A kernel with k(x, x) = 1/2 (a Gaussian of the halved inputs' feature map is not
    one: the linear kernel on rows of norm 1/sqrt(2)) takes the printed theorem."""
    X, y = _data(classes=3, seed=2)
    X = X / np.linalg.norm(X, axis=1, keepdims=True) / math.sqrt(2.0)
    learner = okl.MulticlassBSGD(okl.kernels.Linear(), B=B, lam=0.05,
                                 maintenance="removal")
    rep = bounds_report(learner, X, y)
    printed, run = _theorem_rows(rep)
    assert printed["holds"] is True and run["holds"] is True
    assert printed["bound"] == pytest.approx(_expected("pegasos", printed["inputs"], True))


def test_not_applicable_rows_say_why():
    X, y = _data()
    rep = bounds_report(okl.BSGD(Gaussian(SIGMA), B=B, lam=0.05, variant="budgetedsvm"), X, y)
    rows = _theorem_rows(rep)
    assert all(r["holds"] is None and "budgetedsvm" in r["note"] for r in rows)
    rep = bounds_report(okl.BSGD(Gaussian(SIGMA), B=B, rule="mp", eta=0.3), X, y)
    assert all(r["holds"] is None and "U=None" in r["note"] for r in _theorem_rows(rep))


def test_handlers_are_declared():
    assert handler_for(okl.BSGD())[0] is hb.bsgd
    assert handler_for(okl.MulticlassBSGD())[0] is hb.bsgd


def test_kernel_pegasos_theorem():
    """Pegasos' Theorem 1 (no projection) on KernelPegasos' run."""
    X, y = _data()
    assert handler_for(okl.KernelPegasos())[0] is hb.kernel_pegasos
    assert handler_for(okl.MulticlassKernelPegasos())[0] is hb.kernel_pegasos
    rep = bounds_report(okl.KernelPegasos(Gaussian(SIGMA), lam=0.05), X, y)
    (r,) = _theorem_rows(rep)
    assert r["holds"]
    assert r["bound"] == pytest.approx(tb.pegasos_regret_bound(0.05, T, 1.0))
    # E = 0: the unbudgeted run is BSGD's with no maintenance (same iterates)
    o = O.kernel_pegasos(X, y, lam=0.05, kernel=GAUSS, binary=True, variant="paper",
                         track_objective=True)
    assert r["inputs"]["avg_P_t_w_t"] == pytest.approx(o.objective.mean(), rel=1e-7)


def test_multiclass_kernel_pegasos_and_the_learners_without_a_bound():
    X, y = _data(classes=3, seed=1)
    rep = bounds_report(okl.MulticlassKernelPegasos(Gaussian(SIGMA), lam=0.05), X, y)
    (r,) = _theorem_rows(rep)
    assert r["holds"] and r["inputs"]["R2"] == pytest.approx(2.0)
    assert r["bound"] == pytest.approx(tb.pegasos_regret_bound(0.05, T, 2.0))
    for learner in (okl.LinearPegasos(lam=0.05), okl.AMMOnline(lam=0.05)):
        rep = bounds_report(learner, X, y)
        (r,) = [r for r in rep.rows if "Theorem" in r["source"]]
        assert r["holds"] is None and r["note"].startswith("not applicable")
