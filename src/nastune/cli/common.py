"""What every command shares: the Typer apps, the consoles (markup off: nothing from a system is
ever read as markup), the common options, and the few helpers that turn a stage's error into a
clear message and an exit code.

Every `nastune` process imports the command line, so it imports only typer and nastune's light
modules at start; each command imports what it runs (rich once it prints, facts, rules, scipy
through the statistics, plotly through the report, optuna through autotune) in its own body."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from nastune import __version__
from nastune.areas import AREAS
from nastune.cli.help import EXIT_CODES
from nastune.errors import Failure
from nastune.severity import Severity

if TYPE_CHECKING:
    from rich.console import Console

    from nastune.bench.results import ResultSet
    from nastune.facts import Facts, Reading
    from nastune.login import Login
    from nastune.sites.base import Site

T = TypeVar("T")

lab_app = typer.Typer(
    short_help="The lab: a real NAS and its clients on this machine",
    help="The lab: a real NAS (Samba, NFS-Ganesha, FTP on XFS) and its clients on this "
    "machine, in network namespaces joined by a shaped link.",
    no_args_is_help=True,
)

app = typer.Typer(
    help="nastune: find out why a Linux NAS (SMB, NFS, FTP) is slow, and make it fast, measurably.\n\n"
    "Start with `nastune inspect` to see every performance-relevant fact of this system.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # click's plain help: readable at 80 columns, and no markdown-it to import
    epilog=EXIT_CODES,
)

bench_app = typer.Typer(
    short_help="Measure the NAS end to end",
    help="Measure the NAS end to end: per protocol, latency vs file and record size, "
    "sync vs async, small files, the network, NUMA memory bandwidth.",
)
app.add_typer(lab_app, name="lab")
app.add_typer(bench_app, name="bench")

baseline_app = typer.Typer(
    short_help="Keep results as named baselines and check against them",
    help="Keep a result as a named baseline and check later runs against it.",
)
app.add_typer(baseline_app, name="baseline")


@cache
def console() -> Console:
    """Standard output's console, made on first use: rich is about a fifth of a start that every
    command pays, and `--help`, `--version` and a refused option print without it."""
    from nastune.report import layout

    return layout.console()


@cache
def err() -> Console:
    """Standard error's console, for progress, errors and (with --json) the human summary."""
    from nastune.report import layout

    return layout.console(stderr=True)


SEVERITIES = [s.name for s in Severity]


def fail(message: str, code: int = 2) -> NoReturn:
    from rich.text import Text

    err().print(Text.assemble(("error:", "red"), f" {message}"))
    raise typer.Exit(code)


@contextmanager
def failing(code: int = 2, interrupted: str = "interrupted") -> Iterator[None]:
    """A stage's failure (its message names the file, field or host) or an OSError becomes that
    message and exit `code`, or the failure's own code (2: bad input; 3: changes remain applied);
    Ctrl-C becomes `interrupted` (what state it left) and exit 130. Any other exception is a bug:
    it goes on to `main`, which shows its traceback with -v."""
    try:
        yield
    except KeyboardInterrupt:
        fail(interrupted, 130)
    except Failure as e:
        fail(str(e), getattr(e, "code", None) or code)
    except OSError as e:
        fail(f"{e.filename}: {e.strerror}" if e.filename else str(e.strerror or e), code)


def consent(yes: bool, question: str, refusal: str) -> None:
    """Go on only with --yes or a person's yes: without a terminal to ask on, refuse."""
    if yes:
        return
    if not sys.stdin.isatty():
        fail(f"{refusal}: add --yes (no terminal to ask on)")
    typer.confirm(question, abort=True)


def _version(value: bool) -> None:
    """--version alone is a whole command: eager, before a subcommand is required."""
    if value:
        console().print(f"nastune {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def main(
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show more detail and debug logs.")] = False,
    version: Annotated[
        bool, typer.Option("--version", help="Print the version and exit.", callback=_version, is_eager=True)
    ] = False,
) -> None:
    if verbose:  # lazy: without -v, logging's own default (warnings only) holds, and --help need not load it
        import logging

        logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(message)s")


def say(stage: str) -> Callable[[str], None]:
    """A progress logger for a stage: its name dimmed, the message as plain text."""
    from rich.text import Text

    return lambda m: err().print(Text.assemble((f"{stage}:", "dim"), f" {m}"))


def lines_to(shown: Console) -> Callable[[str], None]:
    """A log for the tuning engine that never stops it: when the reader is gone (an SSH session
    that a network change cut), a change half-made must still be finished or rolled back."""

    def log(message: str) -> None:
        try:
            shown.print(message, highlight=False)
        except (OSError, SystemExit):  # rich meets a broken pipe with SystemExit, stdout sent to /dev/null
            pass

    return log


def verbose(ctx: typer.Context) -> bool:
    return bool(ctx.parent and ctx.parent.params.get("verbose"))


def named(lab: bool | None, inventory: Path | None, target: str | None = None) -> None:
    """A command that changes a system acts only on one the operator named: never a lab, or this
    host, by default; this host is measured where --target says."""
    if lab is None and inventory is None:
        fail("name the NAS: --inventory HOSTS.ini (a NAS and its clients), --live (this host) or --lab (a fresh lab)")
    if lab is False and inventory is None and not target:
        fail("with --live, say where to measure: --target PATH|URL")


