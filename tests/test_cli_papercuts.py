"""What a new user of the ``okl`` command met (issue 15.5): help text, a dataset that is
not cached, ``okl plot``'s labels and a missing file."""
import numpy as np
import pytest

import okl
from okl import cli
from conftest import xor_stream


def test_help_is_plain_text(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out and ":class:" not in out
    assert "okl run runs one learner on one stream" in out
    assert cli._plain_text("``a`` :class:`~okl.B` `c` :func:`d`") == "a okl.B c d"


def test_a_dataset_not_cached_points_at_download(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OKL_DATA", str(tmp_path))
    assert cli.main(["run", "--data", "a9a", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--download" in err and "okl.datasets.load" not in err
    assert "a9a" in err and str(tmp_path) in err


def test_plot_labels_each_trace_by_its_learner(tmp_path):
    X, y = xor_stream(200, 3, seed=1)
    paths = {}
    for name, learner in [("run", okl.Perceptron()), ("run2", okl.BOGD(B=10, seed=0)),
                          ("a", okl.NORMA(lam=0.1)), ("b", okl.NORMA(lam=0.01))]:
        paths[name] = str(tmp_path / f"{name}.npz")
        learner.run(X, y).save(paths[name])
    traces = {p: okl.Trace.load(p) for p in paths.values()}
    labels = list(cli._trace_labels(traces))
    assert labels == ["Perceptron", "BOGD", "NORMA (a)", "NORMA (b)"]
    out = tmp_path / "fig"
    assert cli.main(["plot", *paths.values(), "--out", str(out)]) == 0
    assert (tmp_path / "fig-mistake-rate.png").exists()


def test_plot_of_a_missing_file_says_so(tmp_path, capsys):
    missing = tmp_path / "nope.npz"
    assert cli.main(["plot", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "not a trace" not in err
    with pytest.raises(FileNotFoundError):
        okl.Trace.load(missing)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a trace"):
        okl.Trace.load(bad)


def test_pomdr_runs_at_seed_002s_budget_from_the_command_line(tmp_path, capsys):
    """``okl run --learner POMDR -p B=150``: the default B0 falls back (with a warning)
    where ceil(15 ln T) >= B instead of refusing (issue 15.4)."""
    with pytest.warns(UserWarning, match="B/2"):
        code = cli.main(["run", "--learner", "POMDR", "-p", "B=20", "--rounds", "300",
                         "--features", "3", "--json", str(tmp_path / "s.json")])
    assert code == 0
    import json

    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["extras"]["B0"] == 10 and summary["n_rounds"] == 300
    assert np.isfinite(summary["mistake_rate"])
