"""The README states only what is true.

Its ```python blocks run; every ``okl ...`` command line it shows (in ```bash blocks, and
inline as `okl ...`) parses with okl's own argparse parser; the command lines that need
no download and no cluster run, in a temporary directory, with small ``--rounds`` where
the command takes them; what it says the ``okl bounds`` line prints is what it prints;
its table of learners by paper names okl's learners, all of them; its links point at
files of the repository.  The README is read as text: a block or a line added to it is
tested without touching this file.
"""
import re
import shlex
from pathlib import Path

import pytest

import okl
from okl import cli
from okl.datasets.streams import SYNTHETIC

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

#: The two commands the README opens with, exactly (issue 21).
FIRST_COMMANDS = ['pip install -e . && okl reproduce --quick',
                  'pip install -e ".[test]" && python -m pytest']

#: Names in okl.learners.__all__ that are not learners of a paper.
NOT_PAPER_LEARNERS = {"OnlineLearner", "PythonLearner", "ExpertsTrace", "MemoryBudget",
                      "TimeBudget", "hypothesis_risks"}

#: Subcommands whose stream length is ``--rounds``, and the length the test gives them.
SMALL_ROUNDS = 300


def code_blocks(language):
    """The fenced code blocks of ``language`` in the README, in order."""
    return [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", README, re.M | re.S)
            if lang == language]


def shell_lines():
    """Each line of the README's ```bash blocks, backslash continuations joined."""
    return [line.strip() for block in code_blocks("bash")
            for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def okl_commands(line):
    """``[(env, argv), ...]``: the ``okl`` commands of one shell line (``a && b``),
    with their ``VAR=value`` prefixes; ``argv`` without the leading ``okl``."""
    out, segment = [], []
    for token in shlex.split(line, comments=True) + ["&&"]:
        if token != "&&":
            segment.append(token)
            continue
        env = {}
        while segment and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", segment[0]):
            key, value = segment.pop(0).split("=", 1)
            env[key] = value
        if segment and segment[0] == "okl":
            out.append((env, segment[1:]))
        segment = []
    return out


BLOCK_COMMANDS = [(line, okl_commands(line)) for line in shell_lines() if okl_commands(line)]
INLINE_COMMANDS = sorted(set(re.findall(r"`(okl [^`]+)`", README)))


def _id(line):
    return line.split(" #", 1)[0].strip()


def _option(argv, name):
    return argv[argv.index(name) + 1] if name in argv else None


def needs_download_or_cluster(env, argv):
    """Whether a command reads a benchmark file (or the papers' files) or a Dask cluster."""
    data = _option(argv, "--data")
    return ("OKL_DATA" in env or "--download" in argv or "--datasets" in argv
            or "--dask" in argv or (data is not None and data not in SYNTHETIC))


def _parse(argv):
    try:
        return cli._parser().parse_args(argv)
    except SystemExit as exc:     # argparse's way of refusing a command line
        raise AssertionError(f"okl {shlex.join(argv)} does not parse (exit {exc.code})")


def test_the_readme_opens_with_the_two_commands():
    assert [b.strip() for b in code_blocks("bash")[:2]] == FIRST_COMMANDS


@pytest.mark.parametrize("index", range(len(code_blocks("python"))))
def test_python_block_runs(index, monkeypatch):
    """Each block runs as a module of its own, as in a user's script (a class it defines
    pickles by name)."""
    import sys
    import types

    block = code_blocks("python")[index]
    module = types.ModuleType(f"readme_block_{index + 1}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(block, f"README.md python block {index + 1}", "exec"), module.__dict__)


def test_there_is_a_python_block():
    assert code_blocks("python")


@pytest.mark.parametrize("line", [line for line, _ in BLOCK_COMMANDS] + INLINE_COMMANDS, ids=_id)
def test_okl_command_line_parses(line):
    commands = okl_commands(line)
    assert commands, line
    for _, argv in commands:
        _parse(argv)


def _small(argv):
    """``argv`` with a short stream where the command takes ``--rounds`` and the README
    does not set it (a named reproduction; ``okl reproduce --quick`` without a name runs
    every experiment at its own small size and takes no other option)."""
    args = _parse(argv)
    if "--rounds" in argv:
        return argv
    if args.command in ("run", "sweep", "bounds") or (args.command == "reproduce"
                                                       and args.name is not None
                                                       and args.quick):
        return argv + ["--rounds", str(SMALL_ROUNDS)]
    return argv


RUNNABLE = [line for line, commands in BLOCK_COMMANDS
            if not any(needs_download_or_cluster(env, argv) for env, argv in commands)]


def test_the_readme_runs_each_kind_of_command():
    """The filter above leaves the README's first command, a run, a plot, a bound report
    and a listing: a README edit that turns them all into downloads fails here."""
    ran = {_parse(argv).command for line in RUNNABLE for _, argv in okl_commands(line)}
    assert {"run", "plot", "bounds", "reproduce"} <= ran
    assert "pip install -e . && okl reproduce --quick" in RUNNABLE


@pytest.mark.parametrize("line", RUNNABLE, ids=_id)
def test_okl_command_line_runs(line, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OKL_DATA", str(tmp_path / "no-data"))   # what a fresh clone has
    for env, argv in okl_commands(line):
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        assert cli.main(_small(argv)) == 0, f"okl {shlex.join(argv)}: {capsys.readouterr()}"
        out = capsys.readouterr().out
        if _parse(argv).command == "bounds" and "POMD" in argv:
            # the prose under the block: "the ALD test keeps 61 of the 1,000 points"
            kept, rounds = re.search(r"keeps (\d+)\s+of the ([\d,]+) points", README).groups()
            assert _option(argv, "--rounds") == rounds.replace(",", "")
            assert re.search(rf"^ALD budget \|S_T\|\s+{kept}\s", out, re.M), out


def test_learners_by_paper_name_every_learner():
    section = README[README.index("## Learners by paper"):]
    section = section[:section.index("\n## ")]
    named = set(re.findall(r"`(\w+)`", section))
    assert named, "no learner named"
    unknown = sorted(n for n in named if not hasattr(okl, n))
    assert not unknown, f"the README names {unknown}, which okl does not have"
    learners = {n for n in okl.learners.__all__ if isinstance(getattr(okl.learners, n), type)}
    missing = sorted(learners - NOT_PAPER_LEARNERS - named)
    assert not missing, (f"okl.learners has {missing}, which the README's learners by paper "
                         f"do not list (or add them to NOT_PAPER_LEARNERS)")


def test_relative_links_point_at_files():
    links = [target for target in re.findall(r"\]\(([^)]+)\)", README)
             if not re.match(r"[a-z]+://", target)]
    assert links
    missing = [t for t in links if not (ROOT / t.split("#", 1)[0]).exists()]
    assert not missing, missing
