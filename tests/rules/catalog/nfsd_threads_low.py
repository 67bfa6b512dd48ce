"""nfsd-threads-low: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas


def _pool(arrived: int, enqueued: int) -> Facts:
    from nastune.facts.nfs_server import PoolStats

    f = nas()
    need(f.nfs_server).pool_stats = F(
        [
            PoolStats(
                pool=0,
                packets_arrived=arrived,
                sockets_enqueued=enqueued,
                threads_woken=arrived - enqueued,
                threads_timedout=0,
            )
        ]
    )
    return f


CASE = Case(nas, lambda: _pool(1000, 10), lambda fs: changes(fs) == [("nfsd", None, 8, 32)] or fail(fs))
