"""The layers of docs/design.rst, read from the code: no module imports a layer above
its own (at module level or inside a function), ``theory`` imports nothing of okl, and
the package has no import circle.  No module of ``okl/`` is over 1,000 lines."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the layers, bottom first (docs/design.rst); a module's layer is that of the longest
#: prefix of its name listed here
LAYERS = [
    ("okl.registry",),
    ("okl._core", "okl._validation", "okl._stream", "okl._kernels", "okl._support",
     "okl._gram", "okl._learner", "okl._dictrow", "okl._cyutility"),
    ("okl.kernels", "okl.trace"),
    ("okl.params",),
    ("okl.datasets",),
    ("okl.learners",),
    ("okl.testing", "okl.sklearn", "okl.river", "okl._wrapper", "okl.streaming",
     "okl.plotting"),
    ("okl.experiments",),
    ("okl.cli",),
]


def _modules():
    out = {}
    for base in ("okl", "theory"):
        for path in sorted((ROOT / base).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name, path):
    """Every okl/theory module ``name`` imports, anywhere in it (relative imports too)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                base = ".".join(up[:len(up) - node.level + 1] + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in MODULES and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in MODULES and t != name:
                found.add(t)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(name):
    best, rank = "", None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > len(best):
                best, rank = p, i
    return rank


def test_every_module_has_a_layer():
    unplaced = [m for m in MODULES if m.startswith("okl.") and _layer(m) is None]
    assert not unplaced, f"place these in LAYERS (and docs/design.rst): {unplaced}"


def test_no_module_imports_a_layer_above_its_own():
    upward = []
    for name, targets in GRAPH.items():
        if name == "okl":            # the package's lazy facade: okl.X imports on first use
            continue
        if name.startswith("theory"):
            upward += [f"{name} -> {t}" for t in targets if t.startswith("okl")]
            continue
        mine = _layer(name)
        upward += [f"{name} -> {t}" for t in targets
                   if t.startswith("okl.") and _layer(t) is not None and _layer(t) > mine]
    assert not upward, "\n".join(upward)


def _circles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    # a package's __init__ importing its own modules is how a package is read, not a
    # circle: those edges are left out (a module importing its package's __init__ for
    # another module's names is not)
    graph = {n: {t for t in ts if not (n != "okl" and t.startswith(n + "."))}
             for n, ts in GRAPH.items()}
    graph["okl"] = set()             # lazy facade
    assert _circles(graph) == []


def test_the_circle_check_can_fail():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("suffix", ["*.py", "*.pyx"])
def test_no_module_of_okl_over_1000_lines(suffix):
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "okl").rglob(suffix)
            if (n := len(p.read_text().splitlines())) > 1000}
    assert not long, long
