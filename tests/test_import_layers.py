"""Layers that only point down (issue 11): no import circles, and no package imports one above it.

Every module of kubectl_rbln is parsed with `ast`, and every import statement counts:
module level, inside functions, under `if TYPE_CHECKING`. A function-level import that
closes a circle is still a circle, it only fails later. Imports by name through
`importlib` (cli/group.py's lazy command table) are data, not edges.

The order is one declared list, `LAYERS`, bottom first. A module may import from its own
layer and the layers below it. Only the top-level names listed (a package such as `dra`, a
module such as `errors`) are checked; a name in no layer must be in `NOT_YET_LAYERED`, so a
new package cannot slip past unnoticed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = "kubectl_rbln"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

# Bottom first. A name may import from its own layer and any layer below; extend as packages land.
LAYERS: list[list[str]] = [
    # the bottom: no imports from the package above these
    [
        "__init__",
        "errors",
        "text",
        "terminal",
        "selectors",
        "domain",
        "recipes",
        "catalog",
        "example",
        "progress",
        "schemas",  # the shipped JSON Schemas: data, and the apiVersion each document reads from them
    ],
    ["dra", "model"],  # the DRA model and engine
    ["cluster"],  # sources: kubeconfig, live reads, files, exec probes
    ["replay"],  # the replay API server (reads bundles through cluster/files.py)
    ["diagnose"],
    ["remedy"],
    ["app"],
    ["render"],  # only draws
    ["cli", "__main__"],
]

# Top-level names not placed in LAYERS yet (edges from or to them are not checked).
NOT_YET_LAYERED: dict[str, str] = {}

# (importer, imported) pairs that break LAYERS today and are being fixed elsewhere.
# The lead empties this set as those refactors land; do not add to it.
ALLOWED_FOR_NOW: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


MODULES = _modules()


def _imported(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """(module of the package it imports, line) for every import statement anywhere in the file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source != PACKAGE and not source.startswith(PACKAGE + "."):
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                yield (submodule if submodule in MODULES else source), node.lineno


def _graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: first line}; only modules of the package, no self-edges."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        edges: dict[str, int] = {}
        for target, line in _imported(module, path):
            if target != module:
                edges.setdefault(target, line)
        graph[module] = edges
    return graph


GRAPH = _graph()


def _unit(module: str) -> str:
    """The top-level name a module belongs to: `dra` for kubectl_rbln.dra.allocator."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


LAYER_OF = {name: index for index, names in enumerate(LAYERS) for name in names}


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in GRAPH.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return found


def test_the_scanner_sees_module_and_function_level_imports() -> None:
    """Guards the guard: an empty graph would pass every check below."""
    assert "kubectl_rbln.cluster.files" in GRAPH["kubectl_rbln.cli.serve"]  # module level
    assert "kubectl_rbln.replay.server" in GRAPH["kubectl_rbln.cli.serve"]  # inside the command
    assert "kubectl_rbln.replay.exec" in GRAPH["kubectl_rbln.replay.http"]  # `from pkg import module`


def test_no_import_cycles() -> None:
    cycles = _cycles()
    described = [
        " -> ".join(cycle)
        + "; edges: "
        + ", ".join(f"{a} -> {b} (line {GRAPH[a][b]})" for a in cycle for b in cycle if b in GRAPH[a])
        for cycle in cycles
    ]
    assert not cycles, "import cycles:\n" + "\n".join(described)


def test_every_top_level_name_is_placed() -> None:
    units = {_unit(m) for m in MODULES}
    unplaced = sorted(units - set(LAYER_OF) - set(NOT_YET_LAYERED))
    assert not unplaced, f"add these to LAYERS (or, with a reason, to NOT_YET_LAYERED): {unplaced}"
    assert not set(LAYER_OF) & set(NOT_YET_LAYERED), "a name cannot be both layered and not"


def _violations() -> list[tuple[str, str, str, str, int]]:
    """(importer unit, imported unit, importer module, imported module, line) that point up."""
    found = []
    for module, edges in GRAPH.items():
        here = _unit(module)
        for target, line in edges.items():
            there = _unit(target)
            if here in LAYER_OF and there in LAYER_OF and LAYER_OF[there] > LAYER_OF[here]:
                found.append((here, there, module, target, line))
    return sorted(found)


def test_layers_only_point_down() -> None:
    upward = [v for v in _violations() if (v[0], v[1]) not in ALLOWED_FOR_NOW]
    assert not upward, "imports that point up a layer:\n" + "\n".join(
        f"{module}:{line} imports {target} ({here} may not import {there})"
        for here, there, module, target, line in upward
    )


def test_allowed_for_now_holds_only_what_is_still_needed() -> None:
    """A pair fixed elsewhere must leave ALLOWED_FOR_NOW, so the exception cannot creep back."""
    used = {(v[0], v[1]) for v in _violations()}
    assert not ALLOWED_FOR_NOW - used, f"no longer needed, remove: {sorted(ALLOWED_FOR_NOW - used)}"


@pytest.mark.parametrize(
    ("lower", "forbidden"),
    [
        ("dra", {"cluster", "replay", "diagnose", "remedy", "render", "cli"}),
        ("selectors", {"cluster", "replay", "diagnose", "remedy", "render", "cli"}),
        ("text", {"cluster", "replay", "diagnose", "remedy", "render", "cli"}),
        ("cluster", {"replay", "diagnose", "remedy", "render", "cli"}),
        ("replay", {"diagnose", "remedy", "render", "cli"}),
    ],
)
def test_lower_layers_stand_alone(lower: str, forbidden: set[str]) -> None:
    """The packages of issue 11, spelled out: whatever LAYERS and ALLOWED_FOR_NOW become, these hold."""
    bad = [
        f"{module}:{line} imports {target}"
        for module, edges in GRAPH.items()
        if _unit(module) == lower
        for target, line in edges.items()
        if _unit(target) in forbidden
    ]
    assert not bad, "\n".join(bad)
