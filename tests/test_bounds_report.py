"""``okl.experiments.bounds``: each row's bound against the theory function called directly.

The oracle side never uses the report's own intermediate values: the Gram matrix is
scikit-learn's (``conftest.ref_gram``), eigenvalues come from ``numpy.linalg.eigvalsh``,
the comparators are solved again here (``best_hinge_in_ball``,
``soft_margin_comparator_loss``, ``kernel_ridge_comparator``), the per-round sets
(``N_T``, margin errors, positive-loss rounds) are recounted from an independent
identical run, and the best radius / margin / gamma is searched here over the same
grids.  Every row with a bound must then have ``bound`` equal to the oracle (to 1e-7,
the report's Gram matrix is okl's), ``holds == (measured <= bound)`` and
``ratio == measured / bound``.  Anytime curves must end at the row's bound and stay
above the measured curve on every prefix (the theorems hold on every prefix).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import ref_gram, xor_stream

import okl
from okl.experiments import bounds as bmod
from okl.experiments.bounds import report as breport
from okl.experiments.bounds import (
    DEFAULT_RADII,
    NO_BOUND,
    bounds_report,
    format_report,
    plot_report,
)
from okl.learners.awv import PKAWV
from theory import best_hinge_in_ball, fit_exponential_decay, fit_polynomial_decay
from theory import kernel_alignment, kernel_ridge_comparator, log_det_term
from theory import ahpatron as tah
from theory import awv as tawv
from theory import norma as tn
from theory import pomdr as tp
from theory.spectrum import effective_dimension

REL = 1e-7
T = 200


def xor_discs(T, seed, flip=0.05):
    """Four unit discs in an XOR layout (gap 3 between the classes), ``flip`` of the
    labels flipped (plain numpy, no okl)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[2.5, 2.5], [-2.5, -2.5], [2.5, -2.5], [-2.5, 2.5]])
    labels = np.array([1.0, 1.0, -1.0, -1.0])
    i = rng.integers(0, 4, T)
    a = rng.uniform(0, 2 * np.pi, T)
    r = np.sqrt(rng.random(T))
    X = centres[i] + r[:, None] * np.c_[np.cos(a), np.sin(a)]
    y = labels[i].copy()
    y[rng.random(T) < flip] *= -1
    return X, y


X0, Y0 = xor_discs(T, 0)
SIGMA = 1.5
KERNEL = okl.Gaussian(SIGMA)
KREF = ref_gram(KERNEL, X0, X0)
_HINGE = {}


def hinge(r, K=KREF, y=Y0):
    key = (id(K), float(r))
    if key not in _HINGE:
        _HINGE[key] = best_hinge_in_ball(K, y, r)
    return _HINGE[key]


def clone(learner):
    return type(learner)(**learner.get_params())


def check_row(report, source, expected, measured=None):
    row = report.row(source)
    assert row["bound"] == pytest.approx(expected, rel=REL, abs=1e-9), (source, row)
    if measured is not None:
        assert row["measured"] == pytest.approx(measured, rel=REL, abs=1e-9), (source, row)
    assert row["holds"] == (row["measured"] <= row["bound"] * (1 + 1e-9) + 1e-9)
    if row["bound"] > 0:
        assert row["ratio"] == pytest.approx(row["measured"] / row["bound"])
    return row


def check_na(report, source, reason):
    row = report.row(source)
    assert row["bound"] is None and row["holds"] is None and row["ratio"] is None
    assert row["note"].startswith("not applicable") and reason in row["note"], row["note"]


def check_curves(report):
    for c in report.curves:
        if not c["anytime"] or c["kind"] == "budget":
            continue
        (measured,), (bound,) = c["measured"].values(), c["bounds"].values()
        assert measured.shape == bound.shape == (report.T,)
        assert np.all(measured <= bound * (1 + 1e-9) + 1e-9), c["title"]


def curve_end(report, title_part):
    (c,) = [c for c in report.curves if title_part in c["title"]]
    return float(list(c["bounds"].values())[0][-1])


def check_empirical(report, trace):
    rows = {r["quantity"]: r for r in report.rows if r["source"] == NO_BOUND}
    if trace.is_classification:
        assert rows["mistakes"]["measured"] == int(np.sum(trace.mistakes))
    assert rows["cumulative loss"]["measured"] == pytest.approx(trace.losses.sum())
    assert rows["final budget"]["measured"] == trace.budget[-1]
    assert rows["max budget"]["measured"] == trace.budget.max()
    assert all(r["bound"] is None and r["holds"] is None for r in rows.values())


# -- Perceptron ------------------------------------------------------------------------------

def test_perceptron_theorems_1_and_2():
    learner = okl.Perceptron(KERNEL)
    tr = clone(learner).run(X0, Y0)
    rep = bounds_report(learner, X0, Y0)
    M = int(np.sum(Y0 * tr.scores <= 0))
    X2 = float(np.max(np.diag(KREF)))
    for fn, src in ((tah.perceptron_theorem1_bound, "Theorem 1"),
                    (tah.perceptron_theorem2_bound, "Theorem 2")):
        expected = min(fn(hinge(r).loss, hinge(r).norm, X2) for r in DEFAULT_RADII)
        (source,) = [r["source"] for r in rep.rows if src in r["source"]]
        row = check_row(rep, source, expected, M)
        assert row["holds"] and row["bound"] < T      # non-vacuous on this stream
        assert curve_end(rep, source) == pytest.approx(expected, rel=REL)
    check_curves(rep)
    check_empirical(rep, tr)
    assert learner.n_rounds == T          # the given learner is the one that ran


# -- AVP -------------------------------------------------------------------------------------

