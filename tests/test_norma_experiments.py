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


@pytest.fixture
def no_usps(monkeypatch, tmp_path):
    """An empty data directory: norma-fig3 falls back to the 8x8 digits."""
    monkeypatch.setenv("OKL_DATA", str(tmp_path / "no-data"))


def test_fig3_quick(tmp_path, no_usps):
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
    assert summary["dataset"] == "sklearn-digits-8x8" and summary["image_shape"] == [8, 8]
    # the rho update holds the alert rate near nu
    assert 1 <= summary["n_alerts"] <= 3 * nu * summary["n_train"]
    assert abs(summary["alert_fraction_second_half"] - nu) <= 0.5 * nu
    assert summary["support_vectors"] == summary["n_alerts"]  # novelty adds only on alerts
    assert summary["first_alert_rounds"][0] == 1  # f_1 = 0 < rho_1 = 1
    assert len(summary["test_worst_labels"]) == 50
    assert np.isfinite(summary["rho_final"])
    assert 0.0 <= summary["test_fraction_below_threshold"] <= 1.0


def test_fig3_full_alert_fraction(tmp_path, no_usps):
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


# -- norma-fig3 on USPS (a small USPS-format fixture in a temporary OKL_DATA) ------------

def usps_like(n, seed):
    """``n`` 16x16 'digits' in [-1, 1] (a blob on a -1 background) and labels 1..10."""
    rng = np.random.default_rng(seed)
    r, c = np.mgrid[:16, :16]
    X = np.empty((n, 256))
    for i in range(n):
        cr, cc, w = rng.uniform(4, 12), rng.uniform(4, 12), rng.uniform(2, 5)
        img = 2.0 * np.exp(-((r - cr) ** 2 + (c - cc) ** 2) / (2 * w * w)) - 1.0
        img += rng.normal(0, 0.1, img.shape)
        X[i] = np.round(np.clip(img, -1, 1), 4).ravel()
    X[X == -0.0] = 0.0
    return X, rng.integers(1, 11, n)


def write_usps(path, X, labels):
    import bz2

    lines = [f"{lab} " + " ".join(f"{j + 1}:{float(x[j])!r}" for j in np.flatnonzero(x))
             for x, lab in zip(X, labels)]
    path.write_bytes(bz2.compress(("\n".join(lines) + "\n").encode()))


def paper_learner():
    """Fig. 3's caption, written out here: nu = 0.01, 2 sigma^2 = 0.5 * 256, eta_t = 1/sqrt(t)."""
    return okl.NORMA(kernel=okl.Gaussian(8.0), loss="novelty", nu=0.01, schedule="sqrt",
                     eta=np.nextafter(1.0, 0.0), lam=1.0, rho=1.0)


def tile(canvas, i, h=16, w=16, n_cols=10, pad=1):
    r, c = divmod(i, n_cols)
    return canvas[pad + r * (h + pad):pad + r * (h + pad) + h,
                  pad + c * (w + pad):pad + c * (w + pad) + w]


def scaled(img):
    return (img - img.min()) / (img.max() - img.min())


