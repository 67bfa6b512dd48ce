"""rollback as a workflow: a journal's original values restored under the system's lock, newest
change first (the engine asks that the lock be held; this is where it is taken)."""

from __future__ import annotations

from collections.abc import Callable

from nastune.tune import lock
from nastune.tune.journal import Journal
from nastune.tune.rollback import Report, rollback


def run(journal: Journal, log: Callable[[str], None], dry_run: bool = False) -> Report:
    with lock.hold(journal.system, "rollback", wait=lock.COMMAND_WAIT):
        return rollback(journal, journal.system, log=log, dry_run=dry_run)
