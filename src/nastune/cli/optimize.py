"""optimize: the main job, end to end."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nastune.cli.common import (
    AcceptRiskOption,
    app,
    chosen_site,
    console,
    err,
    fail,
    say,
    size_option,
)
from nastune.report import outcomes

if TYPE_CHECKING:
    from nastune.sites.base import Site


@app.command()
def optimize(
    lab: Annotated[bool, typer.Option("--lab/--live", help="Optimize the lab (default) or this live system.")] = True,
    scenario: Annotated[str, typer.Option("--scenario", help="The lab scenario to start from.")] = "soho",
    target: Annotated[
        str | None,
        typer.Option(
            "--target",
            help="Where to measure: with --live a path or URL; on the lab or an inventory smb, nfs, ftp, iperf3 "
            "or mount (the clients' mounts).",
        ),
    ] = None,
    workload: Annotated[
        list[str] | None,
        typer.Option(
            "--workload",
            "-w",
            help="Workloads (default: seq-write, seq-read, aged-read where the NAS names a read set, "
            "network from a single client).",
        ),
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=2, max=100)] = 5,
    size: Annotated[str, typer.Option("--size", help="File size of the sequential workloads.")] = "256M",
    out: Annotated[Path, typer.Option("--out", help="Directory for results, plan, report.")] = Path("nastune-optimize"),
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply the plan without asking.")] = False,
    accept_risk: AcceptRiskOption = None,
    inventory: Annotated[
        Path | None,
        typer.Option(
            "--inventory",
            help="An Ansible INI inventory: tune its NAS (with nastune on the NAS, over SSH unless "
            "ansible_connection=local) and measure from its clients.",
        ),
    ] = None,
    clients: Annotated[
        str, typer.Option("--clients", help="With --inventory: which clients measure (all, or c1,c2: together).")
    ] = "all",
    confirm_timeout: Annotated[
        int,
        typer.Option(
            "--confirm-timeout",
            min=10,
            help="With --inventory: the NAS reverts network changes by itself after this many seconds "
            "unless optimize proves it still reaches the NAS and the clients reach it.",
        ),
    ] = 120,
    interleave: Annotated[
        bool,
        typer.Option(
            "--interleave/--no-interleave",
            help="After before/after, measure the plan's settings again interleaved (without and with them in "
            "random alternation; drift cannot fool it), then apply them again.",
        ),
    ] = True,
    min_pairs: Annotated[int, typer.Option("--min-pairs", min=3, max=50, help="Interleaved pairs before a look.")] = 5,
    max_pairs: Annotated[int, typer.Option("--max-pairs", min=3, max=100, help="The budget of interleaved pairs.")] = 8,
) -> None:
    """The main job: inspect, diagnose, measure, plan, apply, measure again, compare, report.
    With --inventory it tunes that NAS and measures from its clients; on the lab it starts from
    a fresh `soho` (a small NAS in its factory state) and does the same through the lab's
    inventory."""
    import sys

    from nastune.bench.workloads import DEFAULTS
    from nastune.jobs.optimize import OptimizeError, OptimizeSpec
    from nastune.jobs.optimize import run as run_optimize
    from nastune.lab.sh import LabError
    from nastune.remote.nas import NasError
    from nastune.tune.system import TuneError

    if min_pairs > max_pairs:
        fail("--min-pairs must not exceed --max-pairs")
    if not yes and not sys.stdin.isatty():
        fail("optimize changes the system: add --yes (no terminal to ask on)")
    if not yes:
        typer.confirm("optimize will apply the changes it finds (you can roll them back). Go on?", abort=True)
    log = say("optimize")
    site: Site
    try:
        if lab and not inventory:  # the lab's own inventory: the code path of a real deployment
            from nastune.sites.lab.site import started

            site = started(scenario, False, clients, log, confirm_timeout=confirm_timeout)
            target = "mount" if target == "smbfs" else target
        else:
            site = chosen_site(False, inventory, target, clients, confirm_timeout=confirm_timeout)
        spec = OptimizeSpec(
            workload or site.default_workloads(),
            {**DEFAULTS, "size": size_option(size)},
            repeats,
            out,
            target,
            bool(accept_risk),
            (min_pairs, max_pairs) if interleave else None,
        )
        outcome = run_optimize(spec, site, err, log)
    except OptimizeError as e:
        fail(str(e), code=130 if e.interrupted else 1)
    except (LabError, TuneError, NasError, ValueError, OSError) as e:
        fail(str(e), code=1)
    except KeyboardInterrupt:
        fail(f"interrupted before the plan was applied; results so far in {out}", code=130)
    if outcomes.optimize(console, outcome):
        raise typer.Exit(1)
