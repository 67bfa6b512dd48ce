"""optimize: the main job, end to end."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.cli import options as opt
from nastune.cli.common import app, consent, console, err, failing, say, site, size_option
from nastune.report import outcomes


@app.command(short_help="The main job: diagnose, tune, prove the gain")
def optimize(
    lab: opt.LabOrLive = True,
    scenario: opt.Scenario = "soho",
    target: opt.Target = None,
    login_file: opt.LoginFile = None,
    workload: opt.Workload = None,
    repeats: Annotated[int, typer.Option(min=2, max=100, help="Timed repeats after a warm-up.")] = 5,
    size: opt.Size = "auto",
    out: Annotated[Path, typer.Option("--out-dir", "--out", help="Directory for results, plan, report.")] = Path(
        "nastune-optimize"
    ),
    yes: opt.Yes = False,
    accept_risk: opt.AcceptRisk = None,
    inventory: opt.Inventory = None,
    clients: opt.Clients = "all",
    confirm_timeout: Annotated[
        int,
        typer.Option(
            min=10,
            help="With --inventory: the NAS reverts network changes by itself after this many seconds "
            "unless optimize proves it still reaches the NAS and the clients reach it.",
        ),
    ] = 120,
    flow: Annotated[
        str,
        typer.Option(
            help="interleaved: prove the plan's settings by alternating without and with them in random order until "
            "every metric is settled (one-off actions: before/after); before-after: the seeds' flow, measure, apply "
            "everything, measure again, then (unless --no-interleave) interleave the settings a second time."
        ),
    ] = "interleaved",
    interleave: Annotated[
        bool, typer.Option("--interleave/--no-interleave", help="before-after: also interleave the settings.")
    ] = True,
    min_pairs: opt.MinPairs = 3,  # jobs.optimize.PAIRS
    max_pairs: opt.MaxPairs = 8,
    json: opt.Json = False,
) -> None:
    """The main job: inspect, diagnose, measure, plan, apply, measure again, compare, report.
    With --inventory it tunes that NAS and measures from its clients; on the lab it starts from
    a fresh `soho` (a small NAS in its factory state) and does the same through the lab's
    inventory."""
    from nastune.bench.workloads import DEFAULTS
    from nastune.jobs.optimize import OptimizeSpec, run

    pairs = (min_pairs, max_pairs) if interleave or flow == "interleaved" else None
    with failing():  # checked before anything is reached; no workloads named: the site's defaults
        params = {**DEFAULTS, "size": size_option(size)}
        spec = OptimizeSpec(workload or [], params, repeats, out, target, bool(accept_risk), pairs, flow)
    consent(
        yes, "optimize will apply the changes it finds (you can roll them back). Go on?", "optimize changes the system"
    )
    log = say("optimize")
    with failing(code=1, interrupted=f"interrupted before the plan was applied; results so far in {out}"):
        # on the lab, its own inventory: the code path of a real deployment
        where = site(
            lab,
            inventory,
            target,
            clients,
            scenario=scenario,
            log=log,
            confirm_timeout=confirm_timeout,
            login_file=login_file,
        )
        outcome = run(spec, where, err, log)
    failed = outcomes.optimize(err if json else console, outcome)  # --json: standard output is the summary
    if json and outcome.summary is not None:
        print(outcome.summary.dumps())
    if failed:
        raise typer.Exit(1)
