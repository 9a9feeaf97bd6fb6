"""The shared learner API: validation, interactive use, pickling, seeds, Trace.

What every learner must keep (bad input refused with its state unchanged; run, chunked
partial_fit and learn_one equal; pickling mid-stream; seeds; threads) is okl's contract,
checked over every learner by tests/test_contract.py (okl.testing.check_learner); this
file keeps the API's single cases."""
import pickle

import numpy as np
import pytest

import okl
from conftest import xor_stream


def labels_for(learner, X, y):
    return y if learner.is_classifier else X[:, 0] - 0.3 * X[:, 1]


def fingerprint(learner):
    s = learner.support_set
    return (learner.n_rounds, learner.n_features,
            None if s is None else (s.vectors.tobytes(), s.coefficients.tobytes()))


@pytest.mark.parametrize("y_bad", [[0, 1, 1], [1, 2, -1], [0.5, 1, -1]])
def test_classification_labels_outside_task(y_bad):
    learner = okl.Perceptron()
    with pytest.raises(ValueError, match="-1 or \\+1"):
        learner.run(np.ones((3, 2)), y_bad)
    with pytest.raises(ValueError, match="-1 or \\+1"):
        learner.learn_one(np.ones(2), 0)
    assert learner.n_rounds == 0 and learner.n_features is None


def test_single_example_checks():
    learner = okl.Perceptron()
    learner.learn_one([1.0, 2.0], 1)
    with pytest.raises(ValueError, match="single example"):
        learner.predict_one(np.ones((2, 2)))
    with pytest.raises(ValueError, match="features"):
        learner.predict_one(np.ones(3))
    assert learner.n_rounds == 1


def test_seeded_generator_draws_match_numpy_and_survive_pickling():
    a = okl.Perceptron(seed=123)
    np.testing.assert_array_equal(a._uniform_draws(5), np.random.default_rng(123).random(5))
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a._uniform_draws(4), b._uniform_draws(4))
    c, d = okl.Perceptron(seed=7), okl.Perceptron(seed=8)
    assert not np.array_equal(c._uniform_draws(3), d._uniform_draws(3))


def test_trace_quantities():
    X, y = xor_stream(400, 3, seed=5)
    tr = okl.Perceptron().run(X, y)
    assert tr.n_rounds == 400
    assert tr.mistake_rate == pytest.approx(np.mean(y * tr.scores <= 0))
    np.testing.assert_array_equal(tr.cumulative_mistakes, np.cumsum(y * tr.scores <= 0))
    assert tr.final_budget == tr.budget[-1] == tr.n_mistakes
    assert np.all(np.diff(tr.budget) >= 0) and tr.seconds > 0
    d = tr.to_dict()
    assert d["mistakes"] == tr.n_mistakes and d["n_rounds"] == 400
    reg = okl.KernelOGD(loss="squared").run(X, X[:, 0])
    with pytest.raises(ValueError, match="regression"):
        reg.mistake_rate
    assert "mistakes" not in reg.to_dict()


def test_untrained_learner_predicts_zero():
    learner = okl.KernelOGD(loss="squared")
    np.testing.assert_array_equal(learner.decision_function(np.ones((3, 2))), 0.0)
    assert learner.predict_one([1.0, 2.0]) == 0.0
    assert learner.n_features is None  # prediction did not fix the dimension


def test_ctrl_c_stops_a_run_between_rounds_with_consistent_state():
    import signal

    X, y = xor_stream(200_000, 10, seed=0)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    learner = okl.Perceptron(kernel=okl.Gaussian(1.0))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt) as info:
            learner.run(X, y)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    done = learner.n_rounds
    assert 0 < done < len(y) and done % 4096 == 0
    if hasattr(info.value, "add_note"):
        assert f"stopped after {done} of" in info.value.__notes__[0]
    reference = okl.Perceptron(kernel=okl.Gaussian(1.0))
    reference.run(X[:done], y[:done])
    assert fingerprint(learner) == fingerprint(reference)
