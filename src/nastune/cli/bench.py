"""bench, compare, baseline, report: measuring, comparing and showing runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.cli.common import (
    AcceptRiskOption,
    JsonOption,
    LabOption,
    app,
    baseline_app,
    bench_app,
    chosen_site,
    console,
    err,
    fail,
    load_results,
    say,
    size_option,
)
from nastune.report import layout, outcomes, tables


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
    inventory: Annotated[
        Path | None,
        typer.Option(
            "--inventory",
            help="An Ansible INI inventory of the NAS and its clients: measure from the clients over SSH "
            "(--target smb, nfs, ftp, iperf3 or mount).",
        ),
    ] = None,
    clients: Annotated[
        str | None,
        typer.Option(
            "--clients",
            help="Which clients of the inventory: all, or names (c1,c2); several run together. "
            "With --lab: the lab's own inventory.",
        ),
    ] = None,
    scaling: Annotated[
        bool, typer.Option("--scaling", help="Run on 1, 2, 4, ... of the chosen clients: where the NAS saturates.")
    ] = False,
    stress: Annotated[
        bool,
        typer.Option(
            "--stress",
            help="The first chosen client measures, on the idle NAS and then while the others load it "
            "(streams and small files with think time); prints how many times worse.",
        ),
    ] = False,
    no_profile: Annotated[
        bool,
        typer.Option("--no-profile", help="Do not sample the server during the run (to measure the sampling's cost)."),
    ] = False,
) -> None:
    """Run workloads against a target and write a result file with every repeat and provenance."""
    if ctx.invoked_subcommand is not None:
        return
    from nastune.bench import runner
    from nastune.bench.workloads import DEFAULTS
    from nastune.lab.sh import LabError
    from nastune.protocols.client import BenchError
    from nastune.remote.nas import NasError

    if (clients or stress or scaling) and not (inventory or lab):
        fail("--clients, --scaling and --stress need --inventory FILE (or --lab)")
    params = {**DEFAULTS, "size": size_option(size), "files": files}
    try:
        several = clients or ("all" if stress or scaling else None)
        site = chosen_site(lab, inventory, target, several, **({"scaling": True} if scaling else {}))
        names = workload or (["seq-write", "seq-read"] if stress else site.default_workloads())
        if stress:
            from nastune.jobs import stress as stressing

            pairs, loaders = site.stress(target, names)
            idle, results, idle_out = stressing.run(pairs, loaders, params, repeats, out, site, console=err)
            outcomes.degradation(console, stressing.degradation(idle, results), idle_out, out)
        else:
            pairs = site.pairs(target, names)
            results = runner.run(pairs, params, repeats, out, site, label=label, console=err, profile=not no_profile)
    except KeyboardInterrupt:
        err.print(f"interrupted: test files removed; finished repeats kept in {out}")
        raise typer.Exit(130) from None
    except (ValueError, NasError, LabError) as e:
        fail(str(e))
    except BenchError as e:
        fail(str(e), code=1)
    if outcomes.results(console, err, results, out):
        raise typer.Exit(1)


@app.command(hidden=True)
def sample(interval: Annotated[float, typer.Option("--interval", min=0.1, max=60)] = 0.5) -> None:
    """Stream this host's /proc samples, one JSON line each: the NAS's side of a profile that a
    coordinator takes over SSH."""
    import sys

    from nastune.bench.profile import Profiler

    Profiler(interval=interval).stream(sys.stdout)


@bench_app.command("list")
def bench_list() -> None:
    """The workloads, what they measure, and where they run."""
    from nastune.bench.workloads import WORKLOADS

    table = layout.Records("Workloads", *("name", "targets", "what it measures", "source"))
    for w in WORKLOADS.values():
        table.add_row(w.name, ", ".join(w.kinds), w.doc, w.source)
    console.print(table)


@app.command()
def compare(
    results: Annotated[list[Path], typer.Argument(help="Two or more result files; each is compared with the first.")],
    json: JsonOption = False,
    force: Annotated[bool, typer.Option("--force", help="Compare even when workload parameters differ.")] = False,
    noise_floor: Annotated[float, typer.Option("--noise-floor", help="Smallest change that counts (003: 3%).")] = 0.03,
) -> None:
    """Per workload and metric: medians with 95% intervals, the relative change with its interval,
    and a verdict (better, worse, ~) that needs p < 0.05 and an interval beyond the noise floor."""
    from nastune import wire
    from nastune.stats.runs import Incomparable, compare_runs

    if len(results) < 2:
        fail("give at least two result files")
    loaded = load_results(results)
    output: list[wire.Comparison] = []
    for path, other in zip(results[1:], loaded[1:]):
        try:
            rows, remarks = compare_runs(loaded[0], other, force=force, noise_floor=noise_floor)
        except Incomparable as e:
            fail(f"{results[0]} vs {path}: {e}")
        output.append(
            wire.Comparison(before=str(results[0]), after=str(path), rows=[r.to_json() for r in rows], notes=remarks)
        )
        if not json:
            console.print(tables.comparison(rows, f"{results[0]} -> {path}"))
            for remark in remarks:
                console.print(f"  note: {remark}", highlight=False)
    if json:
        print(wire.Compare(comparisons=output).dumps())


@baseline_app.command("save")
def baseline_save(
    name: Annotated[str, typer.Argument(help="A name, e.g. after-tuning.")],
    result: Annotated[Path, typer.Argument(help="The result file to keep.")],
) -> None:
    """Store a result file as baseline NAME."""
    from nastune.stats import baseline  # scipy: only the commands that compare load it

    (loaded,) = load_results([result])
    try:
        path = baseline.save(name, loaded)
    except (ValueError, OSError) as e:
        fail(str(e))
    console.print(f"saved baseline {name} ({path})")


@baseline_app.command("check")
def baseline_check(
    name: Annotated[str, typer.Argument(help="The baseline to compare with.")],
    result: Annotated[Path, typer.Argument(help="A new result file.")],
) -> None:
    """Compare a new run with baseline NAME; exit 1 if any metric got significantly worse."""
    from nastune.stats import baseline  # scipy: only the commands that compare load it

    (new,) = load_results([result])
    try:
        rows, remarks = baseline.check(name, new)
    except ValueError as e:  # Incomparable included
        fail(str(e))
    console.print(tables.comparison(rows, f"baseline {name} -> {result}"))
    for remark in remarks:
        console.print(f"  note: {remark}")
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
    from nastune.jobs.report import write

    try:
        written = write(load_results(results), out, facts, findings)
    except (ValueError, OSError) as e:
        fail(str(e.strerror if isinstance(e, OSError) else e))
    console.print(f"wrote {written} and {written.with_suffix('.csv')}", highlight=False)


@app.command()
def export(
    result: Annotated[Path, typer.Argument(metavar="RESULT", help="A result file (bench, optimize, ab).")],
    format: Annotated[
        str, typer.Option("--format", help="benchstat: Go's benchmark format, which benchstat compares.")
    ] = "benchstat",
) -> None:
    """Write a result file in another tool's format on standard output."""
    from nastune.report import benchfmt

    if format != "benchstat":
        fail(f"--format {format}: not a format nastune writes (benchstat)")
    (loaded,) = load_results([result])
    print(benchfmt.export(loaded), end="")


