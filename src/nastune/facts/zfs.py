"""ZFS facts, where ZFS is present: pools, dataset properties, ARC size."""

from __future__ import annotations

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
ARC_MAX = "/sys/module/zfs/parameters/zfs_arc_max"
VERSION = "/sys/module/zfs/version"


class Pool(BaseModel):
    name: str
    size: int
    allocated: int
    free: int
    health: str
    dedupratio: str


class Dataset(BaseModel):
    name: str
    properties: dict[str, str]


class Arc(BaseModel):
    size: int
    c_max: int
    max_param: int | None = None  # zfs_arc_max as set; 0 means OpenZFS's default for this version
    version: str | None = None  # the loaded module's, e.g. 2.1.11-1


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
    return Arc(size=values["size"], c_max=values["c_max"])


def _datasets(ctx: Context) -> Fact[list[Dataset]]:
    get = ["zfs", "get", "-H", "-p", "-o", "name,property,value", "-t", "filesystem,volume"]
    found = ctx.command_fact([*get, ",".join(PROPERTIES)], datasets)
    later = ctx.command_fact([*get, ",".join(LATER_PROPERTIES)], datasets)
    if found.value is not None and later.value is not None:
        extra = {d.name: d.properties for d in later.value}
        for d in found.value:
            d.properties.update(extra.get(d.name, {}))
    return found


def collect(ctx: Context) -> ZfsFacts:
    return ZfsFacts(
        pools=ctx.command_fact(
            ["zpool", "list", "-H", "-p", "-o", "name,size,allocated,free,health,dedupratio"], pools
        ),
        datasets=_datasets(ctx),
        arc=_module(ctx, ctx.fact(ARCSTATS, arcstats)),
    )
