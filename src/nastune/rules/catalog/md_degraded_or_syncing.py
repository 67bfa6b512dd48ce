from nastune.rules.model import Evidence, Rule, Severity

BUSY = ("recovery", "resync", "reshape", "check", "repair")


def check(rule, facts):
    for a in facts.md.arrays:
        degraded = a.degraded or (a.sysfs_int("degraded") or 0) > 0
        syncing = a.sync_action in BUSY and a.sync_pending is None
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
            severity=Severity.high if degraded else Severity.medium,
            message=f"{a.name} ({a.level}) is {what}: measurements now understate the array, and every client "
            "competes with the rebuild for the disks.",
            evidence=[
                Evidence(fact=f"{a.name} members up", value=a.member_status, source="/proc/mdstat"),
                Evidence(fact=f"{a.name} sync", value=a.sync_action, source="/proc/mdstat"),
            ],
            advice="Replace failed disks first. Benchmark after the sync ends; to favour clients meanwhile, "
            "lower dev.raid.speed_limit_max (the rebuild then takes longer).",
        )


RULE = Rule(
    id="md-degraded-or-syncing",
    title="RAID array degraded or rebuilding",
    area="storage",
    severity=Severity.high,
    check=check,
    needs=("md",),
    gain="Knowing it: results measured during a rebuild are not the array's real speed (003: a resilver "
    "costs 15% CPU, 700 MB RAM and ~12 MB/s per disk).",
    tradeoff="Throttling the rebuild in favour of clients prolongs the time without redundancy.",
    source="003 (scrub / resilver costs); md(4)",
)
