"""`nastune check` on the real lab: a tuned NAS checks clean against its baseline; then an
"upgrade" resets a tuned setting and slows the link tenfold, and the check reports the drift and the
regression, in its metrics and its exit status. (Qumulo's own case, NIC interrupts pinned to their
node, needs a NIC with IRQs: the lab's veth has none, so that case runs on a hand-made
two-socket server in tests/jobs/test_check.py.)"""

from __future__ import annotations

import json
import subprocess

from prometheus_client.parser import text_string_to_metric_families

from nastune.lab import network
from tests.lab.conftest import nastune

NAS = network.NAS_NS


def _metrics(path) -> dict[str, list]:
    return {f.name: f.samples for f in text_string_to_metric_families(path.read_text())}


def test_check_catches_a_drifted_setting_and_a_regression(lab_dir, tmp_path):
    nastune(lab_dir, "lab", "up", "--scenario", "modern")
    env = {"NASTUNE_BASELINES": str(tmp_path / "baselines")}
    plan = tmp_path / "plan.json"
    change = {"id": 1, "knob": "sysctl", "target": "net.ipv4.tcp_keepalive_time", "new": 600}
    plan.write_text(json.dumps({"schema": "nastune.plan/1", "lab": True, "changes": [change]}))
    nastune(lab_dir, "apply", str(plan), "--lab", "--yes")
    first = tmp_path / "tuned.json"
    common = ["--lab", "--target", "nfs", "-w", "seq-read", "--size", "32M"]
    nastune(lab_dir, "bench", *common, "--repeats", "5", "--out", str(first))
    nastune(lab_dir, "baseline", "save", "tuned", str(first), env=env)
    metrics = tmp_path / "nastune.prom"
    args = ["check", "--lab", "--baseline", "tuned", "--bench", "--metrics", str(metrics)]
    calm = nastune(lab_dir, *args, check=False, env=env)
    assert calm.returncode == 0, calm.stdout + calm.stderr
    assert _metrics(metrics)["nastune_check_ok"][0].value == 1
    assert (tmp_path / "baselines" / "checks" / "tuned.json").exists()  # kept beside the baselines
    # the upgrade: the setting back at the kernel's default, the link at a tenth of its rate
    # (half was within what the machine's other load alone took from the transfers)
    subprocess.run(["ip", "netns", "exec", NAS, "sysctl", "-qw", "net.ipv4.tcp_keepalive_time=7200"], check=True)
    tc = ["tc", "class", "change", "dev", "lab0", "classid", "1:10", "htb", "rate", "100mbit", "ceil", "100mbit"]
    subprocess.run(["ip", "netns", "exec", NAS, *tc], check=True)
    caught = nastune(lab_dir, *args, "--json", check=False, env=env)
    assert caught.returncode == 1
    assert "Traceback" not in caught.stderr
    report = json.loads(caught.stdout)
    assert [d["setting"] for d in report["drift"]] == ["sysctl net.ipv4.tcp_keepalive_time"]
    assert [r["verdict"] for r in report["rows"]] == ["worse"]
    found = _metrics(metrics)
    assert found["nastune_drifted_settings"][0].value == 1
    assert found["nastune_baseline_regressions"][0].value == 1
    assert found["nastune_baseline_ratio"][0].value < 0.8
