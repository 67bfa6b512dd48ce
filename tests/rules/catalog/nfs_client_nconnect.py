"""nfs-client-nconnect: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, client, fail, nic


def _fast_client(nconnect: int) -> Facts:
    f = client()
    nic(f, "enp3s0").speed_mbps = nic(f, "enp3s0").rate_mbps = F(10000)
    need(need(f.nfs_client).mounts.value)[0].nconnect = nconnect
    return f


CASE = Case(
    lambda: _fast_client(1),
    lambda: _fast_client(4),
    lambda fs: changes(fs) == [("/mnt/data", "nconnect", None, 4)] or fail(fs),
)
