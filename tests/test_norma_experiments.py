"""Sec. VI reproductions of Kivinen, Smola & Williamson (2004): norma-fig2, norma-fig3."""
import json
import time

import numpy as np
import pytest

import okl
from okl import experiments
from okl.experiments import norma as exp
from okl.learners.alma import ALMA

ALGORITHMS = {"NORMA_lam_rho", "NORMA_lam_0", "Perceptron", "ALMA_2", "ALMA_0"}


def test_registered():
    assert experiments.EXPERIMENTS["norma-fig2"] is exp.norma_fig2
    assert experiments.EXPERIMENTS["norma-fig3"] is exp.norma_fig3


@pytest.mark.parametrize("schedule", ["drift", "switch"])
def test_tuned_parameters_build_the_five_algorithms(schedule):
    params = exp.FIG2_PARAMS[schedule]
    assert set(params) == ALGORITHMS
    learners = exp.fig2_learners(params)
    assert isinstance(learners["Perceptron"], okl.Perceptron)
    n = learners["NORMA_lam_rho"]
    assert isinstance(n, okl.NORMA) and n.lam > 0 and n.rho > 0 and n.loss == "soft_margin"
    n0 = learners["NORMA_lam_0"]
    assert n0.lam > 0 and n0.rho == 0
    assert isinstance(learners["ALMA_2"], ALMA) and learners["ALMA_2"].alpha < 1
    assert learners["ALMA_0"].alpha == 1.0
    # every tuned value is a point of the documented grid
    for name, p in params.items():
        for key, value in p.items():
            assert value in exp.FIG2_GRID[name][key], (name, key)


def test_grid_search_structure():
    res = exp.fig2_grid("drift", seeds=(7,), n_rounds=300, algorithms=("Perceptron", "ALMA_0"))
    assert set(res) == {"Perceptron", "ALMA_0"}
    table = res["ALMA_0"]["table"]
    assert len(table) == len(exp.FIG2_GRID["ALMA_0"]["sigma"]) * len(exp.FIG2_GRID["ALMA_0"]["C"])
    totals = [t for _, t in table]
    assert totals == sorted(totals) and res["ALMA_0"]["mistakes"] == totals[0]
    assert res["ALMA_0"]["best"] == table[0][0]


def test_fig2_quick(tmp_path):
    start = time.perf_counter()
    summary = exp.norma_fig2(tmp_path, quick=True, seed=0)
    assert time.perf_counter() - start < 15
    for suffix in ("png", "svg", "json"):
        path = tmp_path / f"norma_fig2.{suffix}"
        assert path.exists() and path.stat().st_size > 0
    on_disk = json.loads((tmp_path / "norma_fig2.json").read_text())
    assert on_disk["mistakes"] == summary["mistakes"]
    n = summary["n_rounds"]
    assert n == 3000
    for schedule in ("drift", "switch"):
        m = summary["mistakes"][schedule]
        assert set(m) == ALGORITHMS
        assert all(isinstance(v, int) and 0 < v < 0.2 * n for v in m.values())
        # the mistake-driven algorithms keep exactly their mistakes
        sv = summary["support_vectors"][schedule]
        for name in ("Perceptron", "ALMA_0", "NORMA_lam_0"):
            assert sv[name] == m[name]
    # with margin NORMA is not worse than the Perceptron by a large factor
    d = summary["mistakes"]["drift"]
    assert d["NORMA_lam_rho"] <= 2 * d["Perceptron"] + 5
    s = summary["mistakes"]["switch"]
    assert s["NORMA_lam_rho"] <= 2 * s["Perceptron"] + 5


def test_fig2_is_seeded(tmp_path):
    a = exp.norma_fig2(tmp_path / "a", quick=True, seed=3)
    b = exp.norma_fig2(tmp_path / "b", quick=True, seed=3)
    assert a["mistakes"] == b["mistakes"]


def test_fig3_quick(tmp_path):
    start = time.perf_counter()
    summary = exp.norma_fig3(tmp_path, quick=True, seed=0)
    assert time.perf_counter() - start < 15
    for stem in ("norma_fig3", "norma_fig3_alerts", "norma_fig3_train_worst",
                 "norma_fig3_test_worst"):
        for suffix in ("png", "svg"):
            path = tmp_path / f"{stem}.{suffix}"
            assert path.exists() and path.stat().st_size > 0
    assert json.loads((tmp_path / "norma_fig3.json").read_text())["n_alerts"] == \
        summary["n_alerts"]
    nu = summary["nu"]
    assert nu == 0.01 and summary["lam"] == 1.0 and summary["sigma"] == 4.0  # 2 s^2 = 64 / 2
    assert summary["n_train"] == 1000 and summary["n_test"] == 200
    # the rho update holds the alert rate near nu
    assert 1 <= summary["n_alerts"] <= 3 * nu * summary["n_train"]
    assert abs(summary["alert_fraction_second_half"] - nu) <= 0.5 * nu
    assert summary["support_vectors"] == summary["n_alerts"]  # novelty adds only on alerts
    assert summary["first_alert_rounds"][0] == 1  # f_1 = 0 < rho_1 = 1
    assert len(summary["test_worst_labels"]) == 50
    assert np.isfinite(summary["rho_final"])
    assert 0.0 <= summary["test_fraction_below_threshold"] <= 1.0


def test_fig3_full_alert_fraction(tmp_path):
    summary = exp.norma_fig3(tmp_path, quick=False, seed=1)
    assert summary["n_train"] == 1438 and summary["n_test"] == 359
    assert abs(summary["alert_fraction"] - summary["nu"]) <= 0.5 * summary["nu"]


def test_plot_image_grid(tmp_path):
    from okl.plotting import plot_image_grid, save_figure

    rng = np.random.default_rng(0)
    fig = plot_image_grid(rng.random((7, 64)), shape=(8, 8), n_cols=5, n_slots=50,
                          title="seven")
    assert fig.axes[0].images[0].get_array().shape == (10 * 9 + 1, 5 * 9 + 1)  # 50 slots: 10 rows x 5
    paths = save_figure(fig, tmp_path / "grid")
    assert all(p.exists() for p in paths)
    empty = plot_image_grid(np.empty((0, 64)), shape=(8, 8), n_slots=50)
    save_figure(empty, tmp_path / "empty")
    with pytest.raises(ValueError, match="images"):
        plot_image_grid(rng.random((3, 64)))
