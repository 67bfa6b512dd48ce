"""The ZFS rules as real OpenZFS 2.2 and 2.3 show a dataset (read off the kernel lab's guest):
xattr=sa is shown as `on`, which meant directories before 2.2; and the disks a pool is made of
are ZFS's to schedule and prefetch, not the block rules'."""

from __future__ import annotations

import pytest

from nastune import rules
from nastune.facts.block import BlockDevice, Scheduler
from nastune.facts.zfs import Arc, Pool, Vdev
from tests.conftest import need
from tests.rules.kit import F, nas, zfs


def _version(facts, version: str):
    need(facts.zfs).arc = F(Arc(size=1, c_max=2, max_param=0, version=version))
    return facts


@pytest.mark.parametrize(
    ("version", "xattr", "fires"),
    [("2.3.2-2~bpo12+2", "on", False), ("2.3.2-2~bpo12+2", "dir", True), ("2.1.11-1", "on", True),
     ("2.2.0", "sa", False)],
)  # fmt: skip
def test_xattr_on_means_sa_from_openzfs_2_2(version: str, xattr: str, fires: bool):
    facts = _version(zfs({"xattr": xattr}), version)
    found = [f for f in rules.evaluate(facts) if f.rule == "zfs-xattr-dir"]
    assert bool(found) == fires
    if found:
        assert found[0].changes[0].new == "sa"
        assert any(e.fact == "OpenZFS version" and e.value == version for e in found[0].evidence)


def _pooled(devices: list[str]):
    facts = nas()
    block = need(facts.block)
    for name in ("vdb", "vdc"):
        none = Scheduler(active="none", available=["none", "mq-deadline"])
        block.devices.append(
            BlockDevice(
                name=name,
                kind="disk",
                rotational=F(True),
                read_ahead_kb=F(128),
                scheduler=F(none),
                nr_requests=F(64),
                size_bytes=F(1 << 40),
                model=F("disk"),
                holders=[],
                slaves=[],
            )
        )
    vdev = Vdev(kind="raidz1", devices=devices, state="ONLINE")
    pool = Pool(name="tank", size=1, allocated=0, free=1, health="ONLINE", dedupratio="1.00x", vdevs=[vdev])
    need(facts.zfs).pools = F([pool])
    return facts


def test_a_pools_disks_get_no_read_ahead_or_scheduler_finding():
    """ZFS prefetches and queues its vdevs' I/O itself (and OpenZFS sets their scheduler to none);
    the same disks outside a pool still get both findings."""
    for rule in ("read-ahead-small", "block-scheduler"):
        inside = {f.target for f in rules.evaluate(_pooled(["/dev/vdb1", "/dev/vdc"])) if f.rule == rule}
        outside = {f.target for f in rules.evaluate(_pooled([])) if f.rule == rule}
        assert {"vdb", "vdc"} <= outside, rule
        assert not {"vdb", "vdc"} & inside, rule
