from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import GiB, human, present, ram
from nastune.sources import GAZETTE

TARGET = 1 * GiB  # dirty data a NAS can flush in seconds, not minutes


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    sysctl = present(facts.sysctl)
    memory = ram(facts)
    ratio, background = sysctl.int("vm.dirty_ratio"), sysctl.int("vm.dirty_background_ratio")
    if memory is None or ratio is None or background is None:
        return
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
