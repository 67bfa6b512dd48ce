"""# nfs-client-noac: NFS client mount without an attribute cache

## Problem
A Linux NFS client caches each file's and directory's attributes for a few seconds (3 to 60 by
default). `noac` turns that cache off and makes every write synchronous; `actimeo=0` turns the
cache off alone. Then every `stat`, `open` and directory listing asks the server for each file's
attributes again: a listing of a directory of thousands of files costs a round trip per file. The
options are often copied from advice about shared mailboxes or build directories, where several
clients must see each other's changes at once.

## Detection
An NFS entry of the client's /etc/fstab carries `noac` or `actimeo=0`.

## Fix
Remove the option from the fstab entry; the share is mounted again with the kernel's default
attribute cache. Where several clients write the same files and must see each other's changes
at once, keep the cache short instead of off: `actimeo=1` or `lookupcache=positive`.

## Trade-off
A change another client makes to a file's size or times is seen up to 60 s later. Close-to-open
consistency still holds: a file opened after another client closed it is read as written.
Without `noac`, writes are buffered on the client until the file is closed or synced, as they
are on a mount without it: removing `noac` is applied only with `--accept-risk durability`.

## In the lab
The kernel lab's client mounts with the kernel's own NFS client, so `nastune lab up --kernel
--scenario kernel-noac` has the option to remove, and the `big-dir` workload on the client's
mount measures what it costs (`bench/kernel_noac.py`).

<!-- figures: kernel-noac -->
On the kernel lab's kernel-noac scenario (a client mounting NFSv3 with actimeo=0, 2 ms away), this
rule alone, interleaved on the client's own mount with big-dir (5,000 files listed with their
attributes after the client's dentries are dropped, and missing names looked up), run 3 times under
software emulation (13 min a run with the guest's boot): a listing took 104 s with actimeo=0 and 0.4
s without (medians); list entries/s: better 252x (192x..330x); better 218x (124x..384x); better 247x
(199x..305x); miss latency: better -83% (-86%..-80%); better -83% (-87%..-79%); better -82%
(-90%..-68%) (bench/results/kernel-noac.json). Emulation sets these figures, not a NAS's; the round
trips a listing saves are the kernel's own.
<!-- end of figures -->

## Source
nfs(5), section DATA AND METADATA COHERENCE (`ac`/`noac`, `actimeo`, `acregmin` to `acdirmax`),
https://man7.org/linux/man-pages/man5/nfs.5.html.
"""

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
