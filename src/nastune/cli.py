"""The nastune command line: parse, call one stage, print. No logic lives here."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Annotated, NoReturn, cast

import typer
from rich.text import Text

from nastune import __version__
from nastune import rules as knowledge
from nastune.facts import AREAS, GROUPS, Facts, collect, expand
from nastune.facts.model import Fact
from nastune.report import findings_view, layout
from nastune.report.facts_view import render
from nastune.root import Unavailable
from nastune.rules.model import Severity
from nastune.snapshot import capture as capture_snapshot
from nastune.snapshot import open_root

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
SEVERITIES = [s.name for s in Severity]
FINDINGS_SCHEMA = "nastune.findings/1"


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(Text.assemble(("error:", "red"), f" {message}"))
    raise typer.Exit(code)


@app.callback()
def main(
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show more detail and debug logs.")] = False,
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if version:
        console.print(f"nastune {__version__}")
        raise typer.Exit()


def _say(stage: str):
    """A progress logger for a stage: its name dimmed, the message as plain text."""
    return lambda m: err.print(Text.assemble((f"{stage}:", "dim"), f" {m}"))


def _verbose(ctx: typer.Context) -> bool:
    return bool(ctx.parent and ctx.parent.params.get("verbose"))


def _rerun_in_lab(extra_env: dict[str, str] | None = None, absolute: tuple[str, str] | None = None) -> None:
    """Run this same command inside the lab's nas namespace, where /proc/sys/net, /sys/class/net
    and the servers' processes are the lab's, and exit with its status. `absolute` replaces an
    option's value (a relative output path) with one that means the same there."""
    import os
    import sys

    from nastune.lab.lab import Lab, LabError

    argv = [a for a in sys.argv[1:] if a != "--lab"]
    if absolute:
        option, kept, skip = absolute[0], [], False
        for a in argv:
            if skip:
                skip = False
            elif a == option:
                skip = True
            elif not a.startswith(option + "="):
                kept.append(a)
        argv = kept + list(absolute)
    try:
        inner = Lab().exec_argv("nas", [sys.executable, "-m", "nastune", *argv])
    except LabError as e:
        fail(str(e))
    os.environ.update(extra_env or {})
    os.execvp(inner[0], inner)


def _facts(root: str, area: list[str] | None, xfs_fragmentation: bool) -> Facts:
    try:
        areas = expand(area or AREAS)
        with open_root(root) as r:
            return collect(r, areas, xfs_fragmentation=xfs_fragmentation)
    except (ValueError, Unavailable) as e:
        fail(str(e))


def _numa_matrix(path: Path) -> Fact[list[list[float]]]:
    """A measured memory bandwidth matrix (GB/s): {"matrix": [[...], ...]} or a bare list of rows."""
    from nastune import jsonfile

    try:
        data = jsonfile.load(path)
        rows = data["matrix"] if isinstance(data, dict) else data
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows) or len(rows) > 1024:
            raise ValueError("a list of at most 1024 rows is needed")
        matrix = [[_bandwidth(v) for v in row] for row in rows]
    except (ValueError, KeyError, TypeError) as e:
        fail(f'{path}: not a bandwidth matrix ({e}); expected {{"matrix": [[GB/s, ...], ...]}}')
    if not matrix or any(len(row) != len(matrix) for row in matrix):
        fail(f"{path}: the matrix must be square (one row and one column per NUMA node)")
    return Fact(value=matrix, source=str(path))


