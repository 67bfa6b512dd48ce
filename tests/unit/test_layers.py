"""The structure ARCHITECTURE.md states holds, checked on the import graph (grimp, which
import-linter builds on; imports inside functions count, imports for annotations only do not):
the layers contract in pyproject.toml, no import circle, and no import hidden in a function
outside the command line except a deliberate lazy load (a heavy library, or a line that says
why)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

SRC = Path(__file__).parents[2] / "src" / "nastune"
HEAVY = ("optuna", "plotly", "numpy", "scipy", "openpyxl")  # seconds of import: loaded where used


def test_the_layers_contract_is_kept():
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-logo", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=SRC.parents[1],
    )
    assert done.returncode == 0, done.stdout[-3000:]


def _circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected groups of two modules or more (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(group)

    sys.setrecursionlimit(10_000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_even_through_imports_for_types_only():
    graph = grimp.build_graph("nastune", exclude_type_checking_imports=False)
    edges = {
        m: {
            t
            for t in graph.find_modules_directly_imported_by(m)
            if not m.startswith(t + ".")  # a module importing its own package's __init__
        }
        for m in graph.modules
    }
    assert _circles(edges) == []


def test_an_import_in_a_function_is_a_deliberate_lazy_load():
    """The command line loads each stage in the command that runs it (bench/startup.py measures
    why); anywhere else an import in a function must be a heavy library or say why."""
    hidden = []
    for path in SRC.rglob("*.py"):
        if "cli" in path.relative_to(SRC).parts:
            continue
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Import | ast.ImportFrom):
                        name = inner.module if isinstance(inner, ast.ImportFrom) else inner.names[0].name
                        said = "# lazy:" in lines[inner.lineno - 1]
                        if not (str(name).split(".")[0] in HEAVY or said):
                            hidden.append(f"{path.relative_to(SRC)}:{inner.lineno} {name}")
    assert hidden == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
