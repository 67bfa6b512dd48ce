"""Shared test helpers: fixture locations and running the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

# The suite's labs take names of their own (lab/network.py reads them at import), each
# pytest-xdist worker its own: a lab the operator has up, the main job's, is never touched by them,
# and all run at once. Assigned, not defaulted: a worker starts with the environment of the process
# that spawned it, which has been through this file already (xdist names the worker before).
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "").removeprefix("gw")
os.environ["NASTUNE_LAB_PREFIX"] = os.environ.get("NASTUNE_TEST_LAB_PREFIX", "nx") + WORKER

FIXTURES = Path(__file__).parent / "fixtures"
ROOTS = FIXTURES / "roots"
UPDATE_GOLDEN = os.environ.get("NASTUNE_UPDATE_GOLDEN") == "1"
LAB_TESTS = Path(__file__).parent / "lab"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/lab builds the real lab: marked `lab`, so `-m "not lab"` selects the
    fast subset (a mark in tests/lab/conftest.py would not reach the tests)."""
    for item in items:
        if item.path.is_relative_to(LAB_TESTS):
            item.add_marker(pytest.mark.lab)


def run_cli(
    *args: str, check: bool = True, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess:
    """The real command line in a child process, as a user runs it."""
    proc = subprocess.run(
        [sys.executable, "-m", "nastune", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        timeout=300,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"nastune {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    printed_json(args, proc.stdout)
    return proc


SCHEMAS = Path(__file__).parents[1] / "schemas"
DOCUMENTS = [Path(__file__).parents[1] / "README.md", *sorted((Path(__file__).parents[1] / "docs").glob("*.md"))]


def documentation() -> str:
    """The README and every page under docs/, as one text: a statement may live on any of them."""
    return "\n\n".join(path.read_text() for path in DOCUMENTS)


T = TypeVar("T")


def need(value: T | None) -> T:
    """A fact or area a fixture is known to hold (a test fails here, naming it, when it does not)."""
    assert value is not None, "a fact the fixture should hold is missing"
    return value


def check_schema(data: dict) -> dict:
    """`data` validated against the published JSON Schema (schemas/) that its tag names."""
    import jsonschema

    tag = data.get("schema") if isinstance(data, dict) else None
    assert isinstance(tag, str), f"no schema tag: {str(data)[:200]}"
    assert tag.startswith("nastune."), f"no schema tag: {str(data)[:200]}"
    schema = json.loads((SCHEMAS / (tag.removeprefix("nastune.").replace("/", ".v") + ".json")).read_text())
    jsonschema.Draft202012Validator(schema).validate(data)
    return data


def printed_json(args: tuple[str, ...], stdout: str) -> None:
    """Every summary a command prints with --json carries a schema tag and matches its schema."""
    if "--json" in args and stdout.strip():
        check_schema(json.loads(stdout))


def cli_json(*args: str) -> dict:
    return json.loads(run_cli(*args).stdout)


def assert_golden(name: str, got: dict) -> None:
    """Compare with tests/fixtures/golden/NAME.json. NASTUNE_UPDATE_GOLDEN=1 rewrites a golden file
    that differs and fails the test: a run that rewrites what it compares with can never pass."""
    golden = FIXTURES / "golden" / f"{name}.json"
    if UPDATE_GOLDEN and (not golden.exists() or json.loads(golden.read_text()) != got):
        golden.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        pytest.fail(f"rewrote {golden}: review `git diff`, then run again without NASTUNE_UPDATE_GOLDEN")
    assert got == json.loads(golden.read_text())


def extracted(system: str, dest: Path) -> Path:
    """A writable copy of fixtures/roots/SYSTEM.tar.gz at `dest`."""
    import tarfile

    with tarfile.open(ROOTS / f"{system}.tar.gz") as tar:
        tar.extractall(dest, filter="data")
    return dest


@dataclass
class Tree:
    """A writable root: tree('proc/mdstat', 'text') writes a file into it."""

    root: Path

    def __call__(self, path: str, text: str = "") -> Path:
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        return target


@pytest.fixture
def tree(tmp_path) -> Tree:
    return Tree(tmp_path)


def real_configs(*suffixes: str, here: str | None = None) -> dict[str, str]:
    """Each file of the fixture trees whose path ends in one of `suffixes`, by "tree:path", and
    this host's own at `here` where it has one: the real configurations a grammar is tested on."""
    import tarfile

    found = {}
    for tree in sorted(ROOTS.glob("*.tar.gz")):
        with tarfile.open(tree) as archive:
            for member in archive.getmembers():
                read = archive.extractfile(member) if member.isfile() and member.name.endswith(suffixes) else None
                if read is not None:
                    found[f"{tree.name}:{member.name}"] = read.read().decode()
    own = Path(here) if here else None
    return found | ({str(own): own.read_text()} if own and own.is_file() else {})
