"""# nfs-client-nconnect: NFS mount with one TCP connection on a fast link

## Problem
An NFS mount talks to its server over one TCP connection by default: one stream, one receive
queue of the NIC and one CPU's worth of RPC work. On a gigabit link that fills the link; at 10
Gbit/s and more it does not.

## Detection
An NFS client mount over TCP with `nconnect` 1 (mountstats), on a kernel 5.3 or later (which has
the option), where the machine's link runs at 10 Gbit/s or more.

## Fix
`nfs_client_mount` nconnect=4 in /etc/fstab; it takes effect at the next mount of that server.
A mount outside /etc/fstab gets advice.

## Trade-off
Every mount of one server shares its connections, so all of them change at the next mount.
Connections beyond the server's threads only queue.

## Source
nfs(5), nconnect. Microsoft, "Improve performance for NFS Azure file shares", nconnect, 2024,
https://learn.microsoft.com/azure/storage/files/nfs-performance.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import FAST_LINK, kernel_at_least, link_mbit, nfs_fstab, present

CONNECTIONS = 4  # Microsoft's measured sweet spot; the kernel allows up to 16


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    nfs_client = present(facts.nfs_client)
    mbit = link_mbit(facts)
    if mbit is None or mbit < FAST_LINK or not kernel_at_least(facts, 5, 3):
        return
    fstab = nfs_fstab(facts)
    for m in nfs_client.mounts.value or []:
        if m.nconnect > 1 or m.proto not in (None, "tcp"):
            continue
        entry = fstab.get(m.mountpoint)
        yield rule.finding(
            target=m.mountpoint,
            impact=20,
            message=f"{m.mountpoint} ({m.server}) uses one TCP connection on a {mbit} Mbit/s link: one connection "
            "is one stream, one receive queue and one CPU's worth of RPC work, short of the link.",
            evidence=[
                Evidence(fact=f"{m.mountpoint} nconnect", value=m.nconnect, source=nfs_client.mounts.source),
                Evidence(fact="link rate (Mbit/s)", value=mbit, source="/sys/class/net"),
            ],
            changes=[
                Change(knob="nfs_client_mount", target=m.mountpoint, key="nconnect", current=None, new=CONNECTIONS)
            ]
            if entry
            else [],
            advice=None
            if entry
            else f"{m.mountpoint} is mounted outside /etc/fstab: add nconnect={CONNECTIONS} where it is mounted.",
        )


RULE = Rule(
    id="nfs-client-nconnect",
    title="NFS mount with one TCP connection on a fast link",
    area="nfs",
    severity=Severity.medium,
    check=check,
    needs=("nfs_client", "network", "system"),
    clients=True,
    gain="Microsoft measured up to 2-4x the read and 3x the write throughput of one NFS client with nconnect=4; "
    "the connections spread over the NIC's queues and the CPUs.",
    tradeoff="Takes effect at a mount: apply mounts a mounted share again, but every mount of one server shares its "
    "connections, so all of them must be unmounted for the change to reach them. "
    "More connections than the server has threads for only queue.",
    source='nfs(5), nconnect (Linux 5.3+); Microsoft, "Improve performance for NFS Azure file shares: '
    'nconnect", 2024, https://learn.microsoft.com/azure/storage/files/nfs-performance',
)
