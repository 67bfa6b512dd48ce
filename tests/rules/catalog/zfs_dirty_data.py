"""zfs-dirty-data: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from nastune.facts.write_course import WriteCourse
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, zfs

PARAMETER = "/sys/module/zfs/parameters/zfs_dirty_data_max"


def pool(dirty_max: int) -> Facts:
    """A dataset below the share whose pool sustained 25 MB/s after a burst at the link's rate."""
    f = zfs({})
    need(f.zfs).parameters = F({"zfs_dirty_data_max": dirty_max, "zfs_txg_timeout": 5}, "/sys/module/zfs/parameters")
    f.write_course = F(WriteCourse(where="sustained-write @ c1:/mnt/nfs", sustained_mbs=25.0, burst_mb=800.0,
                                   burst_mbs=110.0, worst_mbs=2.0, stalls=4))  # fmt: skip
    return f


CASE = Case(
    lambda: pool(1 << 30),  # 1 GiB: 43 s of the pool's writes
    lambda: pool(200 << 20),  # 8 s: within what it flushes smoothly
    lambda fs: changes(fs) == [(PARAMETER, None, 1 << 30, 125_000_000)] or fail(fs),
)
