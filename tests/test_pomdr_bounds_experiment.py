"""okl.experiments.pomdr.pomdr_bounds (``okl reproduce pomdr-bounds``): quick run in a temp dir,
its files, and its summary against a direct computation with okl + theory."""
import json
import math

import numpy as np
import pytest

from okl.datasets.spectral import spectral_stream
from okl.experiments import EXPERIMENTS
from okl.experiments.pomdr import SETTINGS, pomdr_bounds
from okl.learners.pomdr import POMD, POMDR
from theory import best_hinge_in_ball, kernel_alignment
from theory.pomdr import delta_sequence, theorem1_exponential_bound, theorem2_bound


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("pomdr_bounds")
    return out, pomdr_bounds(out, quick=True, seed=1)


def test_registered():
    assert EXPERIMENTS["pomdr-bounds"] is pomdr_bounds


def test_files(quick):
    out, summary = quick
    for ext in ("png", "svg"):
        assert (out / f"pomdr_bounds.{ext}").stat().st_size > 1000
    assert json.loads((out / "pomdr_bounds.json").read_text()) == json.loads(
        json.dumps(summary))


def test_summary_equals_direct_computation(quick):
    _, summary = quick
    T, r, U, M, zeta = 400, SETTINGS["r"], SETTINGS["U"], SETTINGS["M"], SETTINGS["zeta"]
    s = spectral_stream(T, "exponential", r=r, d=SETTINGS["d"], flip=SETTINGS["flip"], seed=1)
    b1 = 2 * math.log(s.R0 * T ** 2) / math.log(1 / r)       # alpha = T^-2, C1 = 1
    assert summary["budget"]["theorem1"] == pytest.approx(b1, rel=1e-12)
    B0 = math.ceil(b1)
    tr = POMDR(s.kernel, U=U, M=M, zeta=zeta, D=1.0, B0=B0, B=2 * B0 + 2).run(s.X, s.y)
    assert summary["budget"]["final"] == tr.budget[-1]
    assert summary["budget"]["t_bar"] is None and summary["budget"]["within"]
    K = s.X @ s.X.T
    # sum delta by hand: k(x,x) - 2 y_t / M_t sum_r y_{t-r} k(x_t, x_{t-r}) on positive-loss rounds
    sd = 0.0
    for t in range(T):
        Mt = min(t, M)
        g = sum(s.y[t - q] * K[t, t - q] for q in range(1, Mt + 1)) / Mt if Mt else 0.0
        sd += max(K[t, t] - 2 * s.y[t] * g, 0.0) if tr.losses[t] > 0 else 0.0
    assert summary["regret"]["sum_delta"] == pytest.approx(sd, rel=1e-10)
    assert summary["regret"]["sum_delta_learner"] == pytest.approx(sd, rel=1e-10)
    comp = best_hinge_in_ball(K, s.y, U)
    regret = tr.losses.sum() - comp.lower_bound
    assert summary["regret"]["final"] == pytest.approx(regret, rel=1e-9)
    assert summary["regret"]["theorem2"] == pytest.approx(3 * U * math.sqrt(sd) + 9 * U)
    assert summary["regret"]["within"] == (regret <= 3 * U * math.sqrt(sd) + 9 * U)
    A = kernel_alignment(K, s.y)
    assert summary["regret"]["lemma4"] == pytest.approx(4 * A + 7)
    # the last prefix is the whole stream
    assert summary["regret"]["prefixes"][-1] == T
    assert summary["regret"]["prefix_regret"][-1] == pytest.approx(regret, rel=1e-9)
    cum = np.cumsum(delta_sequence(K, s.y, M, tr.losses > 0))
    for t, b in zip(summary["regret"]["prefixes"], summary["regret"]["prefix_theorem2"]):
        assert b == pytest.approx(theorem2_bound(U, cum[t - 1]))


def test_budget_vs_T_equals_direct_computation(quick):
    _, summary = quick
    part = summary["budget_vs_T"]
    Ts = list(SETTINGS["Ts"][0])
    assert part["T"] == Ts
    sizes = []
    for T in Ts:
        s = spectral_stream(T, "exponential", r=SETTINGS["r"], d=SETTINGS["d"],
                            flip=SETTINGS["flip"], seed=1)
        tr = POMD(s.kernel, U=SETTINGS["U"], M=SETTINGS["M"], zeta=SETTINGS["zeta"],
                  D=1.0).run(s.X, s.y)
        sizes.append(int(tr.budget[-1]))
        assert part["theorem1"][len(sizes) - 1] == pytest.approx(
            theorem1_exponential_bound(T, SETTINGS["zeta"], 1.0, s.R0, SETTINGS["r"]))
    assert part["size"] == sizes
    slope = np.polyfit(np.log(Ts), sizes, 1)[0]
    assert part["slope_ln_T"] == pytest.approx(slope)
    assert part["theorem1_slope"] == pytest.approx(6 / math.log(2))
    assert all(k <= b for k, b in zip(part["size"], part["theorem1"]))
