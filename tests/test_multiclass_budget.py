"""The budgeted multiclass set of LIBOKL's MATLAB toolbox (issue 26): MulticlassOGD, RBP,
Forgetron, BPAs, BOGD, FOGD, NOGD (okl/learners/multiclass_budget.py).

Each learner against its plain-numpy oracle (tests/oracles/libokl_multiclass.py, which
reproduces the MATLAB code under Octave round for round) and, where the run is
deterministic or its draws can be given, against the MATLAB code's own per-round output
(tests/fixtures/libokl_multiclass/):

* the toolbox's dna and satimage, permutation 1: the first 400 rounds with Budget 20
  (every budget maintenance exercised), and the first 1,000 rounds with Experiment.m's
  parameters (the whole permutation with OKL_LIBOKL_FULL=1);
* small generated streams (K = 3, 4, a Gaussian kernel of width 1), with the options that
  give the papers' rules against small references written here;

predicted class and mistakes exactly, support size per round, every class's score, the
margin and the loss to 1e-9 (relative beyond 1: the toolbox's Forgetron scales its model
up by 30-60), the final hypothesis and the algorithm's counts.  RBP is fed the learner's
own uniforms (the oracle takes draws), FOGD the learner's frequencies; against Octave,
FOGD takes Octave's Gaussian matrix and RBP is compared up to its first removal (Octave's
draws are not the learner's).  Then pickling mid-stream, the contract, the parameters.
"""
import os
import pickle

import numpy as np
import pytest

import okl
from okl.learners.multiclass import MulticlassPerceptron
from okl.learners.multiclass_budget import (MulticlassBOGD, MulticlassBPAs,
                                            MulticlassFOGD, MulticlassForgetron,
                                            MulticlassNOGD, MulticlassOGD, MulticlassRBP)
from oracles import libokl_fixtures as F
from oracles import libokl_multiclass as O

SIGMA = 8.0                       # Experiment.m's options.sigma
TOL = 1e-9
FULL = bool(os.environ.get("OKL_LIBOKL_FULL"))
N_EXPERIMENT = None if FULL else 1000

LEARNERS = {"ogd": MulticlassOGD, "RBP": MulticlassRBP, "forgetron": MulticlassForgetron,
            "BPAs": MulticlassBPAs, "BOGD": MulticlassBOGD, "FouGD": MulticlassFOGD,
            "NyGD": MulticlassNOGD}


# ----------------------------------------------------------------------------------
# learner and oracle side by side
# ----------------------------------------------------------------------------------

def make(key, B, classes, kernel=None, seed=11, **kw):
    """The okl learner of the toolbox's file ``key`` with budget ``B`` (Experiment.m's
    other parameters are the defaults)."""
    kernel = okl.Gaussian(SIGMA) if kernel is None else kernel
    cls = LEARNERS[key]
    if key == "ogd":
        return cls(kernel, classes=classes, **kw)
    if key == "FouGD":
        return cls(kernel, D=O._mround(4 * B), classes=classes, seed=seed, **kw)
    return cls(kernel, B=B, classes=classes, seed=seed, **kw)


def oracle(key, X, y, B, learner, sigma=SIGMA, n_classes=None, **kw):
    """The oracle of ``key`` on the stream, with the learner's draws."""
    f = O.LEARNERS[key]
    if key != "ogd":
        kw["Budget"] = B
    if key == "RBP":
        probe = MulticlassRBP(okl.Gaussian(sigma), B=B, seed=learner.seed)
        kw["draws"] = probe._uniform_draws(len(y))
    if key == "FouGD":
        kw["gauss"] = learner.frequencies * sigma
    return f(X, y, sigma=sigma, n_classes=n_classes, **kw)


