"""The main job, end to end as the seeds do it: inspect, diagnose, measure, plan, apply (with the
tuning engine's safety), measure again, compare, report."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from nastune import rules as knowledge
from nastune.bench import interleave, runner
from nastune.facts import Facts
from nastune.jsonfile import dumps
from nastune.remote.nas import NasAgent, NasError
from nastune.report import html
from nastune.rules.runtime import with_runtime
from nastune.stats.runs import Row, compare_runs, failures
from nastune.tune.plan import Plan, from_findings
from nastune.tune.system import System, TuneError
from nastune.tuner import Here, OnNas

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


def fresh_lab(scenario: str, log=print) -> Path:
    """A fresh lab in `scenario` (the one running is taken down); its inventory, which optimize
    then uses as a real deployment's: the NAS over SSH, measured from the clients."""
    from nastune.lab import scenario as scenarios
    from nastune.lab.lab import Lab, require_root

    require_root()
    chosen = scenarios.load(scenario)
    log(f"lab: starting from a fresh {chosen.name}")
    fresh = Lab()
    if fresh.state.exists:
        fresh.down(log=log)
    Lab().up(chosen, log=log)
    return Lab().inventory_path


def prepare_live(target: str | None, root: str = "/"):
    """The facts and the System of this live system (or of a directory tree), measured at `target`."""
    if not target:
        raise ValueError("with --live, say where to measure: --target PATH|URL")
    from nastune.facts import collect
    from nastune.root import Root

    return json.loads(collect(Root(root)).to_json()), System(root=Root(root))


def prepare_inventory(path: Path, clients: str, confirm_timeout: int, log=print):
    """The inventory, its chosen clients, the NAS's facts (read there) and how to tune it."""
    from nastune.remote import inventory
    from nastune.remote.ssh import Ssh

    inv = inventory.load(path)
    hosts = inv.select(clients)
    agent = NasAgent(inv.nas)
    why = agent.check()
    if why:
        raise NasError(why)
    log(f"inspect: {agent.name}")
    facts = agent.facts(xfs_fragmentation=True)
    return inv, hosts, facts, OnNas(agent, str(path), [Ssh(h) for h in hosts], confirm_timeout)


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
    tuner: Here | OnNas,
    accept_risk: bool,
    console,
    log=print,
    pairs: tuple[int, int] | None = (5, 8),
) -> Outcome:
    """`make_pairs()` resolves the targets; it is called for each measurement, because tuning
    changes what they are (an MTU change moves the link's goodput ceiling). A workload that
    fails is reported as failed and the rest compared; anything that stops the run once the
    plan is applied ends in an OptimizeError that names the rollback command. With `pairs`
    (the least and most A/B pairs), the plan's settings are then measured once more,
    interleaved, and applied again at the end."""
    nas = tuner.agent if isinstance(tuner, OnNas) else None
    with tuner.hold():
        out.mkdir(parents=True, exist_ok=True)
        (out / "facts.json").write_text(json.dumps(facts, indent=1))
        findings = knowledge.evaluate(Facts.model_validate(facts))
        log(f"diagnose: {len(findings)} findings")
        log("measure: before")
        before = runner.run(
            make_pairs(), params, repeats, out / "before.json", label="before", lab=lab, console=console, nas=nas
        )
        findings = with_runtime(findings, [before])  # what limited the baseline leads
        (out / "findings.json").write_text(json.dumps([f.model_dump(mode="json") for f in findings], indent=1))
        for f in findings:
            if f.limiting:
                log(f"limiting: {f.rule}: {f.limiting}")
        plan, skipped = choose(from_findings(findings, lab=lab), lab, accept_risk)
        (out / "plan.json").write_text(plan.to_json() + "\n")
        log(f"apply: {len(plan.changes)} changes ({len(skipped)} left out)")
        journal = tuner.apply(plan, accept_risk, log)
        if journal is None:
            raise OptimizeError("the plan changes nothing here: every setting already is as planned")
        undo = f"undo it with `{tuner.undo(journal)}`"
        try:
            log("measure: after")
            after = runner.run(
                make_pairs(), params, repeats, out / "after.json", label="after", lab=lab, console=console, nas=nas
            )
            rows, notes = compare_runs(before, after)
            failed = failures([before, after])
            mixed = None
            if pairs:
                mixed, journal = _interleave(
                    plan, journal, tuner, make_pairs, params, out, lab, pairs, accept_risk, log
                )
                undo = f"undo it with `{tuner.undo(journal)}`"
            (out / "compare.json").write_text(
                dumps(
                    {
                        "rows": [r.to_json() for r in rows],
                        "notes": notes,
                        "failed": failed,
                        "interleaved": mixed.to_json() if mixed else None,
                    }
                )
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
    plan: Plan,
    journal: str,
    tuner: Here | OnNas,
    make_pairs,
    params: dict,
    out: Path,
    lab: bool,
    pairs: tuple[int, int],
    accept_risk: bool,
    log,
) -> tuple[Interleaved | None, str]:
    """The settings of the applied plan measured interleaved: rolled back (A: the one-off
    actions stay done), alternated with B by the tuner, then applied again. Returns the result
    and the journal of that last apply. An interleaved run that fails is reported, not fatal:
    the before/after verdicts stand."""
    settings, actions = interleave.reversible(plan)
    if not settings.changes:
        return None, journal
    (out / "settings.json").write_text(settings.to_json() + "\n")
    log(f"interleave: {len(settings.changes)} settings without (A) and with (B), in random order")
    tuner.rollback(journal)
    try:
        done = interleave.run(
            settings,
            tuner,
            make_pairs,
            params,
            out / "interleaved",
            lab,
            pairs[0],
            pairs[1],
            accept_risk=accept_risk,
            log=log,
        )
        result = Interleaved(
            done.rows, actions + done.notes, done.pairs, done.seconds, done.switch_seconds, done.refused
        )
    except interleave.AbError as e:
        result = Interleaved([], actions, stopped=f"the interleaved run stopped: {e}")
    except KeyboardInterrupt:
        raise OptimizeError(
            f"interrupted while interleaving: the plan's settings are rolled back (its one-off actions stay done); "
            f"`nastune apply {out / 'settings.json'}` applies them again (on the NAS, for an inventory)",
            interrupted=True,
        ) from None
    log("apply: the settings again")
    try:
        again = tuner.apply(settings, accept_risk, log)
        if again is None:
            raise TuneError("nothing was applied: the settings already read as planned after their rollback")
        return result, again
    except (TuneError, NasError) as e:
        raise OptimizeError(
            f"the settings could not be applied again after interleaving ({e}); they are rolled back, the one-off "
            f"actions stay done; `nastune apply {out / 'settings.json'}` retries"
        ) from e
