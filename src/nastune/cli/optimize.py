"""optimize: the main job, end to end."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nastune.cli import options as opt
from nastune.cli.common import app, console, err, fail, failing, named, say, site, size_option
from nastune.units import seconds

if TYPE_CHECKING:
    from rich.console import Console

    from nastune.bench.params import Params
    from nastune.jobs.optimize import OptimizeOutcome
    from nastune.tune.review import Review, Step


class Asked:
    """optimize's questions, asked once the plan is shown: --yes agrees to the plan (a one-off
    action also needs --allow); at a terminal the operator answers each one-off action --allow did
    not name, then the plan; without either, the plan is shown and nothing changes. At a terminal
    without --yes, the closing questions too: what to keep, and whether to persist it."""

    def __init__(self, yes: bool, shown: Console):
        self.yes, self.shown = yes, shown

    @property
    def asking(self) -> bool:
        """Whether the closing questions are asked: at a terminal, without --yes."""
        return not self.yes and sys.stdin.isatty()

    def keep(self, kept: list[str], dropped: list[str]) -> bool:
        if not self.asking:
            return False
        return typer.confirm(
            f"Keep the settings of {len(kept)} rules ({', '.join(kept)}) and drop those of {len(dropped)} whose "
            f"own effect is shown small on every metric the plan moved ({', '.join(dropped)})?"
        )

    def persist(self, count: int) -> bool:
        if not self.asking:
            return False
        return typer.confirm(f"Make these {count} settings survive a reboot?")

    def decide(self, review: Review) -> list[Step] | None:
        from nastune.report import tune_view  # lazy: pydantic, through the wire formats

        tune_view.review(self.shown, review)
        allowed = [s for s in review.actions if s.allowed]
        if self.yes or review.empty:
            return allowed
        if not sys.stdin.isatty():
            self.shown.print("add --yes to apply it (no terminal to ask on)", highlight=False)
            return None
        asked = [s for s in review.actions if not s.allowed and typer.confirm(f"Run {s.label} ({s.disruption})?")]
        if not typer.confirm(
            "Apply these changes, prove them and leave them applied (the command shown at the end undoes them)?"
        ):
            return None
        return allowed + asked


@app.command(short_help="The main job: diagnose, tune, prove the gain")
def optimize(
    lab: opt.LabOrLive = None,
    scenario: opt.Scenario = "soho",
    target: opt.Target = None,
    login_file: opt.LoginFile = None,
    workload: opt.Workload = None,
    repeats: Annotated[int, typer.Option(min=2, max=100, help="Timed repeats after a warm-up.")] = 5,
    size: opt.Size = "auto",
    out: opt.OutDir = Path("nastune-optimize"),
    yes: opt.Yes = False,
    accept_risk: opt.AcceptRisk = None,
    inventory: opt.Inventory = None,
    clients: opt.Clients = "all",
    confirm_timeout: opt.ConfirmTimeout = 120,
    flow: opt.Flow = "interleaved",
    interleave: opt.Interleave = True,
    min_pairs: opt.MinPairs = 3,  # jobs.optimize.PAIRS
    max_pairs: opt.MaxPairs = 8,
    json: opt.Json = False,
    plan: opt.PlanFile = None,
    only: opt.Only = None,
    skip: opt.Skip = None,
    allow: opt.Allow = None,
    action_time: opt.ActionTime = "1h",
    xfs_fragmentation_exact: opt.FragExact = False,
    persist: opt.Persist = None,
    kernel: opt.KernelLab = False,
    screen: opt.Screen = False,
    keep_only: opt.KeepOnly = False,
    screen_runs: opt.ScreenRuns = 0,
    profile: opt.Profile = None,
) -> None:
    """The main job: inspect, diagnose, plan; show the plan (each change, whether it survives a
    reboot, what it disturbs) and ask; prove it, leave it applied, report; ask whether to persist it.

    Proving the settings switches them off and on again, pair after pair (Samba reloads, NFS servers
    restart, an MTU change flips the link); settings that make a metric worse are left off (exit 1). A
    one-off action (xfs_fsr) only with --allow or your answer; without --yes or a tty: the plan alone.

    --inventory tunes that NAS, measured from its clients; --lab a fresh `soho` lab (a small NAS as it
    ships) through its inventory, --lab --kernel a kernel lab; --live this host, measured at --target."""
    from nastune.jobs.offer import Choices
    from nastune.jobs.optimize import OptimizeSpec, run

    named(lab, inventory, target)
    options = _site_options(bool(lab), kernel, scenario, log := say("optimize"), login_file)
    with failing():  # checked before anything is reached; no workloads named: the site's defaults
        choices = Choices(plan, only or [], skip or [], allow or [], seconds(action_time))
        pairs = (min_pairs, max_pairs) if interleave or flow == "interleaved" else None
        measured = (workload or [], _params(size), repeats, out, target, frozenset(accept_risk or ()))
        frag, screening = "exact" if xfs_fragmentation_exact else "sample", (screen, keep_only, screen_runs)
        spec = OptimizeSpec(*measured, pairs, flow, choices, frag, persist, *screening, profiles=profile or [])
    with failing(code=1, interrupted=f"interrupted before the plan was applied; results so far in {out}"):
        where = site(bool(lab), inventory, target, clients, confirm_timeout=confirm_timeout, **options)
        outcome = run(spec, where, err(), Asked(yes, err() if json else console()), log)
    _shown(outcome, json)


def _shown(outcome: OptimizeOutcome, json: bool) -> None:
    """The outcome for a person (on standard error with --json, whose standard output is the
    summary); exit 1 when a verdict was worse."""
    from nastune.report import outcomes

    failed = outcomes.optimize(err() if json else console(), outcome)
    if json:
        print(outcome.dumps())
    if failed:
        raise typer.Exit(1)


def _site_options(
    lab: bool, kernel: bool, scenario: str, log: Callable[[str], None], login_file: Path | None
) -> dict[str, Any]:
    """Where optimize works, for site(): on the lab, through its own inventory (the code path of a
    real deployment); the kernel lab in its own scenario unless one is named."""
    if kernel and not lab:
        fail("--kernel goes with --lab: the kernel lab is the lab's NAS on a real kernel")
    options: dict[str, Any] = {"scenario": scenario, "log": log, "login_file": login_file}
    if kernel:
        options |= {"kernel": True, "scenario": "kernel" if scenario == "soho" else scenario}
    return options


def _params(size: str) -> Params:
    from nastune.bench.params import with_size

    return with_size(size_option(size))
