"""Questions many rules ask of the facts, answered once."""

from __future__ import annotations

import re
from typing import TypeVar

from nastune.facts import Facts, zfs
from nastune.facts.model import Fact
from nastune.facts.mounts import FstabEntry, Mount
from nastune.facts.network import Interface
from nastune.facts.zfs import Dataset
from nastune.rules.model import Change, Elsewhere, Evidence

T = TypeVar("T")


class AreaMissing(Exception):
    """A rule read an area its needs= does not name: a bug in the rule, not in the facts."""


def present(area: T | None) -> T:
    """An area the rule's needs= names, typed as present: the rule runs only when it was collected."""
    if area is None:
        raise AreaMissing("a rule read a fact area that its needs= does not name")
    return area


LOCAL_DATA_FS = {"xfs", "ext4", "ext3", "btrfs", "f2fs", "jfs", "reiserfs"}
KiB, MiB, GiB, TiB = 1 << 10, 1 << 20, 1 << 30, 1 << 40
# Mbit/s: from here one TCP connection, and the CPU each byte costs, limit a client or a small
# NAS before the link does
FAST_LINK = 10_000


def ram(facts: Facts) -> int | None:
    return facts.system.memory_bytes.value if facts.system and facts.system.memory_bytes.known else None


TCP_CLIENTS = 32  # concurrent connections a small NAS should survive at full buffers


def tcp_buffer_budget(memory: int) -> int:
    """The most one TCP socket should buffer with `memory` bytes of RAM: a quarter of it for
    TCP_CLIENTS connections at full buffers."""
    return memory // 4 // TCP_CLIENTS


def tcp_buffer_ceiling(memory: int) -> int:
    """The buffer maximum to set for `memory`: its budget, and never below 256 KiB."""
    return max(tcp_buffer_budget(memory), 256 * KiB)


def cpu_count(facts: Facts) -> int | None:
    return facts.system.cpus.value if facts.system and facts.system.cpus.known else None


def kernel_at_least(facts: Facts, major: int, minor: int) -> bool:
    """The running kernel is this release or later (False when its release is unknown)."""
    release = facts.system.kernel if facts.system else None
    if release is None or not release.known or not release.value:
        return False
    parts = re.match(r"(\d+)\.(\d+)", release.value)
    return parts is not None and (int(parts.group(1)), int(parts.group(2))) >= (major, minor)


def _up(facts: Facts) -> list[Interface]:
    if facts.network is None:
        return []
    return [i for i in facts.network.interfaces if i.kind != "loopback" and i.operstate.value in ("up", "unknown")]


def samba_globals(facts: Facts) -> dict[str, str] | None:
    """Samba's [global] section as smbd reads it (its defaults filled in), None without one."""
    if facts.smb is None or not facts.smb.config.known or facts.smb.config.value is None:
        return None
    return facts.smb.config.value.globals


def samba_shares(facts: Facts) -> dict[str, dict[str, str]]:
    if facts.smb is None or not facts.smb.config.known or facts.smb.config.value is None:
        return {}
    return facts.smb.config.value.shares


def samba_order(g: dict[str, str], key: str, order: str) -> tuple[list[str], list[Change]]:
    """The algorithms a Samba list parameter (`server smb3 signing algorithms`, ...) names in
    order, and the change to Samba's own `order` when its first is not the same (no security cost:
    only the preference moves)."""
    named = [a.strip() for a in g.get(key, order).split(",") if a.strip()]
    if named[:1] == order.split(",")[:1]:
        return named, []
    return named, [Change(knob="samba", target="global", key=key, current=", ".join(named), new=order)]


def cpu_flags(facts: Facts) -> list[str] | None:
    """The CPU's crypto flags (aes, pclmulqdq, ...), None when they could not be read."""
    found = facts.system.cpu_flags if facts.system else None
    return found.value if found is not None and found.known else None


def crypto_evidence(facts: Facts) -> Evidence:
    return Evidence(
        fact="CPU crypto flags", value=" ".join(cpu_flags(facts) or []) or "unknown", source="/proc/cpuinfo"
    )


def slow_crypto(facts: Facts) -> bool:
    """The CPU is known to lack the AES and carry-less multiply instructions that make AES-GCM and
    AES-GMAC cheap (read as False when its flags are unknown)."""
    flags = cpu_flags(facts)
    return flags is not None and not {"aes", "pclmulqdq"} <= set(flags)


def links(facts: Facts) -> list[Interface]:
    """The NAS's links, up: the interface that holds the address clients use, or without that
    address its NICs and the bridges and bonds over them; never a container's veth or bridge
    (facts/links.py says which and why, and `inspect` shows it)."""
    return [i for i in _up(facts) if i.link]


