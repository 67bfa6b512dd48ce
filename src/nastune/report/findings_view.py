"""Findings for a person: grouped by area, the most severe first, each with its evidence and fix."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.text import Text

from nastune.rules.model import Finding, Severity
from nastune.tune.knobs import risks

COLOURS = {
    Severity.info: "dim",
    Severity.low: "cyan",
    Severity.medium: "yellow",
    Severity.high: "red",
    Severity.critical: "bold red",
}


def render(findings: list[Finding], console: Console, verbose: bool = False) -> None:
    def say(*parts: str | tuple[str, str] | Text) -> None:
        console.print(Text.assemble(*parts), markup=False, highlight=False)

    if not findings:
        say(("No findings:", "green"), " no rule found anything to improve in these facts.")
        return
    at_risk = [f for f in findings if f.severity == Severity.critical]
    if at_risk:  # data without redundancy, or about to be lost: before anything about speed
        console.rule(Text("data at risk", style="bold red"), align="left")
        for f in at_risk:
            say((f.rule, "bold"), f" ({f.target}): {f.message}")
    limiting = [f for f in findings if f.limiting]
    if limiting:
        console.rule(Text("limiting the measured runs", style="bold red"), align="left")
        for f in limiting:
            say((f.rule, "bold"), f" ({f.target}): {f.limiting}")
    # the area of the most severe finding first (then of the most impact); within an area what
    # limited a run first (the list comes ranked), then the most severe, then the most impact
    rank = {id(f): n for n, f in enumerate(limiting)}
    by_area = sorted(findings, key=lambda f: (f.area, rank.get(id(f), len(rank)), -f.severity, -f.impact))
    areas = sorted(
        {f.area for f in findings}, key=lambda a: min((-f.severity, -f.impact) for f in findings if f.area == a)
    )
    for area in areas:
        console.rule(Text(area, style="bold"), align="left")
        for f in (f for f in by_area if f.area == area):
            say(
                (f"{f.severity.name.upper():8}", COLOURS[f.severity]),
                " ",
                (f.rule, "bold"),
                f" ({f'client {f.host}: ' if f.host else ''}{f.target}): {f.message}",
            )
            if f.limiting:
                say(("    limiting now: ", "red"), f.limiting)
            for e in f.evidence[: None if verbose else 3]:
                say(f"    evidence: {e.fact} = {e.value}  ", (f"({e.source})", "dim"))
            for c in f.changes:
                trades = "; ".join(f"a {r} trade: needs --accept-risk {r}" for r in risks(c))
                risk = (f" ({trades})", "red") if trades else ""
                say(f"    change:   {c.describe()}", risk)
            if f.advice:
                say(f"    advice:   {f.advice}")
            say(f"    gain:     {f.gain}")
            if verbose or f.severity >= Severity.medium:
                say(f"    trade-off: {f.tradeoff}")
            say((f"    source: {f.source}; more: nastune explain {f.rule}", "dim"))
    counts = {k: len(list(g)) for k, g in groupby(sorted(f.severity for f in findings))}
    console.print(
        "\n"
        + ", ".join(f"{n} {s.name}" for s, n in sorted(counts.items(), reverse=True))
        + f" ({len(findings)} findings)"
    )
