"""theory.multiclass: the multiclass bounds against hand-computed values and on oracle runs.

Each bound is evaluated on runs of the plain-numpy oracles (tests/oracles) with
comparators fitted on the stream, and must hold (measured <= bound) without being vacuous
(the ratio measured / bound is printed; it is asserted above a floor and, for mistake
bounds, the bound is below the number of rounds).  Imports numpy, scipy, theory.multiclass
and the oracles only.

Streams:

* ``ortho``: T orthonormal inputs (linear kernel), y_t = t mod 3: every round is a tie at
  0, so every learner errs on every round; the hard-margin comparator is known by hand
  (u_y(x_t) = 2/3, u_r(x_t) = -1/3, ||U||^2 = 2T/3, all margins 1).
* ``sectors``: separable through the origin in the plane (linear kernel).
* ``blobs``: three overlapping Gaussian clouds with 5% label noise (Gaussian kernel,
  k(x, x) = 1).
"""
import contextlib
import math

import numpy as np
import pytest

from theory import multiclass as mc

try:
    from oracles import multiclass_reference as mr
except ImportError:                                   # run from another root
    from tests.oracles import multiclass_reference as mr

try:                                                  # optional (comes with scikit-learn)
    from threadpoolctl import threadpool_limits as _limits
except ImportError:                                   # pragma: no cover
    _limits = None


def _one_blas_thread():
    return _limits(1) if _limits is not None else contextlib.nullcontext()


GAUSS = mr.gaussian_kernel(1.0)
LIN = mr.linear_kernel
RATIOS = {}


def report(name, measured, bound, floor, T=None):
    ratio = measured / bound
    RATIOS[name] = (measured, bound, ratio)
    print(f"\n  {name}: measured {measured:.4g} <= bound {bound:.4g}  (ratio {ratio:.3f})")
    assert measured <= bound * (1 + 1e-12)
    assert ratio >= floor, f"{name}: ratio {ratio:.3g} below {floor} (vacuous?)"
    if T is not None:
        assert bound < T, f"{name}: bound {bound:.4g} >= T = {T} (vacuous)"
    return ratio


# -- streams, comparators (computed once) --------------------------------------------------

_blobs, _sectors = mr.blobs_stream, mr.sectors_stream


class Stream:
    def __init__(self, X, y, kernel, Cs):
        self.X, self.y, self.kernel = X, y, kernel
        self.T = len(y)
        self.gram = kernel(X, X)
        self.kdiag = np.diag(self.gram)
        self.kappa = float(self.kdiag.max())
        with _one_blas_thread():                  # small solves: threads only contend
            self.comparators = [mc.multiclass_comparator(self.gram, y, C=C) for C in Cs]

    def best(self, bound):
        """Smallest bound over the fitted comparators (each one is valid)."""
        vals = []
        for c in self.comparators:
            try:
                vals.append(bound(c))
            except ValueError:                    # a theorem's condition fails for this U
                vals.append(math.inf)
        return min(vals)


@pytest.fixture(scope="module")
def ortho():
    T = 45
    return Stream(np.eye(T), np.arange(T) % 3, LIN, [1e3])


@pytest.fixture(scope="module")
def sectors():
    X, y = _sectors()
    return Stream(X, y, LIN, [100.0, 1000.0])


@pytest.fixture(scope="module")
def blobs():
    X, y = _blobs()
    return Stream(X, y, GAUSS, [0.1, 0.3, 1.0, 3.0])


# -- hand-computed values ------------------------------------------------------------------