def nics(facts: Facts) -> list[Interface]:
    """The NICs whose hardware settings matter, up: device-backed ones, and the NAS's link."""
    return [i for i in _up(facts) if i.kind == "physical" or i.carries_clients]


def rate(i: Interface) -> Fact[int]:
    """A link's rate as the rules use it: the operator's, the shaping's, else its nominal speed."""
    return i.rate_mbps or i.speed_mbps


def link_mbit(facts: Facts) -> int | None:
    """The fastest of the NAS's links in Mbit/s, where a rate is known."""
    rates = [r.value for r in (rate(i) for i in links(facts)) if r.known and r.value]
    return max(rates) if rates else None


def data_mounts(facts: Facts) -> list[Mount]:
    """Local file systems that hold data (not the pseudo ones, not /boot)."""
    if facts.mounts is None:
        return []
    return [
        m
        for m in facts.mounts.mounts.value or []
        if m.fstype in LOCAL_DATA_FS and not m.mountpoint.startswith(("/boot", "/snap"))
    ]


def served_paths(facts: Facts) -> list[str]:
    """The directories the file servers share: Samba's share paths, the kernel's NFS exports
    and Ganesha's export paths, as configured."""
    found = []
    smb = facts.smb.config.value if facts.smb and facts.smb.config.known else None
    found += [share["path"] for share in (smb.shares.values() if smb else []) if share.get("path")]
    nfs = facts.nfs_server
    if nfs is not None:
        found += [e.path for e in (nfs.exports.value if nfs.exports.known else None) or []]
        ganesha = nfs.ganesha.value if nfs.ganesha.known else None
        found += [e.path for e in (ganesha.exports if ganesha else []) if e.path]
    return [p for p in found if p.startswith("/")]


def inside(path: str, directory: str) -> bool:
    """`path` is `directory` or lies below it."""
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _served_mountpoints(facts: Facts) -> set[str] | None:
    """Where the shared data lies: each shared directory's deepest mount, and every mount below
    a shared directory. None when no shared directory or no mount is known."""
    paths = served_paths(facts)
    every = facts.mounts.mounts.value if facts.mounts and facts.mounts.mounts.known else None
    if not paths or every is None:
        return None
    held = set()
    for path in paths:
        # the deepest mount of any kind decides: a path on tmpfs is on no data mount
        holding = [m for m in every if inside(path, m.mountpoint)]
        if holding:
            held.add(max(holding, key=lambda m: len(m.mountpoint)).mountpoint)
        held |= {m.mountpoint for m in every if inside(m.mountpoint, path)}
    return held


def served_mounts(facts: Facts) -> list[Mount]:
    """The data file systems that hold shared data: where a change to the data's file system
    acts. With no shared directory known, every data mount."""
    mounts, held = data_mounts(facts), _served_mountpoints(facts)
    return mounts if held is None else [m for m in mounts if m.mountpoint in held]


def served_datasets(facts: Facts) -> list[Dataset]:
    """The ZFS datasets mounted where shared data lies (not a boot pool's, not an application's);
    with no shared directory known, every dataset."""
    datasets = (facts.zfs.datasets.value if facts.zfs else None) or []
    held = _served_mountpoints(facts)
    if held is None:
        return datasets
    mounts = facts.mounts.mounts.value if facts.mounts else None
    mounted = {m.device for m in mounts or [] if m.fstype == "zfs" and m.mountpoint in held}
    return [d for d in datasets if d.name in mounted]


def zfs_at_least(facts: Facts, major: int, minor: int) -> bool:
    """Whether the loaded OpenZFS module is `major.minor` or later (an unknown one is older)."""
    arc = facts.zfs.arc.known_value if facts.zfs else None
    return zfs.at_least(arc.version if arc else None, major, minor)


def zfs_devices(facts: Facts) -> set[str]:
    """The block devices ZFS pools are made of, and the disks their partitions are on (vdb1 and
    vdb): ZFS schedules and prefetches their I/O itself."""
    pools = facts.zfs.pools.known_value if facts.zfs else None
    found = set()
    for pool in pools or []:
        for vdev in pool.vdevs:
            for device in vdev.devices:
                name = device.rsplit("/", 1)[-1]
                found |= {name, re.sub(r"(?<=[0-9])p[0-9]+$|(?<=[a-z])[0-9]+$", "", name)}
    return found


BPFTUNE = ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max",
           "net.ipv4.tcp_congestion_control")  # fmt: skip  # what bpftune's tuners change by themselves


