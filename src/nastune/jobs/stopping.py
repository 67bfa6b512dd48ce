"""How optimize stops once its plan is applied: an error that says how far it got and the command
that undoes it (exit 130 when interrupted)."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from nastune.errors import Failure
from nastune.sites.tuner import Tuner


class OptimizeError(Failure):
    """optimize stopped after applying its plan; the message says how to undo it."""

    def __init__(self, message: str, interrupted: bool = False):
        super().__init__(message)
        self.interrupted = interrupted
        self.code = 130 if interrupted else None


class Undoing:
    """Once a change is applied, whatever stops optimize says how far it got and how to undo it."""

    def __init__(self, out: Path, tuner: Tuner, journal: str | None):
        self.out, self.tuner, self.journal = out, tuner, journal

    def __enter__(self) -> Undoing:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if error is None or isinstance(error, OptimizeError) or self.journal is None:
            return
        undo = f"undo it with `{self.tuner.undo(self.journal)}`"
        if isinstance(error, KeyboardInterrupt):
            raise OptimizeError(
                f"interrupted after the plan was applied; results so far in {self.out}; {undo}", interrupted=True
            ) from None
        if isinstance(error, Exception):
            raise OptimizeError(
                f"stopped after the plan was applied: {error}; results so far in {self.out}; {undo}"
            ) from error
