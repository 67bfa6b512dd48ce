"""Plans and diffs for a person."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from nastune import wire
from nastune.report.layout import Records, styled
from nastune.risks import RISKS

if TYPE_CHECKING:  # the command line imports views at start: annotations only
    from nastune.tune.executor import Pending
    from nastune.tune.plan import Plan, PlannedChange
    from nastune.tune.review import Review


def _short(value: object) -> str:
    text = "(absent)" if value is None else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def plan_table(plan: Plan) -> Records:
    on_clients = any(c.host for c in plan.changes)
    managed = any(c.elsewhere for c in plan.changes)  # the column only where another manager sets something
    columns = ("id", *(["host"] if on_clients else []), "rule", "knob", "target", "current", "new", "risk")
    table = Records("Plan", *columns, *(["also set by"] if managed else []))
    for c in plan.changes:
        table.add_row(
            str(c.id),
            *([c.host or "NAS"] if on_clients else []),
            c.rule,
            c.knob,
            f"{c.target} {c.key or ''}".strip(),
            _short(c.current),
            _short(c.new),
            Text(", ".join(c.risks), style="red"),
            *([c.elsewhere.manager if c.elsewhere else ""] if managed else []),
        )
    return table


def elsewhere(plan_changes: list[PlannedChange]) -> list[str]:
    """A line for each change another manager on the box also sets: what that manager will do."""
    return [f"  #{c.id} also set by {c.elsewhere.manager}: {c.elsewhere.note}" for c in plan_changes if c.elsewhere]


def diff_table(rows: list[Pending]) -> Records:
    table = Records("Changes (current value read now)", "id", "setting", "now", "new", "")
    for r in rows:
        status = (
            Text("cannot apply", style="red")
            if r.error
            else Text("no change", style="dim")
            if r.noop
            else Text(f"{' and '.join(r.risks)} trade", style="red")
            if r.risks
            else "change"
        )
        table.add_row(
            str(r.change.id), r.knob.label(r.change), r.error or _short(r.current), _short(r.change.new), status
        )
    return table


def show_diff(shown: Console, err: Console, rows: list[Pending]) -> None:
    """The diff apply shows before it asks, with each risk's warning where a change trades it."""
    shown.print(diff_table(rows))
    for risk, text in RISKS.items():
        if any(risk in r.risks and not r.noop for r in rows):
            err.print(Text.assemble((f"{risk} risk:", "yellow"), f" {text}"))


def verify_table(done: wire.Verify) -> Records:
    table = Records(f"Verify {done.journal}", *("setting", "expected", "actual", ""))
    for s in done.settings:
        table.add_row(
            s.setting, s.expected[:60], s.actual[:60], styled("ok", "green") if s.ok else styled("DRIFT", "red")
        )
    return table


def rolled_back(shown: Console, err: Console, done: wire.Rollback, summary: str, notes: list[str]) -> bool:
    """What a rollback restored, what it could not (each with its manual step), and the other
    journals that still hold changes. True when the command must exit 1: an entry not restored,
    or nothing left to restore here while other journals still hold applied changes."""
    shown.print(f"{summary} from {done.journal}", highlight=False, markup=False)
    for note in notes:
        shown.print(f"note: {note}", highlight=False, markup=False)
    for other in done.outstanding:
        err.print(
            f"note: {other} still holds applied changes: `nastune rollback --journal {other}` undoes them",
            highlight=False,
            markup=False,
        )
    for f in done.failures:  # one line each: the journal, the entry, why, and the command that restores it
        err.print(
            f"error: {done.journal}: {f.what} could not be restored ({f.reason}); by hand: {f.manual}",
            highlight=False,
            markup=False,
        )
    if done.failures:
        return True
    if not done.restored and done.outstanding:
        err.print(
            f"error: {done.journal} had nothing left to restore, but other journals hold changes that are still "
            "applied (listed above)",
            highlight=False,
            markup=False,
        )
        return True
    return False


WITH_RULES = 110  # columns: below, the plan's table leaves each setting's rule out


_REBOOT = {"kept": "kept", "lost": "lost", "once": "once", "remount": "lost at remount"}  # a fate as the table says it


def _settings(done: Review, width: int) -> Table:
    """One line per setting, so that a plan of twenty fits a screen; the rule last, as the why,
    where the screen is wide enough for it (`nastune plan` and the report name it too)."""
    lost = sum(1 for s in done.settings if s.fate == "lost")
    title = f"The plan: {len(done.settings)} settings" + (f", {lost} lost at reboot unless persisted" if lost else "")
    legend = "reboot: kept (written to its configuration), lost (unless persisted), or lost at remount"
    why = width >= WITH_RULES
    table = Table(title=Text(title, style="bold"), title_justify="left", caption=legend, box=None, pad_edge=False)
    rows = [(s, f"{_short(s.change.current)} -> {_short(s.change.new)}") for s in done.settings]
    # wide enough for each column's longest word: a row wraps between words, never inside a key
    words = lambda texts: max((len(w) for t in texts for w in t.split()), default=0)
    table.add_column("id", no_wrap=True)
    table.add_column("setting", overflow="fold", ratio=5, min_width=words(s.label for s, _ in rows))
    table.add_column("now -> new", overflow="fold", ratio=3, min_width=words(c for _, c in rows))
    table.add_column("reboot", no_wrap=True)
    if why:
        table.add_column("rule", style="dim", overflow="fold", ratio=3)
    for s, change in rows:
        table.add_row(str(s.change.id), s.label, change, _REBOOT[s.fate], *([s.change.rule] if why else []))
    return table


def review(shown: Console, done: Review) -> None:
    """A plan as a person decides on it: each setting with its value now and after, whether it
    survives a reboot and what it disturbs; the one-off actions; what was left out and why."""
    if done.settings:
        shown.print(_settings(done, shown.width))
    for s in done.actions:
        when = "allowed by --allow" if s.allowed else f"runs only if you say yes here, or with --allow {s.change.knob}"
        shown.print(
            Text.assemble(
                ("one-off action: ", "yellow"),
                f"{s.label} for up to {s.change.new} s: {s.disruption}; {s.lasts} ({when})",
            )
        )
    for line in done.disruptions:
        shown.print(f"  while applied and undone: {line}", highlight=False)
    if done.switches and done.settings:
        shown.print(
            f"  proving them switches the settings off and on again, up to {done.switches} times "
            "(each switch as above), then leaves them applied",
            highlight=False,
        )
    for line in elsewhere([s.change for s in done.settings]):
        shown.print(line, highlight=False)
    for line in done.left_out:
        shown.print(f"  left out: {line}", highlight=False)
    if done.empty:
        shown.print("the plan changes nothing here", highlight=False)
