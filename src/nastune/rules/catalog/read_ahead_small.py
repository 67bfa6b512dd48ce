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
