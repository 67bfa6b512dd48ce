"""ARCHITECTURE.md matches the tree: its layer diagram is the import-linter contract, every
package and module of src/nastune is in its table, and every path the table names exists."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

TOP = Path(__file__).parents[2]
SRC = TOP / "src" / "nastune"
TEXT = (TOP / "ARCHITECTURE.md").read_text()


def _diagram() -> list[list[str]]:
    """Each line of the diagram: its names (`a | b`: independent) before the gap to its words."""
    block = TEXT.split("```", 2)[1]
    return [sorted(re.split(r"\s*\|\s*", line.split("  ")[0].strip())) for line in block.strip().splitlines()]


def test_the_diagram_is_the_layers_contract():
    config = tomllib.loads((TOP / "pyproject.toml").read_text())
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    stated = [sorted(m.strip().removeprefix("nastune.") for m in layer.split("|")) for layer in contract["layers"]]
    assert _diagram() == stated


def _table_paths() -> set[str]:
    table = TEXT.split("| package | holds |", 1)[1].split("\n\n", 1)[0]
    return {cell for row in table.splitlines()[2:] for cell in re.findall(r"`([a-z_/.]+)`", row.split("|")[1])}


def test_every_package_and_module_is_in_the_table():
    named = _table_paths()
    present = {p.name + ("/" if p.is_dir() else "") for p in SRC.iterdir() if not p.name.startswith("__")}
    assert present <= named, f"not in ARCHITECTURE.md's table: {sorted(present - named)}"


def test_every_path_the_table_names_exists():
    for path in _table_paths():
        where = TOP / path if path.startswith("ansible_collections") else SRC / path
        assert where.exists(), path


def test_no_function_is_over_60_lines_and_no_module_over_500():
    """A function reads in one screen (a long workflow is split by phase into named steps); a
    module a newcomer opens fits one reading (a larger one is split by what it holds)."""
    functions = {
        f"{p.relative_to(SRC)}:{node.name}": node.end_lineno - node.lineno + 1
        for p in SRC.rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno
        if node.end_lineno - node.lineno + 1 > 60
    }
    assert functions == {}
    modules = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py") if (n := len(p.read_text().splitlines())) > 500}
    assert modules == {}


def _lab_flags(tree: ast.AST) -> list[str]:
    """The parameters that say "the lab or not" with a bool."""
    return [
        f"{node.name}({arg.arg})"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        if "lab" in arg.arg and arg.annotation is not None and ast.unparse(arg.annotation) == "bool"
    ]


def test_only_the_lab_and_the_command_line_take_a_lab_flag():
    """Every workflow takes a Site: turning `--lab` into one is the command line's parsing, and
    the lab's own code may know it is the lab; nothing between takes `lab: bool`."""
    assert _lab_flags(ast.parse("def run(spec, lab: bool = False): ...")) == ["run(lab)"]  # the check sees one
    flagged = {
        str(p.relative_to(SRC)): found
        for p in SRC.rglob("*.py")
        if p.relative_to(SRC).parts[0] not in ("lab", "cli") and p.relative_to(SRC).parts[:2] != ("sites", "lab")
        if (found := _lab_flags(ast.parse(p.read_text())))
    }
    assert flagged == {}


def _imports_by_name(tree: ast.Module) -> list[int]:
    """The lines that import importlib, or call __import__, in one module."""
    return [getattr(node, "lineno", 0) for node in ast.walk(tree) if _named(node) & {"importlib", "__import__"}]


def _named(node: ast.AST) -> set[str]:
    """The top-level modules an import statement names, or the function a call calls."""
    if isinstance(node, ast.Import):
        return {a.name.split(".")[0] for a in node.names}
    if isinstance(node, ast.ImportFrom):
        return {(node.module or "").split(".")[0]}
    return {getattr(node.func, "id", "")} if isinstance(node, ast.Call) else set()


def test_no_module_is_imported_by_its_name_but_by_the_extension_loader():
    """An import by name is an arrow neither import-linter nor a drawing sees: nastune's own
    catalogs and the extensions are found in one place, nastune/plugins.py."""
    found = {}
    for path in SRC.rglob("*.py"):
        if path != SRC / "plugins.py" and (lines := _imports_by_name(ast.parse(path.read_text()))):
            found[str(path.relative_to(SRC))] = lines
    assert not found, found
    assert _imports_by_name(ast.parse((SRC / "plugins.py").read_text()))  # the test sees what it looks for
