"""A plan that changes a client as well as the NAS, through the lab's inventory: the lab's client
runs nastune in its own network namespace (its TCP stack is the client's), so a change there
is made, journaled and rolled back by nastune on that client over SSH, exactly as on the NAS.
One lab for the module; each test leaves it as it found it."""

from __future__ import annotations

import json
import subprocess

import pytest

from nastune.lab import network
from nastune.sites.lab.access import NAS_HOST, mgmt_ip
from tests.lab.conftest import nastune
from tests.tune.conftest import write_plan

KEY = "net.ipv4.tcp_slow_start_after_idle"
PROC = "/proc/sys/net/ipv4/tcp_slow_start_after_idle"
NAS_CHANGE = {"knob": "sysctl", "target": KEY, "new": 0, "rule": "tcp-slow-start-after-idle"}


@pytest.fixture(scope="module")
def lab(module_lab_dir):
    nastune(module_lab_dir, "lab", "up", "--scenario", "soho")
    return module_lab_dir


def read(ns: str | None) -> bytes:
    """The setting's file as the host `ns` (None: this machine) reads it, byte for byte."""
    argv = ["cat", PROC] if ns is None else ["ip", "netns", "exec", ns, "cat", PROC]
    return subprocess.run(argv, capture_output=True, check=True).stdout


def everywhere() -> dict[str | None, bytes]:
    return {ns: read(ns) for ns in (network.NAS_NS, network.client_ns(1), None)}


def test_the_plan_names_a_change_for_the_client(lab, tmp_path):
    out = tmp_path / "plan.json"
    nastune(lab, "plan", "--inventory", str(lab / "inventory.ini"), "--out", str(out))
    changes = json.loads(out.read_text())["changes"]
    on_client = [c for c in changes if c.get("host") == "c1"]
    assert [(c["rule"], c["target"], c["new"]) for c in on_client] == [("tcp-slow-start-after-idle", KEY, 0)]


def test_diagnose_names_the_client_s_findings(lab):
    inv = str(lab / "inventory.ini")
    found = json.loads(nastune(lab, "diagnose", "--inventory", inv, "--json").stdout)["findings"]
    assert [f["rule"] for f in found if f["host"] == "c1"] == ["tcp-slow-start-after-idle"]
    shown = nastune(lab, "diagnose", "--inventory", inv).stdout
    assert "tcp-slow-start-after-idle (client c1: net.ipv4.tcp_slow_start_after_idle)" in shown


def test_rollback_without_a_journal_after_a_change_on_the_client_alone(lab, tmp_path):
    """Before anything was applied on the NAS (the module's first apply): a plan of client
    changes only, as the client rules make, is undone by the plain rollback an operator runs,
    and the NAS says it has nothing to undo rather than failing the command."""
    before = everywhere()
    plan = write_plan(tmp_path, [{**NAS_CHANGE, "host": "c1"}])
    inv = str(lab / "inventory.ini")
    nastune(lab, "apply", str(plan), "--inventory", inv, "--yes")
    assert read(network.client_ns(1)) == b"0\n" != before[network.client_ns(1)]
    undone = nastune(lab, "rollback", "--inventory", inv)
    assert everywhere() == before
    assert "nothing was applied here: no journal" in undone.stderr


def test_apply_verify_and_rollback_on_the_nas_and_its_client(lab, tmp_path):
    before = everywhere()
    plan = write_plan(tmp_path, [NAS_CHANGE, {**NAS_CHANGE, "host": "c1"}])
    inv = str(lab / "inventory.ini")
    done = nastune(lab, "apply", str(plan), "--inventory", inv, "--yes", "--json")
    journal = json.loads(done.stdout)["journal"]
    assert ",c1=" in journal
    after = everywhere()
    assert (after[network.NAS_NS], after[network.client_ns(1)]) == (b"0\n", b"0\n")
    assert after[None] == before[None]  # this machine's own stack is not the client's
    checked = json.loads(nastune(lab, "verify", "--inventory", inv, "--journal", journal, "--json").stdout)
    assert [a["host"] for a in checked["hosts"]] == [f"NAS nas ({NAS_HOST})", f"client c1 ({mgmt_ip(1)})"]
    assert [s["ok"] for a in checked["hosts"] for s in a["output"]["settings"]] == [True, True]
    undone = nastune(lab, "rollback", "--inventory", inv, "--journal", journal)
    assert undone.stdout.index("client c1") < undone.stdout.index("NAS nas")  # the last applied first
    assert everywhere() == before


def test_a_failure_on_the_client_rolls_the_nas_back(lab, tmp_path):
    before = everywhere()
    broken = {**NAS_CHANGE, "host": "c1", "target": "net.ipv4.tcp_no_such_setting"}
    plan = write_plan(tmp_path, [NAS_CHANGE, broken])
    failed = nastune(lab, "apply", str(plan), "--inventory", str(lab / "inventory.ini"), "--yes", check=False)
    assert failed.returncode == 1
    assert "net.ipv4.tcp_no_such_setting: the current value cannot be read" in failed.stderr
    assert f"what the plan changed on NAS nas ({NAS_HOST}) was rolled back" in failed.stderr
    assert everywhere() == before


def test_a_change_for_a_client_that_runs_no_nastune_is_refused(lab, tmp_path):
    before = everywhere()
    plan = write_plan(tmp_path, [NAS_CHANGE, {**NAS_CHANGE, "host": "c2"}])
    refused = nastune(lab, "apply", str(plan), "--inventory", str(lab / "inventory.ini"), "--yes", check=False)
    assert refused.returncode == 2
    assert "the plan changes client c2" in refused.stderr
    assert everywhere() == before


def test_rollback_without_a_journal_undoes_each_host_s_newest(lab, tmp_path):
    before = everywhere()
    plan = write_plan(tmp_path, [NAS_CHANGE, {**NAS_CHANGE, "host": "c1"}])
    inv = str(lab / "inventory.ini")
    nastune(lab, "apply", str(plan), "--inventory", inv, "--yes")
    checked = json.loads(nastune(lab, "verify", "--inventory", inv, "--json").stdout)
    assert [a["host"] for a in checked["hosts"]] == [f"NAS nas ({NAS_HOST})", f"client c1 ({mgmt_ip(1)})"]
    nastune(lab, "rollback", "--inventory", inv)
    assert everywhere() == before
    again = nastune(lab, "verify", "--inventory", inv, "--json")  # nothing is applied on the client now
    assert json.loads(again.stdout)["schema"] == "nastune.verify/1"


@pytest.mark.parametrize(
    ("risk", "key", "new"), [("security", "server signing", "disabled"), ("durability", "strict sync", "no")]
)
def test_an_inventory_s_nas_refuses_a_risky_change_whatever_flags_the_plan_carries(lab, tmp_path, risk, key, new):
    """The gate is the NAS's own nastune judging what the change writes, not the plan's flags."""
    conf = lab / "smb.conf"  # the one smbd was started with
    before = conf.read_bytes()
    change = {"knob": "samba", "target": "global", "key": key, "new": new}
    plan = write_plan(tmp_path, [{**change, "durability_risk": False, "security_risk": False, "risks": []}])
    inv = str(lab / "inventory.ini")
    refused = nastune(lab, "apply", str(plan), "--inventory", inv, "--yes", check=False)
    assert refused.returncode != 0
    assert f"refused without --accept-risk {risk}" in refused.stderr
    assert conf.read_bytes() == before
