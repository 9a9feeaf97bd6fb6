"""Sphinx configuration for okl's documentation.

The per-learner pages (``learners/<Name>.rst``) and the list of paper
reproductions (``reproduce_list.rst``) are generated here at build time from
``okl.learners.__all__`` and ``okl.experiments.available()``, so every learner
has a page and every ``okl reproduce`` name is listed without anyone keeping a
list by hand.  Build: ``sphinx-build -W -b html docs docs/_build/html``.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import okl
import okl.experiments
import okl.learners

project = "okl"
author = "the okl developers"
release = okl.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_default_options: dict = {}
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path: list = []
nitpicky = False

HERE = Path(__file__).parent


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _paper_line(cls) -> str:
    doc = inspect.getdoc(cls) or ""
    return doc.split("\n\n", 1)[0].replace("\n", " ")


def _parameters(cls) -> list:
    names = getattr(cls, "_param_names", ()) or [
        p.name for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return list(names)


def _parameter_lines(cls) -> str:
    """Constructor parameters in order; for a dispatching class (``PKAWV(basis=...)``)
    those of each implementation."""
    own = _parameters(cls)
    if own:
        return "Parameters (constructor order): " + ", ".join(f"``{p}``" for p in own)
    lines = []
    for sub in cls.__subclasses__():
        lines.append(f"* :class:`{sub.__module__}.{sub.__name__}`: "
                     + ", ".join(f"``{p}``" for p in _parameters(sub)))
    return "Parameters (constructor order), by implementation:\n\n" + "\n".join(lines)


def _learner_pages() -> None:
    out = HERE / "learners"
    out.mkdir(exist_ok=True)
    not_learners = {"OnlineLearner", "OnlineToBatch", "ExpertsTrace", "MemoryBudget",
                    "TimeBudget"}     # documented in the API page
    names = [n for n in okl.learners.__all__
             if isinstance(getattr(okl.learners, n), type) and n not in not_learners]
    index = ["Learners", "========", "",
             "One page per learner: its paper, the algorithm and equations it implements,",
             "its parameters, and what its ``Trace.extras`` report.  Every learner shares",
             "the API of :doc:`../api` (``run``, ``learn_one``, ``predict_one``,",
             "``partial_fit``, pickling).", "",
             ".. list-table::", "   :header-rows: 1", "", "   * - learner", "     - summary"]
    for name in names:
        index += [f"   * - :doc:`{name}`", f"     - {_paper_line(getattr(okl.learners, name))}"]
    index += ["", ".. toctree::", "   :hidden:", ""] + [f"   {n}" for n in names]
    _write_if_changed(out / "index.rst", "\n".join(index) + "\n")
    for name in names:
        cls = getattr(okl.learners, name)
        title = f"``{name}``"
        text = "\n".join([
            title, "=" * len(title), "",
            f".. autoclass:: okl.{name}", "",
            _parameter_lines(cls),
            "",
        ] + [f".. autoclass:: {sub.__module__}.{sub.__name__}\n"      # a dispatcher's
             for sub in (cls.__subclasses__() if not _parameters(cls) else ())])  # implementations
        _write_if_changed(out / f"{name}.rst", text)


def _reproduce_list() -> None:
    lines = []
    for name, fn in sorted(okl.experiments.available().items()):
        summary = (inspect.getdoc(fn) or "").split("\n\n", 1)[0].replace("\n", " ")
        lines += [f"``okl reproduce {name}``", f"   {summary or '(no description)'}", ""]
    _write_if_changed(HERE / "reproduce_list.rst", "\n".join(lines))


_learner_pages()
_reproduce_list()
