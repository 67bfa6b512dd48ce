"""Every kind of knob as a declared pair: read the current value, write a new one (the
executor reads it back). One class per kind; KNOBS maps the kind names rules use."""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import ClassVar

from nastune.conf import ganesha as ganesha_conf
from nastune.conf import safe
from nastune.conf import samba as samba_conf
from nastune.facts.context import cpu_list
from nastune.facts.mounts import parse_mounts
from nastune.facts.network import ethtool_coalesce, ethtool_features, ethtool_rings
from nastune.facts.nfs_server import config_path
from nastune.rules.model import Change
from nastune.tune import edits
from nastune.tune.system import System, TuneError


def norm(value) -> str | None:
    return None if value is None else " ".join(str(value).split())


class Knob:
    kind = ""
    phase = 50  # apply order: kernel values, then files and services, network last
    network = False  # may cut an operator off: confirm-or-revert on a live host
    action = False  # a one-off run, not a setting (nothing to read back or restore)
    needs_live = False  # runs a command (remount, ethtool, zfs): impossible on a directory tree
    service: str | None = None  # what must reload after a change

    def applicable(self, system: System, change: Change) -> str | None:
        """Why this change cannot be made on this system at all (checked before any write)."""
        if self.needs_live and not system.live:
            return f"needs a live system; {system.root.path} is a directory tree"
        return None

    def manual(self, change: Change, value) -> str:
        """The command an operator runs to set `value` by hand when nastune cannot."""
        return f"set {self.label(change)} to {value!r} by hand"

    def validate(self, change: Change) -> None:
        """Reject malformed or out-of-range values before anything is touched."""

    def files(self, system: System, change: Change) -> list[str]:
        """Config files this change edits (snapshotted whole, restored byte for byte)."""
        return []

    def read(self, system: System, change: Change) -> str | None:
        raise NotImplementedError

    def write(self, system: System, change: Change, value) -> None:
        raise NotImplementedError

    def label(self, change: Change) -> str:
        return f"{self.kind} {change.target}" + (f" {change.key}" if change.key else "")


def _safe(pattern, value, what: str) -> None:
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


class FileValue(Knob):
    """A value that is one kernel file (/proc/sys, /sys, /proc/irq)."""

    def path(self, change: Change) -> str:
        raise NotImplementedError

    def manual(self, change, value):
        return f"echo {shlex.quote(str(value))} > {self.path(change)}"

    def read(self, system, change):
        text = system.read(self.path(change))
        return norm(text)

    def write(self, system, change, value):
        from nastune.root import Unavailable

        try:
            system.root.write(self.path(change), str(value))
        except Unavailable as e:
            raise TuneError(f"{self.label(change)}: {e.reason}") from e


class Sysctl(FileValue):
    kind, phase = "sysctl", 10

    def validate(self, change):
        if not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_-]+)+", change.target or ""):
            raise TuneError(f"sysctl: {change.target!r} is not a sysctl key")
        if not re.fullmatch(r"[A-Za-z0-9_ \t.-]+", str(change.new)):
            raise TuneError(f"sysctl {change.target}: {change.new!r} is not a sysctl value")

    def path(self, change):
        return "/proc/sys/" + change.target.replace(".", "/")

    def manual(self, change, value):
        return f"sysctl -w {shlex.quote(f'{change.target}={value}')}"

    def _per_namespace(self, system, change) -> bool:
        return bool(system.netns) and change.target.startswith("net.")

    def read(self, system, change):
        if self._per_namespace(system, change):
            return norm(system.run(["sysctl", "-n", change.target], in_netns=True))
        return super().read(system, change)

    def write(self, system, change, value):
        if self._per_namespace(system, change):
            system.run(["sysctl", "-q", "-w", f"{change.target}={value}"], in_netns=True, what=self.label(change))
        else:
            super().write(system, change, value)


