"""# net-default-buffers-large: Default socket buffers set huge

## Problem
`net.core.rmem_default` and `wmem_default` are the buffers a socket starts with when it does not
ask for its own size: UDP, Unix sockets, control connections. TCP takes its defaults from
`tcp_rmem` and `tcp_wmem` instead, so a huge value here does not speed up SMB or NFS over TCP; it
only reserves memory on every other socket. Borikar and Palani (2011) give 109568 as an example value.

## Detection
Either above 4 MiB.

## Fix
`sysctl` back to the kernel's default, 212992.

## Trade-off
A UDP application that relied on the large default must set SO_RCVBUF itself.

## Source
kernel admin-guide sysctl/net (rmem_default, wmem_default); tcp(7) (tcp_rmem); Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 1.3.1.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import GAZETTE

DEFAULT = 212992  # the kernel's default for both
LARGE = 4 << 20


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    for key in ("net.core.rmem_default", "net.core.wmem_default"):
        value = sysctl.int(key)
        if value is None or value <= LARGE:
            continue
        yield rule.finding(
            target=key,
            impact=2,
            message=f"{key} is {value // 1024} KiB: every socket that does not size its own buffer (UDP, Unix "
            "sockets, daemons' control connections) starts with that much, whatever it carries. TCP does "
            "not use it (tcp_rmem/tcp_wmem's middle values are TCP's defaults), so it buys the file server "
            "nothing and costs memory under many connections.",
            evidence=[Evidence.of(key, sysctl.get(key))],
            changes=[Change(knob="sysctl", target=key, current=value, new=DEFAULT)],
        )


RULE = Rule(
    id="net-default-buffers-large",
    title="Default socket buffers set huge",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("sysctl",),
    gain="Memory for page cache instead of idle socket buffers; TCP throughput is unchanged (TCP sizes its own).",
    tradeoff="A UDP application that relied on the large default must set SO_RCVBUF itself.",
    source=f"kernel admin-guide sysctl/net (rmem_default, wmem_default); tcp(7) (tcp_rmem); {GAZETTE}, section 1.3.1",
)
