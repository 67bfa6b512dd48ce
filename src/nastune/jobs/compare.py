"""compare's workflow: each result file against the first, as verdict rows."""

from __future__ import annotations

from pathlib import Path

from nastune.bench.results import ResultSet
from nastune.stats.runs import Incomparable, compare_interleaved, compare_runs, interleaved
from nastune.wire import Compared, Verdict


def run(paths: list[Path], runs: list[ResultSet], force: bool, noise_floor: float) -> list[Compared]:
    """Incomparable names the two files when their workloads' parameters differ (and not `force`)."""
    done = []
    for path, other in zip(paths[1:], runs[1:]):
        try:
            rows, notes = _compared(runs[0], other, force, noise_floor)
        except Incomparable as e:
            raise Incomparable(f"{paths[0]} vs {path}: {e}") from None
        done.append(Compared(before=str(paths[0]), after=str(path), rows=rows, notes=notes))
    return done


def _compared(a: ResultSet, b: ResultSet, force: bool, noise_floor: float) -> tuple[list[Verdict], list[str]]:
    """Two runs' rows and notes; the A and B of one interleaved run as that run judged them."""
    run = interleaved(a, b)
    if run is None:
        return compare_runs(a, b, force=force, noise_floor=noise_floor)
    rows, notes = compare_interleaved(a, b, run, force)
    notes.append(
        f"the A and B of one interleaved run: each B compared with its own pair's A, at the run's alpha "
        f"{run.alpha:.4f} per look and noise floor {run.noise_floor:.0%}, as the run itself judged them"
    )
    notes += [f"{key}: left out, as in the run: its A/A control found A unsteady" for key in run.refused]
    return rows, notes
