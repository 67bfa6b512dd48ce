"""# zfs-arc-max: ZFS ARC capped at half of memory

## Problem
Before OpenZFS 2.3 the ARC on Linux could grow to half of memory only. ZFS reads through the ARC,
not the page cache, so on a machine that serves files the other half mostly sits idle while
files that would fit are read from disk again.

## Detection
`zfs_arc_max` is 0 (the default), the module's version (/sys/module/zfs/version) is older than
2.3 or unknown, and the ARC's `c_max` (arcstats) is at most about half of memory.

## Fix
`sysfs` /sys/module/zfs/parameters/zfs_arc_max = the larger of memory less 1 GiB and 5/8 of
memory (OpenZFS 2.3's own default); `options zfs zfs_arc_max=N` in /etc/modprobe.d keeps it.

## Trade-off
Less room for VMs and containers on the same machine; the ARC shrinks under pressure, not at once.

## Source
"arc_default_max on Linux should match FreeBSD", openzfs/zfs pull request #15437, 2023,
https://github.com/openzfs/zfs/pull/15437. OpenZFS documentation, "Module Parameters",
zfs_arc_max.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import GiB, human, present, ram, zfs_at_least

HALF = 0.55  # an ARC ceiling at about half of memory: the Linux default before OpenZFS 2.3


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    zfs = present(facts.zfs)
    arc, memory = zfs.arc.value if zfs.arc.known else None, ram(facts)
    if arc is None or memory is None or arc.max_param not in (0, None) or zfs_at_least(facts, 2, 3):
        return
    if arc.c_max > memory * HALF:
        return
    new = int(max(memory - GiB, memory * 5 / 8))
    yield rule.finding(
        target="zfs_arc_max",
        impact=10,
        message=f"The ARC may use at most {human(arc.c_max)} of {human(memory)}: OpenZFS before 2.3 leaves half "
        "of memory to a page cache that ZFS does not use, so files that would fit are read from disk again.",
        evidence=[
            Evidence(fact="ARC c_max", value=arc.c_max, source=zfs.arc.source),
            Evidence(fact="zfs_arc_max (0: the default)", value=arc.max_param, source="/sys/module/zfs/parameters"),
            Evidence(fact="OpenZFS version", value=arc.version or "unknown", source="/sys/module/zfs/version"),
            Evidence.of("memory", system.memory_bytes),
        ],
        changes=[Change(knob="sysfs", target="/sys/module/zfs/parameters/zfs_arc_max", current=0, new=new)],
        advice=f"To keep it across reboots: options zfs zfs_arc_max={new} in /etc/modprobe.d/zfs.conf.",
    )


RULE = Rule(
    id="zfs-arc-max",
    title="ZFS ARC capped at half of memory",
    area="zfs",
    severity=Severity.low,
    check=check,
    needs=("zfs", "system"),
    gain="OpenZFS 2.3 made the Linux default the larger of all memory less 1 GiB and 5/8 of it, as on FreeBSD: "
    "a larger ARC on a machine whose job is serving files.",
    tradeoff="Less room for other programs (VMs, containers): the ARC shrinks under memory pressure, but not "
    "instantly. Keep it lower on a NAS that also runs VMs.",
    source='"arc_default_max on Linux should match FreeBSD", openzfs/zfs pull request #15437, 2023, '
    'https://github.com/openzfs/zfs/pull/15437; OpenZFS documentation, "Module Parameters: zfs_arc_max", '
    "https://openzfs.github.io/openzfs-docs/Performance%20and%20Tuning/Module%20Parameters.html",
)
