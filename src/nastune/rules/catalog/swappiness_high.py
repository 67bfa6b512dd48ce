"""# swappiness-high: swappiness high on a file server

## Problem
A file server's page cache grows with every file read. With the default swappiness (60) the
kernel swaps out idle daemon memory to keep more cache, and the next request to that daemon waits
for swap-in.

## Detection
`vm.swappiness` above 10 while swap is configured (`SwapTotal` in /proc/meminfo).

## Fix
`sysctl` vm.swappiness 10.

## Trade-off
Less cache when anonymous memory grows.

## Source
Kernel Documentation/admin-guide/sysctl/vm.rst (swappiness).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    system = present(facts.system)
    sysctl = present(facts.sysctl)
    swappiness = sysctl.int("vm.swappiness")
    swap = system.swap_bytes.known_value or 0
    if swappiness is not None and swappiness > 10 and swap > 0:
        yield rule.finding(
            target="vm.swappiness",
            impact=3,
            message=f"vm.swappiness is {swappiness} with swap configured: the file server's daemons may be "
            "swapped out to keep page cache, and then stall on their next request.",
            evidence=[
                Evidence.of("vm.swappiness", sysctl.get("vm.swappiness")),
                Evidence.of("swap", system.swap_bytes),
            ],
            changes=[Change(knob="sysctl", target="vm.swappiness", current=swappiness, new=10)],
        )


RULE = Rule(
    id="swappiness-high",
    title="Swappiness high on a file server",
    area="memory",
    severity=Severity.low,
    check=check,
    needs=("sysctl", "system"),
    gain="smbd, nfsd and ganesha stay resident, so a request after a quiet period does not wait for swap-in.",
    tradeoff="Anonymous memory is kept over cache: less room for cached file data when daemons grow.",
    source="kernel admin-guide sysctl/vm (swappiness)",
)
