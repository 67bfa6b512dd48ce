"""NFS server facts: the kernel server (exports, threads, pool and RPC statistics)
and NFS-Ganesha (its configuration file: exports, sizes, protocols)."""

from __future__ import annotations

import fnmatch
import posixpath
from dataclasses import dataclass, field

from pydantic import BaseModel

from nastune.conf import exports as exports_conf
from nastune.conf import ganesha as ganesha_conf
from nastune.conf import nfs_conf
from nastune.conf.exports import Export
from nastune.facts.context import Context, integer, number
from nastune.facts.model import Fact, Section
from nastune.facts.system import Process

AREA = "nfs_server"
GANESHA_DEFAULT = "/etc/ganesha/ganesha.conf"


class PoolStats(BaseModel):
    pool: int
    packets_arrived: int
    sockets_enqueued: int
    threads_woken: int
    threads_timedout: int


class GaneshaExport(BaseModel):
    export_id: int | None = None
    path: str | None = None
    pseudo: str | None = None
    protocols: list[str]
    transports: list[str]
    access_type: str | None = None
    sec_type: list[str] = []  # SecType: sys, krb5, krb5i, krb5p, in the order offered
    squash: str | None = None
    fsal: str | None = None
    max_read: int | None = None
    max_write: int | None = None
    pref_read: int | None = None
    pref_write: int | None = None
    line: int
    file: str = ""  # the file that holds it: the main file, or one it includes


class GaneshaConfig(BaseModel):
    path: str
    core: dict[str, list[str]]
    exports: list[GaneshaExport]
    includes: list[str]  # every %include target, as written
    files: list[str] = []  # the files read: the main one and the included ones found under the root
    external: list[str] = []  # sources not read: %url (rados://...) and includes not found, with why
    errors: list[str] = []  # blocks left out, each with its file and line


NFS_CONF = "/etc/nfs.conf"


class NfsServerFacts(Section):
    exports: Fact[list[Export]]
    nfsd_threads: Fact[int]
    nfsd_versions: Fact[str]
    pool_stats: Fact[list[PoolStats]]
    rpc: Fact[dict[str, list[float]]]
    ganesha_running: bool
    ganesha: Fact[GaneshaConfig]
    nfsd_conf: Fact[dict[str, str]] | None = None  # /etc/nfs.conf [nfsd]: threads, min-threads, ...


def pool_stats(text: str) -> list[PoolStats]:
    pools = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        values = [int(v) for v in line.split()[:5]]
        pools.append(
            PoolStats(
                pool=values[0],
                packets_arrived=values[1],
                sockets_enqueued=values[2],
                threads_woken=values[3],
                threads_timedout=values[4],
            )
        )
    return pools


def rpc_stats(text: str) -> dict[str, list[float]]:
    """/proc/net/rpc/nfsd: one line per counter group ('th 8 0 ...', 'io R W', 'rpc ...')."""
    return {words[0]: [number(w) for w in words[1:]] for line in text.splitlines() if (words := line.split())}


INCLUDE_DEPTH = 8  # Ganesha's own limit on nested %include is lower; a loop must end


def _number(block: ganesha_conf.Block, key: str, where: str, errors: list[str]) -> int | None:
    value = block.first(key)
    if value is None:
        return None
    try:
        return int(value, 0)
    except ValueError:
        errors.append(f"{where} line {block.line}: {block.name} {key} = {value[:40]!r} is not a number (ignored)")
        return None


def _dir(ctx: Context, file: str, target: str) -> list[str]:
    """The files a `%dir` names: every file of a directory, or those matching its glob, in name
    order (Ganesha reads them in the directory's order, which a tree does not keep)."""
    target = posixpath.normpath(posixpath.join(posixpath.dirname(file), target))
    directory, pattern = (posixpath.dirname(target), posixpath.basename(target)) if "*" in target else (target, "*")
    names = sorted(n for n in ctx.listdir(directory) if fnmatch.fnmatchcase(n, pattern))
    return [posixpath.join(directory, n) for n in names if not ctx.root.isdir(posixpath.join(directory, n))]


@dataclass
class _Read:
    """What reading a Ganesha configuration and its includes found."""

    files: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)
    blocks: list[tuple[str, ganesha_conf.Block]] = field(default_factory=list)

    def read(self, ctx: Context, file: str, content: str, depth: int) -> None:
        """`file`'s blocks and, where each directive stands, the files it includes."""
        self.files.append(file)
        parsed = ganesha_conf.parse(content)
        self.errors.extend(f"{file} {e}" for e in parsed.errors)
        for line, url in parsed.urls:
            self.external.append(f"{url} (%url, {file} line {line}: not read)")
        # an included file stands where its directive is: blocks and sources in line order
        sources = [(line, t, [t]) for line, t in parsed.includes]
        sources += [(line, t, _dir(ctx, file, t)) for line, t in parsed.dirs]
        items: list[tuple[int, str, list[str], ganesha_conf.Block | None]] = [
            (b.line, "", [], b) for b in parsed.top.blocks
        ]
        for line, target, paths, block in sorted(items + [(*s, None) for s in sources], key=lambda i: i[0]):
            if block is not None:
                self.blocks.append((file, block))
                continue
            self.includes.append(target)
            if not paths:
                self.external.append(f"{target} (%dir, {file} line {line}: no file there)")
            for path in paths:
                self.include(ctx, file, line, path, depth)

    def include(self, ctx: Context, file: str, line: int, path: str, depth: int) -> None:
        included = posixpath.normpath(posixpath.join(posixpath.dirname(file), path))
        if included in self.files or depth >= INCLUDE_DEPTH:
            self.external.append(f"{path} ({file} line {line}: included again or nested too deep; not read)")
            return
        found = ctx.text(included)
        if found is None:
            self.external.append(f"{path} ({file} line {line}: {ctx.why(included)})")
            return
        self.read(ctx, included, found, depth + 1)


