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
