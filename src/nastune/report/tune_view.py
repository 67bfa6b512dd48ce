"""Plans and diffs for a person."""

from __future__ import annotations

from rich.text import Text

from nastune.report.layout import Records


def _short(value) -> str:
    text = "(absent)" if value is None else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def plan_table(plan) -> Records:
    table = Records("Plan", "id", "rule", "knob", "target", "current", "new", "risk")
    for c in plan.changes:
        table.add_row(
            str(c.id),
            c.rule,
            c.knob,
            f"{c.target} {c.key or ''}".strip(),
            _short(c.current),
            _short(c.new),
            Text("durability", style="red") if c.durability_risk else "",
        )
    return table


def diff_table(rows) -> Records:
    table = Records("Changes (current value read now)", "id", "setting", "now", "new", "")
    for r in rows:
        status = (
            Text("cannot apply", style="red")
            if r.error
            else Text("no change", style="dim")
            if r.noop
            else Text("durability risk", style="red")
            if r.change.durability_risk
            else "change"
        )
        table.add_row(
            str(r.change.id), r.knob.label(r.change), r.error or _short(r.current), _short(r.change.new), status
        )
    return table
