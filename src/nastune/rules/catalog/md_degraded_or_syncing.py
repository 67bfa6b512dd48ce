"""# md-degraded-or-syncing: RAID array inactive, degraded, rebuilding or holding a failed disk

## Problem
An inactive array serves nothing: md found some of its members but did not start it (a member
missing at boot, a failed assembly). A degraded array reconstructs missing data on every read of
the lost disk; a resync, recovery, reshape or check reads every disk end to end. Both take disk
time from clients, and a benchmark run meanwhile measures the rebuild, not the array. A member
marked failed `(F)` in an array that is not degraded means a spare has taken over: the array is
whole but has no spare left.

## Detection
`/proc/mdstat`: an `inactive` array, or missing members (`[U_]`) or `/sys/block/mdX/md/degraded`
above 0 (critical: data at risk, before every speed finding); a resync, reshape, check or repair
in progress on a whole array (not merely pending or delayed), or a member flagged `(F)` in an
array that is not degraded (medium).

## Fix
Advice: examine and reassemble an inactive array; replace failed disks and remove failed members;
benchmark after the sync; lower dev.raid.speed_limit_max to favour clients during business hours.

## Trade-off
A slower rebuild means a longer window without redundancy.

## Source
"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013 (scrub at 25-30 MB/s; resilver costs 15% CPU, 700 MB RAM, ~12 MB/s per disk); md(4);
mdadm(8) (--detail, --examine, --assemble, --remove).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.mdraid import MdMember
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import MINET_ZFS

BUSY = ("recovery", "resync", "reshape", "check", "repair")


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    md = present(facts.md)
    for a in md.arrays:
        members = Evidence(
            fact=f"{a.name} members", value=" ".join(_member(m) for m in a.members), source="/proc/mdstat"
        )
        if a.state == "inactive":
            yield rule.finding(
                target=a.name,
                impact=30,
                severity=Severity.critical,  # data at risk: before every speed finding
                message=f"{a.name} is inactive: assembled from {len(a.members)} device(s) but not started, so "
                "nothing on it is served (members missing at boot, or a failed assembly).",
                evidence=[members],
                advice=f"`mdadm --detail /dev/{a.name}` and `mdadm --examine` of each member say what is "
                f"missing; when all are present, `mdadm --stop /dev/{a.name}` then `mdadm --assemble --scan`.",
            )
            continue
        faulty = [m.device for m in a.members if "faulty" in m.flags]
        degraded = a.degraded or (a.sysfs_int("degraded") or 0) > 0
        syncing = a.sync_action in BUSY and a.sync_pending is None
        if faulty and not degraded:  # a spare took over: redundancy is whole, the spare is gone
            yield rule.finding(
                target=a.name,
                impact=10,
                severity=Severity.medium,
                message=f"{a.name} ({a.level}) still holds failed member(s) {', '.join(faulty)}: a spare "
                "has taken over, so the array is whole, but it has no spare left for the next failure.",
                evidence=[members],
                advice=f"`mdadm /dev/{a.name} --remove {' '.join('/dev/' + d for d in faulty)}`, replace the "
                "disk and add it back as a spare.",
            )
        if not (degraded or syncing):
            continue
        what = " and ".join(
            filter(
                None,
                [
                    "degraded" if degraded else "",
                    f"{a.sync_action} at {a.sync_percent}% (finish {a.sync_finish}, {a.sync_speed})" if syncing else "",
                ],
            )
        )
        yield rule.finding(
            target=a.name,
            impact=20,
            severity=Severity.critical if degraded else Severity.medium,  # degraded: data at risk, first
            message=f"{a.name} ({a.level}) is {what}: measurements now understate the array, and every client "
            "competes with the rebuild for the disks.",
            evidence=[
                Evidence(fact=f"{a.name} members up", value=a.member_status, source="/proc/mdstat"),
                Evidence(fact=f"{a.name} sync", value=a.sync_action, source="/proc/mdstat"),
                members,
            ],
            advice="Replace failed disks first. Benchmark after the sync ends; to favour clients meanwhile, "
            "lower dev.raid.speed_limit_max (the rebuild then takes longer).",
        )


def _member(m: MdMember) -> str:
    return m.device + "".join(f"({flag})" for flag in m.flags)


RULE = Rule(
    id="md-degraded-or-syncing",
    title="RAID array inactive, degraded, rebuilding or holding a failed disk",
    area="storage",
    severity=Severity.critical,
    check=check,
    needs=("md",),
    gain="Knowing it: results measured during a rebuild are not the array's real speed (MiNET's 2013 "
    "benchmark: a resilver "
    "costs 15% CPU, 700 MB RAM and ~12 MB/s per disk).",
    tradeoff="Throttling the rebuild in favour of clients prolongs the time without redundancy.",
    source=f"{MINET_ZFS} (scrub / resilver costs); md(4); mdadm(8)",
)
