"""The package's modules import each other without cycles (deferred imports inside
functions count too): each layer builds on the ones below it."""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import REPO

SRC = REPO / "src"


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_imports(path: Path, modules: set[str]) -> set[str]:
    """The vlcomp modules one file imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        found |= {n for n in names if n in modules and n.startswith("vlcomp.")}
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), or a module importing
    itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_the_finder_sees_a_deferred_cycle():
    assert import_cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_itself_round_a_cycle():
    files = sorted(SRC.joinpath("vlcomp").rglob("*.py"))
    modules = {module_name(f) for f in files}
    # a package's __init__ is not an edge of its submodules' imports
    graph = {module_name(f): package_imports(f, modules) - {module_name(f).rsplit(".", 1)[0]}
             for f in files}
    assert len(graph) > 150
    assert import_cycles(graph) == []


def test_the_item_schema_lies_below_both_data_loaders_and_benchmark_builders():
    """`vlcomp.items` is what both build on: the loaders of released data never import the
    benchmark builders, and the builders reach neither into the loaders nor into training."""
    files = sorted(SRC.joinpath("vlcomp").rglob("*.py"))
    modules = {module_name(f) for f in files}

    def reaches(package: str, others: tuple[str, ...]) -> dict[str, set[str]]:
        found = {}
        for f in files:
            name = module_name(f)
            if name == package or name.startswith(package + "."):
                bad = {m for m in package_imports(f, modules)
                       if any(m == o or m.startswith(o + ".") for o in others)}
                if bad:
                    found[name] = bad
        return found

    assert reaches("vlcomp.data", ("vlcomp.benchmarks",)) == {}
    assert reaches("vlcomp.benchmarks", ("vlcomp.data", "vlcomp.train")) == {}
    assert reaches("vlcomp.items", ("vlcomp.data", "vlcomp.benchmarks", "vlcomp.train")) == {}