@pytest.fixture
def usps_dir(monkeypatch, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("OKL_DATA", str(data))
    Xtr, ltr = usps_like(1000, seed=11)
    Xte, lte = usps_like(80, seed=12)
    write_usps(data / "usps.bz2", Xtr, ltr)
    write_usps(data / "usps.t.bz2", Xte, lte)
    return data, Xtr, ltr, Xte, lte


def test_fig3_uses_usps_when_present(tmp_path, usps_dir, monkeypatch):
    data, Xtr, ltr, Xte, lte = usps_dir
    grids = []
    real = exp.plot_image_grid

    def recording(images, **kw):
        fig = real(images, **kw)
        ax = kw.get("ax") or fig.axes[0]
        grids.append((np.asarray(images), kw, np.ma.filled(ax.images[-1].get_array(), np.nan)))
        return fig

    monkeypatch.setattr(exp, "plot_image_grid", recording)
    with pytest.warns(UserWarning, match="published with"):
        summary = exp.norma_fig3(tmp_path / "out", quick=True, seed=3)
    assert summary["dataset"] == "usps" and summary["held_out"] == "usps.t"
    assert "usps" in summary["steps"][0] and any("held out" in s for s in summary["steps"])
    assert summary["image_shape"] == [16, 16]
    assert summary["n_train"] == 1000 and summary["n_test"] == 80  # quick: the whole pass
    assert summary["sigma"] == 8.0 and summary["nu"] == 0.01       # 2 sigma^2 = 128
    assert summary["lam"] == 1.0 and summary["eta"] == np.nextafter(1.0, 0.0)

    # the same numbers as a direct NORMA run on the same rows, in the file's order
    learner = paper_learner()
    trace = learner.run(Xtr)
    alerts = np.flatnonzero(trace.scores < 0)
    assert alerts.size >= 5
    f_tr, f_te = learner.decision_function(Xtr), learner.decision_function(Xte)
    worst_tr = np.argsort(f_tr, kind="stable")[:50]
    worst_te = np.argsort(f_te, kind="stable")[:50]
    assert summary["n_alerts"] == alerts.size == summary["support_vectors"]
    assert summary["first_alert_rounds"] == (alerts[:50] + 1).tolist()
    assert summary["first_alert_labels"] == (ltr[alerts[:50]] - 1).tolist()  # digits 0..9
    assert summary["rho_final"] == learner.rho_
    assert summary["train_fraction_below_threshold"] == np.mean(f_tr < 0)
    assert summary["test_fraction_below_threshold"] == np.mean(f_te < 0)
    assert summary["train_worst_labels"] == (ltr[worst_tr] - 1).tolist()
    assert summary["test_worst_labels"] == (lte[worst_te] - 1).tolist()
    assert summary["alert_fraction"] == alerts.size / 1000

    # the image grids show those 16x16 digits: 3 panels on their own, 3 side by side
    assert len(grids) == 6
    expected = [Xtr[alerts[:50]], Xtr[worst_tr], Xte[worst_te]]
    for k, (images, kw, canvas) in enumerate(grids):
        assert kw["shape"] == (16, 16) and kw["n_slots"] == 50
        np.testing.assert_array_equal(images, expected[k % 3])
        assert canvas.shape == (5 * 17 + 1, 10 * 17 + 1)        # 5 rows x 10 of 16x16 + pad
        for i in range(len(images)):
            np.testing.assert_allclose(tile(canvas, i), scaled(images[i].reshape(16, 16)),
                                       atol=1e-12)
        if len(images) < 50:
            assert np.isnan(tile(canvas, len(images))).all()   # blank slots stay blank
    assert all("USPS 16x16" in kw["title"] for _, kw, _ in grids[:3])
    for stem in ("norma_fig3", "norma_fig3_alerts", "norma_fig3_train_worst",
                 "norma_fig3_test_worst"):
        assert (tmp_path / "out" / f"{stem}.png").stat().st_size > 0
    assert json.loads((tmp_path / "out" / "norma_fig3.json").read_text())["dataset"] == "usps"


def test_fig3_settings_are_the_papers_recursion(usps_dir):
    """The run equals (20) with eta_t = 1/sqrt(t) and lam = 1 exactly, in plain numpy.

    ``FIG3_ETA`` is one ulp below 1 (NORMA asks for eta * lam < 1); this checks that it
    reproduces the caption's learning rate to rounding.  rho takes the gradient step of
    (20)'s loss (-eta_t (1 - nu) after an alert, +eta_t nu otherwise: NORMA's Notes).
    """
    _, X, _, _, _ = usps_dir
    nu, rho, alpha, sv = 0.01, 1.0, [], []
    scores = []
    for t, x in enumerate(X, start=1):
        eta_t = 1.0 / np.sqrt(t)
        f = sum(a * np.exp(-np.sum((s - x) ** 2) / 128.0) for a, s in zip(alpha, sv))
        scores.append(f - rho)
        alpha = [(1.0 - eta_t) * a for a in alpha]
        if f < rho:
            alpha.append(eta_t)
            sv.append(x)
            rho -= eta_t * (1.0 - nu)
        else:
            rho += eta_t * nu
    learner = exp._fig3_learner(256)
    trace = learner.run(X)
    np.testing.assert_allclose(trace.scores, scores, rtol=0, atol=1e-12)
    assert abs(learner.rho_ - rho) < 1e-12
    np.testing.assert_array_equal(np.flatnonzero(trace.scores < 0),
                                  np.flatnonzero(np.array(scores) < 0))


def test_fig3_usps_without_its_test_file_holds_out_training_digits(tmp_path, usps_dir):
    data, Xtr, ltr, _, _ = usps_dir
    (data / "usps.t.bz2").unlink()
    with pytest.warns(UserWarning, match="published with 7291"):
        summary = exp.norma_fig3(tmp_path / "out", seed=4)
    assert summary["dataset"] == "usps" and summary["held_out"] == "usps (held-out subset)"
    assert summary["n_test"] == 200 and summary["n_train"] == 800   # min(2007, 1000 // 5)
    test = np.sort(np.random.default_rng(4).choice(1000, 200, replace=False))
    train = np.setdiff1d(np.arange(1000), test)                     # published order
    learner = paper_learner()
    alerts = np.flatnonzero(learner.run(Xtr[train]).scores < 0)
    assert summary["first_alert_rounds"] == (alerts[:50] + 1).tolist()
    assert summary["first_alert_labels"] == (ltr[train][alerts[:50]] - 1).tolist()
    f_te = learner.decision_function(Xtr[test])
    assert summary["test_worst_labels"] == \
        (ltr[test][np.argsort(f_te, kind="stable")[:50]] - 1).tolist()
