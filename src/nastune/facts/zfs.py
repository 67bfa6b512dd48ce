"""ZFS facts, where ZFS is present: pools and their vdevs, dataset properties and where each
value comes from (set here, inherited, OpenZFS's default), the ARC's size and hit rate, and the
module's write-back parameters (dirty data, transaction groups).

The tools' tab-separated output for scripts (-H, -p) is read, not their JSON: `zpool status -j`
and `zfs get -j` arrived in OpenZFS 2.3, and Debian 12 ships 2.1, TrueNAS 24.04 2.2."""

from __future__ import annotations

import re

from pydantic import BaseModel

from nastune.facts.context import Context
from nastune.facts.model import Fact, Section

AREA = "zfs"
PROPERTIES = (
    "compression",
    "compressratio",
    "sync",
    "dedup",
    "recordsize",
    "atime",
    "used",
    "logicalused",
    "primarycache",
)
# Read by a command of their own, so that snapshots captured before nastune read them still replay
# the properties above.
LATER_PROPERTIES = ("xattr",)
ARCSTATS = "/proc/spl/kstat/zfs/arcstats"
PARAMETERS = "/sys/module/zfs/parameters"
ARC_MAX = f"{PARAMETERS}/zfs_arc_max"
VERSION = "/sys/module/zfs/version"
# how much written data ZFS buffers before writers wait, and how often it flushes it: what decides
# a write's fast start and the throttle after it
WRITEBACK = ("zfs_dirty_data_max", "zfs_dirty_data_max_percent", "zfs_txg_timeout", "zfs_arc_min", "zfs_arc_max")
ROLES = {"logs": "log", "cache": "cache", "spares": "spare", "special": "special", "dedup": "dedup"}


class Vdev(BaseModel):
    """A top-level vdev: its kind (mirror, raidz1, draid2..., or disk for a lone device), its role
    in the pool (data, log, cache, spare, special, dedup), its devices and its state."""

    kind: str
    role: str = "data"
    devices: list[str] = []
    state: str = ""


class Pool(BaseModel):
    name: str
    size: int
    allocated: int
    free: int
    health: str
    dedupratio: str
    vdevs: list[Vdev] = []  # from zpool status (empty where it was not read)


class Dataset(BaseModel):
    name: str
    properties: dict[str, str]
    sources: dict[str, str] = {}  # where each value comes from: local, default, inherited from X, -


def at_least(version: str | None, major: int, minor: int) -> bool:
    """Whether an OpenZFS version (2.3.2-2~bpo12+2) is `major.minor` or later; unknown is older."""
    found = re.match(r"([0-9]+)\.([0-9]+)", (version or "").strip())
    return found is not None and (int(found.group(1)), int(found.group(2))) >= (major, minor)


def status(text: str) -> dict[str, list[Vdev]]:
    """Each pool's top-level vdevs from `zpool status -P -L` (its config: NAME STATE READ WRITE
    CKSUM, nested two spaces a level; the roles' headings at the pool's level)."""
    found: dict[str, list[Vdev]] = {}
    pool, role = "", "data"
    for line in text.splitlines():
        if line.strip().startswith("pool:"):
            pool, role = line.split(":", 1)[1].strip(), "data"
            found[pool] = []
            continue
        if not line.startswith("\t") or not line.strip() or line.split()[0] == "NAME" or not pool:
            continue
        body = line[1:]
        depth, fields = (len(body) - len(body.lstrip(" "))) // 2, body.split()
        if depth == 0:  # the pool's own line, or a role's heading
            role = ROLES.get(fields[0], "data")
        elif depth == 1:
            kind = "disk" if fields[0].startswith("/") else fields[0].rsplit("-", 1)[0]
            vdev = Vdev(kind=kind, role=role, state=fields[1] if len(fields) > 1 else "")
            vdev.devices += [fields[0]] if kind == "disk" else []
            found[pool].append(vdev)
        elif found[pool]:
            found[pool][-1].devices.append(fields[0])
    return found


class Arc(BaseModel):
    size: int
    c_max: int
    max_param: int | None = None  # zfs_arc_max as set; 0 means OpenZFS's default for this version
    version: str | None = None  # the loaded module's, e.g. 2.1.11-1
    hits: int | None = None  # since the module loaded
    misses: int | None = None

    @property
    def hit_rate(self) -> float | None:
        seen = (self.hits or 0) + (self.misses or 0)
        return None if self.hits is None or self.misses is None or not seen else self.hits / seen


