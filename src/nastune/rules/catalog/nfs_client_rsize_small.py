from nastune.rules.model import Change, Evidence, Rule, Severity
from nastune.rules.query import MiB

SMALL = 32768  # 002: from 8192 to 32768 or more
RECOMMENDED = 1 * MiB


def check(rule, facts):
    for m in facts.nfs_client.mounts.value or []:
        small = [(key, value) for key, value in (("rsize", m.rsize), ("wsize", m.wsize)) if value and value < SMALL]
        if small:
            yield rule.finding(
                target=m.mountpoint,
                impact=25,
                severity=Severity.high,
                message=f"{m.mountpoint} ({m.server}, NFSv{m.version}) moves data in "
                + " and ".join(f"{k} {v}" for k, v in small)
                + "-byte RPCs: a large copy needs a round trip per few KiB.",
                evidence=[
                    Evidence(fact=f"{m.mountpoint} {k}", value=v, source=facts.nfs_client.mounts.source)
                    for k, v in small
                ],
                changes=[
                    Change(knob="nfs_client_mount", target=m.mountpoint, key=k, current=v, new=RECOMMENDED)
                    for k, v in small
                ],
            )


RULE = Rule(
    id="nfs-client-rsize-small",
    title="NFS client rsize/wsize small",
    area="nfs",
    severity=Severity.high,
    check=check,
    needs=("nfs_client",),
    gain="002: large-file NFS copies roughly doubled (6.5 -> 13.5 MB/s) going from 8K to 32K; modern "
    "servers negotiate up to 1 MiB.",
    tradeoff="None for TCP on a clean LAN; the server may still negotiate a smaller size (its MaxRead/MaxWrite).",
    source="002 (rsize/wsize 8192 -> 32768); nfs(5)",
)
