"""# nfsd-threads-low: too few kernel NFS server threads

## Problem
Each nfsd thread serves one request at a time and blocks while the disk works. When all threads
are busy, new requests wait in the socket queue, and latency grows with the number of clients.

## Detection
`/proc/fs/nfsd/pool_stats`: sockets-enqueued (requests that found no idle thread) is 5% or more of
packets-arrived. (The `th` line of /proc/net/rpc/nfsd has read zeros since kernel 2.6.29.) The
`threads` of `[nfsd]` in /etc/nfs.conf is shown beside it. On Linux 7.0 and later with
`min-threads` set the kernel starts threads itself under load: no finding then.

## Fix
`nfsd_threads` to twice the current count, at least 8 per CPU, at most 256 (`threads` under
`[nfsd]` in /etc/nfs.conf to keep it).

## Trade-off
Memory per thread; lock contention with very many.

## Source
nfsd(8) and nfs.conf(5). Greg Banks, "Kernel NFS Server Statistics"
(Documentation/filesystems/nfs/knfsd-stats.rst), 2009,
https://docs.kernel.org/filesystems/nfs/knfsd-stats.html.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.nfs_server import NfsServerFacts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import cpu_count, kernel_at_least, present

QUEUED = 0.05  # share of requests that found no idle thread


def _dynamic(facts: Facts, n: NfsServerFacts) -> bool:
    """Linux 7.0 starts and stops threads with the load when a minimum is configured: the count
    read then is a moment's, not a limit."""
    conf = n.nfsd_conf.known_value if n.nfsd_conf is not None else None
    minimum = (conf or {}).get("min-threads")
    return bool(minimum and minimum.strip() not in ("0", "")) and kernel_at_least(facts, 7, 0)


def _configured(n: NfsServerFacts) -> list[Evidence]:
    conf = n.nfsd_conf
    if conf is None or not conf.known or conf.value is None:
        return []
    return [Evidence(fact="[nfsd] threads", value=conf.value.get("threads", "unset (8)"), source=conf.source)]


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    n = present(facts.nfs_server)
    threads = n.nfsd_threads.known_value
    if not threads or _dynamic(facts, n):
        return
    pools = n.pool_stats.known_value or []
    arrived = sum(p.packets_arrived for p in pools)
    queued = sum(p.sockets_enqueued for p in pools)
    if arrived == 0 or queued / arrived < QUEUED:
        return
    new = min(256, max(threads * 2, 8 * (cpu_count(facts) or 1)))
    yield rule.finding(
        target="nfsd",
        impact=15,
        message=f"{queued / arrived:.0%} of NFS requests waited for a free nfsd thread ({threads} threads): "
        "clients queue behind busy threads.",
        evidence=[
            Evidence.of("nfsd threads", n.nfsd_threads),
            Evidence(
                fact="packets arrived / sockets enqueued", value=f"{arrived} / {queued}", source=n.pool_stats.source
            ),
            *_configured(n),
        ],
        changes=[Change(knob="nfsd_threads", target="nfsd", current=threads, new=new)],
        advice=f"A restart of nfs-server reads /etc/nfs.conf again: `nastune persist` (or apply --persist) writes "
        f"threads={new} under [nfsd] there (on Linux 7.0 and later, min-threads there lets the kernel add "
        "threads itself under load).",
    )


RULE = Rule(
    id="nfsd-threads-low",
    title="Too few kernel NFS server threads",
    area="nfs",
    severity=Severity.medium,
    check=check,
    needs=("nfs_server", "system"),
    protocol="nfs",
    gain="Requests are served in parallel instead of waiting in the socket queue; matters with many clients "
    "and slow disks, where each thread blocks on I/O. The `th` line of /proc/net/rpc/nfsd cannot show it (it "
    "has read zeros since kernel 2.6.29): pool_stats' sockets-enqueued counts each request that found no "
    "idle thread.",
    tradeoff="Each thread costs a little memory; far too many threads contend on locks.",
    source='nfsd(8) and nfs.conf(5) ([nfsd] threads); Greg Banks, "Kernel NFS Server Statistics" '
    "(Documentation/filesystems/nfs/knfsd-stats.rst), 2009, https://docs.kernel.org/filesystems/nfs/"
    "knfsd-stats.html",
)
