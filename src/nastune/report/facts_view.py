"""Facts as grouped console tables for a person (programs use `--json`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from nastune.facts import Facts
from nastune.facts.block import BlockFacts
from nastune.facts.kernel_log import KernelLogFacts
from nastune.facts.mdraid import MdFacts
from nastune.facts.model import Fact
from nastune.facts.mounts import MountFacts
from nastune.facts.network import OFFLOADS, NetworkFacts
from nastune.facts.nfs_client import NfsClientFacts
from nastune.facts.nfs_server import NfsServerFacts
from nastune.facts.smb import SmbFacts
from nastune.facts.sysctl import EXPECTED, SysctlFacts
from nastune.facts.system import SystemFacts
from nastune.facts.zfs import Arc as ArcFacts
from nastune.facts.zfs import ZfsFacts
from nastune.report.layout import Records

SMB_KNOBS = (
    "aio read size",
    "aio write size",
    "use sendfile",
    "socket options",
    "strict sync",
    "sync always",
    "min receivefile size",
    "server multi channel support",
)


_why = {"on": False}  # whether unknown cells also say why (-v); tables stay narrow otherwise


def show(fact: Fact, fmt: Callable[[Any], str] = str, why: bool = False) -> Text:
    if fact.known:
        return Text(fmt(fact.value))
    if why or _why["on"]:
        return Text(f"? ({fact.unknown or ''})", style="dim")
    return Text("?", style="dim")


def size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def cpus(values: list[int]) -> str:
    if not values:
        return "-"
    runs, start, prev = [], values[0], values[0]
    for v in values[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        runs.append(f"{start}-{prev}" if prev != start else str(start))
        if v is not None:
            start = prev = v
    return ",".join(runs)


def _table(title: str, *columns: str) -> Records:
    return Records(title, *columns)


def _line(title: str, *rest: str | Text) -> Text:
    return Text.assemble((title, "bold"), ": ", *rest)


def _system(s: SystemFacts, out: list) -> None:
    t = _table("System", "fact", "value")
    t.add_row("kernel", show(s.kernel))
    t.add_row("distribution", show(s.distribution))
    if s.appliance and s.appliance.known_value:
        found = s.appliance.known_value
        t.add_row("appliance", f"{found.title} {found.version or '(version unknown)'}: its UI owns its servers' files")
    t.add_row("CPU", Text.assemble(show(s.cpu_model), " x ", show(s.cpus)))
    t.add_row("memory", show(s.memory_bytes, size))
    for node in s.numa_nodes:
        t.add_row(
            f"NUMA node {node.id}", Text.assemble("CPUs ", show(node.cpus, cpus), ", ", show(node.memory_bytes, size))
        )
    t.add_row("irqbalance", "running" if s.irqbalance_running.value else "not running")
    t.add_row("daemons", ", ".join(sorted({p.name for p in s.daemons})) or "-")
    out.append(t)


def _sysctl(sysctl: SysctlFacts, out: list, verbose: bool) -> None:
    t = _table("Kernel tunables (sysctl)", "key", "value")
    for key, fact in sysctl.values.items():
        if verbose or key in EXPECTED:
            t.add_row(key, show(fact))
    out.append(t)


def _network(network: NetworkFacts, out: list) -> None:
    t = _table(
        "Network interfaces",
        "name",
        "kind",
        "role",
        "MTU",
        "rate",
        "driver",
        "NUMA",
        "queues",
        "IRQs on CPUs",
        "offloads off",
        "adaptive rx",
        "rings rx/tx (max)",
    )
    for i in network.interfaces:
        irq_cpus = sorted({c for irq in i.irqs for c in (irq.affinity.value or [])})
        features, ring, coalesce = i.features.known_value or {}, i.rings.known_value, i.coalesce.known_value
        off = [k for k in OFFLOADS if k in features and features[k].active is False]
        rings = "-"
        if ring is not None:
            cur, mx = ring.current, ring.maximum
            rings = f"{cur.get('rx', '?')}/{cur.get('tx', '?')} ({mx.get('rx', '?')}/{mx.get('tx', '?')})"
        adaptive = "-" if coalesce is None else {True: "on", False: "off", None: "n/a"}[coalesce.adaptive_rx]
        t.add_row(
            i.name,
            i.kind,
            i.role or "-",
            show(i.mtu),
            show(i.rate_mbps or i.speed_mbps, lambda v: f"{v} Mb/s"),
            show(i.driver) if i.kind == "physical" else "-",
            show(i.numa_node),
            f"{i.rx_queues}/{i.tx_queues}",
            f"{len(i.irqs)} on {cpus(irq_cpus)}" if i.irqs else "-",
            ", ".join(off) or "-",
            adaptive,
            rings,
        )
    out.append(t)


def _block(block: BlockFacts, out: list) -> None:
    t = _table("Block devices", "name", "kind", "rotational", "scheduler", "read-ahead", "nr_requests", "size")
    for d in block.devices:
        t.add_row(
            d.name,
            d.kind,
            show(d.rotational, lambda v: "yes" if v else "no"),
            show(d.scheduler, lambda s: s.active),
            show(d.read_ahead_kb, lambda v: f"{v} KiB"),
            show(d.nr_requests),
            show(d.size_bytes, size),
        )
    out.append(t)


def _md(md: MdFacts, out: list) -> None:
    if not md.personalities.known:
        out.append(_line("md RAID", show(md.personalities, why=True)))
        return
    t = _table("md RAID arrays", "array", "state", "level", "disks", "status", "chunk", "stripe cache", "sync")
    for a in md.arrays:
        state = a.state + (f" ({a.read_only})" if a.read_only else "") + (" DEGRADED" if a.degraded else "")
        sync = "-"
        if a.sync_action:
            sync = f"{a.sync_action} " + (a.sync_pending or f"{a.sync_percent}%")
        t.add_row(
            a.name,
            state,
            a.level or "-",
            f"{a.active_disks}/{a.raid_disks}" if a.raid_disks else str(len(a.members)),
            a.member_status or "-",
            f"{a.chunk_kb}K" if a.chunk_kb else "-",
            str(a.sysfs_int("stripe_cache_size") or "-"),
            sync,
        )
    out.append(t)


def _mounts(m: MountFacts, out: list) -> None:
    t = _table("File systems", "mountpoint", "device", "type", "options", "XFS log", "fragmentation")
    for mount in m.mounts.value or []:
        if mount.pseudo:
            continue
        xfs = m.xfs.get(mount.mountpoint)
        log = (
            show(xfs, lambda x: f"{x.log} {size(x.log_bytes)}" + (f" on {x.log_device}" if x.log_device else ""))
            if xfs
            else "-"
        )
        frag = m.fragmentation.get(mount.mountpoint)
        t.add_row(
            mount.mountpoint,
            mount.device,
            mount.fstype,
            ",".join(mount.options),
            log,
            show(frag, lambda x: f"{x.percent:.1f}%") if frag else "-",
        )
    out.append(t)


ZFS_SHOWN = ("compression", "sync", "atime", "xattr", "recordsize", "dedup")


def _zfs(z: ZfsFacts, out: list) -> None:
    if not z.pools.known:
        out.append(_line("ZFS", show(z.pools, why=True)))
        return
    pools = _table("ZFS pools", "pool", "health", "size", "allocated", "vdevs")
    for pool in z.pools.value or []:
        vdevs = "; ".join(f"{v.role} {v.kind} of {len(v.devices)}" for v in pool.vdevs) or "not read"
        pools.add_row(pool.name, pool.health, size(pool.size), size(pool.allocated), vdevs)
    out.append(pools)
    t = _table("ZFS datasets (where a value is not set on the dataset itself: its source)", "dataset", *ZFS_SHOWN)
    for d in z.datasets.value or []:
        values = {k: d.properties.get(k, "-") for k in ZFS_SHOWN}
        if values["recordsize"].isdigit():  # zfs get -p gives bytes
            values["recordsize"] = size(int(values["recordsize"]))
        t.add_row(d.name, *(_sourced(values[k], d.sources.get(k, "local")) for k in ZFS_SHOWN))
    out.append(t)
    out.append(_line("ZFS ARC", show(z.arc, _arc)))
    params = z.parameters.known_value
    if params:
        out.append(_line("ZFS module", ", ".join(f"{k.removeprefix('zfs_')} {v}" for k, v in params.items())))


def _sourced(value: str, source: str) -> str:
    return value if source in ("local", "-") else f"{value} ({source})"


def _arc(arc: ArcFacts) -> str:
    rate = f", hit rate {arc.hit_rate:.0%}" if arc.hit_rate is not None else ""
    return f"{size(arc.size)} of at most {size(arc.c_max)}{rate}; OpenZFS {arc.version or 'version unknown'}"


def _nfs_server(n: NfsServerFacts, out: list) -> None:
    t = _table("NFS server", "what", "value")
    t.add_row("nfsd threads", show(n.nfsd_threads))
    for e in n.exports.value or []:
        t.add_row(f"export {e.path}", "; ".join(f"{c.host}({','.join(c.options)})" for c in e.clients))
    if not n.exports.known:
        t.add_row("/etc/exports", show(n.exports, why=True))
    ganesha = n.ganesha.known_value
    if ganesha is not None:
        for g in ganesha.exports:
            t.add_row(
                f"ganesha export {g.path}",
                f"pseudo {g.pseudo}, protocols {','.join(g.protocols)}, "
                f"MaxRead {g.max_read or 'default'}, MaxWrite {g.max_write or 'default'}",
            )
    else:
        t.add_row("NFS-Ganesha", show(n.ganesha, why=True))
    out.append(t)


def _nfs_client(client: NfsClientFacts, out: list) -> None:
    mounts = client.mounts
    if not mounts.value:
        out.append(_line("NFS client mounts", show(mounts, lambda v: "none", why=True)))
        return
    t = _table("NFS client mounts", "mountpoint", "server", "vers", "rsize", "wsize", "proto", "nconnect")
    for m in mounts.value:
        t.add_row(
            *(str(v) for v in (m.mountpoint, m.server, m.version or "?", m.rsize, m.wsize, m.proto or "?", m.nconnect))
        )
    out.append(t)


def _smb(s: SmbFacts, out: list) -> None:
    c = s.config.known_value
    if c is None:
        out.append(_line("Samba", show(s.config, why=True)))
        return
    t = _table(
        f"Samba ({c.path}, {'resolved by testparm' if c.resolved else 'unresolved'}, "
        f"{'running' if s.running else 'not running'})",
        "parameter",
        "global",
        *(name for name in c.shares),
    )
    for knob in SMB_KNOBS:
        t.add_row(knob, c.globals.get(knob, "-"), *(c.shares[n].get(knob, "") for n in c.shares))
    out.append(t)


def _kernel_log(k: KernelLogFacts, out: list) -> None:
    out.append(_line("Kernel log", "page allocation failures: ", show(k.page_allocation_failures, why=True)))
    out.extend(Text(f"  {line}") for line in k.examples)


def render(facts: Facts, console: Console, verbose: bool = False) -> None:
    _why["on"] = verbose
    parts: list = []
    for area, draw in (
        ("system", _system),
        ("network", _network),
        ("block", _block),
        ("md", _md),
        ("mounts", _mounts),
        ("zfs", _zfs),
        ("nfs_server", _nfs_server),
        ("nfs_client", _nfs_client),
        ("smb", _smb),
        ("kernel_log", _kernel_log),
    ):
        if getattr(facts, area) is not None:
            draw(getattr(facts, area), parts)
    if facts.sysctl is not None:
        _sysctl(facts.sysctl, parts, verbose)
    for part in parts:
        console.print(part, markup=False, highlight=False)
    for w in facts.warnings:
        console.print(Text.assemble(("warning", "yellow"), f" {w}"), markup=False, highlight=False)