def _margins(learner, eps):
    tr = clone(learner).run(X0, Y0)
    m = Y0 * tr.scores
    return tr, m, int(np.sum(m <= 0)), int(np.sum((m > 0) & (m < 1 - eps)))


def test_avp_theorem3_corollaries():
    # Theorem 3, constant rate, ball of radius 3: radii 1, 2 and 3
    learner = okl.AVP(KERNEL, U=3.0, lam=1.2, eps=0.8)
    tr, m, Mp, N = _margins(learner, 0.8)
    rep = bounds_report(learner, X0, Y0)
    exp = min(tah.avp_constant_rate_bound(hinge(r).loss, hinge(r).norm, 1.2, 0.8, N)
              for r in (1.0, 2.0, 3.0))
    check_row(rep, "Liao et al. 2024, Theorem 3 (constant rate)", exp, Mp)
    assert rep.row("Liao et al. 2024, Theorem 3 (constant rate)")["inputs"]["radius"] <= 3.0
    check_curves(rep)
    # Corollary 1
    learner = okl.AVP(KERNEL, eps=0.7, setting="corollary1")
    tr, m, Mp, N = _margins(learner, 0.7)
    rep = bounds_report(learner, X0, Y0, U=[0.5, 4.0])
    exp = min(tah.avp_corollary1_bound(hinge(r).loss, hinge(r).norm, 0.7, N) for r in (0.5, 4.0))
    check_row(rep, "Liao et al. 2024, Corollary 1", exp, Mp)
    assert curve_end(rep, "Corollary 1") == pytest.approx(exp, rel=REL)
    check_curves(rep)
    # Corollary 2: lambda_t from the count of M'_T rounds up to t (included)
    learner = okl.AVP(KERNEL, U=2.0, eps=0.75, setting="corollary2")
    tr, m, Mp, N = _margins(learner, 0.75)
    in_N = (m > 0) & (m < 0.25)
    lam = np.array([2.0 / math.sqrt(4.0 + k) for k in np.cumsum(m <= 0)])
    delta = float(np.sum(lam[in_N] / 2 - 0.75))
    assert delta == pytest.approx(tah.avp_corollary2_delta(lam[in_N], np.full(N, 0.75)))
    rep = bounds_report(learner, X0, Y0)
    exp = min(tah.avp_corollary2_bound(hinge(r).loss, 2.0, delta) for r in (1.0, 2.0))
    check_row(rep, "Liao et al. 2024, Corollary 2", exp, Mp)
    assert curve_end(rep, "Corollary 2") == pytest.approx(exp, rel=REL)
    check_curves(rep)
    # (5) violated: lam / 2 >= eps
    rep = bounds_report(okl.AVP(KERNEL, lam=1.5, eps=0.5), X0, Y0)
    check_na(rep, "Liao et al. 2024, Theorem 3 (constant rate)", "(5)")


# -- Ahpatron --------------------------------------------------------------------------------

def test_ahpatron_lemma1_theorem4():
    p = tah.ahpatron_theorem4_parameters(50, 0.25 * math.sqrt(50) / 4)
    eps = 0.5 * (p.eps_low + p.eps_high)
    learner = okl.Ahpatron(KERNEL, B=50, U=p.U, lam=p.lam, eps=eps, c=p.c)
    tr, m, Mp, N = _margins(learner, eps)
    e = tr.extras
    assert e["removals"] > 0
    rep = bounds_report(learner, X0, Y0)
    check_row(rep, "Liao et al. 2024, Lemma 1",
              tah.ahpatron_lemma1_bound(Mp + N, 50), e["removals"])
    rs = [r for r in DEFAULT_RADII if r < p.U] + [p.U]
    exp = min(tah.ahpatron_theorem4_bound(hinge(r).loss, hinge(r).norm, N, 50, p.U, eps).bound
              for r in rs)
    check_row(rep, "Liao et al. 2024, Theorem 4", exp, Mp)
    assert curve_end(rep, "Theorem 4") == pytest.approx(exp, rel=REL)
    check_curves(rep)
    check_na(rep, "Liao et al. 2024, Theorem 6 (reconstructed safe form)", "c_t")
    check_na(rep, "Liao et al. 2024, Theorem 5", "U >= 1")


def test_ahpatron_theorem6():
    B, U, eps = 16, 0.5, 0.9
    learner = okl.Ahpatron(KERNEL, B=B, U=U, eps=eps)         # lam = U / (2 sqrt B), c = None
    tr, m, Mp, N = _margins(learner, eps)
    e = tr.extras
    zeta = max(tah.ahpatron_zeta(e["distances"], U), 1e-12)
    assert e["removals"] > 0 and zeta <= 0.5
    rep = bounds_report(learner, X0, Y0)
    lam = U / (2 * math.sqrt(B))
    gammas = [g / 20 for g in range(1, 20)
              if not tah.ahpatron_theorem6_conditions(B, U, lam, eps, zeta, g / 20)]
    assert gammas
    for form, src in (("safe", "reconstructed safe"), ("paper", "printed")):
        exp = min(tah.ahpatron_theorem6_bound(hinge(r).loss, hinge(r).norm, N, B, U, zeta, g,
                                              eps, form=form).bound
                  for r in (U,) for g in gammas)
        check_row(rep, f"Liao et al. 2024, Theorem 6 ({src} form)", exp, Mp)
    check_na(rep, "Liao et al. 2024, Theorem 4", "Theorem 6's setting")
    check_na(rep, "Liao et al. 2024, Theorem 5", "U >= 1")


