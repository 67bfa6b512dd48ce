"""# xfs-external-log: XFS log on the data disks while a faster device exists

## Problem
XFS writes every metadata change to its log first. With an internal log on spinning disks, each
burst of metadata (many small files, NFS sync writes) costs seeks between the log and the data.

## Detection
An XFS data file system that holds shared data (a Samba share's path or an NFS export lies on it, or
it is mounted below one; every data file system when no share is known), whose `xfs_info` shows an
internal log, on a rotational device, while a non-rotational device exists in the machine.

## Fix
Advice: at the next rebuild, `mkfs.xfs -l logdev=/dev/FAST,size=64m` and mount with `logdev=`
(Borikar and Palani also size the log at 64 MiB).

## Trade-off
The file system cannot mount without its log device: put the log on a mirror.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, sections 2.3 and 2.7.2 (+28% with an external journal).
"""

import re
from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present, served_mounts
from nastune.sources import GAZETTE


def _base(device: str) -> str:
    """The whole-disk name of a partition device (/dev/sdb1 -> sdb, /dev/nvme0n1p2 -> nvme0n1)."""
    name = device.rsplit("/", 1)[-1]
    if name.startswith(("nvme", "mmcblk")):
        return re.sub(r"p\d+$", "", name)
    if name.startswith(("md", "loop", "dm-", "zd")):
        return name
    return name.rstrip("0123456789")


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    block = present(facts.block)
    mounts = present(facts.mounts)
    rotational = {d.name: d.rotational.value for d in block.devices if d.rotational.known}
    fast = sorted(n for n, rot in rotational.items() if rot is False and not n.startswith(("loop", "zram", "ram")))
    if not fast:
        return
    for m in served_mounts(facts):
        info = mounts.xfs.get(m.mountpoint)
        if m.fstype != "xfs" or info is None or info.known_value is None or info.known_value.log != "internal":
            continue
        if rotational.get(_base(m.device)) is not True:
            continue
        yield rule.finding(
            target=m.mountpoint,
            impact=15,
            message=f"XFS on {m.device} ({m.mountpoint}) keeps its log on the same rotational device as its data, "
            f"while non-rotational devices exist ({', '.join(fast)}): every metadata update seeks to the log.",
            evidence=[
                Evidence.of(f"{m.mountpoint} xfs_info", info),
                Evidence(fact="non-rotational devices", value=fast, source="/sys/block/*/queue/rotational"),
            ],
            advice="An external log is chosen at mkfs time (mkfs.xfs -l logdev=/dev/FAST,size=64m; mount with "
            "logdev=): plan it for the next rebuild of this file system, on a mirrored fast device.",
        )


RULE = Rule(
    id="xfs-external-log",
    title="XFS log on the data disks while a faster device exists",
    area="storage",
    severity=Severity.medium,
    check=check,
    needs=("mounts", "block"),
    path="write",
    gain="Borikar and Palani (2011) measured +28% with the log on a separate disk or flash (on a 99% "
    "fragmented file system).",
    tradeoff="The log device becomes a single point of failure for the file system: mirror it. It can only "
    "be added by re-creating the file system.",
    source=f"{GAZETTE}, sections 2.3 and 2.7.2 (external journal)",
)
