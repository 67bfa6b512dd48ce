"""nfs-client-rsize-small: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, changes, client, fail


def _rsize(size: int) -> Facts:
    f = client()
    m = need(need(f.nfs_client).mounts.value)[0]
    m.rsize = m.wsize = size
    return f


CASE = Case(
    client,
    lambda: _rsize(1048576),
    lambda fs: (
        changes(fs) == [("/mnt/data", "rsize", 8192, 1048576), ("/mnt/data", "wsize", 8192, 1048576)] or fail(fs)
    ),
)
