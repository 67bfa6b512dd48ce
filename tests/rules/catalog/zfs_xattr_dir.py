"""zfs-xattr-dir: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, zfs

CASE = Case(
    lambda: zfs({"xattr": "on"}),
    lambda: zfs({"xattr": "sa"}),
    lambda fs: changes(fs) == [("tank/vm", "xattr", "on", "sa")] or fail(fs),
)
