"""# zfs-pool-degraded: ZFS pool degraded, faulted or unavailable

## Problem
A pool whose health is not ONLINE has lost a device (DEGRADED: its data still readable, with less
redundancy than it was built with, or none), or more than its redundancy can carry (FAULTED,
UNAVAIL, SUSPENDED). Its data is one failure from being lost, and what is measured on it
meanwhile is the pool rebuilding missing blocks, not its speed.

## Detection
`zpool list -o health` not ONLINE; `zpool status -P -L` names the vdevs not online. Data at risk
comes before every speed finding (critical).

## Fix
Advice: `zpool status -v POOL`, then `zpool replace` a failed disk (or `zpool online` one back
after a cable fault) and let the resilver finish before tuning or benchmarking.

## Trade-off
A resilver takes disk time from clients until it ends.

## Source
"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013
(a resilver costs 15% CPU, 700 MB RAM, ~12 MB/s per disk); OpenZFS documentation, zpool-status(8)
and zpool-replace(8), https://openzfs.github.io/openzfs-docs/man/master/8/zpool-status.8.html.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.zfs import Pool
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import MINET_ZFS

HEALTHY = "ONLINE"


def _unwell(pool: Pool) -> list[str]:
    """Each vdev (and each of its devices zpool status named) that is not ONLINE, with its state."""
    return [f"{v.role} {v.kind} {v.state}" for v in pool.vdevs if v.state and v.state != HEALTHY]


def _evidence(pool: Pool, unwell: list[str], source: str) -> list[Evidence]:
    found = [Evidence(fact=f"{pool.name} health", value=pool.health, source=source)]
    if unwell:
        found.append(Evidence(fact=f"{pool.name} vdevs not online", value="; ".join(unwell), source="zpool status"))
    return found


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    zfs = present(facts.zfs)
    for pool in zfs.pools.value or []:
        if pool.health == HEALTHY:
            continue
        unwell = _unwell(pool)
        yield rule.finding(
            target=pool.name,
            impact=40,
            severity=Severity.critical,
            message=f"Pool {pool.name} is {pool.health}: its data has less redundancy than it was built with, or "
            "none, and every read of a missing device is rebuilt from the others; measurements now understate "
            "the pool.",
            evidence=_evidence(pool, unwell, zfs.pools.source),
            advice=f"`zpool status -v {pool.name}` names the device and what happened to it: replace a failed "
            f"disk with `zpool replace {pool.name} OLD NEW` and let the resilver finish before tuning or "
            "benchmarking; a device back after a cable fault returns with `zpool online`, and `zpool clear` "
            "once its errors are understood.",
        )


RULE = Rule(
    id="zfs-pool-degraded",
    title="ZFS pool degraded, faulted or unavailable",
    area="zfs",
    severity=Severity.critical,
    check=check,
    needs=("zfs",),
    gain="Knowing it first: a pool without its redundancy is one failure from losing data, and its speed "
    "during a resilver is not its own (MiNET's 2013 benchmark: a resilver costs 15% CPU, 700 MB RAM and "
    "~12 MB/s per disk).",
    tradeoff="None to the finding; a resilver takes disk time from clients until it ends.",
    source=f'{MINET_ZFS} (resilver costs); OpenZFS documentation, "zpool-status.8" (health states) and '
    '"zpool-replace.8", https://openzfs.github.io/openzfs-docs/man/master/8/zpool-status.8.html',
)
