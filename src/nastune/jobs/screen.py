"""Which of a plan's changes bought what (`optimize --screen`): once the settings are proved
together, each rule's own effect on the workloads the whole plan moved, so an operator can keep
what helps and justify each change, or leave one out (an MTU the switch does not allow) knowing
what it costs.

One two-level design over the rules (stats.factorial: 8 runs for up to 3 rules, 12 or 16 for up
to 11): each run applies the settings of about half the rules, measures every workload once and
rolls them back, in random order so that drift spreads over all estimates; each rule's effect
compares the runs with its settings against those without, fitted with the interleaved pairs
(every rule off, every rule on) that proved the plan. Every run serves every rule, where
one rule at a time against none needs a few pairs per rule. The design cannot tell a rule's
effect from the interaction of two others (TCP buffers with the MTU), which the notes say."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from nastune import wire
from nastune.bench.limits import reaches
from nastune.bench.params import Params
from nastune.jobs import ab
from nastune.jobs.switch import AbError, Switch, Unchanged
from nastune.outcomes.ab import AbOutcome
from nastune.outcomes.screen import Screened, summed
from nastune.protocols.client import BenchError
from nastune.remote.agent import NasError
from nastune.sites.tuner import Tuner
from nastune.stats import factorial
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import TuneError
from nastune.wire import Verdict


def by_rule(settings: Plan) -> dict[str, list[PlannedChange]]:
    groups: dict[str, list[PlannedChange]] = {}
    for change in settings.changes:
        groups.setdefault(change.rule or "(the plan's own)", []).append(change)
    return groups


def without(settings: Plan, rules: list[str]) -> Plan:
    """`settings` less the changes of `rules` (as by_rule groups them)."""
    left = [c for rule, changes in by_rule(settings).items() if rule not in rules for c in changes]
    return settings.model_copy(update={"changes": [c for c in settings.changes if c in left]})


@dataclass
class Found:
    """What the screening found: each rule's own effect, the runs it was estimated from, the
    plan's gain beside the sum of its rules' own effects on each metric it moved, and the
    smallest effect the design would have called 8 times in 10 (None: nothing measured)."""

    screened: list[Screened] = field(default_factory=list)
    design: wire.Design | None = None
    sums: list[wire.Together] = field(default_factory=list)
    unseen: float | None = None
    runs: int = 0


def screen(
    settings: Plan, moved: list[str], base: ab.Measuring, tuner: Tuner, log: Callable[[str], None], runs_wanted: int = 0
) -> Found:
    """Each rule's own effect on the `moved` metrics (`workload @ target metric`, those the whole
    plan moved), measured on the files `base` (the interleaved run, in A) set up, in at least
    `runs_wanted` runs (the design repeated); nothing when the plan is one rule's (the whole
    plan's verdict is that rule's) or nothing moved."""
    groups = by_rule(settings)
    if len(groups) < 2 or not moved:
        return Found()
    rules = list(groups)
    workloads = sorted({_workload(m) for m in moved})
    runs = _repeated(factorial.design(len(rules), _spare(base, workloads)), runs_wanted)
    log(f"screen: {len(rules)} rules in {len(runs)} runs, each with the settings of about half of them")
    order = list(range(len(runs)))
    random.Random(base.spec.seed).shuffle(order)  # drift spreads over every estimate instead of one
    plans = [without(settings, [r for r, level in zip(rules, runs[i]) if level < 0]) for i in order]
    try:
        measured = _in_turn(plans, workloads, base, tuner, log)
    except (AbError, BenchError, TuneError, NasError) as e:
        return Found(
            [Screened(rule=rule, changes=len(groups[rule]), stopped=f"the screening stopped: {e}") for rule in rules]
        )
    measured = {key: s for key, s in measured.items() if _named(key) in moved}
    values = {key: [s.values[order.index(i)] for i in range(len(runs))] for key, s in measured.items()}
    pairs = {key: _pairs(base, key) for key in measured}
    design = wire.Design(
        rules=rules,
        runs=runs.tolist(),
        order=order,
        values={_named(k): v for k, v in values.items()},
        pairs={_named(k): list(p) for k, p in pairs.items()},
    )
    rows = [
        [
            Verdict.of(*key, s.unit, s.higher, None, c)
            for c in factorial.effects(runs, values[key], s.higher, pairs=pairs[key])
        ]
        for key, s in measured.items()
    ]
    screened = [
        Screened(rule=rule, changes=len(groups[rule]), rows=[row[j] for row in rows]) for j, rule in enumerate(rules)
    ]
    sums = [_sum(key, s, runs, values[key], pairs[key], rules) for key, s in measured.items()]
    unseen = max((factorial.unseen(runs, values[k], pairs[k]) for k in measured), default=None)
    return Found(screened, design, [m for m in sums if m is not None], unseen, len(runs))


def _repeated(runs: np.ndarray, wanted: int) -> np.ndarray:
    """The design, repeated whole until it has at least `wanted` runs."""
    return np.vstack([runs] * max(1, math.ceil(wanted / len(runs))))


def _sum(
    key: tuple[str, str, str],
    s: Series,
    runs: np.ndarray,
    values: list[float],
    pairs: factorial.Pairs,
    rules: list[str],
) -> wire.Together | None:
    together = factorial.together(runs, values, pairs)
    return None if together is None else summed(_named(key), together, [r for r in rules if s.reached_by(r)])


def _spare(base: ab.Measuring, moved: list[str]) -> int:
    """The degrees of freedom the interleaved pairs add to each fit: the fewest any moved
    workload has (its A and B repeats, less the term for the time between)."""
    counts = [len(base.samples["A"].get(key, [])) + len(base.samples["B"].get(key, [])) for key in moved]
    return max(0, min(counts) - 1)


def _pairs(base: ab.Measuring, key: tuple[str, str, str]) -> factorial.Pairs:
    """A metric's values in the interleaved run: without the settings (A) and with them all (B)."""
    workload, target, metric = key
    a, b = (base.samples[side].get(f"{workload} @ {target}", []) for side in ("A", "B"))
    return [row.get(metric, math.nan) for row in a], [row.get(metric, math.nan) for row in b]


