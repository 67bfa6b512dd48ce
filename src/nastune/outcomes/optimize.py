"""What optimize ends with: its outcome, and the plan's settings measured a second way,
interleaved (A without them, B with them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from nastune import wire
from nastune.bench.results import ResultSet
from nastune.outcomes.screen import MARGIN, Screened
from nastune.tune.plan import Plan
from nastune.wire import Verdict


@dataclass
class OptimizeOutcome:
    rows: list[Verdict]
    notes: list[str]
    report: Path
    plan: Plan
    skipped: list[str]
    journal: str | None  # None: nothing left applied
    failed: list[str]
    undo: str  # the command that rolls the plan back ("": nothing to roll back)
    interleaved: Interleaved | None = None
    flow: str = "interleaved"  # interleaved: `rows` are the one-off actions' before/after verdicts only
    summary: wire.Optimize | None = None  # what compare.json holds and `optimize --json` prints
    site: str = ""  # the NAS, as messages name it
    persisted: bool = False
    persisting: str | None = None  # the command that makes the settings survive a reboot (None: not needed)
    withheld: list[str] = field(default_factory=list)  # metrics the settings made worse: left as they were
    retry: str = ""  # the command that applies the withheld settings all the same
    keeping: str = ""  # the commands that leave on only the settings whose own effect helped (keep.json)


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
