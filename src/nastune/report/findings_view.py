"""Findings for a person: grouped by area, most impact first, each with its evidence and fix."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from nastune.rules.model import Finding, Rule, Severity

COLOURS = {Severity.info: "dim", Severity.low: "cyan", Severity.medium: "yellow", Severity.high: "red",
           Severity.critical: "bold red"}


def render(findings: list[Finding], console: Console, verbose: bool = False) -> None:
    if not findings:
        console.print("[green]No findings:[/green] no rule found anything to improve in these facts.")
        return
    by_area = sorted(findings, key=lambda f: (f.area, -f.impact))
    areas = sorted({f.area for f in findings}, key=lambda a: -max(f.impact for f in findings if f.area == a))
    for area in areas:
        console.rule(f"[bold]{area}[/bold]", align="left")
        for f in (f for f in by_area if f.area == area):
            colour = COLOURS[f.severity]
            console.print(f"[{colour}]{f.severity.name.upper():8}[/{colour}] [bold]{escape(f.rule)}[/bold] "
                          f"({escape(f.target)}): {escape(f.message)}", highlight=False)
            for e in f.evidence[: None if verbose else 3]:
                console.print(f"    evidence: {escape(e.fact)} = {escape(str(e.value))}  [dim]({escape(e.source)})[/dim]",
                              highlight=False)
            for c in f.changes:
                risk = " [red](durability risk: needs --accept-risk durability)[/red]" if c.durability_risk else ""
                console.print(f"    change:   {escape(c.describe())}{risk}", highlight=False)
            if f.advice:
                console.print(f"    advice:   {escape(f.advice)}", highlight=False)
            console.print(f"    gain:     {escape(f.gain)}", highlight=False)
            if verbose or f.severity >= Severity.medium:
                console.print(f"    trade-off: {escape(f.tradeoff)}", highlight=False)
            console.print(f"    [dim]source: {escape(f.source)}; more: nastune explain {escape(f.rule)}[/dim]",
                          highlight=False)
    counts = {k: len(list(g)) for k, g in groupby(sorted(f.severity for f in findings))}
    console.print("\n" + ", ".join(f"{n} {s.name}" for s, n in sorted(counts.items(), reverse=True)) +
                  f" ({len(findings)} findings)")


def rule_table(rules: list[Rule]) -> Table:
    table = Table(title="Rules", title_justify="left")
    for column in ("id", "area", "severity", "title"):
        table.add_column(column)
    for r in rules:
        table.add_row(r.id, r.area, r.severity.name, r.title)
    return table
