"""softnet-budget-squeeze: where it fires, where it stays quiet, and what its findings must say."""

from __future__ import annotations

from nastune.facts import Facts
from nastune.facts.network import Softnet
from tests.conftest import need
from tests.rules.kit import Case, F, changes, fail, nas, sysctl


def _squeezed(squeezes: int) -> Facts:
    """Two CPUs' counters since boot at the kernel's default budgets: the second cut `squeezes` polls short."""
    f = sysctl(nas(), net__core__netdev_budget=300, net__core__netdev_budget_usecs=2000)
    cpus = [
        Softnet(cpu=0, processed=90_000, dropped=0, time_squeeze=3),
        Softnet(cpu=1, processed=80_000, dropped=0, time_squeeze=squeezes),
    ]
    need(f.network).softnet = F(cpus, "/proc/net/softnet_stat")
    return f


CASE = Case(
    lambda: _squeezed(5120),
    lambda: _squeezed(40),  # 43 in all: an odd burst
    lambda fs: (
        (
            changes(fs)
            == [("net.core.netdev_budget", None, 300, 600), ("net.core.netdev_budget_usecs", None, 2000, 4000)]
            and "CPU 1: 5120" in fs[0].message
        )
        or fail(fs)
    ),
)
