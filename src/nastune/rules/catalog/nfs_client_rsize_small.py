"""# nfs-client-rsize-small: NFS client rsize/wsize small

## Problem
rsize and wsize are the largest READ and WRITE the client sends. At 8 KiB every large file moves in
8 KiB round trips: latency, not bandwidth, sets the speed.

## Detection
An NFS mount in /proc/self/mountstats negotiated with rsize or wsize below 32768, or an NFS entry
of /etc/fstab that is not mounted now and asks for less (it applies at the next mount). When
fstab already asks for 32768 or more and the live mount got less, the server cut it: the finding
says so, with no client change. A mount with no fstab entry (by hand, autofs, a systemd unit) gets
advice, since the change is made in fstab.

## Fix
`nfs_client_mount` rsize/wsize 1048576 (the server caps it at what it allows), by remount and in
/etc/fstab. Over UDP (obsolete) sizes must stay small; see nfs-client-obsolete-options.

## Trade-off
None on a TCP LAN; check the server's maximum (ganesha-io-size-small) too.

## Source
"Tuning de performance NFS", WikiMiNET (MiNET's technical wiki), page sysadmin:tuning_nfs, 2014 (8192 -> 32768: rsync 6.5 -> 13.5 MB/s); nfs(5).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import MiB, fstab_size, nfs_fstab, present
from nastune.sources import MINET_NFS

SMALL = 32768  # MiNET (2014): from 8192 to 32768 or more
RECOMMENDED = 1 * MiB
OUTSIDE_FSTAB = (
    "it is mounted outside /etc/fstab (by hand, autofs or a systemd unit), where nastune does not edit: "
    "add rsize=1048576,wsize=1048576 where it is mounted"
)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    """Live mounts (mountstats: what the server agreed to) and the fstab entries that apply at
    the next mount. A live size below what fstab asks was cut by the server: no client change
    helps there."""
    nfs_client = present(facts.nfs_client)
    fstab = nfs_fstab(facts)
    live = {m.mountpoint: m for m in nfs_client.mounts.value or []}
    for mountpoint in [*live, *(f for f in fstab if f not in live)]:
        m, entry = live.get(mountpoint), fstab.get(mountpoint)
        asked = {k: fstab_size(entry, k) for k in ("rsize", "wsize")} if entry else {}
        sizes = {"rsize": m.rsize, "wsize": m.wsize} if m else asked
        small = [(k, v) for k, v in sizes.items() if v and v < SMALL]
        if not small:
            continue
        cut = [k for k, v in small if (asked.get(k) or 0) >= SMALL]  # fstab asks more: the server gave less
        sized = " and ".join(f"{k} {v}" for k, v in small)
        if m:
            where = nfs_client.mounts.source
            what = f"{mountpoint} ({m.server}, NFSv{m.version}) moves data in {sized}-byte RPCs"
        else:
            line = entry.line if entry else 0
            where, what = (
                f"/etc/fstab:{line}",
                f"/etc/fstab line {line} mounts {mountpoint} with {sized} at its next mount",
            )
        advice = None
        if cut:
            advice = (
                f"/etc/fstab asks for more ({', '.join(f'{k}={asked[k]}' for k in cut)}): the server cut it. "
                "Raise the server's limit (NFS-Ganesha MaxRead/MaxWrite, knfsd /proc/fs/nfsd/max_block_size)."
            )
        elif entry is None:
            advice = f"{mountpoint}: {OUTSIDE_FSTAB}."
        yield rule.finding(
            target=mountpoint,
            impact=25,
            severity=Severity.high,
            message=f"{what}: a large copy needs a round trip per few KiB.",
            evidence=[Evidence(fact=f"{mountpoint} {k}", value=v, source=where) for k, v in small],
            changes=[]
            if advice
            else [
                Change(knob="nfs_client_mount", target=mountpoint, key=k, current=v, new=RECOMMENDED) for k, v in small
            ],
            advice=advice,
        )


RULE = Rule(
    id="nfs-client-rsize-small",
    title="NFS client rsize/wsize small",
    area="nfs",
    severity=Severity.high,
    check=check,
    needs=("nfs_client", "mounts"),
    protocol="nfs",
    clients=True,
    gain="MiNET (2014): large-file NFS copies roughly doubled (6.5 -> 13.5 MB/s) going from 8K to 32K; modern "
    "servers negotiate up to 1 MiB.",
    tradeoff="None for TCP on a clean LAN; the server may still negotiate a smaller size (its MaxRead/MaxWrite).",
    source=f"{MINET_NFS} (rsize/wsize 8192 -> 32768); nfs(5)",
)