def test_forgetron_eq1():
    learner = okl.Forgetron(KERNEL, B=84)
    tr = clone(learner).run(X0, Y0)
    R = tah.forgetron_radius(84)
    rep = bounds_report(learner, X0, Y0)
    exp = min(tah.forgetron_mistake_bound(hinge(r).loss, hinge(r).norm, 84) for r in (1.0, R))
    check_row(rep, "Liao et al. 2024, eq. (1) (Forgetron, as quoted)", exp, tr.n_mistakes)
    check_curves(rep)


# -- NORMA -----------------------------------------------------------------------------------

@pytest.mark.parametrize("eta,lam,rho", [(0.5, 0.01, 1.0), (1.0, 0.0, 0.0)])
def test_norma_theorems_2_and_3(eta, lam, rho):
    learner = okl.NORMA(KERNEL, eta=eta, lam=lam, rho=rho)
    tr = clone(learner).run(X0, Y0)
    margin_errors = int(np.sum(Y0 * tr.scores <= rho))
    assert margin_errors == tr.extras["n_updates"]
    rep = bounds_report(learner, X0, Y0, U=[1.0, 4.0])
    ep = eta / (1 - eta * lam)
    mu0 = rho + ep / 2                                     # X^2 = 1
    for fn, src, measured, factors in (
            (tn.margin_error_bound_general, "Theorem 2 via (45)-(46)", margin_errors,
             [1.25, 1.5, 2, 3, 4, 8]),
            (tn.mistake_bound_general, "Theorem 3 via (46)-(48)", tr.n_mistakes,
             ([1.0] if rho > 0 else []) + [1.25, 1.5, 2, 3, 4, 8])):
        best = math.inf
        for r in (1.0, 4.0):
            for f in factors:
                mu = f * mu0
                K = tn.soft_margin_comparator_loss(KREF, Y0, mu * r, mu).loss
                best = min(best, fn(K, mu * r, 0.0, 0.0, T, 1.0, mu, rho, ep, lam))
        row = check_row(rep, f"Kivinen, Smola & Williamson 2004, {src}", best, measured)
        assert row["holds"] and row["bound"] < T
        assert curve_end(rep, src) == pytest.approx(best, rel=REL)
    check_curves(rep)


def test_norma_outside_the_theorems():
    rep = bounds_report(okl.NORMA(KERNEL, schedule="sqrt", lam=0.1, eta=1.0), X0, Y0)
    check_na(rep, "Kivinen, Smola & Williamson 2004, Theorem 3 via (46)-(48)", "constant rate")
    rep = bounds_report(okl.NORMA(KERNEL, tau=20), X0, Y0)
    check_na(rep, "Kivinen, Smola & Williamson 2004, Theorem 2 via (45)-(46)", "untruncated")


# -- POMD / POMDR ----------------------------------------------------------------------------

def test_pomd_theorem1_theorem2_lemma4():
    U, M = 2.0, 5
    learner = okl.POMD(KERNEL, U=U, M=M, zeta=1.0)
    tr = clone(learner).run(X0, Y0)
    rep = bounds_report(learner, X0, Y0)
    size = int(tr.budget.max())
    ev = np.sort(np.linalg.eigvalsh(KREF))[::-1]
    C = tp.theorem1_constant(T, 1.0, 1.0, 1.0)
    assert C == 1.0
    check_row(rep, "Li & Liao 2023, proof of Theorem 1 (interlacing)",
              tp.ald_budget_spectral_bound(ev, tp.ald_threshold(T, 1.0, 1.0), 1.0), size)
    env = fit_exponential_decay(eigenvalues=ev)
    check_row(rep, "Li & Liao 2023, Theorem 1 (exponential decay fit)",
              tp.theorem1_exponential_bound(T, 1.0, 1.0, env.R0, env.r, C), size)
    env = fit_polynomial_decay(eigenvalues=ev)
    check_row(rep, "Li & Liao 2023, Theorem 1 (polynomial decay fit)",
              tp.theorem1_polynomial_bound(T, 1.0, 1.0, env.R0, env.p, C), size)
    active = tr.losses > 0
    sd = tp.sum_delta(KREF, Y0, M, active)
    A = kernel_alignment(KREF, Y0)
    check_row(rep, "Li & Liao 2023, Lemma 4", tp.lemma4_bound(A, 1.0), sd)
    comp = hinge(U)
    regret = tr.losses.sum() - comp.lower_bound
    row = check_row(rep, "Li & Liao 2023, Theorem 2", tp.theorem2_bound(U, sd), regret)
    assert row["holds"]
    check_row(rep, "Li & Liao 2023, Corollary 1", tp.corollary1_bound(U, A, 1.0), regret)
    (budget,) = [c for c in rep.curves if c["kind"] == "budget"]
    assert np.array_equal(budget["measured"]["|S_t|"], tr.budget)
    check_empirical(rep, tr)


def test_pomdr_budgeted_and_not_applicable():
    U, M, B = 2.0, 3, 40
    learner = okl.POMDR(KERNEL, U=U, M=M, zeta=1.0, B=B, B0=10)
    tr = clone(learner).run(X0, Y0)
    assert tr.extras["omdr"] and tr.extras["halvings"] > 0
    rep = bounds_report(learner, X0, Y0)
    sd = tp.sum_delta(KREF, Y0, M, tr.losses > 0)
    regret = tr.losses.sum() - hinge(U).lower_bound
    check_row(rep, "Li & Liao 2023, Theorem 2", tp.theorem2_bound(U, sd, T=T, B=B), regret)
    check_row(rep, "Li & Liao 2023, Corollary 1",
              tp.corollary1_bound(U, kernel_alignment(KREF, Y0), 1.0, T=T, B=B), regret)
    check_na(rep, "Li & Liao 2023, Theorem 1 (exponential decay fit)", "OMDR")
    # zeta = 1/2 (the default) and the experiments' ald_scale: outside Theorem 2
    rep = bounds_report(okl.POMDR(KERNEL, U=U, B=B, B0=10, ald_scale=10.0), X0, Y0)
    check_na(rep, "Li & Liao 2023, Theorem 2", "zeta = 1")
    assert "ald_scale" in rep.row("Li & Liao 2023, Theorem 2")["note"]
    check_row(rep, "Li & Liao 2023, Lemma 4", tp.lemma4_bound(kernel_alignment(KREF, Y0), 1.0))


