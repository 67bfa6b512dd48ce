"""# tcp-slow-start-after-idle: TCP slow start after every idle pause

## Problem
With `net.ipv4.tcp_slow_start_after_idle = 1` (the kernel's default) a connection idle for one
retransmission timeout restarts from a small congestion window. A file session pauses between
files all the time.

## Detection
The sysctl is 1.

## Fix
`sysctl` net.ipv4.tcp_slow_start_after_idle = 0.

## Trade-off
A burst after a long pause may meet a path whose capacity changed.

## Source
Linux kernel documentation, ip-sysctl, https://docs.kernel.org/networking/ip-sysctl.html.
RFC 2861, "TCP Congestion Window Validation", 2000. RFC 7661, "Updating TCP to Support
Rate-Limited Traffic", 2015.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

KEY = "net.ipv4.tcp_slow_start_after_idle"


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    value = sysctl.values.get(KEY)
    if value is None or not value.known or str(value.value).strip() != "1":
        return
    yield rule.finding(
        target=KEY,
        impact=4,
        message="After each pause of one retransmission timeout a connection starts again from a small "
        "congestion window: an SMB or NFS session that opens a file, pauses and reads pays a slow start each time.",
        evidence=[Evidence.of(KEY, value)],
        changes=[Change(knob="sysctl", target=KEY, current=1, new=0)],
    )


RULE = Rule(
    id="tcp-slow-start-after-idle",
    title="TCP slow start after every idle pause",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("sysctl",),
    clients=True,
    gain="A session that pauses between files keeps its congestion window: the next read starts at full speed, "
    "most of all on links with a long round trip.",
    tradeoff="After a long pause the window may no longer suit a path whose capacity changed: a burst into a "
    "congested path (RFC 7661 describes the risk and a middle way).",
    source="Linux kernel documentation, ip-sysctl (tcp_slow_start_after_idle), "
    'https://docs.kernel.org/networking/ip-sysctl.html; RFC 2861, "TCP Congestion Window Validation", 2000; '
    'RFC 7661, "Updating TCP to Support Rate-Limited Traffic", 2015',
)
