"""The layers of okl.datasets: no module imports one above it.

files < chunks (paths only) < registry < fetch (dataset names) < papers; the
synthetic streams (synthetic, drifting, spectral) import no module of the package, and
the package's ``__init__`` stands above everything.  Every import counts, wherever it
stands (module level or inside a function): an import moved into a function hides a
circle, it does not cut it.  The imports are read with ``ast`` (nothing is imported).
"""
import ast
from pathlib import Path

import pytest

import okl.datasets

PACKAGE = "okl.datasets"
HERE = Path(okl.datasets.__file__).parent

#: bottom to top; a module may import only modules of a lower layer
LAYERS = [
    {"files", "synthetic", "drifting", "spectral"},
    {"chunks"},
    {"registry"},
    {"fetch"},
    {"papers", "streams"},
    {"__init__"},
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _modules():
    return sorted(p.stem for p in HERE.glob("*.py"))


def package_imports(source: str, module: str) -> set:
    """The modules of okl.datasets that ``source`` (module ``module`` of the package)
    imports, anywhere in it; ``"__init__"`` for a name taken from the package itself."""
    submodules = set(_modules()) - {"__init__"}
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE:
                    found.add("__init__")
                elif alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name.split(".")[2])
        elif isinstance(node, ast.ImportFrom):
            if node.level:              # relative: from . import x / from .x import y
                base = PACKAGE if module == "__init__" or node.level == 1 else None
                if base is None:
                    continue            # above the package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target == PACKAGE:
                for alias in node.names:
                    found.add(alias.name if alias.name in submodules else "__init__")
            elif target.startswith(PACKAGE + "."):
                found.add(target.split(".")[2])
    found.discard(module)
    return found


def violations(module: str, imported: set) -> list:
    return [f"okl.datasets.{module} (layer {RANK[module]}) imports okl.datasets.{other} "
            f"(layer {RANK.get(other, '?')})"
            for other in sorted(imported) if RANK.get(other, len(LAYERS)) >= RANK[module]]


def test_every_module_has_a_layer():
    assert set(_modules()) == set(RANK), "place a new module of okl.datasets in LAYERS"


@pytest.mark.parametrize("module", _modules())
def test_no_module_imports_one_above_it(module):
    source = (HERE / f"{module}.py").read_text()
    assert violations(module, package_imports(source, module)) == []


# -- the check itself can fail ---------------------------------------------------------

CIRCLE_BEFORE = {
    # the imports that made the circle chunks -> fetch -> paper_data (now papers) -> fetch (issue 20),
    # each inside a function as they stood
    "chunks": "def _resolve(source):\n    from okl.datasets import fetch\n",
    "fetch": "def load():\n    from okl.datasets.papers import draw_indices\n",
    "registry": "import okl.datasets.fetch\n",
    "files": "from . import chunks\n",
    "synthetic": "from .registry import DATASETS\n",
    "papers": "from okl.datasets import load\n",
}


@pytest.mark.parametrize("module", sorted(CIRCLE_BEFORE))
def test_an_upward_import_is_found_wherever_it_stands(module):
    found = package_imports(CIRCLE_BEFORE[module], module)
    assert found, CIRCLE_BEFORE[module]
    assert violations(module, found), found


def test_downward_imports_pass():
    source = ("from okl.datasets import fetch\nfrom okl.datasets.registry import DATASETS\n"
              "import okl.datasets.files\nimport numpy as np\nfrom .chunks import scan\n")
    assert package_imports(source, "papers") == {"fetch", "registry", "files", "chunks"}
    assert violations("papers", package_imports(source, "papers")) == []


def test_public_names_stay_where_they_were():
    """The names moved down are still importable from their old modules, and
    okl.datasets.iter_chunks still takes a dataset name (the layer above chunks)."""
    from okl.datasets import chunks, fetch, iter_chunks
    from okl.datasets.papers import draw_indices   # the module of okl.datasets.paper_data
    assert draw_indices is fetch.draw_indices
    assert iter_chunks is fetch.iter_chunks
    assert chunks.select_rows is fetch.select_rows
    for name in ("iter_chunks", "scan", "select_rows", "FileInfo", "DEFAULT_CHUNK_ROWS"):
        assert hasattr(chunks, name), name
    with pytest.raises(FileNotFoundError, match="neither a file nor a dataset"):
        iter_chunks("no-such-thing")
    with pytest.raises(FileNotFoundError, match="no such file"):
        chunks.iter_chunks("a9a")          # a name is not a path at this layer
