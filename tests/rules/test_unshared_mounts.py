"""A data file system or ZFS dataset that holds no shared data (another disk, another lab's, a
boot pool) is not the NAS's to tune: the storage rules that act on one name only the shared ones,
those holding a shared directory or mounted below one."""

from __future__ import annotations

from nastune import rules
from nastune.facts.mounts import Mount, XfsFragmentation
from tests.conftest import need
from tests.rules.kit import F, nas, zfs

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


def test_a_mount_below_a_shared_directory_is_shared_too():
    facts = nas()
    need(need(facts.mounts).mounts.value).append(
        Mount(device="/dev/sdd1", mountpoint="/srv/data/photos", fstype="ext4", options=["rw"], pseudo=False)
    )
    assert _targets(facts, "mount-atime") == ["/srv/data", "/srv/data/photos"]


def test_only_the_datasets_that_hold_shared_data_get_zfs_findings():
    facts = zfs({"atime": "on", "compression": "off", "xattr": "on", "sync": "always"})
    datasets = need(need(facts.zfs).datasets.value)
    datasets.append(datasets[0].model_copy(update={"name": "boot-pool/ROOT/24.04"}))
    need(need(facts.mounts).mounts.value).append(
        Mount(device="boot-pool/ROOT/24.04", mountpoint="/usr", fstype="zfs", options=["rw"], pseudo=False)
    )
    for rule in ("zfs-atime", "zfs-compression-off", "zfs-xattr-dir", "zfs-sync-always"):
        assert _targets(facts, rule) == ["tank/vm"], rule
