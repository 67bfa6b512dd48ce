"""# tcp-buffers-small-ram: TCP buffer limits too large for a very small RAM box

## Problem
Socket buffers are kernel memory. On an embedded NAS with 1 GiB of RAM or less, many clients at
large buffer limits take memory from the page cache and can push the box into allocation failures.

## Detection
RAM of 1 GiB or less and a tcp_rmem/tcp_wmem maximum above a quarter of RAM divided among 32
connections.

## Fix
`sysctl` tcp_rmem/tcp_wmem maximum down to that share (at least 256 KiB).

## Trade-off
A single fast client cannot open its window as wide.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 1.3.1: larger buffers help throughput but cost RAM on small boxes.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import TCP_CLIENTS, GiB, human, present, ram, tcp_buffer_budget, tcp_buffer_ceiling
from nastune.sources import GAZETTE


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    sysctl = present(facts.sysctl)
    memory = ram(facts)
    if memory is None or memory > GiB:
        return
    budget = tcp_buffer_budget(memory)
    changes, evidence = [], []
    for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"):
        values = sysctl.ints(key)
        if values and len(values) == 3 and values[2] > budget:
            new_max = tcp_buffer_ceiling(memory)
            evidence.append(Evidence.of(key, sysctl.get(key)))
            changes.append(
                Change(
                    knob="sysctl",
                    target=key,
                    current=" ".join(map(str, values)),
                    new=f"{values[0]} {min(values[1], new_max)} {new_max}",
                )
            )
    if changes:
        yield rule.finding(
            target="tcp",
            impact=3,
            message=f"With {human(memory)} of RAM, {TCP_CLIENTS} connections at these buffer limits could take more "
            f"than a quarter of memory ({human(budget)} each fits).",
            evidence=[Evidence.of("memory", system.memory_bytes), *evidence],
            changes=changes,
        )


RULE = Rule(
    id="tcp-buffers-small-ram",
    title="TCP buffer limits too large for a very small RAM box",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("sysctl", "system"),
    clients=True,
    gain="Socket buffers cannot starve the page cache or trigger allocation failures under many clients.",
    tradeoff="Each connection's window is capped: a single client on a long or fast path gets less.",
    source=f"{GAZETTE}, section 1.3.1 (larger buffers cost RAM on small boxes)",
)
