from collections.abc import Iterator

from nastune.conf import samba as samba_conf
from nastune.facts import Facts
from nastune.facts.shares import BIG_DIRECTORY
from nastune.rules.model import Change, Evidence, Finding, Rule, Severity
from nastune.rules.query import present

RECIPE = "case sensitive = yes; default case = lower; preserve case = no; short preserve case = no"


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    smb = present(facts.smb)
    c = smb.config.value if smb.config.known else None
    if c is None:
        return
    for name, seen in sorted(smb.looks.items()):
        params = c.shares.get(name, {})
        case = params.get("case sensitive") or c.globals.get("case sensitive") or "auto"
        if seen.entries < BIG_DIRECTORY or case.strip().lower() not in samba_conf.CASELESS:
            continue
        many = f"more than {seen.entries - 1:,}" if seen.entries > 100_000 else f"{seen.entries:,}"
        yield rule.finding(
            target=f"{name}:case sensitive",
            impact=5,
            message=f"[{name}] {seen.largest} holds {many} entries and names are matched without case "
            f"(case sensitive = {case}): each name a client asks for that is not there exactly as spelled "
            "(a new file, a lookup of another case) makes smbd read the whole directory.",
            evidence=[
                Evidence(fact=f"[{name}] largest directory", value=f"{seen.largest}: {many} entries", source=seen.path),
                Evidence(fact=f"[{name}] case sensitive", value=case, source=smb.config.source),
            ],
            changes=[Change(knob="samba", target=name, key="case sensitive", current=case, new="yes")],
            advice=f"Clients that create names in another case than they open them with (Windows programs "
            f"may) need the whole recipe: rename every file and directory of [{name}] to lower case, then "
            f"{RECIPE}. Where clients must match names without case, split such directories (by date or by "
            "name) into ones of a few thousand entries instead.",
        )


RULE = Rule(
    id="smb-case-big-dir",
    title="Samba matching names without case in a very large directory",
    area="smb",
    severity=Severity.medium,
    check=check,
    needs=("smb",),
    protocol="smb",
    moves="metadata",
    gain="A missed name costs one lookup instead of a read of the whole directory: creating files in it and "
    "opening names in another case stop growing with the directory.",
    tradeoff="Names match by case for every client of the share: a Windows program that opens a name in "
    "another case than it was written finds nothing (applied only with --accept-risk compatibility).",
    source='Jeremy Allison, "Handling Large Directories", The Official Samba-3 HOWTO and Reference Guide, '
    "ch. 33, Samba Team, https://www.samba.org/samba/docs/old/Samba3-HOWTO/largefile.html; smb.conf(5), "
    "case sensitive",
)
