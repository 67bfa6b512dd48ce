"""Every file a contributor's page names exists: ARCHITECTURE.md, CONTRIBUTING.md and docs/ name
paths from the top (`bench/figures.py`), from the package (`tune/knobs/`) or bare in a row about
their directory (`agent.py`); a module renamed or split leaves no page pointing at nothing."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

TOP = Path(__file__).parents[2]
BASES = (TOP, TOP / "src" / "nastune", TOP / "src", TOP / "docs")
TOPS = ("src", "tests", "bench", "scripts", "docs", "schemas", "ansible_collections")
QUOTED = re.compile(r"`([a-z0-9_./-]+)`")  # lower case only: NAME, <id> and Class.attr are no paths


def _pages() -> list[Path]:
    return [TOP / "ARCHITECTURE.md", TOP / "CONTRIBUTING.md", *sorted((TOP / "docs").glob("*.md"))]


def _missing(text: str, names: set[str]) -> list[str]:
    """The quoted paths of `text` that name nothing: one with a directory, from a known top or a
    package directory, resolved from a base; a bare module or script, anywhere in the checkout."""
    missing = []
    for path in (m.group(1).rstrip("/") for m in QUOTED.finditer(text)):
        if path.startswith((".", "-", "/")) or ".." in path:  # absolute: a path on a NAS
            continue
        if "/" in path:
            first = path.split("/")[0]
            if (first in TOPS or (TOP / "src" / "nastune" / first).is_dir()) and not any(
                (base / path).exists() for base in BASES
            ):
                missing.append(path)
        elif path.endswith((".py", ".sh")) and path not in names:
            missing.append(path)
    return missing


def test_every_path_the_contributors_pages_name_exists():
    tracked = subprocess.run(["git", "-C", str(TOP), "ls-files"], capture_output=True, text=True, check=True)
    names = {Path(line).name for line in tracked.stdout.split()}
    found = {page.name: _missing(page.read_text(), names) for page in _pages()}
    assert {page: paths for page, paths in found.items() if paths} == {}
    assert _missing("`tune/knobs/` `bench/nothing.py` `agent.py` `gone.py`", names) == ["bench/nothing.py", "gone.py"]