def same_scores(a, b, tol=TOL):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def check_against(tr, learner, o, classes, key, lab):
    """The learner's trace and final state against the oracle's run."""
    pred = np.searchsorted(classes, tr.predictions)
    np.testing.assert_array_equal(pred, o.pred)
    np.testing.assert_array_equal(tr.mistakes, o.mistakes)
    same_scores(tr.class_scores, o.scores)
    V = o.scores
    K = V.shape[1]
    others = np.where(np.arange(K)[None, :] == lab[:, None], -np.inf, V)
    margin = V[np.arange(len(lab)), lab] - others.max(axis=1)
    same_scores(tr.scores, margin)
    if key in ("RBP", "forgetron"):
        same_scores(tr.losses, np.maximum(0.0, -margin))
    else:
        same_scores(tr.losses, np.maximum(0.0, 1.0 - margin))
    if key == "FouGD":
        assert np.all(tr.budget == learner.D)
        same_scores(learner.weights, o.coef)
        return
    np.testing.assert_array_equal(tr.budget, o.support_size)
    np.testing.assert_array_equal(learner.support_rounds - 1, o.support)
    if key == "NyGD" and learner.switched:
        Vb, ev, w = o.model["eigvecs"], o.model["eigvals"], o.coef
        same_scores(learner.coefficients, (Vb * ev ** -0.5) @ w.T)
    else:
        same_scores(learner.coefficients, o.coef.T)
    if key == "forgetron":
        assert np.isclose(learner.Q, o.model["Q"], rtol=1e-9, atol=1e-9)
        phis = o.model["phis"]
        assert tr.extras["removals"] == len(phis)
        assert tr.extras["upscalings"] == int(np.sum(phis > 1))


def run_both(key, X, y, B, classes, **kw):
    learner = make(key, B, classes, **kw)
    if key == "FouGD":                        # draw the frequencies first (for the oracle)
        learner._ensure_allocated(X.shape[1])
    tr = learner.run(X, y)
    o = oracle(key, X, y, B, learner, n_classes=len(classes))
    return learner, tr, o


def labels_of(y, classes):
    return np.searchsorted(classes, y)


# ----------------------------------------------------------------------------------
# the toolbox's data: Budget 20, first 400 rounds
# ----------------------------------------------------------------------------------

@pytest.fixture(scope="module", params=["dna", "satimage"])
def b20(request):
    rounds = F.load_rounds(request.param, "b20")
    X, y = F.load_stream(request.param, run=1, n_rounds=rounds["n_rounds"])
    return request.param, X, y, rounds


def _first_removal(ref, B):
    """The round of the first budget-full mistake (RBP's first draw)."""
    full = np.r_[False, ref["support_size"][:-1] == B]
    hits = np.flatnonzero(full & ref["mistakes"])
    return int(hits[0]) if hits.size else len(ref["pred"])


@pytest.mark.parametrize("key", list(LEARNERS))
def test_budget20_against_oracle_and_octave(b20, key):
    name, X, y, rounds = b20
    B = rounds["budget"]
    classes = list(range(1, int(y.max()) + 1))
    learner, tr, o = run_both(key, X, y, B, classes)
    check_against(tr, learner, o, classes, key, labels_of(y, classes))
    ref = rounds[key]
    pred = labels_of(tr.predictions, classes)
    if key == "RBP":                          # Octave's draws are not the learner's
        n = _first_removal(ref, B) + 1
        assert 20 < n < len(y)
        np.testing.assert_array_equal(pred[:n], ref["pred"][:n])
        assert tr.extras["removals"] > 100
        return
    if key == "FouGD":                        # Octave's Gaussian matrix
        learner = make(key, B, classes)
        learner._ensure_allocated(X.shape[1])
        learner._fogd_allocate((1.0 / SIGMA) * rounds["FouGD.gauss"])
        tr = learner.run(X, y)
        pred = labels_of(tr.predictions, classes)
        same_scores(tr.class_scores, ref["scores"])
    else:
        same_scores(tr.class_scores, ref["scores"])
        np.testing.assert_array_equal(tr.budget, ref["support_size"])
        assert key == "ogd" or tr.budget.max() == B
    np.testing.assert_array_equal(pred, ref["pred"])
    np.testing.assert_array_equal(tr.mistakes, ref["mistakes"])


