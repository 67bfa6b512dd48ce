"""zfs-recordsize: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, zfs

CASE = Case(
    lambda: zfs({"recordsize": "131072"}),  # tank/vm: VM images in 128K records
    lambda: zfs({"recordsize": "65536"}),
    lambda fs: changes(fs) == [("tank/vm", "recordsize", "128K", "64K")] or fail(fs),
)
