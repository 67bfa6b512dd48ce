"""What optimize ends with: its outcome, and the plan's settings measured a second way,
interleaved (A without them, B with them)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from nastune import wire
from nastune.bench.results import ResultSet
from nastune.outcomes.screen import MARGIN, Screened
from nastune.tune.plan import Plan
from nastune.wire import Verdict


class OptimizeOutcome(wire.Optimize):
    """What optimize ends with: compare.json (wire.Optimize: the verdicts, the interleaved run, the
    metrics left as they were), and beside it what the console and the report say of it."""

    rows: list[Verdict] = Field(default_factory=list)  # interleaved flow: the one-off actions' before/after
    notes: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)
    interleaved: Interleaved | None = None
    flow: Literal["interleaved", "before-after"] = "interleaved"
    report: Path = Field(exclude=True)
    plan: Plan = Field(exclude=True)  # the changes left applied
    skipped: list[str] = Field(default_factory=list, exclude=True)
    journal: str | None = Field(None, exclude=True)  # None: nothing left applied
    undo: str = Field("", exclude=True)  # the command that rolls the plan back ("": nothing to roll back)
    site: str = Field("", exclude=True)  # the NAS, as messages name it
    persisted: bool = Field(False, exclude=True)
    persisting: str | None = Field(None, exclude=True)  # the command that makes the settings last (None: not needed)
    retry: str = Field("", exclude=True)  # the command that applies the withheld settings all the same
    keeping: str = Field("", exclude=True)  # the commands that leave on only the settings whose own effect helped


class Interleaved(wire.Interleaved):
    """The plan's settings measured a second way: with and without them in random alternation
    (its one-off actions stay done on both sides), which drift cannot fool. What compare.json
    holds of it (wire.Interleaved), and what it leaves out: A's and B's results, the metrics B made
    worse and the screening's number of runs."""

    notes: list[str] = Field(default_factory=list)
    pairs: int = 0
    seconds: float = 0.0
    switch_seconds: float = 0.0
    refused: list[str] = Field(default_factory=list)
    stopped: str = ""
    screened: list[Screened] = Field(default_factory=list)  # --screen: each rule's own effect
    margin: float = MARGIN
    runs: list[ResultSet] = Field(default_factory=list, exclude=True)  # A's and B's results (for the report)
    withheld: list[str] = Field(default_factory=list, exclude=True)  # the metrics B made worse: not applied again
    screen_runs: int = Field(0, exclude=True)  # the runs the screening measured
