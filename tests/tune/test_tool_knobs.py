"""The knobs that set hardware this machine lacks (NIC coalescing and rings: veth has neither;
ZFS properties: no ZFS here) applied, read back, verified and rolled back through the real
executor, journal and rollback, against stand-ins of `ethtool` and `zfs` that keep a device's
settings and print what the real tools print (tests/tune/standins/nictool.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from nastune.root import Root
from nastune.tune import executor
from nastune.tune.journal import Journal
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import System, TuneError
from tests.tune.conftest import applied, rolled_back

# these tests change this host and take its tuning lock (/var/lib/nastune/lock): run one at a time
pytestmark = pytest.mark.host

STANDIN = Path(__file__).parent / "standins" / "nictool.py"
DEVICE = {
    "nics": {
        "eth0": {
            "coalesce": {
                "adaptive-rx": "off",
                "adaptive-tx": "off",
                "rx-usecs": 0,
                "rx-frames": 1,
                "tx-usecs": 0,
                "tx-frames": 1,
            },
            "ring": {"rx": 512, "tx": 512},
        }
    },
    "datasets": {"tank/data": {"compression": "off", "atime": "on"}},
}
CHANGES = [
    PlannedChange(id=0, knob="ethtool_coalesce", target="eth0", key="rx-usecs", new=50),
    PlannedChange(id=0, knob="ethtool_coalesce", target="eth0", key="adaptive-rx", new="on"),
    PlannedChange(id=0, knob="ethtool_ring", target="eth0", key="rx", new=4096),
    PlannedChange(id=0, knob="zfs_property", target="tank/data", key="compression", new="lz4"),
    PlannedChange(id=0, knob="zfs_property", target="tank/data", key="atime", new="off"),
]


def _numbered(changes: list[PlannedChange]) -> list[PlannedChange]:
    return [c.model_copy(update={"id": i}) for i, c in enumerate(changes)]


@pytest.fixture
def device(tmp_path, monkeypatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("ethtool", "zfs"):
        (bin_dir / tool).symlink_to(STANDIN)
    state = tmp_path / "device.json"
    state.write_text(json.dumps(DEVICE))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("NASTUNE_STANDIN", str(state))
    return state


def _system(tmp_path: Path) -> System:
    """This live host (the tools run), its journal kept under the test's directory."""
    return System(root=Root("/"), state_dir=str(tmp_path))


def test_apply_verify_and_rollback_each_tool_knob(device, tmp_path):
    system = _system(tmp_path)
    journal = applied(Plan(changes=_numbered(CHANGES)), system, log=lambda m: None)
    assert journal is not None
    now = json.loads(device.read_text())
    assert now["nics"]["eth0"]["coalesce"]["rx-usecs"] == 50
    assert now["nics"]["eth0"]["coalesce"]["adaptive-rx"] == "on"
    assert now["nics"]["eth0"]["ring"]["rx"] == 4096
    assert now["datasets"]["tank/data"] == {"compression": "lz4", "atime": "off"}
    assert all(ok for *_, ok in executor.verify(Journal.at(system, journal.path), system))
    report = rolled_back(Journal.at(system, journal.path), system, log=lambda m: None)
    assert report.ok
    assert json.loads(device.read_text()) == DEVICE


def test_a_refused_write_rolls_back_the_changes_before_it(device, tmp_path):
    too_big = PlannedChange(id=0, knob="ethtool_ring", target="eth0", key="tx", new=8192)  # above the ring's maximum
    with pytest.raises(TuneError, match="Invalid argument"):
        applied(Plan(changes=_numbered([*CHANGES, too_big])), _system(tmp_path), log=lambda m: None)
    assert json.loads(device.read_text()) == DEVICE


def test_drift_is_seen_when_the_device_changes_behind_nastune(device, tmp_path):
    system = _system(tmp_path)
    journal = applied(Plan(changes=CHANGES[:1]), system, log=lambda m: None)
    assert journal is not None
    state = json.loads(device.read_text())
    state["nics"]["eth0"]["coalesce"]["rx-usecs"] = 8  # a driver reload resets it
    device.write_text(json.dumps(state))
    rows = executor.verify(Journal.at(system, journal.path), system)
    assert [(ok, actual) for _, _, actual, ok in rows] == [(False, "8")]
