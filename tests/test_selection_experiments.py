"""okl/experiments/selection.py: the tables equal direct runs for the same permutation."""
import csv
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import okl
from okl.experiments import selection as sel
from okl.experiments.runner import permuted_stream, stream_order
from okl.learners.batbooks import BATBooks
from okl.learners.bomkr import BOMKR, BOMKRV
from okl.learners.iska import ISKA
from okl.learners.oks import BOKS
from okl.learners.fixed_budget import BOGD
from okl.learners.lkmbooks import LKMBooks
from okl.learners.multikernel import OMKC
from okl.learners.norma import NORMA
from okl.learners.pfmbooks import PFMBooks

SEED = 3
FIXTURES = Path(__file__).parent / "fixtures" / "data"


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    return sel.selection_memory(tmp_path_factory.mktemp("m"), quick=True, seed=SEED,
                                verbose=False)


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    return sel.selection_time(tmp_path_factory.mktemp("t"), quick=True, seed=SEED,
                              verbose=False, datasets=["gen-adv-cls-d5"])


def stream(name, p, summary):
    data = sel.load(name)
    setting = summary["reproduction"].split("-")[1]
    index = list(sel.SelectionTable(setting).datasets).index(name)
    order, learner_seed = stream_order(SEED, index, p, data.n, summary["n_rounds"])
    X, y = permuted_stream(data.X, data.y, order, data.adversarial)
    return X, y, learner_seed


def rows_of(summary, dataset):
    return {r["learner"]: r for r in summary["rows"] if r["dataset"] == dataset}


def test_registered():
    from okl.experiments import EXPERIMENTS
    assert EXPERIMENTS["selection-memory"] is sel.selection_memory
    assert EXPERIMENTS["selection-time"] is sel.selection_time
    assert sel.PAPER_TABLES["memory"]["classification"] == \
        ("mushrooms", "magic04", "Adv-magic04", "Adv-a9a")