def site(
    lab: bool,
    inventory: Path | None = None,
    target: str | None = None,
    clients: str | None = None,
    *,
    root: str = "/",
    scenario: str | None = None,
    resume: bool = False,
    log: Callable[[str], None] = print,
    login_file: Path | None = None,
    kernel: bool = False,
    **options: Any,
) -> Site:
    """Where the command works, as its options say: an inventory's NAS measured from its
    clients; the lab (with `scenario`, a fresh lab of it, or on `resume` the lab as it runs,
    through its own inventory; with `clients`, through its inventory; else from its first
    client); or this host (`root`) measured at `target` (with the share's login from
    `login_file`: a file, or - for standard input); with `kernel`, a fresh kernel lab (its
    guest). `options` go to the inventory
    (confirm_timeout, scaling). NasError, InventoryError and LabError say why it cannot be
    reached; --lab with --root is refused (exit 2)."""
    if login_file and (inventory or lab):
        fail("--login-file goes with --target URL; an inventory names its logins (nastune_smb_user, ...)")
    if inventory:
        from nastune.sites.inventory import InventorySite

        return InventorySite.load(inventory, clients or "all", **options)
    if lab:
        if root != "/":  # else `apply --root TREE --lab` would change the lab, not the tree
            fail(f"--lab and --root {root} name two systems: give one")
        from nastune.sites.lab import kernel_site
        from nastune.sites.lab import site as lab_site

        if kernel:
            return kernel_site.started(scenario or "kernel", clients or "all", log, **options)
        if not scenario and kernel_site.only_up():  # whichever lab is up: the kernel lab is
            return kernel_site.running(clients or "all", **options)
        if scenario:
            return lab_site.started(scenario, resume, clients or "all", log, **options)
        if clients is not None:
            return lab_site.inventory_site(clients, **options)
        return lab_site.LabSite()
    from nastune.sites.live import LiveSite

    return LiveSite(target, root, login=_login(login_file, target) if login_file else None)


def lab_inventory(lab: bool | None, inventory: Path | None) -> Path | None:
    """The inventory a tuning command acts through: the one named, or the kernel lab's when --lab
    means it (the one lab up), whose NAS is tuned by nastune there as any inventory's is."""
    if inventory or not lab:
        return inventory
    from nastune.sites.lab import kernel_site  # lazy: the labs' parts, only to ask which is up

    if kernel_site.only_up():
        from nastune.sites.lab.kernel import KernelLab

        return KernelLab().inventory_path
    return None


def _login(path: Path, target: str | None) -> Login:
    """The login in `path` (- : standard input) for the host of `target`."""
    from urllib.parse import urlparse

    from nastune.login import from_either, private_text

    hosts = [urlparse(target).hostname or ""] if target else []
    text = sys.stdin.read(65536) if str(path) == "-" else private_text(path, "login file")
    return from_either(path, text, hosts)


def reading(sample: bool, exact: bool, address: str | None = None, link_rate: str | None = None) -> Reading:
    """The facts' reading from the command's options (an unknown rate is refused, exit 2)."""
    from nastune.facts import Reading
    from nastune.units import rate_bits

    with failing():
        return Reading(
            "exact" if exact else "sample" if sample else None, address, rate_bits(link_rate) if link_rate else None
        )


def facts_of(where: Site, area: list[str] | None, how: Reading) -> Facts:
    """The facts of `area` (default: every area) where `where` says the NAS is, as `how` reads
    them; a bad area or an unreadable system is refused (exit 2)."""
    from nastune.facts import expand

    with failing():
        return where.facts(how, expand(area or AREAS))  # a bad --area fails before anything is read


def lab_action(action: Callable[[], T]) -> T:
    """Run a lab action as root, its errors shown plainly (exit 2)."""
    from nastune.sites.lab.lab import require_root

    with failing():
        require_root()
        return action()


def size_option(text: str) -> int | None:
    """A size, or None for auto (chosen by the job from the link it measures)."""
    from nastune.units import size_bytes

    with failing():
        return None if text == "auto" else size_bytes(text)


def load_results(paths: list[Path]) -> list[ResultSet]:
    from nastune.bench.results import load

    with failing():
        return [load(p) for p in paths]


def on_nas(inventory: Path, command: str, journal: str | None, *flags: str) -> NoReturn:
    """Run this tuning command where its journal is (the NAS, and each client a journal of
    several hosts names); their output and the worst exit status are this command's."""
    import json

    from nastune import wire
    from nastune.sites.handles import forwarded

    with failing():
        answers = forwarded(inventory, command, journal, list(flags))
    several, as_json = len(answers) > 1, "--json" in flags
    for a in answers:
        if not (several and as_json):
            sys.stdout.write(f"{a.host}:\n{a.stdout}" if several else a.stdout)
        sys.stderr.write(a.stderr)
    if several and as_json:
        with failing(code=1):
            said = [
                wire.Answer(host=a.host, exit=a.code, output=json.loads(a.stdout) if a.stdout else None)
                for a in answers
            ]
            print(wire.Across(command=command, journal=journal, hosts=said).dumps())
    raise typer.Exit(max(a.code for a in answers))
