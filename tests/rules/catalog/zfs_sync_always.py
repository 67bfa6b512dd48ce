"""zfs-sync-always: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, one, zfs

CASE = Case(
    lambda: zfs({"sync": "always"}),
    lambda: zfs({"sync": "standard"}),
    lambda fs: one(fs).changes[0].durability_risk and changes(fs) == [("tank/vm", "sync", "always", "standard")],
)
