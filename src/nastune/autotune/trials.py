"""What autotune reads from a study's trials and runs: their origins, the best so far, the
finalists, the sampler, and the repeats of a trial measured in two parts merged into one run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nastune.bench.results import ResultSet
from nastune.wire import Verdict

if TYPE_CHECKING:
    from collections.abc import Callable

    from optuna.samplers import BaseSampler
    from optuna.study import Study
    from optuna.trial import FrozenTrial

CURRENT, RULE = "current settings", "rule-based plan"  # the origins of trials 0 and 1


def named(row: Verdict) -> str:
    """A row as the objective names it: TARGET:WORKLOAD (smb:seq-read), a path's as path:..."""
    kind = row.target.split("://", 1)[0] if "://" in row.target else "path"
    return f"{kind}:{row.workload}"


def best_so_far(study: Study) -> str:
    from optuna.trial import TrialState

    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    best = max(done, key=lambda t: t.value or 0.0, default=None)
    return f", best so far {best.value:.3f}x (trial {best.number})" if best else ""


def rule_trial(done: list[FrozenTrial]) -> FrozenTrial | None:
    return next((t for t in done if t.user_attrs.get("origin") == RULE), None)


def choose_finalists(done: list, n: int, changes_anything: Callable[[dict], bool]) -> list:
    """The `n` best trials, and the rule-based plan beside them when it is not one of them (and
    changes something): what the search found displaces the plan only by measuring better beside it."""
    best = sorted(done, key=lambda t: -t.value)[:n]
    rule = rule_trial(done)
    if rule is not None and rule.number not in {t.number for t in best} and changes_anything(rule.user_attrs["config"]):
        best.append(rule)
    return best


def sampler(seed: int, budget: int) -> BaseSampler:
    """autotune's sampler (bench/autotune_eval.py replays the same one on a recorded grid)."""
    import optuna

    return optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=max(3, budget // 4))


def merge(a: ResultSet, b: ResultSet) -> ResultSet:
    """One run of `a`'s and `b`'s repeats of the same workloads."""
    results = []
    for ra in a.results:
        rb = next((r for r in b.results if r.key == ra.key), None)
        if rb is None or rb.failed or ra.failed:
            results.append(rb if rb is not None and rb.failed else ra)
            continue
        metrics = {
            name: m.model_copy(update={"values": m.values + rb.metrics[name].values})
            for name, m in ra.metrics.items()
            if name in rb.metrics
        }
        results.append(ra.model_copy(update={"metrics": metrics}))
    return a.model_copy(update={"results": results})


def param_importance(study: Study) -> dict[str, float]:
    """Each tunable's share of the objective's variation (Optuna's PED-ANOVA: fANOVA needs
    scikit-learn); empty with fewer than two distinct completed trials."""
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator

    try:
        found = optuna.importance.get_param_importances(study, evaluator=PedAnovaImportanceEvaluator())
    except (RuntimeError, ValueError, ZeroDivisionError):
        return {}
    return {name: round(float(v), 3) for name, v in found.items()}


def judge(rows: list[Verdict], trial: FrozenTrial, wanted: set[str]) -> tuple[str, bool]:
    """The search's verdict on its best trial measured again beside the base: a winner only when
    some wanted workload is better and none worse."""
    mine = [r for r in rows if r.workload in wanted]
    worse = [r for r in mine if r.verdict == "worse"]
    better = [r for r in mine if r.verdict == "better"]
    if better and not worse:
        gains = ", ".join(f"{named(r)} {r.change:+.1%}" for r in better)
        return f"trial {trial.number} beats the base beyond the noise floor ({gains})", True
    why = "it is worse on " + ", ".join(map(named, worse)) if worse else "no gain beyond the noise floor"
    return (
        f"keep the current settings: the best (trial {trial.number}) measured again beside the base: {why}",
        False,
    )
