"""Boot-time persistence as journaled file writes: sysctl.d for sysctls, fstab for mount
options, the services' own files where they have one (ifupdown's interfaces for a statically
configured interface's MTU, nfs.conf for nfsd's threads, modprobe.d for a kernel module's
parameter such as zfs_arc_max, a TuneD child profile for a sysctl TuneD would otherwise set back),
and a systemd unit that re-applies the rest of the plan. Rollback
removes them. A ZFS dataset's properties need none of this: the pool keeps them."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from typing import Any

from nastune.conf import fstab
from nastune.root import Unavailable
from nastune.rules.model import Change
from nastune.tune import ifupdown, modprobe, netconf, nfsconf, tuned
from nastune.tune.knobs import KNOBS, Knob
from nastune.tune.plan import BOOT_FILE, Plan, PlannedChange
from nastune.tune.system import System, TuneError

SYSCTL = "/etc/sysctl.d/90-nastune.conf"
PLAN = "/var/lib/nastune/persist/plan.json"
UNIT = "/etc/systemd/system/nastune-reapply.service"
# What makes the unit start at boot: a drop-in that multi-user.target wants it, a regular file
# journaled like the others (the symbolic link `systemctl enable` makes is no file nastune
# writes; without either the unit is written and never runs, as a reboot of the kernel lab showed)
WANTED = "/etc/systemd/system/multi-user.target.d/nastune-reapply.conf"
# with netconf.OWN and modprobe.FILE: all persistence writes
PATHS = (SYSCTL, PLAN, UNIT, WANTED, ifupdown.PATH, nfsconf.PATH, *tuned.PATHS)
BOOT_STATE = "/var/lib/nastune/at-boot"  # the boot-time re-apply's own journals and lock


class FileKnob(Knob):
    """A whole file nastune writes for persistence (before: absent or its old content); only
    the files above, so a journal can never name another file for rollback to write."""

    kind = BOOT_FILE

    def validate(self, change: Change) -> None:
        owned = netconf.OWN.fullmatch(change.target) or modprobe.FILE.fullmatch(change.target)
        if change.target not in PATHS and not owned:
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
    out: list[tuple[PlannedChange, Knob, str | None]] = []
    sysctls, profile = tuned.routed(system, [c for c in applied if KNOBS[c.knob].persists == "sysctl.d"])
    out.extend(_file(system, path, text) for path, text in profile.items())
    if sysctls:
        text = "# Written by nastune apply --persist; removed by nastune rollback.\n" + "".join(
            f"{c.target} = {c.new}\n" for c in sysctls
        )
        out.append(_file(system, SYSCTL, text))
    table = system.read("/etc/fstab") or ""
    for c in applied:  # a mount without an fstab entry was mounted by hand: nothing to persist
        if KNOBS[c.knob].persists == "fstab" and fstab.options(table, c.target) is not None:
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
    `out`); the changes left for the boot unit. A service's file that does not exist is not made."""
    texts: dict[str, str] = {}  # each file as the changes so far leave it
    kept = []
    for c in changes:
        found = NATIVE[c.knob](system, c, texts) if c.knob in NATIVE else None
        if found:
            texts[found[0]] = found[1]
            kept.append(c)
    out.extend(_file(system, path, text) for path, text in texts.items() if text != system.read(path))
    return [c for c in changes if c not in kept]


def _mtu(system: System, c: PlannedChange, texts: dict[str, str]) -> tuple[str, str] | None:
    """Where the interface is configured at boot: a static stanza of ifupdown's, netplan's
    definition of it, the systemd-networkd .network file that matches it, or the NetworkManager
    keyfile bound to it by name (None: none of them, so the boot unit sets it)."""
    mtu, text = int(c.new), texts.get(ifupdown.PATH, system.read(ifupdown.PATH))
    edited = ifupdown.with_mtu(text, c.target, mtu) if text is not None else None
    if edited is not None:
        return ifupdown.PATH, edited
    for path in _listed(system, netconf.NETPLAN_DIR, ".yaml"):
        section = netconf.netplan_section(system.read(path) or "", c.target)
        if section and not netconf.OWN.fullmatch(path):
            return netconf.netplan_file(c.target, section, mtu)
    for path in _listed(system, netconf.NETWORKD_DIR, ".network"):
        if netconf.networkd_match(system.read(path) or "", c.target):
            return netconf.networkd_dropin(path, mtu)
    for path in _listed(system, netconf.NM_DIR, ".nmconnection"):
        keyfile = texts.get(path, system.read(path) or "")
        if netconf.keyfile_device(keyfile) == c.target and netconf.OWN.fullmatch(path):
            return path, netconf.keyfile_with_mtu(keyfile, mtu)
    return None


def _threads(system: System, c: PlannedChange, texts: dict[str, str]) -> tuple[str, str] | None:
    """nfsd's threads in /etc/nfs.conf, which nfs-server reads at every start (None: no such file)."""
    text = texts.get(nfsconf.PATH, system.read(nfsconf.PATH))
    edited = nfsconf.with_threads(text, int(c.new)) if text is not None else None
    return (nfsconf.PATH, edited) if edited is not None else None


def _listed(system: System, directory: str, suffix: str) -> list[str]:
    """A configuration directory's files of one kind, in the order their system reads them."""
    try:
        names = system.root.listdir(directory)
    except Unavailable:
        return []
    return [f"{directory}/{name}" for name in sorted(names) if name.endswith(suffix)]


def _module_option(system: System, c: PlannedChange, texts: dict[str, str]) -> tuple[str, str] | None:
    """A kernel module's parameter (zfs_arc_max) in modprobe.d, read when the module loads: in the
    file that sets it already, else in the module's own (None: not a module's parameter)."""
    found = modprobe.PARAMETER.fullmatch(c.target)
    if found is None or not str(c.new).isdigit():  # a number is all a module's line here may carry
        return None
    module, parameter = found.groups()
    files = [*texts, *_listed(system, modprobe.DIR, ".conf")]
    setting = next((p for p in files if modprobe.sets(texts.get(p, system.read(p) or ""), module, parameter)), None)
    path = setting or modprobe.module_file(module)
    return path, modprobe.with_option(texts.get(path, system.read(path) or ""), module, parameter, int(c.new))


# a setting kept in its service's own file: where and what to write (None: it is not kept there)
NATIVE: dict[str, Callable[[System, PlannedChange, dict[str, str]], tuple[str, str] | None]] = {
    "mtu": _mtu,
    "nfsd_threads": _threads,
    "sysfs": _module_option,
}


def _reapply(changes: list[PlannedChange]) -> str:
    """The boot's re-apply: what the operator confirmed and accepted when persisting holds at
    boot with nobody there (no confirm-or-revert wait, the risks they accepted accepted again)."""
    accepted = sorted({risk for c in changes for risk in c.risks})
    argv = [sys.executable, "-m", "nastune", "apply", PLAN, "--yes", "--confirm-timeout", "0"]
    return shlex.join(argv + [a for risk in accepted for a in ("--accept-risk", risk)])


def _file(system: System, path: str, text: str) -> tuple[PlannedChange, Knob, str | None]:
    return PlannedChange(id=0, knob="file", target=path, new=text, rule="persist"), FILE, system.read(path)
