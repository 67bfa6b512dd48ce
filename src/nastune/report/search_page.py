"""autotune's report page: the winner's verdicts beside the base, how the search converged,
every trial across the tunables (parallel coordinates), and each tunable's importance."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nastune.bench.results import ResultSet
from nastune.report import html
from nastune.wire import Verdict

if TYPE_CHECKING:
    from optuna.study import Study


def charts(study: Study) -> list[dict[str, str]]:
    """Optuna's own plotly figures: the best score over trials, and the trials in parallel
    coordinates (needs two completed trials)."""
    from optuna.visualization import plot_optimization_history, plot_parallel_coordinate

    figures = [("convergence", plot_optimization_history(study, target_name="score (x the base)"))]
    if sum(1 for t in study.trials if t.value is not None) >= 2:
        figures.append(("trials", plot_parallel_coordinate(study, target_name="score (x the base)")))
    return [{"id": f"search-{name}", "json": figure.to_json()} for name, figure in figures]


def render(
    study: Study,
    base: ResultSet,
    best: ResultSet,
    rows: list[Verdict],
    notes: list[str],
    importance: dict[str, float],
    verdict: str,
    trades: list[str],
    beside: list[str],
    out: Path,
) -> Path:
    base = base.model_copy(update={"label": "base"})
    best = best.model_copy(update={"label": "best trial"})
    search = html.Search(verdict, trades, beside, charts(study), importance)
    return html.render(html.Page([base, best], rows, notes, "nastune autotune", search=search), out)
