"""# xfssyncd-centisecs: XFS metadata flush interval long on limited hardware

## Problem
XFS's periodic sync worker writes back metadata every `xfssyncd_centisecs` (default 3000 = 30 s).
On a small box under constant writes, 30 s of accumulated work is flushed in one burst.

## Detection
An XFS data file system, 4 GiB of RAM or less (a small box is judged by its memory: a VM with 2 CPUs and plenty of RAM is not one), and the interval above 500.

## Fix
`sysctl` fs.xfs.xfssyncd_centisecs 500.

## Trade-off
More frequent, smaller flushes; disks wake more often when idle.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 2.4.2 (500 for more frequent flushing on limited hardware under constant writes).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import GiB, data_mounts, present, ram
from nastune.sources import GAZETTE

RECOMMENDED = 500


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    sysctl = present(facts.sysctl)
    value = sysctl.int("fs.xfs.xfssyncd_centisecs")
    limited = 0 < (ram(facts) or 0) <= 4 * GiB  # a small box: by its memory (a VM has few CPUs, not less RAM)
    if value is None or value <= RECOMMENDED or not limited:
        return
    if not any(m.fstype == "xfs" for m in data_mounts(facts)):
        return
    yield rule.finding(
        target="fs.xfs.xfssyncd_centisecs",
        impact=3,
        message=f"XFS flushes its metadata every {value / 100:g} s on a small box: under constant writes the "
        "work piles up into bursts that stall clients.",
        evidence=[
            Evidence.of("fs.xfs.xfssyncd_centisecs", sysctl.get("fs.xfs.xfssyncd_centisecs")),
            Evidence.of("memory", system.memory_bytes),
        ],
        changes=[Change(knob="sysctl", target="fs.xfs.xfssyncd_centisecs", current=value, new=RECOMMENDED)],
    )


RULE = Rule(
    id="xfssyncd-centisecs",
    title="XFS metadata flush interval long on limited hardware",
    area="storage",
    severity=Severity.low,
    check=check,
    needs=("sysctl", "mounts", "system"),
    gain="Smaller, more frequent metadata flushes instead of periodic stalls under continuous writes "
    "(Borikar and Palani, 2011, section 2.4.2).",
    tradeoff="More frequent log activity; on an idle system it wakes the disks more often.",
    source=f"{GAZETTE}, section 2.4.2 (fs.xfs.xfssyncd_centisecs = 500)",
)
