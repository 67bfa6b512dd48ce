"""# md-chunk-size: RAID chunk size unsuited to the level and disk count

## Problem
The chunk is how much data md writes to one disk before moving to the next. A chunk under 64K
splits a large file request into many small per-disk requests, on any striped level. On parity
RAID (RAID4/5/6) a full stripe is the chunk times the data disks; when it is far larger than the
writes a file server issues, most writes are partial-stripe writes, for which md reads the old
data or parity back before it can write the new parity.

Borikar and Palani (2011) use 64K for mirrors, in a time when 64K was mdadm's default; mdadm's default has been 512K
since 3.1, which suits large files on mirrors and is not flagged.

## Detection
From `/proc/mdstat` (or sysfs): a RAID0, RAID10, RAID4/5/6 with chunks under 64K (low); a parity
array whose full stripe, chunk x (disks - parity disks), exceeds 4 MiB (info), e.g. a 12-disk
RAID6 at 512K: 5 MiB.

## Fix
Advice only: the chunk is chosen at creation; `mdadm --grow --chunk=` reshapes the array. For a
wide parity array, a large stripe cache (md-stripe-cache-small) merges partial stripes in memory;
at the next rebuild, a chunk that makes the full stripe 1-2 MiB suits write-heavy shares.

## Trade-off
A reshape runs for hours or days at reduced performance; a rebuild needs the data moved away.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, sections 2.1.1 (64K for mirrors) and 2.7 (results with --chunk=1024); md(4) (RAID5/6 read-modify-write,
stripe_cache_size); mdadm(8) (--chunk, default 512K).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import GAZETTE

MIN_CHUNK_KB = 64  # Borikar and Palani's chunk for mirrors, and the floor below which large requests split finely
PARITY = {"raid4": 1, "raid5": 1, "raid6": 2}
WIDE_STRIPE_KB = 4096  # a full stripe beyond this is rarely written whole: partial-stripe writes


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    """Advice per level and disk count: a chunk too small for any level splits requests into many
    per-disk pieces; on parity RAID a full stripe (chunk x data disks) far larger than the writes a
    file server issues makes most writes read-modify-write. mdadm's default (512K since mdadm 3.1)
    is not flagged on mirrors: Borikar and Palani's 64K for mirrors is a floor from the days of 64K defaults."""
    md = present(facts.md)
    for a in md.arrays:
        chunk = a.chunk_kb or ((a.sysfs_int("chunk_size") or 0) // 1024)
        disks = a.raid_disks or a.sysfs_int("raid_disks")
        evidence = [
            Evidence(fact=f"{a.name} chunk (KiB)", value=chunk, source="/proc/mdstat"),
            Evidence(fact=f"{a.name} disks", value=disks, source="/proc/mdstat"),
        ]
        if not chunk or a.level not in ("raid0", "raid10", *PARITY):
            continue
        if chunk < MIN_CHUNK_KB:
            yield rule.finding(
                target=a.name,
                impact=3,
                message=f"{a.name} is a {a.level} with {chunk}K chunks: a large file request is split into many "
                f"small per-disk requests (Borikar and Palani used 64K for mirrors and 1024K for their RAID5 results).",
                evidence=evidence,
                advice=f"Reshape to at least {MIN_CHUNK_KB}K with `mdadm --grow --chunk=` (a long reshape), or "
                "choose it at the next rebuild; measure first with the bench.",
            )
        elif a.level in PARITY and disks and chunk * (disks - PARITY[a.level]) > WIDE_STRIPE_KB:
            data = disks - PARITY[a.level]
            stripe, suited = chunk * data, max(MIN_CHUNK_KB, 1 << ((2048 // data).bit_length() - 1))
            yield rule.finding(
                target=a.name,
                impact=2,
                severity=Severity.info,
                message=f"{a.name} is a {disks}-disk {a.level} with {chunk}K chunks: a full stripe is "
                f"{stripe // 1024} MiB, far more than the writes a file server issues (NFS and SMB send at "
                "most 1-8 MiB), so most writes read the old stripe back to update its parity.",
                evidence=evidence,
                advice="Keep the stripe cache large (md-stripe-cache-small) so partial stripes are merged in "
                f"memory; at the next rebuild, a chunk that makes the full stripe 1-2 MiB (here "
                f"{suited}K, a power of two as mdadm needs) suits write-heavy shares.",
            )


RULE = Rule(
    id="md-chunk-size",
    title="RAID chunk size unsuited to the level and disk count",
    area="storage",
    severity=Severity.low,
    check=check,
    needs=("md",),
    gain="Requests map onto whole chunks of each disk, and parity writes onto whole stripes more often.",
    tradeoff="Changing the chunk size means a reshape (hours to days, with reduced performance) or a rebuild.",
    source=f"{GAZETTE}, sections 2.1.1 and 2.7 (chunk size); md(4) (RAID5/6 read-modify-write, stripe "
    "cache); mdadm(8) (--chunk)",
)
