"""okl bounds for the native multiclass learners (okl/experiments/bounds/multiclass.py).

Each row is held to three things: it holds (measured <= bound); it is not vacuous where the
stream lets it be checked (a ratio floor, and a mistake bound below the number of rounds);
and its bound is the one ``theory.multiclass`` gives when called directly on the same
quantities (the comparator re-fitted here with ``multiclass_comparator`` at the row's ``C``,
scaled to the row's ``||U||`` for the Projectron).  The measured side is checked against the
plain-numpy oracles of ``tests/oracles/multiclass_reference.py``.

Streams: ``blobs`` (three noisy Gaussian clouds, Gaussian kernel, k(x, x) = 1), ``sectors``
(separable through the origin, linear kernel: Theorem 1 applies and k(x, x) varies), and
``line`` (points on a line, where the per-class support bound is below T).
"""
import math

import numpy as np
import pytest

import okl
from okl.experiments.bounds import bounds_report, format_report, handler_for
from okl.experiments.bounds import multiclass as mcb
from okl.experiments.bounds import report as rp
from okl.learners.multiclass import MulticlassPA, MulticlassPerceptron
from okl.learners.multiclass_projectron import MulticlassProjectron, MulticlassProjectronPP
from theory import multiclass as mc

try:
    from oracles import multiclass_reference as ref
except ImportError:                                   # run from another root
    from tests.oracles import multiclass_reference as ref

RTOL = 1e-9          # the handler fits under one BLAS thread, the test may not


_blobs, _sectors = ref.blobs_stream, ref.sectors_stream


class Data:
    """A stream, its okl and oracle kernels, and one report Stream shared by its reports
    (the comparators are fitted once per C)."""

    def __init__(self, X, y, kernel, oracle_kernel):
        self.X, self.y, self.kernel, self.oracle_kernel = X, y, kernel, oracle_kernel
        self.T = len(y)
        self.gram = oracle_kernel(X, X)
        self.s = rp.Stream(X, np.asarray(y), kernel)

    def report(self, learner):
        rep = bounds_report(learner, self.X, self.y, stream=self.s)
        print("\n" + format_report(rep))
        return rep

    def comparator(self, C):
        return mc.multiclass_comparator(self.gram, self.y, 3, C=C)


@pytest.fixture(scope="module")
def blobs():
    X, y = _blobs()
    return Data(X, y, okl.Gaussian(1.0), ref.gaussian_kernel(1.0))


@pytest.fixture(scope="module")
def sectors():
    X, y = _sectors()
    return Data(X, y, okl.Linear(), ref.linear_kernel)


def rows_of(rep, source_part):
    out = [r for r in rep.rows if source_part in r["source"]]
    assert out, f"no row whose source names {source_part!r}: {[r['source'] for r in rep.rows]}"
    return out


def check(r, floor, T=None):
    """The row holds, and is not vacuous: ratio >= floor (and bound < T)."""
    assert r["bound"] is not None, r["note"]
    assert r["holds"] and r["measured"] <= r["bound"] * (1 + 1e-12), r
    assert r["ratio"] >= floor, f"{r['source']}: ratio {r['ratio']:.3g} < {floor}"
    if T is not None:
        assert r["bound"] < T, f"{r['source']}: bound {r['bound']:.4g} >= T = {T}"


# -- Crammer & Singer ----------------------------------------------------------------------------