def test_budget20_exercises_every_rule(b20):
    """The runs above meet what they test: removals, up-scalings, replacements, the
    switch."""
    name, X, y, rounds = b20
    classes = list(range(1, int(y.max()) + 1))
    ex = {key: make(key, 20, classes).run(X, y).extras for key in LEARNERS}
    assert ex["forgetron"]["removals"] > 100 and ex["forgetron"]["upscalings"] >= 1
    assert ex["BPAs"]["replacements"] > 100
    assert ex["BOGD"]["removals"] > 100
    assert ex["NyGD"]["switched"] and ex["NyGD"]["rank"] == 4
    assert ex["ogd"]["n_updates"] > 300


# ----------------------------------------------------------------------------------
# the toolbox's data: Experiment.m's parameters
# ----------------------------------------------------------------------------------

@pytest.fixture(scope="module", params=["dna", "satimage"])
def experiment(request):
    rounds = F.load_rounds(request.param, "full")
    X, y = F.load_stream(request.param, run=1, n_rounds=N_EXPERIMENT)
    return request.param, X, y, rounds


@pytest.mark.parametrize("key", list(LEARNERS))
def test_experiment_parameters_against_oracle_and_octave(experiment, key):
    name, X, y, rounds = experiment
    B = 200
    n = len(y)
    classes = list(range(1, int(y.max()) + 1))
    learner = make(key, B, classes)
    # the defaults are Experiment.m's options (but the kernel, given)
    ex = O.EXPERIMENT_OPTIONS
    expected = {"ogd": dict(eta=ex["eta"]), "RBP": dict(B=ex["Budget"]),
                "forgetron": dict(B=ex["Budget"]),
                "BPAs": dict(B=ex["Budget"], C=ex["C_BPAs"]),
                "BOGD": dict(B=ex["Budget"], eta=ex["eta"], lam=ex["lambda_"], gamma=None),
                "FouGD": dict(D=ex["rou_f"] * ex["Budget"], eta=ex["eta_fou"]),
                "NyGD": dict(B=ex["Budget"], eta=ex["eta"], k=None)}[key]
    default = type(learner)()
    for p, v in expected.items():
        assert getattr(default, p) == v, p
    if key == "NyGD":
        assert default.k_ == O._mround(ex["k"] * ex["Budget"]) == 40
    learner, tr, o = run_both(key, X, y, B, classes)
    check_against(tr, learner, o, classes, key, labels_of(y, classes))
    ref = rounds[key]
    pred = labels_of(tr.predictions, classes)
    if key == "RBP":
        m = _first_removal(ref, B) + 1
        assert m > 300
        np.testing.assert_array_equal(pred[:m], ref["pred"][:m])
        return
    if key == "FouGD":
        learner = make(key, B, classes)
        learner._ensure_allocated(X.shape[1])
        learner._fogd_allocate((1.0 / SIGMA) * rounds["FouGD.gauss"])
        tr = learner.run(X, y)
        pred = labels_of(tr.predictions, classes)
    else:
        np.testing.assert_array_equal(tr.budget, ref["support_size"][:n])
    np.testing.assert_array_equal(pred, ref["pred"][:n])
    np.testing.assert_array_equal(tr.mistakes, ref["mistakes"][:n])
    head = min(n, len(ref["scores_head"]))
    same_scores(tr.class_scores[:head], ref["scores_head"][:head])
    gap = np.sort(tr.class_scores, axis=1)
    np.testing.assert_allclose(gap[:, -1] - gap[:, -2], ref["gap"][:n], rtol=1e-5,
                               atol=1e-5)


