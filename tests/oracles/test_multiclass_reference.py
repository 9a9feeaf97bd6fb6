"""Tests of the plain-numpy multiclass oracles (tests/oracles/multiclass_reference.py).

Each oracle is checked where the answer is known by hand (first rounds computed on paper,
an orthonormal stream, K = 2 against plain binary learners), against its theorem on a
separable stream, and against the other oracles where two algorithms must coincide.
Only numpy is imported (no okl).
"""
import numpy as np
import pytest

try:
    from oracles import multiclass_reference as mr
except ImportError:                                   # run from another root
    from tests.oracles import multiclass_reference as mr

LIN = mr.linear_kernel
GAUSS = mr.gaussian_kernel(1.0)


# -- streams ----------------------------------------------------------------------------------

def blobs(T, K=3, sep=2.0, spread=0.7, noise=0.0, seed=1):
    rng = np.random.default_rng(seed)
    ang = 2 * np.pi * np.arange(K) / K
    centers = sep * np.c_[np.cos(ang), np.sin(ang)]
    y = rng.integers(K, size=T)
    X = centers[y] + spread * rng.normal(size=(T, 2))
    flip = rng.random(T) < noise
    y = np.where(flip, (y + rng.integers(1, K, size=T)) % K, y)
    return X, y


def sectors(T, K=3, gap=0.3, seed=0):
    """Separable through the origin: class r at angles 2 pi r / K +- (pi/K - gap)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(K, size=T)
    th = 2 * np.pi * y / K + rng.uniform(-np.pi / K + gap, np.pi / K - gap, size=T)
    r = rng.uniform(0.3, 1.0, size=T)
    return np.c_[r * np.cos(th), r * np.sin(th)], y


ALL = {
    "perceptron_max": lambda X, y, k, **kw: mr.perceptron_max(X, y, k, **kw),
    "perceptron_uniform": lambda X, y, k, **kw: mr.perceptron_uniform(X, y, k, **kw),
    "perceptron_proportional": lambda X, y, k, **kw: mr.perceptron_proportional(X, y, k, **kw),
    "pa": lambda X, y, k, **kw: mr.pa(X, y, k, **kw),
    "pa1": lambda X, y, k, **kw: mr.pa1(X, y, k, C=0.3, **kw),
    "pa2": lambda X, y, k, **kw: mr.pa2(X, y, k, C=0.3, **kw),
    "projectron": lambda X, y, k, **kw: mr.projectron(X, y, k, eta=0.2, **kw),
    "projectron_pp": lambda X, y, k, **kw: mr.projectron_pp(X, y, k, eta=0.2, **kw),
}


# -- hand-computed first rounds --------------------------------------------------------------
# x0 = (1, 0), y0 = 2; x1 = (0, 1), y1 = 1; x2 = (2, 1), y2 = 0; linear kernel, K = 3.
# Round 0: every score is 0 -> pred 0 (lowest index), margin 0, E = {0, 1} (ties count).
# Round 1: x1 is orthogonal to x0 -> scores 0 again, E = {0, 2}.
# Round 2: k(x0, x2) = 2, k(x1, x2) = 1, k(x2, x2) = 5.

XH = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]])
YH = np.array([2, 1, 0])


def test_hand_rounds_max_score():
    run = mr.perceptron_max(XH, YH, LIN, n_classes=3)
    # round 0: s = 0 (lowest-index wrong class) -> row (-1, 0, 1)
    # round 1: s = 0 -> row (-1, 1, 0)
    # round 2: F = 2(-1, 0, 1) + (-1, 1, 0) = (-3, 1, 2); s = 2 -> row (1, 0, -1)
    np.testing.assert_array_equal(run.scores, [[0, 0, 0], [0, 0, 0], [-3, 1, 2]])
    np.testing.assert_array_equal(run.pred, [0, 0, 2])
    np.testing.assert_array_equal(run.margin, [0, 0, -5])
    np.testing.assert_array_equal(run.rival, [0, 0, 2])
    np.testing.assert_array_equal(run.coef, [[-1, 0, 1], [-1, 1, 0], [1, 0, -1]])
    np.testing.assert_array_equal(run.mistake, [True, True, True])
    np.testing.assert_array_equal(run.error, [True, True, True])


def test_hand_rounds_uniform_and_proportional():
    uni = mr.perceptron_uniform(XH, YH, LIN, n_classes=3)
    pro = mr.perceptron_proportional(XH, YH, LIN, n_classes=3)
    # rounds 0, 1: all ties -> uniform over E (proportional's 0/0 falls back to uniform)
    rows01 = [[-0.5, -0.5, 1.0], [-0.5, 1.0, -0.5]]
    np.testing.assert_allclose(uni.coef[:2], rows01)
    np.testing.assert_allclose(pro.coef[:2], rows01)
    # round 2: F = 2(-1/2, -1/2, 1) + (-1/2, 1, -1/2) = (-3/2, 0, 3/2); E = {1, 2}
    np.testing.assert_allclose(uni.scores[2], [-1.5, 0.0, 1.5])
    np.testing.assert_allclose(uni.coef[2], [1.0, -0.5, -0.5])
    # excesses over F[y] = -3/2: (3/2, 3) -> weights 1/3, 2/3
    np.testing.assert_allclose(pro.coef[2], [1.0, -1 / 3, -2 / 3])
    assert uni.margin[2] == pytest.approx(-3.0)


def test_hand_rounds_libol_convention():
    """LIBOL: update iff pred != y, strict E: round 0's mistake (a tie) gives U and S only
    +x to the true class; M still subtracts from the lowest-index wrong class."""
    for f in (mr.perceptron_uniform, mr.perceptron_proportional):
        run = f(XH, YH, LIN, n_classes=3, convention="libol")
        np.testing.assert_allclose(run.coef[0], [0.0, 0.0, 1.0])
        # round 1: scores still 0, pred 0 != 1, strict E empty again
        np.testing.assert_allclose(run.coef[1], [0.0, 1.0, 0.0])
    m = mr.perceptron_max(XH, YH, LIN, n_classes=3, convention="libol")
    np.testing.assert_allclose(m.coef, mr.perceptron_max(XH, YH, LIN, n_classes=3).coef)
    # a tie the true class wins by the lowest-index rule: paper updates, LIBOL does not
    X = np.array([[1.0, 0.0]])
    assert mr.perceptron_max(X, [0], LIN, n_classes=3).n_updates == 1
    assert mr.perceptron_max(X, [0], LIN, n_classes=3, convention="libol").n_updates == 0


def test_hand_rounds_pa():
    run = mr.pa(XH, YH, LIN, n_classes=3)
    # round 0: loss 1, k = 1 -> tau = 1 / (2 * 1) = 1/2
    # round 1: loss 1 -> tau = 1/2, s = 0
    # round 2: F = 2(-1/2, 0, 1/2) + (-1/2, 1/2, 0) = (-3/2, 1/2, 1); s = 2;
    #          margin -5/2, loss 7/2, k = 5 -> tau = 3.5 / 10 = 0.35
    np.testing.assert_allclose(run.scores[2], [-1.5, 0.5, 1.0])
    np.testing.assert_allclose(run.loss, [1.0, 1.0, 3.5])
    np.testing.assert_allclose(run.coef, [[-0.5, 0, 0.5], [-0.5, 0.5, 0], [0.35, 0, -0.35]])
    # PA-I, C = 0.2: tau = min(0.2, loss / 2k): 0.2, 0.2, then F = (-0.6, 0.2, 0.4):
    # loss = 1 + 0.4 + 0.6 = 2, tau = min(0.2, 2 / 10) = 0.2
    r1 = mr.pa1(XH, YH, LIN, C=0.2, n_classes=3)
    np.testing.assert_allclose(r1.scores[2], [-0.6, 0.2, 0.4])
    np.testing.assert_allclose(r1.coef[:, 0], [-0.2, -0.2, 0.2])
    # PA-II, C = 1: tau = loss / (2k + 1/2): 1/2.5 = 0.4 on rounds 0 and 1;
    # F = 2(-.4, 0, .4) + (-.4, .4, 0) = (-1.2, .4, .8); loss = 3, tau = 3 / 10.5
    r2 = mr.pa2(XH, YH, LIN, C=1.0, n_classes=3)
    np.testing.assert_allclose(r2.coef[:2, 0], [-0.4, -0.4])
    np.testing.assert_allclose(r2.scores[2], [-1.2, 0.4, 0.8])
    np.testing.assert_allclose(r2.coef[2], [3 / 10.5, 0, -3 / 10.5])


def test_hand_rounds_projectron():
    """eta = 0.5 on the hand stream: rounds 0 and 1 add (empty or orthogonal spans);
    on round 2, x2 = 2 x0 + x1 is in class 0's span but not in class 2's."""
    run = mr.projectron(XH, YH, LIN, eta=0.5, n_classes=3)
    np.testing.assert_array_equal(run.kind, ["add", "add", "add"])
    # class 0 span {x0, x1} (both rows gave class 0 a -1); x2 = 2 x0 + x1: residual 0.
    # class 2 (the rival) span {x0}: residual of x2 = |x2|^2 - 4 = 1 -> joint 1 > 0.5: add;
    # class 0 takes its projected step (+2 x0 + x1 in coefficients), class 2 gets -x2.
    np.testing.assert_allclose(run.residual[2], 1.0)
    np.testing.assert_allclose(run.coef, [[-1 + 2, 0, 1], [-1 + 1, 1, 0], [0, 0, -1]])
    np.testing.assert_array_equal(run.members, [[1, 0, 1], [1, 1, 0], [0, 0, 1]])


# -- orthonormal stream: every round is a tie at 0 -------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL))
def test_orthonormal_stream(name):
    T, K = 30, 3
    X = np.eye(T)
    y = np.arange(T) % K
    run = ALL[name](X, y, LIN, n_classes=K)
    np.testing.assert_array_equal(run.scores, 0.0)
    np.testing.assert_array_equal(run.pred, 0)            # ties -> lowest class index
    assert run.n_errors == T
    assert run.n_mistakes == int(np.sum(y != 0))
    assert run.n_support == T                              # nothing is in any span
    np.testing.assert_allclose(run.loss, 1.0)


# -- K = 2: every learner is its binary counterpart on the kernel 2k -------------------------
# With f = f_1 - f_0 and y_b = +1 for class 1, -1 for class 0, the update vector
# Phi(x, y) - Phi(x, s) has kernel 2k(x, x'), and the multiclass margin is y_b f(x).

def _bin_perceptron(X, yb, k):
    S, a, f_hist = [], [], []
    for t in range(len(yb)):
        f = float(np.dot(a, k(np.array(S), X[t:t + 1])[:, 0])) if S else 0.0
        f_hist.append(f)
        if yb[t] * f <= 0:
            S.append(X[t]); a.append(float(yb[t]))
    return np.array(f_hist), len(S)


def _bin_pa(X, yb, k, variant, C):
    S, a, f_hist = [], [], []
    for t in range(len(yb)):
        f = float(np.dot(a, k(np.array(S), X[t:t + 1])[:, 0])) if S else 0.0
        f_hist.append(f)
        loss = max(0.0, 1.0 - yb[t] * f)
        if loss > 0:
            q = float(k(X[t:t + 1], X[t:t + 1])[0, 0])
            tau = {"pa": loss / q, "pa1": min(C, loss / q), "pa2": loss / (q + 1 / (2 * C))}[variant]
            S.append(X[t]); a.append(tau * yb[t])
    return np.array(f_hist), len(S)


def _bin_projectron(X, yb, k, eta, plus_plus):
    """okl's binary Projectron(++) rule, written plainly (coefficients on S)."""
    S, a, f_hist = [], np.zeros(0), []
    for t in range(len(yb)):
        x = X[t:t + 1]
        kx = k(np.array(S), x)[:, 0] if S else np.zeros(0)
        f = float(a @ kx)
        f_hist.append(f)
        m = yb[t] * f
        if m >= 1 or (m > 0 and not plus_plus):
            continue
        kxx = float(k(x, x)[0, 0])
        if S:
            G = k(np.array(S), np.array(S))
            d = np.linalg.solve(G, kx)
            r2 = max(kxx - kx @ d, 0.0)
        else:
            d, r2 = np.zeros(0), kxx
        nd = np.sqrt(r2)
        if m > 0:
            loss, p2 = 1 - m, kxx - r2
            if eta * loss > nd and p2 > 0:
                tau = min(loss / p2, 2 * (loss - nd / eta) / p2, 1.0)
                a = a + tau * yb[t] * d
            continue
        if nd <= eta or r2 <= mr.RESIDUAL_RTOL * kxx:
            a = a + yb[t] * d
        else:
            S.append(X[t]); a = np.append(a, yb[t])
    return np.array(f_hist), len(S)


