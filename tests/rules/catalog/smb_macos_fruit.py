"""smb-macos-fruit: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from nastune.facts.shares import ShareLook
from tests.conftest import need
from tests.rules.kit import Case, fail, nas, one, smb


def macs_write(facts: Facts) -> Facts:
    """The small NAS's [data] share, with the ._ files and .DS_Store a Mac leaves."""
    need(facts.smb).looks["data"] = ShareLook(path="/srv/data", looked=3, mac=12, largest="/srv/data", entries=40)
    return facts


CASE = Case(
    lambda: macs_write(nas()),  # no vfs_fruit anywhere
    lambda: smb(macs_write(nas()), "data", vfs_objects="catia fruit streams_xattr"),
    lambda fs: (
        (
            not one(fs).changes
            and "vfs objects = catia fruit streams_xattr" in one(fs).advice
            and any(e.value.startswith("12 ") for e in one(fs).evidence)
        )
        or fail(fs)
    ),
)
