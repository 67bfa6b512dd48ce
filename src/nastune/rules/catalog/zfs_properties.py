"""ZFS properties set to a slow value on a dataset a share serves, one rule a row
(rules/parameter.py). xattr has a module of its own: what `on` means depends on the version."""

from nastune.rules.model import Rule, Severity
from nastune.rules.parameter import Slow, zfs
from nastune.sources import GAZETTE, MINET_NFS, MINET_ZFS

SYNC_RISK = (
    "sync=standard lets ZFS acknowledge non-sync writes before they are on disk, as POSIX allows; "
    "sync=disabled (never proposed here) would also ignore explicit fsync and can lose seconds of data "
    "that clients believe is safe."
)

RULES = [
    Rule(
        id="zfs-atime",
        doc="""# zfs-atime: ZFS atime on

## Problem
With atime=on every read updates the file's access time: a copy-on-write metadata write per read.

## Detection
A dataset with `atime=on` that holds shared data (a Samba share's path or an NFS export lies on it,
or it is mounted below one; every one when no share is known).

## Fix
`zfs_property` atime=off.

## Trade-off
No access times; relatime=on keeps a coarse one.

## Source
Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html, section 2.4.1 and "Tuning de performance NFS", WikiMiNET (MiNET's technical wiki), page sysadmin:tuning_nfs, 2014 (noatime); zfsprops(7).
""",
        title="ZFS atime on",
        area="zfs",
        severity=Severity.low,
        check=zfs(
            "atime",
            Slow(
                ("on",),
                "off",
                4,
                lambda name, *_: f"Dataset {name} records access times: every read is also a metadata write.",
            ),
        ),
        needs=("zfs",),
        gain="Reads stop generating writes (the ZFS counterpart of noatime, Borikar and Palani (2011) and MiNET "
        "(2014)).",
        tradeoff="Access times are no longer updated; relatime=on is the compromise.",
        source=f"{GAZETTE}, section 2.4.1, {MINET_NFS} (noatime); zfsprops(7)",
    ),
    Rule(
        id="zfs-compression-off",
        doc="""# zfs-compression-off: ZFS compression off

## Problem
Uncompressed datasets write and read every byte of compressible data from the disks.

## Detection
A dataset with `compression=off` (`zfs get`) that holds shared data (a Samba share's path or an NFS
export lies on it, or it is mounted below one; every one when no share is known).

## Fix
`zfs_property` compression=lz4 (applies to new writes).

## Trade-off
CPU per block; existing data stays uncompressed until rewritten.

## Source
"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013: lz4 ratio 3.64 on text, 1.14 on gz archives, no throughput loss; lzjb 2.46 / 1.10.
""",
        title="ZFS compression off",
        area="zfs",
        severity=Severity.low,
        check=zfs(
            "compression",
            Slow(
                ("off",),
                "lz4",
                5,
                lambda name, *_: (
                    f"Dataset {name} stores data uncompressed: every byte of compressible data costs "
                    "disk bandwidth and space."
                ),
            ),
        ),
        needs=("zfs",),
        gain="MiNET's 2013 benchmark: lz4 compressed text 3.64x (and already-compressed data 1.14x) with "
        "no throughput loss on a fast CPU, so less disk traffic per file.",
        tradeoff="CPU per block written and read; lz4 gives up early on incompressible data. Only new writes are "
        "compressed.",
        source=f"{MINET_ZFS} (compression lz4 vs lzjb)",
    ),
    Rule(
        id="zfs-sync-always",
        doc="""# zfs-sync-always: ZFS sync=always on a dataset

## Problem
`sync=always` turns every write into a synchronous one that waits for the ZFS intent log to reach
stable storage. Without a fast log device, small-file writes slow down by an order of magnitude.

## Detection
A dataset with `sync=always` that holds shared data (a Samba share's path or an NFS export lies on
it, or it is mounted below one; every one when no share is known).

## Fix
`zfs_property` sync=standard, marked as a durability trade-off (`--accept-risk durability`); or
keep it and add a mirrored SLOG where every write must be durable (VM images).

## Trade-off
Writes that the application did not ask to be synchronous may be lost in a crash (seconds' worth).

## Source
"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013 (sync writes 10-20x latency; SLOG and L2ARC devices).
""",
        title="ZFS sync=always on a dataset",
        area="zfs",
        severity=Severity.medium,
        check=zfs(
            "sync",
            Slow(
                ("always",),
                "standard",
                30,
                lambda name, *_: f"Dataset {name} has sync=always: every write waits for the intent log on disk.",
                severity=Severity.medium,
                advice="If the dataset holds VM images or databases that need every write durable, keep "
                "sync=always and add a fast mirrored log device (SLOG) instead.",
            ),
        ),
        needs=("zfs",),
        gain="MiNET's 2013 benchmark: synchronous writes raised latency 10x (large files) to 20x (small "
        "files), up to 100x in places.",
        tradeoff=SYNC_RISK + " nastune applies it only with --accept-risk durability.",
        source=f"{MINET_ZFS} (sync vs async; SLOG)",
    ),
]
