"""persist as a workflow: the settings a journal holds made to survive a reboot after the fact,
under the system's lock (the engine asks that the lock be held; this is where it is taken; a
second holder is refused at once, as before)."""

from __future__ import annotations

from collections.abc import Callable

from nastune.tune import lock, persist_after
from nastune.tune.journal import Journal


def run(journal: Journal, log: Callable[[str], None]) -> str | None:
    """The journal of the persistence files written; None when they already say so."""
    with lock.hold(journal.system, "persist"):
        return persist_after.written(journal, log)
