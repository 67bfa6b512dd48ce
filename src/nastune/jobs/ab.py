"""Interleaved A/B measurement (randomized multiple interleaved trials, Abedi and Brecht, ICPE
2017): A is the system as it is, B the system with a plan applied. They alternate in a random
order within each pair, switched through the tuning engine (apply, then rollback), so that drift
(another job, a backup starting) hits both alike instead of being counted as the plan's effect.

Each switch is proved before its repeat is measured (apply reads every setting back; a clean rollback after
it) and its cost is counted; one switch serves every workload. After every pair from `min_pairs`
on, each metric is compared pair by pair (stats.paired: each B against its own pair's A, so a
disturbance longer than a pair cancels); a workload whose every metric is settled (a verdict, an
interval inside the noise floor, or a change known to within the floor: stats.compare.settled) is
measured no more, and the run stops when all are, or when the budget of pairs is spent. The looks
share the 5% false-positive rate (Bonferroni over the looks, so stopping early cannot inflate it).
A's last repeat is its A/A control: when it falls outside the 95% prediction interval of A's
earlier repeats, widened by the noise floor, that metric gets no verdict unless its whole change
interval lies beyond that drift: A itself moved during the run (a switch back that did not restore
it), and a drift of 16% cannot explain a change of +180%. A separate control pass would measure every
workload once more for the same question; drift slower than a pair needs no control, since each
B is compared with its own pair's A. A bare min..max range would refuse 2 runs in n + 1 of an
unchanged system (29% at six pairs). The system always ends in A."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from nastune.bench import runner
from nastune.bench.interference import Meter
from nastune.bench.params import Params
from nastune.bench.profile import Profiler, Unprofiled
from nastune.bench.results import Interleaving, Provenance, ResultSet, WorkloadResult
from nastune.bench.sizing import sized
from nastune.bench.targets import Target
from nastune.bench.usage import ProfileSummary, summarize
from nastune.bench.workload_base import State, Workload
from nastune.errors import UsageError
from nastune.jobs.switch import AbError, Switch
from nastune.outcomes.ab import AbOutcome
from nastune.protocols.client import BenchError
from nastune.remote.agent import NasError
from nastune.risks import Risks
from nastune.sites.base import Pairs, Site
from nastune.sites.tuner import Tuner
from nastune.stats.compare import ALPHA, NOISE_FLOOR, settled
from nastune.stats.control import drift, explained, outside
from nastune.stats.paired import compare_pairs
from nastune.stats.runs import compare_interleaved
from nastune.tune.knobs import KNOBS
from nastune.tune.plan import Plan
from nastune.tune.system import TuneError

Samples = dict[str, list[dict[str, float]]]  # per workload on a target, each repeat's metrics


@dataclass
class AbSpec:
    """What to switch (B: `plan` applied), where and what to measure, and the budget."""

    plan: Plan
    workloads: list[str]
    params: Params
    out: Path
    target: str | None = None
    min_pairs: int = 5
    max_pairs: int = 12
    seed: int | None = None
    accept_risk: Risks = frozenset()
    noise_floor: float = NOISE_FLOOR

    def __post_init__(self) -> None:
        if self.min_pairs > self.max_pairs:
            raise UsageError("--min-pairs must not exceed --max-pairs")


def reversible(plan: Plan) -> tuple[Plan, list[str]]:
    """The plan without its one-off actions (xfs_fsr), which cannot be switched off again."""
    kept = [c for c in plan.changes if not KNOBS[c.knob].action]
    left = [
        f"{c.knob} {c.target}: a one-off action, not a setting: never switched off; optimize measures it before/after"
        for c in plan.changes
        if KNOBS[c.knob].action
    ]
    return plan.model_copy(update={"changes": kept}), left


def key_of(workload: Workload, target: Target) -> str:
    return f"{workload.name} @ {target.url}"


def measure(spec: AbSpec, site: Site, log: Callable[[str], None] = print) -> AbOutcome:
    """`nastune ab`: the plan's settings (its one-off actions left out, and said so) switched on
    and off on `site` (no workloads named: the site's defaults); the verdicts also written to
    ab.json beside a.json and b.json."""
    plan, left_out = reversible(spec.plan)
    if not spec.workloads:  # the site's own, but the aged read: no setting switches fragmentation
        spec = replace(spec, workloads=[n for n in site.default_workloads() if n != "aged-read"])
    targets = [t for _, t in site.pairs(spec.target, spec.workloads)]  # bad workloads: refused before any switch
    params = sized(spec.params, targets, log)
    tuner = site.tuner()
    with tuner.hold("ab"):  # ab is the workflow: it holds the system's lock, run switches under it
        outcome = run(replace(spec, plan=site.stamp(plan), params=params), site, tuner, log=log)
    outcome.notes = left_out + outcome.notes
    (spec.out / "ab.json").write_text(outcome.dumps() + "\n")
    return outcome


def run(
    spec: AbSpec,
    site: Site,
    tuner: Tuner | None = None,
    log: Callable[[str], None] = print,
    then: Callable[[AbOutcome, Measuring], None] | None = None,
) -> AbOutcome:
    """A and B alternate on `site`, switched by `tuner` (the site's own by default), whose
    system's lock the caller holds (ab's measure, optimize). `then` gets the outcome and the run
    in A while the workloads' files are still set up (optimize --screen measures on them)."""
    spec.out.mkdir(parents=True, exist_ok=True)
    run = Measuring(spec, site, Switch(spec.plan, tuner or site.tuner(), spec.accept_risk))
    started = time.monotonic()
    try:
        run.set_up()
        pairs = run.alternate(random.Random(spec.seed), log)
        run.switch.back()
        outcome = run.outcome(pairs, time.monotonic() - started)
        if then:
            then(outcome, run)
    except (BenchError, TuneError, NasError) as e:
        raise AbError(f"stopped after {run.done} pairs: {e}") from e
    finally:
        run.end()
    return outcome


PAIR_PROFILE_INTERVAL = 0.1  # seconds between the first pair's /proc samples on the NAS


class Measuring:
    """One interleaved run's state: each side's targets (found once in it: B's are B's, as an
    MTU change moves a target's ceiling), each workload's set-up state, and each side's samples,
    the targets they were measured on and the other load beside them."""

    def __init__(self, spec: AbSpec, site: Site, switch: Switch):
        self.spec, self.site, self.switch = spec, site, switch
        self.alpha = ALPHA / (spec.max_pairs - spec.min_pairs + 1)  # the looks share the 5%
        self.resolved: dict[str, Pairs] = {}
        self.states: dict[str, State] = {}
        self.samples: dict[str, Samples] = {"A": {}, "B": {}}
        self.measured: dict[str, dict[str, tuple]] = {"A": {}, "B": {}}
        self.others: dict[str, Samples] = {"A": {}, "B": {}}
        self.profiles: dict[str, dict[str, ProfileSummary]] = {"A": {}, "B": {}}  # the first pair's
        self.courses: dict[str, dict[str, list[list[float]]]] = {"A": {}, "B": {}}  # a sustained write's, per repeat
        self.provenances: dict[str, Provenance] = {}
        self.done = 0

    def pairs(self, side: str) -> Pairs:
        """Each side's targets, found once in it (each finding asks the clients over SSH)."""
        if side not in self.resolved:
            self.resolved[side] = self.site.pairs(self.spec.target, self.spec.workloads)
        return self.resolved[side]

    def set_up(self) -> None:
        params = self.spec.params
        for workload, target in self.pairs("A"):
            state = runner.attempt(partial(workload.setup, target, params), "setup", [])
            self.states[key_of(workload, target)] = state
            if workload.warm_up:
                runner.attempt(partial(workload.once, target, params, state), "warm-up", [])

    def side(self, side: str, keys: set[str]) -> None:
        """One repeat of each workload of `keys` in `side`, caches dropped, other load metered;
        the side's provenance read the first time it is in place (B's settings are B's)."""
        self.switch.to(side)
        if side not in self.provenances:
            self.provenances[side] = self.site.provenance(self.spec.out / f"{side.lower()}.json")
        self.repeat(side, keys)

    def repeat(self, side: str, keys: set[str] | None = None) -> None:
        """One repeat of each workload (of `keys`: None, all) as the system is now, counted as
        `side`'s: caches dropped, other load metered, the first pair profiled. One profiler serves
        the side (each start of `nastune sample` on the NAS costs about a second), sampled often
        enough to see a transfer sized to half a second; each workload keeps its own window."""
        chosen = [(w, t) for w, t in self.pairs(side) if keys is None or key_of(w, t) in keys]
        if not chosen:
            return
        served = next((t for _, t in chosen if t.server_pid), chosen[0][1])
        profiler = self.site.profiler(served, PAIR_PROFILE_INTERVAL) if self.done == 1 else Unprofiled()
        with profiler:
            for workload, target in chosen:
                self._once(side, workload, target, profiler)

    def _once(self, side: str, workload: Workload, target: Target, profiler: Profiler) -> None:
        key = key_of(workload, target)
        if workload.files:
            runner.attempt(self.site.drop_caches, "drop caches", [])
        meter = Meter(partial(self.site.servers, target))
        first = len(profiler.samples)
        meter.start()
        state = self.states[key]  # one for both sides: the courses a repeat adds to it are its side's
        recorded = len(state.course)
        row = runner.attempt(partial(workload.once, target, self.spec.params, state), side, [])
        self.courses[side].setdefault(key, []).extend(state.course[recorded:])
        self.others[side].setdefault(key, []).append(meter.stop())
        window = profiler.window(first)
        if len(window) > 1:
            self.profiles[side][key] = summarize(window)
        self.samples[side].setdefault(key, []).append(row)
        self.measured[side][key] = (workload, target)  # as resolved in this state (B's MTU)

    def alternate(self, rng: random.Random, log: Callable[[str], None]) -> Pairs:
        """Pairs in random order until every workload is settled (looking from min_pairs) or the
        budget is spent; the pairs it measured."""
        spec, pairs = self.spec, self.pairs("A")
        everything = {key_of(w, t) for w, t in pairs}
        open_keys = set(everything)  # the workloads with a metric not yet settled
        for self.done in range(1, spec.max_pairs + 1):
            order = ["A", "B"]
            rng.shuffle(order)
            for side in order:
                self.side(side, open_keys)
            if self.done >= spec.min_pairs:
                settles = partial(_settled, params=spec.params, samples=self.samples, noise_floor=spec.noise_floor)
                open_keys = {key_of(w, t) for w, t in pairs if not settles(w, t, alpha=self.alpha)}
            log(
                f"pair {self.done}: {' then '.join(order)}; {len(open_keys)} of {len(everything)} workloads not settled"
            )
            if not open_keys:
                break
        return pairs

    def end(self) -> None:
        """Back to A, and every workload's files removed, whatever stopped the run."""
        try:
            self.switch.back()
        finally:
            for workload, target in self.resolved.get("A", []):
                try:
                    workload.teardown(target, self.spec.params, self.states.get(key_of(workload, target), State()))
                except BenchError:
                    pass

    def outcome(self, pairs: Pairs, elapsed: float) -> AbOutcome:
        """Each B against its own pair's A, the A/A control, the notes."""
        spec, params, floor = self.spec, self.spec.params, self.spec.noise_floor
        a, b = (
            _results(side, list(self.measured[side].values()), params, self.samples[side], self.others, self)
            for side in ("A", "B")
        )
        drifted = _controls(pairs, params, self.samples["A"], floor)
        unjudged = Interleaving(run=uuid.uuid4().hex, side="A", alpha=self.alpha, noise_floor=floor)
        refused = explained(drifted, compare_interleaved(a, b, unjudged)[0])
        judged = unjudged.model_copy(update={"refused": refused})
        for side, results in (("A", a), ("B", b)):
            results.interleaving = judged.model_copy(update={"side": side})
            results.save(spec.out / f"{side.lower()}.json")
        rows, notes = compare_interleaved(a, b, judged)
        notes += [
            f"A/A control: A's last repeat of {key} drifted {drifted[key]:.0%}, less than its change: judged"
            for key in drifted
            if key not in refused
        ]
        looks = spec.max_pairs - spec.min_pairs + 1
        notes.append(
            f"interleaved: {self.done} pairs in random order, each B compared with its own pair's A; each look "
            f"tests at alpha {self.alpha:.4f} (0.05 over {looks} looks)"
        )
        decided = bool(rows) and all(settled(r, floor) for r in rows)
        return AbOutcome(
            rows=rows,
            notes=notes,
            pairs=self.done,
            seconds=round(elapsed, 1),
            switch_seconds=round(self.switch.seconds, 1),
            decided=decided and not refused,
            refused=refused,
            runs=[a, b],
        )


def _values(workload: Workload, params: Params, rows: list[dict[str, float]]) -> dict[str, list[float]]:
    return {name: [r[name] for r in rows if name in r] for name in workload.metrics(params)}


def _settled(
    workload: Workload,
    target: Target,
    params: Params,
    samples: dict[str, Samples],
    noise_floor: float,
    alpha: float,
) -> bool:
    """Whether every metric of the workload is settled (stats.compare.settled), its pairs compared
    as the verdict will be: a settled workload is measured no more."""
    key = key_of(workload, target)
    paired = list(zip(samples["A"].get(key, []), samples["B"].get(key, [])))
    for name, spec in workload.metrics(params).items():
        both = [(x[name], y[name]) for x, y in paired if name in x and name in y]
        if len(both) < 2:
            return False
        a, b = [x for x, _ in both], [y for _, y in both]
        if not settled(compare_pairs(a, b, spec.higher_is_better, noise_floor, alpha), noise_floor):
            return False
    return True


def _controls(pairs: Pairs, params: Params, samples_a: Samples, noise_floor: float) -> dict[str, float]:
    """Metrics whose last repeat of A lies outside what A's earlier repeats predict, with how far
    it drifted (relative to their mean)."""
    drifted = {}
    for workload, target in pairs:
        key = key_of(workload, target)
        rows = samples_a.get(key, [])
        if len(rows) < 3:  # two earlier repeats at least: one gives no spread to predict with
            continue
        measured, extra = _values(workload, params, rows[:-1]), _values(workload, params, rows[-1:])
        for name, values in measured.items():
            if values and extra.get(name) and outside(values, extra[name][0], noise_floor):
                drifted[f"{key} {name}"] = drift(values, extra[name][0])
    return drifted


def _results(
    side: str, pairs: Pairs, params: Params, rows_by_key: Samples, others: dict[str, Samples], run: Measuring
) -> ResultSet:
    """One side's results, not yet saved: the run's verdict goes into them first."""
    path = run.spec.out / f"{side.lower()}.json"
    results = ResultSet(
        created=time.strftime("%Y-%m-%dT%H:%M:%S"),
        label=side,
        provenance=run.provenances.get(side) or run.site.provenance(path),
        results=[],
    )
    for workload, target in pairs:
        key = key_of(workload, target)
        rows = rows_by_key.get(key, [])
        if not rows:
            continue
        load = others[side].get(key, [])[: len(rows)]
        profile, attribution, limits = runner.limited(workload, target, run.profiles[side].get(key, {}), load)
        metrics = runner.flag_disturbed(runner.metrics_of(workload, params, target, rows), load)
        results.results.append(
            WorkloadResult(
                workload=workload.name,
                target=target.record(),
                params=params,
                metrics=metrics,
                interference=load,
                profile=profile,
                attribution=attribution,
                limits=limits,
                started=results.created,
                seconds=0.0,
                course=run.courses[side].get(key, []),
            )
        )
    return results
