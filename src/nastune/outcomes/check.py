"""A check's result: today's findings, each setting of the last applied plan read back, and a
baseline's workloads measured again."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from nastune import wire
from nastune.rules.model import Finding
from nastune.wire import Verdict


@dataclass
class CheckOutcome:
    findings: list[Finding]
    journal: str | None  # the last applied plan's journal, when there is one
    settings: dict[str, bool] = field(default_factory=dict)  # each journaled setting: still as applied
    drift: list[wire.Drift] = field(default_factory=list)  # each setting no longer as applied
    baseline: str | None = None
    rows: list[Verdict] = field(default_factory=list)  # the benchmark against the baseline
    notes: list[str] = field(default_factory=list)
    at: float = field(default_factory=time.time)

    @property
    def regressed(self) -> list[Verdict]:
        return [r for r in self.rows if r.verdict == "worse"]

    @property
    def ok(self) -> bool:
        return not self.drift and not self.regressed

    def summary(self) -> wire.Check:
        return wire.Check(
            ok=self.ok,
            journal=self.journal,
            drift=self.drift,
            findings=[wire.Flagged(rule=f.rule, severity=f.severity.name, target=f.target) for f in self.findings],
            baseline=self.baseline,
            rows=self.rows,
            notes=self.notes,
        )
