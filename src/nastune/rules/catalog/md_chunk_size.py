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
