"""scripts/test collects each of its pytest runs from one directory (collecting the whole suite
costs each process seconds of CPU): the tests that change this host from tests/tune, the lab's
from tests/lab, and the fast ones from everything else. A test marked for one of those runs
but kept elsewhere would silently never run; this finds one."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parents[1]
WHERE = {"host": "tune", "lab": "lab"}  # a run's first marker: the directory scripts/test collects it from


def marked(tests: Path, marker: str) -> set[str]:
    """The directories under `tests` whose test modules carry `marker` themselves."""
    return {
        p.relative_to(tests).parts[0]
        for p in tests.rglob("test_*.py")
        if re.search(rf"\bpytest\.mark\.{marker}\b", p.read_text()) and p.resolve() != Path(__file__).resolve()
    }


def test_each_run_s_tests_live_where_scripts_test_collects_them():
    assert marked(TESTS, "host") <= {"tune"}
    for marker in ("lab", "guest", "alone"):  # tests/conftest.py marks every test under tests/lab `lab`
        assert marked(TESTS, marker) <= {"lab"}, marker
    runs = re.findall(r'^(.*-m "(\w+)[^"]*".*)$', (TESTS.parent / "scripts" / "test").read_text(), re.M)
    for line, first in runs:
        directory = WHERE.get(first)
        assert directory is None or f" tests/{directory} " in line, line
    assert {first for _, first in runs} >= {"host", "lab", "not"}  # the fast run, "not lab and not host"


def test_a_host_test_outside_tests_tune_is_found(tmp_path):
    stray = tmp_path / "bench" / "test_stray.py"
    stray.parent.mkdir()
    stray.write_text("import pytest\n\npytestmark = pytest.mark.host\n")
    assert marked(tmp_path, "host") == {"bench"}
