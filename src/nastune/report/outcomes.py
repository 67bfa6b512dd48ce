"""Console views of what a command did: a run's results, a run under load, an interleaved A/B,
optimize's verdicts, a search, a check, the lab's parts. The command line calls one after its job; each prints and says
whether the command must exit non-zero."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from nastune.report import layout, tables

if TYPE_CHECKING:  # the command line imports this at start: annotations only
    from nastune.bench.results import ResultSet
    from nastune.report.shown import AbShown, Checked, CompareShown, OptimizeShown, SearchShown


def results(console: Console, err: Console, done: ResultSet, out: Path) -> bool:
    """Each metric's median, spread, share of the physical limit and flags; what limited each
    run; the workloads that failed. True when one failed."""
    table = layout.Records(f"Results ({out})", *("workload", "target", "metric", "median", "CV", "of limit", "flags"))
    for r in done.results:
        for name, m in r.metrics.items():
            limit = f"{m.median / m.limit:.0%}" if m.limit else ""
            table.add_row(
                r.workload, r.target.url, name, f"{m.median:.1f} {m.unit}", f"{m.cv:.1%}", limit, "; ".join(m.flags)
            )
    console.print(table)
    for r in done.results:
        if r.attribution:
            console.print(f"{r.workload} @ {r.target.url}: {r.attribution}", highlight=False)
    failed = [r for r in done.results if r.failed]
    for r in failed:
        err.print(Text.assemble(("error:", "red"), f" {r.key} failed: {r.error}"))
    return bool(failed)


def degradation(console: Console, rows: list[dict], idle_out: Path, out: Path) -> None:
    """How many times worse each metric got under load."""
    table = layout.Records(
        f"Under load ({idle_out} -> {out})", *("workload", "metric", "idle", "loaded", "times worse")
    )
    for row in rows:
        unit = row["unit"]
        table.add_row(
            row["workload"],
            row["metric"],
            f"{row['idle']:.1f} {unit}",
            f"{row['loaded']:.1f} {unit}",
            f"{row['worse']:.2f}x",
        )
    console.print(table)


def verdicts(
    console: Console, rows: list, title: str, notes: list[str], sides: tuple[str, str] = ("before", "after")
) -> None:
    """A verdict table and its notes."""
    console.print(tables.comparison(rows, title, sides))
    for line in notes:
        console.print(f"  note: {line}", highlight=False)


def comparisons(console: Console, done: Sequence[CompareShown]) -> None:
    for c in done:
        verdicts(console, c.rows, f"{c.before} -> {c.after}", c.notes)


def ab(console: Console, outcome: AbShown, title: str, out: Path) -> None:
    verdicts(console, outcome.rows, title, outcome.notes, ("A", "B"))
    for metric in outcome.refused:
        console.print(layout.styled(f"  no verdict for {metric}: its A/A control left A's range", "red"))
    minutes, seconds = divmod(round(outcome.seconds), 60)
    state = "decided" if outcome.decided else "not decided"
    console.print(
        f"{state} in {outcome.pairs} pairs, {minutes} min {seconds} s; switching took "
        f"{outcome.switch_seconds:.0f} s ({outcome.switch_seconds / max(outcome.seconds, 1):.0%}). "
        f"Results: {out}/a.json, {out}/b.json, the verdicts in {out}/ab.json",
        highlight=False,
    )


def optimize(console: Console, outcome: OptimizeShown) -> bool:
    """Each verdict table with its notes, what was left out or failed, a tally of each way the
    plan was measured, and how to undo. True when a workload failed or the settings made one worse."""
    once = "the one-off actions, before -> after" if outcome.flow == "interleaved" else "before -> after"
    said = []
    if outcome.rows or outcome.flow == "before-after":
        verdicts(console, outcome.rows, f"optimize: {once}", outcome.notes)
        said.append(f"{once}: {tables.tally(outcome.rows)}")
    mixed = outcome.interleaved
    if mixed:
        title = "optimize: the settings, interleaved (A without, B with)"
        verdicts(console, mixed.rows, title, mixed.notes + ([mixed.stopped] if mixed.stopped else []), ("A", "B"))
        for metric in mixed.refused:
            console.print(layout.styled(f"  no verdict for {metric}: its A/A control left A's range", "red"))
        minutes, seconds = divmod(round(mixed.seconds), 60)
        refused = f", {len(mixed.refused)} refused by the A/A control" if mixed.refused else ""
        timing = f"{mixed.pairs} pairs, {minutes} min {seconds} s"
        said.append(f"the settings, interleaved ({timing}): {tables.tally(mixed.rows)}{refused}")
    for line in outcome.skipped:
        console.print(f"  left out: {line}", highlight=False)
    for line in outcome.failed:
        console.print(layout.styled(f"  FAILED: {line}", "red"))
    console.print("; ".join(said) + f". Report: {outcome.report.resolve()}", highlight=False)
    closing(console, outcome)
    return bool(outcome.failed or outcome.withheld)


def closing(console: Console, outcome: OptimizeShown) -> None:
    """What optimize did, in words: each change, each gain with its interval, what survives a
    reboot, and the commands that undo it all or keep it."""
    from nastune.tune.review import Step  # lazy: the knobs, only once a run is done

    steps = [Step.of(c) for c in outcome.plan.changes]
    if outcome.withheld:
        console.print(
            layout.styled(f"Settings left as they were: they made {', '.join(outcome.withheld)} worse", "red")
        )
        console.print(f"  `{outcome.retry}` applies them all the same", highlight=False)
    if steps:
        console.print(f"Changed on {outcome.site or 'the NAS'}:", highlight=False)
    for s in steps:
        now = "ran" if s.action else f"{s.change.current} -> {s.change.new}"
        console.print(f"  {s.label}: {now}; {s.lasts}", highlight=False)
    worse = _measured(console, outcome)
    _own_effects(console, outcome)
    lost = [s.label for s in steps if not s.action and s.fate == "lost"]
    if outcome.persisted:
        console.print("The settings survive a reboot (persisted).", highlight=False)
    elif lost and outcome.persisting:
        console.print(f"Lost at reboot: {', '.join(lost)}. To keep them: {outcome.persisting}", highlight=False)
    elif lost:
        # no command to persist them: the tuned system does not outlive a reboot itself
        gone = f"{outcome.site} is gone at a reboot too" if outcome.site else "nothing here persists them"
        console.print(f"Lost at reboot: {', '.join(lost)} ({gone}).", highlight=False)
    style = "red" if worse or outcome.failed else ""
    if outcome.undo:  # none once a worse verdict left the settings as they were and only actions ran
        console.print(Text.assemble(("Undo everything: ", style), outcome.undo))


def _own_effects(console: Console, outcome: OptimizeShown) -> None:
    """optimize --screen: each rule's own effect, what the screening could miss, and the rules
    shown to help less than the margin, left off or kept with the command that leaves them off."""
    mixed = outcome.interleaved
    effects = mixed.effects() if mixed else []
    if effects:
        console.print("Each rule's own effect:", highlight=False)
    for line in effects:
        console.print(f"  {line}", highlight=False)
    if mixed and mixed.idle:
        done = "Left off" if mixed.dropped else "Kept, though"
        shown = f"whose own effect is shown below {mixed.margin:.0%} on every metric the plan moved"
        console.print(f"{done}: {', '.join(mixed.idle)}, {shown}", highlight=False)
    if outcome.keeping:
        console.print(f"  to leave them off: `{outcome.keeping}`", highlight=False)


def _measured(console: Console, outcome: OptimizeShown) -> bool:
    """Each metric that moved (what limited it without the settings and with them, where the
    interleaved run profiled it), and how many did not. True when one got worse."""
    mixed = outcome.interleaved
    rows = outcome.rows + (mixed.rows if mixed else [])
    limits = tables.limited(mixed.runs) if mixed else {}
    moved = tables.moved(outcome.rows) + (tables.moved(mixed.rows, limits) if mixed else [])
    if moved:
        console.print("Measured:", highlight=False)
    for line in moved:
        console.print(f"  {line}", highlight=False)
    if len(moved) < len(rows):
        console.print(f"  {len(rows) - len(moved)} more measured no change beyond the noise", highlight=False)
    for line in tables.unexplained(mixed.rows, limits) if mixed else []:
        console.print(layout.styled(f"  below the link: {line}", "red"))
    return any(r.result.verdict == "worse" for r in rows)


def check(console: Console, done: Checked) -> None:
    console.print(f"{len(done.findings)} findings: " + ", ".join(sorted({f.rule for f in done.findings})))
    if done.journal:
        console.print(f"settings of {done.journal}: {len(done.settings) - len(done.drift)} as applied", highlight=False)
    for d in done.drift:
        console.print(layout.styled(f"  DRIFT: {d.setting}: expected {d.expected}, now {d.actual}", "red"))
    if done.rows:
        console.print(tables.comparison(done.rows, f"baseline {done.baseline} -> now"))


def autotune(console: Console, outcome: SearchShown) -> None:
    """The verdict, the winner's plan, each tunable's importance, what a trial cost, the report."""
    console.print(outcome.verdict, highlight=False)
    timed = [t for t in outcome.trials if "seconds" in t]
    if timed:
        each, measuring = (statistics.median(t[k] for t in timed) for k in ("seconds", "measuring_seconds"))
        console.print(f"{len(timed)} trials, {each:.0f} s each ({measuring:.0f} s measuring; medians)", highlight=False)
    if outcome.plan:
        console.print(f"best configuration: {outcome.best}; its plan: {outcome.plan} (`nastune apply {outcome.plan}`)")
    if outcome.beside:
        console.print(
            f"on top of the plan's {len(outcome.beside)} changes no tunable searches, made by every trial after the "
            "base (and in the winner's plan)",
            highlight=False,
        )
    if outcome.importance:
        ranked = ", ".join(f"{k} {v:.2f}" for k, v in outcome.importance.items())
        console.print(f"importance: {ranked}", highlight=False)
    console.print(f"report: {outcome.report}", highlight=False)


def lab_status(console: Console, parts: list[dict]) -> None:
    table = layout.Records("Lab", *("part", "state", "check"))
    for p in parts:
        state = layout.styled("up", "green") if p["ok"] else layout.styled("down", "red")
        table.add_row(p["part"], state, p["check"])
    console.print(table)
