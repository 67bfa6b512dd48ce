"""nfs-client-read-ahead: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, changes, client, fail


def _client_read_ahead(kb: int) -> Facts:
    f = client()
    need(need(f.nfs_client).mounts.value)[0].read_ahead_kb = kb
    return f


CASE = Case(
    client,  # the kernel's 128 KiB
    lambda: _client_read_ahead(15360),
    lambda fs: changes(fs) == [("/mnt/data", None, 128, 15360)] or fail(fs),
)
