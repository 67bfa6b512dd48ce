"""nfs-client-atime: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, client, fail, mount_options

CASE = Case(
    client,
    lambda: mount_options(client(), "/mnt/data", ["rw", "noatime", "vers=3"]),
    lambda fs: changes(fs) == [("/mnt/data", "noatime", "relatime", "noatime")] or fail(fs),
)
