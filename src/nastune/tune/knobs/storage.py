"""Knobs of file systems and storage: mount options by remount or fstab, ZFS properties, XFS
defragmentation."""

from __future__ import annotations

import shlex
from typing import Any

from nastune.conf import fstab, safe
from nastune.conf.fstab import unescape
from nastune.facts import Facts
from nastune.facts.mounts import parse_mounts
from nastune.facts.nfs_client import MOUNTINFO, devices
from nastune.rules import query
from nastune.rules.model import Change
from nastune.tune import edits
from nastune.tune.knobs import trades
from nastune.tune.knobs.base import Knob, _int_range, _safe, norm
from nastune.tune.knobs.domains import Choice, KiB, MiB, PowersOfTwo
from nastune.tune.knobs.tunable import Tunable
from nastune.tune.system import System, TuneError


def _mount_options(text: str | None, mountpoint: str) -> list[str] | None:
    """The options of the last mount at `mountpoint` in a mount table (escapes like \\040 decoded)."""
    try:
        found = [m.options for m in parse_mounts(text or "") if m.mountpoint == mountpoint]
    except ValueError:
        return None
    return found[-1] if found else None


def _mount_point(change: Change, kind: str) -> None:
    if not str(change.target).startswith("/"):
        raise TuneError(f"{kind}: {change.target!r} is not a mount point")


# actimeo=N is shown in /proc/mounts as these four times (nfs(5)); a mount's actimeo is theirs
AC_TIMES = ("acregmin", "acregmax", "acdirmin", "acdirmax")


def _mounted_value(options: list[str], key: str) -> str | None:
    """An option's value as the kernel shows a mount, where it may spell it otherwise than fstab."""
    if key == "actimeo":
        times = {_option_value(options, k) for k in AC_TIMES}
        return times.pop() if len(times) == 1 else None
    return _option_value(options, key)


def _option_value(options: list[str] | None, key: str) -> str | None:
    if options is None:
        return None
    if key in fstab.ATIME:
        present = [o for o in options if o in fstab.ATIME]
        return present[-1] if present else "strictatime"
    for o in options:
        k, sep, v = o.partition("=")
        if k == key:
            return v if sep else k
    return None


# What a remount passes for each atime mode. mount(8) merges the options it is given with the
# mount's current ones and its /etc/fstab entry's, and the kernel lets strictatime win over
# noatime and noatime over relatime: `remount,relatime` on a noatime mount stays noatime, and
# `remount,noatime` on a mount whose fstab says strictatime stays strictatime (seen on the kernel
# lab's NAS). `atime` clears noatime and `nostrictatime` strictatime first (Debian 12's util-linux).
NETWORK_FS = ("nfs", "nfs4", "cifs", "smb3")  # a client's shares: mounted again to take new options
REMOUNT = {"relatime": "nostrictatime,atime,relatime", "noatime": "nostrictatime,noatime"}


class MountOption(Knob):
    """A mount option changed by remount, in every mount namespace that serves the files."""

    doc = "a mount option, by remount (target: mountpoint, key: option)"
    persists = "fstab"

    kind, phase, needs_live = "mount_option", 40, True
    disruption = "the file system is remounted in place (no unmount)"

    def _remount(self, change: Change, value: Any) -> list[str]:
        return ["mount", "-o", f"remount,{REMOUNT.get(str(value), str(value))}", "--", change.target]

    def manual(self, change: Change, value: Any) -> str:
        return shlex.join(self._remount(change, value))

    def validate(self, change: Change) -> None:
        _mount_point(change, "mount_option")
        if change.key not in fstab.ATIME + ("nodiratime", "diratime"):
            raise TuneError(f"mount_option {change.target}: {change.key!r} cannot be changed by remount here")
        if change.new not in fstab.EXCLUSIVE[change.key]:
            raise TuneError(
                f"mount_option {change.target}: {change.new!r} is not one of {', '.join(fstab.EXCLUSIVE[change.key])}"
            )

    def read(self, system: System, change: Change) -> str | None:
        views = [system.read("/proc/self/mounts")]
        views += [system.read(f"/proc/{pid}/mounts") for pid in system.server_pids]
        values = {_option_value(_mount_options(v, change.target), self.key(change)) for v in views if v is not None}
        if not values or values == {None}:
            raise TuneError(f"mount_option: nothing is mounted at {change.target}")
        if len(values) > 1:  # no single original to restore: refuse rather than journal a non-value
            raise TuneError(
                f"{self.label(change)}: differs between the mount namespaces that serve it "
                f"({', '.join(sorted(str(v) for v in values))}); make them agree first"
            )
        return values.pop()

    def write(self, system: System, change: Change, value: Any) -> None:
        remount = self._remount(change, value)
        system.run(remount, what=self.label(change))
        for pid in system.server_pids:
            system.run(["nsenter", "-t", str(pid), "-m", *remount], what=f"{self.label(change)} (pid {pid})")


