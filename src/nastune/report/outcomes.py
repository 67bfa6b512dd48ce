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

from nastune.report import layout, summary, tables

if TYPE_CHECKING:  # the command line imports this at start: annotations only
    from nastune import wire
    from nastune.bench.results import ResultSet
    from nastune.outcomes.ab import AbOutcome
    from nastune.outcomes.check import CheckOutcome
    from nastune.outcomes.optimize import OptimizeOutcome
    from nastune.outcomes.search import SearchOutcome


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


def comparisons(console: Console, done: Sequence[wire.Compared]) -> None:
    for c in done:
        verdicts(console, c.rows, f"{c.before} -> {c.after}", c.notes)


def ab(console: Console, outcome: AbOutcome, title: str, out: Path) -> None:
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


def optimize(console: Console, outcome: OptimizeOutcome) -> bool:
    """The answer first (report/summary.py: the metrics that moved, the rules' own effects), then
    what went wrong if anything, then a line each for the report, the undo command and
    persistence; every other detail is in the report and the JSON. True when a workload failed
    or the settings made one worse."""
    for line in summary_lines(outcome):
        console.print(line, highlight=False, soft_wrap=True)
    for line in outcome.failed:
        console.print(layout.styled(f"FAILED: {line}", "red"), soft_wrap=True)
    if outcome.withheld:
        console.print(layout.styled(f"Left as it was: the settings made {', '.join(outcome.withheld)} worse", "red"))
        console.print(f"  `{outcome.retry}` applies them all the same", highlight=False)
    closing(console, outcome)
    return bool(outcome.failed or outcome.withheld)


def summary_lines(outcome: OptimizeOutcome) -> list[str]:
    """The first table, its footnotes, and the rules' table: what the console and the report open with."""
    mixed = outcome.interleaved
    once = list(outcome.rows) if outcome.flow == "interleaved" else []
    rows = list(outcome.rows) + (list(mixed.rows) if mixed else [])
    lines = summary.first_table(rows, summary.limits_now(mixed.runs if mixed else []), set(range(len(once))))
    if any(r.verdict in ("better", "worse") for r in once):
        lines += summary.fitted("* before and after the one-off actions; the rest with and without the settings")
    if mixed and (mixed.refused or mixed.stopped):
        n = len(mixed.refused)
        said = [f"{n} metric{'s' if n > 1 else ''} without a verdict: A drifted in its own control"] if n else []
        lines += summary.fitted("; ".join(said + ([mixed.stopped] if mixed.stopped else [])))
    if outcome.skipped:
        lines.append(f"{len(outcome.skipped)} changes left out of the plan (the report says why)")
    if mixed and mixed.screened:
        lines += summary.rules_table(mixed.screened)
        unseen = f"{mixed.unseen:.0%}" if mixed.unseen is not None else "?"
        runs = f"; --screen-runs {2 * mixed.screen_runs} resolves smaller ones" if mixed.screen_runs else ""
        lines += summary.fitted(f"effects under {unseen} could go unseen here{runs}")
    return lines


def closing(console: Console, outcome: OptimizeOutcome) -> None:
    """A line each: the report, the commands that undo everything or keep only what helped, and
    what a reboot does to the settings."""
    from nastune.tune.review import Step  # lazy: the knobs, only once a run is done

    say = lambda line: console.print(line, highlight=False, soft_wrap=True)
    mixed = outcome.interleaved
    say(f"Report: {outcome.report}")
    if mixed and mixed.idle:
        left = "left off" if mixed.dropped else "kept, though shown below 3% on their own"
        say(f"Rules {left}: {', '.join(mixed.idle)}")
    if outcome.keeping:
        say(f"Keep only what helped: {outcome.keeping}")
    lost = [Step.of(c).label for c in outcome.plan.changes if Step.of(c).fate == "lost"]
    if outcome.persisted:
        say("Persisted: the settings survive a reboot.")
    elif lost and outcome.persisting:
        say(f"Persist ({len(lost)} settings are lost at reboot): {outcome.persisting}")
    elif lost:
        # no command to persist them: the tuned system does not outlive a reboot itself
        gone = f"{outcome.site} is gone at a reboot too" if outcome.site else "nothing here persists them"
        say(f"Lost at reboot: {len(lost)} settings ({gone}).")
    if outcome.undo:  # none once a worse verdict left the settings as they were and only actions ran
        say(f"Undo everything: {outcome.undo}")


def check(console: Console, done: CheckOutcome) -> None:
    console.print(f"{len(done.findings)} findings: " + ", ".join(sorted({f.rule for f in done.findings})))
    if done.journal:
        console.print(f"settings of {done.journal}: {len(done.settings) - len(done.drift)} as applied", highlight=False)
    for d in done.drift:
        console.print(layout.styled(f"  DRIFT: {d.setting}: expected {d.expected}, now {d.actual}", "red"))
    if done.rows:
        console.print(tables.comparison(done.rows, f"baseline {done.baseline} -> now"))


def autotune(console: Console, outcome: SearchOutcome) -> None:
    """The verdict, the winner's plan, each tunable's importance, what a trial cost, the report."""
    console.print(outcome.verdict, highlight=False)
    timed = [(t.seconds, t.measuring_seconds) for t in outcome.trials if t.seconds is not None]
    if timed:
        each, measuring = (statistics.median(x or 0.0 for x in side) for side in zip(*timed))
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