def _two_class():
    X, y = blobs(120, K=2, sep=1.0, spread=1.0, noise=0.1, seed=4)
    return X, y, np.where(y == 1, 1.0, -1.0)


def _k2(k):
    return lambda A, B: 2.0 * k(A, B)


@pytest.mark.parametrize("update", ["max", "uniform", "proportional"])
def test_k2_perceptron_is_binary_perceptron(update):
    X, y, yb = _two_class()
    run = mr.crammer_singer_perceptron(X, y, GAUSS, update=update)
    f, n = _bin_perceptron(X, yb, _k2(GAUSS))
    np.testing.assert_allclose(run.scores[:, 1] - run.scores[:, 0], f, atol=1e-12)
    assert run.n_support == n


@pytest.mark.parametrize("variant", ["pa", "pa1", "pa2"])
def test_k2_pa_is_binary_pa(variant):
    X, y, yb = _two_class()
    run = mr.passive_aggressive(X, y, GAUSS, variant=variant, C=0.4)
    f, n = _bin_pa(X, yb, _k2(GAUSS), variant, 0.4)
    np.testing.assert_allclose(run.scores[:, 1] - run.scores[:, 0], f, atol=1e-12)
    assert run.n_support == n
    # and on the original kernel: tau_binary = 2 tau_multiclass, C_binary = 2 C
    g, _ = _bin_pa(X, yb, GAUSS, variant, 0.8)
    np.testing.assert_allclose(run.scores[:, 1] - run.scores[:, 0], g, atol=1e-12)


