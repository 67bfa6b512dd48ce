from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import nfs_fstab

# the options that turn the client's attribute cache off (nfs(5), "DATA AND METADATA COHERENCE"):
# noac, or a cache time of 0 for files and directories alike
OFF = ("noac", "actimeo=0")


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    """fstab's NFS entries, where the option is written and nastune removes it."""
    for mountpoint, entry in nfs_fstab(facts).items():
        found = [o for o in entry.options if o in OFF]
        if not found:
            continue
        yield rule.finding(
            target=mountpoint,
            impact=12,
            message=f"/etc/fstab line {entry.line} mounts {mountpoint} with {', '.join(found)}: the client keeps no "
            "file or directory attributes, so every stat, open and listing asks the server again (a GETATTR "
            "per file), and noac also makes every write synchronous.",
            evidence=[
                Evidence(
                    fact=f"fstab {mountpoint} options", value=",".join(entry.options), source=f"/etc/fstab:{entry.line}"
                )
            ],
            changes=[
                Change(
                    knob="nfs_client_mount",
                    target=mountpoint,
                    key=o.partition("=")[0],
                    current=o.partition("=")[2] or o,
                    new=None,
                )
                for o in found
            ],
            advice="Where several clients write the same files and one must see another's change at once (a "
            "shared mailbox, a build directory), keep the attribute cache short instead of off: actimeo=1 or "
            "lookupcache=positive.",
        )


RULE = Rule(
    id="nfs-client-noac",
    title="NFS client mount without an attribute cache",
    area="nfs",
    severity=Severity.medium,
    check=check,
    needs=("mounts",),
    clients=True,
    gain="Attributes are cached for 3-60 s (the kernel's default acregmin..acdirmax): listings, stats and opens "
    "of big directories stop costing a round trip per file, and writes are buffered again.",
    tradeoff="A change another client makes to a file's size or times is seen up to 60 s later; close-to-open "
    "consistency still holds (a file opened after another client closed it is read as written). Without "
    "noac, writes are buffered until close or fsync: removing it trades durability (--accept-risk durability).",
    source="nfs(5), DATA AND METADATA COHERENCE (ac/noac, actimeo, acregmin..acdirmax), "
    "https://man7.org/linux/man-pages/man5/nfs.5.html",
)
