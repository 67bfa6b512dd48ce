"""ARCHITECTURE.md's table "to add X, touch these files", checked by doing it: a throwaway rule
is added to a copy of the checkout, and the registry's conformance tests, run on that copy, pass
with the files the table names and no other (the index `explain` reads is written by its command,
not by hand)."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).parents[2]
SKIP = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache")
GENERATED = {"src/nastune/rules/index.json"}  # python -m nastune.rules.index writes it from the rules

RULE = '''"""# throwaway-checksum-off: ZFS checksums off on a served dataset

## Problem
A dataset whose blocks carry no checksum: ZFS cannot tell a corrupted read from a good one.

## Detection
zfs get checksum: off on a dataset a share serves.

## Fix
`zfs_property` checksum=on.

## Trade-off
A checksum per block, computed at every write and checked at every read.

## Source
zfsprops(7), checksum.
"""

from nastune.rules.model import Rule, Severity
from nastune.rules.parameter import Slow, zfs

RULE = Rule(
    id="throwaway-checksum-off",
    title="ZFS checksums off on a served dataset",
    area="zfs",
    severity=Severity.low,
    check=zfs("checksum", Slow(("off",), "on", 1, lambda name, *_: f"Dataset {name} has no checksums.")),
    needs=("zfs",),
    gain="Corrupted blocks are found, and repaired from redundancy.",
    tradeoff="A checksum per block.",
    source="zfsprops(7), checksum",
)
'''

CASE = """from tests.rules.kit import Case, changes, fail, zfs

CASE = Case(
    lambda: zfs({"checksum": "off"}),
    lambda: zfs({"checksum": "on"}),
    lambda fs: changes(fs) == [("tank/vm", "checksum", "off", "on")] or fail(fs),
)
"""


def _copy(to: Path) -> None:
    for part in ("src", "tests"):
        shutil.copytree(TOP / part, to / part, ignore=SKIP)
    shutil.copy(TOP / "pyproject.toml", to / "pyproject.toml")


def _touched(copy: Path) -> set[str]:
    """The copy's files that the checkout does not hold, or holds otherwise."""
    touched = set()
    for path in copy.rglob("*"):
        name = path.relative_to(copy).as_posix()
        if not path.is_file() or "__pycache__" in name or name.startswith(".pytest_cache"):
            continue
        if not (TOP / name).is_file() or not filecmp.cmp(path, TOP / name, shallow=False):
            touched.add(name)
    return touched - GENERATED


def test_a_rule_takes_its_module_and_its_case(tmp_path):
    copy = tmp_path / "checkout"
    _copy(copy)
    (copy / "src/nastune/rules/catalog/throwaway_checksum_off.py").write_text(RULE)
    (copy / "tests/rules/catalog/throwaway_checksum_off.py").write_text(CASE)
    env = {**os.environ, "PYTHONPATH": f"{copy / 'src'}{os.pathsep}{copy}"}  # before the installed nastune
    python = [sys.executable, "-m"]
    subprocess.run([*python, "nastune.rules.index"], cwd=copy, env=env, check=True, capture_output=True)
    tests = ["tests/rules/test_rules.py", "tests/rules/test_index.py", "-k", "throwaway or conformance or index"]
    done = subprocess.run(
        [*python, "pytest", "-v", "-p", "no:cacheprovider", *tests], cwd=copy, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:]
    ran = re.findall(r"::(\w+)\[throwaway-checksum-off\] PASSED", done.stdout)  # fires, stays quiet, ...
    assert {"test_rule_fires_with_evidence_and_values", "test_rule_stays_quiet"} <= set(ran), done.stdout[-3000:]
    assert _touched(copy) == {
        "src/nastune/rules/catalog/throwaway_checksum_off.py",
        "tests/rules/catalog/throwaway_checksum_off.py",
    }
    table = (TOP / "ARCHITECTURE.md").read_text()
    assert re.search(r"\| a \*\*rule\*\*[^|\n]*\|[^\n]*\*\*2 files\*\*", table)  # what the table says