@pytest.mark.parametrize("plus_plus", [False, True])
@pytest.mark.parametrize("span", ["class", "shared"])
def test_k2_projectron_is_binary_projectron(plus_plus, span):
    X, y, yb = _two_class()
    run = mr.multiclass_projectron(X, y, GAUSS, eta=0.3, plus_plus=plus_plus, span=span)
    f, n = _bin_projectron(X, yb, _k2(GAUSS), 0.3, plus_plus)
    np.testing.assert_allclose(run.scores[:, 1] - run.scores[:, 0], f, atol=1e-9)
    assert run.n_support == n
    assert 0 < n < len(y)                                 # the test exercises projections


# -- a separable 3-class stream: Crammer & Singer's Theorem 1 ------------------------------

@pytest.mark.parametrize("update", ["max", "uniform", "proportional"])
def test_separable_stream_within_theorem1(update):
    X, y = sectors(300, gap=0.3)
    run = mr.crammer_singer_perceptron(X, y, LIN, update=update)
    # comparator by hand: the unit prototypes at the class angles, over sqrt(3) (norm 1)
    ang = 2 * np.pi * np.arange(3) / 3
    M = np.c_[np.cos(ang), np.sin(ang)] / np.sqrt(3.0)
    S = X @ M.T
    gamma = np.min(S[np.arange(len(y)), y] - np.max(np.where(np.eye(3, dtype=bool)[y], -np.inf, S), 1))
    assert gamma > 0
    R2 = np.max(np.sum(X * X, 1))
    bound = 2 * R2 / gamma ** 2
    assert run.n_mistakes <= run.n_errors <= bound
    assert run.n_errors >= 3                              # the stream is not trivial
    # the theorem bounds the errors over any sequence of these points: three passes
    run3 = mr.crammer_singer_perceptron(np.vstack([X, X, X]), np.r_[y, y, y], LIN,
                                        update=update)
    assert run.n_errors <= run3.n_errors <= bound


