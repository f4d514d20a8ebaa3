"""The package's import graph: no cycles (lazy imports included), and light tool imports.

The graph is read with the standard library's ``ast``: every ``import`` and ``from ...
import`` of a ``benchsmith`` module, at module level or inside a function (a lazy import
that closes a circle is still a circle: it only moves the failure to run time), except
those under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import benchsmith

PACKAGE = Path(benchsmith.__file__).parent


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import node, skipping ``if TYPE_CHECKING:`` bodies."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module name to the benchsmith modules it imports."""
    mods = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps: set[str] = set()
        is_package = path.name == "__init__.py"
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [
                    f"{module}.{a.name}" if f"{module}.{a.name}" in mods else module
                    for a in node.names
                ]
            for target in targets:
                if target.split(".")[0] == "benchsmith":
                    resolved = resolve(target)
                    if resolved and resolved != name:
                        deps.add(resolved)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def connect(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
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
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(found)


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_sees_lazy_and_relative_imports():
    graph = import_graph()
    # A module-level import, a function-level (lazy) import and the package's own imports.
    assert "benchsmith.files" in graph["benchsmith.ledger"]
    assert "benchsmith.api" in graph["benchsmith.cli_build"]  # imported inside build()
    assert "benchsmith.tools.registry" in graph["benchsmith.tools.audio"]
    assert len(graph) > 100


def test_benchsmith_has_no_import_cycles():
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize(
    ("leaf", "allowed"),
    [
        ("benchsmith.files", set()),
        ("benchsmith.naming", set()),
        (
            "benchsmith.tools.registry",
            {"benchsmith.errors", "benchsmith.files", "benchsmith.tools.context"},
        ),
    ],
)
def test_leaf_modules_import_only_what_they_may(leaf, allowed):
    assert import_graph()[leaf] <= allowed


def test_importing_the_tools_registers_them_without_heavy_libraries():
    code = (
        "import sys\n"
        "from benchsmith.tools.registry import registry\n"
        "names = registry()\n"
        "expected = {'tts_speak', 'audio_add_noise', 'image_resize', 'web_search'}\n"
        "assert expected <= set(names), names\n"
        "heavy = {'PIL', 'numpy', 'pydub', 'pyarrow', 'ddgs', 'httpx'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]"
