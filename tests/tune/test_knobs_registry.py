"""The knob registry holds together: every knob is found by its kind, declares its doc and how
it persists, implements its read and write, and has an apply/read-back/rollback test (on a temp
root here, or on the lab for the knobs that need a live system)."""

from __future__ import annotations

from pathlib import Path

from nastune.tune.knobs import KNOBS
from nastune.tune.knobs.base import Knob
from tests.tune.conftest import CHANGES

LAB_TEST = Path(__file__).parents[1] / "lab" / "test_tune_lab.py"
# Knobs that need a live system, and where they are tested (or why they cannot be here).
LIVE = {
    "mount_option": LAB_TEST,
    "xfs_fsr": LAB_TEST,
    "ethtool_feature": LAB_TEST,
    "htb_rate": LAB_TEST,
    "ethtool_coalesce": "veth has no interrupt coalescing: nothing on this machine to set",
    "ethtool_ring": "veth has no rings: nothing on this machine to size",
    "zfs_property": "no ZFS on this machine",
}
PERSISTS = {"sysctl.d", "fstab", "unit", "persistent", "action"}


def test_every_knob_declares_itself():
    for kind, knob in KNOBS.items():
        assert knob.kind == kind, kind
        assert knob.doc and "target" in knob.doc, f"{kind}: its doc must say what its target is"
        assert knob.persists in PERSISTS, kind
        assert type(knob).read is not Knob.read and type(knob).write is not Knob.write, kind
        assert knob.action == (knob.persists == "action"), kind
        assert knob.needs_live == (kind in LIVE) or kind == "mtu", kind


def test_every_knob_has_a_rollback_test():
    tested_here = {c["knob"] for c in CHANGES}
    lab = LAB_TEST.read_text()
    for kind in KNOBS:
        where = LIVE.get(kind)
        if where is None:
            assert kind in tested_here, f"{kind}: add it to tests/tune/conftest.py CHANGES"
        elif isinstance(where, Path):
            assert f'"{kind}"' in lab, f"{kind}: the lab's tuning test does not exercise it"
