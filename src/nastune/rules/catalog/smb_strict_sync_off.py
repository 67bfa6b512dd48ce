from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present
from nastune.sources import MINET_ZFS

RISK = (
    "strict sync = no makes smbd ignore the flushes clients ask for (a Windows 'flush', a macOS "
    "fsync): data a client was told is on disk can be lost in a server crash."
)


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    if c is None:
        return
    for scope, params in (("global", c.globals), *c.shares.items()):
        value = params.get("strict sync")
        if value is not None and value.lower() in ("no", "false", "0"):
            yield rule.finding(
                target=f"{scope}:strict sync",
                impact=4,
                message=f"[{scope}] strict sync = no: {RISK} It is often set for macOS clients' speed; if that "
                "was the choice, keep it knowingly.",
                evidence=[Evidence(fact=f"[{scope}] strict sync", value=value, source=smb.config.source)],
                changes=[Change(knob="samba", target=scope, key="strict sync", current=value, new="yes")],
            )


RULE = Rule(
    id="smb-strict-sync-off",
    title="Samba ignores clients' flush requests",
    area="smb",
    severity=Severity.medium,
    check=check,
    needs=("smb",),
    gain="A client's flush means what it says again: its data is on disk when smbd answers.",
    tradeoff="Clients that flush often (macOS, databases on a share) wait for the disks on each flush; "
    "nastune changes it only with --accept-risk durability, as it reverses a speed-for-safety choice.",
    source=f"smb.conf(5) (strict sync, sync always); {MINET_ZFS} (sync vs async latency)",
)