class FstabOption(Knob):
    """An option in /etc/fstab: client options (NFS rsize and nconnect, SMB max_channels) take
    effect at a mount, so a mounted share is mounted again. The kind keeps its first name: plans
    and journals record it."""

    doc = "a mount option in /etc/fstab, mounted again at once where mounted (target: mountpoint, key: option)"
    persists = "persistent"
    disruption = "the share is unmounted and mounted again on the client: files open on it must be closed first"

    kind, phase = "nfs_client_mount", 40

    def validate(self, change: Change) -> None:
        _mount_point(change, "nfs_client_mount")
        _safe(safe.MOUNT_OPTION, change.key, f"nfs_client_mount {change.target} option")
        if change.new is not None:
            _safe(safe.MOUNT_OPTION, change.new, f"nfs_client_mount {change.target} {change.key}")

    def files(self, system: System, change: Change) -> list[str]:
        return ["/etc/fstab"]

    def trades(self, change: Change, current: object) -> list[str]:
        if (change.key or "").lower() in trades.DURABLE_MOUNT_OPTIONS:
            return trades.changed(current, change.new)
        return []

    def read(self, system: System, change: Change) -> str | None:
        text = system.read("/etc/fstab")
        options = fstab.options(text or "", change.target)
        if options is None:
            raise TuneError(f"{self.label(change)}: /etc/fstab has no entry for {change.target}")
        return norm(_option_value(options, self.key(change)))

    def write(self, system: System, change: Change, value: Any) -> None:
        text = system.read("/etc/fstab") or ""
        try:
            edited = edits.fstab_set(text, change.target, self.key(change), None if value is None else str(value))
        except edits.EditError as e:
            raise TuneError(f"{self.label(change)}: {e}") from e
        system.root.replace("/etc/fstab", edited)
        if system.live and self._mounted_otherwise(system, change, value):
            self._mount_again(system, change, text)

    def restored(self, system: System, change: Change) -> None:
        """A mounted share takes the restored fstab's options, as it took the new ones."""
        if system.live and self._mounted_otherwise(system, change, self.read(system, change)):
            self._mount_again(system, change, system.read("/etc/fstab") or "")

    def _mounted_otherwise(self, system: System, change: Change, value: Any) -> bool:
        """Whether a client's network share is mounted now with another value (a NAS's own file
        system is never unmounted: its fstab is only written, as persist does)."""
        mounts = [m for m in parse_mounts(system.read("/proc/self/mounts") or "") if m.mountpoint == change.target]
        if not mounts or mounts[-1].fstype not in NETWORK_FS:
            return False
        return _mounted_value(mounts[-1].options, self.key(change)) != (None if value is None else str(value))

    def _mount_again(self, system: System, change: Change, before: str) -> None:
        """A mounted share takes its new options now (NFS keeps rsize and wsize over a remount, so
        it is unmounted and mounted from fstab); a mount that fails is made again as it was."""
        system.run(["umount", "--", change.target], what=f"{self.label(change)}: unmount")
        try:
            system.run(["mount", "--", change.target], what=f"{self.label(change)}: mount again")
        except TuneError:
            system.root.replace("/etc/fstab", before)
            system.run(["mount", "--", change.target], what=f"{self.label(change)}: mount as it was")
            raise


