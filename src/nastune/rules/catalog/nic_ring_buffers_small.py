"""# nic-ring-buffers-small: NIC ring buffers far below their maximum

## Problem
The NIC's receive ring holds the frames that arrived but were not yet processed. A small ring
overflows during bursts or short CPU stalls; each drop costs a TCP retransmit and a window cut.

## Detection
A physical NIC whose current rx or tx ring (`ethtool -g`) is at most half of its preset maximum.

## Fix
`ethtool_ring` rx/tx to the preset maximum.

## Trade-off
More memory pinned for DMA and potentially more queueing delay under overload.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 1.2 (driver descriptors, receive buffer preallocation).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import GAZETTE


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    network = present(facts.network)
    for i in network.interfaces:
        rings = i.rings.known_value
        if i.kind != "physical" or rings is None:
            continue
        current, maximum = rings.current, rings.maximum
        small = [k for k in ("rx", "tx") if k in current and maximum.get(k, 0) >= 2 * current[k] > 0]
        if small:
            yield rule.finding(
                target=i.name,
                impact=4,
                message=f"{i.name} rings are far below what the NIC allows: "
                + ", ".join(f"{k} {current[k]} of {maximum[k]}" for k in small)
                + ".",
                evidence=[Evidence.of(f"{i.name} rings", i.rings)],
                changes=[
                    Change(knob="ethtool_ring", target=i.name, key=k, current=current[k], new=maximum[k]) for k in small
                ],
            )


RULE = Rule(
    id="nic-ring-buffers-small",
    title="NIC ring buffers far below their maximum",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("network",),
    gain="Bursts that arrive while the CPU is busy are queued instead of dropped (rx_missed / "
    "rx_no_buffer drops cause TCP retransmits and stalls).",
    tradeoff="Larger rings use more DMA memory and can add queueing latency (bufferbloat) under load.",
    source=f"{GAZETTE}, section 1.2 (descriptors and receive buffer preallocation)",
)
