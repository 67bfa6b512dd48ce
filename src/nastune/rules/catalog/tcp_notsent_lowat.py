"""# tcp-notsent-lowat: Unsent data unlimited behind raised send buffers

## Problem
SMB2/3 and NFS send many requests' replies over one TCP connection. Where the send buffers are
raised above the kernel's default (for a long path, or by a tuning profile), a large read can
queue megabytes in the socket before they are sent, and the reply to a small request made
meanwhile (a directory listing, a lock, a stat) waits behind all of it.
`net.ipv4.tcp_notsent_lowat` bounds the data queued but not yet sent; by default it is unlimited.

## Detection
`net.ipv4.tcp_notsent_lowat` is 4294967295 (unlimited) and the maximum of `net.ipv4.tcp_wmem`
is above its default of 4 MiB.

## Fix
`sysctl` net.ipv4.tcp_notsent_lowat = 131072 (128 KiB).

## Trade-off
The server wakes more often to refill the socket, a little more CPU per byte; a connection that
only streams gains nothing.

## Source
Linux kernel documentation, ip-sysctl (tcp_notsent_lowat),
https://docs.kernel.org/networking/ip-sysctl.html.
Jonathan Corbet, "TCP_NOTSENT_LOWAT", LWN.net, 2013, https://lwn.net/Articles/560082/.
Patrick Meenan, "Optimizing HTTP/2 prioritization with BBR and tcp_notsent_lowat", Cloudflare
blog, 2018, https://blog.cloudflare.com/http-2-prioritization-with-nginx/.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import MiB, human, present

KEY = "net.ipv4.tcp_notsent_lowat"
UNLIMITED = 4294967295  # the kernel's default: no limit on data queued but not sent
DEFAULT_SEND_MAX = 4 * MiB  # tcp_wmem's default maximum
LOWAT = 128 * 1024


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    lowat, wmem = sysctl.int(KEY), sysctl.ints("net.ipv4.tcp_wmem")
    if lowat != UNLIMITED or not wmem or len(wmem) != 3 or wmem[2] <= DEFAULT_SEND_MAX:
        return
    yield rule.finding(
        target=KEY,
        impact=3,
        message=f"Send buffers may grow to {human(wmem[2])} and nothing limits the part not yet sent: a reply "
        "to a small SMB or NFS request waits behind megabytes of a large read already queued on the same "
        "connection.",
        evidence=[Evidence.of(KEY, sysctl.get(KEY)), Evidence.of("net.ipv4.tcp_wmem", sysctl.get("net.ipv4.tcp_wmem"))],
        changes=[Change(knob="sysctl", target=KEY, current=UNLIMITED, new=LOWAT)],
    )


RULE = Rule(
    id="tcp-notsent-lowat",
    title="Unsent data unlimited behind raised send buffers",
    area="network",
    severity=Severity.low,
    check=check,
    needs=("sysctl",),
    gain="Small requests (listings, locks, metadata) multiplexed on a connection with a large transfer are "
    "answered without waiting for megabytes of queued data; less memory pinned per connection.",
    tradeoff="The server refills the socket more often: a little more CPU per byte; no gain on a connection "
    "that only streams.",
    source="Linux kernel documentation, ip-sysctl (tcp_notsent_lowat), https://docs.kernel.org/networking/"
    'ip-sysctl.html; Jonathan Corbet, "TCP_NOTSENT_LOWAT", LWN.net, 2013, https://lwn.net/Articles/560082/; '
    'Patrick Meenan, "Optimizing HTTP/2 prioritization with BBR and tcp_notsent_lowat", Cloudflare blog, 2018, '
    "https://blog.cloudflare.com/http-2-prioritization-with-nginx/",
)
