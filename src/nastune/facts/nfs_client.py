"""NFS client mounts from /proc/self/mountstats: negotiated options and per-op statistics."""

from __future__ import annotations

import re

from pydantic import BaseModel

from nastune.facts.context import Context, digits
from nastune.facts.model import Fact, Section

AREA = "nfs_client"
MOUNTSTATS = "/proc/self/mountstats"
MOUNTINFO = "/proc/self/mountinfo"
_DEVICE = re.compile(r"^device (\S+) mounted on (\S+) with fstype (\S+)(?: statvers=(\S+))?")
_OP_FIELDS = (
    "ops",
    "transmissions",
    "timeouts",
    "bytes_sent",
    "bytes_received",
    "queue_ms",
    "rtt_ms",
    "execute_ms",
    "errors",
)


class NfsOp(BaseModel):
    ops: int
    transmissions: int
    timeouts: int
    bytes_sent: int
    bytes_received: int
    queue_ms: int
    rtt_ms: int
    execute_ms: int
    errors: int = 0


class NfsMount(BaseModel):
    server: str
    mountpoint: str
    fstype: str
    options: dict[str, str]
    version: str | None = None
    rsize: int | None = None
    wsize: int | None = None
    proto: str | None = None
    nconnect: int
    timeo: int | None = None
    hard: bool
    ops: dict[str, NfsOp]
    bdi: str | None = None  # its backing device's name in /sys/class/bdi (MAJ:MIN), new at every mount
    read_ahead_kb: int | None = None  # that bdi's, None when unread


class NfsClientFacts(Section):
    mounts: Fact[list[NfsMount]]


def _int(options: dict[str, str], key: str) -> int | None:
    value = options.get(key)
    return int(value) if value and digits(value) else None


def _mount(head: re.Match, body: list[str]) -> NfsMount:
    options: dict[str, str] = {}
    ops: dict[str, NfsOp] = {}
    in_ops = False
    for line in body:
        text = line.strip()
        if text.startswith("opts:"):
            for opt in text[5:].strip().split(","):
                key, _, value = opt.partition("=")
                options[key] = value
        elif text == "per-op statistics":
            in_ops = True
        elif in_ops and ":" in text:
            name, _, numbers = text.partition(":")
            values = [int(v) for v in numbers.split()]
            ops[name.strip()] = NfsOp(**dict(zip(_OP_FIELDS, values)))
    return NfsMount(
        server=head.group(1),
        mountpoint=head.group(2),
        fstype=head.group(3),
        options=options,
        version=options.get("vers"),
        rsize=_int(options, "rsize"),
        wsize=_int(options, "wsize"),
        proto=options.get("proto"),
        nconnect=_int(options, "nconnect") or 1,
        timeo=_int(options, "timeo"),
        hard="soft" not in options,
        ops=ops,
    )


def parse_mountstats(text: str) -> list[NfsMount]:
    mounts = []
    head: re.Match[str] | None = None
    body: list[str] = []
    for line in text.splitlines() + ["device end mounted on end with fstype end"]:
        m = _DEVICE.match(line)
        if m:
            if head and head.group(3).startswith("nfs"):
                mounts.append(_mount(head, body))
            head, body = m, []
        elif head:
            body.append(line)
    return mounts


def devices(text: str) -> dict[str, str]:
    """Mount point -> MAJ:MIN from mountinfo (an NFS mount's bdi is named after its anonymous device)."""
    found = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 5 and re.fullmatch(r"\d{1,4}:\d{1,8}", fields[2]):
            found[fields[4]] = fields[2]
    return found


def _read_ahead(ctx: Context, mounts: Fact[list[NfsMount]]) -> Fact[list[NfsMount]]:
    if not mounts.value:
        return mounts
    by_point = devices(ctx.text(MOUNTINFO) or "")
    for m in mounts.value:
        m.bdi = device = by_point.get(m.mountpoint)
        value = (ctx.text(f"/sys/class/bdi/{device}/read_ahead_kb") or "").strip() if device else ""
        m.read_ahead_kb = int(value) if value.isdigit() and len(value) < 10 else None
    return mounts


def collect(ctx: Context) -> NfsClientFacts:
    return NfsClientFacts(mounts=_read_ahead(ctx, ctx.fact(MOUNTSTATS, parse_mountstats)))
