"""nfs-client-noac: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, changes, client, fail


def fstab(*options: str) -> Facts:
    f = client()
    need(need(f.mounts).fstab.value)[1].options = ["rw", "hard", *options]
    return f


CASE = Case(
    lambda: fstab("noac", "actimeo=0"),
    lambda: fstab("actimeo=1"),
    lambda fs: changes(fs) == [("/mnt/data", "noac", "noac", None), ("/mnt/data", "actimeo", "0", None)] or fail(fs),
)
