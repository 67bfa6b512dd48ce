"""Block device facts: rotational or not, I/O scheduler, read-ahead, queue depth, size."""

from __future__ import annotations

from pydantic import BaseModel

from nastune.facts.context import Context, integer
from nastune.facts.model import Fact, Section

AREA = "block"


class Scheduler(BaseModel):
    active: str
    available: list[str]


class BlockDevice(BaseModel):
    name: str
    kind: str  # disk, md, dm, loop, zram, nbd, ...
    rotational: Fact[bool]
    scheduler: Fact[Scheduler]
    read_ahead_kb: Fact[int]
    nr_requests: Fact[int]
    size_bytes: Fact[int]
    model: Fact[str]
    holders: list[str]
    slaves: list[str]


class BlockFacts(Section):
    devices: list[BlockDevice]

    def device(self, name: str) -> BlockDevice | None:
        return next((d for d in self.devices if d.name == name), None)


def scheduler(text: str) -> Scheduler:
    names = text.split()
    active = [n[1:-1] for n in names if n.startswith("[") and n.endswith("]")]
    if not names:
        raise ValueError("empty")
    return Scheduler(active=active[0] if active else names[0], available=[n.strip("[]") for n in names])


def flag(text: str) -> bool:
    value = text.strip()
    if value not in ("0", "1"):
        raise ValueError(f"expected 0 or 1, got {value!r}")
    return value == "1"


def sectors(text: str) -> int:
    return int(text.strip()) * 512


def _kind(name: str) -> str:
    for prefix in ("md", "dm-", "loop", "zram", "nbd", "sr", "ram", "zd"):
        if name.startswith(prefix):
            return prefix.rstrip("-")
    return "disk"


def collect(ctx: Context) -> BlockFacts:
    devices = []
    for name in ctx.listdir("/sys/block"):
        base = f"/sys/block/{name}"
        size = ctx.fact(f"{base}/size", sectors)
        if _kind(name) in ("loop", "ram") and size.value == 0:
            continue  # an unattached loop or ram device holds no data
        devices.append(
            BlockDevice(
                name=name,
                kind=_kind(name),
                rotational=ctx.fact(f"{base}/queue/rotational", flag),
                scheduler=ctx.fact(f"{base}/queue/scheduler", scheduler),
                read_ahead_kb=ctx.fact(f"{base}/queue/read_ahead_kb", integer),
                nr_requests=ctx.fact(f"{base}/queue/nr_requests", integer),
                size_bytes=size,
                model=ctx.fact(f"{base}/device/model")
                if ctx.root.exists(f"{base}/device")
                else Fact.missing(f"{base}/device/model", "virtual device"),
                holders=ctx.listdir(f"{base}/holders"),
                slaves=ctx.listdir(f"{base}/slaves"),
            )
        )
    return BlockFacts(devices=devices)
