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
ARCSTATS = "/proc/spl/kstat/zfs/arcstats"


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


def collect(ctx: Context) -> ZfsFacts:
    return ZfsFacts(
        pools=ctx.command_fact(
            ["zpool", "list", "-H", "-p", "-o", "name,size,allocated,free,health,dedupratio"], pools
        ),
        datasets=ctx.command_fact(
            ["zfs", "get", "-H", "-p", "-o", "name,property,value", "-t", "filesystem,volume", ",".join(PROPERTIES)],
            datasets,
        ),
        arc=ctx.fact(ARCSTATS, arcstats),
    )
