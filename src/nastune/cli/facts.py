"""inspect, capture, diagnose, explain: the facts of a system and what the rules find in them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.cli import options as opt
from nastune.cli.common import SEVERITIES, app, console, facts_of, fail, failing, reading, site, verbose
from nastune.severity import Severity

NasOf = Annotated[
    Path | None,
    typer.Option(
        "--inventory", help="Read the facts of this inventory's NAS, with nastune there (over SSH), as its link is."
    ),
]


@app.command(short_help="Show every performance-relevant fact")
def inspect(
    ctx: typer.Context,
    root: opt.Root = "/",
    lab: opt.Lab = False,
    json: opt.Json = False,
    area: opt.Area = None,
    xfs_fragmentation: opt.Frag = False,
    xfs_fragmentation_exact: opt.FragExact = False,
    address: opt.Address = None,
    link_rate: opt.LinkRate = None,
    inventory: NasOf = None,
) -> None:
    """Show every performance-relevant fact of the system: CPU and NUMA, kernel tunables,
    network interfaces and their IRQs, block devices, md RAID, file systems, NFS, Samba, ZFS.

    Example: nastune inspect --inventory hosts.ini --area network"""
    from nastune.report.facts_view import render

    how = reading(xfs_fragmentation, xfs_fragmentation_exact, address, link_rate)
    facts = facts_of(site(lab, inventory, root=root), area, how)
    if json:
        print(facts.to_json())
    else:
        render(facts, console(), verbose=verbose(ctx))


@app.command(short_help="Snapshot what the collectors read, for --root")
def capture(
    out: Annotated[Path, typer.Argument(help="The snapshot archive to write (.tar.gz).")],
    xfs_fragmentation: opt.Frag = False,
    xfs_fragmentation_exact: opt.FragExact = False,
) -> None:
    """Snapshot everything the collectors read on this live system (files and command output)
    into an archive that `--root` reads anywhere, like a support bundle. Passwords and
    secrets in configuration files are removed."""
    from nastune.snapshot import capture as capture_snapshot

    if not out.parent.is_dir():
        fail(f"{out.parent}: no such directory")
    with failing():
        facts = capture_snapshot(out, reading(xfs_fragmentation, xfs_fragmentation_exact))
    console().print(
        f"wrote {out} ({out.stat().st_size // 1024} KiB, {len(facts.warnings)} warnings); "
        f"read it with: nastune inspect --root {out}",
        highlight=False,
    )


@app.command(short_help="Find what makes this NAS slow")
def diagnose(
    ctx: typer.Context,
    root: opt.Root = "/",
    lab: opt.Lab = False,
    json: opt.Json = False,
    area: opt.Area = None,
    min_severity: Annotated[
        str, typer.Option(help=f"Hide findings below this severity: {', '.join(SEVERITIES)}.")
    ] = "info",
    fail_on: Annotated[
        str | None, typer.Option(help="Exit 1 when a finding of this severity or higher exists (for scripts).")
    ] = None,
    only: opt.Only = None,
    numa_matrix: Annotated[
        Path | None, typer.Option(help="A measured NUMA memory bandwidth matrix (JSON, GB/s) for the NUMA rule.")
    ] = None,
    xfs_fragmentation: opt.Frag = False,
    xfs_fragmentation_exact: opt.FragExact = False,
    address: opt.Address = None,
    link_rate: opt.LinkRate = None,
    inventory: NasOf = None,
    profile: opt.Profile = None,
) -> None:
    """Find what makes this NAS slow: every rule of the knowledge base run on the system's
    facts, findings sorted by expected impact, each with its evidence, fix, trade-off and source;
    with --profile, what limited measured runs first."""
    from nastune.jobs.diagnose import DiagnoseSpec, check, run
    from nastune.report import findings_view

    for name, value in (("--min-severity", min_severity), ("--fail-on", fail_on)):
        if value is not None and value not in SEVERITIES:
            fail(f"{name} {value!r}: choose from {', '.join(SEVERITIES)}")
    spec = DiagnoseSpec(Severity[min_severity], only or [], numa_matrix, profile or [])
    with failing():
        runs = check(spec)  # before the facts are read: a bad argument fails at once
        how = reading(xfs_fragmentation, xfs_fragmentation_exact, address, link_rate)
        where = site(lab, inventory, root=root)
        done = run(spec, where, facts_of(where, area, how), runs)
    print(done.dumps()) if json else findings_view.render(done.findings, console(), verbose=verbose(ctx))
    if fail_on is not None and any(f.severity >= Severity[fail_on] for f in done.findings):
        raise typer.Exit(1)


@app.command(short_help="Explain a rule, or list them all")
def explain(
    rule_id: Annotated[str | None, typer.Argument(help="A rule id; without one, list all rules.")] = None,
) -> None:
    """Explain a rule: the problem, how it is detected, the fix, the trade-off and the source."""
    from nastune import rulebook  # the index: no rule, collector or pydantic imported to explain

    if rule_id is None:
        print(_listed([(e.id, e.area, e.severity, e.title) for e in rulebook.entries()]))
        return
    try:
        rule = rulebook.find(rule_id)
    except KeyError:
        fail(f"unknown rule {rule_id!r}; `nastune explain` lists them")
    from rich.markdown import Markdown  # markdown-it: only to show one rule's page

    console().print(Markdown(rule.doc))
    console().print(f"\narea: {rule.area}; severity: {rule.severity}; source: {rule.source}", highlight=False)
    if rule.clients:
        console().print("also checked on each client of an inventory that runs nastune (nastune_command)")


def _listed(rows: list[tuple[str, str, str, str]]) -> str:
    """The rules in columns, each title wrapped at spaces to the terminal's width (at 80
    columns), as plain text: a list printed on every `explain` needs no rich (a third of its run)."""
    import shutil
    import textwrap

    head = ("id", "area", "severity", "title")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(3)]
    width = shutil.get_terminal_size((80, 24)).columns
    lead = sum(widths) + 6
    lines = []
    for row in [head, *rows]:
        prefix = "  ".join(f"{cell:{w}}" for cell, w in zip(row, widths, strict=False)) + "  "
        wrapped = textwrap.wrap(row[3], max(width - lead, 24), break_long_words=False, break_on_hyphens=False) or [""]
        lines += [prefix + wrapped[0], *(" " * lead + more for more in wrapped[1:])]
    return "\n".join(lines)
