"""# xfs-fragmentation: fragmented XFS file system

## Problem
A file system written by many slow concurrent writers (a NAS after months of use) scatters files
over many extents; reading such a file sequentially costs a seek per extent.

## Detection
Only when measured (`inspect --xfs-fragmentation`: the extents of a sample of files; or
`--xfs-fragmentation-exact`: `xfs_db -r -c frag` on a frozen file system): a fragmentation factor of
20% or more, on a file system that holds shared data (a Samba share's path or an NFS export lies on
it, or it is mounted below one; every data file system when no share is known).

## Fix
`xfs_fsr` on the mount point (an action, with progress, not a setting).

## Trade-off
Hours of read-and-rewrite load; run it off-hours.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, sections 2.6 and 2.7: 99% vs 5% fragmentation -37%; xfs_fsr on the 99% case +37%.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, served_mounts
from nastune.sources import GAZETTE

THRESHOLD = 20.0  # percent


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    mounts = present(facts.mounts)
    served = {m.mountpoint for m in served_mounts(facts)}
    for mountpoint, frag in mounts.fragmentation.items():
        f = frag.known_value
        if f is None or f.percent < THRESHOLD or mountpoint not in served:
            continue
        yield rule.finding(
            target=mountpoint,
            impact=30 if f.percent > 90 else 15,
            severity=Severity.high if f.percent > 90 else Severity.medium,
            message=f"XFS at {mountpoint} is {f.percent:.1f}% fragmented ({f.actual} extents where "
            f"{f.ideal} would do: {f.actual / max(f.ideal, 1):.0f} per file): sequential "
            "reads of fragmented files seek between extents.",
            evidence=[Evidence.of(f"{mountpoint} fragmentation", frag)],
            changes=[Change(knob="xfs_fsr", target=mountpoint, current=f"{f.percent:.1f}%", new="defragmented")],
        )


RULE = Rule(
    id="xfs-fragmentation",
    title="Fragmented XFS file system",
    area="storage",
    severity=Severity.medium,
    check=check,
    needs=("mounts",),
    path="read",
    moves="data",
    gain="Borikar and Palani (2011): a 99% fragmented file system was 37% slower than a 5% one "
    "(bonnie++), and xfs_fsr on it gained +37%.",
    tradeoff="xfs_fsr reads and rewrites fragmented files: hours of disk load; run it off-hours. Files open "
    "for writing are skipped.",
    source=f"{GAZETTE}, sections 2.6 and 2.7 (fragmentation, xfs_fsr)",
)
