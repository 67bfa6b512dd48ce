"""Rollback: put back every original a journal holds, newest first.

It never stops at the first problem: an entry that cannot be restored is reported with its
reason and the command that restores it by hand, and rollback goes on with the next one. An
entry is restored only to a real recorded value, and only where it differs now (so an entry
whose write never happened, or a second rollback, changes nothing). A journal line can name
only the files its own change edits: rollback writes no other file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from nastune import wire
from nastune.jsonfile import invalid
from nastune.root import Unavailable
from nastune.tune import backup, lock, persist, services
from nastune.tune.journal import Contents, Journal
from nastune.tune.knobs import KNOBS, Knob, norm
from nastune.tune.plan import PlannedChange
from nastune.tune.system import System, TuneError

WATCHDOG_WAIT = 120.0  # a confirm-or-revert rollback waits this long for a running nastune


@dataclass
class Failure:
    what: str
    reason: str
    manual: str  # what an operator runs to finish by hand


@dataclass
class Report:
    restored: int = 0
    unchanged: int = 0
    failures: list[Failure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dry_run: bool = False  # counted what it would restore; changed nothing

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        text = f"{'would roll back' if self.dry_run else 'rolled back'} {self.restored} change(s)"
        if self.unchanged:
            text += f", {self.unchanged} already at their original"
        if self.failures:
            text += f"; {len(self.failures)} NOT restored: " + "; ".join(
                f"{f.what} ({f.reason}; by hand: {f.manual})" for f in self.failures
            )
        return text

    def wire(self, journal: Journal) -> wire.Rollback:
        """The summary `rollback --json` prints and the NAS agent's caller reads."""
        return wire.Rollback(
            journal=journal.path,
            restored=self.restored,
            unchanged=self.unchanged,
            failures=[wire.NotRestored(**f.__dict__) for f in self.failures],
            outstanding=[o.path for o in journal.others_outstanding()],
            dry_run=self.dry_run,
        )


def journal_change(raw: object) -> tuple[PlannedChange, Knob] | str:
    """The change a journal line records, validated like a plan's; or why it is unusable."""
    if not isinstance(raw, dict):
        return "no change recorded on this line"
    name = raw.get("knob")
    # journals may also hold the persistence files; plans may not name them
    knob = (persist.FILE if name == persist.FILE.kind else KNOBS.get(name)) if isinstance(name, str) else None
    if knob is None:
        return f"unknown knob {str(raw.get('knob'))[:40]!r}"
    try:
        change = PlannedChange.model_validate(raw)
        knob.validate(change)
    except ValidationError as e:
        return invalid("change", e)
    except TuneError as e:
        return str(e)
    return change, knob


def _restore_files(
    journal: Journal, system: System, seq: int, knob: Knob, change: PlannedChange, files: object, write: bool = True
) -> bool:
    if not isinstance(files, dict) or not files:
        raise TuneError("the recorded files are malformed")
    allowed = set(knob.files(system, change))
    for path, content in files.items():
        if not isinstance(path, str) or path not in allowed:
            raise TuneError(f"the journal names {str(path)[:80]!r}, which this change does not edit: refused")
        if not isinstance(content, str | None):
            raise TuneError(f"the recorded content of {path} is malformed")
    changed = False
    for path, content in files.items():
        if system.read(path) != content:
            if not write:
                return True
            if content is None or not backup.restore(journal, seq, path, content):
                system.root.replace(path, content)
            changed = True
    if changed and write:
        knob.restored(system, change)
    return changed


def _restore_value(
    system: System, knob: Knob, change: PlannedChange, value: object, write: bool = True, origin: dict | None = None
) -> bool:
    """The original `value` (with its `origin`: what the knob journaled beside it, a ZFS
    property's source) put back where the setting no longer reads as it; whether it changed."""
    if knob.action:
        return False  # a run (xfs_fsr) is not a setting: nothing to put back
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise TuneError("no original value was recorded for it")
    try:  # the original must be a value this knob accepts, as a plan's new value must be
        knob.validate(change.model_copy(update={"new": value}))
    except TuneError as e:
        raise TuneError(f"the recorded original {str(value)[:40]!r} is not a real value ({e})") from e
    origin = origin or {}
    if _reads(system, knob, change, value, origin):
        return False
    if not write:
        return True
    try:
        knob.put_back(system, change, value, origin)
    except TuneError:
        # a write can fail in a part that never took the new value (a remount in a server's
        # mount namespace that refused the change too): what reads back decides
        if not _reads(system, knob, change, value, origin):
            raise
        return True
    if not knob.as_it_was(system, change, value, origin):
        raise TuneError(f"wrote {value!r} but it reads back {knob.read(system, change)!r}")
    return True


def _reads(system: System, knob: Knob, change: PlannedChange, value: object, origin: dict) -> bool:
    """Whether the setting reads back as `value`, with its `origin`."""
    try:
        return knob.as_it_was(system, change, value, origin)
    except TuneError:
        return False


