from nastune.rules.model import Change, Evidence, Rule, Severity
from nastune.rules.query import cpu_count, kernel_at_least

QUEUED = 0.05  # share of requests that found no idle thread


def _dynamic(facts) -> bool:
    """Linux 7.0 starts and stops threads with the load when a minimum is configured: the count
    read then is a moment's, not a limit."""
    conf = facts.nfs_server.nfsd_conf
    minimum = (conf.value or {}).get("min-threads") if conf is not None and conf.known else None
    return bool(minimum and minimum.strip() not in ("0", "")) and kernel_at_least(facts, 7, 0)


def _configured(facts) -> list[Evidence]:
    conf = facts.nfs_server.nfsd_conf
    if conf is None or not conf.known or conf.value is None:
        return []
    return [Evidence(fact="[nfsd] threads", value=conf.value.get("threads", "unset (8)"), source=conf.source)]


def check(rule, facts):
    n = facts.nfs_server
    if not n.nfsd_threads.known or n.nfsd_threads.value == 0 or _dynamic(facts):
        return
    threads = n.nfsd_threads.value
    pools = n.pool_stats.value if n.pool_stats.known else []
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
            *_configured(facts),
        ],
        changes=[Change(knob="nfsd_threads", target="nfsd", current=threads, new=new)],
        advice=f"To keep it across restarts of nfs-server, set threads={new} under [nfsd] in /etc/nfs.conf "
        "(on Linux 7.0 and later, min-threads there lets the kernel add threads itself under load).",
    )


RULE = Rule(
    id="nfsd-threads-low",
    title="Too few kernel NFS server threads",
    area="nfs",
    severity=Severity.medium,
    check=check,
    needs=("nfs_server", "system"),
    gain="Requests are served in parallel instead of waiting in the socket queue; matters with many clients "
    "and slow disks, where each thread blocks on I/O. The `th` line of /proc/net/rpc/nfsd cannot show it (it "
    "has read zeros since kernel 2.6.29): pool_stats' sockets-enqueued counts each request that found no "
    "idle thread.",
    tradeoff="Each thread costs a little memory; far too many threads contend on locks.",
    source='nfsd(8) and nfs.conf(5) ([nfsd] threads); Greg Banks, "Kernel NFS Server Statistics" '
    "(Documentation/filesystems/nfs/knfsd-stats.rst), 2009, https://docs.kernel.org/filesystems/nfs/"
    "knfsd-stats.html",
)
