"""# zfs-recordsize: ZFS recordsize against what the dataset holds

## Problem
ZFS reads and writes whole records. Small random writes into 128K records (VM images, databases)
read, modify and rewrite a whole record each; big files in small records cost metadata and
compress worse.

## Detection
From the dataset's name and shares: a name with vm, images, disks, qemu or kvm and a recordsize
above 64K; a name with db, sql, postgres, mysql or maria and one above 16K; a dataset shared over
SMB or NFS (a share path at or under its mount point) with a recordsize below 128K.

## Fix
`zfs_property` recordsize 64K (VM images), 16K (databases), 1M (shared files).

## Trade-off
Only files written after the change use it. The name is a guess: measure the workload's real I/O
size.

## Source
OpenZFS documentation, "Workload Tuning",
https://openzfs.github.io/openzfs-docs/Performance%20and%20Tuning/Workload%20Tuning.html.
zfsprops(7), recordsize.
"""

import re
from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import KiB, byte_count, inside, present, served_paths

# What a dataset holds, read from its name: images of guests' disks and databases write in small
# blocks; a shared file tree is read and written in large sequential runs.
SMALL_IO = {"vm": (r"vm|virt|images?|disks?|qemu|kvm", 64), "database": (r"db|sql|postgres|mysql|maria", 16)}
SHARED = 1024  # KiB: recordsize=1M for large files read and written whole


def _holds(name: str) -> str | None:
    words = re.split(r"[/_.-]", name.lower())
    for kind, (pattern, _) in SMALL_IO.items():
        if any(re.fullmatch(pattern, w) for w in words):
            return kind
    return None


def _mountpoint(facts: Facts, dataset: str) -> str | None:
    mounts = facts.mounts.mounts.value if facts.mounts and facts.mounts.mounts.known else None
    return next((m.mountpoint for m in mounts or [] if m.fstype == "zfs" and m.device == dataset), None)


def _better(facts: Facts, name: str, kib: int) -> tuple[int, str] | None:
    """The recordsize this dataset's use asks for, and why; None when it already fits."""
    kind = _holds(name)
    if kind is not None:
        want = SMALL_IO[kind][1]
        return (want, f"its name says it holds {kind} files, written in small random blocks") if kib > want else None
    point = _mountpoint(facts, name)
    shared = point is not None and any(inside(p, point) for p in served_paths(facts))
    if shared and kib < 128:
        return SHARED, "it is shared over SMB or NFS, where files are read and written in large runs"
    return None


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    zfs = present(facts.zfs)
    for d in zfs.datasets.value or []:
        size = byte_count(d.properties.get("recordsize"))
        if size is None or size < 512:
            continue
        better = _better(facts, d.name, size // KiB)
        if better is None:
            continue
        want, why = better
        label = f"{want // 1024}M" if want >= 1024 else f"{want}K"
        yield rule.finding(
            target=d.name,
            impact=10,
            message=f"Dataset {d.name} has recordsize {size // KiB}K, but {why}: each I/O reads or rewrites a "
            f"record of the wrong size.",
            evidence=[Evidence(fact=f"{d.name} recordsize", value=size, source=zfs.datasets.source)],
            changes=[
                Change(knob="zfs_property", target=d.name, key="recordsize", current=f"{size // KiB}K", new=label)
            ],
            advice="A recordsize applies to files written after the change; copy existing files to rewrite them. "
            "The workload's own I/O size decides: measure it (`nastune bench`) before and after.",
        )


RULE = Rule(
    id="zfs-recordsize",
    title="ZFS recordsize against what the dataset holds",
    area="zfs",
    severity=Severity.low,
    check=check,
    needs=("zfs", "mounts"),
    gain="A record matched to the I/O size avoids read-modify-write of large records for small random writes "
    "(VM images, databases), and large records cut metadata and compress better for big files.",
    tradeoff="Only new writes use the new size. A guess from the dataset's name and shares: the workload's "
    "real I/O size is the measure.",
    source='OpenZFS documentation, "Workload Tuning" (recordsize; virtual machines; databases), '
    "https://openzfs.github.io/openzfs-docs/Performance%20and%20Tuning/Workload%20Tuning.html; zfsprops(7), "
    "recordsize",
)
