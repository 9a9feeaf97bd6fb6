import json

import numpy as np
import pytest

import okl
from okl.cli import main
from okl.datasets import load_libsvm, xor_stream


def test_okl_run_default_needs_no_download(capsys, tmp_path):
    out = tmp_path / "run.json"
    assert main(["run", "--rounds", "500", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "mistake rate" in text and "support vectors" in text
    summary = json.loads(out.read_text())
    X, y = xor_stream(500, 10, seed=0)
    trace = okl.Perceptron(kernel=okl.Gaussian(1.0)).run(X, y)
    assert summary["mistakes"] == trace.n_mistakes
    assert summary["final_budget"] == trace.final_budget


def test_okl_run_reports_bad_parameters(capsys):
    assert main(["run", "--kernel", "gaussian", "--sigma", "-1", "--rounds", "10"]) == 2
    assert "sigma" in capsys.readouterr().err


def test_okl_run_on_a_libsvm_file(tmp_path, capsys):
    path = tmp_path / "toy.svm"
    path.write_text("1 1:0.5 3:1.0\n0 2:1.0\n1 1:-0.5 2:0.25\n")
    assert main(["run", "--data", str(path), "--kernel", "linear"]) == 0
    assert "rounds           3" in capsys.readouterr().out


def test_load_libsvm_maps_binary_labels(tmp_path):
    path = tmp_path / "a.svm"
    path.write_text("2 1:1\n1 2:1\n2 3:1\n")
    X, y = load_libsvm(path)
    np.testing.assert_array_equal(y, [1, -1, 1])
    assert X.shape == (3, 3) and X.format == "csr"


def test_load_libsvm_rejects_multiclass_and_malformed(tmp_path):
    multi = tmp_path / "m.svm"
    multi.write_text("1 1:1\n2 1:1\n3 1:1\n")
    with pytest.raises(ValueError, match="3 distinct labels"):
        load_libsvm(multi)
    bad = tmp_path / "b.svm"
    bad.write_text("1 1:1\n-1 2:abc\n")
    with pytest.raises(ValueError, match="not a valid LIBSVM file"):
        load_libsvm(bad)


def test_xor_stream_is_seeded_and_validated():
    a, b = xor_stream(50, 3, seed=1), xor_stream(50, 3, seed=1)
    np.testing.assert_array_equal(a[0], b[0])
    assert set(np.unique(a[1])) <= {-1.0, 1.0}
    with pytest.raises(ValueError, match="n_features"):
        xor_stream(10, 1)


def test_readme_tour_runs():
    """The README's tour, as a user would paste it."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    tour = re.search(r"## A short tour\s+```python\n(.*?)```", readme, re.S).group(1)
    exec(compile(tour, "README tour", "exec"), {})
