"""Plans and diffs for a person."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table


def _short(value) -> str:
    text = "(absent)" if value is None else str(value)
    return escape(text if len(text) <= 40 else text[:37] + "...")


def plan_table(plan) -> Table:
    table = Table(title="Plan", title_justify="left")
    for column in ("id", "rule", "knob", "target", "current", "new", "risk"):
        table.add_column(column)
    for c in plan.changes:
        table.add_row(str(c.id), c.rule, c.knob, escape(f"{c.target} {c.key or ''}".strip()), _short(c.current),
                      _short(c.new), "[red]durability[/red]" if c.durability_risk else "")
    return table


def diff_table(rows) -> Table:
    table = Table(title="Changes (current value read now)", title_justify="left")
    for column in ("id", "setting", "now", "new", ""):
        table.add_column(column)
    for r in rows:
        status = ("[red]unreadable[/red]" if r.error else "[dim]no change[/dim]" if r.noop
                  else "[red]durability risk[/red]" if r.change.durability_risk else "change")
        table.add_row(str(r.change.id), escape(r.knob.label(r.change)), escape(r.error or "") or _short(r.current),
                      _short(r.change.new), status)
    return table
