from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    if c is None:
        return
    value = c.globals.get("use sendfile")
    if value is not None and value.lower() in ("no", "false", "0"):
        yield rule.finding(
            target="global:use sendfile",
            impact=4,
            message="use sendfile = no: file reads are copied through smbd's memory instead of going from the "
            "page cache to the socket.",
            evidence=[Evidence(fact="[global] use sendfile", value=value, source=smb.config.source)],
            changes=[Change(knob="samba", target="global", key="use sendfile", current=value, new="yes")],
        )


RULE = Rule(
    id="smb-sendfile-off",
    title="Samba sendfile disabled",
    area="smb",
    severity=Severity.low,
    check=check,
    needs=("smb",),
    gain="Reads skip a copy through user space: less CPU per byte served, which is throughput on a small CPU.",
    tradeoff="Some clients and file systems have had bugs with sendfile (the reason it is off by default); "
    "verify reads after enabling.",
    source="smb.conf(5) (use sendfile)",
)
