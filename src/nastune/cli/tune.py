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

InventoryOption = Annotated[
    Path | None, typer.Option("--inventory", help="Act on this inventory's NAS, with nastune there (over SSH).")
]


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
            "(0: no revert). Default: 120 on a live host; on the lab only when given.",
            min=0,
        ),
    ] = None,
    json: JsonOption = False,
) -> None:
    """Apply a plan (`-`: read it from standard input): show the diff, journal each original
    value, change, read back, and roll everything back on any failure. Exit 1: nothing applied
    (refused, or failed and rolled back); 3: failed, and the changes listed remain applied."""
    import sys

    from nastune.jobs.apply import ApplySpec, Unusable, run
    from nastune.report.tune_view import diff_table
    from nastune.tune import lock
    from nastune.tune.executor import DURABILITY
    from nastune.tune.system import Stranded, TuneError

    shown = err if json else console  # --json: standard output is the summary alone

    def show(rows) -> None:
        shown.print(diff_table(rows))
        if any(r.change.durability_risk and not r.noop for r in rows):
            err.print(Text.assemble(("risk:", "yellow"), f" {DURABILITY}"))

    def ask() -> None:
        if not yes:
            if not sys.stdin.isatty():
                fail("not applying without --yes (no terminal to ask on)")
            typer.confirm("Apply these changes?", abort=True)

    spec = ApplySpec(plan_file, dry_run, persist, bool(accept_risk), confirm_timeout)
    # The lock first, held until the journal is closed: a plan read and diffed outside it could
    # be applied a second time over the first (and leave an empty journal newer than the real one).
    try:
        system = tuning_system(root, lab)
        with lock.hold(system, "apply"):
            done = run(spec, system, show, ask, lines_to(shown))
    except TuneError as e:
        fail(str(e), code=2 if isinstance(e, Unusable) else STRANDED if isinstance(e, Stranded) else 1)
    if json:
        print(done.dumps(None))


STRANDED = 3  # apply failed and changes remain applied (the message lists them): see the README's exit codes


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
    from nastune import wire
    from nastune.report.tune_view import verify_table

    settings = [wire.Setting(setting=s, expected=e, actual=a, ok=ok) for s, e, a, ok in rows]
    done = wire.Verify(journal=found.path, settings=settings)
    print(done.dumps()) if json else console.print(verify_table(done))
    if not all(s.ok for s in done.settings):
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
    from nastune import wire
    from nastune.report.tune_view import rolled_back

    failures = [wire.NotRestored(**f.__dict__) for f in report.failures]
    summary = {"journal": found.path, "restored": report.restored, "unchanged": report.unchanged}
    done = wire.Rollback(**summary, failures=failures, outstanding=[o.path for o in found.others_outstanding()])
    failed = rolled_back(shown, err, done, report.summary(), report.notes)
    if json:
        print(done.dumps(None))
    if failed:
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

    from nastune.remote.inventory import InventoryError
    from nastune.remote.nas import NasAgent, NasError

    try:
        result = NasAgent.of(inventory).forward(list(args))
    except InventoryError as e:
        fail(str(e))
    except NasError as e:
        fail(str(e), code=1)
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