def _bandwidth(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e6:
        raise ValueError(f"{str(value)[:20]!r} is not a bandwidth in GB/s")
    return float(value)


@app.command()
def inspect(
    ctx: typer.Context,
    root: RootOption = "/",
    lab: LabOption = False,
    json: JsonOption = False,
    area: AreaOption = None,
    xfs_fragmentation: FragOption = False,
) -> None:
    """Show every performance-relevant fact of the system: CPU and NUMA, kernel tunables,
    network interfaces and their IRQs, block devices, md RAID, file systems, NFS, Samba, ZFS."""
    if lab:
        _rerun_in_lab()
    facts = _facts(root, area, xfs_fragmentation)
    if json:
        print(facts.to_json())
    else:
        render(facts, console, verbose=_verbose(ctx))


@app.command()
def capture(
    out: Annotated[Path, typer.Argument(help="The snapshot archive to write (.tar.gz).")],
    xfs_fragmentation: Annotated[
        bool,
        typer.Option("--xfs-fragmentation", help="Include XFS fragmentation (freezes each XFS file system briefly)."),
    ] = False,
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
    console.print(
        f"wrote {out} ({out.stat().st_size // 1024} KiB, {len(facts.warnings)} warnings); "
        f"read it with: nastune inspect --root {out}",
        highlight=False,
    )


@app.command()
def diagnose(
    ctx: typer.Context,
    root: RootOption = "/",
    lab: LabOption = False,
    json: JsonOption = False,
    area: AreaOption = None,
    min_severity: Annotated[
        str, typer.Option("--min-severity", help=f"Hide findings below this severity: {', '.join(SEVERITIES)}.")
    ] = "info",
    fail_on: Annotated[
        str | None,
        typer.Option("--fail-on", help="Exit 1 when a finding of this severity or higher exists (for scripts)."),
    ] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="Only these rules (repeatable).")] = None,
    numa_matrix: Annotated[
        Path | None,
        typer.Option("--numa-matrix", help="A measured NUMA memory bandwidth matrix (JSON, GB/s) for the NUMA rule."),
    ] = None,
    xfs_fragmentation: FragOption = False,
) -> None:
    """Find what makes this NAS slow: every rule of the knowledge base run on the system's
    facts, findings sorted by expected impact, each with its evidence, fix, trade-off and source."""
    if lab:
        _rerun_in_lab()
    for name, value in (("--min-severity", min_severity), ("--fail-on", fail_on)):
        if value is not None and value not in SEVERITIES:
            fail(f"{name} {value!r}: choose from {', '.join(SEVERITIES)}")
    known = {r.id for r in knowledge.all_rules()}
    unknown = [r for r in only or [] if r not in known]
    if unknown:
        fail(f"unknown rule {', '.join(unknown)}; `nastune explain` lists them")
    facts = _facts(root, area, xfs_fragmentation)
    if numa_matrix is not None:
        facts.numa_bandwidth = _numa_matrix(numa_matrix)
    findings = knowledge.evaluate(facts, only=only, min_severity=Severity[min_severity])
    if json:
        import json as jsonlib

        print(
            jsonlib.dumps(
                {
                    "schema": FINDINGS_SCHEMA,
                    "rules": len(known),
                    "findings": [f.model_dump(mode="json") for f in findings],
                    "warnings": [w.model_dump(mode="json", exclude_none=True) for w in facts.warnings],
                },
                indent=1,
            )
        )
    else:
        findings_view.render(findings, console, verbose=_verbose(ctx))
    if fail_on is not None and any(f.severity >= Severity[fail_on] for f in findings):
        raise typer.Exit(1)


@app.command()
def explain(
    rule_id: Annotated[str | None, typer.Argument(help="A rule id; without one, list all rules.")] = None,
) -> None:
    """Explain a rule: the problem, how it is detected, the fix, the trade-off and the source."""
    from rich.markdown import Markdown

    if rule_id is None:
        console.print(findings_view.rule_table(knowledge.all_rules()))
        return
    try:
        rule = knowledge.get(rule_id)
    except KeyError:
        fail(f"unknown rule {rule_id!r}; `nastune explain` lists them")
    console.print(Markdown(rule.doc()))
    console.print(f"\narea: {rule.area}; severity: {rule.severity.name}; source: {rule.source}", highlight=False)


