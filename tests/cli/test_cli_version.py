"""`nastune --version` is a command of its own (it said "Missing command." and exited 2)."""

from __future__ import annotations

from nastune import __version__
from tests.conftest import run_cli


def test_version_prints_and_exits_0():
    done = run_cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"nastune {__version__}"
