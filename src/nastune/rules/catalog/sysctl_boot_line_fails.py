from collections.abc import Iterator

from nastune.facts import Facts
from nastune.rules.model import Evidence, Finding, Rule, Severity
from nastune.rules.query import present


def check(rule: Rule, facts: Facts) -> Iterator[Finding]:
    sysctl = present(facts.sysctl)
    for problem in sysctl.boot_problems:
        where, _, what = problem.partition(": ")
        yield rule.finding(
            target=where,
            impact=2,
            message=f"{where} fails at boot: {what}. The value in force after a reboot is not the one this "
            "file means to set.",
            evidence=[Evidence(fact="boot-time sysctl line", value=what, source=where)],
            advice=f"Edit {where}: remove the line (or write the key as `-key` so that a kernel without it skips it)."
            if "does not exist" in what
            else f"Edit {where}: put a comment on a line of its own, and give every setting as `key = value`.",
        )


RULE = Rule(
    id="sysctl-boot-line-fails",
    title="A boot-time sysctl line fails",
    area="kernel",
    severity=Severity.medium,
    check=check,
    needs=("sysctl",),
    gain="The settings written for boot are the ones in force after a reboot.",
    tradeoff="None: the line is fixed to mean what it already says.",
    source="sysctl.d(5), sysctl.conf(5) (comments are whole lines)",
)
