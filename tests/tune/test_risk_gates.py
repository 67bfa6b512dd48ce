"""A plan cannot talk its way past a risk gate: what a change trades is judged from the value it
writes and the value it finds, whatever flags the plan file carries. Every risky key, with every
combination of the flags older plans carried, is refused without its --accept-risk and applied
with it; a harmless change with risk flags set is not held up."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from nastune.root import Root
from nastune.tune.knobs import KNOBS
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import System, TuneError
from tests.conftest import run_cli
from tests.tune.conftest import applied, make_plan, snapshot

SMB_CONF = (
    "[global]\n   server signing = mandatory\n   server min protocol = SMB2_02\n\n"
    "[data]\n   path = /srv/data\n   smb encrypt = required\n   strict sync = yes\n   sync always = yes\n"
)
FILES = {
    "/etc/samba/smb.conf": SMB_CONF,
    "/etc/exports": "/srv/data 10.0.0.0/24(rw,sync,no_subtree_check)\n",
    "/etc/fstab": "/dev/sdb1 /srv/data xfs defaults 0 2\nnas:/srv/data /mnt/nas nfs rw,hard,noac 0 0\n",
    "/proc/sys/vm/dirty_ratio": "20\n",
    "/proc/sys/vm/dirty_background_ratio": "10\n",
    "/proc/sys/vm/dirty_writeback_centisecs": "500\n",
}


def samba(target: str, key: str, new: str) -> dict:
    return {"knob": "samba", "target": target, "key": key, "new": new}


RISKY = [
    ("security", samba("global", "server signing", "disabled")),
    ("security", samba("global", "server signing", "auto")),
    ("security", samba("global", "server smb3 signing algorithms", "HMAC-SHA256")),
    ("security", samba("global", "server smb3 encryption algorithms", "AES-128-CCM")),
    ("security", samba("global", "server min protocol", "NT1")),
    ("security", samba("data", "smb encrypt", "off")),
    ("security", samba("data", "smb encrypt", "if_required")),
    ("durability", samba("data", "strict sync", "no")),
    ("durability", samba("data", "sync always", "no")),
    ("durability", {"knob": "nfs_export", "target": "/srv/data", "key": "10.0.0.0/24:async", "new": "async"}),
    ("durability", {"knob": "nfs_client_mount", "target": "/srv/data", "key": "nobarrier", "new": "nobarrier"}),
    ("durability", {"knob": "nfs_client_mount", "target": "/mnt/nas", "key": "noac", "new": None}),
    ("durability", {"knob": "sysctl", "target": "vm.dirty_ratio", "new": 60}),
    ("durability", {"knob": "sysctl", "target": "vm.dirty_background_ratio", "new": 40}),
    ("durability", {"knob": "sysctl", "target": "vm.dirty_writeback_centisecs", "new": 0}),
    ("compatibility", samba("data", "case sensitive", "yes")),
    ("compatibility", samba("global", "case sensitive", "true")),
]
# every way a plan has said "no risk here": no flag, each flag false, both false, an empty list
FLAGS: list[dict[str, object]] = [
    {},
    {"durability_risk": False},
    {"security_risk": False},
    {"durability_risk": False, "security_risk": False, "risks": []},
    {"durability_risk": True, "security_risk": True},
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    base = tmp_path / "root"
    for path, text in FILES.items():
        (base / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (base / path.lstrip("/")).write_text(text)
    return base


def _plan(change: dict, flags: dict[str, object]) -> Plan:
    return Plan.model_validate(make_plan([{**change, **flags}]))


def _name(case: tuple[str, dict]) -> str:
    risk, c = case
    return f"{risk}-{c['knob']}-{c.get('key') or c['target']}-{c['new']}"


@pytest.mark.parametrize("case", RISKY, ids=[_name(c) for c in RISKY])
def test_a_risky_change_is_refused_whatever_the_plan_says_and_made_when_accepted(tree, case):
    risk, change = case
    system = System(root=Root(tree))
    before = snapshot(tree)
    other = ({"durability", "security", "compatibility"} - {risk}).pop()
    for flags, accepted in itertools.product(FLAGS, (frozenset(), frozenset({other}))):
        with pytest.raises(TuneError, match=f"--accept-risk {risk}"):
            applied(_plan(change, flags), system, accept_risk=accepted)
        assert snapshot(tree) == before, (flags, accepted)
    assert applied(_plan(change, FLAGS[1]), system, accept_risk=frozenset({risk})) is not None
    assert snapshot(tree) != before


SAFE = [
    samba("global", "server smb3 signing algorithms", "AES-128-GMAC, AES-128-CMAC, HMAC-SHA256"),
    samba("global", "server signing", "required"),
    samba("data", "smb encrypt", "mandatory"),
    {"knob": "sysctl", "target": "vm.dirty_ratio", "new": 10},
]


@pytest.mark.parametrize("change", SAFE, ids=[f"{c['target']}-{c.get('key')}-{c['new']}" for c in SAFE])
def test_a_change_that_trades_nothing_is_not_held_up_by_flags_claiming_it_does(tree, change):
    system = System(root=Root(tree))
    plan = _plan(change, {"durability_risk": True, "security_risk": True, "risks": ["durability", "security"]})
    assert plan.changes[0].risks == []
    applied(plan, system)


def test_the_plan_file_names_what_each_change_trades_and_that_is_never_read_back(tmp_path):
    change = PlannedChange.model_validate({"id": 1, **samba("global", "server signing", "disabled")})
    assert change.risks == ["security"]
    assert json.loads(change.model_dump_json())["risks"] == ["security"]
    forged = PlannedChange.model_validate({**json.loads(change.model_dump_json()), "risks": []})
    assert forged.risks == ["security"]


def test_apply_judges_the_value_it_reads_not_the_current_value_the_plan_claims(tree):
    """A plan that says signing is already off (so "off" looks like no change) still trades it."""
    system = System(root=Root(tree))
    lying = _plan(samba("global", "server signing", "disabled"), {"current": "disabled"})
    assert lying.changes[0].risks == []  # as the plan reads on its own
    with pytest.raises(TuneError, match="--accept-risk security"):
        applied(lying, system)


def test_apply_on_the_command_line_refuses_an_edited_plan_and_names_the_risk(tree, tmp_path):
    before = snapshot(tree)
    for risk, change in (RISKY[0], RISKY[9]):
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps(make_plan([{**change, "durability_risk": False, "security_risk": False}])))
        done = run_cli("apply", str(plan), "--root", str(tree), "--yes", check=False)
        assert done.returncode != 0
        assert f"--accept-risk {risk}" in done.stderr
        assert snapshot(tree) == before


@pytest.mark.parametrize(
    ("knob", "key", "current", "new", "traded"),
    [
        ("zfs_property", "sync", "standard", "disabled", ["durability"]),
        ("zfs_property", "sync", "always", "standard", ["durability"]),
        ("zfs_property", "compression", "off", "lz4", []),
        ("nfs_export", "h:sync", "async", "sync", ["durability"]),
        ("nfs_client_mount", "rsize", "8192", "1048576", []),
        ("nfs_client_mount", "barrier", "1", "0", ["durability"]),
        ("sysctl", None, "20", "30", ["durability"]),
        ("sysctl", None, "40", "30", []),  # lowered, even though above the kernel's default
        ("sysctl", None, "20", "lots", ["durability"]),  # a value it cannot judge: held
    ],
)
def test_each_knob_judges_its_own_trade(knob, key, current, new, traded):
    target = {"zfs_property": "tank/vm", "nfs_export": "/srv", "nfs_client_mount": "/mnt", "sysctl": "vm.dirty_ratio"}
    change = PlannedChange.model_validate({"id": 1, "knob": knob, "target": target[knob], "key": key, "new": new})
    assert KNOBS[knob].trades(change, current) == traded