def test_memory_table_equals_direct_runs(memory):
    B0 = sel.QUICK_B0
    kernels = [okl.Gaussian(2.0 ** i) for i in range(-4, 5)]
    for name in ("gen-reg-d20", "gen-adv-cls-d20"):
        table = rows_of(memory, name)
        reg = name.startswith("gen-reg")
        loss = "absolute" if reg else "hinge"
        values = {k: [] for k in ("LKMBooks", "OMKC", "PFMBooks", "ISKA", "BOMKR", "BOMKR-V")}
        base, boks = [], []
        for p in range(memory["n_permutations"]):
            X, y, s = stream(name, p, memory)
            T, d = X.shape
            Q = B0 * (d + 1)

            def metric(tr):
                return (np.mean(np.abs(tr.scores - y)) if reg
                        else np.mean(sel.authors_mistakes(tr.scores, y)))

            # the single-kernel baseline with every kernel, built here directly
            if reg:
                base.append([metric(NORMA(k, loss="nu_epsilon", eta=5 / math.sqrt(T), lam=0.0,
                                          nu=0.5, epsilon=0.001, tau=B0).run(X, y))
                             for k in kernels])
            else:
                base.append([metric(BOGD(k, B=B0, eta=5 / math.sqrt(T), lam=0.0, seed=s)
                                    .run(X, y)) for k in kernels])
            lkm = LKMBooks(kernels, loss=loss, memory_budget=Q, T=T, upsilon=1 / 3,
                           lam=None if reg else 5 / math.sqrt(T), seed=s)
            values["LKMBooks"].append(metric(lkm.run(X, y)))
            assert table["LKMBooks"]["budget"] == lkm.B_ == (Q - 9) // (d + 1)
            if not reg:
                omkc = OMKC(kernels, loss=loss, memory_budget=Q, lam=5 / math.sqrt(T), seed=s)
                values["OMKC"].append(metric(omkc.run(X, y)))
                assert table["OMKC"]["budget"] == omkc.B_
            pfm_umin = None if reg else min(5.0, math.sqrt(sel._pfm_budget(kernels, d, Q, T)))
            pfm = PFMBooks(kernels, loss=loss, memory_budget=Q, T=T, upsilon=1 / 3,
                           U_min=pfm_umin, seed=s)
            values["PFMBooks"].append(metric(pfm.run(X, y)))
            # the baselines of Tables 4-5: BOKS over the paper's delta grid, and ISKA
            # (classification) or BOMKR / BOMKR-V (regression) at their Table 3 budgets
            boks.append([metric(BOKS(kernels, loss=loss, delta=v, memory_budget=Q, T=T,
                                     seed=s).run(X, y)) for v in (0.2, 0.02, 0.002)])
            if reg:
                bomkr = BOMKR(kernels, memory_budget=Q, T=T)
                values["BOMKR"].append(metric(bomkr.run(X, y)))
                assert table["BOMKR"]["budget"] == bomkr.B_ == 9 * (((Q - 18) // (d + 1)) // 9)
                bomkrv = BOMKRV(kernels, memory_budget=Q, T=T)
                values["BOMKR-V"].append(metric(bomkrv.run(X, y)))
                assert table["BOMKR-V"]["budget"] == bomkrv.B_ == (Q - 9) // (d + 9)
            else:
                iska = ISKA(kernels, memory_budget=Q, T=T, seed=s)
                values["ISKA"].append(metric(iska.run(X, y)))
                assert table["ISKA"]["budget"] == iska.B_ == (Q - 7 * 9) // (d + 1)
        for learner, vals in values.items():
            if vals:
                assert table[learner]["okl"] == pytest.approx(np.mean(vals), abs=1e-12)
                assert table[learner]["okl_std"] == pytest.approx(np.std(vals, ddof=1))
        means = np.mean(base, axis=0)               # best kernel: smallest mean
        baseline = "NORMA" if reg else "BOGD"
        assert table[baseline]["okl"] == pytest.approx(means.min(), abs=1e-12)
        assert table[baseline]["selected"] == {"sigma": kernels[int(np.argmin(means))].sigma}
        boks_means = np.mean(boks, axis=0)          # best delta in hindsight
        assert table["BOKS"]["okl"] == pytest.approx(boks_means.min(), abs=1e-12)
        assert table["BOKS"]["selected"] == {"delta": (0.2, 0.02, 0.002)[int(np.argmin(
            boks_means))]}
        assert table["BOKS"]["budget"] == (Q - 9) // (d + 1)
        assert all(r["status"] == "ok" for r in table.values())
    assert sel.NOT_IMPLEMENTED == ()
    # PFMBooks is not run where K >= d, as in the paper
    assert rows_of(memory, "gen-reg-d5")["PFMBooks"]["status"].startswith("not run")
    assert memory["stand_ins"] == list(sel.GENERATED)


def test_time_table_equals_direct_runs(timed):
    B0 = sel.QUICK_B0
    kernels = [okl.Gaussian(2.0 ** i) for i in range(-4, 5)]
    name = "gen-adv-cls-d5"
    table = rows_of(timed, name)
    bat, lkm_v = [], []
    for p in range(timed["n_permutations"]):
        X, y, s = stream(name, p, timed)
        T, d = X.shape
        Q = B0 * (d + 1)
        amr = lambda tr: np.mean(sel.authors_mistakes(tr.scores, y))  # noqa: E731
        bat.append(amr(BATBooks(kernels, T=T, time_budget=Q, U=B0 ** (1 / 3),
                                eta="experiments", lam="experiments", seed=s).run(X, y)))
        lkm_v.append(amr(LKMBooks(kernels, time_budget=Q, T=T, upsilon=1 / 3,
                                  lam=5 / math.sqrt(T), seed=s).run(X, y)))
        # time: LKMBooks pays d + K a stored example (shared distance), OMKC d + 1 an entry
        assert table["LKMBooks"]["budget"] == (Q - 9) // (d + 9)
        assert table["OMKC"]["budget"] == (Q - 9) // (d + 1)
    assert table["BATBooks"]["okl"] == pytest.approx(np.mean(bat))
    assert table["LKMBooks"]["okl"] == pytest.approx(np.mean(lkm_v))


def test_adversarial_rescaling_follows_the_permutation():
    X = np.arange(40.0).reshape(20, 2) + 1.0
    y = np.where(np.arange(20) % 2, 1.0, -1.0)
    order, _ = stream_order(0, 1, 0, 20)
    Xp, yp = permuted_stream(X, y, order, 2.0 ** -3)
    np.testing.assert_array_equal(Xp[:1], X[order][:1])           # ceil(20/20) = 1 round
    np.testing.assert_allclose(Xp[1:], X[order][1:] / 8)
    np.testing.assert_array_equal(yp, y[order])


def test_outputs_written(memory, tmp_path):
    out = sel.selection_memory(tmp_path, quick=True, seed=SEED, verbose=False,
                               datasets=["gen-reg-d5"])
    for name in ("selection_memory.csv", "selection_memory.json", "selection_memory.txt",
                 "selection_memory_agreement_regression.png", "agreement.csv"):
        assert (tmp_path / name).stat().st_size > 0, name
    text = (tmp_path / "selection_memory.txt").read_text()
    assert "LKMBooks" in text and "AAL" in text and not text.lstrip().startswith("{")
    assert rows_of(out, "gen-reg-d5")["LKMBooks"]["okl"] == \
        rows_of(memory, "gen-reg-d5")["LKMBooks"]["okl"]


@pytest.mark.filterwarnings("ignore:.*is published with")
def test_paper_datasets_on_real_rows(tmp_path, monkeypatch):
    """magic04 and Adv-magic04 read the class-sorted UCI file: a uniform draw of rows
    per permutation (never the head of the file), both classes present, the rescaling
    on the later rounds of each permuted stream."""
    data = tmp_path / "data"
    shutil.copytree(FIXTURES, data)
    monkeypatch.setenv("OKL_DATA", str(data))
    s = sel.selection_memory(tmp_path / "out", datasets=["magic04", "Adv-magic04"],
                             n_permutations=2, n_rounds=200, verbose=False,
                             learners=["BOGD", "LKMBooks"])
    assert s["stand_ins"] == []
    for name in ("magic04", "Adv-magic04"):
        info = s["datasets"][name]
        assert info["source"] == "file" and info["n_available"] == 300
        assert info["n_rounds"] == 200
    assert s["datasets"]["Adv-magic04"]["adversarial"] == 2.0 ** -3
    runs = list(csv.DictReader(open(tmp_path / "out" / "selection_memory_runs.csv")))
    bogd = [float(r["value"]) for r in runs if r["learner"] == "BOGD"]
    assert min(bogd) > 0.05          # a one-class stream (the file's head) would give ~0
    rows = rows_of(s, "magic04")
    assert rows["BOGD"]["okl"] < 0.40 and rows["LKMBooks"]["status"] == "ok"


# -- the single-kernel baselines as the authors' R code runs them -------------------------

R_SEED = 20240513


def test_bogd_rescale_reproduces_the_authors_bogd_r():
    """BOGD(clip="rescale", lam=8/T^2) -- the R variant's baseline -- against the authors'
    BOGD.R (tests/fixtures/r/selection/) on the same stream and uniforms: the score
    round for round, the mistakes, |S| and the removal draws exactly, max |alpha|."""
    fix = Path(__file__).parent / "fixtures"
    S = np.loadtxt(fix / "r_stream_c.csv", delimiter=",")
    X, y = np.ascontiguousarray(S[:, 1:]), S[:, 0]
    R = np.genfromtxt(fix / "r" / "selection" / "r_bogd.csv", delimiter=",", names=True)
    T = len(y)
    m = sel._baseline(okl.Gaussian(0.5), "classification", 30, T, R_SEED, variant="r")
    assert (m.clip, m.lam, m.gamma, m.eta, m.B) == ("rescale", 8.0 / T ** 2, 1.0,
                                                    5 / math.sqrt(T), 30)
    amax = []
    for t in range(T):
        m.learn_one(X[t], y[t])
        amax.append(np.abs(m.coefficients).max())
    np.testing.assert_allclose(amax, R["max_abs"], rtol=1e-10)
    tr = sel._baseline(okl.Gaussian(0.5), "classification", 30, T, R_SEED, variant="r").run(X, y)
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sel.authors_mistakes(tr.scores, y), R["mistake"].astype(bool))
    np.testing.assert_array_equal(tr.budget, R["k"])
    assert tr.extras["removals"] == R["draws"][-1] > 100
    # the element-wise clip (okl's default) gives other coefficients on this stream
    d = BOGD(okl.Gaussian(0.5), B=30, eta=5 / math.sqrt(T), lam=8.0 / T ** 2,
             seed=R_SEED).run(X, y)
    assert not np.allclose(d.scores, tr.scores)
    with pytest.raises(ValueError, match="clip"):
        BOGD(clip="max")


def test_norma_replace_reproduces_the_authors_norma_r():
    """NORMAReplace -- the R variant's regression baseline -- against the authors'
    NORMA.R (tests/fixtures/r/selection/) on the same stream: f, |S|, the pointer and
    epsilon_t round for round; its B-th slot is never replaced."""
    from okl.learners.fixed_budget import NORMAReplace
    fix = Path(__file__).parent / "fixtures"
    S = np.loadtxt(fix / "r_stream_r.csv", delimiter=",")
    X, y = np.ascontiguousarray(S[:, 1:]), S[:, 0]
    R = np.genfromtxt(fix / "r" / "selection" / "r_norma.csv", delimiter=",", names=True)
    T = len(y)
    m = sel._baseline(okl.Gaussian(0.5), "regression", 20, T, 0, variant="r")
    assert isinstance(m, NORMAReplace) and (m.lam, m.cycle, m.B) == (0.1, "r", 20)
    eps, ptr = [], []
    for t in range(T):
        m.learn_one(X[t], y[t])
        v = m._extras()
        eps.append(v["epsilon"])
        ptr.append(v["pointer"] + 1)
    np.testing.assert_allclose(eps, R["varepsilon"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(ptr, R["flag"])
    assert R["flag"].max() == 19
    tr = sel._baseline(okl.Gaussian(0.5), "regression", 20, T, 0, variant="r").run(X, y)
    np.testing.assert_allclose(tr.scores, R["f"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tr.losses, R["err"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(tr.budget, R["k"])
    # the B-th stored example (the 20th update) is never replaced
    first = np.nonzero(R["k"] == 20)[0][0] + 1
    assert first in m.support_rounds
    full = NORMAReplace(okl.Gaussian(0.5), B=20, eta=5 / math.sqrt(T), cycle="all").run(X, y)
    assert not np.allclose(full.scores, tr.scores)


def test_variant_r_table_equals_direct_runs_of_the_r_learners(tmp_path):
    """``variant="r"``: its own output files, the variant in the notes and JSON, and the
    rows equal direct runs of what the authors' scripts run (LKMBooks / OMKC
    variant="r" with B = B0, BOGD with the rescaling clip)."""
    name = "gen-adv-cls-d5"
    out = sel.selection_memory(tmp_path, quick=True, seed=SEED, verbose=False, variant="r",
                               datasets=[name], learners=["BOGD", "OMKC", "LKMBooks"])
    assert (tmp_path / "selection_memory_r.csv").exists()
    assert not (tmp_path / "selection_memory.csv").exists()
    assert "variant = r" in (tmp_path / "selection_memory_r.txt").read_text()
    table = rows_of(out, name)
    B0 = sel.QUICK_B0
    kernels = [okl.Gaussian(2.0 ** i) for i in range(-4, 5)]
    lkm, omkc, base = [], [], []
    for p in range(out["n_permutations"]):
        X, y, s = stream(name, p, out)
        T = len(y)
        amr = lambda tr: np.mean(sel.authors_mistakes(tr.scores, y))  # noqa: E731
        lkm.append(amr(LKMBooks(kernels, B=B0, T=T, lam=5 / math.sqrt(T), variant="r",
                                seed=s).run(X, y)))
        omkc.append(amr(OMKC(kernels, B=B0, lam=5 / math.sqrt(T), variant="r").run(X, y)))
        base.append([amr(BOGD(k, B=B0, eta=5 / math.sqrt(T), lam=8 / T ** 2,
                              clip="rescale", seed=s).run(X, y)) for k in kernels])
    assert table["LKMBooks"]["okl"] == pytest.approx(np.mean(lkm), abs=1e-12)
    assert table["OMKC"]["okl"] == pytest.approx(np.mean(omkc), abs=1e-12)
    assert table["BOGD"]["okl"] == pytest.approx(np.mean(base, axis=0).min(), abs=1e-12)
    assert table["LKMBooks"]["budget"] == B0
    with pytest.raises(ValueError, match="variant"):
        sel.SelectionTable("memory", "R")


def test_authors_mistakes_count_a_zero_score_as_plus_one():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    f = np.array([0.0, 0.0, -0.5, 0.5])
    np.testing.assert_array_equal(sel.authors_mistakes(f, y), [False, True, True, True])


def test_variant_r_runs_pfmbooks_and_batbooks_as_the_r_scripts(tmp_path):
    """``variant="r"``: PFMBooks (memory, d > K) and BATBooks (time) rows equal direct
    runs of ``variant="r"`` -- PFMBooks with B = B0 and, on an Adv- set, g = U_j + 0.1
    (Adv-PFMBooks-c.R); BATBooks with okl's time budget -- and differ from okl's rows."""
    B0 = sel.QUICK_B0
    kernels = [okl.Gaussian(2.0 ** i) for i in range(-4, 5)]
    checks = []
    for setting, name, learner in (("memory", "gen-adv-cls-d20", "PFMBooks"),
                                   ("memory", "gen-reg-d20", "PFMBooks"),
                                   ("time", "gen-adv-cls-d5", "BATBooks")):
        run = sel.selection_memory if setting == "memory" else sel.selection_time
        outs = {v: run(tmp_path / f"{setting}-{name}-{v}", quick=True, seed=SEED,
                       verbose=False, variant=v, datasets=[name], learners=[learner])
                for v in ("okl", "r")}
        out = outs["r"]
        row = rows_of(out, name)[learner]
        vals, budgets = [], []
        for p in range(out["n_permutations"]):
            X, y, s = stream(name, p, out)
            T, d = X.shape
            if learner == "PFMBooks":
                reg = name.startswith("gen-reg")
                m = PFMBooks(kernels, loss="absolute" if reg else "hinge", T=T,
                             upsilon=1 / 3, U_min=None if reg else 5.0, B=B0,
                             Y=max(1.0, np.abs(y).max()), variant="r", seed=s,
                             **({} if reg else {"g": "experiments"}))
            else:
                m = BATBooks(kernels, T=T, time_budget=B0 * (d + 1), variant="r", seed=s)
            tr = m.run(X, y)
            vals.append(np.mean(np.abs(tr.scores - y)) if name.startswith("gen-reg") else
                        np.mean(sel.authors_mistakes(tr.scores, y)))
            budgets.append(m.settings_["capacity"] if learner == "PFMBooks" else m.B_)
        assert row["okl"] == pytest.approx(np.mean(vals), abs=1e-12)
        assert row["budget"] == max(budgets)
        checks.append(row["okl"] != rows_of(outs["okl"], name)[learner]["okl"])
    assert all(checks)
    assert "PFMBooks variant='r'" in sel.VARIANTS["r"]
