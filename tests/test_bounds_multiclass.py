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


def _blobs(T=200, K=3, seed=1):
    rng = np.random.default_rng(seed)
    ang = 2 * np.pi * np.arange(K) / K
    centers = 2.0 * np.c_[np.cos(ang), np.sin(ang)]
    y = rng.integers(K, size=T)
    X = centers[y] + 0.7 * rng.normal(size=(T, 2))
    flip = rng.random(T) < 0.05
    return X, np.where(flip, (y + rng.integers(1, K, size=T)) % K, y)


def _sectors(T=300, K=3, gap=0.3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(K, size=T)
    th = 2 * np.pi * y / K + rng.uniform(-np.pi / K + gap, np.pi / K - gap, size=T)
    r = rng.uniform(0.3, 1.0, size=T)
    return np.c_[r * np.cos(th), r * np.sin(th)], y


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
