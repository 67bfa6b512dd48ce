"""# tcp-congestion-on-loss: Loss-based congestion control on a path that loses packets

## Problem
CUBIC, Linux's default congestion control, reads every lost segment as congestion and cuts its
sending window. Clients over Wi-Fi, a VPN or a switch with shallow buffers lose packets for
reasons that have nothing to do with congestion, and a NAS sending to them then runs far below
what the path carries. BBR instead models the path's bottleneck bandwidth and round trip and
sends at that rate.

## Detection
At least 1% of the TCP segments the NAS sent (of at least 100,000, counted since boot in
`/proc/net/snmp`) were retransmitted, `net.ipv4.tcp_congestion_control` is cubic or reno, and
the kernel is 4.9 or later (BBR's first).

## Fix
`sysctl` net.ipv4.tcp_congestion_control = bbr (the kernel loads tcp_bbr). Where
`net.core.default_qdisc` is not fq, the finding also says how to add fq, which paces BBR's
packets at less CPU (BBR paces itself since Linux 4.13).

## Trade-off
BBR (v1) can take more than its share of a bottleneck it shares with CUBIC flows, and with
shallow buffers it retransmits more; the setting changes every connection of the host.
Retransmissions counted since boot may date from a problem already fixed: measure before and
after (`nastune ab`).

## Source
Neal Cardwell, Yuchung Cheng, C. Stephen Gunn, Soheil Hassas Yeganeh and Van Jacobson, "BBR:
Congestion-Based Congestion Control", ACM Queue 14(5), 2016,
https://queue.acm.org/detail.cfm?id=3022184.
Mario Hock, Roland Bless and Martina Zitterbart, "Experimental Evaluation of BBR Congestion
Control", IEEE ICNP 2017, https://doi.org/10.1109/ICNP.2017.8117540.
Linux kernel documentation, ip-sysctl (tcp_congestion_control),
https://docs.kernel.org/networking/ip-sysctl.html.
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import kernel_at_least, present

KEY = "net.ipv4.tcp_congestion_control"
LOSSY = 0.01  # a segment in a hundred sent again: loss a loss-based congestion control halves its rate at
ENOUGH = 100_000  # segments sent before the share means anything


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl, network = present(facts.sysctl), present(facts.network)
    algorithm = sysctl.get(KEY)
    counted = network.tcp_segments.known_value if network.tcp_segments else None
    if not counted or algorithm.value not in ("cubic", "reno") or not kernel_at_least(facts, 4, 9):
        return
    sent, again = counted.get("OutSegs", 0), counted.get("RetransSegs", 0)
    if sent < ENOUGH or again / sent < LOSSY:
        return
    qdisc = sysctl.get("net.core.default_qdisc").value
    yield rule.finding(
        target=KEY,
        impact=10,
        message=f"{again / sent:.1%} of the TCP segments this NAS sent were sent again, and {algorithm.value} "
        "reads every loss as congestion: on a path that drops packets for other reasons (Wi-Fi, a VPN, a "
        "shallow switch buffer) it keeps the rate far below what the path carries.",
        evidence=[
            Evidence.of(KEY, algorithm),
            Evidence(fact="TCP segments sent / sent again", value=f"{sent} / {again}", source="/proc/net/snmp"),
        ],
        changes=[Change(knob="sysctl", target=KEY, current=algorithm.value, new="bbr")],
        advice=None
        if qdisc == "fq"
        else "BBR paces itself since Linux 4.13; with net.core.default_qdisc = fq (and `tc qdisc replace dev "
        "IFACE root fq` for a link already up) the pacing is done by the qdisc at less CPU.",
    )


RULE = Rule(
    id="tcp-congestion-on-loss",
    title="Loss-based congestion control on a path that loses packets",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("sysctl", "network", "system"),
    clients=True,
    gain="On paths with random loss, BBR keeps sending near the path's measured bottleneck rate, where CUBIC "
    "cuts its window at every loss.",
    tradeoff="BBR (v1) can take more than its share of a bottleneck shared with CUBIC flows, and with shallow "
    "buffers it retransmits more; it changes every connection of this host.",
    source='Neal Cardwell, Yuchung Cheng, C. Stephen Gunn, Soheil Hassas Yeganeh and Van Jacobson, "BBR: '
    'Congestion-Based Congestion Control", ACM Queue 14(5), 2016, https://queue.acm.org/detail.cfm?id=3022184; '
    'Mario Hock, Roland Bless and Martina Zitterbart, "Experimental Evaluation of BBR Congestion Control", IEEE '
    "ICNP 2017, https://doi.org/10.1109/ICNP.2017.8117540; Linux kernel documentation, ip-sysctl "
    "(tcp_congestion_control), https://docs.kernel.org/networking/ip-sysctl.html",
)