@pytest.mark.parametrize("update", ["max", "uniform", "proportional"])
def test_perceptron_rows_on_blobs(blobs, update):
    rep = blobs.report(MulticlassPerceptron(blobs.kernel, update=update))
    run = ref.crammer_singer_perceptron(blobs.X, blobs.y, blobs.oracle_kernel, update=update)
    kap = float(np.diag(blobs.gram).max())
    thm2 = rows_of(rep, "Theorem 2 (non-separable")[0]
    hinge = rows_of(rep, "hinge form")[0]
    fam = rows_of(rep, "family: hinge-loss bound")[0]
    for r in (thm2, hinge, fam):
        assert r["measured"] == run.n_errors            # the update rounds, the oracle's
    check(thm2, 0.1, blobs.T)
    check(hinge, 0.1, blobs.T)
    check(fam, 0.4, blobs.T)
    # no fitted comparator separates the noisy stream: Theorem 1 says so
    t1 = rows_of(rep, "Theorem 1")[0]
    assert t1["bound"] is None and "separates" in t1["note"]
    # theory.multiclass on the same quantities
    c = blobs.comparator(thm2["inputs"]["C"])
    assert thm2["inputs"]["U_norm"] == pytest.approx(c.norm, rel=RTOL)
    assert thm2["bound"] == pytest.approx(
        mc.crammer_singer_comparator_bound(kap, c.margins, c.norm), rel=RTOL)
    c = blobs.comparator(hinge["inputs"]["C"])
    assert hinge["bound"] == pytest.approx(mc.crammer_singer_hinge_form(kap, c.norm, c.sq_loss),
                                           rel=RTOL)
    c = blobs.comparator(fam["inputs"]["C"])
    L = float(c.hinge[run.error].sum())
    assert fam["inputs"]["L"] == pytest.approx(L, rel=RTOL)
    assert fam["bound"] == pytest.approx(mc.ultraconservative_hinge_bound(kap, c.norm, L),
                                         rel=RTOL)
    # the smallest bound over the family of comparators
    assert fam["bound"] == pytest.approx(min(
        mc.ultraconservative_hinge_bound(kap, cc.norm, float(cc.hinge[run.error].sum()))
        for cc in map(blobs.comparator, mcb.COMPARATOR_CS)), rel=RTOL)
    assert rep.all_hold
    assert [cv["title"] for cv in rep.curves] == [f"MulticlassPerceptron: {fam['source']}"]
    cv = rep.curves[0]
    assert np.all(cv["measured"]["updates"] <= list(cv["bounds"].values())[0] * (1 + 1e-12))


def test_perceptron_theorem1_on_a_separable_stream(sectors):
    rep = sectors.report(MulticlassPerceptron(sectors.kernel))
    run = ref.crammer_singer_perceptron(sectors.X, sectors.y, sectors.oracle_kernel)
    t1 = rows_of(rep, "Theorem 1 (separable)")[0]
    assert t1["measured"] == run.n_errors
    check(t1, 0.01, sectors.T)
    c = sectors.comparator(t1["inputs"]["C"])
    assert c.gamma > 0 and t1["inputs"]["gamma"] == pytest.approx(c.gamma, rel=RTOL)
    R = math.sqrt(float(np.diag(sectors.gram).max()))
    assert t1["bound"] == pytest.approx(mc.crammer_singer_mistake_bound(R, c.gamma), rel=RTOL)
    # Theorem 1 at the best separating comparator of the family
    best = min(mc.crammer_singer_mistake_bound(R, cc.gamma)
               for cc in map(sectors.comparator, mcb.COMPARATOR_CS) if cc.gamma > 0)
    assert t1["bound"] == pytest.approx(best, rel=RTOL)
    assert rep.all_hold


def test_perceptron_libol_convention(blobs):
    rep = blobs.report(MulticlassPerceptron(blobs.kernel, convention="libol"))
    lib = ref.crammer_singer_perceptron(blobs.X, blobs.y, blobs.oracle_kernel,
                                        convention="libol")
    fam = rows_of(rep, "family: hinge-loss bound")[0]
    assert fam["measured"] == lib.n_mistakes == rep.trace.n_mistakes
    check(fam, 0.4, blobs.T)
    # uniform: the first round is a mistake made by a tie (every score 0), whose strict E is
    # empty: outside the family, so no row applies
    rep = blobs.report(MulticlassPerceptron(blobs.kernel, update="uniform", convention="libol"))
    for r in rows_of(rep, mcb.CS03):
        assert r["bound"] is None and "tie" in r["note"], r


# -- passive-aggressive ----------------------------------------------------------------------

PA_CASES = [("pa", 1.0, 0.2), ("pa1", 0.1, 0.05), ("pa1", 0.5, 0.05), ("pa2", 0.1, 0.3),
            ("pa2", 2.0, 0.15)]