class Sysfs(FileValue):
    kind, phase = "sysfs", 20
    RANGES: ClassVar[dict[str, tuple[int, int]]] = {
        "stripe_cache_size": (17, 32768),
        "read_ahead_kb": (0, 65536),
        "nr_requests": (4, 100000),
    }

    def validate(self, change):
        if not (change.target or "").startswith("/sys/") or ".." in change.target:
            raise TuneError(f"sysfs: {change.target!r} is not a path under /sys")
        name = change.target.rsplit("/", 1)[-1]
        if name in self.RANGES:
            _int_range(change, *self.RANGES[name], what="sysfs")

    def path(self, change):
        return change.target

    def read(self, system, change):
        text = system.read(change.target)
        if text is not None and change.target.endswith("/scheduler"):
            active = re.search(r"\[([^\]]+)\]", text)
            return active.group(1) if active else norm(text)
        return norm(text)

    def write(self, system, change, value):
        if change.target.endswith("/scheduler"):
            available = (system.read(change.target) or "").replace("[", " ").replace("]", " ").split()
            if available and str(value) not in available:
                raise TuneError(f"sysfs {change.target}: {value!r} is not one of {', '.join(available)}")
            if not system.live:  # a tree keeps the file as the kernel shows it: all, the active one in []
                value = " ".join(f"[{n}]" if n == str(value) else n for n in available) + "\n"
        super().write(system, change, value)


class IrqAffinity(FileValue):
    kind, phase = "irq_affinity", 20

    def validate(self, change):
        if not re.fullmatch(r"irq/\d+", change.target or ""):
            raise TuneError(f"irq_affinity: {change.target!r} is not irq/N")
        try:
            if not cpu_list(str(change.new)):
                raise ValueError("empty")
        except ValueError as e:
            raise TuneError(f"irq_affinity {change.target}: {change.new!r} is not a CPU list") from e

    def path(self, change):
        return f"/proc/{change.target}/smp_affinity_list"

    def write(self, system, change, value):
        online = system.read("/sys/devices/system/cpu/online")
        if online and not set(cpu_list(str(value))) <= set(cpu_list(online)):
            raise TuneError(f"{self.label(change)}: CPUs {value} are not all online ({online.strip()})")
        super().write(system, change, value)


class NfsdThreads(FileValue):
    kind, phase = "nfsd_threads", 30

    def validate(self, change):
        _int_range(change, 1, 8192, "nfsd_threads")

    def path(self, change):
        return "/proc/fs/nfsd/threads"


class Mtu(FileValue):
    kind, phase, network = "mtu", 90, True

    def validate(self, change):
        _int_range(change, 68, 65535, "mtu")

    def path(self, change):
        return f"/sys/class/net/{change.target}/mtu"

    def manual(self, change, value):
        return f"ip link set dev {shlex.quote(change.target)} mtu {value}"

    def read(self, system, change):
        if system.netns:
            data = json.loads(system.run(["ip", "-j", "link", "show", "dev", change.target], in_netns=True))
            return norm(data[0]["mtu"])
        return super().read(system, change)

    def write(self, system, change, value):
        if not (system.netns or system.live):
            return super().write(system, change, value)
        # In the lab, every host and the switch of the segment get the MTU: they must agree.
        for ns in system.peer_netns:
            links = json.loads(system.run(["ip", "-n", ns, "-j", "link", "show"]))
            for link in links:
                if link["ifname"] != "lo":
                    system.run(
                        ["ip", "-n", ns, "link", "set", "dev", link["ifname"], "mtu", str(value)],
                        what=f"{self.label(change)} on {ns}",
                    )
        system.run(
            ["ip", "link", "set", "dev", change.target, "mtu", str(value)], in_netns=True, what=self.label(change)
        )


class Ethtool(Knob):
    phase, network, needs_live = 90, True, True
    flag = ""

    def manual(self, change, value):
        return shlex.join(["ethtool", self.flag, change.target, change.key or "", str(value)])

    def read(self, system, change):
        raise NotImplementedError

    def write(self, system, change, value):
        system.run(
            ["ethtool", self.flag, change.target, change.key, str(value)], in_netns=True, what=self.label(change)
        )


