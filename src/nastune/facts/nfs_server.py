"""NFS server facts: the kernel server (exports, threads, pool and RPC statistics)
and NFS-Ganesha (its configuration file: exports, sizes, protocols)."""

from __future__ import annotations

from pydantic import BaseModel

from nastune.conf import exports as exports_conf
from nastune.conf import ganesha as ganesha_conf
from nastune.conf.exports import Export
from nastune.facts.context import Context, integer
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
    squash: str | None = None
    fsal: str | None = None
    max_read: int | None = None
    max_write: int | None = None
    pref_read: int | None = None
    pref_write: int | None = None
    line: int


class GaneshaConfig(BaseModel):
    path: str
    core: dict[str, list[str]]
    exports: list[GaneshaExport]
    includes: list[str]


class NfsServerFacts(Section):
    exports: Fact[list[Export]]
    nfsd_threads: Fact[int]
    nfsd_versions: Fact[str]
    pool_stats: Fact[list[PoolStats]]
    rpc: Fact[dict[str, list[float]]]
    ganesha_running: bool
    ganesha: Fact[GaneshaConfig]


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
    return {words[0]: [float(w) for w in words[1:]] for line in text.splitlines() if (words := line.split())}


def _size(block: ganesha_conf.Block, key: str) -> int | None:
    value = block.first(key)
    return int(value) if value is not None else None


def ganesha_config(text: str, path: str) -> GaneshaConfig:
    top, includes = ganesha_conf.parse(text)
    core: dict[str, list[str]] = {}
    for block in top.children("NFS_CORE_PARAM"):
        core.update(block.params)
    exports = []
    for block in top.children("EXPORT"):
        fsal = block.children("FSAL")
        export_id = block.first("export_id")
        exports.append(
            GaneshaExport(
                export_id=int(export_id) if export_id is not None else None,
                path=block.first("path"),
                pseudo=block.first("pseudo"),
                protocols=block.get("protocols") or core.get("protocols") or [],
                transports=block.get("transports") or [],
                access_type=block.first("access_type"),
                squash=block.first("squash"),
                fsal=fsal[0].first("name") if fsal else None,
                max_read=_size(block, "maxread"),
                max_write=_size(block, "maxwrite"),
                pref_read=_size(block, "prefread"),
                pref_write=_size(block, "prefwrite"),
                line=block.line,
            )
        )
    return GaneshaConfig(path=path, core=core, exports=exports, includes=includes)


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
        try:
            found.extend(exports_conf.parse(text, path))
        except ValueError as e:
            ctx.warn(path, str(e))
    if not read_any:
        return Fact.missing("/etc/exports", ctx.why("/etc/exports"))
    return Fact(value=found, source=", ".join(f for f in files if ctx.text(f) is not None))


def collect(ctx: Context, processes: list[Process]) -> NfsServerFacts:
    ganesha_procs = [p for p in processes if p.name == "ganesha.nfsd"]
    path = config_path(ganesha_procs, ("-f",), GANESHA_DEFAULT)
    ganesha = ctx.fact(path, lambda t: ganesha_config(t, path))
    return NfsServerFacts(
        exports=_exports(ctx),
        nfsd_threads=ctx.fact("/proc/fs/nfsd/threads", integer),
        nfsd_versions=ctx.fact("/proc/fs/nfsd/versions"),
        pool_stats=ctx.fact("/proc/fs/nfsd/pool_stats", pool_stats),
        rpc=ctx.fact("/proc/net/rpc/nfsd", rpc_stats),
        ganesha_running=bool(ganesha_procs),
        ganesha=ganesha,
    )
