"""The nastune command line: parse, call one stage, print. No logic lives here."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from nastune import __version__
from nastune.facts import AREAS, GROUPS, collect, expand
from nastune.report.facts_view import render
from nastune.root import Unavailable
from nastune.snapshot import capture as capture_snapshot
from nastune.snapshot import open_root

app = typer.Typer(
    help="nastune: find out why a Linux NAS (SMB, NFS) is slow, and make it fast, measurably.\n\n"
         "Start with `nastune inspect` to see every performance-relevant fact of this system.",
    no_args_is_help=True, add_completion=False, rich_markup_mode="rich")
console = Console()
err = Console(stderr=True)

RootOption = Annotated[str, typer.Option(
    "--root", help="Read this system instead of the live one: a directory tree or a snapshot "
                   "archive made by `nastune capture`.", metavar="DIR|SNAPSHOT")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON (versioned schema).")]


def fail(message: str, code: int = 2) -> None:
    err.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    raise typer.Exit(code)


@app.callback()
def main(verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show more detail and debug logs.")] = False,
         version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
         ) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    app.info.context_settings = {"verbose": verbose}
    if version:
        console.print(f"nastune {__version__}")
        raise typer.Exit()


def _verbose(ctx: typer.Context) -> bool:
    return bool(ctx.parent and ctx.parent.params.get("verbose"))


@app.command()
def inspect(
    ctx: typer.Context,
    root: RootOption = "/",
    json: JsonOption = False,
    area: Annotated[list[str] | None, typer.Option(
        "--area", help=f"Only these areas (repeatable): {', '.join(AREAS + tuple(GROUPS))}.")] = None,
    xfs_fragmentation: Annotated[bool, typer.Option(
        "--xfs-fragmentation", help="Also measure XFS fragmentation with xfs_db. On a live system this "
                                    "FREEZES each mounted XFS file system for the few seconds of the reading.")] = False,
) -> None:
    """Show every performance-relevant fact of the system: CPU and NUMA, kernel tunables,
    network interfaces and their IRQs, block devices, md RAID, file systems, NFS, Samba, ZFS."""
    try:
        areas = expand(area or AREAS)
        with open_root(root) as r:
            facts = collect(r, areas, xfs_fragmentation=xfs_fragmentation)
    except (ValueError, Unavailable) as e:
        fail(str(e))
    if json:
        print(facts.to_json())
    else:
        render(facts, console, verbose=_verbose(ctx))


@app.command()
def capture(
    out: Annotated[Path, typer.Argument(help="The snapshot archive to write (.tar.gz).")],
    xfs_fragmentation: Annotated[bool, typer.Option(
        "--xfs-fragmentation", help="Include XFS fragmentation (freezes each XFS file system briefly).")] = False,
) -> None:
    """Snapshot everything the collectors read on this live system (files and command output)
    into an archive that `--root` reads anywhere, like a support bundle. Passwords and
    secrets in configuration files are removed."""
    if not out.parent.is_dir():
        fail(f"{out.parent}: no such directory")
    try:
        facts = capture_snapshot(out, xfs_fragmentation=xfs_fragmentation)
    except OSError as e:
        fail(f"{out}: {e}")
    console.print(f"wrote {out} ({out.stat().st_size // 1024} KiB, {len(facts.warnings)} warnings); "
                  f"read it with: nastune inspect --root {out}", highlight=False)
