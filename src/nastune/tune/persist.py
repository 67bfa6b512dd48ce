"""Boot-time persistence as journaled file writes: sysctl.d for sysctls, fstab for mount
options, the services' own files where they have one (ifupdown's interfaces for a statically
configured interface's MTU, nfs.conf for nfsd's threads), and a systemd unit that re-applies the
rest of the plan. Rollback removes them."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from typing import Any

from nastune.rules.model import Change
from nastune.tune import edits, ifupdown, nfsconf
from nastune.tune.knobs import KNOBS, Knob
from nastune.tune.plan import Plan, PlannedChange
from nastune.tune.system import System, TuneError

SYSCTL = "/etc/sysctl.d/90-nastune.conf"
PLAN = "/var/lib/nastune/persist/plan.json"
UNIT = "/etc/systemd/system/nastune-reapply.service"
# What makes the unit start at boot: a drop-in that multi-user.target wants it, a regular file
# journaled like the others (the symbolic link `systemctl enable` makes is no file nastune
# writes; without either the unit is written and never runs, as a reboot of the kernel lab showed)
WANTED = "/etc/systemd/system/multi-user.target.d/nastune-reapply.conf"
# a setting kept in its service's own file: the file, and the file's text with the setting in it
# (None: not a setting that file holds, e.g. an interface configured by DHCP)
NATIVE: dict[str, tuple[str, Callable[[str, PlannedChange], str | None]]] = {
    "mtu": (ifupdown.PATH, lambda text, c: ifupdown.with_mtu(text, c.target, int(c.new))),
    "nfsd_threads": (nfsconf.PATH, lambda text, c: nfsconf.with_threads(text, int(c.new))),
}
PATHS = (SYSCTL, PLAN, UNIT, WANTED, *(path for path, _ in NATIVE.values()))
BOOT_STATE = "/var/lib/nastune/at-boot"  # the boot-time re-apply's own journals and lock


class FileKnob(Knob):
    """A whole file nastune writes for persistence (before: absent or its old content); only
    the files above, so a journal can never name another file for rollback to write."""

    kind = "file"

    def validate(self, change: Change) -> None:
        if change.target not in PATHS:
            raise TuneError(f"file {change.target!r}: not a file nastune persists to")

    def files(self, system: System, change: Change) -> list[str]:
        return [change.target]

    def read(self, system: System, change: Change) -> str | None:
        return system.read(change.target)

    def write(self, system: System, change: Change, value: Any) -> None:
        system.root.replace(change.target, value)


FILE = FileKnob()


def changes(plan: Plan, applied: list[PlannedChange], system: System) -> list[tuple[PlannedChange, Knob, str | None]]:
    """The journaled writes that make `applied` survive a reboot."""
    out = []
    sysctls = [c for c in applied if KNOBS[c.knob].persists == "sysctl.d"]
    if sysctls:
        text = "# Written by nastune apply --persist; removed by nastune rollback.\n" + "".join(
            f"{c.target} = {c.new}\n" for c in sysctls
        )
        out.append(_file(system, SYSCTL, text))
    fstab = system.read("/etc/fstab") or ""
    for c in applied:  # a mount without an fstab entry was mounted by hand: nothing to persist
        if KNOBS[c.knob].persists == "fstab" and edits.fstab_options(fstab, c.target) is not None:
            moved = PlannedChange.model_validate({**c.model_dump(), "knob": "nfs_client_mount"})
            out.append((moved, KNOBS["nfs_client_mount"], None))
    # an NFS mount's bdi is named anew at every mount: a udev rule keeps its read-ahead, not a replay
    rest = [c for c in applied if KNOBS[c.knob].persists == "unit" and not c.target.startswith("/sys/class/bdi/")]
    rest = _native(system, rest, out)
    if rest:
        kept = plan.model_copy(update={"changes": rest})
        out.append(_file(system, PLAN, kept.to_json() + "\n"))
        out.append(
            _file(
                system,
                UNIT,
                "[Unit]\nDescription=Re-apply nastune's tuning\n"
                "After=network-online.target\nWants=network-online.target\n\n"
                "[Service]\nType=oneshot\n"
                # its journal apart: the boot's re-apply must never become the newest journal,
                # which a later `nastune rollback` would undo instead of the one that persisted
                f"Environment=NASTUNE_STATE_DIR={BOOT_STATE}\n"
                f"ExecStart={_reapply(rest)}\n\n"
                "[Install]\nWantedBy=multi-user.target\n",
            )
        )
        out.append(
            _file(system, WANTED, f"# Written by nastune apply --persist.\n[Unit]\nWants={UNIT.rsplit('/', 1)[1]}\n")
        )
    return out


def _native(
    system: System, changes: list[PlannedChange], out: list[tuple[PlannedChange, Knob, str | None]]
) -> list[PlannedChange]:
    """The settings kept in their services' own files, each file written once (appended to
    `out`); the changes left for the boot unit. A file that does not exist is not made."""
    kept = []
    for path in dict.fromkeys(path for path, _ in NATIVE.values()):
        text = system.read(path)
        before = text
        for c in changes:
            edit = NATIVE[c.knob][1] if c.knob in NATIVE and NATIVE[c.knob][0] == path else None
            edited = edit(text, c) if edit and text is not None else None
            if edited is not None:
                text = edited
                kept.append(c)
        if text != before and text is not None:
            out.append(_file(system, path, text))
    return [c for c in changes if c not in kept]


def _reapply(changes: list[PlannedChange]) -> str:
    """The boot's re-apply: what the operator confirmed and accepted when persisting holds at
    boot with nobody there (no confirm-or-revert wait, the risks they accepted accepted again)."""
    accepted = sorted({risk for c in changes for risk in c.risks})
    argv = [sys.executable, "-m", "nastune", "apply", PLAN, "--yes", "--confirm-timeout", "0"]
    return shlex.join(argv + [a for risk in accepted for a in ("--accept-risk", risk)])


def _file(system: System, path: str, text: str) -> tuple[PlannedChange, Knob, str | None]:
    return PlannedChange(id=0, knob="file", target=path, new=text, rule="persist"), FILE, system.read(path)
