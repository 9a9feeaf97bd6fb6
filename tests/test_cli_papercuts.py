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


@pytest.mark.parametrize("argv, option", [
    (["run", "--rounds", "0"], "--rounds"),
    (["run", "--features", "-2"], "--features"),
    (["run", "--data", "a9a", "--chunk-rows", "0"], "--chunk-rows"),
    (["run", "--summary-every", "x"], "--summary-every"),
    (["sweep", "--learner", "NORMA", "--permutations", "0"], "--permutations"),
    (["reproduce", "pomdr-table2", "--rounds", "-1"], "--rounds"),
    (["bounds", "--rounds", "0"], "--rounds"),
])
def test_a_count_below_one_is_a_usage_error_naming_the_option(argv, option, capsys):
    """``okl run --rounds 0`` said ``n_rounds must be in [1, inf]`` and ``--chunk-rows 0``
    ``chunk_rows must be ...``: the library's names, not the option's (issue 15.6)."""
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: must be a positive integer" in err
    assert "Traceback" not in err


def test_a_warning_is_one_line_naming_okl():
    """The POMDR B0 fallback printed ``.../okl/learners/base.py:317: UserWarning`` and
    the code line ``self.__init__(...)``; the command prints the message alone.  (In a
    subprocess: pytest records warnings instead of printing them.)"""
    import subprocess
    import sys
    import warnings

    done = subprocess.run([sys.executable, "-m", "okl.cli", "run", "--learner", "POMDR",
                           "-p", "B=20", "--rounds", "300", "--features", "3",
                           "--no-progress"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = [s for s in done.stderr.splitlines() if "B0" in s]
    assert len(line) == 1 and line[0].startswith("okl: warning: POMDR: the default B0")
    assert ".py:" not in done.stderr and "UserWarning" not in done.stderr
    assert "mistake rate" in done.stdout
    before = warnings.formatwarning
    with pytest.warns(UserWarning, match="B/2"):     # recorded warnings are untouched
        assert cli.main(["run", "--learner", "POMDR", "-p", "B=20", "--rounds", "300",
                         "--features", "3", "--no-progress"]) == 0
    assert warnings.formatwarning is before          # restored for the caller


def test_an_interrupt_is_one_line_not_a_traceback(monkeypatch, capsys):
    """Ctrl-C while ``okl run`` or ``okl sweep`` loads its data printed a traceback."""
    def interrupted(args, learners=()):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_stream", interrupted)
    assert cli.main(["run", "--no-progress"]) == 130
    assert capsys.readouterr().err == "okl: interrupted\n"
    assert cli.main(["sweep", "--learner", "NORMA", "--no-progress"]) == 130
    assert capsys.readouterr().err == "okl: interrupted\n"


def test_help_states_the_defaults(capsys):
    for command, text in [("plot", "(default okl-plot)"), ("reproduce", "(default okl-results)"),
                          ("sweep", "(default okl-sweep)"), ("run", "(default 20000)"),
                          ("bounds", "(default 1000)")]:
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert text in out, (command, text)


def test_bounds_on_a_long_stream_names_the_options(capsys):
    """``okl bounds --rounds 5000`` advised ``pass a prefix (X[:3000], y[:3000]) or raise
    max_rounds``, the Python call; the command names its own options."""
    assert cli.main(["bounds", "--rounds", "50", "--max-rounds", "40"]) == 2
    err = capsys.readouterr().err
    assert "pass --prefix 40 or raise --max-rounds" in err and "X[:" not in err
    assert err == ("okl: error: the stream has T = 50 rounds, more than max_rounds = 40: the "
                   "comparators and the Gram spectrum cost O(T^3); pass --prefix 40 or raise "
                   "--max-rounds\n")
    from okl.experiments.bounds import bounds_report
    with pytest.raises(ValueError, match=r"X\[:40\]"):    # the library keeps its advice
        bounds_report(okl.Perceptron(), *xor_stream(50, 3, seed=0), max_rounds=40)


def test_reproduce_an_unknown_name_is_one_line(capsys):
    """``okl reproduce nope`` was a KeyError traceback."""
    assert cli.main(["reproduce", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("okl: error: unknown experiment 'nope'") and "pomdr-table2" in err
    assert "Traceback" not in err


def test_reproduce_datasets_take_commas_as_well(monkeypatch, tmp_path, capsys):
    """``--datasets a9a,magic04`` reached the runner as one name 'a9a,magic04'."""
    from okl import experiments

    seen = {}

    def fake_run(name, out, *, quick, seed, **options):
        seen.update(options, name=name)
        return {"reproduction": name, "files": []}

    monkeypatch.setattr(experiments, "run", fake_run)
    for argv in (["--datasets", "a9a,magic04"], ["--datasets", "a9a", "magic04"]):
        seen.clear()
        assert cli.main(["reproduce", "pomdr-table2", "--quick", "--out", str(tmp_path),
                         *argv]) == 0
        assert seen["name"] == "pomdr-table2" and seen["datasets"] == ["a9a", "magic04"]


def test_p_sigma_is_the_kernel_width_in_every_command(capsys, tmp_path):
    """One meaning of ``-p sigma`` (okl.learners.split_params): a bare kernel parameter is
    the kernel's in ``run``, ``sweep`` and ``bounds`` alike, NORMA's own sigma (its Huber
    width) is ``-p learner.sigma``, and a learner without a kernel is told it takes no
    sigma."""
    assert cli.main(["run", "-p", "sigma=2", "--rounds", "50", "--no-progress"]) == 0
    assert "Perceptron(kernel=Gaussian(sigma=2.0), seed=0)" in capsys.readouterr().out
    assert cli.main(["run", "--learner", "NORMA", "-p", "sigma=2", "--rounds", "50",
                     "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "kernel=Gaussian(sigma=2.0)" in out and "sigma=1.0," in out   # NORMA's own: default
    assert cli.main(["run", "--learner", "NORMA", "-p", "learner.sigma=0.5", "-p",
                     "kernel.sigma=3", "--rounds", "50", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "kernel=Gaussian(sigma=3.0)" in out and "sigma=0.5," in out
    assert cli.main(["run", "--learner", "LKMBooks", "-p", "sigma=2", "-p", "B=10"]) == 2
    assert "LKMBooks takes no parameter(s) ['sigma']" in capsys.readouterr().err
    assert cli.main(["run", "-p", "kernel.degree=2"]) == 2
    assert "the gaussian kernel takes ['sigma']" in capsys.readouterr().err
    out_prefix = tmp_path / "s"
    assert cli.main(["sweep", "--learner", "NORMA", "--learner", "Perceptron", "-p",
                     "sigma=1,2", "--rounds", "60", "--no-progress", "--out",
                     str(out_prefix)]) == 0
    import csv

    rows = list(csv.DictReader(open(f"{out_prefix}.csv")))
    assert sorted({(r["learner"], r["sigma"]) for r in rows}) == [
        ("NORMA", "1.0"), ("NORMA", "2.0"), ("Perceptron", "1.0"), ("Perceptron", "2.0")]


def test_p_values_are_parsed_by_the_declarations(capsys):
    """``-p B=12`` is the integer 12 (okl.params), not a guess; a wrong type or range is
    named before anything runs."""
    assert cli.main(["run", "--learner", "BOGD", "-p", "B=12", "--rounds", "40",
                     "--no-progress"]) == 0
    assert "B=12," in capsys.readouterr().out
    assert cli.main(["run", "--learner", "BOGD", "-p", "B=1.5"]) == 2
    assert "B must be an integer, got '1.5'" in capsys.readouterr().err
    assert cli.main(["run", "--learner", "BOGD", "-p", "B=0"]) == 2
    assert "B must be in [1, 2147483647], got 0" in capsys.readouterr().err
    assert cli.main(["run", "--learner", "BOGD", "-p", "gamma=None", "--rounds", "40",
                     "--no-progress"]) == 0
    assert "gamma=None" in capsys.readouterr().out
    assert cli.main(["run", "--learner", "BOGD", "-p", "clip=nope"]) == 2
    assert "clip must be one of ['element', 'rescale'], got 'nope'" in capsys.readouterr().err


ADVICE = ("a binary learner reads numeric binary labels only: give it --multiclass ovr|ovo, "
          "or use a multiclass learner (okl run --list), or a benchmark that maps its own "
          "(--data magic04)")


@pytest.mark.parametrize("command", ["run", "bounds"])   # chunked reader; whole-file reader
@pytest.mark.parametrize("name, text, expected", [
    ("three.libsvm", "1 1:1\n2 1:2\n3 1:3\n",
     "3 distinct labels [1.0, 2.0, 3.0]; a binary file is needed, or --learner "
     "MulticlassPerceptron (the multiclass version of Perceptron), or " + ADVICE
     + " or positive=label (one-vs-rest), or labels='keep'"),
    ("single.libsvm", "5 1:1\n5 1:2\n", "a single label [5.0] that is not -1 or +1; " + ADVICE),
    ("s.csv", "1.0,2.0,g\n3.0,4.0,h\n5,6,x\n",
     "the labels are not numbers (line 1: 'g'; labels ['g', 'h', 'x']); " + ADVICE),
])
def test_labels_errors_on_the_command_line_word_by_word(tmp_path, capsys, command, name, text,
                                                        expected):
    """The whole line, as the command printed it when it rewrote the library's message
    with regular expressions (now from the error's fields)."""
    path = tmp_path / name
    path.write_text(text)
    argv = [command, "--data", str(path)] + (["--no-progress"] if command == "run" else [])
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == f"okl: error: {path}: {expected}\n"


def test_a_binary_learner_on_many_classes_is_told_its_multiclass_version(tmp_path, capsys):
    path = tmp_path / "three.libsvm"
    path.write_text("1 1:1\n2 1:2\n3 1:3\n")
    assert cli.main(["run", "--learner", "BSGD", "--data", str(path), "--no-progress"]) == 2
    assert "or --learner MulticlassBSGD (the multiclass version of BSGD), or" in \
        capsys.readouterr().err
    assert cli.main(["run", "--learner", "NORMA", "--data", str(path), "--no-progress"]) == 2
    assert "multiclass version" not in capsys.readouterr().err      # NORMA has none


def test_a_dataset_not_cached_word_by_word(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OKL_DATA", str(tmp_path))
    assert cli.main(["sweep", "--learner", "NORMA", "--data", "w8a", "--no-progress"]) == 2
    url = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/w8a"
    assert capsys.readouterr().err == (
        f"okl: error: dataset 'w8a' is not in {tmp_path} (looked for w8a, plain or "
        f".gz/.bz2/.xz/.zip); set the environment variable OKL_DATA to a directory that has "
        f"it, or download it with `okl sweep ... --download` or by hand from {url} "
        f"(https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#w8a)\n")


def test_string_labels_in_a_file_get_command_line_advice(tmp_path, capsys):
    """``okl run --data magic04.data`` advised ``give labels={...: +1, ...: -1}``, a keyword
    of the Python loader that the command has no option for."""
    path = tmp_path / "m.data"
    path.write_text("1.0,2.0,g\n3.0,4.0,h\n")
    assert cli.main(["run", "--data", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "labels are not numbers" in err and "labels={" not in err
    assert "--data magic04" in err
    from okl.datasets.files import load_csv
    with pytest.raises(ValueError, match=r"give labels=\{"):   # the library keeps its advice
        load_csv(path)
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    assert "label in the last column" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("argv", [
    ["sweep", "--learner", "NORMA", "--jobs", "0"],
    ["sweep", "--learner", "NORMA", "--jobs", "two"],
    ["reproduce", "pomdr-table2", "--quick", "--jobs", "0"],
])
def test_jobs_zero_is_a_usage_error_and_leaves_no_journal(argv, tmp_path, monkeypatch, capsys):
    """``okl sweep --jobs 0`` printed joblib's ``n_jobs == 0 in Parallel has no meaning``
    after creating okl-sweep-journal.jsonl, which then refused the next, unrelated sweep
    ('journal ... already exists')."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --jobs: must be a nonzero integer" in err and "Parallel" not in err
    assert list(tmp_path.iterdir()) == []


def test_jobs_takes_joblibs_negative_counts():
    parser = cli._parser()
    assert parser.parse_args(["sweep", "--learner", "NORMA", "--jobs", "-1"]).jobs == -1
    assert parser.parse_args(["reproduce", "x", "--jobs", "2"]).jobs == 2


def test_bounds_max_rounds_zero_is_a_usage_error(capsys):
    """``okl bounds --max-rounds 0`` silently ran with the default limit 3000."""
    with pytest.raises(SystemExit) as exc:
        cli.main(["bounds", "--max-rounds", "0"])
    assert exc.value.code == 2
    assert "argument --max-rounds: must be a positive integer" in capsys.readouterr().err


def test_run_creates_the_directories_of_json_and_trace_before_running(tmp_path, capsys):
    """``okl run --json DIR/x.json`` with DIR missing ran the whole stream, printed the
    result and then failed with ``[Errno 2]``; sweep, bounds and plot create their
    output directories, and now run does too."""
    summary, trace = tmp_path / "a" / "s.json", tmp_path / "b" / "c" / "t.npz"
    assert cli.main(["run", "--rounds", "60", "--features", "3", "--no-progress",
                     "--json", str(summary), "--trace", str(trace)]) == 0
    import json

    assert json.loads(summary.read_text())["n_rounds"] == 60
    assert okl.Trace.load(trace).n_rounds == 60


@pytest.mark.parametrize("quick, agrees, noted", [
    (True, [True, False, None], True),
    (True, [True, None], False),          # the legend says 'FLAG otherwise': no row flags
    (False, [False], False),
])
def test_quick_reproduction_with_flags_says_why(quick, agrees, noted, monkeypatch, tmp_path,
                                                capsys):
    """``okl reproduce pomdr-table2 --quick --datasets a9a`` flagged all 5 rows ('0 of 5
    rows on real data within tolerance') with nothing on the screen saying that a
    --quick run is too short to compare (docs/experiments.rst says it)."""
    from okl import experiments

    argv = ["reproduce", "pomdr-table2", "--out", str(tmp_path)] + (["--quick"] if quick else [])
    monkeypatch.setattr(experiments, "run", lambda name, out, **kw: {
        "reproduction": name, "text": "... FLAG otherwise ...", "files": [],
        "rows": [{"learner": "POMDR", "agrees": a} for a in agrees]})
    assert cli.main(argv) == 0
    assert ("only full runs are comparable" in capsys.readouterr().out) is noted


@pytest.mark.parametrize("command", ["run", "sweep", "bounds", "plot", "reproduce"])
def test_every_command_help_is_plain_and_states_defaults(command, capsys):
    """``okl run --help`` showed reST backticks (```okl plot```) and ``--sigma``,
    ``--degree``, ``bounds --learner`` and ``reproduce --seed`` gave no default (or no
    help at all)."""
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "`" not in out
    if command in ("run", "bounds"):
        assert "width (default 1)" in out and "degree (default 2)" in out
    if command == "bounds":
        assert "module:Class of your own (default Perceptron)" in out
    if command == "reproduce":
        assert "learners (default 0)" in out


@pytest.mark.parametrize("argv", [
    ["run", "--learner", "Ahpatron", "--rounds", "50", "--no-progress"],
    ["bounds", "--learner", "Ahpatron", "--rounds", "50"],
    ["sweep", "--learner", "NORMA", "--learner", "Ahpatron", "--rounds", "50",
     "--no-progress"],
])
def test_a_required_parameter_is_named_as_an_option(argv, tmp_path, monkeypatch, capsys):
    """``okl run --learner Ahpatron`` (no default budget) was a TypeError traceback
    ('missing 1 required keyword-only argument'); ``okl sweep`` added that '0 finished
    run(s) are saved' and advised --resume."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err == "okl: error: Ahpatron has no default for B: give -p B=VALUE\n"
    assert list(tmp_path.iterdir()) == []                      # no journal either
    assert cli.main([*argv, "-p", "B=10"]) == 0


def test_plot_of_a_no_timing_sweep_says_what_is_missing(tmp_path, capsys):
    """``okl plot`` of a ``okl sweep --no-timing`` CSV said 'is not a sweep CSV'."""
    out = tmp_path / "nt"
    assert cli.main(["sweep", "--learner", "NORMA", "--rounds", "40", "--features", "2",
                     "--no-progress", "--no-timing", "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["plot", f"{out}.csv", "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert "no seconds column" in err and "--no-timing" in err and "not a sweep" not in err
    summary = f"{out}-summary.csv"            # still: a CSV that is no sweep's rows
    assert cli.main(["plot", summary]) == 2
    assert "is not a sweep CSV" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["sweep", "reproduce"])
def test_an_unreachable_dask_scheduler_is_one_line(command, tmp_path, monkeypatch, capsys):
    """``okl sweep --dask tcp://host:port`` with no scheduler there ended in a
    distributed OSError traceback ('Timed out trying to connect ... after 30 s')."""
    from okl import experiments
    from okl.experiments import executor

    def unreachable(*args, **kwargs):
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 30 s")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(executor, "_on_dask", unreachable)   # sweep's and reproduce's
    monkeypatch.setattr(experiments, "run", unreachable)
    argv = (["sweep", "--learner", "NORMA", "--rounds", "30", "--no-progress"]
            if command == "sweep" else ["reproduce", "pomdr-table2", "--quick"])
    assert cli.main([*argv, "--dask", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("okl: error: --dask tcp://127.0.0.1:1: Timed out trying to connect")
    assert "Traceback" not in err and len(err.splitlines()) == 1
    if command == "sweep":
        assert "--resume to continue" in err
    else:                                      # without --dask an OSError is not hidden
        with pytest.raises(OSError, match="Timed out"):
            cli.main(argv)
