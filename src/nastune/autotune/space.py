"""The search space of autotune: named tunables, each one or more changes of the tuning engine's
knobs with a safe range or list of values, bound to this system by its facts, and the rules
that tie tunables together. A configuration outside the space or against a rule is refused
before anything is applied."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from nastune.autotune.domains import Choice, GiB, KiB, MiB, PowersOfTwo, SpaceError, Steps
from nastune.facts import Facts
from nastune.risks import Risks
from nastune.rules import query
from nastune.rules.catalog.tcp_buffers_small_ram import CLIENTS
from nastune.rules.model import Change
from nastune.tune.knobs import KNOBS
from nastune.tune.plan import Plan, PlannedChange

if TYPE_CHECKING:
    from optuna.trial import Trial

Domain = PowersOfTwo | Steps | Choice


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
TUNABLES: dict[str, Tunable] = {
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


def _dirty_order(space: Space, config: dict) -> str | None:
    background, dirty = space.value(config, "dirty-background-ratio"), space.value(config, "dirty-ratio")
    if isinstance(background, int) and isinstance(dirty, int) and background >= dirty:
        return f"dirty-background-ratio {background} must be below dirty-ratio {dirty}: writers would stall first"
    return None


def _tcp_memory(space: Space, config: dict) -> str | None:
    value, memory = space.value(config, "tcp-buffer-max"), query.ram(space.facts)
    if not isinstance(value, int) or memory is None:
        return None
    budget = max(memory // 4 // CLIENTS, 256 * KiB)  # tcp-buffers-small-ram's budget
    if value > budget:
        return (
            f"tcp-buffer-max {value} bytes: {CLIENTS} connections at it would take more than a quarter of "
            f"{query.human(memory)} of RAM (at most {budget})"
        )
    return None


def _arc_memory(space: Space, config: dict) -> str | None:
    value, memory = space.value(config, "zfs-arc-max"), query.ram(space.facts)
    if not isinstance(value, int) or memory is None or value <= memory - 2 * GiB:
        return None
    return f"zfs-arc-max {query.human(value)}: leaves less than 2 GiB of {query.human(memory)} of RAM to the rest"


CONSTRAINTS = (_dirty_order, _tcp_memory, _arc_memory)  # NfsTransferSize keeps MaxRead = MaxWrite by construction


@dataclass
class Space:
    """The tunables searched on one system, bound to it."""

    facts: Facts
    bound: dict[str, Bound]
    # the rule-based plan's changes no tunable searches: every trial but the base makes them too,
    # so the search looks for the best on top of the plan rather than without its other changes
    beside: tuple[PlannedChange, ...] = ()

    def value(self, config: dict, name: str) -> Any:
        """`name`'s value in `config`, or its current one when the config leaves it out."""
        if name in config:
            return config[name]
        b = self.bound.get(name)
        return b.current if b else None

    def check(self, config: dict) -> list[str]:
        """Why `config` is refused: unknown tunables, values outside their domain, broken rules."""
        errors = []
        for name, value in config.items():
            if name not in self.bound:
                errors.append(f"{name}: not a tunable of this search ({', '.join(self.bound) or 'none'})")
                continue
            why = self.bound[name].tunable.domain.check(value)
            if why and value != self.bound[name].current:  # a system's own value is always its to keep
                errors.append(f"{name}: {why}")
        return errors or [why for rule in CONSTRAINTS if (why := rule(self, config))]

    def suggest(self, trial: Trial) -> dict:
        return {name: b.tunable.domain.suggest(trial, name) for name, b in self.bound.items()}

    def params(self, config: dict) -> dict:
        """Optuna's parameters for `config` (to enqueue a known configuration as a trial): a
        current value between two of the domain's stands as the nearest in the sampler's model."""
        found = {}
        for name, value in config.items():
            domain = self.bound[name].tunable.domain
            if value is not None and (near := domain.nearest(value)) is not None:
                found[name] = domain.param(near)
        return found

    def trades(self, config: dict) -> list[str]:
        """The durability trades `config` makes: what it moves of the tunables that trade crash
        safety for speed."""
        return [
            f"{name} {b.current} -> {config[name]}"
            for name, b in self.bound.items()
            if b.tunable.durability and name in config and config[name] != b.current
        ]

    def current(self) -> dict:
        return {name: b.current for name, b in self.bound.items()}

    def plan(self, config: dict) -> Plan:
        """The plan that sets `config`: the plan's changes beside the search, and a change for
        every tunable it moves from its current value."""
        errors = self.check(config)
        if errors:
            raise SpaceError("; ".join(errors))
        made = [
            PlannedChange(id=0, rule=f"autotune:{name}", why=self.bound[name].tunable.doc, **c.model_dump())
            for name, value in config.items()
            if value != self.bound[name].current
            for c in self.bound[name].changes(value)
        ]
        changes = [c.model_copy(update={"id": i + 1}) for i, c in enumerate([*self.beside, *made])]
        return Plan(changes=changes)

    def described_beside(self) -> list[str]:
        return [c.describe() for c in self.beside]

    def changes_anything(self, config: dict) -> bool:
        return bool(self.beside) or config != self.current()

    def unsearched(self, plan: Plan) -> list[PlannedChange]:
        """`plan`'s changes that no tunable searches, but its one-off actions (a trial sets; it
        does not run a defragmenter each time)."""
        searched = {key for b in self.bound.values() if b.current is not None for key in _keys(b, b.current)}
        return [c for c in plan.changes if (c.knob, c.target, c.key) not in searched and not KNOBS[c.knob].action]

    def on_top_of(self, changes: list[PlannedChange]) -> Space:
        """This space with `changes` made beside every trial but the base."""
        return replace(self, beside=tuple(changes))

    def of_plan(self, plan: Plan) -> dict:
        """The configuration a plan (the rule-based one) sets, current values elsewhere; a
        tunable the plan sets to a value between the domain's takes the next one up (a rule's
        value is a minimum it needs met), one it cannot read is left to the search."""
        config = {}
        for name, b in self.bound.items():
            sets = _keys(b, b.current) if b.current is not None else set()
            planned = [p for p in plan.changes if (p.knob, p.target, p.key) in sets]
            if not planned:
                config[name] = b.current
                continue
            wanted = next((v for v in b.tunable.domain.values() if _sets(b, v, planned)), None)
            if wanted is None and (asked := b.tunable.value_of(planned)) is not None:
                wanted = b.tunable.domain.snap(asked)
            if wanted is not None:
                config[name] = wanted
        return config


