"""The package's import graph: no cycles, imports only down the layers, light tool imports.

The graph is read with the standard library's ``ast``. An edge is every ``import`` and
``from ... import`` of a ``benchsmith`` module, at module level or inside a function (a
lazy import that closes a circle is still a circle: it only moves the failure to run
time), except those under ``if TYPE_CHECKING:``; and, in a module that calls
``importlib.import_module``, every string that names a ``benchsmith`` module (a PEP 562
``__getattr__`` that loads a name's module on first use imports it all the same).

Importing ``a.b.c`` first runs ``a/__init__.py`` and ``a/b/__init__.py``: for the cycles,
each import also runs from the importer to every package above its target, except the
packages the importer is itself in (they ran before it did).

Run as a script (``python tests/test_imports.py``) to print the figures: modules, edges,
cycles and arrows up the layers.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import benchsmith

PACKAGE = Path(benchsmith.__file__).parent

# The package's top-level units (its modules and subpackages; ``benchsmith`` is its own
# ``__init__``), lowest layer first. An import may run within a layer or down to a lower
# one; within a layer the units may not import each other in a circle either.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (name, frozenset(units.split()))
    for name, units in (
        (
            "leaves",
            "errors files naming markup tables difficulty difficulty_mix stopping langid item "
            "statistics injection stemming references",
        ),
        ("schema", "spec layout state ledger"),
        ("settings", "config prompts"),
        ("models", "llm"),
        ("domain", "tools catalog solution programs verify"),
        ("outputs", "package review"),
        ("evaluation", "evaluate"),
        ("nodes", "agents"),
        ("graph", "graph"),
        ("api", "api benchsmith"),
        (
            "commands",
            "cli cli_build cli_calibrate cli_eval cli_options cli_progress cli_review doctor",
        ),
        ("harness", "testing"),
    )
)

# Imports that run up the layers on purpose: (importer, imported) -> why.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    ("benchsmith.config", "benchsmith.llm.specs"): (
        "the run configuration's fields take the model roles and structured-output methods "
        "that the model specs define"
    ),
    ("benchsmith.evaluate.calibrated_build", "benchsmith.api"): (
        "a calibrated build orchestrates builds: it calls build_benchmark per round"
    ),
    ("benchsmith.evaluate.perturb", "benchsmith.api"): (
        "the perturbation study builds its perturbed benchmarks through build_benchmark"
    ),
}


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    mods = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
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


def _imports_by_name(tree: ast.AST) -> bool:
    """Whether the module imports modules by name (``importlib.import_module``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__"):
                return True
    return False


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module name to the modules of the package it imports (the imports written down)."""
    mods = _modules(package)
    root = package.name

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps: set[str] = set()
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _imports(tree):
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
                if target.split(".")[0] == root:
                    resolved = resolve(target)
                    if resolved and resolved != name:
                        deps.add(resolved)
        if _imports_by_name(tree):
            deps |= {
                node.value
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and node.value in mods and node.value != name
            }
        graph[name] = deps
    return graph


def _packages_above(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def with_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph plus the packages each import runs first (those above the target).

    The importer's own packages are left out: they ran before it did.
    """
    out: dict[str, set[str]] = {}
    for name, deps in graph.items():
        own = _packages_above(name) | {name}
        runs = set(deps)
        for target in deps:
            runs |= _packages_above(target) - own
        out[name] = {m for m in runs if m in graph}
    return out


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


def unit(module: str) -> str:
    """The top-level unit a module belongs to: ``benchsmith.tools.audio`` -> ``tools``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer_of() -> dict[str, int]:
    """Each unit of :data:`LAYERS` to its layer's index (0 is the lowest)."""
    return {u: i for i, (_, units) in enumerate(LAYERS) for u in units}


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every import that runs from a lower layer to a higher one, sorted."""
    layer = layer_of()
    return sorted(
        (name, dep)
        for name, deps in graph.items()
        for dep in deps
        if layer[unit(name)] < layer[unit(dep)]
    )


def unit_graph(graph: dict[str, set[str]], skip: set[tuple[str, str]]) -> dict[str, set[str]]:
    """Unit to the other units it imports, leaving out the imports in ``skip``."""
    out: dict[str, set[str]] = {unit(name): set() for name in graph}
    for name, deps in graph.items():
        for dep in deps:
            if (name, dep) not in skip and unit(name) != unit(dep):
                out[unit(name)].add(unit(dep))
    return out


def figures() -> dict[str, int]:
    """The figures of the import graph, to quote."""
    graph = import_graph()
    full = with_packages(graph)
    up = upward(graph)
    return {
        "modules": len(graph),
        "units": len({unit(name) for name in graph}),
        "edges": sum(len(deps) for deps in graph.values()),
        "edges with the packages run first": sum(len(deps) for deps in full.values()),
        "cycles": len(cycles(full)),
        "upward arrows": len(up),
        "upward arrows not allowed": len(set(up) - set(ALLOWED_UPWARD)),
    }


# -- the graph reader -----------------------------------------------------------------------
def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def _plant(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_graph_reader_on_a_planted_package(tmp_path):
    package = _plant(
        tmp_path,
        {
            "__init__.py": "",
            "leaf.py": "",
            "typed.py": "",
            "sub/__init__.py": "from pkg.sub import deep\n",
            "sub/deep.py": "from . import sibling\nfrom ..leaf import x\n",
            "sub/sibling.py": "",
            "lazy.py": "def f():\n    import pkg.sub.deep\n",
            "hinted.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg import typed\n"
                "else:\n    from pkg import leaf\n"
            ),
            "by_name/__init__.py": (
                "import importlib\n"
                "_LAZY = {'Thing': 'pkg.by_name.inner', 'Other': 'not.a.module'}\n"
                "def __getattr__(name):\n"
                "    return getattr(importlib.import_module(_LAZY[name]), name)\n"
            ),
            "by_name/inner.py": "import pkg.leaf\n",
            "strings.py": "NAME = 'pkg.leaf'  # a string alone is no import\n",
        },
    )
    graph = import_graph(package)
    assert graph["pkg.sub.deep"] == {"pkg.sub.sibling", "pkg.leaf"}  # relative imports
    assert graph["pkg.lazy"] == {"pkg.sub.deep"}  # a function-level import
    assert graph["pkg.hinted"] == {"pkg.leaf"}  # TYPE_CHECKING imports are not run
    assert graph["pkg.by_name"] == {"pkg.by_name.inner"}  # importlib.import_module
    assert graph["pkg.strings"] == set()
    full = with_packages(graph)
    # Importing pkg.sub.deep runs pkg/sub/__init__.py first (pkg's own __init__ too, but
    # every module of pkg is inside it).
    assert full["pkg.lazy"] == {"pkg.sub.deep", "pkg.sub"}
    # A package's own __init__ ran before its modules: no edge back to it.
    assert full["pkg.sub.deep"] == {"pkg.sub.sibling", "pkg.leaf"}
    assert full["pkg.by_name.inner"] == {"pkg.leaf"}
    # The circle only the package edge shows: sub/__init__ -> deep -> (sub/__init__).
    assert cycles(full) == []
    graph["pkg.leaf"] = {"pkg.sub.sibling"}
    assert cycles(graph) == []
    assert cycles(with_packages(graph)) == [["pkg.leaf", "pkg.sub", "pkg.sub.deep"]]


def test_the_graph_sees_lazy_and_relative_imports():
    graph = import_graph()
    # A module-level import, a function-level (lazy) import and the package's own imports.
    assert "benchsmith.files" in graph["benchsmith.ledger"]
    assert "benchsmith.api" in graph["benchsmith.cli_build"]  # imported inside build()
    assert "benchsmith.tools.registry" in graph["benchsmith.tools.audio"]
    assert len(graph) > 100


# -- cycles ---------------------------------------------------------------------------------
def test_benchsmith_has_no_import_cycles():
    found = cycles(with_packages(import_graph()))
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


# -- layers ---------------------------------------------------------------------------------
def test_every_unit_is_in_exactly_one_layer():
    placed = [u for _, units in LAYERS for u in units]
    assert len(placed) == len(set(placed)), "a unit is in two layers"
    units = {unit(name) for name in import_graph()}
    assert units - set(placed) == set(), "units without a layer (add them to LAYERS)"
    assert set(placed) - units == set(), "LAYERS names units that do not exist"


def test_no_import_runs_up_the_layers():
    names = [name for name, _ in LAYERS]
    layer = layer_of()
    wrong = [
        f"{a} ({names[layer[unit(a)]]}) -> {b} ({names[layer[unit(b)]]})"
        for a, b in upward(import_graph())
        if (a, b) not in ALLOWED_UPWARD
    ]
    assert wrong == [], "imports up the layers:\n" + "\n".join(wrong)


def test_every_allowed_upward_import_is_still_made_and_has_a_reason():
    made = set(upward(import_graph()))
    assert set(ALLOWED_UPWARD) - made == set(), "allowed but no longer made: remove them"
    assert all(reason.strip() for reason in ALLOWED_UPWARD.values())


def test_the_units_of_a_layer_import_each_other_in_no_circle():
    found = cycles(unit_graph(import_graph(), set(ALLOWED_UPWARD)))
    assert found == [], "units importing each other: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_figures_add_up(capsys):
    numbers = figures()
    with capsys.disabled():
        print("\nimport graph: " + ", ".join(f"{k} {v}" for k, v in numbers.items()))
    assert numbers["cycles"] == numbers["upward arrows not allowed"] == 0
    assert numbers["upward arrows"] == len(ALLOWED_UPWARD)
    assert numbers["edges with the packages run first"] >= numbers["edges"]


# -- leaves ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("leaf", "allowed"),
    [
        ("benchsmith.files", set()),
        ("benchsmith.naming", set()),
        ("benchsmith.injection", set()),
        ("benchsmith.stemming", set()),
        ("benchsmith.spec", set()),
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


if __name__ == "__main__":
    for key, value in figures().items():
        print(f"{key}: {value}")
    for a, b in upward(import_graph()):
        print(f"upward: {a} -> {b}: {ALLOWED_UPWARD.get((a, b), 'NOT ALLOWED')}")
    for cycle in cycles(with_packages(import_graph())):
        print("cycle: " + " <-> ".join(cycle))