def _lab(action):
    """Run a lab action with the lab's errors shown plainly (exit 2)."""
    from nastune.lab.lab import LabError, require_root

    try:
        require_root()
        return action()
    except (LabError, ValueError) as e:
        fail(str(e))


@lab_app.command("up")
def lab_up(
    scenario: Annotated[
        str, typer.Option("--scenario", help="A built-in scenario (soho, modern) or a .toml file.")
    ] = "soho",
    rate: Annotated[
        str | None, typer.Option("--rate", help="Link rate, both directions (e.g. 1gbit, 100mbit).")
    ] = None,
    mtu: Annotated[int | None, typer.Option("--mtu", help="MTU of every lab interface.")] = None,
    clients: Annotated[int | None, typer.Option("--clients", help="Number of client hosts (1-8).")] = None,
) -> None:
    """Build the lab (idempotent: an identical lab that is up is left alone)."""
    from nastune.lab import scenario as scenarios
    from nastune.lab.lab import Lab

    def action():
        chosen = scenarios.load(scenario)
        changes = {k: v for k, v in (("rate", rate), ("mtu", mtu)) if v is not None}
        updated = chosen.model_copy(update={"network": chosen.network.model_copy(update=changes)})
        if clients is not None:
            updated = updated.model_copy(update={"clients": clients})
        final = scenarios.Scenario.model_validate(updated.model_dump())
        built = Lab().up(final, log=_say("lab"))
        console.print(("lab is up" if built else "lab was already up") + f" (scenario {final.name})", highlight=False)
        for name, url in Lab().state.data.get("targets", {}).items():
            console.print(f"  {name:7} {url}", highlight=False)

    _lab(action)


@lab_app.command("down")
def lab_down() -> None:
    """Remove everything the lab created (namespaces, mounts, loop devices, cgroups, processes, files)."""
    from nastune.lab.lab import Lab

    _lab(lambda: Lab().down(log=lambda m: console.print(m, highlight=False)))


@lab_app.command("reset")
def lab_reset() -> None:
    """Rebuild the lab in its scenario's state (undoes any tuning applied to it)."""
    from nastune.lab.lab import Lab

    _lab(lambda: Lab().reset(log=_say("lab")))


@lab_app.command("status")
def lab_status(json: JsonOption = False) -> None:
    """Each part of the lab, up or down, with the check that proves it; exit 1 if any is down."""
    from nastune.lab.lab import Lab

    parts = _lab(lambda: Lab().status())
    if json:
        import json as jsonlib

        print(jsonlib.dumps(parts, indent=1))
    else:
        table = layout.Records("Lab", *("part", "state", "check"))
        for p in parts:
            table.add_row(
                p["part"], layout.styled("up", "green") if p["ok"] else layout.styled("down", "red"), p["check"]
            )
        console.print(table)
    if not all(p["ok"] for p in parts):
        raise typer.Exit(1)


