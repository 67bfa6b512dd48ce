"""# irq-single-cpu: all of a multi-queue NIC's interrupts on one CPU

## Problem
A NIC with several queues can spread receive work over several cores, but only if its queue
interrupts go to different CPUs. When they all land on one core, that core saturates in softirq
while the others idle, and throughput stops at what one core can process.

## Detection
An interface with two or more IRQs that together counted at least 100000 interrupts, 90% or more
of them on a single CPU (`/proc/interrupts`).

## Fix
`irq_affinity`: one CPU per queue IRQ, round-robin over the NIC's local CPUs (all CPUs when the
device reports no locality).

## Trade-off
Interrupt work then shares more cores' caches with the file server; on multi-socket machines keep
it on the NIC's node (see irq-numa-locality).

## Source
Qumulo engineering blog: a ~30% write drop after the move to Linux 5.4 on dual-socket nodes, https://qumulo.com/blog/non-uniform-memory-access-numa/ (IRQ placement regression, -30%); Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 2.7 (under stress, kernel time spent on packets exceeds
user time).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import cpu_count, irqbalance_bans, present
from nastune.sources import GAZETTE, QUMULO

BUSY = 100_000  # interrupts since boot below which a NIC is not worth balancing


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    network = present(facts.network)
    cpus = cpu_count(facts) or 1
    for i in network.interfaces:
        queues = [irq for irq in i.irqs if irq.counts]
        if len(queues) < 2 or cpus < 2:
            continue
        per_cpu = dict[int, int]()
        for irq in queues:
            for cpu, n in irq.counts.items():
                per_cpu[cpu] = per_cpu.get(cpu, 0) + n
        total = sum(per_cpu.values())
        top_cpu, top = max(per_cpu.items(), key=lambda kv: kv[1])
        if total < BUSY or top < 0.9 * total:
            continue
        spread = i.local_cpus.known_value or list(range(cpus))
        yield rule.finding(
            target=i.name,
            impact=20,
            message=f"{top / total:.0%} of the {total} interrupts of {i.name}'s {len(queues)} queues ran on CPU "
            f"{top_cpu}: one core does all receive work while the others idle.",
            evidence=[Evidence(fact=f"{i.name} interrupts per CPU", value=per_cpu, source="/proc/interrupts")],
            changes=(pinned := _pinned(queues, spread)) + irqbalance_bans(facts, pinned),
        )


def _pinned(queues: list, spread: list[int]) -> list[Change]:
    """Each queue's IRQ on the next CPU of `spread`, in turn."""
    return [
        Change(
            knob="irq_affinity",
            target=f"irq/{irq.number}",
            current=",".join(map(str, irq.affinity.value or [])),
            new=str(spread[n % len(spread)]),
        )
        for n, irq in enumerate(queues)
    ]


RULE = Rule(
    id="irq-single-cpu",
    title="All of a multi-queue NIC's interrupts on one CPU",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("network", "system"),
    gain="Receive processing spreads over several cores; Borikar and Palani (2011) saw kernel "
    "(packet) time exceed user time "
    "under stress, and Qumulo's regression came from IRQ placement.",
    tradeoff="More cores take interrupts, so their caches are shared with packet work; pin to the NIC's "
    "local node on multi-socket machines.",
    source=f"{QUMULO} (IRQ placement); {GAZETTE}, section 2.7 (kernel time under stress)",
)
