"""autotune: search the tunables with real measurements."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from nastune.cli import options as opt
from nastune.cli.common import app, consent, console, err, failing, named, say, site, size_option


@app.command(short_help="Search the tunables with real measurements")
def autotune(
    lab: opt.LabOrLive = None,
    scenario: opt.Scenario = "soho",
    inventory: opt.Inventory = None,
    target: opt.Target = None,
    login_file: opt.LoginFile = None,
    root: opt.Root = "/",
    workload: Annotated[
        list[str] | None, typer.Option("-w", help="TARGET:WORKLOAD to measure, e.g. smb:seq-write (repeatable).")
    ] = None,
    objective: Annotated[
        str | None,
        typer.Option(
            help="What to maximize: '0.6*smb:seq-write + 0.4*nfs:seq-read', optionally "
            "'... where nfs:rand-read:p99 < 5' (default: the mean ratio of the workloads)."
        ),
    ] = None,
    budget: Annotated[int, typer.Option(min=2, max=500, help="Trials to measure.")] = 20,
    knobs: Annotated[
        list[str] | None,
        typer.Option(help="Only these tunables (repeatable; an unknown name is refused with the list)."),
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, max=20, help="Repeats per trial.")] = 3,
    size: opt.Size = "64M",
    seed: opt.Seed = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the study in --out-dir after a kill.")] = False,
    out: Annotated[
        Path, typer.Option("--out-dir", "--out", help="Directory for the study, trials, plan, report.")
    ] = Path("nastune-autotune"),
    clients: opt.Clients = "all",
    accept_risk: opt.AcceptRisk = None,
    yes: opt.Yes = False,
) -> None:
    """Search the tunables with real measurements: every trial applied with the journal,
    measured, rolled back; the winner measured again beside the base and written as a plan for
    `apply` only if it beats the base beyond the noise floor."""
    from nastune.autotune.objective import parse
    from nastune.autotune.search import Settings
    from nastune.jobs.autotune import prepare
    from nastune.report import outcomes

    named(lab, inventory, target)
    consent(
        yes,
        "autotune applies and rolls back one configuration per trial. Go on?",
        "autotune changes the system trial by trial",
    )
    log = say("autotune")
    resumed = f"`nastune autotune --resume --out-dir {out}` continues"
    with failing(code=1, interrupted=f"interrupted: the trial's changes are rolled back; {resumed}"):
        goal = parse(objective, workload or [])
        settings = Settings(budget, repeats, out, frozenset(accept_risk or ()), seed or 0)
        options: dict[str, Any] = {"root": root, "scenario": scenario, "resume": resume, "log": log}
        where = site(bool(lab), inventory, target, clients, login_file=login_file, **options)
        search, rule_plan = prepare(goal, where, settings, knobs, size_option(size), err(), log, resume=resume)
        outcome = search.run(resume, rule_plan)
    outcomes.autotune(console(), outcome)