@lab_app.command("exec", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def lab_exec(
    host: Annotated[str, typer.Argument(help="nas, client (the first), client2, ...")],
    command: Annotated[list[str], typer.Argument(help="The command and its arguments (after --).")],
) -> None:
    """Run a command on a lab host, e.g. `nastune lab exec client -- smbclient -N -L 10.77.0.1`."""
    import os

    from nastune.lab.lab import Lab

    argv = _lab(lambda: Lab().exec_argv(host, command))
    os.execvp(argv[0], argv)


def _tune_system(root: str, lab: bool):
    """The system a tuning command acts on: the lab, or a root directory (live when '/')."""
    from nastune.root import Root
    from nastune.tune.system import System, TuneError, lab_system

    try:
        if lab:
            return lab_system()
        if not Path(root).is_dir():
            fail(f"{root}: tuning needs a directory root (a snapshot archive is read-only)")
        return System(root=Root(root))
    except (TuneError, Unavailable) as e:
        fail(str(e))


def _journal_system(root: str, journal: str | None):
    """The journal to act on (the newest of this root's and the lab's by default) and the
    system it was applied to."""
    from nastune.root import Root
    from nastune.tune.journal import Journal
    from nastune.tune.system import System, TuneError, lab_system

    host = _tune_system(root, False) if root != "/" else System(root=Root("/"))
    try:
        if journal:
            found = Journal.at(host, journal)
            if found.header().get("lab") is True and root == "/":
                lab = lab_system()
                return Journal(lab, found.path), lab
            return found, host
        candidates = []
        systems = [host]
        if root == "/":
            try:
                systems.append(lab_system())
            except TuneError:
                pass
        for system in systems:
            try:
                candidates.append(Journal.latest(system))
            except TuneError:
                continue
        if not candidates:
            fail("no journal: nothing was applied here (or the lab it was applied to is gone)")
        newest = max(candidates, key=lambda j: j.mtime())
        return newest, newest.system
    except (TuneError, Unavailable) as e:
        fail(str(e))


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

    from nastune.tune.plan import from_findings

    if lab:
        _rerun_in_lab(extra_env={"NASTUNE_IN_LAB": "1"}, absolute=("--out", str(out.resolve())))
    findings = knowledge.evaluate(_facts(root, None, xfs_fragmentation), only=only)
    made = from_findings(findings, lab=os.environ.get("NASTUNE_IN_LAB") == "1")
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
    accept_risk: Annotated[
        list[str] | None,
        typer.Option("--accept-risk", help="Allow changes that trade away a guarantee; the only one is: durability."),
    ] = None,
    confirm_timeout: Annotated[
        int,
        typer.Option(
            "--confirm-timeout",
            help="On a live host, revert network changes after this many seconds "
            "unless `nastune confirm` is run (0: no revert).",
        ),
    ] = 120,
) -> None:
    """Apply a plan: show the diff, journal each original value, change, read back, and roll
    everything back on any failure."""
    from nastune.report.tune_view import diff_table
    from nastune.tune import executor
    from nastune.tune.plan import load
    from nastune.tune.system import TuneError

    unknown_risks = [r for r in accept_risk or [] if r != "durability"]
    if unknown_risks:
        fail(f"--accept-risk {unknown_risks[0]!r}: the only risk that can be accepted is 'durability'")
    try:
        loaded = load(plan_file)
    except TuneError as e:
        fail(str(e))
    system = _tune_system(root, lab or loaded.lab)
    try:
        rows = executor.diff(loaded, system)
    except TuneError as e:
        fail(str(e))
    console.print(diff_table(rows))
    if any(r.change.durability_risk and not r.noop for r in rows):
        err.print(Text.assemble(("risk:", "yellow"), f" {executor.DURABILITY}"))
    if dry_run:
        console.print("dry run: nothing changed")
        return
    if not yes:
        import sys

        if not sys.stdin.isatty():
            fail("not applying without --yes (no terminal to ask on)")
        typer.confirm("Apply these changes?", abort=True)
    try:
        journal = executor.apply(
            loaded,
            system,
            accept_risk=bool(accept_risk),
            persist=persist,
            log=lambda m: console.print(m, highlight=False),
        )
    except TuneError as e:
        fail(str(e), code=1)
    console.print(
        f"applied; journal {journal.path}. Check with `nastune verify`, undo with `nastune rollback`.", highlight=False
    )
    network = [r for r in rows if r.knob.network and not r.noop]
    if network and system.live and system.netns is None and confirm_timeout > 0:
        executor.start_watchdog(journal, confirm_timeout)
        console.print(
            layout.styled(
                f"network changes will be reverted in {confirm_timeout} s unless you run `nastune confirm`", "yellow"
            )
        )


