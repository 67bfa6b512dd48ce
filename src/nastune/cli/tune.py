"""plan, apply, verify, rollback, confirm: the tuning engine, with its safety."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from nastune.cli import options as opt
from nastune.cli.common import (
    app,
    consent,
    console,
    err,
    facts_of,
    failing,
    lab_inventory,
    lines_to,
    on_nas,
    reading,
    site,
)
from nastune.risks import RISKS

if TYPE_CHECKING:
    from nastune.jobs.apply import ApplySpec

NasInventory = Annotated[
    Path | None,
    typer.Option(
        "--inventory",
        help="Act on this inventory's NAS and the clients that run nastune, with nastune there (over SSH).",
    ),
]


@app.command(short_help="Write the recommended changes to a plan file")
def plan(
    root: opt.Root = "/",
    lab: opt.Lab = False,
    only: opt.Only = None,
    out: Annotated[Path, typer.Option(help="Where to write the plan.")] = Path("plan.json"),
    xfs_fragmentation: opt.Frag = False,
    xfs_fragmentation_exact: opt.FragExact = False,
    address: opt.Address = None,
    link_rate: opt.LinkRate = None,
    inventory: NasInventory = None,
) -> None:
    """Write the changes the findings recommend to a plan file that you can read and edit,
    then `nastune apply` it. With --inventory, read on its NAS and on each client that runs
    nastune (its nastune_command), each client's changes named by host."""
    from nastune.jobs import plan as planning
    from nastune.report.tune_view import elsewhere, plan_table

    with failing():
        where = site(lab, inventory, root=root)
    facts = facts_of(where, None, reading(xfs_fragmentation, xfs_fragmentation_exact, address, link_rate))
    with failing():  # the lab's plans say so, for a later apply
        made = planning.run(facts, only, out, where)
    later = f" --inventory {inventory}" if inventory else ""
    console().print(plan_table(made))
    for line in elsewhere(made.changes):
        console().print(line, highlight=False, markup=False)
    risky = [f"{sum(r in c.risks for c in made.changes)} trade {r} (--accept-risk {r})" for r in RISKS]
    console().print(
        f"wrote {out}: {len(made.changes)} changes ({', '.join(risky)}). Next: nastune apply {out}{later} --dry-run",
        highlight=False,
    )


@app.command(short_help="Apply a plan: journaled, read back, undone on failure")
def apply(
    plan_file: Annotated[Path, typer.Argument(metavar="PLAN", help="A plan file from `nastune plan`.")],
    root: opt.Root = "/",
    lab: opt.Lab = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the diff and change nothing.")] = False,
    yes: opt.Yes = False,
    persist: Annotated[bool, typer.Option("--persist", help="Also make the changes survive a reboot.")] = False,
    accept_risk: opt.AcceptRisk = None,
    confirm_timeout: Annotated[
        int | None,
        typer.Option(
            help="Revert network changes after this many seconds unless `nastune confirm` is run "
            "(0: no revert). Default: 120 on a live host; on the lab only when given.",
            min=0,
        ),
    ] = None,
    json: opt.Json = False,
    inventory: NasInventory = None,
) -> None:
    """Apply a plan (`-`: read it from standard input): show the diff, journal each original
    value, change, read back, and roll everything back on any failure. With --inventory, nastune
    on the NAS and on each client the plan names applies that host's changes. Exit 1: nothing
    applied (refused, or failed and rolled back); 3: failed, and the changes listed remain applied."""
    from functools import partial

    from nastune.jobs.apply import ApplySpec, run
    from nastune.report.tune_view import show_diff

    shown = err() if json else console()  # --json: standard output is the summary alone
    spec = ApplySpec(plan_file, dry_run, persist, frozenset(accept_risk or ()), confirm_timeout)
    inventory = lab_inventory(lab, inventory)
    if inventory:
        _apply_across(spec, inventory, yes, json)
    show = partial(show_diff, shown, err())
    ask = partial(consent, yes, "Apply these changes?", "not applying")
    with failing(code=1):
        done = run(spec, site(lab, root=root), show, ask, lines_to(shown))
    if json:
        print(done.dumps(None))