@dataclass
class Series:
    """A metric's value in each run, with what decides which rules can act on it: its unit and
    direction, and the run's target kind, way (read or write), what it moves and whether it
    touches files at all."""

    unit: str
    higher: bool
    values: list[float]
    kind: str
    path: str
    moves: str
    files: bool

    def reached_by(self, rule: str) -> bool:
        return reaches(rule, self.kind, self.path, self.moves, self.files)


Measured = dict[tuple[str, str, str], Series]  # by (workload, target, metric)


def _in_turn(
    plans: list[Plan], moved: list[str], base: ab.Measuring, tuner: Tuner, log: Callable[[str], None]
) -> Measured:
    """Each plan applied in turn (a plan that changes nothing measures the system as it is), every
    `moved` workload measured once under it on `base`'s files, then rolled back: the system ends
    as it began."""
    spec = base.spec
    state = ab.Measuring(spec, base.site, Switch(spec.plan, tuner, spec.accept_risk))
    state.states = base.states  # the interleaved run's set-up, torn down by it
    state.resolved["B"] = [(w, t) for w, t in base.pairs("A") if ab.key_of(w, t) in moved]
    try:
        for n, plan in enumerate(plans, 1):
            state.switch = Switch(plan, tuner, spec.accept_risk)
            try:
                state.switch.to("B")
            except Unchanged:
                pass
            state.repeat("B")
            state.switch.back()
            count = len(plan.changes)
            log(f"screen: run {n} of {len(plans)} ({count} setting{'' if count == 1 else 's'})")
    finally:
        state.switch.back()
    return _by_metric(state, spec.params)


def _by_metric(state: ab.Measuring, params: Params) -> Measured:
    """Every run's values of every metric, in the order measured."""
    found: Measured = {}
    for key, (workload, target) in state.measured["B"].items():
        rows = state.samples["B"][key]
        for name, metric in workload.metrics(params).items():
            values = [row.get(name, float("nan")) for row in rows]
            way = metric.path or workload.path
            series = Series(
                metric.unit, metric.higher_is_better, values, target.kind, way, workload.moves, workload.files
            )
            found[(workload.name, target.url, name)] = series
    return found


def _named(key: tuple[str, str, str]) -> str:
    workload, target, metric = key
    return f"{workload} @ {target} {metric}"


def _workload(metric: str) -> str:
    """`workload @ target` of a `workload @ target metric` (a target holds no space)."""
    workload, _, rest = metric.partition(" @ ")
    return f"{workload} @ {rest.split(' ', 1)[0]}"


@dataclass
class Screening:
    """optimize --screen, once the settings are proved together and the system is A again: each
    rule's own effect on the metrics the whole plan moved, measured on the interleaved run's
    files, in at least `runs` runs (0: the design's own number)."""

    settings: Plan
    tuner: Tuner
    log: Callable[[str], None]
    runs: int = 0
    found: Found = field(default_factory=Found)

    def measure(self, done: AbOutcome, base: ab.Measuring) -> None:
        moved = sorted(
            {_named((r.workload, r.target, r.metric)) for r in done.rows if r.verdict in ("better", "worse")}
        )
        self.found = screen(self.settings, moved, base, self.tuner, self.log, self.runs)
