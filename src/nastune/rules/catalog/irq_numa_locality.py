"""# irq-numa-locality: NIC interrupts served by CPUs of another NUMA node

## Problem
On a multi-socket server the NIC is attached to one socket. When its interrupts (and so the
receive processing and the wake-ups of the server threads) run on the other socket, every packet's
data crosses the inter-socket link and its memory is remote.

## Detection
An interface whose device reports a NUMA node and a local CPU list, with at least one of its IRQs
(from the device's `msi_irqs`) allowed on a CPU outside that list (`/proc/irq/N/smp_affinity_list`).

## Fix
`irq_affinity` for each such IRQ: one local CPU each, round-robin over the node's CPUs, as the
vendor scripts (set_irq_affinity) do.
Where irqbalance runs, each pinned IRQ is also banned from it (`irqbalance_ban`: `--banirq=N` in
IRQBALANCE_ARGS of its own configuration, and irqbalance restarted): otherwise its next pass, about
every 10 seconds, moves the IRQ back.

## Trade-off
Static pinning does not follow load; irqbalance may undo it unless configured to respect it.
Re-check after every kernel or driver upgrade: that is exactly how Qumulo lost it.

## Source
Qumulo engineering blog: a ~30% write drop after the move to Linux 5.4 on dual-socket nodes, https://qumulo.com/blog/non-uniform-memory-access-numa/: a kernel upgrade replaced the vendor driver and its IRQ script; write throughput fell 30%
until the affinity was restored.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import irqbalance_bans, present
from nastune.sources import QUMULO


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    network = present(facts.network)
    for i in network.interfaces:
        if not (i.numa_node.known and i.local_cpus.known and i.irqs):
            continue
        local = i.local_cpus.value
        if not local:  # an empty local_cpulist names no CPU to move the IRQs to
            continue
        remote = [irq for irq in i.irqs if irq.affinity.known and not set(irq.affinity.value or ()) <= set(local)]
        if not remote:
            continue
        changes = [
            Change(
                knob="irq_affinity",
                target=f"irq/{irq.number}",
                current=_fmt(irq.affinity.value or []),
                new=str(local[n % len(local)]),
            )
            for n, irq in enumerate(remote)
        ]
        yield rule.finding(
            target=i.name,
            impact=30,
            severity=Severity.high,
            message=f"{len(remote)} of {len(i.irqs)} IRQs of {i.name} (NUMA node {i.numa_node.value}) may run on "
            f"CPUs outside that node ({_fmt(local)}): every packet then crosses the inter-socket link.",
            evidence=[
                Evidence.of(f"{i.name} NUMA node", i.numa_node),
                Evidence.of(f"{i.name} local CPUs", i.local_cpus),
            ]
            + [Evidence.of(f"IRQ {irq.number} ({irq.name}) affinity", irq.affinity) for irq in remote[:4]],
            changes=changes + irqbalance_bans(facts, changes),
        )


def _fmt(cpus: list[int]) -> str:
    return ",".join(map(str, cpus))


RULE = Rule(
    id="irq-numa-locality",
    title="NIC interrupts served by CPUs of another NUMA node",
    area="network",
    severity=Severity.high,
    check=check,
    needs=("network",),
    gain="Qumulo: after a kernel upgrade lost the vendor's IRQ pinning, write throughput fell from ~4.5 to "
    "~3.2 GB/s (-30%); pinning the NIC's IRQs to its local node restored it.",
    tradeoff="Pinned IRQs no longer follow load: keep irqbalance from moving them back (or let it honour "
    "the NIC's node), and re-check after driver or kernel changes.",
    source=f"{QUMULO} (IRQ affinity to the NIC's local NUMA node)",
)
