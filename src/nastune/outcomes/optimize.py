"""What optimize ends with: its outcome, and the plan's settings measured a second way,
interleaved (A without them, B with them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class Interleaved:
    """The plan's settings measured a second way: with and without them in random alternation
    (its one-off actions stay done on both sides), which drift cannot fool."""

    rows: list[Verdict]
    notes: list[str] = field(default_factory=list)
    pairs: int = 0
    seconds: float = 0.0
    switch_seconds: float = 0.0
    refused: list[str] = field(default_factory=list)
    stopped: str = ""  # why the interleaved run ended early, if it did
    runs: list[ResultSet] = field(default_factory=list)  # A's and B's results (for the report)
    withheld: list[str] = field(default_factory=list)  # the metrics B made worse: the settings not applied again
    screened: list[Screened] = field(default_factory=list)  # --screen: each rule's own effect
    design: wire.Design | None = None  # and the runs it was estimated from
    sums: list[wire.Together] = field(default_factory=list)  # the plan's gain beside its rules' own, by metric
    unseen: float | None = None  # the smallest effect the screening finds 8 times in 10
    screen_runs: int = 0  # the runs it measured
    idle: list[str] = field(default_factory=list)  # the rules shown to help less than MARGIN
    dropped: bool = False  # and those were left off (--keep-only, or the operator's yes)
    margin: float = MARGIN

    def summary(self) -> wire.Interleaved:
        return wire.Interleaved(
            rows=self.rows,
            notes=self.notes,
            pairs=self.pairs,
            seconds=round(self.seconds, 1),
            switch_seconds=round(self.switch_seconds, 1),
            refused=self.refused,
            stopped=self.stopped,
            screened=self.screened,
            design=self.design,
            sums=self.sums,
            unseen=self.unseen,
            margin=self.margin,
            idle=self.idle,
            dropped=self.dropped,
        )
