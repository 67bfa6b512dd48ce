from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import MINET_ZFS

RISK = (
    "sync always = no leaves durability to the clients' own flush requests (honoured while strict sync "
    "is yes): data a client wrote without flushing can be lost in a server crash."
)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    if c is None:
        return
    for scope, params in (("global", c.globals), *c.shares.items()):
        value = params.get("sync always")
        if value is not None and value.lower() in ("yes", "true", "1"):
            yield rule.finding(
                target=f"{scope}:sync always",
                impact=30,
                severity=Severity.medium,
                message=f"[{scope}] sync always = yes: smbd flushes to disk after every write, so writes run at the "
                "disks' commit latency (MiNET's 2013 benchmark: 10-20x the latency of async writes on small files).",
                evidence=[Evidence(fact=f"[{scope}] sync always", value=value, source=smb.config.source)],
                changes=[Change(knob="samba", target=scope, key="sync always", current=value, new="no")],
            )


RULE = Rule(
    id="smb-sync-always",
    title="Samba forces a sync after every write",
    area="smb",
    severity=Severity.medium,
    check=check,
    needs=("smb",),
    gain="MiNET's 2013 benchmark: synchronous writes were 10x (large files) to 20x (small files) "
    "slower than asynchronous ones.",
    tradeoff=RISK + " nastune applies it only with --accept-risk durability.",
    source=f"{MINET_ZFS} (sync vs async latency); smb.conf(5) (sync always, strict sync)",
)
