"""Apply a plan safely, verify it, roll it back.

apply: validate everything first; refuse durability trades without opt-in; for each change in
phase order, journal the original (fsynced) before writing, write, read back; reload the
services whose files changed; on any failure, restore everything this run changed. rollback:
restore every journaled original in reverse, idempotently, also after a killed apply."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from nastune.faults import checkpoint
from nastune.tune import edits, services
from nastune.tune.journal import Journal
from nastune.tune.knobs import KNOBS, Knob, norm
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import System, TuneError

SYSCTL_PERSIST = "/etc/sysctl.d/90-nastune.conf"
PLAN_PERSIST = "/var/lib/nastune/persist/plan.json"
UNIT = "/etc/systemd/system/nastune-reapply.service"
DURABILITY = ("These changes trade durability for speed: data acknowledged to clients can be lost "
              "if the server crashes or loses power before it reaches the disks.")


@dataclass
class Row:
    change: PlannedChange
    knob: Knob
    current: str | None
    error: str | None = None

    @property
    def noop(self) -> bool:
        return not self.knob.action and self.error is None and norm(self.current) == norm(self.change.new)


def validate(plan: Plan) -> None:
    for change in plan.changes:
        knob = KNOBS.get(change.knob)
        if knob is None:
            raise TuneError(f"change {change.id}: unknown knob {change.knob!r}")
        knob.validate(change)


def diff(plan: Plan, system: System) -> list[Row]:
    """Each change with the value it finds now (read errors are shown, not raised)."""
    validate(plan)
    rows = []
    for change in sorted(plan.changes, key=lambda c: (KNOBS[c.knob].phase, c.id)):
        knob = KNOBS[change.knob]
        try:
            rows.append(Row(change, knob, None if knob.action else knob.read(system, change)))
        except TuneError as e:
            rows.append(Row(change, knob, None, str(e)))
    return rows


def _before(system: System, knob: Knob, change: PlannedChange, current: str | None) -> dict:
    files = knob.files(system, change)
    if files:
        return {"files": {p: system.read(p) for p in files}}
    return {"value": current}


def _restore(system: System, knob: Knob, change: dict, before: dict) -> None:
    if "files" in before:
        for path, content in before["files"].items():
            system.root.replace(path, content)
    elif not knob.action and before.get("value") is not None:
        knob.write(system, PlannedChange.model_validate(change), before["value"])


def apply(plan: Plan, system: System, accept_risk: bool = False, persist: bool = False, log=print) -> Journal:
    rows = diff(plan, system)
    broken = [r for r in rows if r.error]
    if broken:
        raise TuneError("cannot read the current value of: " + "; ".join(r.error for r in broken))
    risky = [r.change for r in rows if r.change.durability_risk and not r.noop]
    if risky and not accept_risk:
        listed = ", ".join(KNOBS[c.knob].label(c) for c in risky)
        raise TuneError(f"refused without --accept-risk durability: {listed}. {DURABILITY}")
    journal = Journal.create(system, {"plan": plan.model_dump(mode="json", by_alias=True), "lab": system.netns is not None,
                                      "root": system.root.path, "pid": os.getpid()})
    seq = 0
    try:
        for row in rows:
            if row.noop:
                log(f"  = {row.knob.label(row.change)} already {row.current}")
                continue
            seq += 1
            _step(system, journal, seq, row, log)
        touched = sorted({r.knob.service for r in rows if r.knob.service and not r.noop})
        for service in touched:
            log("  " + services.reload(system, service))
        if persist:
            for row in _persistence(plan, rows, system):
                seq += 1
                _step(system, journal, seq, row, log)
    except BaseException as e:
        log(f"apply failed: {e}; rolling back")
        restored = rollback(journal, system, log)
        if isinstance(e, TuneError):
            raise TuneError(f"{e} (rolled back {restored} change(s); journal {journal.path})") from e
        raise
    return journal


def _step(system: System, journal: Journal, seq: int, row: Row, log) -> None:
    change, knob = row.change, row.knob
    journal.record({"type": "change", "seq": seq, "state": "started", "change": change.model_dump(mode="json"),
                    "before": _before(system, knob, change, row.current)})
    checkpoint(f"apply:{seq}:journaled")
    knob.write(system, change, change.new)
    checkpoint(f"apply:{seq}:written")
    after = None
    if not knob.action:
        after = knob.read(system, change)
        if norm(after) != norm(change.new):
            raise TuneError(f"{knob.label(change)}: wrote {change.new!r} but it reads back {after!r}")
    journal.record({"type": "change", "seq": seq, "state": "applied", "after": after})
    log(f"  + {knob.label(change)}: {row.current!r} -> {change.new!r}")


def rollback(journal: Journal, system: System, log=print) -> int:
    """Restore originals newest first; entries already rolled back are skipped, so a second
    run (or one after a kill) is harmless."""
    restored, touched = 0, set()
    for entry in reversed(journal.changes()):
        if entry.get("state") == "rolled_back" or "before" not in entry:
            continue
        knob = JOURNAL_KNOBS[entry["change"]["knob"]]
        _restore(system, knob, entry["change"], entry["before"])
        journal.record({"type": "change", "seq": entry["seq"], "state": "rolled_back"})
        if knob.service:
            touched.add(knob.service)
        restored += 1
        log(f"  - {knob.label(PlannedChange.model_validate(entry['change']))}: restored")
    for service in sorted(touched):
        log("  " + services.reload(system, service))
    return restored


def verify(journal: Journal, system: System) -> list[tuple[str, str, str, bool]]:
    """(knob, expected, actual, ok) for every change the journal holds as applied."""
    rows = []
    for entry in journal.changes():
        if entry.get("state") != "applied":
            continue
        change = PlannedChange.model_validate(entry["change"])
        knob = JOURNAL_KNOBS[change.knob]
        if knob.action:
            rows.append((knob.label(change), "run", "done", True))
            continue
        try:
            actual = knob.read(system, change)
        except TuneError as e:
            actual = f"unreadable: {e}"
        rows.append((knob.label(change), str(norm(change.new)), str(actual), norm(actual) == norm(change.new)))
    return rows


def _persistence(plan: Plan, rows: list[Row], system: System) -> list[Row]:
    """Boot-time persistence as journaled file writes: sysctl.d for sysctls, fstab for mount
    options, and a systemd unit that re-applies the rest of the plan."""
    applied = [r for r in rows if not r.noop]
    out: list[Row] = []
    sysctls = [r.change for r in applied if r.change.knob == "sysctl"]
    if sysctls:
        text = "# Written by nastune apply --persist; removed by nastune rollback.\n" + "".join(
            f"{c.target} = {c.new}\n" for c in sysctls)
        out.append(_file_row(system, SYSCTL_PERSIST, text))
    fstab = system.read("/etc/fstab") or ""
    for r in applied:  # a mount without an fstab entry was mounted by hand: nothing to persist
        if r.change.knob == "mount_option" and edits.fstab_options(fstab, r.change.target) is not None:
            change = r.change.model_copy(update={"knob": "nfs_client_mount"})
            out.append(Row(PlannedChange.model_validate(change.model_dump()), KNOBS["nfs_client_mount"], None))
    rest = [r.change for r in applied if r.change.knob not in ("sysctl", "mount_option", "nfs_client_mount", "samba",
                                                                "ganesha_export", "nfs_export", "xfs_fsr")]
    if rest:
        kept = plan.model_copy(update={"changes": rest})
        out.append(_file_row(system, PLAN_PERSIST, kept.to_json() + "\n"))
        out.append(_file_row(system, UNIT, "[Unit]\nDescription=Re-apply nastune's tuning\nAfter=network-online.target\n\n"
                                           "[Service]\nType=oneshot\n"
                                           f"ExecStart={sys.executable} -m nastune apply {PLAN_PERSIST} --yes\n\n"
                                           "[Install]\nWantedBy=multi-user.target\n"))
    return out


class _File(Knob):
    """A whole file nastune writes for persistence (before: absent or its old content)."""
    kind = "file"

    def files(self, system, change):
        return [change.target]

    def read(self, system, change):
        return system.read(change.target)

    def write(self, system, change, value):
        system.root.replace(change.target, value)


# Journals may also hold the persistence files; plans may not name them.
JOURNAL_KNOBS: dict[str, Knob] = {**KNOBS, "file": _File()}


def _file_row(system: System, path: str, text: str) -> Row:
    return Row(PlannedChange(id=0, knob="file", target=path, new=text, rule="persist"), JOURNAL_KNOBS["file"],
               system.read(path))


def start_watchdog(journal: Journal, timeout: int) -> None:
    """Confirm-or-revert: a detached process rolls back unless `nastune confirm` comes first."""
    subprocess.Popen([sys.executable, "-m", "nastune", "rollback", "--to", journal.path, "--unless-confirmed",
                      str(timeout)], start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
