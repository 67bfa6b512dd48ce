"""The main job: inspect, diagnose, plan, show the plan and ask, then prove it and leave it applied.

Nothing changes before the operator has seen the plan and said yes; a one-off action that cannot
be undone (xfs_fsr) runs only when allowed by name, for as long as allowed. The default flow
proves the plan's settings by interleaving (A without them, B with them, in random order, until
every metric is settled: `jobs/ab.py`), which drift cannot fool; only the one-off actions are
measured before and after. The classic flow (`before-after`) is kept for comparison."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from nastune.bench import cliff, results, runner, sustained
from nastune.bench.limits import with_runtime
from nastune.bench.params import Params
from nastune.bench.results import ResultSet
from nastune.bench.selection import with_big_dir
from nastune.bench.sizing import sized
from nastune.errors import UsageError
from nastune.facts import Facts, Reading
from nastune.jobs import ab, keeping
from nastune.jobs import screen as screening
from nastune.jobs.offer import Choices, Consent, Declined, agreed, offered
from nastune.jobs.stopping import OptimizeError, Undoing
from nastune.jobs.switch import AbError, Unchanged
from nastune.outcomes.optimize import Interleaved, OptimizeOutcome
from nastune.remote.agent import NasError
from nastune.report import html
from nastune.risks import Risks
from nastune.rules.model import Finding
from nastune.sites.base import Site
from nastune.sites.tuner import Tuner
from nastune.stats.runs import compare_runs, failures, worse
from nastune.tune.knobs import KNOBS
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import TuneError
from nastune.wire import Verdict

FLOWS = ("interleaved", "before-after")
# the interleaved budget: first look at pair 3, last at 8. A plan's changes are mostly large, and
# bench/paired.py --schedule optimize (paired-optimize.json) finds a clear 10% change in 4.02 pairs
# where ab's 5..12 takes 5.17, at A/A false verdicts of 3.2% at most
PAIRS = (3, 8)


@dataclass
class OptimizeSpec:
    """What optimize measures (`workloads` at `target`, as the site names targets; none named:
    the site's defaults), how often and how big, where it writes, whether it may trade
    durability, the interleaved budget (the least and most A/B pairs; None: no interleaved
    phase, before-after only) and the flow; and what the operator chose of the plan: their own
    plan file, the rules to keep or leave out, the one-off actions allowed and for how long, and
    how fragmentation is read (sampled, or exactly by freezing each file system)."""

    workloads: list[str]
    params: Params
    repeats: int
    out: Path
    target: str | None = None
    accept_risk: Risks = frozenset()
    pairs: tuple[int, int] | None = PAIRS
    flow: str = "interleaved"  # or "before-after"
    choices: Choices = field(default_factory=lambda: Choices())
    fragmentation: str = "sample"
    persist: bool | None = None  # the settings, once proved, also survive a reboot (None: ask at the end)
    screen: bool = False  # then each rule's own effect, on the workloads the plan moved
    keep_only: bool = False  # and leave off, without asking, the rules shown to help less than the margin
    screen_runs: int = 0  # the screening's runs at least (0: its design's own number)
    profiles: list[Path] = field(default_factory=list)  # earlier runs: a sustained write's is the disks' rate

    def __post_init__(self) -> None:
        if self.flow not in FLOWS:
            raise UsageError(f"--flow {self.flow}: choose from {', '.join(FLOWS)}")
        if self.pairs and self.pairs[0] > self.pairs[1]:
            raise UsageError("--min-pairs must not exceed --max-pairs")
        self.screen = self.screen or self.keep_only or self.screen_runs > 0  # what to keep comes from screening


@dataclass
class _Run:
    """What a flow works with: the request, the NAS and its tuning engine, what was read of it and
    found, the plan as agreed (and why each change left out was), and where it reports."""

    spec: OptimizeSpec
    site: Site
    tuner: Tuner
    facts: Facts
    findings: list[Finding]
    plan: Plan
    skipped: list[str]
    console: Console
    log: Callable[[str], None]
    consent: Consent

    def measure(self, workloads: list[str], name: str, label: str) -> ResultSet:
        pairs = self.site.pairs(self.spec.target, workloads)
        spec = self.spec
        return runner.run(
            pairs, spec.params, spec.repeats, spec.out / name, self.site, label=label, console=self.console
        )


@dataclass
class _Proof:
    """What a flow measured: its runs, the before/after verdicts and notes, the interleaved run."""

    runs: list[ResultSet]
    rows: list[Verdict]
    notes: list[str]
    mixed: Interleaved | None
    withheld: list[str] = field(default_factory=list)  # metrics the settings made worse: left as they were

    def __post_init__(self) -> None:
        self.withheld = self.withheld or (self.mixed.withheld if self.mixed else [])


def run(
    spec: OptimizeSpec, site: Site, console: Console, consent: Consent, log: Callable[[str], None] = print
) -> OptimizeOutcome:
    """The targets are resolved for each measurement, because tuning changes what they are (an
    MTU change moves the link's goodput ceiling); bad workloads and unreachable clients are
    refused before anything is read or applied. The plan is shown and agreed to before anything
    is measured or changed (Declined: the operator said no). A workload that fails is reported as
    failed and the rest compared; anything that stops the run once a change is applied ends in an
    OptimizeError that names the rollback command."""
    defaulted = not spec.workloads
    if defaulted:
        spec = replace(spec, workloads=site.default_workloads())
    targets = [t for _, t in site.pairs(spec.target, spec.workloads)]
    spec = replace(spec, params=sized(spec.params, targets, log))
    earlier = [results.load(path) for path in spec.profiles]  # a bad file refused before anything is read
    log(f"inspect: {site.name}")
    facts = site.facts(Reading(spec.fragmentation))
    facts.write_course = cliff.measured(earlier) or facts.write_course
    spec = replace(spec, params=sustained.past_cache(spec.workloads, spec.params, facts, log))
    if defaulted:  # what the NAS holds decides what its users wait for
        workloads, big = with_big_dir(spec.workloads, facts, targets)
        spec = replace(spec, workloads=workloads)
        if big:
            log(f"measure: big-dir too, a big directory's listing and lookups: {'; '.join(big)}")
    tuner = site.tuner()
    with tuner.hold():
        spec.out.mkdir(parents=True, exist_ok=True)
        (spec.out / "facts.json").write_text(facts.to_json())
        findings = site.findings(facts)
        on_clients = sum(1 for f in findings if f.host)
        log(f"diagnose: {len(findings)} findings" + (f" ({on_clients} on clients)" if on_clients else ""))
        plan, skipped = offered(spec.choices, site, findings, spec.accept_risk)
        (spec.out / "plan.json").write_text(plan.to_json() + "\n")
        switches = 2 * spec.pairs[1] if spec.pairs else 0
        try:
            plan, skipped = agreed(plan, skipped, switches, spec.choices, consent)
        except Declined as e:
            raise Declined(f"{e}; the plan is in {spec.out / 'plan.json'} (edit it, then --plan FILE)") from None
        flow = _before_after if spec.flow == "before-after" else _interleaved
        return flow(_Run(spec, site, tuner, facts, findings, plan, skipped, console, log, consent))


def _limiting(
    spec: OptimizeSpec, findings: list[Finding], runs: list[ResultSet], log: Callable[[str], None]
) -> list[Finding]:
    """The findings with what limited the measured runs first, written to findings.json."""
    findings = with_runtime(findings, runs)
    (spec.out / "findings.json").write_text(json.dumps([f.model_dump(mode="json") for f in findings], indent=1))
    for f in (f for f in findings if f.limiting):
        log(f"limiting: {f.rule}: {f.limiting}")
    return findings


def _before_after(r: _Run) -> OptimizeOutcome:
    """The classic flow: measure, apply the whole plan, measure again; then (with `spec.pairs`) the
    settings interleaved a second time and applied again."""
    spec, tuner, plan, log = r.spec, r.tuner, r.plan, r.log
    log("measure: before")
    before = r.measure(spec.workloads, "before.json", "before")
    r.findings = _limiting(spec, r.findings, [before], log)  # what limited the baseline leads
    log(f"apply: {len(plan.changes)} changes ({len(r.skipped)} left out)")
    journal = tuner.apply(plan, spec.accept_risk, log, persist=bool(spec.persist) and not spec.pairs)
    if journal is None:
        raise OptimizeError("the plan changes nothing here: every setting already is as planned")
    with Undoing(spec.out, tuner, journal) as undo:
        log("measure: after")
        after = r.measure(spec.workloads, "after.json", "after")
        rows, notes = compare_runs(before, after)
        kept: str | None = journal
        mixed, withheld = None, worse(rows)
        settings, _ = ab.reversible(plan)
        if spec.pairs and settings.changes:
            tuner.rollback(journal)
            mixed, kept = _interleave(plan, tuner, r.site, spec, log, r.consent)
            kept, withheld = kept or (None if mixed and mixed.withheld else journal), []
        elif withheld:
            log(f"rollback: the plan made {', '.join(withheld)} worse")
            tuner.rollback(journal)
            kept = None
            (spec.out / "settings.json").write_text(settings.to_json() + "\n")
        undo.journal = kept
        return _finish(r, kept, _Proof([before, after], rows, notes, mixed, withheld))


def _interleaved(r: _Run) -> OptimizeOutcome:
    """The plan's one-off actions measured before and after on the workloads they change (after:
    the interleaved run's A), its settings proved by interleaving and left applied."""
    spec, tuner, plan, log = r.spec, r.tuner, r.plan, r.log
    settings, _ = ab.reversible(plan)
    actions = plan.model_copy(update={"changes": [c for c in plan.changes if c not in settings.changes]})
    runs: list[ResultSet] = []
    rows: list[Verdict] = []
    notes: list[str] = []
    served = [w for w in spec.workloads if any(w in KNOBS[c.knob].measured_by for c in actions.changes)]
    if served:
        log(f"measure: before the one-off actions ({', '.join(served)})")
        runs.append(r.measure(served, "before.json", "before"))
    journal = None
    if actions.changes:
        log(f"apply: {len(actions.changes)} one-off actions")
        journal = tuner.apply(actions, spec.accept_risk, log)
        if not served:
            notes.append("the one-off actions were applied; no chosen workload measures them (aged-read does)")
    with Undoing(spec.out, tuner, journal) as undo:
        mixed, applied = _interleave(plan, tuner, r.site, spec, log, r.consent)
        if served and mixed is None:  # no settings were switched: the after-measurement on its own
            log("measure: after the one-off actions")
            runs.append(r.measure(served, "after.json", "after"))
        elif served and mixed and mixed.runs:  # the interleaved run's A is the system after them
            runs.append(_after(mixed.runs[0], served, spec.out / "after.json"))
        if len(runs) == 2:
            rows, notes = compare_runs(runs[0], runs[1])
            notes = [f"before/after: the one-off actions only ({', '.join(served)})"] + notes
        elif served:
            notes.append("the one-off actions have no after-measurement: the interleaved run that measures it stopped")
        journal = applied or journal
        if journal is None and not (mixed and mixed.withheld):
            raise OptimizeError("the plan changes nothing here: every setting already is as planned")
        undo.journal = journal
        runs += mixed.runs if mixed else []
        as_it_was = [run for run in runs if run.label in ("before", "A")]
        r.findings = _limiting(spec, r.findings, as_it_was, log)  # what limited the system as it was leads
        return _finish(r, journal, _Proof(runs, rows, notes, mixed))


def _after(a: ResultSet, served: list[str], path: Path) -> ResultSet:
    """The interleaved run's A (one-off actions done, settings not applied) on `served`: the
    after-measurement of the one-off actions, which a separate pass would only repeat."""
    after = a.model_copy(update={"label": "after", "results": [r for r in a.results if r.workload in served]})
    after.save(path)
    return after


def _finish(r: _Run, journal: str | None, proof: _Proof) -> OptimizeOutcome:
    """compare.json and the report. `journal` None: nothing is left applied."""
    spec, tuner, plan, mixed = r.spec, r.tuner, r.plan, proof.mixed
    failed = failures(proof.runs)
    undo = tuner.undo(journal) if journal else ""
    if mixed and mixed.dropped:
        plan = screening.without(plan, mixed.idle)
    settings = ab.reversible(plan)[0].changes if proof.withheld else []
    left = [c for c in plan.changes if c not in settings]  # withheld: the one-off actions stay done
    done = OptimizeOutcome(
        flow=spec.flow,
        rows=proof.rows,
        notes=proof.notes,
        failed=failed,
        interleaved=mixed,
        withheld=proof.withheld,
        report=spec.out / "report.html",
        plan=plan.model_copy(update={"changes": left}),
        skipped=r.skipped,
        journal=journal,
        undo=undo,
        site=r.site.name,
    )
    (spec.out / "compare.json").write_text(done.dumps())  # before persisting asks: kept whatever stops it
    done.persisted, done.persisting = _persisted(r, journal, left)
    done.retry = tuner.applying(spec.out / "settings.json") if proof.withheld else ""
    offered = bool(mixed and mixed.idle and not mixed.dropped and journal)
    done.keeping = f"{undo} && {tuner.applying(spec.out / 'keep.json')}" if offered else ""
    said = [f"left as it was: the settings made {', '.join(proof.withheld)} worse"] if done.retry else []
    notes = proof.notes + said
    html.render(html.Page(proof.runs, proof.rows, notes, "nastune optimize", r.facts, r.findings, done), done.report)
    return done


def _persisted(r: _Run, journal: str | None, left: list[PlannedChange]) -> tuple[bool, str | None]:
    """Whether the settings left applied survive a reboot, and if not the command that makes them:
    --persist made them at apply, --no-persist leaves them; asked, the operator's yes does it now."""
    if r.spec.persist or not journal:
        return bool(r.spec.persist and journal), None
    lasting = r.tuner.persisting(journal)
    lost = [c for c in left if KNOBS[c.knob].fate() == "lost"]
    if lasting is None or not lost or r.spec.persist is False or not r.consent.persist(len(lost)):
        return False, lasting
    r.log(f"persist: {len(lost)} settings")
    try:
        r.tuner.persist(journal, r.log)
    except (TuneError, NasError) as e:
        r.log(f"persist failed, the settings stay applied and a reboot undoes {len(lost)} of them: {e}")
        return False, lasting
    return True, None


def _interleave(
    plan: Plan,
    tuner: Tuner,
    site: Site,
    spec: OptimizeSpec,
    log: Callable[[str], None],
    consent: Consent | None = None,
) -> tuple[Interleaved | None, str | None]:
    """The plan's settings (not applied: A; its one-off actions stay as they are) alternated with
    B by the tuner, then applied (screened: those the operator keeps, whom `consent` asks).
    Returns the result and the journal of that last apply (None: no settings, or none that
    changes anything). An interleaved run that fails is reported, not fatal."""
    out = spec.out
    settings, actions = ab.reversible(plan)
    if not settings.changes:
        return None, None
    (out / "settings.json").write_text(settings.to_json() + "\n")
    log(f"interleave: {len(settings.changes)} settings without (A) and with (B), in random order")
    try:
        where = (out / "interleaved", spec.target, *(spec.pairs or PAIRS))
        mixed = ab.AbSpec(settings, spec.workloads, spec.params, *where, accept_risk=spec.accept_risk)
        screened = screening.Screening(settings, tuner, log, spec.screen_runs)
        done = ab.run(mixed, site, tuner, log, then=screened.measure if spec.screen else None)
        result = Interleaved(
            rows=done.rows,
            notes=actions + done.notes,
            pairs=done.pairs,
            seconds=done.seconds,
            switch_seconds=done.switch_seconds,
            refused=done.refused,
            runs=done.runs,
        )
        if spec.screen:
            keeping.screened(result, screened.found)
            settings = keeping.keep(result, settings, spec.out / "keep.json", spec.keep_only, consent, log)
    except Unchanged:
        return None, None
    except AbError as e:
        result = Interleaved(rows=[], notes=actions, stopped=f"the interleaved run stopped: {e}")
    except KeyboardInterrupt:
        raise OptimizeError(
            f"interrupted while interleaving: the plan's settings are rolled back (its one-off actions stay done); "
            f"`nastune apply {out / 'settings.json'}` applies them again (on the NAS, for an inventory)",
            interrupted=True,
        ) from None
    result.withheld = worse(result.rows)
    if result.withheld:  # what `--help` promises: a worse verdict leaves A
        log(f"left as it was: the settings made {', '.join(result.withheld)} worse")
        return result, None
    log("apply: the settings")
    try:
        again = tuner.apply(settings, spec.accept_risk, log, persist=bool(spec.persist))
        if again is None:
            raise TuneError("nothing was applied: the settings already read as planned after their rollback")
        return result, again
    except (TuneError, NasError) as e:
        raise OptimizeError(
            f"the settings could not be applied after interleaving ({e}); they are rolled back, the one-off "
            f"actions stay done; `nastune apply {out / 'settings.json'}` retries"
        ) from e