@pytest.mark.parametrize("rule", ["max-loss", "prediction-based"])
@pytest.mark.parametrize("variant,C,floor", PA_CASES)
def test_pa_rows_on_blobs(blobs, variant, C, floor, rule):
    rep = blobs.report(MulticlassPA(blobs.kernel, variant=variant, C=C, rule=rule))
    run = ref.passive_aggressive(blobs.X, blobs.y, blobs.oracle_kernel, variant=variant, C=C,
                                 rule=rule)
    kap = 1.0
    rows = rows_of(rep, mcb.PA06)
    assert rep.all_hold
    if variant == "pa1":
        (r,) = rows
        assert "Theorem 4" in r["source"]
        assert r["measured"] == int(np.sum(run.update & run.error))
        check(r, floor, blobs.T)
        c = blobs.comparator(r["inputs"]["C"])
        assert r["bound"] == pytest.approx(mc.pa1_mistake_bound(kap, c.norm, c.loss, C), rel=RTOL)
        return
    sq, err = rows
    assert ("Theorem 5" if variant == "pa2" else "Theorem 3") in sq["source"]
    assert sq["measured"] == pytest.approx(float(np.sum(run.loss[run.update] ** 2)), rel=1e-9)
    assert err["measured"] == int(np.sum(run.update & run.error))
    check(sq, floor)
    check(err, 0.05, blobs.T if variant == "pa2" and C <= 0.1 else None)
    c = blobs.comparator(sq["inputs"]["C"])
    want = (mc.pa2_loss_bound(kap, c.norm, c.sq_loss, C) if variant == "pa2"
            else mc.pa_loss_bound(kap, c.norm, c.sq_loss, kappa_min=1.0))
    assert sq["bound"] == pytest.approx(want, rel=RTOL) and err["bound"] == sq["bound"]
    assert want == pytest.approx(mc.pa_multiclass_bound(
        variant, kap, c.norm, sq_loss_sum=c.sq_loss, C=C if variant == "pa2" else None)[0],
        rel=1e-12)


def test_pa_theorem3_with_varying_norms(sectors):
    """Linear kernel, |x| in [0.3, 1]: Theorem 3 with theory's generalized constant."""
    rep = sectors.report(MulticlassPA(sectors.kernel))
    run = ref.pa(sectors.X, sectors.y, sectors.oracle_kernel)
    sq = rows_of(rep, "varying k(x, x)")[0]
    d = np.diag(sectors.gram)
    assert sq["inputs"]["kappa_min"] == pytest.approx(d.min(), rel=1e-12)
    assert sq["measured"] == pytest.approx(float(np.sum(run.loss[run.update] ** 2)), rel=1e-9)
    check(sq, 1e-3)
    c = sectors.comparator(sq["inputs"]["C"])
    assert sq["bound"] == pytest.approx(
        mc.pa_loss_bound(d.max(), c.norm, c.sq_loss, kappa_min=d.min()), rel=RTOL)


# -- Projectron, Projectron++ -----------------------------------------------------------------

def _scaled_comparator(data, r):
    c = data.comparator(r["inputs"]["C"])
    alpha = r["inputs"]["U_norm"] / c.norm
    assert 0 < alpha <= 1 + 1e-12
    return mcb.scaled(c, alpha) if alpha < 1 else c


@pytest.mark.parametrize("span", ["class", "shared"])
@pytest.mark.parametrize("eta", [0.02, 0.05])
def test_projectron_rows_on_blobs(blobs, span, eta):
    kap = 1.0
    rep = blobs.report(MulticlassProjectron(blobs.kernel, eta=eta, span=span))
    run = ref.projectron(blobs.X, blobs.y, blobs.oracle_kernel, eta=eta, span=span)
    tight = rows_of(rep, "(tight form)")[0]
    printed = rows_of(rep, "(printed form)")[0]
    for r, form in ((tight, "tight"), (printed, "paper")):
        assert r["measured"] == run.n_errors
        check(r, 0.4, blobs.T)
        g = _scaled_comparator(blobs, r)
        assert eta * g.norm < 1
        L = float(g.hinge[run.error].sum())
        assert r["inputs"]["L"] == pytest.approx(L, rel=RTOL)
        assert r["bound"] == pytest.approx(
            mc.projectron_mistake_bound(kap, g.norm, eta, L, form=form), rel=RTOL)
    assert tight["bound"] <= printed["bound"]
    sup = rows_of(rep, "the support set")[0]
    assert sup["measured"] == run.n_support
    sb = mc.projectron_support_bound(blobs.gram, eta, span=span, n_classes=3)
    assert sup["bound"] == sb.value and sup["holds"]
    if span == "shared":
        check(sup, 0.1, blobs.T)
    assert rep.all_hold


