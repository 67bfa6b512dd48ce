"""# nfs-export-krb5-integrity: NFS export with per-RPC Kerberos integrity or privacy

## Problem
`sec=krb5i` adds a cryptographic checksum to every NFS request and reply; `sec=krb5p` encrypts
them. Both run in software on the server for every byte served, on the same CPUs that serve the
data, so a busy export pays for them in throughput and latency.

## Detection
An export line in /etc/exports or /etc/exports.d whose client offers `krb5i` or `krb5p` first in
its `sec=` list; an NFS-Ganesha export whose `SecType` (its own, or EXPORT_DEFAULTS') offers them
first.

## Fix
None applied: advice only. On a trusted storage network `sec=krb5` keeps Kerberos
authentication without the per-RPC work; where the network is not trusted, keep krb5p and budget
the CPU for it.

## Trade-off
Dropping integrity or privacy exposes data on the wire: a security decision for the operator.

## Source
exports(5) (sec=); nfs(5) (sec=krb5, krb5i, krb5p); NFS-Ganesha config_samples/export.txt (SecType).
"""

from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present

COST = {
    "krb5p": "encrypts every RPC (privacy)",
    "krb5i": "checksums every RPC (integrity)",
}

ADVICE = (
    "Keep krb5p where the network is untrusted. On a trusted storage network, krb5 keeps Kerberos "
    "authentication without per-RPC work; otherwise budget CPU for it (measure with the serving threads' "
    "CPU in a profile) or use CPUs with AES acceleration."
)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    """One finding per kernel export line whose clients are offered krb5i or krb5p first, and
    per NFS-Ganesha export whose SecType offers them first."""
    nfs_server = present(facts.nfs_server)
    ganesha = nfs_server.ganesha.value if nfs_server.ganesha.known else None
    for g in ganesha.exports if ganesha else []:
        if g.sec_type and g.sec_type[0].lower() in COST:
            flavour = g.sec_type[0].lower()
            yield rule.finding(
                target=f"ganesha export {g.export_id}",
                impact=3,
                message=f"NFS-Ganesha export {g.export_id} ({g.path}) offers {flavour} first: the server "
                f"{COST[flavour]} in software, on the CPU that also serves the data.",
                evidence=[
                    Evidence(
                        fact=f"export {g.export_id} SecType", value=", ".join(g.sec_type), source=f"{g.file}:{g.line}"
                    )
                ],
                advice=ADVICE,
            )
    for e in nfs_server.exports.value or []:
        heavy = []
        for c in e.clients:
            flavours = [f for o in c.options if o.startswith("sec=") for f in o[4:].split(":")]
            if flavours and flavours[0] in COST:  # the first flavour is the one clients are offered first
                heavy.append((c, flavours[0]))
        if not heavy:
            continue
        hosts = ", ".join(f"{c.host} ({flavour})" for c, flavour in heavy)
        yield rule.finding(
            target=e.path,
            impact=3,
            message=f"{e.path} is exported with per-RPC Kerberos protection to {hosts}: the server "
            f"{'; '.join(sorted({COST[f] for _, f in heavy}))} in software, on the CPU that also serves the data.",
            evidence=[
                Evidence(fact=f"export {e.path} {c.host}", value=",".join(c.options), source=f"{e.source}:{e.line}")
                for c, _ in heavy
            ],
            advice=ADVICE,
        )


RULE = Rule(
    id="nfs-export-krb5-integrity",
    title="NFS export with per-RPC Kerberos integrity or privacy",
    area="nfs",
    severity=Severity.low,
    check=check,
    needs=("nfs_server",),
    gain="sec=krb5 instead of krb5p or krb5i removes the per-RPC checksum or encryption from every read and write.",
    tradeoff="krb5i and krb5p protect data on the wire against tampering and eavesdropping: dropping them is a "
    "security decision, never made by nastune.",
    source="exports(5) (sec=), nfs(5) (sec=krb5, krb5i, krb5p), NFS-Ganesha config_samples/export.txt (SecType)",
)
