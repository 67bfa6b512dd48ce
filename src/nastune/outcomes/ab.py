"""An interleaved A/B run's result (`nastune ab`, and optimize's interleaved run)."""

from __future__ import annotations

from dataclasses import dataclass, field

from nastune import wire
from nastune.bench.results import ResultSet
from nastune.wire import Verdict


@dataclass
class AbOutcome:
    rows: list[Verdict]
    notes: list[str]
    pairs: int
    seconds: float
    switch_seconds: float
    decided: bool
    refused: list[str] = field(default_factory=list)  # metrics whose A/A control disagreed with A
    runs: list[ResultSet] = field(default_factory=list)  # A's results and B's

    def summary(self) -> wire.Ab:
        return wire.Ab(
            rows=self.rows,
            notes=self.notes,
            refused=self.refused,
            decided=self.decided,
            pairs=self.pairs,
            seconds=round(self.seconds, 1),
            switch_seconds=round(self.switch_seconds, 1),
        )
