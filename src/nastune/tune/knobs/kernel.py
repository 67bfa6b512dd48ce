"""Knobs that are one kernel file: sysctls, /sys attributes, IRQ affinity, nfsd threads."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any, ClassVar

from nastune.errors import UsageError
from nastune.facts import Facts
from nastune.facts.context import cpu_list
from nastune.root import Unavailable
from nastune.rules import query
from nastune.rules.model import Change
from nastune.tune.knobs import trades
from nastune.tune.knobs.base import Knob, _int_range, norm
from nastune.tune.knobs.domains import Choice, GiB, KiB, MiB, PowersOfTwo, Steps
from nastune.tune.knobs.tunable import Tunable
from nastune.tune.system import System, TuneError


class FileValue(Knob):
    """A value that is one kernel file (/proc/sys, /sys, /proc/irq)."""

    def path(self, change: Change) -> str:
        raise NotImplementedError

    def manual(self, change: Change, value: Any) -> str:
        return f"echo {shlex.quote(str(value))} > {self.path(change)}"

    def files(self, system: System, change: Change) -> list[str]:
        """In a tree a kernel value is a plain file: journaled whole, so a rollback puts back its
        bytes (tabs, the final newline), not only its value. Live, /proc and /sys hold values."""
        if system.live or not system.root.exists(self.path(change)):
            return []
        return [self.path(change)]

    def read(self, system: System, change: Change) -> str | None:
        text = system.read(self.path(change))
        return norm(text)

    def write(self, system: System, change: Change, value: Any) -> None:
        try:
            system.root.write(self.path(change), str(value))
        except Unavailable as e:
            raise TuneError(f"{self.label(change)}: {e.reason}") from e


class Sysctl(FileValue):
    doc = "a kernel tunable under /proc/sys (target: the key)"
    persists = "sysctl.d"
    kind, phase = "sysctl", 10

    def validate(self, change: Change) -> None:
        if not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_-]+)+", change.target or ""):
            raise TuneError(f"sysctl: {change.target!r} is not a sysctl key")
        if not re.fullmatch(r"[A-Za-z0-9_ \t.-]+", str(change.new)):
            raise TuneError(f"sysctl {change.target}: {change.new!r} is not a sysctl value")

    def path(self, change: Change) -> str:
        return "/proc/sys/" + change.target.replace(".", "/")

    def trades(self, change: Change, current: object) -> list[str]:
        return trades.sysctl(change.target, current, change.new)

    def manual(self, change: Change, value: Any) -> str:
        return f"sysctl -w {shlex.quote(f'{change.target}={value}')}"

    def _per_namespace(self, system: System, change: Change) -> bool:
        return system.own_network and change.target.startswith("net.")

    def read(self, system: System, change: Change) -> str | None:
        if self._per_namespace(system, change):
            return norm(system.run_net(["sysctl", "-n", change.target]))
        return super().read(system, change)

    def write(self, system: System, change: Change, value: Any) -> None:
        if self._per_namespace(system, change):
            system.run_net(["sysctl", "-q", "-w", f"{change.target}={value}"], what=self.label(change))
        else:
            super().write(system, change, value)


class Sysfs(FileValue):
    doc = "a file under /sys (target: its path)"
    persists = "unit"
    kind, phase = "sysfs", 20
    RANGES: ClassVar[dict[str, tuple[int, int]]] = {
        "stripe_cache_size": (17, 32768),
        "read_ahead_kb": (0, 65536),
        "nr_requests": (4, 100000),
    }

    def validate(self, change: Change) -> None:
        if not (change.target or "").startswith("/sys/") or ".." in change.target:
            raise TuneError(f"sysfs: {change.target!r} is not a path under /sys")
        name = change.target.rsplit("/", 1)[-1]
        if name in self.RANGES:
            _int_range(change, *self.RANGES[name], what="sysfs")

    def path(self, change: Change) -> str:
        return change.target

    def read(self, system: System, change: Change) -> str | None:
        text = system.read(change.target)
        if text is not None and change.target.endswith("/scheduler"):
            active = re.search(r"\[([^\]]+)\]", text)
            return active.group(1) if active else norm(text)
        return norm(text)

    def write(self, system: System, change: Change, value: Any) -> None:
        if change.target.endswith("/scheduler"):
            available = (system.read(change.target) or "").replace("[", " ").replace("]", " ").split()
            if available and str(value) not in available:
                raise TuneError(f"sysfs {change.target}: {value!r} is not one of {', '.join(available)}")
            if not system.live:  # a tree keeps the file as the kernel shows it: all, the active one in []
                value = " ".join(f"[{n}]" if n == str(value) else n for n in available) + "\n"
        super().write(system, change, value)


class IrqAffinity(FileValue):
    doc = "an IRQ's smp_affinity_list (target: irq/N)"
    persists = "unit"
    kind, phase = "irq_affinity", 20

    def validate(self, change: Change) -> None:
        if not re.fullmatch(r"irq/\d+", change.target or ""):
            raise TuneError(f"irq_affinity: {change.target!r} is not irq/N")
        try:
            if not cpu_list(str(change.new)):
                raise UsageError("empty")
        except ValueError as e:
            raise TuneError(f"irq_affinity {change.target}: {change.new!r} is not a CPU list") from e

    def path(self, change: Change) -> str:
        return f"/proc/{change.target}/smp_affinity_list"

    def write(self, system: System, change: Change, value: Any) -> None:
        online = system.read("/sys/devices/system/cpu/online")
        try:
            known = set(cpu_list(online)) if online else None
        except ValueError as e:
            raise TuneError(f"{self.label(change)}: /sys/devices/system/cpu/online: {e}") from e
        if online and known is not None and not set(cpu_list(str(value))) <= known:
            raise TuneError(f"{self.label(change)}: CPUs {value} are not all online ({online.strip()})")
        super().write(system, change, value)


class NfsdThreads(FileValue):
    doc = "the kernel NFS server's thread count (target: nfsd)"
    persists = "unit"
    kind, phase = "nfsd_threads", 30

    def validate(self, change: Change) -> None:
        _int_range(change, 1, 8192, "nfsd_threads")

    def path(self, change: Change) -> str:
        return "/proc/fs/nfsd/threads"


class CpuGovernor(Knob):
    """Every CPU's cpufreq governor. Read as one name when all CPUs agree, else as cpuN=name,...
    so a rollback puts back each CPU's own."""

    doc = "the cpufreq scaling governor of every CPU (target: cpufreq)"
    persists = "unit"
    kind, phase = "cpu_governor", 20
    BASE = "/sys/devices/system/cpu"

    def validate(self, change: Change) -> None:
        if change.target != "cpufreq" or not re.fullmatch(r"[a-z_]+|(cpu\d+=[a-z_]+,?)+", str(change.new)):
            raise TuneError(f"cpu_governor: target cpufreq and a governor name are needed, not {change.new!r}")

    def _cpus(self, system: System) -> list[str]:
        names = system.root.listdir(self.BASE) if system.root.exists(self.BASE) else []
        found = [n for n in names if re.fullmatch(r"cpu\d+", n)]
        return sorted(
            (n for n in found if system.root.exists(f"{self.BASE}/{n}/cpufreq/scaling_governor")),
            key=lambda n: int(n[3:]),
        )

    def applicable(self, system: System, change: Change) -> str | None:
        if not self._cpus(system):
            return f"no CPU here has cpufreq ({self.BASE}/cpu*/cpufreq): nothing to set (a VM, most often)"
        return super().applicable(system, change)

    def files(self, system: System, change: Change) -> list[str]:
        return [] if system.live else [f"{self.BASE}/{n}/cpufreq/scaling_governor" for n in self._cpus(system)]

    def read(self, system: System, change: Change) -> str | None:
        each = {n: norm(system.read(f"{self.BASE}/{n}/cpufreq/scaling_governor")) for n in self._cpus(system)}
        if len(set(each.values())) == 1:
            return next(iter(each.values()))
        return ",".join(f"{n}={g}" for n, g in each.items())

    def write(self, system: System, change: Change, value: Any) -> None:
        per_cpu = dict(p.split("=", 1) for p in str(value).split(",") if "=" in p)
        for n in self._cpus(system):
            governor = per_cpu.get(n, str(value))
            path = f"{self.BASE}/{n}/cpufreq/scaling_governor"
            available = (system.read(f"{self.BASE}/{n}/cpufreq/scaling_available_governors") or "").split()
            if available and governor not in available:
                raise TuneError(f"{self.label(change)}: {n} offers {', '.join(available)}, not {governor}")
            try:
                system.root.write(path, governor)
            except Unavailable as e:
                raise TuneError(f"{self.label(change)}: {e.reason}") from e