def test_hand_values():
    assert mc.crammer_singer_mistake_bound(1.0, 0.5) == pytest.approx(8.0)
    assert mc.crammer_singer_mistake_bound(2.0, 0.5) == pytest.approx(32.0)
    assert mc.crammer_singer_nonseparable_bound(1.0, 0.5, 0.5) == pytest.approx(18.0)
    assert mc.crammer_singer_deficit([1.0, 0.2, -0.1], 0.5) == pytest.approx(math.sqrt(0.45))
    assert mc.crammer_singer_hinge_form(1.0, 2.0, 4.0) == pytest.approx(32.0)
    assert mc.pa_realizable_bound(1.0, 3.0) == pytest.approx(18.0)
    assert mc.pa_loss_bound(1.0, 1.0, 1.0) == pytest.approx((math.sqrt(2) + 2) ** 2)
    assert mc.pa_loss_bound(1.0, 1.0, 1.0, kappa_min=0.5) == pytest.approx((math.sqrt(2) + 4) ** 2)
    assert mc.pa1_mistake_bound(1.0, 1.0, 3.0, 0.5) == pytest.approx(8.0)
    assert mc.pa1_mistake_bound(1.0, 1.0, 3.0, 0.1) == pytest.approx(16.0)
    assert mc.pa2_loss_bound(1.0, 1.0, 2.0, 0.5) == pytest.approx(9.0)
    # Projectron: (sqrt2 + sqrt(2 + 16))/2 = 2 sqrt2 -> 8; the paper's form 2 + 4 + 2 sqrt2
    assert mc.projectron_mistake_bound(1.0, 1.0, 0.0, 4.0) == pytest.approx(8.0)
    assert mc.projectron_mistake_bound(1.0, 1.0, 0.0, 4.0, form="paper") == \
        pytest.approx(6 + 2 * math.sqrt(2))
    assert mc.projectron_mistake_bound(1.0, 1.0, 0.1, 0.0) == pytest.approx(2 / 0.81)
    assert mc.projectron_mistake_bound(1.0, 1.0, 0.0, 4.0, n_classes=1) == \
        pytest.approx(((1 + math.sqrt(17)) / 2) ** 2)                 # binary: R^2 = kappa
    # Projectron++ at eta = 0: lambda* = 4, (16 + 32) / (8 - 2) = 8, the Projectron's value
    assert mc.projectronpp_mistake_bound(1.0, 1.0, 0.0, 4.0) == pytest.approx(8.0)
    assert mc.ultraconservative_hinge_bound(1.0, 1.0, 4.0) == pytest.approx(8.0)
    # support: identity Gram -> every point may be added; [[1, .9], [.9, 1]] has
    # eigenvalues 1.9, 0.1: theta 0.2 -> 1.9 * 0.1 = 0.19 > 0.04 -> 2; theta 0.5 -> 1
    assert mc.support_determinant_bound(np.eye(5), 0.125) == 5
    G = np.array([[1.0, 0.9], [0.9, 1.0]])
    assert mc.support_determinant_bound(G, 0.2) == 2
    assert mc.support_determinant_bound(G, 0.5) == 1
    assert mc.support_determinant_bound(np.ones((4, 4)), 0.5) == 1    # rank 1
    assert mc.support_cover_bound(np.eye(5), 0.5) == 5
    assert mc.support_cover_bound(np.eye(5), 1.5) == 1
    sb = mc.projectron_support_bound(np.eye(5), 0.5, span="class", n_classes=3)
    assert (sb.determinant, sb.cover, sb.value) == (15, 15, 5)


def test_paper_forms_and_identities():
    rng = np.random.default_rng(0)
    for _ in range(200):
        kap, g, L = rng.uniform(0.1, 2), rng.uniform(0, 5), rng.uniform(0, 50)
        eta = rng.uniform(0, 0.99) / max(g, 1e-9)
        eta = min(eta, 1.0)
        if eta * g >= 1:
            continue
        tight = mc.projectron_mistake_bound(kap, g, eta, L)
        assert tight <= mc.projectron_mistake_bound(kap, g, eta, L, form="paper") * (1 + 1e-12)
        # Projectron++'s potential bound is never below the Projectron's (margin updates
        # cost a lambda >= 1 restriction only)
        assert mc.projectronpp_mistake_bound(kap, g, eta, L) >= tight * (1 - 1e-9)
    # Theorem 2 at D = 0 is Theorem 1; the hinge form is Theorem 2 at gamma = 1/||U||
    assert mc.crammer_singer_nonseparable_bound(1.3, 0.2, 0.0) == \
        pytest.approx(mc.crammer_singer_mistake_bound(1.3, 0.2))
    U, m = 2.0, np.array([1.0, 0.3, -0.5])
    hinge = np.maximum(0, 1 - m)
    D = mc.crammer_singer_deficit(m / U, 1 / U)
    assert mc.crammer_singer_nonseparable_bound(1.0, 1 / U, D) == \
        pytest.approx(mc.crammer_singer_hinge_form(1.0, U, np.sum(hinge ** 2)))
    assert mc.crammer_singer_comparator_bound(1.0, m, U) <= \
        mc.crammer_singer_hinge_form(1.0, U, np.sum(hinge ** 2)) * (1 + 1e-12)


