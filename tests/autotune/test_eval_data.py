"""The recorded landscapes bench/autotune_eval.py replays: complete, and replayable."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "bench" / "autotune_eval.py"


def load():
    spec = importlib.util.spec_from_file_location("autotune_eval", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EVAL = load()
RECORDED = [name for name in EVAL.GRIDS if EVAL.data_file(name).exists()]


def test_every_grid_has_been_recorded():
    assert list(EVAL.GRIDS) == RECORDED


@pytest.mark.parametrize("name", RECORDED)
def test_a_recorded_grid_holds_every_point_with_repeats_of_every_workload(name):
    data = json.loads(EVAL.data_file(name).read_text())
    grid, workloads = EVAL.GRIDS[name]
    assert data["grid"] == grid
    assert data["workloads"] == workloads
    land = EVAL.Landscape(data)
    for config in land.configs():
        found = land.values[EVAL.key(config, grid)]
        assert all(len(found[w]) >= data["repeats"] for w in workloads), config
    assert EVAL.key(land.current, grid) in land.values
    assert EVAL.key(land.rule, grid) in land.values


@pytest.mark.parametrize("name", RECORDED)
def test_replay_prints_each_goal_with_its_verdict(name):
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "replay", "--grid", name, "--seeds", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    goals = [line for line in proc.stdout.split("goals:\n", 1)[1].splitlines() if "(not a goal)" not in line]
    assert len(goals) == 5, goals
    assert all("(met" in line or "(NOT met" in line for line in goals), goals
