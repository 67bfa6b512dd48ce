"""Console views of what a command did: a run's results, a run under load, an interleaved A/B,
optimize's verdicts, a check. The command line calls one after its job; each prints and says
whether the command must exit non-zero."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from nastune.bench.results import ResultSet
from nastune.report import layout, tables

if TYPE_CHECKING:
    from nastune.jobs.ab import Outcome as AbOutcome
    from nastune.jobs.check import Check
    from nastune.jobs.optimize import Outcome


def results(console: Console, err: Console, done: ResultSet, out: Path) -> bool:
    """Each metric's median, spread, share of the physical limit and flags; what limited each
    run; the workloads that failed. True when one failed."""
    table = layout.Records(f"Results ({out})", *("workload", "target", "metric", "median", "CV", "of limit", "flags"))
    for r in done.results:
        for name, m in r.metrics.items():
            limit = f"{m.median / m.limit:.0%}" if m.limit else ""
            table.add_row(
                r.workload, r.target["url"], name, f"{m.median:.1f} {m.unit}", f"{m.cv:.1%}", limit, "; ".join(m.flags)
            )
    console.print(table)
    for r in done.results:
        if r.attribution:
            console.print(f"{r.workload} @ {r.target['url']}: {r.attribution}", highlight=False)
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


def ab(console: Console, outcome: AbOutcome, title: str, out: Path) -> None:
    console.print(tables.comparison(outcome.rows, title))
    for line in outcome.notes:
        console.print(f"  note: {line}", highlight=False)
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


def optimize(console: Console, outcome: Outcome) -> bool:
    """Both verdict tables, what was left out or failed, the tally and how to undo. True when a
    workload failed."""
    console.print(tables.comparison(outcome.rows, "optimize: before -> after"))
    if outcome.interleaved:
        mixed = outcome.interleaved
        console.print(tables.comparison(mixed.rows, "optimize: the settings alone, interleaved (A without, B with)"))
        for line in mixed.notes + ([mixed.stopped] if mixed.stopped else []):
            console.print(f"  note: {line}", highlight=False)
    for line in outcome.skipped:
        console.print(f"  left out: {line}", highlight=False)
    for line in outcome.failed:
        console.print(layout.styled(f"  FAILED: {line}", "red"))
    worse = [r for r in outcome.rows if r.result.verdict == "worse"]
    better = [r for r in outcome.rows if r.result.verdict == "better"]
    console.print(
        f"{len(better)} better, {len(worse)} worse, {len(outcome.rows) - len(better) - len(worse)} unchanged "
        f"(within noise). Report: {outcome.report}",
        highlight=False,
    )
    if worse or outcome.failed:
        what = "some results got worse" if worse else "some workloads failed"
        console.print(Text.assemble((what, "red"), f": undo everything with `{outcome.undo}`"))
    return bool(outcome.failed)


def check(console: Console, done: Check) -> None:
    console.print(f"{len(done.findings)} findings: " + ", ".join(sorted({f.rule for f in done.findings})))
    if done.journal:
        console.print(f"settings of {done.journal}: {len(done.settings) - len(done.drift)} as applied", highlight=False)
    for d in done.drift:
        console.print(layout.styled(f"  DRIFT: {d.setting}: expected {d.expected}, now {d.actual}", "red"))
    if done.rows:
        console.print(tables.comparison(done.rows, f"baseline {done.baseline} -> now"))
