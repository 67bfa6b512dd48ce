"""zfs-compression-off: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, zfs

CASE = Case(
    lambda: zfs({"compression": "off"}),
    lambda: zfs({"compression": "lz4"}),
    lambda fs: changes(fs) == [("tank/vm", "compression", "off", "lz4")] or fail(fs),
)
