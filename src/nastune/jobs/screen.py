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

from nastune import wire
from nastune.bench.params import Params
from nastune.jobs import ab
from nastune.jobs.switch import AbError, Switch, Unchanged
from nastune.protocols.client import BenchError
from nastune.remote.agent import NasError
from nastune.report import tables
from nastune.sites.tuner import Tuner
from nastune.stats import factorial
from nastune.stats.runs import Row
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import TuneError

CONFOUNDED = (
    "each rule's own effect is estimated with the other rules' settings on in half its runs and off in the "
    "other half: an effect that needs two rules together (TCP buffers with the MTU) is spread over both, or "
    "shows in a third"
)


@dataclass
class Screened:
    """One rule's own effect: its verdicts (the runs without its settings against those with
    them), or why it has none."""

    rule: str
    changes: int
    rows: list[Row] = field(default_factory=list)
    stopped: str = ""

    def lines(self) -> list[str]:
        """The rule's own effect, in words: each metric it moved, or why it has no verdict (none:
        it moved nothing, which Interleaved.effects says of all such rules at once)."""
        head = f"{self.rule} ({self.changes} change{'s' if self.changes > 1 else ''}) on its own"
        if self.stopped:
            return [f"{head}: no verdict, {self.stopped}"]
        return [f"{head}: {line}" for line in tables.moved(self.rows)]

    @property
    def idle(self) -> bool:
        """Measured, and better on no metric: its settings cost something (a restart, a setting a
        reboot undoes, one more non-default) for nothing seen. No verdict at all is not idle."""
        return not self.stopped and bool(self.rows) and all(r.result.verdict != "better" for r in self.rows)

    def summary(self) -> wire.Screened:
        return wire.Screened(
            rule=self.rule, changes=self.changes, rows=[r.verdict() for r in self.rows], stopped=self.stopped
        )


def by_rule(settings: Plan) -> dict[str, list[PlannedChange]]:
    groups: dict[str, list[PlannedChange]] = {}
    for change in settings.changes:
        groups.setdefault(change.rule or "(the plan's own)", []).append(change)
    return groups


def idle(screened: list[Screened]) -> tuple[list[str], list[str]]:
    """The rules worth keeping and those to offer for removal; none offered unless some rule is
    kept (a bundle that helped while no rule's own effect did is kept whole: its rules act together)."""
    kept = [s.rule for s in screened if not s.idle]
    return (kept, [s.rule for s in screened if s.idle]) if kept else ([s.rule for s in screened], [])


def without(settings: Plan, rules: list[str]) -> Plan:
    """`settings` less the changes of `rules` (as by_rule groups them)."""
    left = [c for rule, changes in by_rule(settings).items() if rule not in rules for c in changes]
    return settings.model_copy(update={"changes": [c for c in settings.changes if c in left]})


def screen(
    settings: Plan, moved: list[str], base: ab.Measuring, tuner: Tuner, log: Callable[[str], None]
) -> tuple[list[Screened], wire.Design | None]:
    """Each rule's own effect on the `moved` workloads (each `workload @ target` whose metric the
    whole plan moved), measured on the files `base` (the interleaved run, in A) set up, and the
    design's runs as measured; nothing when the plan is one rule's (the whole plan's verdict is
    that rule's) or nothing moved."""
    groups = by_rule(settings)
    if len(groups) < 2 or not moved:
        return [], None
    rules = list(groups)
    runs = factorial.design(len(rules), _spare(base, moved))
    log(f"screen: {len(rules)} rules in {len(runs)} runs, each with the settings of about half of them")
    order = list(range(len(runs)))
    random.Random(base.spec.seed).shuffle(order)  # drift spreads over every estimate instead of one
    plans = [without(settings, [r for r, level in zip(rules, runs[i]) if level < 0]) for i in order]
    try:
        measured = _in_turn(plans, moved, base, tuner, log)
    except (AbError, BenchError, TuneError, NasError) as e:
        return [Screened(rule, len(groups[rule]), stopped=f"the screening stopped: {e}") for rule in rules], None
    values = {key: [v[order.index(i)] for i in range(len(runs))] for key, (_, _, v) in measured.items()}
    pairs = {key: _pairs(base, key) for key in measured}
    design = wire.Design(
        rules=rules,
        runs=runs.tolist(),
        order=order,
        values={_named(k): v for k, v in values.items()},
        pairs={_named(k): list(p) for k, p in pairs.items()},
    )
    rows = [
        [Row(*key, unit, higher, None, c) for c in factorial.effects(runs, values[key], higher, pairs=pairs[key])]
        for key, (unit, higher, _) in measured.items()
    ]
    return [Screened(rule, len(groups[rule]), [row[j] for row in rows]) for j, rule in enumerate(rules)], design


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


# (workload, target, metric): its unit, whether higher is better, and its value in each run
Measured = dict[tuple[str, str, str], tuple[str, bool, list[float]]]


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
            found[(workload.name, target.url, name)] = (metric.unit, metric.higher_is_better, values)
    return found


def _named(key: tuple[str, str, str]) -> str:
    workload, target, metric = key
    return f"{workload} @ {target} {metric}"


@dataclass
class Screening:
    """optimize --screen, once the settings are proved together and the system is A again: each
    rule's own effect on the workloads the whole plan moved, measured on the interleaved run's files."""

    settings: Plan
    tuner: Tuner
    log: Callable[[str], None]
    found: tuple[list[Screened], wire.Design | None] = ([], None)

    def measure(self, done: ab.AbOutcome, base: ab.Measuring) -> None:
        moved = sorted({f"{r.workload} @ {r.target}" for r in done.rows if r.result.verdict in ("better", "worse")})
        self.found = screen(self.settings, moved, base, self.tuner, self.log)
