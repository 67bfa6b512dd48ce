from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import links, rate
from nastune.sources import GOODPUT, MINET_NFS


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    for i in links(facts):
        speed = rate(i).value if rate(i).known else None
        mtu = i.mtu.value if i.mtu.known else None
        if mtu is None or mtu > 1500 or speed is None or speed < 1000:
            continue
        yield rule.finding(
            target=i.name,
            impact=5,
            message=f"{i.name} carries up to {speed} Mb/s with MTU {i.mtu.value}: every 1448 bytes of data "
            "cost a packet, its interrupt share and its headers.",
            evidence=[Evidence.of(f"{i.name} MTU", i.mtu), Evidence.of(f"{i.name} rate (Mb/s)", rate(i))],
            changes=[Change(knob="mtu", target=i.name, current=i.mtu.value, new=9000)],
        )


RULE = Rule(
    id="mtu-jumbo-frames",
    title="Jumbo frames not used on a storage link",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("network",),
    gain="Goodput ceiling of 1 GbE rises from 117.7 to 123.8 MB/s (+5%) and the packet rate falls sixfold; "
    "MiNET (2014) raised MTU 1500 -> 7200 on its storage network, and Samba over the lab's link gained 4%.",
    tradeoff="Every host and switch port on the segment must accept the larger MTU, or large packets are "
    "dropped and connections hang; keep the management network at 1500 if it is shared. "
    "Persist it in the interface configuration.",
    source=f"{MINET_NFS} (jumbo frames); {GOODPUT}",
)
