"""# zfs-xattr-dir: ZFS extended attributes in directories, not system attributes

## Problem
With `xattr=on` (before OpenZFS 2.2) or `xattr=dir` each extended attribute is a file in a hidden
directory: reading one costs up to three lookups. Samba reads xattrs for every file it lists (DOS
attributes, ACLs, macOS metadata).

## Detection
A dataset with `xattr=dir`, or `xattr=on` on a module older than OpenZFS 2.2, that holds shared
data (a Samba share's path or an NFS export lies on it, or it is mounted below one; every one when
no share is known). From 2.2 `on` means sa, and a dataset set to sa reads back as `on` (seen on
OpenZFS 2.3 in the kernel lab): the module's version, /sys/module/zfs/version, decides, and an
unknown version is read as older.

## Fix
`zfs_property` xattr=sa: small attributes live with the file's dnode.

## Trade-off
Only attributes written from then on move. Implementations without SA xattrs cannot read them.

## Source
Brian Behlendorf, "Implement SA based xattrs", openzfs/zfs issue #443, 2011,
https://github.com/openzfs/zfs/issues/443 (about 3x faster xattr access).
"xattr dataset prop: change defaults to sa", openzfs/zfs pull request #15147, 2023. zfsprops(7).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present, served_datasets, zfs_at_least


def _in_directories(value: str | None, sa_default: bool) -> bool:
    """Whether xattr=`value` keeps attributes in directories: dir always, and `on` before OpenZFS
    2.2, which made `on` mean sa (and shows a dataset set to sa as on)."""
    return value == "dir" or (value == "on" and not sa_default)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    zfs = present(facts.zfs)
    sa_default = zfs_at_least(facts, 2, 2)
    for d in served_datasets(facts):  # not a boot pool's or an application's dataset
        value = d.properties.get("xattr")
        if not _in_directories(value, sa_default):
            continue
        yield rule.finding(
            target=d.name,
            impact=10,
            message=f"Dataset {d.name} keeps extended attributes in hidden directories (xattr={value}): every "
            "xattr read costs up to three lookups, and Samba reads them for every file it lists (DOS "
            "attributes, ACLs, macOS metadata).",
            evidence=[
                Evidence(fact=f"{d.name} xattr", value=value, source=zfs.datasets.source),
                Evidence(fact="OpenZFS version", value=_version(facts), source="/sys/module/zfs/version"),
            ],
            changes=[Change(knob="zfs_property", target=d.name, key="xattr", current=value, new="sa")],
        )


def _version(facts: Facts) -> str:
    arc = facts.zfs.arc.known_value if facts.zfs else None
    return (arc.version if arc else None) or "unknown (read as before 2.2)"


RULE = Rule(
    id="zfs-xattr-dir",
    title="ZFS extended attributes in directories, not system attributes",
    area="zfs",
    severity=Severity.medium,
    check=check,
    needs=("zfs",),
    gain="xattr=sa stores small attributes with the file's dnode: about 3x faster xattr access; TrueNAS made it "
    "its default in 2021 and OpenZFS in 2.2.",
    tradeoff="Applies to attributes written from now on. Pools read by OpenZFS implementations without SA "
    "xattrs (old illumos) cannot read them.",
    source='Brian Behlendorf, "Implement SA based xattrs", openzfs/zfs issue #443, 2011, '
    'https://github.com/openzfs/zfs/issues/443; "xattr dataset prop: change defaults to sa", openzfs/zfs '
    "pull request #15147, 2023; zfsprops(7), xattr",
)