class EthtoolFeature(Ethtool):
    kind, flag = "ethtool_feature", "-K"

    def validate(self, change):
        if str(change.new) not in ("on", "off"):
            raise TuneError(f"ethtool_feature {change.target} {change.key}: {change.new!r} must be on or off")

    def read(self, system, change):
        features = ethtool_features(system.run(["ethtool", "--json", "-k", change.target], in_netns=True))
        feature = features.get(change.key)
        if feature is None:
            raise TuneError(f"{self.label(change)}: the NIC has no feature {change.key!r}")
        return "on" if feature.active else "off"


class EthtoolCoalesce(Ethtool):
    kind, flag = "ethtool_coalesce", "-C"

    def read(self, system, change):
        c = ethtool_coalesce(system.run(["ethtool", "-c", change.target], in_netns=True))
        if change.key in ("adaptive-rx", "adaptive-tx"):
            value = c.adaptive_rx if change.key == "adaptive-rx" else c.adaptive_tx
            return None if value is None else ("on" if value else "off")
        return norm(c.params.get(change.key))


class EthtoolRing(Ethtool):
    kind, flag = "ethtool_ring", "-G"

    def validate(self, change):
        _int_range(change, 1, 1 << 20, "ethtool_ring")

    def read(self, system, change):
        return norm(ethtool_rings(system.run(["ethtool", "-g", change.target], in_netns=True)).current.get(change.key))


def _mount_options(text: str | None, mountpoint: str) -> list[str] | None:
    """The options of the last mount at `mountpoint` in a mount table (escapes like \\040 decoded)."""
    try:
        found = [m.options for m in parse_mounts(text or "") if m.mountpoint == mountpoint]
    except ValueError:
        return None
    return found[-1] if found else None


def _option_value(options: list[str] | None, key: str) -> str | None:
    if options is None:
        return None
    if key in edits.ATIME:
        present = [o for o in options if o in edits.ATIME]
        return present[-1] if present else "strictatime"
    for o in options:
        k, sep, v = o.partition("=")
        if k == key:
            return v if sep else k
    return None


class MountOption(Knob):
    """A mount option changed by remount, in every mount namespace that serves the files."""

    kind, phase, needs_live = "mount_option", 40, True

    def manual(self, change, value):
        return shlex.join(["mount", "-o", f"remount,{value}", change.target])

    def validate(self, change):
        if not str(change.target).startswith("/"):
            raise TuneError(f"mount_option: {change.target!r} is not a mount point")
        if change.key not in edits.ATIME + ("nodiratime", "diratime"):
            raise TuneError(f"mount_option {change.target}: {change.key!r} cannot be changed by remount here")
        if change.new not in edits.EXCLUSIVE[change.key]:
            raise TuneError(
                f"mount_option {change.target}: {change.new!r} is not one of {', '.join(edits.EXCLUSIVE[change.key])}"
            )

    def read(self, system, change):
        views = [system.read("/proc/self/mounts")]
        views += [system.read(f"/proc/{pid}/mounts") for pid in system.server_pids]
        values = {_option_value(_mount_options(v, change.target), change.key) for v in views if v is not None}
        if not values or values == {None}:
            raise TuneError(f"mount_option: nothing is mounted at {change.target}")
        if len(values) > 1:  # no single original to restore: refuse rather than journal a non-value
            raise TuneError(
                f"{self.label(change)}: differs between the mount namespaces that serve it "
                f"({', '.join(sorted(str(v) for v in values))}); make them agree first"
            )
        return values.pop()

    def write(self, system, change, value):
        remount = ["mount", "-o", f"remount,{value}", change.target]
        system.run(remount, what=self.label(change))
        for pid in system.server_pids:
            system.run(["nsenter", "-t", str(pid), "-m", *remount], what=f"{self.label(change)} (pid {pid})")


