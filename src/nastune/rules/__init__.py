"""The knowledge base: one module per rule in catalog/ (or in an installed extension, named under
the nastune.rules entry point: nastune.plugins), its page the module's docstring.

A rule module defines RULE (a Rule), or RULES, a table of rules one check reads
(rules/parameter.py). This package finds them all, evaluates them on facts and sorts the findings
by severity, then expected impact."""

from __future__ import annotations

from nastune import plugins, rulebook
from nastune.facts import Facts, appliance
from nastune.rules import catalog, query
from nastune.rules.model import Finding, Rule, Severity


def all_rules() -> list[Rule]:
    """The catalog's rules and every installed extension's (nastune.plugins)."""
    rules = []
    found = plugins.submodules(catalog.__name__, catalog.__path__)
    for module in [*found, *plugins.modules(plugins.RULES)]:
        for rule, doc in rulebook.defined(module):
            rule.doc, rule.module = doc, module.__name__
            rules.append(rule)
    return sorted(rules, key=lambda r: (r.area, r.id))


def get(rule_id: str) -> Rule:
    return _BY_ID[rule_id]


# every rule by its id, found once (the catalog does not change while nastune runs)
_BY_ID: plugins.Registry[Rule] = plugins.Registry(lambda: {rule.id: rule for rule in all_rules()})


def evaluate(
    facts: Facts, only: list[str] | None = None, min_severity: Severity = Severity.info, client: str | None = None
) -> list[Finding]:
    """Every finding of every applicable rule, the most severe first, then the most impact; on
    the facts of `client`, only the rules true of clients, each finding naming that client."""
    findings: list[Finding] = []
    for rule in all_rules():
        if (only and rule.id not in only) or (client and not rule.clients):
            continue
        if rule.applies(facts):
            found = (f for f in rule.check(rule, facts) if f.severity >= min_severity)
            findings.extend(
                _on_appliance(_managed(_boot_source(f, facts), facts), facts).model_copy(update={"host": client})
                for f in found
            )
    return ranked(findings)


def ranked(findings: list[Finding]) -> list[Finding]:
    """The most severe first, then the most impact (a client's after the NAS's on a tie)."""
    return sorted(findings, key=lambda f: (-f.severity, -f.impact, f.area, f.rule, f.target, f.host or ""))


def _boot_source(finding: Finding, facts: Facts) -> Finding:
    """Evidence read from /proc/sys also names the file line that sets the key at boot: the
    operator edits that line, or learns that a reboot would undo a change made by hand."""
    boot = facts.sysctl.boot if facts.sysctl else {}
    evidence = []
    for e in finding.evidence:
        setting = (
            boot.get(e.source.removeprefix("/proc/sys/").replace("/", "."))
            if e.source.startswith("/proc/sys/")
            else None
        )
        if setting:
            e = e.model_copy(
                update={"source": f"{e.source} (at boot: {setting.file} line {setting.line} = {setting.value})"}
            )
        evidence.append(e)
    return finding.model_copy(update={"evidence": evidence})


def _managed(finding: Finding, facts: Facts) -> Finding:
    """A change another manager on the box also makes (TuneD, irqbalance, bpftune) is named in the
    finding and on the change itself, which the plan's table shows, with what that manager will
    do to it: before anything is applied."""
    changes = [c.model_copy(update={"elsewhere": query.managed_by(facts, c)}) for c in finding.changes]
    said = [c.elsewhere.note for c in changes if c.elsewhere]
    if not said:
        return finding
    also = "Also set elsewhere: " + "; ".join(dict.fromkeys(said)) + "."
    return finding.model_copy(
        update={
            "changes": changes,
            "message": f"{finding.message} {also}",
            "advice": f"{finding.advice} {also}" if finding.advice else also,
        }
    )


def _on_appliance(finding: Finding, facts: Facts) -> Finding:
    """On an appliance (TrueNAS SCALE, OpenMediaVault), a change to a file it writes from its own
    database leaves the plan for the finding's advice, which says where its UI sets it."""
    owner = appliance.of(facts.system.appliance) if facts.system else None
    owned = [c for c in finding.changes if owner and owner.where(c.knob)]
    if not owner or not owned:
        return finding
    said = "; ".join(f"{c.describe()}: set in {owner.where(c.knob, c.target, c.key, c.new)}" for c in owned)
    advice = f"On {owner.title}, which writes these from its own configuration database: {said}."
    return finding.model_copy(
        update={
            "changes": [c for c in finding.changes if c not in owned],
            "advice": f"{finding.advice} {advice}" if finding.advice else advice,
        }
    )