# -- Kernel-AWV and PKAWV --------------------------------------------------------------------

def _awv_regret(learner, X, y, K, lam):
    tr = clone(learner).run(X, y)
    comp = kernel_ridge_comparator(K, y, lam)
    return tr, float(np.sum((y - tr.scores) ** 2) - comp.loss), comp


def test_kernel_awv_propositions():
    lam = 2.0
    learner = okl.KernelAWV(KERNEL, lam=lam, task="classification")
    tr, regret, comp = _awv_regret(learner, X0, Y0, KREF, lam)
    rep = bounds_report(learner, X0, Y0)
    p1 = tawv.proposition1_bound(lam, comp.norm2, 1.0, KREF)
    check_row(rep, "Jezequel, Gaillard & Rudi 2019, Proposition 1", p1, regret)
    check_row(rep, "Jezequel, Gaillard & Rudi 2019, Proposition 2 (in Proposition 1)",
              lam * comp.norm2 + tawv.proposition2_bound(KREF, lam, 1.0), regret)
    assert curve_end(rep, "Proposition 1") == pytest.approx(p1, rel=1e-9)
    check_curves(rep)
    rep = bounds_report(okl.KernelAWV(KERNEL, forecaster="krr"), X0, Y0)
    check_na(rep, "Jezequel, Gaillard & Rudi 2019, Proposition 1", "krr")


def test_pkawv_taylor_theorems_3_and_4():
    rng = np.random.default_rng(3)
    n, lam, sigma = 150, 4.0, 1.0
    X = rng.uniform(-0.5, 0.5, size=(n, 2))
    y = np.clip(np.sin(3 * X[:, 0]) + 0.3 * rng.normal(size=n), -1, 1)
    R = float(np.max(np.linalg.norm(X, axis=1)))
    K = ref_gram(okl.Gaussian(sigma), X, X)
    learner = PKAWV(okl.Gaussian(sigma), basis="taylor", M=None, n=n, R=R, lam=lam)
    tr, regret, comp = _awv_regret(learner, X, y, K, lam)
    B = float(np.max(np.abs(y)))
    rep = bounds_report(learner, X, y)
    logdet = log_det_term(K, lam)
    mu = tawv.taylor_mu(X, sigma=sigma, M=learner.degree, K=K)
    check_row(rep, "Jezequel, Gaillard & Rudi 2019, Theorem 3",
              tawv.theorem3_bound(lam, comp.norm2, B, logdet, mu, n), regret)
    t4 = tawv.theorem4_bound(lam, comp.norm2, B, logdet)
    row = check_row(rep, "Jezequel, Gaillard & Rudi 2019, Theorem 4", t4, regret)
    assert row["holds"] and row["ratio"] > 0.3
    assert curve_end(rep, "Theorem 4") == pytest.approx(t4, rel=1e-9)
    check_curves(rep)
    rep = bounds_report(PKAWV(okl.Gaussian(sigma), basis="taylor", M=1, lam=lam), X, y)
    check_na(rep, "Jezequel, Gaillard & Rudi 2019, Theorem 4", "M >=")


def test_pkawv_nystrom_theorems_9_and_6():
    n, lam = 120, 1.0
    X, y = X0[:n] / 2.5, Y0[:n]
    K = ref_gram(okl.Gaussian(1.0), X, X)
    learner = PKAWV(okl.Gaussian(1.0), basis="nystrom", lam=lam, mu=0.05, beta=10.0, seed=0)
    tr, regret, comp = _awv_regret(learner, X, y, K, lam)
    rep = bounds_report(learner, X, y)
    rounds = np.asarray(learner.dictionary_rounds)       # the report's learner ran
    dicts = [np.sort(rounds[rounds <= t + 1] - 1) for t in range(n)]
    terms = tawv.theorem9_terms_nested(K, y, lam, dicts)
    check_row(rep, "Jezequel, Gaillard & Rudi 2019, Theorem 9",
              tawv.theorem9_bound(terms, lam, comp.norm2, 1.0), regret)
    assert terms.mu_residual_max <= lam
    check_row(rep, "Jezequel, Gaillard & Rudi 2019, Theorem 6",
              tawv.theorem6_bound(lam, comp.norm2, 1.0, effective_dimension(K, lam), n, 1.0,
                                  len(dicts[-1]), terms.mu_residual_max), regret)


# -- any learner, guards, formatting, CLI ------------------------------------------------------

def test_learner_without_theory_gets_the_empirical_rows(monkeypatch):
    # every okl learner declares a handler now: a learner without one is simulated
    import dataclasses

    monkeypatch.setattr(okl.BOGD, "okl_entry",
                        dataclasses.replace(okl.BOGD.okl_entry, bounds=None))
    learner = okl.BOGD(KERNEL, B=20, seed=3)
    tr = clone(learner).run(X0, Y0)
    rep = bounds_report(learner, X0, Y0)
    assert [r["quantity"] for r in rep.rows] == ["mistakes", "cumulative loss", "final budget",
                                                 "max budget"]
    assert all(r["source"] == NO_BOUND for r in rep.rows)
    check_empirical(rep, tr)
    assert rep.all_hold is None and rep.curves == []
    assert "no theory for BOGD" in format_report(rep)
    # a regressor: no mistakes row
    Xr = X0[:50]
    yr = np.sin(Xr[:, 0])
    rep = bounds_report(okl.NORMA(KERNEL, loss="squared"), Xr, yr)
    assert "mistakes" not in [r["quantity"] for r in rep.rows]
    check_na(rep, "Kivinen, Smola & Williamson 2004, Theorem 3 via (46)-(48)", "soft margin")


