"""compare's result: each result file against the first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nastune import wire
from nastune.wire import Verdict


@dataclass
class CompareOutcome:
    before: Path | str  # a result file, or what stands for one ("baseline NAME")
    after: Path | str
    rows: list[Verdict]
    notes: list[str]


def summary(done: list[CompareOutcome]) -> wire.Compare:
    return wire.Compare(
        comparisons=[wire.Compared(before=str(c.before), after=str(c.after), rows=c.rows, notes=c.notes) for c in done]
    )
