"""# nfs-export-sync-mode: NFS export write mode, sync (safe) or async (fast, unsafe)

## Problem
With `sync` (the default), the kernel NFS server commits data to disk before it answers a write
or COMMIT, so write speed is bounded by the disks' commit latency. `async` answers at once, which
is much faster and unsafe: a crash loses writes the client was told were stable.

## Detection
Every writable client of every export line in /etc/exports and /etc/exports.d, one finding per
line and mode with its clients listed: async exports are reported as a durability risk (medium)
with the change back to sync; sync exports are reported (info) with the change to async. Both
changes trade durability (nastune judges that from the mode they write), which `apply` and `optimize` refuse without
`--accept-risk durability`: async may be a choice the operator made knowingly, and going back to
sync makes writes 2-6x slower, so neither direction is taken without consent.
Read-only clients (`ro`, and exports(5)'s default when neither `rw` nor `ro` is given) are left
out: a read-only export acknowledges no writes, so it has none to lose.

## Fix
`nfs_export` option sync or async for that client.

## Trade-off
Speed versus the guarantee that acknowledged data survives a server crash. Never chosen silently.

## Source
"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013 (sync vs async writes: 10-20x latency on sync datasets; 2-6x on sequential NFS writes);
exports(5).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import MINET_ZFS

ASYNC_RISK = (
    "async makes the server acknowledge writes before they reach the disk: a server crash or "
    "power loss silently loses data the clients believe is safe."
)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    """One finding per export line and mode, its clients listed: a line exported to many hosts
    is one decision, not one per host."""
    nfs_server = present(facts.nfs_server)
    exports = nfs_server.exports
    for e in exports.value or []:
        # read-only clients (exports(5)'s default) acknowledge no writes, so have none to lose
        writable = [c for c in e.clients if c.last("rw", "ro") == "rw"]
        for mode in ("async", "sync"):
            clients = [c for c in writable if (c.last("sync", "async") or "sync") == mode]
            if not clients:
                continue
            hosts = ", ".join(c.host for c in clients)
            evidence = [
                Evidence(
                    fact=f"export {e.path} {c.host}",
                    value=",".join(c.options) or "(defaults: sync)",
                    source=f"{e.source}:{e.line}",
                )
                for c in clients
            ]
            other = "sync" if mode == "async" else "async"
            # both ways need consent: async may be the operator's choice, and sync costs 2-6x on writes
            changes = [
                Change(knob="nfs_export", target=e.path, key=f"{c.host}:{other}", current=mode, new=other)
                for c in clients
            ]
            if mode == "async":
                yield rule.finding(
                    target=e.path,
                    impact=1,
                    severity=Severity.medium,
                    evidence=evidence,
                    message=f"{e.path} is exported async to {hosts}: fast, but {ASYNC_RISK}",
                    changes=changes,
                    gain="Crash safety restored; writes then wait for the disk (slower, as MiNET's 2013 "
                    "benchmark measured: 2-6x on sequential NFS writes).",
                    tradeoff="Write throughput falls to what the disks commit.",
                )
            else:
                yield rule.finding(
                    target=e.path,
                    impact=2,
                    severity=Severity.info,
                    evidence=evidence,
                    message=f"{e.path} is exported sync to {hosts}: safe. async would be faster for writes, "
                    f"at a cost to state plainly: {ASYNC_RISK}",
                    changes=changes,
                )


RULE = Rule(
    id="nfs-export-sync-mode",
    title="NFS export write mode: sync (safe) or async (fast, unsafe)",
    area="nfs",
    severity=Severity.info,
    check=check,
    needs=("nfs_server",),
    gain="async: sequential NFS writes up to 2-6x faster (MiNET's 2013 benchmark measured sync writes on an "
    "async dataset over NFS).",
    tradeoff=ASYNC_RISK + " nastune applies async only with --accept-risk durability.",
    source=f"{MINET_ZFS} (sync vs async); exports(5)",
)
