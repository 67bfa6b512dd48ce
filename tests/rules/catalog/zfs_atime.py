"""zfs-atime: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, zfs

CASE = Case(
    lambda: zfs({"atime": "on"}),
    lambda: zfs({"atime": "off"}),
    lambda fs: changes(fs) == [("tank/vm", "atime", "on", "off")] or fail(fs),
)
