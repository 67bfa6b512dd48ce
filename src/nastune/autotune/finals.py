"""autotune's end: the best few trials measured again beside the base, each applied, measured
and rolled back; a winner only if it beats the base beyond the noise floor with the statistics
`compare` uses; otherwise the rule-based plan stands if its own trial did not measure worse."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from nastune.autotune.objective import Objective
from nastune.autotune.resume import AutotuneError
from nastune.autotune.space import Space
from nastune.autotune.trials import choose_finalists, judge, rule_trial
from nastune.bench.results import ResultSet
from nastune.sites.base import Site
from nastune.stats.runs import compare_runs
from nastune.tune.plan import Plan
from nastune.wire import Verdict

if TYPE_CHECKING:
    from optuna.study import Study
    from optuna.trial import FrozenTrial

FINAL_REPEATS = 5  # at 3 against 3 a rank test cannot reach p < 0.05: the finalists get at least 5


@dataclass
class Decided:
    """What the finals found: the base measured again, each finalist's score and run beside it,
    the best trial (or the rule-based plan's, when it stands) and its verdict."""

    base: ResultSet
    again: list[tuple[float, FrozenTrial, ResultSet]]
    best: FrozenTrial
    run: ResultSet
    rows: list[Verdict]
    notes: list[str]
    winner: bool
    verdict: str
    trades: list[str]


@dataclass
class Finals:
    """The search's parts the finals use: its space and objective, the site, where it writes,
    how often and how many it measures again, and its own apply, measure and rollback."""

    space: Space
    objective: Objective
    site: Site
    out: Path
    repeats: int
    count: int
    measure: Callable[[str, int], ResultSet]
    apply: Callable[[Plan, Study], str | None]
    rollback: Callable[[str | None, Study], None]
    log: Callable[[str], None]

    def decide(self, study: Study) -> Decided:
        from optuna.trial import TrialState

        done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)) if t.number != 0]
        if not done or study.user_attrs.get("base") is None:
            raise AutotuneError("no trial was measured beside the base: nothing to choose from")
        base, again = self._again(study, choose_finalists(done, self.count, self.space.changes_anything))
        _, best, run = max(again, key=lambda x: x[0])
        rows, notes = compare_runs(base, run)
        verdict, winner = judge(rows, best, {t.workload for t in self.objective.terms})
        best, winner, verdict = self._standing(done, best, winner, verdict)
        trades = self.space.trades(best.user_attrs["config"]) if winner else []
        if trades:
            verdict += "; it trades crash safety for speed (--accept-risk durability): " + ", ".join(trades)
        return Decided(base, again, best, run, rows, notes, winner, verdict, trades)

    def _again(
        self, study: Study, finalists: list[FrozenTrial]
    ) -> tuple[ResultSet, list[tuple[float, FrozenTrial, ResultSet]]]:
        """The base measured again, then each finalist applied, measured beside it and rolled back."""
        self.log(
            f"finalists: trials {', '.join(str(t.number) for t in finalists)}, each measured again beside the base"
        )
        repeats = max(self.repeats, FINAL_REPEATS)
        base = self.measure("final-base", repeats)
        base_medians = self.objective.medians(base)
        again = []
        for t in finalists:
            journal = self.apply(self.site.stamp(self.space.plan(t.user_attrs["config"])), study)
            try:
                run = self.measure(f"final-{t.number}", repeats)
            finally:
                self.rollback(journal, study)
            score, _ = self.objective.score(run, base_medians)
            again.append((score or 0.0, t, run))
        return base, again

    def _standing(
        self, done: list[FrozenTrial], best: FrozenTrial, winner: bool, verdict: str
    ) -> tuple[FrozenTrial, bool, str]:
        """autotune never ends below `plan`: when no finalist is proven better, the rule-based
        plan stands if its own trial did not measure worse than the base."""
        rule = rule_trial(done)
        if (
            winner
            or rule is None
            or (rule.value or 0.0) < 1.0
            or not self.space.changes_anything(rule.user_attrs["config"])
        ):
            return best, winner, verdict
        verdict += (
            f"; the rule-based plan (trial {rule.number}, {rule.value:.3f}x when measured) stands, as "
            "`nastune plan` gives it"
        )
        return rule, True, verdict

    def plan(self, decided: Decided) -> Path:
        """The winner as a plan for `apply`, dated as the base it was measured beside."""
        plan = self.site.stamp(self.space.plan(decided.best.user_attrs["config"]))
        path = self.out / "best-plan.json"
        path.write_text(plan.model_copy(update={"created": decided.base.created}).to_json() + "\n")
        return path