class FstabOption(Knob):
    """An option in /etc/fstab: NFS client options (rsize, noatime) take effect at the next mount."""

    kind, phase = "nfs_client_mount", 40

    def validate(self, change):
        if not str(change.target).startswith("/"):
            raise TuneError(f"nfs_client_mount: {change.target!r} is not a mount point")
        _safe(safe.MOUNT_OPTION, change.key, f"nfs_client_mount {change.target} option")
        if change.new is not None:
            _safe(safe.MOUNT_OPTION, change.new, f"nfs_client_mount {change.target} {change.key}")

    def files(self, system, change):
        return ["/etc/fstab"]

    def read(self, system, change):
        text = system.read("/etc/fstab")
        options = edits.fstab_options(text or "", change.target)
        if options is None:
            raise TuneError(f"{self.label(change)}: /etc/fstab has no entry for {change.target}")
        return norm(_option_value(options, change.key))

    def write(self, system, change, value):
        text = system.read("/etc/fstab")
        try:
            system.root.replace(
                "/etc/fstab",
                edits.fstab_set(text or "", change.target, change.key, None if value is None else str(value)),
            )
        except edits.EditError as e:
            raise TuneError(f"{self.label(change)}: {e}") from e


def _config_of(system: System, daemon: str, flags: tuple[str, ...], default: str) -> str:
    """The config file a running daemon was started with (found once per system: it scans /proc)."""
    if daemon not in system.config_paths:
        from nastune.facts.context import Context
        from nastune.facts.system import daemons

        running = [p for p in daemons(Context(system.root)) if p.name == daemon]
        system.config_paths[daemon] = config_path(running, flags, default)
    return system.config_paths[daemon]


def samba_path(system: System) -> str:
    return _config_of(system, "smbd", ("-s", "--configfile"), "/etc/samba/smb.conf")


def ganesha_path(system: System) -> str:
    return _config_of(system, "ganesha.nfsd", ("-f",), "/etc/ganesha/ganesha.conf")


class Samba(Knob):
    kind, phase, service = "samba", 50, "samba"

    def validate(self, change):
        if not change.key or change.new is None:
            raise TuneError(f"samba [{change.target}]: a parameter and a one-line value are needed")
        _safe(safe.SAMBA_SECTION, change.target, "samba section")
        _safe(safe.SAMBA_KEY, change.key, f"samba [{change.target}] parameter")
        _safe(safe.SAMBA_VALUE, change.new, f"samba [{change.target}] {change.key}")

    def files(self, system, change):
        return [samba_path(system)]

    def read(self, system, change):
        text = system.read(samba_path(system))
        if text is None:
            raise TuneError(f"{self.label(change)}: cannot read {samba_path(system)}")
        return norm(edits.samba_get(text, change.target, change.key))

    def write(self, system, change, value):
        path = samba_path(system)
        edited = edits.samba_set(
            system.read(path) or "", change.target, change.key, None if value is None else str(value)
        )
        problem = _samba_problem(system, path, edited)
        if problem:
            raise TuneError(f"{self.label(change)}: Samba would reject the edited {path}: {problem}")
        system.root.replace(path, edited)


def _samba_problem(system: System, path: str, text: str) -> str | None:
    """Why Samba would refuse `text` as `path`, checked before it is written. Live, testparm
    reads a copy beside the file (so relative includes mean the same); in a tree only the
    parser runs, because testparm would follow `include =` out of the tree."""
    if not system.live:
        try:
            samba_conf.parse(text)
        except ValueError as e:
            return str(e)
        return None
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), prefix=".nastune-check-", suffix=".conf") as copy:
        copy.write(text)
        copy.flush()
        check = subprocess.run(
            ["testparm", "-s", copy.name], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
        )
    if check.returncode != 0:
        return (check.stderr.strip().splitlines() or ["testparm failed"])[-1]
    return None


class GaneshaExport(Knob):
    kind, phase, service = "ganesha_export", 50, "ganesha"
    SIZES = ("maxread", "maxwrite", "prefread", "prefwrite")

    def validate(self, change):
        _safe(safe.GANESHA_KEY, change.key, f"ganesha_export {change.target} parameter")
        _safe(safe.GANESHA_VALUE, change.target, "ganesha_export Export_Id")
        if change.new is not None:
            _safe(safe.GANESHA_VALUE, change.new, f"ganesha_export {change.target} {change.key}")
        if (change.key or "").lower() in self.SIZES:
            _int_range(change, 4096, 64 << 20, f"ganesha_export {change.key}")

    def files(self, system, change):
        return [ganesha_path(system)]

    def read(self, system, change):
        text = system.read(ganesha_path(system))
        try:
            return norm(edits.ganesha_get(text or "", str(change.target), change.key))
        except edits.EditError as e:
            raise TuneError(f"{self.label(change)}: {e}") from e

    def write(self, system, change, value):
        path = ganesha_path(system)
        try:
            edited = edits.ganesha_set(
                system.read(path) or "", str(change.target), change.key, None if value is None else str(value)
            )
            ganesha_conf.parse(edited)
        except (edits.EditError, ganesha_conf.GaneshaSyntaxError) as e:
            raise TuneError(f"{self.label(change)}: {e}") from e
        system.root.replace(path, edited)


