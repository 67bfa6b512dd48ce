"""optimize: the main job, end to end."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from nastune.cli.common import (
    app,
    console,
    err,
    fail,
    say,
    size_option,
)
from nastune.report import layout, tables


@app.command()
def optimize(
    lab: Annotated[bool, typer.Option("--lab/--live", help="Optimize the lab (default) or this live system.")] = True,
    scenario: Annotated[str, typer.Option("--scenario", help="The lab scenario to start from.")] = "soho",
    target: Annotated[str | None, typer.Option("--target", help="With --live: where to measure (path or URL).")] = None,
    workload: Annotated[
        list[str] | None,
        typer.Option(
            "--workload", "-w", help="Workloads (default: seq-write, seq-read, aged-read on an aged lab, network)."
        ),
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=2, max=100)] = 5,
    size: Annotated[str, typer.Option("--size", help="File size of the sequential workloads.")] = "256M",
    out: Annotated[Path, typer.Option("--out", help="Directory for results, plan, report.")] = Path("nastune-optimize"),
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply the plan without asking.")] = False,
    accept_risk: Annotated[
        list[str] | None,
        typer.Option("--accept-risk", help="durability: also apply changes that trade crash safety for speed."),
    ] = None,
) -> None:
    """The main job: inspect, diagnose, measure, plan, apply, measure again, compare, report.
    On the lab it starts from a fresh `soho` (a small NAS in its factory state)."""
    import sys

    from nastune.bench.selection import default_workloads, pairs
    from nastune.bench.workloads import DEFAULTS
    from nastune.lab.lab import LabError
    from nastune.optimize import OptimizeError, prepare
    from nastune.optimize import run as run_optimize
    from nastune.tune.system import TuneError

    if not yes and not sys.stdin.isatty():
        fail("optimize changes the system: add --yes (no terminal to ask on)")
    if not yes:
        typer.confirm("optimize will apply the changes it finds (you can roll them back). Go on?", abort=True)
    log = say("optimize")
    params = {**DEFAULTS, "size": size_option(size)}
    try:
        facts, system = prepare(lab, scenario, target, log)
        names = workload or default_workloads(lab)
        pairs(None if lab else target, lab, names)  # refuse bad workloads before the plan is applied
        outcome = run_optimize(
            lambda: pairs(None if lab else target, lab, names),
            params,
            repeats,
            out,
            lab,
            facts,
            system,
            bool(accept_risk),
            err,
            log,
        )
    except OptimizeError as e:
        fail(str(e), code=130 if e.interrupted else 1)
    except (LabError, TuneError, ValueError, OSError) as e:
        fail(str(e), code=1)
    except KeyboardInterrupt:
        fail(f"interrupted before the plan was applied; results so far in {out}", code=130)
    console.print(tables.comparison(outcome.rows, "optimize: before -> after"))
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
        console.print(Text.assemble((what, "red"), f": undo everything with `nastune rollback --to {outcome.journal}`"))
    if outcome.failed:
        raise typer.Exit(1)