# -- cross-checks between variants ---------------------------------------------------------

@pytest.mark.parametrize("span", ["class", "shared"])
@pytest.mark.parametrize("kernel", [GAUSS, LIN], ids=["gauss", "linear"])
def test_projectron_eta0_is_perceptron(span, kernel):
    X, y = blobs(150, K=3, sep=1.5, spread=0.8, noise=0.05, seed=7)
    p = mr.perceptron_max(X, y, kernel)
    for f in (mr.projectron, mr.projectron_pp):           # eta = 0: no margin updates either
        r = f(X, y, kernel, eta=0.0, span=span)
        np.testing.assert_array_equal(r.pred, p.pred)
        np.testing.assert_array_equal(r.update, p.update)
        np.testing.assert_allclose(r.scores, p.scores, atol=1e-9)
        if kernel is GAUSS:
            assert r.n_support == p.n_support
        else:                                             # rank 2: projections replace adds
            assert r.n_support <= (2 if span == "shared" else 2 * 3) < p.n_support


def test_projectron_large_eta_never_adds():
    """eta >= sqrt(2 max k): the joint residual sqrt(2 k(x, x)) never exceeds eta, and the
    empty span projects every update to 0: the scores stay 0."""
    X, y = blobs(60, seed=2)
    r = mr.projectron(X, y, GAUSS, eta=np.sqrt(2.0))
    assert r.n_support == 0 and np.all(r.scores == 0) and np.all(r.pred == 0)


