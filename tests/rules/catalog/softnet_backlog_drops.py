"""softnet-backlog-drops: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from nastune.facts.network import Softnet
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas, sysctl


def _dropped(dropped: int, backlog: int = 1000) -> Facts:
    """Two CPUs' counters since boot: the second dropped `dropped` frames at a full backlog."""
    f = sysctl(nas(), net__core__netdev_max_backlog=backlog)
    cpus = [
        Softnet(cpu=0, processed=90_000, dropped=0, time_squeeze=3),
        Softnet(cpu=1, processed=80_000, dropped=dropped, time_squeeze=0),
    ]
    need(f.network).softnet = F(cpus, "/proc/net/softnet_stat")
    return f


CASE = Case(
    lambda: _dropped(471),
    lambda: _dropped(0),
    lambda fs: (
        (changes(fs) == [("net.core.netdev_max_backlog", None, 1000, 2000)] and "CPU 1: 471" in fs[0].message)
        or fail(fs)
    ),
)
