"""What optimize ends with: its outcome as the console and the report show it, and the plan's
settings measured a second way, interleaved (A without them, B with them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nastune import wire
from nastune.bench.results import ResultSet
from nastune.jobs import screen as screening
from nastune.jobs.offer import Consent
from nastune.jobs.screen import Screened
from nastune.stats.runs import Row
from nastune.tune.plan import Plan


@dataclass
class OptimizeOutcome:
    rows: list[Row]
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

    rows: list[Row]
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
    idle: list[str] = field(default_factory=list)  # the rules whose own effect helped nothing measured
    dropped: bool = False  # and those were left off (--keep-only, or the operator's yes)

    def keep(
        self, settings: Plan, path: Path, keep_only: bool, consent: Consent | None, log: Callable[[str], None]
    ) -> Plan:
        """The settings to apply after screening: all of them, or (`keep_only`, or the operator's
        yes) those of the rules whose own effect helped, which `path` (keep.json) holds either way."""
        kept, self.idle = screening.idle(self.screened)
        if not self.idle:
            return settings
        helped = screening.without(settings, self.idle)
        path.write_text(helped.to_json() + "\n")
        self.dropped = keep_only or bool(consent and consent.keep(kept, self.idle))
        if self.dropped:
            note = f"left off, as their own effect helped nothing measured: {', '.join(self.idle)}"
        else:
            note = f"helped nothing measured on their own: {', '.join(self.idle)} ({path.name} holds the rest)"
        log(f"keep: {note}")
        self.notes.append(note)
        return helped if self.dropped else settings

    def effects(self) -> list[str]:
        """Each screened rule's own effect in words, those that moved nothing on one line, then
        what the design cannot tell apart: short enough for the report's first screen."""
        said, still = [], []
        for s in self.screened:
            lines = s.lines()  # none: it moved nothing
            said += lines
            still += [] if lines else [s.rule]
        if still:
            said.append(f"no change beyond the noise on their own: {', '.join(still)}")
        return said + ([screening.CONFOUNDED] if self.design else [])

    def summary(self) -> wire.Interleaved:
        return wire.Interleaved(
            rows=[r.verdict() for r in self.rows],
            notes=self.notes,
            pairs=self.pairs,
            seconds=round(self.seconds, 1),
            switch_seconds=round(self.switch_seconds, 1),
            refused=self.refused,
            stopped=self.stopped,
            screened=[s.summary() for s in self.screened],
            design=self.design,
            idle=self.idle,
            dropped=self.dropped,
        )
