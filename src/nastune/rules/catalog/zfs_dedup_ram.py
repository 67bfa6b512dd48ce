"""# zfs-dedup-ram: ZFS dedup without the RAM for its table

## Problem
Deduplication looks up every written block in the dedup table. When the table does not fit in RAM,
each lookup is a random disk read and write throughput collapses.

## Detection
A dataset with dedup on whose used space, at about 5 GB of RAM per TB, needs more than the
machine's RAM.

## Fix
`zfs_property` dedup=off (affects new writes).

## Trade-off
More space for new data.

## Source
"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013: plan about 5 GB of RAM per TB; at 410 GB deduplicated, a quarter of the 75% of RAM in use was
the dedup table.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import GiB, TiB, byte_count, human, present, ram
from nastune.sources import MINET_ZFS

RAM_PER_TB = 5 * GiB  # MiNET's 2013 benchmark: plan about 5 GB of RAM per TB of deduplicated data


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    zfs = present(facts.zfs)
    memory = ram(facts)
    for d in zfs.datasets.value or []:
        if d.properties.get("dedup", "off") in ("off", "-"):
            continue
        used = byte_count(d.properties.get("used"))
        if used is None:
            continue
        need = used / TiB * RAM_PER_TB
        if memory is not None and need > memory:
            yield rule.finding(
                target=d.name,
                impact=25,
                severity=Severity.high,
                message=f"Dataset {d.name} deduplicates {human(used)}: its table needs about {human(need)} of RAM, "
                f"more than the {human(memory)} installed, so lookups go to disk on every write.",
                evidence=[
                    Evidence(fact=f"{d.name} dedup", value=d.properties["dedup"], source=zfs.datasets.source),
                    Evidence(fact=f"{d.name} used", value=used, source=zfs.datasets.source),
                    Evidence.of("memory", system.memory_bytes),
                ],
                changes=[
                    Change(knob="zfs_property", target=d.name, key="dedup", current=d.properties["dedup"], new="off")
                ],
            )


RULE = Rule(
    id="zfs-dedup-ram",
    title="ZFS dedup without the RAM for its table",
    area="zfs",
    severity=Severity.high,
    check=check,
    needs=("zfs", "system"),
    gain="Writes stop waiting for dedup-table reads from disk; MiNET's 2013 benchmark found a "
    "quarter of its RAM used by the "
    "table at 410 GB deduplicated.",
    tradeoff="New writes are no longer deduplicated (existing blocks stay deduplicated): more space used.",
    source=f"{MINET_ZFS} (dedup: ~5 GB RAM per TB)",
)