def test_guards():
    import pickle

    learner = okl.Perceptron(KERNEL)
    with pytest.raises(ValueError, match=r"T = 50 .*max_rounds = 40.*prefix") as info:
        bounds_report(learner, X0[:50], Y0[:50], max_rounds=40)
    assert learner.n_rounds == 0                     # refused before running
    exc = info.value                                 # the fields the okl command words from
    assert isinstance(exc, bmod.TooManyRoundsError) and (exc.T, exc.max_rounds) == (50, 40)
    text = ("the stream has T = 50 rounds, more than max_rounds = 40: the comparators and "
            "the Gram spectrum cost O(T^3); {}")
    assert str(exc) == text.format("pass a prefix (X[:40], y[:40]) or raise max_rounds")
    assert exc.message(advice="ADVICE") == text.format("ADVICE")
    assert str(pickle.loads(pickle.dumps(exc))) == str(exc)
    big = np.zeros((bmod.MAX_ROUNDS + 1, 2))
    with pytest.raises(ValueError, match="raise max_rounds"):
        bounds_report(learner, big, np.ones(bmod.MAX_ROUNDS + 1))
    learner.run(X0[:10], Y0[:10])
    with pytest.raises(ValueError, match="fresh learner"):
        bounds_report(learner, X0, Y0)
    for U in (0.0, -1.0, [1.0, math.inf], math.nan):
        with pytest.raises(ValueError, match="U must be"):
            bounds_report(okl.Perceptron(KERNEL), X0, Y0, U=U)
    with pytest.raises(ValueError, match="labels"):
        bounds_report(okl.Perceptron(KERNEL), X0, np.arange(T, dtype=float))


def test_holds_false_and_formatting():
    row = breport.row("q", 5, 4.0, "src")
    assert row["holds"] is False and row["ratio"] == 1.25
    assert breport.row("q", 4, 4.0, "src")["holds"] is True
    rep = bounds_report(okl.POMDR(KERNEL, U=2.0, B=40, B0=10), X0, Y0)
    text = format_report(rep)
    for r in rep.rows:
        assert r["source"] in text
    assert "not applicable" in text and "A_T" in text


def test_every_learner_declares_its_handler():
    """Each learner's declaration (okl.registry) names its handler as an
    "okl.experiments.bounds.<paper>:<function>" string: a public function of that paper's
    handler module with the one signature; a learner is handled by the first class of its
    MRO that declares one."""
    import dataclasses
    import importlib
    import inspect

    papers = {"norma", "ahpatron", "pomdr", "awv", "selection", "multiclass", "bsgd"}
    for name, entry in okl.learners.entries().items():
        if not entry.cls.__module__.startswith("okl."):
            continue
        spec = entry.bounds
        assert spec is not None, f"{name} declares no bounds handler"
        module, _, fn = spec.partition(":")
        assert module.rsplit(".", 1)[0] == "okl.experiments.bounds", spec
        assert module.rsplit(".", 1)[1] in papers, spec
        handler = getattr(importlib.import_module(module), fn)
        assert not fn.startswith("_") and fn in importlib.import_module(module).__all__
        params = inspect.signature(handler).parameters
        assert list(params) == ["s", "learner", "tr", "radii", "rows", "curves", "delta"]
        assert params["delta"].kind is inspect.Parameter.KEYWORD_ONLY
        assert bmod.handler_for(entry.build())[1] == name
    handler, name = bmod.handler_for(okl.BOKS([KERNEL, KERNEL], B=20))
    assert name == "BOKS" and handler is importlib.import_module(
        "okl.experiments.bounds.selection").oks
    broken = dataclasses.replace(okl.BOGD.okl_entry, bounds="okl.experiments.bounds.norma.norma")
    with pytest.raises(ValueError, match="module:function"):
        broken.bounds_handler()