def _manual(journal: Journal, seq: int, knob: Knob, change: PlannedChange, before: object) -> str:
    if isinstance(before, dict) and isinstance(before.get("files"), dict):
        return "; ".join(
            backup.manual(journal, seq, p, c if isinstance(c, str) else None) for p, c in before["files"].items()
        )
    if isinstance(before, dict) and before.get("value") is not None:
        return knob.by_hand(change, before["value"], _origin(before))
    return f"check {knob.label(change)} by hand"


def _unrecorded(journal: Journal, system: System, contents: Contents) -> list[Failure]:
    """In a journal without its closing line, the announced changes that have no line of their
    own but read as applied: their lines were lost (a journal cut short), so their originals are
    unknown. A change killed before its own line was written reads as it was, and is skipped."""
    failures = []
    recorded = {c["seq"] for c in contents.changes}
    for seq, raw in sorted(contents.steps().items(), reverse=True):
        if seq in recorded:
            continue
        parsed = journal_change(raw)
        if isinstance(parsed, str):
            failures.append(Failure(f"{journal.path} step {seq}", parsed, "check that step's setting by hand"))
            continue
        change, knob = parsed
        if knob.action:
            continue
        try:
            current = knob.read(system, change)
        except TuneError:
            current = None
        if current is not None and norm(current) == norm(change.new):
            failures.append(
                Failure(
                    knob.label(change),
                    f"the journal ends before this change's line (it was cut short), and it reads as applied "
                    f"({current!r}): its original is unknown",
                    f"set {knob.label(change)} back to its value before {journal.path} by hand",
                )
            )
    return failures


def _restore(journal: Journal, system: System, seq: int, parsed: tuple, before: object, dry_run: bool) -> bool:
    """One entry's original put back (its files, or its value); whether anything changed."""
    change, knob = parsed
    if not isinstance(before, dict):
        raise TuneError("no original was recorded for it")
    if "files" in before:
        return _restore_files(journal, system, seq, knob, change, before["files"], not dry_run)
    return _restore_value(system, knob, change, before.get("value"), not dry_run, _origin(before))


def _origin(before: dict) -> dict:
    """What a knob journaled beside an original value (a ZFS property's source), if anything."""
    origin = before.get("origin")
    return origin if isinstance(origin, dict) else {}


def rollback(journal: Journal, system: System, log: Callable[[str], None] = print, dry_run: bool = False) -> Report:
    """Restore originals newest first; entries already rolled back are skipped, so a second
    run (or one after a kill) is harmless. `dry_run`: count what it would restore, change nothing."""
    report = Report(dry_run=dry_run)
    lock.require(system)  # whoever rolls back holds it: jobs/rollback, a workflow, the watchdog
    contents = journal.read()
    for problem in contents.problems:  # each named with its line and what the journal reader found
        report.failures.append(
            Failure(
                f"{journal.path} {problem}",
                "the line is unreadable",
                "if it recorded a change, restore that setting by hand",
            )
        )
    if not contents.ended:
        report.failures += _unrecorded(journal, system, contents)
    touched: set[str] = set()
    for entry in reversed(contents.changes):
        if entry.get("state") == "rolled_back":
            continue
        parsed = journal_change(entry.get("change"))
        if isinstance(parsed, str):
            report.failures.append(
                Failure(f"{journal.path} line {entry['lines'][0]}", parsed, "check that line's setting by hand")
            )
            continue
        change, knob = parsed
        before, seq = entry.get("before"), entry["seq"]
        try:
            changed = _restore(journal, system, seq, (change, knob), before, dry_run)
        except (TuneError, Unavailable, OSError, ValueError) as e:
            reason = str(e)
            if isinstance(e, OSError) and e.strerror:  # no "[Errno 21]" for a person to decode
                reason = f"{e.strerror}: {e.filename}" if e.filename else e.strerror
            failure = Failure(knob.label(change), reason, _manual(journal, seq, knob, change, before))
            report.failures.append(failure)
            log(f"  ! {failure.what}: NOT restored: {failure.reason}; by hand: {failure.manual}")
            continue
        try:
            if not dry_run:
                journal.record({"type": "change", "seq": seq, "state": "rolled_back"})
        except TuneError as e:  # restored all the same; a second rollback finds it at its original
            report.notes.append(str(e))
        if changed:
            report.restored += 1
            touched |= {knob.service} if knob.service else set()
            log(f"  - {knob.label(change)}: {'would be restored' if dry_run else 'restored'}")
        else:
            report.unchanged += 1
            log(f"  = {knob.label(change)}: already at its original")
    for service in sorted(touched) if not dry_run else []:
        try:
            log("  " + services.reload(system, service))
        except TuneError as e:
            report.failures.append(Failure(f"reload {service}", str(e), f"reload or restart {service} by hand"))
    return report
