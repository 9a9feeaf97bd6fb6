"""BudgetedSVM's online set beside BSGD (issue 27 item 3): Pegasos without a budget --
KernelPegasos and MulticlassKernelPegasos (the "Pegasos" of the BSGD paper's Tables 3) and
LinearPegasos (budgetedsvm-train -A 0) -- and online AMM (budgetedsvm-train -A 2).

Each learner round for round against its plain-numpy oracle of tests/oracles/bsgd.py
(``kernel_pegasos``, ``pegasos_linear``, ``amm_online``; float64, classes sorted), both
variants: predictions exactly, every class's score to 1e-9 (kernel Pegasos: every round;
the linear models: the oracle's model on each prefix scoring the next row), losses to
1e-9, the final model (support vectors and coefficients; hyperplanes per class and every
hyperplane, the number pruned by each pass).  Against BudgetedSVM's own model files
(tests/fixtures/budgetedsvm/, variant="budgetedsvm", labels relabelled so that sorted
order is BudgetedSVM's order of first appearance): hyperplanes per class, every
hyperplane to the file's precision (as tests/oracles/test_bsgd_oracles.py), the number
of hyperplanes pruned, the labels the written model predicts.  Then CSR rows, epochs,
pickling mid-stream, refusals and the contract.
"""
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import okl
from okl.learners.amm import AMMOnline
from okl.learners.pegasos import KernelPegasos, LinearPegasos, MulticlassKernelPegasos
from okl.testing import check_learner
from oracles import bsgd as O

SIGMA = 1.0
GAUSS = O.Kernel("gaussian", gamma=O.gamma_from_sigma(SIGMA))
TOL = 1e-9
FIX = Path(__file__).resolve().parent / "fixtures" / "budgetedsvm"
LAM32 = float(np.float32(0.01))          # budgetedsvm-train reads -L 0.01 into a float


def sectors(n=300, d=3, seed=0, classes=4):
    """K angular sectors (tests/oracles/test_bsgd_oracles.py's multiclass stream)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (np.floor((np.arctan2(X[:, 1], X[:, 0]) + np.pi) / (2 * np.pi / classes))
         .astype(int) % classes) + 1
    return X, y


def ring(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4, 1, -1)


def board(n=600, classes=4, seed=0):
    """A checkerboard of unit cells in [-2, 2]^2 (plus a noise coordinate), ``classes``
    labels: linear models need many hyperplanes and prune many."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    cell = (np.floor(X[:, 0]) + 2 * np.floor(X[:, 1])).astype(int)
    return X, (cell % classes) + 1


def close(a, b, tol=TOL):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol)


def prefix_scores(oracle_of_prefix, X, checkpoints):
    """The class scores of row ``t`` by the oracle's model after ``t`` rounds."""
    return np.array([oracle_of_prefix(t).decision(X[t:t + 1])[0] for t in checkpoints])


def fixture_data(name, part):
    """A fixture file with labels relabelled 0, 1, ... in order of first appearance in
    the training file (BudgetedSVM's class order), and that order."""
    X, y = O.read_libsvm(FIX / f"{name}_{part}.txt", 3)
    Xtr, ytr = O.read_libsvm(FIX / f"{name}_train.txt", 3)
    order = list(dict.fromkeys(ytr.tolist()))
    rank = {label: i for i, label in enumerate(order)}
    return X, np.array([rank[v] for v in y]), order


def log_count(name, pattern):
    m = re.search(pattern + r":\s*(\d+)", (FIX / f"{name}.log").read_text())
    return int(m.group(1))


# ----------------------------------------------------------------------------------
# kernel Pegasos
# ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lam", [0.01, 0.2])
def test_kernel_pegasos_matches_its_oracle(lam):
    X, y = ring()
    learner = KernelPegasos(okl.Gaussian(SIGMA), lam=lam)
    tr = learner.run(X, y)
    o = O.kernel_pegasos(X, y, lam=lam, kernel=GAUSS, variant="paper", binary=True)
    close(tr.scores, o.scores[:, 0])
    np.testing.assert_array_equal(np.where(tr.scores >= 0, 1, -1), o.predictions.astype(int))
    close(tr.losses, o.losses)
    np.testing.assert_array_equal(tr.budget, np.cumsum(o.updated))
    np.testing.assert_array_equal(learner.support_vectors, o.model.sv)
    close(learner.coefficients, o.model.alpha[:, 0])
    assert learner.n_updates == o.updated.sum()
    # Eq. 3.7: every coefficient is +-1 / (lam T)
    close(np.abs(learner.coefficients), 1.0 / (lam * len(y)), 1e-12)


