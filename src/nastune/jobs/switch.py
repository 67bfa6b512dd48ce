"""Switching a system between A (as it is) and B (a plan applied) for an interleaved run, each
move proved, and what stops such a run."""

from __future__ import annotations

import time

from nastune.errors import Failure
from nastune.remote.agent import NasError
from nastune.risks import Risks
from nastune.sites.tuner import Tuner
from nastune.tune.plan import Plan
from nastune.tune.system import TuneError


class AbError(Failure):
    """The interleaved run stopped; the system is back in A (or the message says what is not)."""


class Unchanged(AbError):
    """B is A: applying the plan changes nothing here (every setting already reads as planned)."""


class Switch:
    """Moves the system between A and B through a tuner (here, or nastune on the NAS), proving
    each move: B's settings read back as applied (apply reads each back as it writes it, and all
    again after the services reload), and the rollback to A restored everything. A server
    restarted by a move answers before the move returns (the tuner waits for it)."""

    def __init__(self, plan: Plan, tuner: Tuner, accept_risk: Risks):
        self.plan, self.tuner, self.accept_risk = plan, tuner, accept_risk
        self.journal: str | None = None
        self.seconds = 0.0

    def to(self, side: str) -> None:
        start = time.monotonic()
        if side == "B" and self.journal is None:  # apply reads every setting back, after the reloads too
            self.journal = self.tuner.apply(self.plan, self.accept_risk, lambda m: None)
            if self.journal is None:
                raise Unchanged("B is A: every setting of the plan already reads as planned")
        elif side == "A" and self.journal is not None:
            self.back()
        else:
            return
        self.seconds += time.monotonic() - start

    def back(self) -> None:
        if self.journal is None:
            return
        journal, self.journal = self.journal, None
        try:
            self.tuner.rollback(journal)
        except (TuneError, NasError) as e:
            raise AbError(f"A could not be restored: {e}; `{self.tuner.undo(journal)}` retries it") from e
