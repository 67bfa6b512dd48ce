"""# block-scheduler: I/O scheduler unsuited to the device type

## Problem
Rotational disks pay a seek for every jump between distant sectors; a scheduler that sorts and
merges requests (mq-deadline) reduces seeks. Flash devices have no seek cost, so a heavy
scheduler (bfq) only adds CPU time and latency per request.

## Detection
A whole disk (not md, dm or loop) that is rotational with scheduler `none`, or non-rotational with
`bfq`, when the better scheduler is available (`/sys/block/X/queue/scheduler`).
A disk a ZFS pool is made of is left out: ZFS queues and orders its vdevs' I/O itself (its own I/O scheduler, the zfs_vdev_* module parameters).

## Fix
`sysfs` scheduler mq-deadline for rotational disks, none for non-rotational ones.

## Trade-off
none gives no fairness between competing processes; mq-deadline costs a little CPU.

## Source
Kernel Documentation/block (mq-deadline, bfq, none).
"""

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