def test_report_layer_imports_no_handler():
    """report.py is the lower layer: it imports no handler module and not the package."""
    import ast
    import pathlib

    tree = ast.parse(pathlib.Path(breport.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m.startswith("okl.experiments.bounds") for m in imported), imported


def _args(tmp_path, **kw):
    """``okl bounds`` parsed by okl's own parser (the CLI reads the arguments; the
    library's ``command`` takes values)."""
    from okl import cli

    ns = dict(learner="POMD", param=["U=2.0", "zeta=1.0", "M=5"], kernel="gaussian",
              sigma=SIGMA, data="xor", rounds=150, features=3, seed=0,
              plot=str(tmp_path / "fig" / "pomd"), json=str(tmp_path / "r.json"))
    ns.update(kw)
    argv = ["bounds"]
    for key, value in ns.items():
        if value is None:
            continue
        option = "--" + key.replace("_", "-")
        if key == "param":
            for p in value:
                argv += ["-p", p]
        else:
            argv += [option, str(value)]
    return cli._parser().parse_args(argv)


def command(args):
    """``okl bounds`` without main()'s error reporting (a ValueError propagates)."""
    from okl import cli

    return cli._bounds(args)


def test_command_writes_json_and_plots(tmp_path, capsys):
    assert command(_args(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "Li & Liao 2023, Theorem 2" in out and "synthetic xor" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["T"] == 150 and data["name"] == "POMD" and data["all_hold"] is True
    # the JSON's Theorem 2 row equals the theory on the same stream, computed here
    from okl.datasets import xor_stream

    X, y = xor_stream(150, 3, seed=0)
    K = ref_gram(KERNEL, X, X)
    tr = okl.POMD(KERNEL, U=2.0, zeta=1.0, M=5, seed=0).run(X, y)
    (row,) = [r for r in data["rows"] if r["source"] == "Li & Liao 2023, Theorem 2"]
    assert row["bound"] == pytest.approx(
        tp.theorem2_bound(2.0, tp.sum_delta(K, y, 5, tr.losses > 0)), rel=REL)
    assert row["measured"] == pytest.approx(
        tr.losses.sum() - best_hinge_in_ball(K, y, 2.0).lower_bound, rel=REL)
    assert {c["kind"] for c in data["curves"]} == {"budget", "regret"}
    for ext in ("png", "svg"):
        assert (tmp_path / "fig" / f"pomd.{ext}").stat().st_size > 0
    # prefix and radii options; a learner without curves still gets a figure
    assert command(_args(tmp_path, learner="Perceptron", param=[], prefix=60, U="1,3",
                         plot=str(tmp_path / "p"), json=None)) == 0
    out = capsys.readouterr().out
    assert "first 60 rounds" in out and "Theorem 1" in out
    assert command(_args(tmp_path, learner="FOGD", param=["D=20"], plot=str(tmp_path / "f"),
                         json=None)) == 0
    assert (tmp_path / "f.png").stat().st_size > 0
    with pytest.raises(ValueError, match="takes no parameter"):
        command(_args(tmp_path, param=["bogus=1"]))


def test_plot_report_panels(tmp_path):
    rep = bounds_report(okl.Ahpatron(KERNEL, B=50, U=1.0, lam=math.sqrt(2) / math.sqrt(50),
                                     eps=0.9, c=0.6), X0, Y0)
    # Theorem 5: the kernel alignment dominates min_{||f|| <= U} L_T(f) (U >= 1, k(x,x) = 1)
    check_row(rep, "Liao et al. 2024, Theorem 5", kernel_alignment(KREF, Y0), hinge(1.0).loss)
    paths = plot_report(rep, tmp_path / "a")
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert all(p.stat().st_size > 0 for p in paths)


# -- online kernel selection: LKMBooks, PFMBooks, BATBooks (theory.selection) ----------------
# Oracle side: each kernel's Gram matrix from scikit-learn, its best hinge function in each
# ball solved here, the learners' step sizes and rates from the theorems' parameter
# functions of theory.selection (not from the report or the learner), the counts from an
# independent run with the same seed.  The regret bounds are in expectation: the rows'
# `holds` is one draw, and the checks below are on the equality with the theory.

from okl.learners.batbooks import BATBooks  # noqa: E402
from okl.learners.lkmbooks import LKMBooks  # noqa: E402
from okl.learners.pfmbooks import PFMBooks  # noqa: E402
from okl.learners.selection import OMKC  # noqa: E402
from theory import selection as tsel  # noqa: E402
from theory.experts import batbooks_theorem9_eta  # noqa: E402

SEL = "Li & Liao, kernel selection"
KS = [okl.Gaussian(s) for s in (0.75, 1.5, 3.0)]
KREFS = [ref_gram(k, X0, X0) for k in KS]


def _label(i):
    return f"kernel {i} (sigma = {KS[i].sigma:g})"


def _best_sel(i, radii, bound):
    """min over the radii of (comparator loss + bound): (bound, comparator)."""
    cands = [(hinge(r, KREFS[i]), r) for r in radii]
    c, r = min(cands, key=lambda cr: cr[0].loss + bound(cr[0], cr[1]))
    return bound(c, r), c


def test_lkmbooks_theorems_2_and_3():
    B, C, lm, u, delta = 40, 20, 4.0, 1 / 3, 0.1
    learner = LKMBooks(KS, B=B, C=C, l_m=lm, seed=0)
    tr = clone(learner).run(X0, Y0)
    e = tr.extras
    assert e["guard_blocked"] == 0 and e["l_m"] <= lm and e["restarts"] == 0
    rep = bounds_report(learner, X0, Y0, delta=delta)
    row = check_row(rep, f"{SEL}, Theorem 2", tsel.lkmbooks_theorem2_bound(B, delta),
                    e["n_sampled"])
    # slack: 17 sampled rounds against 55.1 (the mean is <= C = 20 here, B = 40)
    assert row["holds"] and row["inputs"]["mean_bound"] <= C
    eta, lam = tsel.lkmbooks_theorem3_parameters(T, 3, B, upsilon=u)
    assert (eta, lam) == pytest.approx((e["eta"], e["lam"]), rel=1e-12)
    loss = tr.losses.sum()
    ratios = []
    for i in range(3):
        b, c = _best_sel(i, DEFAULT_RADII, lambda c, r: tsel.lkmbooks_regret_bound(
            T, 3, C, c.norm, lam, eta, upsilon=u, ell_m=lm, form="corrected"))
        row = check_row(rep, f"{SEL}, Theorem 3 (explicit form), {_label(i)}", b,
                        loss - c.loss)
        assert "expectation" in row["note"]
        ratios.append(row["ratio"])
    # teeth: the tightest kernel is at about 0.43 of its bound (fails if the bound is halved)
    assert all(r_ is not None and r_ <= 1 for r_ in ratios) and max(ratios) > 0.3
    (budget,) = rep.curves
    assert budget["bounds"]["Theorem 2"] == pytest.approx(tsel.lkmbooks_theorem2_bound(B, delta))


def test_lkmbooks_not_applicable():
    # printed z_t at upsilon = 1/3: the probabilities sum to about 2.2 B, not <= B
    learner = LKMBooks(KS, B=40, z_form="printed", seed=0)
    rep = bounds_report(learner, X0, Y0)
    assert np.sum(tsel.addition_probabilities(T, 40, 1 / 3, "2", "printed")) > 40
    check_na(rep, f"{SEL}, Theorem 2", "sum_n min(1, C/z_n) <= B")
    check_na(rep, f"{SEL}, Theorem 3 (explicit form), {_label(0)}", "doubling trick")
    # the guard refused sampled updates (a tiny budget, C = B): the estimator is biased
    learner = LKMBooks(KS, B=3, l_m=4.0, seed=0)
    assert clone(learner).run(X0, Y0).extras["guard_blocked"] > 0
    rep = bounds_report(learner, X0, Y0)
    check_na(rep, f"{SEL}, Theorem 3 (explicit form), {_label(2)}", "hard guard")
    # regression (absolute loss), a non-integer C
    yr = np.sin(X0[:, 0])
    rep = bounds_report(LKMBooks(KS, loss="absolute", B=40, l_m=4.0, seed=0), X0, yr)
    check_na(rep, f"{SEL}, Theorem 3 (explicit form), {_label(1)}", "absolute-loss")
    check_row(rep, f"{SEL}, Theorem 2", tsel.lkmbooks_theorem2_bound(40, 0.05))
    rep = bounds_report(LKMBooks(KS, B=40, C=20.5, l_m=4.0, seed=0), X0, Y0)
    check_na(rep, f"{SEL}, Theorem 3 (explicit form), {_label(0)}", "not an integer")


def test_pfmbooks_theorems_4_and_6():
    B, delta = 40, 0.05
    learner = PFMBooks(KS, B=B, upsilon=0.0, seed=0)
    tr = clone(learner).run(X0, Y0)
    e = tr.extras
    assert e["guard_triggers"] == 0
    rep = bounds_report(learner, X0, Y0)
    # slack: 22 sampled rounds against 32.9 (mean B/2 = 20: fails if the bound is halved)
    row = check_row(rep, f"{SEL}, Theorem 4", tsel.pfmbooks_theorem4_bound(B, delta),
                    e["n_sampled"])
    assert row["holds"] and row["bound"] / 2 < row["measured"]
    par = tsel.pfmbooks_theorem6_parameters(T, B, D=[1.0, 1.0, 1.0], upsilon=0.0)
    M = par.M
    assert np.allclose(par.radii, e["radii"]) and par.eta == pytest.approx(e["eta"])
    scales = np.array([1.0 + par.radii[j] for i in range(3) for j in range(M)])  # Assumption 5
    assert np.allclose(scales, e["scales"])
    expected = float(np.sum(e["expected_criteria"]))
    for i in range(3):
        def bound(c, r, i=i):
            j = int(np.flatnonzero(par.radii == r)[0])
            return tsel.pfmbooks_regret_bound(T, B, min(c.norm, r), r, par.lam[i, j], par.eta,
                                              scales, i * M + j, upsilon=0.0, form="printed")
        b, c = _best_sel(i, tuple(par.radii), bound)
        row = check_row(rep, f"{SEL}, Theorem 6 (explicit form), {_label(i)}", b,
                        expected - c.loss)
        assert row["holds"] and "expectation" in row["note"]


def test_pfmbooks_not_applicable():
    # upsilon = 1/3 with the printed z_t: sum_t P_t = 44.2 > B/2; the guard then refuses
    learner = PFMBooks(KS, B=40, seed=0)
    assert clone(learner).run(X0, Y0).extras["guard_triggers"] > 0
    rep = bounds_report(learner, X0, Y0)
    check_na(rep, f"{SEL}, Theorem 4", "sum_t P_t <= B/2")
    check_na(rep, f"{SEL}, Theorem 6 (explicit form), {_label(0)}", "hard guard")
    # C = 30 < B: Theorem 4's premise holds (sum P_t = 15 <= 20), Theorem 6's P_t do not
    rep = bounds_report(PFMBooks(KS, B=40, C=30.0, upsilon=0.0, seed=0), X0, Y0)
    check_row(rep, f"{SEL}, Theorem 4", tsel.pfmbooks_theorem4_bound(40, 0.05))
    check_na(rep, f"{SEL}, Theorem 6 (explicit form), {_label(1)}", "C = 30")
    rep = bounds_report(PFMBooks(KS, B=40, upsilon=0.0, g="experiments", seed=0), X0, Y0)
    check_na(rep, f"{SEL}, Theorem 6 (explicit form), {_label(2)}", "Assumption 5")


def test_batbooks_theorems_8_and_10():
    B, K, delta = 200, 3, 0.05
    U = math.sqrt(B)
    ell = 1.0 + U                          # bounds every hinge loss in the ball (D = 1)
    learner = BATBooks(KS, B=B, upsilon=0.0, ell_max=ell, seed=0)
    tr = clone(learner).run(X0, Y0)
    e = tr.extras
    assert e["n_full"] == 0
    rho, J = np.asarray(e["rho"]), np.asarray(e["explored"])
    counts = [int(np.sum((rho >= 1) & (J == i))) for i in range(K)]
    rep = bounds_report(learner, X0, Y0)
    row = check_row(rep, f"{SEL}, Theorem 8", tsel.batbooks_theorem8_bound(B, K, delta),
                    max(counts))
    assert row["holds"] and row["inputs"]["counts"] == counts
    cond = tsel.batbooks_condition12(T, B, K, 0.0, form="corrected")
    assert not cond                                   # 2 T < K B: Theorem 10's second case
    lam = tsel.batbooks_theorem10_lambda(T, K, B, D=1.0, upsilon=0.0, condition=cond)
    eta = batbooks_theorem9_eta(K, T)                 # C~ replaced by T (the learner's rule)
    assert np.allclose(e["lam"], lam) and np.allclose(e["eta"], eta)
    loss = tr.losses.sum()
    radii = [r for r in DEFAULT_RADII if r < U] + [U]
    for i in range(K):
        b, c = _best_sel(i, radii, lambda c, r: tsel.batbooks_regret_bound(
            T, K, B, min(c.norm, U), U, lam, eta, T * ell, ell, upsilon=0.0, form="corrected"))
        row = check_row(rep, f"{SEL}, Theorem 10 (explicit form), {_label(i)}", b,
                        loss - c.loss)
        # slack: ratios 0.07-0.12 (the worst-case bandit term T ell_m dominates)
        assert row["holds"] and row["ratio"] > 0.05


def test_batbooks_not_applicable():
    # ell_max = 1 (the experiments') does not bound the losses in the ball of radius sqrt(B)
    rep = bounds_report(BATBooks(KS, B=40, seed=0), X0, Y0)
    check_na(rep, f"{SEL}, Theorem 10 (explicit form), {_label(0)}", "ell_max = 1.0 < 1 + U")
    # printed z_t at upsilon = 1/3: E|S_i| about 2.1 (B/2)
    rep = bounds_report(BATBooks(KS, B=40, upsilon=1 / 3, z_form="printed", seed=0), X0, Y0)
    assert np.sum(tsel.addition_probabilities(T, 40, 1 / 3, "8", "printed", K=3)) > 20
    check_na(rep, f"{SEL}, Theorem 8", "sum_t (1/K) min(1, KB/z_t) <= B/2")
    # eta by the doubling trick; full buffers (B = 10: capacity 5, E count = 5)
    rep = bounds_report(BATBooks(KS, B=200, upsilon=0.0, ell_max=16.0, eta="doubling",
                                 seed=0), X0, Y0)
    check_na(rep, f"{SEL}, Theorem 10 (explicit form), {_label(1)}", "varies")
    learner = BATBooks(KS, B=10, upsilon=0.0, ell_max=10.0, seed=0)
    e = clone(learner).run(X0, Y0).extras
    assert e["n_full"] > 0
    # Theorem 8 counts the draws rho = 1, the refused ones included (the unguarded |S_i|)
    rho, J = np.asarray(e["rho"]), np.asarray(e["explored"])
    counts = [int(np.sum(((rho == 1) | (rho == 2)) & (J == i))) for i in range(3)]
    assert max(counts) > max(e["sizes"])
    rep = bounds_report(learner, X0, Y0)
    check_row(rep, f"{SEL}, Theorem 8", tsel.batbooks_theorem8_bound(10, 3, 0.05), max(counts))
    check_na(rep, f"{SEL}, Theorem 10 (explicit form), {_label(2)}", "hard guard")


def test_selection_eta_zero_is_not_applicable():
    for learner in (LKMBooks(KS, B=40, C=20, l_m=4.0, eta=0.0, seed=0),
                    PFMBooks(KS, B=40, upsilon=0.0, eta=0.0, seed=0),
                    BATBooks(KS, B=200, upsilon=0.0, eta=0.0, ell_max=16.0, seed=0)):
        rep = bounds_report(learner, X0, Y0)
        (src,) = [r["source"] for r in rep.rows
                  if "explicit form" in r["source"] and r["source"].endswith(_label(0))]
        check_na(rep, src, "eta = 0")


def test_omkc_rows_against_a_replay():
    """OMKC now has a bound (issue 19): the weighted-majority rows equal
    theory.selection_baselines.omkc_mistake_bound at the kernels' own mistake counts,
    counted here on a replay through the public API."""
    from theory.selection_baselines import omkc_mistake_bound

    learner = OMKC(KS, B=30, beta=0.7, seed=0)
    tr = clone(learner).run(X0, Y0)
    twin = clone(learner)
    F = []
    for t in range(T):
        twin.decision_function(X0[t:t + 1])
        F.append(twin.kernel_scores())
        twin.learn_one(X0[t], Y0[t])
    Mi = np.sum(Y0[:, None] * np.array(F) <= 0, axis=0)
    rep = bounds_report(learner, X0, Y0)
    for form in ("exact", "relaxed"):
        r = rep.row(f"Hoi, Jin, Zhao & Yang 2013, OMKC_(D,D): weighted majority "
                    f"(theory.selection_baselines), {form} form")
        assert r["measured"] == int(np.sum(Y0 * tr.scores <= 0)) >= tr.n_mistakes
        assert r["bound"] == pytest.approx(omkc_mistake_bound(Mi, 0.7, form=form))
        assert r["holds"] and r["kind"] == "deterministic"
    check_empirical(rep, tr)


def test_delta_is_validated():
    for bad in (0.0, 1.0, -0.1, math.nan):
        with pytest.raises(ValueError, match="delta"):
            bounds_report(LKMBooks(KS, B=40, seed=0), X0, Y0, delta=bad)


def test_pfmbooks_budget_row_holds_where_theorem4_does_not_apply():
    """PFMBooks' memory bound holds on every run (the hard guard refuses a sampled update
    at B), also where Theorem 4's premise sum P_t <= B/2 fails and no other row applies."""
    learner = okl.PFMBooks(kernels=[okl.Gaussian(0.5), okl.Gaussian(2.0)], B=20, T=400,
                           seed=0)
    X, y = xor_stream(400, 3, seed=8)
    rep = bounds_report(learner, X, y)
    budget = [r for r in rep.rows if r["quantity"] == "max budget |S_t|"][0]
    assert budget["holds"] and budget["bound"] == 20
    assert budget["measured"] == int(rep.trace.budget.max()) <= 20
    assert rep.trace.extras["guard_triggers"] > 0      # the guard did the work here
    assert rep.all_hold
