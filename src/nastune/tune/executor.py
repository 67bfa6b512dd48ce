"""Apply a plan safely and verify it.

apply: under the system's lock, validate everything and check that every change can be made
on this system before the first write; refuse durability trades without opt-in; for each change
in phase order, journal the original (fsynced, config files also backed up beside the journal)
before writing, write, read back; reload the services whose files changed; on any failure,
restore everything this run changed (tune/rollback.py)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from nastune import wire
from nastune.facts import appliance
from nastune.faults import checkpoint
from nastune.risks import RISKS, Risks
from nastune.root import Unavailable
from nastune.tune import backup, lock, room, services, sysctl_files
from nastune.tune import persist as persistence
from nastune.tune.journal import Journal
from nastune.tune.knobs import KNOBS, Knob, norm
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.rollback import journal_change, rollback
from nastune.tune.system import Stranded, System, TuneError


@dataclass
class Pending:
    """A change of a plan with the value it finds now: what apply will do, or why it cannot."""

    change: PlannedChange
    knob: Knob
    current: str | None
    error: str | None = None
    index: int = 0  # position in the plan file: errors name changes[index] (-1: a persistence file)

    @property
    def risks(self) -> list[str]:
        """What the change trades, judged from the value read on the system now and the one it
        writes (whatever the plan says of either)."""
        return self.knob.trades(self.change, self.current)

    @property
    def noop(self) -> bool:
        return not self.knob.action and self.error is None and norm(self.current) == norm(self.change.new)


def validate(plan: Plan) -> None:
    """Every change names a known knob and suits it, and none is a client's: those are applied by
    nastune on that client, through the inventory that names it."""
    for i, change in enumerate(plan.changes):
        if change.host:
            raise TuneError(
                f"changes[{i}].host: a change for client {change.host}; apply the plan with --inventory, "
                "whose nastune on each host applies that host's changes"
            )
        knob = KNOBS[change.knob]
        try:
            knob.validate(change)
        except TuneError as e:
            raise TuneError(f"changes[{i}]: {e}") from e


def diff(plan: Plan, system: System) -> list[Pending]:
    """Each change with the value it finds now (read errors are shown, not raised). A change
    that cannot be made on this system, or whose original cannot be read as one real value,
    carries an error: apply refuses the whole plan then, before writing anything."""
    return _diff(plan, system, appliance.detect(system.root))


def _diff(plan: Plan, system: System, owner: appliance.Appliance | None) -> list[Pending]:
    """diff() on a system `owner` (an appliance, or None) configures."""
    validate(plan)
    rows = []
    order = sorted(enumerate(plan.changes), key=lambda ic: (KNOBS[ic[1].knob].phase, ic[1].id, ic[0]))
    for i, change in order:
        knob = KNOBS[change.knob]
        refused = owner.refusal(change.knob, change.target, change.key, change.new) if owner else None
        reason = refused or knob.applicable(system, change)
        if reason:
            rows.append(Pending(change, knob, None, f"{knob.label(change)}: {reason}", i))
            continue
        try:
            current = None if knob.action else knob.read(system, change)
        except TuneError as e:
            rows.append(Pending(change, knob, None, str(e), i))
            continue
        if current is None and not knob.action and not knob.files(system, change):
            rows.append(Pending(change, knob, None, f"{knob.label(change)}: the current value cannot be read", i))
            continue
        rows.append(Pending(change, knob, current, None, i))
    return rows


def _before(system: System, journal: Journal, seq: int, knob: Knob, change: PlannedChange, current: str | None) -> dict:
    files = knob.files(system, change)
    if files:
        saved = {p: system.read(p) for p in files}
        backup.save(journal, seq, saved)
        return {"files": saved}
    origin = knob.origin(system, change) if not knob.action else {}
    return {"value": current, **({"origin": origin} if origin else {})}


def _persisting(plan: Plan, rows: list[Pending], system: System) -> list[tuple[PlannedChange, Knob, str | None]]:
    """The writes that make every setting of the plan survive a reboot, those just made and those
    already as planned (`apply --persist` after optimize persists what optimize left applied),
    less the files that already say so."""
    made = persistence.changes(plan, [r.change for r in rows], system)
    return [(change, knob, now) for change, knob, now in made if knob is not persistence.FILE or now != change.new]


def _refusals(
    rows: list[Pending], system: System, accept_risk: Risks, persist: bool, owner: appliance.Appliance | None
) -> None:
    """TuneError for a plan refused whole before anything changes: a change that cannot be made
    here, persistence where it cannot last, a durability trade not accepted."""
    broken = [r for r in rows if r.error]
    if broken:
        raise TuneError(
            "nothing was changed; this plan cannot be applied here: "
            + "; ".join(f"changes[{r.index}]: {r.error}" for r in broken)
        )
    if persist and not system.boots:
        raise TuneError(f"nothing was changed; {system.name} does not survive a reboot: nothing to persist")
    if persist and owner and owner.boot:
        raise TuneError(
            f"nothing was changed; {owner.title} keeps a setting across reboots and updates only in its own "
            f"configuration: {owner.boot}. Apply without --persist"
        )
    if persist:
        keys = [r.change.target for r in rows if r.knob.persists == "sysctl.d"]
        why = sysctl_files.overridden(system, persistence.SYSCTL, keys)
        if why:
            raise TuneError(
                "nothing was changed; --persist would not last, another file sets these at boot after "
                f"nastune's: {'; '.join(why)}. Change or remove the setting there (it may belong to another "
                "tool: nastune does not fight it), or apply without --persist"
            )
    for risk, text in RISKS.items():
        risky = [r.change for r in rows if risk in r.risks and not r.noop]
        if risky and risk not in accept_risk:
            listed = ", ".join(f"{KNOBS[c.knob].label(c)} (change {c.id})" for c in risky)
            raise TuneError(
                f"nothing was changed; refused without --accept-risk {risk}: {listed}. {text} "
                "Accept it, or take those changes out of the plan file to apply the rest"
            )


def apply(
    plan: Plan,
    system: System,
    accept_risk: Risks = frozenset(),
    persist: bool = False,
    log: Callable[[str], None] = print,
) -> Journal | None:
    """The journal of the changes made; None when every setting already was as planned and
    nothing is to be persisted (no journal is written then, so an empty one can never hide the
    journal that holds changes)."""
    lock.require(system)  # the workflow holds it from reading the plan to closing the journal
    owner = appliance.detect(system.root)  # read once: which files an appliance keeps, and where it persists
    rows = _diff(plan, system, owner)
    _refusals(rows, system, accept_risk, persist, owner)
    for row in rows:
        if row.noop:
            log(f"  = {row.knob.label(row.change)} already {row.current}")
    pending = [r for r in rows if not r.noop]
    made = _persisting(plan, rows, system) if persist else []
    if not pending and not made:
        return None
    room.check(system, [(r.knob, r.change) for r in pending] + [(knob, change) for change, knob, _ in made])
    header = {"plan": plan.model_dump(mode="json", by_alias=True), "root": system.root.path, "pid": os.getpid()}
    journal = Journal.create(system, header)
    try:
        _made(journal, system, pending, made, log)
    except BaseException as e:
        _undone(journal, system, e, log)
        raise
    return journal


def _made(journal: Journal, system: System, pending: list[Pending], made: list, log: Callable[[str], None]) -> None:
    """Every change in turn, journaled before it is made; the services reloaded; the persistence
    files written; the journal closed."""
    _announce(journal, 1, [r.change for r in pending] + [change for change, _, _ in made])
    seq = 0
    for row in pending:
        seq += 1
        _step(system, journal, seq, row, log)
    reloaded = sorted({r.knob.service for r in pending if r.knob.service})
    for service in reloaded:
        log("  " + services.reload(system, service))
    if reloaded:
        _still(system, pending, reloaded)
    for change, knob, current in made:
        seq += 1
        _step(system, journal, seq, Pending(change, knob, current, index=-1), log)  # not in the plan file
    journal.record({"type": "end", "state": "applied", "changes": seq})


def _still(system: System, pending: list[Pending], reloaded: list[str]) -> None:
    """Every setting read once more after the services reloaded: a reload that undid one (a
    daemon that rewrites its file, a check that refuses a value) fails the apply, which rolls
    back, so that an applied journal means every setting read as written at its end."""
    undone = []
    for row in pending:
        if row.knob.action:
            continue
        now = row.knob.read(system, row.change)
        if norm(now) != norm(row.change.new):
            undone.append(f"{row.knob.label(row.change)} reads {now!r}")
    if undone:
        raise TuneError(f"after reloading {', '.join(reloaded)}, {'; '.join(undone)} instead of the value written")


def _undone(journal: Journal, system: System, e: BaseException, log: Callable[[str], None]) -> None:
    """After a failed apply: everything rolled back; Stranded when that could not restore all,
    TuneError naming the cause when it could (any other exception goes on as it was)."""
    log(f"apply failed: {e}; rolling back")
    report = rollback(journal, system, log)
    with contextlib.suppress(TuneError):  # a full disk may refuse even this line
        journal.record({"type": "end", "state": "rolled_back" if report.ok else "stranded"})
    if not report.ok:
        raise Stranded(
            f"{_reason(e)}; the automatic rollback could NOT restore everything, so {system.name} is "
            f"no longer as it was: {report.summary()}. Do those steps by hand, then check with "
            f"`nastune verify --journal {journal.path}`"
        ) from e
    if isinstance(e, TuneError | OSError | Unavailable):
        undone = f"every change was undone ({report.summary()}; journal {journal.path})"
        raise TuneError(f"{_reason(e)}; {undone}") from e


def _reason(e: BaseException) -> str:
    return str(e) or type(e).__name__


def _announce(journal: Journal, first: int, changes: list[PlannedChange]) -> None:
    """Record the changes about to be made, so that a journal cut short still names them."""
    journal.record({"type": "steps", "first": first, "changes": [c.model_dump(mode="json") for c in changes]})


def _step(system: System, journal: Journal, seq: int, row: Pending, log: Callable[[str], None]) -> None:
    change, knob = row.change, row.knob
    where = knob.label(change) if row.index < 0 else f"changes[{row.index}] ({knob.label(change)})"
    try:
        before = _before(system, journal, seq, knob, change, row.current)
    except (OSError, Unavailable) as e:
        raise TuneError(f"{where}: cannot back up the original: {_os_reason(e)}") from e
    journal.record(
        {"type": "change", "seq": seq, "state": "started", "change": change.model_dump(mode="json"), "before": before}
    )
    checkpoint(f"apply:{seq}:journaled")
    try:
        knob.write(system, change, change.new)
    except BaseException as e:
        with contextlib.suppress(TuneError):  # the journal's disk may be the one that is full
            journal.record({"type": "change", "seq": seq, "state": "failed", "error": str(e)[:2000]})
        if isinstance(e, OSError | Unavailable | TuneError):
            raise TuneError(f"{where}: {_os_reason(e) if not isinstance(e, TuneError) else e}") from e
        raise
    checkpoint(f"apply:{seq}:written")
    after = None
    if not knob.action:
        after = knob.read(system, change)
        if norm(after) != norm(change.new):
            raise TuneError(f"{where}: wrote {change.new!r} but it reads back {after!r}")
    journal.record({"type": "change", "seq": seq, "state": "applied", "after": after})
    log(f"  + {knob.label(change)}: {row.current!r} -> {change.new!r}")


def _os_reason(e: OSError | Unavailable) -> str:
    if isinstance(e, Unavailable):
        return str(e)
    return f"{e.filename}: {e.strerror}" if e.filename else (e.strerror or str(e))


def verify(journal: Journal, system: System) -> list[tuple[str, str, str, bool]]:
    """(knob, expected, actual, ok) for every change the journal holds as applied, and a
    failing row for each journal line that could not be read."""
    contents = journal.read()
    rows = [
        (f"{journal.path} {p.partition(':')[0]}", "a journal line", p.partition(": ")[2] or p, False)
        for p in contents.problems
    ]
    for entry in contents.changes:
        if entry.get("state") != "applied":
            continue
        parsed = journal_change(entry.get("change"))
        if isinstance(parsed, str):
            rows.append((f"journal line {entry['lines'][0]}", "a change", parsed, False))
            continue
        change, knob = parsed
        if knob.action:
            rows.append((knob.label(change), "run", "done", True))
            continue
        try:
            actual = knob.read(system, change)
        except TuneError as e:
            actual = f"unreadable: {e}"
        rows.append((knob.label(change), str(norm(change.new)), str(actual), norm(actual) == norm(change.new)))
    return rows


def verified(journal: Journal, system: System) -> wire.Verify:
    """verify's rows as the summary `verify --json` prints."""
    settings = [wire.Setting(setting=s, expected=e, actual=a, ok=ok) for s, e, a, ok in verify(journal, system)]
    return wire.Verify(journal=journal.path, settings=settings)
