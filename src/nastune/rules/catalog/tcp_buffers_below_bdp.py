"""# tcp-buffers-below-bdp: TCP buffer limits below the link's bandwidth-delay product

## Problem
A TCP connection can have at most one receive window of data in flight. When the window the
buffer limits allow is smaller than the link's bandwidth times the round-trip time, one SMB or
NFS connection cannot fill the link however fast the disks are.

## Detection
The fastest link of the NAS that is up gives the bandwidth (its rate as `mtu-jumbo-frames` reads it:
the operator's figure, the shaping, or the driver's speed; a container's veth, which reports
10000 Mb/s, is not a link of the NAS); a LAN round trip of 1 ms and a factor 2 for TCP's
buffer overhead give the needed buffer. The maximum of `net.ipv4.tcp_rmem` / `tcp_wmem` (the
autotuning limit) below it fires the rule; `net.core.rmem_max` / `wmem_max` (the limit for
applications that set SO_RCVBUF) are raised with them when also below. Boxes with less than 1 GiB of RAM are left to
tcp-buffers-small-ram.

## Fix
`sysctl` the third field of tcp_rmem/tcp_wmem (and rmem_max/wmem_max) to the need rounded up to a
power of two, at least 6 MiB (the kernel's own default maximum for tcp_rmem).

## Trade-off
More kernel memory per connection at full speed; on a small box with many clients this competes
with the page cache.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 1.3.1 (socket buffer limits, with its example values); kernel Documentation/networking/
ip-sysctl (tcp_rmem, tcp_adv_win_scale); lab: small TCP memory limits cost 5-7% on Samba.
"""

import math
from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import MiB, human, links, present, ram, rate
from nastune.sources import GAZETTE

RTT = 0.001  # seconds: a LAN round trip with some queueing
HEADROOM = 2  # TCP counts overhead in its buffer (tcp_adv_win_scale): about half is payload


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    rated = [(i, r) for i in links(facts) if (r := rate(i)).known and r.value]
    if not rated or (ram(facts) or 0) < 1 << 30:
        return  # a box under 1 GiB gets tcp-buffers-small-ram instead
    fastest, speed = max(rated, key=lambda pair: pair[1].value or 0)
    need = int(float(speed.value or 0) * 1e6 / 8 * RTT * HEADROOM)
    target = max(6 * MiB, 1 << math.ceil(math.log2(need)))
    changes, evidence = [], []
    for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"):
        values = sysctl.ints(key)
        if values and len(values) == 3 and values[2] < need:
            evidence.append(Evidence.of(key, sysctl.get(key)))
            changes.append(
                Change(
                    knob="sysctl",
                    target=key,
                    current=" ".join(map(str, values)),
                    new=f"{values[0]} {values[1]} {target}",
                )
            )
    if not changes:
        return
    for key in ("net.core.rmem_max", "net.core.wmem_max"):  # the cap for sockets that set their own size
        value = sysctl.int(key)
        if value is not None and value < need:
            evidence.append(Evidence.of(key, sysctl.get(key)))
            changes.append(Change(knob="sysctl", target=key, current=value, new=target))
    yield rule.finding(
        target="tcp",
        impact=7,
        message=f"A {speed.value} Mb/s link ({fastest.name}) with a {RTT * 1000:g} ms round trip needs TCP buffers "
        f"of about {human(need)}; these limits are smaller, so one connection cannot fill the link.",
        evidence=[Evidence.of(f"{fastest.name} rate (Mb/s)", speed), *evidence],
        changes=changes,
    )


RULE = Rule(
    id="tcp-buffers-below-bdp",
    title="TCP buffer limits below the link's bandwidth-delay product",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("network", "sysctl", "system"),
    clients=True,
    gain="A single SMB or NFS connection can keep the link full; the lab measured 5-7% lost to small TCP "
    "memory limits under 1 Gbit shaping.",
    tradeoff="Each connection may use up to the new maximum of kernel memory: on a box with little RAM and "
    "many clients that memory comes from the page cache (see tcp-buffers-small-ram).",
    source=f"{GAZETTE}, section 1.3.1 (net.core.rmem_max/rmem_default); kernel ip-sysctl documentation (tcp_rmem)",
)
