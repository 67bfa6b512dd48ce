"""zfs-sync-always: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.tune.knobs import risks
from tests.rules.kit import Case, changes, one, zfs

CASE = Case(
    lambda: zfs({"sync": "always"}),
    lambda: zfs({"sync": "standard"}),
    lambda fs: (
        risks(one(fs).changes[0]) == ["durability"] and changes(fs) == [("tank/vm", "sync", "always", "standard")]
    ),
)
