"""Mounted file systems and /etc/fstab with parsed options; for XFS, the log layout
(xfs_info) and, only when asked, fragmentation: the extents of a sample of files (never
freezing anything), or exactly, read from a frozen file system."""

from __future__ import annotations

import re

from pydantic import BaseModel

from nastune.conf import fstab
from nastune.conf.fstab import unescape
from nastune.facts import extents
from nastune.facts.context import Context
from nastune.facts.model import Fact, Section
from nastune.jsonfile import loads

AREA = "mounts"
PSEUDO = {
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "tmpfs",
    "cgroup",
    "cgroup2",
    "securityfs",
    "pstore",
    "bpf",
    "debugfs",
    "tracefs",
    "mqueue",
    "hugetlbfs",
    "configfs",
    "fusectl",
    "binfmt_misc",
    "autofs",
    "rpc_pipefs",
    "nsfs",
    "efivarfs",
    "ramfs",
    "nfsd",
    "selinuxfs",
}


class Mount(BaseModel):
    device: str
    mountpoint: str
    fstype: str
    options: list[str]
    pseudo: bool

    def option(self, name: str) -> str | None:
        """The value of `name=value`, '' for a bare flag, None when absent."""
        for opt in self.options:
            key, sep, value = opt.partition("=")
            if key == name:
                return value if sep else ""
        return None


class FstabEntry(BaseModel):
    spec: str
    file: str
    vfstype: str
    options: list[str]
    line: int


class XfsInfo(BaseModel):
    device: str
    block_size: int
    agcount: int
    data_blocks: int
    log: str  # internal or external
    log_device: str | None = None
    log_bytes: int
    sunit: int
    swidth: int


class XfsFragmentation(BaseModel):
    actual: int
    ideal: int
    percent: float
    extents_per_file: float | None = None
    method: str  # how a consistent reading was obtained


class MountFacts(Section):
    mounts: Fact[list[Mount]]
    fstab: Fact[list[FstabEntry]]
    xfs: dict[str, Fact[XfsInfo]]
    fragmentation: dict[str, Fact[XfsFragmentation]]

    def at(self, mountpoint: str) -> Mount | None:
        found = [m for m in self.mounts.value or [] if m.mountpoint == mountpoint]
        return found[-1] if found else None


def parse_mounts(text: str) -> list[Mount]:
    mounts = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 4:
            raise ValueError(f"line {number}: expected at least 4 fields, got {len(fields)}")
        mounts.append(
            Mount(
                device=unescape(fields[0]),
                mountpoint=unescape(fields[1]),
                fstype=fields[2],
                options=fields[3].split(","),
                pseudo=fields[2] in PSEUDO,
            )
        )
    return mounts


def _fstab(ctx: Context) -> Fact[list[FstabEntry]]:
    path = "/etc/fstab"
    text = ctx.text(path)
    if text is None:
        return Fact.missing(path, ctx.why(path))
    warn = lambda message, number: ctx.warn(path, message, number)
    entries = [
        FstabEntry(spec=e.spec, file=e.file, vfstype=e.vfstype, options=e.options, line=e.line + 1)
        for e in fstab.entries(text, warn)
    ]
    return Fact(value=entries, source=path)


def parse_xfs_info(text: str) -> XfsInfo:
    sections: dict[str, dict[str, str]] = {}
    heads: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        name, sep, rest = line.partition("=")
        if not sep:
            continue
        if name.strip():
            section = name.strip()
            heads[section] = re.split(r"\s{2,}", rest.strip())[0]
        for key, value in re.findall(r"([\w-]+)=([^\s,]+)", rest):
            sections.setdefault(section, {}).setdefault(key, value)
    meta, data, log = sections["meta-data"], sections["data"], sections["log"]
    log_head = heads["log"]
    external = not log_head.startswith("internal")
    return XfsInfo(
        device=heads["meta-data"],
        block_size=int(data["bsize"]),
        agcount=int(meta["agcount"]),
        data_blocks=int(data["blocks"]),
        log="external" if external else "internal",
        log_device=log_head if external else None,
        log_bytes=int(log["blocks"]) * int(log["bsize"]),
        sunit=int(data.get("sunit", "0")),
        swidth=int(data.get("swidth", "0")),
    )


