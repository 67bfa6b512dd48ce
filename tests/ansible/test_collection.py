"""The Ansible collection (ansible_collections/nastune/nas), run by real ansible-core: every
module on a fixture root through a playbook (check mode changes nothing, a second apply and a
second rollback report no change, diff mode shows the settings, confirm and check-mode rollback
report honestly), a failing module fails its task with nastune's message, ansible-lint and
`ansible-test sanity` (with no ignore file) pass, and a build ships no cache or test output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.conftest import extracted
from tests.tune.conftest import snapshot

REPO = Path(__file__).parents[2]
COLLECTION = REPO / "ansible_collections" / "nastune" / "nas"
BIN = Path(sys.executable).parent


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "ANSIBLE_COLLECTIONS_PATH": str(REPO),
        "ANSIBLE_LOCALHOST_WARNING": "false",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
        "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
        "ANSIBLE_NOCOLOR": "1",
    }


def _tool(name: str) -> str:
    found = BIN / name
    if not found.exists():
        pytest.fail(f"{name} is not installed in {BIN} (scripts/setup installs it)")
    return str(found)


@pytest.fixture
def nas_root(tmp_path) -> Path:
    return extracted("small-nas-raid5", tmp_path / "root")


def _playbook(tree: Path, work: Path, *extra: str) -> subprocess.CompletedProcess:
    variables = {"nastune": f"{sys.executable} -m nastune", "tree": str(tree), "work": str(work)}
    return subprocess.run(
        [_tool("ansible-playbook"), str(Path(__file__).with_name("modules.yml")), "-e", json.dumps(variables), *extra],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )


def test_every_module_on_a_fixture_root_and_each_reports_change_honestly(nas_root, tmp_path):
    before = snapshot(nas_root)
    done = _playbook(nas_root, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "failed=0" in done.stdout
    after = snapshot(nas_root)  # rolled back: the tree as it was (a /proc value is written without its newline)
    assert {k: v.strip() for k, v in after.items()} == {k: v.strip() for k, v in before.items()}


def _module(name: str, args: dict) -> subprocess.CompletedProcess:
    """One of the collection's modules run ad hoc on localhost."""
    argv = [_tool("ansible"), "localhost", "-m", f"nastune.nas.{name}", "-a", json.dumps(args)]
    return subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=300)


def test_a_failing_nastune_fails_the_task_with_its_message(nas_root, tmp_path):
    done = _module(
        "apply", {"command": f"{sys.executable} -m nastune", "root": str(nas_root), "src": str(tmp_path / "none")}
    )
    assert done.returncode != 0
    assert "FAILED" in done.stdout
    assert "nastune apply failed" in done.stdout
    assert "none" in done.stdout


def test_ansible_lint_passes_over_the_collection():
    done = subprocess.run(
        [_tool("ansible-lint"), "--offline", "--nocolor"],
        cwd=COLLECTION,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    shutil.rmtree(COLLECTION / ".ansible", ignore_errors=True)


def test_ansible_test_sanity_passes_with_no_ignore_entries():
    """Every sanity test ansible-test has for a collection (pylint, validate-modules, the
    changelog fragments, ...), run through scripts/ansible-sanity, which works offline from
    Ansible's CI host."""
    assert not list((COLLECTION / "tests").glob("sanity/ignore-*.txt"))
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "ansible-sanity")], capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]


def test_a_build_ships_the_collection_and_nothing_else(tmp_path):
    (COLLECTION / ".ansible").mkdir(exist_ok=True)  # what a lint run leaves behind
    (COLLECTION / ".ansible" / "cache.txt").write_text("x")
    try:
        done = subprocess.run(
            [_tool("ansible-galaxy"), "collection", "build", "--output-path", str(tmp_path), str(COLLECTION)],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
        )
    finally:
        shutil.rmtree(COLLECTION / ".ansible", ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    (archive,) = tmp_path.glob("nastune-nas-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "LICENSE" in names
    assert "meta/runtime.yml" in names
    assert "roles/tune/meta/argument_specs.yml" in names
    assert not [n for n in names if n.split("/")[0] == ".ansible" or n.startswith("tests/output") or "__pycache__" in n]


def test_a_summary_missing_from_nastune_s_output_fails_the_task_with_what_it_said(nas_root):
    """rollback's exit 1 may come without its JSON summary (a lock another nastune holds): the
    task's message then carries nastune's own words from its standard error."""
    said = "sh -c 'echo another nastune is changing this system >&2; exit 1' nastune"
    done = _module("rollback", {"command": said})
    assert done.returncode != 0
    assert "did not print JSON" in done.stdout
    assert "it said: another nastune is changing this system" in done.stdout
