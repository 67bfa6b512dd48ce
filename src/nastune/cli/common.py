"""What every command shares: the Typer apps, the consoles (markup off: nothing from a system is
ever read as markup), the common options, and the few helpers that turn a stage's error into a
clear message and an exit code.

Every `nastune` process imports the command line, so it imports only typer, rich and nastune's
light modules at start; each command imports the stages it runs (facts, rules, scipy through the
statistics, plotly through the report, optuna through autotune) in its own body."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.text import Text

from nastune import __version__
from nastune.areas import AREAS, GROUPS
from nastune.report import layout
from nastune.severity import Severity

if TYPE_CHECKING:
    from nastune.facts import Facts
    from nastune.sites.base import Site

lab_app = typer.Typer(
    help="The lab: a real NAS (Samba, NFS-Ganesha, FTP on XFS) and its clients on this "
    "machine, in network namespaces joined by a shaped link.",
    no_args_is_help=True,
)

app = typer.Typer(
    help="nastune: find out why a Linux NAS (SMB, NFS) is slow, and make it fast, measurably.\n\n"
    "Start with `nastune inspect` to see every performance-relevant fact of this system.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
)

bench_app = typer.Typer(
    help="Measure the NAS end to end: per protocol, latency vs file and record size, "
    "sync vs async, small files, the network, NUMA memory bandwidth."
)
app.add_typer(lab_app, name="lab")
app.add_typer(bench_app, name="bench")

baseline_app = typer.Typer(help="Keep a result as a named baseline and check later runs against it.")
app.add_typer(baseline_app, name="baseline")

console = layout.console()
err = layout.console(stderr=True)

RootOption = Annotated[
    str,
    typer.Option(
        "--root",
        help="Read this system instead of the live one: a directory tree or a snapshot "
        "archive made by `nastune capture`.",
        metavar="DIR|SNAPSHOT",
    ),
]

LabOption = Annotated[bool, typer.Option("--lab", help="Read the lab's nas host (run `nastune lab up` first).")]

LabJournalOption = Annotated[bool, typer.Option("--lab", help="Only the journals of the lab's nas host.")]

JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON (versioned schema).")]

AreaOption = Annotated[
    list[str] | None, typer.Option("--area", help=f"Only these areas (repeatable): {', '.join(AREAS + tuple(GROUPS))}.")
]

FragOption = Annotated[
    bool,
    typer.Option(
        "--xfs-fragmentation",
        help="Also measure XFS fragmentation with xfs_db. On a live system this "
        "FREEZES each mounted XFS file system for the few seconds of the reading.",
    ),
]

RISKS = ("durability",)  # the one guarantee a plan can trade: crash safety of acknowledged writes


def _known_risks(value: list[str] | None) -> list[str] | None:
    """Every command that takes --accept-risk refuses a risk it does not know, before it acts."""
    unknown = [r for r in value or [] if r not in RISKS]
    if unknown:
        raise typer.BadParameter(f"{unknown[0]!r}: the only risk that can be accepted is 'durability'")
    return value


AcceptRiskOption = Annotated[
    list[str] | None,
    typer.Option(
        "--accept-risk",
        help="durability: also use changes that trade crash safety for speed (the only risk there is).",
        callback=_known_risks,
    ),
]


SEVERITIES = [s.name for s in Severity]


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(Text.assemble(("error:", "red"), f" {message}"))
    raise typer.Exit(code)


def _version(value: bool) -> None:
    """--version alone is a whole command: eager, before a subcommand is required."""
    if value:
        console.print(f"nastune {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def main(
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show more detail and debug logs.")] = False,
    version: Annotated[
        bool, typer.Option("--version", help="Print the version and exit.", callback=_version, is_eager=True)
    ] = False,
) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(message)s")


def say(stage: str):
    """A progress logger for a stage: its name dimmed, the message as plain text."""
    return lambda m: err.print(Text.assemble((f"{stage}:", "dim"), f" {m}"))


def lines_to(shown) -> Callable[[str], None]:
    """A log for the tuning engine that never stops it: when the reader is gone (an SSH session
    that a network change cut), a change half-made must still be finished or rolled back."""

    def log(message: str) -> None:
        try:
            shown.print(message, highlight=False)
        except OSError:
            pass

    return log


def verbose(ctx: typer.Context) -> bool:
    return bool(ctx.parent and ctx.parent.params.get("verbose"))


def rerun_in_lab(extra_env: dict[str, str] | None = None, absolute: dict[str, str] | None = None) -> None:
    """Run this same command inside the lab's nas namespace, where /proc/sys/net, /sys/class/net
    and the servers' processes are the lab's, and exit with its status. `absolute` replaces
    options' values (relative paths) with ones that mean the same there."""

    from nastune.lab.sh import LabError
    from nastune.sites.lab.lab import Lab

    try:
        inner = Lab().rerun_argv(sys.argv[1:], absolute or {})
    except LabError as e:
        fail(str(e))
    os.environ.update(extra_env or {})
    os.execvp(inner[0], inner)


def collect_facts(root: str, area: list[str] | None, xfs_fragmentation: bool) -> Facts:
    from nastune.facts import collect, expand
    from nastune.root import Unavailable
    from nastune.snapshot import open_root

    try:
        areas = expand(area or AREAS)
        with open_root(root) as r:
            return collect(r, areas, xfs_fragmentation=xfs_fragmentation)
    except (ValueError, Unavailable) as e:
        fail(str(e))


def lab_action(action):
    """Run a lab action with the lab's errors shown plainly (exit 2)."""
    from nastune.sites.lab.lab import LabError, require_root

    try:
        require_root()
        return action()
    except (LabError, ValueError) as e:
        fail(str(e))


def size_option(text: str) -> int:
    from nastune.lab.scenario import size_bytes

    try:
        return size_bytes(text)
    except ValueError as e:
        fail(str(e))


def chosen_site(lab: bool, inventory: Path | None, target: str | None, clients: str | None = None, **options) -> Site:
    """The Site a command works on: an inventory's NAS (with --lab and --clients, the lab's own
    inventory), the lab measured from its first client (--lab), or this host measured at
    --target. NasError, ValueError and LabError say why it cannot be reached."""
    if inventory:
        from nastune.sites.inventory import InventorySite

        return InventorySite.load(inventory, clients or "all", **options)
    if lab:
        from nastune.sites.lab import site as lab_site

        if clients is not None:
            return lab_site.inventory_site(clients, **options)
        return lab_site.LabSite()
    from nastune.sites.live import LiveSite

    return LiveSite(target)


def load_results(paths: list[Path]):
    from nastune.bench.results import load

    try:
        return [load(p) for p in paths]
    except ValueError as e:
        fail(str(e))
