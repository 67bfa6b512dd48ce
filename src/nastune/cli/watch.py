"""check and watch: is this NAS still tuned, and a timer that keeps asking."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nastune.cli import options as opt
from nastune.cli.common import app, console, fail, failing, on_nas, say, site


@app.command(short_help="Is this NAS still tuned? Findings, drift, regressions")
def check(
    root: opt.Root = "/",
    lab: opt.Lab = False,
    journal: opt.Journal = None,
    baseline: Annotated[str | None, typer.Option(help="A baseline (`nastune baseline save`) to compare with.")] = None,
    bench: Annotated[
        bool, typer.Option("--bench", help="With --baseline: run its workloads again, briefly, and compare.")
    ] = False,
    result: Annotated[
        Path | None, typer.Option(help="With --baseline: compare this result file instead of measuring.")
    ] = None,
    metrics: Annotated[
        Path | None,
        typer.Option(
            help="Write Prometheus metrics here, atomically (node_exporter's textfile collector reads "
            "/var/lib/prometheus/node-exporter/*.prom)."
        ),
    ] = None,
    json: opt.Json = False,
) -> None:
    """Is this NAS still tuned? Every rule on today's facts, every setting of the last applied
    plan read back (drift), and with --baseline a comparison with a kept run (regression).
    Exit 1 when a setting drifted or a metric regressed: for a timer (`nastune watch`)."""
    from nastune.jobs import check as checks
    from nastune.report import outcomes

    if (bench or result) and not baseline:
        fail("--bench and --result compare with a baseline: add --baseline NAME")
    spec = checks.CheckSpec(site(lab, root=root), journal, baseline, result, bench and result is None, metrics)
    with failing():
        done = checks.run(spec)
    print(done.summary().dumps()) if json else outcomes.check(console(), done)
    if not done.ok:
        raise typer.Exit(1)


@app.command(short_help="Keep checking, from a systemd timer")
def watch(
    install: Annotated[bool, typer.Option("--install", help="Write and enable the service and its timer.")] = False,
    uninstall: Annotated[bool, typer.Option("--uninstall", help="Disable and remove them.")] = False,
    root: opt.Root = "/",
    every: Annotated[str, typer.Option(help="The timer's OnCalendar= (systemd.time(7)).")] = "hourly",
    baseline: Annotated[str | None, typer.Option(help="Also benchmark against this baseline.")] = None,
    metrics: Annotated[Path, typer.Option(help="Where the check writes its metrics.")] = Path(
        "/var/lib/prometheus/node-exporter/nastune.prom"
    ),
    inventory: Annotated[
        Path | None, typer.Option("--inventory", help="On this inventory's NAS, with nastune there (over SSH).")
    ] = None,
) -> None:
    """Keep checking: a systemd timer that runs `nastune check` and leaves its metrics for
    node_exporter. Writes two unit files under /etc/systemd/system and nothing else.

    Example: nastune watch --install --every daily --inventory hosts.ini"""
    from nastune.jobs import watch as watching
    from nastune.tune.system import for_root

    if install == uninstall:
        fail("say --install or --uninstall")
    if inventory:
        mode = ["--install", "--every", every] if install else ["--uninstall"]
        on_nas(
            inventory, "watch", None, *mode, *(["--baseline", baseline] if baseline else []), "--metrics", str(metrics)
        )
    log = say("watch")
    args = ["--metrics", str(metrics.absolute())] + (["--baseline", baseline, "--bench"] if baseline else [])
    with failing():
        system = for_root(root)
        done = watching.install(system, args, every, str(metrics.absolute())) if install else watching.uninstall(system)
    for line in done or ["nothing to remove"]:
        log(line)