def test_projectron_support_shrinks_with_eta():
    X, y = blobs(200, K=3, noise=0.05, seed=3)
    sizes = [mr.projectron(X, y, GAUSS, eta=e).n_support for e in (0.0, 0.1, 0.3, 0.6)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] < sizes[0]
    pp = mr.projectron_pp(X, y, GAUSS, eta=0.3)
    assert np.any(pp.kind == "margin")                     # margin updates happen ...
    assert np.all(pp.residual[pp.kind == "margin"] < 0.3)  # ... only with a small residual
    assert np.all(pp.tau[pp.kind == "margin"].max(1) <= 1.0)


def test_projectron_linear_kernel_spans_are_bounded_by_rank():
    X, y = blobs(200, K=3, noise=0.1, seed=5)
    r = mr.projectron(X, y, LIN, eta=0.0, span="class")
    assert np.all(r.members.sum(0) <= 2)                  # each class span has rank <= d = 2


def test_pa_limits():
    X, y = blobs(150, K=3, noise=0.1, seed=6)
    p = mr.pa(X, y, GAUSS)
    np.testing.assert_allclose(mr.pa1(X, y, GAUSS, C=1e9).scores, p.scores)
    np.testing.assert_allclose(mr.pa2(X, y, GAUSS, C=1e12).scores, p.scores, atol=1e-8)


def test_pa_update_sets_pair_margin_to_one():
    """PA's step solves the single constraint of the pair (y, s): after it,
    f_y(x_t) - f_s(x_t) = 1 exactly."""
    X, y = blobs(80, K=4, noise=0.1, seed=8)
    run = mr.pa(X, y, GAUSS)
    for t in np.flatnonzero(run.update)[:20]:
        after = mr.pa(X[:t + 1], y[:t + 1], GAUSS, n_classes=4).decision_function(X[t], GAUSS)[0]
        assert after[y[t]] - after[run.rival[t]] == pytest.approx(1.0, abs=1e-10)


def test_pa_prediction_based_updates_only_on_mistakes():
    X, y = blobs(150, K=3, noise=0.1, seed=9)
    for variant in ("pa", "pa1", "pa2"):
        pb = mr.passive_aggressive(X, y, GAUSS, variant=variant, C=0.5, rule="prediction-based")
        ml = mr.passive_aggressive(X, y, GAUSS, variant=variant, C=0.5)
        np.testing.assert_array_equal(pb.update, pb.mistake)
        assert ml.n_updates > pb.n_updates                # max-loss also moves on margin errors
        first = np.flatnonzero(ml.update & ~ml.mistake)[0]  # identical until then
        np.testing.assert_allclose(pb.scores[:first + 1], ml.scores[:first + 1])