def _apply_across(spec: ApplySpec, inventory: Path, yes: bool, json: bool) -> NoReturn:
    """`apply --inventory`: each host's changes applied by nastune there; --json prints the
    --journal value that names each host's journal."""
    from functools import partial

    from nastune import wire
    from nastune.jobs.apply import across
    from nastune.report.tune_view import plan_table

    shown = err() if json else console()
    show = lambda plan: shown.print(plan_table(plan))
    ask = partial(consent, yes, "Apply these changes on these hosts?", "not applying")
    with failing():
        where = site(False, inventory, confirm_timeout=spec.confirm_timeout or 120)
    with failing(code=1):
        journal = across(spec, where, show, ask, lines_to(shown))
    if json:
        print(wire.Across(command="apply", journal=journal, hosts=[]).dumps())
    elif journal:
        console().print(
            f"applied; --journal {journal} names each host's journal. "
            f"Undo: nastune rollback --inventory {inventory} --journal {journal}",
            highlight=False,
        )
    raise typer.Exit(0)


@app.command(short_help="Read back every setting of the last applied plan")
def verify(
    root: opt.Root = "/",
    journal: opt.Journal = None,
    json: opt.Json = False,
    inventory: NasInventory = None,
    lab: opt.LabJournals = False,
) -> None:
    """Every setting of the last applied plan, expected versus actual; exit 1 on drift."""
    from nastune.report.tune_view import verify_table
    from nastune.tune.executor import verified

    inventory = lab_inventory(lab, inventory)
    if inventory:
        on_nas(inventory, "verify", journal, *(["--json"] if json else []))
    with failing():
        found = site(lab, root=root).journal(journal)
        done = verified(found, found.system)
    print(done.dumps()) if json else console().print(verify_table(done))
    if not all(s.ok for s in done.settings):
        raise typer.Exit(1)


@app.command(short_help="Restore every original value of an applied plan")
def rollback(
    root: opt.Root = "/",
    to: Annotated[
        str | None, typer.Option("--journal", "--to", help="The journal to roll back (default: the newest).")
    ] = None,
    inventory: NasInventory = None,
    json: opt.Json = False,
    lab: opt.LabJournals = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be restored; change nothing.")] = False,
) -> None:
    """Restore every original value of an applied plan, newest change first (safe to repeat,
    also after apply was killed)."""
    from nastune.jobs import rollback as restoring
    from nastune.report.tune_view import rolled_back

    inventory = lab_inventory(lab, inventory)
    if inventory:
        flags = [*(["--json"] if json else []), *(["--dry-run"] if dry_run else [])]
        on_nas(inventory, "rollback", to, *flags)
    with failing():
        found = site(lab, root=root).journal(to)
    shown = err() if json else console()  # --json: standard output is the summary alone
    with failing(code=1):
        report = restoring.run(found, lambda m: shown.print(m, highlight=False), dry_run)
    done = report.wire(found)
    failed = rolled_back(shown, err(), done, report.summary(), report.notes)
    if json:
        print(done.dumps(None))
    if failed:
        raise typer.Exit(1)


@app.command(short_help="Make the last applied settings survive a reboot")
def persist(
    root: opt.Root = "/",
    journal: opt.Journal = None,
    inventory: NasInventory = None,
) -> None:
    """Make the settings of the last applied plan (or --journal's) survive a reboot: sysctls in
    /etc/sysctl.d/90-nastune.conf, mount options in /etc/fstab, the rest applied at boot by a
    systemd unit. Each file is journaled, so `nastune rollback` removes them again. Refused when a
    setting no longer reads as applied, or another file would override a sysctl at boot."""
    from nastune.jobs import persist as persisting

    if inventory:
        on_nas(inventory, "persist", journal)
    with failing():
        found = site(False, root=root).journal(journal)
    with failing(code=1):
        made = persisting.run(found, lines_to(console()))
    if made is None:
        console().print(f"the settings of {found.path} already survive a reboot", highlight=False)
    else:
        console().print(
            f"persisted the settings of {found.path}; `nastune rollback --journal {made}` undoes it", highlight=False
        )