def test_libokl_perceptron_is_the_libol_convention(experiment):
    """perceptron.m is MulticlassPerceptron(update="max", convention="libol") (an update
    iff the prediction is wrong, -1 on the best wrong class); the paper convention also
    updates on a tie that predicts right (round 1 when the first label is the first
    class), so it is not."""
    name, X, y, rounds = experiment
    classes = list(range(1, int(y.max()) + 1))
    tr = MulticlassPerceptron(okl.Gaussian(SIGMA), convention="libol",
                              classes=classes).run(X, y)
    o = O.perceptron(X, y, sigma=SIGMA)
    np.testing.assert_array_equal(labels_of(tr.predictions, classes), o.pred)
    np.testing.assert_array_equal(labels_of(tr.predictions, classes),
                                  rounds["perceptron"]["pred"][:len(y)])
    same_scores(tr.class_scores, o.scores)
    np.testing.assert_array_equal(tr.budget, o.support_size)
    Xg, yg = stream(K=3, seed=5)
    yg[0] = 0
    o = O.perceptron(Xg, yg, sigma=1.0)
    libol = MulticlassPerceptron(okl.Gaussian(1.0), convention="libol").run(Xg, yg)
    paper = MulticlassPerceptron(okl.Gaussian(1.0)).run(Xg, yg)
    np.testing.assert_array_equal(libol.predictions, o.pred)
    same_scores(libol.class_scores, o.scores)
    assert paper.budget[0] == 1 and o.support_size[0] == 0


# ----------------------------------------------------------------------------------
# generated streams
# ----------------------------------------------------------------------------------