def _module(ctx: Context, arc: Fact[Arc]) -> Fact[Arc]:
    """The ARC with its module's zfs_arc_max and version: what its default maximum is depends on both."""
    if arc.value is not None:
        param = (ctx.text(ARC_MAX) or "").strip()
        arc.value.max_param = int(param) if param.isdigit() and len(param) < 21 else None
        arc.value.version = (ctx.text(VERSION) or "").strip()[:40] or None
    return arc


class ZfsFacts(Section):
    pools: Fact[list[Pool]]
    datasets: Fact[list[Dataset]]
    arc: Fact[Arc]
    parameters: Fact[dict[str, int]] = Fact.missing(PARAMETERS, "not read")  # the module's WRITEBACK ones


def pools(text: str) -> list[Pool]:
    found = []
    for line in text.splitlines():
        if line.strip():
            name, size, alloc, free, health, dedup = line.split("\t")[:6]
            found.append(
                Pool(name=name, size=int(size), allocated=int(alloc), free=int(free), health=health, dedupratio=dedup)
            )
    return found


def datasets(text: str) -> list[Dataset]:
    by_name: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        if line.strip():
            name, prop, value = line.split("\t")[:3]
            by_name.setdefault(name, {})[prop] = value
    return [Dataset(name=n, properties=p) for n, p in by_name.items()]


def arcstats(text: str) -> Arc:
    values = {}
    for line in text.splitlines()[2:]:
        fields = line.split()
        if len(fields) == 3:
            values[fields[0]] = int(fields[2])
    return Arc(size=values["size"], c_max=values["c_max"], hits=values.get("hits"), misses=values.get("misses"))


def _sourced(text: str) -> dict[str, dict[str, str]]:
    """`zfs get -H -o name,property,source`: each dataset's properties' sources."""
    by_name: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        if line.strip():
            name, prop, source = line.split("\t")[:3]
            by_name.setdefault(name, {})[prop] = source
    return by_name


def _datasets(ctx: Context) -> Fact[list[Dataset]]:
    get = ["zfs", "get", "-H", "-p", "-o", "name,property,value", "-t", "filesystem,volume"]
    found = ctx.command_fact([*get, ",".join(PROPERTIES)], datasets)
    later = ctx.command_fact([*get, ",".join(LATER_PROPERTIES)], datasets)
    if found.value is not None and later.value is not None:
        extra = {d.name: d.properties for d in later.value}
        for d in found.value:
            d.properties.update(extra.get(d.name, {}))
    wanted = ",".join(PROPERTIES + LATER_PROPERTIES)
    sources = ctx.command_fact(
        ["zfs", "get", "-H", "-o", "name,property,source", "-t", "filesystem,volume", wanted], _sourced
    )
    for d in found.value or []:
        d.sources = (sources.value or {}).get(d.name, {})
    return found


def _pools(ctx: Context) -> Fact[list[Pool]]:
    found = ctx.command_fact(["zpool", "list", "-H", "-p", "-o", "name,size,allocated,free,health,dedupratio"], pools)
    layout = ctx.command_fact(["zpool", "status", "-P", "-L"], status)
    for pool in found.value or []:
        pool.vdevs = (layout.value or {}).get(pool.name, [])
    return found


def _parameters(ctx: Context) -> Fact[dict[str, int]]:
    """The module's write-back parameters that it has (older modules lack some)."""
    found = {name: (ctx.text(f"{PARAMETERS}/{name}") or "").strip() for name in WRITEBACK}
    values = {name: int(v) for name, v in found.items() if v.isdigit() and len(v) < 21}
    if not values:
        return Fact.missing(PARAMETERS, ctx.why(f"{PARAMETERS}/{WRITEBACK[0]}"))
    return Fact(value=values, source=PARAMETERS)


def collect(ctx: Context) -> ZfsFacts:
    return ZfsFacts(
        pools=_pools(ctx),
        datasets=_datasets(ctx),
        arc=_module(ctx, ctx.fact(ARCSTATS, arcstats)),
        parameters=_parameters(ctx),
    )
