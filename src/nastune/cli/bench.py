"""bench, compare, baseline, report: measuring, comparing and showing runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.bench import counts
from nastune.cli import options as opt
from nastune.cli.common import (
    app,
    baseline_app,
    bench_app,
    consent,
    console,
    err,
    fail,
    failing,
    load_results,
    say,
    site,
    size_option,
)


@bench_app.callback(invoke_without_command=True)
def bench(
    ctx: typer.Context,
    target: opt.Target = None,
    lab: opt.Lab = False,
    workload: opt.Workload = None,
    repeats: opt.Repeats = 5,
    size: opt.Size = "1G",
    files: Annotated[int, typer.Option(min=10, help="Number of files of small-files.")] = counts.FILES,
    dir_files: Annotated[
        int, typer.Option(min=10, max=1_000_000, help="Number of files in big-dir's directory.")
    ] = counts.DIR_FILES,
    sustained_size: Annotated[
        str,
        typer.Option(
            metavar="SIZE",
            help="The bytes of each sustained-write repeat: past the NAS's write-back cache "
            "(never more than half the share's or the client's free space).",
        ),
    ] = "2G",
    out: Annotated[Path, typer.Option(help="The result file (JSON).")] = Path("results.json"),
    label: Annotated[str, typer.Option(help="A name for this run (before, after, ...).")] = "",
    login_file: opt.LoginFile = None,
    inventory: opt.Inventory = None,
    clients: opt.Clients = None,
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
    from nastune.jobs.bench import BenchSpec, run
    from nastune.report import outcomes

    if (clients or stress or scaling) and not (inventory or lab):
        fail("--clients, --scaling and --stress need --inventory FILE (or --lab)")
    spec = BenchSpec(
        target, workload or [], size_option(size), files, repeats, out, label, not no_profile, stress, dir_files
    )
    spec.sustained = size_option(sustained_size) or spec.sustained  # auto: the default
    with failing(interrupted=f"interrupted: test files removed; finished repeats kept in {out}"):
        several = clients or ("all" if stress or scaling else None)
        done = run(spec, site(lab, inventory, target, several, scaling=scaling, login_file=login_file), err())
    if done.degradation is not None and done.idle_out:
        outcomes.degradation(console(), done.degradation, done.idle_out, out)
    elif outcomes.results(console(), err(), done.results, out):
        raise typer.Exit(1)


@app.command(hidden=True, short_help="Stream this host's /proc samples as JSON lines")
def sample(interval: Annotated[float, typer.Option("--interval", min=0.1, max=60)] = 0.5) -> None:
    """Stream this host's /proc samples, one JSON line each: the NAS's side of a profile that a
    coordinator takes over SSH."""
    import sys

    from nastune.bench.profile import Profiler

    Profiler(interval=interval).stream(sys.stdout)


@bench_app.command("list", short_help="The workloads, what they measure, where they run")
def bench_list() -> None:
    """The workloads, what they measure, and where they run."""
    from nastune.bench.workloads import WORKLOADS
    from nastune.report import layout

    table = layout.Records("Workloads", *("name", "targets", "what it measures", "source"))
    for w in WORKLOADS.values():
        table.add_row(w.name, ", ".join(w.kinds), w.doc, w.source)
    console().print(table)


@app.command(short_help="Compare result files: verdicts with intervals")
def compare(
    results: Annotated[list[Path], typer.Argument(help="Two or more result files; each is compared with the first.")],
    json: opt.Json = False,
    force: Annotated[bool, typer.Option("--force", help="Compare even when workload parameters differ.")] = False,
    noise_floor: Annotated[
        float, typer.Option(help="Smallest change that counts (MiNET's 2013 benchmark: 3%).")
    ] = 0.03,
) -> None:
    """Per workload and metric: medians with 95% intervals, the relative change with its interval,
    and a verdict (better, worse, ~) that needs p < 0.05 and an interval beyond the noise floor."""
    from nastune import wire
    from nastune.jobs import compare as comparing
    from nastune.report import outcomes

    if len(results) < 2:
        fail("give at least two result files")
    with failing():
        done = comparing.run(results, load_results(results), force, noise_floor)
    print(wire.Compare(comparisons=done).dumps()) if json else outcomes.comparisons(console(), done)


@baseline_app.command("save", short_help="Store a result file as a baseline")
def baseline_save(
    name: Annotated[str, typer.Argument(help="A name, e.g. after-tuning.")],
    result: Annotated[Path, typer.Argument(help="The result file to keep.")],
) -> None:
    """Store a result file as baseline NAME."""
    from nastune.stats import baseline  # scipy: only the commands that compare load it

    (loaded,) = load_results([result])
    with failing():
        path = baseline.save(name, loaded)
    console().print(f"saved baseline {name} ({path})")


@baseline_app.command("check", short_help="Compare a new run with a baseline")
def baseline_check(
    name: Annotated[str, typer.Argument(help="The baseline to compare with.")],
    result: Annotated[Path, typer.Argument(help="A new result file.")],
    json: opt.Json = False,
) -> None:
    """Compare a new run with baseline NAME; exit 1 if any metric got significantly worse."""
    from nastune import wire
    from nastune.report import outcomes
    from nastune.stats import baseline  # scipy: only the commands that compare load it

    (new,) = load_results([result])
    with failing():  # Incomparable included
        rows, remarks = baseline.check(name, new)
    if json:  # the shape compare --json has: one comparison, the baseline before
        compared = wire.Compared(before=f"baseline {name}", after=str(result), rows=rows, notes=remarks)
        print(wire.Compare(comparisons=[compared]).dumps())
    else:
        outcomes.verdicts(console(), rows, f"baseline {name} -> {result}", remarks)
    if any(r.verdict == "worse" for r in rows):
        raise typer.Exit(1)


@app.command(short_help="Write a self-contained HTML report")
def report(
    results: Annotated[list[Path], typer.Argument(help="Result files; the first is compared with the others.")],
    out: Annotated[
        Path, typer.Option(help="The HTML report (a CSV and a workbook of every number are written beside it).")
    ] = Path("report.html"),
    facts: Annotated[Path | None, typer.Option(help="A facts JSON (inspect --json) for the system section.")] = None,
    findings: Annotated[Path | None, typer.Option(help="Findings JSON (diagnose --json).")] = None,
) -> None:
    """Write a self-contained HTML report (works offline) with charts, profiles and verdicts."""
    from nastune.jobs.report import write

    with failing():
        written = write(load_results(results), out, facts, findings)
    beside = [str(p) for p in (written.with_suffix(".csv"), written.with_suffix(".xlsx")) if p.exists()]
    console().print(f"wrote {', '.join([str(written), *beside])}", highlight=False)


@app.command(short_help="Write a result in another tool's format")
def export(
    result: Annotated[Path, typer.Argument(metavar="RESULT", help="A result file (bench, optimize, ab).")],
    format: Annotated[
        str, typer.Option(help="benchstat: Go's benchmark format, which benchstat compares.")
    ] = "benchstat",
) -> None:
    """Write a result file in another tool's format on standard output."""
    from nastune.report import benchfmt

    if format != "benchstat":
        fail(f"--format {format}: not a format nastune writes (benchstat)")
    (loaded,) = load_results([result])
    print(benchfmt.export(loaded), end="")