def stream(T=300, d=3, K=3, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    W = rng.normal(size=(d, K))
    y = np.argmax(X @ W + noise * rng.normal(size=(T, K)), axis=1)
    return X, y


GENERATED = [("ogd", {}), ("RBP", {}), ("forgetron", {}), ("BPAs", {}),
             ("BPAs", dict(C=0.05)), ("BOGD", {}), ("BOGD", dict(gamma=1.5)),
             ("FouGD", {}), ("NyGD", {}), ("NyGD", dict(k=10))]


@pytest.mark.parametrize("K", [3, 4])
@pytest.mark.parametrize("key, kw", GENERATED)
def test_generated_streams_against_oracle(key, kw, K):
    X, y = stream(K=K, seed=20 + K)
    classes = list(range(K))
    B = 25
    okw = dict(kw)
    learner = make(key, B, classes, kernel=okl.Gaussian(1.0), **kw)
    if key == "FouGD":
        learner._ensure_allocated(X.shape[1])
    tr = learner.run(X, y)
    if key == "BPAs" and "C" in okw:
        okw = dict(C=okw["C"])
    if key == "NyGD" and "k" in okw:
        okw = dict(k=okw["k"] / B)
    if key == "FouGD":
        okw["eta_fou"] = learner.eta
    o = oracle(key, X, y, B, learner, sigma=1.0, n_classes=K, **okw)
    check_against(tr, learner, o, classes, key, y)
    if key in ("RBP", "forgetron", "BOGD"):
        assert tr.extras["removals"] > 20
    if key == "BPAs":
        assert tr.extras["replacements"] > 20
    if key == "NyGD":
        assert tr.extras["switched"] and tr.extras["switch_round"] < 200


def test_forgetron_paper_root():
    """root="paper": the smallest positive root (phi in (0, 1], the invariant
    Q <= 15/32 M holds); the oracle with that root swapped in."""
    def paper_phi(a, b, c):
        if a + b + c <= 0:
            return 1.0
        if a == 0:
            return max(0.0, min(1.0, -c / b))
        return max(0.0, -2 * c / (b + np.sqrt(max(b * b - 4 * a * c, 0.0))))

    for sigma, data in ((1.0, stream(K=4, seed=3)), (SIGMA, F.load_stream("dna", 1, 400))):
        X, y = data
        classes = np.unique(y)
        learner = MulticlassForgetron(okl.Gaussian(sigma), B=20, root="paper")
        tr = learner.run(X, y)
        saved = O._forgetron_phi
        O._forgetron_phi = paper_phi
        try:
            o = O.forgetron(X, y, sigma=sigma, Budget=20)
        finally:
            O._forgetron_phi = saved
        check_against(tr, learner, o, classes, "forgetron", labels_of(y, classes))
        assert tr.extras["upscalings"] == 0 and np.all(o.model["phis"] <= 1.0)
        assert learner.Q <= 15 / 32 * learner.M + 1e-9
    # the toolbox's root scales up on the same dna stream
    assert MulticlassForgetron(okl.Gaussian(SIGMA), B=20).run(X, y).extras["upscalings"] > 0


def _lists_ref(X, y, K, kernel, rule):
    """A small class-list reference (the oracles' _ClassLists) driven by ``rule``."""
    L = O._ClassLists(K)
    T = len(y)
    pred = np.zeros(T, np.int64)
    scores = np.zeros((T, K))
    size = np.zeros(T, np.int64)
    order = []
    for t in range(T):
        krow = np.array([kernel(X[t], X[j]) for j in range(t)])
        V = L.scores(krow, len(order))
        hat, s, l = O._predict(V, y[t])
        rule(L, order, t, y[t], s, l)
        pred[t], scores[t], size[t] = hat, V, len(order)
    sv, A = L.matrix(order)
    return pred, scores, size, sv, A


def _gauss(sigma):
    return lambda a, b: np.exp(-np.sum((a - b) ** 2) / (2 * sigma ** 2))


def test_ogd_with_norma_decay():
    X, y = stream(K=3, seed=8)
    eta, lam = 0.3, 0.05

    def rule(L, order, t, yt, s, l):
        L.scale(1 - eta * lam)
        if l > 0:
            order.append(t)
            L.append(yt, t, eta)
            L.append(s, t, -eta)

    pred, scores, size, sv, A = _lists_ref(X, y, 3, _gauss(1.0), rule)
    learner = MulticlassOGD(okl.Gaussian(1.0), eta=eta, lam=lam)
    tr = learner.run(X, y)
    np.testing.assert_array_equal(tr.predictions, pred)
    same_scores(tr.class_scores, scores)
    np.testing.assert_array_equal(tr.budget, size)
    same_scores(learner.coefficients, A.T)
    assert tr.extras["n_updates"] == size[-1]


@pytest.mark.parametrize("removal, clip, gamma",
                         [("uniform", "upper", None), ("uniform", "symmetric", 1.2),
                          ("oldest", "symmetric", 1.2)])
def test_bogd_paper_options(removal, clip, gamma):
    """removal="uniform": one draw per budget-full update, position floor(u B) of the
    arrival order removed, survivors times (1 - eta lam) B / (B - 1); clip="symmetric"."""
    X, y = stream(K=4, seed=9)
    eta, lam, B = 0.4, 0.01, 15
    learner = MulticlassBOGD(okl.Gaussian(1.0), B=B, eta=eta, lam=lam, gamma=gamma,
                             removal=removal, clip=clip, seed=4)
    draws = iter(MulticlassBOGD(okl.Gaussian(1.0), seed=4)._uniform_draws(len(y)))
    cap = np.inf if gamma is None else eta * gamma

    def rule(L, order, t, yt, s, l):
        if not l > 0:
            L.scale(1 - eta * lam)
            return
        if len(order) < B:
            L.scale(1 - eta * lam)
        else:
            if removal == "uniform":
                L.scale(B * (1 - lam * eta) / (B - 1))
                L.delete(order.pop(int(next(draws) * B)))
            else:
                L.scale(1 - lam * eta)
                L.delete(order.pop(0))
        order.append(t)
        L.append(yt, t, eta)
        L.append(s, t, -eta)

    # the clip follows a removal only
    def rule_with_clip(L, order, t, yt, s, l):
        full = len(order) == B
        rule(L, order, t, yt, s, l)
        if full and l > 0:
            lo = -cap if clip == "symmetric" else -np.inf
            for c in range(4):
                L.alpha[c] = [min(max(a, lo), cap) for a in L.alpha[c]]

    pred, scores, size, sv, A = _lists_ref(X, y, 4, _gauss(1.0), rule_with_clip)
    tr = learner.run(X, y)
    np.testing.assert_array_equal(tr.predictions, pred)
    same_scores(tr.class_scores, scores)
    np.testing.assert_array_equal(tr.budget, size)
    np.testing.assert_array_equal(learner.support_rounds - 1, sv)
    same_scores(learner.coefficients, A.T)
    assert tr.extras["removals"] > 20
    if gamma is not None:
        assert np.abs(learner.coefficients).max() <= cap + 1e-12
        if clip == "symmetric":
            assert learner.coefficients.min() < 0


def _bpas_general(X, y, K, kernel, C, B):
    """BPAs.m with k(x, x) kept (tau = min(C, l / 2k(x,x)), beta = a k_rt / k_tt + ...,
    ||f - f_r||^2 with k_rr and k_tt)."""
    T = len(y)
    alpha = np.zeros((K, 0))
    SV = []
    pred = np.zeros(T, np.int64)
    scores = np.zeros((T, K))
    for t in range(T):
        kt = np.array([kernel(X[t], X[j]) for j in SV])
        V = alpha @ kt if SV else np.zeros(K)
        hat, s, l = O._predict(V, y[t])
        if l > 0:
            ktt = kernel(X[t], X[t])
            tau = min(C, l / (2 * ktt))
            if len(SV) < B:
                SV.append(t)
                col = np.zeros((K, 1))
                col[y[t]], col[s] = tau, -tau
                alpha = np.hstack([alpha, col])
            else:
                best = (np.inf, None, None)
                for r in range(B):
                    a = alpha[:, r]
                    krt, krr = kt[r], kernel(X[SV[r]], X[SV[r]])
                    beta = a * krt / ktt
                    beta[y[t]] += tau
                    beta[s] -= tau
                    dist = (a @ a) * krr + (beta @ beta) * ktt - 2 * (a @ beta) * krt
                    f = V - a * krt + beta
                    lr = max(0.0, 1 - (f[y[t]] - np.max(np.delete(f, y[t]))))
                    q = 0.5 * dist + C * lr
                    if q < best[0]:
                        best = (q, r, beta)
                alpha[:, best[1]] = best[2]
                SV[best[1]] = t
        pred[t], scores[t] = hat, V
    return pred, scores, np.asarray(SV), alpha


def test_bpas_with_a_kernel_whose_diagonal_is_not_one():
    X, y = stream(T=200, K=3, seed=12)
    kern = okl.Polynomial(degree=2, gamma=0.5, coef0=1.0)
    kfun = lambda a, b: (0.5 * a @ b + 1.0) ** 2       # noqa: E731
    learner = MulticlassBPAs(kern, B=15, C=0.5)
    tr = learner.run(X, y)
    pred, scores, sv, A = _bpas_general(X, y, 3, kfun, 0.5, 15)
    np.testing.assert_array_equal(tr.predictions, pred)
    same_scores(tr.class_scores, scores)
    np.testing.assert_array_equal(learner.support_rounds - 1, sv)
    same_scores(learner.coefficients, A.T)
    assert tr.extras["replacements"] > 20


def test_string_labels_and_csr_rows():
    import scipy.sparse as sp
    X, y = stream(K=3, seed=2)
    abc = np.array(["a", "b", "c"])
    names = abc[y]
    for key in LEARNERS:
        a = make(key, 20, None, kernel=okl.Gaussian(1.0)).run(X, names)
        b = make(key, 20, None, kernel=okl.Gaussian(1.0)).run(sp.csr_matrix(X), y)
        np.testing.assert_array_equal(a.predictions, abc[b.predictions])
        same_scores(a.class_scores, b.class_scores, 1e-12)


# ----------------------------------------------------------------------------------
# pickling mid-stream, the contract, the parameters
# ----------------------------------------------------------------------------------

@pytest.mark.parametrize("key", list(LEARNERS))
def test_pickled_mid_stream_continues_as_the_oracle(key):
    X, y = F.load_stream("satimage", 1, 400)
    classes = list(range(1, 7))
    whole = make(key, 20, classes)
    if key == "FouGD":
        whole._ensure_allocated(X.shape[1])
    a = whole.run(X, y)
    for cut in (0, 37, 250):
        part = make(key, 20, classes)
        first = part.run(X[:cut], y[:cut]) if cut else None
        part = pickle.loads(pickle.dumps(part))
        b = part.run(X[cut:], y[cut:])
        np.testing.assert_array_equal(b.predictions, a.predictions[cut:])
        np.testing.assert_array_equal(b.class_scores, a.class_scores[cut:])
        np.testing.assert_array_equal(b.budget, a.budget[cut:])
        assert b.extras == a.extras
        if first is not None:
            np.testing.assert_array_equal(first.class_scores, a.class_scores[:cut])
    np.testing.assert_array_equal(part.coefficients, whole.coefficients)
    np.testing.assert_array_equal(part.support_vectors, whole.support_vectors)


CONTRACT = [(entry.cls, params) for entry in okl.learners.entries().values()
            if entry.cls in LEARNERS.values() for params in entry.examples]


def test_every_learner_is_registered_with_examples():
    assert {cls for cls, _ in CONTRACT} == set(LEARNERS.values())
    for cls in LEARNERS.values():
        entry = okl.learners.get(cls.__name__)
        assert entry.task == "multiclass" and entry.paper == "multiclass"
        assert okl.params.role_of(cls, "budget") in (None, "B", "D")
    assert okl.params.role_of(MulticlassFOGD, "budget") == "D"
    assert okl.params.role_of(MulticlassOGD, "budget") is None


@pytest.mark.parametrize("cls, params", CONTRACT,
                         ids=[f"{c.__name__}-{i}" for i, (c, _) in enumerate(CONTRACT)])
def test_contract(cls, params):
    okl.check_learner(cls, **params)


def test_parameters():
    assert list(MulticlassBOGD().get_params()) == [
        "kernel", "B", "eta", "lam", "gamma", "removal", "clip", "classes", "seed"]
    assert list(MulticlassNOGD().get_params()) == ["kernel", "B", "k", "eta", "classes",
                                                   "seed"]
    assert MulticlassNOGD(B=13).k_ == 3 and MulticlassNOGD(B=12).k_ == 2
    with pytest.raises(ValueError, match="B must be >= 2"):
        MulticlassBOGD(B=1, removal="uniform")
    with pytest.raises(ValueError, match="eta \\* lam"):
        MulticlassBOGD(eta=2.0, lam=0.5)
    with pytest.raises(ValueError, match="eta \\* lam"):
        MulticlassOGD(eta=2.0, lam=0.5)
    with pytest.raises(ValueError, match="k must be in"):
        MulticlassNOGD(B=10, k=11)
    with pytest.raises(ValueError, match="Gaussian"):
        MulticlassFOGD(okl.Laplacian(1.0))
    with pytest.raises(ValueError, match="root"):
        MulticlassForgetron(root="larger")
    with pytest.raises(ValueError, match="B"):
        MulticlassRBP(B=0)
    with pytest.raises(ValueError, match="C"):
        MulticlassBPAs(C=0.0)
    assert repr(MulticlassForgetron(B=5)) == (
        "MulticlassForgetron(kernel=Gaussian(sigma=1.0), B=5, root='toolbox', classes=None, "
        "seed=None)")
