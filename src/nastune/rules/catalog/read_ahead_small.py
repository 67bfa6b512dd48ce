"""# read-ahead-small: small read-ahead on rotational storage

## Problem
With a small read-ahead, a sequential reader's requests reach a spinning disk (or an array of
them) in small pieces, and other clients' requests slip in between, so the heads seek back and
forth.

## Detection
A rotational disk or md array with `read_ahead_kb` under 1024; disks that belong to an array
(they have holders) are left out, since reads go through the array's read-ahead.
A disk a ZFS pool is made of is left out: ZFS prefetches for its pool itself.

## Fix
`sysfs` read_ahead_kb 4096, or two full stripes (chunk x disks x 2) for an md array when larger.

## Trade-off
Random small reads pull in data that is never used.

## Source
Kernel Documentation/block/queue-sysfs (read_ahead_kb); md stripe geometry.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, zfs_devices

MINIMUM_KB = 1024
RECOMMENDED_KB = 4096


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    block = present(facts.block)
    pooled = zfs_devices(facts)  # ZFS schedules and prefetches its disks' I/O itself
    for d in block.devices:
        if d.name in pooled:
            continue
        read_ahead = d.read_ahead_kb.known_value
        if d.kind not in ("disk", "md") or not d.rotational.known or read_ahead is None:
            continue
        if not d.rotational.value or read_ahead >= MINIMUM_KB or d.holders:
            continue  # a RAID member's read-ahead is the array's business
        target = RECOMMENDED_KB
        if d.kind == "md" and facts.md is not None:
            array = next((a for a in facts.md.arrays if a.name == d.name), None)
            if array and array.chunk_kb and array.raid_disks:
                target = max(target, 2 * array.chunk_kb * array.raid_disks)  # two full stripes
        yield rule.finding(
            target=d.name,
            impact=5,
            message=f"{d.name} is rotational with read-ahead {d.read_ahead_kb.value} KiB: large sequential reads "
            "arrive in small requests with a seek between them.",
            evidence=[Evidence.of(f"{d.name} read_ahead_kb", d.read_ahead_kb)],
            changes=[
                Change(
                    knob="sysfs",
                    target=f"/sys/block/{d.name}/queue/read_ahead_kb",
                    current=d.read_ahead_kb.value,
                    new=target,
                )
            ],
        )


RULE = Rule(
    id="read-ahead-small",
    title="Small read-ahead on rotational storage",
    area="storage",
    severity=Severity.low,
    check=check,
    needs=("block",),
    path="read",
    moves="data",
    gain="Large sequential reads (the 1 GB file copies of Borikar and Palani (2011) and MiNET "
    "(2014)) stream from the platters.",
    tradeoff="Random small reads fetch data nobody asked for: more disk time and page cache per request.",
    source="kernel block queue-sysfs (read_ahead_kb); md(4) stripe geometry",
)