def test_k2_is_the_binary_perceptron_bound():
    """K = 2, U = (-w, w)/2: the separable [CS03] bound is R^2 ||w||^2 / min margin^2 and
    the ultraconservative hinge bound is the binary Perceptron's."""
    w_norm, L, kap = 3.0, 2.5, 0.8
    U = w_norm / math.sqrt(2)
    gamma_b = 0.25 / w_norm                       # binary margin of w / ||w||
    gamma_mc = math.sqrt(2) * gamma_b             # multiclass margin of U / ||U||
    assert mc.crammer_singer_mistake_bound(math.sqrt(kap), gamma_mc) == \
        pytest.approx(kap / gamma_b ** 2)
    a = math.sqrt(kap) * w_norm
    assert mc.ultraconservative_hinge_bound(kap, U, L) == \
        pytest.approx(((a + math.sqrt(a * a + 4 * L)) / 2) ** 2)


def test_argument_checks():
    with pytest.raises(ValueError):
        mc.crammer_singer_mistake_bound(1.0, 0.0)
    with pytest.raises(ValueError):
        mc.projectron_mistake_bound(1.0, 10.0, 0.2, 1.0)          # eta ||G|| >= 1
    with pytest.raises(ValueError):
        mc.projectronpp_mistake_bound(1.0, 10.0, 0.2, 1.0)
    with pytest.raises(ValueError):
        mc.pa_multiclass_bound("pa3", 1.0, 1.0)
    with pytest.raises(ValueError):
        mc.pa_loss_bound(1.0, 1.0, 1.0, kappa_min=2.0)
    with pytest.raises(ValueError):
        mc.multiclass_margins(np.zeros((3, 2)), [0, 1, 2])


# -- the comparator ------------------------------------------------------------------------

def test_comparator_on_orthonormal_stream(ortho):
    c = ortho.comparators[0]
    T = ortho.T
    # hard margin by hand: ||U||^2 = T (K - 1) / K, every margin 1
    assert c.norm ** 2 == pytest.approx(2 * T / 3, rel=2e-3)
    np.testing.assert_allclose(c.margins, 1.0, atol=2e-3)
    np.testing.assert_allclose(c.scores, ortho.gram @ c.coef, atol=1e-9)
    assert c.norm ** 2 == pytest.approx(np.trace(c.coef.T @ ortho.gram @ c.coef), rel=1e-9)
    # the hand comparator gives the [CS03] value exactly: 2 R^2 ||U||^2 = 4T/3
    assert mc.crammer_singer_comparator_bound(1.0, np.ones(T), math.sqrt(2 * T / 3)) == \
        pytest.approx(4 * T / 3)


# -- bounds on oracle runs -----------------------------------------------------------------

@pytest.mark.parametrize("update", ["max", "uniform", "proportional"])
def test_crammer_singer_on_orthonormal_stream(ortho, update):
    """Every round errs (T errors); Theorem 1 gives 2 (K-1)/K T = 4T/3: ratio 3/4."""
    run = mr.crammer_singer_perceptron(ortho.X, ortho.y, LIN, update=update)
    assert run.n_errors == ortho.T
    b = ortho.best(lambda c: mc.crammer_singer_mistake_bound(1.0, c.gamma))
    assert b == pytest.approx(4 * ortho.T / 3, rel=5e-3)
    report(f"CS Thm1 ortho {update}", run.n_errors, b, 0.7)
    b = ortho.best(lambda c: mc.ultraconservative_hinge_bound(1.0, c.norm, c.hinge.sum()))
    report(f"CS hinge ortho {update}", run.n_errors, b, 0.7)


@pytest.mark.parametrize("update", ["max", "uniform", "proportional"])
def test_crammer_singer_theorem1_separable(sectors, update):
    run = mr.crammer_singer_perceptron(sectors.X, sectors.y, LIN, update=update)
    R = math.sqrt(sectors.kappa)
    b = sectors.best(lambda c: mc.crammer_singer_mistake_bound(R, c.gamma)
                     if c.gamma > 0 else math.inf)
    report(f"CS Thm1 sectors {update}", run.n_errors, b, 0.01, T=sectors.T)
    # repeated passes: the theorem bounds the errors on any sequence of these points
    run3 = mr.crammer_singer_perceptron(np.vstack([sectors.X] * 3), np.tile(sectors.y, 3),
                                        LIN, update=update)
    report(f"CS Thm1 sectors x3 {update}", run3.n_errors, b, 0.01)


