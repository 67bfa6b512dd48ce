"""The NAS side of nastune needs only its core (typer, rich, pydantic, psutil, prometheus-client):
every command nastune runs on a NAS (inspect, diagnose, plan, apply, verify, rollback, confirm,
sample, check without a baseline) works with the controller's libraries (numpy, scipy, plotly,
jinja2, openpyxl, optuna) unimportable, as on a NAS that installed `nastune` without extras; a
controller command there says which extra it needs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import extracted

CONTROLLER = ("numpy", "scipy", "plotly", "jinja2", "openpyxl", "optuna")
BLOCK = textwrap.dedent(f"""
    import importlib.abc, sys
    class Absent(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in {CONTROLLER!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
    sys.meta_path.insert(0, Absent())
    sys.argv = ["nastune", *sys.argv[1:]]
    from nastune.cli import main
    main()
""")


def core(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK, *args], capture_output=True, text=True, input=input, timeout=300
    )


@pytest.fixture
def nas(tmp_path) -> Path:
    return extracted("small-nas-raid5", tmp_path / "nas")


def test_the_nas_side_commands_need_only_the_core(nas, tmp_path):
    root = ["--root", str(nas)]
    assert core("inspect", *root, "--json").returncode == 0
    assert core("diagnose", *root, "--json").returncode == 0
    plan = tmp_path / "plan.json"
    assert core("plan", *root, "--out", str(plan)).returncode == 0
    small = json.loads(plan.read_text())
    small["changes"] = [c for c in small["changes"] if c["knob"] == "sysfs"][:1]
    applied = core("apply", "-", *root, "--yes", "--json", input=json.dumps(small))
    assert applied.returncode == 0, applied.stderr
    journal = json.loads(applied.stdout)["journal"]
    assert core("verify", *root, "--json").returncode == 0
    assert core("confirm", *root, "--journal", journal).returncode == 0
    assert core("rollback", *root, "--json").returncode == 0
    checked = core("check", *root, "--json")  # exit 1 is drift, not a failure
    assert checked.returncode in (0, 1), checked.stderr
    assert json.loads(checked.stdout)["schema"] == "nastune.check/1", checked.stderr
    sampled = subprocess.Popen(
        [sys.executable, "-c", BLOCK, "sample", "--interval", "0.2"], stdout=subprocess.PIPE, text=True
    )
    assert sampled.stdout is not None
    first = sampled.stdout.readline()
    sampled.kill()
    sampled.wait()
    assert json.loads(first)


def test_a_controller_command_names_the_extra_it_needs(tmp_path):
    done = core("compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "pip install 'nastune[controller]'" in done.stderr, done.stderr
