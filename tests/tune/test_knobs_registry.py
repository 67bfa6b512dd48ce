"""The knob registry holds together: every knob is found by its kind, declares its doc and how
it persists, implements its read and write, and is applied, read back and rolled back by a test
(on a temporary root, against stand-ins of hardware tools, or on the lab for the knobs that need a
live system), found by the changes those tests make."""

from __future__ import annotations

from nastune.tune.knobs import KNOBS
from nastune.tune.knobs.base import Knob
from tests.lab.test_tune_lab import HTB_CHANGE, WANTED
from tests.tune.conftest import CHANGES
from tests.tune.test_tool_knobs import CHANGES as TOOL_CHANGES

PERSISTS = {"sysctl.d", "fstab", "unit", "persistent", "action", "mount", "pool"}
# The changes each apply/read-back/rollback test makes, imported from the tests that make them.
ON_FILES = {c["knob"] for c in CHANGES}  # tests/tune: a temporary root
ON_TOOLS = {c.knob for c in TOOL_CHANGES}  # tests/tune/test_tool_knobs.py: stand-ins of ethtool and zfs
ON_LAB = WANTED | {HTB_CHANGE["knob"]}  # tests/lab/test_tune_lab.py: the real lab


def test_every_knob_declares_itself():
    for kind, knob in KNOBS.items():
        assert knob.kind == kind, kind
        assert knob.doc, f"{kind}: its doc must say what its target is"
        assert "target" in knob.doc, f"{kind}: its doc must say what its target is"
        assert knob.persists in PERSISTS, kind
        assert type(knob).read is not Knob.read, kind
        assert type(knob).write is not Knob.write, kind
        assert knob.action == (knob.persists == "action"), kind


def test_a_planned_change_names_a_registered_knob():
    """A change names its knob by kind; a planned one must be a registered knob, whoever built it
    (a rule, a tunable, a plan file)."""
    import pytest

    from nastune.tune.plan import PlannedChange

    assert PlannedChange(id=1, knob="sysctl", target="vm.dirty_ratio", new=10).knob in KNOBS
    with pytest.raises(ValueError, match="unknown knob 'warp_drive'"):
        PlannedChange(id=1, knob="warp_drive", target="x", new=1)


def test_every_knob_is_applied_and_rolled_back_by_a_test():
    for kind, knob in KNOBS.items():
        tested = ON_FILES | ON_TOOLS | ON_LAB if not knob.needs_live else ON_TOOLS | ON_LAB
        assert kind in tested, f"{kind}: no test applies and rolls it back (add it to a CHANGES list that a test runs)"