@pytest.mark.parametrize("update", ["max", "uniform", "proportional"])
def test_crammer_singer_theorem2_and_hinge(blobs, update):
    run = mr.crammer_singer_perceptron(blobs.X, blobs.y, GAUSS, update=update)
    b2 = blobs.best(lambda c: mc.crammer_singer_comparator_bound(blobs.kappa, c.margins, c.norm))
    report(f"CS Thm2 blobs {update}", run.n_errors, b2, 0.1, T=blobs.T)
    err = run.error
    bh = blobs.best(lambda c: mc.ultraconservative_hinge_bound(blobs.kappa, c.norm,
                                                               c.hinge[err].sum()))
    report(f"CS hinge blobs {update}", run.n_errors, bh, 0.4, T=blobs.T)
    # the LIBOL convention (update iff pred != y, strict E) leaves the family on a mistake
    # made by a tie, so the theorem does not cover it; on this stream it still obeys it
    lib = mr.crammer_singer_perceptron(blobs.X, blobs.y, GAUSS, update=update,
                                       convention="libol")
    assert lib.n_mistakes <= b2


@pytest.mark.parametrize("rule", ["max-loss", "prediction-based"])
def test_pa_bounds(blobs, rule):
    kap = blobs.kappa
    assert np.all(blobs.kdiag == 1.0)                       # Theorem 3's constant norm
    # PA: Theorem 3 on the squared losses of the update rounds
    run = mr.pa(blobs.X, blobs.y, GAUSS, rule=rule)
    sq = float(np.sum(run.loss[run.update] ** 2))
    b = blobs.best(lambda c: mc.pa_multiclass_bound("pa", kap, c.norm, sq_loss_sum=c.sq_loss)[0])
    report(f"PA Thm3 blobs {rule}", sq, b, 0.2)
    # PA-I: Theorem 4 on the error rounds (prediction-based: the mistakes it updates on)
    for C in (0.1, 0.3, 0.5):
        r1 = mr.pa1(blobs.X, blobs.y, GAUSS, C=C, rule=rule)
        counted = r1.n_errors if rule == "max-loss" else r1.n_updates
        b = blobs.best(lambda c: mc.pa_multiclass_bound("pa1", kap, c.norm, loss_sum=c.loss,
                                                         C=C)[0])
        report(f"PA-I Thm4 blobs C={C} {rule}", counted, b, 0.05, T=blobs.T)
    # PA-II: Theorem 5 on the squared losses
    for C in (0.1, 0.5, 2.0):
        r2 = mr.pa2(blobs.X, blobs.y, GAUSS, C=C, rule=rule)
        sq = float(np.sum(r2.loss[r2.update] ** 2))
        b = blobs.best(lambda c: mc.pa_multiclass_bound("pa2", kap, c.norm,
                                                         sq_loss_sum=c.sq_loss, C=C)[0])
        report(f"PA-II Thm5 blobs C={C} {rule}", sq, b, 0.15)
        assert r2.n_errors <= b


def test_pa_on_orthonormal_stream(ortho):
    """Each round: loss 1, PA step 1/2; realizable by the hand comparator."""
    run = mr.pa(ortho.X, ortho.y, LIN)
    np.testing.assert_allclose(run.tau[np.arange(ortho.T), ortho.y], 0.5)
    U = math.sqrt(2 * ortho.T / 3)
    report("PA Thm2 ortho", float(np.sum(run.loss ** 2)), mc.pa_realizable_bound(1.0, U), 0.7)
    r1 = mr.pa1(ortho.X, ortho.y, LIN, C=1.0)
    report("PA-I Thm4 ortho", r1.n_errors, mc.pa1_mistake_bound(1.0, U, 0.0, 1.0), 0.7)
    r2 = mr.pa2(ortho.X, ortho.y, LIN, C=1.0)
    report("PA-II Thm5 ortho", float(np.sum(r2.loss ** 2)), mc.pa2_loss_bound(1.0, U, 0.0, 1.0), 0.5)


def test_pa_theorem3_varying_norms(sectors):
    """Linear kernel, norms in [0.3, 1]: Theorem 3 needs the generalized constant."""
    run = mr.pa(sectors.X, sectors.y, LIN)
    sq = float(np.sum(run.loss ** 2))
    kmin = float(sectors.kdiag.min())
    b = sectors.best(lambda c: mc.pa_loss_bound(sectors.kappa, c.norm, c.sq_loss, kappa_min=kmin))
    report("PA Thm3 (varying norms) sectors", sq, b, 1e-3)