# What autotune searches among the values of these knobs (tune/knobs/tunable.py)


class TcpBufferMax(Tunable):
    KEYS = ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")

    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        found = [facts.sysctl.ints(key) for key in self.KEYS] if facts.sysctl else []
        values = [v for v in found if v and len(v) == 3]
        if not values or len(values) < len(self.KEYS):
            return None
        return values[0][2], self.KEYS, {key: v[:2] for key, v in zip(self.KEYS, values)}

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        low, default = context[target]
        return [Change(knob="sysctl", target=target, new=f"{low} {min(default, value)} {value}")]

    def value_of(self, planned: Sequence[Change]) -> int | None:
        maxima = {int(str(p.new).split()[-1]) for p in planned if str(p.new).split()[-1:] != []}
        return max(maxima) if maxima else None


class VmRatio(Tunable):
    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        value = facts.sysctl.int(self.key) if facts.sysctl else None
        return None if value is None else (value, (self.key,), {})

    @property
    def key(self) -> str:
        return "vm." + self.name.replace("-", "_")

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="sysctl", target=target, new=value)]


class NotsentLowat(VmRatio):
    """How much unsent data a TCP socket may queue (its kernel default, 4294967295, is no limit)."""

    @property
    def key(self) -> str:
        return "net.ipv4.tcp_notsent_lowat"