@app.command()
def ab(
    plan_file: Annotated[Path, typer.Argument(metavar="PLAN", help="The plan whose effect to measure (B).")],
    lab: Annotated[bool, typer.Option("--lab", help="Measure the lab (run `nastune lab up` first).")] = False,
    target: Annotated[str | None, typer.Option("--target", help="Where to measure (as for bench).")] = None,
    workload: Annotated[list[str] | None, typer.Option("--workload", "-w", help="Workloads (repeatable).")] = None,
    size: Annotated[str, typer.Option("--size", help="File size of the sequential workloads.")] = "64M",
    min_pairs: Annotated[int, typer.Option("--min-pairs", min=3, max=50, help="Pairs before the first look.")] = 5,
    max_pairs: Annotated[int, typer.Option("--max-pairs", min=3, max=100, help="The budget of A/B pairs.")] = 12,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed of the random A/B order.")] = None,
    out: Annotated[Path, typer.Option("--out", help="Directory for a.json, b.json.")] = Path("nastune-ab"),
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Switch the system without asking.")] = False,
    accept_risk: AcceptRiskOption = None,
) -> None:
    """Measure a plan's effect by interleaving: A (as is) and B (plan applied) alternate in random
    order, switched by apply and rollback, until the verdict is settled or the budget is spent.
    Drift during the run hits both sides alike. The system ends as it began (A)."""
    import sys

    from nastune.bench.workloads import DEFAULTS
    from nastune.jobs import ab as interleave
    from nastune.lab.sh import LabError
    from nastune.tune.plan import load
    from nastune.tune.system import TuneError

    if min_pairs > max_pairs:
        fail("--min-pairs must not exceed --max-pairs")
    if not yes and not sys.stdin.isatty():
        fail("ab switches the system between A and B: add --yes (no terminal to ask on)")
    try:
        site = chosen_site(lab, None, target)
        names = workload or [n for n in site.default_workloads() if n != "aged-read"]
        params = {**DEFAULTS, "size": size_option(size)}
        spec = interleave.AbSpec(
            load(plan_file), names, params, out, target, min_pairs, max_pairs, seed, bool(accept_risk)
        )
        outcome = interleave.measure(spec, site, log=say("ab"))
    except (interleave.AbError, TuneError, LabError, ValueError) as e:
        fail(str(e), code=1)
    except KeyboardInterrupt:
        fail("interrupted; the system is back in A (the plan is not applied)", code=130)
    outcomes.ab(console, outcome, f"ab: A (as is) -> B ({plan_file})", out)