@pytest.mark.parametrize("span", ["class", "shared"])
def test_projectronpp_rows_on_blobs(blobs, span):
    eta, kap = 0.05, 1.0
    rep = blobs.report(MulticlassProjectronPP(blobs.kernel, eta=eta, span=span))
    run = ref.projectron_pp(blobs.X, blobs.y, blobs.oracle_kernel, eta=eta, span=span)
    (r,) = rows_of(rep, "Projectron++ (potential form")
    assert r["measured"] == run.n_errors
    check(r, 0.25, blobs.T)
    # L over the rounds with margin < 1: a superset of the error and margin-update rounds
    near = run.margin < 1.0
    assert np.all(near[run.update])
    g = _scaled_comparator(blobs, r)
    L = float(g.hinge[near].sum())
    assert r["inputs"]["L"] == pytest.approx(L, rel=RTOL)
    assert r["bound"] == pytest.approx(mc.projectronpp_mistake_bound(kap, g.norm, eta, L),
                                       rel=RTOL)
    assert rep.all_hold


def test_projectron_support_bound_below_T_on_a_line():
    """Points on a line: with per-class spans the support bound (K x the shared count) is
    below T, and holds."""
    X = np.random.default_rng(11).permutation(np.linspace(0, 6, 120))[:, None]
    y = (np.floor(X[:, 0] * 1.3) % 3).astype(int)
    data = Data(X, y, okl.Gaussian(1.0), ref.gaussian_kernel(1.0))
    for span in ("class", "shared"):
        rep = data.report(MulticlassProjectron(data.kernel, eta=0.5, span=span))
        run = ref.projectron(X, y, data.oracle_kernel, eta=0.5, span=span)
        sup = rows_of(rep, "the support set")[0]
        assert sup["measured"] == run.n_support
        check(sup, 0.1, data.T)
        assert sup["bound"] == mc.projectron_support_bound(data.gram, 0.5, span=span,
                                                            n_classes=3).value


def test_projectron_dogma_convention(blobs):
    """DOGMA thresholds each class's squared residual: the rows use eta' = sqrt(2 eta);
    Projectron++ with DOGMA's margin step has no mistake bound."""
    eta = 0.01
    rep = blobs.report(MulticlassProjectron(blobs.kernel, eta=eta, convention="dogma"))
    tight = rows_of(rep, "(tight form)")[0]
    assert tight["inputs"]["eta"] == pytest.approx(math.sqrt(2 * eta))
    check(tight, 0.4, blobs.T)
    g = _scaled_comparator(blobs, tight)
    assert tight["bound"] == pytest.approx(mc.projectron_mistake_bound(
        1.0, g.norm, math.sqrt(2 * eta), tight["inputs"]["L"]), rel=RTOL)
    assert rows_of(rep, "the support set")[0]["holds"]
    rep = blobs.report(MulticlassProjectronPP(blobs.kernel, eta=eta, convention="dogma"))
    (r,) = rows_of(rep, "Projectron++")
    assert r["bound"] is None and "DOGMA" in r["note"]


# -- the stream side -----------------------------------------------------------------------------

def test_handlers_are_declared():
    for learner, fn in ((MulticlassPerceptron(), mcb.perceptron),
                        (MulticlassPA(), mcb.passive_aggressive),
                        (MulticlassProjectron(), mcb.projectron),
                        (MulticlassProjectronPP(), mcb.projectron)):
        handler, name = handler_for(learner)
        assert handler is fn and name == type(learner).__name__


def test_any_labels_and_the_fitted_rows(blobs, monkeypatch):
    """Labels of any kind give the same rows; on more than MC_FIT_ROWS rows the comparator
    is fitted on evenly spaced rows and evaluated exactly on all of them."""
    names = np.array(["ant", "bee", "cat"])
    rep_i = bounds_report(MulticlassPerceptron(blobs.kernel), blobs.X, blobs.y, stream=blobs.s)
    rep_s = bounds_report(MulticlassPerceptron(blobs.kernel), blobs.X, names[blobs.y])
    assert list(rep_s.trace.classes) == list(names)
    for a, b in zip(rep_i.rows, rep_s.rows):
        assert a["source"] == b["source"] and a["measured"] == b["measured"]
        assert a["bound"] == pytest.approx(b["bound"], rel=RTOL) if a["bound"] else True
    monkeypatch.setattr(rp, "MC_FIT_ROWS", 50)
    rep = bounds_report(MulticlassPerceptron(blobs.kernel), blobs.X, blobs.y)
    assert rep.all_hold
    fam = rows_of(rep, "family: hinge-loss bound")[0]
    assert fam["comparator"].startswith("fitted on 50 evenly spaced rows of 200")
    s = rp.Stream(blobs.X, np.asarray(blobs.y), blobs.kernel)
    c = s.mc_comparator(np.arange(3), fam["inputs"]["C"])
    S = np.flatnonzero(np.any(c.coef != 0, axis=1))
    assert S.size <= 50
    F = blobs.oracle_kernel(blobs.X, blobs.X[S]) @ c.coef[S]
    np.testing.assert_allclose(c.scores, F, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.margins, mc.multiclass_margins(F, blobs.y), atol=1e-10)
    assert c.norm == pytest.approx(math.sqrt(np.trace(c.coef[S].T @ blobs.gram[np.ix_(S, S)]
                                                      @ c.coef[S])), rel=1e-6)


