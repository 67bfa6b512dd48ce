"""What to keep once each rule's own effect is estimated (`optimize --screen`): a rule is offered
for removal only when its effect is shown to be small, its interval below MARGIN on every metric
the whole plan moved (an equivalence test, not a verdict of "~": absence of evidence is not
evidence of absence); a rule with no verdict either way is not resolved and stays, its interval
shown. Where the plan's gain on a metric is more than its rules' own effects add up to (an effect
of rules together, or effects too small to resolve one by one), no rule that can act on that
metric is offered. The screening also says how large an effect it could have missed."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from nastune import wire
from nastune.report import tables
from nastune.stats.compare import NOISE_FLOOR
from nastune.stats.factorial import Together
from nastune.stats.runs import Row

MARGIN = NOISE_FLOOR  # an own effect shown below this on every moved metric is small enough to drop
STANDINGS = ("helped", "small", "unresolved", "no verdict")


def _bound(row: Row) -> float:
    """How much the rule could help this metric at most: its interval's end on the good side
    (inf where it has no interval)."""
    low, high = row.result.change_ci
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.inf
    return high if row.higher_is_better else -low


@dataclass
class Screened:
    """One rule's own effect: its verdicts (the runs without its settings against those with
    them) on the metrics the plan moved, or why it has none; and why it stays though it is
    shown small, if it does."""

    rule: str
    changes: int
    rows: list[Row] = field(default_factory=list)
    stopped: str = ""
    kept_for: str = ""

    @property
    def standing(self) -> str:
        """helped (better on a metric), small (at most MARGIN on every one), unresolved
        (neither: more runs would tell), or no verdict (not measured)."""
        if self.stopped or not self.rows:
            return "no verdict"
        if any(r.result.verdict == "better" for r in self.rows):
            return "helped"
        return "small" if all(_bound(r) < MARGIN for r in self.rows) else "unresolved"

    @property
    def offered(self) -> bool:
        """Offered for removal: shown small, and no gain left unexplained on its path."""
        return self.standing == "small" and not self.kept_for

    def lines(self) -> list[str]:
        """The rule's own effect, in words."""
        head = f"{self.rule} ({self.changes} change{'s' if self.changes > 1 else ''}) on its own"
        standing = self.standing
        if standing == "no verdict":
            return [f"{head}: no verdict, {self.stopped or 'nothing measured'}"]
        if standing == "helped":
            return [f"{head}: {line}" for line in tables.moved(self.rows)]
        widest = max(self.rows, key=_bound)
        low, high = widest.result.change_ci
        where = f"{widest.workload} @ {widest.target}" + ("" if widest.metric == widest.unit else f" {widest.metric}")
        if standing == "small":
            said = f"at most {_bound(widest):+.1%} on every metric the plan moved (margin {MARGIN:.0%})"
            return [f"{head}: {said}" + (f"; kept: {self.kept_for}" if self.kept_for else "")]
        return [f"{head}: not resolved, could be anywhere from {low:+.0%} to {high:+.0%} ({where}); kept"]

    def summary(self) -> wire.Screened:
        return wire.Screened(
            rule=self.rule,
            changes=self.changes,
            rows=[r.verdict() for r in self.rows],
            stopped=self.stopped,
            standing=self.standing,
            kept_for=self.kept_for,
        )


@dataclass
class Sum:
    """A metric the plan moved: the whole plan's effect on it beside the sum of its rules' own
    effects, and the rules whose settings can act on it."""

    key: str  # workload @ target metric
    together: Together
    reaches: list[str]

    def line(self) -> str:
        t = self.together
        return (
            f"{self.key}: {t.bundle:+.0%} with every rule, of which their own effects explain {t.own:+.0%}: "
            "an effect of rules together, or effects too small to resolve one by one"
        )

    def summary(self) -> wire.Together:
        t = self.together
        return wire.Together(
            metric=self.key,
            bundle=t.bundle,
            own=t.own,
            rest=t.rest,
            rest_ci=t.rest_ci,
            p=t.p,
            unexplained=t.unexplained(),
            reaches=self.reaches,
        )


def decide(screened: list[Screened], sums: list[Sum]) -> tuple[list[str], list[str]]:
    """The rules to keep and those to offer for removal. A rule shown small stays where the
    plan's gain on a metric its settings reach is unexplained by the rules one by one; and none
    is offered when every rule would be (the plan moved something, and its rules did it together)."""
    for s in screened:
        unexplained = [m for m in sums if m.together.unexplained() and s.rule in m.reaches]
        if s.standing == "small" and unexplained:
            m = unexplained[0]
            s.kept_for = f"the plan's {m.together.bundle:+.0%} on {m.key} is not explained by the rules one by one"
    offered = [s.rule for s in screened if s.offered]
    kept = [s.rule for s in screened if not s.offered]
    return (kept, offered) if kept else ([s.rule for s in screened], [])


def unseen_line(unseen: float | None, runs: int) -> str:
    """What the screening could miss, and how to resolve smaller effects."""
    if unseen is None:
        return ""
    return (
        f"effects under {unseen:.0%} could go unseen here (the smallest this screening finds 8 times in 10, at "
        f"the spread it measured); --screen-runs {2 * runs} resolves smaller ones"
    )