@app.command(short_help="Measure a plan's effect, A and B interleaved")
def ab(
    plan_file: Annotated[Path, typer.Argument(metavar="PLAN", help="The plan whose effect to measure (B).")],
    lab: opt.Lab = False,
    target: opt.Target = None,
    login_file: opt.LoginFile = None,
    workload: opt.Workload = None,
    size: opt.Size = "auto",
    min_pairs: opt.MinPairs = 5,
    max_pairs: opt.MaxPairs = 12,
    seed: opt.OrderSeed = None,
    inventory: opt.Inventory = None,
    clients: opt.Clients = None,
    out: Annotated[Path, typer.Option("--out-dir", "--out", help="Directory for a.json, b.json, ab.json.")] = Path(
        "nastune-ab"
    ),
    yes: opt.Yes = False,
    accept_risk: opt.AcceptRisk = None,
    json: opt.Json = False,
) -> None:
    """Measure a plan's effect by interleaving: A (as is) and B (plan applied) alternate in random
    order, switched by apply and rollback, until the verdict is settled or the budget is spent.
    Drift during the run hits both sides alike. The system ends as it began (A). With --inventory,
    the plan is switched on the inventory's NAS and measured from its clients."""
    from nastune.bench.params import with_size
    from nastune.jobs import ab as interleave
    from nastune.report import outcomes
    from nastune.tune.plan import load

    with failing():
        params = with_size(size_option(size))
        risk = frozenset(accept_risk or ())
        spec = interleave.AbSpec(load(plan_file), workload or [], params, out, target, min_pairs, max_pairs, seed, risk)
    consent(yes, "ab switches the system between A and B. Go on?", "ab switches the system between A and B")
    with failing(code=1, interrupted="interrupted; the system is back in A (the plan is not applied)"):
        where = site(lab, inventory, target, clients, login_file=login_file)
        outcome = interleave.measure(spec, where, log=say("ab"))
    outcomes.ab(err() if json else console(), outcome, f"ab: A (as is) -> B ({plan_file})", out)
    if json:  # the summary ab.json holds
        print(outcome.dumps())