def parse_frag(text: str) -> tuple[int, int, float, float | None]:
    m = re.search(r"actual (\d+), ideal (\d+), fragmentation factor ([\d.]+)%", text)
    if not m:
        raise ValueError("no 'actual N, ideal N' line")
    per_file = re.search(r"average ([\d.]+) extents per file", text)
    return int(m.group(1)), int(m.group(2)), float(m.group(3)), float(per_file.group(1)) if per_file else None


# Frozen, these would stop the machine's own writers (its journal, its package manager, nastune's
# own output) until the thaw, and a thaw that fails would leave the machine hung: always sampled.
NEVER_FROZEN = ("/", "/usr", "/var")


def _fragmentation(ctx: Context, mount: Mount) -> Fact[XfsFragmentation]:
    """xfs_db reads the device directly, so a mounted file system is frozen first:
    a reading of a live, changing file system would be silently wrong."""
    frozen = ctx.run(["xfs_freeze", "-f", mount.mountpoint])
    if not frozen.ok:
        return Fact.missing(frozen.source, f"cannot freeze for a consistent reading: {frozen.reason}")
    try:
        ctx.run(["blockdev", "--flushbufs", mount.device])
        result = ctx.run(["xfs_db", "-r", "-c", "frag", mount.device])
    finally:
        thawed = ctx.run(["xfs_freeze", "-u", mount.mountpoint])
        if not thawed.ok:
            ctx.warn(thawed.source, f"could not thaw {mount.mountpoint}: {thawed.reason}")
    if not result.ok:
        return Fact.missing(result.source, result.reason)
    try:
        actual, ideal, percent, per_file = parse_frag(result.stdout)
    except ValueError as e:
        return Fact.missing(result.source, f"unparsable output: {e}")
    return Fact(
        value=XfsFragmentation(actual=actual, ideal=ideal, percent=percent, extents_per_file=per_file, method="frozen"),
        source=result.source,
    )


def _sampled(ctx: Context, mount: Mount) -> Fact[XfsFragmentation]:
    """The fragmentation of a sample of the file system's files (facts/extents.py): the same
    factor xfs_db reports, (actual - ideal) / actual, over the files sampled."""
    result = ctx.root.probe(extents.key(mount.mountpoint), lambda: extents.sample(mount.mountpoint))
    if not result.ok:
        return Fact.missing(result.source, result.reason)
    try:
        found = loads(result.stdout, result.source)
        if not isinstance(found, dict):
            raise ValueError("not a JSON object")
        files, actual, ideal = (int(found[k]) for k in ("files", "extents", "ideal"))
    except (ValueError, KeyError, TypeError) as e:
        return Fact.missing(result.source, f"unparsable output: {e}")
    if files == 0 or actual <= 0:
        return Fact.missing(result.source, "no file with data blocks to sample")
    return Fact(
        value=XfsFragmentation(
            actual=actual,
            ideal=ideal,
            percent=round(100 * max(actual - ideal, 0) / actual, 2),
            extents_per_file=round(actual / files, 2),
            method=f"sampled: the extents of {files} files (FIEMAP; nothing frozen)",
        ),
        source=f"FIEMAP of {files} files under {mount.mountpoint}",
    )


def collect(ctx: Context) -> MountFacts:
    mounts = ctx.fact("/proc/mounts", parse_mounts)
    xfs, frag = {}, {}
    for mount in mounts.value or []:
        if mount.fstype != "xfs" or mount.mountpoint in xfs:
            continue
        xfs[mount.mountpoint] = ctx.command_fact(["xfs_info", mount.mountpoint], parse_xfs_info)
        if ctx.reading.fragmentation:
            exact = ctx.reading.fragmentation == "exact" and mount.mountpoint not in NEVER_FROZEN
            frag[mount.mountpoint] = (_fragmentation if exact else _sampled)(ctx, mount)
    return MountFacts(mounts=mounts, fstab=_fstab(ctx), xfs=xfs, fragmentation=frag)
