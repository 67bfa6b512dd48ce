"""The main job, end to end as the seeds do it: inspect, diagnose, measure, plan, apply (with the
tuning engine's safety), measure again, compare, report."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from nastune import rules as knowledge
from nastune import wire
from nastune.bench import runner
from nastune.facts import Facts
from nastune.jobs import ab
from nastune.remote.nas import NasError
from nastune.report import html
from nastune.rules.runtime import with_runtime
from nastune.sites.base import Site
from nastune.sites.tuner import Tuner
from nastune.stats.runs import Row, compare_runs, failures
from nastune.tune.plan import Plan, from_findings
from nastune.tune.system import TuneError

MACHINE_WIDE = ("vm.", "fs.", "kernel.")  # sysctls the lab's nas shares with its clients and this host


@dataclass
class OptimizeSpec:
    """What optimize measures (`workloads` at `target`, as the site names targets), how often and
    how big, where it writes, whether it may trade durability, and the interleaved budget (the
    least and most A/B pairs; None: no interleaved phase)."""

    workloads: list[str]
    params: dict
    repeats: int
    out: Path
    target: str | None = None
    accept_risk: bool = False
    pairs: tuple[int, int] | None = (5, 8)


@dataclass
class Outcome:
    rows: list[Row]
    notes: list[str]
    report: Path
    plan: Plan
    skipped: list[str]
    journal: str
    failed: list[str]
    undo: str  # the command that rolls the plan back
    interleaved: Interleaved | None = None


@dataclass
class Interleaved:
    """The plan's settings measured a second way: with and without them in random alternation
    (its one-off actions stay done on both sides), which drift cannot fool."""

    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    pairs: int = 0
    seconds: float = 0.0
    switch_seconds: float = 0.0
    refused: list[str] = field(default_factory=list)
    stopped: str = ""  # why the interleaved run ended early, if it did

    def to_json(self) -> dict:
        return {
            "rows": [r.to_json() for r in self.rows],
            "notes": self.notes,
            "pairs": self.pairs,
            "seconds": round(self.seconds, 1),
            "switch_seconds": round(self.switch_seconds, 1),
            "refused": self.refused,
            "stopped": self.stopped,
        }


def choose(plan: Plan, shared_kernel: bool, accept_risk: bool) -> tuple[Plan, list[str]]:
    """The changes optimize applies, and why it leaves the others out (`shared_kernel`: the NAS
    shares this machine's kernel with its clients, as the lab's does)."""
    kept, skipped = [], []
    for c in plan.changes:
        if c.durability_risk and not accept_risk:
            skipped.append(f"{c.knob} {c.target} {c.key or ''}: trades durability (needs --accept-risk durability)")
        elif shared_kernel and c.knob == "sysctl" and c.target.startswith(MACHINE_WIDE):
            skipped.append(f"sysctl {c.target}: machine-wide; the lab's nas shares this kernel with its clients")
        else:
            kept.append(c)
    return plan.model_copy(update={"changes": kept}), skipped


class OptimizeError(RuntimeError):
    """optimize stopped after applying its plan; the message says how to undo it."""

    def __init__(self, message: str, interrupted: bool = False):
        super().__init__(message)
        self.interrupted = interrupted


def run(spec: OptimizeSpec, site: Site, console, log=print) -> Outcome:
    """The targets are resolved for each measurement, because tuning changes what they are (an
    MTU change moves the link's goodput ceiling); bad workloads and unreachable clients are
    refused before anything is read or applied. A workload that fails is reported as failed and
    the rest compared; anything that stops the run once the plan is applied ends in an
    OptimizeError that names the rollback command. With `spec.pairs`, the plan's settings are
    then measured once more, interleaved, and applied again at the end."""
    out, params, repeats = spec.out, spec.params, spec.repeats

    def make_pairs():
        return site.pairs(spec.target, spec.workloads)

    make_pairs()
    log(f"inspect: {site.name}")
    facts = site.facts(xfs_fragmentation=True)
    tuner = site.tuner()
    with tuner.hold():
        out.mkdir(parents=True, exist_ok=True)
        (out / "facts.json").write_text(json.dumps(facts, indent=1))
        findings = knowledge.evaluate(Facts.model_validate(facts))
        log(f"diagnose: {len(findings)} findings")
        log("measure: before")
        before = runner.run(make_pairs(), params, repeats, out / "before.json", site, label="before", console=console)
        findings = with_runtime(findings, [before])  # what limited the baseline leads
        (out / "findings.json").write_text(json.dumps([f.model_dump(mode="json") for f in findings], indent=1))
        for f in findings:
            if f.limiting:
                log(f"limiting: {f.rule}: {f.limiting}")
        plan, skipped = choose(site.stamp(from_findings(findings)), site.shared_kernel, spec.accept_risk)
        (out / "plan.json").write_text(plan.to_json() + "\n")
        log(f"apply: {len(plan.changes)} changes ({len(skipped)} left out)")
        journal = tuner.apply(plan, spec.accept_risk, log)
        if journal is None:
            raise OptimizeError("the plan changes nothing here: every setting already is as planned")
        undo = f"undo it with `{tuner.undo(journal)}`"
        try:
            log("measure: after")
            after = runner.run(make_pairs(), params, repeats, out / "after.json", site, label="after", console=console)
            rows, notes = compare_runs(before, after)
            failed = failures([before, after])
            mixed = None
            if spec.pairs:
                mixed, journal = _interleave(plan, journal, tuner, site, spec, log)
                undo = f"undo it with `{tuner.undo(journal)}`"
            summary = wire.Optimize(
                rows=[r.to_json() for r in rows],
                notes=notes,
                failed=failed,
                interleaved=mixed.to_json() if mixed else None,
            )
            (out / "compare.json").write_text(summary.dumps())
            report = html.render(
                [before, after],
                out / "report.html",
                rows,
                notes,
                facts=facts,
                findings=[f.model_dump(mode="json") for f in findings],
                applied=[c.model_dump(mode="json") for c in plan.changes],
                title="nastune optimize",
                interleaved=(mixed.rows, mixed.notes + ([mixed.stopped] if mixed.stopped else [])) if mixed else None,
            )
        except OptimizeError:
            raise
        except KeyboardInterrupt:
            raise OptimizeError(
                f"interrupted after the plan was applied; results so far in {out}; {undo}", interrupted=True
            ) from None
        except Exception as e:
            raise OptimizeError(f"stopped after the plan was applied: {e}; results so far in {out}; {undo}") from e
    return Outcome(rows, notes, report, plan, skipped, journal, failed, tuner.undo(journal), mixed)


def _interleave(
    plan: Plan, journal: str, tuner: Tuner, site: Site, spec: OptimizeSpec, log
) -> tuple[Interleaved | None, str]:
    """The settings of the applied plan measured interleaved: rolled back (A: the one-off
    actions stay done), alternated with B by the tuner, then applied again. Returns the result
    and the journal of that last apply. An interleaved run that fails is reported, not fatal:
    the before/after verdicts stand."""
    settings, actions = ab.reversible(plan)
    out = spec.out
    if not settings.changes:
        return None, journal
    (out / "settings.json").write_text(settings.to_json() + "\n")
    log(f"interleave: {len(settings.changes)} settings without (A) and with (B), in random order")
    tuner.rollback(journal)
    try:
        least, most = spec.pairs or (5, 8)
        mixed = ab.AbSpec(
            settings,
            spec.workloads,
            spec.params,
            out / "interleaved",
            spec.target,
            least,
            most,
            accept_risk=spec.accept_risk,
        )
        done = ab.run(mixed, site, tuner, log)
        result = Interleaved(
            done.rows, actions + done.notes, done.pairs, done.seconds, done.switch_seconds, done.refused
        )
    except ab.AbError as e:
        result = Interleaved([], actions, stopped=f"the interleaved run stopped: {e}")
    except KeyboardInterrupt:
        raise OptimizeError(
            f"interrupted while interleaving: the plan's settings are rolled back (its one-off actions stay done); "
            f"`nastune apply {out / 'settings.json'}` applies them again (on the NAS, for an inventory)",
            interrupted=True,
        ) from None
    log("apply: the settings again")
    try:
        again = tuner.apply(settings, spec.accept_risk, log)
        if again is None:
            raise TuneError("nothing was applied: the settings already read as planned after their rollback")
        return result, again
    except (TuneError, NasError) as e:
        raise OptimizeError(
            f"the settings could not be applied again after interleaving ({e}); they are rolled back, the one-off "
            f"actions stay done; `nastune apply {out / 'settings.json'}` retries"
        ) from e
