"""# nfs-client-read-ahead: NFS client read-ahead at the kernel's small default

## Problem
Before kernel 5.4 an NFS mount read ahead 15 times its rsize; since then 128 KiB. A large
sequential read then waits for the server every few RPCs instead of streaming.

## Detection
The mount's backing device (its MAJ:MIN in /proc/self/mountinfo) has `read_ahead_kb` below 1024 in
/sys/class/bdi.

## Fix
`mount_read_ahead` of the mount point = 15360 (15 MiB, Microsoft's recommendation), written to
the bdi the mount has when it is applied (each mount gets a new one, so it is found anew, after
any fstab option that mounts the share again). It lasts until the share is mounted again, so
`apply --persist` does not replay it; a udev rule keeps it for later mounts (advice).

## Trade-off
More memory in read-ahead pages and wasted reads for random access.

## Source
Microsoft, "Improve performance for NFS Azure file shares", increase read-ahead size, 2024,
https://learn.microsoft.com/azure/storage/files/nfs-performance.
Documentation/ABI/testing/sysfs-class-bdi (read_ahead_kb), kernel.org.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

SMALL = 1024  # KiB; the NFS client's default has been 128 since kernel 5.4
RECOMMENDED = 15360  # KiB: Microsoft's recommendation, 15 MiB


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    nfs_client = present(facts.nfs_client)
    for m in nfs_client.mounts.value or []:
        if m.read_ahead_kb is None or m.read_ahead_kb >= SMALL:
            continue
        yield rule.finding(
            target=m.mountpoint,
            impact=15,
            message=f"{m.mountpoint} reads ahead {m.read_ahead_kb} KiB: a sequential read waits for the server "
            "every few RPCs instead of streaming.",
            evidence=[
                Evidence(
                    fact=f"{m.mountpoint} read_ahead_kb",
                    value=m.read_ahead_kb,
                    source=f"/sys/class/bdi/{m.bdi}/read_ahead_kb",
                )
            ],
            changes=[Change(knob="mount_read_ahead", target=m.mountpoint, current=m.read_ahead_kb, new=RECOMMENDED)],
            advice="The change lasts until the share is mounted again (each mount gets a new bdi); to keep it for "
            f'later mounts, a udev rule on SUBSYSTEM=="bdi" that sets ATTR{{read_ahead_kb}}="{RECOMMENDED}" '
            "for the bdis /proc/fs/nfsfs/volumes lists (Microsoft's guide in the source shows one).",
        )


RULE = Rule(
    id="nfs-client-read-ahead",
    title="NFS client read-ahead at the kernel's small default",
    area="nfs",
    severity=Severity.medium,
    check=check,
    needs=("nfs_client",),
    clients=True,
    path="read",
    moves="data",
    gain="Since kernel 5.4 an NFS mount reads ahead 128 KiB instead of 15 times its rsize; Microsoft recommends "
    "15 MiB for sequential reads of large files.",
    tradeoff="More memory held by read-ahead pages, and wasted reads for random access.",
    source='Microsoft, "Improve performance for NFS Azure file shares: increase read-ahead size", 2024, '
    "https://learn.microsoft.com/azure/storage/files/nfs-performance; Documentation/ABI/testing/sysfs-class-bdi "
    "(read_ahead_kb), kernel.org",
)
