"""Knobs in the file servers' configuration files: Samba, NFS-Ganesha exports, kernel NFS exports."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from nastune import commands
from nastune.conf import ganesha as ganesha_conf
from nastune.conf import safe
from nastune.conf import samba as samba_conf
from nastune.conf.exports import parse
from nastune.facts import Facts
from nastune.facts.context import Context
from nastune.facts.nfs_server import config_path
from nastune.facts.system import daemons
from nastune.rules.model import Change
from nastune.tune import edits
from nastune.tune.knobs import trades
from nastune.tune.knobs.base import Knob, _int_range, _safe, norm
from nastune.tune.knobs.domains import Choice, KiB, MiB, PowersOfTwo
from nastune.tune.knobs.tunable import Tunable
from nastune.tune.system import System, TuneError


def _config_of(system: System, daemon: str, flags: tuple[str, ...], default: str) -> str:
    """The config file a running daemon was started with (found once per system: it scans /proc)."""
    if daemon not in system.config_paths:
        running = [p for p in daemons(Context(system.root)) if p.name == daemon]
        system.config_paths[daemon] = config_path(running, flags, default)
    return system.config_paths[daemon]


CONFIG_FLAGS = {"smbd": ("-s", "--configfile"), "ganesha.nfsd": ("-f",)}  # how each names its config file


def samba_path(system: System) -> str:
    return _config_of(system, "smbd", CONFIG_FLAGS["smbd"], "/etc/samba/smb.conf")


def ganesha_path(system: System) -> str:
    return _config_of(system, "ganesha.nfsd", CONFIG_FLAGS["ganesha.nfsd"], "/etc/ganesha/ganesha.conf")


class Samba(Knob):
    doc = "a Samba parameter (target: global or share name, key: parameter)"
    persists = "persistent"
    kind, phase, service = "samba", 50, "samba"
    disruption = "Samba reloads its configuration (open sessions keep theirs)"

    def validate(self, change: Change) -> None:
        if not change.key or change.new is None:
            raise TuneError(f"samba [{change.target}]: a parameter and a one-line value are needed")
        _safe(safe.SAMBA_SECTION, change.target, "samba section")
        _safe(safe.SAMBA_KEY, change.key, f"samba [{change.target}] parameter")
        _safe(safe.SAMBA_VALUE, change.new, f"samba [{change.target}] {change.key}")

    def files(self, system: System, change: Change) -> list[str]:
        return [samba_path(system)]

    def trades(self, change: Change, current: object) -> list[str]:
        return trades.samba(change.target, change.key or "", current, change.new)

    def applicable(self, system: System, change: Change) -> str | None:
        path = samba_path(system)
        text = system.read(path)
        if text is None or change.key is None:
            return super().applicable(system, change)
        edited = samba_conf.with_param(text, change.target, change.key, change.new)
        return _overridden(system, path, edited, change, change.new)

    def read(self, system: System, change: Change) -> str | None:
        text = system.read(samba_path(system))
        if text is None:
            raise TuneError(f"{self.label(change)}: cannot read {samba_path(system)}")
        return norm(samba_conf.param(text, change.target, self.key(change)))

    def write(self, system: System, change: Change, value: Any) -> None:
        path = samba_path(system)
        edited = samba_conf.with_param(
            system.read(path) or "", change.target, self.key(change), None if value is None else str(value)
        )
        problem = _overridden(system, path, edited, change, value) or _samba_problem(system, path, edited)
        if problem:
            raise TuneError(f"{self.label(change)}: Samba would reject the edited {path}: {problem}")
        system.root.replace(path, edited)


def _overridden(system: System, path: str, edited: str, change: Change, value: Any) -> str | None:
    """Why an edit of `path` would not be what smbd reads: a file it includes (or a later line)
    sets the same parameter after it; nastune edits only the main file, restorable byte for byte."""
    done = samba_conf.read(path, edited, system.read, lambda p: "unreadable")
    section, key = change.target.lower(), samba_conf.normalise(change.key or "")
    final = done.sections.get(section, {}).get(key)
    if value is None or final == str(value):
        return None
    where = done.origin.get((section, key), path)
    return f"[{change.target}] {change.key} is set again in {where}, which smbd reads last; change it there"


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

    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(path), prefix=".nastune-check-", suffix=".conf") as copy:
        copy.write(text)
        copy.flush()
        check = commands.run(["testparm", "-s", copy.name], timeout=60)
    if not check.ok:
        return check.error or check.tail(1) or "testparm failed"
    return None


class GaneshaExport(Knob):
    doc = "an NFS-Ganesha export parameter (target: export id, key: parameter)"
    persists = "persistent"
    kind, phase, service = "ganesha_export", 50, "ganesha"
    disruption = "NFS-Ganesha restarts: NFS clients stall for seconds and reconnect"
    SIZES = ("maxread", "maxwrite", "prefread", "prefwrite")

    def validate(self, change: Change) -> None:
        _safe(safe.GANESHA_KEY, change.key, f"ganesha_export {change.target} parameter")
        _safe(safe.GANESHA_VALUE, change.target, "ganesha_export Export_Id")
        if change.new is not None:
            _safe(safe.GANESHA_VALUE, change.new, f"ganesha_export {change.target} {change.key}")
        if (change.key or "").lower() in self.SIZES:
            _int_range(change, 4096, 64 << 20, f"ganesha_export {change.key}")

    def files(self, system: System, change: Change) -> list[str]:
        return [ganesha_path(system)]

    def read(self, system: System, change: Change) -> str | None:
        text = system.read(ganesha_path(system))
        try:
            return norm(edits.ganesha_get(text or "", str(change.target), self.key(change)))
        except edits.EditError as e:
            raise TuneError(f"{self.label(change)}: {e}") from e

    def write(self, system: System, change: Change, value: Any) -> None:
        path = ganesha_path(system)
        try:
            original = system.read(path) or ""
            edited = edits.ganesha_set(
                original, str(change.target), self.key(change), None if value is None else str(value)
            )
            ganesha_conf.check(edited, original)
        except (edits.EditError, ganesha_conf.GaneshaSyntaxError) as e:
            raise TuneError(f"{self.label(change)}: {e}") from e
        system.root.replace(path, edited)


class NfsExport(Knob):
    doc = "a kernel NFS export option (target: export path, key: HOST:sync or HOST:async)"
    persists = "persistent"
    kind, phase, service = "nfs_export", 50, "exportfs"
    disruption = "the kernel NFS server re-exports (exportfs -ra)"

    def _split(self, change: Change) -> tuple[str, str]:
        host, _, option = (change.key or "").rpartition(":")
        if not host or option not in ("sync", "async"):
            raise TuneError(f"nfs_export {change.target}: key must be HOST:sync or HOST:async, not {change.key!r}")
        return host, option

    def validate(self, change: Change) -> None:
        host, _ = self._split(change)
        _safe(safe.HOST, host, f"nfs_export {change.target} client")
        if not str(change.target).startswith("/") or str(change.new) not in ("sync", "async"):
            raise TuneError(f"nfs_export {change.target}: needs an absolute path and sync or async")

    def files(self, system: System, change: Change) -> list[str]:
        return ["/etc/exports"]

    def trades(self, change: Change, current: object) -> list[str]:
        return trades.changed(current, change.new)

    def applicable(self, system: System, change: Change) -> str | None:
        """The edit tried on the file as it is, so a client nastune cannot find fails the plan
        before anything is written, not halfway through it."""
        host, _ = self._split(change)
        try:
            edits.exports_set(system.read("/etc/exports") or "", change.target, host, str(change.new))
        except edits.EditError as e:
            return str(e)
        return super().applicable(system, change)

    def read(self, system: System, change: Change) -> str | None:
        host, _ = self._split(change)
        for export in parse(system.read("/etc/exports") or "", "/etc/exports", problems=[]):
            for client in export.clients:
                if export.path == change.target and client.host == host:
                    return client.last("sync", "async") or "sync"
        raise TuneError(f"{self.label(change)}: /etc/exports has no client {host} for {change.target}")

    def write(self, system: System, change: Change, value: Any) -> None:
        host, _ = self._split(change)
        try:
            system.root.replace(
                "/etc/exports", edits.exports_set(system.read("/etc/exports") or "", change.target, host, str(value))
            )
        except edits.EditError as e:
            raise TuneError(f"{self.label(change)}: {e}") from e


# What autotune searches among the values of these knobs (tune/knobs/tunable.py)


class NfsTransferSize(Tunable):
    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        g = facts.nfs_server.ganesha if facts.nfs_server else None
        if g is None or not g.known or g.value is None:
            return None
        # the exports nastune can edit: in the main file, with an Export_Id
        exports = [e for e in g.value.exports if e.export_id is not None and e.file in ("", g.value.path)]
        if not exports:
            return None
        return exports[0].max_read, tuple(str(e.export_id) for e in exports), {}

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        keys = ("MaxRead", "MaxWrite", "PrefRead", "PrefWrite")
        return [Change(knob="ganesha_export", target=target, key=key, new=value) for key in keys]


SAMBA_DEFAULTS = {"socket options": "TCP_NODELAY", "aio read size": "1", "aio write size": "1", "use sendfile": "no"}


class SambaChoice(Tunable):
    """Samba [global] parameters set together from one named value."""

    def __init__(self, name: str, doc: str, values: dict[str, dict[str, str]]):
        super().__init__(name, doc, Choice(tuple(values)))
        self.settings = values

    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        c = facts.smb.config.value if facts.smb and facts.smb.config.known else None
        if c is None:
            return None
        keys = next(iter(self.settings.values()))
        now = {key: " ".join(c.globals.get(key, SAMBA_DEFAULTS[key]).split()).lower() for key in keys}
        for value, params in self.settings.items():
            if all(now[key] == " ".join(v.split()).lower() for key, v in params.items()):
                return value, ("global",), {}
        return None, ("global",), {}

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="samba", target=target, key=key, new=v) for key, v in self.settings[value].items()]


BUFFERS = "TCP_NODELAY SO_RCVBUF={0} SO_SNDBUF={0}"
TUNABLES = [
    NfsTransferSize(
        "nfs-transfer-size",
        "NFS-Ganesha MaxRead, MaxWrite, PrefRead, PrefWrite (kept equal)",
        PowersOfTwo(8 * KiB, 1 * MiB, "bytes"),
    ),
    SambaChoice(
        "smb-socket-buffers",
        "Samba's socket options: kernel-tuned buffers or fixed ones",
        {
            "auto": {"socket options": "TCP_NODELAY"},
            "64k": {"socket options": BUFFERS.format(65536)},
            "256k": {"socket options": BUFFERS.format(262144)},
        },
    ),
    SambaChoice(
        "smb-aio",
        "Samba's asynchronous reads and writes (aio read size, aio write size)",
        {
            "off": {"aio read size": "0", "aio write size": "0"},
            "on": {"aio read size": "1", "aio write size": "1"},
        },
    ),
    SambaChoice("smb-sendfile", "Samba's use sendfile", {"no": {"use sendfile": "no"}, "yes": {"use sendfile": "yes"}}),
]