def _keys(bound: Bound, value: Any) -> set[tuple[str, str, str | None]]:
    return {(c.knob, c.target, c.key) for c in bound.changes(value)}


def _sets(bound: Bound, value: Any, planned: list[PlannedChange]) -> bool:
    made = {(c.knob, c.target, c.key): c.new for c in bound.changes(value)}
    return all(str(made.get((p.knob, p.target, p.key))) == str(p.new) for p in planned)


def build(facts: Facts, names: list[str] | None, shared_kernel: bool, accept_risk: Risks) -> tuple[Space, list[str]]:
    """The space on this system, and why each tunable asked for (or known) is left out
    (`shared_kernel`: the NAS shares this machine's kernel with its clients, as the lab's does)."""
    unknown = [n for n in names or [] if n not in TUNABLES]
    if unknown:
        raise SpaceError(f"unknown tunable {unknown[0]!r}; the tunables are {', '.join(TUNABLES)}")
    bound, left = {}, []
    for name in names or list(TUNABLES):
        t = TUNABLES[name]
        if t.durability and "durability" not in accept_risk:
            left.append(f"{name}: trades durability (needs --accept-risk durability)")
        elif t.machine_wide and shared_kernel:
            left.append(f"{name}: machine-wide; the lab's nas shares this kernel with its clients")
        elif (b := t.bind(facts)) is None:
            left.append(f"{name}: not on this system")
        elif b.current is None:
            left.append(f"{name}: its current value is unset or outside the safe domain ({t.domain.describe()})")
        else:
            bound[name] = b
    if not bound:
        raise SpaceError("nothing to search: " + "; ".join(left))
    return Space(facts, bound), left
