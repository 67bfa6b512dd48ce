"""# nic-offloads-disabled: NIC checksum / segmentation / GRO offloads disabled

## Problem
Checksum calculation, TCP segmentation and receive coalescing (GRO) are per-byte or per-packet work.
With the offloads off, the CPU does all of it, which caps throughput on a small NAS CPU.

## Detection
On a NIC (a device, or the interface that holds the address clients use), `ethtool --json -k`
reports one of rx/tx-checksumming, scatter-gather, TSO, GSO or GRO inactive while not fixed (so it
can be switched on). A container's veth or bridge is not judged.

## Fix
`ethtool_feature` on for each of them.

## Trade-off
Captures show offloaded (large) packets; very old or buggy NIC firmware has mis-handled offloads,
which is why some guides switch them off. Verify transfers after enabling.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, sections 1.1.2-1.1.4 (hardware checksum offload and moving work from the CPU to the NIC).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.facts.network import OFFLOADS
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import nics
from nastune.sources import GAZETTE


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    for i in nics(facts):
        features = (i.features.value if i.features.known else None) or {}
        off = [
            name
            for name in OFFLOADS
            if name in features and features[name].active is False and features[name].fixed is not True
        ]
        if off:
            yield rule.finding(
                target=i.name,
                impact=8,
                message=f"{i.name} has offloads switched off that it could do itself: {', '.join(off)}.",
                evidence=[Evidence(fact=f"{i.name} {name}", value="off", source=i.features.source) for name in off],
                changes=[
                    Change(knob="ethtool_feature", target=i.name, key=name, current="off", new="on") for name in off
                ],
            )


RULE = Rule(
    id="nic-offloads-disabled",
    title="NIC checksum / segmentation / GRO offloads disabled",
    area="network",
    severity=Severity.medium,
    check=check,
    needs=("network",),
    gain="Checksums and segmentation move from the CPU to the NIC (or are batched by GRO/GSO): less CPU per "
    "byte, which on small NAS CPUs is throughput.",
    tradeoff="Packet captures on the host then show large, unsegmented packets; a buggy NIC firmware may "
    "corrupt offloaded checksums (rare; the reason some guides disable them).",
    source=f"{GAZETTE}, sections 1.1.2-1.1.4 (hardware checksum offload, DMA descriptors)",
)
