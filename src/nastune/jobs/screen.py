"""Which of a plan's changes bought what (`optimize --screen`): once the settings are proved
together, each rule's settings alone are interleaved against the system without any of them
(A), on the workloads the whole plan moved, so an operator can keep what helps and justify each
change, or leave one out (an MTU the switch does not allow) knowing what it costs.

Each rule gets SCREEN_PAIRS pairs, the least a verdict at 5% needs from a clear change; a
rule whose changes interact with another's (TCP buffers and the MTU) can show less alone than
in the plan, which the notes say."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from nastune.jobs import ab
from nastune.report import tables
from nastune.sites.base import Site
from nastune.sites.tuner import Tuner
from nastune.stats.runs import Row
from nastune.tune.plan import Plan, PlannedChange

SCREEN_PAIRS = 3


@dataclass
class Screened:
    """One rule's settings measured alone: its verdicts, or why it has none."""

    rule: str
    changes: int
    rows: list[Row] = field(default_factory=list)
    stopped: str = ""

    def lines(self) -> list[str]:
        """The rule alone, in words: each metric it moved, or that none moved, or why it stopped."""
        head = f"{self.rule} alone ({self.changes} change{'s' if self.changes > 1 else ''})"
        if self.stopped:
            return [f"{head}: no verdict, {self.stopped}"]
        moved = tables.moved(self.rows)
        return [f"{head}: {line}" for line in moved] or [f"{head}: no change beyond the noise"]

    @property
    def idle(self) -> bool:
        """Measured, and better on no metric: its settings cost something (a restart, a setting a
        reboot undoes, one more non-default) for nothing seen. No verdict at all is not idle."""
        return not self.stopped and bool(self.rows) and all(r.result.verdict != "better" for r in self.rows)

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "changes": self.changes,
            "rows": [r.to_json() for r in self.rows],
            "stopped": self.stopped,
        }


def by_rule(settings: Plan) -> dict[str, list[PlannedChange]]:
    groups: dict[str, list[PlannedChange]] = {}
    for change in settings.changes:
        groups.setdefault(change.rule or "(the plan's own)", []).append(change)
    return groups


def idle(screened: list[Screened]) -> tuple[list[str], list[str]]:
    """The rules worth keeping and those to offer for removal; none offered unless some rule is
    kept (a bundle that helped while no rule alone did is kept whole: its rules act together)."""
    kept = [s.rule for s in screened if not s.idle]
    return (kept, [s.rule for s in screened if s.idle]) if kept else ([s.rule for s in screened], [])


def without(settings: Plan, rules: list[str]) -> Plan:
    """`settings` less the changes of `rules` (as by_rule groups them)."""
    left = [c for rule, changes in by_rule(settings).items() if rule not in rules for c in changes]
    return settings.model_copy(update={"changes": [c for c in settings.changes if c in left]})


def screen(
    settings: Plan, moved: list[str], spec: ab.AbSpec, site: Site, tuner: Tuner, log: Callable[[str], None]
) -> list[Screened]:
    """Each rule's settings alone against none of them, on the `moved` workloads; nothing when
    the plan is one rule's (the whole plan's verdict is that rule's) or nothing moved."""
    groups = by_rule(settings)
    if len(groups) < 2 or not moved:
        return []
    found = []
    for rule, changes in groups.items():
        log(f"screen: {rule} alone ({len(changes)} changes) on {', '.join(moved)}")
        alone = ab.AbSpec(
            settings.model_copy(update={"changes": changes}),
            moved,
            spec.params,
            spec.out / "screen" / rule,
            spec.target,
            SCREEN_PAIRS,
            SCREEN_PAIRS,
            accept_risk=spec.accept_risk,
        )
        try:
            found.append(Screened(rule, len(changes), ab.run(alone, site, tuner, log).rows))
        except ab.Unchanged:
            found.append(Screened(rule, len(changes), stopped="its settings already read as planned"))
        except ab.AbError as e:
            found.append(Screened(rule, len(changes), stopped=str(e)))
    return found
