"""plan, apply, verify, rollback, confirm: the tuning engine, with its safety."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.text import Text

from nastune.cli.common import (
    AcceptRiskOption,
    FragOption,
    JsonOption,
    LabJournalOption,
    LabOption,
    RootOption,
    app,
    collect_facts,
    console,
    err,
    fail,
    lines_to,
    rerun_in_lab,
)
from nastune.report import layout

InventoryOption = Annotated[
    Path | None, typer.Option("--inventory", help="Act on this inventory's NAS, with nastune there (over SSH).")
]
CONFIRM_TIMEOUT = 120  # seconds a live host waits for `nastune confirm` after a network change


@app.command()
def plan(
    root: RootOption = "/",
    lab: LabOption = False,
    only: Annotated[list[str] | None, typer.Option("--only", help="Only the changes of these rules.")] = None,
    out: Annotated[Path, typer.Option("--out", help="Where to write the plan.")] = Path("plan.json"),
    xfs_fragmentation: FragOption = False,
) -> None:
    """Write the changes the findings recommend to a plan file that you can read and edit,
    then `nastune apply` it."""
    import os

    from nastune import rules as knowledge
    from nastune.tune.plan import from_findings

    if lab:
        rerun_in_lab(extra_env={"NASTUNE_IN_LAB": "1"}, absolute={"--out": str(out.resolve())})
    findings = knowledge.evaluate(collect_facts(root, None, xfs_fragmentation), only=only)
    made = from_findings(findings)
    made.lab = os.environ.get("NASTUNE_IN_LAB") == "1"  # the lab's plans say so, for a later apply
    try:
        out.write_text(made.to_json() + "\n")
    except OSError as e:
        fail(f"{out}: {e.strerror}")
    from nastune.report.tune_view import plan_table

    console.print(plan_table(made))
    risky = sum(c.durability_risk for c in made.changes)
    console.print(
        f"wrote {out}: {len(made.changes)} changes ({risky} trade durability and need --accept-risk "
        f"durability). Next: nastune apply {out} --dry-run",
        highlight=False,
    )


@app.command()
def apply(
    plan_file: Annotated[Path, typer.Argument(metavar="PLAN", help="A plan file from `nastune plan`.")],
    root: RootOption = "/",
    lab: LabOption = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the diff and change nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking.")] = False,
    persist: Annotated[bool, typer.Option("--persist", help="Also make the changes survive a reboot.")] = False,
    accept_risk: AcceptRiskOption = None,
    confirm_timeout: Annotated[
        int | None,
        typer.Option(
            "--confirm-timeout",
            help="Revert network changes after this many seconds unless `nastune confirm` is run "
            f"(0: no revert). Default: {CONFIRM_TIMEOUT} on a live host; on the lab only when given.",
            min=0,
        ),
    ] = None,
    json: JsonOption = False,
) -> None:
    """Apply a plan (`-`: read it from standard input): show the diff, journal each original
    value, change, read back, and roll everything back on any failure. Exit 1: nothing applied
    (refused, or failed and rolled back); 3: failed, and the changes listed remain applied."""
    from nastune.tune import lock
    from nastune.tune.system import Stranded, TuneError

    # The lock first, held until the journal is closed: a plan read and diffed outside it could
    # be applied a second time over the first (and leave an empty journal newer than the real one).
    try:
        with lock.hold(tuning_system(root, lab), "apply"):
            _apply(plan_file, root, lab, dry_run, yes, persist, bool(accept_risk), confirm_timeout, json)
    except TuneError as e:
        fail(str(e), code=STRANDED if isinstance(e, Stranded) else 1)


STRANDED = 3  # apply failed and changes remain applied (the message lists them): see the README's exit codes


def _apply(plan_file, root, lab, dry_run, yes, persist, accept_risk, confirm_timeout, json) -> None:
    from nastune.report.tune_view import diff_table
    from nastune.tune import executor
    from nastune.tune.plan import load
    from nastune.tune.system import TuneError

    try:
        loaded = load(plan_file)
        system = tuning_system(root, lab or loaded.lab)
        rows = executor.diff(loaded, system)
    except TuneError as e:
        fail(str(e))
    shown = err if json else console  # --json: standard output is the summary alone
    shown.print(diff_table(rows))
    if any(r.change.durability_risk and not r.noop for r in rows):
        err.print(Text.assemble(("risk:", "yellow"), f" {executor.DURABILITY}"))
    pending = [r for r in rows if not r.noop]

    def summary(journal: str | None, watchdog: int, changed: int) -> None:
        if json:
            from nastune import wire

            counts = {"changes": len(loaded.changes), "changed": changed, "would_change": len(pending)}
            print(wire.Apply(journal=journal, watchdog=watchdog, dry_run=dry_run, **counts).dumps(None))

    if dry_run or not pending:
        shown.print("dry run: nothing changed" if dry_run else "nothing to change: every setting is already as planned")
        summary(None, 0, 0)
        return
    if not yes:
        import sys

        if not sys.stdin.isatty():
            fail("not applying without --yes (no terminal to ask on)")
        typer.confirm("Apply these changes?", abort=True)
    log = lines_to(shown)
    journal = executor.apply(loaded, system, accept_risk=accept_risk, persist=persist, log=log)
    if journal is None:
        shown.print("nothing to change: every setting is already as planned")
        summary(None, 0, 0)
        return
    network = [r for r in rows if r.knob.network and not r.noop]
    timeout = confirm_timeout if confirm_timeout is not None else (0 if system.netns else CONFIRM_TIMEOUT)
    watchdog = timeout if network and system.live and timeout > 0 else 0
    if watchdog:  # armed before anything is printed: the reader may be gone with the network
        from nastune.tune import watchdog as revert

        revert.start(journal, watchdog)
    log(f"applied; journal {journal.path}. Check with `nastune verify`, undo with `nastune rollback`.")
    if watchdog:
        log(f"network changes will be reverted in {watchdog} s unless you run `nastune confirm`")
    summary(journal.path, watchdog, len(pending))


@app.command()
def verify(
    root: RootOption = "/",
    journal: Annotated[str | None, typer.Option("--journal", help="A journal path (default: the newest).")] = None,
    json: JsonOption = False,
    inventory: InventoryOption = None,
    lab: LabJournalOption = False,
) -> None:
    """Every setting of the last applied plan, expected versus actual; exit 1 on drift."""
    from nastune.root import Unavailable

    if inventory:
        on_nas(inventory, "verify", *(["--journal", journal] if journal else []), *(["--json"] if json else []))
    from nastune.tune import executor
    from nastune.tune.system import TuneError

    found = journal_of(root, journal, lab)
    system = found.system
    try:
        rows = executor.verify(found, system)
    except (TuneError, Unavailable) as e:
        fail(str(e))
    if json:
        from nastune import wire

        settings = [wire.Setting(setting=s, expected=e, actual=a, ok=ok) for s, e, a, ok in rows]
        print(wire.Verify(journal=found.path, settings=settings).dumps())
        if not all(ok for *_, ok in rows):
            raise typer.Exit(1)
        return
    table = layout.Records(f"Verify {found.path}", *("setting", "expected", "actual", ""))
    for label, expected, actual, ok in rows:
        table.add_row(
            label, expected[:60], actual[:60], layout.styled("ok", "green") if ok else layout.styled("DRIFT", "red")
        )
    console.print(table)
    if not all(ok for *_, ok in rows):
        raise typer.Exit(1)


@app.command()
def rollback(
    root: RootOption = "/",
    to: Annotated[str | None, typer.Option("--to", help="The journal to roll back (default: the newest).")] = None,
    inventory: InventoryOption = None,
    json: JsonOption = False,
    lab: LabJournalOption = False,
) -> None:
    """Restore every original value of an applied plan, newest change first (safe to repeat,
    also after apply was killed)."""
    from nastune.root import Unavailable

    if inventory:
        on_nas(inventory, "rollback", *(["--to", to] if to else []), *(["--json"] if json else []))
    from nastune.tune.rollback import rollback as rollback_journal
    from nastune.tune.system import TuneError

    found = journal_of(root, to, lab)
    shown = err if json else console  # --json: standard output is the summary alone
    try:
        report = rollback_journal(found, found.system, log=lambda m: shown.print(m, highlight=False))
    except (TuneError, Unavailable) as e:
        fail(str(e), code=1)
    shown.print(f"{report.summary()} from {found.path}", highlight=False, markup=False)
    for note in report.notes:
        shown.print(f"note: {note}", highlight=False, markup=False)
    others = found.others_outstanding()
    for other in others:
        err.print(
            f"note: {other.path} still holds applied changes: `nastune rollback --to {other.path}` undoes them",
            highlight=False,
            markup=False,
        )
    if json:
        from nastune import wire

        failures = [wire.NotRestored(**f.__dict__) for f in report.failures]
        summary = {"journal": found.path, "restored": report.restored, "unchanged": report.unchanged}
        print(wire.Rollback(**summary, failures=failures, outstanding=[o.path for o in others]).dumps(None))
    if report.ok and not report.restored and others:
        err.print(
            f"error: {found.path} had nothing left to restore, but other journals hold changes that are still "
            "applied (listed above)",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(1)
    if not report.ok:
        err.print(
            f"error: {len(report.failures)} entr{'y' if len(report.failures) == 1 else 'ies'} could not be "
            "restored; each is listed above with the command that restores it by hand",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(1)


@app.command()
def confirm(
    root: RootOption = "/",
    journal: Annotated[str | None, typer.Option("--journal", help="A journal path (default: the newest).")] = None,
    inventory: InventoryOption = None,
    lab: LabJournalOption = False,
) -> None:
    """Keep the network changes of the last apply (stops the automatic revert)."""
    if inventory:
        on_nas(inventory, "confirm", *(["--journal", journal] if journal else []))
    import time

    from nastune.tune.system import TuneError

    found = journal_of(root, journal, lab)
    try:
        found.record({"type": "confirm", "at": time.time()})
    except TuneError as e:
        fail(str(e))
    console.print(f"confirmed {found.path}", highlight=False)


def on_nas(inventory: Path, *args: str) -> NoReturn:
    """Run this tuning command on the inventory's NAS, where its journal is; its output and
    exit status are this command's."""
    import sys

    from nastune import commands
    from nastune.remote import inventory as inventories
    from nastune.remote.nas import NasAgent

    try:
        agent = NasAgent(inventories.load(inventory).nas)
    except inventories.InventoryError as e:
        fail(str(e))
    why = agent.check()
    if why:
        fail(why, code=1)
    result = commands.run(agent.argv([*agent.nastune_argv, *args]), 600)
    if result.error:
        fail(f"{args[0]} on {agent.name}: {result.error}", code=1)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    raise typer.Exit(result.returncode or 0)


def tuning_system(root: str, lab: bool):
    from nastune.tune.system import TuneError, for_root

    try:
        if lab:
            from nastune.sites.lab.system import running

            return running()
        return for_root(root)
    except TuneError as e:
        fail(str(e))


def journal_of(root: str, path: str | None, lab: bool):
    from nastune.tune.journal import find
    from nastune.tune.system import TuneError, for_root

    try:
        running = None
        if root == "/":  # the lab's journals live with the lab, on this host
            from nastune.sites.lab.system import if_running

            running = if_running()
        return find(for_root(root), path, running, only_lab=lab)
    except TuneError as e:
        fail(str(e))