class NfsExport(Knob):
    kind, phase, service = "nfs_export", 50, "exportfs"

    def _split(self, change):
        host, _, option = (change.key or "").rpartition(":")
        if not host or option not in ("sync", "async"):
            raise TuneError(f"nfs_export {change.target}: key must be HOST:sync or HOST:async, not {change.key!r}")
        return host, option

    def validate(self, change):
        host, _ = self._split(change)
        _safe(safe.HOST, host, f"nfs_export {change.target} client")
        if not str(change.target).startswith("/") or str(change.new) not in ("sync", "async"):
            raise TuneError(f"nfs_export {change.target}: needs an absolute path and sync or async")

    def files(self, system, change):
        return ["/etc/exports"]

    def read(self, system, change):
        from nastune.conf.exports import parse

        host, _ = self._split(change)
        for export in parse(system.read("/etc/exports") or "", "/etc/exports"):
            for client in export.clients:
                if export.path == change.target and client.host == host:
                    return "async" if "async" in client.options else "sync"
        raise TuneError(f"{self.label(change)}: /etc/exports has no client {host} for {change.target}")

    def write(self, system, change, value):
        host, _ = self._split(change)
        try:
            system.root.replace(
                "/etc/exports", edits.exports_set(system.read("/etc/exports") or "", change.target, host, str(value))
            )
        except edits.EditError as e:
            raise TuneError(f"{self.label(change)}: {e}") from e


class ZfsProperty(Knob):
    kind, phase, needs_live = "zfs_property", 60, True

    def manual(self, change, value):
        return shlex.join(["zfs", "set", f"{change.key}={value}", change.target])

    ALLOWED: ClassVar[dict[str, tuple[str, ...]]] = {
        "compression": ("off", "on", "lz4", "lzjb", "gzip", "zstd"),
        "sync": ("standard", "always", "disabled"),
        "dedup": ("on", "off"),
        "atime": ("on", "off"),
        "relatime": ("on", "off"),
    }

    def validate(self, change):
        allowed = self.ALLOWED.get(change.key)
        if allowed is None:
            raise TuneError(f"zfs_property {change.target}: property {change.key!r} is not one nastune sets")
        if str(change.new) not in allowed:
            raise TuneError(
                f"zfs_property {change.target} {change.key}: {change.new!r} is not one of {', '.join(allowed)}"
            )

    def read(self, system, change):
        return norm(system.run(["zfs", "get", "-H", "-o", "value", change.key, change.target]))

    def write(self, system, change, value):
        system.run(["zfs", "set", f"{change.key}={value}", change.target], what=self.label(change))


class XfsFsr(Knob):
    """Defragmentation: a run, not a setting; it moves extents, never content."""

    kind, phase, action, needs_live = "xfs_fsr", 95, True, True

    def read(self, system, change):
        return None

    def write(self, system, change, value):
        system.run(["xfs_fsr", "-v", "-t", "3600", change.target], what=self.label(change))


KNOBS: dict[str, Knob] = {
    k.kind: k
    for k in (
        Sysctl(),
        Sysfs(),
        IrqAffinity(),
        NfsdThreads(),
        Mtu(),
        EthtoolFeature(),
        EthtoolCoalesce(),
        EthtoolRing(),
        MountOption(),
        FstabOption(),
        Samba(),
        GaneshaExport(),
        NfsExport(),
        ZfsProperty(),
        XfsFsr(),
    )
}
