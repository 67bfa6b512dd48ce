from nastune.rules.model import Change, Evidence, Rule, Severity
from nastune.rules.query import cpu_count

QUEUED = 0.05  # share of requests that found no idle thread


def check(rule, facts):
    n = facts.nfs_server
    if not n.nfsd_threads.known or n.nfsd_threads.value == 0:
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
        ],
        changes=[Change(knob="nfsd_threads", target="nfsd", current=threads, new=new)],
    )


RULE = Rule(
    id="nfsd-threads-low",
    title="Too few kernel NFS server threads",
    area="nfs",
    severity=Severity.medium,
    check=check,
    needs=("nfs_server", "system"),
    gain="Requests are served in parallel instead of waiting in the socket queue; matters with many clients "
    "and slow disks, where each thread blocks on I/O.",
    tradeoff="Each thread costs a little memory; far too many threads contend on locks.",
    source="nfsd(8) (thread count); kernel nfsd pool_stats documentation",
)
