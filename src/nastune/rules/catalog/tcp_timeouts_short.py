"""# tcp-timeouts-short: TCP gives up on connections too soon

## Problem
`net.ipv4.tcp_retries2` bounds how long TCP retransmits unacknowledged data before it drops the
connection. The default, 15, is about 924 s; below 8 (about 100 s, RFC 1122's lower bound) a
switch failover or a client's stall resets NFS and SMB sessions. A very short
`tcp_keepalive_time` probes every idle client connection that often.

## Detection
`tcp_retries2` below 8 (medium), `tcp_keepalive_time` below 60 s (info).

## Fix
`sysctl` net.ipv4.tcp_retries2 = 15; for keepalive, advice only (minutes are enough).

## Trade-off
A connection to a client that has really gone is kept longer.

## Source
kernel admin-guide networking/ip-sysctl (tcp_retries2, tcp_keepalive_time); RFC 1122 4.2.3.5.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

RETRIES_DEFAULT = 15  # about 924 s of retransmissions before a connection is given up
RETRIES_SHORT = 8  # about 100 s: RFC 1122's lower bound for R2
KEEPALIVE_SHORT = 60  # seconds


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    retries = sysctl.int("net.ipv4.tcp_retries2")
    if retries is not None and retries < RETRIES_SHORT:
        yield rule.finding(
            target="net.ipv4.tcp_retries2",
            impact=3,
            severity=Severity.medium,
            message=f"net.ipv4.tcp_retries2 is {retries}: a connection with unacknowledged data is dropped after "
            "a few seconds of silence, so a switch failover or a client's brief stall resets NFS and SMB "
            "sessions (the client then replays or fails its open files).",
            evidence=[Evidence.of("net.ipv4.tcp_retries2", sysctl.get("net.ipv4.tcp_retries2"))],
            changes=[Change(knob="sysctl", target="net.ipv4.tcp_retries2", current=retries, new=RETRIES_DEFAULT)],
        )
    keepalive = sysctl.int("net.ipv4.tcp_keepalive_time")
    if keepalive is not None and keepalive < KEEPALIVE_SHORT:
        yield rule.finding(
            target="net.ipv4.tcp_keepalive_time",
            impact=1,
            severity=Severity.info,
            message=f"net.ipv4.tcp_keepalive_time is {keepalive} s: every idle client connection is probed "
            "that often; with many clients that is constant traffic and wake-ups for nothing.",
            evidence=[Evidence.of("net.ipv4.tcp_keepalive_time", sysctl.get("net.ipv4.tcp_keepalive_time"))],
            advice="Dead clients are found by smbd's own keepalive and NFS's lease; a keepalive of minutes "
            "(the kernel's default is 7200 s; 600 is common) is enough.",
        )


RULE = Rule(
    id="tcp-timeouts-short",
    title="TCP gives up on connections too soon",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("sysctl",),
    gain="File-sharing sessions survive a brief network outage instead of being reset.",
    tradeoff="A connection to a client that is really gone is kept longer (up to ~15 minutes with data pending).",
    source="kernel admin-guide networking/ip-sysctl (tcp_retries2, tcp_keepalive_time); RFC 1122 4.2.3.5",
)
