"""# md-stripe-cache-small: RAID5/6 stripe cache at its small default

## Problem
md RAID4/5/6 computes parity per stripe. With the default stripe cache of 256 entries, writes that
arrive in pieces cannot be gathered into full stripes, so md reads old data and parity back
(read-modify-write) and the disks seek far more.

## Detection
A raid4/5/6 array whose `/sys/block/mdX/md/stripe_cache_size` is below 8192.

## Fix
`sysfs` stripe_cache_size 8192, halved until its memory (4 KiB x disks x entries) fits in 1/16 of
RAM, so a small box is not starved.

## Trade-off
The memory above, permanently. Not kept across reboots unless persisted (udev rule or unit).

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, sections 2.1.2 and 2.7: stripe_cache_size 8192 for RAID5 instead of the default 256.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import human, present, ram
from nastune.sources import GAZETTE

RECOMMENDED = 8192  # Borikar and Palani (2011): 8192 for RAID5 (kernel default 256)
PAGE = 4096


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    md = present(facts.md)
    memory = ram(facts) or 0
    for a in md.arrays:
        size = a.sysfs_int("stripe_cache_size")
        disks = a.raid_disks or a.sysfs_int("raid_disks") or len(a.members)
        if a.level not in ("raid4", "raid5", "raid6") or size is None or size >= RECOMMENDED:
            continue
        new = RECOMMENDED
        while new > size and new * PAGE * disks > memory // 16:
            new //= 2  # a cache over 1/16 of RAM starves everything else on a small box
        if new <= size:
            continue
        yield rule.finding(
            target=a.name,
            impact=25,
            severity=Severity.high,
            message=f"{a.name} ({a.level}, {disks} disks) has stripe_cache_size {size}: partial-stripe writes must "
            "read back data and parity far more often.",
            evidence=[
                Evidence.of(f"{a.name} stripe_cache_size", a.sysfs["stripe_cache_size"]),
                Evidence(fact=f"{a.name} disks", value=disks, source="/proc/mdstat"),
            ],
            changes=[Change(knob="sysfs", target=f"/sys/block/{a.name}/md/stripe_cache_size", current=size, new=new)],
            tradeoff=f"The cache costs page size x disks x entries of RAM: {human(new * PAGE * disks)} at {new} "
            f"(was {human(size * PAGE * disks)}); it is not kept across reboots unless persisted.",
        )


RULE = Rule(
    id="md-stripe-cache-small",
    title="RAID5/6 stripe cache at its small default",
    area="storage",
    severity=Severity.high,
    check=check,
    needs=("md", "system"),
    gain="Sequential writes to RAID5/6 assemble full stripes in memory instead of read-modify-write; "
    "Borikar and Palani (2011) used 8192 in their +133% CIFS write result.",
    tradeoff="RAM: page size x number of disks x stripe_cache_size.",
    source=f"{GAZETTE}, sections 2.1.2 and 2.7 (stripe_cache_size 8192 for RAID5; default 256)",
)
