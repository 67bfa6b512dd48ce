from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, served_datasets
from nastune.sources import GAZETTE, MINET_NFS


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    zfs = present(facts.zfs)
    for d in served_datasets(facts):  # not a boot pool's or an application's dataset
        if d.properties.get("atime") == "on":
            yield rule.finding(
                target=d.name,
                impact=4,
                message=f"Dataset {d.name} records access times: every read is also a metadata write.",
                evidence=[Evidence(fact=f"{d.name} atime", value="on", source=zfs.datasets.source)],
                changes=[Change(knob="zfs_property", target=d.name, key="atime", current="on", new="off")],
            )


RULE = Rule(
    id="zfs-atime",
    title="ZFS atime on",
    area="zfs",
    severity=Severity.low,
    check=check,
    needs=("zfs",),
    gain="Reads stop generating writes (the ZFS counterpart of noatime, Borikar and Palani (2011) and MiNET (2014)).",
    tradeoff="Access times are no longer updated; relatime=on is the compromise.",
    source=f"{GAZETTE}, section 2.4.1, {MINET_NFS} (noatime); zfsprops(7)",
)