@app.command()
def verify(
    root: RootOption = "/",
    journal: Annotated[str | None, typer.Option("--journal", help="A journal path (default: the newest).")] = None,
    json: JsonOption = False,
) -> None:
    """Every setting of the last applied plan, expected versus actual; exit 1 on drift."""
    from nastune.tune import executor
    from nastune.tune.system import TuneError

    found, system = _journal_system(root, journal)
    try:
        rows = executor.verify(found, system)
    except (TuneError, Unavailable) as e:
        fail(str(e))
    if json:
        import json as jsonlib

        print(
            jsonlib.dumps(
                {
                    "journal": found.path,
                    "settings": [
                        {"setting": label, "expected": expected, "actual": actual, "ok": ok}
                        for label, expected, actual, ok in rows
                    ],
                },
                indent=1,
            )
        )
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
    unless_confirmed: Annotated[int | None, typer.Option(hidden=True)] = None,
) -> None:
    """Restore every original value of an applied plan, newest change first (safe to repeat,
    also after apply was killed)."""
    import time

    from nastune.tune.rollback import rollback as rollback_journal
    from nastune.tune.system import TuneError

    found, system = _journal_system(root, to)
    from nastune.tune.rollback import WATCHDOG_WAIT

    try:
        if unless_confirmed is not None:
            time.sleep(unless_confirmed)
            if found.has("confirm"):
                return
        report = rollback_journal(
            found,
            system,
            log=lambda m: console.print(m, highlight=False),
            wait=WATCHDOG_WAIT if unless_confirmed is not None else 0.0,
        )
    except (TuneError, Unavailable) as e:
        fail(str(e), code=1)
    console.print(f"{report.summary()} from {found.path}", highlight=False, markup=False)
    if not report.ok:
        err.print(
            f"error: {len(report.failures)} entr{'y' if len(report.failures) == 1 else 'ies'} could not be "
            "restored; each is listed above with the command that restores it by hand",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(1)


@app.command()
def confirm(root: RootOption = "/") -> None:
    """Keep the network changes of the last apply (stops the automatic revert)."""
    import time

    from nastune.tune.system import TuneError

    found, _ = _journal_system(root, None)
    try:
        found.record({"type": "confirm", "at": time.time()})
    except TuneError as e:
        fail(str(e))
    console.print(f"confirmed {found.path}", highlight=False)


def _size_option(text: str) -> int:
    from nastune.lab.scenario import size_bytes

    try:
        return size_bytes(text)
    except ValueError as e:
        fail(str(e))


def _bench_pairs(target: str | None, lab: bool, names: list[str]):
    from nastune.bench.selection import pairs

    try:
        return pairs(target, lab, names)
    except ValueError as e:
        fail(str(e))


@bench_app.callback(invoke_without_command=True)
def bench(
    ctx: typer.Context,
    target: Annotated[
        str | None,
        typer.Option(
            "--target",
            help="A path, smb://HOST/SHARE, nfs://HOST/EXPORT, "
            "ftp://HOST/DIR or iperf3://HOST; with --lab: "
            "smb, nfs, ftp, iperf3, local or smbfs (the share "
            "through smbnetfs, for fio).",
        ),
    ] = None,
    lab: LabOption = False,
    workload: Annotated[
        list[str] | None,
        typer.Option(
            "--workload",
            "-w",
            help="Workloads to run (repeatable); default: seq-write, seq-read (aged-read on an aged lab), network.",
        ),
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=1, max=100, help="Timed repeats after a warm-up.")] = 5,
    size: Annotated[str, typer.Option("--size", help="File size of the sequential workloads.")] = "1G",
    files: Annotated[int, typer.Option("--files", min=10, help="Number of files of small-files.")] = 500,
    out: Annotated[Path, typer.Option("--out", help="The result file (JSON).")] = Path("results.json"),
    label: Annotated[str, typer.Option("--label", help="A name for this run (before, after, ...).")] = "",
) -> None:
    """Run workloads against a target and write a result file with every repeat and provenance."""
    if ctx.invoked_subcommand is not None:
        return
    from nastune.bench import runner
    from nastune.bench.drivers.common import BenchError
    from nastune.bench.selection import default_workloads
    from nastune.bench.workloads import DEFAULTS

    pairs = _bench_pairs(target, lab, workload or default_workloads(lab))
    params = {**DEFAULTS, "size": _size_option(size), "files": files}
    try:
        results = runner.run(pairs, params, repeats, out, label=label, lab=lab, console=err)
    except KeyboardInterrupt:
        err.print(f"interrupted: test files removed; finished repeats kept in {out}")
        raise typer.Exit(130) from None
    except BenchError as e:
        fail(str(e), code=1)
    table = layout.Records(f"Results ({out})", *("workload", "target", "metric", "median", "CV", "of limit", "flags"))
    for r in results.results:
        for name, m in r.metrics.items():
            table.add_row(
                r.workload,
                r.target["url"],
                name,
                f"{m.median:.1f} {m.unit}",
                f"{m.cv:.1%}",
                f"{m.median / m.limit:.0%}" if m.limit else "",
                "; ".join(m.flags),
            )
    console.print(table)
    for r in results.results:
        if r.attribution:
            console.print(f"{r.workload} @ {r.target['url']}: {r.attribution}", highlight=False)
    failed = [r for r in results.results if r.failed]
    for r in failed:
        err.print(Text.assemble(("error:", "red"), f" {r.key} failed: {r.error}"))
    if failed:
        raise typer.Exit(1)


