"""# nic-coalescing-off: interrupt coalescing off on a busy NIC

## Problem
With coalescing off, the NIC interrupts the CPU for every frame. On a busy link the interrupt rate
alone can use a slow CPU's time that the file server needs.

## Detection
`ethtool -c` shows rx-usecs 0 and adaptive RX off or unsupported, and the NIC's IRQs have counted
at least a million interrupts.

## Fix
`ethtool_coalesce` adaptive-rx on where the driver supports it, otherwise rx-usecs 50 as a
starting point; then measure, since Borikar and Palani (2011) note the right value depends on the workload.

## Trade-off
Up to rx-usecs of added latency per interrupt: small, latency-bound requests (metadata) can get
slower while bulk transfers get faster.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 1.1.1 (interrupt coalescing with NAPI; most useful with jumbo frames and slow CPUs).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import GAZETTE

BUSY = 1_000_000  # interrupts since boot that make a NIC "busy"


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    network = present(facts.network)
    for i in network.interfaces:
        c = i.coalesce.value if i.coalesce.known else None
        interrupts = sum(sum(irq.counts.values()) for irq in i.irqs)
        if c is None or interrupts < BUSY or c.params.get("rx-usecs", 1) != 0 or c.adaptive_rx is True:
            continue
        change = (
            Change(knob="ethtool_coalesce", target=i.name, key="adaptive-rx", current="off", new="on")
            if c.adaptive_rx is False
            else Change(knob="ethtool_coalesce", target=i.name, key="rx-usecs", current=0, new=50)
        )
        yield rule.finding(
            target=i.name,
            impact=8,
            message=f"{i.name} raises an interrupt for every received frame (rx-usecs 0, adaptive "
            f"{'off' if c.adaptive_rx is False else 'unsupported'}) and has taken {interrupts} interrupts.",
            evidence=[
                Evidence.of(f"{i.name} coalescing", i.coalesce),
                Evidence(fact=f"{i.name} interrupts since boot", value=interrupts, source="/proc/interrupts"),
            ],
            changes=[change],
        )


RULE = Rule(
    id="nic-coalescing-off",
    title="Interrupt coalescing off on a busy NIC",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("network",),
    gain="Fewer interrupts per megabyte, so more CPU for the file server; matters most with jumbo frames "
    "and slow CPUs (Borikar and Palani, 2011, section 1.1.1).",
    tradeoff="Coalescing delays each interrupt by up to rx-usecs, adding that much latency to small "
    "requests; adaptive mode tunes it with load. The best value is found by measuring.",
    source=f"{GAZETTE}, section 1.1.1 (interrupt coalescing with NAPI)",
)
