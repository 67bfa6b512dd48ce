"""zfs-dedup-ram: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, zfs

CASE = Case(
    lambda: zfs({"dedup": "on"}, used=1 << 40),
    lambda: zfs({"dedup": "on"}, used=100 << 30),
    lambda fs: changes(fs) == [("tank/vm", "dedup", "on", "off")] or fail(fs),
)