@bench_app.command("list")
def bench_list() -> None:
    """The workloads, what they measure, and where they run."""
    from nastune.bench.workloads import WORKLOADS

    table = layout.Records("Workloads", *("name", "targets", "what it measures", "source"))
    for w in WORKLOADS.values():
        table.add_row(w.name, ", ".join(w.kinds), w.doc, w.source)
    console.print(table)


def _load_results(paths: list[Path]):
    from nastune.bench.results import load

    try:
        return [load(p) for p in paths]
    except ValueError as e:
        fail(str(e))


def _comparison_table(rows, title: str):
    table = layout.Records(
        title, *("workload", "target", "metric", "before", "after", "change (95% CI)", "p", "verdict")
    )
    colour = {"better": "green", "worse": "red", "~": "dim"}
    for r in rows:
        c = r.result
        table.add_row(
            r.workload,
            r.target,
            r.metric,
            f"{c.before_median:.4g}",
            f"{c.after_median:.4g} {r.unit}",
            f"{c.change:+.1%} ({c.change_ci[0]:+.1%}..{c.change_ci[1]:+.1%})",
            f"{c.p_value:.3f}",
            layout.styled(c.verdict, colour[c.verdict]),
        )
    return table


@app.command()
def compare(
    results: Annotated[list[Path], typer.Argument(help="Two or more result files; each is compared with the first.")],
    json: JsonOption = False,
    force: Annotated[bool, typer.Option("--force", help="Compare even when workload parameters differ.")] = False,
    noise_floor: Annotated[float, typer.Option("--noise-floor", help="Smallest change that counts (003: 3%).")] = 0.03,
) -> None:
    """Per workload and metric: medians with 95% intervals, the relative change with its interval,
    and a verdict (better, worse, ~) that needs p < 0.05 and an interval beyond the noise floor."""
    from nastune.stats.runs import Incomparable, compare_runs

    if len(results) < 2:
        fail("give at least two result files")
    loaded = _load_results(results)
    output = []
    for path, other in zip(results[1:], loaded[1:]):
        try:
            rows, remarks = compare_runs(loaded[0], other, force=force, noise_floor=noise_floor)
        except Incomparable as e:
            fail(f"{results[0]} vs {path}: {e}")
        output.append(
            {"before": str(results[0]), "after": str(path), "rows": [r.to_json() for r in rows], "notes": remarks}
        )
        if not json:
            console.print(_comparison_table(rows, f"{results[0]} -> {path}"))
            for remark in remarks:
                console.print(f"  note: {remark}", highlight=False)
    if json:
        from nastune.jsonfile import dumps

        print(dumps(output))


