"""autotune: search the tunables with real measurements."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.cli.common import AcceptRiskOption, RootOption, app, console, err, fail, say, size_option


@app.command()
def autotune(
    lab: Annotated[bool, typer.Option("--lab/--live", help="Search on the lab (default) or this live system.")] = True,
    scenario: Annotated[str, typer.Option("--scenario", help="The lab scenario to start from.")] = "soho",
    inventory: Annotated[
        Path | None, typer.Option("--inventory", help="Search on this inventory's NAS, measured from its clients.")
    ] = None,
    target: Annotated[
        str | None, typer.Option("--target", help="With --live: where to measure (a path or URL).")
    ] = None,
    root: RootOption = "/",
    workload: Annotated[
        list[str] | None,
        typer.Option("--workload", "-w", help="TARGET:WORKLOAD to measure, e.g. smb:seq-write (repeatable)."),
    ] = None,
    objective: Annotated[
        str | None,
        typer.Option(
            "--objective",
            help="What to maximize: '0.6*smb:seq-write + 0.4*nfs:seq-read', optionally "
            "'... where nfs:rand-read:p99 < 5' (default: the mean ratio of the workloads).",
        ),
    ] = None,
    budget: Annotated[int, typer.Option("--budget", min=2, max=500, help="Trials to measure.")] = 20,
    knobs: Annotated[
        list[str] | None,
        typer.Option("--knobs", help="Only these tunables (repeatable; an unknown name is refused with the list)."),
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=1, max=20, help="Repeats per trial.")] = 3,
    size: Annotated[str, typer.Option("--size", help="File size of the sequential workloads.")] = "64M",
    seed: Annotated[int, typer.Option("--seed", help="The sampler's seed.")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the study in --out after a kill.")] = False,
    out: Annotated[Path, typer.Option("--out", help="Directory for the study, trials, plan, report.")] = Path(
        "nastune-autotune"
    ),
    clients: Annotated[str, typer.Option("--clients", help="With --inventory: which clients measure.")] = "all",
    accept_risk: AcceptRiskOption = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply trials without asking.")] = False,
) -> None:
    """Search the tunables with real measurements: every trial applied with the journal,
    measured, rolled back; the winner measured again beside the base and written as a plan for
    `apply` only if it beats the base beyond the noise floor."""
    import sys

    from nastune.autotune.objective import ObjectiveError, parse
    from nastune.autotune.search import AutotuneError, Settings
    from nastune.autotune.space import SpaceError
    from nastune.jobs.autotune import prepare
    from nastune.lab.sh import LabError
    from nastune.remote.nas import NasError
    from nastune.tune.system import TuneError

    if not yes and not sys.stdin.isatty():
        fail("autotune changes the system trial by trial: add --yes (no terminal to ask on)")
    if not yes:
        typer.confirm("autotune applies and rolls back one configuration per trial. Go on?", abort=True)
    log = say("autotune")
    try:
        goal = parse(objective, workload or [])
        settings = Settings(budget, repeats, out, bool(accept_risk), seed)
        site = _site(lab and not inventory, scenario, resume, inventory, target, root, clients, log)
        search, rule_plan = prepare(goal, site, settings, knobs, size_option(size), err, log)
        outcome = search.run(resume, rule_plan)
    except (ObjectiveError, SpaceError) as e:
        fail(str(e))
    except AutotuneError as e:
        fail(str(e), code=1)
    except (LabError, TuneError, NasError, ValueError, OSError) as e:
        fail(str(e), code=1)
    except KeyboardInterrupt:
        fail(
            f"interrupted: the trial's changes are rolled back; `nastune autotune --resume --out {out}` continues", 130
        )
    console.print(outcome.verdict, highlight=False)
    if outcome.plan:
        console.print(f"best configuration: {outcome.best}; its plan: {outcome.plan} (`nastune apply {outcome.plan}`)")
    if outcome.importance:
        ranked = ", ".join(f"{k} {v:.2f}" for k, v in outcome.importance.items())
        console.print(f"importance: {ranked}", highlight=False)
    console.print(f"report: {outcome.report}", highlight=False)


def _site(lab: bool, scenario: str, resume: bool, inventory, target, root: str, clients: str, log):
    """The lab through its inventory (a fresh one of `scenario`, or on --resume the lab as it
    runs: the study's base), an inventory's NAS, or this live system at --target."""
    if lab:
        from nastune.sites.lab.site import started

        return started(scenario, resume, clients, log)
    if inventory:
        from nastune.sites.inventory import InventorySite

        return InventorySite.load(inventory, clients)
    from nastune.sites.live import LiveSite

    if not target:
        raise ValueError("with --live, say where to measure: --target PATH|URL")
    return LiveSite(target, root)