def test_two_classes_of_the_xor_stream():
    """--data xor has labels -1/+1: a multiclass learner on it is K = 2."""
    from okl.datasets import xor_stream

    X, y = xor_stream(150, 4, seed=0)
    for learner in (MulticlassPerceptron(), MulticlassPA(variant="pa1"),
                    MulticlassProjectron(eta=0.05), MulticlassProjectronPP(eta=0.05)):
        rep = bounds_report(learner, X, y)
        assert list(rep.trace.classes) == [-1.0, 1.0]
        assert rep.checked and rep.all_hold


def test_okl_bounds_command_on_a_multiclass_file(tmp_path, capsys):
    from okl.cli import main

    X, y = _blobs(120)
    path = tmp_path / "blobs.libsvm"
    path.write_text("".join(f"{c + 1} 1:{float(a)!r} 2:{float(b)!r}\n"
                            for (a, b), c in zip(X, y)))
    assert main(["bounds", "--learner", "MulticlassPerceptron", "--data", str(path),
                 "--sigma", "1", "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "every bound holds" in out and "Theorem 2 (non-separable" in out
    import json

    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["run"]["classes"] == [1, 2, 3]
    assert all(r["holds"] for r in rep["rows"] if r["bound"] is not None)


# -- LIBOKL's budgeted multiclass set (okl/learners/multiclass_budget.py) ------------------------

from okl.learners.multiclass_budget import (MulticlassBOGD, MulticlassBPAs,  # noqa: E402
                                            MulticlassFOGD, MulticlassForgetron,
                                            MulticlassNOGD, MulticlassOGD, MulticlassRBP)


def test_ogd_regret_bound_closed_form():
    assert mc.multiclass_ogd_regret_bound(4.0, 0.5, 10.0) == pytest.approx(4 / 1 + 0.25 * 10)
    for d2, eta, g2 in ((0.0, 1.0, 3.0), (2.5, 0.01, 7.0), (9.0, 3.0, 0.0)):
        assert mc.multiclass_ogd_regret_bound(d2, eta, g2) == pytest.approx(
            d2 / (2 * eta) + eta * g2 / 2, rel=1e-15)
    with pytest.raises(ValueError):
        mc.multiclass_ogd_regret_bound(1.0, 0.0, 1.0)


@pytest.mark.parametrize("lam", [0.0, 0.05])
def test_ogd_path_against_explicit_kesler_vectors(lam):
    """Linear kernel, F a K x d matrix run explicitly: ||F_t||^2 and ||lam F_t - v_t||^2
    (v_t = x_t (e_y - e_s)) equal multiclass_ogd_path's recursions."""
    rng = np.random.default_rng(4)
    T, d, K, eta = 60, 3, 4, 0.3
    X, y = rng.normal(size=(T, d)), rng.integers(K, size=T)
    F = np.zeros((K, d))
    N, G2, m, q, upd = [], [], [], [], []
    for t in range(T):
        f = F @ X[t]
        g = f.copy()
        g[y[t]] = -np.inf
        s = int(np.argmax(g))
        v = np.zeros((K, d))
        v[y[t]] += X[t]
        v[s] -= X[t]
        u = 1.0 - (f[y[t]] - f[s]) > 0
        N.append(np.sum(F * F))
        G2.append(np.sum((lam * F - (v if u else 0.0)) ** 2))
        m.append(f[y[t]] - f[s])
        q.append(np.sum(v * v))
        assert q[-1] == pytest.approx(2 * X[t] @ X[t])
        upd.append(u)
        F = (1 - eta * lam) * F + (eta * v if u else 0.0)
    Nt, g2 = mc.multiclass_ogd_path(np.array(q), np.array(m), np.array(upd), eta, lam)
    np.testing.assert_allclose(Nt, N, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g2, G2, rtol=1e-10, atol=1e-12)


def _regret_row(rep, part):
    (r,) = [r for r in rep.rows if part in r["source"] and r["quantity"].startswith("regret")]
    return r


@pytest.mark.parametrize("eta,lam", [(0.5, 0.0), (0.2, 0.01)])
def test_ogd_regret_row(blobs, eta, lam):
    rep = blobs.report(MulticlassOGD(blobs.kernel, eta=eta, lam=lam))
    r = _regret_row(rep, "Kesler")
    check(r, 0.1 if lam == 0.0 else 0.02)
    tr, ins = rep.trace, r["inputs"]
    c = blobs.comparator(ins["C"])
    g = mcb.scaled(c, ins["alpha"]) if ins["alpha"] != 1.0 else c
    assert ins["U_norm"] == pytest.approx(g.norm, rel=1e-6)
    upd = tr.losses > 0
    if lam == 0.0:                     # k(x, x) = 1: sum ||g_t||^2 = 2 x updates
        assert ins["sum_grad2"] == pytest.approx(2.0 * upd.sum())
        assert r["bound"] == pytest.approx(g.norm ** 2 / (2 * eta) + eta * upd.sum(), rel=1e-6)
        assert r["measured"] == pytest.approx(tr.losses.sum() - g.hinge.sum(), rel=1e-6)
    else:                              # ||F_t||^2 from the learner's own coefficients
        L = MulticlassOGD(blobs.kernel, eta=eta, lam=lam, classes=[0, 1, 2])
        sq = []
        for t in range(blobs.T):
            if t:
                A, S = np.asarray(L.coefficients), np.asarray(L.support_vectors)
                sq.append(float(np.trace(A.T @ blobs.oracle_kernel(S, S) @ A)))
            else:
                sq.append(0.0)
            L.learn_one(blobs.X[t], blobs.y[t])
        want = tr.losses.sum() + lam / 2 * sum(sq) - ins["comparator_loss"]
        assert r["measured"] == pytest.approx(want, rel=1e-6)
        assert ins["comparator_loss"] == pytest.approx(
            g.hinge.sum() + lam / 2 * blobs.T * g.norm ** 2, rel=1e-6)
    assert rep.all_hold


def test_bogd_prefix_and_budget(blobs):
    B = 10
    rep = blobs.report(MulticlassBOGD(blobs.kernel, B=B, lam=0.01))
    r = _regret_row(rep, "BOGD before its first removal")
    tr = rep.trace
    upd = tr.losses > 0
    t0 = int(np.flatnonzero(upd)[B])          # the (B+1)-th update: the first removal
    assert r["inputs"]["rounds"] == t0 + 1 and tr.extras["removals"] > 0
    check(r, 0.1)
    (b,) = rows_of(rep, "budget maintenance")
    assert b["measured"] == B and b["holds"]
    (z,) = rows_of(rep, "Zhao, Wang")
    assert z["bound"] is None and "oldest" in z["note"]
    rep = blobs.report(MulticlassBOGD(blobs.kernel, B=B, lam=0.01, removal="uniform", seed=1))
    (z,) = rows_of(rep, "Zhao, Wang")
    assert z["bound"] is None and z["kind"] == rp.EXPECTATION and "expectation" in z["note"]
    assert rep.all_hold


@pytest.mark.parametrize("cls", [MulticlassRBP, MulticlassForgetron])
def test_perceptron_prefix_of_rbp_and_forgetron(blobs, cls):
    B = 4
    rep = blobs.report(cls(blobs.kernel, B=B) if cls is MulticlassForgetron
                       else cls(blobs.kernel, B=B, seed=0))
    tr = rep.trace
    (r,) = rows_of(rep, "before its first removal")
    t0 = int(np.flatnonzero(tr.mistakes)[B])  # the (B+1)-th mistake removes
    assert r["inputs"]["rounds"] == t0 + 1 and r["measured"] == B + 1
    c = blobs.comparator(r["inputs"]["C"])
    upd = np.zeros(blobs.T, bool)
    upd[:t0 + 1] = tr.mistakes[:t0 + 1]
    L, R2 = float(c.hinge[upd].sum()), 2.0 * 1.0
    closed = ((c.norm * math.sqrt(R2) + math.sqrt(R2 * c.norm ** 2 + 4 * L)) / 2) ** 2
    assert r["inputs"]["L"] == pytest.approx(L, rel=1e-6)
    assert r["bound"] == pytest.approx(closed, rel=1e-6)
    assert r["holds"]
    (w,) = [r for r in rep.rows if r["quantity"] == "mistakes (whole run)"]
    assert w["bound"] is None
    assert ("expectation" in w["note"]) if cls is MulticlassRBP else ("B >= 83" in w["note"])
    assert rep.all_hold


def test_bpas_prefix(blobs):
    B, C = 10, 0.5
    rep = blobs.report(MulticlassBPAs(blobs.kernel, B=B, C=C))
    tr = rep.trace
    (r,) = rows_of(rep, "Theorem 4 (BPA-S")
    t0 = int(np.flatnonzero(tr.losses > 0)[B])
    assert r["inputs"]["rounds"] == t0 + 1
    m = tr.scores
    assert r["measured"] == int(np.sum((tr.losses > 0)[:t0 + 1] & (m[:t0 + 1] <= 0)))
    c = blobs.comparator(r["inputs"]["C"])
    L = float(c.hinge[:t0 + 1].sum())
    assert r["bound"] == pytest.approx(max(2.0, 1 / C) * (c.norm ** 2 + 2 * C * L), rel=1e-6)
    check(r, 0.01)
    assert rep.all_hold


@pytest.mark.parametrize("scale,D,eta", [("toolbox", 30, 0.005), ("paper", 20, 0.5)])
def test_fogd_feature_regret(blobs, scale, D, eta):
    L = MulticlassFOGD(blobs.kernel, D=D, eta=eta, scale=scale, seed=1)
    rep = blobs.report(L)
    r = _regret_row(rep, "FOGD")
    tr, ins = rep.trace, r["inputs"]
    n_upd = int(np.sum(tr.losses > 0))
    assert ins["sum_grad2"] == pytest.approx(2.0 * (D if scale == "toolbox" else 1.0) * n_upd)
    assert r["bound"] == pytest.approx(ins["dist2"] / (2 * eta) + eta / 2 * ins["sum_grad2"])
    assert r["measured"] == pytest.approx(tr.losses.sum() - ins["comparator_loss"])
    check(r, 0.05)
    assert rep.all_hold


def test_nogd_two_stages(blobs):
    rep = blobs.report(MulticlassNOGD(blobs.kernel, B=15, eta=0.3))
    tr = rep.trace
    sw = int(tr.extras["switch_round"])
    r1 = _regret_row(rep, "NOGD's stage 1")
    r2 = _regret_row(rep, "NOGD's stage 2")
    assert r1["inputs"]["rounds"] == sw and r2["inputs"]["rounds"] == blobs.T - sw
    assert r1["inputs"]["sum_grad2"] == pytest.approx(2.0 * np.sum(tr.losses[:sw] > 0))
    check(r1, 0.05)
    assert r2["bound"] is not None and r2["holds"]
    assert rep.all_hold


def test_a_too_small_bound_is_reported_as_failing(blobs):
    """The check can fail: the OGD row's measured regret against the bound at a step 100
    times too large on the gradient term's side and without the ||U||^2 term."""
    rep = blobs.report(MulticlassOGD(blobs.kernel))
    r = _regret_row(rep, "Kesler")
    assert r["measured"] > 0
    small = mc.multiclass_ogd_regret_bound(0.0, 1e-3, r["inputs"]["sum_grad2"])
    bad = rp.row(r["quantity"], r["measured"], small, r["source"])
    assert bad["holds"] is False and bad["ratio"] > 1
    rep.rows.append(bad)
    assert not rep.all_hold


def test_budgeted_handlers_are_declared():
    for learner, fn in ((MulticlassOGD(), mcb.ogd), (MulticlassRBP(), mcb.rbp),
                        (MulticlassForgetron(), mcb.forgetron), (MulticlassBPAs(), mcb.bpas),
                        (MulticlassBOGD(), mcb.bogd), (MulticlassFOGD(), mcb.fogd),
                        (MulticlassNOGD(), mcb.nogd)):
        handler, name = handler_for(learner)
        assert handler is fn and name == type(learner).__name__