@app.command(short_help="Install nastune on a NAS or client (no servers)")
def install(
    inventory: Annotated[Path, typer.Option("--inventory", help="The inventory whose NAS gets nastune.")],
    venv: Annotated[str, typer.Option(metavar="DIR", help="Where on the NAS: a virtual environment.")] = "/opt/nastune",
    wheel: Annotated[
        Path | None, typer.Option(metavar="WHEEL", help="The wheel to install (default: built from this checkout).")
    ] = None,
    client: Annotated[
        str | None, typer.Option(metavar="NAME", help="Install on this client instead, to read and tune it too.")
    ] = None,
) -> None:
    """Install nastune's core on the inventory's NAS (or --client's), over its SSH: a wheel built
    from this checkout, into a virtual environment of its own (its dependencies from the host's
    package index). It installs no server and enables nothing. Then set
    nastune_command=DIR/bin/nastune on that host in the inventory.

    Example: nastune install --inventory hosts.ini --venv /opt/nastune"""
    from nastune.jobs.install import InstallSpec, run
    from nastune.remote.agent import Agent
    from nastune.remote.inventory import load

    with failing():
        agent = Agent(load(inventory).client(client), "client") if client else Agent.of(inventory)
    with failing(code=1):
        version = run(InstallSpec(venv, wheel), agent, lambda m: err().print(f"install: {m}", highlight=False))
    console().print(
        f"{version} on {agent.name}; in {inventory}, set nastune_command={venv}/bin/nastune", highlight=False
    )


@app.command(short_help="Keep the network changes of the last apply")
def confirm(
    root: opt.Root = "/",
    journal: opt.Journal = None,
    inventory: NasInventory = None,
    lab: opt.LabJournals = False,
    json_out: opt.Json = False,
) -> None:
    """Keep the network changes of the last apply (stops the automatic revert)."""
    from nastune import wire
    from nastune.tune import watchdog

    inventory = lab_inventory(lab, inventory)
    if inventory:
        on_nas(inventory, "confirm", journal, *(["--json"] if json_out else []))
    with failing():
        found = site(lab, root=root).journal(journal)
        confirmed = watchdog.confirm(found)
    if json_out:
        print(wire.Confirm(journal=found.path, confirmed=confirmed).dumps())
        return
    said = f"confirmed {found.path}" if confirmed else f"{found.path}: nothing waits for a confirmation"
    console().print(said, highlight=False)


@app.command(hidden=True, short_help="Run the coordinator's nastune commands, one fork each")
def serve(
    lab: Annotated[
        bool, typer.Option("--lab", help="Load the lab's site too: the commands will act on the lab.")
    ] = False,
) -> None:
    """Run the nastune commands a coordinator sends on standard input, each in a fork of this
    process (nastune imported once), until it closes the session: the host's side of an
    interleaved run, which switches the host a hundred times."""
    import sys

    from nastune.remote import session_host

    _preload(lab)
    session_host.loop(_command, sys.stdin.buffer, sys.stdout.buffer)


def _preload(lab: bool) -> None:
    """What the commands a coordinator sends (inspect, apply, rollback, confirm, verify, persist)
    import when they run: imported once here, so that each fork finds them loaded (lazy: only a
    host that serves pays for them). The lab's site only where the commands name the lab: on an
    emulated guest each import costs twenty times what it costs here."""
    import nastune.facts
    import nastune.jobs.apply
    import nastune.jobs.persist
    import nastune.jobs.rollback
    import nastune.report.facts_view
    import nastune.report.tune_view
    import nastune.sites.live
    import nastune.tune.executor
    import nastune.tune.watchdog
    import nastune.wire

    if lab:
        import nastune.sites.lab.site  # noqa: F401


def _command(args: list[str]) -> int:
    """One command as `nastune ARGS` runs it (it exits with its status)."""
    import sys

    from nastune.cli.program import main

    sys.argv = ["nastune", *args]
    main()
    return 0
