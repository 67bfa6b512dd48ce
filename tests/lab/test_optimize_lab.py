"""The main job on the lab: optimize on soho must make SMB and NFS significantly faster, and
leave a report, a plan and the result files: by default the one-off action (xfs_fsr) measured
before and after on the aged reads it changes, the settings proved by interleaving."""

from __future__ import annotations

import json

from nastune.bench.limits import RULE_PATH, RULE_PROTOCOL
from tests.conftest import check_schema
from tests.lab.conftest import nastune


def test_optimize_soho_makes_smb_and_nfs_significantly_faster(lab_dir, tmp_path):
    out = tmp_path / "optimize"
    proc = nastune(
        lab_dir,
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
    assert "Report:" in proc.stderr
    assert "the settings, interleaved" in proc.stderr  # stdout: the summary alone
    compared = check_schema(json.loads((out / "compare.json").read_text()))
    assert json.loads(proc.stdout) == compared
    assert compared["flow"] == "interleaved"
    once = {(r["workload"], r["target"].split(":")[0]): r["verdict"] for r in compared["rows"]}
    assert {w for w, _ in once} == {"aged-read"}  # before/after: only what the one-off action changes
    assert once[("aged-read", "smb")] == "better"
    assert once[("aged-read", "nfs")] == "better"
    mixed = compared["interleaved"]  # the settings, interleaved
    assert mixed["pairs"] >= 3, mixed
    assert not mixed["stopped"], mixed
    assert mixed["switch_seconds"] > 0, mixed
    # interleaving judged the settings (a run whose every verdict is refused must fail); whether 3 pairs
    # suffice for a significant verdict depends on the machine's noise, so the test asks for the
    # direction of NFS writes (8 KiB -> 1 MiB transfers), not for significance
    nfs_writes = [r for r in mixed["rows"] if r["workload"] == "seq-write" and r["target"].startswith("nfs:")]
    assert nfs_writes, mixed
    assert nfs_writes[0]["change"] > 0, mixed
    assert nfs_writes[0]["verdict"] != "worse", mixed
    worse = [(r["workload"], r["target"]) for r in compared["rows"] + mixed["rows"] if r["verdict"] == "worse"]
    assert not [w for w in worse if w[1].split(":")[0] in ("smb", "nfs", "ftp")], worse
    assert any("xfs_fsr" in n for n in mixed["notes"])  # the one-off action: before/after only
    assert "measure: after" not in proc.stderr  # its after-measurement is the interleaved run's A
    tuned = json.loads((out / "interleaved" / "b.json").read_text())["results"]
    assert all(r["target"]["mtu"] == 9000 for r in tuned if r["target"]["kind"] != "path")  # re-resolved for B
    assert not [f for r in tuned for m in r["metrics"].values() for f in m["flags"] if "goodput" in f]
    for name in ("before.json", "after.json", "plan.json", "findings.json", "facts.json", "report.html", "report.csv"):
        assert (out / name).exists(), name
    for name in ("report.xlsx", "settings.json", "interleaved/a.json", "interleaved/b.json"):
        assert (out / name).exists(), name
    findings = json.loads((out / "findings.json").read_text())
    limiting = {f["rule"]: f["limiting"] for f in findings if f["limiting"]}
    assert "(aged-read @" in limiting.get("xfs-fragmentation", ""), limiting  # the aged read: its fragmentation
    for rule, evidence in limiting.items():  # a rule is named only from a run on a path it can act on
        protocol, path = RULE_PROTOCOL.get(rule), RULE_PATH.get(rule)
        assert protocol is None or f"@ {protocol}://" in evidence, (rule, evidence)
        assert path is None or ("(seq-write @" in evidence) == (path == "write"), (rule, evidence)
    plan = json.loads((out / "plan.json").read_text())
    assert {"xfs_fsr", "ganesha_export", "samba"} <= {c["knob"] for c in plan["changes"]}
    assert not any(c["target"].startswith("vm.") for c in plan["changes"])  # the host's kernel is left alone
    assert "Verdicts, interleaved" in (out / "report.html").read_text()
    nastune(lab_dir, "verify")  # applied again after interleaving
    nastune(lab_dir, "rollback")


def test_a_workload_failing_in_the_after_run_is_reported_and_the_rest_compared(lab_dir, tmp_path):
    """The first version ended in a traceback with no comparison and no report when iperf3 failed
    once after the MTU change. Here the iperf3 port on the NAS is taken as the after-run of the
    before-after flow starts, so its one-off iperf3 server cannot listen."""
    import subprocess
    import sys

    from nastune.lab import network
    from tests.lab.conftest import lab_env

    out = tmp_path / "optimize"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nastune",
            "optimize",
            "--lab",
            "--flow",
            "before-after",
            "--scenario",
            "modern",
            "--yes",
            "-w",
            "seq-write",
            "-w",
            "network",
            "--size",
            "16M",
            "--repeats",
            "2",
            "--no-interleave",  # the after-run is what fails here
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=lab_env(lab_dir),
        stdin=subprocess.DEVNULL,
    )
    seen, squatter = [], None
    # SO_REUSEADDR: the before-run's connections may leave the port in TIME_WAIT (iperf3 sets it too)
    taker = (
        "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
        "s.bind(('10.77.0.1', 5201)); s.listen(); time.sleep(900)"
    )
    for line in proc.stderr or ():
        seen.append(line)
        if "measure: after" in line:
            squatter = subprocess.Popen(["ip", "netns", "exec", network.NAS_NS, sys.executable, "-c", taker])
            break
    try:
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if squatter:
            squatter.kill()
    stderr = "".join(seen) + stderr
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr, stderr
    assert "FAILED" in stdout
    assert "network @ iperf3://10.77.0.1" in stdout
    assert "nastune rollback --inventory" in stdout
    compared = json.loads((out / "compare.json").read_text())
    assert {r["workload"] for r in compared["rows"]} == {"seq-write"}  # the other workload is still compared
    assert any("network" in f and "failed" in f for f in compared["failed"])
    after = {r["workload"]: r for r in json.loads((out / "after.json").read_text())["results"]}
    assert after["network"]["error"]
    assert len(after["network"]["retries"]) == 3
    assert "the iperf3 server on NAS nas" in after["network"]["error"]
    assert "in use" in after["network"]["error"]
    assert "network" in (out / "report.html").read_text()
    assert "FAILED" in (out / "report.html").read_text()
    nastune(lab_dir, "rollback")
