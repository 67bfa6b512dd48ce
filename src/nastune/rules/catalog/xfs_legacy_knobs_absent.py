"""# xfs-legacy-knobs-absent: legacy XFS buffer knobs are gone on this kernel

## Problem
Borikar and Palani (2011) tune `fs.xfs.xfsbufd_centisecs` and `fs.xfs.age_buffer_centisecs` (500). Both belonged to the
xfsbufd thread, which modern kernels no longer have; their files are absent or do nothing.

## Detection
An XFS data file system and either key absent from /proc/sys.

## Fix
Nothing to set: the finding is informational so that the guide's advice is not chased.

## Trade-off
None.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, sections 2.4.3-2.4.4; kernel Documentation/admin-guide/xfs.rst (deprecated and removed sysctls).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.sysctl import ABSENT
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import data_mounts, present
from nastune.sources import GAZETTE

LEGACY = ("fs.xfs.xfsbufd_centisecs", "fs.xfs.age_buffer_centisecs")


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    if not any(m.fstype == "xfs" for m in data_mounts(facts)):
        return
    absent = [k for k in LEGACY if sysctl.get(k).unknown == ABSENT]
    if absent:
        yield rule.finding(
            target="fs.xfs",
            impact=0,
            message=f"{', '.join(absent)} do not exist on this kernel: the XFS buffer daemon they tuned was removed; "
            "metadata writeback now follows the log and xfssyncd_centisecs. Nothing to set.",
            evidence=[Evidence.of(k, sysctl.get(k)) for k in absent],
        )


RULE = Rule(
    id="xfs-legacy-knobs-absent",
    title="Legacy XFS buffer knobs are gone on this kernel",
    area="storage",
    severity=Severity.info,
    check=check,
    needs=("sysctl", "mounts"),
    gain="None to gain: this says why guides that set these knobs (Borikar and Palani, 2011, "
    "sections 2.4.3-2.4.4) do not apply here.",
    tradeoff="None.",
    source=f"{GAZETTE}, sections 2.4.3-2.4.4; kernel Documentation/admin-guide/xfs (removed sysctls)",
)
