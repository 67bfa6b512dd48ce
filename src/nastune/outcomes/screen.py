"""`optimize --screen`'s result for each rule: its own effect (Screened), and each metric the
plan moved with the plan's gain beside its rules' own effects (a wire.Together). A rule is offered
for removal only when its effect is shown to be small: its interval below MARGIN on every metric
the whole plan moved (an equivalence test, not a verdict of "~": absence of evidence is not evidence of absence)."""

from __future__ import annotations

import math

from pydantic import Field, model_validator

from nastune import wire
from nastune.stats.compare import NOISE_FLOOR
from nastune.stats.factorial import Together
from nastune.wire import Verdict

MARGIN = NOISE_FLOOR  # an own effect shown below this on every moved metric is small enough to drop


def bound(row: Verdict) -> float:
    """How much the rule could help this metric at most: its interval's end on the good side
    (inf where it has no interval)."""
    low, high = row.change_ci
    if not (math.isfinite(low) and math.isfinite(high)):
        return math.inf
    return high if row.higher_is_better else -low


class Screened(wire.Screened):
    """One rule's own effect: its verdicts (the runs without its settings against those with
    them) on the metrics the plan moved, or why it has none; its standing, judged from them when
    it is made; and why it stays though it is shown small, if it does."""

    rows: list[Verdict] = Field(default_factory=list)
    stopped: str = ""
    standing: wire.Standing = "no verdict"

    @model_validator(mode="after")
    def _judged(self) -> Screened:
        """helped (better on a metric), small (at most MARGIN on every one), unresolved
        (neither: more runs would tell), or no verdict (not measured)."""
        if self.stopped or not self.rows:
            self.standing = "no verdict"
        elif any(r.verdict == "better" for r in self.rows):
            self.standing = "helped"
        else:
            self.standing = "small" if all(bound(r) < MARGIN for r in self.rows) else "unresolved"
        return self

    @property
    def offered(self) -> bool:
        """Offered for removal: shown small, and no gain left unexplained on its path."""
        return self.standing == "small" and not self.kept_for


def summed(key: str, t: Together, reaches: list[str]) -> wire.Together:
    """A metric the plan moved (`key`: workload @ target metric): the whole plan's effect on it
    beside the sum of its rules' own effects, and the rules whose settings can act on it."""
    return wire.Together(
        metric=key,
        bundle=t.bundle,
        own=t.own,
        rest=t.rest,
        rest_ci=t.rest_ci,
        p=t.p,
        unexplained=t.unexplained(),
        reaches=reaches,
    )
