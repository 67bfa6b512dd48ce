"""# smb-socket-buffers-fixed: Samba sets fixed small socket buffers

## Problem
Setting SO_RCVBUF or SO_SNDBUF on a socket disables Linux's TCP buffer autotuning for it; the
values old tuning guides used (8 KiB to 64 KiB) are far below a gigabit link's needs.

## Detection
`socket options` in [global] contains SO_RCVBUF= or SO_SNDBUF=.

## Fix
`samba` socket options without them (TCP_NODELAY is kept).

## Trade-off
None on modern kernels.

## Source
smb.conf(5); tcp(7); lab: fixed small buffers cost 2.5% under 1 Gbit shaping.
"""

import re
from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

FIXED = re.compile(r"\bSO_(?:RCVBUF|SNDBUF)=\d+", re.IGNORECASE)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    value = c.globals.get("socket options") if c else None
    if value and FIXED.search(value):
        kept = " ".join(FIXED.sub("", value).split()) or "TCP_NODELAY"
        yield rule.finding(
            target="global:socket options",
            impact=3,
            message=f"socket options = {value}: fixed buffer sizes switch off the kernel's TCP autotuning for "
            "every SMB connection.",
            evidence=[Evidence(fact="[global] socket options", value=value, source=smb.config.source)],
            changes=[Change(knob="samba", target="global", key="socket options", current=value, new=kept)],
        )


RULE = Rule(
    id="smb-socket-buffers-fixed",
    title="Samba sets fixed small socket buffers",
    area="smb",
    severity=Severity.low,
    check=check,
    needs=("smb",),
    protocol="smb",
    gain="The kernel sizes each connection's buffers to the link (up to tcp_rmem/tcp_wmem); the lab measured "
    "2.5% lost to fixed small buffers.",
    tradeoff="None on Linux: autotuning exists since 2.6; old guides set these for kernels without it.",
    source="smb.conf(5) (socket options); kernel tcp(7) (SO_RCVBUF disables autotuning); lab measurement",
)
