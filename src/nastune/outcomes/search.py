"""autotune's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nastune.wire import Verdict


@dataclass
class SearchOutcome:
    trials: list[dict]
    best: dict | None  # the winning configuration, None when nothing beat the base
    plan: Path | None
    rows: list[Verdict]
    notes: list[str]
    importance: dict[str, float]
    report: Path
    verdict: str
    left_out: list[str] = field(default_factory=list)
    beside: list[str] = field(default_factory=list)  # the plan's changes every trial after the base made
