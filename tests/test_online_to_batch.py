"""The online-to-batch conversion of Theorem 3 (Li & Liao, AAAI 2023)."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

import okl
from okl.learners.online_to_batch import OnlineToBatch, hypothesis_risks
from okl.learners.pomdr import POMDR
from conftest import sparse_stream, xor_stream

MAKERS = {
    "pomdr": lambda: POMDR(kernel=okl.Gaussian(1.0), B=10, B0=4, M=3),
    "pomdr-T": lambda: POMDR(kernel=okl.Gaussian(1.0), B=10, B0=4, M=3, T=120),
    "perceptron": lambda: okl.Perceptron(kernel=okl.Gaussian(1.0)),
    "ahpatron": lambda: okl.Ahpatron(kernel=okl.Gaussian(1.0), B=8),
    "rbp-seeded": lambda: okl.RBP(kernel=okl.Gaussian(1.0), B=8, seed=4),
}


@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("r", [1, 2, 57, 120])
def test_kept_hypothesis_is_the_learner_after_r_minus_1_rounds(name, r):
    X, y = xor_stream(120, 3, seed=3)
    Xt, _ = xor_stream(50, 3, seed=4)
    make = MAKERS[name]
    model = OnlineToBatch(make(), seed=0).fit(X, y, r=r)
    assert model.r_ == r
    # the same learner, run separately for r - 1 rounds (T as the conversion sets it)
    ref = MAKERS["pomdr-T"]() if name == "pomdr" else make()
    full = MAKERS["pomdr-T"]() if name == "pomdr" else make()
    trace = full.run(X, y)
    if r > 1:
        ref.run(X[:r - 1], y[:r - 1])
    np.testing.assert_array_equal(model.decision_function(Xt), ref.decision_function(Xt))
    np.testing.assert_array_equal(model.predict(Xt), ref.predict(Xt))
    assert model.hypothesis_.n_rounds == r - 1
    # f_r is the hypothesis that predicted round r, and the stream was finished
    assert model.decision_function(X[r - 1:r])[0] == trace.scores[r - 1]
    np.testing.assert_array_equal(model.trace_.scores, trace.scores)
    np.testing.assert_array_equal(model.trace_.budget, trace.budget)
    np.testing.assert_array_equal(model.final_.decision_function(Xt), full.decision_function(Xt))
    assert model.learner.n_rounds == 0                      # the given learner is untouched


def test_r_is_uniform_over_the_rounds():
    """Chi-square over 1200 seeds at T = 6 (expected 200 per round), p > 0.1%; the same
    draws with one round dropped (a draw from 1..T-1, the usual off-by-one) fail it."""
    X, y = xor_stream(6, 2, seed=0)
    draws = np.array([OnlineToBatch(okl.Perceptron(), seed=s).fit(X, y).r_
                      for s in range(1200)])
    assert draws.min() == 1 and draws.max() == 6
    counts = np.bincount(draws, minlength=7)[1:]
    chi2, p = stats.chisquare(counts)
    assert p > 1e-3, (counts, chi2)
    off_by_one = np.bincount(np.minimum(draws, 5), minlength=7)[1:]
    assert stats.chisquare(off_by_one).pvalue < 1e-3


def test_same_seed_same_r_and_model():
    X, y = xor_stream(80, 3, seed=1)
    a = OnlineToBatch(POMDR(B=10, B0=4), seed=11).fit(X, y)
    b = OnlineToBatch(POMDR(B=10, B0=4), seed=11).fit(X, y)
    assert a.r_ == b.r_
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.fit(X, y).r_ == b.r_                            # refitting redraws the same r
    rs = {OnlineToBatch(okl.Perceptron(), seed=s).fit(X, y).r_ for s in range(20)}
    assert len(rs) > 10


@pytest.mark.parametrize("name", ["pomdr", "perceptron", "rbp-seeded"])
def test_average_risk_over_r_equals_average_of_the_hypotheses_risks(name):
    """E_r[risk(f_r)] = (1/T) sum_r risk(f_r): the conversion's risk averaged over every r
    equals the mean of the per-round hypotheses' risks (computed by stepping learn_one)."""
    X, y = xor_stream(40, 3, seed=5)
    Xt, yt = xor_stream(60, 3, seed=6)
    make = MAKERS[name]
    per_round = hypothesis_risks(make(), X, y, Xt, yt)
    by_r = np.array([OnlineToBatch(make(), seed=0).fit(X, y, r=r).risk(Xt, yt)
                     for r in range(1, 41)])
    np.testing.assert_array_equal(by_r, per_round)
    assert by_r.mean() == per_round.mean()
    assert per_round[0] == 1.0                 # f_1 = 0: hinge loss 1 on every example
    assert np.ptp(per_round) > 0.05            # the hypotheses differ: the identity has teeth
    # the risk is the mean hinge loss of the kept hypothesis
    m = OnlineToBatch(make(), seed=0).fit(X, y, r=17)
    assert m.risk(Xt, yt) == pytest.approx(np.mean(np.maximum(0, 1 - yt * m.decision_function(Xt))))


def test_csr_input_and_excess_risk_is_measurable():
    X, y = sparse_stream(300, 10, density=0.3, seed=1)
    Xt, yt = sparse_stream(200, 10, density=0.3, seed=2)
    model = OnlineToBatch(POMDR(kernel=okl.Gaussian(1.0), B=20, B0=6, M=4), seed=3).fit(X, y)
    assert 1 <= model.r_ <= 300
    dense = OnlineToBatch(POMDR(kernel=okl.Gaussian(1.0), B=20, B0=6, M=4), seed=3).fit(
        X.toarray(), y)
    np.testing.assert_allclose(model.decision_function(Xt), dense.decision_function(Xt.toarray()),
                               rtol=1e-12, atol=1e-13)
    assert 0.0 <= model.risk(Xt, yt) == pytest.approx(dense.risk(Xt.toarray(), yt))


def test_validation():
    X, y = xor_stream(30, 3, seed=0)
    with pytest.raises(ValueError, match="learner"):
        OnlineToBatch("perceptron")
    with pytest.raises(ValueError, match="seed"):
        OnlineToBatch(okl.Perceptron(), seed=-2)
    fitted = okl.Perceptron()
    fitted.run(X, y)
    with pytest.raises(ValueError, match="unfitted"):
        OnlineToBatch(fitted).fit(X, y)
    m = OnlineToBatch(okl.Perceptron(), seed=1)
    with pytest.raises(ValueError, match="not fitted"):
        m.predict(X)
    with pytest.raises(ValueError, match="NaN"):
        m.fit(np.where(X > 1.5, np.nan, X), y)
    with pytest.raises(ValueError, match="-1 or"):
        m.fit(X, np.where(y > 0, 2.0, -1.0))
    with pytest.raises(ValueError, match="r must be"):
        m.fit(X, y, r=31)
    with pytest.raises(ValueError, match="r must be"):
        m.fit(X, y, r=0)
    assert not hasattr(m, "r_")
    m.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.risk(X[:, :2], y)
    reg = OnlineToBatch(okl.KernelOGD(loss="squared"), seed=0).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="classifier"):
        reg.risk(X, y)
    np.testing.assert_array_equal(reg.predict(X), reg.decision_function(X))
