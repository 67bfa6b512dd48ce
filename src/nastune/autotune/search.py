"""autotune: a search of the tunables with real measurements, through the tuning engine.

Every trial is a configuration applied with the journal, proved (verify), measured and rolled
back before the next; a trial whose apply fails is recorded as failed and never left applied; a
rollback that fails stops the search and names the command that finishes it. Trial 0 is the
system as it is (the base every score is a ratio to), trial 1 the rule-based plan, so the search
cannot end below what `plan` gives; every trial but the base also makes the plan's changes no
tunable searches, so the search looks on top of the plan rather than without its other changes.
The sampler is Optuna's TPE (multivariate, seeded): its GP sampler needs PyTorch, far too heavy a
dependency for a tuning tool, and TPE is its advice for budgets of tens of trials. A trial in the
bottom quarter after its first repeat is pruned. The study lives in SQLite in the output
directory, so a killed search resumes (`--resume`), first rolling back whatever the killed trial
had applied. At the end the best few, and the rule-based plan, are measured again beside the base;
the winner must beat the base beyond the noise floor with the statistics `compare` uses;
otherwise the rule-based plan stands if its trial did not measure worse, or the answer is: keep
what you have."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.progress import Progress

from nastune import wire
from nastune.autotune.finals import Finals
from nastune.autotune.objective import Objective
from nastune.autotune.resume import STUDY, AutotuneError
from nastune.autotune.space import Space
from nastune.autotune.trials import (
    CURRENT,
    RULE,
    best_so_far,
    merge,
    param_importance,
    sampler,
)
from nastune.bench import runner
from nastune.bench.results import ResultSet
from nastune.outcomes.search import SearchOutcome
from nastune.progress import Lines, display
from nastune.remote.agent import NasError
from nastune.report.search_page import render
from nastune.risks import Risks
from nastune.sites.base import Site
from nastune.tune.knobs import Config
from nastune.tune.plan import Plan
from nastune.tune.system import Stranded, TuneError

if TYPE_CHECKING:
    from collections.abc import Callable

    from optuna.pruners import BasePruner
    from optuna.samplers import BaseSampler
    from optuna.study import Study
    from optuna.trial import FrozenTrial, Trial
    from rich.console import Console

    from nastune.bench.params import Params
    from nastune.sites.base import Pairs

PRUNE_PERCENTILE = 25.0


class TrialFailed(RuntimeError):
    """A trial that gave no score (a workload failed, the objective's bound was broken)."""


@dataclass
class Settings:
    budget: int
    repeats: int
    out: Path
    accept_risk: Risks
    seed: int = 0
    finalists: int = 3


class Search:
    def __init__(
        self,
        space: Space,
        objective: Objective,
        site: Site,
        params: Params,
        settings: Settings,
        console: Console,
        log: Callable[[str], None] = print,
    ) -> None:
        """`space`: the tunables bound to the site's facts (jobs/autotune.py binds it)."""
        self.space, self.objective, self.site, self.tuner = space, objective, site, site.tuner()
        self.params, self.s = params, settings
        self.console, self.log = console, log
        self.trials_dir = settings.out / "trials"
        self.measuring = 0.0  # this trial's seconds of measuring (the rest is applying and rolling back)
        self.seconds: dict[int, dict[str, float]] = {}  # per trial measured in this process (not before --resume)
        self.progress: Progress | Lines | None = None

    def make_pairs(self) -> Pairs:
        """The objective's workloads on the site, each on the target its term names."""
        return [p for target, name in self.objective.workloads for p in self.site.pairs(target, [name])]

    # the study

    def open(self, resume: bool, rule_plan: Plan) -> Study:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        db = self.s.out / "study.db"
        if resume and not db.exists():
            raise AutotuneError(f"--resume: no study in {self.s.out} (no {db.name})")
        if db.exists() and not resume:
            raise AutotuneError(f"{db} exists: continue it with --resume, or choose another --out")
        self.s.out.mkdir(parents=True, exist_ok=True)
        self.trials_dir.mkdir(exist_ok=True)
        study = optuna.create_study(
            study_name=STUDY,
            storage=f"sqlite:///{db}",
            direction="maximize",
            sampler=self.sampler(),
            pruner=self.pruner(),
            load_if_exists=resume,
        )
        shape = self.shape()
        if resume:
            if study.user_attrs.get("shape") != shape:
                raise AutotuneError(
                    f"--resume: {db} searched another space or objective ({study.user_attrs.get('shape')}); "
                    "start a new study with another --out"
                )
        else:
            study.set_user_attr("shape", shape)
            current = self.space.current()
            study.enqueue_trial(self.space.params(current), user_attrs={"origin": CURRENT, "config": current})
            rule = self.space.of_plan(rule_plan)
            study.enqueue_trial(self.space.params(rule), user_attrs={"origin": RULE, "config": rule})
        return study

    def sampler(self) -> BaseSampler:
        return sampler(self.s.seed, self.s.budget)

    def pruner(self) -> BasePruner:
        import optuna

        return optuna.pruners.PercentilePruner(PRUNE_PERCENTILE, n_startup_trials=4)

    def shape(self) -> dict:
        """What a resumed study must share with this run."""
        return {
            "tunables": {n: b.tunable.domain.describe() for n, b in self.space.bound.items()},
            "objective": [t.spec + (f":{t.metric}" if t.metric else "") for t in self.objective.terms],
            "repeats": self.s.repeats,
            "beside": self.space.described_beside(),
        }

    # trials

    def measured(self, study: Study) -> int:
        return sum(1 for t in study.trials if "infeasible" not in t.user_attrs and t.state.is_finished())

    def run(self, resume: bool, rule_plan: Plan) -> SearchOutcome:
        from optuna.trial import TrialState

        with self.tuner.hold("autotune"), display(self.console) as self.progress:
            study = self.open(resume, rule_plan)
            bar = self.progress.add_task("autotune", total=self.s.budget, completed=self.measured(study))
            asked = 0
            while self.measured(study) < self.s.budget and asked < self.s.budget * 10:
                asked += 1
                trial = study.ask()
                suggested = self.space.suggest(trial)  # every trial's parameters, as the sampler knows them
                config = trial.user_attrs.get("config", suggested)  # enqueued: its own (may be off a domain's steps)
                errors = self.space.check(config)
                if errors:  # a combination the rules forbid: told as pruned, never applied, not counted
                    trial.set_user_attr("infeasible", errors)
                    study.tell(trial, state=TrialState.PRUNED)
                    continue
                trial.set_user_attr("config", config)
                self.progress.update(bar, description=f"autotune: trial {trial.number}{best_so_far(study)}")
                self.trial(study, trial, config)
                self.progress.update(bar, completed=self.measured(study))
            self.progress.update(bar, description=f"autotune: finalists{best_so_far(study)}")
            return self.finish(study)

    def trial(self, study: Study, trial: Trial, config: Config) -> None:
        from optuna.trial import TrialState

        n, started, self.measuring = trial.number, time.monotonic(), 0.0
        plan = self.site.stamp(self.space.plan(config)) if n else Plan(changes=[])  # trial 0 is the base
        origin = trial.user_attrs.get("origin", "search")
        self.log(f"trial {n} ({origin}): {self.describe(config) if n else 'as it is'}")
        journal = None
        try:
            if plan.changes:
                journal = self.apply(plan, study)
            pairs = self.make_pairs()  # in this trial's state (an MTU moves a target's ceiling), once
            first = self.measure(f"{n}-first", 1, pairs)
            score = self.scored(first, study)
            trial.report(score, 0)
            if n > 1 and trial.should_prune():
                study.tell(trial, state=TrialState.PRUNED)
                self.log(f"trial {n}: pruned after one repeat ({score:.3f})")
                return
            rest = self.measure(f"{n}-rest", self.s.repeats - 1, pairs, warm=True) if self.s.repeats > 1 else None
            run = merge(first, rest) if rest else first
            run.save(self.trials_dir / f"{n}.json")
            if n == 0:
                study.set_user_attr("base", self.objective.medians(run))
            score = self.scored(run, study)
            study.tell(trial, score)
            self.log(f"trial {n}: {score:.3f} x the base (best so far {study.best_value:.3f})")
        except (TuneError, NasError, TrialFailed) as e:
            trial.set_user_attr("failed", str(e))
            study.tell(trial, state=TrialState.FAIL)
            self.log(f"trial {n}: failed: {e}")
        finally:
            if journal:
                self.rollback(journal, study)
            # the line tells the seconds the summary records, rounded the same way (0.549 s is not "1 s" there)
            took, measuring = round(time.monotonic() - started, 1), round(self.measuring, 1)
            self.seconds[n] = {"seconds": took, "measuring_seconds": measuring}
            self.log(f"trial {n}: {took:.0f} s, {took - measuring:.0f} s of it applying and rolling back")

    def describe(self, config: Config) -> str:
        moved = [f"{name}={value}" for name, value in sorted(config.items()) if value != self.space.bound[name].current]
        beside = [f"the plan's {len(self.space.beside)} other changes"] if self.space.beside else []
        return ", ".join(moved + beside) or "as it is"

    def apply(self, plan: Plan, study: Study) -> str | None:
        """Apply and prove a trial's plan (None: it changes nothing here); a failed apply is rolled
        back by the executor itself, and one whose rollback failed stops the search."""
        study.set_user_attr("applying", {"before": self.tuner.newest()})
        try:
            journal = self.tuner.apply(plan, self.s.accept_risk, self.log)
        except Stranded as e:
            raise AutotuneError(
                f"a trial could not be applied and its rollback failed, so the search stops rather than go on from "
                f"a changed base: {e}"
            ) from e
        study.set_user_attr("applied", journal)
        study.set_user_attr("applying", None)
        if journal is None:
            return None
        bad = self.tuner.verify(journal)
        if bad:
            self.rollback(journal, study)  # the trial fails from its base, never leaves it changed
            raise TuneError(f"the settings did not take: {', '.join(bad)}")
        return journal

    def rollback(self, journal: str | None, study: Study) -> None:
        if journal is None:
            return
        try:
            self.tuner.rollback(journal)
        except (TuneError, NasError) as e:
            raise AutotuneError(
                f"a trial could not be rolled back ({e}): the search stops; `{self.tuner.undo(journal)}` finishes it, "
                f"`nastune autotune --resume --out {self.s.out}` continues"
            ) from e
        study.set_user_attr("applied", None)

    def measure(self, name: str, repeats: int, pairs: Pairs | None = None, warm: bool = False) -> ResultSet:
        """`pairs`: the trial's targets (found again by default); `warm`: its first repeat has
        just run, so the rest needs no warm-up."""
        started = time.monotonic()
        try:
            return runner.run(
                pairs or self.make_pairs(),
                self.params,
                repeats,
                self.trials_dir / f"{name}.json",
                self.site,
                label=name,
                console=self.console,
                profile=False,
                within=self.progress,
                warm=warm,
            )
        finally:
            self.measuring += time.monotonic() - started

    def scored(self, run: ResultSet, study: Study) -> float:
        """`run`'s score as a ratio to the base; TrialFailed says why it has none."""
        base = study.user_attrs.get("base") or self.objective.medians(run)  # trial 0 is its own base
        score, why = self.objective.score(run, base)
        if score is None:
            raise TrialFailed(why)
        return score

    # the end

    def finish(self, study: Study) -> SearchOutcome:
        """The finals (autotune/finals.py), the report and autotune.json."""
        finals = Finals(
            self.space,
            self.objective,
            self.site,
            self.s.out,
            self.s.repeats,
            self.s.finalists,
            self.measure,
            self.apply,
            self.rollback,
            self.log,
        )
        d = finals.decide(study)
        plan_path = finals.plan(d) if d.winner else None
        importance = param_importance(study)
        trials = [self.trial_record(t) for t in study.trials]
        beside = self.space.described_beside()
        report = render(
            study, d.base, d.run, d.rows, d.notes, importance, d.verdict, d.trades, beside, self.s.out / "report.html"
        )
        outcome = SearchOutcome(
            trials=trials,
            best=d.best.user_attrs["config"] if d.winner else None,
            plan=str(plan_path) if plan_path else None,
            verdict=d.verdict,
            durability_trades=d.trades,
            beside=beside,
            rows=d.rows,
            notes=d.notes,
            importance=importance,
            finalists=[wire.Finalist(trial=t.number, score=s) for s, t, _ in d.again],
            report=report,
        )
        (self.s.out / "autotune.json").write_text(outcome.dumps())
        return outcome

    def trial_record(self, t: FrozenTrial) -> wire.Trial:
        return wire.Trial(
            number=t.number,
            state=t.state.name,
            value=t.value,
            config=t.user_attrs.get("config"),
            origin=t.user_attrs.get("origin", "search"),
            why=t.user_attrs.get("failed") or t.user_attrs.get("infeasible"),
            **self.seconds.get(t.number, {}),
        )