def test_cs_tau_satisfies_the_family_constraints():
    rng = np.random.default_rng(0)
    for _ in range(500):
        K = int(rng.integers(2, 7))
        F = np.round(rng.normal(size=K), 1)               # rounding makes ties
        yt = int(rng.integers(K))
        E = [r for r in range(K) if r != yt and F[r] >= F[yt]]
        for update in ("max", "uniform", "proportional"):
            tau = mr.cs_tau(F, yt, update)
            if not E:
                assert tau is None
                continue
            assert tau[yt] == 1.0
            assert abs(tau.sum()) < 1e-12
            others = np.delete(np.arange(K), yt)
            assert np.all(tau[others] <= 0)
            assert np.all(tau[[r for r in others if r not in E]] == 0)
            if len(E) == 1:                               # the three variants coincide
                np.testing.assert_allclose(tau, mr.cs_tau(F, yt, "max"))


# -- the run record itself -----------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL))
def test_prefix_runs_reproduce_scores(name):
    """The final model of the run on x_1..x_t scores x_{t+1} as the full run recorded."""
    X, y = blobs(60, K=3, noise=0.1, seed=10)
    run = ALL[name](X, y, GAUSS, n_classes=3)
    for t in (5, 17, 33, 59):
        part = ALL[name](X[:t], y[:t], GAUSS, n_classes=3)
        np.testing.assert_allclose(part.decision_function(X[t], GAUSS)[0], run.scores[t],
                                   atol=1e-10)
    again = ALL[name](X, y, GAUSS, n_classes=3)             # deterministic
    np.testing.assert_array_equal(again.scores, run.scores)
    np.testing.assert_array_equal(again.coef, run.coef)
    # record consistency
    np.testing.assert_array_equal(run.pred, np.argmax(run.scores, 1))
    assert np.all(run.mistake <= run.error)
    np.testing.assert_allclose(run.loss, np.maximum(0, 1 - run.margin))
    assert run.support.shape == (run.n_support, 2) and run.coef.shape == (run.n_support, 3)


def test_bad_input():
    with pytest.raises(ValueError):
        mr.perceptron_max(np.zeros((3, 2)), [0, 1, 3], LIN, n_classes=3)
    with pytest.raises(ValueError):
        mr.crammer_singer_perceptron(np.zeros((3, 2)), [0, 1, 1], LIN, update="best")
    with pytest.raises(ValueError):
        mr.projectron(np.zeros((3, 2)), [0, 1, 1], LIN, eta=-1)


# -- the DOGMA convention of the Projectron++ -----------------------------------------------
# (checked once against DOGMA's k_projectron2_multi_train under Octave: same support rounds,
# scores within 5e-12 on 200 rounds, K = 4, Gaussian kernel; see the notes)

def test_dogma_convention_thresholds():
    X, y = blobs(200, K=4, noise=0.1, seed=21)
    eta = 0.05                                   # DOGMA: bound on each SQUARED residual
    r = mr.projectron_pp(X, y, GAUSS, eta=eta, convention="dogma")
    proj, add, marg = (r.kind == "project"), (r.kind == "add"), (r.kind == "margin")
    assert proj.any() and add.any() and marg.any()
    assert np.all(r.residual[proj] ** 2 <= 2 * eta + 1e-12)   # both squared residuals <= eta
    assert np.all(r.residual[add] ** 2 > eta)                  # one of them > eta
    # margin updates: l - (res2_y + res2_s) / (2 eta) > 0
    assert np.all(r.loss[marg] - r.residual[marg] ** 2 / (2 * eta) > 0)
    okl = mr.projectron_pp(X, y, GAUSS, eta=eta)
    assert okl.n_support != r.n_support          # the two conventions are different rules
    # at eta = 0 both are the max-score Perceptron on this stream
    p = mr.perceptron_max(X, y, GAUSS)
    z = mr.projectron_pp(X, y, GAUSS, eta=0.0, convention="dogma")
    np.testing.assert_allclose(z.scores, p.scores, atol=1e-9)
