"""The main job on the lab: optimize on soho must make SMB and NFS significantly faster, and
leave a report, a plan and the result files: by default the one-off action (xfs_fsr) measured
before and after on the aged reads it changes, the settings proved by interleaving. One run for
the module; each test reads one side of it, and the last rolls it back."""

from __future__ import annotations

import json
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from nastune.rules import get
from tests.conftest import check_schema
from tests.lab.conftest import nastune

pytestmark = pytest.mark.alone  # judges measurements: no other namespace lab beside it (scripts/test)


@dataclass
class Run:
    lab: Path
    out: Path
    proc: subprocess.CompletedProcess
    compared: dict

    @property
    def mixed(self) -> dict:
        return self.compared["interleaved"]  # the settings, interleaved


@pytest.fixture(scope="module")
def run(module_lab_dir, tmp_path_factory) -> Run:
    out = tmp_path_factory.mktemp("optimize") / "optimize"
    proc = nastune(
        module_lab_dir,
        "optimize",
        "--lab",
        "--yes",
        "--allow",
        "xfs_fsr",
        "-w",
        "aged-read",
        "-w",
        "seq-write",
        "--size",
        "32M",
        "--repeats",
        "5",  # the aged read's before/after: 5 before against the 3 or more of interleaving's A
        "--max-pairs",
        "3",  # a clear gain settles at the first look (pair 3); the aged read's A then has 3 against 5
        "--out-dir",
        str(out),
        "--json",
        timeout=900,
    )
    return Run(module_lab_dir, out, proc, check_schema(json.loads((out / "compare.json").read_text())))


def test_its_summary_is_the_interleaved_comparison(run):
    assert "Report:" in run.proc.stderr
    assert "change [95% CI]" in run.proc.stderr  # the answer's first table; stdout: the summary alone
    assert json.loads(run.proc.stdout) == run.compared
    assert run.compared["flow"] == "interleaved"


def test_the_one_off_action_is_judged_before_and_after_on_the_aged_reads(run):
    once = {(r["workload"], r["target"].split(":")[0]): r["verdict"] for r in run.compared["rows"]}
    assert {w for w, _ in once} == {"aged-read"}  # before/after: only what the one-off action changes
    assert once[("aged-read", "smb")] == "better"
    assert once[("aged-read", "nfs")] == "better"
    assert any("xfs_fsr" in n for n in run.mixed["notes"])  # the one-off action: before/after only
    assert "measure: after" not in run.proc.stderr  # its after-measurement is the interleaved run's A


def test_interleaving_judges_the_settings(run):
    assert run.mixed["pairs"] >= 3, run.mixed
    assert not run.mixed["stopped"], run.mixed
    assert run.mixed["switch_seconds"] > 0, run.mixed
    assert run.mixed["rows"], run.mixed  # a run whose every verdict is refused fails
    # whether 3 pairs suffice for a significant verdict, and whether A held still enough for its
    # A/A control to judge, depends on the machine's other load: the test asks that NFS writes
    # (8 KiB -> 1 MiB transfers) were judged or refused by name, and went up in B
    nfs_writes = [r for r in run.mixed["rows"] if r["workload"] == "seq-write" and r["target"].startswith("nfs:")]
    refused = [k for k in run.mixed["refused"] if k.startswith("seq-write @ nfs:")]
    assert nfs_writes or refused, run.mixed
    a, b = (_nfs_write_median(run.out / "interleaved" / f"{side}.json") for side in "ab")
    assert b > a, (a, b)
    assert not nfs_writes or nfs_writes[0]["verdict"] != "worse", run.mixed


def _nfs_write_median(path: Path) -> float:
    results = json.loads(path.read_text())["results"]
    [values] = [
        r["metrics"]["MB/s"]["values"] for r in results if (r["workload"], r["target"]["kind"]) == ("seq-write", "nfs")
    ]
    return statistics.median(values)


def test_no_served_protocol_got_worse(run):
    rows = run.compared["rows"] + run.mixed["rows"]
    worse = [(r["workload"], r["target"]) for r in rows if r["verdict"] == "worse"]
    assert not [w for w in worse if w[1].split(":")[0] in ("smb", "nfs", "ftp")], worse


def test_the_tuned_side_is_measured_at_its_own_mtu_within_the_link(run):
    tuned = json.loads((run.out / "interleaved" / "b.json").read_text())["results"]
    assert all(r["target"]["mtu"] == 9000 for r in tuned if r["target"]["kind"] != "path")  # re-resolved for B
    assert not [f for r in tuned for m in r["metrics"].values() for f in m["flags"] if "goodput" in f]


@pytest.mark.parametrize(
    "name",
    ["before.json", "after.json", "plan.json", "findings.json", "facts.json", "report.html", "report.csv"]
    + ["report.xlsx", "settings.json", "interleaved/a.json", "interleaved/b.json"],
)
def test_it_leaves_its_records(run, name):
    assert (run.out / name).exists()


def test_the_report_shows_the_interleaved_verdicts(run):
    assert "Verdicts, interleaved" in (run.out / "report.html").read_text()


def test_a_limiting_rule_is_named_only_from_a_run_it_can_act_on(run):
    findings = json.loads((run.out / "findings.json").read_text())
    limiting = {f["rule"]: f["limiting"] for f in findings if f["limiting"]}
    assert "(aged-read @" in limiting.get("xfs-fragmentation", ""), limiting  # the aged read: its fragmentation
    for rule, evidence in limiting.items():
        protocol, path = get(rule).protocol, get(rule).path
        assert not protocol or f"@ {protocol}://" in evidence, (rule, evidence)
        assert not path or ("(seq-write @" in evidence) == (path == "write"), (rule, evidence)


def test_the_plan_tunes_the_servers_and_leaves_the_host_s_kernel_alone(run):
    plan = json.loads((run.out / "plan.json").read_text())
    assert {"xfs_fsr", "ganesha_export", "samba"} <= {c["knob"] for c in plan["changes"]}
    assert not any(c["target"].startswith("vm.") for c in plan["changes"])


def test_the_settings_stay_applied_and_roll_back(run):
    nastune(run.lab, "verify")  # applied again after interleaving
    nastune(run.lab, "rollback")
