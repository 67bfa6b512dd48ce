"""Interleaved A/B on the real lab: the plan is switched on and off through the tuning engine
between repeats, both sides are measured in random order, and the lab ends exactly as it began.
One run for the module; each test reads one side of it."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import check_schema
from tests.lab.conftest import nastune, sha256

pytestmark = pytest.mark.alone  # judges measurements: no other namespace lab beside it (scripts/test)


@dataclass
class Run:
    lab: Path
    out: Path
    proc: subprocess.CompletedProcess
    before: str  # ganesha.conf's hash before the run
    summary: dict


@pytest.fixture(scope="module")
def run(module_lab_dir, tmp_path_factory) -> Run:
    nastune(module_lab_dir, "lab", "up", "--scenario", "modern")
    before = sha256(module_lab_dir / "ganesha.conf")
    where = tmp_path_factory.mktemp("ab")
    plan = where / "plan.json"
    changes = [
        {"id": i, "knob": "ganesha_export", "target": "1", "key": key, "new": 8192}
        for i, key in enumerate(("MaxRead", "MaxWrite"), 1)
    ]  # B: 8 KiB NFS transfers (as on MiNET's 2014 NAS)
    plan.write_text(json.dumps({"schema": "nastune.plan/1", "lab": True, "changes": changes}))
    out = where / "ab"
    proc = nastune(
        module_lab_dir,
        "ab",
        str(plan),
        "--lab",
        "--target",
        "nfs",
        "-w",
        "seq-write",
        "--size",
        "16M",
        "--min-pairs",
        "5",
        "--max-pairs",
        "5",
        "--seed",
        "7",
        "--yes",
        "--out-dir",
        str(out),
        "--json",
    )
    return Run(module_lab_dir, out, proc, before, check_schema(json.loads((out / "ab.json").read_text())))


def test_it_measures_both_sides_in_five_pairs(run):
    assert "in 5 pairs" in run.proc.stderr
    assert "switching took" in run.proc.stderr  # --json: the summary alone on stdout
    a, b = (json.loads((run.out / f"{side}.json").read_text()) for side in ("a", "b"))
    assert (a["label"], b["label"]) == ("A", "B")
    for side in (a, b):
        (result,) = side["results"]
        assert result["workload"] == "seq-write"
        assert len(result["metrics"]["MB/s"]["values"]) == 5


def test_the_plan_is_off_again_byte_for_byte(run):
    assert sha256(run.lab / "ganesha.conf") == run.before


def test_eight_kib_transfers_are_never_judged_better(run):
    verdicts = [line for line in run.proc.stderr.splitlines() if "seq-write" in line or "MB/s" in line]
    assert not any("better" in line for line in verdicts)
    # judged, or refused by name where the A/A control found A itself moving (the kernel lab's
    # guest runs beside this test on the same two cores: scripts/test)
    assert [r["verdict"] for r in run.summary["rows"]] or run.summary["refused"] == [
        "seq-write @ nfs://10.77.0.1/data MB/s"
    ]
    assert all(r["verdict"] != "better" for r in run.summary["rows"])


def test_its_summary_on_stdout_is_ab_json(run):
    assert json.loads(run.proc.stdout) == run.summary
    assert run.summary["pairs"] == 5
    assert run.summary["seconds"] > 0


def test_compare_of_the_run_s_own_files_gives_its_verdicts(run):
    out = run.out
    again = json.loads(nastune(run.lab, "compare", str(out / "a.json"), str(out / "b.json"), "--json").stdout)
    rows = again["comparisons"][0]["rows"]
    assert [(r["verdict"], r["p_value"]) for r in rows] == [(r["verdict"], r["p_value"]) for r in run.summary["rows"]]
