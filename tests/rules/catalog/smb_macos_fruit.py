"""smb-macos-fruit: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.rules.kit import Case, fail, nas, one, smb

CASE = Case(
    nas,  # the small NAS's Samba: shares, no vfs_fruit
    lambda: smb(nas(), "data", vfs_objects="catia fruit streams_xattr"),
    lambda fs: (not one(fs).changes and "vfs objects = catia fruit streams_xattr" in one(fs).advice) or fail(fs),
)