def test_kernel_pegasos_budgetedsvm_is_its_two_class_run():
    """BudgetedSVM's two-class model f = f^(+1) - f^(-1): the binary rule at lam / 2 with
    a first coefficient 2 y."""
    X, y = ring(seed=3)
    learner = KernelPegasos(okl.Gaussian(SIGMA), lam=0.02, variant="budgetedsvm")
    tr = learner.run(X, y)
    assert learner.lam_ == 0.01
    o = O.kernel_pegasos(X, y, lam=0.02, kernel=GAUSS, variant="budgetedsvm", classes=[-1, 1])
    close(tr.scores, o.scores[:, 1] - o.scores[:, 0])
    close(tr.losses, o.losses)
    close(learner.coefficients, o.model.alpha[:, 1] - o.model.alpha[:, 0])
    assert learner.coefficients[0] == pytest.approx(2 * y[0] / len(y))


@pytest.mark.parametrize("variant", ["paper", "budgetedsvm"])
@pytest.mark.parametrize("K", [3, 4])
def test_multiclass_kernel_pegasos_matches_its_oracle(variant, K):
    X, y = sectors(classes=K, seed=K)
    learner = MulticlassKernelPegasos(okl.Gaussian(SIGMA), lam=0.01, variant=variant)
    tr = learner.run(X, y)
    o = O.kernel_pegasos(X, y, lam=0.01, kernel=GAUSS, variant=variant,
                         classes=sorted(set(y)))
    np.testing.assert_array_equal(tr.predictions, o.predictions.astype(int))
    close(tr.class_scores, o.scores)
    close(tr.losses, o.losses)
    np.testing.assert_array_equal(tr.budget, np.cumsum(o.updated))
    np.testing.assert_array_equal(learner.support_vectors, o.model.sv)
    close(learner.coefficients, o.model.alpha)
    close(learner.decision_function(X), o.model.decision(X))


def test_kernel_pegasos_epochs_are_the_stream_run_again():
    X, y = sectors(n=150, classes=3)
    learner = MulticlassKernelPegasos(okl.Gaussian(SIGMA), lam=0.05)
    first, second = learner.run(X, y), learner.run(X, y)
    o = O.kernel_pegasos(X, y, lam=0.05, kernel=GAUSS, variant="paper", epochs=2,
                         classes=[1, 2, 3])
    close(np.vstack([first.class_scores, second.class_scores]), o.scores)
    close(learner.coefficients, o.model.alpha)


# ----------------------------------------------------------------------------------
# linear Pegasos
# ----------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["paper", "budgetedsvm"])
@pytest.mark.parametrize("K,bias", [(2, 1.0), (3, 0.0), (4, 0.5)])
def test_linear_pegasos_matches_its_oracle(variant, K, bias):
    X, y = sectors(classes=K, seed=10 + K) if K > 2 else ring(seed=5)
    classes = sorted(set(y))
    learner = LinearPegasos(lam=0.01, bias=bias, variant=variant)
    tr = learner.run(X, y)

    def oracle(n, epochs=1):
        return O.pegasos_linear(X[:n], y[:n], lam=0.01, bias=bias, variant=variant,
                                classes=classes, epochs=epochs)

    o = oracle(len(y))
    np.testing.assert_array_equal(tr.predictions, o.predictions.astype(int))
    close(tr.losses, o.losses)
    np.testing.assert_array_equal(tr.losses > 0, o.updated)
    close(learner.weights, np.array([w[0] for w in o.weights]))
    close(learner.decision_function(X), o.decision(X))
    checkpoints = list(range(0, len(y), 23))
    close(tr.class_scores[checkpoints], prefix_scores(oracle, X, checkpoints))
    # a second epoch continues t
    tr2 = learner.run(X, y)
    o2 = oracle(len(y), epochs=2)
    np.testing.assert_array_equal(tr2.predictions, o2.predictions[len(y):].astype(int))
    close(learner.weights, np.array([w[0] for w in o2.weights]))


