"""autotune: search the tunables with real measurements."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.cli.common import RootOption, app, console, err, fail, say, size_option


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
    accept_risk: Annotated[
        list[str] | None,
        typer.Option("--accept-risk", help="durability: also search tunables that trade crash safety for speed."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply trials without asking.")] = False,
) -> None:
    """Search the tunables with real measurements: every trial applied with the journal,
    measured, rolled back; the winner measured again beside the base and written as a plan for
    `apply` only if it beats the base beyond the noise floor."""
    import sys

    from nastune import rules as knowledge
    from nastune.autotune.objective import ObjectiveError, parse
    from nastune.autotune.search import AutotuneError, Search, Settings
    from nastune.autotune.space import SpaceError, build
    from nastune.bench.selection import inventory_pairs, pairs
    from nastune.bench.workloads import DEFAULTS
    from nastune.facts import Facts
    from nastune.lab.lab import LabError
    from nastune.optimize import choose, prepare_inventory, prepare_live
    from nastune.remote.nas import NasError
    from nastune.tune.plan import from_findings
    from nastune.tune.system import TuneError
    from nastune.tuner import Here, OnNas

    if not yes and not sys.stdin.isatty():
        fail("autotune changes the system trial by trial: add --yes (no terminal to ask on)")
    if not yes:
        typer.confirm("autotune applies and rolls back one configuration per trial. Go on?", abort=True)
    log = say("autotune")
    try:
        goal = parse(objective, workload or [])
        if lab and not inventory:
            inventory = _lab_inventory(scenario, resume, log)
        if inventory:
            inv, _, facts, tuner = prepare_inventory(inventory, clients, 120, log)
            lab = inv.nas.lab

            def make_pairs():
                return [p for kind, name in goal.workloads for p in inventory_pairs(inv, kind, [name], clients)]
        else:
            facts, system = prepare_live(target, root)
            tuner = Here(system)

            def make_pairs():
                return pairs(target, False, [name for _, name in goal.workloads])

        make_pairs()  # refuse unknown workloads and targets before any trial
        model = Facts.model_validate(facts)
        space, left = build(model, knobs, lab, bool(accept_risk))
        for line in left:
            log(f"left out: {line}")
        rule_plan, _ = choose(from_findings(knowledge.evaluate(model), lab=lab), lab, bool(accept_risk))
        settings = Settings(budget, repeats, out, lab, bool(accept_risk), seed)
        params = {**DEFAULTS, "size": size_option(size)}
        nas = tuner.agent if isinstance(tuner, OnNas) else None
        search = Search(space, goal, tuner, make_pairs, params, settings, err, nas, log)
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


def _lab_inventory(scenario: str, resume: bool, log) -> Path:
    """The lab's inventory: a fresh lab, or on --resume the lab as it runs (the study's base)."""
    from nastune.lab.lab import Lab
    from nastune.optimize import fresh_lab

    running = Lab()
    if resume and running.state.data.get("status") == "up":
        return running.inventory_path
    return fresh_lab(scenario, log)
