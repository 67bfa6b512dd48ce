"""The main job, end to end as the seeds do it: inspect, diagnose, measure, plan, apply (with the
tuning engine's safety), measure again, compare, report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from nastune import rules as knowledge
from nastune.bench import runner
from nastune.facts import Facts
from nastune.jsonfile import dumps
from nastune.report import html
from nastune.stats.runs import Row, compare_runs, failures
from nastune.tune import executor, lock
from nastune.tune.plan import Plan, from_findings

MACHINE_WIDE = ("vm.", "fs.", "kernel.")  # sysctls the lab's nas shares with its clients and this host


@dataclass
class Outcome:
    rows: list[Row]
    notes: list[str]
    report: Path
    plan: Plan
    skipped: list[str]
    journal: str
    failed: list[str]


def prepare(lab: bool, scenario: str, target: str | None, log=print):
    """The facts and the System to optimize: a fresh lab in `scenario`, or this live system
    (measured at `target`)."""
    from nastune.lab import scenario as scenarios
    from nastune.lab.lab import Lab, require_root
    from nastune.tune.system import System, lab_system

    if lab:
        require_root()
        chosen = scenarios.load(scenario)
        log(f"lab: starting from a fresh {chosen.name}")
        fresh = Lab()
        if fresh.state.exists:
            fresh.down(log=log)
        Lab().up(chosen, log=log)
        return json.loads(Lab().facts_json(xfs_fragmentation=True)), lab_system()
    if not target:
        raise ValueError("with --live, say where to measure: --target PATH|URL")
    from nastune.facts import collect
    from nastune.root import Root

    return json.loads(collect(Root("/")).to_json()), System(root=Root("/"))


def choose(plan: Plan, lab: bool, accept_risk: bool) -> tuple[Plan, list[str]]:
    """The changes optimize applies, and why it leaves the others out."""
    kept, skipped = [], []
    for c in plan.changes:
        if c.durability_risk and not accept_risk:
            skipped.append(f"{c.knob} {c.target} {c.key or ''}: trades durability (needs --accept-risk durability)")
        elif lab and c.knob == "sysctl" and c.target.startswith(MACHINE_WIDE):
            skipped.append(f"sysctl {c.target}: machine-wide; the lab's nas shares this kernel with its clients")
        else:
            kept.append(c)
    return plan.model_copy(update={"changes": kept}), skipped


class OptimizeError(RuntimeError):
    """optimize stopped after applying its plan; the message says how to undo it."""

    def __init__(self, message: str, interrupted: bool = False):
        super().__init__(message)
        self.interrupted = interrupted


def run(
    make_pairs,
    params: dict,
    repeats: int,
    out: Path,
    lab: bool,
    facts: dict,
    system,
    accept_risk: bool,
    console,
    log=print,
) -> Outcome:
    """`make_pairs()` resolves the targets; it is called for each measurement, because tuning
    changes what they are (an MTU change moves the link's goodput ceiling). A workload that
    fails is reported as failed and the rest compared; anything that stops the run once the
    plan is applied ends in an OptimizeError that names the rollback command."""
    with lock.hold(system, "optimize"):
        out.mkdir(parents=True, exist_ok=True)
        (out / "facts.json").write_text(json.dumps(facts, indent=1))
        findings = knowledge.evaluate(Facts.model_validate(facts))
        (out / "findings.json").write_text(json.dumps([f.model_dump(mode="json") for f in findings], indent=1))
        log(f"diagnose: {len(findings)} findings")
        log("measure: before")
        before = runner.run(
            make_pairs(), params, repeats, out / "before.json", label="before", lab=lab, console=console
        )
        plan, skipped = choose(from_findings(findings, lab=lab), lab, accept_risk)
        (out / "plan.json").write_text(plan.to_json() + "\n")
        log(f"apply: {len(plan.changes)} changes ({len(skipped)} left out)")
        journal = executor.apply(plan, system, accept_risk=accept_risk, log=log)
        undo = f"undo it with `nastune rollback --to {journal.path}`"
        try:
            log("measure: after")
            after = runner.run(
                make_pairs(), params, repeats, out / "after.json", label="after", lab=lab, console=console
            )
            rows, notes = compare_runs(before, after)
            failed = failures([before, after])
            (out / "compare.json").write_text(
                dumps({"rows": [r.to_json() for r in rows], "notes": notes, "failed": failed})
            )
            report = html.render(
                [before, after],
                out / "report.html",
                rows,
                notes,
                facts=facts,
                findings=[f.model_dump(mode="json") for f in findings],
                applied=[c.model_dump(mode="json") for c in plan.changes],
                title="nastune optimize",
            )
        except KeyboardInterrupt:
            raise OptimizeError(
                f"interrupted after the plan was applied; results so far in {out}; {undo}", interrupted=True
            ) from None
        except Exception as e:
            raise OptimizeError(f"stopped after the plan was applied: {e}; results so far in {out}; {undo}") from e
    return Outcome(rows, notes, report, plan, skipped, journal.path, failed)
