from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, served_datasets
from nastune.sources import MINET_ZFS

RISK = (
    "sync=standard lets ZFS acknowledge non-sync writes before they are on disk, as POSIX allows; "
    "sync=disabled (never proposed here) would also ignore explicit fsync and can lose seconds of data "
    "that clients believe is safe."
)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    zfs = present(facts.zfs)
    for d in served_datasets(facts):  # not a boot pool's or an application's dataset
        value = d.properties.get("sync")
        if value == "always":
            yield rule.finding(
                target=d.name,
                impact=30,
                severity=Severity.medium,
                message=f"Dataset {d.name} has sync=always: every write waits for the intent log on disk.",
                evidence=[Evidence(fact=f"{d.name} sync", value=value, source=zfs.datasets.source)],
                changes=[Change(knob="zfs_property", target=d.name, key="sync", current=value, new="standard")],
                advice="If the dataset holds VM images or databases that need every write durable, keep "
                "sync=always and add a fast mirrored log device (SLOG) instead.",
            )


RULE = Rule(
    id="zfs-sync-always",
    title="ZFS sync=always on a dataset",
    area="zfs",
    severity=Severity.medium,
    check=check,
    needs=("zfs",),
    gain="MiNET's 2013 benchmark: synchronous writes raised latency 10x (large files) to 20x (small "
    "files), up to 100x in places.",
    tradeoff=RISK + " nastune applies it only with --accept-risk durability.",
    source=f"{MINET_ZFS} (sync vs async; SLOG)",
)