class MountReadAhead(Knob):
    """The read-ahead of a mounted file system by its mount point. Its bdi is named after the
    mount's device number, which an NFS or SMB mount gets anew at every mount, so the bdi is
    found at each read and write; after fstab options, whose mount again resets it."""

    doc = "the read-ahead in KiB of a mounted file system (target: mountpoint)"
    persists = "mount"
    kind, phase = "mount_read_ahead", 45

    def validate(self, change: Change) -> None:
        _mount_point(change, "mount_read_ahead")
        _int_range(change, 0, 65536, what="mount_read_ahead")

    def path(self, system: System, change: Change) -> str:
        device = {unescape(k): v for k, v in devices(system.read(MOUNTINFO) or "").items()}.get(change.target)
        if device is None:
            raise TuneError(f"{self.label(change)}: nothing is mounted there")
        return f"/sys/class/bdi/{device}/read_ahead_kb"

    def files(self, system: System, change: Change) -> list[str]:
        """In a tree the bdi's value is a plain file: journaled whole, so a rollback puts back
        its bytes; live, it holds a value."""
        return [] if system.live else [self.path(system, change)]

    def manual(self, change: Change, value: Any) -> str:
        bdi = f"/sys/class/bdi/$(mountpoint -d {shlex.quote(change.target)})"
        return f"echo {shlex.quote(str(value))} > {bdi}/read_ahead_kb"

    def read(self, system: System, change: Change) -> str | None:
        return norm(system.read(self.path(system, change)))

    def write(self, system: System, change: Change, value: Any) -> None:
        system.root.write(self.path(system, change), str(value))


class XfsFsr(Knob):
    """Defragmentation: a run, not a setting; it moves extents, never content. Its value is how
    long it may run, in seconds (xfs_fsr -t), or "defragmented": an hour."""

    doc = "an XFS defragmentation run (target: mountpoint; new: the seconds it may run, 60-86400)"
    persists = "action"
    disruption = "xfs_fsr reads and rewrites fragmented files: heavy disk load while it runs"

    kind, phase, action, needs_live = "xfs_fsr", 95, True, True
    measured_by = ("aged-read",)  # it rewrites fragmented files: reads of the aged set change
    HOUR = 3600

    def seconds(self, change: Change) -> int:
        return self.HOUR if change.new == "defragmented" else int(str(change.new))

    def validate(self, change: Change) -> None:
        if change.new != "defragmented":
            _int_range(change, 60, 86400, "xfs_fsr (seconds it may run)")

    def read(self, system: System, change: Change) -> str | None:
        return None

    def write(self, system: System, change: Change, value: Any) -> None:
        seconds = self.seconds(change)  # xfs_fsr stops itself then; the runner's bound is beyond it
        system.run(["xfs_fsr", "-v", "-t", str(seconds), change.target], what=self.label(change), timeout=seconds + 600)


# What autotune searches among the values of these knobs (tune/knobs/tunable.py)


class Atime(Tunable):
    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        mounts = query.served_mounts(facts)
        if not mounts:
            return None
        options = set(mounts[0].options)
        # /proc/mounts writes noatime or relatime and nothing for strictatime (lazytime is apart)
        current = next((a for a in ("noatime", "relatime") if a in options), "strictatime")
        return current, tuple(m.mountpoint for m in mounts), {}

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="mount_option", target=target, key="noatime", new=value)]


class ZfsRecordsize(Tunable):
    """The recordsize of the datasets that hold data (those with no child dataset), one value for all."""

    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        datasets = (facts.zfs.datasets.known_value or []) if facts.zfs else []
        names = {d.name for d in datasets}
        leaves = [d for d in datasets if not any(n.startswith(d.name + "/") for n in names)]
        sizes = {d.name: query.byte_count(d.properties.get("recordsize")) for d in leaves}
        sized = [name for name, size in sizes.items() if size]
        return (sizes[sized[0]], tuple(sized), {}) if sized else None

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="zfs_property", target=target, key="recordsize", new=f"{value // KiB}K")]


TUNABLES = [
    Atime("atime", "how the data file system records access times", Choice(("strictatime", "relatime", "noatime"))),
    ZfsRecordsize("zfs-recordsize", "the data datasets' ZFS recordsize", PowersOfTwo(16 * KiB, MiB, "bytes")),
]
