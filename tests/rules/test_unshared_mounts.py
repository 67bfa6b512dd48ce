"""A data file system that no share holds (another disk, another lab's) is not the NAS's to
tune: the storage rules that act on a mount name only the shared ones."""

from __future__ import annotations

from nastune import rules
from nastune.facts.mounts import Mount, XfsFragmentation
from tests.conftest import need
from tests.rules.kit import F, nas

FRAGMENTED = XfsFragmentation(actual=99813, ideal=1008, percent=99.0, extents_per_file=99.0, method="frozen")


def _with_unshared(shared_too: bool):
    facts = nas()
    mounts = need(facts.mounts)
    need(mounts.mounts.value).append(
        Mount(device="/dev/md0", mountpoint="/mnt/scratch", fstype="xfs", options=["rw"], pseudo=False)
    )
    mounts.xfs["/mnt/scratch"] = mounts.xfs["/srv/data"]  # the same rotational array, its log inside
    for at in ["/mnt/scratch", *(["/srv/data"] if shared_too else [])]:
        mounts.fragmentation[at] = F(FRAGMENTED)
    return facts


def _targets(facts, rule: str) -> list[str]:
    return sorted(f.target for f in rules.evaluate(facts) if f.rule == rule)


def test_an_unshared_mount_gets_no_atime_log_or_defragmentation_finding():
    facts = _with_unshared(shared_too=True)
    for rule in ("mount-atime", "xfs-external-log", "xfs-fragmentation"):
        assert _targets(facts, rule) == ["/srv/data"], rule


def test_only_an_unshared_mount_fragmented_is_quiet():
    assert _targets(_with_unshared(shared_too=False), "xfs-fragmentation") == []
