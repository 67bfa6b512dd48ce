"""zfs-arc-max: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, base, changes, fail


def zfs_store(version: str | None = None) -> Facts:
    f = base("zfs-vm-store")
    arc = need(need(f.zfs).arc.value)
    arc.version = version or arc.version
    return f


CASE = Case(
    zfs_store,  # OpenZFS 2.1 on 8 GB: the ARC may hold half
    lambda: zfs_store("2.3.1-1"),  # 2.3 raised the default itself
    lambda fs: (
        changes(fs) == [("/sys/module/zfs/parameters/zfs_arc_max", None, 0, 8_345_600_000 - (1 << 30))] or fail(fs)
    ),
)
