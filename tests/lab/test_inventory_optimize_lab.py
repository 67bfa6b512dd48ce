"""The main job on real hosts, as the lab's inventory describes them: the NAS reached over SSH
(nastune runs there: its facts, its journal, its confirm-or-revert watchdog) and measured from
two clients at once; then the faults, one test each on the same lab, in this order (the last
cuts a client off): an unconfirmed network change reverted by the NAS itself, a client lacking
a tool, a client that dies mid-run."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from nastune.lab import network
from nastune.remote import inventory
from nastune.remote.agent import Agent
from nastune.sites.lab.access import NAS_HOST
from nastune.tune.plan import Plan
from tests.lab.conftest import nastune


@pytest.fixture(scope="module")
def soho2(module_lab_dir):
    nastune(module_lab_dir, "lab", "up", "--scenario", "soho", "--clients", "2")
    return module_lab_dir


def nas_mtu() -> int:
    shown = subprocess.run(["ip", "-n", network.NAS_NS, "-j", "link", "show", network.LINK], capture_output=True)
    return json.loads(shown.stdout)[0]["mtu"]


def test_optimize_through_the_inventory(soho2, tmp_path):
    inv_path = soho2 / "inventory.ini"
    status = json.loads(nastune(soho2, "lab", "status", "--json").stdout)["parts"]
    assert {"ssh to nas", "ssh to c1", "ssh to c2"} <= {p["part"] for p in status if p["ok"]}

    out = tmp_path / "opt"
    run = nastune(
        soho2,
        "optimize",
        "--flow",
        "before-after",  # its before.json holds the profile taken on the NAS (the default flow: test_optimize_lab)
        "--no-interleave",  # interleaving through an inventory: test_optimize_lab (the lab's own inventory)
        "--inventory",
        str(inv_path),
        "--yes",
        "--target",
        "nfs",
        "-w",
        "seq-write",
        "--size",
        "16M",
        "--repeats",
        "2",
        "--confirm-timeout",
        "10",
        "--out",
        str(out),
    )
    assert f"network changes on NAS nas ({NAS_HOST}) confirmed" in run.stderr + run.stdout
    before = json.loads((out / "before.json").read_text())
    assert before["provenance"]["host"] == f"nas ({NAS_HOST})"  # the NAS's facts, read there
    (result,) = before["results"]
    assert result["target"]["client"] == "c1,c2"
    assert result["profile"]["net"]  # profiled on the NAS
    applied = json.loads((out / "plan.json").read_text())["changes"]
    assert any(c["knob"] == "mtu" for c in applied)
    time.sleep(12)  # past the watchdog's 10 s: confirmed, so nothing was reverted
    assert nas_mtu() == 9000
    assert [slow_start(network.client_ns(i)) for i in (1, 2)] == ["0", "0"]  # each client's own change
    nastune(soho2, "verify", "--inventory", str(inv_path))
    undone = nastune(soho2, "rollback", "--inventory", str(inv_path))
    assert "rolled back" in undone.stdout
    assert nas_mtu() == 1500
    assert [slow_start(network.client_ns(i)) for i in (1, 2)] == ["1", "1"]


def slow_start(ns: str) -> str:
    read = ["ip", "netns", "exec", ns, "sysctl", "-n", "net.ipv4.tcp_slow_start_after_idle"]
    return subprocess.run(read, capture_output=True, text=True, check=True).stdout.strip()


def test_a_network_change_nobody_confirms_is_reverted_by_the_nas(soho2):
    agent = Agent(inventory.load(soho2 / "inventory.ini").nas)
    plan = Plan.model_validate(
        {
            "schema": "nastune.plan/1",
            "lab": True,
            "changes": [{"id": 1, "knob": "mtu", "target": network.LINK, "new": 9000}],
        }
    )
    done = agent.apply(plan, accept_risk=frozenset(), confirm_timeout=3)
    assert done.watchdog == 3
    assert nas_mtu() == 9000
    deadline = time.monotonic() + 60
    while nas_mtu() != 1500 and time.monotonic() < deadline:
        time.sleep(1)
    assert nas_mtu() == 1500


def bench_args(soho2) -> tuple[str, ...]:
    return ("bench", "--inventory", str(soho2 / "inventory.ini"), "--target", "smb", "-w", "seq-write", "--size", "8M")


def test_a_client_lacking_a_tool_is_named_with_its_package(soho2, tmp_path):
    """smbclient hidden in c2's sshd's mount namespace."""
    sshd = next(
        r["pid"]
        for r in json.loads((soho2 / "state.json").read_text())["resources"]
        if r.get("name") == f"sshd-{network.client_ns(2)}"
    )
    hide = ["nsenter", "-t", str(sshd), "-m", "mount", "--bind", "/dev/null", "/usr/bin/smbclient"]
    subprocess.run(hide, check=True)
    proc = nastune(soho2, *bench_args(soho2), "--repeats", "1", "--out", str(tmp_path / "t.json"), check=False)
    subprocess.run(["nsenter", "-t", str(sshd), "-m", "umount", "/usr/bin/smbclient"], check=True)
    assert proc.returncode != 0
    assert "client c2" in proc.stderr
    assert "apt-get install smbclient" in proc.stderr


def test_a_client_that_dies_mid_run_is_named_and_the_finished_workload_kept(soho2, tmp_path):
    kept = tmp_path / "mid.json"
    mid = [a if a != "8M" else "32M" for a in bench_args(soho2)]
    cmd = [sys.executable, "-m", "nastune", *mid, "-w", "seq-read", "--repeats", "3", "--out", str(kept)]
    env = {"NASTUNE_LAB_DIR": str(soho2), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    bench = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (kept.exists() and json.loads(kept.read_text())["results"]):
        time.sleep(0.5)
    subprocess.run(["ip", "-n", network.client_ns(2), "link", "set", "mgmt0", "down"], check=True)
    subprocess.run(["ip", "netns", "exec", network.client_ns(2), "pkill", "-9", "smbclient"], check=False)
    _, stderr = bench.communicate(timeout=300)
    assert bench.returncode != 0
    assert "c2" in stderr
    assert "Traceback" not in stderr
    first, second = json.loads(kept.read_text())["results"]
    assert first["workload"] == "seq-write"
    assert not first["error"]
    assert second["error"]