def managed_by(facts: Facts, change: Change) -> Elsewhere | None:
    """Which other manager on the box also sets what `change` does, and what it will do to it."""
    found = facts.system.managers.known_value if facts.system and facts.system.managers else None
    if found is None:
        return None
    tuned, irq = found.tuned, found.irqbalance
    if tuned and change.knob == "sysctl" and change.target in tuned.sysctls:
        kept = (
            "/etc/sysctl.d, where --persist writes it, is applied again after TuneD's own (reapply_sysctl, "
            "tuned-main.conf), so a persisted value holds"
            if tuned.reapply_sysctl
            else "TuneD's value wins over /etc/sysctl.d here (reapply_sysctl = 0), so --persist keeps it in a child "
            f"profile, nastune, that includes {tuned.profile}"
        )
        return Elsewhere(
            manager="TuneD",
            note=f"TuneD's profile {tuned.profile} sets {change.target} = {tuned.sysctls[change.target]} at every "
            f"start: without --persist the value is TuneD's again after a reboot or `tuned-adm profile`; {kept}",
        )
    if tuned and tuned.governor and change.knob == "cpu_governor":
        said = f"TuneD's profile {tuned.profile} sets the governor {tuned.governor} at every start"
        return Elsewhere(manager="TuneD", note=said)
    if irq and change.knob == "irq_affinity" and change.target.startswith("irq/"):
        number = change.target.removeprefix("irq/")
        if number.isdigit() and int(number) not in irq.banned_irqs:
            where = irq.config or "/etc/default/irqbalance"
            return Elsewhere(
                manager="irqbalance",
                note=f"irqbalance is running and would move IRQ {number} back within about 10 s: the plan bans it "
                f"there (--banirq={number} in IRQBALANCE_ARGS, {where}) and restarts irqbalance",
            )
    if found.bpftune and change.knob == "sysctl" and change.target in BPFTUNE:
        said = (
            f"bpftune is running and tunes {change.target} itself: when an administrator sets it, bpftune's sysctl "
            "tuner turns the tuner that manages it off until bpftune restarts (as at every boot), which then tunes "
            "it anew (bpftune-sysctl(8)); leave the value to bpftune, or stop bpftune (systemctl disable --now "
            "bpftune) to keep a persisted one"
        )
        return Elsewhere(manager="bpftune", note=said)
    return None


def irqbalance_bans(facts: Facts, changes: list[Change]) -> list[Change]:
    """Where irqbalance runs, a ban from it for each IRQ `changes` pin that it does not leave
    alone already: without one, its next pass moves the IRQ back."""
    found = facts.system.managers.known_value if facts.system and facts.system.managers else None
    irq = found.irqbalance if found else None
    if irq is None:
        return []
    pinned = [c.target for c in changes if c.knob == "irq_affinity" and c.target.startswith("irq/")]
    free = [
        t for t in pinned if t.removeprefix("irq/").isdigit() and int(t.removeprefix("irq/")) not in irq.banned_irqs
    ]
    return [Change(knob="irqbalance_ban", target=t, current="free", new="banned") for t in free]


def human(n: float) -> str:
    if not 0 <= n < 1 << 70:  # beyond a zebibyte, or not a size at all: no float arithmetic on it
        return f"{n} B" if isinstance(n, int) and n.bit_length() < 200 else "an impossible size"
    for unit, size in (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            return f"{n / size:.1f} {unit}".replace(".0 ", " ")
    return f"{n:.0f} B"


def byte_count(text: str | None) -> int | None:
    """A size in bytes as a tool printed it (zfs get -p), None when it is not one a machine has
    (no digits, or beyond 2^70 bytes)."""
    stripped = (text or "").strip()
    if not stripped.isascii() or not stripped.isdigit() or len(stripped) > 22:
        return None
    value = int(stripped)
    return value if value < 1 << 70 else None


def nfs_fstab(facts: Facts) -> dict[str, FstabEntry]:
    """The NFS entries of /etc/fstab by mount point: what applies at the next mount, and where
    the nfs_client_mount knob makes its change."""
    return fstab_of(facts, ("nfs", "nfs4"))


def fstab_of(facts: Facts, types: tuple[str, ...]) -> dict[str, FstabEntry]:
    """The entries of /etc/fstab of these file system types, by mount point."""
    entries = facts.mounts.fstab.value if facts.mounts and facts.mounts.fstab.known else None
    return {e.file: e for e in entries or [] if e.vfstype in types}


def fstab_size(entry: FstabEntry, key: str) -> int | None:
    """rsize= or wsize= as written in an fstab entry."""
    for option in entry.options:
        name, _, value = option.partition("=")
        if name == key and value.isdigit():
            return int(value)
    return None