@pytest.mark.parametrize("span", ["class", "shared"])
@pytest.mark.parametrize("eta", [0.02, 0.05])
def test_projectron_bounds(blobs, span, eta):
    kap = blobs.kappa
    for plus_plus in (False, True):
        run = mr.multiclass_projectron(blobs.X, blobs.y, GAUSS, eta=eta, plus_plus=plus_plus,
                                       span=span)
        err = run.error
        if not plus_plus:
            def bound(c):
                return mc.projectron_mistake_bound(kap, c.norm, eta, c.hinge[err].sum())
            name = "Projectron"
        else:
            upd = run.update                                   # error and margin rounds
            def bound(c):
                return mc.projectronpp_mistake_bound(kap, c.norm, eta, c.hinge[upd].sum())
            name = "Projectron++"
        b = blobs.best(bound)
        report(f"{name} blobs eta={eta} {span}", run.n_errors, b, 0.4, T=blobs.T)
        if not plus_plus:
            bp = blobs.best(lambda c: mc.projectron_mistake_bound(
                kap, c.norm, eta, c.hinge[err].sum(), form="paper"))
            report(f"{name} (paper form) blobs eta={eta} {span}", run.n_errors, bp, 0.3,
                   T=blobs.T)
        sb = mc.projectron_support_bound(blobs.gram, eta, span=span, n_classes=3)
        report(f"{name} support blobs eta={eta} {span}", run.n_support, sb.value,
               0.1 if span == "shared" else 0.05)


@pytest.fixture(scope="module")
def checker():
    """3-class checkerboard on [0, 3]^2 (Gaussian kernel, sigma 0.7): the Projectron
    projects often and Projectron++ makes margin updates."""
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 3, size=(250, 2))
    y = ((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 3).astype(int)
    return Stream(X, y, mr.gaussian_kernel(0.7), [0.3, 1.0, 3.0])


@pytest.mark.parametrize("span", ["class", "shared"])
def test_projectron_bounds_with_projections(checker, span):
    eta, k = 0.05, checker.kernel
    for plus_plus in (False, True):
        run = mr.multiclass_projectron(checker.X, checker.y, k, eta=eta, plus_plus=plus_plus,
                                       span=span)
        assert np.sum(run.kind == "project") >= 5
        if plus_plus:
            assert np.sum(run.kind == "margin") >= 5
            upd = run.update
            b = checker.best(lambda c: mc.projectronpp_mistake_bound(
                checker.kappa, c.norm, eta, c.hinge[upd].sum()))
        else:
            err = run.error
            b = checker.best(lambda c: mc.projectron_mistake_bound(
                checker.kappa, c.norm, eta, c.hinge[err].sum()))
        name = "Projectron++" if plus_plus else "Projectron"
        report(f"{name} checker eta={eta} {span}", run.n_errors, b, 0.25, T=checker.T)
        sb = mc.projectron_support_bound(checker.gram, eta, span=span, n_classes=3)
        report(f"{name} support checker eta={eta} {span}", run.n_support, sb.value, 0.1)


def test_projectron_on_orthonormal_stream(ortho):
    eta = 0.05
    run = mr.projectron(ortho.X, ortho.y, LIN, eta=eta)
    U = math.sqrt(2 * ortho.T / 3)
    report("Projectron ortho", run.n_errors, mc.projectron_mistake_bound(1.0, U, eta, 0.0), 0.3)
    sb = mc.projectron_support_bound(ortho.gram, eta, span="shared")
    assert sb.value == ortho.T == run.n_support            # every point is orthogonal


def test_projectron_support_bound_is_tight_on_a_grid():
    """Points on a line with a Gaussian kernel: the shared-span Projectron adds a subset;
    the bound must hold for every eta."""
    X = np.random.default_rng(11).permutation(np.linspace(0, 6, 120))[:, None]
    y = (np.floor(X[:, 0] * 1.3) % 3).astype(int)
    gram = GAUSS(X, X)
    for eta in (0.05, 0.2, 0.5):
        run = mr.projectron(X, y, GAUSS, eta=eta, span="shared")
        sb = mc.projectron_support_bound(gram, eta, span="shared")
        report(f"Projectron support line eta={eta}", run.n_support, sb.value, 0.05)


def test_ratio_table_printed():
    """Runs last in the file: the table of measured / bound ratios (pytest -s shows it)."""
    if not RATIOS:
        pytest.skip("no bound test ran")
    print("\n  measured / bound:")
    for name, (m, b, r) in RATIOS.items():
        print(f"  {r:7.3f}  {m:10.4g} / {b:<10.4g}  {name}")
