from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, zfs_devices


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    block = present(facts.block)
    pooled = zfs_devices(facts)  # ZFS schedules and prefetches its disks' I/O itself
    for d in block.devices:
        if d.name in pooled:
            continue
        scheduler = d.scheduler.known_value
        if d.kind != "disk" or not d.rotational.known or scheduler is None:
            continue
        active, available = scheduler.active, scheduler.available
        if d.rotational.value and active == "none" and "mq-deadline" in available:
            new, why = (
                "mq-deadline",
                "a spinning disk with no scheduler serves requests in arrival order, seeking between them",
            )
        elif not d.rotational.value and active in ("bfq", "cfq") and "none" in available:
            new, why = "none", f"{active} spends CPU on every request of a device that has no seek penalty"
        else:
            continue
        yield rule.finding(
            target=d.name,
            impact=4,
            message=f"{d.name} ({'rotational' if d.rotational.value else 'non-rotational'}) uses {active}: {why}.",
            evidence=[
                Evidence.of(f"{d.name} rotational", d.rotational),
                Evidence.of(f"{d.name} scheduler", d.scheduler),
            ],
            changes=[Change(knob="sysfs", target=f"/sys/block/{d.name}/queue/scheduler", current=active, new=new)],
        )


RULE = Rule(
    id="block-scheduler",
    title="I/O scheduler unsuited to the device type",
    area="storage",
    severity=Severity.low,
    check=check,
    needs=("block",),
    gain="Spinning disks get sorted, deadline-bounded requests; flash devices skip scheduler overhead.",
    tradeoff="mq-deadline adds a little CPU per request; none gives no fairness between processes.",
    source="kernel Documentation/block (mq-deadline, none, bfq)",
)
