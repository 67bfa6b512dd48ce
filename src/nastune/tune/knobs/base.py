"""What every knob declares: how to validate, read and write it, what it needs, how an operator
sets it by hand, which service reloads after it, and how it survives a reboot."""

from __future__ import annotations

import re
from typing import Any

from nastune.conf import safe
from nastune.rules.model import Change
from nastune.tune.system import System, TuneError


def norm(value: object) -> str | None:
    return None if value is None else " ".join(str(value).split())


# how each way of persisting fares at a reboot: a word for a table, and in full
LOST = ("lost", "lost at reboot unless persisted")
FATES = {
    "persistent": ("kept", "kept (written to its configuration)"),
    "pool": ("kept", "kept (the ZFS pool stores it)"),
    "action": ("once", "done once; cannot be undone"),
    "mount": ("remount", "lost when the share is mounted again (a udev rule keeps it: see the finding's advice)"),
}


class Knob:
    kind = ""
    phase = 50  # apply order: kernel values, then files and services, network last
    network = False  # may cut an operator off: confirm-or-revert on a live host
    action = False  # a one-off run, not a setting (nothing to read back or restore)
    measured_by: tuple[str, ...] = ()  # an action: the workloads whose results it changes (optimize's before/after)
    needs_live = False  # runs a command (remount, ethtool, zfs): impossible on a directory tree
    service: str | None = None  # what must reload after a change
    doc = ""  # what it is and what its target and key name (empty on abstract bases)
    # how it survives a reboot: "sysctl.d", "fstab" (as an fstab option), "unit" (re-applied at
    # boot by a systemd unit), "persistent" (written where it lasts), "pool" (a ZFS property, which
    # the pool itself keeps), "action" (a one-off run),
    # "mount" (a mount's own: gone when it is mounted again, so never replayed at boot)
    persists = "unit"
    disruption = ""  # what applying or undoing it does to the NAS's users, if anything

    def lasts(self) -> str:
        """Whether the change survives a reboot, in words (without `apply --persist`)."""
        return FATES.get(self.persists, LOST)[1]

    def fate(self) -> str:
        """What a reboot does to the change, in a word: kept, lost, once (a one-off run), or
        remount (a mount's own value, gone when it is mounted again)."""
        return FATES.get(self.persists, LOST)[0]

    def applicable(self, system: System, change: Change) -> str | None:
        """Why this change cannot be made on this system at all (checked before any write)."""
        if self.needs_live and not system.live:
            return f"needs a live system; {system.root.path} is a directory tree"
        return None

    def manual(self, change: Change, value: Any) -> str:
        """The command an operator runs to set `value` by hand when nastune cannot."""
        return f"set {self.label(change)} to {value!r} by hand"

    def trades(self, change: Change, current: object) -> list[str]:
        """The guarantees (durability, security) this change trades going from `current` to its
        new value, judged from what it writes (knobs/trades.py), never from the plan's word."""
        return []

    def validate(self, change: Change) -> None:
        """Reject malformed or out-of-range values before anything is touched."""

    def files(self, system: System, change: Change) -> list[str]:
        """Config files this change edits (snapshotted whole, restored byte for byte)."""
        return []

    def read(self, system: System, change: Change) -> str | None:
        raise NotImplementedError

    def origin(self, system: System, change: Change) -> dict[str, str]:
        """What a rollback needs beside the original value to put it back exactly (a ZFS
        property's source), journaled with it before the write; nothing for most."""
        return {}

    def put_back(self, system: System, change: Change, value: Any, origin: dict) -> None:
        """Write the original `value` back, `origin` being what origin() journaled with it."""
        self.write(system, change, value)

    def as_it_was(self, system: System, change: Change, value: Any, origin: dict) -> bool:
        """Whether the setting reads as its original `value`, with its `origin`."""
        return norm(self.read(system, change)) == norm(value)

    def by_hand(self, change: Change, value: Any, origin: dict) -> str:
        """What an operator runs to put the original back where rollback could not."""
        return self.manual(change, value)

    def restored(self, system: System, change: Change) -> None:
        """After rollback put its files back byte for byte: make what they configure take effect
        where it is not read at once (nothing to do for most)."""

    def write(self, system: System, change: Change, value: Any) -> None:
        raise NotImplementedError

    def key(self, change: Change) -> str:
        """The key (parameter, option, feature, class id) of a change to a knob that needs one."""
        if not change.key:
            raise TuneError(f"{self.label(change)}: names no key (the parameter or option it sets)")
        return change.key

    def label(self, change: Change) -> str:
        return f"{self.kind} {change.target}" + (f" {change.key}" if change.key else "")


def _safe(pattern: re.Pattern[str], value: object, what: str) -> None:
    try:
        safe.check(pattern, value, what)
    except ValueError as e:
        raise TuneError(str(e)) from e


def _int_range(change: Change, low: int, high: int, what: str) -> None:
    text = str(change.new)
    if isinstance(change.new, bool) or not re.fullmatch(r"[0-9]{1,18}", text):
        raise TuneError(f"{what} {change.target}: {text[:40]!r} is not a whole number")
    value = int(text)
    if not low <= value <= high:
        raise TuneError(f"{what} {change.target}: {value} is out of range ({low}-{high})")
