"""# vm-dirty-writeback: dirty page limits unsuited to the RAM size

## Problem
`vm.dirty_ratio` is the share of memory that may hold written-but-unflushed data before writers
are made to wait; `dirty_background_ratio` is where background flushing starts. Ratios made for
small machines become gigabytes on a large one: the flush of that much data stalls every writer.
Ratios that are too low throttle writers almost at once.

## Detection
Where a measured `sustained-write` run is given (`diagnose --profile RESULT`), the limit against
the rate the disks sustained after the burst: a limit they take more than 10 s to write out (a
fast start, then stalls: the write cliff). Without one, the RAM's size alone: ratio-based limits
(no `dirty_bytes` set) with dirty_ratio above 20%, or a limit above 4 GiB; or dirty_ratio under 5%,
or a background ratio not below dirty_ratio.

## Fix
From a measured rate: the limit sized to about 5 s of the disks' writes, in the form the system
uses (`dirty_bytes` and half of it for `dirty_background_bytes`, or a ratio of at least 1% and half
of it). From the RAM alone: `sysctl` dirty_ratio to the share of RAM that is about 1 GiB (kept
between 5 and 20), and dirty_background_ratio to half of it.

## Trade-off
Bursts larger than the limit run at disk speed; larger limits absorb bursts but stall longer and
lose more data that was not yet on disk at a power failure.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 1.3.2.2 (writeback threads: more flushing helped NFS); kernel Documentation/admin-guide/sysctl/vm.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.write_course import WriteCourse
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import GiB, human, present, ram, served_datasets, served_mounts
from nastune.sources import GAZETTE

TARGET = 1 * GiB  # dirty data a NAS can flush in seconds, not minutes
FLUSH_S = 10  # a limit the disks take longer than this to write out stalls the writers for as long
BUFFER_S = 5  # what the limit is sized to from a measured rate: the disks' next few seconds of writes


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    sysctl = present(facts.sysctl)
    memory = ram(facts)
    ratio, background = sysctl.int("vm.dirty_ratio"), sysctl.int("vm.dirty_background_ratio")
    if memory is None or ratio is None or background is None:
        return
    measured = facts.write_course.known_value if facts.write_course else None
    if measured is not None and measured.sustained_mbs > 0:
        if not _on_zfs(facts):  # ZFS gathers its writes itself, up to its own limit (zfs-dirty-data)
            yield from _against_disks(rule, facts, memory, measured)
        return  # the disks' rate decides: the RAM's size is only a guess at it
    if (sysctl.int("vm.dirty_bytes") or 0) > 0 or (sysctl.int("vm.dirty_background_bytes") or 0) > 0:
        return  # absolute limits were chosen deliberately
    limit = memory * ratio // 100
    good = max(5, min(20, TARGET * 100 // memory))
    evidence = [
        Evidence.of("vm.dirty_ratio", sysctl.get("vm.dirty_ratio")),
        Evidence.of("vm.dirty_background_ratio", sysctl.get("vm.dirty_background_ratio")),
        Evidence.of("memory", system.memory_bytes),
    ]
    changes = [
        Change(knob="sysctl", target="vm.dirty_ratio", current=ratio, new=good),
        Change(knob="sysctl", target="vm.dirty_background_ratio", current=background, new=max(1, good // 2)),
    ]
    if ratio > 20 or (limit > 4 * GiB and ratio > good):
        yield rule.finding(
            target="vm.dirty_ratio",
            impact=10,
            message=f"Writers may dirty {ratio}% of RAM ({human(limit)}) before being throttled: flushing that much "
            "at once stalls every writer, and NFS/SMB clients see long pauses.",
            evidence=evidence,
            changes=changes,
        )
    elif ratio < 5 or background >= ratio:
        yield rule.finding(
            target="vm.dirty_ratio",
            impact=6,
            severity=Severity.low,
            message=f"dirty_ratio {ratio}% with background {background}%: writers are throttled almost at once, "
            "so buffered writes run at disk speed with no smoothing.",
            evidence=evidence,
            changes=changes,
        )


RULE = Rule(
    id="vm-dirty-writeback",
    title="Dirty page limits unsuited to the RAM size",
    area="memory",
    severity=Severity.medium,
    check=check,
    needs=("sysctl", "system"),
    path="write",
    gain="Steady write throughput without multi-second stalls while gigabytes of dirty pages are flushed "
    "(Borikar and Palani, 2011, section 1.3.2.2: more and earlier flushing helped NFS).",
    tradeoff="Lower limits make writers wait for the disks sooner: bursts no longer fit in RAM. Higher "
    "limits absorb bursts but flush in long stalls and lose more on power failure.",
    source=f"{GAZETTE}, section 1.3.2.2 (pdflush, today vm.dirty_* and per-bdi flusher threads); "
    "kernel admin-guide sysctl/vm",
)


def _against_disks(rule: Rule, facts: Facts, memory: int, measured: WriteCourse) -> Iterator[Finding]:
    """The limit against what the disks took in a measured sustained write: flushing more than
    FLUSH_S seconds of their writes at once is the stall. A limit set in bytes is changed in
    bytes (the kernel keeps one of the two forms), a ratio as a ratio of at least 1%."""
    sysctl = present(facts.sysctl)
    in_bytes = (sysctl.int("vm.dirty_bytes") or 0) > 0
    limit = sysctl.int("vm.dirty_bytes") or memory * (sysctl.int("vm.dirty_ratio") or 0) // 100
    rate = measured.sustained_mbs * 1e6
    if limit / rate <= FLUSH_S:
        return
    wanted = int(rate * BUFFER_S)
    if in_bytes:
        names, values = ("vm.dirty_bytes", "vm.dirty_background_bytes"), (wanted, wanted // 2)
    else:
        share = max(1, wanted * 100 // memory)
        names, values = ("vm.dirty_ratio", "vm.dirty_background_ratio"), (share, max(1, share // 2))
    changes = [
        Change(knob="sysctl", target=n, current=sysctl.int(n), new=v) for n, v in zip(names, values, strict=True)
    ]
    if all(c.current is not None and c.new >= c.current for c in changes):
        return  # already as small as a ratio can say
    yield rule.finding(
        target=names[0],
        impact=15,
        message=f"Writers may dirty {human(limit)} before being throttled, which the disks take "
        f"{limit / rate:.0f} s to write at the {measured.sustained_mbs:.0f} MB/s they sustained ({measured.said()}): "
        f"fast, then slow. A limit of about {BUFFER_S} s of their writes "
        f"({human(wanted)}) keeps the writers moving at the disks' rate.",
        evidence=[
            Evidence.of(names[0], sysctl.get(names[0])),
            Evidence.of("memory", present(facts.system).memory_bytes),
            Evidence.of("the disks' sustained write", present(facts.write_course)),
        ],
        changes=changes,
    )


def _on_zfs(facts: Facts) -> bool:
    """The shared data lies on ZFS datasets alone, whose writes bypass the page cache's limits."""
    return bool(served_datasets(facts)) and not served_mounts(facts)  # served_mounts: the other file systems
