"""The vectorized sine and cosine of FOGD's random features (okl/_vtrig.h) against
200-bit mpmath: within 1 ulp of the true value over the arguments FOGD meets."""
import math

import numpy as np
import pytest

mp = pytest.importorskip("mpmath")

from okl.learners._features import _sincos, _sincos_is_vectorized  # noqa: E402

MAX = 2.0 ** 30          # OKL_TRIG_MAX: beyond, libm


def true_ulp_errors(x, c, s):
    """|approx - exact| in units of the last place of the exact value (200-bit mpmath)."""
    errs = np.empty((2, len(x)))
    with mp.workprec(200):
        for i, v in enumerate(x):
            for row, (f, a) in enumerate(((mp.cos, c[i]), (mp.sin, s[i]))):
                t = f(mp.mpf(float(v)))
                tf = float(t)
                ulp = math.ulp(abs(tf)) if tf != 0 else 5e-324
                errs[row, i] = float(abs(mp.mpf(float(a)) - t) / ulp)
    return errs


def nearest_multiples_of_half_pi(k):
    """The doubles nearest k pi/2: where sin or cos is tiny and the reduction must keep
    about 60 extra bits."""
    with mp.workprec(200):
        return np.array([float(mp.mpf(int(j)) * mp.pi / 2) for j in k])


RNG = np.random.default_rng(20240)
CASES = {
    "uniform |x| < 1": RNG.uniform(-1, 1, 1500),
    "uniform |x| < 8": RNG.uniform(-8, 8, 1500),           # a9a, gamma = 0.1: sd ~ 1.7
    "uniform |x| < 1e3": RNG.uniform(-1e3, 1e3, 1500),
    "uniform |x| < 1e6": RNG.uniform(-1e6, 1e6, 1000),
    "uniform |x| < 2^30": RNG.uniform(-MAX, MAX, 1000),
    "Cauchy (Laplacian kernel)": np.clip(RNG.standard_cauchy(1500) * 30.0, -MAX, MAX),
    "k pi/2, |k| < 1000": nearest_multiples_of_half_pi(np.arange(-1000, 1001)),
    "k pi/2, |k| < 2^29": nearest_multiples_of_half_pi(RNG.integers(-2 ** 29, 2 ** 29, 1000)),
    "tiny and subnormal": np.r_[10.0 ** RNG.uniform(-323, -1, 700),
                                -(10.0 ** RNG.uniform(-323, -1, 300)), 0.0, -0.0, 5e-324],
}


@pytest.mark.parametrize("name", list(CASES))
def test_within_one_ulp_of_the_true_value(name):
    x = CASES[name]
    c, s = _sincos(x)
    errs = true_ulp_errors(x, c, s)
    # libm (glibc) is within 0.51 ulp on these; the polynomial path within 0.75
    assert errs.max() < 0.75, (name, errs.max(), x[np.argmax(errs.max(axis=0))])
    cl, sl = _sincos(x, exact=True)
    assert true_ulp_errors(x, cl, sl).max() < 0.75


def test_differs_from_libm_by_at_most_one_unit_in_the_last_place():
    x = RNG.uniform(-50, 50, 200_000)
    c, s = _sincos(x)
    cl, sl = _sincos(x, exact=True)
    for a, b in ((c, cl), (s, sl)):
        gap = np.abs(a - b) / np.spacing(np.abs(b))
        assert gap.max() <= 1.0
    differ = np.mean((c != cl) | (s != sl))
    if _sincos_is_vectorized():
        # the polynomial path is in use, and is not libm bit for bit (documented: 5-7 %)
        assert 0.01 < differ < 0.15
    else:
        assert differ == 0.0


def test_scale_outside_the_range_and_non_finite():
    big = np.array([MAX, np.nextafter(MAX, np.inf), 3e9, -1e15, 1e300, -1e308,
                    np.inf, -np.inf, np.nan, 1.0, -2.5])
    c, s = _sincos(big, scale=0.25)
    outside = ~(np.abs(big) <= MAX)
    assert outside.sum() == 8
    for i in np.flatnonzero(outside):              # libm's (glibc's) values, scaled
        v = big[i]
        want_c = 0.25 * math.cos(v) if math.isfinite(v) else np.nan
        want_s = 0.25 * math.sin(v) if math.isfinite(v) else np.nan
        np.testing.assert_array_equal([c[i], s[i]], [want_c, want_s])
    # the in-range entries of the same call are the polynomial's (not redone by libm)
    c1, s1 = _sincos(big[-2:], scale=0.25)
    np.testing.assert_array_equal(c[-2:], c1)
    cl, sl = _sincos(big, scale=0.25, exact=True)
    np.testing.assert_array_equal(np.isnan(cl), np.isnan(c))
    errs = true_ulp_errors(big[:6], c[:6] / 0.25, s[:6] / 0.25)
    assert errs.max() < 0.75                              # libm's: exact reduction
    c0, s0 = _sincos(np.empty(0))
    assert c0.shape == s0.shape == (0,)


def test_every_length_and_alignment():
    """The vector loop's remainder iterations (lengths not a multiple of 8) and the
    in-range entries around an out-of-range one."""
    x = RNG.uniform(-20, 20, 64)
    ref_c, ref_s = _sincos(x)
    for start in range(3):
        for n in range(0, 20):
            c, s = _sincos(x[start:start + n])
            np.testing.assert_array_equal(c, ref_c[start:start + n])
            np.testing.assert_array_equal(s, ref_s[start:start + n])
    y = x.copy()
    y[13] = 1e12
    c, s = _sincos(y)
    keep = np.arange(64) != 13
    np.testing.assert_array_equal(c[keep], ref_c[keep])
    np.testing.assert_array_equal(s[keep], ref_s[keep])
    assert c[13] == np.cos(1e12) and s[13] == np.sin(1e12)
