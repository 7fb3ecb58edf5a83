"""The layers of docs/api.md ("Layers", the map in :mod:`paipu.layers`): every module of
the installed package is in one layer and imports nothing above it, no import cycle joins
any modules, and no layer imports a library it forbids (the engine: no Arrow, no DuckDB,
no polars). The imports are read with :mod:`ast` from the installed modules' sources,
function-level ones included (an import deferred into a function is an import all the
same); those under ``if TYPE_CHECKING:`` count for the layers but not for cycles (they
never run). The compiled kernel's imports are read from its ``.pyx`` where it is there."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import paipu
from paipu.layers import LAYERS, layer_of, rank

MODULES = sorted({"paipu", *(m.name for m in pkgutil.walk_packages(paipu.__path__, "paipu."))})


class Import:
    def __init__(self, source: str, target: str, line: int, typing_only: bool):
        self.source, self.target, self.line, self.typing_only = source, target, line, typing_only

    def __repr__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}" + (" (typing only)" if self.typing_only else "")


def _origin(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    return Path(spec.origin)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _typing_blocks(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                found.update(id(n) for n in ast.walk(stmt))
    return found


def imports_of(module: str) -> list[Import]:
    """Every import *module* makes: internal ones by their module's name (a name imported
    from a package is the submodule where there is one), libraries by their top name."""
    path = _origin(module)
    is_package = path.name == "__init__.py"
    out: list[Import] = []
    if path.suffix != ".py":  # the compiled kernel: its Cython source, where it is there
        pyx = path.with_name(module.rpartition(".")[2] + ".pyx")
        if pyx.exists():
            for n, line in enumerate(pyx.read_text().splitlines(), 1):
                m = re.match(r"\s*from (\.+)(\w*) (?:c?import) ", line)
                if m and "cimport" not in line:
                    base = ".".join(module.split(".")[: -len(m[1])] + ([m[2]] if m[2] else []))
                    out.append(Import(module, base, n, False))
        return list({(i.target, i.line): i for i in out}.values())
    tree = ast.parse(path.read_text(), str(path))
    typing = _typing_blocks(tree)
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        for target in targets:
            if not target.startswith("paipu.") and target != "paipu":
                target = target.partition(".")[0]
            out.append(Import(module, target, node.lineno, id(node) in typing))
    return list({(i.target, i.line): i for i in out}.values())


IMPORTS = {m: imports_of(m) for m in MODULES}


def test_every_module_is_in_one_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []
    assert len({layer.name for layer in LAYERS}) == len(LAYERS)


def _height(module: str) -> int:
    """The rank of *module*'s layer (one in no layer, which the test above reports, as the
    interface: it may import anything, and nothing may import it)."""
    layer = layer_of(module)
    return rank(layer) if layer is not None else len(LAYERS) - 1


def test_no_module_imports_a_layer_above_its_own():
    upward = [i for found in IMPORTS.values() for i in found if i.target in MODULES
              and _height(i.target) > _height(i.source)]
    assert upward == [], "\n".join(f"{i} ({layer_of(i.source)} -> {layer_of(i.target)})" for i in upward)


def test_no_layer_imports_a_library_it_forbids():
    forbids = {layer.name: set(layer.forbids) for layer in LAYERS}
    bad = [i for found in IMPORTS.values() for i in found if i.target in forbids.get(layer_of(i.source) or "", ())]
    assert bad == [], "\n".join(map(repr, bad))


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm),
    and the modules that import themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_cycles_finds_a_cycle_and_passes_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle():
    edges = {m: {i.target for i in found if i.target in MODULES and not i.typing_only and i.target != m}
             for m, found in IMPORTS.items()}
    found = cycles(edges)
    assert found == [], "\n".join(
        " <-> ".join(c) + ":\n  " + "\n  ".join(repr(i) for m in c for i in IMPORTS[m] if i.target in c and not i.typing_only)
        for c in found)


def test_the_reader_sees_function_level_and_relative_imports():
    found = {(i.target, i.typing_only) for i in IMPORTS["paipu.replay.games"]}
    assert ("importlib", False) in found  # a library, by its top name
    rules = {i.target for i in IMPORTS["paipu.replay.rules"]}
    assert "paipu.replay.cards" in rules  # imported inside a method of Rules


def test_docs_list_the_layers():
    """docs/api.md "Layers" names every layer, its modules and the libraries it forbids, in
    this order."""
    docs = Path(__file__).parents[1] / "docs" / "api.md"
    if not docs.exists():
        pytest.skip("no docs beside the tests")
    text = docs.read_text().partition("\n## Layers")[2].partition("\n## ")[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \|$", text, re.M)
    assert [name for name, _, _ in rows] == [layer.name for layer in LAYERS]
    for (_, modules, forbids), layer in zip(rows, LAYERS):
        assert re.findall(r"`([\w.*]+)`", modules) == list(layer.modules), layer.name
        assert re.findall(r"\w+", forbids.replace("—", "")) == list(layer.forbids), layer.name


def _public_uses(source: str) -> tuple[list[str], list[str]]:
    """What *source* (a module's text) takes from paipu: (the paipu modules it imports
    other than ``paipu`` itself, with their lines; the names it reads from ``paipu``, by
    ``from paipu import X`` or ``paipu.X``)."""
    tree = ast.parse(source)
    modules: list[str] = []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [f"{a.name} (line {node.lineno})" for a in node.names
                        if a.name.startswith("paipu.")]
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "paipu"):
            if node.level or node.module != "paipu":
                modules.append(f"{'.' * node.level}{node.module or ''} (line {node.lineno})")
            else:
                names += [a.name for a in node.names]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "paipu":
            names.append(node.attr)
    return modules, names


def test_public_uses_reads_imports_and_attributes():
    modules, names = _public_uses("import paipu\nimport paipu.replay.api\nfrom paipu import fmt\n"
                                  "def f():\n    from paipu.analysis import queries\n    return paipu.games(), paipu.bogus\n")
    assert modules == ["paipu.replay.api (line 2)", "paipu.analysis (line 5)"]
    assert sorted(names) == ["bogus", "fmt", "games"]


def test_the_cli_uses_only_the_public_api():
    """cli.py is a client of the library (docs/api.md, "The library behind the command
    line"): it imports no paipu module but ``paipu`` (no function-level import either), and
    every name it takes from ``paipu`` is public (``paipu.__all__``) and documented."""
    modules, names = _public_uses(_origin("paipu.cli").read_text())
    assert modules == []
    assert sorted(set(names) - set(paipu.__all__)) == []
    docs = Path(__file__).parents[1] / "docs" / "api.md"
    if docs.exists():
        text = docs.read_text()
        documented = set(re.findall(r"\bpaipu\.(\w+)", text)) | set(re.findall(r"`(\w+)", text))
        assert sorted(set(paipu.__all__) - documented) == []
