"""okl.datasets.spectral: streams whose Gram matrix has a prescribed spectrum.

The eigenvalues are checked against numpy's eigvalsh of X X^T and against
okl's own Gram matrix, the decay against theory.decay's fits, the labels
against the stated rule, and the envelope against the eigenvalues.
"""
import numpy as np
import pytest

import okl
from okl.datasets.spectral import prescribed_spectrum, spectral_stream
from theory import fit_exponential_decay, fit_polynomial_decay

CASES = [("exponential", {"r": 0.3}), ("exponential", {"r": 0.8}),
         ("polynomial", {"p": 1.5}), ("polynomial", {"p": 3.0})]


@pytest.mark.parametrize("decay, kw", CASES)
@pytest.mark.parametrize("T, d", [(300, 64), (257, 20)])
def test_gram_spectrum_is_the_prescribed_one(decay, kw, T, d):
    s = spectral_stream(T, decay, d=d, seed=1, **kw)
    K = s.X @ s.X.T
    ev = np.linalg.eigvalsh(K)[::-1]
    np.testing.assert_allclose(ev, s.eigenvalues, rtol=0, atol=1e-10 * ev[0])
    assert np.count_nonzero(s.eigenvalues) == d
    # okl's linear kernel (the kernel to learn with) gives the same Gram matrix
    np.testing.assert_allclose(s.kernel(s.X), K, rtol=1e-12, atol=1e-12)
    assert isinstance(s.kernel, okl.Linear)
    # k(x, x) = 1 on every round: D = A = 1
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=1e-12)
    assert s.D == 1.0
    # trace / T = sum of the normalized eigenvalues = 1
    assert s.eigenvalues.sum() == pytest.approx(T)


@pytest.mark.parametrize("decay, kw", CASES)
def test_envelope_dominates_with_equality_at_even_indices(decay, kw):
    s = spectral_stream(400, decay, d=40, seed=2, **kw)
    i = np.arange(1, 401)
    env = s.envelope(i)
    assert np.all(s.eigenvalues <= env * (1 + 1e-12))
    np.testing.assert_allclose(s.eigenvalues[1:40:2], env[1:40:2], rtol=1e-12)
    # R0 = c T = Theta(T): the same constant at every T
    c = s.R0 / 400
    assert spectral_stream(1000, decay, d=40, seed=0, **kw).R0 == pytest.approx(1000 * c)
    mu, c2 = prescribed_spectrum(400, decay, d=40, **kw)
    assert c2 == pytest.approx(c) and mu.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("r", [0.2, 0.5, 0.8, 0.95])
def test_fitted_exponential_decay_matches(r):
    s = spectral_stream(300, "exponential", r=r, d=64, seed=0)
    ev = np.linalg.eigvalsh(s.X @ s.X.T)[::-1]
    # even-indexed eigenvalues lambda_2j = R0 (r^2)^j exactly
    even = fit_exponential_decay(eigenvalues=ev[1:64:2], rtol=1e-12)
    assert even.r == pytest.approx(r * r, rel=1e-6)
    assert even.R0 == pytest.approx(s.R0, rel=1e-6)
    # the whole (staircase) spectrum: the least-squares ratio within 2 %
    full = fit_exponential_decay(eigenvalues=ev)
    assert full.r == pytest.approx(r, rel=0.02)
    assert not full.clipped


@pytest.mark.parametrize("p", [1.5, 2.0, 3.0, 5.0])
def test_fitted_polynomial_decay_matches(p):
    s = spectral_stream(300, "polynomial", p=p, d=64, seed=0)
    ev = np.linalg.eigvalsh(s.X @ s.X.T)[::-1]
    # lambda_2j = R0 (2j)^-p = (R0 2^-p) j^-p exactly
    even = fit_polynomial_decay(eigenvalues=ev[1:64:2])
    assert even.p == pytest.approx(p, rel=1e-6)
    assert even.R0 == pytest.approx(s.R0 * 2.0 ** -p, rel=1e-6)
    # the whole staircase: pairs (c (2j)^-p, c (2j)^-p) bias the log-log slope down
    # (d = 64: about -6.5 % for every p from 1.5 to 5); within 10 % and never above p
    full = fit_polynomial_decay(eigenvalues=ev)
    assert 0.9 * p <= full.p <= p


def test_labels_follow_the_half_circle_rule():
    s = spectral_stream(500, "exponential", r=0.5, d=16, seed=3)
    # the target cos(2 pi (u - phase)) = <w, x> with w = (cos phase, sin phase, 0...) / s_1
    s1 = np.linalg.norm(s.X[0, :2])
    w = np.zeros(16)
    w[:2] = np.array([np.cos(2 * np.pi * s.phase), np.sin(2 * np.pi * s.phase)]) / s1
    f = s.X @ w
    np.testing.assert_allclose(f, np.cos(2 * np.pi * (s.u - s.phase)), atol=1e-12)
    np.testing.assert_array_equal(s.y, np.where(f >= 0, 1.0, -1.0))
    assert sorted(np.round(s.u * 500).astype(int)) == list(range(500))   # the grid, once
    noisy = spectral_stream(500, "exponential", r=0.5, d=16, seed=3, flip=0.2)
    frac = np.mean(noisy.y != np.where(np.cos(2 * np.pi * (noisy.u - noisy.phase)) >= 0,
                                        1.0, -1.0))
    assert 0.13 < frac < 0.27


def test_seeds():
    a = spectral_stream(100, "polynomial", p=2.0, d=10, seed=5, flip=0.1)
    b = spectral_stream(100, "polynomial", p=2.0, d=10, seed=5, flip=0.1)
    c = spectral_stream(100, "polynomial", p=2.0, d=10, seed=6, flip=0.1)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)
    g = spectral_stream(100, seed=np.random.default_rng(0), d=10)
    assert g.X.shape == (100, 10) and set(np.unique(g.y)) <= {-1.0, 1.0}


@pytest.mark.parametrize("kwargs, match", [
    ({"T": 3}, "T must be in"),
    ({"T": 100, "decay": "linear"}, "decay must be one of"),
    ({"T": 100, "r": 1.0}, "r must be in"),
    ({"T": 100, "r": 0.0}, "r must be in"),
    ({"T": 100, "decay": "polynomial", "p": 0.5}, "p must be in"),
    ({"T": 100, "d": 7}, "d must be even"),
    ({"T": 100, "d": 100}, "d must be < T"),
    ({"T": 100, "d": 0}, "d must be in"),
    ({"T": 100, "flip": 1.0}, "flip must be in"),
    ({"T": 100, "flip": float("nan")}, "flip must be finite"),
    ({"T": 100, "seed": -1}, "seed must be"),
])
def test_bad_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        spectral_stream(**kwargs)
