"""Interleaved A/B on the real lab: the plan is switched on and off through the tuning engine
between repeats, both sides are measured in random order, and the lab ends exactly as it began."""

from __future__ import annotations

import json

from tests.conftest import check_schema
from tests.lab.conftest import nastune, sha256


def test_ab_interleaves_a_plan_and_leaves_the_lab_as_it_was(lab_dir, tmp_path):
    nastune(lab_dir, "lab", "up", "--scenario", "modern")
    conf = lab_dir / "ganesha.conf"
    before = sha256(conf)
    plan = tmp_path / "plan.json"
    changes = [
        {"id": i, "knob": "ganesha_export", "target": "1", "key": key, "new": 8192}
        for i, key in enumerate(("MaxRead", "MaxWrite"), 1)
    ]  # B: 8 KiB NFS transfers (as on MiNET's 2014 NAS)
    plan.write_text(json.dumps({"schema": "nastune.plan/1", "lab": True, "changes": changes}))
    out = tmp_path / "ab"
    proc = nastune(
        lab_dir,
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
    assert "in 5 pairs" in proc.stderr
    assert "switching took" in proc.stderr  # --json: the summary alone on stdout
    a, b = (json.loads((out / f"{side}.json").read_text()) for side in ("a", "b"))
    for side in (a, b):
        (result,) = side["results"]
        assert result["workload"] == "seq-write"
        assert len(result["metrics"]["MB/s"]["values"]) == 5
    assert a["label"] == "A"
    assert b["label"] == "B"
    assert sha256(conf) == before  # the plan is off again: A, byte for byte
    verdicts = [line for line in proc.stderr.splitlines() if "seq-write" in line or "MB/s" in line]
    assert not any("better" in line for line in verdicts)  # 8 KiB transfers never speed NFS up
    summary = check_schema(json.loads((out / "ab.json").read_text()))  # the same verdicts, for scripts
    assert json.loads(proc.stdout) == summary
    assert summary["pairs"] == 5
    assert [r["verdict"] for r in summary["rows"]]
    assert summary["seconds"] > 0
    assert all(r["verdict"] != "better" for r in summary["rows"])
    again = json.loads(nastune(lab_dir, "compare", str(out / "a.json"), str(out / "b.json"), "--json").stdout)
    rows = again["comparisons"][0]["rows"]  # compare of the run's own files: the run's own verdicts
    assert [(r["verdict"], r["p_value"]) for r in rows] == [(r["verdict"], r["p_value"]) for r in summary["rows"]]