def ganesha_config(ctx: Context, path: str, text: str) -> GaneshaConfig:
    """The configuration at `path` with the files it includes (followed where they are files
    under the root; a %url or a missing include is recorded as an external source, never a
    failure); a block with an error is left out, named with its file and line, the rest read."""
    found = _Read()
    found.read(ctx, path, text, 0)
    core: dict[str, list[str]] = {}
    defaults: dict[str, list[str]] = {}  # EXPORT_DEFAULTS: what an export does not set itself
    for _, block in found.blocks:
        if block.name.lower() == "nfs_core_param":
            core.update(block.params)
        elif block.name.lower() == "export_defaults":
            defaults.update(block.params)
    exports = [
        _export(block, file, core, defaults, found.errors)
        for file, block in found.blocks
        if block.name.lower() == "export"
    ]
    for error in found.errors:
        ctx.warn(path, error)
    return GaneshaConfig(
        path=path,
        core=core,
        exports=exports,
        includes=found.includes,
        files=found.files,
        external=found.external,
        errors=found.errors,
    )


def _export(block: ganesha_conf.Block, file: str, core: dict, defaults: dict, errors: list[str]) -> GaneshaExport:
    """An EXPORT block as Ganesha reads it: what it leaves unset from NFS_CORE_PARAM and
    EXPORT_DEFAULTS."""
    fsal = block.children("FSAL")
    return GaneshaExport(
        export_id=_number(block, "export_id", file, errors),
        path=block.first("path"),
        pseudo=block.first("pseudo"),
        protocols=block.get("protocols") or core.get("protocols") or [],
        transports=block.get("transports") or [],
        access_type=block.first("access_type") or next(iter(defaults.get("access_type", [])), None),
        sec_type=block.get("sectype") or defaults.get("sectype") or [],
        squash=block.first("squash"),
        fsal=fsal[0].first("name") if fsal else None,
        max_read=_number(block, "maxread", file, errors),
        max_write=_number(block, "maxwrite", file, errors),
        pref_read=_number(block, "prefread", file, errors),
        pref_write=_number(block, "prefwrite", file, errors),
        line=block.line,
        file=file,
    )


def config_path(processes: list[Process], flags: tuple[str, ...], default: str) -> str:
    """The config file a running daemon was started with (`-f F`, `--flag=F`), else the default."""
    for proc in processes:
        args = proc.cmdline
        for i, arg in enumerate(args):
            if arg in flags and i + 1 < len(args):
                return args[i + 1]
            for flag in flags:
                if flag.startswith("--") and arg.startswith(flag + "="):
                    return arg.split("=", 1)[1]
    return default


def _exports(ctx: Context) -> Fact[list[Export]]:
    files = ["/etc/exports"] + [f"/etc/exports.d/{n}" for n in ctx.listdir("/etc/exports.d") if n.endswith(".exports")]
    found: list[Export] = []
    read_any = False
    for path in files:
        text = ctx.text(path)
        if text is None:
            continue
        read_any = True
        problems: list[str] = []
        found.extend(exports_conf.parse(text, path, problems))
        for problem in problems:
            ctx.warn(path, f"{problem} (entry skipped, as exportfs skips it)")
    if not read_any:
        return Fact.missing("/etc/exports", ctx.why("/etc/exports"))
    return Fact(value=found, source=", ".join(f for f in files if ctx.text(f) is not None))


def collect(ctx: Context, processes: list[Process]) -> NfsServerFacts:
    ganesha_procs = [p for p in processes if p.name == "ganesha.nfsd"]
    path = config_path(ganesha_procs, ("-f",), GANESHA_DEFAULT)
    ganesha = ctx.fact(path, lambda text: ganesha_config(ctx, path, text))
    return NfsServerFacts(
        exports=_exports(ctx),
        nfsd_threads=ctx.fact("/proc/fs/nfsd/threads", integer),
        nfsd_versions=ctx.fact("/proc/fs/nfsd/versions"),
        pool_stats=ctx.fact("/proc/fs/nfsd/pool_stats", pool_stats),
        rpc=ctx.fact("/proc/net/rpc/nfsd", rpc_stats),
        ganesha_running=bool(ganesha_procs),
        ganesha=ganesha,
        nfsd_conf=ctx.fact(NFS_CONF, lambda text: nfs_conf.section(text, "nfsd")),
    )
