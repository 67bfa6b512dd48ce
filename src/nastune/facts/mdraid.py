"""Linux md RAID facts: every array of /proc/mdstat in whatever state it is in, plus
the per-array tunables and state from /sys/block/mdX/md/."""

from __future__ import annotations

import re

from pydantic import BaseModel

from nastune.facts.context import Context, digits
from nastune.facts.model import Fact, Section

AREA = "md"
MDSTAT = "/proc/mdstat"
SYSFS_KEYS = (
    "level",
    "chunk_size",
    "raid_disks",
    "degraded",
    "sync_action",
    "sync_completed",
    "stripe_cache_size",
    "array_state",
    "metadata_version",
)
_FLAGS = {"F": "faulty", "S": "spare", "W": "write-mostly", "J": "journal", "R": "replacement"}
_MEMBER = re.compile(r"^(\S+)\[(\d+)\]((?:\([A-Z]\))*)$")
_HEAD = re.compile(r"^(md\w*|md_d\d+)\s*:\s*(\S+)\s*(.*)$")
_PROGRESS = re.compile(
    r"(resync|recovery|reshape|check|repair)\s*=\s*([\d.]+)%"
    r"(?:\s*\((\d+)/(\d+)\))?(?:\s*finish=(\S+))?(?:\s*speed=(\S+))?"
)
_PENDING = re.compile(r"(resync|recovery|reshape|check|repair)\s*=\s*(DELAYED|PENDING|REMOTE)")


class MdMember(BaseModel):
    device: str
    slot: int
    flags: list[str]


class MdArray(BaseModel):
    name: str
    state: str  # active or inactive
    read_only: str | None = None  # read-only, auto-read-only
    level: str | None = None
    members: list[MdMember]
    blocks: int | None = None
    metadata: str | None = None
    chunk_kb: int | None = None
    raid_disks: int | None = None
    active_disks: int | None = None
    member_status: str | None = None
    degraded: bool
    sync_action: str | None = None
    sync_percent: float | None = None
    sync_finish: str | None = None
    sync_speed: str | None = None
    sync_pending: str | None = None
    bitmap: str | None = None
    sysfs: dict[str, Fact[str]]

    def sysfs_int(self, key: str) -> int | None:
        fact = self.sysfs.get(key)
        value = (fact.value or "").strip() if fact and fact.known else ""
        return int(value) if digits(value) else None


class MdFacts(Section):
    personalities: Fact[list[str]]
    arrays: list[MdArray]


def _head(rest: str) -> tuple[str | None, str | None, list[MdMember]]:
    read_only = None
    ro = re.match(r"\((read-only|auto-read-only)\)\s*", rest)
    if ro:
        read_only, rest = ro.group(1), rest[ro.end() :]
    level = None
    members = []
    for token in rest.split():
        member = _MEMBER.match(token)
        if member:
            flags = [_FLAGS.get(f, f) for f in re.findall(r"\(([A-Z])\)", member.group(3))]
            members.append(MdMember(device=member.group(1), slot=int(member.group(2)), flags=flags))
        elif level is None and not members:
            level = token
        else:
            raise ValueError(f"unexpected token {token!r}")
    return read_only, level, members


def parse_mdstat(text: str) -> tuple[list[str], list[dict]]:
    """Personalities and one dict per array with everything /proc/mdstat says of it."""
    personalities: list[str] = []
    arrays: list[dict] = []
    current: dict | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("Personalities"):
            personalities = re.findall(r"\[(\w+)\]", line)
            continue
        head = _HEAD.match(line)
        if head and head.group(2) in ("active", "inactive"):
            try:
                read_only, level, members = _head(head.group(3))
            except ValueError as e:
                raise ValueError(f"line {number}: {e}") from e
            current = {
                "name": head.group(1),
                "state": head.group(2),
                "read_only": read_only,
                "level": level,
                "members": members,
                "blocks": None,
                "metadata": None,
                "chunk_kb": None,
                "raid_disks": None,
                "active_disks": None,
                "member_status": None,
                "sync_action": None,
                "sync_percent": None,
                "sync_finish": None,
                "sync_speed": None,
                "sync_pending": None,
                "bitmap": None,
            }
            arrays.append(current)
            continue
        if current is None or not line.strip():
            if not line.strip():
                current = None
            continue
        if m := re.search(r"(\d+) blocks", line):
            current["blocks"] = int(m.group(1))
        if m := re.search(r"super (\S+)", line):
            current["metadata"] = m.group(1)
        if m := re.search(r"(\d+)[kK] chunks?", line):
            current["chunk_kb"] = int(m.group(1))
        if m := re.search(r"\[(\d+)/(\d+)\]\s*\[([U_]+)\]", line):
            current["raid_disks"], current["active_disks"] = int(m.group(1)), int(m.group(2))
            current["member_status"] = m.group(3)
        if m := _PROGRESS.search(line):
            current.update(
                sync_action=m.group(1), sync_percent=float(m.group(2)), sync_finish=m.group(5), sync_speed=m.group(6)
            )
        if m := _PENDING.search(line):
            current.update(sync_action=m.group(1), sync_pending=m.group(2))
        if m := re.search(r"bitmap:\s*(.+)$", line):
            current["bitmap"] = m.group(1).strip()
    return personalities, arrays


def collect(ctx: Context) -> MdFacts:
    text = ctx.text(MDSTAT)
    if text is None:
        reason = ctx.why(MDSTAT)
        if reason == "missing":
            reason = "no md driver loaded (no /proc/mdstat)"
        return MdFacts(personalities=Fact.missing(MDSTAT, reason), arrays=[])
    try:
        personalities, parsed = parse_mdstat(text)
    except ValueError as e:
        ctx.warn(MDSTAT, str(e))
        return MdFacts(personalities=Fact.missing(MDSTAT, f"malformed: {e}"), arrays=[])
    arrays = []
    for entry in parsed:
        base = f"/sys/block/{entry['name']}/md"
        sysfs: dict[str, Fact[str]] = {
            key: ctx.fact(f"{base}/{key}")
            for key in SYSFS_KEYS
            if key != "stripe_cache_size" or (entry["level"] or "") in ("raid4", "raid5", "raid6")
        }
        degraded = bool(entry["member_status"] and "_" in entry["member_status"])
        arrays.append(MdArray(**entry, degraded=degraded, sysfs=sysfs))
    return MdFacts(personalities=Fact(value=personalities, source=MDSTAT), arrays=arrays)
