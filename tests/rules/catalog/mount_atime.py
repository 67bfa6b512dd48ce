"""mount-atime: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, changes, fail, mount_options, nas

CASE = Case(
    nas,
    lambda: mount_options(nas(), "/srv/data", ["rw", "noatime"]),
    lambda fs: changes(fs) == [("/srv/data", "noatime", "strictatime", "noatime")] or fail(fs),
)
