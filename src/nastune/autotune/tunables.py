"""The tunables of autotune's search space: each one or more changes of the tuning engine's
knobs with a safe range or list of values, bound to this system by its facts (TUNABLES, by name:
these, and those an installed extension's settings module lists, nastune.plugins)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nastune import plugins
from nastune.autotune.domains import Choice, GiB, KiB, MiB, PowersOfTwo, Steps
from nastune.facts import Facts
from nastune.rules import query
from nastune.rules.model import Change
from nastune.tune.plan import PlannedChange

if TYPE_CHECKING:
    pass

Domain = PowersOfTwo | Steps | Choice
Config = dict[str, object]  # a configuration of the search: each tunable's name -> its value


@dataclass(frozen=True)
class Bound:
    """A tunable on this system: its current value (None: outside the domain; it may lie between
    two of the domain's values) and the changes that set a value."""

    tunable: Tunable
    current: object
    targets: tuple[str, ...]
    context: dict = field(default_factory=dict)  # what else the changes keep (a sysctl's other fields)

    def changes(self, value: Any) -> list[Change]:
        return [c for target in self.targets for c in self.tunable.changes(target, value, self.context)]


@dataclass
class Tunable:
    """One dimension of the search: `find` returns (current value, targets) on a system, or
    None where the tunable does not exist there."""

    name: str
    doc: str
    domain: Domain
    durability: bool = False  # a trade of crash safety for speed: searched only with --accept-risk durability
    machine_wide: bool = False  # a kernel-wide value the lab's nas shares with its clients

    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        raise NotImplementedError

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        raise NotImplementedError

    def value_of(self, planned: list[PlannedChange]) -> int | None:
        """The value of this tunable that `planned` (changes of its knobs) asks for, when it is
        not one of the domain's; None when it cannot be read."""
        return None

    def bind(self, facts: Facts) -> Bound | None:
        found = self.find(facts)
        if found is None:
            return None
        current, targets, context = found
        return Bound(self, current if self.domain.nearest(current) is not None else None, targets, context)


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

    def value_of(self, planned: list[PlannedChange]) -> int | None:
        maxima = {int(str(p.new).split()[-1]) for p in planned if str(p.new).split()[-1:] != []}
        return max(maxima) if maxima else None


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


class Mtu(Tunable):
    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        found = [i for i in query.links(facts) if i.mtu.known]
        return (found[0].mtu.value, tuple(i.name for i in found), {}) if found else None

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="mtu", target=target, new=value)]


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


class NfsdThreads(Tunable):
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


BUFFERS = "TCP_NODELAY SO_RCVBUF={0} SO_SNDBUF={0}"
BUILT_IN: dict[str, Tunable] = {
    t.name: t
    for t in (
        NfsTransferSize(
            "nfs-transfer-size",
            "NFS-Ganesha MaxRead, MaxWrite, PrefRead, PrefWrite (kept equal)",
            PowersOfTwo(8 * KiB, 1 * MiB, "bytes"),
        ),
        TcpBufferMax(
            "tcp-buffer-max",
            "the most a TCP socket may buffer (tcp_rmem and tcp_wmem maxima)",
            PowersOfTwo(64 * KiB, 64 * MiB, "bytes"),
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
        SambaChoice(
            "smb-sendfile", "Samba's use sendfile", {"no": {"use sendfile": "no"}, "yes": {"use sendfile": "yes"}}
        ),
        NotsentLowat(
            "tcp-notsent-lowat",
            "the unsent data a TCP socket may queue (net.ipv4.tcp_notsent_lowat)",
            Choice((4294967295, 1 * MiB, 128 * KiB, 16 * KiB)),
        ),
        Atime("atime", "how the data file system records access times", Choice(("strictatime", "relatime", "noatime"))),
        ReadAhead("read-ahead", "the data device's read-ahead", PowersOfTwo(128, 16384, "KiB")),
        Mtu("mtu", "the storage link's MTU (every host on the segment must accept it)", Choice((1500, 9000))),
        NfsdThreads("nfsd-threads", "the kernel NFS server's threads", PowersOfTwo(4, 512, "threads")),
        ZfsArcMax("zfs-arc-max", "the ZFS ARC's largest size (zfs_arc_max)", PowersOfTwo(GiB, 1 << 40, "bytes")),
        ZfsRecordsize("zfs-recordsize", "the data datasets' ZFS recordsize", PowersOfTwo(16 * KiB, MiB, "bytes")),
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
    )
}


def _collect() -> dict[str, Tunable]:
    """The built-in tunables, then each installed extension's (its module's TUNABLES list)."""
    found = dict(BUILT_IN)
    for module in plugins.modules(plugins.SETTINGS):
        found.update((t.name, t) for t in getattr(module, "TUNABLES", ()))
    return found


TUNABLES: plugins.Registry[Tunable] = plugins.Registry(_collect)
