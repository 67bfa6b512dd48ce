"""# nfs-client-atime: NFS client mount without noatime

## Problem
Access-time updates on an NFS mount add attribute work on every read, for the client and the
server, on workloads that never look at access times.

## Detection
An nfs or nfs4 entry in /proc/mounts without noatime, or an NFS entry of /etc/fstab, not mounted
now, without it (it applies at the next mount). A mount with no fstab entry gets advice, since the
change is made in fstab.

## Fix
`nfs_client_mount` noatime (implies nodiratime), by remount and in /etc/fstab.

## Trade-off
Reads through this client no longer update access times.

## Source
"Tuning de performance NFS", WikiMiNET (MiNET's technical wiki), page sysadmin:tuning_nfs, 2014 (client mount options noatime,nodiratime).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import nfs_fstab, present
from nastune.sources import MINET_NFS


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    """Live NFS mounts and the fstab entries that apply at the next mount; a live mount outside
    fstab gets advice, as the change is made in fstab."""
    mounts = present(facts.mounts)
    fstab = nfs_fstab(facts)
    live = {m.mountpoint: m for m in mounts.mounts.value or [] if m.fstype in ("nfs", "nfs4")}
    for mountpoint in [*live, *(f for f in fstab if f not in live)]:
        m, entry = live.get(mountpoint), fstab.get(mountpoint)
        options = m.options if m else entry.options if entry else []
        if "noatime" in options:
            continue
        line = entry.line if entry else 0
        source = "/proc/mounts" if m else f"/etc/fstab:{line}"
        when = "keeps" if m else f"(/etc/fstab line {line}) will keep"
        yield rule.finding(
            target=mountpoint,
            impact=3,
            message=f"NFS mount {mountpoint} {when} access-time updates on: reads of files and directories "
            "can cause attribute traffic to the server.",
            evidence=[Evidence(fact=f"{mountpoint} options", value=",".join(options), source=source)],
            changes=[
                Change(
                    knob="nfs_client_mount",
                    target=mountpoint,
                    key="noatime",
                    current="relatime" if "relatime" in options else "atime",
                    new="noatime",
                )
            ]
            if entry
            else [],
            advice=None
            if entry
            else f"{mountpoint} is mounted outside /etc/fstab, where nastune does not edit: add noatime where "
            "it is mounted.",
        )


RULE = Rule(
    id="nfs-client-atime",
    title="NFS client mount without noatime",
    area="nfs",
    severity=Severity.low,
    check=check,
    needs=("mounts",),
    clients=True,
    gain="MiNET (2014) mounts its NFS shares noatime,nodiratime to avoid access-time traffic.",
    tradeoff="Access times seen through this client are not updated by its reads.",
    source=f"{MINET_NFS} (NFS client mount options)",
)
