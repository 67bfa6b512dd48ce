"""# mount-atime: data file system updates access times on every read

## Problem
With strict atime, every read of a file also writes its inode's access time, so a read-mostly
share generates a steady stream of metadata writes and log traffic.

## Detection
A local data file system (xfs, ext4, btrfs, ...) mounted with none of noatime, relatime or lazytime
(`/proc/mounts`; the kernel lists relatime when it is on), that holds shared data (a Samba share's
path or an NFS export lies on it, or it is mounted below one; every one when no share is known).

## Fix
`mount_option` noatime by remount, persisted in /etc/fstab (noatime implies nodiratime).

## Trade-off
Access times are no longer kept; relatime is the compromise if something depends on them.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 2.4.1 and "Tuning de performance NFS", WikiMiNET (MiNET's technical wiki), page sysadmin:tuning_nfs, 2014 (mount options noatime,nodiratime).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import served_mounts
from nastune.sources import GAZETTE, MINET_NFS


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    # the shared file systems: a disk the servers do not share is not the NAS's to tune
    for m in served_mounts(facts):
        if any(o in m.options for o in ("noatime", "relatime", "lazytime")):
            continue
        yield rule.finding(
            target=m.mountpoint,
            impact=6,
            message=f"{m.mountpoint} ({m.fstype}) updates the access time on every read: each read of a file "
            "becomes a metadata write too.",
            evidence=[Evidence(fact=f"{m.mountpoint} options", value=",".join(m.options), source="/proc/mounts")],
            changes=[
                Change(knob="mount_option", target=m.mountpoint, key="noatime", current="strictatime", new="noatime")
            ],
        )


RULE = Rule(
    id="mount-atime",
    title="Data file system updates access times on every read",
    area="storage",
    severity=Severity.medium,
    check=check,
    needs=("mounts",),
    gain="Reads stop causing writes; Borikar and Palani (2011) and MiNET (2014) both mount data "
    "shares noatime,nodiratime.",
    tradeoff="Access times are no longer recorded: tools that rely on them (some mail readers, tmpwatch-style "
    "cleanup, HSM) stop seeing reads.",
    source=f"{GAZETTE}, section 2.4.1; {MINET_NFS} (noatime,nodiratime)",
)
