"""# irqbalance-absent: no IRQ balancing for a multi-queue NIC

## Problem
Without irqbalance and without hand-made pinning, the queue interrupts of a NIC keep the kernel's
default placement, which often funnels them to few cores and ignores NUMA locality.

## Detection
irqbalance is not running (`/proc/[pid]/comm`), the machine has several CPUs, and every IRQ of a
multi-queue NIC (a device with two or more receive or transmit queues: a single-queue virtio NIC
has nothing to balance) is still allowed on every CPU (nobody placed it).

## Fix
Advice: install and enable irqbalance, or pin the IRQs (irq-numa-locality does it per IRQ).

## Trade-off
irqbalance moves interrupts periodically and may undo manual pinning unless told to skip it.

## Source
Qumulo engineering blog: a ~30% write drop after the move to Linux 5.4 on dual-socket nodes, https://qumulo.com/blog/non-uniform-memory-access-numa/ (IRQ placement after a driver change); irqbalance(1).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import cpu_count, present
from nastune.sources import QUMULO


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    network = present(facts.network)
    cpus = cpu_count(facts) or 1
    if system.irqbalance_running.value or cpus < 2:
        return
    everywhere = set(range(cpus))
    for i in network.interfaces:
        untouched = [irq for irq in i.irqs if set(irq.affinity.known_value or ()) == everywhere]
        multi_queue = i.kind == "physical" and max(i.rx_queues, i.tx_queues) >= 2
        if multi_queue and len(i.irqs) >= 2 and len(untouched) == len(i.irqs):
            yield rule.finding(
                target=i.name,
                impact=10,
                message=f"{i.name} has {len(i.irqs)} IRQs, irqbalance is not running and no IRQ was placed by hand: "
                "the kernel's default placement decides where receive work runs.",
                evidence=[Evidence.of("irqbalance running", system.irqbalance_running)]
                + [Evidence.of(f"IRQ {irq.number} affinity", irq.affinity) for irq in untouched[:3]],
                advice="Install and start irqbalance (apt install irqbalance; systemctl enable --now irqbalance), "
                "or pin the IRQs by hand (see irq-numa-locality).",
            )


RULE = Rule(
    id="irqbalance-absent",
    title="No IRQ balancing for a multi-queue NIC",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("network", "system"),
    gain="Interrupt load follows the cores that are free; avoids the single-core bottleneck of irq-single-cpu.",
    tradeoff="irqbalance moves IRQs periodically, which can disturb hand-made pinning; configure it to skip "
    "pinned IRQs (IRQBALANCE_BANNED_CPULIST or --banirq).",
    source=f"{QUMULO} (IRQ placement); irqbalance(1)",
)
