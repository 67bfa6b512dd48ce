"""nfs-client-obsolete-options: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from tests.conftest import need
from tests.rules.kit import Case, changes, client, fail


def _fstab_quiet():
    f = client()
    need(need(f.mounts).fstab.value)[1].options = ["rw", "hard", "rsize=1048576"]
    return f


CASE = Case(client, _fstab_quiet, lambda fs: changes(fs) == [("/mnt/data", "intr", "intr", None)] or fail(fs))