baseline_app = typer.Typer(help="Keep a result as a named baseline and check later runs against it.")
app.add_typer(baseline_app, name="baseline")
BASELINES = Path(os.environ.get("NASTUNE_BASELINES", "/var/lib/nastune/baselines"))


@baseline_app.command("save")
def baseline_save(
    name: Annotated[str, typer.Argument(help="A name, e.g. after-tuning.")],
    result: Annotated[Path, typer.Argument(help="The result file to keep.")],
) -> None:
    """Store a result file as baseline NAME."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        fail(f"baseline name {name!r}: use letters, digits, dot, dash, underscore")
    (loaded,) = _load_results([result])
    BASELINES.mkdir(parents=True, exist_ok=True)
    loaded.save(BASELINES / f"{name}.json")
    console.print(f"saved baseline {name} ({BASELINES / f'{name}.json'})", highlight=False)


@baseline_app.command("check")
def baseline_check(
    name: Annotated[str, typer.Argument(help="The baseline to compare with.")],
    result: Annotated[Path, typer.Argument(help="A new result file.")],
) -> None:
    """Compare a new run with baseline NAME; exit 1 if any metric got significantly worse."""
    from nastune.stats.runs import Incomparable, compare_runs

    stored = BASELINES / f"{name}.json"
    if not stored.exists():
        fail(f"no baseline {name!r} in {BASELINES}")
    base, new = _load_results([stored, result])
    try:
        rows, remarks = compare_runs(base, new)
    except Incomparable as e:
        fail(str(e))
    console.print(_comparison_table(rows, f"baseline {name} -> {result}"))
    for remark in remarks:
        console.print(f"  note: {remark}", highlight=False)
    if any(r.result.verdict == "worse" for r in rows):
        raise typer.Exit(1)


@app.command()
def report(
    results: Annotated[list[Path], typer.Argument(help="Result files; the first is compared with the others.")],
    out: Annotated[
        Path, typer.Option("--out", help="The HTML report (a CSV of every number is written beside it).")
    ] = Path("report.html"),
    facts: Annotated[
        Path | None, typer.Option("--facts", help="A facts JSON (inspect --json) for the system section.")
    ] = None,
    findings: Annotated[Path | None, typer.Option("--findings", help="Findings JSON (diagnose --json).")] = None,
) -> None:
    """Write a self-contained HTML report (works offline) with charts, profiles and verdicts."""
    from nastune.report import html
    from nastune.stats.runs import Incomparable, compare_runs

    loaded = _load_results(results)
    rows, notes = [], []
    for other in loaded[1:]:
        try:
            more, remarks = compare_runs(loaded[0], other, force=True)
        except Incomparable as e:
            notes.append(str(e))
            continue
        rows += more
        notes += remarks
    from nastune import jsonfile

    if out.is_dir() or not out.parent.is_dir():
        fail(f"{out}: {'is a directory' if out.is_dir() else 'its directory does not exist'}; give a file path")
    try:
        facts_data = jsonfile.load(facts) if facts else None
        findings_data = jsonfile.load(findings) if findings else None
    except ValueError as e:
        fail(str(e))
    from pydantic import TypeAdapter, ValidationError

    from nastune.rules.model import Finding

    if isinstance(findings_data, dict):
        findings_data = findings_data.get("findings", [])
    for path, data, model in ((facts, facts_data, Facts), (findings, findings_data, list[Finding])):
        try:
            if data is not None:
                TypeAdapter(model).validate_python(data)
        except ValidationError as e:
            fail(jsonfile.invalid(path, e))
    try:
        written = html.render(
            loaded, out, rows, notes, facts=cast(dict | None, facts_data), findings=cast(list | None, findings_data)
        )
    except OSError as e:
        fail(f"{out}: {e.strerror}")
    console.print(f"wrote {written} and {written.with_suffix('.csv')}", highlight=False)


@app.command()
def optimize(
    lab: Annotated[bool, typer.Option("--lab/--live", help="Optimize the lab (default) or this live system.")] = True,
    scenario: Annotated[str, typer.Option("--scenario", help="The lab scenario to start from.")] = "soho",
    target: Annotated[str | None, typer.Option("--target", help="With --live: where to measure (path or URL).")] = None,
    workload: Annotated[
        list[str] | None,
        typer.Option(
            "--workload", "-w", help="Workloads (default: seq-write, seq-read, aged-read on an aged lab, network)."
        ),
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=2, max=100)] = 5,
    size: Annotated[str, typer.Option("--size", help="File size of the sequential workloads.")] = "256M",
    out: Annotated[Path, typer.Option("--out", help="Directory for results, plan, report.")] = Path("nastune-optimize"),
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Apply the plan without asking.")] = False,
    accept_risk: Annotated[
        list[str] | None,
        typer.Option("--accept-risk", help="durability: also apply changes that trade crash safety for speed."),
    ] = None,
) -> None:
    """The main job: inspect, diagnose, measure, plan, apply, measure again, compare, report.
    On the lab it starts from a fresh `soho` (a small NAS in its factory state)."""
    import sys

    from nastune.bench.selection import default_workloads
    from nastune.bench.workloads import DEFAULTS
    from nastune.lab import scenario as scenarios
    from nastune.lab.lab import Lab, LabError, require_root
    from nastune.optimize import OptimizeError, lab_facts
    from nastune.optimize import run as run_optimize
    from nastune.tune.system import System, TuneError, lab_system

    if not yes and not sys.stdin.isatty():
        fail("optimize changes the system: add --yes (no terminal to ask on)")
    if not yes:
        typer.confirm("optimize will apply the changes it finds (you can roll them back). Go on?", abort=True)
    say = _say("optimize")
    try:
        if lab:
            require_root()
            chosen = scenarios.load(scenario)
            say(f"lab: starting from a fresh {chosen.name}")
            fresh = Lab()
            if fresh.state.exists:
                fresh.down(log=say)
            Lab().up(chosen, log=say)
            facts = lab_facts()
            system = lab_system()
        else:
            if not target:
                fail("with --live, say where to measure: --target PATH|URL")
            from nastune.facts import collect
            from nastune.root import Root

            facts = json.loads(collect(Root("/")).to_json())
            system = System(root=Root("/"))
        names = workload or default_workloads(lab)
        _bench_pairs(None if lab else target, lab, names)  # refuse bad workloads before changing anything
        params = {**DEFAULTS, "size": _size_option(size)}
        outcome = run_optimize(
            lambda: _bench_pairs(None if lab else target, lab, names),
            params,
            repeats,
            out,
            lab,
            facts,
            system,
            bool(accept_risk),
            err,
            say,
        )
    except OptimizeError as e:
        fail(str(e), code=130 if e.interrupted else 1)
    except (LabError, TuneError, ValueError, RuntimeError, OSError) as e:
        fail(str(e), code=1)
    except KeyboardInterrupt:
        fail(f"interrupted before the plan was applied; results so far in {out}", code=130)
    console.print(_comparison_table(outcome.rows, "optimize: before -> after"))
    for line in outcome.skipped:
        console.print(f"  left out: {line}", highlight=False)
    for line in outcome.failed:
        console.print(layout.styled(f"  FAILED: {line}", "red"))
    worse = [r for r in outcome.rows if r.result.verdict == "worse"]
    better = [r for r in outcome.rows if r.result.verdict == "better"]
    console.print(
        f"{len(better)} better, {len(worse)} worse, {len(outcome.rows) - len(better) - len(worse)} unchanged "
        f"(within noise). Report: {outcome.report}",
        highlight=False,
    )
    if worse or outcome.failed:
        what = "some results got worse" if worse else "some workloads failed"
        console.print(Text.assemble((what, "red"), f": undo everything with `nastune rollback --to {outcome.journal}`"))
    if outcome.failed:
        raise typer.Exit(1)