@pytest.mark.parametrize("variant", ["paper", "budgetedsvm"])
def test_linear_pegasos_csr_rows_are_the_dense_rows(variant):
    X, y = sectors(n=200, d=8, classes=3, seed=2)
    X[np.abs(X) < 0.8] = 0.0
    a = LinearPegasos(lam=0.01, variant=variant)
    b = LinearPegasos(lam=0.01, variant=variant)
    ta, tb = a.run(X, y), b.run(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(ta.class_scores, tb.class_scores)
    np.testing.assert_array_equal(a.weights, b.weights)


@pytest.mark.parametrize("name,epochs", [("bin_pegasos", 1), ("mc_pegasos_e2", 2)])
def test_linear_pegasos_equals_budgetedsvm_model(name, epochs):
    data = "bin" if name.startswith("bin") else "mc"
    X, y, order = fixture_data(data, "train")
    learner = LinearPegasos(lam=LAM32, variant="budgetedsvm")
    for _ in range(epochs):
        learner.run(X, y)
    model = O.load_model(FIX / f"{name}.model")
    assert model.labels == order
    for w, [(deg, v)] in zip(learner.weights, model.weights):
        # w = degradation * v, the degradation printed with 10 decimals, v in float32
        np.testing.assert_allclose(w, deg * v, rtol=0, atol=5e-8 * max(1.0, np.abs(w).max()))
    Xt, _, _ = fixture_data(data, "test")
    labels, _ = O.predict_model(model, Xt)
    np.testing.assert_array_equal(np.asarray(order)[learner.predict(Xt)], labels)


# ----------------------------------------------------------------------------------
# online AMM
# ----------------------------------------------------------------------------------

def same_hyperplanes(learner, weights, tol=TOL):
    assert learner.hyperplanes_.tolist() == [len(ws) for ws in weights]
    for mine, theirs in zip(learner.weights, weights):
        if len(theirs):
            close(mine, np.array(theirs), tol)


AMM_CASES = [(variant, K, B, k, c) for variant in ("paper", "budgetedsvm")
             for K, B, k, c in [(2, 8, 40, 3.0), (3, 3, 40, 3.0), (4, None, 40, 3.0),
                                (4, 8, 1, 3.0), (3, 8, 30, 10.0)]]


@pytest.mark.parametrize("variant,K,B,k,c", AMM_CASES)
def test_amm_matches_its_oracle(variant, K, B, k, c):
    X, y = board(classes=K, seed=K)
    classes = sorted(set(y))
    lam = 0.05 if c == 10.0 else 0.01
    learner = AMMOnline(lam=lam, B=B, k=k, c=c, variant=variant)
    tr = learner.run(X, y)

    def oracle(n):
        return O.amm_online(X[:n], y[:n], lam=lam, max_weights=B, prune_every=k,
                            prune_c=c, variant=variant, classes=classes)

    o = oracle(len(y))
    np.testing.assert_array_equal(tr.predictions, o.predictions.astype(int))
    close(tr.losses, o.losses)
    np.testing.assert_array_equal(tr.losses > 0, o.updated)
    same_hyperplanes(learner, o.weights)
    close(learner.decision_function(X), o.decision(X))
    assert tr.extras["pruning_deleted"] == [n for _, n in o.prunings]
    assert tr.extras["pruned"] == sum(n for _, n in o.prunings) > 0
    assert tr.extras["hyperplanes"] == [len(ws) for ws in o.weights]
    assert tr.budget[-1] == sum(len(ws) for ws in o.weights)
    if B is not None:
        assert tr.budget.max() <= K * B
    checkpoints = list(range(0, len(y), 37))
    close(tr.class_scores[checkpoints], prefix_scores(oracle, X, checkpoints))


@pytest.mark.parametrize("variant", ["paper", "budgetedsvm"])
def test_amm_epochs_are_the_stream_run_again(variant):
    X, y = board(n=300, classes=3, seed=7)
    learner = AMMOnline(lam=0.01, B=6, k=40, c=3.0, variant=variant)
    first, second = learner.run(X, y), learner.run(X, y)
    o = O.amm_online(X, y, lam=0.01, max_weights=6, prune_every=40, prune_c=3.0,
                     variant=variant, classes=[1, 2, 3], epochs=2)
    np.testing.assert_array_equal(np.concatenate([first.predictions, second.predictions]),
                                  o.predictions.astype(int))
    close(np.concatenate([first.losses, second.losses]), o.losses)
    same_hyperplanes(learner, o.weights)
    assert first.extras["pruning_deleted"] + second.extras["pruning_deleted"] == \
        [n for _, n in o.prunings]


@pytest.mark.parametrize("variant", ["paper", "budgetedsvm"])
def test_amm_csr_rows_are_the_dense_rows(variant):
    X, y = board(n=400, classes=3, seed=4)
    X = np.hstack([X, np.zeros((len(X), 5))])
    X[np.abs(X) < 0.5] = 0.0
    a = AMMOnline(lam=0.01, B=6, k=40, c=3.0, variant=variant)
    b = AMMOnline(lam=0.01, B=6, k=40, c=3.0, variant=variant)
    ta, tb = a.run(X, y), b.run(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(ta.predictions, tb.predictions)
    close(ta.class_scores, tb.class_scores, 1e-13)
    assert a.hyperplanes_.tolist() == b.hyperplanes_.tolist()
    for wa, wb in zip(a.weights, b.weights):
        close(wa, wb, 1e-13)


AMM_FIXTURES = [("bin_amm_online", "bin", 1), ("mc_amm_online", "mc", 1),
                ("mc_amm_online_e2", "mc", 2)]


@pytest.mark.parametrize("name,data,epochs", AMM_FIXTURES)
def test_amm_equals_budgetedsvm_model(name, data, epochs):
    """budgetedsvm-train -A 2 -B 5 -k 50 -c 1 -L 0.01 -r 0 (runs.txt)."""
    X, y, order = fixture_data(data, "train")
    learner = AMMOnline(lam=LAM32, B=5, k=50, c=1.0, variant="budgetedsvm")
    for _ in range(epochs):
        learner.run(X, y)
    model = O.load_model(FIX / f"{name}.model")
    assert model.labels == order
    assert learner.hyperplanes_.tolist() == [len(ws) for ws in model.weights]
    for ws, fws in zip(learner.weights, model.weights):
        for w, (deg, v) in zip(ws, fws):
            np.testing.assert_allclose(w, deg * v, rtol=0,
                                       atol=5e-8 * max(1.0, np.abs(w).max()))
    assert learner.pruned == log_count(name, "Number of weights deleted")
    Xt, yt, _ = fixture_data(data, "test")
    labels, _ = O.predict_model(model, Xt)
    mine = np.asarray(order)[learner.predict(Xt)]
    np.testing.assert_array_equal(mine, labels)
    if name == "mc_amm_online":
        # budgetedsvm-predict reads the model with its first character skipped (its
        # first hyperplane's degradation read as 1): its .pred is not this model's
        printed = np.loadtxt(FIX / f"{name}.pred")[:, 0].astype(int)
        truth = np.asarray(order)[yt]
        assert np.mean(printed != truth) > np.mean(mine != truth) + 0.1


def test_amm_budgetedsvm_never_empties_a_class_and_caps_each():
    X, y = board(classes=4, seed=9)
    learner = AMMOnline(lam=0.05, B=3, k=20, c=10.0, variant="budgetedsvm")
    tr = learner.run(X, y)
    assert tr.extras["pruned"] > 50
    assert learner.hyperplanes_.min() >= 1 and learner.hyperplanes_.max() <= 3
    paper = AMMOnline(lam=0.05, B=3, k=20, c=10.0).run(X, y)
    assert min(paper.extras["hyperplanes"]) >= 0 and max(paper.extras["hyperplanes"]) <= 3


@pytest.mark.parametrize("variant", ["paper", "budgetedsvm"])
def test_amm_pickle_mid_stream(variant):
    X, y = board(classes=3, seed=2)
    kw = dict(lam=0.01, B=5, k=40, c=3.0, variant=variant)
    whole = AMMOnline(**kw)
    t_whole = whole.run(X, y)
    part = AMMOnline(**kw)
    t_part = part.run(X[:263], y[:263])
    clone = pickle.loads(pickle.dumps(part))
    rest = clone.run(X[263:], y[263:])
    np.testing.assert_array_equal(rest.class_scores, t_whole.class_scores[263:])
    np.testing.assert_array_equal(rest.losses, t_whole.losses[263:])
    np.testing.assert_array_equal(rest.budget, t_whole.budget[263:])
    assert (t_part.extras["pruning_deleted"] + rest.extras["pruning_deleted"]
            == t_whole.extras["pruning_deleted"])
    assert clone.pruned == whole.pruned


@pytest.mark.parametrize("kw,words", [
    (dict(B=0), "B"), (dict(k=0), "k"), (dict(c=-1.0), "c"), (dict(lam=0.0), "lam"),
    (dict(variant="code"), "variant"),
])
def test_amm_refusals_name_the_parameter(kw, words):
    with pytest.raises(ValueError, match=words):
        AMMOnline(**kw)


def test_amm_defaults_are_budgetedsvms():
    learner = AMMOnline()
    assert (learner.lam, learner.B, learner.k, learner.c, learner.bias) == \
        (1e-4, 50, 10000, 10.0, 1.0)
    assert okl.learners.roles(AMMOnline)["budget"] == "B"


# ----------------------------------------------------------------------------------
# pickling, refusals, the contract
# ----------------------------------------------------------------------------------

PICKLED = [
    (KernelPegasos, dict(kernel=okl.Gaussian(SIGMA), lam=0.01), "ring"),
    (KernelPegasos, dict(kernel=okl.Gaussian(SIGMA), lam=0.01, variant="budgetedsvm"), "ring"),
    (MulticlassKernelPegasos, dict(kernel=okl.Gaussian(SIGMA), lam=0.01), "sectors"),
    (LinearPegasos, dict(lam=0.01, variant="budgetedsvm"), "sectors"),
    (LinearPegasos, dict(lam=0.01, bias=0.0), "sectors"),
]


def _stream(kind):
    return ring() if kind == "ring" else sectors(classes=4)


@pytest.mark.parametrize("cls,kw,kind", PICKLED)
def test_pickle_mid_stream(cls, kw, kind):
    X, y = _stream(kind)
    whole = cls(**kw)
    t_whole = whole.run(X, y)
    part = cls(**kw)
    part.run(X[:137], y[:137])
    clone = pickle.loads(pickle.dumps(part))
    rest = clone.run(X[137:], y[137:])
    np.testing.assert_array_equal(rest.scores, t_whole.scores[137:])
    np.testing.assert_array_equal(rest.losses, t_whole.losses[137:])
    np.testing.assert_array_equal(clone.decision_function(X), whole.decision_function(X))


@pytest.mark.parametrize("cls,kw,words", [
    (KernelPegasos, dict(lam=0.0), "lam"),
    (KernelPegasos, dict(variant="code"), "variant"),
    (LinearPegasos, dict(lam=-1.0), "lam"),
    (LinearPegasos, dict(bias=float("nan")), "bias"),
])
def test_refusals_name_the_parameter(cls, kw, words):
    with pytest.raises(ValueError, match=words):
        cls(**kw)


LEARNERS = [KernelPegasos, MulticlassKernelPegasos, LinearPegasos, AMMOnline]


@pytest.mark.parametrize("cls", LEARNERS, ids=[c.__name__ for c in LEARNERS])
def test_contract(cls):
    entry = okl.learners.get(cls.__name__)
    assert entry.paper == "bsgd" and entry.role == "baseline"
    for example in entry.examples:
        check_learner(cls, **example)
