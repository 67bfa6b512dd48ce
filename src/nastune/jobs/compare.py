"""compare's workflow: each result file against the first, as verdict rows and a wire summary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nastune import wire
from nastune.bench.results import ResultSet
from nastune.stats.runs import Incomparable, Row, compare_runs


@dataclass
class Comparison:
    before: Path | str  # a result file, or what stands for one ("baseline NAME")
    after: Path | str
    rows: list[Row]
    notes: list[str]


def run(paths: list[Path], runs: list[ResultSet], force: bool, noise_floor: float) -> list[Comparison]:
    """Incomparable names the two files when their workloads' parameters differ (and not `force`)."""
    done = []
    for path, other in zip(paths[1:], runs[1:]):
        try:
            rows, notes = compare_runs(runs[0], other, force=force, noise_floor=noise_floor)
        except Incomparable as e:
            raise Incomparable(f"{paths[0]} vs {path}: {e}") from None
        done.append(Comparison(paths[0], path, rows, notes))
    return done


def summary(done: list[Comparison]) -> wire.Compare:
    return wire.Compare(
        comparisons=[
            wire.Comparison(before=str(c.before), after=str(c.after), rows=[r.to_json() for r in c.rows], notes=c.notes)
            for c in done
        ]
    )