class ReadAhead(Tunable):
    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        devices = {d.name: d for d in facts.block.devices} if facts.block else {}
        found = []
        for m in query.served_mounts(facts):
            d = devices.get(m.device.rsplit("/", 1)[-1])
            if d is not None and d.read_ahead_kb.known:
                found.append(d)
        if not found:
            return None
        return found[0].read_ahead_kb.value, tuple(f"/sys/block/{d.name}/queue/read_ahead_kb" for d in found), {}

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="sysfs", target=target, new=value)]


class NfsdThreadsRange(Tunable):
    """The kernel NFS server's threads, where a count is set (not where the kernel sizes them)."""

    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        threads = facts.nfs_server.nfsd_threads.known_value if facts.nfs_server else None
        return (threads, ("nfsd",), {}) if threads else None

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="nfsd_threads", target=target, new=value)]


ARC_MAX = "/sys/module/zfs/parameters/zfs_arc_max"


class ZfsArcMax(Tunable):
    """The ARC's ceiling; its current value the one in force (zfs_arc_max 0 means the module's default)."""

    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        arc = facts.zfs.arc.known_value if facts.zfs else None
        return (arc.max_param or arc.c_max, (ARC_MAX,), {}) if arc else None

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="sysfs", target=target, new=value)]


TUNABLES = [
    TcpBufferMax(
        "tcp-buffer-max",
        "the most a TCP socket may buffer (tcp_rmem and tcp_wmem maxima)",
        PowersOfTwo(64 * KiB, 64 * MiB, "bytes"),
    ),
    NotsentLowat(
        "tcp-notsent-lowat",
        "the unsent data a TCP socket may queue (net.ipv4.tcp_notsent_lowat)",
        Choice((4294967295, 1 * MiB, 128 * KiB, 16 * KiB)),
    ),
    ReadAhead("read-ahead", "the data device's read-ahead", PowersOfTwo(128, 16384, "KiB")),
    NfsdThreadsRange("nfsd-threads", "the kernel NFS server's threads", PowersOfTwo(4, 512, "threads")),
    ZfsArcMax("zfs-arc-max", "the ZFS ARC's largest size (zfs_arc_max)", PowersOfTwo(GiB, 1 << 40, "bytes")),
    VmRatio(
        "dirty-ratio",
        "vm.dirty_ratio: the share of memory that may be dirty before writers wait",
        Steps(5, 60, 5, "%"),
        durability=True,
        machine_wide=True,
    ),
    VmRatio(
        "dirty-background-ratio",
        "vm.dirty_background_ratio: when background writeback starts",
        Steps(1, 30, 1, "%"),
        durability=True,
        machine_wide=True,
    ),
]
