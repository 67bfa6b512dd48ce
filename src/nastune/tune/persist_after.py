"""The settings a journal holds as applied, made to survive a reboot after the fact (sysctl.d for
sysctls, fstab options, a systemd unit that applies the rest at boot), each file journaled in a
journal of its own, so that `rollback` removes them again: `nastune persist`, and optimize when
the operator says yes at its end."""

from __future__ import annotations

from collections.abc import Callable

from nastune.tune import executor
from nastune.tune.journal import Journal
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.rollback import journal_change
from nastune.tune.system import TuneError


def settings(journal: Journal) -> Plan:
    """The settings `journal` holds as applied (not its one-off actions, nor files it persisted);
    TuneError when one no longer reads as applied (rolled back, or changed since)."""
    changes: list[PlannedChange] = []
    files = 0
    for entry in journal.read().changes:
        parsed = journal_change(entry.get("change")) if entry.get("state") == "applied" else None
        if parsed is None or isinstance(parsed, str):
            continue
        change, knob = parsed
        files += knob.kind == "file"
        if not knob.action and knob.kind != "file":
            changes.append(PlannedChange(**{**change.model_dump(), "id": len(changes) + 1}))
    if files and not changes:
        raise TuneError(f"{journal.path} holds what `persist` wrote, no setting: --journal names the apply to persist")
    plan = Plan(changes=changes)
    drifted = [label for label, _, _, ok in executor.verify(journal, journal.system) if not ok]
    if drifted:
        raise TuneError(f"{journal.path}: not persisted: {', '.join(drifted)} no longer read as applied")
    if not plan.changes:
        raise TuneError(f"{journal.path}: holds no applied setting to persist")
    return plan


def written(journal: Journal, log: Callable[[str], None]) -> str | None:
    """The journal of the persistence files written; None when they already say so. The caller
    holds the system's tuning lock (jobs/persist, or optimize's tuner), which the engine asks for."""
    made = executor.apply(settings(journal), journal.system, persist=True, log=log)
    return made.path if made else None
