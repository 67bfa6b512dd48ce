"""What optimize ends with: its outcome as the console and the report show it, and the plan's
settings measured a second way, interleaved (A without them, B with them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nastune import wire
from nastune.bench.results import ResultSet
from nastune.jobs import keeping
from nastune.jobs import screen as screening
from nastune.jobs.keeping import Screened, Sum
from nastune.jobs.offer import Consent
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
    sums: list[Sum] = field(default_factory=list)  # the plan's gain beside its rules' own, by metric
    unseen: float | None = None  # the smallest effect the screening finds 8 times in 10
    screen_runs: int = 0  # the runs it measured
    idle: list[str] = field(default_factory=list)  # the rules shown to help less than keeping.MARGIN
    dropped: bool = False  # and those were left off (--keep-only, or the operator's yes)
    margin: float = keeping.MARGIN

    def screening(self, found: screening.Found) -> None:
        self.screened, self.design, self.sums = found.screened, found.design, found.sums
        self.unseen, self.screen_runs = found.unseen, found.runs

    def keep(
        self, settings: Plan, path: Path, keep_only: bool, consent: Consent | None, log: Callable[[str], None]
    ) -> Plan:
        """The settings to apply after screening: all of them, or (`keep_only`, or the operator's
        yes) those of the rules not shown to help less than keeping.MARGIN, which `path`
        (keep.json) holds either way."""
        kept, self.idle = keeping.decide(self.screened, self.sums)
        if not self.idle:
            return settings
        helped = screening.without(settings, self.idle)
        path.write_text(helped.to_json() + "\n")
        self.dropped = keep_only or bool(consent and consent.keep(kept, self.idle))
        shown = f"shown below {keeping.MARGIN:.0%} on every metric moved"
        if self.dropped:
            note = f"left off, as their own effect is {shown}: {', '.join(self.idle)}"
        else:
            note = f"{shown} on their own: {', '.join(self.idle)} ({path.name} holds the rest)"
        log(f"keep: {note}")
        self.notes.append(note)
        return helped if self.dropped else settings

    def effects(self) -> list[str]:
        """Each screened rule's own effect in words, the gains its rules one by one do not
        explain, what the screening could miss, and what the design cannot tell apart."""
        said = [line for s in self.screened for line in s.lines()]
        said += [m.line() for m in self.sums if m.together.unexplained()]
        unseen = keeping.unseen_line(self.unseen, self.screen_runs)
        return said + ([unseen] if unseen else []) + ([screening.CONFOUNDED] if self.design else [])

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
            sums=[m.summary() for m in self.sums],
            unseen=self.unseen,
            margin=self.margin,
            idle=self.idle,
            dropped=self.dropped,
        )
